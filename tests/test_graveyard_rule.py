"""The graveyard matching rule on hand-built cases (defaults of `GraveyardConfig`)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from gitstrata.serve.graveyard import (
    LOOKUP_WARN_PROBABILITY,
    NEARBY_CODE_EVIDENCE,
    RESEMBLANCE_BIAS,
    RESEMBLANCE_WEIGHTS,
    SAME_FILE_WEIGHT,
    WARN_PROBABILITY,
    WHY_EVIDENCE,
    FailureView,
    Intent,
    LazyFailureView,
    RetrievedItem,
    codes,
    evidence,
    fix_resemblance,
    identifiers,
    match_preflight,
    match_search,
    resemblance,
    stem,
    textual_score,
)
from gitstrata.store.config import GraveyardConfig

CFG = GraveyardConfig(commit_trigger_score=0.65)  # the reference rule; the shipped default is tuned
RETRY = ("backend/payments/retry.py", "charge_with_retry")
REFUND = ("backend/payments/retry.py", "refund")
GATEWAY = ("backend/payments/gateway.py", "Gateway.charge")


def idf(term: str) -> float:
    return {"idempotency": 3.0, "key": 1.0, "retry": 2.0, "uuid": 4.0}.get(term, 1.0)


def failure(
    fid, *targets, terms=(), vector=None, source="journal", idents=(), touched=(), location=()
) -> FailureView:
    return FailureView(
        fid,
        tuple(targets),
        Counter(terms),
        vector,
        source,
        frozenset(idents),
        touched=frozenset(touched),
        location=frozenset(location),
    )


def ids(warnings) -> list:
    return [w.failure_id for w in warnings]


def symbol(rank, target, score=0.5) -> RetrievedItem:
    return RetrievedItem("symbol", rank, score, *target)


def commit(rank, score, intent, *touched, bulk=False, sha="399d55665b", added=()) -> RetrievedItem:
    return RetrievedItem(
        "commit",
        rank,
        score,
        None,
        None,
        intent,
        tuple(touched),
        bulk,
        sha,
        added=frozenset(added),
    )


LINE = "return client.charge(order_id, amount_cents, idempotency_key=key)"
# a fix that added LINE to retry.py
FIXED = {"added": [("backend/payments/retry.py", LINE)]}
# an attempt noted "anything" resembles this query 1 / 5 = 0.2: above `min_evidence`, so an
# anchor of 0.3 or more makes it fire
ASKED = ["anything", "uuid"]
WEAK = ["anything"]


# ---------------------------------------------------------------- textual evidence


def test_textual_is_weighted_max_of_cosine_and_idf_coverage():
    f = failure(1, RETRY, terms=["idempotency", "key"], vector=np.array([1.0, 0.0]))
    # coverage = (3 + 1) / (3 + 1 + 4) = 0.5; cosine = 0.6
    score, reason = textual_score(
        ["idempotency", "key", "uuid", "key"], np.array([0.6, 0.8]), idf, f, CFG
    )
    assert score == pytest.approx(0.6 * 0.6)
    assert reason == "semantic similarity 0.60"
    score, reason = textual_score(["idempotency", "key", "uuid"], None, idf, f, CFG)
    assert score == pytest.approx(0.6 * 0.5)
    assert reason == "term overlap 50%"
    assert textual_score([], None, idf, f, CFG) == (0.0, None)


# ---------------------------------------------------------------- preflight


def test_same_symbol_boosts_a_related_intent_and_never_fires_alone():
    f = failure(2, RETRY, terms=["idempotency", "key", "retry"])
    [w] = match_preflight(*RETRY, ["idempotency", "key"], None, idf, [f], CFG)
    assert w.failure_id == 2
    assert w.score == pytest.approx(0.75 + 0.6)
    assert w.reasons == (
        "same symbol backend/payments/retry.py::charge_with_retry",
        "term overlap 100%",
    )
    # without an intended change, or with one the attempt does not resemble, the anchor is
    # history, not a warning
    assert match_preflight(*RETRY, [], None, idf, [f], CFG) == []
    assert match_preflight(*RETRY, ["uuid"], None, idf, [f], CFG) == []
    # a weak resemblance is enough for a failure an agent recorded on this very symbol:
    # coverage 1 / (1 + 4) = 0.2 is above `min_evidence`
    [w] = match_preflight(*RETRY, ["key", "uuid"], None, idf, [f], CFG)
    assert (w.structural, w.evidence) == (0.75, pytest.approx(0.2))


def test_same_file_and_file_level_fallback():
    module_level = failure(3, ("backend/payments/retry.py", None), terms=["retry"])
    [w] = match_preflight(*RETRY, ["retry"], None, idf, [module_level], CFG)
    assert (w.score, w.reasons) == (
        pytest.approx(0.5 + 0.6),
        ("same file backend/payments/retry.py", "term overlap 100%"),
    )
    # a preflight on a whole file anchors every failure in it at the file weight
    [w] = match_preflight(
        "backend/payments/retry.py",
        None,
        ["retry"],
        None,
        idf,
        [failure(4, REFUND, terms=["retry"])],
        CFG,
    )
    assert w.structural == 0.5


def test_sibling_weighs_025_and_needs_text():
    sibling = failure(5, REFUND, terms=["refund", "idempotency"])
    assert match_preflight(*RETRY, ["uuid"], None, idf, [sibling], CFG) == []
    # 0.25 + 0.6 x coverage(idempotency: 3 of 3 + 4) = 0.25 + 0.18 = 0.43
    [w] = match_preflight(*RETRY, ["idempotency", "uuid"], None, idf, [sibling], CFG)
    assert w.score == pytest.approx(0.25 + 0.6 * 3 / 7)
    assert (
        w.reasons[0]
        == "sibling backend/payments/retry.py::refund in the same file as charge_with_retry"
    )
    # the sibling weight exists only in preflight: a search retrieving RETRY does not anchor it
    assert match_search(["uuid"], None, idf, [symbol(1, RETRY)], [sibling], CFG) == []


def test_nested_symbols_count_as_the_same_symbol():
    method = failure(6, ("shop/cache.py", "TTLCache.set"), terms=["ttl"])
    [w] = match_preflight("shop/cache.py", "TTLCache", ["ttl"], None, idf, [method], CFG)
    assert w.structural == 0.75


def test_other_files_and_weak_text_stay_silent():
    elsewhere = failure(7, GATEWAY, terms=["timeout"])
    assert match_preflight(*RETRY, ["idempotency"], None, idf, [elsewhere], CFG) == []
    # text alone must reach 0.40: coverage 2/3 gives exactly 0.40 and fires, 1/3 does not
    texty = failure(8, GATEWAY, terms=["idempotency", "uuid"])
    [w] = match_preflight(
        *RETRY, ["idempotency", "uuid", "other"], None, lambda t: 1.0, [texty], CFG
    )
    assert (w.structural, w.score) == (0.0, pytest.approx(0.40))
    assert w.reasons == ("term overlap 67%",)
    weak = failure(9, GATEWAY, terms=["key"])
    assert (
        match_preflight(*RETRY, ["idempotency", "key", "retry"], None, lambda t: 1.0, [weak], CFG)
        == []
    )


def test_a_reverted_commit_needs_the_stricter_bar():
    journal = failure(30, RETRY, terms=["idempotency", "key"])
    revert = failure(31, RETRY, terms=["idempotency", "key"], source="revert")
    # coverage 3 / (3 + 4) = 0.43: enough for the recorded failure, not for the revert
    got = match_preflight(*RETRY, ["idempotency", "uuid"], None, idf, [journal, revert], CFG)
    assert ids(got) == [30]
    # the revert's own subject as the intended change clears it
    got = match_preflight(*RETRY, ["idempotency", "key"], None, idf, [journal, revert], CFG)
    assert ids(got) == [30, 31]


def test_identifiers_the_intent_names_are_evidence():
    assert identifiers("use shlex.quote in open_url and TTLCache; a plain word") == {
        "shlex.quote",
        "open_url",
        "ttlcache",
    }
    changed = identifiers("+    open_url(shlex.quote(x))")
    revert = failure(32, RETRY, source="revert", idents=changed)
    journal = failure(33, RETRY, idents=changed)
    both = Intent.of("call open_url with shlex.quote", ["call", "open_url", "shlex.quote"], None)
    got = match_preflight(*RETRY, both, None, idf, [revert], CFG)
    assert [(w.evidence, w.reasons[1]) for w in got] == [
        (1.0, "names open_url, shlex.quote, which it changed")
    ]
    # one shared name of two is a hint: 1/2 x 1/2 = 0.25, enough for a recorded failure only
    one = Intent.of("call open_url on a TTLCache", ["call", "open_url", "ttlcache"], None)
    got = match_preflight(*RETRY, one, None, idf, [revert, journal], CFG)
    assert [(w.failure_id, w.evidence) for w in got] == [(33, 0.25)]
    # prose alone names no identifier
    prose = Intent.of("call it", ["call"], None)
    assert match_preflight(*RETRY, prose, None, idf, [revert, journal], CFG) == []


def test_naming_the_changed_symbol_only_boosts():
    f = failure(34, RETRY, terms=["uuid"])
    named = Intent.of("make charge_with_retry log", ["make", "charge_with_retry", "log"], None)
    assert match_preflight(*RETRY, named, None, idf, [f], CFG) == []
    both = Intent.of(
        "make charge_with_retry use a uuid", ["make", "charge_with_retry", "uuid"], None
    )
    [w] = match_preflight(*RETRY, both, None, idf, [f], CFG)
    # coverage 4 / (1 + 1 + 4), plus the named symbol
    assert w.evidence == pytest.approx(4 / 6 + CFG.named_symbol_evidence)
    assert w.reasons[-1] == "the change names charge_with_retry, a symbol it changed"


# ---------------------------------------------------------------- results as anchors
# (a preflight of another file: only the results anchor the attempt, as a boost)

ELSEWHERE = ("backend/other.py", None)


def anchored(query, retrieved, failures, cfg=CFG) -> list:
    return match_preflight(*ELSEWHERE, query, None, idf, failures, cfg, retrieved=retrieved)


def test_retrieved_in_top3_anchors_03():
    f = failure(10, RETRY, terms=["idempotency"])
    hits = [symbol(1, GATEWAY, 0.9), symbol(3, RETRY, 0.8)]
    # 0.3 + 0.6 x coverage 3/(3+1) = 0.75
    [w] = anchored(["idempotency", "key"], hits, [f])
    assert w.score == pytest.approx(0.3 + 0.6 * 0.75)
    assert (
        w.reasons[0] == "targets backend/payments/retry.py::charge_with_retry, retrieved at rank 3"
    )
    # rank 4 is not "retrieved" for anchoring: the text alone is left (0.45)
    [w] = anchored(["idempotency", "key"], [symbol(4, RETRY)], [f])
    assert (w.structural, w.score) == (0.0, pytest.approx(0.6 * 0.75))
    # a preflight of its own function has its target as the anchor
    [w] = match_preflight(*RETRY, ["idempotency", "key"], None, idf, [f], CFG)
    assert w.structural == 0.75


def test_below_threshold():
    f = failure(11, RETRY, terms=["key"])
    # 0.3 + 0.6 x 1/(1+3+4) = 0.375 < 0.40
    assert anchored(["key", "idempotency", "uuid"], [symbol(1, RETRY)], [f]) == []


def test_symbol_anchoring_is_exact_but_file_level_failures_fall_back():
    named = failure(12, REFUND, terms=["refund"])
    module_level = failure(13, ("backend/payments/retry.py", None), terms=["refund"])
    got = anchored(["refund", "key"], [symbol(1, RETRY)], [named, module_level])
    # coverage 1/2 -> textual 0.3 for both; only the file-level failure gets the 0.3 anchor
    assert ids(got) == [13]
    assert got[0].score == pytest.approx(0.3 + 0.3)


def test_trigger_by_rank1_bugfix_whose_lines_the_attempt_changed():
    f = failure(14, RETRY, touched=[LINE], terms=WEAK)
    retrieved = [commit(1, 0.50, "bugfix", RETRY, GATEWAY, **FIXED), symbol(2, GATEWAY)]
    [w] = anchored(ASKED, retrieved, [f])
    assert w.score == pytest.approx(0.40 + 0.6 * 0.2)
    assert w.reasons == (
        "bugfix commit 399d55665b (rank 1, score 0.50) added lines it changed in "
        "backend/payments/retry.py::charge_with_retry",
        "term overlap 20%",
    )
    # the same commit with a non-load-bearing intent is not a trigger (and fails the gate: RETRY
    # is not among the code hits)
    retrieved = [commit(1, 0.50, "feature", RETRY, GATEWAY, **FIXED), symbol(2, GATEWAY)]
    assert anchored(ASKED, retrieved, [f]) == []


def test_trigger_by_score_above_065():
    f = failure(15, RETRY, touched=[LINE], terms=WEAK)
    retrieved = [symbol(1, GATEWAY, 0.9), commit(2, 0.70, "revert", RETRY, **FIXED)]
    [w] = anchored(ASKED, retrieved, [f])
    assert w.score == pytest.approx(0.40 + 0.6 * 0.2)
    low = [symbol(1, GATEWAY, 0.9), commit(2, 0.60, "security", RETRY, **FIXED)]
    assert anchored(ASKED, low, [f]) == []
    off = GraveyardConfig(commit_trigger_rank1=False)
    assert anchored(ASKED, [commit(1, 0.5, "bugfix", RETRY, **FIXED)], [f], off) == []


def test_trigger_anchors_file_level_failures_of_touched_files():
    f = failure(16, ("backend/payments/retry.py", None), touched=[LINE], terms=WEAK)
    [w] = anchored(ASKED, [commit(1, 0.5, "bugfix", RETRY, **FIXED)], [f])
    assert w.score == pytest.approx(0.40 + 0.6 * 0.2)


def gated(commit_item, code_hits) -> list:
    f = failure(17, RETRY, terms=["idempotency"])
    # textual: 0.6 x 3/(3+4) = 0.257 < 0.40, so only a 0.3 anchor makes it fire
    return anchored(["idempotency", "uuid"], [*code_hits, commit_item], [f])


TOP = [symbol(1, GATEWAY, 0.80), symbol(2, ("a.py", "x"), 0.7), symbol(3, ("b.py", "y"), 0.6)]


def test_gate_passes():
    got = gated(commit(4, 0.75, "feature", RETRY, sha="abc1234567"), [*TOP, symbol(5, RETRY, 0.5)])
    [w] = got
    assert w.score == pytest.approx(0.3 + 0.6 * 3 / 7)
    assert w.reasons[0] == (
        "feature commit abc1234567 (rank 4) passed the relevance gate and modified "
        "backend/payments/retry.py::charge_with_retry, a top-5 code hit"
    )


def test_gate_fails_on_score_ratio():
    # 0.71 < 0.9 x 0.80
    assert gated(commit(4, 0.71, "feature", RETRY), [*TOP, symbol(5, RETRY, 0.5)]) == []


def test_gate_fails_on_bulk_commits():
    many = [("x.py", f"f{i}") for i in range(8)]
    assert gated(commit(4, 0.75, "feature", RETRY, *many), [*TOP, symbol(5, RETRY)]) == []
    assert gated(commit(4, 0.75, "feature", RETRY, bulk=True), [*TOP, symbol(5, RETRY)]) == []
    # eight symbols is not yet bulk
    assert ids(gated(commit(4, 0.75, "feature", RETRY, *many[:7]), [*TOP, symbol(5, RETRY)])) == [
        17
    ]


def test_gate_fails_when_the_function_is_not_a_top5_code_hit():
    assert gated(commit(4, 0.75, "feature", RETRY), [*TOP, symbol(6, RETRY)]) == []
    assert gated(commit(4, 0.75, "feature", RETRY), TOP) == []


def test_gating_off_anchors_any_top3_commit():
    off = GraveyardConfig(commit_gating=False)
    f = failure(18, RETRY, terms=["idempotency"])
    retrieved = [symbol(1, GATEWAY, 0.9), commit(2, 0.3, "feature", RETRY)]
    [w] = anchored(["idempotency", "uuid"], retrieved, [f], off)
    assert w.structural == 0.3


def test_strongest_anchor_wins_and_order_is_by_score():
    strong = failure(19, RETRY, terms=["idempotency"])
    weak = failure(20, GATEWAY, terms=["idempotency"])
    retrieved = [commit(1, 0.5, "bugfix", RETRY), symbol(2, RETRY), symbol(3, GATEWAY)]
    got = anchored(["idempotency"], retrieved, [weak, strong])
    assert ids(got) == [19, 20]
    assert got[0].structural == 0.40 and got[1].structural == 0.3
    assert got[0].score == pytest.approx(1.0) and got[1].score == pytest.approx(0.9)


def test_preflight_also_uses_retrieved_results():
    f = failure(21, GATEWAY, terms=["key"])
    retrieved = [commit(1, 0.5, "bugfix", GATEWAY)]
    # 0.40 + 0.6 x coverage 1 / (1 + 3) = 0.55
    [w] = match_preflight(*RETRY, ["key", "idempotency"], None, idf, [f], CFG, retrieved=retrieved)
    assert w.score == pytest.approx(0.40 + 0.6 * 0.25)
    # in a preflight the results only boost: with no resemblance nothing fires
    assert match_preflight(*RETRY, ["uuid"], None, idf, [f], CFG, retrieved=retrieved) == []


# ---------------------------------------------------------------- search: a revert


def test_in_a_search_a_revert_needs_an_anchor_and_the_strict_bar():
    revert = failure(22, GATEWAY, source="revert", terms=["idempotency", "key"])
    # resembling the query perfectly, with no result pointing at it: no warning
    assert match_search(["idempotency", "key"], None, idf, [symbol(1, RETRY)], [revert], CFG) == []
    [w] = match_search(["idempotency", "key"], None, idf, [symbol(1, GATEWAY)], [revert], CFG)
    assert (w.structural, w.evidence) == (0.3, pytest.approx(1.0))
    # an anchor with resemblance under `revert_min_evidence` (coverage 4 / 10) is none
    query = ["idempotency", "key", "uuid", "retry"]
    assert match_search(query, None, idf, [symbol(1, GATEWAY)], [revert], CFG) == []


def test_in_a_search_a_reverts_anchors_are_its_code_its_files_chunks_and_its_changed_symbols():
    f = failure(50, RETRY, source="revert", terms=["idempotency"])
    module = symbol(1, ("backend/payments/retry.py", None))
    # another chunk of its file: the weaker anchor, SAME_FILE_WEIGHT
    [w] = match_search(["idempotency"], None, idf, [module], [f], CFG)
    assert w.structural == SAME_FILE_WEIGHT
    assert w.reasons[0] == (
        "backend/payments/retry.py, in the file of backend/payments/retry.py::charge_with_retry, "
        "retrieved at rank 1"
    )
    method = failure(51, ("shop/cache.py", "TTLCache.get"), source="revert", terms=["idempotency"])
    for chunk in (("shop/cache.py", "TTLCache"), ("shop/cache.py", "TTLCache.set")):
        [w] = match_search(["idempotency"], None, idf, [symbol(1, chunk)], [method], CFG)
        assert w.structural == SAME_FILE_WEIGHT
    # below the top `context_top`, or in another file, it is no anchor
    deep = [symbol(i, ("a.py", f"f{i}")) for i in (1, 2, 3)] + [symbol(4, ("shop/cache.py", None))]
    assert match_search(["idempotency"], None, idf, deep, [method], CFG) == []
    other = symbol(1, ("backend/payments/gateway.py", None))
    assert match_search(["idempotency"], None, idf, [other], [f], CFG) == []
    # a preflight's results are retrieved for the target: the chunk anchors nothing there
    assert match_preflight(*GATEWAY, ["uuid"], None, idf, [f], CFG, retrieved=[module]) == []
    # the symbols its diff changed anchor it like its targets
    decode = ("backend/api/orders.py", "decode_cursor")
    encode = ("backend/api/orders.py", "encode_cursor")
    g = FailureView(
        52, (encode,), Counter(["cursor", "timestamp"]), source="revert", changed=(decode,)
    )
    found = [symbol(2, decode)]
    assert ids(match_search(["cursor", "timestamp"], None, idf, found, [g], CFG)) == [52]
    assert match_search(["sku"], None, idf, found, [g], CFG) == []
    [w] = match_preflight(*decode, ["cursor", "timestamp"], None, idf, [g], CFG)
    assert w.structural == CFG.same_symbol


# ---------------------------------------------------------------- search: a recorded attempt


def _p(features: dict[str, float]) -> float:
    z = RESEMBLANCE_BIAS + sum(RESEMBLANCE_WEIGHTS[k] * v for k, v in features.items())
    return 1 / (1 + math.exp(-z))


def _zeros(**kw) -> dict[str, float]:
    return {k: 0.0 for k in RESEMBLANCE_WEIGHTS} | kw


UNIT = np.array([1.0, 0.0])
ORTHO = np.array([0.0, 1.0])


def test_a_recorded_attempt_warns_on_its_calibrated_resemblance():
    f = FailureView(40, (RETRY,), Counter(["idempotency", "key"]), UNIT, touched=frozenset([LINE]))
    query = Intent(["idempotency", "key"], UNIT)
    found = [symbol(1, RETRY)]
    [w] = match_search(query, None, idf, found, [f], CFG)
    # cosine 1, coverage 1, a lead of 1 (no other attempt), its function at rank 1 (also a chunk
    # of its file)
    want = _p(_zeros(cosine=1.0, coverage=1.0, cosine_lead=1.0, code_top=1.0, file_top=1.0))
    assert w.score == pytest.approx(want)
    assert (
        w.reasons[0] == "targets backend/payments/retry.py::charge_with_retry, retrieved at rank 1"
    )
    # nothing has to be retrieved when the question resembles it this closely
    [w] = match_search(query, None, idf, [], [f], CFG)
    assert w.score == pytest.approx(_p(_zeros(cosine=1.0, coverage=1.0, cosine_lead=1.0)))
    assert w.score >= WARN_PROBABILITY


def test_for_a_recorded_attempt_anchors_alone_never_fire():
    f = FailureView(41, (RETRY,), Counter(["idempotency", "key"]), UNIT, touched=frozenset([LINE]))
    # its function, its file and the fix it would undo all at the top; the question shares nothing
    found = [commit(1, 1.0, "bugfix", RETRY, **FIXED), symbol(2, RETRY)]
    assert match_search(Intent(["sku"], ORTHO), None, idf, found, [f], CFG) == []
    [(p, m)] = resemblance(Intent(["sku"], ORTHO), idf, found, [f], CFG)
    assert m.undoes is not None and m.code is not None and m.file is not None
    assert p == pytest.approx(_p(_zeros(undoes_top=1.0, code_top=1.0, file_top=1.0)))
    assert p < WARN_PROBABILITY


def test_the_question_is_about_the_recorded_attempt_it_resembles_most():
    one = FailureView(42, (RETRY,), vector=UNIT)
    twin = FailureView(43, (GATEWAY,), vector=UNIT)
    query = Intent([], UNIT)
    # alone, a cosine of 1 leads by 1 and warns; two attempts alike lead by nothing
    assert ids(match_search(query, None, idf, [], [one], CFG)) == [42]
    assert match_search(query, None, idf, [], [one, twin], CFG) == []
    # the same for the fix it would undo: the query's vector against that fix's messages
    fix_one = FailureView(44, (RETRY,), vector=ORTHO, why_vector=UNIT)
    fix_twin = FailureView(45, (GATEWAY,), vector=ORTHO, why_vector=UNIT)
    [w] = match_search(query, None, idf, [], [fix_one], CFG)
    assert w.score == pytest.approx(_p(_zeros(fix_cosine=1.0, fix_lead=1.0)))
    assert "resembles the fix it would undo (similarity 1.00, 0% of the terms)" in w.reasons
    assert match_search(query, None, idf, [], [fix_one, fix_twin], CFG) == []


def test_a_question_stating_no_intended_change_needs_a_closer_resemblance():
    # a record sharing the query's terms, at a cosine that puts it between the two bars
    c = (-math.log(1 / 0.425 - 1) - RESEMBLANCE_BIAS - RESEMBLANCE_WEIGHTS["coverage"]) / (
        RESEMBLANCE_WEIGHTS["cosine"] + RESEMBLANCE_WEIGHTS["cosine_lead"]
    )
    f = FailureView(
        46, (RETRY,), Counter(["idempotency", "key"]), np.array([c, math.sqrt(1 - c * c)])
    )
    terms = ["idempotency", "key"]
    change = Intent.of("Raise the idempotency key lifetime to two days", terms, UNIT)
    lookup = Intent.of("Where is the idempotency key derived?", terms, UNIT)
    assert change.changes and not lookup.changes
    [(p, _)] = resemblance(change, idf, [], [f], CFG)
    assert WARN_PROBABILITY <= p < LOOKUP_WARN_PROBABILITY
    assert resemblance(lookup, idf, [], [f], CFG)[0][0] == pytest.approx(p)  # the same evidence
    assert ids(match_search(change, None, idf, [], [f], CFG)) == [46]
    assert match_search(lookup, None, idf, [], [f], CFG) == []


def test_a_bare_lookup_warns_only_for_an_attempt_whose_record_names_it():
    # the record holds "idempotency" (3 of the 4 IDF weight of the lookup's terms); it and the fix
    # it undoes are at a cosine of 1: the resemblance is far above either bar
    f = FailureView(47, (RETRY,), Counter(["uuid", "idempotency"]), UNIT, why_vector=UNIT)
    named = Intent.of("idempotency_key", ["idempotency", "key"], UNIT)
    unnamed = Intent.of("GatewayTimeout", ["gateway", "timeout"], UNIT)
    assert named.lookup and unnamed.lookup
    assert resemblance(unnamed, idf, [], [f], CFG)[0][0] >= LOOKUP_WARN_PROBABILITY
    assert ids(match_search(named, None, idf, [], [f], CFG)) == [47]
    assert match_search(unnamed, None, idf, [], [f], CFG) == []
    # the same words in a question are prose: the calibrated resemblance decides
    asked = Intent.of(
        "Why does the gateway timeout make the retry loop run again?", ["gateway", "timeout"], UNIT
    )
    assert not asked.lookup
    assert ids(match_search(asked, None, idf, [], [f], CFG)) == [47]


def test_in_a_search_words_naming_the_attempts_place_are_no_resemblance():
    f = failure(30, GATEWAY, terms=["gateway", "uuid"], location=["gateway"])
    [(_, m)] = resemblance(Intent(["gateway"], None), idf, [], [f], CFG)
    assert m.coverage == 0.0
    [(_, m)] = resemblance(Intent(["gateway", "uuid"], None), idf, [], [f], CFG)
    assert m.coverage == pytest.approx(1.0)  # "uuid" is all the query says beyond the place
    # a preflight's intended change names no place: its words all count
    [w] = match_preflight(*GATEWAY, ["gateway"], None, idf, [f], CFG)
    assert w.evidence == pytest.approx(1.0)


# ---------------------------------------------------------------- what the attempt would undo


def test_codes_names_incident_ids_error_codes_and_constants_only():
    assert codes("Why INC-2566? ERR_QUEUE_FULL, MAX_RETRIES and res.send, HTTP 504") == {
        "inc-2566",
        "err_queue_full",
        "max_retries",
    }
    assert codes("the lock-free read path in TTLCache.get") == frozenset()


def test_a_search_naming_a_code_the_attempt_or_its_fix_names_counts_as_resemblance():
    # the attempt's record never names the incident; the fix whose lines it changed does
    f = FailureView(40, (RETRY,), Counter(["semaphore"]), why_terms={"inc-2566"})
    query = Intent(["inc-2566", "inc", "2566"], None, codes=frozenset({"inc-2566"}))
    [(_, m)] = resemblance(query, idf, [], [f], CFG)
    assert m.codes == 1.0 and m.codes_reason == "names inc-2566, as its record or the fix it undoes"
    other = Intent(["inc-2655"], None, codes=frozenset({"inc-2655"}))
    assert resemblance(other, idf, [], [f], CFG)[0][1].codes == 0.0
    # a code that only stands next to the lines it changed is half that evidence
    decode = ("backend/api/orders.py", "decode_cursor")
    g = FailureView(
        53, (decode,), Counter(["cursor"]), nearby_codes=frozenset({"err_invalid_cursor"})
    )
    named = Intent.of(
        "ERR_INVALID_CURSOR", ["err_invalid_cursor", "err", "invalid", "cursor"], None
    )
    [(_, m)] = resemblance(named, idf, [], [g], CFG)
    assert m.codes == NEARBY_CODE_EVIDENCE and "next to the lines it changed" in (
        m.codes_reason or ""
    )


def test_stem_folds_word_forms_of_prose_but_leaves_identifiers_and_numbers():
    assert {stem(w) for w in ("records", "record")} == {"record"}
    assert {stem(w) for w in ("expired", "expire", "expires")} == {"expir"}
    assert {stem(w) for w in ("running", "runs", "run")} == {"run"}
    assert stem("queries") == stem("query")
    assert [stem(w) for w in ("status", "access", "max_retries", "2566", "uuid4")] == [
        "status",
        "access",
        "max_retries",
        "2566",
        "uuid4",
    ]


def _undoing(fid, target, why_terms, **kw) -> FailureView:
    return FailureView(
        fid,
        (target,),
        Counter(["unrelated"]),
        why_terms=why_terms,
        **kw,
    )


def test_a_query_like_the_fix_an_attempt_undoes_is_evidence_for_the_closest_fix_only():
    """The attempt's notes say nothing the question says; the fix it would undo does."""
    keep = _undoing(50, RETRY, {"keep", "idempotency", "record", "48", "hours"})
    query = Intent(["how", "long", "records", "keeps"], None)
    fix, reason = fix_resemblance(query, idf, keep, CFG)
    assert fix == pytest.approx(0.5) and "fix it would undo" in (reason or "")
    amount, reasons = evidence(query, idf, keep, CFG)
    assert amount == pytest.approx(WHY_EVIDENCE * fix) and "fix it would undo" in reasons[0]
    # with another attempt whose fix the query resembles much more, this one's fix is no evidence
    assert evidence(query, idf, keep, CFG, fix_best=1.0)[0] == 0.0
    # with an anchor it fires; the anchor alone does not
    [w] = match_preflight(*RETRY, query, None, idf, [keep], CFG)
    assert w.failure_id == 50
    assert match_preflight(*RETRY, Intent(["sku"], None), None, idf, [keep], CFG) == []
    # naming the place is the anchor, not resemblance, however often the fix's message names it
    placed = _undoing(
        54, RETRY, {"charge_with_retry", "idempotency"}, location=frozenset({"charge_with_retry"})
    )
    assert fix_resemblance(Intent(["charge_with_retry"], None), idf, placed, CFG)[0] == 0.0
    # a reverted commit mined from git is its own fix: no second chance through its message
    revert = _undoing(51, RETRY, {"keep", "idempotency", "record", "48", "hours"}, source="revert")
    assert fix_resemblance(query, idf, revert, CFG) == (0.0, None)


