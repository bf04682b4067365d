"""The team's memories: `memories.jsonl` in the store folder, meant to be committed.

One memory per line, its keys sorted, lines sorted by memory id, UTF-8 as is, one trailing
newline: the bytes are a function of the content, so the file diffs line by line and two
branches that each add memories merge without a conflict unless they touch the same memory.
Only what the team shares is written (no recall counts, no links: those are one person's use).
Invariants:

- `dumps(parse(text))` is `text` for any file this module wrote (byte-stable round trip).
- A file that still holds conflict markers is read anyway: marker lines are skipped with a
  warning, and when both sides hold the same memory the later `updated` wins (ties: the greater
  line), so resolving a conflict by hand (or not at all) loses no memory.
- Writes read, change and publish the file by `os.replace` of a fsync'd temporary file under an
  exclusive lock.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import InputError
from .lock import FileLock
from .memory import Memory, memory_from_add
from .private import write_shared

FILE_NAME = "memories.jsonl"
_MARKERS = ("<<<<<<<", "=======", ">>>>>>>", "|||||||")
_FIELDS = (
    "id", "kind", "text", "importance", "status", "tags", "anchors", "source", "origin",
    "created", "updated", "supersedes", "superseded_by",
)  # fmt: skip


def team_dict(mem: Memory) -> dict[str, Any]:
    full = mem.to_dict()
    out = {k: full[k] for k in _FIELDS}
    out["tags"] = sorted(set(out["tags"]))
    return {k: v for k, v in out.items() if v not in (None, [], "")}


def line(mem: Memory) -> str:
    return json.dumps(team_dict(mem), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def dumps(mems: list[Memory]) -> str:
    lines = sorted({m.id: line(m) for m in mems}.items())
    return "".join(f"{text}\n" for _, text in lines)


def parse(text: str, name: str = FILE_NAME) -> tuple[list[Memory], list[str]]:
    warnings: list[str] = []
    found: dict[str, tuple[str, str, Memory]] = {}
    # only "\n" ends a line: a memory's text may hold U+0085 or U+2028, which JSON keeps as is
    for number, raw in enumerate(text.split("\n"), start=1):
        s = raw.strip(" \t\r")
        if not s:
            continue
        if s.startswith(_MARKERS):
            warnings.append(f"{name}:{number}: skipped a merge conflict marker")
            continue
        try:
            data = json.loads(s)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            rec = {**data, "op": "add", "mid": data.get("id")}
            mem = memory_from_add(rec, str(data.get("created") or ""))
            mem.shared = True
        except (ValueError, KeyError, TypeError, InputError) as exc:
            warnings.append(f"{name}:{number}: skipped an unreadable memory ({exc})")
            continue
        key = (mem.updated, s)
        old = found.get(mem.id)
        if old is None or key > (old[0], old[1]):
            found[mem.id] = (mem.updated, s, mem)
    return [found[k][2] for k in sorted(found)], warnings


class TeamFile:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def signature(self) -> Any:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_size, st.st_mtime_ns)

    def read(self, warnings: list[str] | None = None) -> list[Memory]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as exc:
            if warnings is not None:
                warnings.append(f"{self.path.name}: unreadable ({exc})")
            return []
        mems, problems = parse(text, self.path.name)
        if warnings is not None:
            warnings.extend(problems)
        return mems

    def put(self, mem: Memory) -> None:
        with self._locked():
            mems = {m.id: m for m in self.read()}
            mems[mem.id] = mem
            self._write(list(mems.values()))

    def remove(self, mid: str) -> None:
        with self._locked():
            mems = {m.id: m for m in self.read()}
            if mems.pop(mid, None) is not None:
                self._write(list(mems.values()))

    def rewrite(self) -> None:
        """Write the file back in its canonical form (after a hand-resolved merge)."""
        with self._locked():
            if self.path.exists():
                self._write(self.read())

    def _locked(self) -> FileLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return FileLock(self.path.with_name(f".{self.path.name}.lock"))

    def _write(self, mems: list[Memory]) -> None:
        write_shared(self.path, dumps(mems).encode("utf-8"))
