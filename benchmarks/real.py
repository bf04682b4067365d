"""Quality on real repositories, measured through what a user receives (`Strata`).

    python -m gitstrata.benchmarks.real [REPO_OR_BUNDLE ...] [--json OUT] [--out MD]
                                        [--repos click,express] [--max-commits N]

With no repository given it uses `../shared/repos/*.bundle` beside the checkout when present.
Every repository is cloned into a temp folder; indexes are built there, never in the input.
Per repository it reports:

1. Co-change temporal hold-out: `benchmarks/cochange_holdout.py`'s protocol, one
   implementation for both reports. The repository is indexed at the commit at 80 % through
   `Strata`; each later commit's files that the history knows are queries, the partners are
   what `Strata.preflight` serves (and what `Strata.search` answers to the co-change question
   about the file, read as files), and the baselines (raw count, Ochiai, decayed Ochiai W,
   code-maat, confidence) are scored from the same indexed history with ties counted at their
   expected rank. Coverage = share of queries with >= 1 suggestion.
2. Revert re-attempt probes. Every (reverted, revert) pair named by a `This reverts commit
   <sha>` line on HEAD's history, or, for a non-merge revert without one, by its subject
   (`Revert <hash>`, or `Revert "S"`: the newest earlier non-merge commit whose subject is S);
   HEAD is indexed once. Probe: preflight of the reverted
   commit's first file (path order) that exists at HEAD, with its subject as intended change;
   hit = a warning whose `failure_id` is `revert:<prefix of the reverted sha>`. Paths are
   followed through later renames (`git log -M`) to their name at HEAD. Control: the
   same file with the subject of the newest non-merge commit touching it that is not part of
   any revert pair; alarm = any warning with `source == "revert"`. A pair counts as re-applied
   when its revert was itself reverted, when the reverted commit was itself a revert (undoing
   it re-applied the original change), or when at least half of the reverted commit's
   distinctive added lines (stripped, with a letter or digit, absent from the file right after
   the revert) are in the file at HEAD; re-applied pairs are reported apart.
3. Intent accuracy against `benchmarks/labels/<repo>.jsonl` (`{"sha", "intent"}` per line),
   reading the intents of the `commits` table of the live generation (as `gitstrata sql` does).
4. Preflight size: the largest block `render_preflight` produces (as the CLI renders it) over
   every revert and control preflight above, against `retrieval.token_budget` x 4 characters.
5. Pitfall candidates in preflight: the memories the index draws from reverts and "fix ...
   again" commits, in preflights of functions (the 30 touched by the most commits, each with
   the subject of its newest commit as intended change, and 30 more at random, fixed seed):
   how many answers show one, how many shown are anchored to the function asked about, and
   how many came through a co-change partner; and, for each function a candidate's commit
   changed (read from `touches`), whether its preflight shows that candidate.
6. Where a change goes: `benchmarks/change_holdout.py` on the same cut. Each later commit's
   subject is asked of `Strata.search` (the product and the BM25, dense and hybrid baselines);
   the truth is the code files it changed.
7. Files gone from HEAD: up to 30 paths (fixed seed) that history deleted or renamed away and
   HEAD does not have, each asked of `Strata.search` ("why was P removed" / "why was P moved");
   the truth is the newest commit of `touches` that deleted P or renamed it away. Reports how
   often that commit is the first hit and within the first three, and how often
   `Strata.preflight(P)` names it. Then 30 commits (fixed seed) asked by their 10-digit hash
   ("what did <hash> change"), and up to 30 releases asked by their version ("what changed in
   <version>"; a release is a commit whose subject is the version alone or after "Release",
   "release version" or "v"): how often one of that version's commits is the first hit. Then
   30 functions (fixed seed) asked by a place inside them, "why does <path>:<line> do this"
   (the line two below the function's first): how often the innermost symbol spanning that line
   is the first hit. Then up to 30 functions, methods and classes HEAD has none of by name,
   named as identifiers, whose newest touch removed their last lines, asked "why was X
   removed": how often that commit is the first hit.
8. The two ends of a thing's history: 30 functions, methods and classes (fixed seed) whose name
   no other symbol has and that two or more commits touched, each asked for the commit that
   introduced it ("which commit introduced X" / "when was X added", alternately) and for the
   one that changed it last ("who last changed X" / "when was X last changed"); a name that is
   not an identifier by its shape is asked as "the X function" (method, class). Then 30 files
   at HEAD that two or more commits touched, asked the same way by their path. The truth is
   the oldest and the newest commit of `touches` for the symbol (its `symbol_id`; commits of the
   same second in `git rev-list --topo-order`'s order), and for a file git's own (`git log
   --no-merges --follow`, down to the commit that added or copied it); reports how often that
   commit is the first hit of `Strata.search`. Each of those files with three or more commits is
   also asked for its "recent changes to P": the first three hits must be git's three newest
   commits of it, in git's order.
9. "Why" questions about a commit, worded as a person asks them: 60 commits (fixed seed) whose
   subject is an imperative verb and its object ("Deprecate res.sendfile", "Fix bad merge"),
   each asked "why was <object> <past participle>" ("why was res.sendfile deprecated"). The
   truth is that commit; reports how often it is the first hit and within the first three, for
   the product and for the BM25, dense and hybrid baselines.
10. A bug reported in the words of its fix: 50 bugfix commits (fixed seed) whose subject is
   "Fix <what went wrong>" ("Fix crash when the pager is closed"), typos, docs, lint, tests and
   build left out, each asked as "<what went wrong>" alone, as a report of it reads. The truth
   is the fixing commit; reported as in 9.
11. What else changes with a function: on the cut of 1., each later non-bulk commit that
   touched between 2 and 20 functions, methods or classes the cut has (read from the HEAD
   index's `touches`, by path and qualname) makes each of them a query; the truth is the
   others. Reported: Recall@5, MRR and coverage of the symbol partners `Strata.preflight`
   serves (co-change partners, then code links); of the first five functions `Strata.search`
   answers (file sections left out) to "What else has to change when I change X?", X the
   qualified name when it has a dot, else the name with "()" (`search`), or in words, "the
   <name> method" (function, class) (`search_words`); and of the co-change partners
   alone (the cut's `cochange_symbols` in `rank_score` order, the list served before code
   links). Symbols whose name is ambiguous in their file are skipped and counted.
12. Which tests cover a function: on the cut of 1., each later non-bulk commit that changed
   one to ten functions or methods of product code (`filekind` "source") the cut has and one to
   five test files the cut has (`filekind.is_test_to_run`: tests a runner collects, not fixtures
   or helpers) makes each of those functions a query (at most
   `TESTS_QUERIES`, fixed seed); the truth is the test files. Asked of `Strata.search` as
   "Which tests cover X?" and "What tests should I run after changing X?" (X as in 11.), in
   the product and the BM25, dense and hybrid baselines; the answer is read as files
   (`cochange_holdout.answer_files`: a commit hit gives its files), test files only, the first
   five. Reported: Recall@5 and MRR, and the same for the test files `Strata.preflight` of the
   function lists to run (`tests`; a name two symbols of its file share lists none).
13. What calls a function: on the HEAD index, up to `CALLERS_QUERIES` functions and methods of
   product code (fixed seed) whose name (at least four characters) no other symbol has and
   that one to fifteen places call; the truth is read from the files at HEAD, not from the
   index's links: every line where the name is followed by `(` (its call syntax, so a mention
   in prose or an import is no call), outside the function's own lines, gives the innermost
   symbol spanning it (the file's `<module>` when none does), in code files only (no prose or
   data). Asked of `Strata.search` as
   "What calls X?" and "Where is X used?" (X as in 11.) in the product and the BM25, dense and
   hybrid baselines; the answer is read as symbols, a commit hit taking a place: Recall@5
   (of at most five truth symbols) and MRR.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..facade import Strata
from ..serve.models import PreflightReport
from ..serve.render import render_preflight
from ..store.errors import AmbiguousSymbol
from ..store.filekind import is_code, is_test_to_run
from ..store.filekind import kind as file_kind
from ..store.ids import MODULE_SYMBOL
from ..store.tables import run_sql
from .change_holdout import evaluate_at as evaluate_change
from .change_holdout import markdown as change_table
from .cochange_holdout import Cut, answer_files, commit_files, coupled_question, indexed_cut
from .cochange_holdout import evaluate_at as evaluate_holdout
from .intents_real import load_labels, score
from .serve_latency import hot_targets

SPLIT = 0.8
TESTS_QUERIES = 150  # item 12: functions asked about, at most
TESTS_ASKED = ("Which tests cover {x}?", "What tests should I run after changing {x}?")
TESTS_MODES = ("full", "bm25", "dense", "hybrid")
CALLERS_QUERIES = 60  # item 13: functions asked about, at most
CALLERS_ASKED = ("What calls {x}?", "Where is {x} used?")
CALLERS_MAX = 15  # a function called from more places is a utility, not a question
METHODS = ("served", "search", "count", "ochiai", "w", "codemaat", "confidence")
METHOD_NAMES = {
    "served": "served (preflight)",
    "search": "asked (search)",
    "count": "raw count",
    "ochiai": "Ochiai",
    "w": "decayed Ochiai W",
    "codemaat": "code-maat",
    "confidence": "confidence P(b|a)",
}
REVERTS = re.compile(r"This reverts commit ([0-9a-fA-F]{7,40})")
LABELS_DIR = Path(__file__).resolve().parent / "labels"


def log(msg: str) -> None:
    print(f"[real] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- git


def git(repo: Path, *args: str, check: bool = True) -> str:
    out = subprocess.run(
        ["git", "-c", "core.quotePath=false", *args],
        cwd=repo,
        capture_output=True,
        check=False,
    )
    if check and out.returncode != 0:
        err = out.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"git {' '.join(args[:3])}: {err[0] if err else out.returncode}")
    return out.stdout.decode("utf-8", "replace")


@dataclass
class Commit:
    sha: str
    t: int
    subject: str
    files: list[str]


def non_merge_commits(repo: Path, rev: str) -> list[Commit]:
    """Non-merge commits reachable from `rev`, oldest first by committer time."""
    raw = git(
        repo,
        "log",
        "--no-merges",
        "--no-renames",
        "--format=%x1e%H%x1f%ct%x1f%s",
        "--name-only",
        rev,
    )
    out = []
    for block in raw.split("\x1e")[1:]:
        head, _, rest = block.partition("\n")
        sha, t, subject = head.split("\x1f", 2)
        files = [f for f in rest.split("\n") if f]
        out.append(Commit(sha, int(t), subject, files))
    out.reverse()  # git log is newest first; a stable sort keeps its order among equal times
    out.sort(key=lambda c: c.t)
    return out


def tree_files(repo: Path, rev: str) -> set[str]:
    return {p for p in git(repo, "ls-tree", "-r", "--name-only", rev).split("\n") if p}


def clone(source: Path, dest: Path, rev: str | None = None) -> Path:
    args = ["clone", "-q", "--no-checkout", str(source), str(dest)]
    subprocess.run(["git", *args], check=True, capture_output=True)
    git(dest, "checkout", "-q", "-f", "--detach", rev or "HEAD")
    return dest


# --------------------------------------------------------------------------- metrics


# --------------------------------------------------------------------------- 1. co-change


@dataclass
class Probes:
    """Every rendered preflight of one repository, for the size measure."""

    budget_chars: int = 0
    largest: int = 0
    largest_probe: str = ""
    count: int = 0

    def add(self, strata: Strata, report: PreflightReport, label: str) -> None:
        budget = strata.engine.config.retrieval.token_budget
        self.budget_chars = budget * 4
        n = len(render_preflight(report, budget=budget))
        self.count += 1
        if n > self.largest:
            self.largest, self.largest_probe = n, label

    def result(self) -> dict[str, Any]:
        return {
            "probes": self.count,
            "largest_chars": self.largest,
            "largest_probe": self.largest_probe,
            "budget_chars": self.budget_chars,
            "within_budget": self.largest <= self.budget_chars,
        }


def measure_cochange(cut: Cut) -> dict[str, Any]:
    """The co-change temporal hold-out of `cochange_holdout.evaluate_at` (the repository indexed
    at the cut through `Strata`, partners as `Strata.preflight` serves them, baselines from the
    same indexed history), in this report's shape: `methods` keyed by `served` and each
    baseline."""
    res = evaluate_holdout(cut)
    methods = {"served": res.pop("gitstrata"), **{m: res.pop(m) for m in METHODS[1:]}}
    res.pop("formula", None)
    return {**res, "served_limit": res.pop("limit"), "methods": methods}


# --------------------------------------------------------------------------- 2. reverts


@dataclass
class RevertPair:
    reverted: str
    revert: str
    file: str | None = None
    subject: str = ""
    reapplied_by: str | None = None
    control_sha: str | None = None
    control_subject: str | None = None
    probe: dict[str, Any] = field(default_factory=dict)
    by_subject: bool = False  # named by the revert's subject, no `This reverts commit` line


# git's subject for a revert, when the message lost its `This reverts commit` line
REVERT_SUBJECT = re.compile(r'^Revert "(?!Revert ")(.+)"$')
REVERT_HASH = re.compile(r"^Revert ([0-9a-f]{7,40})\b")
SQUASH_NUMBER = re.compile(r"\s*\(#\d+\)$")


def revert_pairs(repo: Path, head: str) -> list[RevertPair]:
    """(reverted, revert) pairs named by `This reverts commit` lines, oldest revert first; and
    for a non-merge revert without one, by its subject: `Revert <hash>`, or `Revert "S"` with
    the newest earlier non-merge commit whose subject is S (a squash merge's ` (#N)` ignored on
    both sides)."""
    raw = git(repo, "log", "--reverse", "--format=%x1e%H%x1f%P%x1f%B", head)
    shas = git(repo, "rev-list", head).split()
    pairs = []
    newest: dict[str, str] = {}  # subject -> the newest non-merge commit so far with it
    for block in raw.split("\x1e")[1:]:
        sha, _, rest = block.partition("\x1f")
        parents, _, body = rest.partition("\x1f")
        refs = REVERTS.findall(body)
        for ref in refs:
            full = [s for s in shas if s.startswith(ref.lower())]
            if len(full) == 1 and full[0] != sha:
                pairs.append(RevertPair(reverted=full[0], revert=sha))
        if len(parents.split()) > 1:
            continue
        subject = SQUASH_NUMBER.sub("", body.strip().partition("\n")[0].strip())
        if not refs:
            named = REVERT_SUBJECT.match(subject)
            by_hash = REVERT_HASH.match(subject)
            target = None
            if named is not None:
                target = newest.get(SQUASH_NUMBER.sub("", named.group(1)))
            elif by_hash is not None:
                full = [s for s in shas if s.startswith(by_hash.group(1))]
                target = full[0] if len(full) == 1 else None
            if target is not None and target != sha:
                pairs.append(RevertPair(reverted=target, revert=sha, by_subject=True))
        newest[subject] = sha
    return pairs


def added_lines(repo: Path, sha: str) -> dict[str, list[str]]:
    """Lines each file gained in `sha` (stripped), from its zero-context patch."""
    out: dict[str, list[str]] = defaultdict(list)
    path = None
    in_hunk = False
    for line in git(repo, "show", "--format=", "-U0", "--no-renames", "--no-color", sha).split(
        "\n"
    ):
        if line.startswith("diff --git "):
            path, in_hunk = None, False
        elif not in_hunk and line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@"):
            in_hunk = True
        elif in_hunk and path and line.startswith("+"):
            out[path].append(line[1:].strip())
    return out


def file_lines(repo: Path, rev: str, path: str) -> set[str]:
    return {ln.strip() for ln in git(repo, "show", f"{rev}:{path}", check=False).split("\n")}


def renames(repo: Path, head: str) -> list[tuple[int, str, str]]:
    """(committer time, old path, new path) of every rename on `head`'s history, oldest first."""
    raw = git(
        repo,
        "log",
        "--reverse",
        "--no-merges",
        "-M",
        "--diff-filter=R",
        "--name-status",
        "--format=%x1e%ct",
        head,
    )
    out = []
    for block in raw.split("\x1e")[1:]:
        t, _, rest = block.partition("\n")
        for line in rest.split("\n"):
            parts = line.split("\t")
            if len(parts) == 3 and parts[0].startswith("R"):
                out.append((int(t), parts[1], parts[2]))
    out.sort(key=lambda r: r[0])
    return out


