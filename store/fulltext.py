"""The Tantivy full-text index: schema, analyzer registration, writing and BM25 search.

Terms come from `store/tokenizer.py` on both sides; Tantivy's own tokenizers cannot express the
identifier splitting (no Python callbacks, no regex look-around). Documents are indexed as the
space-joined term list under the `gitstrata_terms` analyzer, which is Tantivy's whitespace
tokenizer and nothing else. This is equivalent to passing a `PreTokenizedString` of the same terms
(terms never contain whitespace: they are built from word characters and `. / - #`), and about
8x faster to index because no Python `Token` object is made per term; `tests/test_fulltext.py`
checks the equivalence. Queries are built from term queries directly, so they never go through
a query parser.

Every process that opens the index registers the analyzer again (Tantivy does not persist it).

Fields: `title` and `symbol` (boosted highest), `path`, `body`; `kind` and `path_exact` (raw,
for filters); `doc_idx` (fast field: the row of the document in every row-aligned artifact).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import tantivy

from .errors import IndexCorrupt
from .tokenizer import query_terms, tokenize

ANALYZER = "gitstrata_terms"
TEXT_FIELDS = ("title", "symbol", "path", "body")
BOOSTS = {"symbol": 3.0, "title": 2.5, "path": 1.5, "body": 1.0}
REBUILD = "gitstrata index --rebuild"
# Beside the index: each document's `field_terms` by content hash, one row per document in
# document order, so a refresh tokenizes only changed documents and the reranker none; and the
# terms of the part of a long body the reranker reads (`head_terms`, null for a shorter body).
TERMS_FILE = "terms.parquet"
# the reranker reads a body's first characters only (`serve/docs.py::DocTable.text`)
RERANK_CHARS = 4000
_RUST_REGEX_META = set("\\.+*?()|[]{}^$#&-~")


def analyzer() -> tantivy.TextAnalyzer:
    return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()


def schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("title", tokenizer_name=ANALYZER, index_option="freq")
    sb.add_text_field("symbol", tokenizer_name=ANALYZER, index_option="freq")
    sb.add_text_field("path", tokenizer_name=ANALYZER, index_option="freq")
    sb.add_text_field("body", tokenizer_name=ANALYZER, index_option="freq")
    sb.add_text_field("kind", tokenizer_name="raw", index_option="basic")
    sb.add_text_field("path_exact", tokenizer_name="raw", index_option="basic")
    sb.add_unsigned_field("doc_idx", fast=True)
    return sb.build()


def terms_text(text: str | None) -> str:
    """What a field stores: the tokenizer's terms joined by single spaces."""
    return " ".join(tokenize(text)) if text else ""


def field_terms(
    title: str | None, symbols: Sequence[str] | None, paths: Sequence[str] | None, body: str | None
) -> tuple[str, str, str, str]:
    """The indexed text of a document's title, symbol, path and body fields."""
    return (
        terms_text(title),
        terms_text(" ".join(symbols or ())),
        terms_text(" ".join(paths or ())),
        terms_text(body),
    )


def head_terms(body: str | None) -> str | None:
    """The terms of the first `RERANK_CHARS` characters of a longer body (what the reranker
    reads of it), else None: a body that fits is read whole, and its field terms serve."""
    return terms_text(body[:RERANK_CHARS]) if body and len(body) > RERANK_CHARS else None


def read_field_terms(directory: Path, fields: Sequence[str]) -> pa.Table | None:
    """The cached field texts (`field_terms` joined by spaces) of every document, or None when
    the index predates the cache or it cannot be read: callers then tokenize themselves."""
    path = Path(directory) / TERMS_FILE
    if not path.is_file():
        return None
    import pyarrow.parquet as pq  # a one-shot process that reads no terms never imports it

    try:
        return pq.read_table(path, columns=list(fields), use_threads=False)
    except (OSError, KeyError, pa.ArrowInvalid):
        return None


