"""Streaming parser of `git log --raw -p -U0 -z` output, one commit at a time.

The pipeline runs git with `LOG_ARGS` (plus the commits to read) and hands the stdout chunks to
`iter_commits`; any chunking works (lines, 1 MiB blocks). Invariants:

- Memory is bounded by the largest single commit, never by the log: a commit record is parsed and
  released as soon as the next commit's marker arrives.
- Commit boundaries come from a marker that starts with NUL. Header fields are NUL-terminated
  (git never emits NUL inside a hash, name, date or message) and `-z` makes the raw section's
  paths NUL-terminated and unquoted, so paths of any bytes survive; patch text never contains
  the marker.
- File identity (paths, modes, blob ids, rename / copy status) comes from the raw section, never
  from the C-quoted `diff --git` header. Patch sections are matched to raw entries by their
  header (computed with git's own quoting) and by order; a type change (`T`) owns two sections.
- Added / removed counts come from the hunk headers, so they stay exact however much text is
  dropped: hunk bodies are kept only while a file's stored text is under `text_cap` bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..store import gitdefaults
from ..store.regexcache import compile_pattern

MARKER = b"\x00\x01gitstrata\x02"

# Every option that changes the shape of the output is pinned here, so user configuration
# (diff.noprefix, log.showSignature, color.ui, diff.relative, textconv drivers) cannot reach it;
# so is what a diff holds (`gitdefaults`: blame read from these hunks must be `git blame`'s).
LOG_ARGS: tuple[str, ...] = (
    "-c",
    "core.quotePath=false",
    "-c",
    "log.showSignature=false",
    *gitdefaults.CONFIG,
    "log",
    "--raw",
    "-p",
    "-U0",
    *gitdefaults.DIFF,
    "-M",
    "-z",
    "--root",
    "--no-merges",
    "--no-abbrev",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--encoding=UTF-8",
    "--format=%x00%x01gitstrata%x02%H%x00%P%x00%an%x00%ae%x00%at%x00%ct%x00%B%x00",
)

ZERO_SHA = "0" * 40
_HUNK = compile_pattern(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)
_SECTION = compile_pattern(rb"^diff --git ", re.M)
_BINARY = compile_pattern(rb"^(?:Binary files |GIT binary patch)", re.M)


class PatchFormatError(ValueError):
    """The log stream does not have the shape `LOG_ARGS` produces."""


@dataclass(slots=True)
class Hunk:
    """One -U0 hunk: 1-based start lines and line counts on each side.

    `body` is the hunk's `+` / `-` (and `\\ No newline`) lines as git printed them, or None when
    the file's stored text was already over its cap.
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    body: bytes | None = None


@dataclass(slots=True)
class FileChange:
    status: str  # A, C, D, M, R, T (U / X never appear in `log` of commits)
    old_path: str | None  # None for added files
    new_path: str | None  # None for deleted files
    old_mode: str
    new_mode: str
    old_blob: str | None  # None on the missing side
    new_blob: str | None
    score: int | None = None  # similarity percent of a rename / copy
    binary: bool = False
    hunks: list[Hunk] = field(default_factory=list)
    added: int = 0
    removed: int = 0
    truncated: bool = False  # some hunk bodies were dropped (counts are still exact)

    @property
    def path(self) -> str:
        """The file's path in this commit (the old path for deletions)."""
        if self.new_path is not None:
            return self.new_path
        assert self.old_path is not None, "a file change has a path on at least one side"
        return self.old_path


@dataclass(slots=True)
class CommitPatch:
    sha: str
    parents: tuple[str, ...]
    author_name: str
    author_email: str
    author_time: int  # unix seconds
    commit_time: int
    message: str
    files: list[FileChange]


def decode_path(raw: bytes) -> str:
    """Path bytes as text, exactly as the `chunk` stage stores them (Arrow strings must be UTF-8,
    so bytes that are not become U+FFFD); the raw bytes stay available for git commands."""
    return raw.decode("utf-8", "replace")


_NEEDS_QUOTE = compile_pattern(rb'[\x00-\x1f"\\\x7f]')
_C_ESCAPES = {7: b"\\a", 8: b"\\b", 9: b"\\t", 10: b"\\n", 11: b"\\v", 12: b"\\f", 13: b"\\r"}
_C_ESCAPES |= {34: b'\\"', 92: b"\\\\"}


