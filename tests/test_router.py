"""The query router on a table of example queries (written for this test, not benchmark text):
questions are classified by what they ask, not by the paths or identifiers inside them."""

from __future__ import annotations

import pytest

from gitstrata.serve.router import (
    CLASSES,
    RECENT_COUNT,
    asked_areas,
    asks_for_links,
    asks_for_tests,
    asks_where_it_went,
    classify,
    history_end,
    is_exact,
    named_identifiers,
    named_paths,
    states_change,
    thing_names,
)

CASES = [
    ("why does normalize_currency round half up", "behavioral"),
    ("why is TokenBucket.refill called twice", "behavioral"),
    ("why was normalize_currency changed to round half up", "causal"),
    ("what is the reason for the grace period in token checks", "causal"),
    ("explain the purpose of the retry jitter", "causal"),
    # imperative change requests and plans, with verbs of every kind
    ("write the shipping method into the nightly export", "change"),
    ("forbid data: urls in rendered comments", "change"),
    ("shrink the sessions table by keeping a week of rows", "change"),
    ("I'm going to let two coupons apply to one basket", "change"),
    # a co-change question names what must follow the edit
    ("a new field on InvoiceOut: which mobile decoders have to adapt?", "coupled"),
    ("one more column per session row: which schema files and fixtures come along?", "coupled"),
    ("editing web/src/cart.ts: which server logic does its total quietly depend on?", "coupled"),
    ("hidden dependencies of services/mailer.py outside the backend", "coupled"),
    ("what other files were in the same commits as cli/main.go?", "coupled"),
    ("the Go copy of this parser: is it edited the same way?", "coupled"),
    ("why is the date picker vendored instead of an npm dependency?", "causal"),
    ("how does the scheduler depend on the clock?", "behavioral"),
    # causal questions that do not say "why"
    ("how come the invoice mailer skips archived accounts?", "causal"),
    ("what went wrong with the parallel thumbnail upload that got backed out?", "causal"),
    ("what broke when the importer stopped batching its inserts?", "causal"),
    ("what is the reasoning behind a year of audit rows?", "causal"),
    ("what was the point of adding a jitter to the poll interval?", "causal"),
    ("what would go wrong with a scheduler that retried a leased job?", "causal"),
    ("Which outage made the importer cap its batch at 500 rows?", "causal"),
    ("What change brought a locale field into the invoice header?", "causal"),
    ("What happened in March that led the mailer to skip weekends?", "causal"),
    ("What drove the switch to one connection pool per tenant?", "causal"),
    ("What problem was the lease renewal added to solve?", "causal"),
    ("Is the zero-padding of invoice numbers a deliberate decision?", "causal"),
    ("rename the export column header to amount", "change"),
    ("raise the session timeout to two hours", "change"),
    ("add a dry-run flag to the migration script", "change"),
    ("ERR_QUOTA_EXCEEDED", "exact"),
    ("INC-9912 postmortem", "exact"),
    ("KeyDecodeError in the parser", "exact"),
    ("3f9a2c1d7e", "exact"),
    ("services/billing/invoice.py", "exact"),
    ("customers got two confirmation emails after a timeout", "symptom"),
    ("the dashboard kept showing stale totals", "symptom"),
    ("uploads silently dropped on slow networks", "symptom"),
    ("token refresh", "general"),
    ("pagination of the audit log", "general"),
    # natural-language questions around a path or identifier are not lookups
    (
        "What does the web checkout do just before an API call so it doesn't send an access "
        "token that's about to expire?",
        "behavioral",
    ),
    (
        "Which deployment manifest has to be kept in step with the concurrency default in "
        "worker/cmd/worker/main.go?",
        "coupled",
    ),
    ("What else must change with services/billing/invoice.py?", "coupled"),
    ("How does InvoiceStore.flush decide when to write to disk?", "behavioral"),
    (
        "In services/billing/invoice.py, how are rounding errors spread over the lines?",
        "behavioral",
    ),
    ("In services/billing/invoice.py, stop rounding each line separately", "change"),
    ("Give the rate limiter a way to forget a client", "change"),
    (
        "a bot sent a full quota of password guesses just before the minute rolled over, and "
        "another full quota right after",
        "symptom",
    ),
    ("Invoices were emailed twice although the job had succeeded", "symptom"),
    ("What made us move the invoice numbers into their own table?", "causal"),
    # a leading condition before the question it sets up: the main clause is what it asks
    ("If the mail server answers 451, will send_invoice try the next relay?", "behavioral"),
    ("With two discount rules on one invoice, which of them does price_lines apply?", "behavioral"),
    (
        "Once the ledger is locked, what happens to the lines InvoiceStore.flush holds?",
        "behavioral",
    ),
    # ... but not a change or a co-change question with the same opening
    ("If I rename InvoiceStore.flush, which other files have to change with it?", "coupled"),
    # what moves with a change, in other words than "change together"
    ("If the ledger goes to four decimals, which report and test files must follow?", "coupled"),
    ("Which fixtures travel with services/billing/invoice.py?", "coupled"),
    (
        "Shortening the lease in jobs/lease.go: which Python module is committed alongside it?",
        "coupled",
    ),
    (
        "Dropping the legacy header in api/client.ts: what server code has shared its commits?",
        "coupled",
    ),
    ("Which fixture was edited in the commit that bumped the retry limit?", "coupled"),
    ("What has evolved with cli/main.go over the last year?", "coupled"),
    # a question without its question mark is still a question, not a report of what went wrong
    ("where is the upload timeout implemented", "behavioral"),
    ("how are expired sessions cleaned up", "behavioral"),
    # ... while a report may open with "when" or "if"
    ("when the upload timed out the retry sent the file twice", "symptom"),
    # the commit that introduced something or changed it last: a commit is the answer
    ("which commit introduced the InvoiceStore class", "causal"),
    ("when was the export button added", "causal"),
    ("who last changed services/billing/invoice.py?", "causal"),
    ("where did normalize_currency come from", "causal"),
]


