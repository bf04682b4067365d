"""The graveyard matching rule on hand-built cases (defaults of `GraveyardConfig`)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from gitstrata.serve.graveyard import (
    NEARBY_CODE_EVIDENCE,
    SAME_FILE_WEIGHT,
    WHY_EVIDENCE,
    FailureView,
    Intent,
    RetrievedItem,
    codes,
    evidence,
    fix_resemblance,
    identifiers,
    match_preflight,
    match_search,
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


def commit(
    rank, score, intent, *touched, bulk=False, sha="399d55665b", added=(), about=()
) -> RetrievedItem:
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
        about=frozenset(about),
    )


LINE = "return client.charge(order_id, amount_cents, idempotency_key=key)"
# a fix that added LINE to retry.py, about "anything" and "uuid"
FIXED = {"added": [("backend/payments/retry.py", LINE)], "about": ["anything", "uuid"]}
# a query about what that fix was about; an attempt noted "anything" resembles it 1 / 5 = 0.2:
# above `min_evidence`, below `search_min_evidence`, so only a fix vouching for it makes it fire
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


# ---------------------------------------------------------------- search: retrieved symbols


def test_retrieved_in_top3_anchors_03():
    f = failure(10, RETRY, terms=["idempotency"])
    hits = [symbol(1, GATEWAY, 0.9), symbol(3, RETRY, 0.8)]
    # 0.3 + 0.6 x coverage 3/(3+1) = 0.75
    [w] = match_search(["idempotency", "key"], None, idf, hits, [f], CFG)
    assert w.score == pytest.approx(0.3 + 0.6 * 0.75)
    assert (
        w.reasons[0] == "targets backend/payments/retry.py::charge_with_retry, retrieved at rank 3"
    )
    # rank 4 is not "retrieved" for anchoring; in a search the text alone (0.45) does not fire:
    # nothing the query found points at the attempt
    assert match_search(["idempotency", "key"], None, idf, [symbol(4, RETRY)], [f], CFG) == []
    # a preflight has its target as the anchor, and the same text fires there
    [w] = match_preflight(*RETRY, ["idempotency", "key"], None, idf, [f], CFG)
    assert w.structural == 0.75


def test_below_threshold():
    f = failure(11, RETRY, terms=["key"])
    # 0.3 + 0.6 x 1/(1+3+4) = 0.375 < 0.40
    assert (
        match_search(["key", "idempotency", "uuid"], None, idf, [symbol(1, RETRY)], [f], CFG) == []
    )


def test_symbol_anchoring_is_exact_but_file_level_failures_fall_back():
    named = failure(12, REFUND, terms=["refund"])
    module_level = failure(13, ("backend/payments/retry.py", None), terms=["refund"])
    hits = [symbol(1, RETRY)]
    got = match_search(["refund", "key"], None, idf, hits, [named, module_level], CFG)
    # coverage 1/2 -> textual 0.3 for both; only the file-level failure gets the 0.3 anchor, the
    # other function of the file only the weaker anchor of a chunk beside it
    assert ids(got) == [13, 12]
    assert got[0].score == pytest.approx(0.3 + 0.3)
    assert got[1].structural == SAME_FILE_WEIGHT


# ---------------------------------------------------------------- search: commits


def test_trigger_by_rank1_bugfix_whose_lines_the_attempt_changed():
    f = failure(14, RETRY, touched=[LINE], terms=WEAK)
    retrieved = [commit(1, 0.50, "bugfix", RETRY, GATEWAY, **FIXED), symbol(2, GATEWAY)]
    [w] = match_search(ASKED, None, idf, retrieved, [f], CFG)
    assert w.score == pytest.approx(0.40 + 0.6 * 0.2)
    assert w.reasons == (
        "bugfix commit 399d55665b (rank 1, score 0.50) added lines it changed in "
        "backend/payments/retry.py::charge_with_retry",
        "term overlap 20%",
    )
    # the same commit with a non-load-bearing intent is not a trigger (and fails the gate: RETRY
    # is not among the code hits)
    retrieved = [commit(1, 0.50, "feature", RETRY, GATEWAY, **FIXED), symbol(2, GATEWAY)]
    assert match_search(ASKED, None, idf, retrieved, [f], CFG) == []


def test_a_fix_vouches_only_for_an_attempt_that_undoes_it_and_only_when_the_query_is_about_it():
    undoes = failure(14, RETRY, touched=[LINE], terms=WEAK)
    elsewhere = failure(15, RETRY, touched=["max_attempts = 4"], terms=WEAK)
    fix = commit(1, 0.50, "bugfix", RETRY, **FIXED)
    # the attempt changed other lines of the function: the fix only says where it was made
    assert ids(match_search(ASKED, None, idf, [fix], [undoes, elsewhere], CFG)) == [14]
    # the query is not about what the fix was about (it covers 1 / 5 < 0.3): no vouching either
    assert match_search(["anything", "retry", "key", "sku"], None, idf, [fix], [undoes], CFG) == []
    # query terms that only name the attempt's place do not make it about the fix
    placed = failure(16, RETRY, touched=[LINE], location=["anything"], terms=WEAK)
    assert match_search(["anything"], None, idf, [fix], [placed], CFG) == []
    # nor does a fix vouch for an attempt the query does not resemble at all: the fix says
    # where, only the attempt's own record can say what
    unlike = failure(17, RETRY, touched=[LINE], terms=["sku"])
    assert match_search(ASKED, None, idf, [fix], [unlike], CFG) == []


def test_trigger_by_score_above_065():
    f = failure(15, RETRY, touched=[LINE], terms=WEAK)
    retrieved = [symbol(1, GATEWAY, 0.9), commit(2, 0.70, "revert", RETRY, **FIXED)]
    [w] = match_search(ASKED, None, idf, retrieved, [f], CFG)
    assert w.score == pytest.approx(0.40 + 0.6 * 0.2)
    low = [symbol(1, GATEWAY, 0.9), commit(2, 0.60, "security", RETRY, **FIXED)]
    assert match_search(ASKED, None, idf, low, [f], CFG) == []
    off = GraveyardConfig(commit_trigger_rank1=False)
    fix = commit(1, 0.5, "bugfix", RETRY, **FIXED)
    assert match_search(ASKED, None, idf, [fix], [f], off) == []


def test_trigger_anchors_file_level_failures_of_touched_files():
    f = failure(16, ("backend/payments/retry.py", None), touched=[LINE], terms=WEAK)
    [w] = match_search(ASKED, None, idf, [commit(1, 0.5, "bugfix", RETRY, **FIXED)], [f], CFG)
    assert w.score == pytest.approx(0.40 + 0.6 * 0.2)


def gated(commit_item, code_hits) -> list:
    f = failure(17, RETRY, terms=["idempotency"])
    # textual: 0.6 x 3/(3+4) = 0.257 < 0.40, so only a 0.3 anchor makes it fire
    return match_search(["idempotency", "uuid"], None, idf, [*code_hits, commit_item], [f], CFG)


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
    [w] = match_search(["idempotency", "uuid"], None, idf, retrieved, [f], off)
    assert w.structural == 0.3


def test_strongest_anchor_wins_and_order_is_by_score():
    strong = failure(19, RETRY, terms=["idempotency"])
    weak = failure(20, GATEWAY, terms=["idempotency"])
    retrieved = [commit(1, 0.5, "bugfix", RETRY), symbol(2, RETRY), symbol(3, GATEWAY)]
    got = match_search(["idempotency"], None, idf, retrieved, [weak, strong], CFG)
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


def test_in_a_search_results_anchor_a_recorded_failure_but_not_a_revert():
    journal = failure(22, RETRY, touched=[LINE], terms=WEAK)
    revert = failure(23, RETRY, source="revert", touched=[LINE], terms=WEAK)
    retrieved = [commit(1, 0.50, "bugfix", RETRY, **FIXED)]
    assert ids(match_search(ASKED, None, idf, retrieved, [journal, revert], CFG)) == [22]


def test_in_a_search_words_naming_the_attempts_place_are_no_resemblance():
    # the query's only overlap with the attempt is the name of the file it changed
    f = failure(30, GATEWAY, terms=["gateway", "uuid"], location=["gateway"])
    assert match_search(["gateway"], None, idf, [symbol(1, GATEWAY)], [f], CFG) == []
    [w] = match_search(["gateway", "uuid"], None, idf, [symbol(1, GATEWAY)], [f], CFG)
    assert w.evidence == pytest.approx(1.0)
    # a preflight's intended change names no place: its words all count
    [w] = match_preflight(*GATEWAY, ["gateway"], None, idf, [f], CFG)
    assert w.evidence == pytest.approx(1.0)
    # nor does a cosine that only reflects the place: the query's similarity to the attempt's
    # names is taken off (x location_discount)
    near = FailureView(31, (GATEWAY,), vector=np.array([1.0, 0.0]), place=np.array([1.0, 0.0]))
    [w] = match_search([], np.array([1.0, 0.0]), idf, [symbol(1, GATEWAY)], [near], CFG)
    assert w.evidence == pytest.approx(0.5)


def test_in_a_search_text_alone_never_fires():
    # the attempt's text matches the query perfectly, but no result points at it
    f = failure(24, GATEWAY, terms=["idempotency", "key"])
    assert match_search(["idempotency", "key"], None, idf, [symbol(1, RETRY)], [f], CFG) == []
    [w] = match_search(["idempotency", "key"], None, idf, [symbol(1, GATEWAY)], [f], CFG)
    assert (w.structural, w.evidence) == (0.3, pytest.approx(1.0))


def test_a_triggering_commit_vouches_for_the_attempt_most_like_the_query():
    # one fix modified both functions; each has a recorded attempt
    on_retry = failure(25, RETRY, terms=["idempotency", "key"])
    on_gateway = failure(26, GATEWAY, terms=["retry"])
    fix = commit(1, 1.0, "bugfix", RETRY, GATEWAY, sha="f9003b4ab9")
    # coverage: on_retry (3 + 1) / 6 = 0.67, on_gateway 2 / 6 = 0.33: only on_retry is vouched for
    got = match_search(
        ["idempotency", "key", "retry"], None, idf, [fix], [on_retry, on_gateway], CFG
    )
    assert ids(got) == [25]
    assert got[0].reasons[0] == (
        "bugfix commit f9003b4ab9 (rank 1, score 1.00) modified "
        "backend/payments/retry.py::charge_with_retry"
    )
    # with an anchor of its own (its function retrieved in the top 3) the other still fires:
    # 0.3 + 0.6 x 0.33 = 0.5
    got = match_search(
        ["idempotency", "key", "retry"],
        None,
        idf,
        [fix, symbol(2, GATEWAY)],
        [on_retry, on_gateway],
        CFG,
    )
    assert ids(got) == [25, 26]
    assert got[1].structural == 0.3
    # equally resembling attempts are both vouched for
    twin = failure(27, GATEWAY, terms=["idempotency", "key"])
    got = match_search(["idempotency", "key", "retry"], None, idf, [fix], [on_retry, twin], CFG)
    assert ids(got) == [25, 27]


def test_a_revert_does_not_take_a_triggering_commit_from_a_recorded_attempt():
    # the reverted commit's own view resembles the query more, but it is held to the strict bar
    # and is never vouched for by the results: the recorded attempt keeps the trigger
    recorded = failure(28, RETRY, terms=["retry"])
    reverted = failure(29, RETRY, terms=["idempotency", "key", "retry"], source="revert")
    fix = commit(1, 1.0, "revert", RETRY)
    got = match_search(["idempotency", "key", "retry"], None, idf, [fix], [recorded, reverted], CFG)
    assert 28 in ids(got)


# ---------------------------------------------------------------- what the attempt would undo


def test_codes_names_incident_ids_error_codes_and_constants_only():
    assert codes("Why INC-2566? ERR_QUEUE_FULL, MAX_RETRIES and res.send, HTTP 504") == {
        "inc-2566",
        "err_queue_full",
        "max_retries",
    }
    assert codes("the lock-free read path in TTLCache.get") == frozenset()


def test_a_search_naming_a_code_the_undone_fix_names_warns_when_that_fix_is_retrieved():
    # the attempt's record never names the incident; the fix whose lines it changed does
    f = FailureView(
        40, (RETRY,), Counter(["semaphore"]), why=frozenset({"399d55665b"}), why_terms={"inc-2566"}
    )
    query = Intent(["inc-2566", "inc", "2566"], None, codes=frozenset({"inc-2566"}))
    # the fix at rank 3 anchors it (no trigger: rank 3, low score), the id is the evidence
    found = [commit(3, 0.5, "revert", GATEWAY)]
    [w] = match_search(query, None, idf, found, [f], CFG)
    assert w.evidence == 1.0 and "put in lines it changed" in w.reasons[0]
    # below the top 3 the fix is no anchor; an id nobody names is no evidence
    assert match_search(query, None, idf, [commit(4, 0.5, "revert", GATEWAY)], [f], CFG) == []
    other = Intent(["inc-2655"], None, codes=frozenset({"inc-2655"}))
    assert match_search(other, None, idf, found, [f], CFG) == []
    # a reverted commit mined from git is held to its own text
    revert = FailureView(
        41, (RETRY,), source="revert", why=frozenset({"399d55665b"}), why_terms={"inc-2566"}
    )
    assert match_search(query, None, idf, found, [revert], CFG) == []


def test_another_chunk_of_the_attempts_file_anchors_it_weakly_on_its_own_resemblance():
    """The file's own chunk, the function's class or a sibling, retrieved, is near the attempt:
    an anchor of SAME_FILE_WEIGHT, which the attempt's own record must back (the fix it would
    undo cannot)."""
    f = failure(50, RETRY, terms=["idempotency"])
    module = symbol(1, ("backend/payments/retry.py", None))
    # coverage 3 / 7: 0.2 + 0.6 x 0.43 = 0.46
    [w] = match_search(["idempotency", "uuid"], None, idf, [module], [f], CFG)
    assert w.structural == SAME_FILE_WEIGHT
    assert w.reasons[0] == (
        "backend/payments/retry.py, in the file of backend/payments/retry.py::charge_with_retry, "
        "retrieved at rank 1"
    )
    # a weaker anchor needs more: coverage 3 / 10 passes the floor, 0.2 + 0.18 does not fire
    assert (
        match_search(["idempotency", "uuid", "retry", "key"], None, idf, [module], [f], CFG) == []
    )
    # the function's class, a sibling function
    method = failure(51, ("shop/cache.py", "TTLCache.get"), terms=["idempotency"])
    for chunk in (("shop/cache.py", "TTLCache"), ("shop/cache.py", "TTLCache.set")):
        [w] = match_search(["idempotency", "uuid"], None, idf, [symbol(1, chunk)], [method], CFG)
        assert w.structural == SAME_FILE_WEIGHT
    # below the top `context_top`, or in another file, it is no anchor
    deep = [symbol(i, ("a.py", f"f{i}")) for i in (1, 2, 3)] + [symbol(4, ("shop/cache.py", None))]
    assert match_search(["idempotency", "uuid"], None, idf, deep, [method], CFG) == []
    other = symbol(1, ("backend/payments/gateway.py", None))
    assert match_search(["idempotency", "uuid"], None, idf, [other], [f], CFG) == []
    # resembling only the fix the attempt would undo does not back so weak an anchor
    undoes = FailureView(52, (RETRY,), Counter(["sku"]), why_terms={"idempotency", "uuid"})
    assert match_search(["idempotency", "uuid"], None, idf, [module], [undoes], CFG) == []
    # a preflight's results are retrieved for the target: the chunk anchors nothing there
    intended = ["idempotency", "uuid"]
    assert match_preflight(*GATEWAY, intended, None, idf, [f], CFG, retrieved=[module]) == []


def test_a_search_naming_a_function_credits_a_trigger_only_for_that_function():
    """A fix that changed several functions anchors only attempts on the one the query names."""
    on_gateway = failure(20, GATEWAY, touched=[LINE], terms=WEAK)
    on_retry = failure(21, RETRY, touched=[LINE], terms=WEAK)
    both = [("backend/payments/retry.py", LINE), ("backend/payments/gateway.py", LINE)]
    fix = commit(1, 0.50, "bugfix", RETRY, GATEWAY, added=both, about=ASKED)
    named = Intent.of("how does charge_with_retry handle anything uuid", ASKED, None)
    hits = [fix, symbol(2, RETRY), symbol(3, GATEWAY)]
    assert ids(match_search(named, None, idf, hits, [on_gateway, on_retry], CFG)) == [21]
    # naming no function: the trigger credits every function it changed, as before
    plain = Intent.of("anything uuid", ASKED, None)
    assert ids(match_search(plain, None, idf, hits, [on_gateway, on_retry], CFG)) == [20, 21]
    # an attempt on another function that the query closely resembles is what it is about,
    # whichever function it names
    close = failure(22, GATEWAY, touched=[LINE], terms=ASKED)
    got = match_search(named, None, idf, hits, [close, on_retry], CFG)
    assert ids(got) == [22, 21]


def test_a_fix_below_the_top_results_triggers_only_for_a_closely_resembling_attempt():
    weak = failure(22, RETRY, touched=[LINE], terms=WEAK)
    top = [symbol(1, GATEWAY, 0.9), symbol(2, ("a.py", "x")), symbol(3, ("b.py", "y"))]
    deep = commit(4, 0.90, "bugfix", RETRY, **FIXED)
    # at rank 2 the fix vouches; at rank 4 it is one of several things the query found
    shallow = commit(2, 0.90, "bugfix", RETRY, **FIXED)
    assert ids(match_search(ASKED, None, idf, [*top[:1], shallow], [weak], CFG)) == [22]
    assert match_search(ASKED, None, idf, [*top, deep], [weak], CFG) == []
    # an attempt the query closely resembles still gets it
    strong = failure(23, RETRY, touched=[LINE], terms=["anything", "uuid"])
    assert ids(match_search(ASKED, None, idf, [*top, deep], [strong], CFG)) == [23]


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
        why=frozenset({"399d55665b"}),
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


def test_the_symbols_an_attempt_changed_anchor_it_like_its_target():
    decode = ("backend/api/orders.py", "decode_cursor")
    encode = ("backend/api/orders.py", "encode_cursor")
    f = FailureView(52, (encode,), Counter(["cursor", "timestamp"]), changed=(decode,))
    query = ["cursor", "timestamp"]
    assert ids(match_search(query, None, idf, [symbol(2, decode)], [f], CFG)) == [52]
    [w] = match_preflight(*decode, query, None, idf, [f], CFG)
    assert w.structural == CFG.same_symbol
    # anchoring is still only a boost
    assert match_search(["sku"], None, idf, [symbol(1, decode)], [f], CFG) == []


def test_a_code_next_to_the_changed_lines_is_half_the_evidence_and_needs_an_anchor():
    decode = ("backend/api/orders.py", "decode_cursor")
    f = FailureView(
        53, (decode,), Counter(["cursor"]), nearby_codes=frozenset({"err_invalid_cursor"})
    )
    query = Intent.of(
        "ERR_INVALID_CURSOR", ["err_invalid_cursor", "err", "invalid", "cursor"], None
    )
    [w] = match_search(query, None, idf, [symbol(2, decode)], [f], CFG)
    assert w.evidence == NEARBY_CODE_EVIDENCE
    assert any("next to the lines it changed" in r for r in w.reasons)
    assert match_search(query, None, idf, [symbol(4, decode)], [f], CFG) == []
    other = Intent.of("ERR_ORDER_NOT_FOUND", ["err_order_not_found"], None)
    assert match_search(other, None, idf, [symbol(2, decode)], [f], CFG) == []
