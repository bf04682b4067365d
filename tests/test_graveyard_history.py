"""Reverted and failed attempts as they really ended, end to end on real repositories: a warning
only for a change that resembles the attempt, history otherwise, re-applied reverts never a
failure, muting a revert, and recorded symbols named as preflight names them."""

from __future__ import annotations

import subprocess
import sys

from gitstrata import Strata
from gitstrata.serve.render import render_preflight

CACHE = """def get(d, k):
    return d.get(k)


def put(d, k, v):
    d[k] = v
"""
LOCK_FREE = CACHE.replace("return d.get(k)", "return d[k]  # lock-free")
SUBJECT = "perf(cache): lock-free reads in get"
REASON = "Reads raced with eviction under load."


def _reverted_repo(repo) -> tuple[str, str]:
    """cache.py with a reverted lock-free read; returns (reverted sha, revert sha)."""
    repo.commit("feat: cache", {"cache.py": CACHE})
    sha = repo.commit(SUBJECT, {"cache.py": LOCK_FREE})
    revert = repo.commit(
        f'Revert "{SUBJECT}"\n\n{REASON}\n\nThis reverts commit {sha}.', {"cache.py": CACHE}
    )
    return sha, revert


def _reverts(report) -> list[str]:
    return [str(w.failure_id) for w in report.warnings if w.source == "revert"]


def cli(repo, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gitstrata", *args],
        cwd=repo.path,
        capture_output=True,
        text=True,
    )


def test_a_revert_warns_a_reattempt_and_is_history_otherwise(git_repo) -> None:
    sha, revert = _reverted_repo(git_repo)
    git_repo.commit("feat(cache): put rejects empty keys", {"cache.py": CACHE + "\n# keys\n"})
    with Strata(git_repo.path) as s:
        s.index(jobs=1)
        again = s.preflight("cache.py", None, SUBJECT)
        unrelated = s.preflight("cache.py", None, "reject empty keys in put")
        no_intent = s.preflight("cache.py", "get")
    assert _reverts(again) == [f"revert:{sha[:10]}"]
    assert again.warnings[0].tried == (
        f"{SUBJECT} ({sha[:10]}), reverted by {revert[:10]}: {REASON}"
    )
    assert again.past_attempts == []
    # an unrelated change of the same file, or no intended change: history, not a warning
    history = f"reverted: {SUBJECT} ({sha[:10]}), reverted by {revert[:10]}: {REASON}"
    for report in (unrelated, no_intent):
        assert report.warnings == []
        assert [(p.failure_id, p.summary) for p in report.past_attempts] == [
            (f"revert:{sha[:10]}", history)
        ]
    block = render_preflight(no_intent)
    assert "<anti_context_do_not_repeat>" not in block
    assert "<past_attempts history_not_a_warning>" in block and history in block


def test_a_reapplied_revert_is_never_a_failure(make_repo) -> None:
    # a later commit puts the reverted lines back
    restored = make_repo("restored")
    sha, _ = _reverted_repo(restored)
    back = restored.commit("perf(cache): lock-free reads, evictions fixed", {"cache.py": LOCK_FREE})
    # the revert is itself reverted
    undone = make_repo("undone")
    sha2, revert2 = _reverted_repo(undone)
    undo = undone.commit(
        f'Revert "Revert "{SUBJECT}""\n\nThis reverts commit {revert2}.', {"cache.py": LOCK_FREE}
    )
    for repo, reverted, by in ((restored, sha, back), (undone, sha2, undo)):
        with Strata(repo.path) as s:
            s.index(jobs=1)
            report = s.preflight("cache.py", None, SUBJECT)
        assert report.warnings == []
        [past] = report.past_attempts
        assert past.reapplied_in == by[:10]
        assert past.summary.startswith(
            f"reverted, later re-applied in {by[:10]}: {SUBJECT} ({reverted[:10]})"
        )


def test_graveyard_forget_mutes_a_revert(git_repo) -> None:
    sha, _ = _reverted_repo(git_repo)
    with Strata(git_repo.path) as s:
        s.index(jobs=1)
        assert _reverts(s.preflight("cache.py", None, SUBJECT)) == [f"revert:{sha[:10]}"]
    muted = cli(git_repo, "graveyard", "forget", f"revert:{sha[:12].upper()}")
    assert muted.returncode == 0, muted.stderr
    assert muted.stdout == f"muted revert:{sha[:12]}\n"
    with Strata(git_repo.path) as s:
        report = s.preflight("cache.py", None, SUBJECT)
        assert report.warnings == [] and report.past_attempts == []
        assert s.search(SUBJECT).warnings == []
    twice = cli(git_repo, "graveyard", "forget", f"revert:{sha[:10]}")
    assert (twice.returncode, twice.stderr) == (
        1,
        f"error: revert:{sha[:10]} is already forgotten\n",
    )
    unknown = cli(git_repo, "graveyard", "forget", "revert:0123456789")
    assert unknown.returncode == 1
    assert unknown.stderr.startswith("error: no reverted commit revert:0123456789 in the index\n")
    bad = cli(git_repo, "graveyard", "forget", "revert:xyz")
    assert bad.returncode == 1 and "is not a failed attempt id" in bad.stderr