def follow(path: str, since: int, moves: list[tuple[int, str, str]]) -> str:
    """`path` as named at HEAD, following the renames made at or after `since`."""
    for t, old, new in moves:
        if t >= since and old == path:
            path = new
    return path


def reapplied_by_lines(repo: Path, pair: RevertPair, head: str, head_path) -> bool:
    distinct = present = 0
    for path, lines in added_lines(repo, pair.reverted).items():
        after_revert = file_lines(repo, pair.revert, path)
        at_head = file_lines(repo, head, head_path(path))
        for ln in set(lines):
            if ln and any(ch.isalnum() for ch in ln) and ln not in after_revert:
                distinct += 1
                present += ln in at_head
    return distinct > 0 and present / distinct >= 0.5


def plan_reverts(repo: Path, head: str, commits: list[Commit]) -> list[RevertPair]:
    """The pairs with their probe file (named as at HEAD, renames followed), control subject and
    re-applied status."""
    pairs = revert_pairs(repo, head)
    by_sha = {c.sha: c for c in commits}
    at_head = tree_files(repo, head)
    moves = renames(repo, head)
    in_pairs = {s for p in pairs for s in (p.reverted, p.revert)}
    reverted_reverts = {p.reverted: p.revert for p in pairs}
    for p in pairs:
        c = by_sha.get(p.reverted)
        p.subject = c.subject if c else git(repo, "log", "-1", "--format=%s", p.reverted).strip()
        since = c.t if c else 0

        def head_path(f: str, since: int = since) -> str:
            return follow(f, since, moves)

        files = sorted({head_path(f) for f in (c.files if c else [])} & at_head)
        p.file = files[0] if files else None
        if p.revert in reverted_reverts:
            p.reapplied_by = reverted_reverts[p.revert][:10]
        elif is_revert(repo, p.reverted):
            # the "attempt" was itself a revert: reverting it put the original change back
            p.reapplied_by = p.revert[:10]
        elif reapplied_by_lines(repo, p, head, head_path):
            p.reapplied_by = "lines at HEAD"
        if p.file:
            for c2 in reversed(commits):
                if p.file in c2.files and c2.sha not in in_pairs:
                    p.control_sha, p.control_subject = c2.sha, c2.subject
                    break
    return pairs


