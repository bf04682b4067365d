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
  running this process owns it. `GITSTRATA_REGEX_CACHE=off` turns the cache off.
- Each entry is stored as its own marshalled bytes, unpacked when its pattern is asked for: a
  process reads the whole file but builds only the patterns it uses (unpacking all 930 entries
  of a well-used cache took 14 ms; a one-shot command uses a few dozen).
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import marshal
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

_LOCK = threading.Lock()
_Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
_entries: dict[str, bytes | _Entry] | None = None  # packed as read, or made by this process
_dirty = False
MAX_ENTRIES = 4096


def _folder() -> Path | None:
    if os.environ.get("GITSTRATA_REGEX_CACHE", "").lower() in ("off", "0", "false", "no"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    return Path(base) / "gitstrata"


def _file() -> Path | None:
    folder = _folder()
    if folder is None:
        return None
    try:
        sre = importlib.import_module("_sre")
        tag = f"{sys.implementation.cache_tag}-{sre.MAGIC}-{sre.CODESIZE}-packed"
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


def _load() -> dict:
    path = _file()
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            owner = getattr(os, "getuid", None)  # POSIX: a file of another user is not read
            if owner is not None and os.fstat(fh.fileno()).st_uid != owner():
                return {}
            data = marshal.loads(fh.read())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return data  # each entry is checked when it is used


def _key(source: str, flags: int) -> str:
    return hashlib.blake2b(f"{flags}\0{source}".encode(), digest_size=16).hexdigest()


def _instructions(source: str, flags: int) -> tuple | None:
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


def _build(source: str, entry: tuple) -> re.Pattern[str]:
    flags, code, groups, groupindex, indexgroup = entry
    pattern: re.Pattern[str] = importlib.import_module("_sre").compile(
        source, flags, code, groups, groupindex, indexgroup
    )
    return pattern


def compile_pattern(source: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)`, from the cache when this pattern was compiled before."""
    global _entries, _dirty
    if _folder() is None:
        return re.compile(source, flags)
    key = _key(source, flags)
    with _LOCK:
        if _entries is None:
            _entries = _load()
        entry = _unpacked(_entries.get(key))
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
        assert _entries is not None
        _entries[key] = made
        _dirty = True
    return pattern


def save() -> None:
    """Write the patterns compiled by this process that the file lacks (best effort: a cache
    that cannot be written is simply not kept)."""
    global _dirty
    with _LOCK:
        if not _dirty or _entries is None:
            return
        path = _file()
        if path is None:
            return
        merged = {**_load(), **_entries}
        if len(merged) > MAX_ENTRIES:  # patterns of older versions pile up: start again
            merged = dict(_entries)
        _dirty = False
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = marshal.dumps(
            {k: v if isinstance(v, bytes) else marshal.dumps(v) for k, v in merged.items()}
        )
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        # the earlier format's file (every entry unpacked at once) is no longer read
        path.with_name(path.name.replace("-packed.marshal", ".marshal")).unlink(missing_ok=True)
    except (OSError, ValueError):
        try:
            tmp.unlink()
        except OSError:
            pass


atexit.register(save)
