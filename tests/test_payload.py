"""`payload.bound` sizes lists and fields from one encoding each: its cuts are those of sizing
every entry on its own, on any JSON-shaped answer."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gitstrata.serve.payload import LAST_TRIM, TRIM_ORDER, _cut_strings, bound
from gitstrata.serve.payload import _size as sized
from gitstrata.serve.render import truncation_note


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def reference(data: dict[str, Any], budget: int) -> dict[str, Any]:
    """The plain statement: every entry sized by its own encoding, dropped from the end."""
    limit = budget * 4
    total = _size(data)
    if total <= limit:
        return data
    out, counts, room = dict(data), {}, limit - 200
    for order, keep in ((TRIM_ORDER, 0), (LAST_TRIM, 1)):
        for field, what in order:
            items = out.get(field)
            if total <= room or not isinstance(items, list) or len(items) <= keep:
                continue
            kept = list(items)
            while len(kept) > keep and total > room:
                total -= _size(kept.pop()) + 1
                counts[what] = counts.get(what, 0) + 1
            out[field] = kept
    if total > room:
        out = _cut_strings(out, room)
        counts["long text"] = 1
    if counts:
        out["truncated"] = truncation_note(budget, counts, unit="item")
    return out


text = st.text(alphabet=st.characters(codec="utf-8"), max_size=120)
scalar = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), text)
entry = st.one_of(scalar, st.dictionaries(st.sampled_from(["a", "sha", "é"]), scalar, max_size=4))
fields = [f for f, _ in (*TRIM_ORDER, *LAST_TRIM)] + ["file", "message", "latency_ms"]
answer = st.dictionaries(
    st.sampled_from(fields), st.one_of(scalar, st.lists(entry, max_size=30)), max_size=len(fields)
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(scalar, st.integers(), st.floats(), st.lists(entry, max_size=5), entry))
def test_a_value_is_sized_as_the_encoder_writes_it(value: Any) -> None:
    assert sized(value) == _size(value)


@given(answer, st.sampled_from([60, 100, 250, 600, 1500]))
def test_bound_cuts_what_sizing_each_entry_cuts(data: dict[str, Any], budget: int) -> None:
    assert bound(data, budget) == reference(data, budget)


def test_bound_on_a_long_answer_keeps_the_first_warning_and_says_what_it_left_out() -> None:
    data = {
        "file": "a.py",
        "history": [{"subject": "x" * 300}] * 40,
        "warnings": [{"tried": "y" * 300}] * 5,
        "invariants": [],
    }
    got = bound(data, 200)
    assert got["history"] == [] and len(got["warnings"]) == 1
    assert got == reference(data, 200)
    assert "40 history entries" in got["truncated"] and "4 failure warnings" in got["truncated"]
    assert _size(got) <= 200 * 4