def is_revert(repo: Path, sha: str) -> bool:
    message = git(repo, "log", "-1", "--format=%B", sha)
    return bool(REVERTS.search(message)) or message.startswith('Revert "')


def names_revert(warning_id: int | str, sha: str) -> bool:
    wid = str(warning_id)
    return wid.startswith("revert:") and len(wid) > 10 and sha.startswith(wid[7:].lower())


def measure_reverts(
    strata: Strata, repo: Path, head: str, commits: list[Commit], probes: Probes
) -> dict[str, Any]:
    pairs = plan_reverts(repo, head, commits)
    groups: dict[str, list[RevertPair]] = {"not_reapplied": [], "reapplied": []}
    for p in pairs:
        if not p.file:
            continue
        rep = strata.preflight(p.file, None, p.subject)
        probes.add(strata, rep, f"revert {p.reverted[:10]} {p.file}")
        p.probe = {
            "found": rep.found,
            "hit": any(names_revert(w.failure_id, p.reverted) for w in rep.warnings),
            "revert_warnings": sum(1 for w in rep.warnings if w.source == "revert"),
        }
        if p.control_subject is not None:
            ctl = strata.preflight(p.file, None, p.control_subject)
            probes.add(strata, ctl, f"control {p.reverted[:10]} {p.file}")
            n = sum(1 for w in ctl.warnings if w.source == "revert")
            p.probe.update(control_alarm=n > 0, control_revert_warnings=n)
        groups["reapplied" if p.reapplied_by else "not_reapplied"].append(p)

    def rates(ps: list[RevertPair]) -> dict[str, Any]:
        hits = sum(1 for p in ps if p.probe["hit"])
        ctl = [p for p in ps if "control_alarm" in p.probe]
        alarms = sum(1 for p in ctl if p.probe["control_alarm"])
        return {
            "probed": len(ps),
            "hits": hits,
            "hit_rate": round(hits / len(ps), 4) if ps else None,
            "controls": len(ctl),
            "alarms": alarms,
            "alarm_rate": round(alarms / len(ctl), 4) if ctl else None,
            "max_revert_warnings": max(
                (
                    max(p.probe["revert_warnings"], p.probe.get("control_revert_warnings", 0))
                    for p in ps
                ),
                default=0,
            ),
        }

    return {
        "pairs": len(pairs),
        "by_subject": sum(1 for p in pairs if p.by_subject),
        "no_file_at_head": sum(1 for p in pairs if not p.file),
        **{k: rates(v) for k, v in groups.items()},
        "detail": [
            {
                "reverted": p.reverted[:10],
                "revert": p.revert[:10],
                "file": p.file,
                "subject": p.subject,
                "control": p.control_subject,
                "reapplied_by": p.reapplied_by,
                "by_subject": p.by_subject,
                **p.probe,
            }
            for p in pairs
        ],
    }


# --------------------------------------------------------------------------- 3. intents


def served_intents(strata: Strata) -> dict[str, str]:
    frame = run_sql(strata.engine.index.gen, "SELECT sha, intent FROM commits")
    return dict(zip(frame["sha"].to_list(), frame["intent"].to_list(), strict=True))


def measure_intents(strata: Strata, labels_file: Path) -> dict[str, Any]:
    """The intents the index serves, scored against the hand labels by `intents_real.score`
    (a label may name a commit by a sha prefix)."""
    if not labels_file.exists():
        return {"labels": None, "note": f"no labels file {labels_file.name}"}
    labels = {sha.lower(): intent for sha, intent in load_labels(labels_file).items()}
    intents = served_intents(strata)
    predicted = {}
    for sha in labels:
        got = [v for k, v in intents.items() if k.startswith(sha)]
        if len(got) == 1:
            predicted[sha] = got[0]
    scored = score({sha: labels[sha] for sha in predicted}, predicted)
    return {
        "labels": len(labels),
        "matched": len(predicted),
        "unmatched": len(labels) - len(predicted),
        **scored,
        "accuracy": scored["accuracy"] if predicted else None,
    }


# --------------------------------------------------------------------------- one repository


