"""The Tantivy index: documents built from a symbols/commits table, found by split parts and by
whole names, filtered by kind and path; the joined-terms indexing equals PreTokenizedString."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import tantivy
from hypothesis import given, settings
from hypothesis import strategies as st

from gitstrata.stages.documents import _hash, build_documents, docmeta
from gitstrata.store import fulltext
from gitstrata.store.fulltext_writer import build_in_child, write_index
from gitstrata.store.ids import symbol_id
from gitstrata.store.schemas import COMMITS, DOCMETA, DOCUMENTS, SYMBOLS, TOUCHES
from gitstrata.store.tokenizer import tokenize


def _sym(
    path: str, qual: str, code: str, kind: str = "function", doc: str | None = None, line: int = 1
) -> dict:
    return {
        "symbol_id": symbol_id(path, qual),
        "path": path,
        "qualname": qual,
        "name": qual.rsplit(".", 1)[-1],
        "kind": kind,
        "parent": None,
        "start_line": line,
        "end_line": line + 2,
        "signature": f"def {qual.rsplit('.', 1)[-1]}()",
        "docstring": doc,
        "language": "python",
        "blob": "0" * 40,
        "code": code,
    }


SYMBOLS_ROWS = [
    _sym(
        "src/pay/charge.py", "charge_with_retry", "for attempt in range(3): gateway.charge(order)"
    ),
    _sym(
        "src/pay/charge.py",
        "Gateway.refund",
        "raise PaymentError('ERR_PAYMENT_DUPLICATE')",
        "method",
        line=10,
    ),
    _sym(
        "src/cache/ttl.py",
        "TTLCache.set",
        "self.entries[key] = (value, now + ttl)",
        "method",
        "Store a value.",
    ),
    _sym("docs/readme.py", "render_page", "return template.format(title=title)"),
]


def _when(day: int) -> datetime:
    return datetime.fromtimestamp(1_700_000_000 + day * 86_400, UTC)


def _history() -> tuple[pa.Table, pa.Table]:
    sha = "a" * 40
    commits = [
        {
            "sha": sha,
            "parents": [],
            "author_name": "A",
            "author_email": "a@x",
            "author_time": _when(3),
            "commit_time": _when(3),
            "subject": "fix: stop double billing on timeout",
            "message": "fix: stop double billing on timeout\n\nFixes INC-2407.",
            "intent": "bugfix",
            "reverted_sha": None,
            "tickets": ["INC-2407"],
            "files": 1,
            "symbols": 1,
            "added": 2,
            "removed": 1,
            "bulk": False,
            "excerpt": "-gateway.charge(order)\n+charge_with_retry(order)",
        }
    ]
    touches = [
        {
            "sha": sha,
            "commit_time": _when(3),
            "path": "src/pay/charge.py",
            "old_path": None,
            "status": "M",
            "head_path": "src/pay/charge.py",
            "symbol_id": symbol_id("src/pay/charge.py", "charge_with_retry"),
            "qualname": "charge_with_retry",
            "kind": "function",
            "added": 2,
            "removed": 1,
            "binary": False,
            "excerpt": None,
        }
    ]
    return pa.Table.from_pylist(commits, schema=COMMITS), pa.Table.from_pylist(
        touches, schema=TOUCHES
    )


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> tuple[fulltext.FullText, pa.Table]:
    commits, touches = _history()
    records = [
        {
            "kind": "failure",
            "key": "1",
            "path": "src/cache/ttl.py",
            "symbol": "TTLCache.set",
            "title": "tried a global lock",
            "body": "deadlock under load",
            "time": 1_700_900_000,
        }
    ]
    docs = build_documents(
        pa.Table.from_pylist(SYMBOLS_ROWS, schema=SYMBOLS), commits, touches, records
    )
    folder = tmp_path_factory.mktemp("ft") / "fulltext"
    assert write_index(folder, _rows(docs)) == 6
    return fulltext.FullText.open(folder), docs


def _titles(docs: pa.Table, rows: np.ndarray) -> list[str]:
    titles = docs.column("title").to_pylist()
    return [titles[i] for i in rows]


def test_documents_table(index) -> None:
    _, docs = index
    assert docs.schema.equals(DOCUMENTS)
    assert docs.column("doc_id").to_pylist() == [
        f"symbol:{symbol_id('docs/readme.py', 'render_page')}",
        f"symbol:{symbol_id('src/cache/ttl.py', 'TTLCache.set')}",
        f"symbol:{symbol_id('src/pay/charge.py', 'charge_with_retry')}",
        f"symbol:{symbol_id('src/pay/charge.py', 'Gateway.refund')}",
        "commit:" + "a" * 40,
        "failure:1",
    ]
    times = [int(t.timestamp()) for t in docs.column("time").to_pylist()]
    # charge_with_retry: its own touch; Gateway.refund: its file's newest touch; others: unknown
    assert times == [0, 0, 1_700_259_200, 1_700_259_200, 1_700_259_200, 1_700_900_000]
    assert docs.column("intent").to_pylist() == [None, None, "bugfix", None, "bugfix", None]
    commit_body = docs.column("body")[4].as_py()
    assert "touched src/pay/charge.py::charge_with_retry +2 -1" in commit_body
    # the content hash: blake2b-128 over the parts' lengths and a NUL, then the parts (an index
    # keeps vectors and terms by it, so it must not drift between versions)
    for row in docs.to_pylist():
        parts = [row["kind"], row["title"], row["body"], *row["symbols"], *row["paths"]]
        counts = f"{len(row['symbols'])},{len(row['paths'])}:"
        text = counts + ",".join(str(len(p)) for p in parts) + "\0" + "".join(parts)
        h = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16)
        assert row["content_hash"] == h.hexdigest()
    # the lengths keep apart what plain joining would not
    assert _hash("symbol", "ab", "", [], []) != _hash("symbol", "a", "b", [], [])
    assert _hash("commit", "t", "b", ["x"], []) != _hash("commit", "t", "b", [], ["x"])
    meta = docmeta(docs)
    assert meta.schema.equals(DOCMETA)
    assert meta.column("kind").to_pylist() == ["symbol"] * 4 + ["commit", "failure"]
    assert meta.column("time").to_pylist() == times


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("charge_with_retry", "charge_with_retry"),
        ("retry", "charge_with_retry"),
        ("TTLCache.set", "TTLCache.set"),
        ("ttl cache", "TTLCache.set"),
        ("ERR_PAYMENT_DUPLICATE", "Gateway.refund"),
        ("INC-2407", "fix: stop double billing on timeout"),
        ("global lock", "tried a global lock"),
    ],
)
def test_finds_by_parts_and_whole(index, query: str, first: str) -> None:
    ft, docs = index
    rows, scores = ft.search(query, 5)
    assert _titles(docs, rows)[0] == first
    assert (np.diff(scores) <= 0).all()


def test_whole_name_beats_parts(index) -> None:
    ft, docs = index
    rows, _ = ft.search("charge", 10)
    # the symbol named charge_with_retry and the commit touching it both mention "charge"
    assert set(_titles(docs, rows)) >= {"charge_with_retry", "fix: stop double billing on timeout"}
    assert ft.doc_freq("symbol", "charge_with_retry") == 2  # the symbol and the touching commit


def test_kind_and_path_filters(index) -> None:
    ft, docs = index
    rows, _ = ft.search("charge retry", 10, kinds=["commit"])
    assert _titles(docs, rows) == ["fix: stop double billing on timeout"]
    pay = ["Gateway.refund", "charge_with_retry", "fix: stop double billing on timeout"]
    rows, _ = ft.search("charge refund ttl render", 10, path_prefix="src/pay/")
    assert sorted(_titles(docs, rows)) == pay
    rows, _ = ft.search("charge refund", 10, path_prefix="src/pay/charge.py", kinds=["symbol"])
    assert sorted(_titles(docs, rows)) == pay[:2]
    rows, _ = ft.search("ttl", 10, path_prefix="src/pay")
    assert len(rows) == 0
    rows, _ = ft.search("the of and", 10)
    assert len(rows) == 0


def test_another_process_opens_and_searches(index) -> None:
    ft, docs = index
    code = (
        "import sys; from gitstrata.store.fulltext import FullText; "
        "rows, _ = FullText.open(sys.argv[1]).search('ttl_cache set', 3); print(rows.tolist())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(ft.directory)], capture_output=True, text=True, check=True
    )
    rows = json.loads(out.stdout)
    assert _titles(docs, np.array(rows))[0] == "TTLCache.set"


def _rows(docs: pa.Table) -> list:
    cols = docs.to_pydict()
    texts = map(fulltext.field_terms, cols["title"], cols["symbols"], cols["paths"], cols["body"])
    return list(zip(cols["doc_idx"], cols["kind"], cols["paths"], texts, strict=True))


def test_an_index_built_in_a_child_process_answers_as_one_built_here(index, tmp_path) -> None:
    ft, docs = index
    assert build_in_child(tmp_path / "child", _rows(docs)) == docs.num_rows
    child = fulltext.FullText.open(tmp_path / "child")
    for query in ("ttl_cache set", "charge retry", "deadlock lock", "render page", "INC-2407"):
        for kinds in (None, ["symbol"]):
            here, there = ft.search(query, 5, kinds=kinds), child.search(query, 5, kinds=kinds)
            np.testing.assert_array_equal(here[0], there[0])
            np.testing.assert_array_equal(here[1], there[1])
    assert child.search("set lock", 5, path_prefix="src/cache/")[0].tolist() == (
        ft.search("set lock", 5, path_prefix="src/cache/")[0].tolist()
    )


def test_a_child_that_cannot_build_the_index_says_why(index, tmp_path) -> None:
    _, docs = index
    (tmp_path / "taken").write_text("a file where the index folder goes")
    with pytest.raises(RuntimeError, match="the full-text index could not be built: .*Error"):
        build_in_child(tmp_path / "taken", _rows(docs))


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(st.text(max_size=300))
def test_analyzer_reproduces_the_terms(text: str) -> None:
    """Indexing the joined terms under the registered analyzer yields exactly our terms."""
    assert fulltext.analyzer().analyze(fulltext.terms_text(text)) == tokenize(text)


def test_joined_terms_score_like_pre_tokenized(tmp_path: Path) -> None:
    texts = [row["code"] + " " + row["qualname"] for row in SYMBOLS_ROWS]
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("body", tokenizer_name=fulltext.ANALYZER, index_option="freq")
    schema = sb.build()
    scores = []
    for mode in ("joined", "pretokenized"):
        (tmp_path / mode).mkdir()
        idx = tantivy.Index(schema, path=str(tmp_path / mode))
        idx.register_tokenizer(fulltext.ANALYZER, fulltext.analyzer())
        w = idx.writer(num_threads=1)
        for t in texts:
            doc = tantivy.Document()
            if mode == "joined":
                doc.add_text("body", fulltext.terms_text(t))
            else:
                toks = [tantivy.Token(x, i, 0, 0) for i, x in enumerate(tokenize(t))]
                doc.add_pre_tokenized_text("body", tantivy.PreTokenizedString(t, toks))
            w.add_document(doc)
        w.commit()
        w.wait_merging_threads()
        idx.reload()
        s = idx.searcher()
        found = []
        for term in ("charge", "payment", "ttl", "value", "title"):
            q = tantivy.Query.term_query(schema, "body", term)
            found.append(sorted((round(sc, 5), a.doc) for sc, a in s.search(q, 10).hits))
        scores.append(found)
    assert scores[0] == scores[1]
    assert [len(hits) for hits in scores[0]] == [1, 1, 1, 1, 1]
