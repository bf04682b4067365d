"""The user's cache folder: what gitstrata keeps between processes outside any repository.

Invariants:
- The folder is `$XDG_CACHE_HOME/gitstrata` (default `~/.cache/gitstrata`), made 0700; a file in
  it is written 0600 under a temporary name and published by rename, so a reader sees a whole
  file or none.
- A file is read only when the user running this process owns it (POSIX).
- `GITSTRATA_CACHE=off` stops every file here being read or written; nothing in it is ever
  needed, each only saves time.
- A keyed file (`load`, `pack`, `merged`: the compiled patterns, the dataclasses' methods) is
  its magic line, the length of its index, the index (each key's offset and length, marshalled)
  and the entries. A reader maps the file and reads the index and the entries it asks for; an
  entry outside the file, or an index of another shape, is no entry.
"""

from __future__ import annotations

import marshal
import mmap
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from . import private

OFF = ("off", "0", "false", "no")
_SAVERS: list[Callable[[], None]] = []


def on_save(save: Callable[[], None]) -> None:
    """Register a cache's `save`: run at exit (`atexit`) and by `save_all`, which a process
    ending through `os._exit` (a one-shot answer, a signalled server) calls first."""
    import atexit

    _SAVERS.append(save)
    atexit.register(save)


def save_all() -> None:
    """Save every cache this process registered (each does nothing when it has nothing new)."""
    for save in list(_SAVERS):
        save()


def folder() -> Path | None:
    """The cache folder, or None when caching is off or no absolute folder can be named."""
    if os.environ.get("GITSTRATA_CACHE", "").lower() in OFF:
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    return Path(base) / "gitstrata"


def owned(fd: int) -> bool:
    """Whether the open file `fd` belongs to this process's user (always, where there are none)."""
    owner = getattr(os, "getuid", None)
    return owner is None or os.fstat(fd).st_uid == owner()


def read_owned(path: Path) -> bytes | None:
    """`path`'s bytes, or None when it is missing, unreadable or another user's."""
    try:
        with open(path, "rb") as fh:
            return fh.read() if owned(fh.fileno()) else None
    except OSError:
        return None


def write_private(path: Path, data: bytes) -> bool:
    """Replace `path` with `data` (0600 in a 0700 folder), atomically; False where it cannot be
    written, which a cache simply does without."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        private.private_dir(path.parent)
        private.write_private(tmp, data)
        os.replace(tmp, path)
        return True
    except (OSError, ValueError):
        try:
            tmp.unlink()
        except OSError:
            pass
        return False


_LENGTH = 8  # bytes of a keyed file's index length, after its magic line


class Stored(Mapping[str, bytes]):
    """The entries of a keyed file: its index (key -> offset and length in the entries) read
    whole, each entry's bytes read from the mapped file when asked for."""

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


def pack(magic: bytes, entries: Mapping[str, bytes]) -> bytes:
    """A keyed file holding `entries` (key -> bytes)."""
    index: dict[str, tuple[int, int]] = {}
    at = 0
    for key, raw in entries.items():
        index[key] = (at, len(raw))
        at += len(raw)
    head = marshal.dumps(index)
    return b"".join((magic, len(head).to_bytes(_LENGTH, "little"), head, *entries.values()))


def load(path: Path | None, magic: bytes) -> Stored:
    """The keyed file at `path`; no entries when there is none, when it is another user's or
    not a whole file of this `magic`. Each entry is checked by its reader when it is used."""
    if path is None:
        return Stored({})
    try:
        with open(path, "rb") as fh:
            if not owned(fh.fileno()):  # a file of another user is not read
                return Stored({})
            head = fh.read(len(magic) + _LENGTH)
            if len(head) < len(magic) + _LENGTH or not head.startswith(magic):
                return Stored({})
            size = int.from_bytes(head[len(magic) :], "little")
            base = len(magic) + _LENGTH + size
            end = os.fstat(fh.fileno()).st_size
            if base > end:  # an index longer than the file: not read (nor allocated)
                return Stored({})
            index = marshal.loads(fh.read(size))
            if not isinstance(index, dict):
                return Stored({})
            data: bytes | mmap.mmap = (
                mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if end > base else b""
            )
    except (OSError, EOFError, ValueError, TypeError):
        return Stored({})
    return Stored(index, data, base)


def merged(
    made: dict[str, bytes], used: Iterable[str], on_disk: Mapping[str, bytes], limit: int
) -> dict[str, bytes]:
    """The entries a keyed file keeps, most recently used first: what this process `made`,
    then what it `used` of the file, then the rest of the file in its order, up to `limit`. A
    full file thus loses its least recently used entries, never the ones a command needs."""
    out = dict(made)
    for key in [*(k for k in used if k not in out), *on_disk]:
        if len(out) >= limit:
            break
        if key not in out:
            try:
                out[key] = on_disk[key]
            except KeyError:
                continue  # an entry outside the file: dropped
    return out
