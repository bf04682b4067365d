"""Code that the standard library compiles from generated text on import, compiled once and
kept from one process to the next.

Two things compile text while a command's modules are imported. `@dataclass` writes the source
of each method it adds to a class (`__init__`, `__repr__`, `__eq__`, a frozen class's
`__setattr__` ...) and runs it with `exec`; `typing` compiles every annotation it meets as text
(`ForwardRef`: our modules' annotations, read by pydantic, and pydantic-core's typed dicts). A
one-shot `query` or `preflight` compiles about 340 such methods and 1,000 annotations, about
60 ms of its half second. `install()` gives both modules a `compile` / `exec` of their own that
take the code compiled from the same text by an earlier process from a file of the user's
cache folder (`usercache`), and compile (and keep) what they have not seen.

Invariants:
- The code used is what the module's own call would have compiled: `compile(text, "<string>",
  mode)` with the module's compiler flags, which are none (`install` leaves a module with future
  imports alone). An entry is keyed by the mode and the text; the file is named by the
  interpreter's bytecode magic number, so another Python never reads it. Any other call (not
  text, other flags, a file name) goes to the builtin with the same meaning.
- Anything unexpected (a file that is missing, damaged or another user's, an entry that is not
  code compiled from text) falls back to compiling: the cache only ever saves time. Text that
  does not compile raises as the builtin does.
- The file is private (0600 in a 0700 folder), read only when its owner runs the process, as
  Python reads its own bytecode caches; `GITSTRATA_CACHE=off` turns it off with every file of
  the cache folder. It holds at most `MAX_ENTRIES` entries, the most recently used first.
- Only the command line installs it, before its first import (`entry.main`); a host that
  imports gitstrata keeps its `dataclasses` and `typing` as they are.
"""

from __future__ import annotations
import __future__

import builtins
import dataclasses
import hashlib
import importlib.util
import marshal
import sys
import threading
import types
import typing
from pathlib import Path
from typing import Any

from . import usercache

MAGIC = b"gitstrata code cache 1\n"
MAX_ENTRIES = 16384
_LOCK = threading.Lock()
_stored: usercache.Stored | None = None  # the file's entries, as this process found it
_made: dict[str, types.CodeType] = {}  # compiled by this process, by key
_used: dict[str, None] = {}  # keys this process found in the file, in the order it used them
_installed = False


def install() -> bool:
    """Let `dataclasses` and `typing` compile through the cache; False (nothing changed) when
    the cache folder is off or neither module is one this is written for."""
    global _installed
    if _installed:
        return True
    if _file() is None:
        return False
    # a module's globals come before the builtins when its functions look a name up
    if _plain(dataclasses):
        dataclasses.exec = _exec  # type: ignore[attr-defined]
        _installed = True
    if _plain(typing):
        typing.compile = _compile  # type: ignore[attr-defined]
        _installed = True
    if _installed:
        usercache.on_save(save)
    return _installed


def _plain(module: types.ModuleType) -> bool:
    """Whether `module` compiles text with no future flags, and has no `compile` or `exec` of
    its own."""
    names = vars(module)
    return (
        "compile" not in names
        and "exec" not in names
        and not any(isinstance(v, __future__._Feature) for v in names.values())
    )


def _file() -> Path | None:
    folder = usercache.folder()
    if folder is None:
        return None
    tag = importlib.util.MAGIC_NUMBER.hex()
    return folder / f"code-{sys.implementation.cache_tag}-{tag}.marshal"


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """`exec` as `dataclasses` calls it."""
    if type(source) is str:
        source = compiled(source, "exec")
    if globals is None:  # the caller's namespaces, as the builtin would take them
        frame = sys._getframe(1)
        globals = frame.f_globals
        locals = frame.f_locals if locals is None else locals
    builtins.exec(source, globals, locals)


def _compile(
    source: Any,
    filename: Any,
    mode: str,
    flags: int = 0,
    dont_inherit: bool = False,
    optimize: int = -1,
    **kwargs: Any,
) -> Any:
    """`compile` as `typing` calls it; the module's own flags (none) stand for the inherited."""
    simple = not flags and optimize == -1 and not kwargs and mode in ("eval", "exec")
    if simple and type(source) is str and filename == "<string>":
        return compiled(source, mode)
    return builtins.compile(source, filename, mode, flags, True, optimize, **kwargs)


def compiled(text: str, mode: str) -> types.CodeType:
    """`compile(text, "<string>", mode)` with no future flags, from the file when an earlier
    process compiled the same text."""
    global _stored
    key = hashlib.blake2b(
        f"{mode}\0{text}".encode("utf-8", "surrogatepass"), digest_size=16
    ).hexdigest()
    with _LOCK:
        made = _made.get(key)
        if made is not None:
            return made
        if _stored is None:
            _stored = usercache.load(_file(), MAGIC)
        raw = _stored.get(key)
        if raw is not None:
            _used[key] = None
    code = _code(raw) if raw is not None else None
    if code is None:
        code = builtins.compile(text, "<string>", mode, 0, True)
        with _LOCK:
            _made[key] = code
    return code


def _code(raw: bytes) -> types.CodeType | None:
    try:
        code = marshal.loads(raw)
    except (EOFError, ValueError, TypeError):
        return None
    if type(code) is not types.CodeType or code.co_filename != "<string>":
        return None
    return code


def save() -> None:
    """Write the code this process compiled that the file lacks, most recently used first (best
    effort: a cache that cannot be written is simply not kept)."""
    with _LOCK:
        path = _file()
        if not _made or path is None:
            return
        made = {k: marshal.dumps(code) for k, code in _made.items()}
        merged = usercache.merged(made, _used, usercache.load(path, MAGIC), MAX_ENTRIES)
        _made.clear()
        _used.clear()
    usercache.write_private(path, usercache.pack(MAGIC, merged))
