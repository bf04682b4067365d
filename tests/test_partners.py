"""The one partner ranking ("what else must change") as `Strata.preflight` serves it on a real
repository, and the hold-out benchmark measuring exactly that list."""

from __future__ import annotations

from gitstrata import Strata
from gitstrata.benchmarks import cochange_holdout
from gitstrata.serve.render import render_preflight

# a.py changes with p.py in 3 commits, with q.py in 2, with r.py in 1. p.py also changes alone
# 8 times, q.py never, r.py once in all: W (co / sqrt(n_a n_b)) puts q first and p below r.
HISTORY = [
    ("a.py",),
    ("a.py", "p.py"),
    *[("p.py",)] * 8,
    ("a.py", "p.py"),
    ("a.py", "q.py"),
    ("a.py", "q.py"),
    ("a.py", "p.py"),
    ("a.py", "r.py"),
]


def build(repo, history) -> None:
    versions: dict[str, int] = {}
    for i, files in enumerate(history):
        edits = {}
        for f in files:
            versions[f] = versions.get(f, 0) + 1
            body = "".join(f"def f{n}():\n    return {n}\n\n\n" for n in range(versions[f]))
            edits[f] = f'"""{f}"""\n\n\n{body}'
        repo.commit(f"change {' '.join(files)} ({i})", edits)


def test_preflight_serves_partners_by_rank_score_not_w(git_repo, tmp_path) -> None:
    build(git_repo, HISTORY)
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        report = strata.preflight("a.py")
        got = [(c.path, c.co_commits, round(c.confidence, 4), c.weak) for c in report.coupling]
        # n_a = 7; p: 3 co-commits, q: 2, r: 1 (weak, still served)
        assert got == [
            ("p.py", 3, round(3 / 7, 4), False),
            ("q.py", 2, round(2 / 7, 4), False),
            ("r.py", 1, round(1 / 7, 4), True),
        ]
        by_w = sorted(report.coupling, key=lambda c: -c.weight)
        assert [c.path for c in by_w] == ["q.py", "r.py", "p.py"]
        assert [c.score for c in report.coupling] == sorted(
            (c.score for c in report.coupling), reverse=True
        )
        text = render_preflight(report, budget=None)
        lines = [line.strip() for line in text.splitlines() if ".py  P(" in line]
        assert [line.split()[0] for line in lines] == ["p.py", "q.py", "r.py"]
        assert "co-commits=3" in lines[0] and "P(changes|target changes)=43%" in lines[0]
        assert "weak" not in lines[0] and "weak" not in lines[1]
        assert lines[2].endswith("[hidden: no import link; weak: 1 co-commit]")
        # the single co-commit is not spread over by search's graph path
        graph = strata.engine.index.table("graph_nodes").to_pylist()
        a = next(n for n in graph if n["key"] == "a.py")
        assert a["edge_count"] == 2


def test_a_coupled_question_naming_a_file_lists_its_partners_as_preflight_does(
    git_repo, tmp_path
) -> None:
    build(git_repo, HISTORY)
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        answer = strata.search(cochange_holdout.coupled_question("a.py"), top_k=10)
        assert answer.query_class == "coupled"
        files = cochange_holdout.answer_files(answer.hits, {}, skip="a.py")
        # p.py first, as preflight ranks it; spread over W, q.py (never changed alone) led
        assert files[:2] == ["p.py", "q.py"]


def test_a_coupled_question_naming_a_function_lists_its_files_partners_by_rank(
    git_repo, tmp_path
) -> None:
    build(git_repo, HISTORY)
    body = (git_repo.path / "a.py").read_text() + "\n\ndef settle_invoice_ledger():\n    return 1\n"
    git_repo.commit("add settle_invoice_ledger", {"a.py": body})
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        # no file named: the route guesses a.py from the function's hit, then lists a.py's
        # partners as preflight ranks them
        answer = strata.search("What else has to change when I change settle_invoice_ledger?")
        assert answer.query_class == "coupled"
        assert answer.hits[0].symbol == "settle_invoice_ledger"
        files = cochange_holdout.answer_files(answer.hits, {}, skip="a.py")
        assert files[:2] == ["p.py", "q.py"]


