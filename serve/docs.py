"""Per-document metadata at query time, from the memory-mapped `docmeta.arrow`.

Dictionary-encoded columns become (codes, values) pairs: a numpy view of the codes plus a short
Python list of the distinct values, so the ranker can test `kind == commit` for 400 candidates
without touching Python strings. Lookups from symbol ids and shas to documents are built on
first use. Texts for the reranker come from `documents.parquet`, read column-wise once; their
terms come from the documents' `doc_terms` instead of tokenizing.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property, lru_cache

import numpy as np
import pyarrow as pa

from ..store.errors import IndexCorrupt
from ..store.fulltext import RERANK_CHARS
from ..store.generations import Generation
from ..store.tokenizer import tokenize
from ..store.vecstore import open_docmeta
from . import arrow_ops as pc

# (title terms, body terms, head terms): see `_read_cached_terms`
_Cached = tuple[pa.ChunkedArray, pa.ChunkedArray, pa.ChunkedArray]


class _Dict:
    """A dictionary-encoded column: int codes (-1 for null) and the values they index."""

    def __init__(self, column: pa.ChunkedArray) -> None:
        arr = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
        if not pa.types.is_dictionary(arr.type):
            arr = pc.dictionary_encode(arr)
        self.values: list = arr.dictionary.to_pylist()
        idx = arr.indices
        if idx.null_count:
            idx = pc.fill_null(idx, -1)
        self.codes = idx.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)

    @cached_property
    def _lookup(self) -> dict:
        # built on the first `code`: a document's symbol id or sha is never looked up this way
        return {v: i for i, v in enumerate(self.values)}

    @cached_property
    def _decoded(self) -> list:
        # decoded on first read, not at open: the ranker then reads these per candidate,
        # hundreds of times per query
        values = [*self.values, None]  # code -1 (null) reads the last item
        return [values[c] for c in self.codes.tolist()]

    def __getitem__(self, row: int):
        return self._decoded[row]

    def code(self, value) -> int:
        return self._lookup.get(value, -2)


# The reranker reads this many characters of a body (`DocTable.text`).
TEXT_LIMIT = RERANK_CHARS


class DocTable:
    def __init__(self, gen: Generation) -> None:
        self.gen = gen
        meta = open_docmeta(gen.path)
        self.n = meta.num_rows
        self.kind = _Dict(meta.column("kind"))
        self.path = _Dict(meta.column("path"))
        self.symbol_id = _Dict(meta.column("symbol_id"))
        self.qualname = _Dict(meta.column("qualname"))
        self.sha = _Dict(meta.column("sha"))
        self.intent = _Dict(meta.column("intent"))
        self.time = meta.column("time").to_numpy()
        self._titles = meta.column("title")
        self.commit_code = self.kind.code("commit")
        # read by `warm`, or on the first `terms` when their mapped copy is there (see `terms`)
        self._cached_terms: _Cached | None = None
        self._terms_read = False
        self.symbol_code = self.kind.code("symbol")

    @lru_cache(maxsize=16384)  # noqa: B019 (one DocTable per generation, dropped on reload)
    def title(self, row: int) -> str:
        return self._titles[row].as_py()

    def is_commit(self, row: int) -> bool:
        return int(self.kind.codes[row]) == self.commit_code

    def is_code(self, row: int) -> bool:
        return int(self.kind.codes[row]) == self.symbol_code

    def _last_row_of(self, column: _Dict, kind_code: int) -> dict[str, int]:
        """Each value of `column` among the documents of kind `kind_code`, to the last row that
        has it (the rows are picked in numpy, not by reading a numpy scalar per row)."""
        rows = np.flatnonzero((column.codes >= 0) & (self.kind.codes == kind_code))
        values = column.values
        return {
            values[c]: r for c, r in zip(column.codes[rows].tolist(), rows.tolist(), strict=True)
        }

    @cached_property
    def by_symbol_id(self) -> dict[str, int]:
        return self._last_row_of(self.symbol_id, self.symbol_code)

    @cached_property
    def by_sha(self) -> dict[str, int]:
        return self._last_row_of(self.sha, self.commit_code)

    @cached_property
    def by_path(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = defaultdict(list)
        for row, code in enumerate(self.path.codes.tolist()):
            if code >= 0:
                out[self.path.values[code]].append(row)
        return dict(out)

    @cached_property
    def by_name(self) -> dict[str, list[int]]:
        """Symbol documents by qualname and by last name component; a private member
        (`Ky.#retry`) also without its `#`, as a question writes it (`Ky.retry`, `retry`)."""
        out: dict[str, list[int]] = defaultdict(list)
        codes = self.qualname.codes
        rows = np.flatnonzero((codes >= 0) & (self.kind.codes == self.symbol_code))
        for row, code in zip(rows.tolist(), codes[rows].tolist(), strict=True):
            q = self.qualname.values[code]
            names = {q, q.rsplit(".", 1)[-1]}
            if "#" in q:
                names |= {n.replace("#", "") for n in names}
            for name in names:
                out[name].append(row)
        return dict(out)

    @cached_property
    def _texts(self) -> tuple[pa.ChunkedArray, pa.ChunkedArray, pa.ChunkedArray, pa.ChunkedArray]:
        t = self.gen.table("documents", columns=["title", "body", "paths", "doc_id"])
        return t.column("title"), t.column("body"), t.column("paths"), t.column("doc_id")

    # reading one value of a chunked Arrow column costs microseconds, and every query reads the
    # same hot documents again: the values are cached (one DocTable per generation)
    @lru_cache(maxsize=16384)  # noqa: B019 (one DocTable per generation, dropped on reload)
    def doc_id(self, row: int) -> str:
        return self._texts[3][row].as_py()

    @lru_cache(maxsize=4096)  # noqa: B019 (bodies are up to a few kB: fewer of them)
    def text(self, row: int, limit: int = TEXT_LIMIT) -> str:
        title, body, _, _ = self._texts
        return f"{title[row].as_py()}\n{(body[row].as_py() or '')[:limit]}"

    @lru_cache(maxsize=16384)  # noqa: B019 (one DocTable per generation, dropped on reload)
    def _paths(self, row: int) -> tuple[str, ...]:
        _, _, paths, _ = self._texts
        got = paths[row].as_py() or []
        p = self.path[row]
        return tuple(got) if got else ((p,) if p else ())

    def paths_of(self, row: int) -> list[str]:
        """Files a document concerns: its own path, or a commit's touched files."""
        return list(self._paths(row))

    @lru_cache(maxsize=8192)  # noqa: B019 (one DocTable per generation, dropped on reload)
    def terms(self, row: int) -> tuple[str, str]:
        """(terms of `text`, terms of the title) of a document, each joined by single spaces
        with a space before and after, cached: a term `t` is in it where `f" {t} "` is, and
        two terms follow each other where `f" {a} {b} "` is (no term holds a space), so the
        reranker asks its few query terms without a set of every document term.

        A process that was not warmed (a one-shot command) reads the cached terms when their
        mapped copy is there already (a server made it): mapped, they cost about a
        millisecond, against 15-50 ms to tokenize a query's candidates. Without the copy it
        tokenizes them: making the copy would add the terms' whole uncompressed size to the
        index folder (6-8 MB on a 6,000-document index), and decoding the Parquet file costs
        what tokenizing does."""
        if not self._terms_read:
            self._cached_terms = self._read_cached_terms(copied_only=True)
            self._terms_read = True
        cached = self._cached_terms
        body = None
        if cached is not None:
            # `text` is title, newline, the body's first `TEXT_LIMIT` characters, and no term
            # spans a newline; the cache joins each field's terms by single spaces. A longer
            # body is read from the terms of its head, which only such a body has
            body = cached[2][row].as_py()
            if body is None:
                body = cached[1][row].as_py()
        if body is not None:
            title = cached[0][row].as_py()  # type: ignore[index]
            seq = f"{title} {body}" if title and body else title or body
        else:
            title = " ".join(tokenize(self.title(row)))
            seq = " ".join(tokenize(self.text(row)))
        return f" {seq} ", f" {title} "

    def _read_cached_terms(self, *, copied_only: bool = False) -> _Cached | None:
        """(title terms, body terms, terms of a longer body's first `TEXT_LIMIT` characters
        or null) per row, from the documents' `doc_terms`; None for an index without them,
        whose documents are then tokenized. The body terms cover the whole body, so they serve
        a body the reranker reads whole; a longer one is read from its head terms. `tokenize`
        never joins terms across the newline `text` puts between title and body. With
        `copied_only`, only from the table's mapped copy, None when there is none yet."""
        columns = ["content_hash", "title", "body", "head"]
        try:
            if copied_only:
                cache = self.gen.mapped_table("doc_terms")
                if cache is None or not set(columns) <= set(cache.column_names):
                    return None
            else:
                cache = self.gen.table("doc_terms", columns=columns)
        except (KeyError, IndexCorrupt, OSError, pa.ArrowInvalid):
            return None  # an index written before the terms were kept
        if cache.num_rows != self.n:
            return None
        hashes = self.gen.table("documents", columns=["content_hash"]).column("content_hash")
        if not cache.column("content_hash").equals(hashes):
            return None  # not this generation's documents: tokenize instead
        return cache.column("title"), cache.column("body"), cache.column("head")

    def warm(self) -> None:
        for attr in ("by_symbol_id", "by_sha", "by_path", "by_name", "_texts"):
            getattr(self, attr)
        for column in (self.kind, self.path, self.symbol_id, self.qualname, self.sha, self.intent):
            column._decoded  # noqa: B018 (decode now, not on the first query)
        self._cached_terms, self._terms_read = self._read_cached_terms(), True
