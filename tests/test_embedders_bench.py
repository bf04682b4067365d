"""The embedder ablation's report: its tables and its place in RESULTS.md."""

from __future__ import annotations

from pathlib import Path

from gitstrata.benchmarks.dataset import QUERY_CLASSES
from gitstrata.benchmarks.embedders import HEADING, VARIANTS, markdown, write_section


def _result() -> dict:
    cost = {"documents": 522, "embed_s_per_1k_docs": 4.25, "query_embed_ms_p50": 0.12}
    per = {c: 0.5 for c in QUERY_CLASSES}
    variants = {
        name: {
            "full": {"ndcg@5": 0.6771, "per_class_ndcg@5": per},
            "dense": {"ndcg@5": 0.5134},
            "cost": {**cost, "load_s": 0.3},
        }
        for name in VARIANTS
    }
    return {"split": "dev", "variants": variants, "real": {"click": {"wordllama": cost}}}


def test_only_the_dev_split_is_read() -> None:
    from gitstrata.benchmarks import embedders

    assert embedders.SPLIT == "dev"


def test_markdown_has_a_row_per_variant_and_corpus() -> None:
    text = markdown(_result())
    assert text.startswith(HEADING)
    for name in VARIANTS:
        assert f"| {name} | 0.677 | 0.513 |" in text
        assert f"| {name} | fixture | 522 | 4.250 | 0.1200 | 0.300 |" in text
    assert "| wordllama | click | 522 | 4.250 | 0.1200 | |" in text


def test_the_section_replaces_its_previous_version(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\n## Other\n\nkept\n")
    write_section(results, markdown(_result()))
    first = results.read_text()
    assert first.startswith("# Benchmark results\n\n## Other\n\nkept\n\n" + HEADING)
    results.write_text(first + "\n## After\n\nalso kept\n")
    write_section(results, HEADING + "\n\nnew numbers\n")
    text = results.read_text()
    assert text.count(HEADING) == 1 and "new numbers" in text and "0.677" not in text
    assert text.endswith("## After\n\nalso kept\n") and "## Other\n\nkept" in text
