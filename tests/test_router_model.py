"""The router's learned reader: the shipped weights are what training on the retired splits
gives, names and numbers are read as placeholders, and the router asks the reader only about a
sentence its cue patterns do not read."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gitstrata.benchmarks import router_model as bench
from gitstrata.benchmarks.dataset import HELDOUT_SPLITS, SPLITS
from gitstrata.serve import router
from gitstrata.serve import router_model as rm


def test_shipped_weights_equal_a_fresh_training_run() -> None:
    shipped = rm.load(rm.WEIGHTS)
    assert shipped.splits == bench.TRAIN_SPLITS
    fresh = bench.fit()
    assert fresh.terms == shipped.terms
    np.testing.assert_allclose(shipped.weights, fresh.weights, rtol=0, atol=1e-6)
    np.testing.assert_allclose(shipped.bias, fresh.bias, rtol=0, atol=1e-6)


def test_the_newest_held_out_split_is_not_trained_on() -> None:
    assert set(bench.TRAIN_SPLITS) <= set(SPLITS)
    assert HELDOUT_SPLITS[-1] not in bench.TRAIN_SPLITS


def test_names_paths_and_numbers_are_placeholders() -> None:
    got = rm.words(
        "Why does charge_with_retry wait 30s in backend/payments/gateway.py for OrderDTO?"
    )
    assert got == ["why", "does", "<name>", "wait", "<num>", "in", "<path>", "for", "<name>"]
    assert rm.words("What calls main.go and api.conf") == [
        "what",
        "calls",
        "<path>",
        "and",
        "<path>",
    ]


def test_features_are_unique_and_mark_the_shape() -> None:
    feats = rm.features("what does it do? what does it do?", lookup=True)
    assert len(feats) == len(set(feats))
    assert {"w what", "p what does", "s what does", "m question", "m lookup"} <= set(feats)
    assert "m short" in rm.features("token refresh")


def test_a_model_saved_and_loaded_reads_the_same(tmp_path: Path) -> None:
    model = rm.train(
        [("why was the limit raised", False), ("what else changes with the schema", False)] * 2,
        ["causal", "coupled"] * 2,
        splits=("a", "b"),
        steps=50,
    )
    rm.save(model, tmp_path / "m.npz")
    back = rm.load(tmp_path / "m.npz")
    assert back.splits == ("a", "b") and back.terms == model.terms
    for text in ("why was the limit raised", "what else changes"):
        assert rm.ranked(back, text, False) == rm.ranked(model, text, False)
    assert rm.ranked(model, "why was the limit raised", False)[0][0] == "causal"


def test_probabilities_sum_to_one_and_an_unknown_text_gets_the_bias() -> None:
    model = rm.shipped()
    p = model.probabilities(rm.features("zzz qqq"))
    assert p.sum() == pytest.approx(1.0)
    assert model.probabilities([]) == pytest.approx(model.probabilities(["nothing known"]))


@pytest.mark.parametrize(
    "query",
    [
        "Why was the retry limit lowered to three?",  # a cue pattern reads it
        "token refresh",  # keywords: no cue, too short to read as a sentence
        "deps: proxy-addr@~1.0.5 and serve-static@~1.8.1",  # names and versions are no prose
    ],
)
def test_the_reader_is_not_asked_when_the_cues_decide(query: str) -> None:
    def reader(text: str, lookup: bool) -> list[tuple[str, float]]:
        raise AssertionError("the reader was asked")

    assert router._read(query, reader) == router._pick(query)


def test_a_sentence_no_cue_reads_gets_the_readers_class_when_it_is_sure() -> None:
    query = "Two tabs in one browser send the same coupon at once: do both get the discount?"
    assert router._pick(query) == ("general", None)
    asked = []

    def sure(text: str, lookup: bool) -> list[tuple[str, float]]:
        asked.append((text, lookup))
        return [("symptom", router.READ_PROBABILITY), ("behavioral", 0.2)]

    def unsure(text: str, lookup: bool) -> list[tuple[str, float]]:
        return [("symptom", router.READ_PROBABILITY - 0.01), ("behavioral", 0.3)]

    assert router._read(query, sure) == ("symptom", None)
    assert asked == [(query, False)]
    assert router._read(query, unsure) == ("general", None)
