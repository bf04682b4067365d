"""Property tests: the team file round-trips byte for byte; the fold never loses an add."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gitstrata.store.memory import KINDS, STATUSES, Anchor, Memory, fold
from gitstrata.store.memory_team import dumps, parse

texts = st.text(min_size=1, max_size=200).filter(lambda t: t.strip() and t == t.strip())
tags = st.lists(st.from_regex(r"[a-z][a-z0-9_.:/-]{0,10}", fullmatch=True), max_size=4)
anchors = st.lists(
    st.builds(
        Anchor,
        path=st.from_regex(r"[a-z]{1,5}(/[a-z]{1,5}){0,2}\.py", fullmatch=True),
        symbol=st.one_of(st.none(), st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)),
        hash=st.one_of(st.none(), st.from_regex(r"[0-9a-f]{16}", fullmatch=True)),
    ),
    max_size=3,
)
memories = st.builds(
    Memory,
    id=st.from_regex(r"m[0-9a-f]{10}", fullmatch=True),
    kind=st.sampled_from(KINDS),
    text=texts,
    importance=st.sampled_from([0.0, 0.2, 0.5, 0.75, 1.0]),
    status=st.sampled_from(STATUSES),
    tags=tags.map(tuple),
    anchors=anchors.map(tuple),
    created=st.just("2026-01-01T00:00:00Z"),
    updated=st.sampled_from(["2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"]),
    shared=st.just(True),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(memories, max_size=8))
def test_team_file_round_trip_is_byte_stable(mems: list[Memory]) -> None:
    text = dumps(mems)
    again, warnings = parse(text)
    assert warnings == []
    assert dumps(again) == text
    assert len(again) == len({m.id for m in mems})
    ids = [json.loads(line)["id"] for line in text.split("\n") if line]
    assert ids == sorted(set(ids))  # one line per memory, sorted by id


@settings(max_examples=40, deadline=None)
@given(st.lists(memories, min_size=1, max_size=6, unique_by=lambda m: m.id))
def test_fold_keeps_every_add(mems: list[Memory]) -> None:
    recs = [
        {"op": "add", "mid": m.id, "kind": m.kind, "text": m.text, "importance": m.importance,
         "status": m.status, "tags": list(m.tags), "anchors": [a.to_dict() for a in m.anchors],
         "ts": "2026-01-01T00:00:00Z"}
        for m in mems
    ]  # fmt: skip
    got, warnings = fold(recs)
    assert warnings == [] and set(got) == {m.id for m in mems}
