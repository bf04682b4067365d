"""The task log: the `tasks` journal stream, replayed, with snapshots for a fast start.

Invariants:

- The journal is the only durability primitive. A write is validated (`check_record`), then
  appended (fsync'd by the journal) and only then applied to the in-memory state; a snapshot is
  a cache of a replay and can always be rebuilt from the journal.
- A snapshot is written whole to a temporary name, fsync'd and renamed over the old one, with a
  checksum of its state: a reader sees the old snapshot or the new one, never half of one.
- Nothing is reset silently. A snapshot that cannot be read, fails its checksum or claims records
  the journal does not have, or a journal line that cannot be read or fails validation, makes the
  log *degraded*: the state is still replayed from every readable record, writes are refused,
  and `problems` says why. `gitstrata doctor` rebuilds the snapshot, and acknowledges the skipped
  lines with an `ack` record (the lines themselves stay in the journal, untouched).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import GitstrataError, JournalError
from .journal import Journal, JournalRead
from .private import open_private, private_dir
from .tasks import STREAM, apply, check_record, empty_state, replay

SNAPSHOT_FORMAT = 1
SNAPSHOT_NAME = "tasks.json"
SNAPSHOT_EVERY = 50  # records appended between two snapshots


class TaskStoreDegraded(GitstrataError):
    """The task store found a corrupt snapshot or journal line and only answers reads."""

    hint = "run `gitstrata doctor` to check the task store and rebuild its snapshot"


@dataclass
class Loaded:
    state: dict[str, Any]
    warnings: list[str] = field(default_factory=list)  # skipped journal lines and records
    problems: list[str] = field(default_factory=list)  # why the log is degraded (empty: it is not)
    snapshot: str = "none"  # none | used | rebuilt-needed
    replayed: int = 0  # records applied past the snapshot


def _digest(state: dict[str, Any]) -> str:
    text = json.dumps(state, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class TaskLog:
    """The task records of one index folder (`<index>/journal/tasks.jsonl`, snapshot in
    `<index>/snapshots/tasks.json`)."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = Path(index_dir)
        self.journal = Journal(self.index_dir / "journal")
        self.snapshot_path = self.index_dir / "snapshots" / SNAPSHOT_NAME
        self._lock = threading.Lock()
        self._loaded: Loaded | None = None
        self._seen: tuple[int, int] | None = None  # (size, mtime_ns) of the stream when read
        self._since_snapshot = 0

    # ------------------------------------------------------------------ reading

    def _stamp(self) -> tuple[int, int] | None:
        try:
            st = self.journal.path(STREAM).stat()
        except OSError:
            return None
        return st.st_size, st.st_mtime_ns

    def current(self) -> Loaded:
        """The replayed state, reread when another process appended since the last read."""
        with self._lock:
            stamp = self._stamp()
            if self._loaded is None or stamp != self._seen:
                self._loaded = self.load()
                self._seen = stamp
            return self._loaded

    def load(self) -> Loaded:
        """Replay the journal over the snapshot (or from nothing); never raises for bad data."""
        try:
            got = self.journal.read(STREAM)
        except JournalError as exc:
            return Loaded(empty_state(), problems=[f"the task journal cannot be read: {exc}"])
        valid, warnings = _checked(got)
        top = max((r["id"] for r in valid if isinstance(r.get("id"), int)), default=0)
        base, problem = self.read_snapshot(top)
        problems = [problem] if problem else []
        state = replay(valid, base)
        out = Loaded(state, warnings=warnings, problems=problems)
        out.snapshot = "used" if base is not None else ("corrupt" if problem else "none")
        out.replayed = sum(1 for r in valid if r["id"] > (base or empty_state())["last_id"])
        skipped = len(warnings)
        if skipped > state["acked"]:
            out.problems.append(
                f"{skipped - state['acked']} line(s) of the task journal could not be read "
                f"({warnings[-1]})"
            )
        return out

    def read_snapshot(self, journal_top: int) -> tuple[dict[str, Any] | None, str | None]:
        """(state, None) from a sound snapshot, (None, None) without one, (None, why) when it is
        corrupt or ahead of the journal."""
        try:
            raw = self.snapshot_path.read_bytes()
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            return None, f"the task snapshot {SNAPSHOT_NAME} cannot be read ({exc.strerror})"
        try:
            data = json.loads(raw.decode("utf-8"))
            state = data["state"]
            ok = data.get("format") == SNAPSHOT_FORMAT and data.get("sha256") == _digest(state)
        except (UnicodeDecodeError, ValueError, KeyError, TypeError):
            ok, state = False, None
        if not ok or not isinstance(state, dict):
            return None, f"the task snapshot {SNAPSHOT_NAME} is corrupt (checksum or format)"
        if state.get("last_id", 0) > journal_top:
            return None, (
                f"the task snapshot {SNAPSHOT_NAME} holds records up to #{state['last_id']} but "
                f"the journal ends at #{journal_top}"
            )
        return state, None

    # ------------------------------------------------------------------ writing

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        """Validate, append durably, apply; returns the record as written (with `id`, `ts`).
        Refused while the log is degraded."""
        loaded = self.current()
        if loaded.problems:
            raise TaskStoreDegraded(
                "the task store is read-only (degraded mode): " + "; ".join(loaded.problems)
            )
        problem = check_record(record)
        if problem is not None:
            raise JournalError(f"refusing to write an invalid task record: {problem}")
        with self._lock:
            written = self.journal.append(STREAM, record)
            assert self._loaded is not None
            if written["id"] == self._loaded.state["last_id"] + 1:
                apply(self._loaded.state, written)
            # another process may append between our append and a stat: compare on next read
            self._seen = None
            self._since_snapshot += 1
        if self._since_snapshot >= SNAPSHOT_EVERY:
            self.snapshot()
        return written

    def snapshot(self) -> None:
        """Write the current state as the snapshot (atomically); not while degraded."""
        loaded = self.current()
        if loaded.problems:
            return
        self.write_snapshot(loaded.state)

    def write_snapshot(self, state: dict[str, Any]) -> None:
        """The snapshot, replaced atomically; owner-only like the journal it is made from."""
        folder = private_dir(self.snapshot_path.parent)
        body = {"format": SNAPSHOT_FORMAT, "sha256": _digest(state), "state": state}
        data = json.dumps(body, ensure_ascii=False, sort_keys=True).encode("utf-8")
        tmp = folder / f".{SNAPSHOT_NAME}.{os.getpid()}.tmp"
        fd = open_private(tmp, os.O_WRONLY | os.O_TRUNC)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.snapshot_path)
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
        self._since_snapshot = 0

    # ------------------------------------------------------------------ repair

    def repair(self) -> dict[str, Any]:
        """What `gitstrata doctor` does to the task store: replay the whole journal, compare the
        snapshot with it, rewrite the snapshot from the replay, and acknowledge the journal
        lines that could not be read (reported here, kept in the journal). Returns the findings."""
        with self._lock:
            self._loaded = None
        try:
            got = self.journal.read(STREAM)
        except JournalError as exc:
            return {"ok": False, "problems": [str(exc)], "actions": []}
        valid, warnings = _checked(got)
        full = replay(valid)
        top = full["last_id"]
        snap, snap_problem = self.read_snapshot(top)
        found: list[str] = []
        actions: list[str] = []
        if snap_problem:
            found.append(snap_problem)
        elif snap is not None and _digest(replay(valid, snap)) != _digest(full):
            found.append("the task snapshot disagrees with a replay of the journal")
        new_lines = len(warnings) - full["acked"]
        if new_lines > 0:
            found.extend(warnings[full["acked"] :])
            ack = self.journal.append(STREAM, {"kind": "ack", "skipped": len(warnings)})
            apply(full, ack)
            actions.append(
                f"acknowledged {new_lines} unreadable journal line(s) (kept as they are)"
            )
        self.write_snapshot(full)
        actions.append(
            f"rebuilt the task snapshot from {len(valid)} journal record(s) "
            f"({len(full['tasks'])} task(s))"
        )
        with self._lock:
            self._loaded = None
        return {
            "ok": True,
            "found": found,
            "actions": actions,
            "tasks": len(full["tasks"]),
            "records": len(valid),
        }


def _checked(got: JournalRead) -> tuple[list[dict[str, Any]], list[str]]:
    """The records of a journal read that fit their type, and the read's warnings plus one per
    record skipped."""
    warnings = list(got.warnings)
    valid = []
    for rec in got.records:
        problem = check_record(rec)
        if problem is None:
            valid.append(rec)
        else:
            warnings.append(f"{STREAM}.jsonl: skipped record {rec.get('id', '?')}: {problem}")
    return valid, warnings