@pytest.mark.parametrize(("query", "expected"), CASES)
def test_router_classes(query: str, expected: str) -> None:
    assert classify(query).query_class == expected


def test_a_path_or_identifier_alone_is_a_lookup_but_not_inside_a_sentence() -> None:
    assert is_exact("services/billing/invoice.py")
    assert is_exact("InvoiceStore.flush")
    assert is_exact("INC-9912 postmortem")
    assert not is_exact("Why does services/billing/invoice.py round each line on its own?")
    assert not is_exact("What calls InvoiceStore.flush when the queue is full?")


def test_route_carries_weights_and_slots() -> None:
    r = classify("raise the session timeout to two hours")
    assert (r.w_bm25, r.w_vec, r.w_graph, r.commit_slots, r.pin) == (1.0, 1.0, 0.8, 1, True)
    assert r.prefer == "edit"
    assert r.mixed is None
    r = classify("why was the cache lock added")
    assert (r.commit_slots, r.prefer, r.pin) == (3, "commits", False)
    r = classify("ERR_QUOTA_EXCEEDED", {"exact": 1})
    assert (r.w_bm25, r.w_vec, r.w_graph, r.commit_slots) == (2.0, 0.4, 0.2, 1)
    assert classify("anything", adaptive=False).query_class == "general"


def test_mixed_questions_blend_the_weights_of_both_classes() -> None:
    r = classify(
        "Adding a refund note to services/billing/invoice.py: what else is edited with it?"
    )
    assert (r.query_class, r.mixed) == ("coupled", "change")
    coupled, change = CLASSES["coupled"], CLASSES["change"]
    # between the two classes' weights, nearer the first class
    assert change[2] < r.w_graph < coupled[2]
    assert abs(r.w_graph - coupled[2]) < abs(r.w_graph - change[2])
    assert r.prefer == coupled[3]
    pure = classify("What else must change with services/billing/invoice.py?")
    assert pure.mixed is None and pure.w_graph == coupled[2]


