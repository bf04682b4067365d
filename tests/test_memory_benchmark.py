"""The memory-recall benchmark's labelled set is what it says it is."""

from __future__ import annotations

import json
from collections import Counter

from gitstrata.benchmarks.memory_recall import DATA, KINDS
from gitstrata.serve.memory_rank import terms


def test_labelled_set_sizes_and_kinds() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    ids = [m["id"] for m in data["memories"]]
    assert len(ids) >= 40 and len(set(ids)) == len(ids)
    kinds = Counter(q["kind"] for q in data["queries"])
    assert sum(kinds.values()) >= 60 and set(kinds) == set(KINDS)
    assert all(q["answer"] in ids for q in data["queries"])


def test_paraphrases_share_no_term_with_their_memory() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    text = {m["id"]: m["text"] for m in data["memories"]}
    for q in data["queries"]:
        if q["kind"] == "paraphrase":
            shared = set(terms(q["q"])) & set(terms(text[q["answer"]]))
            assert not shared, (q["q"], shared)
