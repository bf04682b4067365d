"""Texts the context firewall passed unchanged, kept from one process to the next.

A one-shot `preflight` or `query`, and an MCP server's first answers, spent about a tenth of
their time importing the firewall (its rules, views and model: 20-30 ms) and running it over the
strings they serve (~55 us each), though most of those strings (commit messages, excerpts,
symbol names) had been served, and passed, before. `clean(text)` first looks `text` up among
the texts an earlier process found clean, and only on a miss imports the firewall and runs it.

Invariants:
- `clean(text)` returns what `firewall.clean(text)` returns. A text is recorded only when the
  firewall returned it unchanged, under its 128-bit BLAKE2b digest (crafting a text that
  shares the digest of a recorded one is out of reach); a text the firewall changed is cleaned
  again on every call.
- The file is keyed by the firewall's own code: a digest of every `firewall*` file of this
  package (rules, views, cues, the shipped model), the Python version and the Unicode data
  version. Any of them changed, and the file's entries are ignored and replaced at the next
  save; a new rule thus applies to every text at once.
- The file is private (0600 in a 0700 folder, `usercache`), replaced atomically, read only
  when the user running this process owns it, and memory-mapped: a process reads the pages its
  lookups touch. `GITSTRATA_FIREWALL_CACHE=off` turns this cache off, `GITSTRATA_CACHE=off`
  every file of the user's cache folder; anything unexpected in the file is a miss.
- It holds at most `MAX_ENTRIES` digests. A save writes the texts this process passed and the
  ones it found in the file, then the rest of the file, and drops what is past the limit
  (chosen by digest, so at random among the entries this process did not use). Two processes
  saving at once keep the last one's file: a cache only ever saves time.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import sys
import threading
from bisect import bisect_left
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..store import usercache

MAGIC = b"gitstrata firewall passed 1\n"
_DIGEST = 16  # bytes per entry, big-endian, so bytes order is numeric order
MAX_ENTRIES = 1 << 18  # 4 MB of digests
_HEAD = len(MAGIC) + _DIGEST  # the magic line, then the code's fingerprint

_LOCK = threading.Lock()
_fingerprint: bytes | None = None
_stored: _Stored | None = None
_passed: set[bytes] = set()  # digests this process found clean, not in the file
_used: set[bytes] = set()  # digests this process found in the file


def _code_fingerprint(folder: Path | None = None) -> bytes:
    """What decides `firewall.clean`'s answer: the `firewall*` files of this package (or of
    `folder`), byte for byte, and the Python and Unicode versions its regular expressions and
    normalisation follow."""
    import unicodedata

    h = hashlib.blake2b(digest_size=_DIGEST)
    h.update(MAGIC)
    h.update(f"{sys.version_info[:2]} {unicodedata.unidata_version}".encode())
    here = Path(__file__).parent if folder is None else folder
    for path in sorted(here.glob("firewall*")):
        if path.name == Path(__file__).name or not path.is_file():
            continue
        h.update(path.name.encode() + b"\0")
        h.update(path.read_bytes())
    return h.digest()


class _Stored:
    """A cache file's sorted digests, memory-mapped; `in` is a binary search of their first
    eight bytes (a native copy of those, made on the first lookup: 8 bytes an entry, under a
    millisecond for 77,000 entries), then a comparison of the whole digest. A binary search in
    Python over the mapped bytes took 15-20 us a lookup, and a preflight makes about 150."""

    def __init__(self, data: bytes | mmap.mmap = b"", start: int = 0) -> None:
        self._data = data
        self._start = start
        self._n = max(0, (len(data) - start) // _DIGEST)
        self._firsts: Sequence[int] | None = None  # made by `_first_halves`

    def __len__(self) -> int:
        return self._n

    def at(self, i: int) -> bytes:
        at = self._start + i * _DIGEST
        return bytes(self._data[at : at + _DIGEST])

    def _first_halves(self) -> Sequence[int]:
        if self._firsts is None:
            import numpy as np  # the serving processes that look texts up have imported it

            words = np.frombuffer(self._data, dtype=">u8", count=2 * self._n, offset=self._start)
            # native integers, read through a memoryview: `bisect` indexes it in C
            self._firsts = words[0::2].astype(np.uint64).data
        return self._firsts

    def __contains__(self, digest: object) -> bool:
        if not self._n or not isinstance(digest, bytes) or len(digest) != _DIGEST:
            return False
        firsts = self._first_halves()
        first = int.from_bytes(digest[:8], "big")
        i = bisect_left(firsts, first)
        # digests that share their first eight bytes sit side by side, in order
        while i < self._n and firsts[i] == first:
            if self.at(i) == digest:
                return True
            i += 1
        return False

    def raw(self) -> bytes:
        return bytes(self._data[self._start : self._start + self._n * _DIGEST])


def _file() -> Path | None:
    if os.environ.get("GITSTRATA_FIREWALL_CACHE", "").lower() in usercache.OFF:
        return None
    folder = usercache.folder()
    return None if folder is None else folder / "firewall-passed.bin"


def _load(path: Path | None, fingerprint: bytes) -> _Stored:
    """The file's digests when it is this user's and made by this firewall code, else none."""
    if path is None:
        return _Stored()
    try:
        with open(path, "rb") as fh:
            if not usercache.owned(fh.fileno()):
                return _Stored()
            size = os.fstat(fh.fileno()).st_size
            if size < _HEAD or (size - _HEAD) % _DIGEST:
                return _Stored()
            data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return _Stored()
    if data[: len(MAGIC)] != MAGIC or data[len(MAGIC) : _HEAD] != fingerprint:
        return _Stored()
    return _Stored(data, _HEAD)


def _state() -> tuple[bytes, _Stored]:
    global _fingerprint, _stored
    with _LOCK:
        if _fingerprint is None:
            _fingerprint = _code_fingerprint()
        if _stored is None:
            _stored = _load(_file(), _fingerprint)
        return _fingerprint, _stored


def reset() -> None:
    """Forget what this process read from the file and passed, as a new process would (the
    file stays; `GITSTRATA_FIREWALL_CACHE` is read again)."""
    global _fingerprint, _stored, _passed, _used
    with _LOCK:
        _fingerprint, _stored, _passed, _used = None, None, set(), set()


def digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=_DIGEST).digest()


def clean(text: str) -> str:
    """`firewall.clean(text)`, from the record of an earlier pass when there is one."""
    if not text:
        return text
    _, stored = _state()
    key = digest(text)
    if key in _passed:
        return text
    if key in stored:
        _used.add(key)
        return text
    from .firewall import clean as firewall_clean

    out = firewall_clean(text)
    if out == text and len(_passed) < MAX_ENTRIES:  # a long-running server's memory is bounded
        with _LOCK:
            _passed.add(key)
    return out


def has_room() -> bool:
    """Whether this process still records the texts the firewall passes (it keeps at most
    `MAX_ENTRIES`)."""
    return len(_passed) < MAX_ENTRIES


def clean_tree(value: Any) -> Any:
    """`value` (JSON-shaped: dicts, lists, scalars) with every string value cleaned; keys are
    the caller's own and stay as they are."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {k: clean_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_tree(v) for v in value]
    return value