def measure_departed(strata: Strata, index_dir: Path, n: int = 30, seed: int = 7) -> dict:
    """Files gone from HEAD (see the module doc, 7.), asked of search and preflight."""
    import random

    from ..store.generations import Store

    gen = Store(index_dir).require_live()
    cols = ["sha", "commit_time", "path", "old_path", "status"]
    rows = gen.table("touches", columns=cols).to_pylist()
    at_head = set(gen.table("files", columns=["path"]).column("path").to_pylist())
    gone: dict[str, tuple[str, str]] = {}
    for r in sorted(rows, key=lambda r: (r["commit_time"], r["sha"])):  # the newest stays
        if r["status"] == "D" and r["path"] not in at_head:
            gone[r["path"]] = ("removed", r["sha"])
        elif r["status"] == "R" and r["old_path"] and r["old_path"] not in at_head:
            gone[r["old_path"]] = ("moved", r["sha"])
    paths = sorted(gone)
    random.Random(seed).shuffle(paths)
    first = top3 = named = 0
    for path in paths[:n]:
        verb, sha = gone[path]
        hits = strata.search(f"why was {path} {verb}", 10).hits
        rank = next((i for i, h in enumerate(hits, 1) if h.kind == "commit" and h.key == sha), 0)
        first += rank == 1
        top3 += 0 < rank <= 3
        report = strata.preflight(path)
        named += not report.found and sha[:8] in (report.message or "")
    shas = gen.table("commits", columns=["sha"]).column("sha").to_pylist()
    random.Random(seed).shuffle(shas)
    by_hash = 0
    for sha in shas[:n]:
        hits = strata.search(f"what did {sha[:10]} change", 10).hits
        by_hash += bool(hits) and hits[0].kind == "commit" and hits[0].key == sha
    subjects = gen.table("commits", columns=["sha", "subject"]).to_pylist()
    released: dict[str, list[str]] = defaultdict(list)
    for c in subjects:
        m = _RELEASE.fullmatch(c["subject"] or "")
        if m is not None:
            released[m.group(1)].append(c["sha"])
    versions = sorted(released)
    random.Random(seed).shuffle(versions)
    by_version = 0
    for version in versions[:n]:
        hits = strata.search(f"what changed in {version}", 10).hits
        by_version += bool(hits) and hits[0].kind == "commit" and hits[0].key in released[version]
    cols = ["path", "qualname", "kind", "start_line", "end_line"]
    symbols = gen.table("symbols", columns=cols).to_pylist()
    functions = [r for r in symbols if r["kind"] in ("function", "method")]
    functions = [r for r in functions if r["end_line"] - r["start_line"] >= 3]
    random.Random(seed).shuffle(functions)
    by_line = 0
    for fn in functions[:n]:
        line = fn["start_line"] + 2
        spanning = [
            r for r in symbols
            if r["path"] == fn["path"] and r["start_line"] <= line <= r["end_line"]
        ]  # fmt: skip
        inner = min(spanning, key=lambda r: r["end_line"] - r["start_line"])
        hits = strata.search(f"why does {fn['path']}:{line} do this", 10).hits
        by_line += bool(hits) and (hits[0].kind, hits[0].path, hits[0].symbol) == (
            "symbol", fn["path"], inner["qualname"],
        )  # fmt: skip
    # symbols HEAD has none of, whose newest touch only removed lines: asked why they went
    names = Counter(
        part for r in symbols for part in {r["qualname"], r["qualname"].rsplit(".", 1)[-1]}
    )
    cols = ["sha", "commit_time", "qualname", "kind", "added", "removed"]
    newest: dict[str, tuple[Any, str, bool]] = {}
    for t in gen.table("touches", columns=cols).to_pylist():
        q = t["qualname"]
        if not q or t["kind"] not in ("function", "method", "class"):
            continue
        if names[q] or names[q.rsplit(".", 1)[-1]] or not _IDENT_SHAPE.fullmatch(q):
            continue
        removal = not t["added"] and bool(t["removed"])
        if q not in newest or (t["commit_time"], t["sha"]) > newest[q][:2]:
            newest[q] = (t["commit_time"], t["sha"], removal)
    removed = sorted(q for q, (_, _, removal) in newest.items() if removal)
    random.Random(seed).shuffle(removed)
    by_symbol = 0
    for q in removed[:n]:
        hits = strata.search(f"why was {q} removed", 10).hits
        by_symbol += bool(hits) and hits[0].kind == "commit" and hits[0].key == newest[q][1]
    return {
        "gone_symbols": len(removed[:n]),
        "gone_symbol_first": by_symbol,
        "paths": len(paths[:n]),
        "first": first,
        "top3": top3,
        "preflight_names": named,
        "hashes": len(shas[:n]),
        "hash_first": by_hash,
        "versions": len(versions[:n]),
        "version_first": by_version,
        "places": len(functions[:n]),
        "place_first": by_line,
    }


def measure_history_ends(
    strata: Strata, repo: Path, index_dir: Path, n: int = 30, seed: int = 7
) -> dict:
    """The commit that introduced a symbol or a file, and the one that changed it last (see the
    module doc, 8.), asked of search."""
    import random

    from ..store.generations import Store

    gen = Store(index_dir).require_live()
    # commits of one second (a rebased series) are ordered as history has them, by git
    topo = git(repo, "rev-list", "--topo-order", "--no-merges", "HEAD").split()
    later = {sha: -i for i, sha in enumerate(topo)}  # larger: newer
    touches = gen.table("touches", columns=["sha", "commit_time", "symbol_id"])
    ends: dict[str, tuple[Any, Any]] = {}  # symbol_id -> (oldest, newest) as (time, order, sha)
    for r in touches.to_pylist():
        if r["symbol_id"] is None:
            continue
        stamp = (r["commit_time"], later.get(r["sha"], 0), r["sha"])
        old, new = ends.get(r["symbol_id"], (stamp, stamp))
        ends[r["symbol_id"]] = (min(old, stamp), max(new, stamp))
    cols = ["symbol_id", "path", "qualname", "kind"]
    symbols = gen.table("symbols", columns=cols).to_pylist()
    names = Counter(n for r in symbols for n in {r["qualname"], r["qualname"].rsplit(".", 1)[-1]})
    picked = [
        r for r in symbols
        if r["kind"] in ("function", "method", "class") and names[r["qualname"]] == 1
        and names[r["qualname"].rsplit(".", 1)[-1]] == 1
        and (e := ends.get(r["symbol_id"])) is not None and e[0] != e[1]
    ]  # fmt: skip
    random.Random(seed).shuffle(picked)
    asked: list[tuple[str, str, str, str]] = []  # (what, how it is named, oldest, newest)
    for r in picked[:n]:
        q = r["qualname"]
        ref = q if _IDENT_SHAPE.fullmatch(q) else f"the {q} {r['kind']}"
        old, new = ends[r["symbol_id"]]
        asked.append(("symbol", ref, old[2], new[2]))
    paths = gen.table("files", columns=["path"]).column("path").to_pylist()
    random.Random(seed).shuffle(paths)
    files = 0
    recent: list[tuple[str, list[str]]] = []  # a file and git's three newest commits of it
    for path in paths:
        if files == n:
            break
        # git's own history of the file, followed through renames (`--follow`) down to the
        # commit that added it: a copy made from another file starts the file's history
        log = git(
            repo, "log", "--no-merges", "--follow", "--format=@%H", "--name-status", "--", path
        )
        chain: list[str] = []
        for line in log.splitlines():
            if line.startswith("@"):
                chain.append(line[1:])
            elif line[:1] in ("A", "C") and chain:
                break
        if len(set(chain)) >= 2:
            asked.append(("file", path, chain[-1], chain[0]))
            files += 1
            if len(chain) >= 3:
                recent.append((path, chain[:3]))
    out: dict[str, int] = Counter()
    for i, (what, ref, oldest, newest) in enumerate(asked):
        first_q = f"which commit introduced {ref}" if i % 2 == 0 else f"when was {ref} added"
        last_q = f"who last changed {ref}" if i % 2 == 0 else f"when was {ref} last changed"
        for end, question, sha in (("first", first_q, oldest), ("last", last_q, newest)):
            hits = strata.search(question, 10).hits
            out[f"{what}_{end}"] += bool(hits) and hits[0].kind == "commit" and hits[0].key == sha
    # its recent history: git's three newest commits, in their order, as the first three hits
    for path, three in recent:
        hits = strata.search(f"recent changes to {path}", 10).hits[:3]
        out["file_recent"] += [(h.kind, h.key) for h in hits] == [("commit", c) for c in three]
    return {
        "symbols": min(n, len(picked)),
        "symbol_first": out["symbol_first"],
        "symbol_last": out["symbol_last"],
        "files": files,
        "file_first": out["file_first"],
        "file_last": out["file_last"],
        "files_recent": len(recent),
        "file_recent": out["file_recent"],
    }


# the imperative verbs of commit subjects and how a question about the commit words them
_PARTICIPLES = {
    "add": "added", "remove": "removed", "deprecate": "deprecated", "fix": "fixed",
    "rename": "renamed", "drop": "dropped", "change": "changed", "update": "updated",
    "improve": "improved", "support": "supported", "allow": "allowed", "use": "used",
    "move": "moved", "replace": "replaced", "expose": "exposed", "simplify": "simplified",
    "handle": "handled", "ignore": "ignored", "disable": "disabled", "enable": "enabled",
    "introduce": "introduced", "implement": "implemented", "avoid": "avoided",
    "prevent": "prevented", "make": "made", "switch": "switched", "bump": "bumped",
    "revert": "reverted", "refactor": "refactored", "optimize": "optimized", "reduce": "reduced",
    "normalize": "normalized", "restore": "restored", "require": "required",
    "accept": "accepted", "extract": "extracted", "document": "documented", "skip": "skipped",
    "pass": "passed", "set": "set", "return": "returned", "throw": "thrown", "raise": "raised",
    "check": "checked", "cache": "cached", "limit": "limited", "validate": "validated",
    "convert": "converted", "preserve": "preserved",
}  # fmt: skip
_IMPERATIVE = re.compile(r"([A-Z][a-z]+) (.{6,70})")
_PR_NUMBER = re.compile(r"\s*\(#\d+\)$")


