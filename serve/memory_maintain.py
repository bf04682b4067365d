"""Memory maintenance: consolidation (merge clusters, prune faded memories, keep bridges) and
the statistics of `memory_stats`.

Consolidation only appends: a merge is an update of the cluster's most important member plus a
forget ("merged into ...") of the others, a prune is a forget ("pruned"); the journal keeps every
earlier record. A faded memory that links to at least two strong memories is a bridge between
them and is kept. ADR and team memories are never pruned (they are the team's, not one agent's).
"""

from __future__ import annotations

from typing import Any

from ..store.errors import GitstrataError
from ..store.memory import STREAM, Memory, fmt_time, parse_time, strength
from .memory import (
    CLUSTER_AT,
    MAINTAIN_EVERY_HOURS,
    PRUNE_BELOW,
    MemoryBook,
    _anchors_compatible,
    merge_text,
)


def consolidate(
    book: MemoryBook,
    *,
    prune_below: float = PRUNE_BELOW,
    cluster_at: float = CLUSTER_AT,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Merge clusters of similar memories of one kind into their most important member and
    prune memories whose strength fell below `prune_below`, unless they bridge two strong
    neighbours. Appends records only; the journal keeps everything."""
    now = book.now()
    mems = [m for m in book.live() if m.status != "superseded"]
    parent = {m.id: m.id for m in mems}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, a in enumerate(mems):
        for b in mems[i + 1 :]:
            if a.kind != b.kind or not _anchors_compatible(list(a.anchors), b.anchors):
                continue
            if book.vectors.similarity(a.text, b.text) >= cluster_at:
                parent[find(a.id)] = find(b.id)
    clusters: dict[str, list[Memory]] = {}
    for m in mems:
        clusters.setdefault(find(m.id), []).append(m)
    merged, pruned, kept_bridges = [], [], []
    gone: set[str] = set()
    for group in clusters.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda m: (-m.importance, -m.recalls, m.created, m.id))
        head, rest = group[0], group[1:]
        text = head.text
        for other in rest:
            text = merge_text(text, other.text)
        merged.append({"into": head.id, "merged": [m.id for m in rest]})
        if not dry_run:
            fields: dict[str, Any] = {"text": text}
            tags = sorted(set().union(*(set(m.tags) for m in group)))
            if tags != sorted(head.tags):
                fields["tags"] = tags
            book._append({"op": "update", "mid": head.id, "fields": fields})
            for other in rest:
                book._append({"op": "forget", "mid": other.id, "reason": f"merged into {head.id}"})
        gone.update(m.id for m in rest)
    by_id = {m.id: m for m in mems}
    for m in mems:
        if m.id in gone or m.source == "adr" or m.shared:
            continue
        s = strength(m, now)
        if s >= prune_below:
            continue
        strong = [
            n for n in m.links if n in by_id and n not in gone
            and strength(by_id[n], now) >= 4 * prune_below
        ]  # fmt: skip
        if len(strong) >= 2:
            kept_bridges.append(m.id)
            continue
        pruned.append(m.id)
        if not dry_run:
            book._append({"op": "forget", "mid": m.id, "reason": "pruned"})
    report = {
        "merged": merged,
        "pruned": pruned,
        "kept_bridges": kept_bridges,
        "dry_run": dry_run,
        "at": fmt_time(now),
    }
    if not dry_run:
        book._append(
            {
                "op": "maintain",
                "merged": len(merged),
                "pruned": len(pruned),
                "at": fmt_time(now),
            }
        )
    return report


def last_maintenance(book: MemoryBook) -> str | None:
    last = None
    for rec in book.journal.read(STREAM).records:
        if rec.get("op") == "maintain":
            last = str(rec.get("at") or rec.get("ts"))
    return last


def maybe_maintain(book: MemoryBook) -> dict[str, Any] | None:
    """Consolidate when the last maintenance is older than 12 hours (the server's schedule)."""
    if not book.live():
        return None
    last = last_maintenance(book)

    t = parse_time(last)
    if t is not None and (book.now() - t).total_seconds() < MAINTAIN_EVERY_HOURS * 3600:
        return None
    try:
        return consolidate(book)
    except GitstrataError:
        return None


def stats(book: MemoryBook) -> dict[str, Any]:
    now = book.now()
    live = book.live()
    by_kind: dict[str, int] = {}
    by_status: dict[str, int] = {}
    by_source: dict[str, int] = {}
    buckets = {"<0.05": 0, "0.05-0.2": 0, "0.2-0.5": 0, "0.5-1": 0, ">=1": 0}
    for m in live:
        by_kind[m.kind] = by_kind.get(m.kind, 0) + 1
        by_status[m.status] = by_status.get(m.status, 0) + 1
        by_source[m.source] = by_source.get(m.source, 0) + 1
        s = strength(m, now)
        key = (
            "<0.05" if s < 0.05 else "0.05-0.2" if s < 0.2 else "0.2-0.5" if s < 0.5
            else "0.5-1" if s < 1 else ">=1"
        )  # fmt: skip
        buckets[key] += 1
    pitfalls = [m for m in live if m.kind == "pitfall"]
    by_component: dict[str, int] = {}
    by_severity: dict[str, int] = {}
    for m in pitfalls:
        comps = {a.path.split("/")[0] for a in m.anchors} or {"(unanchored)"}
        for c in comps:
            by_component[c] = by_component.get(c, 0) + 1
        sev = "critical" if m.importance >= 0.9 else "major" if m.importance >= 0.7 else "minor"
        by_severity[sev] = by_severity.get(sev, 0) + 1
    features = {
        m.id: {"text": m.text[:120], "status": m.status}
        for m in live
        if "feature" in m.tags or m.kind == "session"
    }
    forgotten = [m for m in book.all().values() if m.forgotten is not None]
    return {
        "total": len(live),
        "forgotten": len(forgotten),
        "kinds": dict(sorted(by_kind.items())),
        "statuses": dict(sorted(by_status.items())),
        "sources": dict(sorted(by_source.items())),
        "shared": sum(1 for m in live if m.shared),
        "strength": buckets,
        "stale": len(book.stale()),
        "last_maintenance": last_maintenance(book),
        "engineering": {
            "failures": {
                "total": len(pitfalls),
                "by_component": dict(sorted(by_component.items())),
                "by_severity": dict(sorted(by_severity.items())),
            },
            "features": {"total_tracked": len(features), "items": features},
        },
        "warnings": book.warnings[:10],
    }
