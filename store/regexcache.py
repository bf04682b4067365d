"""Compiled regular expressions kept from one process to the next.

`re.compile` parses a pattern and turns it into the regex engine's instruction list in Python;
only the last step, `_sre.compile`, is native and cheap. The firewall's patterns are long (some
1,000+ characters, in many languages), and a one-shot command that serves a few strings spent
50-80 ms compiling the ones its strings reach. `compile` keeps each pattern's instruction list in
a file under the user's cache folder and rebuilds the pattern from it, which is what
`re.compile` would have produced, without the parsing.

Invariants:
- A cached pattern is the one `re.compile(source, flags)` returns: the same instruction list,
  flags and groups, handed to the same `_sre.compile`. An entry is keyed by the pattern's text
  and flags; the file by the Python version and the engine's magic number, so another Python
  never reads it.
- Anything unexpected (another Python's internals, an unreadable, foreign or malformed file, a
  folder that cannot be written) falls back to `re.compile`; the cache only ever saves time.
- The file is private (0600 in a 0700 folder), replaced atomically, and read only when the user
  running this process owns it (`usercache`). `GITSTRATA_REGEX_CACHE=off` turns this cache off,
  `GITSTRATA_CACHE=off` every file of the user's cache folder.
- Each entry is stored as its own marshalled bytes, unpacked when its pattern is asked for
  (unpacking all 930 entries of a well-used cache took 14 ms; a one-shot command uses a few
  dozen). The file starts with an index (each entry's key, offset and length) and the entries
  follow, memory-mapped: a process reads the index and the pages of the entries it uses, not
  the whole file (1,441 entries, 6.4 MB, took 12 ms to read and unmarshal whole).
- The file holds at most `MAX_ENTRIES` patterns, the most recently used first: a save writes
  the patterns this process made, then the ones it used, then the rest of the file in its
  order, and drops what is past the limit. A full file (patterns of older versions, of
  benchmarks) thus loses its least recently used entries, never the ones a command needs.
"""

from __future__ import annotations

import hashlib
import importlib
import marshal
import mmap
import os
import re
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, AnyStr

from . import usercache

_LOCK = threading.Lock()
_Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
_stored: _Stored | None = None  # the file's entries, as this process found it
_entries: dict[str, _Entry] = {}  # made by this process
_used: dict[str, None] = {}  # keys this process found in the file, in the order it used them
_dirty = False
MAX_ENTRIES = 4096
MAGIC = b"gitstrata regex cache 2\n"
_LENGTH = 8  # bytes of the index's length, after MAGIC


class _Stored(Mapping[str, bytes]):
    """The entries of a cache file: its index (key -> offset and length in the entries) read
    whole, each entry's bytes read from the mapped file when asked for. An entry outside the
    file, or an index of another shape, is no entry."""

    def __init__(self, index: dict, data: bytes | mmap.mmap = b"", base: int = 0) -> None:
        self._index = index
        self._data = data
        self._base = base

    def __getitem__(self, key: str) -> bytes:
        at = self._index[key]
        if not (isinstance(at, tuple) and len(at) == 2 and all(type(x) is int for x in at)):
            raise KeyError(key)
        start, length = self._base + at[0], at[1]
        if at[0] < 0 or length < 0 or start + length > len(self._data):
            raise KeyError(key)
        return bytes(self._data[start : start + length])

    def __iter__(self) -> Iterator[str]:
        return (k for k in self._index if isinstance(k, str))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _pack(entries: Mapping[str, bytes]) -> bytes:
    """A cache file holding `entries` (key -> marshalled entry)."""
    index: dict[str, tuple[int, int]] = {}
    at = 0
    for key, raw in entries.items():
        index[key] = (at, len(raw))
        at += len(raw)
    head = marshal.dumps(index)
    return b"".join((MAGIC, len(head).to_bytes(_LENGTH, "little"), head, *entries.values()))


def _folder() -> Path | None:
    if os.environ.get("GITSTRATA_REGEX_CACHE", "").lower() in usercache.OFF:
        return None
    return usercache.folder()


def _file() -> Path | None:
    folder = _folder()
    if folder is None:
        return None
    try:
        sre = importlib.import_module("_sre")
        tag = f"{sys.implementation.cache_tag}-{sre.MAGIC}-{sre.CODESIZE}-indexed"
    except (ImportError, AttributeError):
        return None
    return folder / f"regex-{tag}.marshal"


def _unpacked(entry: Any) -> Any:
    """An entry as read from the file (marshalled bytes) or made here (a tuple), as a tuple;
    anything unreadable comes back as it is, for `_valid` to refuse."""
    if isinstance(entry, bytes):
        try:
            return marshal.loads(entry)
        except (EOFError, ValueError, TypeError):
            return None
    return entry


