"""Unified diffs (git's or plain `diff -u`) read into per-file changed lines.

A failed attempt's `diff` field is a unified diff against HEAD, so both the side that writes the
record (targets, fingerprint) and the side that shows it read it through this one parser.
Invariants: line numbers are old-side (HEAD) numbers; a hunk is read by its counts, so a changed
line that itself starts with `---` or `+++` is still a changed line; git's C-style quoting of
unusual paths is undone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["FileChange", "parse_diff"]

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


@dataclass
class FileChange:
    """One file of a unified diff, in old-side (HEAD) line numbers."""

    old_path: str | None
    new_path: str | None
    removed: list[int] = field(default_factory=list)  # old line numbers of `-` lines
    inserted_after: list[int] = field(default_factory=list)  # `+` lines land after this old line
    changed_text: list[str] = field(default_factory=list)  # the `-`/`+` lines, marker kept
    binary: bool = False
    hunks: int = 0

    @property
    def path(self) -> str:
        return self.old_path or self.new_path or ""


def _unquote(path: str) -> str:
    """git's C-style quoting of unusual paths (`"a/na\\303\\257ve.py"`)."""
    if not (len(path) >= 2 and path[0] == path[-1] == '"'):
        return path
    body, out, i = path[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 3 < len(body) + 1:
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            out.extend(_ESCAPES.get(nxt, nxt).encode())
            i += 2
            continue
        out.extend(c.encode("utf-8", "surrogateescape"))
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _side(raw: str, prefix: str) -> str | None:
    raw = raw.split("\t", 1)[0].rstrip() if not raw.startswith('"') else raw.rstrip()
    path = _unquote(raw)
    if path == "/dev/null":
        return None
    return path[len(prefix) :] if path.startswith(prefix) else path


def _git_header_paths(rest: str) -> tuple[str | None, str | None]:
    if rest.startswith('"'):
        end = rest.index('"', 1)
        while rest[end - 1] == "\\":
            end = rest.index('"', end + 1)
        return _side(rest[: end + 1], "a/"), _side(rest[end + 1 :].strip(), "b/")
    # unquoted: "a/X b/X"; when both sides are equal the split is unambiguous
    half = (len(rest) - 1) // 2
    if rest[half] == " " and rest[:half][2:] == rest[half + 1 :][2:]:
        return _side(rest[:half], "a/"), _side(rest[half + 1 :], "b/")
    a, _, b = rest.partition(" b/")
    return _side(a, "a/"), _side("b/" + b, "b/")


def parse_diff(diff_text: str) -> list[FileChange]:
    """The files of a unified diff (git's or plain `diff -u`), hunks followed by their counts."""
    files: list[FileChange] = []
    cur: FileChange | None = None
    old_no = old_left = new_left = 0
    for line in diff_text.splitlines():
        if old_left > 0 or new_left > 0:
            mark = line[:1]
            if mark in (" ", "") and old_left > 0 and new_left > 0:
                old_no, old_left, new_left = old_no + 1, old_left - 1, new_left - 1
                continue
            if mark == "-" and old_left > 0 and cur is not None:
                cur.removed.append(old_no)
                cur.changed_text.append(line)
                old_no, old_left = old_no + 1, old_left - 1
                continue
            if mark == "+" and new_left > 0 and cur is not None:
                cur.inserted_after.append(old_no - 1)
                cur.changed_text.append(line)
                new_left -= 1
                continue
            if mark == "\\":
                continue
            old_left = new_left = 0  # a short hunk: read the line as a header
        if line.startswith("diff --git "):
            old, new = _git_header_paths(line[len("diff --git ") :])
            cur = FileChange(old, new)
            files.append(cur)
        elif line.startswith("--- "):
            if cur is None or cur.hunks:
                cur = FileChange(None, None)
                files.append(cur)
            cur.old_path = _side(line[4:], "a/")
        elif line.startswith("+++ ") and cur is not None:
            cur.new_path = _side(line[4:], "b/")
        elif line.startswith("new file mode") and cur is not None:
            cur.old_path = None
        elif line.startswith("deleted file mode") and cur is not None:
            cur.new_path = None
        elif line.startswith("rename from ") and cur is not None:
            cur.old_path = _unquote(line[len("rename from ") :])
        elif line.startswith(("Binary files ", "GIT binary patch")) and cur is not None:
            cur.binary = True
        elif (m := _HUNK.match(line)) is not None and cur is not None:
            cur.hunks += 1
            start = int(m.group(1))
            old_left = int(m.group(2)) if m.group(2) is not None else 1
            new_left = int(m.group(4)) if m.group(4) is not None else 1
            old_no = start if old_left > 0 else start + 1
    return [f for f in files if f.path]
