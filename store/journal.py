"""The journal: the only place live writes go (failed attempts, memories, checkpoints).

One append-only JSONL file per stream under `journal/`. An append takes an exclusive `flock` on
the stream, assigns the next id, writes one line, flushes and fsyncs before returning: a record a
caller was told about is on disk. Nothing is ever rewritten; forgetting appends a tombstone
(`{"op": "forget", "target": ID}`). A torn last line (a crash mid-write) is skipped with a warning
and every complete line is kept; the next append starts on a fresh line.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .errors import JournalError
from .private import open_private, private_dir

STREAM_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
MAX_RECORD_BYTES = 4 << 20


@dataclass
class JournalRead:
    records: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Journal:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, stream: str) -> Path:
        if not STREAM_RE.match(stream):
            raise JournalError(f"invalid journal stream name {stream!r}")
        return self.root / f"{stream}.jsonl"

    def append(self, stream: str, record: dict[str, Any]) -> dict[str, Any]:
        """Append `record` (a JSON object) with a new `id` and `ts`; returns what was written."""
        path = self.path(stream)
        private_dir(self.root)
        try:
            fd = open_private(path, os.O_RDWR | os.O_APPEND)
        except OSError as exc:
            raise JournalError(f"{path}: cannot open the journal ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            existing = _read_fd(fd)
            last_id = 0
            for rec in _parse(existing, path).records:
                if isinstance(rec.get("id"), int):
                    last_id = max(last_id, rec["id"])
            full = {
                "id": last_id + 1,
                "ts": record.get("ts") or _now(),
                **{k: v for k, v in record.items() if k not in ("id", "ts")},
            }
            line = json.dumps(full, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            data = line.encode("utf-8")
            if len(data) > MAX_RECORD_BYTES:
                raise JournalError(
                    f"journal record of {len(data)} bytes is over the {MAX_RECORD_BYTES} byte limit"
                )
            prefix = b"\n" if existing and not existing.endswith(b"\n") else b""
            os.write(fd, prefix + data + b"\n")
            os.fsync(fd)
            return full
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def read(self, stream: str) -> JournalRead:
        path = self.path(stream)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return JournalRead()
        except OSError as exc:
            raise JournalError(f"{path}: cannot read the journal ({exc.strerror})") from None
        return _parse(data, path)

    def live(self, stream: str) -> JournalRead:
        """Records not forgotten by a later tombstone, tombstones themselves left out."""
        got = self.read(stream)
        forgotten = {r.get("target") for r in got.records if r.get("op") == "forget"}
        got.records = [
            r for r in got.records if r.get("op") != "forget" and r.get("id") not in forgotten
        ]
        return got

    def signature(self) -> str:
        """Sizes of every stream: changes whenever anything is appended (cheap, no read)."""
        if not self.root.is_dir():
            return ""
        parts = []
        for p in sorted(self.root.glob("*.jsonl")):
            try:
                parts.append(f"{p.name}:{p.stat().st_size}")
            except OSError:
                pass
        return ",".join(parts)


def _read_fd(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    chunks = []
    offset = 0
    while offset < size:
        chunk = os.pread(fd, min(1 << 20, size - offset), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _parse(data: bytes, path: Path) -> JournalRead:
    out = JournalRead()
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            torn = number == len(lines) or (number == len(lines) - 1 and lines[-1] == b"")
            what = "incomplete last line" if torn else f"unreadable line {number}"
            out.warnings.append(f"{path.name}: skipped an {what}")
            continue
        if isinstance(rec, dict):
            out.records.append(rec)
        else:
            out.warnings.append(f"{path.name}: skipped line {number} (not an object)")
    return out
