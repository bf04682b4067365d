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
import os
import re
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, AnyStr

from . import usercache

_Stored = usercache.Stored
_LOCK = threading.Lock()
_Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
_stored: _Stored | None = None  # the file's entries, as this process found it
_entries: dict[str, _Entry] = {}  # made by this process
_used: dict[str, None] = {}  # keys this process found in the file, in the order it used them
_dirty = False
MAX_ENTRIES = 4096
MAGIC = b"gitstrata regex cache 2\n"


def _pack(entries: Mapping[str, bytes]) -> bytes:
    """A cache file holding `entries` (key -> marshalled entry)."""
    return usercache.pack(MAGIC, entries)


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
    return usercache.load(_file(), MAGIC)


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
        made = {k: marshal.dumps(v) for k, v in _entries.items()}
        merged = usercache.merged(made, _used, _load(), MAX_ENTRIES)
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