def measure_why_asked(strata: Strata, index_dir: Path, n: int = 60, seed: int = 11) -> dict:
    """ "why was X <done>" about the commit whose subject is "<Do> X" (see the module doc, 9.)."""
    import random

    from ..store.generations import Store

    gen = Store(index_dir).require_live()
    asked: list[tuple[str, str]] = []
    for c in gen.table("commits", columns=["sha", "subject", "bulk"]).to_pylist():
        m = _IMPERATIVE.fullmatch((c["subject"] or "").strip())
        verb = m.group(1).lower() if m else ""
        if m is None or c["bulk"] or verb not in _PARTICIPLES:
            continue
        what = _PR_NUMBER.sub("", m.group(2)).rstrip(".")
        if len(what.split()) <= 7:
            asked.append((c["sha"], f"why was {what} {_PARTICIPLES[verb]}"))
    random.Random(seed).shuffle(asked)
    return _first_hits(strata, asked[:n])


_FIX_SUBJECT = re.compile(r"(?:fix(?:es|ed)?|bugfix)(?:\([^)]*\))?:?\s+(.{12,90})", re.I)
_NOT_A_BUG = re.compile(r"(?:typos?|docs?|the docs|lint|tests?|ci|build)\b", re.I)


def measure_fix_reports(strata: Strata, index_dir: Path, n: int = 50, seed: int = 5) -> dict:
    """A bug reported in the words of its fix (see the module doc, 10.)."""
    import random

    from ..store.generations import Store

    gen = Store(index_dir).require_live()
    asked: list[tuple[str, str]] = []
    for c in gen.table("commits", columns=["sha", "subject", "bulk"]).to_pylist():
        m = _FIX_SUBJECT.fullmatch((c["subject"] or "").strip())
        if m is None or c["bulk"]:
            continue
        report = _PR_NUMBER.sub("", m.group(1)).rstrip(".")
        if not _NOT_A_BUG.match(report):
            asked.append((c["sha"], report))
    random.Random(seed).shuffle(asked)
    return _first_hits(strata, asked[:n])


def _first_hits(strata: Strata, asked: list[tuple[str, str]]) -> dict[str, Any]:
    """How often each (commit, question)'s commit is the first hit and within three, per mode."""
    out: dict[str, Any] = {"questions": len(asked)}
    for mode in ("full", "bm25", "dense", "hybrid"):
        first = top3 = 0
        for sha, question in asked:
            keys = [h.key for h in strata.search(question, 10, mode=mode).hits[:3]]
            first += keys[:1] == [sha]
            top3 += sha in keys
        out[mode] = {"first": first, "top3": top3}
    return out


# a name an identifier by its shape alone (dotted, snake_case, camelCase, PascalCase with an
# inner capital), asked as written; another is asked as "the NAME function"
_IDENT_SHAPE = re.compile(r"[A-Za-z_]\w*(?:\.\w+)+|\w*_\w*|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*")


# the truth's own reading of a release commit's subject (the product's is `ServeIndex.releases`)
_RELEASE = re.compile(
    r"(?:(?:Release|release)(?: version)?:? |v)?(\d+\.\d+\.\d+(?:-[\w.]+)?)(?: \(#\d+\))?"
)


def measure_candidates(strata: Strata, index_dir: Path, n: int = 30, seed: int = 7) -> dict:
    """Pitfall candidates (see the module doc, 5.) in preflights of `n` hot and `n` random
    functions."""
    import random

    from ..store.generations import Store

    targets = [(p, q, change or "change this") for p, q, change in hot_targets(index_dir, n)]
    gen = Store(index_dir).require_live()
    symbols = gen.table("symbols", columns=["path", "qualname", "kind"]).to_pylist()
    names = Counter((r["path"], r["qualname"]) for r in symbols)
    others = sorted(
        {(r["path"], r["qualname"]) for r in symbols if r["kind"] in ("function", "method")}
        - {(p, q) for p, q, _ in targets}
    )
    others = [k for k in others if names[k] == 1]  # an overloaded name is ambiguous
    picked = random.Random(seed).sample(others, min(n, len(others)))
    targets += [(p, q, "change this") for p, q in picked]
    drawn = [m for m in strata.memory.live() if m.source == "git" and "candidate" in m.tags]
    candidates = {m.id for m in drawn}
    answers = shown = on_target = via_partner = 0
    for path, qualname, change in targets:
        report = strata.preflight(path, qualname, change)
        found = [m for m in report.memories if m.id in candidates]
        answers += bool(found)
        shown += len(found)
        on_target += sum(f"{path}::{qualname}" in m.anchors for m in found)
        via_partner += sum(m.via is not None for m in found)
    # and where they belong: each function a candidate's commit changed (from `touches`)
    origins = {m.origin: m.id for m in drawn if m.origin}
    touched = gen.table("touches", columns=["sha", "head_path", "qualname"]).to_pylist()
    changed = sorted(
        {(origins[t["sha"]], t["head_path"], t["qualname"]) for t in touched
         if t["sha"] in origins and t["qualname"] not in (None, MODULE_SYMBOL)
         and names[(t["head_path"], t["qualname"])] == 1}
    )  # fmt: skip
    found_there = 0
    for mid, path, qualname in changed:
        report = strata.preflight(path, qualname, "change this")
        found_there += any(m.id == mid for m in report.memories)
    return {
        "candidates": len(candidates),
        "preflights": len(targets),
        "answers_with_candidate": answers,
        "shown": shown,
        "anchored_to_target": on_target,
        "via_partner": via_partner,
        "changed_functions": len(changed),
        "shown_on_changed": found_there,
    }


def repo_name(source: Path) -> str:
    name = source.name
    return name[: -len(".bundle")] if name.endswith(".bundle") else source.resolve().name


# --------------------------------------------------------------------------- 11. symbol partners

PARTNERS_SHOWN = 5  # symbol partners a preflight lists (`retrieval.coupling_limit` // 2)
MAX_TOUCHED = 20  # a commit touching more symbols is a sweep, not one change


def later_symbols(strata: Strata) -> dict[str, set[tuple[str, str]]]:
    """sha -> (path in that commit, qualname) of the functions, methods and classes every
    non-bulk commit touched, from an index of the whole history."""
    rows = run_sql(
        strata.engine.index.gen,
        "SELECT t.sha, t.path, t.qualname FROM touches t JOIN commits c ON t.sha = c.sha "
        f"WHERE NOT c.bulk AND t.qualname IS NOT NULL AND t.qualname <> '{MODULE_SYMBOL}'",
    ).to_dicts()
    out: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for r in rows:
        out[r["sha"]].add((r["path"], r["qualname"]))
    return dict(out)


_KIND_WORD = {"method": "method", "class": "class"}


def _functions(
    strata: Strata, question: str, asked: tuple[str, str]
) -> list[tuple[str | None, str | None]]:
    """The functions, methods and classes of `question`'s answer, in order, `asked` left out."""
    hits = strata.search(question, top_k=2 * PARTNERS_SHOWN).hits
    return [
        (h.path, h.symbol)
        for h in hits
        if h.kind == "symbol"
        and h.path is not None
        and h.symbol not in (None, MODULE_SYMBOL)
        and (h.path, h.symbol) != asked
    ]