def write_index(
    directory: Path,
    docs: Iterable[tuple[int, str, str, Sequence[str], Sequence[str], str]],
    *,
    heap_bytes: int = 256_000_000,
    threads: int = 1,
    terms: Callable[[int], tuple[str, str, str, str] | None] | None = None,
) -> int:
    """Build a fresh index in `directory` (created or emptied by the caller).

    `docs` yields (doc_idx, kind, title, symbols, paths, body) in any order: raw text and the
    qualified names and file paths the document concerns, tokenized here. Each path is also
    indexed verbatim for the path filter. Returns the number of documents written.

    `terms(doc_idx)` may give a document's (title, symbol, path, body) field texts as
    `field_terms` computes them (kept from an earlier run for an unchanged document); for a
    document it gives None for, they are computed here."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    index = tantivy.Index(schema(), path=str(directory), reuse=False)
    index.register_tokenizer(ANALYZER, analyzer())
    writer = index.writer(heap_size=heap_bytes, num_threads=threads)
    n = 0
    for doc_idx, kind, title, symbols, paths, body in docs:
        doc = tantivy.Document()
        doc.add_unsigned("doc_idx", int(doc_idx))
        doc.add_text("kind", kind)
        for path in paths or ():
            doc.add_text("path_exact", path)
        known = terms(int(doc_idx)) if terms is not None else None
        texts = known or field_terms(title, symbols, paths, body)
        for name, joined in zip(("title", "symbol", "path", "body"), texts, strict=True):
            if joined:
                doc.add_text(name, joined)
        writer.add_document(doc)
        n += 1
    writer.commit()
    writer.wait_merging_threads()
    return n


def _regex_escape(text: str) -> str:
    return "".join("\\" + c if c in _RUST_REGEX_META else c for c in text)


class FullText:
    """A searcher over one generation's `fulltext/` folder."""

    def __init__(self, index: tantivy.Index, directory: Path | None = None) -> None:
        self.index = index
        self.directory = directory
        self.schema = index.schema
        self.searcher = index.searcher()

    @classmethod
    def open(cls, directory: Path) -> FullText:
        directory = Path(directory)
        if not (directory / "meta.json").exists():
            raise IndexCorrupt(f"{directory}: missing full-text index", hint=f"run `{REBUILD}`")
        try:
            index = tantivy.Index.open(str(directory))
        except ValueError as exc:
            raise IndexCorrupt(
                f"{directory}: unreadable full-text index ({exc})", hint=f"run `{REBUILD}`"
            ) from None
        index.register_tokenizer(ANALYZER, analyzer())
        return cls(index, directory)

    @property
    def num_docs(self) -> int:
        return int(self.searcher.num_docs)

    def doc_freq(self, field: str, term: str) -> int:
        return int(self.searcher.doc_freq(field, term))

    def query(
        self,
        terms: Sequence[str],
        *,
        kinds: Sequence[str] | None = None,
        path_prefix: str | None = None,
        boosts: dict[str, float] | None = None,
    ) -> tantivy.Query | None:
        """BM25 over the boosted text fields for any of `terms`, AND the filters; None when no
        term is left (an empty query matches nothing)."""
        boosts = boosts or BOOSTS
        should = []
        for term in terms:
            for field in TEXT_FIELDS:
                q = tantivy.Query.term_query(self.schema, field, term)
                should.append((tantivy.Occur.Should, tantivy.Query.boost_query(q, boosts[field])))
        if not should:
            return None
        clauses = [(tantivy.Occur.Must, tantivy.Query.boolean_query(should))]
        if kinds:
            any_kind = [
                (tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "kind", k))
                for k in kinds
            ]
            clauses.append((tantivy.Occur.Must, tantivy.Query.boolean_query(any_kind)))
        if path_prefix:
            pattern = _regex_escape(path_prefix) + ".*"
            clauses.append(
                (tantivy.Occur.Must, tantivy.Query.regex_query(self.schema, "path_exact", pattern))
            )
        return tantivy.Query.boolean_query(clauses)

    def search(
        self,
        text: str,
        top_k: int = 20,
        *,
        kinds: Sequence[str] | None = None,
        path_prefix: str | None = None,
        boosts: dict[str, float] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(doc_idx int64[k], BM25 score float32[k]), best first, ties by doc_idx."""
        return self.search_terms(
            query_terms(text), top_k, kinds=kinds, path_prefix=path_prefix, boosts=boosts
        )

    def search_terms(
        self,
        terms: Sequence[str],
        top_k: int = 20,
        *,
        kinds: Sequence[str] | None = None,
        path_prefix: str | None = None,
        boosts: dict[str, float] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        q = self.query(terms, kinds=kinds, path_prefix=path_prefix, boosts=boosts)
        if q is None or top_k <= 0:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        hits = self.searcher.search(q, limit=top_k, count=False).hits
        if not hits:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        scores = np.fromiter((s for s, _ in hits), dtype=np.float32, count=len(hits))
        rows = np.asarray(
            self.searcher.fast_field_values("doc_idx", [a for _, a in hits]), dtype=np.int64
        )
        order = np.lexsort((rows, -scores))
        return rows[order], scores[order]
