"""Bounding the structured content of an answer like its text.

An agent that receives a preflight or a search result over MCP gets the rendered block and the
model as structured content; both count against its context. `bound` keeps the model's JSON
within the block's limit (`budget` tokens x 4 characters, the render's own estimate) by leaving
out list entries, least important lists and entries last in their list first, and says what
it left out in `truncated` with the block's notice (`render.truncation_note`). Invariants and
warnings are never dropped (the block never drops them either); a model that fits is returned
unchanged.
"""

from __future__ import annotations

import json
from typing import Any

from .render import truncation_note

# (field, what one entry is): dropped in this order, from the end of each list
TRIM_ORDER = (
    ("ownership", "ownership row"),
    ("related", "related hit"),
    ("past_attempts", "past attempt"),
    ("symbol_coupling", "symbol partner"),
    ("nearest", "nearest name"),
    ("hits", "hit"),
    ("history", "history entry"),
    ("coupling", "co-change partner"),
    ("load_bearing", "load-bearing fix"),
    ("firewall", "firewall note"),
)


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def bound(data: dict[str, Any], budget: int | None) -> dict[str, Any]:
    """`data` (a model's JSON) within `budget` x 4 characters of JSON."""
    if budget is None:
        return data
    limit = budget * 4
    total = _size(data)
    if total <= limit:
        return data
    out = dict(data)
    counts: dict[str, int] = {}
    # room for the notice itself (its text is at most a few dozen characters longer)
    room = limit - 200
    for field, what in TRIM_ORDER:
        items = out.get(field)
        if not isinstance(items, list) or not items:
            continue
        kept = list(items)
        sizes = [_size(x) + 1 for x in kept]
        while kept and total > room:
            kept.pop()
            total -= sizes.pop()
            counts[what] = counts.get(what, 0) + 1
        out[field] = kept
        if total <= room:
            break
    if counts:
        out["truncated"] = truncation_note(budget, counts, unit="item")
    return out