def _valid(entry: Any) -> bool:
    if not (isinstance(entry, tuple) and len(entry) == 5):
        return False
    flags, code, groups, groupindex, indexgroup = entry
    return (
        isinstance(flags, int)
        and isinstance(code, list)  # its items are checked by `_sre.compile`, which refuses
        and isinstance(groups, int)  # malformed code ("invalid SRE code") and non-integers
        and isinstance(groupindex, dict)
        and all(isinstance(k, str) and type(v) is int for k, v in groupindex.items())
        and isinstance(indexgroup, tuple)
        and all(g is None or isinstance(g, str) for g in indexgroup)
    )


def _load() -> _Stored:
    path = _file()
    if path is None:
        return _Stored({})
    try:
        with open(path, "rb") as fh:
            if not usercache.owned(fh.fileno()):  # a file of another user is not read
                return _Stored({})
            head = fh.read(len(MAGIC) + _LENGTH)
            if len(head) < len(MAGIC) + _LENGTH or not head.startswith(MAGIC):
                return _Stored({})
            size = int.from_bytes(head[len(MAGIC) :], "little")
            base = len(MAGIC) + _LENGTH + size
            end = os.fstat(fh.fileno()).st_size
            if base > end:  # an index longer than the file: not read (nor allocated)
                return _Stored({})
            index = marshal.loads(fh.read(size))
            if not isinstance(index, dict):
                return _Stored({})
            data: bytes | mmap.mmap = (
                mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if end > base else b""
            )
    except (OSError, EOFError, ValueError, TypeError):
        return _Stored({})
    return _Stored(index, data, base)  # each entry is checked when it is used


def _key(source: str | bytes, flags: int) -> str:
    if isinstance(source, bytes):  # its own domain: a text key starts with the flags' digits
        raw = b"bytes\0" + f"{flags}\0".encode() + source
    else:
        raw = f"{flags}\0{source}".encode()
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def _instructions(source: str | bytes, flags: int) -> tuple | None:
    """What `re._compiler.compile` hands `_sre.compile` for `source`, or None where this
    Python's internals differ from the ones this is written against."""
    try:
        compiler = importlib.import_module("re._compiler")
        parser = importlib.import_module("re._parser")
        parsed = parser.parse(source, flags)
        code = compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        return (  # plain ints: the engine's named constants and flags do not marshal
            int(flags | parsed.state.flags),
            [int(c) for c in code],
            parsed.state.groups - 1,
            groupindex,
            tuple(indexgroup),
        )
    except (AttributeError, TypeError):
        return None


def _build(source: AnyStr, entry: tuple) -> re.Pattern[AnyStr]:
    flags, code, groups, groupindex, indexgroup = entry
    pattern: re.Pattern[AnyStr] = importlib.import_module("_sre").compile(
        source, flags, code, groups, groupindex, indexgroup
    )
    return pattern


def compile_pattern(source: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """`re.compile(source, flags)`, from the cache when this pattern was compiled before."""
    global _stored, _dirty
    if _folder() is None:
        return re.compile(source, flags)
    key = _key(source, flags)
    with _LOCK:
        if _stored is None:
            _stored = _load()
        entry = _entries.get(key)
        if entry is None:
            entry = _unpacked(_stored.get(key))
            if entry is not None:
                _used[key] = None
    if entry is not None and _valid(entry):
        try:
            return _build(source, entry)
        except (RuntimeError, TypeError, ValueError, OverflowError, ImportError):
            pass  # a malformed entry: compiled again below, and replaced
    made = _instructions(source, flags)
    if made is None:
        return re.compile(source, flags)
    try:
        pattern = _build(source, made)
    except (RuntimeError, TypeError, ValueError, OverflowError, ImportError):
        return re.compile(source, flags)
    with _LOCK:
        _entries[key] = made
        _dirty = True
    return pattern


def save() -> None:
    """Write the patterns compiled by this process that the file lacks, most recently used
    first (best effort: a cache that cannot be written is simply not kept)."""
    global _dirty
    with _LOCK:
        if not _dirty or not _entries:
            return
        path = _file()
        if path is None:
            return
        merged = {k: marshal.dumps(v) for k, v in _entries.items()}
        on_disk = _load()
        # what this process used, then the rest in the file's order (most recent first there)
        for k in [*(k for k in _used if k not in merged), *on_disk]:
            if len(merged) >= MAX_ENTRIES:
                break
            if k not in merged:
                try:
                    merged[k] = on_disk[k]
                except KeyError:
                    continue  # an entry outside the file: dropped
        _dirty = False
    if not usercache.write_private(path, _pack(merged)):
        return
    # the earlier formats' files (the whole file unmarshalled at once) are no longer read
    for old in ("-packed.marshal", ".marshal"):
        try:
            path.with_name(path.name.replace("-indexed.marshal", old)).unlink(missing_ok=True)
        except OSError:
            pass


usercache.on_save(save)