def test_what_a_preflight_question_kept_per_failure_answers_as_a_fresh_match_does():
    """`match_preflight` with `kept`: failures seen before reuse their match, a warning is decided
    again when the best fix resemblance moves (an attempt undoing a closer fix comes or goes),
    and every answer equals a match from nothing."""
    intent = Intent.of("Change the idempotency key on every retry", ["idempotency", "key"], UNIT)

    def view(fid: int, angle: float, terms: tuple[str, ...]) -> FailureView:
        # unlike the change itself; its fix at `angle` from it
        fix = np.array([math.cos(angle), math.sin(angle)])
        return FailureView(
            fid, (RETRY,), Counter(terms), vector=ORTHO, why_terms={"cap"}, why_vector=fix
        )

    pool = [
        view(1, 1.2, ()),
        view(2, 0.9, ("key",)),
        view(3, 0.45, ("idempotency",)),
        view(4, 0.05, ()),
        view(5, 0.7, ("retry", "key")),
    ]
    steps = [pool[:2], pool[:3], pool[:4], pool[1:3], pool[:3], pool[1:], [pool[4], pool[0]]]
    kept: dict = {}
    answers = []
    for views in steps:
        got = match_preflight(RETRY[0], RETRY[1], intent, None, idf, views, CFG, (), kept)
        assert got == match_preflight(RETRY[0], RETRY[1], intent, None, idf, views, CFG)
        assert set(kept) == {id(v) for v in views}  # the failures gone are dropped
        answers.append(got)
    assert len({repr(a) for a in answers}) >= 3


