"""`evaluate_continuity`: how well a task's state carried over between its checkpoint versions.

Six dimensions, each a score from 0 to 1 where 1 is best, over consecutive checkpoint pairs
(v1 -> v2, v2 -> v3, ...):

- goal_retention: the goal survived, or changed only by an explicit goal update between them;
- action_consistency: what was in progress or next at v(n) shows up as done or in progress at
  v(n+1) (a pair with nothing planned counts as consistent);
- failure_recall: every failure tracked before a checkpoint is in its must_not_redo;
- working_set_stability: Jaccard similarity of consecutive working sets;
- replanning_rate (score = 1 - rate): pairs whose next steps share nothing with the previous ones;
- redundant_exploration (score = 1 - rate): failures tracked again after a checkpoint already
  listed the same approach in must_not_redo.

`composite` is their mean (equal weights). A task with fewer than two checkpoints is scored on
what one checkpoint can show (failure recall) and says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..store.tasks import checkpoints
from .task_package import failure_item


def _texts(state: Mapping[str, Any], *names: str) -> set[str]:
    return {i.get("key", i["text"]) for n in names for i in state.get(n, [])}


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def evaluate(task: Mapping[str, Any], weights: Mapping[str, float]) -> dict[str, Any]:
    cps = checkpoints(task)
    records = task["records"]
    goal_updates = [
        r["id"] for r in records if r["kind"] == "task_update" and "goal" in r["changes"]
    ]
    goal, action, wss, replan = [], [], [], []
    for a, b in zip(cps, cps[1:], strict=False):
        sa, sb = a["state"], b["state"]
        changed = sa.get("goal") != sb.get("goal")
        explained = any(a["id"] < g < b["id"] for g in goal_updates)
        goal.append(0.0 if changed and not explained else 1.0)
        planned = _texts(sa, "in_progress", "preferred_next")
        if planned:
            followed = _texts(sb, "completed", "in_progress", "blocked")
            action.append(len(planned & followed) / len(planned))
        else:
            action.append(1.0)
        wa, wb = set(sa.get("working_set", [])), set(sb.get("working_set", []))
        wss.append(len(wa & wb) / len(wa | wb) if wa | wb else 1.0)
        na, nb = _texts(sa, "preferred_next"), _texts(sb, "preferred_next")
        replan.append(1.0 if na and nb and not (na & nb) else 0.0)
    recall = []
    for cp in cps:
        before = [r for r in records if r["kind"] == "failure" and r["id"] < cp["id"]]
        if before:
            listed = {m["key"] for m in cp["state"].get("must_not_redo", [])}
            sigs = {m.get("signature") for m in cp["state"].get("must_not_redo", [])}
            hit = sum(
                1
                for r in before
                if (it := failure_item(r, weights))["key"] in listed or it["signature"] in sigs
            )
            recall.append(hit / len(before))
    repeats, tracked = 0, 0
    for r in records:
        if r["kind"] != "failure":
            continue
        tracked += 1
        sig = failure_item(r, weights)["signature"]
        if any(
            cp["id"] < r["id"] and sig in {m.get("signature") for m in cp["state"]["must_not_redo"]}
            for cp in cps
        ):
            repeats += 1
    replan_rate = _mean(replan)
    redundant_rate = round(repeats / tracked, 4) if tracked else None
    dims = {
        "goal_retention": _mean(goal),
        "action_consistency": _mean(action),
        "failure_recall": _mean(recall),
        "working_set_stability": _mean(wss),
        "replanning_rate": replan_rate,
        "redundant_exploration": redundant_rate,
    }
    scores = {
        "goal_retention": dims["goal_retention"],
        "action_consistency": dims["action_consistency"],
        "failure_recall": dims["failure_recall"],
        "working_set_stability": dims["working_set_stability"],
        "replanning": None if replan_rate is None else round(1 - replan_rate, 4),
        "redundant_exploration": None if redundant_rate is None else round(1 - redundant_rate, 4),
    }
    known = [v for v in scores.values() if v is not None]
    return {
        "task": task["id"],
        "checkpoints": len(cps),
        "pairs": max(0, len(cps) - 1),
        "dimensions": dims,
        "scores": scores,
        "composite": _mean(known),
        "note": None
        if len(cps) >= 2
        else "fewer than two checkpoints: only failure recall can be scored",
    }


def confidence(
    state: dict[str, Any], task: dict[str, Any], drift: dict[str, Any] | None = None
) -> float:
    """How safely an agent can continue from `state`: 1 minus what is missing or moved."""
    score = 1.0
    if not state.get("goal"):
        score -= 0.2
    if not state.get("completed") and not state.get("in_progress"):
        score -= 0.15
    if not state.get("preferred_next"):
        score -= 0.1
    score -= min(0.2, 0.05 * len(state.get("blocked", [])))
    last = state.get("last_failure")
    if last and not last.get("fix"):
        score -= 0.1
    if drift:
        score -= 0.1 * sum(
            1 for k in ("branch", "head", "files_gone", "files_changed") if k in drift
        )
    if task.get("status") in ("done", "abandoned"):
        score -= 0.1
    return round(max(0.05, min(1.0, score)), 2)
