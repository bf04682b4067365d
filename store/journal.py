"""The journal: the only place live writes go (failed attempts, memories, checkpoints).

One append-only JSONL file per stream under `journal/`. An append takes an exclusive `flock` on
the stream, assigns the next id, writes one line, flushes and fsyncs before returning: a record a
caller was told about is on disk. Nothing is ever rewritten; forgetting appends a tombstone
(`{"op": "forget", "target": ID}`).

No single line can break the journal:

- A read checks every line: it must be a JSON object with a positive integer `id` not seen
  before and a text `ts`, and fit its record type when the reader passes a validator. A line
  that does not is skipped and reported (`Skipped`: file, line number, reason), never rewritten:
  it stays in the file byte for byte. A torn last line (a crash mid-write) is one such line.
- An append never reads old lines: the next id and the file size it was computed for are kept
  in a sidecar (`.<stream>.tail`, checksummed) written under the same lock. When the sidecar does not match
  the file (missing, or the file was written by something else), the ids are recovered once by
  a scan that only looks for the largest integer `id`, so an odd line can neither stop writes
  nor make an id repeat. Appends cost the same at any journal size.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .errors import JournalError
from .private import open_private, private_dir

STREAM_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
MAX_RECORD_BYTES = 4 << 20
MAX_ID = (1 << 53) - 1  # ids stay exact in every JSON reader

# what a record type's validator says about a line: None when it fits, else why it does not
Validator = Callable[[Mapping[str, Any]], str | None]


@dataclass(frozen=True)
class Skipped:
    """A journal line a read left out (it is still in the file, unchanged)."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        if self.reason == "incomplete last line":
            return f"{self.file}: skipped an incomplete last line"
        return f"{self.file}: skipped line {self.line} ({self.reason})"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "reason": self.reason}


@dataclass
class JournalRead:
    records: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        return [str(s) for s in self.skipped]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _valid_id(value: Any) -> bool:
    return type(value) is int and 0 < value <= MAX_ID