def measure_symbol_partners(cut: Cut, touched: dict[str, set[tuple[str, str]]]) -> dict:
    """What `Strata.preflight` lists as a function's symbol partners, against what changed
    with it after the cut (see the module doc, 11.)."""
    index = cut.strata.engine.index
    history = set(index.table("commits", columns=["sha"])["sha"].to_pylist())
    symbols = index.table("symbols", columns=["symbol_id", "path", "qualname", "kind"]).to_pylist()
    at_cut = {(r["path"], r["qualname"]): r["symbol_id"] for r in symbols}
    cochange = index.coupling_symbols
    kinds = {(r["path"], r["qualname"]): r["kind"] for r in symbols}
    scores: dict[str, list[tuple[float, float]]] = {
        "served": [],
        "search": [],
        "search_words": [],
        "cochange": [],
    }
    skipped = 0
    for sha in sorted(touched):
        if sha in history:
            continue
        known = {s for s in touched[sha] if s in at_cut and s[1] != MODULE_SYMBOL}
        if not 2 <= len(known) <= MAX_TOUCHED:
            continue
        for path, qualname in sorted(known):
            truth = known - {(path, qualname)}
            try:
                report = cut.strata.preflight(path, qualname)
            except AmbiguousSymbol:  # a name two symbols of the file share
                skipped += 1
                continue
            kind = kinds[(path, qualname)]
            words = f"the {qualname.rsplit('.', 1)[-1]} {_KIND_WORD.get(kind, 'function')}"
            asked = {
                "search": qualname if "." in qualname else f"{qualname}()",
                "search_words": words,
            }
            lists: dict[str, list[tuple[str | None, str | None]]] = {
                "served": [(c.path, c.symbol) for c in report.symbol_coupling],
                **{
                    method: _functions(cut.strata, coupled_question(x), (path, qualname))
                    for method, x in asked.items()
                },
                "cochange": [
                    (r["dst_path"], r["dst_qualname"])
                    for r in cochange.get(at_cut[(path, qualname)], [])[:PARTNERS_SHOWN]
                ],
            }
            for method, listed in lists.items():
                shown = listed[:PARTNERS_SHOWN]
                recall = len(truth & set(shown)) / len(truth)
                rr = next((1 / (i + 1) for i, x in enumerate(shown) if x in truth), 0.0)
                scores[method].append((recall, rr))
    n = len(scores["served"])

    def mean(xs: list[float]) -> float | None:
        return round(sum(xs) / len(xs), 4) if xs else None

    return {
        "queries": n,
        "skipped_ambiguous": skipped,
        "methods": {
            m: {
                "recall@5": mean([r for r, _ in v]),
                "mrr": mean([rr for _, rr in v]),
                "coverage": mean([1.0 if r > 0 or rr > 0 else 0.0 for r, rr in v]),
            }
            for m, v in scores.items()
        },
    }


def later_tests(strata: Strata) -> dict[str, tuple[set[tuple[str, str]], set[str]]]:
    """sha -> (the (path, qualname) of the symbols of product code, the test files) every
    non-bulk commit touched, paths as in that commit, from an index of the whole history."""
    rows = run_sql(
        strata.engine.index.gen,
        "SELECT t.sha, t.path, t.qualname FROM touches t JOIN commits c ON t.sha = c.sha "
        "WHERE NOT c.bulk",
    ).to_dicts()
    out: dict[str, tuple[set[tuple[str, str]], set[str]]] = defaultdict(lambda: (set(), set()))
    for r in rows:
        kind = file_kind(r["path"])
        symbols, tests = out[r["sha"]]
        if is_test_to_run(r["path"]):
            tests.add(r["path"])
        elif kind == "source" and r["qualname"] not in (None, MODULE_SYMBOL):
            symbols.add((r["path"], r["qualname"]))
    return dict(out)


def measure_tests_of(
    cut: Cut, later: dict[str, tuple[set[tuple[str, str]], set[str]]], seed: int = 3
) -> dict:
    """Which tests `Strata.search` names for a function, against the test files later commits
    changed with it (see the module doc, 12.)."""
    import random

    index = cut.strata.engine.index
    history = set(index.table("commits", columns=["sha"])["sha"].to_pylist())
    symbols = index.table("symbols", columns=["path", "qualname", "kind"]).to_pylist()
    functions = {(r["path"], r["qualname"]) for r in symbols if r["kind"] in ("function", "method")}
    files = set(index.table("files", columns=["path"])["path"].to_pylist())
    asked: list[tuple[tuple[str, str], frozenset[str]]] = []
    for sha in sorted(later):
        if sha in history:
            continue
        changed, tests = later[sha]
        fs, ts = changed & functions, tests & files
        if 1 <= len(ts) <= 5 and 1 <= len(fs) <= 10:
            asked += [(f, frozenset(ts)) for f in sorted(fs)]
    random.Random(seed).shuffle(asked)
    asked = asked[:TESTS_QUERIES]
    by_commit = commit_files(cut.strata, code_only=False)
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for phrase in TESTS_ASKED:
        per_mode: dict[str, dict[str, float | None]] = {}
        for mode in TESTS_MODES:
            answers: list[tuple[list, frozenset]] = []
            for (_, qualname), truth in asked:
                x = qualname if "." in qualname else f"{qualname}()"
                hits = cut.strata.search(phrase.format(x=x), top_k=10, mode=mode).hits
                listed = answer_files(hits, by_commit, limit=30)
                answers.append(([p for p in listed if file_kind(p) == "test"][:5], truth))
            per_mode[mode] = _recall_mrr(answers)
        out[phrase] = per_mode
    to_run: list[tuple[list, frozenset]] = []
    for (path, qualname), truth in asked:
        try:
            paths = [t.path for t in cut.strata.preflight(path, qualname).tests]
        except AmbiguousSymbol:  # counted as listing none
            paths = []
        to_run.append((paths[:5], truth))
    return {"queries": len(asked), "asked": out, "preflight": _recall_mrr(to_run)}


def _recall_mrr(answers: list[tuple[list, frozenset]], cap: int | None = None) -> dict:
    """Mean Recall (of the truth, or of at most `cap` of it) and MRR of (answer, truth) pairs;
    None for no pairs."""
    recall = rr = 0.0
    for shown, truth in answers:
        recall += len(truth & set(shown)) / (len(truth) if cap is None else min(len(truth), cap))
        rr += next((1 / (i + 1) for i, x in enumerate(shown) if x in truth), 0.0)
    n = len(answers)
    return {
        "recall@5": round(recall / n, 4) if n else None,
        "mrr": round(rr / n, 4) if n else None,
    }


