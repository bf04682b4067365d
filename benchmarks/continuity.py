"""The continuity benchmark: scripted interruptions, restored in NONE, SELECTIVE and FULL.

    python -m gitstrata.benchmarks.continuity [--budget TOKENS] [--runs N] [--json FILE]

Each scenario is a script run through the public API (`Strata.tasks`) on a real git repository
made for it: an agent creates a task, tracks progress and failures, edits files, checkpoints or
hands off, and is interrupted (the SIGTERM / SIGINT / stdin-closed exit hook the MCP server
runs, a crash that writes nothing more, a context overflow, a tool timeout, a branch switch, a
goal change, a wiped work tree, a retry storm, a handoff to another agent, a multi-day pause
while teammates commit). A *new* session (another `Strata`) then restores the task in each mode.

What is scored is the continuation package as text, read by a scripted agent with a bounded
context: it reads the rendered package line by line up to `budget` tokens (four characters a
token, the render's own estimate) and nothing after. Over what it read:

- goal retention: the last goal it read is the task's current goal (1 or 0);
- completed-work retention: share of the completed items it read;
- working-set stability: share of the files the task was changing that it read;
- failure-context recall: share of the failures (tracked, and recorded failed attempts) it read;
- redundant exploration (1 = none): the agent takes every forbidden action (a failed approach, a
  completed item) that it would try anyway (the scenario's `obvious` ones) or that the package
  suggests as in-progress or next work, unless it read that action listed as failed or done;
  the score is 1 - taken / forbidden.

The composite weighs them 0.20 / 0.20 / 0.15 / 0.20 / 0.25. Everything but the restore
latency is deterministic. The scripted agent is a model, not a live one: the scores measure
what each package lets an agent avoid under a bounded context, not what a given model does.
With an unbounded budget FULL reads everything SELECTIVE does (and more), so the gap between
them is the price of the history's size and stale suggestions; the report gives both budgets.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MODES = ("NONE", "SELECTIVE", "FULL")
WEIGHTS = {"goal": 0.20, "completed": 0.20, "working_set": 0.15, "failure_context": 0.20,
           "redundant": 0.25}  # fmt: skip
BUDGET = 1000  # tokens the scripted agent reads of a package
REFERENCE = {"NONE": 0.282, "SELECTIVE": 0.912, "FULL": 0.791}  # the reference system's numbers

Step = tuple[Any, ...]


@dataclass
class Scenario:
    name: str
    kind: str  # the interruption type (the report groups by it)
    steps: list[Step]
    obvious: list[str] | None = None  # forbidden actions an agent without memory would try
    truth: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------- the scripts

BASE: list[Step] = [
    ("task", "session tokens", "login issues a signed session token"),
    ("edit", "auth/token.py", "def issue(user):\n    return sign(user)\n"),
    ("progress", "reproduce the login bug", "done"),
    ("progress", "token signing", "in_progress", "HMAC over the user id"),
    ("fail", "sign with HMAC-MD5", "weak hash rejected by the linter", "auth/token", "high"),
]


def _work(n: int, tag: str) -> list[Step]:
    """`n` rounds of ordinary work: progress on a feature, later done."""
    out: list[Step] = []
    for i in range(n):
        out.append(("progress", f"{tag} step {i}", "in_progress", f"working through {tag} {i}"))
        out.append(("progress", f"{tag} step {i}", "done"))
    return out


def _stale_plan(approach: str, error: str, component: str) -> list[Step]:
    """A plan that is written down first and fails later: FULL keeps the plan too."""
    return [
        ("checkpoint", [f"next try: {approach}"]),
        ("progress", "key handling", "in_progress", f"about to {approach}"),
        ("fail", approach, error, component, "high"),
    ]


def scenarios() -> list[Scenario]:
    storm = [("fail", "retry the token endpoint without backoff", "HTTP 429 from the issuer",
              "auth/client", "medium")] * 30  # fmt: skip
    return [
        Scenario("sigterm-early", "SIGTERM", [*BASE, ("exit", "SIGTERM")]),
        Scenario(
            "sigterm-after-sessions",
            "SIGTERM",
            [
                *BASE,
                *_work(8, "claims"),
                ("handoff", "claims done", ["claims step 0"], [], ["rotate keys"]),
                *_stale_plan(
                    "cache keys in a module global", "stale key after rotation", "auth/keys"
                ),
                *_work(8, "rotation"),
                ("exit", "SIGTERM"),
            ],
        ),  # fmt: skip
        Scenario("sigint", "SIGTERM", [*BASE, *_work(2, "expiry"), ("exit", "SIGINT")]),
        Scenario(
            "crash-between-checkpoints",
            "crash",
            [
                *BASE,
                ("checkpoint", ["add expiry"]),
                *_work(2, "expiry"),
                (
                    "fail",
                    "store tokens in cookies unsigned",
                    "tampering test failed",
                    "auth/cookie",
                    "critical",
                ),
                ("crash",),
            ],
        ),  # fmt: skip
        Scenario("crash-before-any-checkpoint", "crash", [*BASE, *_work(1, "expiry"), ("crash",)]),
        Scenario(
            "context-overflow",
            "context overflow",
            [
                *BASE,
                *_work(15, "refactor"),
                *_stale_plan("inline the signer into login", "circular import", "auth/login"),
                ("interrupt", "context window full"),
                ("handoff", "overflow", ["refactor step 5"], ["token signing"], ["finish signing"]),
            ],
        ),  # fmt: skip
        Scenario(
            "context-overflow-no-handoff",
            "context overflow",
            [*BASE, *_work(15, "refactor"), ("interrupt", "context window full")],
        ),
        Scenario(
            "tool-timeout",
            "tool timeout",
            [
                *BASE,
                (
                    "fail",
                    "run the whole suite in one call",
                    "tool call timed out after 120 s",
                    "tests",
                    "medium",
                ),
                ("interrupt", "tool timeout"),
            ],
        ),  # fmt: skip
        Scenario(
            "tool-timeout-repeated",
            "tool timeout",
            [
                *BASE,
                *[
                    (
                        "fail",
                        "run the whole suite in one call",
                        "tool call timed out",
                        "tests",
                        "medium",
                    )
                ]
                * 4,
                *_work(2, "split tests"),
                ("exit", "SIGTERM"),
            ],
        ),  # fmt: skip
        Scenario(
            "branch-switch",
            "branch switch",
            [*BASE, ("checkpoint", ["finish signing"]), ("branch", "hotfix")],
        ),
        Scenario(
            "branch-switch-after-work",
            "branch switch",
            [
                *BASE,
                *_work(3, "claims"),
                ("checkpoint", ["rotate keys"]),
                ("branch", "release"),
                ("commit", "release notes", {"NOTES.md": "1.2\n"}),
            ],
        ),  # fmt: skip
        Scenario(
            "goal-change",
            "goal change",
            [
                *BASE,
                ("checkpoint", ["sign tokens"]),
                *_work(2, "claims"),
                ("goal", "login issues a signed, rotating session token"),
                ("handoff", "goal widened", ["claims step 1"], ["token signing"], ["rotate keys"]),
            ],
        ),  # fmt: skip
        Scenario(
            "goal-change-twice",
            "goal change",
            [
                *BASE,
                ("goal", "login issues a signed token with expiry"),
                *_work(8, "expiry"),
                *_stale_plan(
                    "derive expiry from the server clock", "clock skew test failed", "auth/expiry"
                ),
                ("goal", "login issues a signed token with expiry and rotation"),
                ("exit", "stdin closed"),
            ],
        ),  # fmt: skip
        Scenario(
            "workspace-wipe",
            "workspace wipe",
            [
                *BASE,
                ("edit", "auth/keys.py", "KEYS = []\n"),
                ("checkpoint", ["wire keys"]),
                ("wipe",),
            ],
        ),  # fmt: skip
        Scenario(
            "workspace-wipe-after-crash",
            "workspace wipe",
            [
                *BASE,
                ("edit", "auth/keys.py", "KEYS = []\n"),
                *_work(2, "keys"),
                ("crash",),
                ("wipe",),
            ],
        ),  # fmt: skip
        Scenario(
            "workspace-wipe-after-untracked-edit",
            "workspace wipe",
            [*BASE, ("edit", "auth/session.py", "SESSION = {}\n"), ("crash",), ("wipe",)],
        ),
        Scenario("retry-storm", "retry storm", [*BASE, *storm, ("exit", "SIGTERM")]),
        Scenario(
            "retry-storm-mixed",
            "retry storm",
            [
                *BASE,
                *storm[:5],
                *_work(2, "backoff"),
                *[
                    (
                        "fail",
                        "retry with a fixed 1 s sleep",
                        "thundering herd in the load test",
                        "auth/client",
                        "high",
                    )
                ]
                * 5,
                ("exit", "SIGTERM"),
            ],
        ),  # fmt: skip
        Scenario(
            "handoff-to-another-agent",
            "handoff",
            [
                *BASE,
                *_work(2, "claims"),
                (
                    "handoff",
                    "passing to the reviewer agent",
                    ["reproduce the login bug", "claims step 1"],
                    ["token signing"],
                    ["add tests for signing"],
                ),
            ],
        ),  # fmt: skip
        Scenario(
            "handoff-chain",
            "handoff",
            [
                *BASE,
                ("handoff", "agent A", ["reproduce the login bug"], ["token signing"], []),
                *_stale_plan(
                    "share one key across tenants", "tenant isolation test failed", "auth/keys"
                ),
                (
                    "handoff",
                    "agent B",
                    ["reproduce the login bug"],
                    ["token signing"],
                    ["per-tenant keys"],
                ),
                *_work(8, "tenants"),
                ("handoff", "agent C", ["tenants step 7"], [], ["rotate per-tenant keys"]),
            ],
        ),  # fmt: skip
        Scenario(
            "multi-day-pause",
            "multi-day pause",
            [
                *BASE,
                (
                    "handoff",
                    "stopping for the weekend",
                    ["reproduce the login bug"],
                    ["token signing"],
                    ["rotate keys"],
                ),
                *[
                    ("commit", f"teammate change {i}", {f"docs/day{i}.md": f"day {i}\n"})
                    for i in range(5)
                ],
            ],
        ),  # fmt: skip
        Scenario(
            "multi-day-pause-long-history",
            "multi-day pause",
            [
                *BASE,
                *_work(10, "week1"),
                *_stale_plan(
                    "sign with the deploy key", "deploy key not available in CI", "auth/token"
                ),
                ("handoff", "week 1", ["week1 step 9"], ["token signing"], ["rotation"]),
                *_work(10, "week2"),
                ("commit", "teammate: token format", {"auth/format.py": "F=1\n"}),
                ("exit", "SIGTERM"),
            ],
        ),  # fmt: skip
        Scenario(
            "graveyard-and-invariant",
            "crash",
            [
                ("invariant", "INV-TOK-1", "auth/**", "Tokens are signed with a rotated key."),
                *BASE,
                (
                    "record_failure",
                    "auth/token.py",
                    "-    return sign(user)\n+    return md5(user)\n",
                    "FAILED tests/test_token.py::test_signature",
                    "md5 signature again",
                ),
                ("crash",),
            ],
        ),  # fmt: skip
        Scenario(
            "low-severity-noise",
            "retry storm",
            [
                *BASE,
                *[
                    (
                        "fail",
                        f"tweak log format {i}",
                        f"log assertion {i} failed",
                        "auth/log",
                        "low",
                    )
                    for i in range(6)
                ],
                ("exit", "SIGTERM"),
            ],
        ),  # fmt: skip
    ]


# ---------------------------------------------------------------- running a script


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _repo(path: Path) -> None:
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main")
    for k, v in (("user.name", "Bench"), ("user.email", "bench@example.com"),
                 ("commit.gpgsign", "false")):  # fmt: skip
        _git(path, "config", k, v)
    for rel, text in {"auth/token.py": "def issue(user):\n    return user\n",
                      "auth/login.py": "def login(u):\n    return True\n"}.items():  # fmt: skip
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "init")


def play(sc: Scenario, root: Path) -> int:
    """Run the scenario's script in a fresh repository at `root`; returns the task id and fills
    `sc.truth` (goal, completed, failures, forbidden, working set) from the script itself."""
    from gitstrata import Strata

    _repo(root)
    strata = Strata(root)
    tasks = strata.tasks
    truth: dict[str, Any] = {"completed": [], "failures": [], "forbidden": [], "working_set": []}
    task_id = 0
    alive = True
    for step in sc.steps:
        op, args = step[0], step[1:]
        writes = ("progress", "fail", "checkpoint", "handoff", "goal", "interrupt", "exit")
        if op in writes and not alive:
            raise ValueError(f"{sc.name}: {op} after a crash")
        if op == "task":
            task_id = tasks.create_task(args[0], args[1])["id"]
            truth["goal"] = args[1]
        elif op == "goal":
            tasks.update_task(task_id, goal=args[0])
            truth["goal"] = args[0]
        elif op == "edit":
            (root / args[0]).parent.mkdir(parents=True, exist_ok=True)
            (root / args[0]).write_text(args[1])
            if args[0] not in truth["working_set"]:
                truth["working_set"].append(args[0])
        elif op == "progress":
            tasks.track_progress(args[0], args[1], notes=args[2] if len(args) > 2 else None)
            if args[1] == "done" and args[0] not in truth["completed"]:
                truth["completed"].append(args[0])
        elif op == "fail":
            approach, error, component, severity = args
            tasks.track_failure(error, component, severity, approach=approach)
            if approach not in truth["forbidden"]:
                truth["forbidden"].append(approach)
                truth["failures"].append(error)
        elif op == "checkpoint":
            tasks.checkpoint(next_steps=args[0])
        elif op == "handoff":
            summary, completed, in_progress, nxt = args
            tasks.session_handoff(summary, completed, in_progress, [], nxt)
            for c in completed:
                if c not in truth["completed"]:
                    truth["completed"].append(c)
        elif op == "interrupt":
            tasks.report_interruption(args[0])
        elif op == "exit":
            tasks.checkpoint_on_exit(args[0])  # what the server's signal / EOF path runs
            alive = False
        elif op == "crash":
            alive = False  # nothing more is written: only what was acknowledged remains
        elif op == "branch":
            _git(root, "checkout", "-q", "-b", args[0])
            (root / "BRANCH").write_text(args[0])
            _git(root, "add", "BRANCH")
            _git(root, "commit", "-q", "-m", f"on {args[0]}")
        elif op == "commit":
            for rel, text in args[1].items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text)
                _git(root, "add", rel)
            _git(root, "commit", "-q", "-m", args[0])
        elif op == "wipe":
            _git(root, "stash", "-u", "-q")
        elif op == "invariant":
            strata.record_invariant(*args)
        elif op == "record_failure":
            strata.record_failure(args[0], args[1], args[2], args[3])
            truth["forbidden"].append(args[3])
            truth["failures"].append(args[3])
        else:
            raise ValueError(f"{sc.name}: unknown step {op}")
    truth["forbidden"] += [c for c in truth["completed"] if c not in truth["forbidden"]]
    sc.truth = truth
    return task_id


# ---------------------------------------------------------------- the scripted reader

GUARD, SUGGEST, PLAIN = "guard", "suggest", "plain"
_SECTIONS = {"must_not_redo": GUARD, "completed": GUARD, "in_progress": SUGGEST,
             "next": SUGGEST, "blocked": PLAIN, "drift": PLAIN, "must_preserve": PLAIN}  # fmt: skip
_SEGMENTS = {"completed": GUARD, "must_not_redo": GUARD, "in_progress": SUGGEST,
             "preferred_next": SUGGEST}  # fmt: skip


def read(text: str, budget: int | None) -> dict[str, Any]:
    """What the scripted agent takes from a package: the lines within `budget` tokens, each
    tagged guard (listed as failed or done), suggest (in progress or next), or plain; the goals
    in the order read."""
    seen: list[tuple[str, str]] = []
    goals: list[str] = []
    used = 0
    section = PLAIN
    for line in text.splitlines():
        used += (len(line) + 1 + 3) // 4
        if budget is not None and used > budget:
            break
        if line.startswith("  - "):
            seen.append((section, line[4:]))
            continue
        head = line.split(" ", 1)[0].rstrip(":")
        if line.endswith(":") and head in _SECTIONS:
            section = _SECTIONS[head]
            continue
        section = PLAIN
        if line.startswith("goal: "):
            goals.append(line[6:])
        elif line.startswith("failure #"):
            seen.append((GUARD, line))
        elif line.startswith("history: "):
            _history(line[9:], seen, goals)
        else:
            seen.append((PLAIN, line))
    return {"lines": seen, "goals": goals, "tokens_read": min(used, budget or used)}


def _history(entry: str, seen: list[tuple[str, str]], goals: list[str]) -> None:
    body = entry.split(" ", 1)[1] if " " in entry else entry
    if body.startswith("task created: "):
        goals.append(body.split("; goal: ", 1)[1].removesuffix(" (stale)"))
    elif body.startswith("task updated: ") and "goal=" in body:
        goals.append(body.split("goal=", 1)[1].split(", status=")[0].removesuffix(" (stale)"))
    elif body.startswith("failure "):
        seen.append((GUARD, body))
    elif body.startswith("progress "):
        done = ": done " in body
        seen.append((GUARD if done else SUGGEST, body))
    elif body.startswith("checkpoint "):
        for seg in body.split(": ", 1)[1].split(" | "):
            label, _, rest = seg.partition(": ")
            if label == "goal":
                goals.append(rest)
            else:
                seen.append((_SEGMENTS.get(label, PLAIN), rest))
    else:
        seen.append((PLAIN, body))


def score(sc: Scenario, got: dict[str, Any]) -> dict[str, float]:
    truth = sc.truth
    lines = got["lines"]

    def visible(marker: str, kinds: tuple[str, ...] = (GUARD, SUGGEST, PLAIN)) -> bool:
        return any(marker in text for kind, text in lines if kind in kinds)

    def share(items: list[str], kinds: tuple[str, ...] = (GUARD, SUGGEST, PLAIN)) -> float:
        return sum(visible(i, kinds) for i in items) / len(items) if items else 1.0

    forbidden = truth["forbidden"]
    obvious = sc.obvious if sc.obvious is not None else [*forbidden[:1], *truth["completed"]]
    taken = [
        f
        for f in forbidden
        if (f in obvious or visible(f, (SUGGEST,))) and not visible(f, (GUARD,))
    ]
    out = {
        "goal": 1.0 if got["goals"] and got["goals"][-1] == truth["goal"] else 0.0,
        "completed": share(truth["completed"], (GUARD,)),
        "working_set": share(truth["working_set"]),
        "failure_context": share(truth["failures"], (GUARD,)),
        "redundant": 1 - len(taken) / len(forbidden) if forbidden else 1.0,
    }
    out["composite"] = round(sum(WEIGHTS[k] * out[k] for k in WEIGHTS), 4)
    return out


# ---------------------------------------------------------------- the benchmark


def run(*, budgets: tuple[int | None, ...] = (BUDGET, None), runs: int = 3) -> dict[str, Any]:
    """Every scenario x mode, scored at each budget; restore latency (median of `runs`) and the
    package size in tokens."""
    from gitstrata import Strata

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gitstrata-continuity-") as tmp:
        for i, sc in enumerate(scenarios()):
            root = Path(tmp) / f"s{i:02d}"
            task_id = play(sc, root)
            for mode in MODES:
                times, pkg = [], None
                for _ in range(max(1, runs)):
                    resumed = Strata(root).tasks  # a new session, as a new process would be
                    t0 = time.perf_counter()
                    pkg = resumed.restore_checkpoint(task_id, mode)
                    times.append((time.perf_counter() - t0) * 1000)
                assert pkg is not None
                row: dict[str, Any] = {
                    "scenario": sc.name,
                    "kind": sc.kind,
                    "mode": mode,
                    "tokens": pkg["tokens"],
                    "restore_ms": round(statistics.median(times), 2),
                    "stale_entries": pkg.get("stale_entries", 0),
                    "drifted": bool((pkg.get("drift") or {}).get("drifted")),
                }
                for budget in budgets:
                    row[_key(budget)] = score(sc, read(pkg["text"], budget))
                rows.append(row)
    return {"budgets": list(budgets), "rows": rows, "summary": summarize(rows, budgets)}


def _key(budget: int | None) -> str:
    return f"budget_{budget}" if budget is not None else "unbounded"


def summarize(rows: list[dict[str, Any]], budgets: tuple[int | None, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for budget in budgets:
        key = _key(budget)
        out[key] = {}
        for mode in MODES:
            mine = [r[key] for r in rows if r["mode"] == mode]
            out[key][mode] = {
                m: round(statistics.fmean(s[m] for s in mine), 3) for m in [*WEIGHTS, "composite"]
            }
    for mode in MODES:
        mine = [r for r in rows if r["mode"] == mode]
        out.setdefault("size", {})[mode] = {
            "tokens_median": statistics.median(r["tokens"] for r in mine),
            "tokens_max": max(r["tokens"] for r in mine),
            "restore_ms_median": round(statistics.median(r["restore_ms"] for r in mine), 2),
            "restore_ms_max": round(max(r["restore_ms"] for r in mine), 2),
        }
    out["scenarios"] = len({r["scenario"] for r in rows})
    return out


def markdown(result: dict[str, Any]) -> str:
    """The RESULTS.md section."""
    s = result["summary"]
    lines = [
        "## Task continuity (`benchmarks/continuity.py`)",
        "",
        f"{s['scenarios']} scripted interruption scenarios (SIGTERM, SIGINT, crash, context "
        "overflow, tool timeout, branch switch, goal change, workspace wipe, retry storm, handoff, "
        "multi-day pause), each restored by a new session in every mode. A scripted agent reads "
        "the package up to a context budget; scores over what it read (1 is best), composite "
        "weights 0.20 goal, 0.20 completed, 0.15 working set, 0.20 failure context, 0.25 "
        "redundant exploration. Deterministic except the restore latency.",
        "",
    ]
    for key in [_key(b) for b in result["budgets"]]:
        title = "unbounded budget" if key == "unbounded" else f"budget {key.split('_')[1]} tokens"
        lines += [
            f"| mode ({title}) | composite | goal | completed | working set | failure context "
            "| redundant exploration |",
            "|---|---|---|---|---|---|---|",
        ]
        for mode in MODES:
            m = s[key][mode]
            lines.append(
                f"| {mode} | **{m['composite']:.3f}** | {m['goal']:.2f} | {m['completed']:.2f} | "
                f"{m['working_set']:.2f} | {m['failure_context']:.2f} | {m['redundant']:.2f} |"
            )
        lines.append("")
    lines += [
        "| mode | package tokens (median / max) | restore latency ms (median / max) |",
        "|---|---|---|",
    ]
    for mode in MODES:
        z = s["size"][mode]
        lines.append(
            f"| {mode} | {z['tokens_median']:.0f} / {z['tokens_max']} | "
            f"{z['restore_ms_median']:.1f} / {z['restore_ms_max']:.1f} |"
        )
    ref = ", ".join(f"{k} {v}" for k, v in REFERENCE.items())
    lines += [
        "",
        f"The reference system reports composites {ref} on its own scenarios and reader; the "
        "numbers here come from this project's scenarios and reader and are not comparable one "
        "to one. Restore latency includes the git reads for the drift (a few subprocesses).",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m gitstrata.benchmarks.continuity", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--budget", type=int, default=BUDGET, help="tokens the agent reads")
    ap.add_argument("--runs", type=int, default=3, help="restores per scenario and mode")
    ap.add_argument("--json", dest="json_out", type=Path)
    args = ap.parse_args(argv)
    result = run(budgets=(args.budget, None), runs=args.runs)
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2) + "\n")
    sys.stdout.write(markdown(result) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