def quote_c_style(name: bytes) -> bytes:
    """git's `quote_c_style` with core.quotePath=false: quote only control bytes, `"` and `\\`."""
    if not _NEEDS_QUOTE.search(name):
        return name
    out = bytearray(b'"')
    for b in name:
        if b in _C_ESCAPES:
            out += _C_ESCAPES[b]
        elif b < 0x20 or b == 127:
            out += b"\\%03o" % b
        else:
            out.append(b)
    out += b'"'
    return bytes(out)


def iter_records(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Split a log stream into per-commit records (each without the leading marker)."""
    buf = bytearray()
    scan = 0
    for chunk in chunks:
        if not chunk:
            continue
        buf += chunk
        while True:
            at = buf.find(MARKER, max(scan, 1))
            if at < 0:
                scan = max(1, len(buf) - len(MARKER) + 1)
                break
            if buf.startswith(MARKER):
                yield bytes(buf[len(MARKER) : at])
            elif buf.strip(b"\x00\n"):
                raise PatchFormatError("log output does not start with a commit marker")
            del buf[:at]
            scan = 1
    if buf.startswith(MARKER):
        yield bytes(buf[len(MARKER) :])
    elif buf.strip(b"\x00\n"):
        raise PatchFormatError("log output does not start with a commit marker")


def iter_commits(chunks: Iterable[bytes], *, text_cap: int = 65_536) -> Iterator[CommitPatch]:
    """Parse a `LOG_ARGS` stream lazily, one `CommitPatch` per commit, in git's order."""
    for record in iter_records(chunks):
        yield parse_record(record, text_cap=text_cap)


def parse_record(record: bytes, *, text_cap: int = 65_536) -> CommitPatch:
    parts = record.split(b"\x00", 7)
    if len(parts) < 7:
        raise PatchFormatError(f"truncated commit header: {record[:60]!r}")
    sha, parents, an, ae, at, ct, msg = parts[:7]
    rest = parts[7] if len(parts) == 8 else b""
    entries, patch = _parse_raw(rest)
    if patch.startswith(b"diff --git "):
        _attach_sections(entries, patch, text_cap)
    return CommitPatch(
        sha=sha.decode("ascii"),
        parents=tuple(parents.decode("ascii").split()),
        author_name=an.decode("utf-8", "replace"),
        author_email=ae.decode("utf-8", "replace"),
        author_time=int(at or 0),
        commit_time=int(ct or 0),
        message=msg.decode("utf-8", "replace"),
        files=[e[0] for e in entries],
    )


def _parse_raw(rest: bytes) -> tuple[list[tuple[FileChange, bytes, bytes]], bytes]:
    """Raw entries (with their raw path bytes) and the patch text that follows them."""
    pos, n = 0, len(rest)
    while pos < n and rest[pos] in (0, 10):
        pos += 1
    entries: list[tuple[FileChange, bytes, bytes]] = []
    while pos < n and rest[pos] == 58:  # ":"
        meta_end = rest.index(b"\x00", pos)
        fields = rest[pos + 1 : meta_end].split(b" ")
        if len(fields) != 5:
            raise PatchFormatError(f"bad raw diff line: {rest[pos:meta_end]!r}")
        old_mode, new_mode, old_sha, new_sha, st = (f.decode("ascii") for f in fields)
        end1 = rest.index(b"\x00", meta_end + 1)
        p1 = rest[meta_end + 1 : end1]
        pos = end1 + 1
        status, score = st[0], (int(st[1:]) if len(st) > 1 else None)
        if status in "RC":
            end2 = rest.index(b"\x00", pos)
            p2 = rest[pos:end2]
            pos = end2 + 1
            old_raw, new_raw = p1, p2
        else:
            old_raw = new_raw = p1
        fc = FileChange(
            status=status,
            old_path=None if status == "A" else decode_path(old_raw),
            new_path=None if status == "D" else decode_path(new_raw),
            old_mode=old_mode,
            new_mode=new_mode,
            old_blob=None if old_sha == ZERO_SHA else old_sha,
            new_blob=None if new_sha == ZERO_SHA else new_sha,
            score=score,
        )
        entries.append((fc, old_raw, new_raw))
    patch = rest[pos:].lstrip(b"\x00\n")
    return entries, patch


def _attach_sections(
    entries: list[tuple[FileChange, bytes, bytes]], patch: bytes, cap: int
) -> None:
    starts = [m.end() for m in _SECTION.finditer(patch)]
    sections = [patch[a : b - 11] for a, b in zip(starts, starts[1:], strict=False)] + [
        patch[starts[-1] :]
    ]
    headers = [
        quote_c_style(b"a/" + old) + b" " + quote_c_style(b"b/" + new) for _, old, new in entries
    ]
    taken = [False] * len(entries)
    cursor = 0
    prev: int | None = None
    for sec in sections:
        nl = sec.find(b"\n")
        header = sec if nl < 0 else sec[:nl]
        if prev is not None and entries[prev][0].status == "T" and headers[prev] == header:
            _add_section(entries[prev][0], sec, cap)  # the second half of a type change
            prev = None
            continue
        idx = _match(headers, taken, header, cursor)
        if idx is None:
            raise PatchFormatError(f"patch section without a raw entry: {header[:80]!r}")
        taken[idx] = True
        cursor = idx + 1
        _add_section(entries[idx][0], sec, cap)
        prev = idx


def _match(headers: list[bytes], taken: list[bool], header: bytes, cursor: int) -> int | None:
    if cursor < len(headers) and not taken[cursor] and headers[cursor] == header:
        return cursor
    for i, h in enumerate(headers):
        if not taken[i] and h == header:
            return i
    # Quoting differs from ours (a git we do not know): fall back to order.
    for i in range(cursor, len(headers)):
        if not taken[i]:
            return i
    return None


def _add_section(fc: FileChange, sec: bytes, cap: int) -> None:
    first = sec.find(b"\n@@ ")
    head = sec if first < 0 else sec[:first]
    if _BINARY.search(head):
        fc.binary = True
        return
    if first < 0:
        return
    stored = sum(len(h.body) for h in fc.hunks if h.body is not None)
    matches = list(_HUNK.finditer(sec, first + 1))
    for i, m in enumerate(matches):
        o_start, o_count, n_start, n_count = m.groups()
        oc = 1 if o_count is None else int(o_count)
        nc = 1 if n_count is None else int(n_count)
        body: bytes | None = None
        if stored < cap:
            line_end = sec.find(b"\n", m.end())
            stop = matches[i + 1].start() if i + 1 < len(matches) else len(sec)
            body = b"" if line_end < 0 or line_end >= stop else sec[line_end + 1 : stop]
            stored += len(body)
        else:
            fc.truncated = True
        fc.hunks.append(Hunk(int(o_start), oc, int(n_start), nc, body))
        fc.added += nc
        fc.removed += oc


def hunk_lines(hunk: Hunk) -> Iterator[tuple[str, int, bytes]]:
    """(side, line number, text) for each changed line of a hunk body; side is "-" or "+".

    Line numbers are 1-based in the old file for "-" and in the new file for "+". Text excludes
    the prefix and the newline; `\\ No newline at end of file` markers are skipped.
    """
    if not hunk.body:
        return
    old, new = hunk.old_start, hunk.new_start
    for line in hunk.body.split(b"\n"):
        if not line:
            continue
        tag = line[0]
        if tag == 45:  # "-"
            yield "-", old, line[1:]
            old += 1
        elif tag == 43:  # "+"
            yield "+", new, line[1:]
            new += 1


def apply_hunks(data: bytes, hunks: list[Hunk], *, forward: bool) -> bytes | None:
    """The other side of a file change from one side's bytes and its -U0 hunks (new from old
    when `forward`), or None when a hunk's text was not kept or does not fit `data`."""
    lines = data.splitlines(keepends=True)
    out: list[bytes] = []
    pos = 0
    for h in hunks:
        if h.body is None:
            return None
        start, count = (h.old_start, h.old_count) if forward else (h.new_start, h.new_count)
        at = start - 1 if count else start
        if at < pos or at + count > len(lines):
            return None
        out.extend(lines[pos:at])
        pos = at + count
        want = 43 if forward else 45  # "+" lines are the new side's
        taken = 0
        seen: list[bytes] = []
        body = h.body.split(b"\n")
        for i, line in enumerate(body):
            if not line or line[0] not in (43, 45):
                continue
            text = line[1:]
            if not (i + 1 < len(body) and body[i + 1].startswith(b"\\")):
                text += b"\n"  # the line had a newline unless git marked it missing
            if line[0] == want:
                out.append(text)
                taken += 1
            else:
                seen.append(text)
        if taken != (h.new_count if forward else h.old_count) or seen != lines[at : at + count]:
            return None
    out.extend(lines[pos:])
    return b"".join(out)
