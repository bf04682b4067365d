"""Bounding the structured content of an answer like its text.

An agent that receives a preflight or a search result over MCP gets the rendered block and the
model as structured content; both count against its context. `bound` keeps the model's JSON
within the block's limit (`budget` tokens x 4 characters, the render's own estimate) by leaving
out list entries, least important lists and entries last in their list first, and says what
it left out in `truncated` with the block's notice (`render.truncation_note`). Invariants and
warnings go last, and the first of each always stays: a journal of a thousand failures that all
match a query must not turn one answer into half a megabyte. If the entries that stay are still
too large, their longest strings are cut. A model that fits is returned unchanged.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from .render import truncation_note

# (field, what one entry is): dropped in this order, from the end of each list
TRIM_ORDER = (
    ("ownership", "ownership row"),
    ("related", "related hit"),
    ("past_attempts", "past attempt"),
    ("symbol_coupling", "symbol partner"),
    ("tests", "test file"),
    ("nearest", "nearest name"),
    ("hits", "hit"),
    ("history", "history entry"),
    ("coupling", "co-change partner"),
    ("load_bearing", "load-bearing fix"),
    ("firewall", "firewall note"),
)
# trimmed only when the lists above are empty and the answer is still too large; the first
# entry of each stays (the most relevant warning, the most severe invariant)
LAST_TRIM = (("warnings", "failure warning"), ("invariants", "invariant"))
MIN_STRING = 200  # a string is never cut below this many characters


# `json.dumps(value, ensure_ascii=False)` without building an encoder per call
_encode = json.JSONEncoder(ensure_ascii=False).encode
_encode_str = json.encoder.encode_basestring  # what that encoder does with a str


def _size(value: Any) -> int:
    kind = type(value)
    # the scalars as the encoder writes them, without building an encoder for each: most
    # fields of an answer are one string or number
    if kind is str:
        return len(_encode_str(value))
    if kind is int:
        return len(int.__repr__(value))
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    return len(_encode(value))


def _entries_size(list_size: int, n: int) -> int:
    """`sum(_size(x) + 1 for x in items)` from `_size(items)` and `len(items)`: a JSON list is
    its entries' own encodings joined by ", " inside brackets."""
    return list_size - 2 - 2 * (n - 1) + n if n else 0


def _field_sizes(data: dict[str, Any]) -> tuple[int, dict[str, int]]:
    """`_size(data)` and each field's `_size`, from one encoding of each field: a JSON object is
    its `"key": value` pairs joined by ", " inside braces."""
    sizes = {k: _size(v) for k, v in data.items()}
    if not all(type(k) is str for k in sizes):
        return _size(data), sizes
    pairs = sum(_key_size(k) + 2 + n for k, n in sizes.items())
    return 2 + pairs + 2 * max(0, len(sizes) - 1), sizes


@functools.lru_cache(maxsize=256)
def _key_size(key: str) -> int:  # the models' field names, the same in every answer
    return _size(key)


def bound(data: dict[str, Any], budget: int | None) -> dict[str, Any]:
    """`data` (a model's JSON) within `budget` x 4 characters of JSON."""
    if budget is None:
        return data
    limit = budget * 4
    total, field_size = _field_sizes(data)
    if total <= limit:
        return data
    out = dict(data)
    counts: dict[str, int] = {}
    # room for the notice itself (its text is at most a few dozen characters longer)
    room = limit - 200
    for order, keep in ((TRIM_ORDER, 0), (LAST_TRIM, 1)):
        for field, what in order:
            if total <= room:
                break
            items = out.get(field)
            if not isinstance(items, list) or len(items) <= keep:
                continue
            kept = list(items)
            # a list that goes down to `keep` entries whatever happens is sized at once
            gone = _entries_size(field_size[field], len(kept))
            if keep:
                gone -= sum(_size(x) + 1 for x in kept[:keep])
            if total - gone > room:
                total -= gone
                counts[what] = counts.get(what, 0) + len(kept) - keep
                del kept[keep:]
            while len(kept) > keep and total > room:
                total -= _size(kept.pop()) + 1
                counts[what] = counts.get(what, 0) + 1
            out[field] = kept
    if total > room:
        out = _cut_strings(out, room)
        counts["long text"] = counts.get("long text", 0) + 1
    if counts:
        out["truncated"] = truncation_note(budget, counts, unit="item")
    return out


def _cut_strings(data: dict[str, Any], room: int) -> dict[str, Any]:
    """`data` with its longest strings cut (at `MIN_STRING` characters at least) until the JSON
    fits in `room` characters, or every string is that short."""
    cap = max(MIN_STRING, room // 4)
    while True:
        out = _capped(data, cap)
        if _size(out) <= room or cap <= MIN_STRING:
            return out
        cap = max(MIN_STRING, cap // 2)


def _capped(value: Any, cap: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= cap else value[: cap - 1] + "…"
    if isinstance(value, dict):
        return {k: _capped(v, cap) for k, v in value.items()}
    if isinstance(value, list):
        return [_capped(v, cap) for v in value]
    return value
