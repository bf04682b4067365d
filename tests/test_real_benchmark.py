"""The real-repository benchmark on a tiny history whose numbers are worked out by hand.

History (one commit a day; files a..f are Python modules):

    C1  a b c d e   initial           C7  e       add fast path to e
    C2  a b         add feature       C8  e       Revert C7
    C3  a b         fix bug in a      C9  a b c   refactor             <- cut (9 of 12)
    C4  a c         tweak a and c     C10 a b     update a and b       (test)
    C5  d           add caching to d  C11 a c d f update a c d         (test; f is new)
    C6  d           Revert C5         C12 e       reapply fast path    (test; one file)

History counts: n_a 5, n_b 4, n_c 3, n_d 3, n_e 3; co(a,b) 4, co(a,c) 3, co(b,c) 2, every
other pair 1 (C1). Queries: C10 a -> {b}, b -> {a}; C11 a -> {c,d,f}, c -> {a,d,f},
d -> {a,c,f}. For every baseline the true partner comes first for the C10 queries and for c; a's
C11 ranking is b, c, (d e tied): RR 1/2. For d all four partners have one co-commit:
count and confidence tie all four (two true among four: E[1/first] = 1/2 + 1/3 * 1/2 + 1/6 *
1/3 = 13/18); Ochiai, W and code-maat put c and e (n = 3) first, tied (E = 3/4). Recall@5 =
Recall@10 = (1 + 1 + 3 * 2/3) / 5 = 0.8; MRR = (3.5 + 13/18) / 5 = 0.8444 for count and
confidence, (3.5 + 3/4) / 5 = 0.85 for Ochiai, W and code-maat.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GitRepo

from gitstrata import Strata
from gitstrata.benchmarks import real
from gitstrata.serve.render import render_preflight

pytestmark = pytest.mark.slow  # indexes a real repository several times


def _py(name: str, *lines: str) -> str:
    body = "\n".join(f"    {ln}" for ln in lines) or "    pass"
    return f"def {name}():\n{body}\n"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory):
    repo = GitRepo(tmp_path_factory.mktemp("real") / "repo")
    v: dict[str, list[str]] = {f: [f"{f}0 = 0"] for f in "abcde"}

    def bump(files: str, line: str | None = None) -> dict[str, str]:
        for f in files:
            v[f].append(line or f"{f}{len(v[f])} = {len(v[f])}")
        return {f"{f}.py": _py(f"fn_{f}", *v[f]) for f in files}

    shas = [repo.commit("initial", {f"{f}.py": _py(f"fn_{f}", *v[f]) for f in "abcde"})]
    shas.append(repo.commit("add feature", bump("ab")))
    shas.append(repo.commit("fix bug in a", bump("ab")))
    shas.append(repo.commit("tweak a and c", bump("ac")))
    shas.append(repo.commit("add caching to d", bump("d", "cache = {}")))
    v["d"].pop()
    shas.append(
        repo.commit(
            f'Revert "add caching to d"\n\nThis reverts commit {shas[4]}.',
            {"d.py": _py("fn_d", *v["d"])},
        )
    )
    shas.append(repo.commit("add fast path to e", bump("e", "fast = True")))
    v["e"].pop()
    shas.append(
        repo.commit(
            f'Revert "add fast path to e"\n\nThis reverts commit {shas[6]}.',
            {"e.py": _py("fn_e", *v["e"])},
        )
    )
    shas.append(repo.commit("refactor", bump("abc")))
    shas.append(repo.commit("update a and b", bump("ab")))
    shas.append(repo.commit("update a c d", {**bump("acd"), "f.py": _py("fn_f")}))
    shas.append(repo.commit("reapply fast path", bump("e", "fast = True")))
    return repo, shas


def test_cochange_is_the_holdout_benchmark_in_this_reports_shape(tiny) -> None:
    """One implementation of the co-change hold-out: this report renames its keys only."""
    from gitstrata.benchmarks import cochange_holdout

    repo, shas = tiny
    with cochange_holdout.indexed_cut(repo.path, real.SPLIT) as cut:
        res = real.measure_cochange(cut)
    direct = cochange_holdout.evaluate(repo.path)
    assert res["cut"] == direct["cut"] == shas[8]
    assert (res["queries"], res["history_commits"], res["served_limit"]) == (
        direct["queries"],
        direct["history_commits"],
        direct["limit"],
    )
    assert res["methods"]["served"] == direct["gitstrata"]
    for method in real.METHODS[1:]:
        assert res["methods"][method] == direct[method], method


def test_revert_probes_intents_and_size(tiny, tmp_path: Path) -> None:
    repo, shas = tiny
    commits = real.non_merge_commits(repo.path, "HEAD")
    pairs = real.plan_reverts(repo.path, shas[-1], commits)
    assert [(p.reverted, p.revert, p.file) for p in pairs] == [
        (shas[4], shas[5], "d.py"),
        (shas[6], shas[7], "e.py"),
    ]
    assert [p.reapplied_by for p in pairs] == [None, "lines at HEAD"]
    assert [p.control_subject for p in pairs] == ["update a c d", "reapply fast path"]

    strata = Strata(repo.path, index_dir=tmp_path / "index")
    strata.index()
    probes = real.Probes()
    res = real.measure_reverts(strata, repo.path, shas[-1], commits, probes)
    assert res["pairs"] == 2 and res["no_file_at_head"] == 0
    assert (res["not_reapplied"]["probed"], res["reapplied"]["probed"]) == (1, 1)
    probe = strata.preflight("d.py", None, "add caching to d")
    hit = any(str(w.failure_id) == f"revert:{shas[4][:10]}" for w in probe.warnings)
    assert res["not_reapplied"]["hits"] == int(hit)
    control = strata.preflight("d.py", None, "update a c d")
    alarm = any(w.source == "revert" for w in control.warnings)
    assert res["not_reapplied"]["alarms"] == int(alarm)
    assert probes.count == 4 and probes.budget_chars == 2000 * 4
    assert probes.largest >= len(render_preflight(probe, budget=2000))

    labels = tmp_path / "labels.jsonl"
    rows = [
        {"sha": shas[5], "intent": "revert"},
        {"sha": shas[0][:12], "intent": "no-such-class"},
        {"sha": "0" * 40, "intent": "bugfix"},
    ]
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    intents = real.measure_intents(strata, labels)
    assert (intents["labels"], intents["matched"], intents["unmatched"]) == (3, 2, 1)
    assert intents["accuracy"] == 0.5
    assert intents["per_class"]["revert"]["precision"] == 1.0
    assert intents["per_class"]["no-such-class"]["recall"] == 0.0
    missing = real.measure_intents(strata, tmp_path / "absent.jsonl")
    assert missing["labels"] is None and "absent.jsonl" in missing["note"]

    md = real.markdown(
        [{"repo": "tiny", "error": "RuntimeError: boom"}], "python -m gitstrata.benchmarks.real"
    )
    assert "- tiny: RuntimeError: boom" in md


def test_unknown_repository_name_is_one_line_error(tiny, capsys) -> None:
    repo, _ = tiny
    assert real.main([str(repo.path), "--repos", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown repository nope" in err and "hint:" in err and "Traceback" not in err


def test_revert_probe_follows_renames_to_head(make_repo) -> None:
    repo = make_repo("renamed")
    repo.commit("start", {"old/a.py": _py("f", "x = 1"), "z.py": _py("z")})
    tried = repo.commit("try a speedup", {"old/a.py": _py("f", "x = 1", "speed = 2")})
    undo = repo.commit(
        f"Revert speedup\n\nThis reverts commit {tried}.", {"old/a.py": _py("f", "x = 1")}
    )
    repo.git("mv", "old", "new")
    repo.commit("move the package")
    commits = real.non_merge_commits(repo.path, "HEAD")
    [pair] = real.plan_reverts(repo.path, repo.head(), commits)
    assert (pair.reverted, pair.revert, pair.file) == (tried, undo, "new/a.py")
    assert pair.reapplied_by is None and pair.control_subject == "move the package"


def test_a_reverted_revert_means_reapplied(make_repo) -> None:
    repo = make_repo("again")
    repo.commit("start", {"a.py": _py("f", "x = 1")})
    tried = repo.commit("use a cache", {"a.py": _py("f", "x = 1", "cache = {}")})
    undo = repo.commit(f"Revert cache\n\nThis reverts commit {tried}.", {"a.py": _py("f", "x = 1")})
    redo = repo.commit(
        f"Reapply cache\n\nThis reverts commit {undo}.", {"a.py": _py("f", "x = 1", "cache = {}")}
    )
    commits = real.non_merge_commits(repo.path, "HEAD")
    pairs = real.plan_reverts(repo.path, repo.head(), commits)
    assert [(p.reverted, p.revert, p.reapplied_by) for p in pairs] == [
        (tried, undo, redo[:10]),
        # reverting a revert is no failed attempt: it put the original change back
        (undo, redo, redo[:10]),
    ]
    # every commit on a.py after the start is part of a pair: the control is the start
    assert [p.control_subject for p in pairs] == ["start", "start"]


def test_symbol_partners_served_and_co_change_alone(make_repo) -> None:
    """Item 11 on a history worked out by hand. alpha and beta change together (C1-C3, C6);
    delta's code names alpha and they share only C1; the cut is C8 (8 of 10). C9 changes alpha
    and delta, C10 alpha and beta. Queries: alpha -> {delta}, delta -> {alpha}, alpha -> {beta},
    beta -> {alpha}. Served: alpha lists beta (co-change) then delta (caller): recall 1, RR 1/2
    for {delta}, 1 and 1 for {beta}; delta lists alpha (callee): 1, 1; beta lists alpha: 1, 1.
    Co-change alone: alpha [beta], beta [alpha], delta nothing: recall 0, 1, 0, 1."""
    repo = make_repo()
    n = {"alpha": 0, "beta": 0, "gamma": 0, "delta": 0, "epsilon": 0}

    def files(*changed: str) -> dict[str, str]:
        for name in changed:
            n[name] += 1
        m = "".join(_py(f, f"return {n[f]}") + "\n\n" for f in ("alpha", "beta", "gamma"))
        other = (
            _py("delta", f"return alpha() + {n['delta']}")
            + "\n\n"
            + _py("epsilon", f"return {n['epsilon']}")
        )
        return {"m.py": m, "n.py": other}

    repo.commit("initial", files())
    for changed in (("alpha", "beta"),) * 2 + (("gamma",), ("epsilon",), ("alpha", "beta")):
        repo.commit(f"change {' '.join(changed)}", files(*changed))
    repo.commit("change gamma again", files("gamma"))
    repo.commit("change epsilon again", files("epsilon"))
    repo.commit("change alpha and delta", files("alpha", "delta"))
    repo.commit("change alpha and beta", files("alpha", "beta"))
    with Strata(repo.path, index_dir=repo.path.parent / "head-index") as head:
        head.index()
        touched = real.later_symbols(head)
    from gitstrata.benchmarks import cochange_holdout

    with cochange_holdout.indexed_cut(repo.path, real.SPLIT) as cut:
        res = real.measure_symbol_partners(cut, touched)
    assert (res["queries"], res["skipped_ambiguous"]) == (4, 0)
    assert res["methods"]["served"] == {"recall@5": 1.0, "mrr": 0.875, "coverage": 1.0}
    assert res["methods"]["cochange"] == {"recall@5": 0.5, "mrr": 0.5, "coverage": 0.5}
    # asked of search ("... change alpha()?", "... the alpha function?"), the functions come
    # in preflight's order
    assert res["methods"]["search"] == res["methods"]["served"]
    assert res["methods"]["search_words"] == res["methods"]["served"]


def test_callers_by_their_call_syntax(make_repo, tmp_path: Path) -> None:
    """Item 13: `charge` is called by a method and by a script's top-level code, imported (no
    call) by a module and named in prose (no call); `round_cents` is called by `charge`. Both
    names are unique; `pay` is too short to ask about. The product lists the callers first."""
    repo = make_repo()
    repo.commit(
        "feat: billing",
        {
            "billing.py": "def charge(order):\n    return round_cents(order)\n\n\n"
            "def round_cents(x):\n    return round(x, 2)\n",
            "checkout.py": "from billing import charge\n\n\nclass Checkout:\n"
            "    def pay(self, order):\n        return charge(order)\n",
            "cli.py": "from billing import charge\n\ncharge(1)\n",
            "README.md": "# Billing\n\nCall charge(order) to bill.\n",
        },
    )
    with Strata(repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        truth = dict(real.callers_truth(strata, repo.path))
        assert truth == {
            ("billing.py", "charge"): {("checkout.py", "Checkout.pay"), ("cli.py", "<module>")},
            ("billing.py", "round_cents"): {("billing.py", "charge")},
        }
        res = real.measure_callers(strata, repo.path)
    assert res["queries"] == 2 and res["callers_per_query"] == 1.5
    for phrase in real.CALLERS_ASKED:
        assert res["asked"][phrase]["full"] == {"recall@5": 1.0, "mrr": 1.0}, phrase
