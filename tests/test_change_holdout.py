"""The change hold-out benchmark: its scoring by hand, and one small real history end to end."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from conftest import GitRepo

from gitstrata.benchmarks import change_holdout as ch


def test_score_by_hand() -> None:
    truth = frozenset({"b.py", "z.py"})
    got = ch.score(["a.py", "b.py", "c.py", "d.py", "e.py", "f.py", "z.py"], truth)
    # b.py second: RR 1/2, in the first five; z.py seventh: only in the first ten
    assert got == {"recall@5": 0.5, "recall@10": 1.0, "hit@1": 0.0, "hit@5": 1.0, "mrr": 0.5}
    assert ch.score([], truth) == {
        "recall@5": 0.0,
        "recall@10": 0.0,
        "hit@1": 0.0,
        "hit@5": 0.0,
        "mrr": 0.0,
    }


def test_an_answer_is_read_as_files_commit_hits_standing_for_what_they_changed() -> None:
    hits = [
        SimpleNamespace(kind="commit", path=None, key="c1"),
        SimpleNamespace(kind="symbol", path="b.py", key="s1"),
        SimpleNamespace(kind="memory", path=None, key="m1"),
        SimpleNamespace(kind="commit", path=None, key="unknown"),
        SimpleNamespace(kind="symbol", path="a.py", key="s2"),
    ]
    by_commit = {"c1": ["a.py", "b.py", "c.py", "d.py"]}
    # c1 stands for its three most touched code files; repeats are dropped
    assert ch.answer_files(hits, by_commit) == ["a.py", "b.py", "c.py"]


def test_a_subject_names_a_file_by_its_stem_as_a_word() -> None:
    truth = frozenset({"lib/router/layer.js", "src/io.rs"})
    assert ch.names_a_file("Fix Layer matching for empty paths", truth)
    assert not ch.names_a_file("fix multilayered caches", truth)  # not a word of its own
    assert not ch.names_a_file("io: read faster", truth)  # "io" is too short to count


BILLING = '''def charge_invoice(invoice, card):
    """Charge the card for the invoice total, once."""
    return card.charge(invoice.total)
'''
SHIPPING = '''def ship_parcel(parcel, carrier):
    """Hand the parcel to the carrier and return the tracking number."""
    return carrier.pickup(parcel)
'''
README = "# shop\n\nBilling and shipping.\n"


@pytest.mark.slow
def test_a_later_subject_finds_the_file_it_changed(tmp_path) -> None:
    repo = GitRepo(tmp_path / "repo")
    files = {"billing.py": BILLING, "shipping.py": SHIPPING, "README.md": README}
    repo.commit("initial shop", dict(files))
    for i in range(6):  # history before the cut: each file edited on its own
        name = "billing.py" if i % 2 else "shipping.py"
        files[name] += f"\n# revision {i}\n"
        repo.commit(f"tidy {name.split('.')[0]} {i}", {name: files[name]})
    files["billing.py"] += "\n# never charge an invoice twice\n"
    repo.commit("charge the card only once per invoice", {"billing.py": files["billing.py"]})
    files["README.md"] += "\nMore words.\n"
    repo.commit("docs: more words", {"README.md": files["README.md"]})  # no code file: no query
    result = ch.evaluate(repo.path, split=0.8)
    # 9 commits: the cut is the 7th, so the last two are tests and only the code change asks
    assert result["queries"] == 1 and result["named"] == 0
    for mode in ("full", "bm25"):  # billing.py first, not shipping.py
        assert result[mode]["all"]["hit@1"] == 1.0 and result[mode]["all"]["mrr"] == 1.0
    assert set(result) >= {"cut", "index_seconds", *ch.MODES}
    rows = ch.markdown([{"repo": "shop", **result}]).splitlines()
    assert len(rows) == 2 + len(ch.MODES)
    assert rows[2].startswith("| shop | 1 (0) | full | ")


@pytest.mark.parametrize(
    ("config", "says"), [("{bad", "is not JSON"), ("[1]", "must be a JSON object")]
)
def test_a_bad_config_is_one_line_and_exit_2(tmp_path, capsys, config, says) -> None:
    assert ch.main([str(tmp_path), "--config", config]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
