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


def test_indexed_recall_is_measured_through_the_index(tmp_path) -> None:
    """The index mode recalls from memories folded into the index (the benchmark refuses to
    report otherwise), on a slice of the set: a few memories and their exact queries."""
    from gitstrata.benchmarks.memory_recall import recall_benchmark

    data = json.loads(DATA.read_text(encoding="utf-8"))
    keep = {m["id"] for m in data["memories"][:6]}
    part = {
        **data,
        "memories": [m for m in data["memories"] if m["id"] in keep],
        "queries": [q for q in data["queries"] if q["answer"] in keep and q["kind"] == "exact"],
    }
    assert part["queries"]
    got = recall_benchmark(tmp_path, part, "hashing-lsa")
    assert (got["index"], got["indexed_memories"]) == ("hashing-lsa", 6)
    row = next(r for r in got["table"] if r["kind"] == "exact" and r["mode"] == "hybrid")
    assert row["queries"] == len(part["queries"]) and row["recall@1"] == 1.0
    # beside a full search, each exact question shows its memory
    side = {r["kind"]: r for r in got["beside_search"]}
    assert side["exact"]["answer_shown"] == side["exact"]["queries"] == len(part["queries"])