class Journal:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._paths: dict[str, Path] = {}  # a server stats a stream on every request

    def path(self, stream: str) -> Path:
        got = self._paths.get(stream)
        if got is None:
            if not STREAM_RE.match(stream):
                raise JournalError(f"invalid journal stream name {stream!r}")
            got = self._paths[stream] = self.root / f"{stream}.jsonl"
        return got

    def _tail_path(self, stream: str) -> Path:
        return self.root / f".{stream}.tail"

    def streams(self) -> list[str]:
        """The streams that have a file, by name."""
        if not self.root.is_dir():
            return []
        return sorted(p.stem for p in self.root.glob("*.jsonl") if STREAM_RE.match(p.stem))

    def append(self, stream: str, record: dict[str, Any]) -> dict[str, Any]:
        """Append `record` (a JSON object) with a new `id` and `ts`; returns what was written."""
        path = self.path(stream)
        try:
            private_dir(self.root)
            fd = open_private(path, os.O_RDWR | os.O_APPEND)
        except OSError as exc:
            raise JournalError(f"{path}: cannot open the journal ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            size = os.fstat(fd).st_size
            next_id, reusable = self._next_id(stream, fd, size)
            full = {
                "id": next_id,
                "ts": record.get("ts") or _now(),
                **{k: v for k, v in record.items() if k not in ("id", "ts")},
            }
            line = json.dumps(full, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            data = line.encode("utf-8")
            if len(data) > MAX_RECORD_BYTES:
                raise JournalError(
                    f"journal record of {len(data)} bytes is over the {MAX_RECORD_BYTES} byte limit"
                )
            # a torn last line (a crash mid-write) is closed off so this record starts fresh
            prefix = b"\n" if size and os.pread(fd, 1, size - 1) != b"\n" else b""
            _write_all(fd, prefix + data + b"\n")
            os.fsync(fd)
            if reusable:
                self._save_tail(stream, size + len(prefix) + len(data) + 1, next_id + 1)
            return full
        except OSError as exc:
            raise JournalError(f"{path}: cannot append to the journal ({exc.strerror})") from None
        finally:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _next_id(self, stream: str, fd: int, size: int) -> tuple[int, bool]:
        """The id the next record gets, and whether the one after it is that plus one (so the
        sidecar may say so): from the sidecar when it describes this file as it is, else
        recovered by one scan."""
        tail = _read_tail(self._tail_path(stream))
        if tail is not None and tail[0] == size:
            return tail[1], True
        used = _ids(_read_fd(fd, size))
        top = max(used, default=0)
        if top < MAX_ID:
            return top + 1, True
        # a line took the largest id: use the first free one, scanning again next time
        return next(i for i in range(1, len(used) + 2) if i not in used), False

    def _save_tail(self, stream: str, size: int, next_id: int) -> None:
        # one fixed-width write in place (a rename would cost as much as the fsync); a torn or
        # stale sidecar fails its checksum or its size and only costs the next append one scan
        with contextlib.suppress(OSError):
            fd = open_private(self._tail_path(stream), os.O_WRONLY)
            try:
                os.pwrite(fd, _tail_line(size, next_id), 0)
            finally:
                os.close(fd)

    def read_bytes(self, stream: str) -> bytes:
        """The stream's file as it is (empty when there is none)."""
        path = self.path(stream)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise JournalError(f"{path}: cannot read the journal ({exc.strerror})") from None

    def read(self, stream: str, validate: Validator | None = None) -> JournalRead:
        """Every record of `stream` that is whole and fits (`validate`: its record types), in file
        order; the lines left out are in `skipped`."""
        return parse_lines(self.read_bytes(stream), self.path(stream).name, validate)

    def live(self, stream: str, validate: Validator | None = None) -> JournalRead:
        """Records not forgotten by a later tombstone, tombstones themselves left out."""
        return live_records(self.read(stream, validate))

    def signature(self, streams: Sequence[str] | None = None) -> str:
        """Sizes of every stream (or of `streams`): changes whenever anything is appended
        (cheap, no read; naming the streams saves listing the folder)."""
        if streams is not None:
            parts = []
            for name in streams:
                try:
                    parts.append(f"{name}:{self.path(name).stat().st_size}")
                except OSError:
                    parts.append(f"{name}:-")
            return ",".join(parts)
        if not self.root.is_dir():
            return ""
        parts = []
        for p in sorted(self.root.glob("*.jsonl")):
            try:
                parts.append(f"{p.name}:{p.stat().st_size}")
            except OSError:
                pass
        return ",".join(parts)


def _tail_line(size: int, next_id: int) -> bytes:
    body = f"{size:020d} {next_id:020d}"
    return f"{body} {zlib.crc32(body.encode()):010d}\n".encode()


def _read_tail(path: Path) -> tuple[int, int] | None:
    """(file size, next id) from a sidecar whose checksum holds, else None."""
    try:
        raw = path.read_bytes()[:64]
        size, next_id, crc = raw.split()
        if zlib.crc32(size + b" " + next_id) != int(crc):
            return None
        if not _valid_id(int(next_id)):
            return None
        return int(size), int(next_id)
    except (OSError, ValueError):
        return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_fd(fd: int, size: int) -> bytes:
    chunks = []
    offset = 0
    while offset < size:
        chunk = os.pread(fd, min(1 << 20, size - offset), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _ids(data: bytes) -> set[int]:
    """The valid `id` of every object line, whatever else the line holds."""
    out: set[int] = set()
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except (UnicodeDecodeError, ValueError, RecursionError):
            continue
        if isinstance(rec, dict) and _valid_id(rec.get("id")):
            out.add(rec["id"])
    return out


def live_records(got: JournalRead) -> JournalRead:
    """`got` without the records a tombstone forgot and without the tombstones (`Journal.live`
    of a read already made)."""
    forgotten = {r.get("target") for r in got.records if r.get("op") == "forget"}
    records = [r for r in got.records if r.get("op") != "forget" and r.get("id") not in forgotten]
    return JournalRead(records, got.skipped)


def parse_lines(
    data: bytes,
    name: str,
    validate: Validator | None = None,
    *,
    after: int = 0,
    seen: set[int] | None = None,
) -> JournalRead:
    """The records of one stream file's bytes (see the module docstring for what is skipped).
    `after`, `seen`: `data` is the end of a stream whose first `after` lines, holding the ids
    `seen`, were read before (see `parse_numbered`)."""
    lines = data.split(b"\n")
    # the last line is torn when the file does not end with a newline (or when the line before
    # a final newline does not parse: a crash may have cut it short)
    last = len(lines) - 1 if lines[-1] == b"" else len(lines)
    numbered = ((after + n, raw, n == last) for n, raw in enumerate(lines, 1))
    return parse_numbered(numbered, name, validate, seen)


def pick_lines(data: bytes, needles: Iterable[bytes]) -> list[tuple[int, bytes, bool]]:
    """The lines of `data` holding any of `needles`, as (line number, bytes, is it the last
    line), in file order: found by a byte search, so a lookup never splits or parses the rest."""
    spans: set[tuple[int, int]] = set()
    for needle in needles:
        pos = data.find(needle)
        while pos != -1:
            start = data.rfind(b"\n", 0, pos) + 1
            end = data.find(b"\n", pos)
            end = len(data) if end == -1 else end
            spans.add((start, end))
            pos = data.find(needle, end)
    out = []
    number, counted = 1, 0
    for start, end in sorted(spans):
        number += data.count(b"\n", counted, start)
        counted = start
        out.append((number, data[start:end], end >= len(data) - 1))
    return out


def parse_numbered(
    lines: Iterable[tuple[int, bytes, bool]],
    name: str,
    validate: Validator | None = None,
    seen: set[int] | None = None,
) -> JournalRead:
    """`parse_lines` over (line number, bytes, is it the last line) triples. `seen`: the ids of
    the lines before these (a read that goes on from an earlier one), added to as lines pass."""
    out = JournalRead()
    seen = set() if seen is None else seen
    for number, raw, last in lines:
        if not raw.strip():
            continue
        reason = None
        try:
            rec = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            reason = "incomplete last line" if last else "not valid JSON"
        else:
            reason = check_base(rec)
            if reason is None and rec["id"] in seen:
                reason = f"id {rec['id']} used by an earlier line"
            if reason is None and validate is not None:
                reason = validate(rec)
        if reason is not None:
            out.skipped.append(Skipped(name, number, reason))
            continue
        seen.add(rec["id"])
        out.records.append(rec)
    return out


def check_base(rec: Any) -> str | None:
    """What every journal line has: an object with a positive integer `id` and a text `ts`."""
    if not isinstance(rec, dict):
        return "not a JSON object"
    if not _valid_id(rec.get("id")):
        return "no valid id" if "id" not in rec else "id is not a positive integer"
    if not isinstance(rec.get("ts"), str):
        return "no ts" if "ts" not in rec else "ts is not text"
    return None