def callers_truth(strata: Strata, repo: Path) -> list[tuple[tuple[str, str], frozenset]]:
    """((path, qualname) of a function, the (path, qualname) of the symbols calling it) for the
    functions item 13 asks about (see the module doc, 13.), from the files of `repo`'s work
    tree (checked out at the indexed HEAD)."""
    rows = strata.engine.index.table(
        "symbols", columns=["path", "qualname", "name", "kind", "start_line", "end_line"]
    ).to_pylist()
    names = Counter(r["name"] for r in rows)
    spans: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        if r["qualname"] != MODULE_SYMBOL:
            spans[r["path"]].append(r)
    lines: dict[str, list[str]] = {}
    for path in sorted({r["path"] for r in rows if is_code(r["path"])}):  # no prose or data
        try:
            lines[path] = (repo / path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
    out: list[tuple[tuple[str, str], frozenset]] = []
    for r in rows:
        if (
            r["kind"] not in ("function", "method")
            or names[r["name"]] != 1
            or len(r["name"]) < 4
            or file_kind(r["path"]) != "source"
        ):
            continue
        call = re.compile(r"(?<![\w$#])" + re.escape(r["name"]) + r"\s*\(")
        callers: set[tuple[str, str]] = set()
        for path, text in lines.items():
            for n, line in enumerate(text, start=1):
                if not call.search(line):
                    continue
                if path == r["path"] and r["start_line"] <= n <= r["end_line"]:
                    continue  # the function itself: its definition, a recursive call
                inside = [s for s in spans[path] if s["start_line"] <= n <= s["end_line"]]
                if inside:
                    innermost = min(inside, key=lambda s: s["end_line"] - s["start_line"])
                    callers.add((path, innermost["qualname"]))
                else:
                    callers.add((path, MODULE_SYMBOL))
        if 1 <= len(callers) <= CALLERS_MAX:
            out.append(((r["path"], r["qualname"]), frozenset(callers)))
    return out


def measure_callers(strata: Strata, repo: Path, seed: int = 13) -> dict:
    """Which symbols `Strata.search` names for "what calls X", against the places that call X
    by its call syntax (see the module doc, 13.)."""
    import random

    asked = callers_truth(strata, repo)
    random.Random(seed).shuffle(asked)
    asked = asked[:CALLERS_QUERIES]
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for phrase in CALLERS_ASKED:
        per_mode: dict[str, dict[str, float | None]] = {}
        for mode in TESTS_MODES:
            answers: list[tuple[list, frozenset]] = []
            for (_, qualname), truth in asked:
                x = qualname if "." in qualname else f"{qualname}()"
                hits = strata.search(phrase.format(x=x), top_k=10, mode=mode).hits[:5]
                shown = [
                    (h.path, h.symbol or MODULE_SYMBOL) if h.kind == "symbol" else None
                    for h in hits
                ]
                answers.append((shown, truth))
            per_mode[mode] = _recall_mrr(answers, cap=5)
        out[phrase] = per_mode
    callers = sum(len(t) for _, t in asked)
    return {
        "queries": len(asked),
        "callers_per_query": round(callers / len(asked), 2) if asked else None,
        "asked": out,
    }


def measure_repo(
    source: Path,
    *,
    max_commits: int | None = None,
    labels_dir: Path = LABELS_DIR,
    split: float = SPLIT,
    tmp_root: Path | None = None,
) -> dict[str, Any]:
    name = repo_name(source)
    started = time.perf_counter()
    result: dict[str, Any] = {"repo": name}
    with tempfile.TemporaryDirectory(prefix=f"strata-real-{name}-", dir=tmp_root) as tmp:
        work = Path(tmp)
        log(f"{name}: cloning")
        base = clone(source.resolve(), work / "repo")
        commits = non_merge_commits(base, "HEAD")
        if max_commits is not None and len(commits) > max_commits:
            commits = commits[:max_commits]
            git(base, "checkout", "-q", "-f", "--detach", commits[-1].sha)
            commits = non_merge_commits(base, "HEAD")
        head = git(base, "rev-parse", "HEAD").strip()
        result.update(head=head, commits=len(commits))
        probes = Probes()
        log(f"{name}: {len(commits)} non-merge commits; indexing HEAD {head[:10]}")
        strata = Strata(base, index_dir=work / "head-index")
        report = strata.index()
        result["index"] = {
            "seconds": round(report.seconds, 2),
            "stages": {s.name: round(s.seconds, 2) for s in report.stages if not s.skipped},
        }
        log(f"{name}: indexed in {report.seconds:.1f}s; revert probes")
        result["reverts"] = measure_reverts(strata, base, head, commits, probes)
        result["intents"] = measure_intents(strata, labels_dir / f"{name}.jsonl")
        result["candidates"] = measure_candidates(strata, work / "head-index")
        result["departed"] = measure_departed(strata, work / "head-index")
        result["history_ends"] = measure_history_ends(strata, base, work / "head-index")
        result["why_asked"] = measure_why_asked(strata, work / "head-index")
        result["fix_reports"] = measure_fix_reports(strata, work / "head-index")
        result["callers"] = measure_callers(strata, base)
        touched = later_symbols(strata)
        tests = later_tests(strata)
        strata.close()
        log("  co-change and where a change goes: indexing the cut")
        with indexed_cut(base, split) as cut:
            result["cochange"] = measure_cochange(cut)
            result["change"] = evaluate_change(cut)
            result["symbol_partners"] = measure_symbol_partners(cut, touched)
            result["tests_of"] = measure_tests_of(cut, tests)
        result["preflight_size"] = probes.result()
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    log(f"{name}: done in {result['wall_seconds']}s")
    return result


# --------------------------------------------------------------------------- report


def _f(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.3f}"
    return str(x)


def _mode_cells(modes: dict[str, dict[str, float | None]]) -> str:
    """Recall@5 and MRR of each mode (`TESTS_MODES`), as two table cells."""
    return " | ".join(" / ".join(_f(modes[m][k]) for m in TESTS_MODES) for k in ("recall@5", "mrr"))


def markdown(results: list[dict[str, Any]], command: str = "") -> str:
    ok = [r for r in results if "error" not in r]
    out = ["## Real repositories (`benchmarks/real.py`)", ""]
    if command:
        out += [f"`{command}`", ""]
    out += [
        "| repository | non-merge commits | HEAD | index s (HEAD) | stages s | benchmark wall s |",
        "|---|---|---|---|---|---|",
    ]
    for r in ok:
        stages = ", ".join(f"{k} {v:.1f}" for k, v in r["index"]["stages"].items())
        out.append(
            f"| {r['repo']} | {r['commits']} | {r['head'][:10]} | {r['index']['seconds']:.1f} "
            f"| {stages} | {r['wall_seconds']:.0f} |"
        )
    out += ["", "### Co-change temporal hold-out (80 / 20, ties at expected rank)", ""]
    out += [
        "| repository | cut | history | test commits | queries | index s (cut) | served shows at most |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in ok:
        c = r["cochange"]
        out.append(
            f"| {r['repo']} | {c['cut'][:10]} | {c['history_commits']} | {c['test_commits']} "
            f"| {c['queries']} | {c['index_seconds']:.1f} | {c['served_limit']} |"
        )
    for metric in ("recall@5", "recall@10", "mrr", "coverage"):
        out += ["", f"{metric}:", ""]
        out.append("| repository | " + " | ".join(METHOD_NAMES[m] for m in METHODS) + " |")
        out.append("|---|" + "---|" * len(METHODS))
        for r in ok:
            ms = r["cochange"]["methods"]
            out.append(f"| {r['repo']} | " + " | ".join(_f(ms[m][metric]) for m in METHODS) + " |")
    changes = [{"repo": r["repo"], **r["change"]} for r in ok if "change" in r]
    if changes:
        out += [
            "",
            "### Where a change goes (later commits' subjects asked of the cut's index)",
            "",
        ]
        out += change_table(changes).rstrip("\n").split("\n")
    partners = [r for r in ok if r.get("symbol_partners")]
    if partners:
        out += [
            "",
            "### What else changes with a function (symbol partners at the cut, up to "
            f"{PARTNERS_SHOWN} listed)",
            "",
            "| repository | queries | skipped (ambiguous name) | Recall@5 preflight / search / "
            "search in words / co-change alone | MRR, the same | coverage, the same |",
            "|---|---|---|---|---|---|",
        ]
        for r in partners:
            p, m = r["symbol_partners"], r["symbol_partners"]["methods"]
            cells = " | ".join(
                " / ".join(_f(m[x][k]) for x in ("served", "search", "search_words", "cochange"))
                for k in ("recall@5", "mrr", "coverage")
            )
            out.append(f"| {r['repo']} | {p['queries']} | {p['skipped_ambiguous']} | {cells} |")
    tests_of = [r for r in ok if r.get("tests_of")]
    if tests_of:
        out += [
            "",
            "### Which tests cover a function (later commits' test files, asked of the cut)",
            "",
            "| repository | queries | question | Recall@5 full / BM25 / dense / hybrid "
            "| MRR, the same |",
            "|---|---|---|---|---|",
        ]
        for r in tests_of:
            t = r["tests_of"]
            for phrase, modes in t["asked"].items():
                asked = phrase.format(x="X")
                out.append(f"| {r['repo']} | {t['queries']} | {asked} | {_mode_cells(modes)} |")
            pf = t["preflight"]
            out.append(
                f"| {r['repo']} | {t['queries']} | preflight's tests to run | "
                f"{_f(pf['recall@5'])} | {_f(pf['mrr'])} |"
            )
    callers = [r for r in ok if r.get("callers")]
    if callers:
        out += [
            "",
            "### What calls a function (callers by their call syntax at HEAD)",
            "",
            "| repository | queries | callers per query | question | Recall@5 full / BM25 / dense "
            "/ hybrid | MRR, the same |",
            "|---|---|---|---|---|---|",
        ]
        for r in callers:
            c = r["callers"]
            for phrase, modes in c["asked"].items():
                asked = phrase.format(x="X")
                out.append(
                    f"| {r['repo']} | {c['queries']} | {_f(c['callers_per_query'])} | {asked} "
                    f"| {_mode_cells(modes)} |"
                )
    out += ["", "### Revert re-attempt probes", ""]
    out += [
        "| repository | pairs | no file at HEAD | probed | hits | hit rate | controls | alarms "
        "| alarm rate | max revert warnings / call | re-applied pairs | warned on re-applied |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in ok:
        v = r["reverts"]
        n, a = v["not_reapplied"], v["reapplied"]
        out.append(
            f"| {r['repo']} | {v['pairs']} | {v['no_file_at_head']} | {n['probed']} | {n['hits']} "
            f"| {_f(n['hit_rate'])} | {n['controls']} | {n['alarms']} | {_f(n['alarm_rate'])} "
            f"| {max(n['max_revert_warnings'], a['max_revert_warnings'])} | {a['probed']} "
            f"| {a['hits']} |"
        )
    out += ["", "### Commit intents against hand labels", ""]
    out += [
        "| repository | labels | matched | accuracy | bugfix precision | bugfix recall | per class P / R |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in ok:
        i = r["intents"]
        if i.get("labels") is None:
            out.append(f"| {r['repo']} | {i['note']} | | | | | |")
            continue
        bf = i["per_class"].get("bugfix", {})
        classes = "; ".join(
            f"{c} {_f(v['precision'])} / {_f(v['recall'])}" for c, v in i["per_class"].items()
        )
        out.append(
            f"| {r['repo']} | {i['labels']} | {i['matched']} | {_f(i['accuracy'])} "
            f"| {_f(bf.get('precision'))} | {_f(bf.get('recall'))} | {classes} |"
        )
    out += ["", "### Preflight size (rendered as the CLI does)", ""]
    out += [
        "| repository | preflights | largest block (chars) | budget (token_budget x 4) | within | largest probe |",
        "|---|---|---|---|---|---|",
    ]
    for r in ok:
        p = r["preflight_size"]
        out.append(
            f"| {r['repo']} | {p['probes']} | {p['largest_chars']} | {p['budget_chars']} "
            f"| {'yes' if p['within_budget'] else 'no'} | `{p['largest_probe']}` |"
        )
    out += ["", "### Pitfall candidates in preflight (functions: 30 hot, 30 at random)", ""]
    out += [
        "| repository | candidates | preflights | answers showing one | shown | anchored to the function "
        "| through a partner | functions their commits changed | shown there |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in ok:
        c = r.get("candidates")
        if c is None:
            continue
        out.append(
            f"| {r['repo']} | {c['candidates']} | {c['preflights']} | "
            f"{c['answers_with_candidate']} | {c['shown']} | {c['anchored_to_target']} "
            f"| {c['via_partner']} | {c['changed_functions']} | {c['shown_on_changed']} |"
        )
    gone = [r for r in ok if r.get("departed")]
    if gone:
        out += [
            "",
            "### Files gone from HEAD; commits, releases and places named in a question",
            "",
        ]
        out += [
            "| repository | gone paths asked | its commit first | within the first three "
            "| preflight names it | commits asked by hash | that commit first "
            "| versions asked | the release first | places asked as path:line | that symbol first "
            "| removed symbols asked | the removing commit first |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in gone:
            d = r["departed"]
            out.append(
                f"| {r['repo']} | {d['paths']} | {d['first']} | {d['top3']} "
                f"| {d['preflight_names']} | {d.get('hashes', '-')} | {d.get('hash_first', '-')} "
                f"| {d.get('versions', '-')} | {d.get('version_first', '-')} "
                f"| {d.get('places', '-')} | {d.get('place_first', '-')} "
                f"| {d.get('gone_symbols', '-')} | {d.get('gone_symbol_first', '-')} |"
            )
    ended = [r for r in ok if r.get("history_ends")]
    if ended:
        title = "The commit that introduced a symbol or a file, and the one that changed it last"
        out += ["", f"### {title}", ""]
        out += [
            "| repository | symbols asked | introducing commit first | last commit first "
            "| files asked | introducing commit first | last commit first "
            "| files asked for recent changes | git's newest three first, in order |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in ended:
            h = r["history_ends"]
            out.append(
                f"| {r['repo']} | {h['symbols']} | {h['symbol_first']} | {h['symbol_last']} "
                f"| {h['files']} | {h['file_first']} | {h['file_last']} "
                f"| {h.get('files_recent', '-')} | {h.get('file_recent', '-')} |"
            )
    for key, title in (
        ("why_asked", '"Why was X done" about the commit that did it'),
        ("fix_reports", "A bug reported in the words of its fix"),
    ):
        asked = [r for r in ok if r.get(key)]
        if not asked:
            continue
        out += ["", f"### {title}: first hit / within three", ""]
        out += [
            "| repository | questions | gitstrata | bm25 | dense | hybrid |",
            "|---|---|---|---|---|---|",
        ]
        for r in asked:
            w = r[key]
            cells = " | ".join(
                f"{w[m]['first']} / {w[m]['top3']}" for m in ("full", "bm25", "dense", "hybrid")
            )
            out.append(f"| {r['repo']} | {w['questions']} | {cells} |")
    failed = [r for r in results if "error" in r]
    if failed:
        out += ["", "Failed repositories:", ""]
        out += [f"- {r['repo']}: {r['error']}" for r in failed]
    return "\n".join(out) + "\n"


def default_sources() -> list[Path]:
    # the package's parent is the checkout; the shared bundles sit beside it
    root = Path(__file__).resolve().parent.parent
    folder = root.parent / "shared" / "repos"
    return sorted(folder.glob("*.bundle")) if folder.is_dir() else []


def shared_bundles(prog: str) -> list[Path]:
    """`default_sources()`, saying on stderr when there are none (the real part is skipped)."""
    found = default_sources()
    if not found:
        print(f"{prog}: no ../shared/repos/*.bundle beside the checkout; "
              "real repositories skipped", file=sys.stderr)  # fmt: skip
    return found


def pick_repos(sources: list[Path], repos: str | None, prog: str) -> list[Path] | None:
    """`sources` narrowed to the comma-separated names in `repos` (all when None); None after
    printing a one-line error when a name is unknown."""
    if not repos:
        return sources
    wanted = [n.strip() for n in repos.split(",") if n.strip()]
    by_name = {repo_name(s): s for s in sources}
    missing = [n for n in wanted if n not in by_name]
    if missing:
        print(f"{prog}: unknown repository {', '.join(missing)}", file=sys.stderr)
        print(f"  hint: known: {', '.join(sorted(by_name)) or 'none'}", file=sys.stderr)
        return None
    return [by_name[n] for n in wanted]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="real", description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("sources", nargs="*", type=Path, metavar="REPO_OR_BUNDLE")
    ap.add_argument("--json", type=Path, default=None, help="write the results as JSON here")
    ap.add_argument("--out", type=Path, default=None, help="write the Markdown section here")
    ap.add_argument("--repos", default=None, help="only these names (comma separated)")
    ap.add_argument("--max-commits", type=int, default=None, help="stop history at this commit")
    ap.add_argument("--labels", type=Path, default=LABELS_DIR, help="folder of <repo>.jsonl")
    args = ap.parse_args(argv)
    sources = list(args.sources) or default_sources()
    if not args.sources and not sources:
        print(
            "real: no repositories given and no ../shared/repos/*.bundle; skipped", file=sys.stderr
        )
        return 0
    picked = pick_repos(sources, args.repos, "real")
    if picked is None:
        return 2
    sources = picked
    for s in sources:
        if not s.exists():
            print(f"real: {s} does not exist", file=sys.stderr)
            print("  hint: pass a git repository or a .bundle file", file=sys.stderr)
            return 2
    results = []
    for s in sources:
        try:
            results.append(measure_repo(s, max_commits=args.max_commits, labels_dir=args.labels))
        except Exception as exc:  # one repository failing must not lose the others
            log(f"{repo_name(s)}: FAILED {type(exc).__name__}: {exc}")
            traceback.print_exc(file=sys.stderr)
            results.append({"repo": repo_name(s), "error": f"{type(exc).__name__}: {exc}"})
        if args.json:
            args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    command = "python -m gitstrata.benchmarks.real " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    md = markdown(results, command.strip())
    if args.out:
        args.out.write_text(md, encoding="utf-8")
    else:
        sys.stdout.write(md)
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
