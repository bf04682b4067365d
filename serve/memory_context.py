"""Context packs: what an agent should know before it starts, within a token budget.

Sections in the order they matter (each line is dropped before any line of an earlier section):
project summary, invariants, active decisions, pitfalls, stale memories to review, hotspots.
`agent_prompt` wraps a pack as a CLAUDE.md / AGENTS.md snippet. Every line passes the firewall, and
is one line: a line break in a name or a memory is shown escaped (`store/oneline.py`).
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

from ..store import filekind
from ..store.errors import GitstrataError
from ..store.oneline import escape_breaks
from .firewall_passed import clean
from .memory import MemoryBook, is_hotspot_fact
from .render import estimate_tokens

HOTSPOT_COMMITS = 500
HOTSPOT_MIN = 3
# the counts are of the last `HOTSPOT_COMMITS` commits: the heading says so, or "41 commits"
# next to a file git logs 387 times for reads as a wrong count
HOTSPOTS_HEADING = f"Hotspots (code files changed most in the last {HOTSPOT_COMMITS} commits)"


def hotspots(book: MemoryBook, limit: int = 8) -> list[tuple[str, int]]:
    """The code files (source and tests: `filekind.is_code`) changed by the most of the last
    500 indexed commits."""
    gen = None
    if book.stale_index is not None:
        try:
            gen = book.stale_index.store.live()
        except GitstrataError:
            gen = None
    if gen is None or not gen.has("touches") or not gen.has("commits"):
        return []
    commits = gen.table("commits", columns=["sha", "commit_time"]).sort_by(
        [("commit_time", "descending")]
    )
    recent = set(commits["sha"].to_pylist()[:HOTSPOT_COMMITS])
    t = gen.table("touches", columns=["sha", "head_path"])
    seen = {(s, p) for s, p in zip(t["sha"].to_pylist(), t["head_path"].to_pylist(), strict=True)}
    counts = Counter(p for s, p in seen if s in recent and filekind.is_code(p))
    # ties by path: a set's order changes from one process to the next (string hashing)
    ranked = sorted(counts.items(), key=lambda pn: (-pn[1], pn[0]))[:limit]
    return [(p, n) for p, n in ranked if n >= HOTSPOT_MIN]


def _summary(book: MemoryBook) -> list[str]:
    out = []
    if book.stale_index is not None:
        v = book.stale_index.view()
        if v is not None:
            v.ensure()
            out.append(
                f"Indexed at {v.head[:10]}: {len(v.file_blob)} files, {len(v.commits)} commits."
            )
    stats = book.stats()
    kinds = ", ".join(f"{n} {k}" for k, n in stats["kinds"].items()) or "none yet"
    out.append(f"Memories: {stats['total']} ({kinds}); {stats['stale']} possibly stale.")
    return out


def context_pack(
    book: MemoryBook,
    invariants: list[Any],
    *,
    budget: int = 2000,
    tasks: list[str] | None = None,
) -> str:
    """`tasks`: lines on the open tasks (first in the pack: a resumed session starts there)."""
    now = datetime.now(UTC).strftime("%Y-%m-%d")
    hot = hotspots(book)
    live = [m for m in book.live() if m.status == "active"]
    if hot:  # the hotspots section says it with the paths of today: not the history's fact too
        live = [m for m in live if not is_hotspot_fact(m)]
    by_weight = sorted(live, key=lambda m: (-m.importance, -m.recalls, m.id))
    sections: list[tuple[str, list[str]]] = [
        ("Open tasks (resume one with restore_checkpoint)", list(tasks or [])),
        ("Project", _summary(book)),
        (
            "Invariants (must always hold)",
            [f"- [{r.severity}] {r.id} ({r.scope}): {r.description}" for r in invariants],
        ),
        (
            "Decisions",
            [f"- {_line(m)}" for m in by_weight if m.kind in ("decision", "principle")],
        ),
        ("Pitfalls", [f"- {_line(m)}" for m in by_weight if m.kind == "pitfall"]),
        (
            "Preferences and facts",
            [f"- {_line(m)}" for m in by_weight if m.kind in ("preference", "fact")],
        ),
        (
            "Possibly stale memories (check before relying on them)",
            [f"- {m.id}: {notes[0].text()}" for m, notes in book.stale()],
        ),
        (HOTSPOTS_HEADING, [f"- {p} ({n} commits)" for p, n in hot]),
    ]
    lines = [f"# Project memory (gitstrata, {now})"]
    used = estimate_tokens(lines[0])
    left_out = 0
    for title, body in sections:
        if not body:
            continue
        body = [escape_breaks(entry) for entry in body]  # one line each, whatever a name holds
        head = f"\n## {title}"
        if used + estimate_tokens(head) + estimate_tokens(body[0]) > budget:
            left_out += len(body)
            continue
        lines.append(head)
        used += estimate_tokens(head)
        for entry in body:
            cost = estimate_tokens(entry)
            if used + cost > budget:
                left_out += 1
                continue
            lines.append(entry)
            used += cost
    if left_out:
        lines.append(f"\n({left_out} more entries left out to fit {budget} tokens)")
    return clean("\n".join(lines) + "\n")


def _line(m: Any) -> str:
    where = f" [{', '.join(a.label for a in m.anchors[:3])}]" if m.anchors else ""
    return f"{m.text}{where} ({m.id})"


def agent_prompt(pack: str) -> str:
    return (
        "<!-- gitstrata: generated by `gitstrata prompt`; refresh it, do not edit -->\n"
        "## Working in this repository\n\n"
        "Before editing a function or file, call the gitstrata MCP tool `preflight_check`; "
        "ask `search_causal_history` why code is the way it is, what calls a function, which "
        "files import a file or which tests to run after a change; use `recall` for past "
        "decisions and pitfalls, and `remember` (anchored to the code, `path::Symbol`) when you "
        "settle a decision or hit a pitfall worth keeping.\n\n" + pack
    )