def test_holdout_measures_what_preflight_serves(git_repo) -> None:
    # 20 commits: the cut is the 16th (index 15); the last four are the test transactions
    history = [
        *HISTORY,
        ("a.py", "p.py"),
        ("a.py", "q.py"),  # queries a (truth q, served at rank 2) and q (truth a, rank 1)
        ("a.py", "r.py"),  # a (truth r, rank 3) and r (truth a, rank 1)
        ("p.py", "q.py"),  # p (truth q, never seen together: miss) and q (truth p: miss)
        ("s.py",),  # not a transaction: one file
    ]
    build(git_repo, history)
    result = cochange_holdout.evaluate(git_repo.path)
    assert (result["history_commits"], result["test_commits"], result["queries"]) == (16, 4, 6)
    mrr = (1 / 2 + 1 + 1 / 3 + 1 + 0 + 0) / 6
    assert result["gitstrata"] == {
        "recall@5": round(4 / 6, 4),
        "recall@10": round(4 / 6, 4),
        "mrr": round(mrr, 4),
        "coverage": 1.0,
    }
    # offline: the same formula with fair ties gives the served numbers; W puts q first for a
    assert result["formula"] == result["gitstrata"] == result["count"]
    assert result["w"]["mrr"] == round((1 + 1 + 1 / 3 + 1 + 0 + 0) / 6, 4)
    # asked of search about each file, and about its most changed function (every file has
    # one here): the same queries, answered from the same index
    assert set(result["search"]) == {"recall@5", "recall@10", "mrr", "coverage"}
    assert result["search_function"]["queries"] == 6


def test_tied_partners_count_their_expected_value() -> None:
    groups = {"a": [(0, 2, frozenset({"x", "y"})), (2, 1, frozenset({"z"}))]}
    queries = [("c1", "a", frozenset({"y"})), ("c2", "a", frozenset({"z"}))]
    got = cochange_holdout.metrics(groups, queries, limit=10)
    # y is first or second with even odds: 1/2 (1 + 1/2); z is third
    assert got == {
        "recall@5": 1.0,
        "recall@10": 1.0,
        "mrr": round((0.75 + 1 / 3) / 2, 4),
        "coverage": 1.0,
    }
    got = cochange_holdout.metrics(groups, queries, limit=1)
    assert got == {"recall@5": 0.25, "recall@10": 0.25, "mrr": 0.25, "coverage": 1.0}


def test_a_file_that_is_not_parsed_still_gets_its_partners(git_repo, tmp_path) -> None:
    logo = bytes(range(256)) * 4  # binary: the chunker skips it
    git_repo.commit("logo and app", {"app.py": "x = 1\n", "logo.png": logo})
    git_repo.commit("new logo", {"app.py": "x = 2\n", "logo.png": logo[::-1]})
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        report = strata.preflight("logo.png")
        assert report.found and report.context is None
        assert [(c.path, c.co_commits, c.weak) for c in report.coupling] == [("app.py", 2, False)]
        assert strata.preflight("nothing.png").found is False


def test_a_partner_without_imports_by_nature_is_named_for_what_it_is(git_repo, tmp_path) -> None:
    for i in range(3):
        git_repo.commit(
            f"feat: step {i}",
            {
                "a.py": "".join(f"def f{n}():\n    return {n}\n\n\n" for n in range(i + 1)),
                "CHANGELOG.md": f"# Changes\n\n- step {i}\n",
                "pyproject.toml": f'[project]\nname = "a"\nversion = "0.{i}"\n',
                "notes.xyz": f"step {i}\n",  # a language nothing resolves imports for
            },
        )
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        text = render_preflight(strata.preflight("a.py"), budget=None)
    flags = {
        line.split()[0]: line.rsplit("[", 1)[1].rstrip("]")
        for line in (raw.strip() for raw in text.splitlines())
        if "  P(changes|target changes)=" in line
    }
    assert flags == {
        "CHANGELOG.md": "changelog",
        "pyproject.toml": "build or packaging file",
        "notes.xyz": "import link unknown",
    }