AUTH = """class SessionRedirectMixin:
    def should_strip_auth(self, old_url, new_url):
        return old_url != new_url

    def rebuild_proxies(self, request):
        return request
"""


def test_a_recorded_symbol_resolves_like_preflight(git_repo) -> None:
    git_repo.commit("feat: redirects", {"auth.py": AUTH})
    with Strata(git_repo.path) as s:
        s.index(jobs=1)
        got = s.record_failure(
            "auth.py", notes="keep auth on a port change", symbol_name="should_strip_auth"
        )
        assert got.targets == ["auth.py::SessionRedirectMixin.should_strip_auth"]
        related = s.preflight("auth.py", "should_strip_auth", "keep auth when the port changes")
        unrelated = s.preflight("auth.py", "should_strip_auth", "rename the arguments")
    assert [w.failure_id for w in related.warnings] == [got.failure_id]
    assert related.warnings[0].reasons[0] == (
        "same symbol auth.py::SessionRedirectMixin.should_strip_auth"
    )
    assert unrelated.warnings == []
    assert [p.failure_id for p in unrelated.past_attempts] == [got.failure_id]


def test_a_revert_is_history_for_the_functions_it_changed_not_their_neighbours(git_repo) -> None:
    # the reverted commit changed `get` and an import at the top of the file: `put` shares the
    # file only; the whole-file preflight shows it
    git_repo.commit("feat: cache", {"cache.py": CACHE})
    sha = git_repo.commit(SUBJECT, {"cache.py": "import threading\n" + LOCK_FREE})
    git_repo.commit(f'Revert "{SUBJECT}"\n\nThis reverts commit {sha}.', {"cache.py": CACHE})
    with Strata(git_repo.path) as s:
        s.index(jobs=1)
        changed = s.preflight("cache.py", "get")
        neighbour = s.preflight("cache.py", "put")
        whole = s.preflight("cache.py", None)
    revert = f"revert:{sha[:10]}"
    assert [p.failure_id for p in changed.past_attempts] == [revert]
    assert neighbour.past_attempts == []
    assert [p.failure_id for p in whole.past_attempts] == [revert]


def test_on_target_reads_a_whole_file_target_beside_named_functions() -> None:
    from gitstrata.serve.anticontext import _on_target

    named = [("a.py", "f"), ("a.py", None)]
    assert _on_target(named, "a.py", "f") and not _on_target(named, "a.py", "g")
    assert _on_target(named, "a.py", None) and not _on_target(named, "b.py", None)
    file_only = [("a.py", None)]
    assert _on_target(file_only, "a.py", "g")  # a recorded attempt on the file
    assert not _on_target(file_only, "a.py", "g", whole_file_counts=False)  # a revert's
    assert _on_target([("a.py", "C.m")], "a.py", "C") and _on_target([("a.py", "C")], "a.py", "C.m")


def test_a_revert_named_by_its_subject_alone_warns_like_one_with_its_line(git_repo) -> None:
    git_repo.commit("feat: cache", {"cache.py": CACHE, "ci.yml": "steps: [test]\n"})
    sha = git_repo.commit(SUBJECT + " (#41)", {"cache.py": LOCK_FREE})  # a squash merge
    # an edited message: git's subject, no `This reverts commit` line
    git_repo.commit(f'Revert "{SUBJECT} (#41)" (#42)\n\n{REASON}', {"cache.py": CACHE})
    ci = git_repo.commit("build: pin the node image for tests", {"ci.yml": "steps: [lint]\n"})
    git_repo.commit("Revert " + ci[:7], {"ci.yml": "steps: [test]\n"})
    with Strata(git_repo.path) as s:
        s.index(jobs=1)
        rows = s.engine.index.table("commits", columns=["subject", "reverted_sha"]).to_pylist()
        named = {r["subject"]: r["reverted_sha"] for r in rows}
        assert named[f'Revert "{SUBJECT} (#41)" (#42)'] == sha
        assert named["Revert " + ci[:7]] == ci[:7]
        again = s.preflight("cache.py", None, SUBJECT)
        pin = s.preflight("ci.yml", None, "pin the node image for tests")
        # the same words about another file: a revert's words alone do not warn
        elsewhere = s.preflight("cache.py", None, "pin the node image for tests")
    assert _reverts(again) == [f"revert:{sha[:10]}"]
    assert _reverts(pin) == [f"revert:{ci[:10]}"]
    assert _reverts(elsewhere) == []
