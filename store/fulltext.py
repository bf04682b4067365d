"""The Tantivy full-text index: the documents' field terms and BM25 search (the schema, the
analyzer and writing are in `store/fulltext_writer.py`).

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

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import tantivy

from .errors import IndexCorrupt
from .fulltext_writer import ANALYZER, TEXT_FIELDS, analyzer
from .tokenizer import query_terms, tokenize

BOOSTS = {"symbol": 3.0, "title": 2.5, "path": 1.5, "body": 1.0}
REBUILD = "gitstrata index --rebuild"
# the reranker reads a body's first characters only (`serve/docs.py::DocTable.text`)
RERANK_CHARS = 4000
_RUST_REGEX_META = set("\\.+*?()|[]{}^$#&-~")


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