def test_named_paths_and_identifiers() -> None:
    assert named_paths("kept in step with worker/cmd/main.go and api.conf?") == (
        "worker/cmd/main.go",
        "api.conf",
    )
    assert named_identifiers("why does TTLCache.set hold the lock in charge_with_retry()") == (
        "TTLCache.set",
        "charge_with_retry",
    )
    assert named_identifiers("why does the cache hold the lock") == ()
    assert named_identifiers("parseOrder and OrderClient") == ("parseOrder", "OrderClient")


def test_a_file_named_in_a_what_else_question_seeds_the_graph_and_leaves_the_answer(
    fixture_bench,
) -> None:
    engine = fixture_bench.strata.engine
    named = "backend/export/csv_export.py"
    resp = engine.search_result(f"What else has to be edited when {named} gets edited?", 10)
    assert resp.response.query_class == "coupled"
    paths = [h.path for h in resp.response.hits]
    # its partner in another language and folder, and never the file itself among the answers
    assert "worker/internal/export/csv.go" in paths[:5]
    assert named not in paths[:5]
    assert named in resp.anchors


def test_the_part_of_the_repository_a_co_change_question_asks_for() -> None:
    assert asked_areas("Which web files got committed with api/orders.ts?") == ("web",)
    assert asked_areas("which schema, fixture and billing files travel with rules.py?") == (
        "schema",
        "fixture",
        "billing",
    )
    assert asked_areas("What else must change with services/billing/invoice.py?") == ()


def test_co_change_partners_in_the_asked_for_part_come_first(fixture_bench) -> None:
    engine = fixture_bench.strata.engine

    def paths(query: str) -> list[str]:
        hits = engine.search_result(query, 10).response.hits
        return [h.path for h in hits if h.path]

    named = "backend/api/schemas.py"
    # its partners are in the backend, the web client and the mobile app: asked for none of
    # them, the answer lists the partners as preflight does, strongest first ...
    partners = [c.path for c in fixture_bench.strata.preflight(named).coupling]
    assert paths(f"Which files were committed with {named}?")[:5] == partners[:5]
    assert {p.split("/")[0] for p in partners[:5]} == {"backend", "web", "mobile"}
    # ... and the part a question asks for leads
    for area in ("backend", "web", "mobile"):
        asked = paths(f"Which {area} files were committed with {named}?")
        assert asked[0].startswith(f"{area}/"), asked


def test_a_symptom_gets_the_fixing_commit_and_the_code_it_fixed(fixture_bench) -> None:
    engine = fixture_bench.strata.engine
    resp = engine.search_result(
        "Orders were cancelled after the gateway lookup timed out during reconciliation, though "
        "the customer had paid",
        10,
    ).response
    assert resp.query_class == "symptom"
    assert (resp.hits[0].kind, resp.hits[0].intent) == ("commit", "bugfix")
    assert resp.hits[0].title.startswith("fix(worker): gateway timeouts stay pending")
    assert (resp.hits[1].kind, resp.hits[1].symbol) == ("symbol", "classifyGatewayStatus")


def test_a_named_function_keeps_its_own_commits_in_the_window(fixture_bench) -> None:
    engine = fixture_bench.strata.engine
    result = engine.search_result("How does verify_webhook_signature guard against replays?", 10)
    resp = result.response
    assert resp.query_class == "behavioral"
    assert resp.hits[0].symbol == "verify_webhook_signature" and resp.hits[0].pinned
    own = {c.sha for c in resp.hits[0].why} | {
        t["sha"] for t in engine.index.touches_by_symbol.get(resp.hits[0].key, [])
    }
    for h in resp.hits[:5]:
        if h.kind == "commit":
            assert h.key in own


def test_a_behavioral_question_without_a_name_prefers_code() -> None:
    assert classify("How does InvoiceStore.flush decide when to write?").prefer == "neutral"
    assert classify("How does the invoice store decide when to write?").prefer == "code"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("raise the session timeout to two hours", True),
        ("adding a dry-run flag to the migration script: what else must change?", True),
        ("why does normalize_currency round half up", False),
        ("where is the session timeout set?", False),
        ("ERR_QUOTA_EXCEEDED", False),
        ("users were logged out after the deploy", False),
    ],
)
def test_states_change_tells_a_change_request_from_a_question(query: str, expected: bool) -> None:
    assert states_change(query) is expected


