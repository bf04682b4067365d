"""The reranker reads document terms from the documents' `doc_terms`; they must give exactly what
tokenizing the reranker's text gives, and an index without them must still be served."""

from __future__ import annotations

from gitstrata import Strata
from gitstrata.serve.docs import TEXT_LIMIT, DocTable
from gitstrata.store.generations import Store
from gitstrata.store.tokenizer import tokenize

# a body longer than the reranker reads: its cached terms cover text the reranker never sees
LONG = "def settle(order_id, retryCount):\n" + "".join(
    f"    step_{i} = charge_with_retry(order_id, retryCount + {i})  # pay/ledger.py\n"
    for i in range(120)
)
SHORT = '''"""Refunds."""


def refund(client, charge_id):
    """Refund one charge (INC-2407) via src/pay/refund.py."""
    return client.refund(charge_id)
'''


def _reference(docs: DocTable, row: int) -> tuple:
    seq = tokenize(docs.text(row))
    title = tokenize(docs.title(row))
    return f" {' '.join(seq)} ", f" {' '.join(title)} "


def _lookups_agree(docs: DocTable, row: int) -> None:
    """The reranker's substring tests give what set lookups over the tokens give."""
    seq, title = tokenize(docs.text(row)), tokenize(docs.title(row))
    joined, joined_title = docs.terms(row)
    pairs = set(zip(seq, seq[1:], strict=False))
    probes = set(seq) | set(title) | {"refund", "charge", "retry", "zzz", "pay"}
    for t in probes:
        assert (f" {t} " in joined) == (t in seq)
        assert (f" {t} " in joined_title) == (t in title)
    for a in probes:
        for b in list(probes)[:12]:
            assert (f" {a} {b} " in joined) == ((a, b) in pairs)


def test_cached_terms_match_tokenizing(git_repo) -> None:
    git_repo.commit("feat: long module and refunds", {"pay/long.py": LONG, "pay/refund.py": SHORT})
    git_repo.commit("fix(pay): refund once (INC-2407)", {"pay/refund.py": SHORT + "\n# once\n"})
    with Strata(git_repo.path) as s:
        s.index(jobs=1)
    gen = Store(git_repo.path / ".strata").live()
    assert gen is not None
    gen.share()  # as served: its columns kept, mapped copies made
    docs = DocTable(gen)
    # a process that was not warmed (a one-shot command) tokenizes while there is no mapped
    # copy of the terms, and makes none
    cold = [docs.terms(row) for row in range(docs.n)]
    assert docs._cached_terms is None
    assert gen.mapped_table("doc_terms") is None
    docs.terms.cache_clear()
    docs.warm()
    # ... and reads them once a server made the copy
    oneshot = DocTable(gen)
    assert [oneshot.terms(row) for row in range(oneshot.n)] == cold
    assert oneshot._cached_terms is not None
    cached = docs._cached_terms
    assert cached is not None
    fits = [len(docs._texts[1][row].as_py() or "") <= TEXT_LIMIT for row in range(docs.n)]
    assert any(fits) and not all(fits)  # both paths are exercised
    for row in range(docs.n):
        assert docs.terms(row) == _reference(docs, row) == cold[row]
        _lookups_agree(docs, row)

    # a long body's terms come from the head the index kept for it, which only it has
    for row in range(docs.n):
        assert (cached[2][row].as_py() is None) == fits[row]

    # an index written before the terms were kept: the same terms, by tokenizing
    gen.file("doc_terms").unlink()
    for copy in (gen.path / "mapped").glob("doc_terms-*"):
        copy.unlink()
    older = DocTable(gen)
    assert [older.terms(row) for row in range(older.n)] == cold
    assert older._cached_terms is None
    warmed = DocTable(gen)
    warmed.warm()
    assert warmed._cached_terms is None
    for row in range(warmed.n):
        assert warmed.terms(row) == docs.terms(row)
