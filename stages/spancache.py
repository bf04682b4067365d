"""File versions' symbol spans for the `capsule` stage, cached and mostly not parsed.

Invariants: a version is keyed by (blob id, language), so a file's parent version in one commit
is found again as the child version of another; the cache is a bounded LRU; a version is
obtained cheapest first: from the cache, derived from the other side of the change at hand
(`spans.derive`), spliced (only the touched regions parsed, `spans.splice`), or read and parsed
whole with the same chunker as the `chunk` stage. Non-code files are never read.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from ..store.config import HistoryConfig
from .patch import FileChange
from .spans import Spans, derive, from_symbols, module_only, splice

ReadBlob = Callable[[str], "bytes | None"]

_MISSING = object()


class SpanCache:
    """Spans of file versions keyed by (blob id, language), least recently used evicted.

    A version is obtained, cheapest first: from the cache; derived across the hunks of the
    change at hand from the other side's cached spans (`spans.derive`); spliced (read, and only
    the touched regions parsed: `spans.splice`); read and parsed whole."""

    def __init__(self, read_blob: ReadBlob, config: HistoryConfig, parse=None, language_of=None):
        from .chunking import CODE, detect_language, parse_source

        self._read = read_blob
        self._parse = parse or parse_source
        self._language_of = language_of or detect_language
        self._code = CODE
        self._max_bytes = config.max_blob_bytes
        self._size = config.parse_cache
        self._cache: OrderedDict[tuple[str, str | None], Spans | None] = OrderedDict()
        self._plain = module_only()
        self._languages: dict[str, str | None] = {}
        self.parsed = 0
        self.derived = 0
        self.spliced = 0
        self.hits = 0

    def language(self, path: str) -> str | None:
        try:
            return self._languages[path]
        except KeyError:
            lang = self._languages[path] = self._language_of(path)
            return lang

    def _peek(self, key: tuple[str, str | None]):
        found = self._cache.get(key, _MISSING)
        if found is not _MISSING:
            self._cache.move_to_end(key)
            self.hits += 1
        return found

    def _put(self, key: tuple[str, str | None], spans: Spans | None) -> Spans | None:
        self._cache[key] = spans
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return spans

    def _data(self, blob: str) -> bytes | None:
        data = self._read(blob)
        if data is None or len(data) > self._max_bytes or b"\0" in data[:8192]:
            return None
        return data

    def _parsed(self, data: bytes | None, path: str, language: str | None) -> Spans | None:
        if data is None:
            return None
        self.parsed += 1
        return from_symbols(self._parse(path, data).symbols, data, language)

    def _fresh(self, blob: str, path: str, language: str | None) -> Spans | None:
        if language not in self._code:
            return self._plain
        return self._parsed(self._data(blob), path, language)

    def _other(self, known, fc: FileChange, *, forward: bool, needed: bool):
        """The missing side from the known one: derived, spliced, or (when needed) parsed."""
        blob, path = (fc.new_blob, fc.path) if forward else (fc.old_blob, fc.old_path or fc.path)
        language = self.language(path)
        if isinstance(known, Spans):
            derived = derive(known, fc.hunks, forward=forward)
            if derived is not None:
                self.derived += 1
                return derived
        if language not in self._code:
            return self._plain
        python = isinstance(known, Spans) and known.python
        if not needed and not python:
            return _MISSING
        if blob is None:  # the side does not exist (an added or deleted file)
            return _MISSING
        data = self._data(blob)
        if python and data is not None:
            spliced = splice(
                known, fc.hunks, forward=forward, data=data, parse=lambda d: self._parse(path, d)
            )
            if spliced is not None:
                self.spliced += 1
                return spliced
        return self._parsed(data, path, language) if needed else _MISSING

    def pair(self, fc: FileChange) -> tuple[Spans | None, Spans | None, bool]:
        """(old spans, new spans, ok): each side only when the change has lines on it; ok is
        False when a needed side cannot be parsed (binary, too large, unreadable)."""
        need_old = bool(fc.removed and fc.old_blob)
        need_new = bool(fc.added and fc.new_blob)
        old_lang = self.language(fc.old_path) if fc.old_path else None
        new_lang = self.language(fc.new_path) if fc.new_path else None
        if (not need_old or old_lang not in self._code) and (
            not need_new or new_lang not in self._code
        ):
            return (self._plain if need_old else None), (self._plain if need_new else None), True
        old_key = (fc.old_blob, old_lang) if fc.old_blob else None
        new_key = (fc.new_blob, new_lang) if fc.new_blob else None
        old = self._peek(old_key) if old_key else None
        new = self._peek(new_key) if new_key else None
        # A side is only looked up (and so can be _MISSING) when it has a blob, hence a key.
        if old is _MISSING and new is _MISSING and old_key and new_key:
            # parse one side; the other is usually derivable from it
            if need_new:
                new = self._put(new_key, self._fresh(new_key[0], fc.path, new_lang))
            else:
                old = self._put(old_key, self._fresh(old_key[0], fc.old_path or fc.path, old_lang))
        # The missing side is made even when this change does not need it: the next (older)
        # commit touching the file does, and deriving costs microseconds.
        same = old_lang == new_lang
        if new is _MISSING and new_key:
            new = self._other(old if same else None, fc, forward=True, needed=need_new)
            if new is not _MISSING:
                self._put(new_key, new)
        if old is _MISSING and old_key:
            old = self._other(new if same else None, fc, forward=False, needed=need_old)
            if old is not _MISSING:
                self._put(old_key, old)
        old_s = old if need_old and isinstance(old, Spans) else None
        new_s = new if need_new and isinstance(new, Spans) else None
        ok = (old_s is not None or not need_old) and (new_s is not None or not need_new)
        return old_s, new_s, ok