@pytest.mark.parametrize(
    ("query", "end", "what", "whole"),
    [
        ("which commit introduced the InvoiceStore class", "first", "the InvoiceStore class", True),
        ("When was `Ky.#parseJson` added?", "first", "`Ky.#parseJson`", True),
        ("who wrote charge_with_retry?", "first", "charge_with_retry", True),
        ("when did the dark mode first appear", "first", "the dark mode", True),
        ("who last changed test/helpers/with-page.ts", "last", "test/helpers/with-page.ts", True),
        ("when was InvoiceStore.flush last modified?", "last", "InvoiceStore.flush", True),
        ("the latest change to README.md", "last", "README.md", True),
        # its newest commits, or those of one intent
        ("recent changes to README.md", "last", "README.md", True),
        ("what bugs were fixed in InvoiceStore.flush?", "last", "InvoiceStore.flush", True),
        ("what was reverted in the mailer", "last", "the mailer", True),
        # a part of a thing: its first commit is not the answer
        (
            "which commit added the retry to charge_with_retry",
            "first",
            "the retry to charge_with_retry",
            False,
        ),
        ("when was shell completion for fish added", "first", "shell completion for fish", False),
    ],
)
def test_a_question_for_either_end_of_a_history(
    query: str, end: str, what: str, whole: bool
) -> None:
    assert history_end(query)[:3] == (end, what, whole)


def test_questions_that_ask_for_no_end_of_a_history() -> None:
    for query in ("why was the retry added", "add a flag to the export", "when does the job run"):
        assert history_end(query) is None


def test_the_names_a_thing_is_given() -> None:
    assert thing_names("the InvoiceStore class") == ("InvoiceStore",)
    assert thing_names("the echo function") == ("echo",)
    assert thing_names("method `flush`") == ("flush",)
    assert thing_names("Ky.#parseJson") == ("parseJson", "Ky.#parseJson")
    assert thing_names("echo") == ("echo",)
    assert thing_names("it") == ()
    assert thing_names("the new option") == ()


def test_a_question_for_recent_history_asks_for_several_commits_of_an_intent() -> None:
    assert history_end("who last changed README.md")[3:] == (1, None)
    assert history_end("recent changes to README.md")[3:] == (RECENT_COUNT, None)
    assert history_end("what bugs were fixed in parse_line?")[3:] == (RECENT_COUNT, "bugfix")
    assert history_end("what was reverted in parse_line")[3:] == (RECENT_COUNT, "revert")


def test_a_question_asks_where_something_went() -> None:
    for query in ("why was Post.validate removed?", "where did withPage go", "when was X renamed"):
        assert asks_where_it_went(query), query
    for query in ("app.locals precedence", "why does compileCookie() escape quotes"):
        assert not asks_where_it_went(query), query


def test_a_question_asks_about_a_revert_or_about_a_removal() -> None:
    from gitstrata.serve.router import asks_about_removal, asks_about_revert

    for query in ('why was "add etag" reverted', "why did we roll back the cache", "what undid X"):
        assert asks_about_revert(query), query
    for query in ("why was the retry added", "what does revertible_state mean"):
        assert not asks_about_revert(query), query
    for query in ("why was docs/a.md removed", "what happened to docs/a.md", "docs/a.md"):
        assert asks_about_removal(query), query
    for query in ("why was docs/a.md updated", "who fixed docs/a.md", "when was docs/a.md changed"):
        assert not asks_about_removal(query), query


def test_thing_names_reads_names_in_backticks_and_words() -> None:
    from gitstrata.serve.router import thing_names

    assert thing_names("What else has to change when I change `redirect`?") == ("redirect",)
    assert thing_names("what else changes with the redirect function?") == ("redirect",)
    assert thing_names("which commit introduced the `echo` helper") == ("echo",)
    assert thing_names("what else changes with ```code``` here") == ()