def test_a_lazy_reverts_text_is_made_only_when_a_question_is_anchored_to_it():
    made: list[int] = []

    def lazy(fid, target, terms, idents=()) -> LazyFailureView:
        def make():
            made.append(fid)
            return Counter(terms), None, frozenset(idents)

        return LazyFailureView(fid, (target,), make)

    changed = identifiers("+    open_url(shlex.quote(x))")
    cases = [
        (22, GATEWAY, ["idempotency", "key"], ()),
        (32, RETRY, [], changed),
        (50, REFUND, ["idempotency"], ()),
    ]
    eager = [
        failure(fid, t, terms=terms, source="revert", idents=ids_) for fid, t, terms, ids_ in cases
    ]
    named = Intent.of("call open_url with shlex.quote", ["call", "open_url", "shlex.quote"], None)
    questions = [
        lambda views: match_search(
            ["idempotency", "key"], None, idf, [symbol(1, GATEWAY)], views, CFG
        ),
        lambda views: match_search(["idempotency"], None, idf, [symbol(1, RETRY)], views, CFG),
        lambda views: match_preflight(*RETRY, named, None, idf, views, CFG),
        lambda views: match_preflight(*GATEWAY, ["idempotency", "key"], None, idf, views, CFG),
    ]
    for ask in questions:
        views = [lazy(*case) for case in cases]
        made.clear()
        assert ask(views) == ask(eager)
        # only the reverts the question is anchored to were read (the target's file, or a result)
        assert set(made) <= {22, 32, 50} and len(made) < len(cases)
    view = lazy(*cases[1])
    assert (view.vector, view.identifiers, view.text_terms) == (None, changed, Counter())
    assert view.strict and made.count(32) >= 1
    made.clear()
    assert view.identifiers == changed and made == []  # made once, then plain attributes