def _merged(stored: _Stored, passed: set[bytes], used: set[bytes]) -> bytes:
    """The digests to keep, sorted and unique: this process's all, then as many of the file's
    others as `MAX_ENTRIES` leaves room for (the first by digest: as good as any)."""
    import numpy as np

    mine = np.frombuffer(b"".join(passed | used), dtype=">u8").reshape(-1, 2)
    theirs = np.frombuffer(stored.raw(), dtype=">u8").reshape(-1, 2)
    both = np.concatenate([mine, theirs])
    flag = np.concatenate([np.zeros(len(mine), np.int8), np.ones(len(theirs), np.int8)])
    order = np.lexsort((flag, both[:, 1], both[:, 0]))  # by digest, this process's first
    both, flag = both[order], flag[order]
    first = np.ones(len(both), dtype=bool)
    first[1:] = np.any(both[1:] != both[:-1], axis=1)
    both, flag = both[first], flag[first]
    if len(both) > MAX_ENTRIES:  # all of this process's, then the file's first by digest
        room = MAX_ENTRIES - int(np.sum(flag == 0))
        both = both[(flag == 0) | (np.cumsum(flag) <= room)][:MAX_ENTRIES]
    return both.astype(">u8").tobytes()


def save() -> None:
    """Write the texts this process passed to the file, with what it held (best effort)."""
    global _stored
    with _LOCK:
        if not _passed or _fingerprint is None:
            return
        path = _file()
        if path is None:
            return
        fingerprint = _fingerprint
        # what is on disk now: another process may have saved since this one read the file
        on_disk = _load(path, fingerprint)
        body = _merged(on_disk, _passed, _used)
        _passed.clear()
        _stored = None  # read again when next asked: the file just written holds it all
    usercache.write_private(path, MAGIC + fingerprint + body)


usercache.on_save(save)
