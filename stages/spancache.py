"""File versions' symbol spans for the `capsule` stage, cached and mostly not parsed.

Invariants: a version is keyed by (blob id, language), so a file's parent version in one commit
is found again as the child version of another; the cache is a bounded LRU; a version is
obtained cheapest first: from the cache, derived from the other side of the change at hand
(`spans.derive`), spliced (only the touched regions parsed, `spans.splice`), or read and parsed
whole with the same chunker as the `chunk` stage. A version neither side of whose change is
cached (a side branch's last one: merges are not diffed) is first derived or spliced from the
latest version of its path in the cache, across hunks computed between the two texts
(`linediff`). Non-code files are never read. The bytes a
splice or a parse needs are rebuilt from a neighbouring version in memory and the hunks when
possible (checked against the blob id), else read through `cat-file`. Tree-sitter parses a
file's next whole version, or the next text of a splice region (named by its first top-level
symbol), incrementally from the last tree of the same file or region (`treesitter.parse_tree`'s
slot), that tree edited hunk by hunk when it is the known side's (else by the one span where
the texts differ): the tree, and so the symbols, are those of a fresh parse. With `full_parse` every needed
version is parsed whole: the reference the other paths must equal.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable

from ..store.config import HistoryConfig
from ..store.filekind import is_binary
from .linediff import diff_hunks
from .patch import FileChange, apply_hunks
from .spanregions import StatementHint
from .spans import Spans, derive, from_symbols, line_moves, module_only, splice

ReadBlob = Callable[[str], "bytes | None"]

_MISSING = object()
BLOB_BYTES = 64 << 20  # file versions kept in memory to rebuild their neighbours from hunks
TREES = 64  # files (or regions) whose last tree-sitter tree is kept, to parse incrementally
# Python texts whose symbols are kept by their bytes: the same region text recurs (a revert, a
# change undone, a member edited back), and on click a sixth of the regions `splice` parsed
# were texts it had parsed before
PY_TEXTS = 1024


def blob_id(data: bytes, like: str) -> str:
    """git's object id of a blob holding `data` (SHA-1, or SHA-256 for 64-digit ids)."""
    h = hashlib.sha256() if len(like) == 64 else hashlib.sha1()  # noqa: S324 (git's id)
    h.update(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


class SpanCache:
    """Spans of file versions keyed by (blob id, language), least recently used evicted.

    A version is obtained, cheapest first: from the cache; derived across the hunks of the
    change at hand from the other side's cached spans (`spans.derive`); spliced (read, and only
    the touched regions parsed: `spans.splice`); read and parsed whole."""

    def __init__(
        self,
        read_blob: ReadBlob,
        config: HistoryConfig,
        parse=None,
        language_of=None,
        *,
        full_parse: bool = False,
    ):
        from .chunking import CODE, detect_language

        self._read = read_blob
        self._custom_parse = parse
        self._language_of = language_of or detect_language
        self._code = CODE
        self._max_bytes = config.max_blob_bytes
        self._size = config.parse_cache
        self._cache: OrderedDict[tuple[str, str | None], Spans | None] = OrderedDict()
        self._plain = module_only()
        self._languages: dict[str, str | None] = {}
        self._full = full_parse
        # bytes of recent versions, and how to rebuild others from them (known blob, hunks,
        # forward): a version next to one in memory is rebuilt, not read through `cat-file`
        self._blobs: OrderedDict[str, bytes] = OrderedDict()
        self._blob_bytes = 0
        self._recipes: OrderedDict[str, tuple[str, list, bool]] = OrderedDict()
        self._trees: OrderedDict[tuple[str, str | None], dict] = OrderedDict()
        self._py_texts: OrderedDict[bytes, tuple] = OrderedDict()  # bytes -> ast's symbols
        self._statements: dict[str, StatementHint] = {}  # `splice`'s per path
        # per path, the blob of its last version with clean spans (`_near`)
        self._latest: OrderedDict[str, str] = OrderedDict()
        self.read = 0
        self.rebuilt = 0
        self.parsed = 0
        self.derived = 0
        self.spliced = 0
        self.hits = 0
        self.near = 0
        self.recalled = 0  # Python texts whose symbols were kept from an earlier parse

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
        data = self._blobs.get(blob)
        if data is None:
            data = self._rebuild(blob)
        if data is None:
            self.read += 1
            data = self._read(blob)
            if data is not None:
                self._keep(blob, data)
        if data is None or len(data) > self._max_bytes or is_binary(data):
            return None
        return data

    def _keep(self, blob: str, data: bytes) -> None:
        if blob in self._blobs:
            self._blobs.move_to_end(blob)
            return
        self._blobs[blob] = data
        self._blob_bytes += len(data)
        while self._blob_bytes > BLOB_BYTES and len(self._blobs) > 1:
            self._blob_bytes -= len(self._blobs.popitem(last=False)[1])

    def _recipe(self, blob: str | None, known: str | None, fc: FileChange, forward: bool) -> None:
        if blob is None or known is None or self._full or not fc.hunks:
            return
        self._recipes[blob] = (known, fc.hunks, forward)
        if len(self._recipes) > self._size:
            self._recipes.popitem(last=False)

    def _rebuild(self, blob: str) -> bytes | None:
        """A version's bytes from a version in memory and the hunks between them, checked
        against the blob id (a mismatch, or no such chain: None, and the caller reads)."""
        chain: list[str] = []
        at = blob
        while at not in self._blobs:
            step = self._recipes.get(at)
            if step is None or len(chain) >= 64:
                return None
            chain.append(at)
            at = step[0]
        data = self._blobs[at]
        for target in reversed(chain):
            _, hunks, forward = self._recipes[target]
            rebuilt = apply_hunks(data, hunks, forward=forward)
            if rebuilt is None or blob_id(rebuilt, target) != target:
                return None
            data = rebuilt
            self.rebuilt += 1
            self._keep(target, data)
        return data

    def _symbols(
        self,
        path: str,
        data: bytes,
        language: str | None,
        *,
        region: str | None = None,
        moves: list[tuple[int, int, int]] | None = None,
    ):
        """(symbols, clean): the chunker's symbols of a version, and whether ast or tree-sitter
        parsed it without a syntax error. For a `region` of `splice` (named by its first top-level
        symbol), which only uses clean results, an unclean parse gives (None, False) and no
        fallback is computed. `moves` (per hunk: 0-based old line, old count, new count) say how
        the lines of the text the slot's last tree was parsed from likely became `data`:
        tree-sitter then edits that tree hunk by hunk (`treesitter._parse` checks them).

        The same choices as `parse_source`, with one parse: bare symbols (no signatures or
        docstrings, which spans do not use), and no second tree-sitter parse before the
        structural fallback."""
        if self._custom_parse is not None:
            return self._custom_parse(path, data).symbols, False
        from .chunking import (
            CODE,
            TREE_SITTER,
            Source,
            assemble,
            parse_source,
            python_ast,
            structural_candidates,
            treesitter,
        )

        if language in CODE and (language == "python" or language in TREE_SITTER):
            if language == "python":
                known = self._py_texts.get(data)
                if known is not None:
                    self._py_texts.move_to_end(data)
                    self.recalled += 1
                    return known
                src = Source(data, language)
                parsed = python_ast.parse(src, bare=True)
                if parsed is not None:
                    result = self._py_texts[data] = (parsed.symbols, True)
                    if len(self._py_texts) > PY_TEXTS:
                        self._py_texts.popitem(last=False)
                    return result
            else:
                src = Source(data, language)
                slot = self._slot(path, region)
                if moves:
                    slot["moves"] = moves
                found = treesitter.parse_tree(src, slot)
                if found is not None:
                    candidates, has_error = found
                    if not has_error:
                        return assemble(src, "tree-sitter", candidates, (), bare=True).symbols, True
                    if region is not None:
                        return None, False
                    fallback = structural_candidates(src)
                    chosen = fallback if len(fallback) > len(candidates) else candidates
                    return assemble(src, "structural", chosen, (), bare=True).symbols, False
            if region is not None:
                return None, False
            return assemble(
                src, "structural", structural_candidates(src), (), bare=True
            ).symbols, False
        parsed = parse_source(path, data)
        return parsed.symbols, parsed.parser == "ast"

    def _slot(self, path: str, region: str | None) -> dict:
        """The last tree-sitter tree of this file's whole versions (or of one of its regions),
        for an incremental parse of the next one; a bounded number are kept."""
        key = (path, region)
        slot = self._trees.get(key)
        if slot is None:
            slot = self._trees[key] = {}
            if len(self._trees) > TREES:
                self._trees.popitem(last=False)
        else:
            self._trees.move_to_end(key)
        return slot

    def _region(self, path: str, language: str | None):
        def parse(data: bytes, region: str = "", moves=None):
            symbols, clean = self._symbols(path, data, language, region=region, moves=moves)
            return symbols if clean else None

        return parse

    def _parsed(
        self, data: bytes | None, path: str, language: str | None, moves=None
    ) -> Spans | None:
        if data is None:
            return None
        self.parsed += 1
        if self._full and self._custom_parse is None:
            from .chunking import parse_source

            # the reference is literally the `chunk` stage's parser
            return from_symbols(parse_source(path, data).symbols, data, language)
        symbols, clean = self._symbols(path, data, language, moves=moves)
        return from_symbols(symbols, data, language, clean=clean)

    def _fresh(self, blob: str, path: str, language: str | None) -> Spans | None:
        if language not in self._code:
            return self._plain
        return self._parsed(self._data(blob), path, language)

    def _other(self, known, fc: FileChange, *, forward: bool, needed: bool):
        """The missing side from the known one: derived, spliced, or (when needed) parsed."""
        blob, path = (fc.new_blob, fc.path) if forward else (fc.old_blob, fc.old_path or fc.path)
        self._recipe(blob, fc.old_blob if forward else fc.new_blob, fc, forward)
        language = self.language(path)
        if isinstance(known, Spans):
            source = fc.old_blob if forward else fc.new_blob
            derived = derive(
                known,
                fc.hunks,
                forward=forward,
                text=None if source is None else lambda: self._data(source),
            )
            if derived is not None:
                self.derived += 1
                return derived
        if language not in self._code:
            return self._plain
        clean = isinstance(known, Spans) and known.clean
        if not needed and not clean:
            return _MISSING
        if blob is None:  # the side does not exist (an added or deleted file)
            return _MISSING
        data = self._data(blob)
        if clean and data is not None:
            spliced = self._splice(known, fc.hunks, forward, data, path, language)
            if spliced is not None:
                self.spliced += 1
                return spliced
        if not needed:
            return _MISSING
        # the file's last whole tree is usually the known side's: edited hunk by hunk
        return self._parsed(data, path, language, line_moves(fc.hunks, forward=forward))

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
        if self._full:
            return self._pair_parsed(fc, need_old, old_lang, need_new, new_lang)
        old_key = (fc.old_blob, old_lang) if fc.old_blob else None
        new_key = (fc.new_blob, new_lang) if fc.new_blob else None
        old = self._peek(old_key) if old_key else None
        new = self._peek(new_key) if new_key else None
        # A side is only looked up (and so can be _MISSING) when it has a blob, hence a key.
        if old is _MISSING and new is _MISSING and old_key and new_key:
            # make one side, from another version of the file when the cache has one, else by
            # parsing it whole; the other is usually derivable from it
            if need_new:
                new = self._put(new_key, self._first(new_key[0], fc.path, new_lang))
            else:
                path = fc.old_path or fc.path
                old = self._put(old_key, self._first(old_key[0], path, old_lang))
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
        for blob, at, spans in ((fc.new_blob, fc.path, new), (fc.old_blob, fc.old_path, old)):
            if blob and at and isinstance(spans, Spans) and spans.clean:
                self._latest[at] = blob
                self._latest.move_to_end(at)
                if len(self._latest) > self._size:
                    self._latest.popitem(last=False)
        old_s = old if need_old and isinstance(old, Spans) else None
        new_s = new if need_new and isinstance(new, Spans) else None
        ok = (old_s is not None or not need_old) and (new_s is not None or not need_new)
        return old_s, new_s, ok

    def _first(self, blob: str, path: str, language: str | None) -> Spans | None:
        """A version neither side of whose change is cached: from a neighbour (`_near`), else
        parsed whole."""
        near = self._near(blob, path, language)
        return near if near is not None else self._fresh(blob, path, language)

    def _near(self, blob: str, path: str, language: str | None) -> Spans | None:
        """`blob`'s spans from the last version of `path` with clean spans in the cache, across
        the hunks between the two texts (`linediff`): derived or spliced like the other side of
        a change. None when there is no such version, when the texts differ in more than half
        of `blob`'s lines (parsing it whole is then no dearer), or when neither works."""
        if language not in self._code:
            return None
        last = self._latest.get(path)
        if last is None or last == blob:
            return None
        known = self._cache.get((last, language))
        if not isinstance(known, Spans) or not known.clean:
            return None
        old, data = self._data(last), self._data(blob)
        if old is None or data is None:
            return None
        hunks = diff_hunks(old, data)
        if 2 * sum(h.new_count for h in hunks) > data.count(b"\n") + 1:
            return None
        derived = derive(known, hunks, forward=True, text=lambda: old)
        if derived is not None:
            self.derived += 1
            self.near += 1
            return derived
        spliced = self._splice(known, hunks, True, data, path, language)
        if spliced is not None:
            self.spliced += 1
            self.near += 1
        return spliced

    def _splice(self, known: Spans, hunks, forward: bool, data: bytes, path: str, language):
        """`spans.splice` of one version of `path`, with the file's own regions' trees and its
        statement hint."""
        hint = self._statements.get(path)
        if hint is None:
            hint = self._statements[path] = StatementHint()
        return splice(
            known,
            hunks,
            forward=forward,
            data=data,
            parse=self._region(path, language),
            hint=hint,
        )

    def _pair_parsed(self, fc: FileChange, need_old, old_lang, need_new, new_lang):
        """The reference path: every needed side parsed whole (memoised by blob id only)."""
        out: list[Spans | None] = []
        for need, blob, path, lang in (
            (need_old, fc.old_blob, fc.old_path or fc.path, old_lang),
            (need_new, fc.new_blob, fc.path, new_lang),
        ):
            if not need or blob is None:
                out.append(None)
                continue
            key = (blob, lang)
            found = self._peek(key)
            if found is _MISSING:
                found = self._put(key, self._fresh(blob, path, lang))
            out.append(found)
        old_s, new_s = out
        ok = (old_s is not None or not need_old) and (new_s is not None or not need_new)
        return old_s, new_s, ok