def test_vectors_normalised_together_are_the_numbers_each_view_gives_alone() -> None:
    """`prime_units` fills `unit_vector` and `unit_why` for a journal's views in one pass: bit
    for bit what each view's own `_unit` gives (zero and missing vectors included), and views
    made lazily keep making theirs when first read."""
    from gitstrata.serve.graveyard import _unit, prime_units

    rng = np.random.default_rng(7)

    def vec(i: int) -> np.ndarray | None:
        if i % 5 == 0:
            return None
        return (rng.standard_normal(64) * (i % 4)).astype(np.float32)  # every fourth is zero

    views = [
        FailureView(i, (("a.py", "f"),), vector=vec(i), why_vector=vec(i + 1)) for i in range(40)
    ]
    made: list[int] = []
    lazy = LazyFailureView(
        "revert:abc", (("a.py", "f"),), lambda: (made.append(1) or Counter(), None, frozenset())
    )
    want = [(_unit(v.vector), _unit(v.why_vector)) for v in views]
    prime_units([*views, lazy])
    assert not made and "unit_vector" not in lazy.__dict__
    for v, (unit, why) in zip(views, want, strict=True):
        assert "unit_vector" in v.__dict__ or v.vector is None
        for got, ref in ((v.unit_vector, unit), (v.unit_why, why)):
            assert (got is None) == (ref is None)
            if ref is not None:
                assert np.array_equal(got, ref)