@pytest.mark.parametrize(
    "query",
    [
        "which tests cover res.redirect",
        "What tests should I run after changing parse_args?",
        "Where are the specs for the rate limiter?",
        "list the unit tests of Cart.total",
        "tests for Context.invoke?",
        "which test files exercise walk.rs",
        "which test covers the pager",
        "how is res.redirect tested?",
    ],
)
def test_a_question_for_the_tests_of_something(query: str) -> None:
    assert asks_for_tests(query)


@pytest.mark.parametrize(
    "query",
    [
        "why does test_retry fail on CI",
        "what does this function test for",  # the verb
        "fix the flaky test in test_api.py",
        "how do I run the test suite",
        "what changed in the testing module",
        "which version added attestation",
        "add tests for the parser",  # where a new test goes is a change request
        "what else must change when I change res.cookie",
        # tests and another kind of file: a co-change question about both
        "which docs and tests change with the parser",
        "which tests and fixtures follow cart.py around",
        "which config, schema and test files go with the exporter",
        "which tests or benchmarks mention the cache",
    ],
)
def test_not_a_question_for_tests(query: str) -> None:
    assert not asks_for_tests(query)


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("What calls make_context?", "called_by"),
        ("who calls get_terminal_size", "called_by"),
        ("which functions call Ky.#retry?", "called_by"),
        ("Where is resolve_command used?", "called_by"),
        ("callers of format_help", "called_by"),
        ("usages of Router.ServeHTTP", "called_by"),
        ("which places use `escapeHtml`?", "called_by"),
        ("What does Command.main call?", "calls"),
        ("which functions does sendFile use?", "calls"),
        ("callees of invoke", "calls"),
        ("what calls does parse_args make", "calls"),
        ("which files import lib/utils.js", "called_by"),
        ("what depends on lib/view.js?", "called_by"),
        ("where is lib/utils.js imported", "called_by"),
        ("what does lib/application.js import?", "calls"),
        # not a question for callers or callees
        ("why does redirect encode the url", None),
        ("where is the config loaded", None),
        ("what else changes with parse_args()", None),
        ("what does the invoke function do", None),
        ("Which tests cover total()?", None),
        ("which tests call total()?", None),  # tests: test code alone
        ("what is the use of the retry option", None),
        ("which files change with lib/utils.js", None),  # co-change
        ("which tests import lib/utils.js", None),
    ],
)
def test_a_question_for_callers_or_callees(query: str, kind: str | None) -> None:
    asked = asks_for_links(query)
    assert (asked and asked[0]) == kind


def test_the_links_question_says_which_function_it_is_about() -> None:
    assert asks_for_links("What calls make_context?") == ("called_by", "make_context")
    assert asks_for_links("where is the charge function used") == (
        "called_by",
        "the charge function",
    )
    assert asks_for_links("What does Command.main call?") == ("calls", "Command.main")
    assert asks_for_links("callers of `escapeHtml`") == ("called_by", "`escapeHtml`")


def test_the_links_question_reads_a_long_input_in_linear_time() -> None:
    assert asks_for_links("where is " + "x " * 25_000 + "called") is None
    assert asks_for_links("what does " + "does " * 9_000) is None
    assert asks_for_links("which " * 9_000 + "call") is None


def test_the_tests_question_reads_a_long_input_in_linear_time() -> None:
    # runs one class of the pattern or the other could each take, split every way between its
    # repeated words, would take minutes: none is ambiguous
    assert not asks_for_tests("which " + "-" * 50_000)
    assert not asks_for_tests("which " + "a-" * 25_000)
    assert not asks_for_tests("which " * 9_000)
    assert not asks_for_tests("where is " + "x " * 25_000 + "tested")


@pytest.mark.parametrize(
    "query",
    [
        "which config file sets the default ignore rules",
        "which source files define the retry policy",
        "which test file contains the pager fixtures",
    ],
)
def test_a_file_asked_for_by_what_it_does_is_a_lookup(query: str) -> None:
    assert classify(query).query_class != "coupled"


def test_which_files_change_with_a_file_stays_a_co_change_question() -> None:
    for query in (
        "which config files must change with walk.rs",
        "which config must change when the port changes",
        "which test files change with cart.py",
    ):
        assert classify(query).query_class == "coupled", query
