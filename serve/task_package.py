"""A task's current state, folded from its records, and the continuation package built from it.

`fold` is the whole state machine: the latest checkpoint (or the task alone) with every later
progress, failure and goal change applied, so what was recorded after the last checkpoint (a
crash between checkpoints) is never lost to a restore. Packages:

- SELECTIVE: the folded state with the items worth an agent's context (importance >= 0.5), every
  must_not_redo item (failed approaches are never filtered: forgetting one is how work repeats),
  the invariants on the working set and the drift since the checkpoint.
- FULL: every record of the task, oldest first, stale ones marked, then the state unfiltered.
- NONE: the task's id and name only (the amnesiac baseline).

Pure functions over replayed records; the service adds the I/O (git, graveyard, invariants).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..store.tasks import IMPORTANT, LIST_FIELDS, checkpoints, failure_key, importance_of

ITEM_IMPORTANCE = {"completed": 0.6, "in_progress": 0.8, "blocked": 0.8, "preferred_next": 0.7}
PROGRESS_IMPORTANCE = {
    "blocked": 0.9, "in_progress": 0.7, "done": 0.6, "planned": 0.4, "dropped": 0.3,
}  # fmt: skip
MAX_HISTORY = 2000  # records a FULL package shows, newest kept (a bound on one answer)
PROGRESS_LIST = {"done": "completed", "in_progress": "in_progress", "blocked": "blocked",
                 "planned": "preferred_next"}  # fmt: skip


def items(texts: Iterable[str], field: str, source: str = "checkpoint") -> list[dict[str, Any]]:
    imp = ITEM_IMPORTANCE[field]
    return [{"text": t, "key": t, "importance": imp, "source": source} for t in texts]


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def failure_item(rec: Mapping[str, Any], weights: Mapping[str, float]) -> dict[str, Any]:
    what = rec.get("approach") or rec["error"]
    where = f" in {rec['component']}" if rec.get("component") else ""
    text = f"{what}{where}: failed with {rec['error']}" if rec.get("approach") else f"{what}{where}"
    if rec.get("root_cause"):
        text += f" (root cause: {rec['root_cause']})"
    return {
        "key": failure_key(rec),
        "text": text,
        "source": "task",
        "importance": importance_of(rec, weights),
        "signature": _norm(f"{rec.get('component') or ''} {what}"),
    }


def empty_fold(task: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "goal": task.get("goal", ""),
        **{f: [] for f in LIST_FIELDS},
        "must_not_redo": [],
        "must_preserve": [],
        "working_set": [],
        "modified_files": [],
        "branch": None,
        "head": None,
        "last_tool": None,
        "last_failure": None,
        "confidence": 0.0,
        "summary": None,
    }


def _drop(state: dict[str, Any], key: str) -> None:
    for name in LIST_FIELDS:
        state[name] = [i for i in state[name] if i.get("key", i["text"]) != key]


def add_must_not_redo(state: dict[str, Any], item: dict[str, Any]) -> None:
    """Add a failed approach once: a repeat (same key, or the same approach in the same
    component) counts one more occurrence instead of another line."""
    for old in state["must_not_redo"]:
        if old["key"] == item["key"] or (
            item.get("signature") and old.get("signature") == item.get("signature")
        ):
            old["occurrences"] = old.get("occurrences", 1) + item.get("occurrences", 1)
            old["importance"] = max(old.get("importance", 0.5), item.get("importance", 0.5))
            return
    state["must_not_redo"].append(dict(item))


def fold(
    task: Mapping[str, Any], weights: Mapping[str, float], *, upto: int | None = None
) -> tuple[dict[str, Any], dict[str, Any] | None, int]:
    """(state, base checkpoint or None, records applied after it). `upto`: fold only to that
    checkpoint version (inclusive), ignoring what came after."""
    cps = [c for c in checkpoints(task) if upto is None or c["version"] <= upto]
    base = cps[-1] if cps else None
    state = empty_fold(task)
    if base is not None:
        state.update({k: _copy(v) for k, v in base["state"].items()})
    start = base["id"] if base is not None else 0
    end = base["id"] if upto is not None and base is not None else None
    applied = 0
    for rec in task["records"]:
        if rec["id"] <= start or (end is not None and rec["id"] > end):
            continue
        applied += _fold_one(state, rec, weights)
    return state, base, applied


def _copy(value: Any) -> Any:
    if isinstance(value, list):
        return [dict(v) if isinstance(v, dict) else v for v in value]
    return dict(value) if isinstance(value, dict) else value


def _fold_one(state: dict[str, Any], rec: Mapping[str, Any], weights: Mapping[str, float]) -> int:
    kind = rec["kind"]
    if rec.get("files"):  # the work tree when the record was written
        by_path = {f["path"]: f for f in state["modified_files"]}
        by_path.update({f["path"]: dict(f) for f in rec["files"]})
        state["modified_files"] = sorted(by_path.values(), key=lambda f: f["path"])
        known = set(state["working_set"])
        state["working_set"] += [f["path"] for f in rec["files"] if f["path"] not in known]
    if kind == "task_update" and "goal" in rec["changes"]:
        state["goal"] = rec["changes"]["goal"]
    elif kind == "progress":
        feature = rec["feature"]
        _drop(state, feature)
        target = PROGRESS_LIST.get(rec["status"])
        if target is not None:
            text = feature
            if rec["status"] == "blocked" and rec.get("blockers"):
                text += f" (blocked by: {'; '.join(rec['blockers'])})"
            elif rec.get("notes"):
                text += f": {rec['notes']}"
            state[target].append(
                {
                    "text": text,
                    "key": feature,
                    "importance": importance_of(rec, weights),
                    "source": f"progress:{rec['id']}",
                }  # fmt: skip
            )
    elif kind == "failure":
        add_must_not_redo(state, failure_item(rec, weights))
        state["last_failure"] = {
            k: rec.get(k) for k in ("id", "error", "component", "severity", "root_cause", "fix")
        }
    else:
        return 0
    return 1


# ---------------------------------------------------------------- staleness


def stale_ids(task: Mapping[str, Any]) -> set[int]:
    """Records a newer record superseded: every checkpoint but the latest, a feature's progress
    before its latest, a goal before the current one, interruptions before the latest checkpoint."""
    recs = task["records"]
    cps = [r for r in recs if r["kind"] == "checkpoint"]
    out = {r["id"] for r in cps[:-1]}
    last_cp = cps[-1]["id"] if cps else 0
    latest: dict[str, int] = {}
    goal_ids = []
    for r in recs:
        if r["kind"] == "progress":
            if r["feature"] in latest:
                out.add(latest[r["feature"]])
            latest[r["feature"]] = r["id"]
        elif r["kind"] == "task_update" and "goal" in r["changes"]:
            goal_ids.append(r["id"])
        elif r["kind"] in ("interruption", "restore") and r["id"] < last_cp:
            out.add(r["id"])
    if goal_ids:
        out.update(goal_ids[:-1])
        out.add(recs[0]["id"])  # the goal the task was created with
    return out


# ---------------------------------------------------------------- packages


def _important(values: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [v for v in values if v.get("importance", 0.5) >= IMPORTANT]


def history_entry(rec: Mapping[str, Any], stale: bool) -> dict[str, Any]:
    """A record as FULL shows it: its own fields, without the bookkeeping."""
    drop = ("session", "repo", "files")
    out = {k: v for k, v in rec.items() if k not in drop}
    if stale:
        out["stale"] = True
    return out


def package(
    task: Mapping[str, Any],
    mode: str,
    state: dict[str, Any],
    base: Mapping[str, Any] | None,
    since: int,
) -> dict[str, Any]:
    """The continuation package for `mode` (SELECTIVE, FULL or NONE)."""
    head = {
        "mode": mode,
        "task": {"id": task["id"], "name": task["name"], "status": task["status"]},
    }
    if mode == "NONE":
        return {**head, "empty": True}
    out: dict[str, Any] = {
        **head,
        "version": base["version"] if base else 0,
        "checkpoint_reason": base["reason"] if base else None,
        "checkpoint_at": base.get("ts") if base else None,
        "records_since_checkpoint": since,
        "goal": state["goal"],
    }
    pick = _important if mode == "SELECTIVE" else list
    for name in LIST_FIELDS:
        out[name] = [i["text"] for i in pick(state[name])]
    out["must_not_redo"] = [dict(i) for i in state["must_not_redo"]]
    for name in ("must_preserve", "working_set", "modified_files", "branch", "head", "last_tool"):
        out[name] = state.get(name)
    out["last_failure"] = state.get("last_failure")
    out["summary"] = state.get("summary")
    failures = [r for r in task["records"] if r["kind"] == "failure"]
    details = [
        {
            k: r.get(k)
            for k in ("id", "error", "component", "severity", "root_cause", "fix", "related_tests")
        }  # fmt: skip
        for r in failures
        if mode == "FULL" or float(r.get("importance", 0.5)) >= IMPORTANT
    ]
    out["failures"] = _dedup_failures(details) if mode == "SELECTIVE" else details
    if mode == "FULL":
        stale = stale_ids(task)
        records = task["records"][-MAX_HISTORY:]
        out["history"] = [history_entry(r, r["id"] in stale) for r in records]
        out["history_omitted"] = len(task["records"]) - len(records)
        out["stale_entries"] = sum(1 for h in out["history"] if h.get("stale"))
    else:
        out["stale_entries"] = 0
    return out


def _dedup_failures(details: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for d in details:
        key = _norm(f"{d.get('component') or ''} {d['error']}")
        if key in seen:
            seen[key]["occurrences"] = seen[key].get("occurrences", 1) + 1
            for k in ("root_cause", "fix"):
                seen[key][k] = d.get(k) or seen[key].get(k)
        else:
            seen[key] = dict(d)
    return list(seen.values())


# ---------------------------------------------------------------- text


def _bullets(title: str, values: Iterable[str]) -> list[str]:
    values = list(values)
    return [f"{title}:", *(f"  - {v}" for v in values)] if values else []


def render(pkg: Mapping[str, Any]) -> str:
    """The package as an agent reads it. FULL reads like a transcript: the history first,
    oldest first, then the current state."""
    task = pkg["task"]
    if pkg.get("empty"):
        return (
            f'<task_continuation task="{task["id"]}" mode="NONE">\n'
            f"Task #{task['id']} ({task['name']}): no state restored (mode NONE).\n"
            "</task_continuation>"
        )
    lines = [
        f'<task_continuation task="{task["id"]}" mode="{pkg["mode"]}" '
        f'checkpoint="v{pkg["version"]}" confidence="{pkg.get("continuation_confidence", 0)}">'
    ]
    if pkg.get("notice"):
        lines.append(f"NOTICE: {pkg['notice']}")
    for entry in pkg.get("history", []):
        lines.append("history: " + history_line(entry))
    lines.append(f"task #{task['id']}: {task['name']} [{task['status']}]")
    lines.append(f"goal: {pkg['goal']}")
    drift = pkg.get("drift") or {}
    lines += _bullets(
        "drift since the checkpoint (check before continuing)", drift.get("notes", [])
    )
    lines += _bullets(
        "must_not_redo (failed before: do not repeat)",
        (
            m["text"] + (f" [x{m['occurrences']}]" if m.get("occurrences", 1) > 1 else "")
            for m in pkg["must_not_redo"]
        ),
    )
    lines += _bullets(
        "must_preserve (invariants on the working set)",
        (f"[{i['severity']}] {i['id']} ({i['scope']}): {i['description']}"
         for i in pkg["must_preserve"] or []),
    )  # fmt: skip
    lines += _bullets("completed (do not redo)", pkg["completed"])
    lines += _bullets("in_progress", pkg["in_progress"])
    lines += _bullets("blocked", pkg["blocked"])
    lines += _bullets("next", pkg["preferred_next"])
    if pkg.get("working_set"):
        lines.append("working_set: " + ", ".join(pkg["working_set"]))
    for f in pkg.get("failures", []):
        extra = "".join(
            f"; {k.replace('_', ' ')}: {f[k]}" for k in ("root_cause", "fix") if f.get(k)
        )
        tests = f"; tests: {', '.join(f['related_tests'])}" if f.get("related_tests") else ""
        lines.append(f"failure #{f['id']} [{f['severity']}] {f['error']}{extra}{tests}")
    if pkg.get("summary"):
        lines.append(f"summary: {pkg['summary']}")
    lines.append("</task_continuation>")
    return "\n".join(lines)


def history_line(entry: Mapping[str, Any]) -> str:
    kind = entry["kind"]
    mark = " (stale)" if entry.get("stale") else ""
    if kind == "task":
        return f"#{entry['id']} task created: {entry['name']}; goal: {entry.get('goal', '')}{mark}"
    if kind == "task_update":
        changes = ", ".join(f"{k}={v}" for k, v in entry["changes"].items())
        return f"#{entry['id']} task updated: {changes}{mark}"
    if kind == "checkpoint":
        s = entry["state"]
        parts = [f"goal: {s.get('goal', '')}"]
        for name in LIST_FIELDS:
            texts = [i["text"] for i in s.get(name, [])]
            if texts:
                parts.append(f"{name}: {'; '.join(texts)}")
        mnr = [m["text"] for m in s.get("must_not_redo", [])]
        if mnr:
            parts.append(f"must_not_redo: {'; '.join(mnr)}")
        if s.get("working_set"):
            parts.append(f"working_set: {', '.join(s['working_set'])}")
        return f"#{entry['id']} checkpoint v{entry.get('version')} ({entry['reason']}){mark}: " + (
            " | ".join(parts)
        )
    if kind == "progress":
        return (
            f"#{entry['id']} progress {entry['feature']}: {entry['status']} "
            f"{round(100 * entry.get('completion', 0))}%{mark}"
            + (f"; {entry['notes']}" if entry.get("notes") else "")
        )
    if kind == "failure":
        what = f"{entry['approach']} -> " if entry.get("approach") else ""
        return f"#{entry['id']} failure ({entry.get('component') or '?'}): {what}{entry['error']}{mark}"
    if kind == "interruption":
        return f"#{entry['id']} interrupted: {entry['reason']}{mark}"
    if kind == "restore":
        return f"#{entry['id']} restored v{entry.get('version')} ({entry['mode']}){mark}"
    return f"#{entry['id']} {kind}{mark}"


def tokens(text: str) -> int:
    """The package's size as the render estimates it: four characters a token."""
    return (len(text) + 3) // 4
