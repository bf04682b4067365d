"""A preflight an agent can read, on a real repository with a long history: load-bearing lines
only from fixes and only code, history as "N of M" with the reason from each commit body, and
every block within its token budget, saying what it left out."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gitstrata import Strata
from gitstrata.serve.index import commit_reason
from gitstrata.serve.render import estimate_tokens, render_preflight, render_search

HEAD = '''"""Order totals."""

TAX = 0.2


def total(items, discount=0):
    """Sum of the items' prices."""
    value = 0
    for item in items:
        value += item.price * item.quantity
'''
TAIL = "    return value\n"


def body(extra: list[str]) -> str:
    return HEAD + "".join(extra) + TAIL


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    from conftest import GitRepo

    r = GitRepo(tmp_path_factory.mktemp("readable") / "repo")
    extra: list[str] = []
    shas = {}
    shas["feat"] = r.commit("feat: order totals", {"shop/orders.py": body(extra)})
    extra += [
        "    if discount:\n",
        "        value -= discount\n",
        "    if value < 0:\n",
        "        value = 0\n",
        "    value = round(value, 2)\n",
    ]
    shas["fix"] = r.commit(
        "fix: totals went negative with large discounts\n\n"
        "A discount larger than the basket gave customers a credit at checkout (INC-77).\n"
        "Clamp at zero and round to cents.\n\nSigned-off-by: Test Author <author@example.com>",
        {"shop/orders.py": body(extra)},
    )
    # a "fix" that only wrote a comment and a blank line: never load-bearing
    extra += ["\n", "    # totals are in the store currency\n"]
    shas["comment"] = r.commit("fix: explain the currency", {"shop/orders.py": body(extra)})
    for i in range(10):
        extra.append(f"    value += 0 * {i}  # step {i}\n")
        shas[f"feat{i}"] = r.commit(f"feat: pricing step {i}", {"shop/orders.py": body(extra)})
    extra.append("    value = max(value, 0)\n")
    shas["tiny"] = r.commit("fix: never negative again", {"shop/orders.py": body(extra)})
    shas["revert"] = r.commit(
        f'Revert "feat: pricing step 9"\n\nThis reverts commit {shas["feat9"]}.\n\n'
        "Step 9 doubled the tax for EU customers.",
        {"shop/orders.py": body([x for x in extra if "step 9" not in x])},
    )
    with Strata(r.path) as s:
        s.index(jobs=1)
    r.shas = shas  # type: ignore[attr-defined]
    return r


def test_load_bearing_lists_only_real_fixes_above_the_thresholds(shop) -> None:
    with Strata(shop.path) as s:
        report = s.preflight("shop/orders.py", "total")
    shas = shop.shas
    listed = [o.commit.sha for o in report.load_bearing]
    assert listed == [shas["fix"]]  # 5 code lines: above load_bearing_min_lines
    lb = {o.commit.sha: o for o in report.ownership if o.load_bearing}
    # the comment-only "fix" owns lines but none of them is code; feature lines never count
    assert shas["comment"] not in lb and shas["feat"] not in lb
    assert {o.commit.sha: o.code_lines for o in report.ownership}[shas["comment"]] == 0
    assert lb[shas["tiny"]].code_lines == 1  # a real fix, but one line of a long function
    assert set(lb) == {shas["fix"], shas["tiny"]}  # the revert removed lines, it owns none
    assert report.load_bearing_commits == len(lb)
    assert report.load_bearing_lines == sum(o.code_lines for o in lb.values())
    block = render_preflight(report, budget=None)
    section = block.split("<load_bearing_code", 1)[1].split("</load_bearing_code>", 1)[0]
    assert section.count("were written by") == 1
    assert "why: A discount larger than the basket gave customers a credit" in section
    assert "Signed-off-by" not in block
    assert "smaller fix" in section


def test_a_whole_file_is_summarised_not_listed(shop) -> None:
    with Strata(shop.path) as s:
        report = s.preflight("shop/orders.py")
    assert report.load_bearing == [] and report.load_bearing_commits >= 2
    block = render_preflight(report, budget=None)
    section = block.split("<load_bearing_code", 1)[1].split("</load_bearing_code>", 1)[0]
    assert "were written by" not in section
    lines = [x for x in section.splitlines()[1:] if x.strip()]
    assert len(lines) == 1
    assert lines[0].startswith(f"  module-level code: {report.code_lines} lines, ")
    assert lines[0].endswith(f"load-bearing from {report.load_bearing_commits} fixes")


def test_history_says_n_of_m_and_how_to_get_the_rest(shop) -> None:
    shas = shop.shas
    with Strata(shop.path) as s:
        report = s.preflight("shop/orders.py", "total")
        limit = s.engine.config.retrieval.history_limit
    assert report.history_total == len(shas) == 15
    assert len(report.history) == limit == 8
    got = [h.commit.sha for h in report.history]
    # the newest two, then every fix and revert however old, then the newest of the rest
    assert got[:2] == [shas["revert"], shas["tiny"]]
    assert shas["fix"] in got
    # a "fix:" subject that only changed comments is classified docs, so it is not a fix here
    assert s.sql(f"SELECT intent FROM commits WHERE sha = '{shas['comment']}'").item() == "docs"
    dates = [h.commit.date for h in report.history]
    assert dates == sorted(dates, reverse=True)
    block = render_preflight(report, budget=None)
    assert "(8 of 15 commits that touched total shown" in block
    assert "7 more; all of them: gitstrata sql" in block
    # the advertised query lists all of them
    query = report.history_more.split('"', 1)[1].rsplit('"', 1)[0]
    out = subprocess.run(
        [sys.executable, "-m", "gitstrata", "-C", str(shop.path), "sql", query, "--json"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert {row["sha"] for row in json.loads(out.stdout)} == set(shas.values())


def test_commit_bodies_reach_preflight_and_query(shop) -> None:
    shas = shop.shas
    with Strata(shop.path) as s:
        report = s.preflight("shop/orders.py", "total")
        resp = s.search("why does the total clamp discounts at zero", top_k=8)
    reasons = {h.commit.sha: h.commit.reason for h in report.history}
    assert reasons[shas["revert"]] == "Step 9 doubled the tax for EU customers."
    assert reasons[shas["fix"]].startswith("A discount larger than the basket")
    assert all(reasons[sha] == "" for sha in (shas["tiny"], shas["feat9"]))  # no body
    block = render_preflight(report, budget=None)
    assert "      why: Step 9 doubled the tax for EU customers." in block
    fix_hits = [h for h in resp.hits if h.kind == "commit" and h.key == shas["fix"]]
    attached = [r for h in resp.hits for r in h.why if r.sha == shas["fix"]]
    assert fix_hits or attached
    for ref in [*fix_hits, *attached]:
        assert ref.reason.startswith("A discount larger than the basket")
    assert "A discount larger than the basket" in render_search(resp, budget=None)
    for args in ([], ["--raw"], ["--json"]):
        out = subprocess.run(
            [sys.executable, "-m", "gitstrata", "-C", str(shop.path), "query"]
            + ["why does the total clamp discounts at zero", *args],
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0, out.stderr
        assert "A discount larger than the basket gave customers a credit" in out.stdout, args


def test_every_block_fits_its_budget_and_says_what_it_left_out(shop) -> None:
    with Strata(shop.path) as s:
        report = s.preflight("shop/orders.py", "total", "clamp discounts at zero")
    full = render_preflight(report, budget=None)
    assert "<truncated" not in full
    # budgets below the full block's size, so each must leave something out
    for budget in (200, 400, estimate_tokens(full) * 3 // 4):
        block = render_preflight(report, budget=budget)
        assert len(block) <= budget * 4
        assert estimate_tokens(block) <= budget
        assert f'<truncated budget="retrieval.token_budget={budget}">left out: ' in block
        assert block.endswith("</truncated>\n</gitstrata_preflight>")
        # what stays is whole: a section is never left open or empty
        for tag in ("load_bearing_code", "causal_history", "related_memory"):
            assert block.count(f"<{tag}") == block.count(f"</{tag}>")
            assert f"<{tag}>\n</{tag}>" not in block
    small = render_preflight(report, budget=200)
    assert "removing them may re-open that bugfix" in small  # load-bearing lines stay longest


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("fix: x", ""),
        ("fix: x\n\nBecause y.\nAnd z.\n\nMore detail.", "Because y. And z."),
        ('Revert "a"\n\nThis reverts commit 0123456789abcdef.\n\nIt broke b.', "It broke b."),
        ('Revert "a"\n\nThis reverts commit 0123456789abcdef.', ""),
        ("fix: x\n\nSigned-off-by: A <a@b>\nChange-Id: I0123", ""),
        ("fix: x\n\nNote: the cache outlives a request.", "Note: the cache outlives a request."),
        (
            "fix: x\n\nCloses #2952 Fixes #2788\n\nThe cache kept stale keys.",
            "The cache kept stale keys.",
        ),
        (
            "fix: x\n\nFix the parser for #12: it dropped quotes.",
            "Fix the parser for #12: it dropped quotes.",
        ),
        ("fix: x\n\n* [pre-commit.ci] auto fixes from pre-commit.com hooks", ""),
        ("fix: x\n\n" + "word " * 100, ("word " * 40).strip()[:199].rsplit(" ", 1)[0] + "…"),
    ],
)
def test_commit_reason(message: str, reason: str) -> None:
    assert commit_reason(message, 200) == reason
    assert len(commit_reason(message, 200)) <= 200


@pytest.mark.parametrize(
    ("path", "intent", "says"),
    [
        ("app/pay.py", "bugfix", "-- removing them may re-open that bugfix."),
        (
            "app/pay.py",
            "security",
            "-- removing them may re-open the hole that security fix closed.",
        ),
        ("app/pay.py", "revert", "-- removing them may bring back what that revert undid."),
        (
            "tests/test_pay.py",
            "bugfix",
            "-- they test that bugfix: removing them drops its regression test.",
        ),
        (
            "tests/test_pay.py",
            "security",
            "-- they test that security fix: removing them drops its",
        ),
        ("tests/test_pay.py", "revert", "-- removing them may bring back what that revert undid."),
    ],
)
def test_load_bearing_lines_say_what_removing_them_risks(path: str, intent: str, says: str) -> None:
    from gitstrata.serve.models import CommitRef, Ownership, PreflightReport, SymbolContext

    commit = CommitRef(sha="a" * 40, short="a" * 10, date="2026-01-02", intent=intent,
                       subject="guard the charge")  # fmt: skip
    report = PreflightReport(
        file=path,
        symbol="charge",
        found=True,
        context=SymbolContext(
            path=path, qualname="charge", kind="function", start_line=1, end_line=9
        ),  # fmt: skip
        code_lines=8,
        load_bearing=[
            Ownership(
                commit=commit, lines=4, share=0.5, load_bearing=True, code_lines=4, code_share=0.5
            )
        ],  # fmt: skip
        load_bearing_commits=1,
        load_bearing_lines=4,
        load_bearing_share=0.5,
    )
    assert says in render_preflight(report)
