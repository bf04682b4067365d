"""Benchmark queries over the fixture repository, with graded relevance.

Every query has a class (the kind of question), a split, its text, and the answers a good system
ranks first: `relevant` targets with grades 3 (the answer), 2 (strongly related) or 1 (useful
context). A target is one of

    symbol:<path>::<qualname>   a function, method, class or type at the fixture's HEAD
    commit:<NAME>               a fixture commit, by its stable name (see fixture.FixtureInfo)
    file:<path>                 a whole file (configuration, migrations, module constants)

`expected_warnings` are indexes into `failures.failure_records()`: the failed attempts a good
system surfaces for the query. `coupled_files` lists the files a co-change discovery query is
about.

Invariants:
- Query ids are unique across splits; ids and texts never change once a split is published.
- Every target exists in the fixture (tests/test_fixture.py checks it against a built repo).
- The held-out splits were written independently of dev (different wording, partly different
  facts). Nothing is tuned on a held-out split before its first run; once it has been used to
  diagnose a change it is retired, and only retired splits are learned from (the router's
  reader: `router_model.TRAIN_SPLITS`). No test holds their text or runs retrieval on it
  (tests/test_dataset.py::test_no_test_file_contains_held_out_query_text).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..store.errors import GitstrataError, InputError

__all__ = [
    "HELDOUT_SPLITS",
    "QUERY_CLASSES",
    "SPLITS",
    "Query",
    "Relevance",
    "queries",
]

QueryClass = Literal["causal", "behavioral", "symptom", "coupled", "exact", "change"]
QUERY_CLASSES: tuple[str, ...] = ("causal", "behavioral", "symptom", "coupled", "exact", "change")
SPLITS: tuple[str, ...] = (
    "dev",
    "heldout_v1",
    "heldout_v2",
    "heldout_v3",
    "heldout_v4",
    "heldout_v5",
    "heldout_v6",
    "heldout_v7",
    "heldout_v8",
    "heldout_v9",
    "heldout_v10",
    "heldout_v11",
    "heldout_v12",
    "heldout_v13",
    "heldout_v14",
    "heldout_v15",
    "heldout_v16",
    "heldout_v17",
    "heldout_v18",
    "heldout_v19",
    "heldout_v20",
    "heldout_v21",
)
HELDOUT_SPLITS: tuple[str, ...] = (
    "heldout_v1",
    "heldout_v2",
    "heldout_v3",
    "heldout_v4",
    "heldout_v5",
    "heldout_v6",
    "heldout_v7",
    "heldout_v8",
    "heldout_v9",
    "heldout_v10",
    "heldout_v11",
    "heldout_v12",
    "heldout_v13",
    "heldout_v14",
    "heldout_v15",
    "heldout_v16",
    "heldout_v17",
    "heldout_v18",
    "heldout_v19",
    "heldout_v20",
    "heldout_v21",
)


class Relevance(BaseModel):
    """One graded answer of a query."""

    model_config = ConfigDict(frozen=True)

    target: str
    grade: int = Field(ge=1, le=3)

    @property
    def kind(self) -> str:
        return self.target.split(":", 1)[0]

    @property
    def path(self) -> str | None:
        """The file a symbol or file target points at (None for commits)."""
        if self.kind == "commit":
            return None
        return self.target.split(":", 1)[1].split("::", 1)[0]

    @property
    def qualname(self) -> str | None:
        return self.target.split("::", 1)[1] if self.kind == "symbol" else None

    @property
    def commit_name(self) -> str | None:
        return self.target.split(":", 1)[1] if self.kind == "commit" else None


class Query(BaseModel):
    """A benchmark query; `query_class` is serialised as "class"."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    id: str
    split: str
    # Separate validation and serialisation aliases (not `alias`) keep the constructor's keyword
    # `query_class` for type checkers, while JSON still reads and writes "class".
    query_class: QueryClass = Field(validation_alias="class", serialization_alias="class")
    text: str
    file_filter: str | None = None
    relevant: tuple[Relevance, ...]
    expected_warnings: tuple[int, ...] = ()
    coupled_files: tuple[str, ...] = ()

    def commit_names(self) -> tuple[str, ...]:
        return tuple(r.commit_name for r in self.relevant if r.commit_name is not None)


# --- targets ------------------------------------------------------------------------------------


def S(path: str, qualname: str) -> str:
    return f"symbol:{path}::{qualname}"


def C(name: str) -> str:
    return f"commit:{name}"


def F(path: str) -> str:
    return f"file:{path}"


RETRY = "backend/payments/retry.py"
GATEWAY = "backend/payments/gateway.py"
IDEMPOTENCY = "backend/payments/idempotency.py"
REFUNDS = "backend/payments/refunds.py"
WEBHOOKS = "backend/payments/webhooks.py"
TOKENS = "backend/auth/tokens.py"
REFRESH = "backend/auth/refresh.py"
PASSWORDS = "backend/auth/passwords.py"
CACHE = "backend/core/ttl_cache.py"
LIMITER = "backend/core/rate_limiter.py"
SCHEMAS = "backend/api/schemas.py"
ORDERS_API = "backend/api/orders.py"
MIDDLEWARE = "backend/api/middleware.py"
HEALTH = "backend/api/health.py"
ERRORS = "backend/api/errors.py"
MODELS = "backend/orders/models.py"
REPOSITORY = "backend/orders/repository.py"
RULES = "backend/promotions/rules.py"
CODES = "backend/promotions/codes.py"
CSV_PY = "backend/export/csv_export.py"
SETTINGS = "backend/config/settings.py"
CSV_GO = "worker/internal/export/csv.go"
RUNNER = "worker/internal/jobs/runner.go"
RUNNER_TEST = "worker/internal/jobs/runner_test.go"
RECONCILE = "worker/internal/payments/reconcile.go"
RECONCILE_TEST = "worker/internal/payments/reconcile_test.go"
BACKOFF = "worker/internal/retry/backoff.go"
WORKER_MAIN = "worker/cmd/worker/main.go"
WEB_ORDERS = "web/src/api/orders.ts"
SESSION = "web/src/auth/session.ts"
BANNER = "web/src/checkout/promoBanner.ts"
PARSER = "mobile/src/parsers/orderParser.ts"
MOBILE_MODELS = "mobile/src/models/order.ts"
OFFLINE = "mobile/src/storage/offlineQueue.ts"
ORDER_SCREEN = "mobile/src/screens/OrderDetailScreen.tsx"
NGINX = "deploy/nginx/api.conf"
K8S_API = "deploy/k8s/api-deployment.yaml"
K8S_WORKER = "deploy/k8s/worker-deployment.yaml"
ADR_CENTS = "docs/adr/0001-money-as-integer-cents.md"
ADR_IDEMPOTENCY = "docs/adr/0002-one-idempotency-key-per-order.md"

_Row = tuple[str, QueryClass, str, dict[str, int], tuple[int, ...], tuple[str, ...], str | None]


def _q(
    qid: str,
    cls: QueryClass,
    text: str,
    relevant: dict[str, int],
    warn: tuple[int, ...] = (),
    coupled: tuple[str, ...] = (),
    file_filter: str | None = None,
) -> _Row:
    return (qid, cls, text, relevant, warn, coupled, file_filter)


# --- dev: every weight and design choice may look at these ----------------------------------------

_DEV: tuple[_Row, ...] = (
    _q(
        "dev-causal-01",
        "causal",
        "Why was the lock-free read path in TTLCache.get reverted?",
        {
            C("cache_perf_revert"): 3,
            C("cache_perf_lockfree"): 2,
            S(CACHE, "TTLCache.get"): 2,
            C("cache_race_test"): 1,
        },
        (2,),
    ),
    _q(
        "dev-causal-02",
        "causal",
        "Why does token validation allow a 60 second grace period after expiry?",
        {C("inc2291_clock_skew"): 3, S(TOKENS, "validate_token"): 2},
        (1,),
    ),
    _q(
        "dev-causal-03",
        "causal",
        "Why do declined cards skip the retry loop when charging?",
        {
            C("inc2188_declined_fix"): 3,
            S(GATEWAY, "classify_response"): 2,
            S(GATEWAY, "GatewayDeclined"): 2,
            S(RETRY, "charge_with_retry"): 1,
        },
        (7,),
    ),
    _q(
        "dev-causal-04",
        "causal",
        "Why was running every job of a batch in parallel in the Go worker rolled back?",
        {
            C("worker_perf_revert"): 3,
            C("worker_perf_unbounded"): 2,
            C("worker_inflight_comment"): 2,
            S(RUNNER, "Runner.processBatch"): 1,
        },
        (6,),
    ),
    _q(
        "dev-causal-05",
        "causal",
        "Why did the rate limiter move from fixed windows to a sliding window?",
        {
            C("inc2458_sliding_window"): 3,
            S(LIMITER, "RateLimiter.allow"): 2,
            S(LIMITER, "RateLimiter._roll"): 1,
        },
        (3,),
    ),
    _q(
        "dev-causal-06",
        "causal",
        "Why are idempotency records kept for 48 hours instead of 24?",
        {
            C("inc2472_idempotency_ttl"): 3,
            F(IDEMPOTENCY): 2,
            F(ADR_IDEMPOTENCY): 1,
            C("idempotency_store"): 1,
        },
        (10,),
    ),
    _q(
        "dev-causal-07",
        "causal",
        "What was the reason for adding the order id to the pagination cursor?",
        {
            C("inc2801_pagination"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 1,
        },
        (13,),
    ),
    _q(
        "dev-causal-08",
        "causal",
        "Why does the API send money as integer cents instead of floats?",
        {C("money_cents_refactor"): 3, F(ADR_CENTS): 2, C("inc2333_mobile_cents"): 1},
    ),
    _q(
        "dev-causal-09",
        "causal",
        "Why was the refund idempotency key changed to include the running refunded total?",
        {C("review_comments_refunds"): 3, S(REFUNDS, "issue_refund"): 2},
    ),
    _q(
        "dev-behavioral-01",
        "behavioral",
        "Why does charge_with_retry derive the idempotency key before the retry loop?",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 3,
            F(ADR_IDEMPOTENCY): 1,
        },
        (0, 16),
    ),
    _q(
        "dev-behavioral-02",
        "behavioral",
        "Why does parseMoney in the mobile order parser throw on decimal amounts?",
        {S(PARSER, "parseMoney"): 3, C("inc2333_mobile_cents"): 3},
        (4,),
        file_filter="mobile/**",
    ),
    _q(
        "dev-behavioral-03",
        "behavioral",
        "Why does classifyGatewayStatus return pending for an HTTP 504?",
        {S(RECONCILE, "classifyGatewayStatus"): 3, C("inc2710_reconcile_timeout"): 3},
        (12,),
    ),
    _q(
        "dev-behavioral-04",
        "behavioral",
        "Why does apply_promotions keep only the best percentage promotion?",
        {
            S(RULES, "apply_promotions"): 3,
            C("inc2655_promo_stacking"): 3,
            S(BANNER, "stackingNotice"): 1,
        },
        (8,),
    ),
    _q(
        "dev-behavioral-05",
        "behavioral",
        "Why does escape_cell prefix some CSV cells with a single quote?",
        {S(CSV_PY, "escape_cell"): 3, C("inc2602_csv_injection"): 3, S(CSV_GO, "escapeCell"): 1},
        (9, 17),
    ),
    _q(
        "dev-behavioral-06",
        "behavioral",
        "Why does rotate_refresh_token revoke the whole token family when an old refresh token comes back?",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            C("inc2744_refresh_reuse"): 3,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 1,
        },
        (11,),
    ),
    _q(
        "dev-behavioral-07",
        "behavioral",
        "Why does TTLCache.get take the lock even though it only reads?",
        {S(CACHE, "TTLCache.get"): 3, C("cache_perf_revert"): 3, C("cache_race_test"): 1},
        (2,),
    ),
    _q(
        "dev-behavioral-08",
        "behavioral",
        "Why does Runner.processBatch run handlers with context.WithoutCancel?",
        {S(RUNNER, "Runner.processBatch"): 3, C("worker_shutdown"): 3},
        (6,),
    ),
    _q(
        "dev-behavioral-09",
        "behavioral",
        "Why does verify_webhook_signature use hmac.compare_digest instead of ==?",
        {S(WEBHOOKS, "verify_webhook_signature"): 3, C("webhook_constant_time"): 3},
    ),
    _q(
        "dev-symptom-01",
        "symptom",
        "Customers were billed twice after a gateway timeout",
        {
            C("inc2407_idempotency_retry"): 3,
            S(RETRY, "charge_with_retry"): 3,
            C("inc2472_idempotency_ttl"): 1,
        },
        (0, 16),
    ),
    _q(
        "dev-symptom-02",
        "symptom",
        "Android users kept getting signed out in the middle of checkout",
        {C("inc2291_clock_skew"): 3, S(TOKENS, "validate_token"): 2},
        (1,),
    ),
    _q(
        "dev-symptom-03",
        "symptom",
        "Some orders never showed up in the order history when paging through it",
        {
            C("inc2801_pagination"): 3,
            S(ORDERS_API, "list_orders"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
        },
        (13,),
    ),
    _q(
        "dev-symptom-04",
        "symptom",
        "Paid orders were cancelled overnight although the card had been charged",
        {C("inc2710_reconcile_timeout"): 3, S(RECONCILE, "classifyGatewayStatus"): 3},
        (12,),
    ),
    _q(
        "dev-symptom-05",
        "symptom",
        "Checkout failed because the database ran out of connections during the monthly export",
        {
            C("worker_perf_revert"): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            C("worker_inflight_comment"): 1,
        },
        (6,),
    ),
    _q(
        "dev-symptom-06",
        "symptom",
        "Shoppers saw promotion prices that had already been withdrawn, and some checkouts returned 500",
        {C("cache_perf_revert"): 3, S(CACHE, "TTLCache.get"): 2},
        (2,),
    ),
    _q(
        "dev-symptom-07",
        "symptom",
        "Two promo codes together took 35% off the order",
        {C("inc2655_promo_stacking"): 3, S(RULES, "apply_promotions"): 3},
        (8,),
    ),
    _q(
        "dev-symptom-08",
        "symptom",
        "Customers got a 504 while paying and then ended up with two orders",
        {C("inc2689_nginx_timeout"): 3, F(NGINX): 2, S(SETTINGS, "Settings"): 1},
        (14,),
    ),
    _q(
        "dev-coupled-01",
        "coupled",
        "What else must change when I add a field to OrderOut in backend/api/schemas.py?",
        {
            S(PARSER, "parseOrder"): 3,
            S(WEB_ORDERS, "parseOrderResponse"): 3,
            S(WEB_ORDERS, "OrderDTO"): 2,
            S(MOBILE_MODELS, "Order"): 2,
            S(MODELS, "Order"): 1,
        },
        (5,),
        (PARSER, WEB_ORDERS, MOBILE_MODELS, MODELS),
    ),
    _q(
        "dev-coupled-02",
        "coupled",
        "If I add a column to the Python finance CSV export, what else has to change?",
        {S(CSV_GO, "WriteOrdersCSV"): 3, S(CSV_GO, "Order"): 2, S(CSV_PY, "order_row"): 2},
        (),
        (CSV_GO,),
    ),
    _q(
        "dev-coupled-03",
        "coupled",
        "Which files usually change together with backend/auth/tokens.py?",
        {F(SESSION): 3, F("tests/backend/test_tokens.py"): 2},
        (1, 15),
        (SESSION, "tests/backend/test_tokens.py"),
    ),
    _q(
        "dev-coupled-04",
        "coupled",
        "What needs updating alongside backend/config/settings.py when I add an environment variable?",
        {F(K8S_API): 3, S(SETTINGS, "get_settings"): 2},
        (),
        (K8S_API,),
    ),
    _q(
        "dev-coupled-05",
        "coupled",
        "When I change the promotion rules in rules.py, what else usually changes with them?",
        {
            S(BANNER, "renderPromoBanner"): 3,
            S(BANNER, "stackingNotice"): 2,
            F("tests/backend/test_promotions.py"): 2,
        },
        (8,),
        (BANNER, "tests/backend/test_promotions.py"),
    ),
    _q(
        "dev-coupled-06",
        "coupled",
        "What else should I touch when changing the mobile order parser?",
        {
            S(SCHEMAS, "OrderOut"): 3,
            S(MOBILE_MODELS, "Order"): 3,
            S(WEB_ORDERS, "parseOrderResponse"): 2,
        },
        (4,),
        (SCHEMAS, MOBILE_MODELS, WEB_ORDERS),
    ),
    _q(
        "dev-coupled-07",
        "coupled",
        "What changes together with the Go job runner in worker/internal/jobs/runner.go?",
        {
            S(WORKER_MAIN, "main"): 3,
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 2,
            F(K8S_WORKER): 1,
        },
        (6,),
        (WORKER_MAIN, RUNNER_TEST),
    ),
    _q(
        "dev-coupled-08",
        "coupled",
        "If I change how long the server keeps idempotency records, which client code depends on that?",
        {S(OFFLINE, "replayQueue"): 3, F(OFFLINE): 2},
        (10,),
        (OFFLINE,),
    ),
    _q(
        "dev-exact-01",
        "exact",
        "ERR_PAYMENT_DUPLICATE",
        {
            C("inc2407_idempotency_retry"): 3,
            S(RETRY, "charge_with_retry"): 2,
            S("tests/backend/test_retry.py", "test_retry_does_not_double_charge"): 2,
            F(ERRORS): 1,
        },
        (0, 16),
    ),
    _q(
        "dev-exact-02",
        "exact",
        "INC-2519",
        {C("cache_perf_revert"): 3, C("cache_race_test"): 3, S(CACHE, "TTLCache.get"): 1},
        (2,),
    ),
    _q(
        "dev-exact-03",
        "exact",
        "CLOCK_SKEW_SECONDS",
        {F(TOKENS): 3, S(TOKENS, "validate_token"): 3, C("inc2291_clock_skew"): 2, F(SESSION): 1},
        (1,),
    ),
    _q(
        "dev-exact-04",
        "exact",
        "ERR_PARSE_AMOUNT",
        {S(PARSER, "parseMoney"): 3, C("inc2333_mobile_cents"): 2},
        (4,),
    ),
    _q(
        "dev-exact-05",
        "exact",
        "INC-2566",
        {C("worker_perf_revert"): 3, C("worker_inflight_comment"): 3, S(RUNNER, "Runner"): 1},
        (6,),
    ),
    _q(
        "dev-exact-06",
        "exact",
        "ERR_TOKEN_REUSED",
        {S(REFRESH, "rotate_refresh_token"): 3, C("inc2744_refresh_reuse"): 3},
        (11,),
    ),
    _q(
        "dev-exact-07",
        "exact",
        "MAX_REPLAY_AGE_MS",
        {F(OFFLINE): 3, S(OFFLINE, "replayQueue"): 2, C("inc2472_idempotency_ttl"): 2},
        (10,),
    ),
    _q(
        "dev-exact-08",
        "exact",
        "ERR_INVALID_CURSOR",
        {
            S(ORDERS_API, "decode_cursor"): 3,
            C("orders_pagination"): 2,
            S("tests/backend/test_orders_api.py", "test_malformed_cursor_is_a_client_error"): 1,
        },
        (13,),
    ),
    _q(
        "dev-change-01",
        "change",
        "Raise the token grace period to 90 seconds",
        {
            F(TOKENS): 3,
            S(TOKENS, "validate_token"): 2,
            F(SESSION): 1,
            F("tests/backend/test_tokens.py"): 1,
        },
        (1,),
    ),
    _q(
        "dev-change-02",
        "change",
        "Let the worker run up to 16 jobs at the same time",
        {F(K8S_WORKER): 3, S(WORKER_MAIN, "main"): 2, S(RUNNER, "Runner.processBatch"): 1},
        (6,),
    ),
    _q(
        "dev-change-03",
        "change",
        "Add a refunded_cents field to the order response",
        {
            S(SCHEMAS, "OrderOut"): 3,
            S(SCHEMAS, "order_to_out"): 2,
            S(WEB_ORDERS, "parseOrderResponse"): 2,
            S(PARSER, "parseOrder"): 2,
            S(MODELS, "Order"): 1,
        },
        (5,),
    ),
    _q(
        "dev-change-04",
        "change",
        "Allow 30 requests per minute per client on login and checkout instead of 20",
        {S(SETTINGS, "Settings"): 3, F(K8S_API): 2, S(MIDDLEWARE, "rate_limit_middleware"): 1},
    ),
    _q(
        "dev-change-05",
        "change",
        "Also escape cells that start with a pipe character in the CSV exports",
        {S(CSV_PY, "escape_cell"): 3, S(CSV_GO, "escapeCell"): 2},
        (9, 17),
    ),
    _q(
        "dev-change-06",
        "change",
        "Change the default payment retry policy to five attempts",
        {S(RETRY, "RetryPolicy"): 3, F(NGINX): 1, S(SETTINGS, "Settings"): 1},
    ),
    _q(
        "dev-change-07",
        "change",
        "Show the sales tax on the mobile order detail screen",
        {
            S(ORDER_SCREEN, "OrderDetailScreen"): 3,
            S(MOBILE_MODELS, "Order"): 1,
            S(PARSER, "parseOrder"): 1,
        },
        file_filter="mobile/**",
    ),
    _q(
        "dev-change-08",
        "change",
        "Add NOK as a supported order currency",
        {
            F(SCHEMAS): 3,
            F("web/src/utils/money.ts"): 2,
            F("db/migrations/0005_add_currency.sql"): 1,
        },
    ),
    # Added after the held-out splits showed warnings on unrelated work: questions, lookups and
    # changes on code some recorded failure also changed, where no warning is due.
    _q(
        "dev-causal-10",
        "causal",
        "Why does issue_token stamp a not-before claim on every token it signs?",
        {S(TOKENS, "issue_token"): 3, C("auth_tokens"): 2},
    ),
    _q(
        "dev-causal-11",
        "causal",
        "Why is a refresh token good for thirty days after sign-in?",
        {S(REFRESH, "start_session"): 3, C("refresh_tokens"): 2},
    ),
    _q(
        "dev-behavioral-10",
        "behavioral",
        "How does discount_for keep a fixed-amount code from exceeding the subtotal?",
        {S(RULES, "discount_for"): 3, C("promotions_engine"): 1},
    ),
    _q(
        "dev-behavioral-11",
        "behavioral",
        "How does Runner.handle put a job back on the queue when its handler fails?",
        {S(RUNNER, "Runner.handle"): 3, S(BACKOFF, "Backoff.Next"): 2},
    ),
    _q(
        "dev-behavioral-12",
        "behavioral",
        "What HTTP timeout does GatewayClient apply to calls to the card processor?",
        {S(GATEWAY, "GatewayClient._post"): 3, S(GATEWAY, "GatewayClient"): 2},
    ),
    _q(
        "dev-symptom-09",
        "symptom",
        "Charges that were only a few minutes old got reconciled before the gateway had settled "
        "them",
        {S(RECONCILE, "Reconcile"): 3, C("worker_reconcile"): 1},
    ),
    _q(
        "dev-exact-09",
        "exact",
        "ERR_TOKEN_MALFORMED",
        {S(TOKENS, "validate_token"): 3, F(ERRORS): 1},
    ),
    _q(
        "dev-exact-10",
        "exact",
        "GatewayTimeout",
        {S(GATEWAY, "GatewayTimeout"): 3, S(RETRY, "charge_with_retry"): 1},
    ),
    _q(
        "dev-change-09",
        "change",
        "Return up to 50 orders per page from GET /orders by default",
        {S(ORDERS_API, "list_orders"): 3, C("orders_pagination"): 1},
    ),
    _q(
        "dev-change-10",
        "change",
        "Give RateLimiter a way to clear a client's counters after a successful login",
        {S(LIMITER, "RateLimiter"): 3, S(MIDDLEWARE, "rate_limit_middleware"): 1},
    ),
    _q(
        "dev-change-11",
        "change",
        "Let nginx accept request bodies of up to 5 MB for the order API",
        {F(NGINX): 3},
    ),
    _q(
        "dev-change-12",
        "change",
        "Stop the scheduled token refresh timer when the session ends in another tab",
        {S(SESSION, "endSession"): 3, S(SESSION, "startSession"): 1},
    ),
    _q(
        "dev-change-13",
        "change",
        "Make parseStatus accept status strings in any letter case",
        {S(PARSER, "parseStatus"): 3},
        file_filter="mobile/**",
    ),
    _q(
        "dev-change-14",
        "change",
        "Add a method to TTLCache that tells how many seconds a key has left to live",
        {S(CACHE, "TTLCache"): 3, S(CACHE, "TTLCache.set"): 1},
    ),
)

# --- held-out v1: written separately from dev; report it, never tune on it -----------------------

_HELDOUT_V1: tuple[_Row, ...] = (
    _q(
        "h1-causal-01",
        "causal",
        "What is the story behind interpreting campaign start and end times in Stockholm time?",
        {C("promo_expiry_tz"): 3, S(RULES, "_as_shop_time"): 2, S(RULES, "is_active"): 2},
    ),
    _q(
        "h1-causal-02",
        "causal",
        "Reason for cutting the access token lifetime to a quarter of an hour",
        {C("access_ttl_15m"): 3, F(TOKENS): 1},
    ),
    _q(
        "h1-causal-03",
        "causal",
        "Why was the web session refresh margin increased to two minutes?",
        {
            C("inc2390_web_refresh_margin"): 3,
            S(SESSION, "ensureFresh"): 2,
            S(SESSION, "shouldRefresh"): 1,
        },
        (15,),
    ),
    _q(
        "h1-causal-04",
        "causal",
        "Why did order placement start rejecting bodies with no items?",
        {C("schemas_validation"): 3, S(SCHEMAS, "OrderCreate.items_not_empty"): 3},
    ),
    _q(
        "h1-causal-05",
        "causal",
        "Rationale for switching password hashing from PBKDF2 to scrypt",
        {
            C("passwords_scrypt"): 3,
            S(PASSWORDS, "needs_rehash"): 2,
            S(PASSWORDS, "verify_password"): 2,
        },
    ),
    _q(
        "h1-causal-06",
        "causal",
        "Why did nginx get a 45 second proxy_read_timeout?",
        {C("inc2689_nginx_timeout"): 3, F(NGINX): 2, S(SETTINGS, "Settings"): 1},
        (14,),
    ),
    _q(
        "h1-behavioral-01",
        "behavioral",
        "Why does normalize_code remove dashes and apply NFKC normalisation?",
        {S(CODES, "normalize_code"): 3, C("promo_codes_normalize"): 3},
    ),
    _q(
        "h1-behavioral-02",
        "behavioral",
        "What is the ceiling <= 0 check in Backoff.Next protecting against?",
        {
            S(BACKOFF, "Backoff.Next"): 3,
            S("worker/internal/retry/backoff_test.go", "TestHugeAttemptDoesNotOverflow"): 2,
            C("worker_backoff_tests"): 2,
        },
        file_filter="worker/**",
    ),
    _q(
        "h1-behavioral-03",
        "behavioral",
        "Why does replayQueue keep a queued order when sending it throws?",
        {S(OFFLINE, "replayQueue"): 3, C("mobile_offline_keep_failed"): 3},
    ),
    _q(
        "h1-behavioral-04",
        "behavioral",
        "Why doesn't the healthz endpoint check the database?",
        {S(HEALTH, "healthz"): 3, C("k8s_probes"): 2, S(HEALTH, "readyz"): 1},
    ),
    _q(
        "h1-behavioral-05",
        "behavioral",
        "Why does export_promotions_csv pass promotion codes through escape_cell?",
        {
            S(CSV_PY, "export_promotions_csv"): 3,
            C("promotions_export"): 3,
            S(CSV_PY, "escape_cell"): 1,
        },
        (9,),
    ),
    _q(
        "h1-behavioral-06",
        "behavioral",
        "What is the overlap factor in RateLimiter._estimate for?",
        {
            S(LIMITER, "RateLimiter._estimate"): 3,
            C("inc2458_sliding_window"): 3,
            S(LIMITER, "RateLimiter._roll"): 1,
        },
        (3,),
    ),
    _q(
        "h1-symptom-01",
        "symptom",
        "The Black Friday discount did not apply for the first hour after midnight",
        {C("promo_expiry_tz"): 3, S(RULES, "is_active"): 3, S(RULES, "_as_shop_time"): 2},
    ),
    _q(
        "h1-symptom-02",
        "symptom",
        "After switching back to a background checkout tab, the first request failed because the token had expired",
        {C("inc2390_web_refresh_margin"): 3, S(SESSION, "ensureFresh"): 3},
        (15,),
    ),
    _q(
        "h1-symptom-03",
        "symptom",
        "Finance opened the export in Excel and a delivery note turned into a phishing link",
        {C("inc2602_csv_injection"): 3, S(CSV_PY, "escape_cell"): 3, S(CSV_GO, "escapeCell"): 2},
        (9, 17),
    ),
    _q(
        "h1-symptom-04",
        "symptom",
        "An attacker kept refreshing a copied session for weeks after the victim signed in again",
        {C("inc2744_refresh_reuse"): 3, S(REFRESH, "rotate_refresh_token"): 3},
        (11,),
    ),
    _q(
        "h1-symptom-05",
        "symptom",
        "An order placed on the phone without signal was charged a second time when the app synced the next day",
        {C("inc2472_idempotency_ttl"): 3, F(IDEMPOTENCY): 2, S(OFFLINE, "replayQueue"): 2},
        (10,),
    ),
    _q(
        "h1-symptom-06",
        "symptom",
        "The card issuer blocked customer cards after a burst of repeated declined payments",
        {
            C("inc2188_declined_fix"): 3,
            S(GATEWAY, "classify_response"): 3,
            S(RETRY, "charge_with_retry"): 1,
        },
        (7,),
    ),
    _q(
        "h1-coupled-01",
        "coupled",
        "Adding a new value to the OrderStatus literal on the server: which client types need it too?",
        {
            S(WEB_ORDERS, "OrderStatus"): 3,
            S(MOBILE_MODELS, "OrderStatus"): 3,
            S(PARSER, "parseStatus"): 2,
            S(ORDER_SCREEN, "statusLabel"): 1,
        },
        (),
        (WEB_ORDERS, MOBILE_MODELS, PARSER),
    ),
    _q(
        "h1-coupled-02",
        "coupled",
        "The Go nightly export's Order struct gets a new field; which Python code mirrors it?",
        {S(CSV_PY, "order_row"): 3, F(CSV_PY): 2},
        (),
        (CSV_PY,),
    ),
    _q(
        "h1-coupled-03",
        "coupled",
        "Editing web/src/checkout/promoBanner.ts: which backend logic does its copy implicitly depend on?",
        {S(RULES, "apply_promotions"): 3, S(RULES, "discount_for"): 2, S(RULES, "Promotion"): 1},
        (8,),
        (RULES,),
    ),
    _q(
        "h1-coupled-04",
        "coupled",
        "Hidden dependencies of web/src/api/orders.ts outside the web app",
        {S(SCHEMAS, "OrderOut"): 3, S(PARSER, "parseOrder"): 3, S(SCHEMAS, "order_to_out"): 1},
        (5,),
        (SCHEMAS, PARSER),
    ),
    _q(
        "h1-coupled-05",
        "coupled",
        "Bumping gateway_timeout_seconds in settings.py: what deployment config has to move with it?",
        {F(NGINX): 3, F(K8S_API): 1},
        (14,),
        (NGINX, K8S_API),
    ),
    _q(
        "h1-exact-01",
        "exact",
        "INC-2710",
        {
            C("inc2710_reconcile_timeout"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 1,
        },
        (12,),
    ),
    _q(
        "h1-exact-02",
        "exact",
        "ERR_PROMO_STACKING",
        {
            C("inc2655_promo_stacking"): 3,
            S(RULES, "apply_promotions"): 2,
            S("tests/backend/test_promotions.py", "test_percentage_codes_do_not_stack"): 2,
        },
        (8,),
    ),
    _q(
        "h1-exact-03",
        "exact",
        "ERR_ORDER_EMPTY",
        {S(SCHEMAS, "OrderCreate.items_not_empty"): 3, C("schemas_validation"): 3},
    ),
    _q(
        "h1-exact-04",
        "exact",
        "SHOP_TIMEZONE",
        {F(RULES): 3, S(RULES, "_as_shop_time"): 2, C("promo_expiry_tz"): 2},
    ),
    _q(
        "h1-exact-05",
        "exact",
        "INC-2188",
        {
            C("inc2188_declined_fix"): 3,
            S(GATEWAY, "GatewayDeclined"): 2,
            S(GATEWAY, "classify_response"): 2,
            S(RETRY, "charge_with_retry"): 1,
            F("docs/runbooks/payments.md"): 1,
        },
        (7,),
    ),
    _q(
        "h1-exact-06",
        "exact",
        "ERR_DB_POOL_EXHAUSTED",
        {C("worker_perf_revert"): 3, C("worker_inflight_comment"): 3, S(RUNNER, "Runner"): 2},
        (6,),
    ),
    _q(
        "h1-change-01",
        "change",
        "Give fixed-amount promotions a default minimum basket of 30 EUR",
        {S(RULES, "Promotion"): 3, S(RULES, "discount_for"): 2},
    ),
    _q(
        "h1-change-02",
        "change",
        "Include a RateLimit-Remaining header in 429 responses",
        {
            S(MIDDLEWARE, "rate_limit_middleware"): 3,
            S(LIMITER, "RateLimiter._estimate"): 1,
            S(LIMITER, "RateLimiter.retry_after"): 1,
        },
    ),
    _q(
        "h1-change-03",
        "change",
        "Make reconciliation treat an HTTP 502 from the gateway like a timeout",
        {S(RECONCILE, "classifyGatewayStatus"): 3, F(RECONCILE_TEST): 1},
        (12,),
        file_filter="worker/**",
    ),
    _q(
        "h1-change-04",
        "change",
        "Put the refresh token family id into the access token claims",
        {
            S(TOKENS, "issue_token"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            S(REFRESH, "start_session"): 2,
        },
    ),
    _q(
        "h1-change-05",
        "change",
        "Forbid mailto links in rendered product descriptions",
        {
            S("web/vendor/markdown-lite.js", "safeUrl"): 3,
            S("web/src/components/ProductDescription.tsx", "ProductDescription"): 2,
        },
    ),
    _q(
        "h1-change-06",
        "change",
        "Raise the worker's retry backoff cap from five to ten minutes",
        {S(WORKER_MAIN, "main"): 3, S(BACKOFF, "Backoff.Next"): 1},
    ),
)

# --- held-out v2: written from the fixture alone, without looking at dev or v1 query texts;
# report it, never tune on it ---------------------------------------------------------------------

SERVICE = "backend/orders/service.py"
TAX = "backend/orders/tax.py"
NOTIFICATIONS = "backend/orders/notifications.py"
HANDLERS = "worker/internal/jobs/handlers.go"
QUEUE = "worker/internal/jobs/queue.go"
JOB_METRICS = "worker/internal/jobs/metrics.go"
CART = "web/src/checkout/cart.ts"
MONEY_TS = "web/src/utils/money.ts"
WEB_CLIENT = "web/src/api/client.ts"
PRODUCT_DESCRIPTION = "web/src/components/ProductDescription.tsx"
MOBILE_API = "mobile/src/api/ordersApi.ts"
CSV_GO_TEST = "worker/internal/export/csv_test.go"
TEST_CSV_PY = "tests/backend/test_csv_export.py"
TEST_PROMOTIONS = "tests/backend/test_promotions.py"
TEST_IDEMPOTENCY = "tests/backend/test_idempotency.py"
RUNBOOK = "docs/runbooks/payments.md"
REFUND_TEMPLATE = "templates/email/refund_issued.html"
MIGRATION_IDEMPOTENCY = "db/migrations/0004_idempotency_keys.sql"
MIGRATION_CURRENCY = "db/migrations/0005_add_currency.sql"
MIGRATION_REFRESH = "db/migrations/0006_refresh_tokens.sql"

_HELDOUT_V2: tuple[_Row, ...] = (
    # causal: why the code or a decision is the way it is
    _q(
        "v2-causal-01",
        "causal",
        "What motivated keeping only hashed copies of refresh tokens in the database?",
        {
            S(REFRESH, "_digest"): 3,
            C("refresh_tokens"): 3,
            S(REFRESH, "RefreshTokenStore"): 1,
            F(MIGRATION_REFRESH): 1,
        },
    ),
    _q(
        "v2-causal-02",
        "causal",
        "Why were the mobile payload parsers relocated out of src/api into a separate directory?",
        {C("mobile_parser_rename"): 3, S(PARSER, "parseOrder"): 1, F(MOBILE_API): 1},
        file_filter="mobile/**",
    ),
    _q(
        "v2-causal-03",
        "causal",
        "Why are promo code lookups cached, and why for only half a minute?",
        {
            C("ttl_cache"): 3,
            S(CODES, "lookup_code"): 2,
            C("promotions_engine"): 2,
            S(CACHE, "TTLCache"): 1,
            S(SETTINGS, "Settings"): 1,
        },
    ),
    _q(
        "v2-causal-04",
        "causal",
        "What was the rationale for switching password storage from PBKDF2 to scrypt?",
        {
            C("passwords_scrypt"): 3,
            S(PASSWORDS, "needs_rehash"): 2,
            S(PASSWORDS, "hash_password"): 2,
            S(PASSWORDS, "verify_password"): 1,
        },
    ),
    _q(
        "v2-causal-05",
        "causal",
        "Which attack led us to throttle sign-in and checkout POSTs per account or per IP address?",
        {
            C("rate_limiter"): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            S(LIMITER, "client_key"): 2,
            C("inc2458_sliding_window"): 1,
        },
    ),
    _q(
        "v2-causal-06",
        "causal",
        "Why is the markdown renderer for product descriptions a copied file in the web app "
        "instead of an npm dependency?",
        {C("vendor_markdown_lite"): 3, S(PRODUCT_DESCRIPTION, "ProductDescription"): 2},
    ),
    # behavioral: what the code does today
    _q(
        "v2-behavioral-01",
        "behavioral",
        "How is sales tax computed for orders in US dollars, and where is it rounded?",
        {
            S(TAX, "sales_tax_cents"): 3,
            C("order_tax_field"): 2,
            S(SERVICE, "OrderService.place_order"): 1,
            S(MODELS, "Order.total_cents"): 1,
        },
    ),
    _q(
        "v2-behavioral-02",
        "behavioral",
        "What happens when a refresh token that was already exchanged is presented again?",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            C("inc2744_refresh_reuse"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 1,
        },
        (11,),
    ),
    _q(
        "v2-behavioral-03",
        "behavioral",
        "With a fixed-amount code and a free-shipping code but no percentage code in the basket, "
        "which discounts end up applied?",
        {
            S(RULES, "apply_promotions"): 3,
            S(RULES, "discount_for"): 2,
            S(RULES, "Promotion"): 1,
            C("inc2655_promo_stacking"): 1,
        },
        (8,),
    ),
    _q(
        "v2-behavioral-04",
        "behavioral",
        "How long does the Go worker wait before it picks a failed job up again?",
        {
            S(RUNNER, "Runner.handle"): 3,
            S(BACKOFF, "Backoff.Next"): 3,
            S(QUEUE, "PostgresQueue.Retry"): 2,
            S(WORKER_MAIN, "main"): 1,
        },
        file_filter="worker/**",
    ),
    _q(
        "v2-behavioral-05",
        "behavioral",
        "What does the API's liveness endpoint check, and why does it leave the database out?",
        {
            S(HEALTH, "healthz"): 3,
            S(HEALTH, "readyz"): 2,
            C("k8s_probes"): 2,
            F(K8S_API): 1,
        },
    ),
    _q(
        "v2-behavioral-06",
        "behavioral",
        "What does the app do with orders that sat in the offline queue for more than 36 hours?",
        {
            S(OFFLINE, "replayQueue"): 3,
            C("inc2472_idempotency_ttl"): 2,
            F(IDEMPOTENCY): 1,
        },
        (10,),
    ),
    # symptom: bug reports in a user's or operator's words
    _q(
        "v2-symptom-01",
        "symptom",
        "A wholesale client says some invoices never show up when they page back through their "
        "order history, although the orders are in the database",
        {
            C("inc2801_pagination"): 3,
            S(ORDERS_API, "list_orders"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
            S(ORDERS_API, "encode_cursor"): 2,
            S(ORDERS_API, "decode_cursor"): 1,
        },
        (13,),
    ),
    _q(
        "v2-symptom-02",
        "symptom",
        "Finance opened last night's order spreadsheet and a customer's delivery note showed up "
        "as a clickable link to some external site",
        {
            C("inc2602_csv_injection"): 3,
            S(CSV_PY, "escape_cell"): 2,
            S(CSV_GO, "escapeCell"): 2,
            S(CSV_GO, "WriteOrdersCSV"): 1,
        },
        (9, 17),
    ),
    _q(
        "v2-symptom-03",
        "symptom",
        "Since this morning's rollout a few shoppers got their order confirmation mail twice",
        {
            C("worker_shutdown"): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            S(RUNNER, "Runner.Run"): 2,
            S(WORKER_MAIN, "main"): 1,
            F(K8S_WORKER): 1,
        },
    ),
    _q(
        "v2-symptom-04",
        "symptom",
        "Customer placed an order on the metro with no signal; the phone reconnected for a moment, "
        "lost it again, and the order never reached us",
        {
            C("mobile_offline_keep_failed"): 3,
            S(OFFLINE, "replayQueue"): 3,
            S(MOBILE_API, "submitOrder"): 1,
        },
        file_filter="mobile/**",
    ),
    _q(
        "v2-symptom-05",
        "symptom",
        "We refunded two items of the same price on one order; the second refund never went "
        "through at the card processor and no error was shown",
        {
            C("review_comments_refunds"): 3,
            S(REFUNDS, "issue_refund"): 3,
            S(GATEWAY, "GatewayClient.refund"): 1,
            C("refunds_partial"): 1,
        },
    ),
    _q(
        "v2-symptom-06",
        "symptom",
        "Coming back to the checkout tab after a while in another tab, the first click fails "
        "with 401 ERR_TOKEN_EXPIRED",
        {
            C("inc2390_web_refresh_margin"): 3,
            S(SESSION, "ensureFresh"): 3,
            S(SESSION, "scheduleRefresh"): 2,
            S(SESSION, "shouldRefresh"): 1,
        },
        (15,),
        file_filter="web/**",
    ),
    # coupled: files that change together, often without importing each other
    _q(
        "v2-coupled-01",
        "coupled",
        "If I rename an environment variable read in backend/config/settings.py, which other "
        "files usually have to be edited with it?",
        {
            F(K8S_API): 3,
            C("settings_cleanup"): 2,
            C("settings_rate_limits"): 2,
            F(NGINX): 1,
            S(SETTINGS, "get_settings"): 1,
        },
        (),
        (K8S_API, MIDDLEWARE, NGINX),
    ),
    _q(
        "v2-coupled-02",
        "coupled",
        "Which files have historically been modified in the same commits as "
        "worker/internal/jobs/runner.go?",
        {
            S(WORKER_MAIN, "main"): 3,
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 3,
            F(K8S_WORKER): 2,
            S(JOB_METRICS, "Metrics.Observe"): 1,
        },
        (6,),
        (RUNNER_TEST, WORKER_MAIN, K8S_WORKER, JOB_METRICS),
    ),
    _q(
        "v2-coupled-03",
        "coupled",
        "I'm changing how escape_cell quotes values in the Python finance CSV; what else needs "
        "the same edit?",
        {
            S(CSV_GO, "escapeCell"): 3,
            C("inc2602_csv_injection"): 2,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            C("export_columns"): 1,
            S(CSV_GO, "WriteOrdersCSV"): 1,
        },
        (9, 17),
        (CSV_GO, TEST_CSV_PY, CSV_GO_TEST),
    ),
    _q(
        "v2-coupled-04",
        "coupled",
        "When someone edits backend/promotions/rules.py, which files tend to move with it, "
        "including ones outside the backend?",
        {
            S(BANNER, "renderPromoBanner"): 3,
            S(BANNER, "stackingNotice"): 2,
            F(TEST_PROMOTIONS): 2,
            S(CSV_PY, "export_promotions_csv"): 1,
            C("promo_min_subtotal"): 1,
        },
        (8,),
        (TEST_PROMOTIONS, BANNER, CSV_PY),
    ),
    _q(
        "v2-coupled-05",
        "coupled",
        "Which backend modules historically change together with web/src/auth/session.ts?",
        {
            F(TOKENS): 3,
            F(REFRESH): 2,
            C("access_ttl_15m"): 2,
            C("inc2291_clock_skew"): 1,
            C("refresh_tokens"): 1,
        },
        (1, 15),
        (TOKENS, REFRESH, WEB_CLIENT),
    ),
    _q(
        "v2-coupled-06",
        "coupled",
        "What is usually modified alongside backend/payments/idempotency.py?",
        {
            F(OFFLINE): 3,
            C("inc2472_idempotency_ttl"): 3,
            S(SERVICE, "OrderService.place_order"): 2,
            F(MIGRATION_IDEMPOTENCY): 1,
        },
        (10,),
        (OFFLINE, TEST_IDEMPOTENCY, SERVICE, MIGRATION_IDEMPOTENCY),
    ),
    _q(
        "v2-coupled-07",
        "coupled",
        "Does worker/internal/payments/reconcile.go have any co-change partner on the Python side?",
        {
            S(GATEWAY, "GatewayTimeout"): 3,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
            S(RECONCILE, "classifyGatewayStatus"): 1,
        },
        (12,),
        (RECONCILE_TEST, GATEWAY),
    ),
    # exact: error codes, incident ids, identifiers
    _q(
        "v2-exact-01",
        "exact",
        "ERR_IDEMPOTENCY_MISMATCH",
        {
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 3,
            S(IDEMPOTENCY, "request_fingerprint"): 2,
            C("idempotency_store"): 2,
            F(ERRORS): 1,
        },
    ),
    _q(
        "v2-exact-02",
        "exact",
        "where is ERR_ORDER_EMPTY raised",
        {
            S(SCHEMAS, "OrderCreate.items_not_empty"): 3,
            C("schemas_validation"): 2,
            S(SCHEMAS, "OrderCreate"): 1,
        },
    ),
    _q(
        "v2-exact-03",
        "exact",
        "INC-2458",
        {
            C("inc2458_sliding_window"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            S(LIMITER, "RateLimiter.allow"): 2,
            S(LIMITER, "RateLimiter._roll"): 1,
        },
        (3,),
    ),
    _q(
        "v2-exact-04",
        "exact",
        "ERR_JOB_UNKNOWN_KIND",
        {
            S(RUNNER, "Runner.handle"): 3,
            S(RUNNER_TEST, "TestUnknownKindIsRetried"): 2,
            S(HANDLERS, "DefaultHandlers"): 1,
        },
        file_filter="worker/**",
    ),
    _q(
        "v2-exact-05",
        "exact",
        "Larkspur-Signature header t= v1=",
        {
            S(WEBHOOKS, "sign_webhook"): 3,
            S(WEBHOOKS, "verify_webhook_signature"): 2,
            C("webhooks"): 1,
        },
    ),
    _q(
        "v2-exact-06",
        "exact",
        "ERR_PARSE_STATUS",
        {
            S(PARSER, "parseStatus"): 3,
            C("refunds_partial"): 2,
            S(ORDER_SCREEN, "statusLabel"): 1,
        },
        file_filter="mobile/**",
    ),
    # change: imperative requests; the answer is where the edit goes and what it must respect
    _q(
        "v2-change-01",
        "change",
        "Add Canadian dollars as an order currency in the API and both clients",
        {
            F(SCHEMAS): 3,
            F(MIGRATION_CURRENCY): 2,
            S(MONEY_TS, "formatMoney"): 2,
            C("currency_support"): 2,
            S(WEB_ORDERS, "OrderDTO"): 1,
        },
        (5,),
    ),
    _q(
        "v2-change-02",
        "change",
        "Allow promotion codes of up to 20 characters",
        {
            S(CODES, "validate_code"): 3,
            S(CART, "canApplyPromo"): 3,
            S(CODES, "normalize_code"): 1,
            C("promo_codes_normalize"): 1,
        },
    ),
    _q(
        "v2-change-03",
        "change",
        "Pass the refunded amount through to the refund notification e-mail template",
        {
            S(HANDLERS, "sendRefundIssued"): 3,
            S(HANDLERS, "emailPayload"): 2,
            S(NOTIFICATIONS, "refund_job"): 2,
            F(REFUND_TEMPLATE): 2,
            C("email_refund_template"): 1,
        },
    ),
    _q(
        "v2-change-04",
        "change",
        "Cut the number of charge attempts per order from four to three",
        {
            S(RETRY, "RetryPolicy"): 3,
            S(RETRY, "RetryPolicy.delays"): 1,
            S(SETTINGS, "Settings"): 1,
            F(NGINX): 1,
            F(RUNBOOK): 1,
        },
    ),
    _q(
        "v2-change-05",
        "change",
        "Add a refunded_cents column to both finance CSV exports, the admin download and the "
        "nightly file",
        {
            S(CSV_PY, "order_row"): 3,
            S(CSV_GO, "WriteOrdersCSV"): 3,
            S(CSV_GO, "Order"): 2,
            F(CSV_PY): 2,
            C("export_columns"): 1,
        },
    ),
    _q(
        "v2-change-06",
        "change",
        "Apply the per-client request limit to POST /auth/password-reset as well",
        {
            F(MIDDLEWARE): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            S(LIMITER, "client_key"): 1,
            F(NGINX): 1,
        },
    ),
    _q(
        "v2-change-07",
        "change",
        "Display the two-hour delivery slot the customer picked in the app's OrderDetailScreen",
        {
            S(ORDER_SCREEN, "OrderDetailScreen"): 3,
            S(PARSER, "parseDeliveryWindow"): 2,
            S(MOBILE_MODELS, "DeliveryWindow"): 2,
            C("delivery_window"): 1,
        },
        file_filter="mobile/**",
    ),
)

# --- held-out v3: written from the fixture's history and recorded failures, to measure whether a
# warning fits what the query is about to do. About half re-attempt (or ask about) a recorded
# failure in other words than the failure's own; the other half are unrelated changes and
# questions on the same files and symbols, where no warning is expected. Report it, never tune
# on it ----------------------------------------------------------------------------------------

TEST_TOKENS = "tests/backend/test_tokens.py"

_HELDOUT_V3: tuple[_Row, ...] = (
    # causal
    _q(
        "v3-causal-01",
        "causal",
        "What broke when the nightly worker stopped limiting how many jobs of a batch run at once?",
        {
            C("worker_perf_revert"): 3,
            C("worker_perf_unbounded"): 2,
            S(RUNNER, "Runner.processBatch"): 2,
            C("worker_inflight_comment"): 1,
        },
        (6,),
    ),
    _q(
        "v3-causal-02",
        "causal",
        "Why were hit and miss counters added to the TTL cache?",
        {C("cache_stats"): 3, S(CACHE, "TTLCache.get"): 1},
    ),
    _q(
        "v3-causal-03",
        "causal",
        "Why must a reconciliation lookup that timed out not mark the payment as failed?",
        {C("inc2710_reconcile_timeout"): 3, S(RECONCILE, "classifyGatewayStatus"): 2},
        (12,),
    ),
    _q(
        "v3-causal-04",
        "causal",
        "Why do access tokens now expire after only fifteen minutes?",
        {C("access_ttl_15m"): 3, S(TOKENS, "issue_token"): 1},
    ),
    _q(
        "v3-causal-05",
        "causal",
        "Why did the finance export gain currency, subtotal and discount columns?",
        {C("export_columns"): 3, S(CSV_PY, "order_row"): 2},
    ),
    # behavioral
    _q(
        "v3-behavioral-01",
        "behavioral",
        "How does RateLimiter.allow decide that a client crossing the window boundary is over "
        "its quota?",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            C("inc2458_sliding_window"): 2,
        },
        (3,),
    ),
    _q(
        "v3-behavioral-02",
        "behavioral",
        "How is the Retry-After value computed for a client that got throttled?",
        {S(LIMITER, "RateLimiter.retry_after"): 3, C("rate_limit_headers"): 2},
    ),
    _q(
        "v3-behavioral-03",
        "behavioral",
        "What makes classify_response treat a 409 or a 429 from the gateway as final rather "
        "than retryable?",
        {
            S(GATEWAY, "classify_response"): 3,
            S(GATEWAY, "GatewayDeclined"): 2,
            C("inc2188_declined_fix"): 1,
        },
        (7,),
    ),
    _q(
        "v3-behavioral-04",
        "behavioral",
        "What does GatewayClient.refund send to the card processor for a partial refund?",
        {
            S(GATEWAY, "GatewayClient.refund"): 3,
            S(REFUNDS, "issue_refund"): 2,
            C("refunds_partial"): 1,
        },
    ),
    _q(
        "v3-behavioral-05",
        "behavioral",
        "How does is_active decide whether a campaign has started in the shop's own time zone?",
        {S(RULES, "is_active"): 3, S(RULES, "_as_shop_time"): 2, C("promo_expiry_tz"): 2},
    ),
    # symptom
    _q(
        "v3-symptom-01",
        "symptom",
        "A shopper's card was captured twice because the second charge attempt carried a "
        "different key",
        {C("inc2407_idempotency_retry"): 3, S(RETRY, "charge_with_retry"): 2},
        (0, 16),
    ),
    _q(
        "v3-symptom-02",
        "symptom",
        "Negative adjustments in the nightly Go export were evaluated as formulas when "
        "accounting opened the file",
        {S(CSV_GO, "escapeCell"): 3, C("inc2602_csv_injection"): 2},
        (9, 17),
    ),
    _q(
        "v3-symptom-03",
        "symptom",
        "The pause between charge attempts grows too slowly, the third attempt fires only a "
        "moment after the second",
        {S(RETRY, "RetryPolicy.delays"): 3, S(RETRY, "RetryPolicy"): 2},
    ),
    _q(
        "v3-symptom-04",
        "symptom",
        "A client reused an Idempotency-Key for a different basket and got the first order back "
        "instead of an error",
        {S(IDEMPOTENCY, "request_fingerprint"): 3, S(IDEMPOTENCY, "IdempotencyStore.lookup"): 2},
    ),
    _q(
        "v3-symptom-05",
        "symptom",
        "A stolen refresh token kept working because the server only rejected the replayed "
        "token and not the others issued from it",
        {
            C("inc2744_refresh_reuse"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 2,
        },
        (11,),
    ),
    # coupled
    _q(
        "v3-coupled-01",
        "coupled",
        "Which tests and deployment files move with a change to how many jobs runner.go "
        "processes concurrently?",
        {
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 3,
            F(K8S_WORKER): 2,
            S(RUNNER, "Runner.processBatch"): 1,
        },
        (6,),
        (RUNNER_TEST, K8S_WORKER),
    ),
    _q(
        "v3-coupled-02",
        "coupled",
        "Adding a new claim in issue_token of backend/auth/tokens.py: which other files usually "
        "change in the same commit?",
        {F(SESSION): 3, F(TEST_TOKENS): 2, S(TOKENS, "issue_token"): 1},
        (),
        (SESSION, TEST_TOKENS),
    ),
    _q(
        "v3-coupled-03",
        "coupled",
        "If I loosen how percentage codes combine in apply_promotions, what else in the "
        "repository has to follow?",
        {
            S(BANNER, "stackingNotice"): 3,
            F(TEST_PROMOTIONS): 2,
            S(RULES, "apply_promotions"): 2,
        },
        (8,),
        (BANNER, TEST_PROMOTIONS),
    ),
    _q(
        "v3-coupled-04",
        "coupled",
        "Renaming the subtotal column of the Python order export: which files elsewhere need "
        "the same rename?",
        {S(CSV_GO, "WriteOrdersCSV"): 3, S(CSV_PY, "order_row"): 2},
        (),
        (CSV_GO,),
    ),
    _q(
        "v3-coupled-05",
        "coupled",
        "Before shortening the nginx upstream read timeout, which manifests and settings must "
        "stay in line with it?",
        {F(K8S_API): 3, F(NGINX): 2, S(SETTINGS, "Settings"): 1},
        (14,),
        (K8S_API,),
    ),
    # exact
    _q(
        "v3-exact-01",
        "exact",
        "INC-2801",
        {C("inc2801_pagination"): 3, S(ORDERS_API, "encode_cursor"): 2},
        (13,),
    ),
    _q(
        "v3-exact-02",
        "exact",
        "RECORD_TTL",
        {F(IDEMPOTENCY): 3, C("inc2472_idempotency_ttl"): 2},
        (10,),
    ),
    _q(
        "v3-exact-03",
        "exact",
        "ERR_TOKEN_SIGNATURE",
        {S(TOKENS, "validate_token"): 3},
    ),
    _q(
        "v3-exact-04",
        "exact",
        "ERR_REFUND_AMOUNT",
        {S(REFUNDS, "issue_refund"): 3, F(ERRORS): 1},
    ),
    _q(
        "v3-exact-05",
        "exact",
        "ERR_GATEWAY_REJECTED",
        {S(GATEWAY, "classify_response"): 3, C("inc2188_declined_fix"): 1},
        (7,),
    ),
    # change: an intended change, a re-attempt of a failure or an unrelated edit of its code
    _q(
        "v3-change-01",
        "change",
        "Drop the mutex from the TTL cache's lookup so reads stop contending with writers",
        {S(CACHE, "TTLCache.get"): 3, C("cache_perf_revert"): 2, C("cache_race_test"): 1},
        (2,),
    ),
    _q(
        "v3-change-02",
        "change",
        "Accept amounts like 12.5 in the app's order payloads by rounding them to whole cents "
        "instead of rejecting them",
        {S(PARSER, "parseMoney"): 3, C("inc2333_mobile_cents"): 2},
        (4,),
        file_filter="mobile/**",
    ),
    _q(
        "v3-change-03",
        "change",
        "Parse an optional gift message from order payloads in the mobile app",
        {S(PARSER, "parseOrder"): 3, S(MOBILE_MODELS, "Order"): 2},
        file_filter="mobile/**",
    ),
    _q(
        "v3-change-04",
        "change",
        "Make access token expiry strict: refuse a token as soon as its exp time has passed, "
        "with no leeway",
        {S(TOKENS, "validate_token"): 3, C("inc2291_clock_skew"): 2},
        (1,),
    ),
    _q(
        "v3-change-05",
        "change",
        "Remember the device's user agent when a new refresh token family is started",
        {S(REFRESH, "start_session"): 3, S(REFRESH, "RefreshTokenStore"): 2},
    ),
)

# --- held-out v4: written from the fixture's history and recorded failures after v3 had been used to
# diagnose warnings, to check the warning rule again on text nobody tuned on. Fourteen queries
# ask about, search for or re-attempt what a recorded failure tried; sixteen are other changes,
# questions and lookups on the same files and symbols (and a few elsewhere), where a warning is a
# false alarm. Report it, never tune on it -------------------------------------------------------

MIGRATION_REVOCATIONS = "db/migrations/0008_refresh_token_revocations.sql"
TEST_REFRESH = "tests/backend/test_refresh.py"

_HELDOUT_V4: tuple[_Row, ...] = (
    # causal
    _q(
        "v4-causal-01",
        "causal",
        "What went wrong with the faster unlocked cache lookup that later had to be backed out?",
        {
            C("cache_perf_revert"): 3,
            C("cache_perf_lockfree"): 2,
            S(CACHE, "TTLCache.get"): 2,
            C("cache_race_test"): 1,
        },
        (2,),
    ),
    _q(
        "v4-causal-02",
        "causal",
        "Why does a page token for the orders list carry the order id next to the creation time?",
        {C("inc2801_pagination"): 3, S(ORDERS_API, "encode_cursor"): 2},
        (13,),
    ),
    _q(
        "v4-causal-03",
        "causal",
        "Why were stored password hashes moved from PBKDF2 to scrypt?",
        {C("passwords_scrypt"): 3, S(PASSWORDS, "hash_password"): 2},
    ),
    _q(
        "v4-causal-04",
        "causal",
        "Why does the reconciliation job write a log line for every charge it looks at?",
        {C("worker_reconcile_logging"): 3, S(RECONCILE, "Reconcile"): 2},
    ),
    _q(
        "v4-causal-05",
        "causal",
        "What motivated a lowest basket amount below which a promotion code gives nothing?",
        {C("promo_min_subtotal"): 3, S(RULES, "discount_for"): 2},
    ),
    # behavioral
    _q(
        "v4-behavioral-01",
        "behavioral",
        "How does get_or_load keep the cache lock released while the loader callback runs?",
        {S(CACHE, "TTLCache.get_or_load"): 3, S(CACHE, "TTLCache.get"): 1},
    ),
    _q(
        "v4-behavioral-02",
        "behavioral",
        "What keeps two percent-off codes from both being taken off the same basket?",
        {S(RULES, "apply_promotions"): 3, C("inc2655_promo_stacking"): 2},
        (8,),
    ),
    _q(
        "v4-behavioral-03",
        "behavioral",
        "How does the refresh token store find the record for a token a client presents, "
        "given that only digests are kept?",
        {S(REFRESH, "RefreshTokenStore.find"): 3, S(REFRESH, "_digest"): 2},
    ),
    _q(
        "v4-behavioral-04",
        "behavioral",
        "What outcome does the Go reconciler give a charge whose status lookup at the gateway "
        "ran out of time?",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE, "Reconcile"): 1,
        },
        (12,),
    ),
    _q(
        "v4-behavioral-05",
        "behavioral",
        "How does client_key choose between the signed-in user and the caller's IP address?",
        {S(LIMITER, "client_key"): 3},
    ),
    # symptom
    _q(
        "v4-symptom-01",
        "symptom",
        "An order queued on a phone without signal was created twice when the app replayed it "
        "a day and a half later",
        {
            C("inc2472_idempotency_ttl"): 3,
            F(IDEMPOTENCY): 2,
            S(OFFLINE, "replayQueue"): 1,
        },
        (10,),
    ),
    _q(
        "v4-symptom-02",
        "symptom",
        "Checkout calls come back as 504 from the proxy although the card is still being charged "
        "behind it",
        {C("inc2689_nginx_timeout"): 3, F(NGINX): 2, S(SETTINGS, "Settings"): 1},
        (14,),
    ),
    _q(
        "v4-symptom-03",
        "symptom",
        "The basket badge says 1 item for a single line holding three units of the same product",
        {C("web_cart_badge"): 3, S(CART, "cartLabel"): 2},
    ),
    _q(
        "v4-symptom-04",
        "symptom",
        "A shopper with the shop open in a second browser window loses the session in both "
        "right after a silent token refresh",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            C("inc2744_refresh_reuse"): 2,
            S(SESSION, "refreshNow"): 1,
        },
        (11,),
    ),
    _q(
        "v4-symptom-05",
        "symptom",
        "Idempotency records that have run out keep piling up in memory because nothing ever "
        "drops them",
        {
            S(IDEMPOTENCY, "IdempotencyStore.purge_expired"): 3,
            S(IDEMPOTENCY, "IdempotencyStore.remember"): 1,
        },
    ),
    # coupled
    _q(
        "v4-coupled-01",
        "coupled",
        "A new attribute on OrderOut, the API's order schema: which client-side parsers have "
        "to learn it as well?",
        {F(WEB_ORDERS): 3, F(PARSER): 2, S(SCHEMAS, "OrderOut"): 2},
        (),
        (WEB_ORDERS, PARSER),
    ),
    _q(
        "v4-coupled-02",
        "coupled",
        "I want escapeCell in the Go export to leave a leading minus sign unquoted; which other "
        "files hold the same escaping rule and its checks?",
        {S(CSV_PY, "escape_cell"): 3, S(CSV_GO, "escapeCell"): 2, F(CSV_GO_TEST): 2},
        (17, 9),
        (CSV_PY, CSV_GO_TEST),
    ),
    _q(
        "v4-coupled-03",
        "coupled",
        "Working on the rotation code in backend/auth/refresh.py: which migrations and tests "
        "have historically been edited in the same commits?",
        {F(TEST_REFRESH): 3, F(MIGRATION_REVOCATIONS): 2, S(REFRESH, "rotate_refresh_token"): 1},
        (),
        (TEST_REFRESH, MIGRATION_REVOCATIONS),
    ),
    _q(
        "v4-coupled-04",
        "coupled",
        "Let each job in a batch start at the same moment in runner.go: what else would have "
        "to change alongside?",
        {
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 3,
            F(K8S_WORKER): 2,
            S(RUNNER, "Runner.processBatch"): 2,
        },
        (6,),
        (RUNNER_TEST, K8S_WORKER),
    ),
    _q(
        "v4-coupled-05",
        "coupled",
        "Giving promotion codes a per-customer usage limit in backend/promotions/rules.py: what "
        "other files usually move together with it?",
        {F(TEST_PROMOTIONS): 3, F(BANNER): 2, S(RULES, "Promotion"): 1},
        (),
        (TEST_PROMOTIONS, BANNER),
    ),
    # exact
    _q(
        "v4-exact-01",
        "exact",
        "revoke_family",
        {
            S(REFRESH, "RefreshTokenStore.revoke_family"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            C("inc2744_refresh_reuse"): 2,
        },
        (11,),
    ),
    _q(
        "v4-exact-02",
        "exact",
        "request_fingerprint",
        {S(IDEMPOTENCY, "request_fingerprint"): 3, S(IDEMPOTENCY, "IdempotencyStore.lookup"): 1},
    ),
    _q(
        "v4-exact-03",
        "exact",
        "has_scope",
        {S(TOKENS, "has_scope"): 3},
    ),
    _q(
        "v4-exact-04",
        "exact",
        "INC-2390",
        {C("inc2390_web_refresh_margin"): 3, S(SESSION, "ensureFresh"): 2},
        (15,),
    ),
    _q(
        "v4-exact-05",
        "exact",
        "ERR_RATE_LIMITED",
        {
            S(MIDDLEWARE, "rate_limit_middleware"): 3,
            S(LIMITER, "RateLimiter.allow"): 2,
            F(ERRORS): 1,
        },
    ),
    # change: re-attempts of a recorded failure, and other edits of the same code
    _q(
        "v4-change-01",
        "change",
        "Give each gateway charge attempt its own freshly generated idempotency key",
        {S(RETRY, "charge_with_retry"): 3, C("inc2407_idempotency_retry"): 2},
        (0, 16),
    ),
    _q(
        "v4-change-02",
        "change",
        "Cap the pause between two charge retries at five seconds whatever the attempt number",
        {S(RETRY, "RetryPolicy.delays"): 3, S(RETRY, "RetryPolicy"): 2},
    ),
    _q(
        "v4-change-03",
        "change",
        "Treat HTTP 429 answers from the card processor as temporary so the charge is tried again",
        {S(GATEWAY, "classify_response"): 3, C("inc2188_declined_fix"): 1},
        (7,),
    ),
    _q(
        "v4-change-04",
        "change",
        "Read a tip in cents from the app's order JSON and keep it on the Order model",
        {S(PARSER, "parseOrder"): 3, S(PARSER, "parseMoney"): 2, S(MOBILE_MODELS, "Order"): 2},
        file_filter="mobile/**",
    ),
    _q(
        "v4-change-05",
        "change",
        "Count only the requests of the current minute in RateLimiter.allow and stop weighting "
        "in the previous window",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            C("inc2458_sliding_window"): 2,
        },
        (3,),
    ),
)

# --- held-out v5: written from the fixture's history (commit messages and diffs) and its recorded
# failures before the warning rule that follows v4 was changed, to check that rule on text nobody
# tuned on. Sixteen queries look for or re-attempt what a recorded failure tried, in every form an
# agent asks: why-questions, behaviour questions, symptoms of the incident a fix closed, bare
# incident ids, error codes and constants, co-change questions and intended changes. Fourteen are
# other questions, lookups and changes on the files and symbols those failures changed, where a
# warning is a false alarm. Wording is new (not taken from dev or v1-v4). Report it, never tune
# on it --------------------------------------------------------------------------------------------

TEST_RATE_LIMITER = "tests/backend/test_rate_limiter.py"

_HELDOUT_V5: tuple[_Row, ...] = (
    # causal
    _q(
        "v5-causal-01",
        "causal",
        "Why must all tries of one charge share a single deduplication key with the payment "
        "provider?",
        {C("inc2407_idempotency_retry"): 3, S(RETRY, "charge_with_retry"): 2},
        (0, 16),
    ),
    _q(
        "v5-causal-02",
        "causal",
        "What made the team put the concurrency ceiling back into the Go batch runner?",
        {
            C("worker_perf_revert"): 3,
            C("worker_perf_unbounded"): 2,
            S(RUNNER, "Runner.processBatch"): 2,
            C("worker_inflight_comment"): 1,
        },
        (6,),
    ),
    _q(
        "v5-causal-03",
        "causal",
        "Which incident is the reason only the largest percentage reduction applies to a basket?",
        {C("inc2655_promo_stacking"): 3, S(RULES, "apply_promotions"): 2},
        (8,),
    ),
    _q(
        "v5-causal-04",
        "causal",
        "What prompted the finance export rows to carry each order's currency and its discount?",
        {C("export_columns"): 3, S(CSV_PY, "order_row"): 2},
    ),
    _q(
        "v5-causal-05",
        "causal",
        "Why are access tokens issued for fifteen minutes rather than a full hour?",
        {C("access_ttl_15m"): 3, F(TOKENS): 2},
    ),
    # behavioral
    _q(
        "v5-behavioral-01",
        "behavioral",
        "When the card processor answers 409 Conflict, does the charge loop try again or stop?",
        {
            S(GATEWAY, "classify_response"): 3,
            S(RETRY, "charge_with_retry"): 2,
            C("inc2188_declined_fix"): 1,
        },
        (7,),
    ),
    _q(
        "v5-behavioral-02",
        "behavioral",
        "Which leading characters make escape_cell put an apostrophe in front of a value?",
        {S(CSV_PY, "escape_cell"): 3, C("inc2602_csv_injection"): 2, S(CSV_GO, "escapeCell"): 1},
        (9, 17),
    ),
    _q(
        "v5-behavioral-03",
        "behavioral",
        "How does TTLCache.stats work out the share of lookups that found a fresh entry?",
        {S(CACHE, "TTLCache.stats"): 3, C("cache_stats"): 2},
    ),
    _q(
        "v5-behavioral-04",
        "behavioral",
        "What does the gateway client do with a response body that is not valid JSON?",
        {S(GATEWAY, "_parse_body"): 3, S(GATEWAY, "GatewayClient._post"): 1},
    ),
    _q(
        "v5-behavioral-05",
        "behavioral",
        "What does start_session hand back to the client right after sign-in?",
        {S(REFRESH, "start_session"): 3, C("refresh_tokens"): 2},
    ),
    # symptom
    _q(
        "v5-symptom-01",
        "symptom",
        "Finance found a few hundred orders paid for two times after the payment provider's "
        "answers kept timing out for an hour",
        {C("inc2407_idempotency_retry"): 3, S(RETRY, "charge_with_retry"): 2},
        (0, 16),
    ),
    _q(
        "v5-symptom-02",
        "symptom",
        "Paid orders got cancelled and their stock released because the nightly job could not "
        "reach the gateway's status endpoint in time",
        {
            C("inc2710_reconcile_timeout"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 2,
            S(RECONCILE, "Reconcile"): 1,
        },
        (12,),
    ),
    _q(
        "v5-symptom-03",
        "symptom",
        "Android checkout refuses some baskets with ERR_TOTAL_MISMATCH, the total is one cent off",
        {C("inc2333_mobile_cents"): 3, S(PARSER, "parseMoney"): 2},
        (4,),
    ),
    _q(
        "v5-symptom-04",
        "symptom",
        "A campaign code that was meant to end at midnight in Stockholm kept working for another "
        "hour",
        {
            C("promo_expiry_tz"): 3,
            S(RULES, "_as_shop_time"): 2,
            S(RULES, "is_active"): 2,
        },
    ),
    _q(
        "v5-symptom-05",
        "symptom",
        "Clients throttled at login receive a 429 with no hint about when they may come back",
        {
            C("rate_limit_headers"): 3,
            S(LIMITER, "RateLimiter.retry_after"): 2,
            S(MIDDLEWARE, "rate_limit_middleware"): 1,
        },
    ),
    # coupled
    _q(
        "v5-coupled-01",
        "coupled",
        "Removing the currency field from OrderDTO in web/src/api/orders.ts: which other files "
        "carried that field together with it?",
        {S(WEB_ORDERS, "OrderDTO"): 3, F(SCHEMAS): 2, F(MOBILE_MODELS): 2},
        (5,),
        (SCHEMAS, MOBILE_MODELS),
    ),
    _q(
        "v5-coupled-02",
        "coupled",
        "If RateLimiter.allow went back to one fixed counter per minute, which tests and callers "
        "get edited with it?",
        {S(LIMITER, "RateLimiter.allow"): 3, F(TEST_RATE_LIMITER): 2, F(MIDDLEWARE): 2},
        (3,),
        (TEST_RATE_LIMITER, MIDDLEWARE),
    ),
    _q(
        "v5-coupled-03",
        "coupled",
        "Adding a new kind of job to worker/internal/jobs/runner.go: what else tends to be "
        "edited by the commits that touch it?",
        {S(RUNNER, "Runner.handle"): 3, F(WORKER_MAIN): 2, F(RUNNER_TEST): 2},
        (),
        (WORKER_MAIN, RUNNER_TEST),
    ),
    _q(
        "v5-coupled-04",
        "coupled",
        "Storing one more attribute per idempotency record in backend/payments/idempotency.py: "
        "which migration and tests come along?",
        {F(MIGRATION_IDEMPOTENCY): 3, F(TEST_IDEMPOTENCY): 2, S(IDEMPOTENCY, "_Record"): 2},
        (),
        (MIGRATION_IDEMPOTENCY, TEST_IDEMPOTENCY),
    ),
    _q(
        "v5-coupled-05",
        "coupled",
        "A sign-out-everywhere button calling endSession in web/src/auth/session.ts: which "
        "backend files have changed alongside that module?",
        {S(SESSION, "endSession"): 3, F(TOKENS): 2, F(REFRESH): 2},
        (),
        (TOKENS, REFRESH),
    ),
    # exact
    _q(
        "v5-exact-01",
        "exact",
        "MaxInFlight",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            C("worker_inflight_comment"): 2,
            S(RUNNER, "Runner"): 2,
        },
        (6,),
    ),
    _q(
        "v5-exact-02",
        "exact",
        "INC-2744",
        {C("inc2744_refresh_reuse"): 3, S(REFRESH, "rotate_refresh_token"): 2},
        (11,),
    ),
    _q(
        "v5-exact-03",
        "exact",
        "FORMULA_PREFIXES",
        {S(CSV_PY, "escape_cell"): 3, C("inc2602_csv_injection"): 2, F(CSV_PY): 1},
        (9, 17),
    ),
    _q(
        "v5-exact-04",
        "exact",
        "order_row",
        {S(CSV_PY, "order_row"): 3, S(CSV_PY, "export_orders_csv"): 1},
    ),
    _q(
        "v5-exact-05",
        "exact",
        "GatewayClient.refund",
        {S(GATEWAY, "GatewayClient.refund"): 3, C("refunds_partial"): 1},
    ),
    # change: re-attempts of a recorded failure, and other edits of the same code
    _q(
        "v5-change-01",
        "change",
        "Stop honouring the sixty seconds of leeway on token expiry: a token past its exp claim "
        "must be refused",
        {S(TOKENS, "validate_token"): 3, C("inc2291_clock_skew"): 2},
        (1,),
    ),
    _q(
        "v5-change-02",
        "change",
        "Keep idempotency records for a single day only, the keys table has grown too large",
        {F(IDEMPOTENCY): 3, C("inc2472_idempotency_ttl"): 2},
        (10,),
        file_filter="backend/**",
    ),
    _q(
        "v5-change-03",
        "change",
        "Cut the storefront's refresh calls by letting the session run closer to its expiry "
        "before renewing",
        {S(SESSION, "shouldRefresh"): 3, C("inc2390_web_refresh_margin"): 2},
        (15,),
    ),
    _q(
        "v5-change-04",
        "change",
        "Log the gateway's request id whenever classify_response sees a 5xx answer",
        {S(GATEWAY, "classify_response"): 3, S(GATEWAY, "GatewayClient._post"): 1},
    ),
    _q(
        "v5-change-05",
        "change",
        "Let TTLCache.invalidate drop every key that starts with a given prefix",
        {S(CACHE, "TTLCache.invalidate"): 3, S(CACHE, "TTLCache.clear"): 1},
    ),
)

# --- held-out v6: questions as a new user asks them (natural language around paths and
# identifiers, "what else must change with FILE", plain-word symptoms, change requests); about a
# third expect a recorded failure, the rest are controls where no warning is due ------------------

_HELDOUT_V6: tuple[_Row, ...] = (
    # causal
    _q(
        "v6-causal-01",
        "causal",
        "Why does our spreadsheet export put a quote in front of cells beginning with a plus or "
        "minus sign, not only an equals sign?",
        {
            C("inc2602_csv_injection"): 3,
            S(CSV_PY, "escape_cell"): 3,
            S(CSV_GO, "escapeCell"): 2,
        },
        (9, 17),
    ),
    _q(
        "v6-causal-02",
        "causal",
        "What made us start sending Retry-After and RateLimit-Limit back with a 429?",
        {
            C("rate_limit_headers"): 3,
            S(LIMITER, "RateLimiter.retry_after"): 2,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
        },
    ),
    _q(
        "v6-causal-03",
        "causal",
        "Why is worker/internal/jobs/runner.go capped at a few concurrent handlers instead of "
        "starting a goroutine for every job in the batch?",
        {
            C("worker_perf_revert"): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            C("worker_inflight_comment"): 2,
            C("worker_perf_unbounded"): 1,
        },
        (6,),
    ),
    _q(
        "v6-causal-04",
        "causal",
        "Why did access tokens go from an hour of lifetime down to fifteen minutes?",
        {C("access_ttl_15m"): 3, F(TOKENS): 2, S(TOKENS, "issue_token"): 1, F(SESSION): 1},
    ),
    _q(
        "v6-causal-05",
        "causal",
        "Why does the Go reconciler leave a charge pending when the gateway lookup timed out, "
        "rather than calling it failed?",
        {
            C("inc2710_reconcile_timeout"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE, "Reconcile"): 1,
        },
        (12,),
    ),
    _q(
        "v6-causal-06",
        "causal",
        "Why does issue_refund build its idempotency key from the running refunded total "
        "instead of the amount?",
        {
            C("review_comments_refunds"): 3,
            S(REFUNDS, "issue_refund"): 3,
            C("refunds_partial"): 1,
        },
    ),
    _q(
        "v6-causal-07",
        "causal",
        "Why does the worker let the jobs it already started run to completion when Kubernetes "
        "stops the pod?",
        {
            C("worker_shutdown"): 3,
            S(RUNNER, "Runner.Run"): 2,
            S(WORKER_MAIN, "main"): 2,
            F(K8S_WORKER): 1,
        },
    ),
    # behavioral
    _q(
        "v6-behavioral-01",
        "behavioral",
        "What does verify_webhook_signature do when the t= timestamp in the header is older than "
        "five minutes?",
        {S(WEBHOOKS, "verify_webhook_signature"): 3, C("webhooks"): 1},
    ),
    _q(
        "v6-behavioral-02",
        "behavioral",
        "How much weight does RateLimiter.allow give to the requests a client made in the "
        "previous minute?",
        {
            S(LIMITER, "RateLimiter._estimate"): 3,
            S(LIMITER, "RateLimiter.allow"): 3,
            C("inc2458_sliding_window"): 2,
        },
        (3,),
    ),
    _q(
        "v6-behavioral-03",
        "behavioral",
        "Which entry does the TTL cache throw away when it is full and a new key comes in?",
        {S(CACHE, "TTLCache.set"): 3, S(CACHE, "TTLCache"): 1},
    ),
    _q(
        "v6-behavioral-04",
        "behavioral",
        "In web/src/checkout/cart.ts, what number ends up on the cart badge when someone buys "
        "three of the same shirt?",
        {S(CART, "cartLabel"): 3, C("web_cart_badge"): 2, S(CART, "lineTotalCents"): 1},
        file_filter="web/**",
    ),
    _q(
        "v6-behavioral-05",
        "behavioral",
        "How does backend/auth/passwords.py handle a user whose stored hash still uses PBKDF2 "
        "when they sign in?",
        {
            S(PASSWORDS, "verify_password"): 3,
            S(PASSWORDS, "needs_rehash"): 3,
            C("passwords_scrypt"): 2,
        },
    ),
    _q(
        "v6-behavioral-06",
        "behavioral",
        "What does decode_cursor do with a next_cursor value somebody edited by hand?",
        {S(ORDERS_API, "decode_cursor"): 3, S(ORDERS_API, "list_orders"): 1},
    ),
    _q(
        "v6-behavioral-07",
        "behavioral",
        "What happens to the order when the nightly reconciliation finds that its charge failed "
        "at the gateway?",
        {S(RECONCILE, "Reconcile"): 3, C("worker_reconcile"): 2},
    ),
    _q(
        "v6-behavioral-08",
        "behavioral",
        "How does escapeCell in the Go export keep spreadsheet apps from evaluating a value like "
        "+SUM(A1)?",
        {
            S(CSV_GO, "escapeCell"): 3,
            C("inc2602_csv_injection"): 2,
            S(CSV_GO, "WriteOrdersCSV"): 1,
        },
        (17,),
    ),
    # symptom
    _q(
        "v6-symptom-01",
        "symptom",
        "Someone squeezed forty login tries into two seconds by sending half of them right "
        "before the clock hit a new minute",
        {
            C("inc2458_sliding_window"): 3,
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
        },
        (3,),
    ),
    _q(
        "v6-symptom-02",
        "symptom",
        "A partner's security team says our signature check lets an attacker find the right "
        "MAC one character at a time",
        {C("webhook_constant_time"): 3, S(WEBHOOKS, "verify_webhook_signature"): 3},
    ),
    _q(
        "v6-symptom-03",
        "symptom",
        "Every time we deploy, a handful of customers receive their order confirmation e-mail "
        "twice",
        {
            C("worker_shutdown"): 3,
            S(RUNNER, "Runner.Run"): 2,
            S(WORKER_MAIN, "main"): 2,
        },
    ),
    _q(
        "v6-symptom-04",
        "symptom",
        "A reorder button sent a basket with nothing in it, the card processor said 400 and the "
        "shopper only saw a generic error",
        {C("schemas_validation"): 3, S(SCHEMAS, "OrderCreate.items_not_empty"): 3},
    ),
    _q(
        "v6-symptom-05",
        "symptom",
        "We refunded two items of the same price separately and the customer only got the "
        "money back for one of them",
        {
            C("review_comments_refunds"): 3,
            S(REFUNDS, "issue_refund"): 3,
            S(GATEWAY, "GatewayClient.refund"): 1,
        },
    ),
    _q(
        "v6-symptom-06",
        "symptom",
        "Shoppers typing the flyer code with its hyphen, or pasting it from an e-mail, are told "
        "the code is invalid",
        {C("promo_codes_normalize"): 3, S(CODES, "normalize_code"): 3, S(CODES, "lookup_code"): 1},
    ),
    _q(
        "v6-symptom-07",
        "symptom",
        "People who hit Pay twice in a row on a slow connection got two separate orders",
        {
            C("idempotency_store"): 3,
            S(ORDERS_API, "create_order"): 2,
            F(IDEMPOTENCY): 2,
            S(SERVICE, "OrderService.place_order"): 1,
        },
    ),
    # coupled
    _q(
        "v6-coupled-01",
        "coupled",
        "What else must change with backend/export/csv_export.py when finance asks for one more "
        "column?",
        {S(CSV_GO, "WriteOrdersCSV"): 3, F(TEST_CSV_PY): 2, S(CSV_PY, "order_row"): 2},
        (),
        (CSV_GO, TEST_CSV_PY),
    ),
    _q(
        "v6-coupled-02",
        "coupled",
        "Which files are normally kept in step with mobile/src/models/order.ts?",
        {S(PARSER, "parseOrder"): 3, S(SCHEMAS, "OrderOut"): 2, S(WEB_ORDERS, "OrderDTO"): 2},
        (),
        (PARSER, SCHEMAS),
    ),
    _q(
        "v6-coupled-03",
        "coupled",
        "What else usually gets edited together with backend/auth/refresh.py?",
        {
            F(TEST_REFRESH): 3,
            F(MIGRATION_REFRESH): 2,
            F(MIGRATION_REVOCATIONS): 2,
            S(SESSION, "refreshNow"): 1,
        },
        (),
        (TEST_REFRESH, MIGRATION_REFRESH),
    ),
    _q(
        "v6-coupled-04",
        "coupled",
        "If I touch worker/internal/payments/reconcile.go, which other files have historically "
        "moved with it?",
        {F(RECONCILE_TEST): 3, F(GATEWAY): 2, C("inc2710_reconcile_timeout"): 1},
        (),
        (RECONCILE_TEST, GATEWAY),
    ),
    _q(
        "v6-coupled-05",
        "coupled",
        "Which files in other folders and languages need updating along with "
        "backend/api/schemas.py when the order payload grows a field?",
        {
            S(PARSER, "parseOrder"): 3,
            S(WEB_ORDERS, "parseOrderResponse"): 3,
            S(MOBILE_MODELS, "Order"): 2,
            S(MODELS, "Order"): 1,
        },
        (),
        (PARSER, WEB_ORDERS, MOBILE_MODELS),
    ),
    _q(
        "v6-coupled-06",
        "coupled",
        "backend/promotions/rules.py: which tests and storefront files tend to land in the same "
        "commits?",
        {
            F(TEST_PROMOTIONS): 3,
            S(BANNER, "renderPromoBanner"): 2,
            S(BANNER, "stackingNotice"): 1,
        },
        (),
        (TEST_PROMOTIONS, BANNER),
    ),
    _q(
        "v6-coupled-07",
        "coupled",
        "Which other files did the commits that edited backend/core/rate_limiter.py also touch?",
        {F(TEST_RATE_LIMITER): 3, S(MIDDLEWARE, "rate_limit_middleware"): 2},
        (),
        (TEST_RATE_LIMITER, MIDDLEWARE),
    ),
    # exact
    _q(
        "v6-exact-01",
        "exact",
        "SIGNATURE_TOLERANCE_SECONDS",
        {S(WEBHOOKS, "verify_webhook_signature"): 3, F(WEBHOOKS): 2, C("webhooks"): 1},
    ),
    _q(
        "v6-exact-02",
        "exact",
        "statusLabel",
        {S(ORDER_SCREEN, "statusLabel"): 3, C("mobile_order_screen_status"): 2},
    ),
    _q(
        "v6-exact-03",
        "exact",
        "INC-2833",
        {C("promo_expiry_tz"): 3, S(RULES, "_as_shop_time"): 2, S(RULES, "is_active"): 2},
    ),
    _q(
        "v6-exact-04",
        "exact",
        "needs_rehash",
        {
            S(PASSWORDS, "needs_rehash"): 3,
            C("passwords_scrypt"): 1,
            S(PASSWORDS, "verify_password"): 1,
        },
    ),
    _q(
        "v6-exact-05",
        "exact",
        "refundable_cents",
        {S(REFUNDS, "refundable_cents"): 3, S(REFUNDS, "issue_refund"): 1, C("refunds_partial"): 1},
    ),
    _q(
        "v6-exact-06",
        "exact",
        "sales_tax_cents",
        {S(TAX, "sales_tax_cents"): 3, C("order_tax_field"): 2},
    ),
    _q(
        "v6-exact-07",
        "exact",
        "OrderRepository.list_before",
        {S(REPOSITORY, "OrderRepository.list_before"): 3, C("inc2801_pagination"): 1},
    ),
    # change
    _q(
        "v6-change-01",
        "change",
        "Make the mobile parser round an amount like 12.5 to a whole cent instead of rejecting "
        "the whole payload",
        {S(PARSER, "parseMoney"): 3, C("inc2333_mobile_cents"): 2},
        (4,),
        file_filter="mobile/**",
    ),
    _q(
        "v6-change-02",
        "change",
        "In backend/auth/refresh.py, stop revoking the whole family: a reused refresh token "
        "should simply be refused as expired",
        {S(REFRESH, "rotate_refresh_token"): 3, C("inc2744_refresh_reuse"): 2},
        (11,),
    ),
    _q(
        "v6-change-03",
        "change",
        "Let marketing combine the welcome percentage code with a percentage campaign code in "
        "one checkout",
        {
            S(RULES, "apply_promotions"): 3,
            C("inc2655_promo_stacking"): 2,
            S(BANNER, "stackingNotice"): 1,
        },
        (8,),
    ),
    _q(
        "v6-change-04",
        "change",
        "Add the gateway charge id as a column of the order export, in the Python download and "
        "the Go nightly file alike",
        {
            S(CSV_PY, "order_row"): 3,
            S(CSV_GO, "WriteOrdersCSV"): 3,
            S(CSV_GO, "Order"): 2,
            F(TEST_CSV_PY): 1,
        },
    ),
    _q(
        "v6-change-05",
        "change",
        "Have the worker's retry backoff start at five seconds instead of two",
        {S(WORKER_MAIN, "main"): 3, S(BACKOFF, "Backoff.Next"): 1, S(BACKOFF, "Backoff"): 1},
    ),
    _q(
        "v6-change-06",
        "change",
        "In reconcile.go, mark a charge failed as soon as the gateway answer is anything but "
        "succeeded, so stock is released sooner",
        {S(RECONCILE, "classifyGatewayStatus"): 3, C("inc2710_reconcile_timeout"): 2},
        (12,),
    ),
    _q(
        "v6-change-07",
        "change",
        "Put the refunded amount with its currency into the refund notification e-mail",
        {
            F(REFUND_TEMPLATE): 3,
            S(NOTIFICATIONS, "refund_job"): 2,
            S(HANDLERS, "sendRefundIssued"): 2,
        },
    ),
    _q(
        "v6-change-08",
        "change",
        "Add an endpoint so customers can cancel an order themselves while it has not shipped",
        {
            S(SERVICE, "OrderService.cancel_order"): 3,
            S(MODELS, "Order.can_cancel"): 2,
            F(ORDERS_API): 2,
        },
    ),
)

# --- held-out v7: written from the fixture's files, commit messages and recorded failures (the
# graveyard) before the warning rule that follows v6 was changed, without running retrieval on it.
# Every class; about half the queries re-attempt, ask about or report a symptom of what a recorded
# failure tried (warning due), the others are questions, lookups and changes on the same files
# and often the same symbols, where a warning is a false alarm. Report it, never tune on it --------

TEST_ORDERS_API = "tests/backend/test_orders_api.py"

_HELDOUT_V7: tuple[_Row, ...] = (
    # causal
    _q(
        "v7-causal-01",
        "causal",
        "Why does validate_token still accept a token a minute after its exp claim? Isn't that "
        "a hole an attacker could use?",
        {C("inc2291_clock_skew"): 3, S(TOKENS, "validate_token"): 2},
        (1,),
    ),
    _q(
        "v7-causal-02",
        "causal",
        "What is the reasoning behind keeping idempotency records two full days rather than one?",
        {C("inc2472_idempotency_ttl"): 3, F(IDEMPOTENCY): 2, F(OFFLINE): 1},
        (10,),
    ),
    _q(
        "v7-causal-03",
        "causal",
        "Why is the proxy read timeout in front of the API as long as 45 seconds?",
        {C("inc2689_nginx_timeout"): 3, F(NGINX): 3, F(SETTINGS): 1},
        (14,),
    ),
    _q(
        "v7-causal-04",
        "causal",
        "Why does the page token of the order history carry the order id next to the timestamp?",
        {
            C("inc2801_pagination"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 1,
        },
        (13,),
    ),
    _q(
        "v7-causal-05",
        "causal",
        "Why is the checkout rate limit read from an environment variable instead of being "
        "hard-coded?",
        {C("settings_rate_limits"): 3, F(SETTINGS): 2, S(MIDDLEWARE, "rate_limit_middleware"): 1},
    ),
    _q(
        "v7-causal-06",
        "causal",
        "Why does the Go job runner report counts and latencies per job kind to Prometheus?",
        {
            C("worker_metrics"): 3,
            S(JOB_METRICS, "Metrics.Observe"): 2,
            S(RUNNER, "Runner.handle"): 1,
        },
    ),
    _q(
        "v7-causal-07",
        "causal",
        "Why are refresh tokens only stored as SHA-256 digests on our side?",
        {C("refresh_tokens"): 3, S(REFRESH, "_digest"): 3},
    ),
    _q(
        "v7-causal-08",
        "causal",
        "Why were hit and miss counters added to the TTL cache in the first place?",
        {C("cache_stats"): 3, S(CACHE, "TTLCache.stats"): 2},
    ),
    # behavioral
    _q(
        "v7-behavioral-01",
        "behavioral",
        "Is the lock held inside TTLCache.get even for a plain read of a value?",
        {S(CACHE, "TTLCache.get"): 3, C("cache_race_test"): 2, C("cache_perf_revert"): 2},
        (2,),
    ),
    _q(
        "v7-behavioral-02",
        "behavioral",
        "If the card gateway replies 429 Too Many Requests, will charge_with_retry send the "
        "charge again?",
        {
            S(GATEWAY, "classify_response"): 3,
            S(RETRY, "charge_with_retry"): 2,
            C("inc2188_declined_fix"): 1,
        },
        (7,),
    ),
    _q(
        "v7-behavioral-03",
        "behavioral",
        "When does the storefront's session code decide it is time to fetch a new access token?",
        {
            S(SESSION, "shouldRefresh"): 3,
            S(SESSION, "ensureFresh"): 2,
            C("inc2390_web_refresh_margin"): 2,
        },
        (15,),
        file_filter="web/**",
    ),
    _q(
        "v7-behavioral-04",
        "behavioral",
        "What does RateLimiter.retry_after return for a client that is still under its limit?",
        {S(LIMITER, "RateLimiter.retry_after"): 3, C("rate_limit_headers"): 2},
    ),
    _q(
        "v7-behavioral-05",
        "behavioral",
        "What does the gateway client put in the Authorization and Idempotency-Key headers of "
        "each POST?",
        {S(GATEWAY, "GatewayClient._post"): 3, S(GATEWAY, "GatewayClient.charge"): 1},
    ),
    _q(
        "v7-behavioral-06",
        "behavioral",
        "How does the reconciler classify a charge whose gateway status comes back as an empty "
        "string?",
        {S(RECONCILE, "classifyGatewayStatus"): 3, C("inc2710_reconcile_timeout"): 1},
        (12,),
    ),
    _q(
        "v7-behavioral-07",
        "behavioral",
        "What does parseDeliveryWindow return for an order cached before same-day delivery "
        "existed?",
        {S(PARSER, "parseDeliveryWindow"): 3, C("delivery_window"): 2},
        file_filter="mobile/**",
    ),
    _q(
        "v7-behavioral-08",
        "behavioral",
        "How long does a refresh token stay valid after it is handed out?",
        {F(REFRESH): 3, S(REFRESH, "start_session"): 2, C("refresh_tokens"): 2},
    ),
    _q(
        "v7-behavioral-09",
        "behavioral",
        "With two percentage vouchers in one basket, which of them does apply_promotions honour?",
        {
            S(RULES, "apply_promotions"): 3,
            C("inc2655_promo_stacking"): 2,
            S(RULES, "discount_for"): 1,
        },
        (8,),
    ),
    # symptom
    _q(
        "v7-symptom-01",
        "symptom",
        "Customers see the same purchase twice on their card statement after the payment "
        "provider had a slow afternoon",
        {C("inc2407_idempotency_retry"): 3, S(RETRY, "charge_with_retry"): 3},
        (0, 16),
    ),
    _q(
        "v7-symptom-02",
        "symptom",
        "The order confirmation page in the browser shows British shoppers their total in "
        "euros instead of pounds",
        {
            C("currency_support"): 3,
            S(WEB_ORDERS, "orderTotalLabel"): 2,
            S(WEB_ORDERS, "OrderDTO"): 2,
            S(MONEY_TS, "formatMoney"): 1,
        },
        (5,),
    ),
    _q(
        "v7-symptom-03",
        "symptom",
        "Support tickets: people with the shop open in two browser tabs get logged out on every "
        "device at once",
        {
            C("inc2744_refresh_reuse"): 3,
            S(REFRESH, "rotate_refresh_token"): 3,
            S(SESSION, "refreshNow"): 1,
        },
        (11,),
    ),
    _q(
        "v7-symptom-04",
        "symptom",
        "While the nightly export runs, checkout starts failing with ERR_DB_POOL_EXHAUSTED",
        {
            C("worker_perf_revert"): 3,
            S(RUNNER, "Runner.processBatch"): 3,
            C("worker_inflight_comment"): 2,
        },
        (6,),
    ),
    _q(
        "v7-symptom-05",
        "symptom",
        "An accountant opened the finance CSV and a customer note starting with =HYPERLINK ran "
        "as a formula",
        {
            C("inc2602_csv_injection"): 3,
            S(CSV_PY, "escape_cell"): 3,
            S(CSV_GO, "escapeCell"): 2,
        },
        (9, 17),
    ),
    _q(
        "v7-symptom-06",
        "symptom",
        "Orders placed while the phone was offline vanish if the first replay attempt gets a 503",
        {C("mobile_offline_keep_failed"): 3, S(OFFLINE, "replayQueue"): 3},
    ),
    _q(
        "v7-symptom-07",
        "symptom",
        "A ten euro voucher was accepted on a thirty euro basket although the campaign said "
        "orders over fifty only",
        {C("promo_min_subtotal"): 3, S(RULES, "discount_for"): 3, S(RULES, "Promotion"): 1},
    ),
    _q(
        "v7-symptom-08",
        "symptom",
        "Kubernetes restarts every API pod whenever the database has a short outage",
        {S(HEALTH, "healthz"): 3, C("k8s_probes"): 2, F(K8S_API): 2},
    ),
    _q(
        "v7-symptom-09",
        "symptom",
        "Finance says the order spreadsheet has no currency column, so Swedish krona totals "
        "look like euros",
        {C("export_columns"): 3, S(CSV_PY, "order_row"): 3, S(CSV_GO, "WriteOrdersCSV"): 2},
    ),
    # coupled
    _q(
        "v7-coupled-01",
        "coupled",
        "If mobile/src/parsers/orderParser.ts started accepting fractional amounts, which other "
        "files change in the same commits?",
        {S(PARSER, "parseMoney"): 3, S(MOBILE_MODELS, "Order"): 2, F(SCHEMAS): 2},
        (4,),
        (MOBILE_MODELS, SCHEMAS),
    ),
    _q(
        "v7-coupled-02",
        "coupled",
        "Taking the semaphore out of Runner.processBatch: what else under worker/ usually changes "
        "along with runner.go?",
        {F(RUNNER_TEST): 3, S(WORKER_MAIN, "main"): 2, S(RUNNER, "Runner.processBatch"): 2},
        (6,),
        (RUNNER_TEST, WORKER_MAIN),
    ),
    _q(
        "v7-coupled-03",
        "coupled",
        "If we shorten RECORD_TTL in backend/payments/idempotency.py, which other files have "
        "moved with it before?",
        {F(TEST_IDEMPOTENCY): 3, F(OFFLINE): 2, C("inc2472_idempotency_ttl"): 2},
        (10,),
        (TEST_IDEMPOTENCY, OFFLINE),
    ),
    _q(
        "v7-coupled-04",
        "coupled",
        "Which files are usually edited together with backend/orders/service.py?",
        {F(SCHEMAS): 3, F(WEB_ORDERS): 2, F(MODELS): 2},
        (),
        (SCHEMAS, WEB_ORDERS, MODELS),
    ),
    _q(
        "v7-coupled-05",
        "coupled",
        "What other files did the commits touching worker/internal/export/csv.go also change?",
        {S(CSV_PY, "escape_cell"): 3, F(TEST_CSV_PY): 2, S(CSV_PY, "order_row"): 2},
        (),
        (CSV_PY, TEST_CSV_PY),
    ),
    _q(
        "v7-coupled-06",
        "coupled",
        "backend/auth/tokens.py: which tests and client-side files are kept in step with it?",
        {F(TEST_TOKENS): 3, S(SESSION, "shouldRefresh"): 2, F(SESSION): 2},
        (),
        (TEST_TOKENS, SESSION),
    ),
    _q(
        "v7-coupled-07",
        "coupled",
        "Which endpoint, migration and test files go along with changes to "
        "backend/orders/repository.py?",
        {
            F(ORDERS_API): 3,
            F(TEST_ORDERS_API): 2,
            F("db/migrations/0009_orders_created_id_index.sql"): 2,
        },
        (),
        (ORDERS_API, TEST_ORDERS_API),
    ),
    _q(
        "v7-coupled-08",
        "coupled",
        "If the silent refresh in web/src/auth/session.ts waited until the server's clock-skew "
        "grace ran out, which server files would need to agree?",
        {S(TOKENS, "validate_token"): 3, F(TOKENS): 2, S(SESSION, "shouldRefresh"): 2},
        (15,),
        (TOKENS,),
    ),
    # exact
    _q(
        "v7-exact-01",
        "exact",
        "proxy_read_timeout",
        {F(NGINX): 3, C("inc2689_nginx_timeout"): 2, F(SETTINGS): 1},
        (14,),
    ),
    _q(
        "v7-exact-02",
        "exact",
        "REFRESH_MARGIN_MS",
        {F(SESSION): 3, S(SESSION, "shouldRefresh"): 2, C("inc2390_web_refresh_margin"): 2},
        (15,),
    ),
    _q(
        "v7-exact-03",
        "exact",
        "OutcomePending",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE, "Outcome"): 2,
            C("inc2710_reconcile_timeout"): 2,
        },
        (12,),
    ),
    _q(
        "v7-exact-04",
        "exact",
        "ERR_REFUND_NOT_ALLOWED",
        {S(REFUNDS, "issue_refund"): 3, C("refunds_partial"): 1},
    ),
    _q(
        "v7-exact-05",
        "exact",
        "RetryPolicy.delays",
        {S(RETRY, "RetryPolicy.delays"): 3, S(RETRY, "RetryPolicy"): 2},
    ),
    _q(
        "v7-exact-06",
        "exact",
        "export_promotions_csv",
        {S(CSV_PY, "export_promotions_csv"): 3, C("promotions_export"): 2},
    ),
    _q(
        "v7-exact-07",
        "exact",
        "INC-2602",
        {
            C("inc2602_csv_injection"): 3,
            S(CSV_PY, "escape_cell"): 2,
            S(CSV_GO, "escapeCell"): 2,
        },
        (9, 17),
    ),
    _q(
        "v7-exact-08",
        "exact",
        "TTLCache.get_or_load",
        {S(CACHE, "TTLCache.get_or_load"): 3, S(CODES, "lookup_code"): 1},
    ),
    _q(
        "v7-exact-09",
        "exact",
        "Backoff.Next",
        {S(BACKOFF, "Backoff.Next"): 3, C("worker_backoff_tests"): 1},
    ),
    # change
    _q(
        "v7-change-01",
        "change",
        "Make backend/auth/tokens.py reject a token the moment its exp time has passed, with no "
        "leeway",
        {S(TOKENS, "validate_token"): 3, C("inc2291_clock_skew"): 2},
        (1,),
    ),
    _q(
        "v7-change-02",
        "change",
        "Speed up cache reads by letting TTLCache.get skip taking the RLock",
        {S(CACHE, "TTLCache.get"): 3, C("cache_perf_revert"): 2, C("cache_perf_lockfree"): 1},
        (2,),
    ),
    _q(
        "v7-change-03",
        "change",
        "Treat a 409 Conflict from the card processor as a transient error so the charge is "
        "attempted again",
        {
            S(GATEWAY, "classify_response"): 3,
            C("inc2188_declined_fix"): 2,
            S(RETRY, "charge_with_retry"): 1,
        },
        (7,),
    ),
    _q(
        "v7-change-04",
        "change",
        "Drop the id from the cursor that GET /orders hands out, the timestamp alone should be "
        "enough",
        {
            S(ORDERS_API, "encode_cursor"): 3,
            S(ORDERS_API, "decode_cursor"): 2,
            C("inc2801_pagination"): 2,
        },
        (13,),
    ),
    _q(
        "v7-change-05",
        "change",
        "Replace the weighted two-window estimate in the rate limiter with a plain per-minute "
        "counter",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            C("inc2458_sliding_window"): 2,
        },
        (3,),
    ),
    _q(
        "v7-change-06",
        "change",
        "Let client_key in backend/core/rate_limiter.py limit partners by their API key "
        "instead of their IP address",
        {S(LIMITER, "client_key"): 3, S(MIDDLEWARE, "rate_limit_middleware"): 2},
    ),
    _q(
        "v7-change-07",
        "change",
        "Add a buy-one-get-one promotion kind next to percent, fixed and free shipping",
        {S(RULES, "discount_for"): 3, S(RULES, "Promotion"): 2, S(RULES, "apply_promotions"): 1},
    ),
    _q(
        "v7-change-08",
        "change",
        "Pass the order's currency from charge_with_retry through to the gateway charge call",
        {
            S(RETRY, "charge_with_retry"): 3,
            S(GATEWAY, "GatewayClient.charge"): 3,
            S(SERVICE, "OrderService._charge"): 2,
        },
    ),
    _q(
        "v7-change-09",
        "change",
        "In worker/internal/payments/reconcile.go, flag a succeeded charge as a mismatch also "
        "when its currency differs from ours",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE, "GatewayStatus"): 2,
            S(RECONCILE, "Charge"): 2,
        },
    ),
    _q(
        "v7-change-10",
        "change",
        "Make escape_cell also neutralise cells that begin with a pipe character",
        {S(CSV_PY, "escape_cell"): 3, S(CSV_GO, "escapeCell"): 2, F(TEST_CSV_PY): 1},
    ),
)


# --- held-out v8: written from the fixture's files, commit messages and recorded failures before
# the change it evaluates, without running retrieval on it. Same class mix and warning balance as
# v7 (about half the queries re-attempt, ask about or report a symptom of what a recorded failure
# tried; the others ask about, look up or change the same files, where a warning is a false
# alarm), with new wording and partly new facts. Report it, never tune on it ---------------------

_HELDOUT_V8: tuple[_Row, ...] = (
    # causal
    _q(
        "v8-causal-01",
        "causal",
        "Presenting an old refresh token a second time signs the user out on all devices; what "
        "went wrong that made us revoke the entire token family?",
        {
            C("inc2744_refresh_reuse"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 1,
        },
        (11,),
    ),
    _q(
        "v8-causal-02",
        "causal",
        "What made us cap how many jobs of a single batch the Go worker may run concurrently?",
        {
            C("worker_inflight_comment"): 3,
            C("worker_perf_revert"): 2,
            S(RUNNER, "Runner.processBatch"): 2,
        },
        (6,),
    ),
    _q(
        "v8-causal-03",
        "causal",
        "Why do exported cells beginning with a minus or plus sign get an apostrophe put in "
        "front of them?",
        {
            C("inc2602_csv_injection"): 3,
            S(CSV_PY, "escape_cell"): 2,
            S(CSV_GO, "escapeCell"): 2,
        },
        (9, 17),
    ),
    _q(
        "v8-causal-04",
        "causal",
        "When the gateway lookup times out, reconciliation leaves the charge pending; why not "
        "simply record it as failed?",
        {C("inc2710_reconcile_timeout"): 3, S(RECONCILE, "classifyGatewayStatus"): 2},
        (12,),
    ),
    _q(
        "v8-causal-05",
        "causal",
        "Why can a shopper no longer combine the welcome percentage code with a seasonal one?",
        {
            C("inc2655_promo_stacking"): 3,
            S(RULES, "apply_promotions"): 2,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 1,
        },
        (8,),
    ),
    _q(
        "v8-causal-06",
        "causal",
        "What led us to move password hashing to scrypt, and what becomes of hashes made with "
        "PBKDF2?",
        {
            C("passwords_scrypt"): 3,
            S(PASSWORDS, "needs_rehash"): 2,
            S(PASSWORDS, "verify_password"): 2,
        },
    ),
    _q(
        "v8-causal-07",
        "causal",
        "What was the motivation for checking partner webhook signatures in constant time?",
        {C("webhook_constant_time"): 3, S(WEBHOOKS, "verify_webhook_signature"): 2},
    ),
    _q(
        "v8-causal-08",
        "causal",
        "Access tokens used to live longer; why were they cut down to a quarter of an hour?",
        {C("access_ttl_15m"): 3, S(TOKENS, "issue_token"): 2},
    ),
    _q(
        "v8-causal-09",
        "causal",
        "Why are the start and end of a promotion campaign read in the shop's own time zone "
        "rather than UTC?",
        {
            C("promo_expiry_tz"): 3,
            S(RULES, "_as_shop_time"): 3,
            S(RULES, "is_active"): 1,
        },
    ),
    # behavioral
    _q(
        "v8-behavioral-01",
        "behavioral",
        "Can one thread reading a key through TTLCache.get while another evicts it end in an "
        "exception?",
        {S(CACHE, "TTLCache.get"): 3, C("cache_race_test"): 2, C("cache_perf_revert"): 1},
        (2,),
    ),
    _q(
        "v8-behavioral-02",
        "behavioral",
        "A client spends its whole quota in the last second of a minute: does it get a fresh full "
        "quota one second later?",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            C("inc2458_sliding_window"): 2,
        },
        (3,),
    ),
    _q(
        "v8-behavioral-03",
        "behavioral",
        "For how long after placing an order does a replay carrying the same Idempotency-Key "
        "still get the original answer back?",
        {
            F(IDEMPOTENCY): 3,
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 2,
            C("inc2472_idempotency_ttl"): 2,
        },
        (10,),
    ),
    _q(
        "v8-behavioral-04",
        "behavioral",
        "What happens in the app when an order payload carries an amount such as 12.5?",
        {
            S(PARSER, "parseMoney"): 3,
            C("inc2333_mobile_cents"): 2,
            S(PARSER, "parseOrder"): 1,
        },
        (4,),
        file_filter="mobile/**",
    ),
    _q(
        "v8-behavioral-05",
        "behavioral",
        "If the first charge attempt times out, is the second attempt sent with an identical "
        "Idempotency-Key header?",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 3,
            S(GATEWAY, "GatewayClient._post"): 1,
        },
        (0, 16),
    ),
    _q(
        "v8-behavioral-06",
        "behavioral",
        "How is a voucher entered with full-width letters and hyphens matched to a stored code?",
        {
            S(CODES, "normalize_code"): 3,
            C("promo_codes_normalize"): 2,
            S(CODES, "lookup_code"): 1,
        },
    ),
    _q(
        "v8-behavioral-07",
        "behavioral",
        "Which order states still let Order.can_cancel return true?",
        {S(MODELS, "Order.can_cancel"): 3, S(SERVICE, "OrderService.cancel_order"): 2},
    ),
    _q(
        "v8-behavioral-08",
        "behavioral",
        "After one partial refund, how much of the captured payment can still be given back?",
        {
            S(REFUNDS, "refundable_cents"): 3,
            S(REFUNDS, "issue_refund"): 2,
            C("refunds_partial"): 2,
        },
    ),
    _q(
        "v8-behavioral-09",
        "behavioral",
        "What does decode_cursor do with a page token that is not valid base64 at all?",
        {
            S(ORDERS_API, "decode_cursor"): 3,
            S(TEST_ORDERS_API, "test_malformed_cursor_is_a_client_error"): 2,
            S(ORDERS_API, "list_orders"): 1,
        },
    ),
    # symptom
    _q(
        "v8-symptom-01",
        "symptom",
        "Shoppers get a 504 from the proxy although their card was charged, so they press pay "
        "again",
        {C("inc2689_nginx_timeout"): 3, F(NGINX): 3, F(SETTINGS): 1},
        (14,),
    ),
    _q(
        "v8-symptom-02",
        "symptom",
        "People whose phone clock runs a bit behind are thrown back to the login screen with "
        "ERR_TOKEN_EXPIRED just after signing in",
        {C("inc2291_clock_skew"): 3, S(TOKENS, "validate_token"): 3},
        (1,),
    ),
    _q(
        "v8-symptom-03",
        "symptom",
        "Two orders from a bulk import share a created_at, and one of them is missing when the "
        "history is read page by page",
        {
            C("inc2801_pagination"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
        },
        (13,),
    ),
    _q(
        "v8-symptom-04",
        "symptom",
        "The nightly job marked a payment as failed and we released the stock, but the bank had "
        "actually captured the money",
        {C("inc2710_reconcile_timeout"): 3, S(RECONCILE, "classifyGatewayStatus"): 3},
        (12,),
    ),
    _q(
        "v8-symptom-05",
        "symptom",
        "After the storefront sits idle for a while, its first API call comes back 401 and only "
        "the retry works",
        {
            C("inc2390_web_refresh_margin"): 3,
            S(SESSION, "shouldRefresh"): 3,
            S(SESSION, "ensureFresh"): 2,
        },
        (15,),
    ),
    _q(
        "v8-symptom-06",
        "symptom",
        "I put three of the same mug in the cart and the badge in the header still shows 1",
        {C("web_cart_badge"): 3, S(CART, "cartLabel"): 3},
    ),
    _q(
        "v8-symptom-07",
        "symptom",
        "Receipts for customers in Texas have no line for sales tax",
        {C("order_tax_field"): 3, S(TAX, "sales_tax_cents"): 3},
    ),
    _q(
        "v8-symptom-08",
        "symptom",
        "A rolling deploy of the worker cut jobs off halfway and some e-mails were never sent",
        {C("worker_shutdown"): 3, S(RUNNER, "Runner.Run"): 2, S(WORKER_MAIN, "main"): 2},
    ),
    _q(
        "v8-symptom-09",
        "symptom",
        "The login endpoint answers 429 but gives the client no hint of when it may try again",
        {
            C("rate_limit_headers"): 3,
            S(LIMITER, "RateLimiter.retry_after"): 2,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
        },
    ),
    # coupled
    _q(
        "v8-coupled-01",
        "coupled",
        "Suppose escape_cell stopped prefixing values that start with '+': which test and Go "
        "files would have to follow?",
        {S(CSV_PY, "escape_cell"): 3, S(CSV_GO, "escapeCell"): 2, F(TEST_CSV_PY): 2},
        (9, 17),
        (CSV_GO, TEST_CSV_PY),
    ),
    _q(
        "v8-coupled-02",
        "coupled",
        "If the reconciler treated every status other than succeeded as failed, which test and "
        "Python gateway file have moved with reconcile.go in the past?",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            F(RECONCILE_TEST): 2,
            S(GATEWAY, "classify_response"): 1,
        },
        (12,),
        (RECONCILE_TEST, GATEWAY),
    ),
    _q(
        "v8-coupled-03",
        "coupled",
        "Letting two percent-off vouchers apply to one basket: which storefront and test files "
        "ride along with the promotion rules?",
        {
            S(RULES, "apply_promotions"): 3,
            S(BANNER, "stackingNotice"): 2,
            F(TEST_PROMOTIONS): 2,
        },
        (8,),
        (BANNER, TEST_PROMOTIONS),
    ),
    _q(
        "v8-coupled-04",
        "coupled",
        "Cutting the upstream read timeout in deploy/nginx/api.conf to ten seconds: which "
        "manifest and Python config need to agree with it?",
        {F(NGINX): 3, F(K8S_API): 2, F(SETTINGS): 2},
        (14,),
        (K8S_API, SETTINGS),
    ),
    _q(
        "v8-coupled-05",
        "coupled",
        "Adding a WAREHOUSE_REGION variable to the Settings class: which deployment file usually "
        "gets edited in the same commit?",
        {S(SETTINGS, "Settings"): 3, F(K8S_API): 3, S(SETTINGS, "get_settings"): 1},
        (),
        (K8S_API,),
    ),
    _q(
        "v8-coupled-06",
        "coupled",
        "A loyalty_points attribute on the order the API returns: which TypeScript files in web "
        "and mobile have historically changed with backend/api/schemas.py?",
        {
            S(SCHEMAS, "OrderOut"): 3,
            S(WEB_ORDERS, "OrderDTO"): 2,
            S(PARSER, "parseOrder"): 2,
            S(MOBILE_MODELS, "Order"): 1,
        },
        (),
        (WEB_ORDERS, PARSER, MOBILE_MODELS),
    ),
    _q(
        "v8-coupled-07",
        "coupled",
        "Storing a device name with each refresh token: which migrations and tests have been "
        "committed together with backend/auth/refresh.py?",
        {
            F(TEST_REFRESH): 3,
            F(MIGRATION_REFRESH): 2,
            F(MIGRATION_REVOCATIONS): 2,
            S(REFRESH, "start_session"): 1,
        },
        (),
        (TEST_REFRESH, MIGRATION_REFRESH),
    ),
    _q(
        "v8-coupled-08",
        "coupled",
        "Registering a refund-reminder job kind with the Go worker: besides runner.go, which "
        "files are normally touched?",
        {
            S(WORKER_MAIN, "main"): 3,
            S(HANDLERS, "DefaultHandlers"): 2,
            F(RUNNER_TEST): 2,
            S(RUNNER, "Runner.handle"): 1,
        },
        (),
        (WORKER_MAIN, RUNNER_TEST),
    ),
    _q(
        "v8-coupled-09",
        "coupled",
        "Throttling password resets as well as logins: which test and middleware files co-change "
        "with backend/core/rate_limiter.py?",
        {
            F(TEST_RATE_LIMITER): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            S(LIMITER, "RateLimiter"): 1,
        },
        (),
        (TEST_RATE_LIMITER, MIDDLEWARE),
    ),
    # exact
    _q(
        "v8-exact-01",
        "exact",
        "INC-2689",
        {C("inc2689_nginx_timeout"): 3, F(NGINX): 2, F(SETTINGS): 1},
        (14,),
    ),
    _q(
        "v8-exact-02",
        "exact",
        "INC-2472",
        {C("inc2472_idempotency_ttl"): 3, F(IDEMPOTENCY): 2, F(TEST_IDEMPOTENCY): 1},
        (10,),
    ),
    _q(
        "v8-exact-03",
        "exact",
        "INC-2333",
        {
            C("inc2333_mobile_cents"): 3,
            S(PARSER, "parseMoney"): 2,
            S(MOBILE_MODELS, "Order"): 1,
        },
        (4,),
    ),
    _q(
        "v8-exact-04",
        "exact",
        "RETRYABLE_STATUSES",
        {S(GATEWAY, "classify_response"): 3, C("inc2188_declined_fix"): 2},
        (7,),
    ),
    _q(
        "v8-exact-05",
        "exact",
        "GATEWAY_LEGACY_URL",
        {C("settings_cleanup"): 3, F(SETTINGS): 1},
    ),
    _q(
        "v8-exact-06",
        "exact",
        "IdempotencyStore.purge_expired",
        {
            S(IDEMPOTENCY, "IdempotencyStore.purge_expired"): 3,
            S(IDEMPOTENCY, "IdempotencyStore.remember"): 1,
        },
    ),
    _q(
        "v8-exact-07",
        "exact",
        "TTLCache.invalidate",
        {S(CACHE, "TTLCache.invalidate"): 3, S(CACHE, "TTLCache.clear"): 1},
    ),
    _q(
        "v8-exact-08",
        "exact",
        "Metrics.Observe",
        {
            S(JOB_METRICS, "Metrics.Observe"): 3,
            C("worker_metrics"): 2,
            S(RUNNER, "Runner.handle"): 1,
        },
    ),
    _q(
        "v8-exact-09",
        "exact",
        "Order.can_cancel",
        {S(MODELS, "Order.can_cancel"): 3, S(SERVICE, "OrderService.cancel_order"): 1},
    ),
    # change
    _q(
        "v8-change-01",
        "change",
        "Generate a brand-new idempotency key for each pass of the loop in charge_with_retry, so a "
        "timed-out attempt cannot taint the next one",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            S(GATEWAY, "GatewayClient.charge"): 1,
        },
        (0, 16),
    ),
    _q(
        "v8-change-02",
        "change",
        "The storefront's OrderDTO can lose its currency property, every web order is in EUR",
        {
            S(WEB_ORDERS, "OrderDTO"): 3,
            S(WEB_ORDERS, "orderTotalLabel"): 2,
            C("currency_support"): 2,
        },
        (5,),
    ),
    _q(
        "v8-change-03",
        "change",
        "Make the mobile order parser forgiving about amounts like 19.99 instead of raising "
        "ERR_PARSE_AMOUNT",
        {
            S(PARSER, "parseMoney"): 3,
            C("inc2333_mobile_cents"): 2,
            S(PARSER, "parseOrder"): 1,
        },
        (4,),
    ),
    _q(
        "v8-change-04",
        "change",
        "Accounting's import rejects '-15.00 because of the apostrophe; make csv.go leave numbers "
        "that start with a minus alone",
        {
            S(CSV_GO, "escapeCell"): 3,
            C("inc2602_csv_injection"): 2,
            F(CSV_GO_TEST): 1,
        },
        (17,),
    ),
    _q(
        "v8-change-05",
        "change",
        "Instead of revoking the whole family when an already used refresh token comes back, "
        "just refuse that single request",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            C("inc2744_refresh_reuse"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 1,
        },
        (11,),
    ),
    _q(
        "v8-change-06",
        "change",
        "Report how many entries were evicted in TTLCache.stats next to the hit and miss counts",
        {S(CACHE, "TTLCache.stats"): 3, S(CACHE, "TTLCache.set"): 2, C("cache_stats"): 1},
    ),
    _q(
        "v8-change-07",
        "change",
        "Let the order endpoints demand an orders:write scope from the access token before "
        "creating an order",
        {
            S(TOKENS, "has_scope"): 3,
            S(ORDERS_API, "create_order"): 2,
            S(TOKENS, "validate_token"): 1,
        },
    ),
    _q(
        "v8-change-08",
        "change",
        "Carry the issuer's decline reason into the GatewayDeclined error so support can see it",
        {S(GATEWAY, "GatewayDeclined"): 3, S(GATEWAY, "classify_response"): 2},
    ),
    _q(
        "v8-change-09",
        "change",
        "Write the delivery window of each order into the Go nightly orders CSV",
        {
            S(CSV_GO, "WriteOrdersCSV"): 3,
            S(CSV_GO, "Order"): 2,
            S(CSV_PY, "order_row"): 1,
        },
    ),
    _q(
        "v8-change-10",
        "change",
        "Allow clients of GET /orders to ask for the oldest orders first",
        {
            S(ORDERS_API, "list_orders"): 3,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
            S(ORDERS_API, "encode_cursor"): 1,
        },
    ),
)


# --- held-out v9: written from the fixture's files, commit messages and recorded failures before
# the change it evaluates, without running retrieval on it; report it, never tune on it.
# LABELLING RULE: a query expects a warning only when what it asks or intends to do resembles the
# failed attempt itself (the same approach, the same change, or the symptom that attempt
# produced), not merely because it names the same file or symbol. A plain "what else changes
# with FILE" question with no intended change expects none, and so does a question about another
# aspect of a function some failure changed. About half the queries expect a warning; most
# controls ask about, look up or change a file that some failure changed --------------------------

TEST_RETRY = "tests/backend/test_retry.py"
TEST_GATEWAY = "tests/backend/test_gateway.py"
TEST_CACHE = "tests/backend/test_cache.py"
TEST_WEBHOOKS = "tests/backend/test_webhooks.py"
PARSER_TEST = "mobile/src/__tests__/orderParser.test.ts"
ORDER_SUMMARY = "web/src/components/OrderSummary.tsx"
BACKOFF_TEST = "worker/internal/retry/backoff_test.go"

_HELDOUT_V9: tuple[_Row, ...] = (
    # causal
    _q(
        "v9-causal-01",
        "causal",
        "Wouldn't it be cleaner if every retry in charge_with_retry minted its own idempotency "
        "key? Why does the loop insist on reusing the first one?",
        {
            C("inc2407_idempotency_retry"): 3,
            S(RETRY, "charge_with_retry"): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (0, 16),
    ),
    _q(
        "v9-causal-02",
        "causal",
        "Tokens are still accepted for a while after their exp claim has passed; is that leeway "
        "intended, or a hole we ought to close?",
        {
            C("inc2291_clock_skew"): 3,
            S(TOKENS, "validate_token"): 2,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 1,
        },
        (1,),
    ),
    _q(
        "v9-causal-03",
        "causal",
        "The limiter mixes a share of the previous minute into its count; why not simply count "
        "the requests made in the current minute?",
        {
            C("inc2458_sliding_window"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            S(LIMITER, "RateLimiter.allow"): 2,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 1,
        },
        (3,),
    ),
    _q(
        "v9-causal-04",
        "causal",
        "What would go wrong if the nightly reconciler booked a status lookup that timed out as "
        "a failed payment?",
        {
            C("inc2710_reconcile_timeout"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
        },
        (12,),
    ),
    _q(
        "v9-causal-05",
        "causal",
        "Why must an idempotency record live for two whole days, would a single day not do?",
        {
            C("inc2472_idempotency_ttl"): 3,
            F(IDEMPOTENCY): 2,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            F(OFFLINE): 1,
        },
        (10,),
    ),
    _q(
        "v9-causal-06",
        "causal",
        "Couldn't the page token of GET /orders be just the created_at timestamp? What made us "
        "put the order id into it as well?",
        {
            C("inc2801_pagination"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 1,
        },
        (13,),
    ),
    _q(
        "v9-causal-07",
        "causal",
        "What was the point of giving TTLCache hit and miss counters?",
        {C("cache_stats"): 3, S(CACHE, "TTLCache.stats"): 2},
    ),
    _q(
        "v9-causal-08",
        "causal",
        "Why do our 429 answers carry Retry-After and RateLimit-Limit headers now?",
        {
            C("rate_limit_headers"): 3,
            S(LIMITER, "RateLimiter.retry_after"): 2,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
        },
    ),
    _q(
        "v9-causal-09",
        "causal",
        "How come a card the bank declined is never charged a second time by the retry loop?",
        {
            C("inc2188_declined_fix"): 3,
            S(GATEWAY, "classify_response"): 2,
            S(RETRY, "charge_with_retry"): 1,
        },
    ),
    _q(
        "v9-causal-10",
        "causal",
        "Why does the Go worker let the batch it is running finish when Kubernetes sends SIGTERM?",
        {C("worker_shutdown"): 3, S(RUNNER, "Runner.Run"): 2, S(WORKER_MAIN, "main"): 2},
    ),
    # behavioral
    _q(
        "v9-behavioral-01",
        "behavioral",
        "Is TTLCache.get safe to call without holding the lock from the promotion lookup hot path "
        "while other threads keep setting keys?",
        {S(CACHE, "TTLCache.get"): 3, C("cache_race_test"): 2, C("cache_perf_revert"): 2},
        (2,),
    ),
    _q(
        "v9-behavioral-02",
        "behavioral",
        "Will the app's parser take 59.97 as an amount from an old cached order, or refuse it?",
        {
            S(PARSER, "parseMoney"): 3,
            C("inc2333_mobile_cents"): 2,
            F(PARSER_TEST): 1,
        },
        (4,),
        file_filter="mobile/**",
    ),
    _q(
        "v9-behavioral-03",
        "behavioral",
        "Does the storefront hold off refreshing until the access token is past exp but still "
        "inside the backend's skew allowance?",
        {
            S(SESSION, "shouldRefresh"): 3,
            C("inc2390_web_refresh_margin"): 2,
            C("inc2291_clock_skew"): 1,
        },
        (15,),
    ),
    _q(
        "v9-behavioral-04",
        "behavioral",
        "When the payment provider answers 429 Too Many Requests, does charge_with_retry have "
        "another go?",
        {
            S(GATEWAY, "classify_response"): 3,
            S(RETRY, "charge_with_retry"): 2,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 2,
        },
        (7,),
    ),
    _q(
        "v9-behavioral-05",
        "behavioral",
        "In the worker's nightly file, does a negative adjustment such as -42.10 come out with a "
        "quote in front?",
        {
            S(CSV_GO, "escapeCell"): 3,
            C("inc2602_csv_injection"): 2,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 1,
        },
        (17,),
    ),
    _q(
        "v9-behavioral-06",
        "behavioral",
        "What does RateLimiter.retry_after report to a client that was just throttled?",
        {
            S(LIMITER, "RateLimiter.retry_after"): 3,
            S(TEST_RATE_LIMITER, "test_retry_after_points_to_the_next_window"): 2,
            C("rate_limit_headers"): 2,
        },
    ),
    _q(
        "v9-behavioral-07",
        "behavioral",
        "Which kinds of stored hash does verify_password accept, and when does needs_rehash "
        "answer yes?",
        {
            S(PASSWORDS, "needs_rehash"): 3,
            S(PASSWORDS, "verify_password"): 3,
            C("passwords_scrypt"): 2,
        },
    ),
    _q(
        "v9-behavioral-08",
        "behavioral",
        "Can a free-shipping code be used on top of a percentage discount in apply_promotions?",
        {
            S(RULES, "apply_promotions"): 3,
            S(TEST_PROMOTIONS, "test_stackable_free_shipping_adds_to_a_percentage_code"): 2,
            C("inc2655_promo_stacking"): 1,
        },
    ),
    _q(
        "v9-behavioral-09",
        "behavioral",
        "After a successful rotation, what does the client get back: a new refresh token, a new "
        "access token, or both?",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            S(TEST_REFRESH, "test_rotation_returns_a_new_refresh_token"): 2,
            C("refresh_tokens"): 2,
        },
    ),
    _q(
        "v9-behavioral-10",
        "behavioral",
        "What delay does Backoff.Next give for attempt number 200, can the shift overflow?",
        {S(BACKOFF, "Backoff.Next"): 3, C("worker_backoff_tests"): 2},
    ),
    # symptom
    _q(
        "v9-symptom-01",
        "symptom",
        "A customer paid twice for one order after the first card payment hung; the provider "
        "shows two captures under two different keys",
        {
            C("inc2407_idempotency_retry"): 3,
            S(RETRY, "charge_with_retry"): 3,
            F(RUNBOOK): 1,
        },
        (0, 16),
    ),
    _q(
        "v9-symptom-02",
        "symptom",
        "Checkout requests die with a database pool error while the end-of-month export is "
        "running in the worker",
        {
            C("worker_perf_revert"): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            C("worker_inflight_comment"): 2,
        },
        (6,),
    ),
    _q(
        "v9-symptom-03",
        "symptom",
        "Someone with two browser tabs open gets logged out of every device at the same moment",
        {
            C("inc2744_refresh_reuse"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 2,
        },
        (11,),
    ),
    _q(
        "v9-symptom-04",
        "symptom",
        "Finance sees a stray apostrophe before delivery notes that begin with a dash bullet in "
        "the orders spreadsheet",
        {
            S(CSV_PY, "escape_cell"): 3,
            C("inc2602_csv_injection"): 2,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 1,
        },
        (9,),
    ),
    _q(
        "v9-symptom-05",
        "symptom",
        "The web build breaks in OrderSummary.tsx: property 'currency' does not exist on the "
        "order type",
        {
            S(WEB_ORDERS, "OrderDTO"): 3,
            F(ORDER_SUMMARY): 2,
            C("currency_support"): 2,
        },
        (5,),
    ),
    _q(
        "v9-symptom-06",
        "symptom",
        "Since the proxy timeouts were tightened, staging checkout shows a 504 page while charge "
        "retries are still in progress",
        {C("inc2689_nginx_timeout"): 3, F(NGINX): 3, F(SETTINGS): 1},
        (14,),
    ),
    _q(
        "v9-symptom-07",
        "symptom",
        "A wholesale customer's order history on page two lacks orders that were imported in "
        "the same instant",
        {
            C("inc2801_pagination"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
        },
        (13,),
    ),
    _q(
        "v9-symptom-08",
        "symptom",
        "Partner integrations hammer us in a tight loop after a 429 because they do not know how "
        "long to wait",
        {
            C("rate_limit_headers"): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            S(LIMITER, "RateLimiter.retry_after"): 2,
        },
    ),
    _q(
        "v9-symptom-09",
        "symptom",
        "The basket icon says 2 although the shopper has three units each of two products",
        {C("web_cart_badge"): 3, S(CART, "cartLabel"): 3},
    ),
    _q(
        "v9-symptom-10",
        "symptom",
        "A voucher that should have ended at midnight in Stockholm still works half an hour later",
        {
            C("promo_expiry_tz"): 3,
            S(RULES, "_as_shop_time"): 2,
            S(RULES, "is_active"): 2,
        },
    ),
    _q(
        "v9-symptom-11",
        "symptom",
        "A partner reports that our event signatures stop verifying once their proxy reformats "
        "the JSON body",
        {
            S(WEBHOOKS, "verify_webhook_signature"): 3,
            S(TEST_WEBHOOKS, "test_modified_body_is_rejected"): 2,
            S(WEBHOOKS, "sign_webhook"): 2,
        },
    ),
    # coupled
    _q(
        "v9-coupled-01",
        "coupled",
        "If I strip the currency property from OrderDTO in web/src/api/orders.ts, what else has "
        "to change with it?",
        {
            S(WEB_ORDERS, "OrderDTO"): 3,
            F(ORDER_SUMMARY): 2,
            S(SCHEMAS, "OrderOut"): 2,
            S(PARSER, "parseOrder"): 1,
        },
        (5,),
        (SCHEMAS, PARSER),
    ),
    _q(
        "v9-coupled-02",
        "coupled",
        "I'm going to drop the MaxInFlight cap in runner.go so batches drain faster; which tests "
        "and deployment files move with it?",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 2,
            F(K8S_WORKER): 2,
        },
        (6,),
        (RUNNER_TEST, K8S_WORKER),
    ),
    _q(
        "v9-coupled-03",
        "coupled",
        "Planning to stop prefixing export cells that begin with + or -; which second "
        "implementation must be changed the same way?",
        {
            S(CSV_PY, "escape_cell"): 3,
            S(CSV_GO, "escapeCell"): 3,
            F(CSV_GO_TEST): 1,
            F(TEST_CSV_PY): 1,
        },
        (9, 17),
        (CSV_GO, TEST_CSV_PY),
    ),
    _q(
        "v9-coupled-04",
        "coupled",
        "To let web/src/auth/session.ts refresh later by spending the server's skew allowance, "
        "which backend module has to agree?",
        {
            S(SESSION, "shouldRefresh"): 3,
            S(TOKENS, "validate_token"): 2,
            C("inc2291_clock_skew"): 2,
        },
        (15,),
        (TOKENS,),
    ),
    _q(
        "v9-coupled-05",
        "coupled",
        "Removing the after-expiry leeway from validate_token: which client code and tests are "
        "tied to that constant?",
        {
            S(TOKENS, "validate_token"): 3,
            S(SESSION, "shouldRefresh"): 2,
            F(TEST_TOKENS): 2,
        },
        (1,),
        (SESSION, TEST_TOKENS),
    ),
    _q(
        "v9-coupled-06",
        "coupled",
        "What usually changes together with backend/export/csv_export.py?",
        {
            S(CSV_GO, "escapeCell"): 3,
            F(TEST_CSV_PY): 3,
            S(CSV_GO, "WriteOrdersCSV"): 2,
        },
        (),
        (CSV_GO, TEST_CSV_PY),
    ),
    _q(
        "v9-coupled-07",
        "coupled",
        "I'm adding a gift_message to orders; which files in web and mobile move with "
        "backend/api/schemas.py?",
        {
            S(SCHEMAS, "OrderOut"): 3,
            S(WEB_ORDERS, "OrderDTO"): 2,
            S(PARSER, "parseOrder"): 2,
            S(MOBILE_MODELS, "Order"): 2,
            S(MODELS, "Order"): 1,
        },
        (),
        (WEB_ORDERS, PARSER, MOBILE_MODELS),
    ),
    _q(
        "v9-coupled-08",
        "coupled",
        "Which files have been edited alongside backend/payments/idempotency.py?",
        {
            F(TEST_IDEMPOTENCY): 3,
            F(MIGRATION_IDEMPOTENCY): 2,
            F(OFFLINE): 2,
            S(SERVICE, "OrderService.place_order"): 1,
        },
        (),
        (TEST_IDEMPOTENCY, OFFLINE),
    ),
    _q(
        "v9-coupled-09",
        "coupled",
        "Adding a 'disputed' outcome to reconcile.go: what else in the worker and the backend "
        "has to follow?",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            F(RECONCILE_TEST): 2,
            S(GATEWAY, "classify_response"): 1,
        },
        (),
        (RECONCILE_TEST, GATEWAY),
    ),
    _q(
        "v9-coupled-10",
        "coupled",
        "Changing how long access tokens from backend/auth/tokens.py live: which client file has "
        "to stay in step?",
        {
            S(TOKENS, "issue_token"): 3,
            S(SESSION, "shouldRefresh"): 2,
            C("access_ttl_15m"): 2,
        },
        (),
        (SESSION,),
    ),
    # exact
    _q(
        "v9-exact-01",
        "exact",
        "ERR_PAYMENT_DUPLICATE after ERR_GATEWAY_TIMEOUT",
        {
            C("inc2407_idempotency_retry"): 3,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 2,
            S(RETRY, "charge_with_retry"): 2,
            F(RUNBOOK): 1,
        },
        (0, 16),
    ),
    _q(
        "v9-exact-02",
        "exact",
        "ERR_DB_POOL_EXHAUSTED nightly export",
        {
            C("worker_perf_revert"): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            C("worker_inflight_comment"): 2,
        },
        (6,),
    ),
    _q(
        "v9-exact-03",
        "exact",
        "ERR_PROMO_STACKING WELCOME15",
        {
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 3,
            C("inc2655_promo_stacking"): 2,
            S(RULES, "apply_promotions"): 2,
        },
        (8,),
    ),
    _q(
        "v9-exact-04",
        "exact",
        "decodeExpiry",
        {S(SESSION, "decodeExpiry"): 3, S(SESSION, "shouldRefresh"): 1},
    ),
    _q(
        "v9-exact-05",
        "exact",
        "IdempotencyStore.lookup ERR_IDEMPOTENCY_MISMATCH",
        {
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 3,
            S(TEST_IDEMPOTENCY, "test_same_key_different_body_is_rejected"): 2,
            F(ERRORS): 1,
        },
    ),
    _q(
        "v9-exact-06",
        "exact",
        "FORMULA_PREFIXES escape_cell",
        {
            S(CSV_PY, "escape_cell"): 3,
            C("inc2602_csv_injection"): 2,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 1,
        },
    ),
    _q(
        "v9-exact-07",
        "exact",
        "OutcomePending classifyGatewayStatus",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
        },
    ),
    _q(
        "v9-exact-08",
        "exact",
        "TestHugeAttemptDoesNotOverflow",
        {
            S(BACKOFF_TEST, "TestHugeAttemptDoesNotOverflow"): 3,
            S(BACKOFF, "Backoff.Next"): 2,
            C("worker_backoff_tests"): 2,
        },
    ),
    _q(
        "v9-exact-09",
        "exact",
        "test_naive_campaign_bounds_are_shop_local_time",
        {
            S(TEST_PROMOTIONS, "test_naive_campaign_bounds_are_shop_local_time"): 3,
            C("promo_expiry_tz"): 2,
            S(RULES, "_as_shop_time"): 2,
        },
    ),
    # change
    _q(
        "v9-change-01",
        "change",
        "I'm going to let the welcome code and the spring campaign code both take their "
        "percentage off the same basket",
        {
            S(RULES, "apply_promotions"): 3,
            C("inc2655_promo_stacking"): 2,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
            S(BANNER, "stackingNotice"): 1,
        },
        (8,),
    ),
    _q(
        "v9-change-02",
        "change",
        "Shrink the idempotency_keys table by keeping each record for one day only",
        {
            F(IDEMPOTENCY): 3,
            C("inc2472_idempotency_ttl"): 2,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            S(IDEMPOTENCY, "IdempotencyStore.purge_expired"): 1,
        },
        (10,),
    ),
    _q(
        "v9-change-03",
        "change",
        "Make classifyGatewayStatus book every status other than succeeded or processing as a "
        "failed charge",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 1,
        },
        (12,),
    ),
    _q(
        "v9-change-04",
        "change",
        "Take the mutex out of the TTL cache's read path to speed up promotion lookups",
        {
            S(CACHE, "TTLCache.get"): 3,
            C("cache_perf_revert"): 2,
            C("cache_race_test"): 2,
            C("cache_perf_lockfree"): 1,
        },
        (2,),
    ),
    _q(
        "v9-change-05",
        "change",
        "Rewrite RateLimiter.allow as a plain fixed-window counter, the weighted estimate is too "
        "hard to reason about",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            C("inc2458_sliding_window"): 2,
        },
        (3,),
    ),
    _q(
        "v9-change-06",
        "change",
        "I'd like charge_with_retry to try again when the gateway replies 409 Conflict",
        {
            S(GATEWAY, "classify_response"): 3,
            S(RETRY, "charge_with_retry"): 2,
            C("inc2188_declined_fix"): 1,
        },
        (7,),
    ),
    _q(
        "v9-change-07",
        "change",
        "Add a jitter option to RetryPolicy.delays in backend/payments/retry.py",
        {
            S(RETRY, "RetryPolicy.delays"): 3,
            S(RETRY, "RetryPolicy"): 2,
            S(BACKOFF, "Backoff.Next"): 1,
        },
    ),
    _q(
        "v9-change-08",
        "change",
        "Log which client key was throttled each time the rate limit middleware turns a request "
        "away",
        {S(MIDDLEWARE, "rate_limit_middleware"): 3, S(LIMITER, "client_key"): 2},
    ),
    _q(
        "v9-change-09",
        "change",
        "Put the product SKU into every line that backend/export/csv_export.py writes",
        {
            S(CSV_PY, "order_row"): 3,
            S(CSV_PY, "export_orders_csv"): 2,
            S(CSV_GO, "WriteOrdersCSV"): 1,
        },
    ),
    _q(
        "v9-change-10",
        "change",
        "Give is_active in backend/promotions/rules.py an optional time zone override for shops "
        "that span two zones",
        {
            S(RULES, "is_active"): 3,
            S(RULES, "_as_shop_time"): 2,
            C("promo_expiry_tz"): 2,
        },
    ),
)


_HELDOUT_V10: tuple[_Row, ...] = (
    # causal
    _q(
        "v10-causal-01",
        "causal",
        "What's the reasoning behind blending last minute's tally into allow()'s decision, "
        "rather than a straight per-minute counter that resets on the hour mark?",
        {
            C("inc2458_sliding_window"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            S(LIMITER, "RateLimiter.allow"): 2,
        },
        (3,),
    ),
    _q(
        "v10-causal-02",
        "causal",
        "Why does presenting a refresh token a second time log out the whole token family "
        "instead of simply being refused like a stale token?",
        {
            C("inc2744_refresh_reuse"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 2,
        },
        (11,),
    ),
    _q(
        "v10-causal-03",
        "causal",
        "Why is the front proxy willing to wait 45 seconds for an API answer, isn't that far too "
        "patient for a web shop?",
        {C("inc2689_nginx_timeout"): 3, F(NGINX): 3, S(RETRY, "RetryPolicy"): 1},
        (14,),
    ),
    _q(
        "v10-causal-04",
        "causal",
        "What went wrong the last time the Go job runner fired off a whole batch with no ceiling "
        "on how many jobs run at once?",
        {
            C("worker_perf_revert"): 3,
            C("worker_perf_unbounded"): 2,
            S(RUNNER, "Runner.processBatch"): 2,
            C("worker_inflight_comment"): 2,
        },
        (6,),
    ),
    _q(
        "v10-causal-05",
        "causal",
        "All our storefront customers pay in euros, so what is the currency property on the web "
        "order type still good for?",
        {
            C("currency_support"): 3,
            S(WEB_ORDERS, "OrderDTO"): 2,
            F(ORDER_SUMMARY): 1,
        },
        (5,),
    ),
    _q(
        "v10-causal-06",
        "causal",
        "Why does RetryPolicy spread the charge attempts out over growing delays instead of "
        "retrying at once?",
        {
            S(RETRY, "RetryPolicy.delays"): 3,
            S(RETRY, "RetryPolicy"): 2,
            C("payments_gateway"): 2,
        },
    ),
    _q(
        "v10-causal-07",
        "causal",
        "What motivated cutting the lifetime of access tokens down to a quarter of an hour?",
        {C("access_ttl_15m"): 3, S(TOKENS, "issue_token"): 2},
    ),
    _q(
        "v10-causal-08",
        "causal",
        "Why were the TTL cache and the request limiter relocated into a shared core package?",
        {
            C("refactor_utils_to_core"): 3,
            S(CACHE, "TTLCache"): 1,
            S(LIMITER, "RateLimiter"): 1,
        },
    ),
    _q(
        "v10-causal-09",
        "causal",
        "Why did password storage move to scrypt, and what becomes of the older PBKDF2 digests?",
        {
            C("passwords_scrypt"): 3,
            S(PASSWORDS, "needs_rehash"): 2,
            S(PASSWORDS, "verify_password"): 2,
        },
    ),
    _q(
        "v10-causal-10",
        "causal",
        "Why are partner webhook signatures checked with a constant-time comparison rather than "
        "a plain string equality?",
        {C("webhook_constant_time"): 3, S(WEBHOOKS, "verify_webhook_signature"): 2},
    ),
    # behavioral
    _q(
        "v10-behavioral-01",
        "behavioral",
        "If a courier note in the finance spreadsheet begins with a plus sign, like +46 70 123 "
        "45 67, does the Python export still put an apostrophe in front of it?",
        {
            S(CSV_PY, "escape_cell"): 3,
            C("inc2602_csv_injection"): 2,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 1,
        },
        (9,),
    ),
    _q(
        "v10-behavioral-02",
        "behavioral",
        "When two orders carry exactly the same created_at, can the next-page token of the order "
        "listing still tell them apart?",
        {
            S(ORDERS_API, "encode_cursor"): 3,
            C("inc2801_pagination"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 1,
        },
        (13,),
    ),
    _q(
        "v10-behavioral-03",
        "behavioral",
        "How does the nightly payment check treat a gateway lookup that comes back empty or "
        "hits its deadline: left open, or written off?",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
        },
        (12,),
    ),
    _q(
        "v10-behavioral-04",
        "behavioral",
        "For how long is an Idempotency-Key remembered, and is that enough for a phone that "
        "replays an order after more than a day without signal?",
        {
            F(IDEMPOTENCY): 3,
            C("inc2472_idempotency_ttl"): 2,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            F(OFFLINE): 1,
        },
        (10,),
    ),
    _q(
        "v10-behavioral-05",
        "behavioral",
        "Can a reader of the TTL cache blow up with KeyError while another thread is evicting "
        "the very entry it is reading?",
        {
            S(CACHE, "TTLCache.get"): 3,
            C("cache_race_test"): 2,
            C("cache_perf_revert"): 2,
        },
        (2,),
    ),
    _q(
        "v10-behavioral-06",
        "behavioral",
        "What does GatewayClient.charge actually send to the payment provider in its request?",
        {S(GATEWAY, "GatewayClient.charge"): 3, S(GATEWAY, "GatewayClient._post"): 2},
    ),
    _q(
        "v10-behavioral-07",
        "behavioral",
        "What does discount_for give back for a fixed-amount code that is worth more than the "
        "basket's subtotal?",
        {
            S(RULES, "discount_for"): 3,
            C("promotions_engine"): 2,
            S(RULES, "apply_promotions"): 1,
        },
    ),
    _q(
        "v10-behavioral-08",
        "behavioral",
        "What does start_session hand to the client when a customer signs in?",
        {
            S(REFRESH, "start_session"): 3,
            C("refresh_tokens"): 2,
            S(REFRESH, "RefreshTokenStore"): 1,
        },
    ),
    _q(
        "v10-behavioral-09",
        "behavioral",
        "How does the app's parseDeliveryWindow cope with an order that has no delivery slot?",
        {S(PARSER, "parseDeliveryWindow"): 3, C("delivery_window"): 2},
        (),
        (),
        "mobile/**",
    ),
    _q(
        "v10-behavioral-10",
        "behavioral",
        "What does Runner.handle do with a job whose kind has no handler registered?",
        {
            S(RUNNER, "Runner.handle"): 3,
            S(RUNNER_TEST, "TestUnknownKindIsRetried"): 2,
            S(HANDLERS, "DefaultHandlers"): 1,
        },
    ),
    # symptom
    _q(
        "v10-symptom-01",
        "symptom",
        "Support ticket: card debited two times for a single checkout; on our side the first "
        "attempt timed out, but the money had already left the account",
        {
            C("inc2407_idempotency_retry"): 3,
            S(RETRY, "charge_with_retry"): 3,
            F(RUNBOOK): 1,
        },
        (0, 16),
    ),
    _q(
        "v10-symptom-02",
        "symptom",
        "Shoppers whose phone clock runs a little fast are thrown out of checkout with "
        "ERR_TOKEN_EXPIRED moments after signing in",
        {
            C("inc2291_clock_skew"): 3,
            S(TOKENS, "validate_token"): 2,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 1,
        },
        (1,),
    ),
    _q(
        "v10-symptom-03",
        "symptom",
        "An order came out 35 percent cheaper after the customer typed in two different "
        "percent-off vouchers one after the other",
        {
            C("inc2655_promo_stacking"): 3,
            S(RULES, "apply_promotions"): 2,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
        },
        (8,),
    ),
    _q(
        "v10-symptom-04",
        "symptom",
        "Reopened from the offline cache, an order that cost 59.97 shows a total of 0.60 in the "
        "app",
        {
            S(PARSER, "parseMoney"): 3,
            C("inc2333_mobile_cents"): 2,
            F(PARSER_TEST): 1,
        },
        (4,),
        (),
        "mobile/**",
    ),
    _q(
        "v10-symptom-05",
        "symptom",
        "The accounting import reads our worker's negative adjustments as text, because each one "
        "has an apostrophe glued to the minus sign",
        {
            S(CSV_GO, "escapeCell"): 3,
            C("inc2602_csv_injection"): 2,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 1,
        },
        (17,),
        (),
        "worker/**",
    ),
    _q(
        "v10-symptom-06",
        "symptom",
        "Token renewals make up a third of all API calls; the storefront seems to renew its token "
        "long before it would run out",
        {
            S(SESSION, "shouldRefresh"): 3,
            C("inc2390_web_refresh_margin"): 2,
            C("web_session_tests"): 1,
        },
        (15,),
    ),
    _q(
        "v10-symptom-07",
        "symptom",
        "Rows for orders paid in Swedish kronor in the finance CSV do not say which currency the "
        "amounts are in",
        {S(CSV_PY, "order_row"): 3, C("export_columns"): 2, S(CSV_PY, "export_orders_csv"): 1},
    ),
    _q(
        "v10-symptom-08",
        "symptom",
        "Calling the order listing with a mangled cursor query parameter gives a 500 error "
        "instead of a 400",
        {
            S(ORDERS_API, "decode_cursor"): 3,
            S(TEST_ORDERS_API, "test_malformed_cursor_is_a_client_error"): 2,
            S(ORDERS_API, "list_orders"): 1,
        },
    ),
    _q(
        "v10-symptom-09",
        "symptom",
        "After pressing sign out, the storefront still sends the old bearer token with the next "
        "request",
        {S(SESSION, "endSession"): 3, C("web_session"): 2, S(SESSION, "startSession"): 1},
    ),
    _q(
        "v10-symptom-10",
        "symptom",
        "Partially refunded orders show up with an unknown status in the web order history",
        {
            S(WEB_ORDERS, "OrderStatus"): 3,
            S(WEB_ORDERS, "parseOrderResponse"): 2,
            C("refunds_partial"): 1,
        },
    ),
    # coupled
    _q(
        "v10-coupled-01",
        "coupled",
        "If RECORD_TTL in backend/payments/idempotency.py goes down to a single day, which other "
        "parts of the system lean on that window?",
        {
            F(IDEMPOTENCY): 3,
            F(OFFLINE): 2,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            F(MIGRATION_IDEMPOTENCY): 1,
        },
        (10,),
        (OFFLINE, TEST_IDEMPOTENCY),
    ),
    _q(
        "v10-coupled-02",
        "coupled",
        "Turning timed-out status lookups into failed charges in reconcile.go: which tests and "
        "which Python module share that idea of a timeout?",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            F(RECONCILE_TEST): 2,
            S(GATEWAY, "classify_response"): 1,
        },
        (12,),
        (RECONCILE_TEST, GATEWAY),
    ),
    _q(
        "v10-coupled-03",
        "coupled",
        "If the limiter went back to counting the current window alone, which middleware and "
        "test files travel with backend/core/rate_limiter.py?",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            F(TEST_RATE_LIMITER): 2,
        },
        (3,),
        (MIDDLEWARE, TEST_RATE_LIMITER),
    ),
    _q(
        "v10-coupled-04",
        "coupled",
        "Making the order list's page token hold just the timestamp: which repository query has "
        "to change in step with encode_cursor?",
        {
            S(ORDERS_API, "encode_cursor"): 3,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
            S(ORDERS_API, "decode_cursor"): 2,
            F(TEST_ORDERS_API): 1,
        },
        (13,),
        (REPOSITORY,),
    ),
    _q(
        "v10-coupled-05",
        "coupled",
        "If a replayed refresh token only got an expired error instead of revoking its family, "
        "which migration and tests are tied to backend/auth/refresh.py?",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            F(MIGRATION_REVOCATIONS): 2,
            F(TEST_REFRESH): 2,
        },
        (11,),
        (MIGRATION_REVOCATIONS, TEST_REFRESH),
    ),
    _q(
        "v10-coupled-06",
        "coupled",
        "Which files tend to be committed together with worker/internal/jobs/runner.go?",
        {F(RUNNER_TEST): 3, S(WORKER_MAIN, "main"): 3, F(K8S_WORKER): 1},
        (),
        (RUNNER_TEST, WORKER_MAIN),
    ),
    _q(
        "v10-coupled-07",
        "coupled",
        "Adding a buy-two-get-one promotion type to backend/promotions/rules.py: which files have "
        "historically changed alongside it?",
        {
            S(RULES, "Promotion"): 3,
            F(TEST_PROMOTIONS): 2,
            F(BANNER): 2,
            S(CODES, "lookup_code"): 1,
        },
        (),
        (TEST_PROMOTIONS, BANNER),
    ),
    _q(
        "v10-coupled-08",
        "coupled",
        "Which backend auth files were changed in the same commits as web/src/auth/session.ts?",
        {F(TOKENS): 3, F(REFRESH): 2, F(TEST_TOKENS): 1},
        (),
        (TOKENS, REFRESH),
    ),
    _q(
        "v10-coupled-09",
        "coupled",
        "If Order in backend/orders/models.py gains a gift_wrap flag, which API schema and client "
        "types must follow?",
        {
            S(MODELS, "Order"): 3,
            S(SCHEMAS, "OrderOut"): 2,
            S(WEB_ORDERS, "OrderDTO"): 2,
            S(MOBILE_MODELS, "Order"): 1,
        },
        (),
        (SCHEMAS, WEB_ORDERS),
    ),
    _q(
        "v10-coupled-10",
        "coupled",
        "When the refund call in backend/payments/gateway.py changes, which other modules and "
        "tests usually move with it?",
        {
            S(GATEWAY, "GatewayClient.refund"): 3,
            S(REFUNDS, "issue_refund"): 2,
            F(TEST_GATEWAY): 1,
        },
        (),
        (REFUNDS, TEST_GATEWAY),
    ),
    # exact
    _q(
        "v10-exact-01",
        "exact",
        "test_burst_across_the_window_edge_is_limited",
        {
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 3,
            C("inc2458_sliding_window"): 2,
            S(LIMITER, "RateLimiter.allow"): 2,
        },
        (3,),
    ),
    _q(
        "v10-exact-02",
        "exact",
        "ERR_TOKEN_REUSED revoke_family",
        {
            C("inc2744_refresh_reuse"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 2,
        },
        (11,),
    ),
    _q(
        "v10-exact-03",
        "exact",
        "proxy_read_timeout 504 Gateway Time-out",
        {F(NGINX): 3, C("inc2689_nginx_timeout"): 3},
        (14,),
    ),
    _q(
        "v10-exact-04",
        "exact",
        "TestEscapeCellQuotesFormulaPrefixes",
        {
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 3,
            S(CSV_GO, "escapeCell"): 2,
            C("inc2602_csv_injection"): 1,
        },
        (17,),
    ),
    _q(
        "v10-exact-05",
        "exact",
        "test_formula_prefixes_are_quoted",
        {
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 3,
            S(CSV_PY, "escape_cell"): 2,
            C("inc2602_csv_injection"): 1,
        },
        (9,),
    ),
    _q(
        "v10-exact-06",
        "exact",
        "OrderParseError parseMoney total_cents",
        {
            S(PARSER, "parseMoney"): 3,
            F(PARSER_TEST): 2,
            C("inc2333_mobile_cents"): 2,
        },
        (4,),
    ),
    _q(
        "v10-exact-07",
        "exact",
        "get_or_load loader miss TTLCache",
        {S(CACHE, "TTLCache.get_or_load"): 3, S(CACHE, "TTLCache"): 1},
    ),
    _q(
        "v10-exact-08",
        "exact",
        "client_key per-client limiter key",
        {S(LIMITER, "client_key"): 3, S(MIDDLEWARE, "rate_limit_middleware"): 1},
    ),
    _q(
        "v10-exact-09",
        "exact",
        "refundable_cents issue_refund partial",
        {
            S(REFUNDS, "refundable_cents"): 3,
            S(REFUNDS, "issue_refund"): 2,
            C("refunds_partial"): 2,
        },
    ),
    _q(
        "v10-exact-10",
        "exact",
        "orderTotalLabel",
        {S(WEB_ORDERS, "orderTotalLabel"): 3, S(MONEY_TS, "formatMoney"): 2},
    ),
    # change
    _q(
        "v10-change-01",
        "change",
        "Let every pass through the charge retry loop send a freshly generated key; reusing the "
        "first one after a timeout feels wrong",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (0, 16),
    ),
    _q(
        "v10-change-02",
        "change",
        "Treat a 429 from the payment provider as transient so that the charge is tried again "
        "after the usual backoff",
        {
            S(GATEWAY, "classify_response"): 3,
            S(RETRY, "charge_with_retry"): 2,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 2,
            C("inc2188_declined_fix"): 1,
        },
        (7,),
    ),
    _q(
        "v10-change-03",
        "change",
        "Have the job runner start every job of a batch right away, the month-end export takes "
        "hours as it is",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            C("worker_perf_revert"): 2,
            C("worker_inflight_comment"): 2,
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 1,
        },
        (6,),
    ),
    _q(
        "v10-change-04",
        "change",
        "Have the storefront put off its silent renewal until the backend would really turn the "
        "token down, counting the sixty seconds of grace",
        {
            S(SESSION, "shouldRefresh"): 3,
            C("inc2390_web_refresh_margin"): 2,
            C("inc2291_clock_skew"): 1,
        },
        (15,),
    ),
    _q(
        "v10-change-05",
        "change",
        "Tighten validate_token so a token dies exactly at exp and is never honoured before nbf, "
        "no leeway either way",
        {
            S(TOKENS, "validate_token"): 3,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 1,
        },
        (1,),
    ),
    _q(
        "v10-change-06",
        "change",
        "Delete the currency member from the storefront's order type and hardcode EUR where "
        "amounts are formatted",
        {
            S(WEB_ORDERS, "OrderDTO"): 3,
            C("currency_support"): 2,
            F(ORDER_SUMMARY): 2,
            S(MONEY_TS, "formatMoney"): 1,
        },
        (5,),
    ),
    _q(
        "v10-change-07",
        "change",
        "Include the request path in request_fingerprint so that one key sent to two different "
        "endpoints is told apart",
        {
            S(IDEMPOTENCY, "request_fingerprint"): 3,
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 2,
            C("idempotency_store"): 2,
        },
    ),
    _q(
        "v10-change-08",
        "change",
        "Log the gateway's raw status string next to each outcome that Reconcile writes",
        {
            S(RECONCILE, "Reconcile"): 3,
            C("worker_reconcile_logging"): 2,
            S(RECONCILE, "GatewayStatus"): 1,
        },
    ),
    _q(
        "v10-change-09",
        "change",
        "Keep looked-up promotion codes in the TTL cache for five minutes to spare the database",
        {
            S(CODES, "lookup_code"): 3,
            S(CACHE, "TTLCache.get_or_load"): 2,
            S(CACHE, "TTLCache"): 2,
        },
    ),
    _q(
        "v10-change-10",
        "change",
        "Tell the other open tabs about a sign-out from endSession through a BroadcastChannel",
        {S(SESSION, "endSession"): 3, S(SESSION, "startSession"): 1},
    ),
)


_HELDOUT_V11: tuple[_Row, ...] = (
    # causal
    _q(
        "v11-causal-01",
        "causal",
        "How come only the single most generous percent-off voucher counts when a shopper enters "
        "several of them at checkout?",
        {
            C("inc2655_promo_stacking"): 3,
            S(RULES, "apply_promotions"): 2,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
        },
        (8,),
    ),
    _q(
        "v11-causal-02",
        "causal",
        "What is the story behind the nightly settlement job leaving a charge undecided when the "
        "provider's status lookup never answers?",
        {
            C("inc2710_reconcile_timeout"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
        },
        (12,),
    ),
    _q(
        "v11-causal-03",
        "causal",
        "Reads from the in-memory expiring store take a mutex even though they only look a value "
        "up; what history explains that?",
        {
            C("cache_perf_revert"): 3,
            C("cache_perf_lockfree"): 2,
            S(CACHE, "TTLCache.get"): 2,
            C("cache_race_test"): 1,
        },
        (2,),
    ),
    _q(
        "v11-causal-04",
        "causal",
        "What incident made the finance spreadsheet writer escape cells that open with a hyphen, "
        "a plus, an at sign or an equals sign?",
        {
            C("inc2602_csv_injection"): 3,
            S(CSV_PY, "escape_cell"): 2,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 1,
        },
        (9,),
    ),
    _q(
        "v11-causal-05",
        "causal",
        "Two whole days of keeping replay-protection records seems generous; what drove that "
        "retention length?",
        {
            C("inc2472_idempotency_ttl"): 3,
            F(IDEMPOTENCY): 2,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            F(OFFLINE): 1,
        },
        (10,),
    ),
    _q(
        "v11-causal-06",
        "causal",
        "Why does the opaque paging token of the orders endpoint carry the row's identifier and "
        "not merely its creation instant?",
        {
            C("inc2801_pagination"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
        },
        (13,),
    ),
    _q(
        "v11-causal-07",
        "causal",
        "What problem was the Larkspur-Signature scheme for outgoing partner events introduced to "
        "solve?",
        {
            C("webhooks"): 3,
            S(WEBHOOKS, "sign_webhook"): 2,
            S(WEBHOOKS, "verify_webhook_signature"): 1,
        },
    ),
    _q(
        "v11-causal-08",
        "causal",
        "A campaign configured to end at midnight: which clock decides that moment, and what "
        "went wrong before it was settled?",
        {
            C("promo_expiry_tz"): 3,
            S(RULES, "_as_shop_time"): 2,
            S(RULES, "is_active"): 2,
        },
    ),
    _q(
        "v11-causal-09",
        "causal",
        "Why did the throttling responses start carrying a Retry-After header?",
        {
            C("rate_limit_headers"): 3,
            S(LIMITER, "RateLimiter.retry_after"): 2,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
        },
    ),
    _q(
        "v11-causal-10",
        "causal",
        "What was the reason for introducing hit and miss bookkeeping into the expiring cache "
        "used by promotion lookups?",
        {C("cache_stats"): 3, S(CACHE, "TTLCache.stats"): 2},
    ),
    # behavioral
    _q(
        "v11-behavioral-01",
        "behavioral",
        "When the first charge request times out and the loop goes round again, does the second "
        "request reuse the dedup token of the first or mint another one?",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 2,
        },
        (0, 16),
    ),
    _q(
        "v11-behavioral-02",
        "behavioral",
        "A provider reply of 409 Conflict during payment: is that attempted again by the backoff "
        "loop or surfaced straight away as a refusal?",
        {
            S(GATEWAY, "classify_response"): 3,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 2,
            C("inc2188_declined_fix"): 2,
            S(RETRY, "charge_with_retry"): 1,
        },
        (7,),
    ),
    _q(
        "v11-behavioral-03",
        "behavioral",
        "Does the Go nightly file writer prepend an apostrophe to an amount such as -12.50, and "
        "what would accounting see otherwise?",
        {
            S(CSV_GO, "escapeCell"): 3,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            C("inc2602_csv_injection"): 1,
        },
        (17,),
    ),
    _q(
        "v11-behavioral-04",
        "behavioral",
        "At what moment does the browser app decide to fetch a new access token: before the "
        "token's expiry minus a safety margin, or only once the server-side leeway is used up?",
        {
            S(SESSION, "shouldRefresh"): 3,
            C("inc2390_web_refresh_margin"): 2,
            S(SESSION, "scheduleRefresh"): 1,
        },
        (15,),
    ),
    _q(
        "v11-behavioral-05",
        "behavioral",
        "How many calls can a client squeeze through in the seconds right before and right after "
        "a minute boundary, given how the limiter weighs the previous window?",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 3,
            C("inc2458_sliding_window"): 2,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 1,
        },
        (3,),
    ),
    _q(
        "v11-behavioral-06",
        "behavioral",
        "Which order states still allow a customer to call off an order in Order.can_cancel?",
        {S(MODELS, "Order.can_cancel"): 3, S(SERVICE, "OrderService.cancel_order"): 1},
    ),
    _q(
        "v11-behavioral-07",
        "behavioral",
        "How does the partner webhook verifier reject a payload whose timestamp is far in the past?",
        {
            S(WEBHOOKS, "verify_webhook_signature"): 3,
            C("webhooks"): 2,
            S(TEST_WEBHOOKS, "test_modified_body_is_rejected"): 1,
        },
    ),
    _q(
        "v11-behavioral-08",
        "behavioral",
        "What does the mobile parser's parseStatus do with a status string it has never seen?",
        {S(PARSER, "parseStatus"): 3, S(MOBILE_MODELS, "OrderStatus"): 2},
        (),
        (),
        "mobile/**",
    ),
    _q(
        "v11-behavioral-09",
        "behavioral",
        "How does the rate limiter derive the key it counts a request under, for a signed-in "
        "shopper and for an anonymous visitor?",
        {S(LIMITER, "client_key"): 3, S(MIDDLEWARE, "rate_limit_middleware"): 2},
    ),
    _q(
        "v11-behavioral-10",
        "behavioral",
        "What does issue_token put into the claims of a freshly minted access token?",
        {S(TOKENS, "issue_token"): 3, C("auth_tokens"): 2, C("access_ttl_15m"): 1},
    ),
    # symptom
    _q(
        "v11-symptom-01",
        "symptom",
        "Customers with the shop open in a second browser tab keep getting kicked out of every "
        "device at once after a while",
        {
            C("inc2744_refresh_reuse"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 2,
        },
        (11,),
    ),
    _q(
        "v11-symptom-02",
        "symptom",
        "Orders placed while the card processor is sluggish end up as duplicates: the browser "
        "gave up early, showed an error, and the shopper pressed buy again",
        {C("inc2689_nginx_timeout"): 3, F(NGINX): 3, C("inc2407_idempotency_retry"): 1},
        (14,),
    ),
    _q(
        "v11-symptom-03",
        "symptom",
        "During the month-end run the Go background service opens so many jobs at the same time "
        "that the database refuses new connections",
        {
            C("worker_perf_revert"): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            C("worker_perf_unbounded"): 2,
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 1,
        },
        (6,),
    ),
    _q(
        "v11-symptom-04",
        "symptom",
        "A Danish customer's order history on the website shows prices with a euro sign although "
        "they paid in kroner",
        {
            C("currency_support"): 3,
            S(WEB_ORDERS, "OrderDTO"): 2,
            F(ORDER_SUMMARY): 2,
            S(MONEY_TS, "formatMoney"): 1,
        },
        (5,),
    ),
    _q(
        "v11-symptom-05",
        "symptom",
        "Under heavy promotion traffic the API occasionally logs a KeyError from inside the "
        "expiring cache while another request is clearing stale entries",
        {
            S(CACHE, "TTLCache.get"): 3,
            C("cache_race_test"): 2,
            C("cache_perf_revert"): 2,
        },
        (2,),
    ),
    _q(
        "v11-symptom-06",
        "symptom",
        "A script that fires a burst at 11:59:58 and another at 12:00:01 gets roughly double its "
        "quota accepted",
        {
            C("inc2458_sliding_window"): 3,
            S(LIMITER, "RateLimiter.allow"): 2,
            S(LIMITER, "RateLimiter._estimate"): 2,
        },
        (3,),
    ),
    _q(
        "v11-symptom-07",
        "symptom",
        "The refund confirmation e-mail arrives without the amount that was actually given back",
        {
            S(HANDLERS, "sendRefundIssued"): 3,
            S(HANDLERS, "emailPayload"): 2,
            S(NOTIFICATIONS, "refund_job"): 2,
            F(REFUND_TEMPLATE): 1,
        },
    ),
    _q(
        "v11-symptom-08",
        "symptom",
        "Promotion codes typed with a dash or in lowercase are reported as unknown at checkout",
        {S(CODES, "normalize_code"): 3, C("promo_codes_normalize"): 2, S(CODES, "lookup_code"): 1},
    ),
    _q(
        "v11-symptom-09",
        "symptom",
        "Throttled API clients get a 429 but have no hint of when they may try again",
        {
            S(LIMITER, "RateLimiter.retry_after"): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            C("rate_limit_headers"): 2,
        },
    ),
    _q(
        "v11-symptom-10",
        "symptom",
        "The web order history page prints totals like 5997 instead of 59.97",
        {
            S(WEB_ORDERS, "orderTotalLabel"): 3,
            S(MONEY_TS, "formatMoney"): 2,
            C("money_cents_refactor"): 1,
        },
    ),
    # coupled
    _q(
        "v11-coupled-01",
        "coupled",
        "Allowing a welcome voucher and a seasonal voucher to add up: besides the discount "
        "engine, which storefront and test code is tied to that choice?",
        {
            S(BANNER, "stackingNotice"): 3,
            F(TEST_PROMOTIONS): 2,
            S(RULES, "apply_promotions"): 2,
        },
        (8,),
        (BANNER, TEST_PROMOTIONS),
    ),
    _q(
        "v11-coupled-02",
        "coupled",
        "If the app's order reader rounded stray decimal amounts instead of rejecting them, which "
        "model and server schema files move with it?",
        {S(PARSER, "parseMoney"): 3, S(MOBILE_MODELS, "Order"): 2, F(SCHEMAS): 2},
        (4,),
        (MOBILE_MODELS, SCHEMAS),
    ),
    _q(
        "v11-coupled-03",
        "coupled",
        "Letting the browser session ride out the server's extra minute before renewing: which "
        "backend file decides whether that minute really exists?",
        {
            S(TOKENS, "validate_token"): 3,
            S(SESSION, "shouldRefresh"): 2,
            C("inc2291_clock_skew"): 2,
        },
        (15,),
        (TOKENS,),
    ),
    _q(
        "v11-coupled-04",
        "coupled",
        "If the worker's spreadsheet escaping let minus-prefixed numbers through untouched, which "
        "Python module and which test encode the same rule?",
        {S(CSV_PY, "escape_cell"): 3, S(CSV_GO, "escapeCell"): 2, F(CSV_GO_TEST): 2},
        (17,),
        (CSV_PY, CSV_GO_TEST),
    ),
    _q(
        "v11-coupled-05",
        "coupled",
        "Making a replayed rotation token merely fail as stale, without killing its siblings: "
        "which schema migration and test file belong with that code?",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            F(MIGRATION_REVOCATIONS): 2,
            F(TEST_REFRESH): 2,
        },
        (11,),
        (MIGRATION_REVOCATIONS, TEST_REFRESH),
    ),
    _q(
        "v11-coupled-06",
        "coupled",
        "Adding a per-route limit for the search endpoint to backend/core/rate_limiter.py: which "
        "files are usually committed with it?",
        {
            F(TEST_RATE_LIMITER): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            S(LIMITER, "RateLimiter"): 1,
        },
        (),
        (TEST_RATE_LIMITER, MIDDLEWARE),
    ),
    _q(
        "v11-coupled-07",
        "coupled",
        "Adding a chargeback outcome to worker/internal/payments/reconcile.go: which test and "
        "Python gateway files have moved in the same commits?",
        {
            F(RECONCILE_TEST): 3,
            F(GATEWAY): 2,
            S(RECONCILE, "classifyGatewayStatus"): 1,
        },
        (),
        (RECONCILE_TEST, GATEWAY),
    ),
    _q(
        "v11-coupled-08",
        "coupled",
        "Finance wants a payment-method column in both nightly spreadsheets; starting from the "
        "Python exporter, which Go writer and test keep the same column list?",
        {S(CSV_GO, "WriteOrdersCSV"): 3, S(CSV_PY, "order_row"): 2, F(TEST_CSV_PY): 1},
        (),
        (CSV_GO, TEST_CSV_PY),
    ),
    _q(
        "v11-coupled-09",
        "coupled",
        "Putting a tenant id claim into tokens from backend/auth/tokens.py: which test and "
        "browser files have changed together with it?",
        {F(TEST_TOKENS): 3, F(SESSION): 2, S(TOKENS, "issue_token"): 1},
        (),
        (TEST_TOKENS, SESSION),
    ),
    _q(
        "v11-coupled-10",
        "coupled",
        "Adding an estimated_delivery attribute to the API order schema: which web and mobile "
        "types co-change with backend/api/schemas.py?",
        {
            S(SCHEMAS, "OrderOut"): 3,
            S(WEB_ORDERS, "OrderDTO"): 2,
            S(PARSER, "parseOrder"): 2,
            S(MOBILE_MODELS, "Order"): 1,
        },
        (),
        (WEB_ORDERS, PARSER, MOBILE_MODELS),
    ),
    # exact
    _q(
        "v11-exact-01",
        "exact",
        "TestTimeoutStaysPending OutcomePending",
        {
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 2,
            C("inc2710_reconcile_timeout"): 2,
        },
        (12,),
    ),
    _q(
        "v11-exact-02",
        "exact",
        "CLOCK_SKEW_SECONDS exp nbf",
        {
            S(TOKENS, "validate_token"): 3,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 2,
        },
        (1,),
    ),
    _q(
        "v11-exact-03",
        "exact",
        "MaxInFlight semaphore processBatch",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 2,
            C("worker_inflight_comment"): 2,
        },
        (6,),
    ),
    _q(
        "v11-exact-04",
        "exact",
        "ERR_PARSE_AMOUNT OrderParseError",
        {
            S(PARSER, "parseMoney"): 3,
            C("inc2333_mobile_cents"): 2,
            F(PARSER_TEST): 2,
        },
        (4,),
    ),
    _q(
        "v11-exact-05",
        "exact",
        "RECORD_TTL timedelta hours=48",
        {
            F(IDEMPOTENCY): 3,
            C("inc2472_idempotency_ttl"): 2,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
        },
        (10,),
    ),
    _q(
        "v11-exact-06",
        "exact",
        "RateLimiter._roll",
        {S(LIMITER, "RateLimiter._roll"): 3, S(LIMITER, "RateLimiter"): 1},
    ),
    _q(
        "v11-exact-07",
        "exact",
        "GatewayClient._post",
        {S(GATEWAY, "GatewayClient._post"): 3, S(GATEWAY, "GatewayClient"): 1},
    ),
    _q(
        "v11-exact-08",
        "exact",
        "TTLCache.clear _lock",
        {S(CACHE, "TTLCache.clear"): 3, S(CACHE, "TTLCache"): 1},
    ),
    _q(
        "v11-exact-09",
        "exact",
        "RefreshTokenStore.find",
        {S(REFRESH, "RefreshTokenStore.find"): 3, S(REFRESH, "RefreshTokenStore"): 1},
    ),
    _q(
        "v11-exact-10",
        "exact",
        "export_promotions_csv redemptions escape_cell",
        {
            S(CSV_PY, "export_promotions_csv"): 3,
            C("promotions_export"): 2,
            S(CSV_PY, "escape_cell"): 1,
        },
    ),
    # change
    _q(
        "v11-change-01",
        "change",
        "Generate a brand-new uuid4 for the provider's dedup header on each resend inside the "
        "payment loop, so a late answer to attempt one cannot collide with attempt two",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (0, 16),
    ),
    _q(
        "v11-change-02",
        "change",
        "Drop the leeway around the expiry and not-before claims in the access-token check; the "
        "sixty spare seconds are an attacker's gift",
        {
            S(TOKENS, "validate_token"): 3,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 1,
        },
        (1,),
    ),
    _q(
        "v11-change-03",
        "change",
        "Shrink the upstream read deadline in the edge proxy config to a few seconds so hung "
        "checkouts surface quickly",
        {F(NGINX): 3, C("inc2689_nginx_timeout"): 3},
        (14,),
    ),
    _q(
        "v11-change-04",
        "change",
        "Trim the order list's continuation token down to the creation time alone; links with it "
        "are too long to paste",
        {
            S(ORDERS_API, "encode_cursor"): 3,
            C("inc2801_pagination"): 2,
            S(ORDERS_API, "decode_cursor"): 2,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 1,
        },
        (13,),
    ),
    _q(
        "v11-change-05",
        "change",
        "Only escape finance spreadsheet cells that really begin with an equals sign; bulleted "
        "delivery notes look ugly with that leading quote",
        {
            S(CSV_PY, "escape_cell"): 3,
            C("inc2602_csv_injection"): 2,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
        },
        (9,),
    ),
    _q(
        "v11-change-06",
        "change",
        "Speed up promotion lookups by letting readers of the expiring cache skip taking the "
        "mutex; only writers would still lock",
        {
            S(CACHE, "TTLCache.get"): 3,
            C("cache_perf_revert"): 2,
            C("cache_race_test"): 2,
        },
        (2,),
    ),
    _q(
        "v11-change-07",
        "change",
        "Add a Larkspur-Event-Id header to every partner event signed by sign_webhook",
        {S(WEBHOOKS, "sign_webhook"): 3, C("webhooks"): 2},
    ),
    _q(
        "v11-change-08",
        "change",
        "Cap the total wait of RetryPolicy at ten seconds no matter how many attempts are set",
        {S(RETRY, "RetryPolicy"): 3, S(RETRY, "RetryPolicy.delays"): 2},
    ),
    _q(
        "v11-change-09",
        "change",
        "Expose the OrderStatus value 'partially_refunded' with its own label in the storefront's "
        "order types",
        {
            S(WEB_ORDERS, "OrderStatus"): 3,
            S(WEB_ORDERS, "parseOrderResponse"): 2,
            C("refunds_partial"): 1,
        },
    ),
    _q(
        "v11-change-10",
        "change",
        "Record the job kind and duration in the worker's Prometheus metrics when Runner.handle "
        "gives a job back to the queue",
        {
            S(RUNNER, "Runner.handle"): 3,
            S(JOB_METRICS, "Metrics.Observe"): 2,
            C("worker_metrics"): 1,
        },
    ),
)

# --- held-out v12: written from the fixture's files, commit messages and recorded failures before
# the change it evaluates, without running retrieval on it; report it, never tune on it.
# LABELLING RULE: a query expects a warning only when what it asks or intends to do resembles the
# failed attempt itself (the same approach, the same change, or the symptom that attempt
# produced), not merely because it names the same file or symbol. A plain "what else changes
# with FILE" question with no intended change expects none, and so does a question about another
# aspect of a function some failure changed. About half the queries expect a warning; most
# controls ask about, look up or change a file or symbol that some failure changed -------------

SESSION_TEST = "web/src/__tests__/session.test.ts"

_HELDOUT_V12: tuple[_Row, ...] = (
    # causal
    _q(
        "v12-causal-01",
        "causal",
        "A reviewer suggests giving each charge attempt in backend/payments/retry.py its own "
        "random key so the gateway logs are easier to read; what happened the last time keys "
        "varied between attempts?",
        {
            C("inc2407_idempotency_retry"): 3,
            S(RETRY, "charge_with_retry"): 2,
            F(ADR_IDEMPOTENCY): 2,
            F(RUNBOOK): 1,
        },
        (0, 16),
    ),
    _q(
        "v12-causal-02",
        "causal",
        "The Go worker's handlers mostly sit waiting on SMTP and gateway calls, so why is each "
        "batch squeezed through a small fixed number of concurrent slots?",
        {
            C("worker_perf_revert"): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            C("worker_inflight_comment"): 2,
            C("worker_perf_unbounded"): 1,
            F(K8S_WORKER): 1,
        },
        (6,),
    ),
    _q(
        "v12-causal-03",
        "causal",
        "Why does the nginx front proxy wait so long for the API to answer, when a short upstream "
        "read limit would let clients fail fast?",
        {
            C("inc2689_nginx_timeout"): 3,
            F(NGINX): 2,
            S(SETTINGS, "Settings"): 1,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
    ),
    _q(
        "v12-causal-04",
        "causal",
        "Some stale order JSON kept on phones still has amounts such as 12.49; why does the React "
        "Native order reader throw on those instead of rounding them to a whole number of cents?",
        {
            C("inc2333_mobile_cents"): 3,
            S(PARSER, "parseMoney"): 2,
            F(PARSER_TEST): 1,
            F(ADR_CENTS): 1,
        },
        (4,),
    ),
    _q(
        "v12-causal-05",
        "causal",
        "What threat is the family-wide revocation in rotate_refresh_token guarding against, as "
        "opposed to simply refusing the replayed refresh request?",
        {
            C("inc2744_refresh_reuse"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 2,
            F(MIGRATION_REVOCATIONS): 1,
        },
        (11,),
    ),
    _q(
        "v12-causal-06",
        "causal",
        "What motivated putting an in-process expiring cache in front of catalogue and promotion "
        "reads, and why do its entries live just 30 seconds?",
        {
            C("ttl_cache"): 3,
            S(CACHE, "TTLCache"): 2,
            S(SETTINGS, "Settings"): 1,
            S(CODES, "lookup_code"): 1,
        },
    ),
    _q(
        "v12-causal-07",
        "causal",
        "What prompted the job runner to start keeping per-kind job counts, failure counts and "
        "latency sums?",
        {
            C("worker_metrics"): 3,
            S(JOB_METRICS, "Metrics.Observe"): 2,
            S(RUNNER, "Runner.handle"): 2,
            S(WORKER_MAIN, "main"): 1,
        },
    ),
    _q(
        "v12-causal-08",
        "causal",
        "What was the reasoning for keying the request limiter by account when the caller is "
        "signed in but by IP address when anonymous?",
        {
            S(LIMITER, "client_key"): 3,
            C("rate_limiter"): 2,
            S(MIDDLEWARE, "rate_limit_middleware"): 1,
            S(TEST_RATE_LIMITER, "test_client_key_prefers_user"): 1,
        },
    ),
    _q(
        "v12-causal-09",
        "causal",
        "Why does the nightly settlement check keep a separate mismatch outcome for a charge the "
        "gateway captured with a different amount, instead of calling it settled?",
        {
            C("worker_reconcile"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 2,
            S(RECONCILE_TEST, "TestSettledAndMismatch"): 2,
        },
    ),
    _q(
        "v12-causal-10",
        "causal",
        "Why were the API's access tokens given a JWT-style header.payload.signature shape with "
        "HS256 rather than being opaque random strings?",
        {
            C("auth_tokens"): 3,
            S(TOKENS, "issue_token"): 2,
            S(SESSION, "decodeExpiry"): 2,
        },
    ),
    # behavioral
    _q(
        "v12-behavioral-01",
        "behavioral",
        "Forty-five seconds after a token's exp, or thirty seconds before its nbf, does "
        "validate_token still hand back the claims?",
        {
            S(TOKENS, "validate_token"): 3,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 2,
            S(TEST_TOKENS, "test_token_from_a_pod_with_a_fast_clock_is_accepted"): 2,
            C("inc2291_clock_skew"): 1,
        },
        (1,),
    ),
    _q(
        "v12-behavioral-02",
        "behavioral",
        "With a limit of 20 per minute, a key that made 20 requests at 12:00:59 tries again at "
        "12:01:00; what does the limiter's weighted estimate come to at that moment?",
        {
            S(LIMITER, "RateLimiter._estimate"): 3,
            S(LIMITER, "RateLimiter.allow"): 3,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 2,
            C("inc2458_sliding_window"): 1,
        },
        (3,),
    ),
    _q(
        "v12-behavioral-03",
        "behavioral",
        "Does escape_cell in the Python export leave a customer note that starts with a minus or "
        "a plus sign, such as a phone number, unquoted?",
        {
            S(CSV_PY, "escape_cell"): 3,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            C("inc2602_csv_injection"): 1,
        },
        (9,),
    ),
    _q(
        "v12-behavioral-04",
        "behavioral",
        "When a charge lookup answers HTTP 200 but with a blank status field, how is that charge "
        "classified during reconciliation?",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE, "GatewayStatus"): 1,
        },
        (12,),
    ),
    _q(
        "v12-behavioral-05",
        "behavioral",
        "If one thread evicts a key through set() while another is inside get() for that same "
        "key, can the TTL cache raise?",
        {
            S(CACHE, "TTLCache.get"): 3,
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 2,
            C("cache_perf_revert"): 2,
            S(CACHE, "TTLCache.set"): 1,
        },
        (2,),
    ),
    _q(
        "v12-behavioral-06",
        "behavioral",
        "Once the TTL cache reaches maxsize, which entry is thrown out when another key is stored?",
        {
            S(CACHE, "TTLCache.set"): 3,
            S(TEST_CACHE, "test_least_recently_used_is_evicted"): 2,
            S(CACHE, "TTLCache.get"): 1,
        },
    ),
    _q(
        "v12-behavioral-07",
        "behavioral",
        "How does GatewayClient._post report a socket timeout to its caller, and which error code "
        "does it carry?",
        {
            S(GATEWAY, "GatewayClient._post"): 3,
            S(GATEWAY, "GatewayTimeout"): 2,
            S(RETRY, "charge_with_retry"): 1,
        },
    ),
    _q(
        "v12-behavioral-08",
        "behavioral",
        "What discount does a promotion give when the basket stays below its min_subtotal_cents?",
        {
            S(RULES, "discount_for"): 3,
            S(TEST_PROMOTIONS, "test_fixed_code_needs_the_minimum_subtotal"): 2,
            C("promo_min_subtotal"): 1,
        },
    ),
    _q(
        "v12-behavioral-09",
        "behavioral",
        "What does decode_cursor raise when the cursor query parameter is garbage rather than "
        "base64-encoded JSON?",
        {
            S(ORDERS_API, "decode_cursor"): 3,
            S(TEST_ORDERS_API, "test_malformed_cursor_is_a_client_error"): 2,
            F(ERRORS): 1,
        },
    ),
    _q(
        "v12-behavioral-10",
        "behavioral",
        "When the phone reconnects, what becomes of a queued order that has waited over 36 hours "
        "on the device?",
        {
            S(OFFLINE, "replayQueue"): 3,
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 2,
            C("inc2472_idempotency_ttl"): 1,
        },
        (),
        (),
        "mobile/**",
    ),
    # symptom
    _q(
        "v12-symptom-01",
        "symptom",
        "One order, two identical captures on the customer's card statement; in our logs the "
        "initial charge call timed out and the next one succeeded.",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 2,
            F(RUNBOOK): 1,
        },
        (0, 16),
    ),
    _q(
        "v12-symptom-02",
        "symptom",
        "After editing the web order type, npx tsc reports TS2339 about a missing currency "
        "property in OrderSummary.tsx and in orderTotalLabel.",
        {
            S(WEB_ORDERS, "OrderDTO"): 3,
            S(ORDER_SUMMARY, "OrderSummary"): 2,
            S(WEB_ORDERS, "orderTotalLabel"): 2,
            C("currency_support"): 1,
        },
        (5,),
    ),
    _q(
        "v12-symptom-03",
        "symptom",
        "A wholesale buyer says one of two orders placed at the very same instant never shows up "
        "when they click through to the next page of their history.",
        {
            C("inc2801_pagination"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 1,
        },
        (13,),
    ),
    _q(
        "v12-symptom-04",
        "symptom",
        "Orders came through with two percentage vouchers both subtracted from the same basket, "
        "pushing the price below cost.",
        {
            S(RULES, "apply_promotions"): 3,
            C("inc2655_promo_stacking"): 2,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
            S(BANNER, "stackingNotice"): 1,
        },
        (8,),
    ),
    _q(
        "v12-symptom-05",
        "symptom",
        "The jest spec for renewing inside the margin went red after my change to the browser "
        "session: shouldRefresh returns false at expiresAt minus REFRESH_MARGIN_MS.",
        {
            S(SESSION, "shouldRefresh"): 3,
            F(SESSION_TEST): 2,
            C("inc2390_web_refresh_margin"): 1,
        },
        (15,),
    ),
    _q(
        "v12-symptom-06",
        "symptom",
        "A client resent POST /orders with the same Idempotency-Key after editing the basket and "
        "got a 422 ERR_IDEMPOTENCY_MISMATCH; is that expected?",
        {
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 3,
            S(IDEMPOTENCY, "request_fingerprint"): 2,
            S(TEST_IDEMPOTENCY, "test_same_key_different_body_is_rejected"): 2,
            C("idempotency_store"): 1,
        },
    ),
    _q(
        "v12-symptom-07",
        "symptom",
        "A partner's receiver rejects our order.paid callbacks as too old whenever its clock runs "
        "about six minutes behind ours.",
        {
            S(WEBHOOKS, "verify_webhook_signature"): 3,
            S(TEST_WEBHOOKS, "test_stale_timestamp_is_rejected"): 2,
            C("webhooks"): 1,
        },
    ),
    _q(
        "v12-symptom-08",
        "symptom",
        "A job with a kind nobody registered keeps reappearing in the worker logs with "
        "ERR_JOB_UNKNOWN_KIND.",
        {
            S(RUNNER, "Runner.handle"): 3,
            S(RUNNER_TEST, "TestUnknownKindIsRetried"): 2,
            S(RUNNER, "ErrUnknownKind"): 2,
            S(HANDLERS, "DefaultHandlers"): 1,
        },
    ),
    _q(
        "v12-symptom-09",
        "symptom",
        "The phone app shows an error instead of the order screen for an order whose status is "
        "'on_hold', with ERR_PARSE_STATUS in the crash report.",
        {
            S(PARSER, "parseStatus"): 3,
            S(MOBILE_MODELS, "OrderStatus"): 2,
            C("refunds_partial"): 1,
        },
    ),
    _q(
        "v12-symptom-10",
        "symptom",
        "Finance's accounting tool reads minus amounts from the worker's nightly CSV as strings, "
        "since each carries a leading quote mark; they want plain numbers.",
        {
            S(CSV_GO, "escapeCell"): 3,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            S(CSV_GO, "WriteOrdersCSV"): 1,
            C("inc2602_csv_injection"): 1,
        },
        (17,),
    ),
    # coupled
    _q(
        "v12-coupled-01",
        "coupled",
        "Before cutting how long backend/payments/idempotency.py keeps replay records down to one "
        "day: what else has usually been committed alongside it?",
        {
            F(TEST_IDEMPOTENCY): 3,
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 2,
            C("inc2472_idempotency_ttl"): 2,
        },
        (10,),
        (TEST_IDEMPOTENCY, OFFLINE),
    ),
    _q(
        "v12-coupled-02",
        "coupled",
        "I plan to push 409 and 429 responses from the payment provider back into the retry loop; "
        "which modules and tests have moved together with backend/payments/gateway.py?",
        {
            S(GATEWAY, "classify_response"): 3,
            S(RETRY, "charge_with_retry"): 2,
            F(TEST_GATEWAY): 2,
            F(TEST_RETRY): 1,
            C("inc2188_declined_fix"): 1,
        },
        (7,),
        (RETRY, TEST_GATEWAY, TEST_RETRY),
    ),
    _q(
        "v12-coupled-03",
        "coupled",
        "Tokens should die exactly at exp with no slack: besides backend/auth/tokens.py itself, "
        "what test file and browser module have to follow along?",
        {
            S(TOKENS, "validate_token"): 3,
            F(TEST_TOKENS): 2,
            F(SESSION): 2,
            C("inc2291_clock_skew"): 1,
        },
        (1,),
        (TEST_TOKENS, SESSION),
    ),
    _q(
        "v12-coupled-04",
        "coupled",
        "If worker/internal/jobs/runner.go spawns one goroutine per job in a batch, which other "
        "worker files and which deployment manifest are usually edited with it?",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            F(RUNNER_TEST): 2,
            F(K8S_WORKER): 2,
            S(WORKER_MAIN, "main"): 1,
            C("worker_perf_revert"): 1,
        },
        (6,),
        (RUNNER_TEST, WORKER_MAIN, K8S_WORKER),
    ),
    _q(
        "v12-coupled-05",
        "coupled",
        "Marketing wants a welcome percentage code to combine with a campaign percentage code; "
        "which tests and checkout code change with backend/promotions/rules.py for that?",
        {
            S(RULES, "apply_promotions"): 3,
            F(TEST_PROMOTIONS): 2,
            S(BANNER, "stackingNotice"): 2,
            C("inc2655_promo_stacking"): 1,
        },
        (8,),
        (TEST_PROMOTIONS, BANNER),
    ),
    _q(
        "v12-coupled-06",
        "coupled",
        "The API is gaining a gift_message string on orders; starting from "
        "mobile/src/parsers/orderParser.ts, which files have changed in lockstep with it?",
        {
            S(MOBILE_MODELS, "Order"): 3,
            S(SCHEMAS, "OrderOut"): 2,
            S(WEB_ORDERS, "OrderDTO"): 2,
            S(MODELS, "Order"): 1,
            S(PARSER, "parseOrder"): 1,
        },
        (),
        (MOBILE_MODELS, SCHEMAS, WEB_ORDERS, MODELS),
    ),
    _q(
        "v12-coupled-07",
        "coupled",
        "Exposing an eviction counter next to hits and misses in backend/core/ttl_cache.py: which "
        "file is normally committed with it?",
        {
            F(TEST_CACHE): 3,
            S(CACHE, "TTLCache.stats"): 2,
            C("cache_stats"): 1,
        },
        (),
        (TEST_CACHE,),
    ),
    _q(
        "v12-coupled-08",
        "coupled",
        "Raising client_max_body_size for bulk uploads: which other file has changed together "
        "with deploy/nginx/api.conf?",
        {
            S(SETTINGS, "Settings"): 3,
            C("inc2689_nginx_timeout"): 2,
            C("nginx_config"): 1,
            F(NGINX): 1,
        },
        (),
        (SETTINGS,),
    ),
    _q(
        "v12-coupled-09",
        "coupled",
        "Adding a last_used_at timestamp to refresh token records: which migration and test files "
        "usually go with backend/auth/refresh.py?",
        {
            F(MIGRATION_REFRESH): 3,
            F(TEST_REFRESH): 3,
            S(REFRESH, "RefreshRecord"): 2,
            F(MIGRATION_REVOCATIONS): 1,
        },
        (),
        (MIGRATION_REFRESH, TEST_REFRESH),
    ),
    _q(
        "v12-coupled-10",
        "coupled",
        "Adding a status filter to GET /orders in backend/api/orders.py: which files are typically "
        "edited in the same change?",
        {
            S(ORDERS_API, "list_orders"): 3,
            S(SERVICE, "OrderService.list_recent"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
            S(WEB_ORDERS, "listOrders"): 1,
        },
        (),
        (SERVICE, REPOSITORY, WEB_ORDERS),
    ),
    # exact
    _q(
        "v12-exact-01",
        "exact",
        "RECORD_TTL idempotency_keys retention",
        {
            F(IDEMPOTENCY): 3,
            C("inc2472_idempotency_ttl"): 2,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            F(MIGRATION_IDEMPOTENCY): 1,
        },
        (10,),
    ),
    _q(
        "v12-exact-02",
        "exact",
        "KeyError move_to_end TTLCache.get",
        {
            S(CACHE, "TTLCache.get"): 3,
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 2,
            C("cache_perf_revert"): 2,
        },
        (2,),
    ),
    _q(
        "v12-exact-03",
        "exact",
        "ERR_GATEWAY_REJECTED retryable GatewayError",
        {
            S(GATEWAY, "classify_response"): 3,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 2,
            C("inc2188_declined_fix"): 2,
            S(GATEWAY, "GatewayDeclined"): 1,
        },
        (7,),
    ),
    _q(
        "v12-exact-04",
        "exact",
        "ERR_TOKEN_REUSED RefreshRecord.used",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 2,
            C("inc2744_refresh_reuse"): 2,
        },
        (11,),
    ),
    _q(
        "v12-exact-05",
        "exact",
        "proxy_read_timeout GATEWAY_TIMEOUT_SECONDS",
        {
            F(NGINX): 3,
            C("inc2689_nginx_timeout"): 2,
            S(SETTINGS, "Settings"): 1,
        },
        (14,),
    ),
    _q(
        "v12-exact-06",
        "exact",
        "PAGE_SIZE_MAX",
        {S(ORDERS_API, "list_orders"): 3, C("orders_pagination"): 2},
    ),
    _q(
        "v12-exact-07",
        "exact",
        "AppliedDiscount.code",
        {
            S(RULES, "AppliedDiscount.code"): 3,
            S(RULES, "AppliedDiscount"): 2,
            S(SERVICE, "OrderService._apply_discounts"): 2,
        },
    ),
    _q(
        "v12-exact-08",
        "exact",
        "ACCESS_TOKEN_TTL_SECONDS 15 * 60",
        {
            S(TOKENS, "issue_token"): 3,
            C("access_ttl_15m"): 2,
            S(SESSION, "decodeExpiry"): 1,
        },
    ),
    _q(
        "v12-exact-09",
        "exact",
        "REDEMPTION_COLUMNS export_promotions_csv",
        {
            S(CSV_PY, "export_promotions_csv"): 3,
            C("promotions_export"): 2,
            S(RULES, "Redemption"): 1,
        },
    ),
    _q(
        "v12-exact-10",
        "exact",
        "startSession setAccessToken",
        {S(SESSION, "startSession"): 3, S(WEB_CLIENT, "setAccessToken"): 2},
    ),
    # change
    _q(
        "v12-change-01",
        "change",
        "Stop quoting cells whose first character is a minus in worker/internal/export/csv.go, so "
        "negative figures stay numeric when accounting loads the file",
        {
            S(CSV_GO, "escapeCell"): 3,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            C("inc2602_csv_injection"): 2,
            S(CSV_PY, "escape_cell"): 1,
        },
        (17,),
    ),
    _q(
        "v12-change-02",
        "change",
        "Simplify RateLimiter.allow so it compares only this minute's tally with the limit, "
        "dropping the previous-window term",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            C("inc2458_sliding_window"): 2,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 1,
        },
        (3,),
    ),
    _q(
        "v12-change-03",
        "change",
        "Remove the currency field from the web client's order type; the storefront only ever "
        "sells in euros",
        {
            S(WEB_ORDERS, "OrderDTO"): 3,
            S(WEB_ORDERS, "parseOrderResponse"): 2,
            C("currency_support"): 2,
            S(ORDER_SUMMARY, "OrderSummary"): 1,
        },
        (5,),
    ),
    _q(
        "v12-change-04",
        "change",
        "Let the web session postpone renewal until the server's sixty-second skew allowance is "
        "nearly used up, to cut calls to /auth/refresh",
        {
            S(SESSION, "shouldRefresh"): 3,
            S(SESSION, "scheduleRefresh"): 2,
            C("inc2390_web_refresh_margin"): 2,
            C("inc2291_clock_skew"): 1,
        },
        (15,),
    ),
    _q(
        "v12-change-05",
        "change",
        "Make reconciliation write off charges whose gateway lookup hit a timeout, cancelling the "
        "order and releasing its stock",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
            S(RECONCILE, "Reconcile"): 1,
        },
        (12,),
    ),
    _q(
        "v12-change-06",
        "change",
        "Drop the order id from the pagination cursor so links to order history pages get shorter",
        {
            S(ORDERS_API, "encode_cursor"): 3,
            S(ORDERS_API, "decode_cursor"): 2,
            C("inc2801_pagination"): 2,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 1,
        },
        (13,),
    ),
    _q(
        "v12-change-07",
        "change",
        "Put sales tax (tax_cents) into the finance spreadsheets produced by the admin button in "
        "Python and by the nightly Go job",
        {
            S(CSV_PY, "order_row"): 3,
            S(CSV_GO, "WriteOrdersCSV"): 3,
            C("export_columns"): 2,
            S(TAX, "sales_tax_cents"): 1,
        },
    ),
    _q(
        "v12-change-08",
        "change",
        "Add random jitter to RetryPolicy's delays so that many API pods do not retry a slow "
        "gateway in lockstep",
        {
            S(RETRY, "RetryPolicy.delays"): 3,
            S(RETRY, "RetryPolicy"): 2,
            S(BACKOFF, "Backoff.Next"): 1,
        },
    ),
    _q(
        "v12-change-09",
        "change",
        "Add a helper beside has_scope in backend/auth/tokens.py that requires every one of "
        "several scopes",
        {S(TOKENS, "has_scope"): 3, S(TOKENS, "issue_token"): 1},
    ),
    _q(
        "v12-change-10",
        "change",
        "Give each job handler in the Go runner a deadline so a hung SMTP send cannot hold up the "
        "rest of the batch",
        {
            S(RUNNER, "Runner.handle"): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            S(HANDLERS, "sendTemplate"): 1,
        },
        (),
        (),
        "worker/**",
    ),
)


MIGRATION_PROMO_MIN = "db/migrations/0010_promotion_min_subtotal.sql"
TEST_PASSWORDS = "tests/backend/test_passwords.py"

_HELDOUT_V13: tuple[_Row, ...] = (
    # causal
    _q(
        "v13-causal-01",
        "causal",
        "The profiler shows checkout threads queueing on TTLCache's RLock even for pure reads. "
        "What went wrong the previous time reads skipped that lock, and where was it written down?",
        {
            C("cache_perf_revert"): 3,
            C("cache_race_test"): 2,
            S(CACHE, "TTLCache.get"): 2,
            C("cache_perf_lockfree"): 1,
        },
        (2,),
    ),
    _q(
        "v13-causal-02",
        "causal",
        "Before I widen what counts as retryable in backend/payments/gateway.py, can someone "
        "explain why classify_response files a 409 or a 429 under the same non-retryable class "
        "as a refused card?",
        {
            C("inc2188_declined_fix"): 3,
            S(GATEWAY, "classify_response"): 2,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 2,
            S(RETRY, "charge_with_retry"): 1,
        },
        (7,),
    ),
    _q(
        "v13-causal-03",
        "causal",
        "Third-party integrators say the next_cursor of our order listing is long and opaque; "
        "what history explains it holding more than a bare timestamp?",
        {
            C("inc2801_pagination"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 1,
        },
        (13,),
    ),
    _q(
        "v13-causal-04",
        "causal",
        "Accounting pulls the Go worker's nightly file over SFTP and would like minus signs left "
        "alone, so what was the reason csv.go began putting a quote in front of them?",
        {
            C("inc2602_csv_injection"): 3,
            S(CSV_GO, "escapeCell"): 2,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            S(CSV_PY, "escape_cell"): 1,
        },
        (17,),
    ),
    _q(
        "v13-causal-05",
        "causal",
        "Given that one gateway attempt is capped at eight seconds, why is the upstream read limit "
        "in the proxy config set to 45 and not something like 10?",
        {
            C("inc2689_nginx_timeout"): 3,
            F(NGINX): 2,
            S(SETTINGS, "Settings"): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
    ),
    _q(
        "v13-causal-06",
        "causal",
        "Why is the gateway key for a refund built from the running refunded total of the order "
        "rather than from the amount of that one refund?",
        {
            C("review_comments_refunds"): 3,
            S(REFUNDS, "issue_refund"): 2,
            C("refunds_partial"): 1,
        },
    ),
    _q(
        "v13-causal-07",
        "causal",
        "A shopper one euro short of a code's minimum basket gets no discount at all, not a "
        "reduced one; was that a deliberate choice in discount_for?",
        {
            C("promo_min_subtotal"): 3,
            S(RULES, "discount_for"): 2,
            S(TEST_PROMOTIONS, "test_fixed_code_needs_the_minimum_subtotal"): 2,
            S(BANNER, "renderPromoBanner"): 1,
        },
    ),
    _q(
        "v13-causal-08",
        "causal",
        "main() wires SIGTERM into the context, yet processBatch passes each handler "
        "context.WithoutCancel; what was the reason for detaching them?",
        {
            C("worker_shutdown"): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            S(WORKER_MAIN, "main"): 1,
            F(K8S_WORKER): 1,
        },
    ),
    _q(
        "v13-causal-09",
        "causal",
        "For what reason does request_fingerprint serialise the body with sorted keys and compact "
        "separators before hashing it?",
        {
            S(IDEMPOTENCY, "request_fingerprint"): 3,
            C("idempotency_store"): 2,
            S(TEST_IDEMPOTENCY, "test_same_key_different_body_is_rejected"): 1,
        },
    ),
    _q(
        "v13-causal-10",
        "causal",
        "Why must the admin Download CSV in Python and the worker's nightly export in Go list "
        "exactly the same columns in the same order?",
        {
            C("csv_export"): 3,
            C("export_columns"): 2,
            S(CSV_PY, "order_row"): 2,
            S(CSV_GO, "WriteOrdersCSV"): 2,
        },
    ),
    # behavioral
    _q(
        "v13-behavioral-01",
        "behavioral",
        "After a pod restart, charge_with_retry runs again for an order it had already tried; "
        "does the gateway then see the Idempotency-Key from before the restart, or a new one?",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            F(ADR_IDEMPOTENCY): 1,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 1,
        },
        (0, 16),
    ),
    _q(
        "v13-behavioral-02",
        "behavioral",
        "A phone posts to /auth/refresh, the server rotates the token, but the answer is lost in "
        "a tunnel; when the app retries with the same refresh token, what happens to that "
        "sign-in's tokens?",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 2,
            C("inc2744_refresh_reuse"): 2,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 1,
        },
        (11,),
    ),
    _q(
        "v13-behavioral-03",
        "behavioral",
        "Suppose LookupCharge returns a Go error such as a dial timeout instead of a status: "
        "which Outcome does Reconcile record, and is the order cancelled?",
        {
            S(RECONCILE, "Reconcile"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
            C("inc2710_reconcile_timeout"): 1,
        },
        (12,),
    ),
    _q(
        "v13-behavioral-04",
        "behavioral",
        "A 100 euro basket carries SUMMER20, WELCOME15 and a stackable SHIPFREE; which codes end "
        "up in AppliedDiscount.codes, and how many cents come off?",
        {
            S(RULES, "apply_promotions"): 3,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
            S(TEST_PROMOTIONS, "test_stackable_free_shipping_adds_to_a_percentage_code"): 2,
            C("inc2655_promo_stacking"): 1,
        },
        (8,),
    ),
    _q(
        "v13-behavioral-05",
        "behavioral",
        "For an access token whose exp is 10:15:00, from what time on does the storefront's "
        "shouldRefresh return true, and does the backend's extra minute push that any later?",
        {
            S(SESSION, "shouldRefresh"): 3,
            F(SESSION_TEST): 2,
            C("inc2390_web_refresh_margin"): 1,
        },
        (15,),
    ),
    _q(
        "v13-behavioral-06",
        "behavioral",
        "Under DEFAULT_POLICY, how long does charge_with_retry sleep between its attempts, and "
        "after how many does it stop?",
        {
            S(RETRY, "RetryPolicy.delays"): 3,
            S(RETRY, "RetryPolicy"): 2,
            S(RETRY, "charge_with_retry"): 2,
            S(TEST_RETRY, "test_gives_up_after_max_attempts"): 1,
        },
    ),
    _q(
        "v13-behavioral-07",
        "behavioral",
        "If two requests miss the same promotion code at the same moment, can get_or_load end up "
        "calling the loader twice?",
        {
            S(CACHE, "TTLCache.get_or_load"): 3,
            S(TEST_CACHE, "test_get_or_load_calls_loader_once"): 2,
            S(CODES, "lookup_code"): 1,
        },
    ),
    _q(
        "v13-behavioral-08",
        "behavioral",
        "Does a plain GET of the order list count against a client's per-minute quota, and which "
        "paths are throttled in the first place?",
        {
            S(MIDDLEWARE, "rate_limit_middleware"): 3,
            S(LIMITER, "RateLimiter.allow"): 1,
            C("rate_limiter"): 1,
        },
    ),
    _q(
        "v13-behavioral-09",
        "behavioral",
        "An order payload arrives with discount_cents set to null and no tax_cents key at all; "
        "what values does the app's Order end up with for those two fields?",
        {
            S(PARSER, "parseOrder"): 3,
            S(MOBILE_MODELS, "Order"): 1,
            C("order_tax_field"): 1,
        },
        (),
        (),
        "mobile/**",
    ),
    _q(
        "v13-behavioral-10",
        "behavioral",
        "For claims of a token minted with no scopes, what does has_scope answer when asked for "
        "orders:read?",
        {S(TOKENS, "has_scope"): 3, S(TOKENS, "issue_token"): 2},
    ),
    # symptom
    _q(
        "v13-symptom-01",
        "symptom",
        "Right after signing in, some requests that land on a different API pod fail with "
        "ERR_TOKEN_NOT_YET_VALID; that pod's clock lags the issuing one by about half a minute.",
        {
            S(TOKENS, "validate_token"): 3,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_token_from_a_pod_with_a_fast_clock_is_accepted"): 2,
        },
        (1,),
    ),
    _q(
        "v13-symptom-02",
        "symptom",
        "Our Grafana panel shows a client with only 12 checkout POSTs so far this minute getting "
        "429 ERR_RATE_LIMITED, while the configured limit is 20.",
        {
            S(LIMITER, "RateLimiter._estimate"): 3,
            S(LIMITER, "RateLimiter.allow"): 2,
            C("inc2458_sliding_window"): 2,
            S(MIDDLEWARE, "rate_limit_middleware"): 1,
        },
        (3,),
    ),
    _q(
        "v13-symptom-03",
        "symptom",
        "Opening an order saved on the phone back when the API still sent floats crashes the "
        "detail screen: ERR_PARSE_AMOUNT, total_cents is not an integer number of cents: 24.5",
        {
            S(PARSER, "parseMoney"): 3,
            C("inc2333_mobile_cents"): 2,
            F(PARSER_TEST): 1,
            F(ADR_CENTS): 1,
        },
        (4,),
    ),
    _q(
        "v13-symptom-04",
        "symptom",
        "In the file from the admin Download CSV button, notes like '+44 20 7946 0000' and "
        "'- ring twice' show a stray apostrophe at the start.",
        {
            S(CSV_PY, "escape_cell"): 3,
            C("inc2602_csv_injection"): 2,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            S(CSV_PY, "order_row"): 1,
        },
        (9,),
    ),
    _q(
        "v13-symptom-05",
        "symptom",
        "The month-end export backlog takes hours to drain; the worker never has more than eight "
        "jobs running although every batch it fetches holds fifty.",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            C("worker_perf_revert"): 2,
            F(K8S_WORKER): 2,
            C("worker_inflight_comment"): 1,
        },
        (6,),
    ),
    _q(
        "v13-symptom-06",
        "symptom",
        "We alert on ERR_PAYMENT_RETRY_EXHAUSTED but it has never fired, not even during gateway "
        "outages where all four attempts failed; the logs show the gateway's own error codes "
        "instead.",
        {
            S(RETRY, "charge_with_retry"): 3,
            F(RUNBOOK): 2,
            S(TEST_RETRY, "test_gives_up_after_max_attempts"): 1,
            F(ERRORS): 1,
        },
    ),
    _q(
        "v13-symptom-07",
        "symptom",
        "The reconciliation log says 'mismatch' for an order where the gateway captured 499 cents "
        "and we expected 500, and nothing else happens to that order.",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE_TEST, "TestSettledAndMismatch"): 2,
            C("worker_reconcile"): 1,
        },
    ),
    _q(
        "v13-symptom-08",
        "symptom",
        "Calling GET /orders?limit=500 answers with a 422 validation error instead of giving us "
        "500 orders.",
        {S(ORDERS_API, "list_orders"): 3, C("orders_pagination"): 2},
    ),
    _q(
        "v13-symptom-09",
        "symptom",
        "Shoppers who hammer the sign-in form get a 503 page from the proxy before our API's own "
        "429 ever shows up.",
        {
            F(NGINX): 3,
            C("nginx_config"): 2,
            S(MIDDLEWARE, "rate_limit_middleware"): 1,
        },
    ),
    _q(
        "v13-symptom-10",
        "symptom",
        "Users who signed up last year can still log in, but their stored password hash never "
        "changes to the scrypt format afterwards.",
        {
            S(PASSWORDS, "needs_rehash"): 3,
            S(PASSWORDS, "verify_password"): 2,
            C("passwords_scrypt"): 2,
            F(TEST_PASSWORDS): 1,
        },
    ),
    # coupled
    _q(
        "v13-coupled-01",
        "coupled",
        "I'm moving the key derivation inside the attempt loop of backend/payments/retry.py so "
        "each try shows up on its own in the gateway dashboard; which test and module files have "
        "been committed together with retry.py?",
        {
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 3,
            F(GATEWAY): 2,
            C("inc2407_idempotency_retry"): 2,
            S(RETRY, "charge_with_retry"): 1,
        },
        (0, 16),
        (TEST_RETRY, GATEWAY),
    ),
    _q(
        "v13-coupled-02",
        "coupled",
        "Planning to hard-code EUR inside web/src/api/orders.ts and drop currency from the DTO; "
        "which other web files were committed alongside that module?",
        {
            S(ORDER_SUMMARY, "OrderSummary"): 3,
            S(MONEY_TS, "formatMoney"): 2,
            S(WEB_ORDERS, "orderTotalLabel"): 2,
            C("currency_support"): 1,
        },
        (5,),
        (ORDER_SUMMARY, MONEY_TS),
    ),
    _q(
        "v13-coupled-03",
        "coupled",
        "Ahead of shortening record retention in backend/payments/idempotency.py to save database "
        "space: which test and which app-side file were edited in the commit that set the "
        "current value?",
        {
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 3,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 3,
            C("inc2472_idempotency_ttl"): 2,
        },
        (10,),
        (TEST_IDEMPOTENCY, OFFLINE),
    ),
    _q(
        "v13-coupled-04",
        "coupled",
        "I want TTLCache.get to read without locking through a copy-on-write snapshot; which test "
        "file has evolved with backend/core/ttl_cache.py and would guard that path?",
        {
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 3,
            C("cache_race_test"): 2,
            S(CACHE, "TTLCache.get"): 2,
            C("cache_perf_revert"): 1,
        },
        (2,),
        (TEST_CACHE,),
    ),
    _q(
        "v13-coupled-05",
        "coupled",
        "Ops wants nginx to abandon slow upstream calls after ten seconds; which API-side config "
        "has shared commits with deploy/nginx/api.conf?",
        {
            S(SETTINGS, "Settings"): 3,
            C("inc2689_nginx_timeout"): 2,
            F(NGINX): 1,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
        (SETTINGS,),
    ),
    _q(
        "v13-coupled-06",
        "coupled",
        "Adding an authorise-only call (capture later) to GatewayClient in "
        "backend/payments/gateway.py: which error and test modules usually move together with "
        "that file?",
        {
            F(ERRORS): 3,
            F(TEST_GATEWAY): 3,
            F(TEST_RETRY): 2,
            S(GATEWAY, "GatewayClient.refund"): 1,
        },
        (),
        (ERRORS, TEST_GATEWAY, TEST_RETRY),
    ),
    _q(
        "v13-coupled-07",
        "coupled",
        "We're adding max_uses_per_customer to Promotion in backend/promotions/rules.py; which "
        "migration, test and checkout files tend to be committed with rules.py?",
        {
            F(TEST_PROMOTIONS): 3,
            F(MIGRATION_PROMO_MIN): 2,
            S(BANNER, "renderPromoBanner"): 2,
            S(RULES, "Promotion"): 1,
        },
        (),
        (TEST_PROMOTIONS, MIGRATION_PROMO_MIN, BANNER),
    ),
    _q(
        "v13-coupled-08",
        "coupled",
        "The API will start sending a courier_name on orders; which other files under mobile/ "
        "usually change when mobile/src/parsers/orderParser.ts does?",
        {
            S(MOBILE_MODELS, "Order"): 3,
            F(PARSER_TEST): 2,
            S(PARSER, "parseOrder"): 1,
            C("delivery_window"): 1,
        },
        (),
        (MOBILE_MODELS, PARSER_TEST),
        "mobile/**",
    ),
    _q(
        "v13-coupled-09",
        "coupled",
        "Giving the Runner struct of worker/internal/jobs/runner.go a per-kind timeout map: "
        "which other worker files were edited alongside it before?",
        {
            S(WORKER_MAIN, "main"): 3,
            F(RUNNER_TEST): 3,
            S(RUNNER, "Runner"): 2,
            C("worker_shutdown"): 1,
        },
        (),
        (WORKER_MAIN, RUNNER_TEST),
        "worker/**",
    ),
    _q(
        "v13-coupled-10",
        "coupled",
        "Moving the refresh token from memory into sessionStorage inside web/src/auth/session.ts: "
        "what server-side auth modules have shared its commits?",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            S(TOKENS, "validate_token"): 2,
            C("refresh_tokens"): 2,
            S(SESSION, "startSession"): 1,
        },
        (),
        (TOKENS, REFRESH),
    ),
    # exact
    _q(
        "v13-exact-01",
        "exact",
        "INC-2519 lock-free read path revert",
        {
            C("cache_perf_revert"): 3,
            C("cache_race_test"): 2,
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 2,
            S(CACHE, "TTLCache.get"): 1,
        },
        (2,),
    ),
    _q(
        "v13-exact-02",
        "exact",
        "INC-2744 reuse detection",
        {
            C("inc2744_refresh_reuse"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 2,
            F(MIGRATION_REVOCATIONS): 1,
        },
        (11,),
    ),
    _q(
        "v13-exact-03",
        "exact",
        "INC-2710 reconcile timeout",
        {
            C("inc2710_reconcile_timeout"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
            F(RUNBOOK): 1,
        },
        (12,),
    ),
    _q(
        "v13-exact-04",
        "exact",
        "ERR_TOKEN_NOT_YET_VALID",
        {
            S(TOKENS, "validate_token"): 3,
            S(TEST_TOKENS, "test_token_from_a_pod_with_a_fast_clock_is_accepted"): 2,
            C("inc2291_clock_skew"): 2,
        },
        (1,),
    ),
    _q(
        "v13-exact-05",
        "exact",
        "NAMESPACE_URL idempotency_key",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (0, 16),
    ),
    _q(
        "v13-exact-06",
        "exact",
        "ErrUnknownKind requeue",
        {
            S(RUNNER, "ErrUnknownKind"): 3,
            S(RUNNER, "Runner.handle"): 2,
            S(RUNNER_TEST, "TestUnknownKindIsRetried"): 2,
        },
    ),
    _q(
        "v13-exact-07",
        "exact",
        "REFRESH_TOKEN_TTL_SECONDS",
        {
            S(REFRESH, "start_session"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            C("refresh_tokens"): 2,
            F(MIGRATION_REFRESH): 1,
        },
    ),
    _q(
        "v13-exact-08",
        "exact",
        "deploy/nginx/api.conf limit_req_zone login burst=5",
        {F(NGINX): 3, C("nginx_config"): 2},
    ),
    _q(
        "v13-exact-09",
        "exact",
        "OrderPageDTO nextCursor",
        {
            S(WEB_ORDERS, "OrderPageDTO"): 3,
            S(WEB_ORDERS, "listOrders"): 2,
            C("orders_pagination"): 1,
        },
    ),
    _q(
        "v13-exact-10",
        "exact",
        "SHOP_TIMEZONE Europe/Stockholm",
        {
            S(RULES, "_as_shop_time"): 3,
            C("promo_expiry_tz"): 2,
            S(RULES, "is_active"): 2,
            S(TEST_PROMOTIONS, "test_naive_campaign_bounds_are_shop_local_time"): 1,
        },
    ),
    # change
    _q(
        "v13-change-01",
        "change",
        "Going to rework backend/core/rate_limiter.py so a key is judged only on the requests "
        "since the current minute began; the carried-over share of the previous minute keeps "
        "confusing support",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            C("inc2458_sliding_window"): 2,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 1,
        },
        (3,),
    ),
    _q(
        "v13-change-02",
        "change",
        "Teach mobile/src/parsers/orderParser.ts to accept decimal amounts by rounding them, so "
        "orders cached back when the API sent floats still open",
        {
            S(PARSER, "parseMoney"): 3,
            F(PARSER_TEST): 2,
            C("inc2333_mobile_cents"): 2,
            F(ADR_CENTS): 1,
        },
        (4,),
    ),
    _q(
        "v13-change-03",
        "change",
        "Set WORKER_MAX_IN_FLIGHT to 50 in deploy/k8s/worker-deployment.yaml, matching "
        "WORKER_BATCH_SIZE, so that each batch runs in a single wave",
        {
            F(K8S_WORKER): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            C("worker_perf_revert"): 2,
            C("worker_inflight_comment"): 1,
        },
        (6,),
    ),
    _q(
        "v13-change-04",
        "change",
        "I intend to halve /auth/refresh traffic by letting shouldRefresh treat expiresAt plus "
        "CLOCK_SKEW_MS as the real deadline",
        {
            S(SESSION, "shouldRefresh"): 3,
            F(SESSION_TEST): 2,
            C("inc2291_clock_skew"): 1,
            C("web_session_tests"): 1,
        },
        (15,),
    ),
    _q(
        "v13-change-05",
        "change",
        "Narrow FORMULA_PREFIXES in backend/export/csv_export.py down to '=' and '@' so phone "
        "numbers and dash bullets in customer notes come out clean",
        {
            S(CSV_PY, "escape_cell"): 3,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            C("inc2602_csv_injection"): 2,
            S(CSV_GO, "escapeCell"): 1,
        },
        (9,),
    ),
    _q(
        "v13-change-06",
        "change",
        "Add an on_attempt callback to charge_with_retry so the order service can count charge "
        "attempts per order in /metrics",
        {
            S(RETRY, "charge_with_retry"): 3,
            S(SERVICE, "OrderService._charge"): 2,
            S(TEST_RETRY, "test_retries_timeouts_then_succeeds"): 1,
        },
    ),
    _q(
        "v13-change-07",
        "change",
        "Put an aud claim into tokens from issue_token and make validate_token refuse tokens "
        "minted for a different audience",
        {
            S(TOKENS, "issue_token"): 3,
            S(TOKENS, "validate_token"): 3,
            S(TEST_TOKENS, "test_round_trip"): 1,
        },
    ),
    _q(
        "v13-change-08",
        "change",
        "Cap how many charges Reconcile looks up in one run, so that a huge backlog cannot "
        "overrun the nightly window; the rest wait for the next night",
        {
            S(RECONCILE, "Reconcile"): 3,
            S(RECONCILE, "Store"): 2,
            S(RECONCILE_TEST, "TestSettledAndMismatch"): 1,
        },
    ),
    _q(
        "v13-change-09",
        "change",
        "Add a cancelOrder(id) call to web/src/api/orders.ts and expose the backend's existing "
        "cancellation logic as an endpoint for it",
        {
            S(SERVICE, "OrderService.cancel_order"): 3,
            S(MODELS, "Order.can_cancel"): 2,
            S(WEB_ORDERS, "createOrder"): 2,
            S(WEB_CLIENT, "apiPost"): 1,
        },
    ),
    _q(
        "v13-change-10",
        "change",
        "Write created_at in the Go nightly export as Stockholm local time rather than UTC, the "
        "way finance reads their day",
        {
            S(CSV_GO, "WriteOrdersCSV"): 3,
            S(CSV_PY, "order_row"): 2,
            C("export_columns"): 1,
        },
    ),
)


MIGRATION_ORDERS_INDEX = "db/migrations/0009_orders_created_id_index.sql"
TEST_WEB_ORDERS = "web/src/__tests__/orders.test.ts"
PROMO_INPUT = "web/src/components/PromoCodeInput.tsx"

_HELDOUT_V14: tuple[_Row, ...] = (
    # causal
    _q(
        "v14-causal-01",
        "causal",
        "Which incident made the app's money parsing refuse anything but integer cents, and is "
        "that rule written down as a decision record somewhere?",
        {
            C("inc2333_mobile_cents"): 3,
            F(ADR_CENTS): 2,
            S(PARSER, "parseMoney"): 2,
            C("money_cents_refactor"): 1,
        },
        (4,),
    ),
    _q(
        "v14-causal-02",
        "causal",
        "The reuse check in backend/auth/refresh.py cites an incident involving a browser "
        "extension; what exactly did the attacker get away with, and which earlier feature commit "
        "had opened that window?",
        {
            C("inc2744_refresh_reuse"): 3,
            C("refresh_tokens"): 2,
            S(REFRESH, "rotate_refresh_token"): 2,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 1,
        },
        (11,),
    ),
    _q(
        "v14-causal-03",
        "causal",
        "When the storefront parses an order, a missing currency falls back to EUR in "
        "parseOrderResponse; what change brought currency into the web order type in the first "
        "place, and for which markets?",
        {
            C("currency_support"): 3,
            S(WEB_ORDERS, "parseOrderResponse"): 2,
            S(WEB_ORDERS, "OrderDTO"): 2,
            S(MONEY_TS, "formatMoney"): 1,
        },
        (5,),
    ),
    _q(
        "v14-causal-04",
        "causal",
        "What happened on 27 July that led classifyGatewayStatus to keep a blank or 504 lookup "
        "open for the next night's run?",
        {
            C("inc2710_reconcile_timeout"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
            F(RUNBOOK): 1,
        },
        (12,),
    ),
    _q(
        "v14-causal-05",
        "causal",
        "csv.go's escapeCell cites INC-2602: what did the customer actually type, and why did that "
        "fix reach the Go nightly file as well as the admin download?",
        {
            C("inc2602_csv_injection"): 3,
            S(CSV_GO, "escapeCell"): 2,
            S(CSV_PY, "escape_cell"): 2,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 1,
        },
        (9, 17),
    ),
    _q(
        "v14-causal-06",
        "causal",
        "Why does the app's parseStatus throw ERR_PARSE_STATUS on a status it doesn't know, rather "
        "than passing the raw string through to the screen?",
        {
            C("refunds_partial"): 3,
            S(PARSER, "parseStatus"): 2,
            S(ORDER_SCREEN, "statusLabel"): 1,
            S(MOBILE_MODELS, "OrderStatus"): 1,
        },
    ),
    _q(
        "v14-causal-07",
        "causal",
        "What problem was createOrder in web/src/api/orders.ts solving by sending an "
        "Idempotency-Key header with every new order?",
        {
            C("idempotency_store"): 3,
            S(WEB_ORDERS, "createOrder"): 2,
            S(ORDERS_API, "create_order"): 2,
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 1,
        },
    ),
    _q(
        "v14-causal-08",
        "causal",
        "The admin form only accepts letters and digits for promotion codes, so why does the "
        "redemption export still pass every code through the spreadsheet escaping?",
        {
            C("promotions_export"): 3,
            S(CSV_PY, "export_promotions_csv"): 2,
            S(TEST_CSV_PY, "test_promotions_export_escapes_partner_codes"): 2,
            S(RULES, "Redemption"): 1,
        },
    ),
    _q(
        "v14-causal-09",
        "causal",
        "How come only US-dollar orders get tax_cents added on top, while euro, pound and krona "
        "orders always carry zero?",
        {
            C("order_tax_field"): 3,
            S(TAX, "sales_tax_cents"): 2,
            S(MODELS, "Order.total_cents"): 1,
        },
    ),
    _q(
        "v14-causal-10",
        "causal",
        "What made GET /orders page its results at all, and where does the ceiling of 100 orders "
        "per request come from?",
        {
            C("orders_pagination"): 3,
            S(ORDERS_API, "list_orders"): 2,
            S(SERVICE, "OrderService.list_recent"): 1,
            S(REPOSITORY, "OrderRepository.list_before"): 1,
        },
    ),
    # behavioral
    _q(
        "v14-behavioral-01",
        "behavioral",
        "What string does charge_with_retry send as the idempotency key for an order (the order id "
        "plus what?), and is it the same on attempt four as on attempt one?",
        {
            S(RETRY, "charge_with_retry"): 3,
            F(ADR_IDEMPOTENCY): 2,
            C("inc2407_idempotency_retry"): 2,
            S(GATEWAY, "GatewayClient.charge"): 1,
        },
        (0, 16),
    ),
    _q(
        "v14-behavioral-02",
        "behavioral",
        "Staging had a mistyped gateway base URL and every charge came back 404: how many attempts "
        "did charge_with_retry make, and which error code did the shopper end up with?",
        {
            S(GATEWAY, "classify_response"): 3,
            S(SERVICE, "OrderService._charge"): 2,
            S(RETRY, "charge_with_retry"): 2,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 1,
        },
        (7,),
    ),
    _q(
        "v14-behavioral-03",
        "behavioral",
        "At exactly which moment does IdempotencyStore.lookup stop handing back the stored "
        "response, at expires_at itself or just after, and how long is that with the default "
        "settings?",
        {
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 3,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            C("inc2472_idempotency_ttl"): 2,
            S(IDEMPOTENCY, "IdempotencyStore"): 1,
        },
        (10,),
    ),
    _q(
        "v14-behavioral-04",
        "behavioral",
        "Given the cursor of the last order on page one, can list_before still return an order "
        "with that very same created_at but a smaller id, or are all orders of that instant "
        "skipped?",
        {
            S(REPOSITORY, "OrderRepository.list_before"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            C("inc2801_pagination"): 2,
            F(MIGRATION_ORDERS_INDEX): 1,
        },
        (13,),
    ),
    _q(
        "v14-behavioral-05",
        "behavioral",
        "How long before a token's exp does the timer in web/src/auth/session.ts fire, and what "
        "catches it if a sleeping tab lets that timer run late?",
        {
            S(SESSION, "scheduleRefresh"): 3,
            S(SESSION, "ensureFresh"): 2,
            S(SESSION, "shouldRefresh"): 2,
            C("inc2390_web_refresh_margin"): 1,
        },
        (15,),
    ),
    _q(
        "v14-behavioral-06",
        "behavioral",
        "A token that expired an hour ago and also has a forged signature: which ERR_ code comes "
        "out of validate_token, the expiry one or the signature one?",
        {
            S(TOKENS, "validate_token"): 3,
            S(TEST_TOKENS, "test_tampered_signature_is_rejected"): 2,
            S(TOKENS, "_sign"): 1,
        },
    ),
    _q(
        "v14-behavioral-07",
        "behavioral",
        "Before any lookups have happened, what hit_ratio does TTLCache.stats report, and does its "
        "size include entries that have expired but were never read again?",
        {
            S(CACHE, "TTLCache.stats"): 3,
            S(TEST_CACHE, "test_stats_count_hits_and_misses"): 2,
            C("cache_stats"): 1,
        },
    ),
    _q(
        "v14-behavioral-08",
        "behavioral",
        "When a line item in an order payload has no name, what does the app's model get for it, "
        "and is its quantity checked at all?",
        {
            S(PARSER, "parseLineItem"): 3,
            S(MOBILE_MODELS, "LineItem"): 2,
            S(PARSER, "parseOrder"): 1,
        },
        (),
        (),
        "mobile/**",
    ),
    _q(
        "v14-behavioral-09",
        "behavioral",
        "If the gateway's load balancer answers with an HTML error page instead of JSON, what does "
        "the payments client do with that body?",
        {
            S(GATEWAY, "_parse_body"): 3,
            S(GATEWAY, "GatewayClient._post"): 2,
            S(GATEWAY, "classify_response"): 1,
        },
    ),
    _q(
        "v14-behavioral-10",
        "behavioral",
        "Does RateLimiter ever forget the per-key state of clients that stopped sending requests, "
        "or does its dictionary only grow?",
        {
            S(LIMITER, "RateLimiter._roll"): 3,
            S(LIMITER, "RateLimiter"): 2,
            S(LIMITER, "client_key"): 1,
        },
    ),
    # symptom
    _q(
        "v14-symptom-01",
        "symptom",
        "Tokens that are still a few seconds from exp on the pod that issued them get 401 "
        "ERR_TOKEN_EXPIRED when the next request lands on a pod whose clock is 40 seconds ahead.",
        {
            S(TOKENS, "validate_token"): 3,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 2,
        },
        (1,),
    ),
    _q(
        "v14-symptom-02",
        "symptom",
        "CI went flaky after the cache speed-up: test_concurrent_get_and_eviction_do_not_raise "
        "fails about one run in twenty.",
        {
            S(CACHE, "TTLCache.get"): 3,
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 2,
            C("cache_race_test"): 2,
            C("cache_perf_revert"): 1,
        },
        (2,),
    ),
    _q(
        "v14-symptom-03",
        "symptom",
        "go test -race ./internal/jobs now stops with 'peak concurrency 20 exceeds MaxInFlight 3' "
        "after I reworked the batch loop.",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 2,
            C("worker_perf_revert"): 2,
            C("worker_inflight_comment"): 1,
        },
        (6,),
    ),
    _q(
        "v14-symptom-04",
        "symptom",
        "After marketing's winter tweak to the discount rules, pytest reports 'ERR_PROMO_STACKING: "
        "percentage codes were combined'.",
        {
            S(RULES, "apply_promotions"): 3,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
            C("inc2655_promo_stacking"): 2,
            S(BANNER, "stackingNotice"): 1,
        },
        (8,),
    ),
    _q(
        "v14-symptom-05",
        "symptom",
        "The slow-gateway checkout scenario on staging is red: nginx answers 504 after ten seconds "
        "while the sandbox is still working through a charge that takes nine seconds per attempt.",
        {
            F(NGINX): 3,
            C("inc2689_nginx_timeout"): 2,
            S(SETTINGS, "Settings"): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
    ),
    _q(
        "v14-symptom-06",
        "symptom",
        "The confirmation page shows 'Subtotal NaN' for orders whose JSON has no subtotal_cents, "
        "while the discount and tax lines look fine.",
        {
            S(WEB_ORDERS, "parseOrderResponse"): 3,
            S(ORDER_SUMMARY, "OrderSummary"): 2,
            F(TEST_WEB_ORDERS): 1,
        },
    ),
    _q(
        "v14-symptom-07",
        "symptom",
        "A failing e-mail job settles into retrying exactly every five minutes, always the same "
        "interval with no randomness at all.",
        {
            S(WORKER_MAIN, "main"): 3,
            S(BACKOFF, "Backoff.Next"): 3,
            S(RUNNER, "Runner.handle"): 2,
            S(QUEUE, "PostgresQueue.Retry"): 1,
        },
        (),
        (),
        "worker/**",
    ),
    _q(
        "v14-symptom-08",
        "symptom",
        "A partner's script calls POST /orders and gets a 422 complaining about a missing header "
        "before any of our order code runs.",
        {
            S(ORDERS_API, "create_order"): 3,
            C("idempotency_store"): 2,
            S(WEB_ORDERS, "createOrder"): 1,
        },
    ),
    _q(
        "v14-symptom-09",
        "symptom",
        "Finance diffs the admin CSV against the worker's nightly file and every row differs in "
        "created_at: one ends in +00:00, the other in Z.",
        {
            S(CSV_PY, "order_row"): 3,
            S(CSV_GO, "WriteOrdersCSV"): 3,
            C("export_columns"): 1,
        },
    ),
    _q(
        "v14-symptom-10",
        "symptom",
        "With four charge attempts configured, the payment log only shows 'charge attempt N "
        "failed' lines for attempts 1 to 3, never for the fourth, even when the order ends up "
        "failing.",
        {
            S(RETRY, "charge_with_retry"): 3,
            S(TEST_RETRY, "test_gives_up_after_max_attempts"): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
    ),
    # coupled
    _q(
        "v14-coupled-01",
        "coupled",
        "Our gateway now and then refuses a retry as carrying a stale key, so I'll derive a new key "
        "per attempt inside backend/payments/retry.py; what else has historically landed in the "
        "same commits as retry.py?",
        {
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 3,
            F(GATEWAY): 2,
            C("inc2407_idempotency_retry"): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (0, 16),
        (TEST_RETRY, GATEWAY),
    ),
    _q(
        "v14-coupled-02",
        "coupled",
        "Support can't explain throttling decisions from the dashboard counts, so allow() is going "
        "to look only at this minute's requests; which test and request-handling files have been "
        "committed with backend/core/rate_limiter.py?",
        {
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            C("inc2458_sliding_window"): 2,
            S(LIMITER, "RateLimiter._estimate"): 1,
        },
        (3,),
        (TEST_RATE_LIMITER, MIDDLEWARE),
    ),
    _q(
        "v14-coupled-03",
        "coupled",
        "Finance wants stock freed sooner, so anything the gateway does not report as succeeded "
        "or processing should cancel the order; which test and which Python module have shared "
        "commits with worker/internal/payments/reconcile.go?",
        {
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 3,
            S(GATEWAY, "GatewayTimeout"): 2,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE, "classifyGatewayStatus"): 1,
        },
        (12,),
        (RECONCILE_TEST, GATEWAY),
    ),
    _q(
        "v14-coupled-04",
        "coupled",
        "Order-history links in our SMS reminders get cut off, so I'd keep just created_at inside "
        "the page token; which repository, migration and test files were committed along with "
        "backend/api/orders.py?",
        {
            S(REPOSITORY, "OrderRepository.list_before"): 3,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 3,
            F(MIGRATION_ORDERS_INDEX): 2,
            C("inc2801_pagination"): 1,
        },
        (13,),
        (REPOSITORY, MIGRATION_ORDERS_INDEX, TEST_ORDERS_API),
    ),
    _q(
        "v14-coupled-05",
        "coupled",
        "People on long trips lose orders queued offline, so I'd raise MAX_REPLAY_AGE_MS in "
        "mobile/src/storage/offlineQueue.ts to 72 hours; which server-side module and test "
        "shipped in the commit that introduced that constant?",
        {
            F(IDEMPOTENCY): 3,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 3,
            C("inc2472_idempotency_ttl"): 2,
            S(OFFLINE, "replayQueue"): 1,
        },
        (10,),
        (IDEMPOTENCY, TEST_IDEMPOTENCY),
    ),
    _q(
        "v14-coupled-06",
        "coupled",
        "Adding an order.shipped event next to the paid and refunded ones in "
        "backend/payments/webhooks.py: which test file has moved with it?",
        {
            F(TEST_WEBHOOKS): 3,
            S(WEBHOOKS, "build_event"): 2,
            C("webhooks"): 1,
        },
        (),
        (TEST_WEBHOOKS,),
    ),
    _q(
        "v14-coupled-07",
        "coupled",
        "Putting a campaign_name on Redemption in backend/promotions/rules.py: which export module "
        "and test were committed together with rules.py when redemptions were introduced?",
        {
            S(CSV_PY, "export_promotions_csv"): 3,
            S(TEST_CSV_PY, "test_promotions_export_escapes_partner_codes"): 2,
            S(RULES, "Redemption"): 2,
            C("promotions_export"): 1,
        },
        (),
        (CSV_PY, TEST_CSV_PY),
    ),
    _q(
        "v14-coupled-08",
        "coupled",
        "Next to refund_job in backend/orders/notifications.py I want a shipping-confirmation "
        "e-mail; which template and Go worker file changed together with notifications.py the "
        "last time a mail kind was added?",
        {
            S(HANDLERS, "DefaultHandlers"): 3,
            F(REFUND_TEMPLATE): 2,
            S(NOTIFICATIONS, "refund_job"): 2,
            C("email_refund_template"): 1,
        },
        (),
        (REFUND_TEMPLATE, HANDLERS),
    ),
    _q(
        "v14-coupled-09",
        "coupled",
        "worker/cmd/worker/main.go should read the idle poll interval from a WORKER_POLL_INTERVAL "
        "variable: which files of the jobs package are usually edited with main.go?",
        {
            S(RUNNER, "Runner.Run"): 3,
            S(RUNNER, "Runner"): 2,
            S(WORKER_MAIN, "envInt"): 2,
            C("worker_metrics"): 1,
        },
        (),
        (RUNNER, JOB_METRICS),
    ),
    _q(
        "v14-coupled-10",
        "coupled",
        "Giving each cart line its own discount in web/src/checkout/cart.ts: which other web files "
        "have shared commits with cart.ts?",
        {
            S(MONEY_TS, "sumCents"): 3,
            S(WEB_ORDERS, "OrderDTO"): 2,
            S(CART, "cartSubtotalCents"): 2,
            S(PROMO_INPUT, "PromoCodeInput"): 1,
        },
        (),
        (WEB_ORDERS, MONEY_TS),
    ),
    # exact
    _q(
        "v14-exact-01",
        "exact",
        "p99 GET /promotions/{code} 41 ms -> 12 ms",
        {
            C("cache_perf_lockfree"): 3,
            C("cache_perf_revert"): 2,
            S(CACHE, "TTLCache.get"): 2,
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 1,
        },
        (2,),
    ),
    _q(
        "v14-exact-02",
        "exact",
        "Any other 4xx is our request's fault",
        {
            S(GATEWAY, "classify_response"): 3,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 2,
            C("inc2188_declined_fix"): 2,
        },
        (7,),
    ),
    _q(
        "v14-exact-03",
        "exact",
        "Four attempts plus backoff must stay below nginx",
        {
            S(SETTINGS, "Settings"): 3,
            F(NGINX): 2,
            C("inc2689_nginx_timeout"): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
    ),
    _q(
        "v14-exact-04",
        "exact",
        "toBeGreaterThan(CLOCK_SKEW_MS) REFRESH_MARGIN_MS",
        {
            F(SESSION_TEST): 3,
            S(SESSION, "shouldRefresh"): 2,
            C("web_session_tests"): 2,
            C("inc2291_clock_skew"): 1,
        },
        (15,),
    ),
    _q(
        "v14-exact-05",
        "exact",
        "_Window previous current weighted overlap",
        {
            S(LIMITER, "RateLimiter._estimate"): 3,
            S(LIMITER, "_Window"): 2,
            C("inc2458_sliding_window"): 2,
            S(LIMITER, "RateLimiter._roll"): 1,
        },
        (3,),
    ),
    _q(
        "v14-exact-06",
        "exact",
        "_unb64 base64 padding",
        {
            S(TOKENS, "_unb64"): 3,
            S(TOKENS, "validate_token"): 2,
            S(TOKENS, "_b64"): 1,
        },
    ),
    _q(
        "v14-exact-07",
        "exact",
        "OutcomeMismatch",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE_TEST, "TestSettledAndMismatch"): 2,
            S(RECONCILE, "Outcome"): 2,
        },
    ),
    _q(
        "v14-exact-08",
        "exact",
        "_lookup_cache TTLCache(ttl=30.0, maxsize=4096)",
        {
            S(CODES, "lookup_code"): 3,
            S(CACHE, "TTLCache"): 2,
            C("promotions_engine"): 1,
        },
    ),
    _q(
        "v14-exact-09",
        "exact",
        'slog.Warn "job failed" kind attempt',
        {
            S(RUNNER, "Runner.handle"): 3,
            S(QUEUE, "PostgresQueue.Retry"): 1,
            S(BACKOFF, "Backoff.Next"): 1,
        },
    ),
    _q(
        "v14-exact-10",
        "exact",
        "gateway %s answered %s (%s)",
        {
            S(GATEWAY, "GatewayClient._post"): 3,
            S(GATEWAY, "classify_response"): 1,
        },
    ),
    # change
    _q(
        "v14-change-01",
        "change",
        "Lower CLOCK_SKEW_SECONDS in backend/auth/tokens.py to 5 so that a token stops working "
        "within seconds of its exp",
        {
            S(TOKENS, "validate_token"): 3,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 2,
            C("inc2291_clock_skew"): 2,
            F(SESSION): 1,
        },
        (1,),
    ),
    _q(
        "v14-change-02",
        "change",
        "Introduce a STORE_CURRENCY constant in web/src/utils/money.ts, have orderTotalLabel and "
        "OrderSummary format with it, and then remove currency from each web order",
        {
            S(WEB_ORDERS, "orderTotalLabel"): 3,
            S(ORDER_SUMMARY, "OrderSummary"): 2,
            S(WEB_ORDERS, "OrderDTO"): 2,
            C("currency_support"): 1,
        },
        (5,),
    ),
    _q(
        "v14-change-03",
        "change",
        "Raise the WORKER_MAX_IN_FLIGHT fallback that worker/cmd/worker/main.go uses from 8 to 64; "
        "the handlers mostly wait on the network anyway",
        {
            S(WORKER_MAIN, "main"): 3,
            S(RUNNER, "Runner"): 2,
            C("worker_perf_revert"): 2,
            F(K8S_WORKER): 1,
        },
        (6,),
    ),
    _q(
        "v14-change-04",
        "change",
        "Honour Promotion.stackable for percentage codes too, so marketing can flag WELCOME15 as "
        "combinable with the seasonal campaign codes",
        {
            S(RULES, "apply_promotions"): 3,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
            C("inc2655_promo_stacking"): 2,
            S(BANNER, "stackingNotice"): 1,
        },
        (8,),
    ),
    _q(
        "v14-change-05",
        "change",
        "When a phone loses the reply to /auth/refresh and retries with the same token within a "
        "few seconds, have rotate_refresh_token issue a fresh pair instead of revoking the family",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 2,
            C("inc2744_refresh_reuse"): 2,
            S(REFRESH, "RefreshRecord"): 1,
        },
        (11,),
    ),
    _q(
        "v14-change-06",
        "change",
        "Send a User-Agent header naming the shop and its release with every request GatewayClient "
        "makes",
        {
            S(GATEWAY, "GatewayClient._post"): 3,
            S(GATEWAY, "GatewayClient"): 2,
        },
    ),
    _q(
        "v14-change-07",
        "change",
        "Stop get_or_load from caching a None result, so a promotion code created a moment after "
        "someone mistyped it works right away",
        {
            S(CACHE, "TTLCache.get_or_load"): 3,
            S(CODES, "lookup_code"): 2,
            S(TEST_CACHE, "test_get_or_load_calls_loader_once"): 1,
        },
    ),
    _q(
        "v14-change-08",
        "change",
        "Put a kid header into access tokens so TOKEN_SECRET can be rotated without signing "
        "everyone out",
        {
            S(TOKENS, "issue_token"): 3,
            S(TOKENS, "validate_token"): 2,
            S(SETTINGS, "Settings"): 1,
        },
    ),
    _q(
        "v14-change-09",
        "change",
        "Add a promo_code column to both finance order exports, the admin download in Python and "
        "the nightly Go file",
        {
            S(CSV_PY, "order_row"): 3,
            S(CSV_GO, "WriteOrdersCSV"): 3,
            S(TEST_CSV_PY, "test_header_and_row"): 2,
            C("export_columns"): 1,
        },
    ),
    _q(
        "v14-change-10",
        "change",
        "Make endSession in the storefront also tell the server to revoke the refresh token it "
        "held, via a new logout endpoint",
        {
            S(SESSION, "endSession"): 3,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 2,
            S(WEB_CLIENT, "apiPost"): 1,
        },
    ),
)


# --- held-out v15: written from the fixture's files, commit messages and recorded failures before
# the change it evaluates, without running retrieval on it; report it, never tune on it ---------

MIGRATION_ORDERS = "db/migrations/0001_create_orders.sql"
MIGRATION_REFUNDS = "db/migrations/0003_refunds.sql"
MIGRATION_DELIVERY = "db/migrations/0007_delivery_window.sql"
MIGRATION_TAX = "db/migrations/0011_order_tax.sql"

_HELDOUT_V15: tuple[_Row, ...] = (
    # causal
    _q(
        "v15-causal-01",
        "causal",
        "GatewayDeclined is raised for much more than 402s: a 400 or a 409 from the gateway lands "
        "there as well. Which incident put those answers in the never-retry bucket, and what had "
        "the issuers done to our customers?",
        {
            C("inc2188_declined_fix"): 3,
            S(GATEWAY, "classify_response"): 2,
            S(GATEWAY, "GatewayDeclined"): 2,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 1,
        },
        (7,),
    ),
    _q(
        "v15-causal-02",
        "causal",
        "The app drops queued orders after 36 hours and the server forgets idempotency keys after "
        "48; who picked those two numbers, and what went wrong over the metro outage weekend that "
        "forced them?",
        {
            C("inc2472_idempotency_ttl"): 3,
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 2,
            F(IDEMPOTENCY): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (10,),
    ),
    _q(
        "v15-causal-03",
        "causal",
        "Was quoting a leading minus sign in the worker's nightly CSV a deliberate part of the "
        "formula-injection fix, or did csv.go simply copy the Python prefix list?",
        {
            C("inc2602_csv_injection"): 3,
            S(CSV_GO, "escapeCell"): 2,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            S(CSV_PY, "escape_cell"): 1,
        },
        (17,),
    ),
    _q(
        "v15-causal-04",
        "causal",
        "Our security scanner complains that validate_token lets through tokens whose nbf still "
        "lies in the future. Which sign-out problem made us allow that, and how many sessions did "
        "it hit?",
        {
            C("inc2291_clock_skew"): 3,
            S(TOKENS, "validate_token"): 2,
            S(TEST_TOKENS, "test_token_from_a_pod_with_a_fast_clock_is_accepted"): 2,
            S(TOKENS, "issue_token"): 1,
        },
        (1,),
    ),
    _q(
        "v15-causal-05",
        "causal",
        "deploy/k8s/worker-deployment.yaml says two replicas times eight handlers must fit the "
        "database pool beside the API. What happened the one time that sum was ignored?",
        {
            C("worker_perf_revert"): 3,
            F(K8S_WORKER): 2,
            C("worker_inflight_comment"): 2,
            C("worker_perf_unbounded"): 1,
        },
        (6,),
    ),
    _q(
        "v15-causal-06",
        "causal",
        "Where do RetryPolicy's defaults of four attempts, a 0.25 s first pause and a 4 s ceiling "
        "come from, and were they ever tuned after the first gateway client landed?",
        {
            C("payments_gateway"): 3,
            S(RETRY, "RetryPolicy"): 2,
            S(RETRY, "RetryPolicy.delays"): 2,
            S(SETTINGS, "Settings"): 1,
        },
    ),
    _q(
        "v15-causal-07",
        "causal",
        "What product launch added delivery_starts_at and delivery_ends_at to orders, and why is an "
        "order without a slot still perfectly valid for the app?",
        {
            C("delivery_window"): 3,
            S(PARSER, "parseDeliveryWindow"): 2,
            F(MIGRATION_DELIVERY): 2,
            S(SCHEMAS, "DeliveryWindowOut"): 1,
        },
    ),
    _q(
        "v15-causal-08",
        "causal",
        "Before rotation existed, what was wrong with how our refresh tokens worked, and which "
        "commit replaced them with single-use ones?",
        {
            C("refresh_tokens"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            F(MIGRATION_REFRESH): 1,
            S(SESSION, "refreshNow"): 1,
        },
    ),
    _q(
        "v15-causal-09",
        "causal",
        "Did the orders table ever store money as floating point, or was it integer cents in "
        "PostgreSQL even while the API still returned float totals?",
        {
            C("migrations_init"): 3,
            F(MIGRATION_ORDERS): 2,
            C("money_cents_refactor"): 2,
            F(ADR_CENTS): 1,
        },
    ),
    _q(
        "v15-causal-10",
        "causal",
        "place_order is now a thin sequence of _build_order, _apply_discounts and _charge; was that "
        "split meant to change any checkout behaviour, or only to make the steps testable?",
        {
            C("orders_service_refactor"): 3,
            S(SERVICE, "OrderService.place_order"): 2,
            S(SERVICE, "OrderService._apply_discounts"): 1,
            S(SERVICE, "OrderService._build_order"): 1,
        },
    ),
    # behavioral
    _q(
        "v15-behavioral-01",
        "behavioral",
        "A charge lookup returns HTTP 200 with Status 'failed' but ErrorCode ERR_GATEWAY_TIMEOUT: "
        "which of the two does classifyGatewayStatus act on?",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE, "GatewayStatus"): 2,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 1,
        },
        (12,),
    ),
    _q(
        "v15-behavioral-02",
        "behavioral",
        "Could TTLCache.get on one thread return a promotion that invalidate() removed a moment "
        "earlier on another thread?",
        {
            S(CACHE, "TTLCache.get"): 3,
            S(CACHE, "TTLCache.invalidate"): 2,
            C("cache_perf_revert"): 2,
            C("cache_perf_lockfree"): 1,
        },
        (2,),
    ),
    _q(
        "v15-behavioral-03",
        "behavioral",
        "A partner saved next_cursor values we handed out before October, which held only the "
        "timestamp; does decode_cursor still accept one of those today, or does it answer with an "
        "error?",
        {
            S(ORDERS_API, "decode_cursor"): 3,
            S(TEST_ORDERS_API, "test_malformed_cursor_is_a_client_error"): 2,
            C("inc2801_pagination"): 2,
            S(ORDERS_API, "encode_cursor"): 1,
        },
        (13,),
    ),
    _q(
        "v15-behavioral-04",
        "behavioral",
        "Is CLOCK_SKEW_MS in web/src/auth/session.ts actually used when deciding to renew, or does "
        "only the jest spec read it?",
        {
            S(SESSION, "shouldRefresh"): 3,
            F(SESSION_TEST): 2,
            C("web_session_tests"): 1,
            C("inc2291_clock_skew"): 1,
        },
        (15,),
    ),
    _q(
        "v15-behavioral-05",
        "behavioral",
        "Support wants to find a stuck charge in the gateway dashboard by its idempotency key. Can "
        "they recompute that key from the order id alone, or is it random per attempt?",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            F(ADR_IDEMPOTENCY): 2,
            F(RUNBOOK): 1,
        },
        (0, 16),
    ),
    _q(
        "v15-behavioral-06",
        "behavioral",
        "How do the two worker replicas keep from claiming the same row of the jobs table at the "
        "same time?",
        {
            S(QUEUE, "PostgresQueue.Fetch"): 3,
            C("worker_scaffold"): 2,
            F(K8S_WORKER): 1,
        },
    ),
    _q(
        "v15-behavioral-07",
        "behavioral",
        "Why does list_orders ask the service for one order more than the requested limit, and in "
        "which case is next_cursor left null?",
        {
            S(ORDERS_API, "list_orders"): 3,
            S(SERVICE, "OrderService.list_recent"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 1,
        },
    ),
    _q(
        "v15-behavioral-08",
        "behavioral",
        "What error does rotate_refresh_token raise for a refresh token the server never issued, "
        "say one mangled by a bad copy-paste, and is revocation checked before or after that?",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            S(REFRESH, "RefreshTokenStore.find"): 2,
            S(REFRESH, "_digest"): 1,
        },
    ),
    _q(
        "v15-behavioral-09",
        "behavioral",
        "What does processBatch do when a Runner is built in a test without setting MaxInFlight, "
        "so that it stays zero?",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            S(WORKER_MAIN, "envInt"): 2,
            S(RUNNER_TEST, "TestUnknownKindIsRetried"): 1,
        },
        (),
        (),
        "worker/**",
    ),
    _q(
        "v15-behavioral-10",
        "behavioral",
        "In the admin order CSV, which columns go through escape_cell and which are written out "
        "exactly as they are?",
        {
            S(CSV_PY, "order_row"): 3,
            S(CSV_PY, "escape_cell"): 2,
            S(TEST_CSV_PY, "test_formula_in_note_is_neutralised"): 1,
        },
    ),
    # symptom
    _q(
        "v15-symptom-01",
        "symptom",
        "jest on mobile: 'rejects fractional amounts with ERR_PARSE_AMOUNT' now fails with "
        "'Received function did not throw' after I made the parser cope with old cached totals",
        {
            S(PARSER, "parseMoney"): 3,
            F(PARSER_TEST): 2,
            C("inc2333_mobile_cents"): 2,
            S(PARSER, "parseOrder"): 1,
        },
        (4,),
        (),
        "mobile/**",
    ),
    _q(
        "v15-symptom-02",
        "symptom",
        "Six failures in tests/backend/test_csv_export.py after I touched the escaping: every "
        "prefix case except '=' and the @PARTNER redemption row now come out unquoted.",
        {
            S(CSV_PY, "escape_cell"): 3,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            S(TEST_CSV_PY, "test_promotions_export_escapes_partner_codes"): 2,
            C("inc2602_csv_injection"): 1,
        },
        (9,),
    ),
    _q(
        "v15-symptom-03",
        "symptom",
        "nginx error log at the API edge: 'upstream timed out while reading response header from "
        "upstream' on POST /orders only, and each of those shoppers later shows two orders.",
        {
            F(NGINX): 3,
            C("inc2689_nginx_timeout"): 2,
            S(SETTINGS, "Settings"): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
    ),
    _q(
        "v15-symptom-04",
        "symptom",
        "Pen test finding: once the real user had refreshed, the tester replayed the copied older "
        "refresh token, got nothing worse than ERR_TOKEN_EXPIRED, and the victim's newest token "
        "went on working.",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 2,
            C("inc2744_refresh_reuse"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 1,
        },
        (11,),
    ),
    _q(
        "v15-symptom-05",
        "symptom",
        "test_burst_across_the_window_edge_is_limited went red with 'assert 20 == 0' right after I "
        "changed how allow() counts a client's requests",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 2,
            C("inc2458_sliding_window"): 1,
        },
        (3,),
    ),
    _q(
        "v15-symptom-06",
        "symptom",
        "A shopper on the UK storefront says her card statement shows the order charged in euros, "
        "though the basket and the receipt said pounds.",
        {
            S(RETRY, "charge_with_retry"): 3,
            S(GATEWAY, "GatewayClient.charge"): 3,
            S(SERVICE, "OrderService._charge"): 2,
            C("currency_support"): 1,
        },
    ),
    _q(
        "v15-symptom-07",
        "symptom",
        "Customers typing a promo code on a Japanese keyboard say the Apply button on the website "
        "stays greyed out, yet support can redeem the very same code for them.",
        {
            S(CART, "canApplyPromo"): 3,
            S(PROMO_INPUT, "PromoCodeInput"): 2,
            S(CODES, "normalize_code"): 2,
            C("promo_codes_normalize"): 1,
        },
    ),
    _q(
        "v15-symptom-08",
        "symptom",
        "US customers see sales tax on the confirmation page, but when they reopen the same order "
        "from their history the tax line has vanished and the total is lower than what their card "
        "was charged.",
        {
            S(REPOSITORY, "OrderRepository._hydrate"): 3,
            S(REPOSITORY, "OrderRepository.save"): 2,
            C("order_tax_field"): 2,
            F(MIGRATION_TAX): 1,
        },
    ),
    _q(
        "v15-symptom-09",
        "symptom",
        "Support cancelled a paid order at the customer's request; the status now reads cancelled "
        "but the money never went back to the card.",
        {
            S(SERVICE, "OrderService.cancel_order"): 3,
            S(MODELS, "Order.can_cancel"): 2,
            S(REFUNDS, "issue_refund"): 1,
        },
    ),
    _q(
        "v15-symptom-10",
        "symptom",
        "In the phone app the order list ends after the 20 newest orders; anything older only "
        "shows up on the website.",
        {
            S(MOBILE_API, "fetchRecentOrders"): 3,
            S(ORDERS_API, "list_orders"): 2,
            S(WEB_ORDERS, "listOrders"): 1,
        },
    ),
    # coupled
    _q(
        "v15-coupled-01",
        "coupled",
        "I'm about to make web/src/components/OrderSummary.tsx format everything in euros and stop "
        "reading order.currency; which other files tend to land alongside OrderSummary.tsx?",
        {
            S(WEB_ORDERS, "OrderDTO"): 3,
            C("currency_support"): 2,
            S(SCHEMAS, "OrderOut"): 2,
            S(MONEY_TS, "formatMoney"): 1,
        },
        (5,),
        (WEB_ORDERS, SCHEMAS),
    ),
    _q(
        "v15-coupled-02",
        "coupled",
        "Marketing will let percentage codes combine from January, so the 'One percentage code per "
        "order' line in web/src/checkout/promoBanner.ts goes; which backend and test files does "
        "promoBanner.ts usually change in step with?",
        {
            S(RULES, "apply_promotions"): 3,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
            C("inc2655_promo_stacking"): 2,
            S(BANNER, "renderPromoBanner"): 1,
        },
        (8,),
        (RULES, TEST_PROMOTIONS),
    ),
    _q(
        "v15-coupled-03",
        "coupled",
        "worker/internal/payments/reconcile_test.go: if TestTimeoutStaysPending goes away because "
        "timeouts should be written off as failed, which files are this test's usual companions "
        "in the history?",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(GATEWAY, "GatewayTimeout"): 2,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 1,
        },
        (12,),
        (RECONCILE, GATEWAY),
    ),
    _q(
        "v15-coupled-04",
        "coupled",
        "Starting from tests/backend/test_tokens.py: I'll delete test_clock_skew_grace_after_expiry "
        "and make exp strict. Which production files have travelled with that test file?",
        {
            S(TOKENS, "validate_token"): 3,
            F(SESSION): 2,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 1,
        },
        (1,),
        (TOKENS, SESSION),
    ),
    _q(
        "v15-coupled-05",
        "coupled",
        "worker/internal/export/csv_test.go insists that -2 comes out quoted; before relaxing that "
        "for accounting's import, which files changed together with csv_test.go?",
        {
            S(CSV_GO, "escapeCell"): 3,
            S(CSV_PY, "escape_cell"): 2,
            C("inc2602_csv_injection"): 2,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 1,
        },
        (17,),
        (CSV_GO, CSV_PY, TEST_CSV_PY),
    ),
    _q(
        "v15-coupled-06",
        "coupled",
        "Before I touch backend/orders/tax.py for a Canadian storefront, which files arrived in the "
        "same commit as tax.py?",
        {
            S(MODELS, "Order.total_cents"): 3,
            F(MIGRATION_TAX): 2,
            S(SCHEMAS, "OrderOut"): 2,
            S(WEB_ORDERS, "parseOrderResponse"): 1,
        },
        (),
        (MODELS, SCHEMAS, MIGRATION_TAX),
    ),
    _q(
        "v15-coupled-07",
        "coupled",
        "Support wants to refund shipping separately from the items in backend/payments/refunds.py; "
        "which other files has refunds.py been changed alongside?",
        {
            S(GATEWAY, "GatewayClient.refund"): 3,
            F(MIGRATION_REFUNDS): 2,
            F(ERRORS): 2,
            C("refunds_partial"): 1,
        },
        (),
        (GATEWAY, MIGRATION_REFUNDS, ERRORS),
    ),
    _q(
        "v15-coupled-08",
        "coupled",
        "We want to encrypt queued orders in mobile/src/storage/offlineQueue.ts before they reach "
        "AsyncStorage. Which files, on the device and on the server, were ever changed in one "
        "commit with it?",
        {
            S(MOBILE_API, "submitOrder"): 3,
            F(IDEMPOTENCY): 2,
            C("mobile_offline_queue"): 2,
            S(OFFLINE, "enqueueOrder"): 1,
        },
        (),
        (MOBILE_API, IDEMPOTENCY, TEST_IDEMPOTENCY),
    ),
    _q(
        "v15-coupled-09",
        "coupled",
        "Partner integrations that present an API key should bypass throttling in "
        "backend/api/middleware.py; what does middleware.py usually get changed together with?",
        {
            S(LIMITER, "client_key"): 3,
            F(TEST_RATE_LIMITER): 2,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            C("settings_rate_limits"): 1,
        },
        (),
        (TEST_RATE_LIMITER, LIMITER),
    ),
    _q(
        "v15-coupled-10",
        "coupled",
        "Raising SCRYPT_N in backend/auth/passwords.py: which test file goes with it, and has "
        "passwords.py ever shared a commit with the token code?",
        {
            F(TEST_PASSWORDS): 3,
            S(PASSWORDS, "needs_rehash"): 2,
            C("passwords_scrypt"): 2,
            C("auth_tokens"): 1,
        },
        (),
        (TEST_PASSWORDS, TOKENS),
    ),
    # exact
    _q(
        "v15-exact-01",
        "exact",
        "No key is ever created inside the retry loop",
        {
            F(ADR_IDEMPOTENCY): 3,
            S(RETRY, "charge_with_retry"): 2,
            C("adr_decisions"): 2,
            C("inc2407_idempotency_retry"): 1,
        },
        (0, 16),
    ),
    _q(
        "v15-exact-02",
        "exact",
        "WORKER_MAX_IN_FLIGHT",
        {
            S(WORKER_MAIN, "main"): 3,
            F(K8S_WORKER): 3,
            C("worker_inflight_comment"): 2,
            S(RUNNER, "Runner"): 1,
        },
        (6,),
    ),
    _q(
        "v15-exact-03",
        "exact",
        "timeout classified as failed, want pending (INC-2710)",
        {
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 2,
            C("inc2710_reconcile_timeout"): 2,
        },
        (12,),
    ),
    _q(
        "v15-exact-04",
        "exact",
        "Number.isSafeInteger(value)",
        {
            S(PARSER, "parseMoney"): 3,
            C("inc2333_mobile_cents"): 2,
            F(PARSER_TEST): 1,
        },
        (4,),
        (),
        "mobile/**",
    ),
    _q(
        "v15-exact-05",
        "exact",
        "ERR_TOKEN_REVOKED",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 2,
            C("inc2744_refresh_reuse"): 2,
            F(ERRORS): 1,
        },
        (11,),
    ),
    _q(
        "v15-exact-06",
        "exact",
        "worker_job_failures_total",
        {
            S(JOB_METRICS, "Metrics.Handler"): 3,
            S(JOB_METRICS, "Metrics.Observe"): 2,
            C("worker_metrics"): 1,
        },
    ),
    _q(
        "v15-exact-07",
        "exact",
        '"reconciled charge" outcome.String()',
        {
            S(RECONCILE, "Reconcile"): 3,
            C("worker_reconcile_logging"): 2,
            S(RECONCILE, "Outcome"): 1,
        },
    ),
    _q(
        "v15-exact-08",
        "exact",
        "ERR_EMAIL_NOT_CONFIGURED",
        {
            S(HANDLERS, "sendTemplate"): 3,
            S(HANDLERS, "DefaultHandlers"): 1,
            S(HANDLERS, "sendRefundIssued"): 1,
        },
    ),
    _q(
        "v15-exact-09",
        "exact",
        "ORDER_COLUMNS",
        {
            F(CSV_PY): 3,
            F(REPOSITORY): 3,
            S(CSV_PY, "export_orders_csv"): 1,
            S(REPOSITORY, "OrderRepository.get"): 1,
        },
    ),
    _q(
        "v15-exact-10",
        "exact",
        "ERR_PAYMENT_RETRY_EXHAUSTED",
        {
            S(RETRY, "charge_with_retry"): 3,
            F(ERRORS): 2,
            F(RUNBOOK): 1,
            C("inc2188_declined_fix"): 1,
        },
    ),
    # change
    _q(
        "v15-change-01",
        "change",
        "Add 409 and 429 to RETRYABLE_STATUSES in backend/payments/gateway.py so that conflicts and "
        "throttling from the processor earn another attempt",
        {
            S(GATEWAY, "classify_response"): 3,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 2,
            C("inc2188_declined_fix"): 2,
            S(RETRY, "charge_with_retry"): 1,
        },
        (7,),
    ),
    _q(
        "v15-change-02",
        "change",
        "Construct the production IdempotencyStore with ttl=timedelta(hours=24) and purge expired "
        "rows every night, so that idempotency_keys stays small",
        {
            S(IDEMPOTENCY, "IdempotencyStore"): 3,
            S(IDEMPOTENCY, "IdempotencyStore.purge_expired"): 2,
            C("inc2472_idempotency_ttl"): 2,
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 1,
        },
        (10,),
    ),
    _q(
        "v15-change-03",
        "change",
        "Make next_cursor a plain epoch-milliseconds number taken from the last order's created_at "
        "instead of base64 JSON; integrators find that easier to debug",
        {
            S(ORDERS_API, "encode_cursor"): 3,
            S(ORDERS_API, "decode_cursor"): 2,
            C("inc2801_pagination"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 1,
        },
        (13,),
    ),
    _q(
        "v15-change-04",
        "change",
        "Swap the RLock in backend/core/ttl_cache.py for a readers-writer lock so that concurrent "
        "get() calls no longer wait on one another",
        {
            S(CACHE, "TTLCache.get"): 3,
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 2,
            C("cache_perf_revert"): 2,
            S(CACHE, "TTLCache"): 1,
        },
        (2,),
    ),
    _q(
        "v15-change-05",
        "change",
        "Lower the catch-all proxy_read_timeout in deploy/nginx/api.conf to 20 s; no legitimate API "
        "call should need longer than that",
        {
            F(NGINX): 3,
            S(SETTINGS, "Settings"): 2,
            C("inc2689_nginx_timeout"): 2,
            S(RETRY, "RetryPolicy.delays"): 1,
        },
        (14,),
    ),
    _q(
        "v15-change-06",
        "change",
        "Make get_order in backend/api/orders.py answer 404 when the order belongs to a different "
        "customer than the caller",
        {
            S(ORDERS_API, "get_order"): 3,
            S(SERVICE, "OrderService.find"): 2,
            S(MODELS, "Order"): 1,
        },
    ),
    _q(
        "v15-change-07",
        "change",
        "When refreshNow gets ERR_TOKEN_REVOKED or ERR_TOKEN_REUSED back, end the session and send "
        "the shopper to the sign-in page instead of leaving a dead session around",
        {
            S(SESSION, "refreshNow"): 3,
            S(SESSION, "endSession"): 2,
            S(WEB_CLIENT, "ApiError"): 1,
            S(REFRESH, "rotate_refresh_token"): 1,
        },
    ),
    _q(
        "v15-change-08",
        "change",
        "Refuse an Idempotency-Key longer than 255 characters with a 400 before POST /orders looks "
        "it up",
        {
            S(ORDERS_API, "create_order"): 3,
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 2,
            F(ERRORS): 1,
        },
    ),
    _q(
        "v15-change-09",
        "change",
        "If MarkOutcome fails for one charge, let Reconcile log it and carry on with the remaining "
        "charges instead of returning early",
        {
            S(RECONCILE, "Reconcile"): 3,
            S(RECONCILE, "Store"): 2,
            S(RECONCILE_TEST, "TestSettledAndMismatch"): 1,
        },
    ),
    _q(
        "v15-change-10",
        "change",
        "Start the worker's nightly orders CSV with a UTF-8 byte order mark so Excel shows å, ä and "
        "ö in customer notes properly",
        {
            S(CSV_GO, "WriteOrdersCSV"): 3,
            S(CSV_PY, "export_orders_csv"): 2,
            C("csv_export"): 1,
        },
    ),
)


# --- held-out v16: written from the fixture's files, commit messages and recorded failures before
# the change it evaluates, without running retrieval on it; report it, never tune on it ---------

MIGRATION_PROMOTIONS = "db/migrations/0002_promotions.sql"

_HELDOUT_V16: tuple[_Row, ...] = (
    # causal
    _q(
        "v16-causal-01",
        "causal",
        "With MaxInFlight at 8, a batch of fifty e-mails goes out in seven rounds. Did anybody ever "
        "let the runner start one goroutine per job instead, and why is that no longer the case?",
        {
            C("worker_perf_revert"): 3,
            C("worker_perf_unbounded"): 2,
            S(RUNNER, "Runner.processBatch"): 2,
            C("worker_inflight_comment"): 1,
        },
        (6,),
    ),
    _q(
        "v16-causal-02",
        "causal",
        "Marketing keeps asking whether the welcome discount can be combined with a seasonal "
        "campaign code. What happened that made us count only one percent-off code per order?",
        {
            C("inc2655_promo_stacking"): 3,
            S(RULES, "apply_promotions"): 2,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
            S(BANNER, "stackingNotice"): 1,
        },
        (8,),
    ),
    _q(
        "v16-causal-03",
        "causal",
        "backend/core/rate_limiter.py blends the previous minute's count into the current one, and "
        "our dashboard shows clients well under 20 requests being turned away. Why was a plain "
        "per-minute counter not good enough?",
        {
            C("inc2458_sliding_window"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            S(LIMITER, "RateLimiter.allow"): 2,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 1,
        },
        (3,),
    ),
    _q(
        "v16-causal-04",
        "causal",
        "Why do our finance spreadsheets show an apostrophe before notes that begin with a plus, a "
        "minus or an at sign, rather than only before an equals sign?",
        {
            C("inc2602_csv_injection"): 3,
            S(CSV_PY, "escape_cell"): 2,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            S(CSV_GO, "escapeCell"): 1,
        },
        (9, 17),
    ),
    _q(
        "v16-causal-05",
        "causal",
        "Accepting a token a full minute past its exp, as backend/auth/tokens.py does, reads like a "
        "security hole to me. What user-facing problem was that leeway meant to fix?",
        {
            C("inc2291_clock_skew"): 3,
            S(TOKENS, "validate_token"): 2,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 2,
            F(SESSION): 1,
        },
        (1,),
    ),
    _q(
        "v16-causal-06",
        "causal",
        "Why did the TTL cache and the rate limiter leave backend/utils, and did any of their logic "
        "change during that move?",
        {
            C("refactor_utils_to_core"): 3,
            S(CACHE, "TTLCache"): 1,
            S(LIMITER, "RateLimiter"): 1,
            S(MIDDLEWARE, "rate_limit_middleware"): 1,
        },
    ),
    _q(
        "v16-causal-07",
        "causal",
        "Access tokens once lasted an hour. Who cut them down to fifteen minutes, and what made the "
        "shorter lifetime safe for the browser client?",
        {
            C("access_ttl_15m"): 3,
            C("inc2390_web_refresh_margin"): 2,
            F(TOKENS): 2,
            S(SESSION, "shouldRefresh"): 1,
        },
    ),
    _q(
        "v16-causal-08",
        "causal",
        "What problem were the next_cursor pages of GET /orders introduced for, and why can a "
        "single page never hold more than a hundred orders?",
        {
            C("orders_pagination"): 3,
            S(ORDERS_API, "list_orders"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 1,
            S(WEB_ORDERS, "listOrders"): 1,
        },
    ),
    _q(
        "v16-causal-09",
        "causal",
        "verify_webhook_signature relies on hmac.compare_digest instead of a plain == check. Did "
        "that come out of a review finding, or is it just house style?",
        {
            C("webhook_constant_time"): 3,
            S(WEBHOOKS, "verify_webhook_signature"): 2,
            F(TEST_WEBHOOKS): 1,
        },
    ),
    _q(
        "v16-causal-10",
        "causal",
        "Which commit made the Go reconciliation job print one log record per charge it "
        "classifies, tagged with the order id?",
        {
            C("worker_reconcile_logging"): 3,
            S(RECONCILE, "Reconcile"): 2,
            C("worker_reconcile"): 1,
        },
    ),
    # behavioral
    _q(
        "v16-behavioral-01",
        "behavioral",
        "Suppose the card processor rate-limits us with an HTTP 429. Is that answer treated as "
        "transient by charge_with_retry, or does the order fail on the spot?",
        {
            S(GATEWAY, "classify_response"): 3,
            S(RETRY, "charge_with_retry"): 2,
            C("inc2188_declined_fix"): 2,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 1,
        },
        (7,),
    ),
    _q(
        "v16-behavioral-02",
        "behavioral",
        "How long does the checkout site wait before renewing its access token: until exp plus the "
        "server's skew allowance, or a fixed interval ahead of exp?",
        {
            S(SESSION, "shouldRefresh"): 3,
            F(SESSION_TEST): 2,
            C("inc2390_web_refresh_margin"): 2,
            S(SESSION, "scheduleRefresh"): 1,
        },
        (15,),
    ),
    _q(
        "v16-behavioral-03",
        "behavioral",
        "An old order is still sitting in the app's offline cache with total_cents set to 59.97. "
        "What happens on the phone when that payload gets parsed?",
        {
            S(PARSER, "parseMoney"): 3,
            S(PARSER, "parseOrder"): 2,
            C("inc2333_mobile_cents"): 2,
            F(PARSER_TEST): 1,
        },
        (4,),
        (),
        "mobile/**",
    ),
    _q(
        "v16-behavioral-04",
        "behavioral",
        "When the nightly reconciler cannot reach the gateway at all for some charge and the lookup "
        "call simply errors, which outcome gets stored, and might that order end up cancelled?",
        {
            S(RECONCILE, "Reconcile"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 3,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 1,
        },
        (12,),
    ),
    _q(
        "v16-behavioral-05",
        "behavioral",
        "A shopper has the store open in two browser tabs and both fire a refresh using one "
        "refresh token. What does the slower request get back, and how does the session in the "
        "other tab fare afterwards?",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 2,
            C("inc2744_refresh_reuse"): 2,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 1,
        },
        (11,),
    ),
    _q(
        "v16-behavioral-06",
        "behavioral",
        "Is the throttle on login and checkout counted per IP address or per customer account?",
        {
            S(LIMITER, "client_key"): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            S(TEST_RATE_LIMITER, "test_client_key_prefers_user"): 1,
        },
    ),
    _q(
        "v16-behavioral-07",
        "behavioral",
        "Two requests miss the promo-code cache for the same code at the same instant; does "
        "get_or_load end up querying the repository twice?",
        {
            S(CACHE, "TTLCache.get_or_load"): 3,
            S(CODES, "lookup_code"): 2,
            S(TEST_CACHE, "test_get_or_load_calls_loader_once"): 1,
        },
    ),
    _q(
        "v16-behavioral-08",
        "behavioral",
        "How does issue_refund derive the key it hands the gateway, such that a retried refund "
        "changes nothing while a second refund for an identical amount still goes through?",
        {
            S(REFUNDS, "issue_refund"): 3,
            C("review_comments_refunds"): 2,
            S(GATEWAY, "GatewayClient.refund"): 1,
        },
    ),
    _q(
        "v16-behavioral-09",
        "behavioral",
        "What does validate_token make of a correctly signed token whose payload carries no nbf "
        "claim at all?",
        {
            S(TOKENS, "validate_token"): 3,
            S(TOKENS, "issue_token"): 1,
        },
    ),
    _q(
        "v16-behavioral-10",
        "behavioral",
        "A basket carries two fixed-amount codes, neither flagged stackable. How much does "
        "apply_promotions take off, and which code wins?",
        {
            S(RULES, "apply_promotions"): 3,
            S(RULES, "discount_for"): 2,
            S(TEST_PROMOTIONS, "test_fixed_discount_never_exceeds_subtotal"): 1,
        },
    ),
    # symptom
    _q(
        "v16-symptom-01",
        "symptom",
        "While the card processor was slow, some shoppers were billed twice for a single order; "
        "its dashboard lists two captures carrying different idempotency keys.",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (0, 16),
    ),
    _q(
        "v16-symptom-02",
        "symptom",
        "tsc fails in web/ with TS2339 in OrderSummary.tsx and in orders.ts: the OrderDTO type no "
        "longer has a currency property.",
        {
            S(WEB_ORDERS, "OrderDTO"): 3,
            S(WEB_ORDERS, "orderTotalLabel"): 2,
            S(ORDER_SUMMARY, "OrderSummary"): 2,
            C("currency_support"): 1,
        },
        (5,),
    ),
    _q(
        "v16-symptom-03",
        "symptom",
        "make smoke-staging: the slow-gateway checkout scenario is cut off by nginx with a 504 "
        "after ten seconds, and the client's retry leaves two orders for one basket.",
        {
            F(NGINX): 3,
            C("inc2689_nginx_timeout"): 2,
            S(SETTINGS, "Settings"): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
    ),
    _q(
        "v16-symptom-04",
        "symptom",
        "Now and then checkout still shows a promotion price marketing withdrew minutes earlier, "
        "and a small share of requests die with a KeyError raised inside the cache.",
        {
            S(CACHE, "TTLCache.get"): 3,
            C("cache_perf_revert"): 2,
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 2,
            C("cache_perf_lockfree"): 1,
        },
        (2,),
    ),
    _q(
        "v16-symptom-05",
        "symptom",
        "Accounting says negative adjustments in the worker's nightly order file arrive as text, "
        "because every value beginning with a minus sign carries a leading apostrophe.",
        {
            S(CSV_GO, "escapeCell"): 3,
            C("inc2602_csv_injection"): 2,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            S(CSV_GO, "WriteOrdersCSV"): 1,
        },
        (17,),
    ),
    _q(
        "v16-symptom-06",
        "symptom",
        "Right after a rollout some people get the thanks-for-your-order mail a second time, "
        "although they only ordered once.",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            C("worker_shutdown"): 2,
            S(RUNNER, "Runner.Run"): 2,
            S(WORKER_MAIN, "main"): 1,
        },
    ),
    _q(
        "v16-symptom-07",
        "symptom",
        "Our Black Friday code only kicked in at one o'clock at night Stockholm time, so everyone "
        "ordering in the first hour paid full price.",
        {
            S(RULES, "_as_shop_time"): 3,
            S(RULES, "is_active"): 2,
            C("promo_expiry_tz"): 2,
            S(TEST_PROMOTIONS, "test_naive_campaign_bounds_are_shop_local_time"): 1,
        },
    ),
    _q(
        "v16-symptom-08",
        "symptom",
        "Shoppers pressing Buy again on an old order whose products were all sold out got "
        "ERR_GATEWAY_REJECTED instead of an understandable message.",
        {
            S(SCHEMAS, "OrderCreate.items_not_empty"): 3,
            C("schemas_validation"): 2,
            S(GATEWAY, "classify_response"): 1,
        },
    ),
    _q(
        "v16-symptom-09",
        "symptom",
        "The web order list once displayed totals such as 19.990000000000002 instead of a clean "
        "price.",
        {
            C("money_cents_refactor"): 3,
            S(WEB_ORDERS, "parseOrderResponse"): 2,
            S(SCHEMAS, "OrderOut"): 2,
            F(ADR_CENTS): 1,
        },
    ),
    _q(
        "v16-symptom-10",
        "symptom",
        "The basket counter on the website said 1 when the basket held a single line of five mugs.",
        {
            S(CART, "cartLabel"): 3,
            C("web_cart_badge"): 2,
            S(CART, "lineTotalCents"): 1,
        },
    ),
    # coupled
    _q(
        "v16-coupled-01",
        "coupled",
        "I want backend/payments/idempotency.py to keep records for one day rather than two. Which "
        "other files have historically been committed together with idempotency.py?",
        {
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 3,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            C("inc2472_idempotency_ttl"): 2,
            S(SERVICE, "OrderService.place_order"): 1,
        },
        (10,),
        (TEST_IDEMPOTENCY, OFFLINE, SERVICE),
    ),
    _q(
        "v16-coupled-02",
        "coupled",
        "To make shared order-history links shorter I'd have encode_cursor drop the order id. What "
        "else in the repository moves in step with backend/api/orders.py?",
        {
            S(REPOSITORY, "OrderRepository.list_before"): 3,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 2,
            C("inc2801_pagination"): 2,
            F(MIGRATION_ORDERS_INDEX): 1,
        },
        (13,),
        (REPOSITORY, TEST_ORDERS_API, MIGRATION_ORDERS_INDEX),
    ),
    _q(
        "v16-coupled-03",
        "coupled",
        "Plan: RateLimiter.allow should look at the current minute only. Which files does "
        "rate_limiter.py normally get committed with?",
        {
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            C("inc2458_sliding_window"): 2,
            S(LIMITER, "RateLimiter._roll"): 1,
        },
        (3,),
        (TEST_RATE_LIMITER, MIDDLEWARE),
    ),
    _q(
        "v16-coupled-04",
        "coupled",
        "I'd like reads in backend/core/ttl_cache.py to skip the lock for speed. Which test and "
        "which other modules have shared commits with the cache module?",
        {
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 3,
            C("cache_perf_revert"): 2,
            C("cache_race_test"): 2,
            S(CODES, "lookup_code"): 1,
        },
        (2,),
        (TEST_CACHE, CODES),
    ),
    _q(
        "v16-coupled-05",
        "coupled",
        "Suppose escape_cell in the admin export guarded against '=' and nothing else: which "
        "sibling files would have to follow csv_export.py?",
        {
            S(CSV_GO, "escapeCell"): 3,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            C("inc2602_csv_injection"): 2,
            S(CSV_PY, "export_promotions_csv"): 1,
        },
        (9,),
        (CSV_GO, TEST_CSV_PY),
    ),
    _q(
        "v16-coupled-06",
        "coupled",
        "Finance would like tax_cents in the order export. Apart from backend/export/csv_export.py, "
        "which files have to stay in line?",
        {
            S(CSV_GO, "WriteOrdersCSV"): 3,
            S(TEST_CSV_PY, "test_header_and_row"): 2,
            C("export_columns"): 2,
            S(CSV_PY, "order_row"): 1,
        },
        (),
        (CSV_GO, TEST_CSV_PY),
    ),
    _q(
        "v16-coupled-07",
        "coupled",
        "We're adding a gift_message to the OrderOut response. Whenever schemas.py has gained a "
        "field before, which client-side files changed in the same commit?",
        {
            S(PARSER, "parseOrder"): 3,
            S(WEB_ORDERS, "parseOrderResponse"): 3,
            S(MOBILE_MODELS, "Order"): 2,
            C("order_tax_field"): 1,
        },
        (),
        (PARSER, WEB_ORDERS, MOBILE_MODELS),
    ),
    _q(
        "v16-coupled-08",
        "coupled",
        "Renaming the RATE_LIMIT_PER_MINUTE environment variable: what has "
        "backend/config/settings.py been changed alongside in the past?",
        {
            F(K8S_API): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            C("settings_rate_limits"): 2,
            S(SETTINGS, "get_settings"): 1,
        },
        (),
        (K8S_API, MIDDLEWARE),
    ),
    _q(
        "v16-coupled-09",
        "coupled",
        "A shipping-notification job kind is coming to worker/internal/jobs/handlers.go. Which "
        "Python and template files did the previous new e-mail kind touch in the same commit?",
        {
            S(NOTIFICATIONS, "refund_job"): 3,
            F(REFUND_TEMPLATE): 2,
            C("email_refund_template"): 2,
            S(HANDLERS, "DefaultHandlers"): 1,
        },
        (),
        (NOTIFICATIONS, REFUND_TEMPLATE),
    ),
    _q(
        "v16-coupled-10",
        "coupled",
        "web/src/auth/session.ts is getting its storage rewritten to keep tokens in sessionStorage. "
        "Which backend auth modules have shared commits with it?",
        {
            F(TOKENS): 3,
            F(REFRESH): 3,
            C("refresh_tokens"): 2,
            C("access_ttl_15m"): 1,
        },
        (),
        (TOKENS, REFRESH),
    ),
    # exact
    _q(
        "v16-exact-01",
        "exact",
        "uuid.uuid4() per charge attempt",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (0, 16),
    ),
    _q(
        "v16-exact-02",
        "exact",
        "peak concurrency exceeds MaxInFlight",
        {
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            C("worker_perf_revert"): 2,
        },
        (6,),
    ),
    _q(
        "v16-exact-03",
        "exact",
        "test_cursor_round_trip_keeps_the_tie_breaker",
        {
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            S(ORDERS_API, "decode_cursor"): 2,
            C("inc2801_pagination"): 1,
        },
        (13,),
    ),
    _q(
        "v16-exact-04",
        "exact",
        "refreshes inside the margin",
        {
            F(SESSION_TEST): 3,
            S(SESSION, "shouldRefresh"): 2,
            S(SESSION, "REFRESH_MARGIN_MS"): 2,
            C("web_session_tests"): 1,
        },
        (15,),
        (),
        "web/**",
    ),
    _q(
        "v16-exact-05",
        "exact",
        "test_default_ttl_outlives_offline_replays",
        {
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 3,
            F(IDEMPOTENCY): 2,
            C("inc2472_idempotency_ttl"): 2,
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 1,
        },
        (10,),
    ),
    _q(
        "v16-exact-06",
        "exact",
        "Retry-After RateLimit-Limit",
        {
            S(MIDDLEWARE, "rate_limit_middleware"): 3,
            S(LIMITER, "RateLimiter.retry_after"): 2,
            C("rate_limit_headers"): 2,
        },
    ),
    _q(
        "v16-exact-07",
        "exact",
        "has_scope",
        {
            S(TOKENS, "has_scope"): 3,
            S(TOKENS, "issue_token"): 1,
        },
    ),
    _q(
        "v16-exact-08",
        "exact",
        "ensureFresh",
        {
            S(SESSION, "ensureFresh"): 3,
            C("inc2390_web_refresh_margin"): 2,
            S(SESSION, "refreshNow"): 1,
        },
    ),
    _q(
        "v16-exact-09",
        "exact",
        "request_fingerprint sort_keys",
        {
            S(IDEMPOTENCY, "request_fingerprint"): 3,
            S(SERVICE, "OrderService.place_order"): 2,
            C("idempotency_store"): 1,
        },
    ),
    _q(
        "v16-exact-10",
        "exact",
        "parseDeliveryWindow",
        {
            S(PARSER, "parseDeliveryWindow"): 3,
            S(MOBILE_MODELS, "DeliveryWindow"): 2,
            C("delivery_window"): 1,
        },
        (),
        (),
        "mobile/**",
    ),
    # change
    _q(
        "v16-change-01",
        "change",
        "Have the nightly reconciler mark a charge as failed when the gateway reports an empty or "
        "unrecognised status, so abandoned orders are cancelled and their stock freed.",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE, "Store"): 1,
        },
        (12,),
    ),
    _q(
        "v16-change-02",
        "change",
        'In mobile/src/parsers/orderParser.ts, accept amounts such as "12.50" or 59.97 by rounding '
        "them instead of throwing ERR_PARSE_AMOUNT.",
        {
            S(PARSER, "parseMoney"): 3,
            F(PARSER_TEST): 2,
            C("inc2333_mobile_cents"): 2,
            F(ADR_CENTS): 1,
        },
        (4,),
    ),
    _q(
        "v16-change-03",
        "change",
        "Strip the currency property from the web OrderDTO and from parseOrderResponse, since "
        "every order placed on the website is in EUR.",
        {
            S(WEB_ORDERS, "OrderDTO"): 3,
            S(WEB_ORDERS, "parseOrderResponse"): 2,
            S(ORDER_SUMMARY, "OrderSummary"): 2,
            C("currency_support"): 1,
        },
        (5,),
    ),
    _q(
        "v16-change-04",
        "change",
        "When an already rotated refresh token shows up again, only reject that one request with "
        "ERR_TOKEN_EXPIRED rather than ending every other session of the user.",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 2,
            C("inc2744_refresh_reuse"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 1,
        },
        (11,),
    ),
    _q(
        "v16-change-05",
        "change",
        "Have access tokens die exactly at their exp claim by taking CLOCK_SKEW_SECONDS out of "
        "validate_token.",
        {
            S(TOKENS, "validate_token"): 3,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 2,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_token_from_a_pod_with_a_fast_clock_is_accepted"): 1,
        },
        (1,),
    ),
    _q(
        "v16-change-06",
        "change",
        "Log the HTTP status together with the order id whenever the gateway client receives a "
        "decline, so support can search the logs by order.",
        {
            S(GATEWAY, "GatewayClient._post"): 3,
            S(GATEWAY, "classify_response"): 2,
            S(SERVICE, "OrderService._charge"): 1,
        },
    ),
    _q(
        "v16-change-07",
        "change",
        "Add random jitter to the pauses RetryPolicy.delays hands out, so that many checkouts do not "
        "retry the gateway in lockstep.",
        {
            S(RETRY, "RetryPolicy.delays"): 3,
            S(RETRY, "RetryPolicy"): 2,
            S(BACKOFF, "Backoff.Next"): 1,
        },
    ),
    _q(
        "v16-change-08",
        "change",
        "Support a buy-two-get-one-free promotion kind in backend/promotions/rules.py.",
        {
            S(RULES, "discount_for"): 3,
            S(RULES, "Promotion"): 2,
            F(MIGRATION_PROMOTIONS): 2,
            S(RULES, "apply_promotions"): 1,
        },
    ),
    _q(
        "v16-change-09",
        "change",
        "Add a CSV of refunds for finance next to export_promotions_csv, reusing the same formula "
        "escaping.",
        {
            S(CSV_PY, "export_promotions_csv"): 3,
            S(CSV_PY, "escape_cell"): 2,
            C("promotions_export"): 1,
            S(REFUNDS, "issue_refund"): 1,
        },
    ),
    _q(
        "v16-change-10",
        "change",
        "Publish the hit ratio and size of the promotion-code lookup cache on /metrics.",
        {
            S(CACHE, "TTLCache.stats"): 3,
            F(CODES): 2,
            C("cache_stats"): 2,
            S(CODES, "lookup_code"): 1,
        },
    ),
)


# --- held-out v17: written from the fixture's files, commit messages and recorded failures before
# the change it evaluates, without running retrieval on it; report it, never tune on it ---------

ARCHITECTURE = "docs/architecture.md"

_HELDOUT_V17: tuple[_Row, ...] = (
    # causal
    _q(
        "v17-causal-01",
        "causal",
        "backend/config/settings.py says gateway_timeout_seconds has to stay in step with the "
        "nginx read timeout. How do those two numbers relate, and what happened when they didn't?",
        {
            C("inc2689_nginx_timeout"): 3,
            S(SETTINGS, "Settings"): 2,
            F(NGINX): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
    ),
    _q(
        "v17-causal-02",
        "causal",
        "The comment on MaxInFlight in runner.go says the worker once starved checkout. How can a "
        "background job runner take the web shop down with it?",
        {
            C("worker_perf_revert"): 3,
            S(RUNNER, "Runner"): 2,
            C("worker_inflight_comment"): 2,
            F(K8S_WORKER): 1,
        },
        (6,),
    ),
    _q(
        "v17-causal-03",
        "causal",
        "Our payments runbook says never to mark a pending payment as failed before reconciliation "
        "has looked it up. What happened that turned this into a rule?",
        {
            C("inc2710_reconcile_timeout"): 3,
            F(RUNBOOK): 2,
            S(RECONCILE, "classifyGatewayStatus"): 2,
            C("docs_runbook_update"): 1,
        },
        (12,),
    ),
    _q(
        "v17-causal-04",
        "causal",
        "charge_with_retry builds the gateway key with uuid5 over the order id rather than a random "
        "uuid4. Why does it need to be deterministic?",
        {
            C("inc2407_idempotency_retry"): 3,
            S(RETRY, "charge_with_retry"): 2,
            F(ADR_IDEMPOTENCY): 2,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 1,
        },
        (0, 16),
    ),
    _q(
        "v17-causal-05",
        "causal",
        "What is the refresh_token_revocations table for, and which incident made us add it?",
        {
            C("inc2744_refresh_reuse"): 3,
            F(MIGRATION_REVOCATIONS): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 2,
            S(REFRESH, "rotate_refresh_token"): 1,
        },
        (11,),
    ),
    _q(
        "v17-causal-06",
        "causal",
        "Why does the app's parseOrder insist on subtotal_cents and total_cents, but quietly fill in "
        "defaults when discount_cents, tax_cents or the delivery window are missing?",
        {
            S(PARSER, "parseOrder"): 3,
            F(ARCHITECTURE): 2,
            C("docs_architecture_update"): 1,
            C("order_tax_field"): 1,
        },
    ),
    _q(
        "v17-causal-07",
        "causal",
        "What made us store a hash of the request body next to every idempotency key? Isn't the key "
        "alone enough to spot a retry?",
        {
            C("idempotency_store"): 3,
            S(IDEMPOTENCY, "request_fingerprint"): 2,
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 2,
            S(TEST_IDEMPOTENCY, "test_same_key_different_body_is_rejected"): 1,
        },
    ),
    _q(
        "v17-causal-08",
        "causal",
        "When did GatewayClient grow a refund method next to charge, and what feature was it added "
        "for?",
        {
            C("refunds_partial"): 3,
            S(GATEWAY, "GatewayClient.refund"): 2,
            S(REFUNDS, "issue_refund"): 2,
            F(MIGRATION_REFUNDS): 1,
        },
    ),
    _q(
        "v17-causal-09",
        "causal",
        "When did the phone app start showing labels such as 'Waiting for payment' instead of the "
        "raw order status, and what prompted it?",
        {
            C("mobile_order_screen_status"): 3,
            S(ORDER_SCREEN, "statusLabel"): 2,
            C("refunds_partial"): 1,
        },
    ),
    _q(
        "v17-causal-10",
        "causal",
        "Why does deploy/nginx/api.conf keep its own request limit on /auth/login when the API "
        "already throttles sign-in attempts itself?",
        {
            F(NGINX): 3,
            C("rate_limiter"): 2,
            C("nginx_config"): 2,
            S(MIDDLEWARE, "rate_limit_middleware"): 1,
        },
    ),
    # behavioral
    _q(
        "v17-behavioral-01",
        "behavioral",
        "Which amount formats does parseMoney accept? I mean values like 1500 as a number, "
        '"1500" as a string, and "15.00".',
        {
            S(PARSER, "parseMoney"): 3,
            F(PARSER_TEST): 2,
            C("inc2333_mobile_cents"): 2,
            S(PARSER, "OrderParseError"): 1,
        },
        (4,),
        (),
        "mobile/**",
    ),
    _q(
        "v17-behavioral-02",
        "behavioral",
        "One API pod's clock runs thirty seconds ahead of the others. If it issues a token, will "
        "the next request, served by a pod with the right time, be turned away as not yet valid?",
        {
            S(TOKENS, "validate_token"): 3,
            S(TEST_TOKENS, "test_token_from_a_pod_with_a_fast_clock_is_accepted"): 2,
            C("inc2291_clock_skew"): 2,
            S(TOKENS, "issue_token"): 1,
        },
        (1,),
    ),
    _q(
        "v17-behavioral-03",
        "behavioral",
        "A shopper enters a 10% voucher and then a 25% voucher. How much comes off the basket, and "
        "do both codes end up on the order?",
        {
            S(RULES, "apply_promotions"): 3,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
            C("inc2655_promo_stacking"): 2,
            S(RULES, "AppliedDiscount"): 1,
        },
        (8,),
    ),
    _q(
        "v17-behavioral-04",
        "behavioral",
        "Orders replayed from the app's offline queue often share a created_at down to the "
        "millisecond. Can GET /orders lose one of them at a page boundary?",
        {
            S(ORDERS_API, "list_orders"): 3,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
            S(ORDERS_API, "encode_cursor"): 2,
            C("inc2801_pagination"): 2,
            F(MIGRATION_ORDERS_INDEX): 1,
        },
        (13,),
    ),
    _q(
        "v17-behavioral-05",
        "behavioral",
        "If I delete currency from the OrderDTO interface in web/src/api/orders.ts, will "
        "npx tsc still pass, or does something depend on it?",
        {
            S(WEB_ORDERS, "orderTotalLabel"): 3,
            S(ORDER_SUMMARY, "OrderSummary"): 3,
            S(WEB_ORDERS, "OrderDTO"): 2,
            C("currency_support"): 1,
        },
        (5,),
    ),
    _q(
        "v17-behavioral-06",
        "behavioral",
        "The API runs three replicas. Is the 20-requests-a-minute login limit enforced per pod, or "
        "across the whole deployment?",
        {
            F(MIDDLEWARE): 3,
            F(K8S_API): 2,
            S(LIMITER, "RateLimiter"): 2,
            S(SETTINGS, "Settings"): 1,
        },
    ),
    _q(
        "v17-behavioral-07",
        "behavioral",
        "What happens if someone builds a TTLCache with ttl=0, hoping to switch caching off in a "
        "test?",
        {
            S(CACHE, "TTLCache.__init__"): 3,
            S(CACHE, "TTLCache"): 2,
        },
    ),
    _q(
        "v17-behavioral-08",
        "behavioral",
        "A 15% code on a 9.99 basket: how many cents does it take off, and is the fraction rounded "
        "up or down?",
        {
            S(RULES, "discount_for"): 3,
            S(RULES, "apply_promotions"): 1,
            S(TEST_PROMOTIONS, "test_percent_discount"): 1,
        },
    ),
    _q(
        "v17-behavioral-09",
        "behavioral",
        "When the jobs table is empty, how often does a worker replica poll it, and what does it do "
        "if the fetch query itself errors?",
        {
            S(RUNNER, "Runner.Run"): 3,
            S(QUEUE, "PostgresQueue.Fetch"): 2,
            C("worker_scaffold"): 1,
        },
    ),
    _q(
        "v17-behavioral-10",
        "behavioral",
        "What status code and JSON body does GET /orders/{order_id} return for an id that doesn't "
        "exist?",
        {
            S(ORDERS_API, "get_order"): 3,
            S(ERRORS, "error_body"): 2,
            S(ERRORS, "ApiError"): 2,
        },
    ),
    # symptom
    _q(
        "v17-symptom-01",
        "symptom",
        "In the admin order download, a delivery note written as '-- ring twice --' comes out with "
        "an apostrophe stuck in front of it.",
        {
            S(CSV_PY, "escape_cell"): 3,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            C("inc2602_csv_injection"): 2,
            S(CSV_PY, "order_row"): 1,
        },
        (9,),
    ),
    _q(
        "v17-symptom-02",
        "symptom",
        "Profiling checkout under load: a big share of wall time goes to threads waiting on the "
        "lock inside TTLCache.get, and promotion lookups have an ugly p99.",
        {
            S(CACHE, "TTLCache.get"): 3,
            C("cache_perf_revert"): 2,
            C("cache_perf_lockfree"): 2,
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 1,
        },
        (2,),
    ),
    _q(
        "v17-symptom-03",
        "symptom",
        "Our QA login script sends 15 requests in one minute and 15 in the next, and a bunch of the "
        "second batch get 429 ERR_RATE_LIMITED, even though the limit is 20 a minute.",
        {
            S(LIMITER, "RateLimiter._estimate"): 3,
            S(LIMITER, "RateLimiter.allow"): 2,
            C("inc2458_sliding_window"): 2,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 1,
        },
        (3,),
    ),
    _q(
        "v17-symptom-04",
        "symptom",
        "The warehouse put items back on the shelf from orders the customers had definitely paid "
        "for; those orders flipped to cancelled overnight.",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE, "Reconcile"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 1,
        },
        (12,),
    ),
    _q(
        "v17-symptom-05",
        "symptom",
        "Finance found pairs of identical mobile orders, same basket and same customer, placed "
        "about 30 hours apart after last weekend's metro outage, and each one was charged.",
        {
            F(IDEMPOTENCY): 3,
            C("inc2472_idempotency_ttl"): 2,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            S(OFFLINE, "replayQueue"): 1,
        },
        (10,),
    ),
    _q(
        "v17-symptom-06",
        "symptom",
        "During the Black Friday peak a few hundred checkouts failed with ERR_CARD_DECLINED although "
        "the cards were fine; the gateway's log shows it was answering us with 429.",
        {
            S(GATEWAY, "classify_response"): 3,
            S(SERVICE, "OrderService._charge"): 2,
            C("inc2188_declined_fix"): 2,
            S(RETRY, "charge_with_retry"): 1,
        },
        (7,),
    ),
    _q(
        "v17-symptom-07",
        "symptom",
        "Right after we rotated TOKEN_SECRET, every signed-in customer got 401 ERR_TOKEN_SIGNATURE "
        "and had to log in again.",
        {
            S(TOKENS, "validate_token"): 3,
            S(TOKENS, "_sign"): 2,
            S(TEST_TOKENS, "test_tampered_signature_is_rejected"): 1,
            S(SETTINGS, "get_settings"): 1,
        },
    ),
    _q(
        "v17-symptom-08",
        "symptom",
        "Every row in the orders table has customer_id set to 'anonymous', even for people who "
        "were signed in when they paid.",
        {
            S(ORDERS_API, "create_order"): 3,
            S(SERVICE, "OrderService.place_order"): 3,
            S(SERVICE, "OrderService._build_order"): 1,
        },
    ),
    _q(
        "v17-symptom-09",
        "symptom",
        "For an order a partner created for us, the app's detail screen shows the heading 'Order "
        "undefined'.",
        {
            S(PARSER, "parseOrder"): 3,
            S(ORDER_SCREEN, "OrderDetailScreen"): 2,
            S(MOBILE_API, "fetchOrder"): 1,
        },
        (),
        (),
        "mobile/**",
    ),
    _q(
        "v17-symptom-10",
        "symptom",
        "Posting a 3 MB bulk order import to the API fails with 413 Request Entity Too Large before "
        "our code ever sees it.",
        {
            F(NGINX): 3,
            C("nginx_config"): 1,
        },
    ),
    # coupled
    _q(
        "v17-coupled-01",
        "coupled",
        "Accounting's ledger tool wants minus-prefixed values in the Go nightly file left alone, so "
        "I'd drop '-' from formulaPrefixes. What other files have shared commits with "
        "worker/internal/export/csv.go?",
        {
            S(CSV_PY, "escape_cell"): 3,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 3,
            C("inc2602_csv_injection"): 2,
            F(TEST_CSV_PY): 1,
        },
        (17,),
        (CSV_PY, TEST_CSV_PY, CSV_GO_TEST),
    ),
    _q(
        "v17-coupled-02",
        "coupled",
        "Gateway 409s caused by idempotency conflicts should go back through the retry loop "
        "instead of failing the order. The last time the status classification in gateway.py "
        "changed, which files went with it?",
        {
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 3,
            S(RETRY, "charge_with_retry"): 2,
            C("inc2188_declined_fix"): 2,
            F(TEST_RETRY): 1,
            F(ERRORS): 1,
        },
        (7,),
        (RETRY, TEST_GATEWAY, TEST_RETRY, ERRORS),
    ),
    _q(
        "v17-coupled-03",
        "coupled",
        "Our auditors flagged the 60 seconds of slack in access-token validation and want it gone. "
        "Apart from tokens.py itself, what has been committed alongside backend/auth/tokens.py?",
        {
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 3,
            F(SESSION): 2,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_token_from_a_pod_with_a_fast_clock_is_accepted"): 1,
        },
        (1,),
        (TEST_TOKENS, SESSION),
    ),
    _q(
        "v17-coupled-04",
        "coupled",
        "I'm replacing the semaphore in Runner.processBatch with an errgroup that has no limit set. "
        "Which tests and deploy files have moved with worker/internal/jobs/runner.go before?",
        {
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 3,
            F(K8S_WORKER): 2,
            C("worker_perf_revert"): 2,
            S(WORKER_MAIN, "main"): 1,
        },
        (6,),
        (RUNNER_TEST, K8S_WORKER, WORKER_MAIN),
    ),
    _q(
        "v17-coupled-05",
        "coupled",
        "Our CDN team wants every proxy hop to give up within 15 seconds, and nginx's "
        "proxy_read_timeout is the odd one out. Which files has deploy/nginx/api.conf been changed "
        "together with?",
        {
            S(SETTINGS, "Settings"): 3,
            C("inc2689_nginx_timeout"): 2,
            S(RETRY, "RetryPolicy"): 1,
            S(GATEWAY, "GatewayClient"): 1,
        },
        (14,),
        (SETTINGS,),
    ),
    _q(
        "v17-coupled-06",
        "coupled",
        "Customers want to filter their order history down to open orders. The last time "
        "backend/api/orders.py changed how orders are listed, which other files changed in the "
        "same commits?",
        {
            S(REPOSITORY, "OrderRepository.list_before"): 3,
            S(SERVICE, "OrderService.list_recent"): 2,
            C("orders_pagination"): 2,
            S(WEB_ORDERS, "listOrders"): 1,
        },
        (),
        (REPOSITORY, SERVICE, WEB_ORDERS),
    ),
    _q(
        "v17-coupled-07",
        "coupled",
        "The web app's API base URL is hard-coded as /api in web/src/api/client.ts and I want it to "
        "come from a Vite env variable. Which files have been committed together with client.ts?",
        {
            F(WEB_ORDERS): 3,
            F(SESSION): 3,
            C("web_http_rename"): 2,
            F(WEB_CLIENT): 1,
        },
        (),
        (WEB_ORDERS, SESSION),
    ),
    _q(
        "v17-coupled-08",
        "coupled",
        "To share counters between API pods I want RateLimiter to keep its state in Redis. What "
        "does backend/core/rate_limiter.py usually get committed with?",
        {
            F(TEST_RATE_LIMITER): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 3,
            C("rate_limit_headers"): 2,
            C("refactor_utils_to_core"): 1,
            S(LIMITER, "RateLimiter"): 1,
        },
        (),
        (TEST_RATE_LIMITER, MIDDLEWARE),
    ),
    _q(
        "v17-coupled-09",
        "coupled",
        "Finance in Germany wants semicolon-separated files. If I change the delimiter in "
        "backend/export/csv_export.py, what else has usually been edited in the same commits as "
        "that module?",
        {
            S(CSV_GO, "WriteOrdersCSV"): 3,
            F(TEST_CSV_PY): 2,
            C("export_columns"): 2,
            S(CSV_PY, "export_orders_csv"): 1,
        },
        (),
        (CSV_GO, TEST_CSV_PY),
    ),
    _q(
        "v17-coupled-10",
        "coupled",
        "I want a latency histogram per job kind in the worker instead of a plain sum. When "
        "worker/internal/jobs/metrics.go was added, which other files came with it?",
        {
            S(RUNNER, "Runner.handle"): 3,
            S(WORKER_MAIN, "main"): 2,
            C("worker_metrics"): 2,
            S(JOB_METRICS, "Metrics.Observe"): 1,
        },
        (),
        (RUNNER, WORKER_MAIN),
    ),
    # exact
    _q(
        "v17-exact-01",
        "exact",
        "Never stack two percentage codes",
        {
            S(RULES, "apply_promotions"): 3,
            C("inc2655_promo_stacking"): 2,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
        },
        (8,),
    ),
    _q(
        "v17-exact-02",
        "exact",
        "gs.HTTPCode == 504",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE, "Reconcile"): 2,
            C("inc2710_reconcile_timeout"): 2,
        },
        (12,),
    ),
    _q(
        "v17-exact-03",
        "exact",
        "dict reads are atomic under the GIL",
        {
            C("cache_perf_lockfree"): 3,
            C("cache_perf_revert"): 2,
            S(CACHE, "TTLCache.get"): 2,
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 1,
        },
        (2,),
    ),
    _q(
        "v17-exact-04",
        "exact",
        "is not an integer number of cents",
        {
            S(PARSER, "parseMoney"): 3,
            F(PARSER_TEST): 2,
            C("inc2333_mobile_cents"): 1,
        },
        (4,),
        (),
        "mobile/**",
    ),
    _q(
        "v17-exact-05",
        "exact",
        "One key per order, derived before the loop",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            F(ADR_IDEMPOTENCY): 2,
            F(RUNBOOK): 1,
        },
        (0, 16),
    ),
    _q(
        "v17-exact-06",
        "exact",
        "UnreconciledCharges",
        {
            S(RECONCILE, "Store"): 3,
            S(RECONCILE, "Reconcile"): 2,
            F(MIGRATION_ORDERS): 1,
        },
    ),
    _q(
        "v17-exact-07",
        "exact",
        "OrderDraft",
        {
            S(WEB_ORDERS, "OrderDraft"): 3,
            S(WEB_ORDERS, "createOrder"): 2,
            S(SCHEMAS, "OrderCreate"): 1,
        },
    ),
    _q(
        "v17-exact-08",
        "exact",
        "WriteOrdersCSV",
        {
            S(CSV_GO, "WriteOrdersCSV"): 3,
            S(CSV_GO_TEST, "TestWriteOrdersCSVEscapesNotes"): 2,
            C("export_columns"): 1,
        },
    ),
    _q(
        "v17-exact-09",
        "exact",
        "_parse_body",
        {
            S(GATEWAY, "_parse_body"): 3,
            S(GATEWAY, "GatewayClient._post"): 2,
        },
    ),
    _q(
        "v17-exact-10",
        "exact",
        "_MISSING",
        {
            F(CACHE): 3,
            S(CACHE, "TTLCache.get_or_load"): 2,
        },
    ),
    # change
    _q(
        "v17-change-01",
        "change",
        "Swap the uuid5 key in charge_with_retry for a uuid.uuid4() drawn at the top of each loop "
        "iteration; our security reviewer doesn't like keys anyone can derive from the order id.",
        {
            S(RETRY, "charge_with_retry"): 3,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 2,
            C("inc2407_idempotency_retry"): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (0, 16),
    ),
    _q(
        "v17-change-02",
        "change",
        "Idempotency records only have to outlive the client's access token, so set RECORD_TTL to "
        "15 minutes.",
        {
            F(IDEMPOTENCY): 3,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            C("inc2472_idempotency_ttl"): 2,
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 1,
        },
        (10,),
    ),
    _q(
        "v17-change-03",
        "change",
        "Page GET /orders on created_at alone: take the order id out of the cursor and out of the "
        "SQL, so the listing can go back to the index from the first migration.",
        {
            S(REPOSITORY, "OrderRepository.list_before"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            C("inc2801_pagination"): 2,
            F(MIGRATION_ORDERS_INDEX): 1,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 1,
        },
        (13,),
    ),
    _q(
        "v17-change-04",
        "change",
        "Lower REFRESH_MARGIN_MS in web/src/auth/session.ts to 30 seconds; even if a refresh lands "
        "a little late, the server still honours the token for a minute after exp.",
        {
            S(SESSION, "shouldRefresh"): 3,
            F(SESSION_TEST): 2,
            S(SESSION, "REFRESH_MARGIN_MS"): 2,
            C("inc2390_web_refresh_margin"): 1,
        },
        (15,),
    ),
    _q(
        "v17-change-05",
        "change",
        "Make RateLimiter.allow forget the previous minute completely once a new one starts; "
        "customers complain that a burst at 10:59 still counts against them at 11:00.",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 2,
            C("inc2458_sliding_window"): 2,
        },
        (3,),
    ),
    _q(
        "v17-change-06",
        "change",
        "Expose a Prometheus counter per reconciliation outcome so we can alert when mismatches "
        "spike.",
        {
            S(RECONCILE, "Reconcile"): 3,
            S(JOB_METRICS, "Metrics"): 2,
            S(RECONCILE, "Outcome.String"): 1,
            C("worker_reconcile_logging"): 1,
        },
    ),
    _q(
        "v17-change-07",
        "change",
        "Add an ETag header to GET /orders/{order_id} so the web app can revalidate cached orders "
        "cheaply.",
        {
            S(ORDERS_API, "get_order"): 3,
            S(SCHEMAS, "order_to_out"): 1,
            S(WEB_ORDERS, "fetchOrder"): 1,
        },
    ),
    _q(
        "v17-change-08",
        "change",
        "Let listOrders in web/src/api/orders.ts take an optional page size and pass it to the API "
        "as ?limit=.",
        {
            S(WEB_ORDERS, "listOrders"): 3,
            S(ORDERS_API, "list_orders"): 2,
            F(TEST_WEB_ORDERS): 1,
        },
    ),
    _q(
        "v17-change-09",
        "change",
        "Give every access token a jti claim holding a random id, so we can blacklist single tokens "
        "later.",
        {
            S(TOKENS, "issue_token"): 3,
            S(TOKENS, "validate_token"): 1,
            S(TEST_TOKENS, "test_round_trip"): 1,
        },
    ),
    _q(
        "v17-change-10",
        "change",
        "The rate limiter keeps an entry for every IP and user it has ever seen. Forget keys that "
        "have been idle for two windows so the API's memory stops creeping up.",
        {
            S(LIMITER, "RateLimiter._roll"): 3,
            S(LIMITER, "RateLimiter"): 2,
            S(LIMITER, "RateLimiter.allow"): 1,
        },
    ),
)


# --- held-out v18: written from the fixture's files, commit history and recorded failures before
# the change it evaluates, without running retrieval on it; report it, never tune on it ----------

_HELDOUT_V18: tuple[_Row, ...] = (
    # causal
    _q(
        "v18-causal-01",
        "causal",
        "The nightly file written by worker/internal/export/csv.go puts an apostrophe in front of "
        "note cells that begin with a minus sign. A dash there is usually just a bullet point, so "
        "what made the Go side treat it as dangerous?",
        {
            C("inc2602_csv_injection"): 3,
            S(CSV_GO, "escapeCell"): 2,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            S(CSV_PY, "escape_cell"): 1,
        },
        (17,),
    ),
    _q(
        "v18-causal-02",
        "causal",
        "gateway.py only counts 500, 502, 503 and 504 as worth another attempt. Why was the charge "
        "loop narrowed to those, and what went wrong back when any non-2xx answer was retried?",
        {
            C("inc2188_declined_fix"): 3,
            S(GATEWAY, "classify_response"): 2,
            S(RETRY, "charge_with_retry"): 2,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 1,
        },
        (7,),
    ),
    _q(
        "v18-causal-03",
        "causal",
        "Rotating refresh tokens shipped in April 2025, yet a copied token could still keep a "
        "session alive for weeks afterwards. What was missing from that first rotation, and which "
        "later commit closed the gap?",
        {
            C("inc2744_refresh_reuse"): 3,
            C("refresh_tokens"): 2,
            S(REFRESH, "rotate_refresh_token"): 2,
            F(MIGRATION_REVOCATIONS): 1,
        },
        (11,),
    ),
    _q(
        "v18-causal-04",
        "causal",
        "The UK and Swedish shops opened long after the web app was first built. Which change "
        "taught the storefront's order model about currencies, and which of its components format "
        "prices with that field?",
        {
            C("currency_support"): 3,
            S(WEB_ORDERS, "orderTotalLabel"): 2,
            S(ORDER_SUMMARY, "OrderSummary"): 2,
            S(WEB_ORDERS, "OrderDTO"): 1,
        },
        (5,),
    ),
    _q(
        "v18-causal-05",
        "causal",
        "The phone app stops replaying a queued order once it is 36 hours old. Where does that "
        "number come from, and how is it tied to how long the API remembers what it answered for "
        "an Idempotency-Key?",
        {
            C("inc2472_idempotency_ttl"): 3,
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 2,
            F(IDEMPOTENCY): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (10,),
    ),
    _q(
        "v18-causal-06",
        "causal",
        "Why does the order payload carry subtotal_cents and discount_cents next to total_cents "
        "instead of just the amount we charged, and when did the storefront start showing them?",
        {
            C("orders_discount_fields"): 3,
            S(SCHEMAS, "OrderOut"): 2,
            S(WEB_ORDERS, "parseOrderResponse"): 1,
            S(ORDER_SUMMARY, "OrderSummary"): 1,
        },
    ),
    _q(
        "v18-causal-07",
        "causal",
        "Why does the Go worker build the finance spreadsheet itself in csv.go instead of reusing "
        "the Python exporter, and who picks up the file it writes every night?",
        {
            C("csv_export"): 3,
            S(CSV_GO, "WriteOrdersCSV"): 2,
            S(CSV_PY, "export_orders_csv"): 2,
            C("export_columns"): 1,
        },
    ),
    _q(
        "v18-causal-08",
        "causal",
        "Reconcile only looks at charges older than a grace period. Why hold back at all rather "
        "than checking every charge on each nightly run?",
        {
            C("worker_reconcile"): 3,
            S(RECONCILE, "Reconcile"): 2,
            S(RECONCILE, "Store"): 1,
        },
    ),
    _q(
        "v18-causal-09",
        "causal",
        "web/src/api/orders.ts turns delivery_window into a pair of Dates. When did orders get a "
        "delivery slot in the first place, and which market was it built for?",
        {
            C("delivery_window"): 3,
            S(WEB_ORDERS, "parseOrderResponse"): 2,
            S(SCHEMAS, "DeliveryWindowOut"): 2,
            F(MIGRATION_DELIVERY): 1,
        },
    ),
    _q(
        "v18-causal-10",
        "causal",
        "What made us add a Redemption record to backend/promotions/rules.py, and who reads those "
        "rows once they are written?",
        {
            C("promotions_export"): 3,
            S(RULES, "Redemption"): 2,
            S(CSV_PY, "export_promotions_csv"): 2,
            F(MIGRATION_PROMOTIONS): 1,
        },
    ),
    # behavioral
    _q(
        "v18-behavioral-01",
        "behavioral",
        "If charge_with_retry ran for the same order on two API pods at once, would the card "
        "processor see one idempotency key from both pods, or two different ones?",
        {
            S(RETRY, "charge_with_retry"): 3,
            F(ADR_IDEMPOTENCY): 2,
            C("inc2407_idempotency_retry"): 2,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 1,
        },
        (0, 16),
    ),
    _q(
        "v18-behavioral-02",
        "behavioral",
        "With the limit at 20 a minute, a client makes 12 requests at 10:00:50 and carries on at "
        "10:01:15. Roughly how many more does RateLimiter.allow let through at 10:01:15 before it "
        "starts saying no?",
        {
            S(LIMITER, "RateLimiter._estimate"): 3,
            S(LIMITER, "RateLimiter.allow"): 2,
            S(LIMITER, "RateLimiter._roll"): 2,
            C("inc2458_sliding_window"): 1,
        },
        (3,),
    ),
    _q(
        "v18-behavioral-03",
        "behavioral",
        "If the processor's lookup answers HTTP 504 but the body still says status 'failed', which "
        "outcome does the Go reconciler record for that charge: failed or pending?",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE, "GatewayStatus"): 1,
        },
        (12,),
    ),
    _q(
        "v18-behavioral-04",
        "behavioral",
        "Will the app's parseMoney take a refund line of -500 cents, or an amount above 2^53? And "
        "is there any path where it rounds a value instead of rejecting it?",
        {
            S(PARSER, "parseMoney"): 3,
            S(PARSER, "parseOrder"): 2,
            F(PARSER_TEST): 1,
        },
        (4,),
        (),
        "mobile/**",
    ),
    _q(
        "v18-behavioral-05",
        "behavioral",
        "A customer's note reads '@home, ring bell'. Does escape_cell change it in the admin CSV "
        "download, and would it still do so if the note started with a space before the @?",
        {
            S(CSV_PY, "escape_cell"): 3,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            C("inc2602_csv_injection"): 2,
            S(CSV_PY, "order_row"): 1,
        },
        (9,),
    ),
    _q(
        "v18-behavioral-06",
        "behavioral",
        "A token's scope claim is 'orders:read'. Does has_scope(claims, 'orders') count that as a "
        "match, or does it only accept the exact scope name?",
        {
            S(TOKENS, "has_scope"): 3,
            S(TOKENS, "issue_token"): 2,
        },
    ),
    _q(
        "v18-behavioral-07",
        "behavioral",
        "A laptop wakes from sleep and startSession is handed an access token whose exp already "
        "lies in the past. When does the web client try its next refresh?",
        {
            S(SESSION, "scheduleRefresh"): 3,
            S(SESSION, "startSession"): 2,
            S(SESSION, "decodeExpiry"): 1,
        },
    ),
    _q(
        "v18-behavioral-08",
        "behavioral",
        "What does the API answer when POST /orders arrives without any Idempotency-Key header? "
        "Does the server make one up?",
        {
            S(ORDERS_API, "create_order"): 3,
            S(SERVICE, "OrderService.place_order"): 2,
            C("idempotency_store"): 1,
        },
    ),
    _q(
        "v18-behavioral-09",
        "behavioral",
        "With RetryPolicy(max_attempts=1), what does charge_with_retry do when that only attempt "
        "times out: re-raise the timeout, or report that retries ran out?",
        {
            S(RETRY, "charge_with_retry"): 3,
            S(RETRY, "RetryPolicy.delays"): 2,
            S(TEST_RETRY, "test_gives_up_after_max_attempts"): 1,
        },
    ),
    _q(
        "v18-behavioral-10",
        "behavioral",
        "Can an order's total_cents drop below zero when a fixed voucher exceeds the basket value, "
        "and is US sales tax still added on top in that case?",
        {
            S(MODELS, "Order.total_cents"): 3,
            S(TAX, "sales_tax_cents"): 2,
            S(RULES, "discount_for"): 2,
            S(RULES, "apply_promotions"): 1,
        },
    ),
    # symptom
    _q(
        "v18-symptom-01",
        "symptom",
        "Every night while the finance export runs, checkout response times shoot up to several "
        "seconds and the API logs are full of requests waiting for a free database connection.",
        {
            C("worker_perf_revert"): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            F(K8S_WORKER): 2,
            C("worker_perf_unbounded"): 1,
        },
        (6,),
    ),
    _q(
        "v18-symptom-02",
        "symptom",
        "When the card processor is sluggish, the checkout page can spin for the better part of a "
        "minute before the order finally goes through, and some people give up and close the tab.",
        {
            F(NGINX): 3,
            S(SETTINGS, "Settings"): 2,
            C("inc2689_nginx_timeout"): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
    ),
    _q(
        "v18-symptom-03",
        "symptom",
        "A reseller scrolling back through their purchases says an order goes missing near the "
        "bottom of some pages, and it is always one with exactly the same creation time as the "
        "order listed right above it.",
        {
            S(REPOSITORY, "OrderRepository.list_before"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            C("inc2801_pagination"): 2,
            S(ORDERS_API, "list_orders"): 1,
        },
        (13,),
    ),
    _q(
        "v18-symptom-04",
        "symptom",
        "Since last week's security hardening release, tickets from people logged out halfway "
        "through paying have tripled, nearly all of them on phones.",
        {
            S(TOKENS, "validate_token"): 3,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 2,
            S(SESSION, "shouldRefresh"): 1,
        },
        (1,),
    ),
    _q(
        "v18-symptom-05",
        "symptom",
        "Marketing says the welcome voucher is quietly ignored whenever a shopper also enters the "
        "summer sale code: only one code ends up on the receipt.",
        {
            S(RULES, "apply_promotions"): 3,
            C("inc2655_promo_stacking"): 2,
            S(BANNER, "stackingNotice"): 2,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 1,
        },
        (8,),
    ),
    _q(
        "v18-symptom-06",
        "symptom",
        "While our newsletter went out, lots of unrelated visitors were refused at the sign-in "
        "page with 'too many requests', as if they were all one person.",
        {
            S(MIDDLEWARE, "rate_limit_middleware"): 3,
            S(LIMITER, "client_key"): 2,
            F(NGINX): 2,
            S(LIMITER, "RateLimiter.allow"): 1,
        },
    ),
    _q(
        "v18-symptom-07",
        "symptom",
        "A bearer token with an emoji pasted into it makes the API answer 500 instead of a normal "
        "401.",
        {
            S(TOKENS, "_sign"): 3,
            S(TOKENS, "validate_token"): 2,
            S(TOKENS, "TokenError"): 1,
        },
    ),
    _q(
        "v18-symptom-08",
        "symptom",
        "A shopper double-tapped Pay on a laggy connection. Both taps reached us a few "
        "milliseconds apart with the same request key, and the card was charged for two separate "
        "orders.",
        {
            S(SERVICE, "OrderService.place_order"): 3,
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 2,
            S(IDEMPOTENCY, "IdempotencyStore.remember"): 2,
            S(RETRY, "charge_with_retry"): 1,
        },
    ),
    _q(
        "v18-symptom-09",
        "symptom",
        "While the API was being redeployed, the web shop showed shoppers a raw 'Unexpected token "
        "<' message instead of a friendly error.",
        {
            S(WEB_CLIENT, "request"): 3,
            S(WEB_CLIENT, "ApiError"): 2,
            F(NGINX): 1,
        },
    ),
    _q(
        "v18-symptom-10",
        "symptom",
        "After a worker pod was killed for running out of memory overnight, a few confirmation "
        "e-mails were never sent, and those jobs still look claimed in the database; nobody picks "
        "them up again.",
        {
            S(QUEUE, "PostgresQueue.Fetch"): 3,
            S(QUEUE, "PostgresQueue.Retry"): 2,
            S(RUNNER, "Runner.Run"): 1,
        },
    ),
    # coupled
    _q(
        "v18-coupled-01",
        "coupled",
        "The EU storefront will only ever sell in euros, so I plan to slim OrderDTO down. Before I "
        "do, what has web/src/api/orders.ts usually been committed together with?",
        {
            S(ORDER_SUMMARY, "OrderSummary"): 3,
            S(SCHEMAS, "OrderOut"): 2,
            C("currency_support"): 2,
            S(MOBILE_MODELS, "Order"): 1,
        },
        (5,),
        (SCHEMAS, ORDER_SUMMARY, MOBILE_MODELS),
    ),
    _q(
        "v18-coupled-02",
        "coupled",
        "Bulk imports are gone, so I think two orders can no longer share a created_at and I'd "
        "sort the history on created_at alone. Which files were committed together with "
        "backend/orders/repository.py?",
        {
            S(ORDERS_API, "encode_cursor"): 3,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 2,
            C("inc2801_pagination"): 2,
            F(MIGRATION_ORDERS_INDEX): 1,
        },
        (13,),
        (ORDERS_API, TEST_ORDERS_API, MIGRATION_ORDERS_INDEX),
    ),
    _q(
        "v18-coupled-03",
        "coupled",
        "People with two tabs open keep getting signed out everywhere, so I'd like a repeated "
        "refresh token to get a plain 401 without touching the rest of its family. What does "
        "backend/auth/refresh.py tend to be committed with?",
        {
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 3,
            F(MIGRATION_REVOCATIONS): 2,
            C("inc2744_refresh_reuse"): 2,
            F(ERRORS): 1,
        },
        (11,),
        (TEST_REFRESH, MIGRATION_REVOCATIONS, ERRORS),
    ),
    _q(
        "v18-coupled-04",
        "coupled",
        "I plan to take the lock in TTLCache.get only when an entry has expired and must be "
        "deleted, since plain reads look harmless. Which tests and modules have been committed "
        "alongside backend/core/ttl_cache.py?",
        {
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 3,
            C("cache_race_test"): 2,
            C("cache_perf_revert"): 2,
            S(CODES, "lookup_code"): 1,
        },
        (2,),
        (TEST_CACHE, CODES),
    ),
    _q(
        "v18-coupled-05",
        "coupled",
        "Our new card processor caps idempotency keys at 36 characters, so I'd simply pass a fresh "
        "uuid4 on each charge call. What usually changes alongside backend/payments/retry.py?",
        {
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 3,
            C("inc2407_idempotency_retry"): 2,
            F(ADR_IDEMPOTENCY): 2,
            S(GATEWAY, "GatewayClient.charge"): 1,
        },
        (0, 16),
        (TEST_RETRY, GATEWAY),
    ),
    _q(
        "v18-coupled-06",
        "coupled",
        "I'm adding a /startupz endpoint for slow cold starts. Which other file shipped in the "
        "same commit as backend/api/health.py?",
        {
            F(K8S_API): 3,
            C("k8s_probes"): 2,
            S(HEALTH, "readyz"): 1,
        },
        (),
        (K8S_API,),
    ),
    _q(
        "v18-coupled-07",
        "coupled",
        "I'm adding a reorder() helper to web/src/api/orders.ts that posts an old order's lines "
        "again under a new Idempotency-Key. Which server and app files have moved in step with "
        "that module?",
        {
            S(SCHEMAS, "OrderCreate"): 3,
            S(WEB_ORDERS, "createOrder"): 2,
            S(SERVICE, "OrderService.place_order"): 2,
            F(PARSER): 1,
        },
        (),
        (SCHEMAS, SERVICE, PARSER),
    ),
    _q(
        "v18-coupled-08",
        "coupled",
        "The processor's v2 API wants every amount wrapped in a money object with its currency. "
        "Which files usually get edited in the same commits as backend/payments/gateway.py?",
        {
            F(TEST_RETRY): 3,
            S(RETRY, "charge_with_retry"): 2,
            S(REFUNDS, "issue_refund"): 2,
            S(GATEWAY, "GatewayClient.refund"): 1,
        },
        (),
        (RETRY, TEST_RETRY, REFUNDS),
    ),
    _q(
        "v18-coupled-09",
        "coupled",
        "The checkout banner should also say until when a campaign runs ('until Sunday'). What has "
        "web/src/checkout/promoBanner.ts historically changed together with?",
        {
            S(RULES, "Promotion"): 3,
            F(TEST_PROMOTIONS): 2,
            C("promo_min_subtotal"): 2,
            S(RULES, "is_active"): 1,
        },
        (),
        (RULES, TEST_PROMOTIONS),
    ),
    _q(
        "v18-coupled-10",
        "coupled",
        "For the huge month-end file I'd like WriteOrdersCSV to stream through a buffered writer "
        "and flush every thousand rows. What else has historically been committed alongside "
        "worker/internal/export/csv.go?",
        {
            S(CSV_GO, "WriteOrdersCSV"): 3,
            S(CSV_PY, "export_orders_csv"): 2,
            C("export_columns"): 2,
            F(TEST_CSV_PY): 1,
        },
        (),
        (CSV_PY, TEST_CSV_PY),
    ),
    # exact
    _q(
        "v18-exact-01",
        "exact",
        "TS2339: Property 'currency' does not exist on type 'OrderDTO'",
        {
            S(WEB_ORDERS, "orderTotalLabel"): 3,
            S(ORDER_SUMMARY, "OrderSummary"): 3,
            S(WEB_ORDERS, "OrderDTO"): 2,
            C("currency_support"): 1,
        },
        (5,),
    ),
    _q(
        "v18-exact-02",
        "exact",
        "sem := make(chan struct{}, r.MaxInFlight)",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 2,
            C("worker_perf_revert"): 2,
            C("worker_scaffold"): 1,
        },
        (6,),
    ),
    _q(
        "v18-exact-03",
        "exact",
        "strings.HasPrefix(s, p)",
        {
            S(CSV_GO, "escapeCell"): 3,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            C("inc2602_csv_injection"): 1,
        },
        (17,),
    ),
    _q(
        "v18-exact-04",
        "exact",
        "chosen.insert(0, best)",
        {
            S(RULES, "apply_promotions"): 3,
            C("inc2655_promo_stacking"): 2,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 1,
        },
        (8,),
    ),
    _q(
        "v18-exact-05",
        "exact",
        'claims["exp"] + CLOCK_SKEW_SECONDS < current',
        {
            S(TOKENS, "validate_token"): 3,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 2,
        },
        (1,),
    ),
    _q(
        "v18-exact-06",
        "exact",
        "order_to_out",
        {
            S(SCHEMAS, "order_to_out"): 3,
            S(ORDERS_API, "get_order"): 2,
            S(ORDERS_API, "list_orders"): 1,
            S(ORDERS_API, "create_order"): 1,
        },
    ),
    _q(
        "v18-exact-07",
        "exact",
        "parseOrderResponse",
        {
            S(WEB_ORDERS, "parseOrderResponse"): 3,
            F(TEST_WEB_ORDERS): 2,
            S(WEB_ORDERS, "fetchOrder"): 1,
            S(WEB_ORDERS, "listOrders"): 1,
        },
    ),
    _q(
        "v18-exact-08",
        "exact",
        "hit_ratio",
        {
            S(CACHE, "TTLCache.stats"): 3,
            S(TEST_CACHE, "test_stats_count_hits_and_misses"): 2,
            C("cache_stats"): 1,
        },
    ),
    _q(
        "v18-exact-09",
        "exact",
        "parseLineItem",
        {
            S(PARSER, "parseLineItem"): 3,
            S(PARSER, "parseOrder"): 2,
            S(MOBILE_MODELS, "LineItem"): 1,
        },
        (),
        (),
        "mobile/**",
    ),
    _q(
        "v18-exact-10",
        "exact",
        "keepalive 32",
        {
            F(NGINX): 3,
            C("nginx_config"): 2,
        },
    ),
    # change
    _q(
        "v18-change-01",
        "change",
        "Product would rather shoppers see an error after 15 seconds than watch a spinner, so cap "
        "how long deploy/nginx/api.conf waits on the API at 15s.",
        {
            F(NGINX): 3,
            S(SETTINGS, "Settings"): 2,
            C("inc2689_nginx_timeout"): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
    ),
    _q(
        "v18-change-02",
        "change",
        "When the processor throttles us with HTTP 429 during a sale, wait and try the charge "
        "again rather than telling the shopper their card was refused.",
        {
            S(GATEWAY, "classify_response"): 3,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 2,
            S(RETRY, "charge_with_retry"): 2,
            C("inc2188_declined_fix"): 1,
        },
        (7,),
    ),
    _q(
        "v18-change-03",
        "change",
        "Stock should come back sooner: when the processor's lookup still can't tell us anything "
        "about a charge after the grace period, mark it failed so the order gets cancelled.",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
            C("inc2710_reconcile_timeout"): 2,
            F(RUNBOOK): 1,
        },
        (12,),
    ),
    _q(
        "v18-change-04",
        "change",
        "Customers paste shopping lists like '- milk' into the delivery note; stop the admin CSV "
        "download from touching anything that isn't an equals-sign formula.",
        {
            S(CSV_PY, "escape_cell"): 3,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            C("inc2602_csv_injection"): 2,
            S(TEST_CSV_PY, "test_promotions_export_escapes_partner_codes"): 1,
        },
        (9,),
    ),
    _q(
        "v18-change-05",
        "change",
        "Move the storefront's token renewal to just after exp: shouldRefresh in "
        "web/src/auth/session.ts can lean on the minute of leeway the API grants past expiry.",
        {
            S(SESSION, "shouldRefresh"): 3,
            F(SESSION_TEST): 2,
            C("inc2390_web_refresh_margin"): 2,
            S(TOKENS, "validate_token"): 1,
        },
        (15,),
    ),
    _q(
        "v18-change-06",
        "change",
        "Include the attempt number and how many milliseconds the gateway call took in the warning "
        "that charge_with_retry logs for a failed attempt.",
        {
            S(RETRY, "charge_with_retry"): 3,
            S(GATEWAY, "GatewayClient._post"): 1,
        },
    ),
    _q(
        "v18-change-07",
        "change",
        "Let requests from our office network (10.8.0.0/16) skip the login and checkout "
        "throttling.",
        {
            S(MIDDLEWARE, "rate_limit_middleware"): 3,
            S(LIMITER, "client_key"): 2,
            S(SETTINGS, "Settings"): 1,
        },
    ),
    _q(
        "v18-change-08",
        "change",
        "Give the worker's job retries real jitter: wire a seeded random source into the Backoff "
        "that main.go builds, so failed e-mail jobs don't all come back in the same second.",
        {
            S(WORKER_MAIN, "main"): 3,
            S(BACKOFF, "Backoff.Next"): 2,
            S(BACKOFF, "Backoff"): 1,
            S(RUNNER, "Runner.handle"): 1,
        },
    ),
    _q(
        "v18-change-09",
        "change",
        "Have the web client also check its token when the tab becomes visible again "
        "(visibilitychange), not only right before a request goes out.",
        {
            S(SESSION, "ensureFresh"): 3,
            S(SESSION, "scheduleRefresh"): 2,
            S(SESSION, "shouldRefresh"): 1,
            C("inc2390_web_refresh_margin"): 1,
        },
    ),
    _q(
        "v18-change-10",
        "change",
        "Format amounts on the app's order detail screen with the phone's locale, e.g. '149,00 kr' "
        "in Sweden, instead of toFixed(2) followed by the currency code.",
        {
            S(ORDER_SCREEN, "money"): 3,
            S(ORDER_SCREEN, "OrderDetailScreen"): 2,
            S(MONEY_TS, "formatMoney"): 1,
        },
    ),
)

# --- held-out v19: written from the fixture's files, commit history and recorded failures before
# the change it evaluates, without running retrieval on it; report it, never tune on it ----------

_HELDOUT_V19: tuple[_Row, ...] = (
    # causal
    _q(
        "v19-causal-01",
        "causal",
        "Reading Reconcile in the Go worker: when LookupCharge itself errors out, the code invents "
        "a 504 answer and the charge stays pending. Wouldn't calling it failed be the safer "
        "default, and what incident made it work like this?",
        {
            C("inc2710_reconcile_timeout"): 3,
            S(RECONCILE, "Reconcile"): 2,
            S(RECONCILE, "classifyGatewayStatus"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 1,
        },
        (12,),
    ),
    _q(
        "v19-causal-02",
        "causal",
        "New to the web app here. One unit test only checks that REFRESH_MARGIN_MS is bigger than "
        "CLOCK_SKEW_MS, which looks odd on its own. How did we end up renewing two minutes early "
        "rather than using the grace the server gives?",
        {
            C("inc2390_web_refresh_margin"): 3,
            F(SESSION_TEST): 2,
            C("inc2291_clock_skew"): 2,
            S(SESSION, "shouldRefresh"): 1,
            C("web_session_tests"): 1,
        },
        (15,),
    ),
    _q(
        "v19-causal-03",
        "causal",
        "On call tonight. The worker manifest pins WORKER_MAX_IN_FLIGHT to 8 next to a remark "
        "about the database pool. What actually broke the last time that cap was lifted?",
        {
            C("worker_perf_revert"): 3,
            C("worker_inflight_comment"): 2,
            F(K8S_WORKER): 2,
            C("worker_perf_unbounded"): 1,
            S(RUNNER, "Runner"): 1,
        },
        (6,),
    ),
    _q(
        "v19-causal-04",
        "causal",
        "Customers paste links to their order history and the cursor bit is long and ugly. Was "
        "there a real reason it encodes the id of the last order and not just its timestamp?",
        {
            C("inc2801_pagination"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 1,
        },
        (13,),
    ),
    _q(
        "v19-causal-05",
        "causal",
        "What incident is behind the _Window bookkeeping (a previous and a current count) in "
        "backend/core/rate_limiter.py? A fixed one-minute bucket would be far easier to explain "
        "to support.",
        {
            C("inc2458_sliding_window"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 2,
            S(LIMITER, "_Window"): 1,
        },
        (3,),
    ),
    _q(
        "v19-causal-06",
        "causal",
        "Freshly started API pods answer 503 on /readyz until something flips a flag. Why was it "
        "built that way instead of reporting ready as soon as the process is up?",
        {
            C("k8s_probes"): 3,
            S(HEALTH, "readyz"): 2,
            S(HEALTH, "mark_ready"): 2,
            F(K8S_API): 1,
        },
    ),
    _q(
        "v19-causal-07",
        "causal",
        "Blame on ttl_cache.py and rate_limiter.py dead-ends at a commit that moved both into "
        "backend/core. Why were they moved, did their code change on the way, and where did they "
        "live before?",
        {
            C("refactor_utils_to_core"): 3,
            C("ttl_cache"): 2,
            C("rate_limiter"): 2,
            S(CACHE, "TTLCache"): 1,
            S(LIMITER, "RateLimiter"): 1,
        },
    ),
    _q(
        "v19-causal-08",
        "causal",
        "The app's parseOrder quietly assumes EUR when a payload has no currency at all. Why is "
        "that fallback there rather than an error, given we sell in four currencies?",
        {
            S(PARSER, "parseOrder"): 3,
            C("currency_support"): 2,
            F(ARCHITECTURE): 2,
            F(MIGRATION_CURRENCY): 1,
        },
    ),
    _q(
        "v19-causal-09",
        "causal",
        "Our access tokens look like JWTs but are signed by a few lines of our own code in "
        "tokens.py. Why that layout, and why no JWT library?",
        {
            C("auth_tokens"): 3,
            S(TOKENS, "issue_token"): 2,
            S(SESSION, "decodeExpiry"): 2,
            S(TOKENS, "_sign"): 1,
        },
    ),
    _q(
        "v19-causal-10",
        "causal",
        "When did the order JSON stop sending a float `total` and start sending integer "
        "total_cents, and what had gone wrong with the floats?",
        {
            C("money_cents_refactor"): 3,
            F(ADR_CENTS): 2,
            S(SCHEMAS, "OrderOut"): 2,
            S(WEB_ORDERS, "parseOrderResponse"): 1,
        },
    ),
    # behavioral
    _q(
        "v19-behavioral-01",
        "behavioral",
        "Say the first charge attempt for ord_42 times out although the gateway did capture it. "
        "When charge_with_retry goes again, which idempotency key does attempt two carry, and "
        "where does that key come from?",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 2,
            F(ADR_IDEMPOTENCY): 1,
            S(GATEWAY, "GatewayClient.charge"): 1,
        },
        (0, 16),
    ),
    _q(
        "v19-behavioral-02",
        "behavioral",
        "Does TTLCache.get hold its lock on an ordinary hit as well, or only when it has to throw "
        "away an expired entry? Asking because promo code lookups hammer it.",
        {
            S(CACHE, "TTLCache.get"): 3,
            C("cache_perf_revert"): 2,
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 2,
            C("cache_race_test"): 1,
        },
        (2,),
    ),
    _q(
        "v19-behavioral-03",
        "behavioral",
        "If the app replays a queued POST /orders 40 hours after the shopper tapped Pay, does the "
        "server recognise the key and return the original order, or place a new one? Would the "
        "app even send it that late?",
        {
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 3,
            F(IDEMPOTENCY): 2,
            S(OFFLINE, "replayQueue"): 2,
            C("inc2472_idempotency_ttl"): 1,
            S(SERVICE, "OrderService.place_order"): 1,
        },
        (10,),
    ),
    _q(
        "v19-behavioral-04",
        "behavioral",
        "In the file the Go worker writes for accounting each night, what does escapeCell do with "
        "a note such as '-5 EUR owed to customer'? And do the numeric total columns go through it "
        "too?",
        {
            S(CSV_GO, "escapeCell"): 3,
            S(CSV_GO, "WriteOrdersCSV"): 2,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            C("inc2602_csv_injection"): 1,
        },
        (17,),
        (),
        "worker/**",
    ),
    _q(
        "v19-behavioral-05",
        "behavioral",
        'A stale payload cached on a phone has total_cents: "1999" as a string and '
        "subtotal_cents: 19.99. Does parseOrder take either of them, and if not, what error comes "
        "out?",
        {
            S(PARSER, "parseMoney"): 3,
            S(PARSER, "parseOrder"): 2,
            S(PARSER, "OrderParseError"): 1,
            F(PARSER_TEST): 1,
        },
        (4,),
        (),
        "mobile/**",
    ),
    _q(
        "v19-behavioral-06",
        "behavioral",
        "How does normalize_code treat 'summer 20' typed with a non-breaking space, or a code "
        "entered in full-width characters? What comes out the other end?",
        {
            S(CODES, "normalize_code"): 3,
            S(TEST_PROMOTIONS, "test_codes_are_normalised_like_customers_type_them"): 2,
            C("promo_codes_normalize"): 1,
        },
    ),
    _q(
        "v19-behavioral-07",
        "behavioral",
        "A fixed 10-euro voucher with a 50-euro minimum: what does discount_for give on a basket "
        "of 49.99, and on one of exactly 50.00?",
        {
            S(RULES, "discount_for"): 3,
            S(TEST_PROMOTIONS, "test_fixed_code_needs_the_minimum_subtotal"): 2,
            C("promo_min_subtotal"): 2,
            S(RULES, "Promotion"): 1,
        },
    ),
    _q(
        "v19-behavioral-08",
        "behavioral",
        "When a signed-out client gets a 429 on checkout, how is the number in its Retry-After "
        "header worked out? Is it simply the time left until the current window closes?",
        {
            S(LIMITER, "RateLimiter.retry_after"): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            C("rate_limit_headers"): 2,
            S(TEST_RATE_LIMITER, "test_retry_after_points_to_the_next_window"): 1,
        },
    ),
    _q(
        "v19-behavioral-09",
        "behavioral",
        "What's the biggest page GET /orders will hand back, and what does a client get if it "
        "asks for limit=500?",
        {
            S(ORDERS_API, "list_orders"): 3,
            C("orders_pagination"): 2,
            S(SERVICE, "OrderService.list_recent"): 1,
        },
    ),
    _q(
        "v19-behavioral-10",
        "behavioral",
        "An e-mail job has now failed three times in production. What delay does the worker put "
        "before attempt four, and does the Backoff built in main.go add any jitter?",
        {
            S(BACKOFF, "Backoff.Next"): 3,
            S(WORKER_MAIN, "main"): 2,
            S(RUNNER, "Runner.handle"): 2,
            S(QUEUE, "PostgresQueue.Retry"): 1,
        },
    ),
    # symptom
    _q(
        "v19-symptom-01",
        "symptom",
        "In the orders spreadsheet from the admin page, any note starting with an Instagram "
        "handle such as @anna.bakes shows an extra apostrophe before the @, and the couriers keep "
        "asking about it.",
        {
            S(CSV_PY, "escape_cell"): 3,
            C("inc2602_csv_injection"): 2,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            S(CSV_PY, "order_row"): 1,
        },
        (9,),
    ),
    _q(
        "v19-symptom-02",
        "symptom",
        "When the browser restores a crashed session with several of our shop's tabs, the "
        "customer lands on the sign-in page in all of them within a minute or so.",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            C("inc2744_refresh_reuse"): 2,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 2,
            S(SESSION, "refreshNow"): 1,
        },
        (11,),
    ),
    _q(
        "v19-symptom-03",
        "symptom",
        "During the spring sale the background worker pods sat at 5% CPU while thousands of "
        "order confirmation e-mails waited to go out. Feels like they're barely doing anything.",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            F(K8S_WORKER): 2,
            C("worker_perf_revert"): 2,
            S(WORKER_MAIN, "main"): 1,
        },
        (6,),
    ),
    _q(
        "v19-symptom-04",
        "symptom",
        "A penetration tester reports that a captured login token kept working for close to a "
        "minute after the moment it should have run out.",
        {
            S(TOKENS, "validate_token"): 3,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 2,
            S(TEST_TOKENS, "test_expired_token_is_rejected"): 1,
        },
        (1,),
    ),
    _q(
        "v19-symptom-05",
        "symptom",
        "During the evening rush, entering a discount code at checkout feels sluggish, and the "
        "profiler shows most request threads queued up behind one shared lock.",
        {
            S(CACHE, "TTLCache.get"): 3,
            C("cache_perf_revert"): 2,
            C("cache_perf_lockfree"): 2,
            S(CODES, "lookup_code"): 1,
        },
        (2,),
    ),
    _q(
        "v19-symptom-06",
        "symptom",
        "Shoppers whose voucher covers the entire basket are told their card was declined, and "
        "no order is created.",
        {
            S(SERVICE, "OrderService._charge"): 3,
            S(GATEWAY, "classify_response"): 2,
            S(RULES, "discount_for"): 2,
            C("schemas_validation"): 1,
            S(MODELS, "Order.total_cents"): 1,
        },
    ),
    _q(
        "v19-symptom-07",
        "symptom",
        "A shopper removed one item after a failed payment, pressed Pay again and got an error "
        "saying the request key had already been used for something else.",
        {
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 3,
            S(IDEMPOTENCY, "request_fingerprint"): 2,
            S(WEB_ORDERS, "createOrder"): 2,
            C("idempotency_store"): 1,
        },
    ),
    _q(
        "v19-symptom-08",
        "symptom",
        "The overnight payments check keeps flagging a few paid orders as not matching, although "
        "the customers' bank statements show exactly the amount we billed.",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE_TEST, "TestSettledAndMismatch"): 2,
            S(RECONCILE, "Charge"): 1,
            C("worker_reconcile"): 1,
        },
    ),
    _q(
        "v19-symptom-09",
        "symptom",
        "On the monitoring board, the promotion lookup cache shows a hit rate stuck at zero, even "
        "when the same code is used hundreds of times a minute.",
        {
            S(CACHE, "TTLCache.stats"): 3,
            S(CACHE, "TTLCache.get_or_load"): 2,
            C("cache_stats"): 2,
            S(CODES, "lookup_code"): 1,
        },
    ),
    _q(
        "v19-symptom-10",
        "symptom",
        "American customers who use a discount code sometimes see a sales tax line one cent "
        "higher than their own calculator gives.",
        {
            S(TAX, "sales_tax_cents"): 3,
            C("order_tax_field"): 2,
            S(MODELS, "Order.total_cents"): 1,
            S(SERVICE, "OrderService.place_order"): 1,
        },
    ),
    # coupled
    _q(
        "v19-coupled-01",
        "coupled",
        "I want classifyGatewayStatus to stop lumping an empty status in with 'processing'; "
        "empty should count as failed. What has been committed alongside "
        "worker/internal/payments/reconcile.go in the past, so I update the right places?",
        {
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 3,
            S(GATEWAY, "GatewayTimeout"): 2,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE_TEST, "TestSettledAndMismatch"): 1,
        },
        (12,),
        (RECONCILE_TEST, GATEWAY),
    ),
    _q(
        "v19-coupled-02",
        "coupled",
        "Old app builds still hold cached orders with amounts like 12.5, so I'd let parseMoney "
        "round instead of throwing. Which neighbours of mobile/src/parsers/orderParser.ts does "
        "git history say usually move with it?",
        {
            F(PARSER_TEST): 3,
            C("inc2333_mobile_cents"): 2,
            S(MOBILE_MODELS, "Order"): 2,
            S(ORDER_SCREEN, "money"): 1,
        },
        (4,),
        (PARSER_TEST, MOBILE_MODELS, ORDER_SCREEN),
    ),
    _q(
        "v19-coupled-03",
        "coupled",
        "Planning to move IdempotencyStore onto Redis and let each key expire after one day via "
        "EXPIRE. Which files does git history tie to backend/payments/idempotency.py?",
        {
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 3,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            C("inc2472_idempotency_ttl"): 2,
            F(MIGRATION_IDEMPOTENCY): 1,
        },
        (10,),
        (OFFLINE, TEST_IDEMPOTENCY, MIGRATION_IDEMPOTENCY),
    ),
    _q(
        "v19-coupled-04",
        "coupled",
        "The card processor sometimes answers 409 when two of our requests race, and I'd like "
        "those retried the way a 5xx is. What usually gets edited alongside "
        "backend/payments/gateway.py?",
        {
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 3,
            S(RETRY, "charge_with_retry"): 2,
            C("inc2188_declined_fix"): 2,
            S(TEST_RETRY, "test_declined_card_is_not_retried"): 1,
        },
        (7,),
        (RETRY, TEST_GATEWAY, TEST_RETRY),
    ),
    _q(
        "v19-coupled-05",
        "coupled",
        "Our load test shows nginx holding thousands of upstream connections open while the card "
        "processor is slow, so I'm thinking of letting nginx give up on the upstream after 10 s "
        "(deploy/nginx/api.conf). Historically, what else has that config shared commits with?",
        {
            S(SETTINGS, "Settings"): 3,
            C("inc2689_nginx_timeout"): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
        (SETTINGS,),
    ),
    _q(
        "v19-coupled-06",
        "coupled",
        "Adding DELETE /orders/{id} to backend/api/orders.py so customers can cancel before "
        "shipping. Going by history, which modules got edited with the order endpoints file?",
        {
            S(SERVICE, "OrderService.cancel_order"): 3,
            S(ERRORS, "ApiError"): 2,
            S(SCHEMAS, "OrderOut"): 2,
            S(WEB_ORDERS, "fetchOrder"): 1,
        },
        (),
        (SERVICE, ERRORS, SCHEMAS, WEB_ORDERS),
    ),
    _q(
        "v19-coupled-07",
        "coupled",
        "Gift cards must never be discounted, so promotions get an excluded_skus list in "
        "backend/promotions/rules.py. In past commits, what usually accompanied rules.py: tests, "
        "migrations, UI?",
        {
            F(TEST_PROMOTIONS): 3,
            F(MIGRATION_PROMO_MIN): 2,
            C("promo_min_subtotal"): 2,
            F(MIGRATION_PROMOTIONS): 1,
            S(RULES, "Promotion"): 1,
        },
        (),
        (TEST_PROMOTIONS, MIGRATION_PROMO_MIN, MIGRATION_PROMOTIONS),
    ),
    _q(
        "v19-coupled-08",
        "coupled",
        "To stop every promo entry expiring in the same second after a deploy, TTLCache.set "
        "should add a little random spread to each ttl. Which files tend to share commits with "
        "backend/core/ttl_cache.py?",
        {
            F(TEST_CACHE): 3,
            S(CODES, "lookup_code"): 2,
            C("cache_stats"): 2,
            S(SETTINGS, "Settings"): 1,
            S(CACHE, "TTLCache.set"): 1,
        },
        (),
        (TEST_CACHE, CODES, SETTINGS),
    ),
    _q(
        "v19-coupled-09",
        "coupled",
        "Finance now wants tax_cents in the nightly Go export as well. Which files had to change "
        "together with worker/internal/export/csv.go the previous times its columns moved?",
        {
            S(CSV_PY, "order_row"): 3,
            C("export_columns"): 2,
            F(TEST_CSV_PY): 2,
            S(CSV_GO, "Order"): 1,
        },
        (),
        (CSV_PY, TEST_CSV_PY),
    ),
    _q(
        "v19-coupled-10",
        "coupled",
        "refreshNow should report a failed refresh to our error tracker before the user is signed "
        "out. Which files has web/src/auth/session.ts typically shared commits with?",
        {
            S(WEB_CLIENT, "request"): 3,
            C("web_http_rename"): 2,
            C("refresh_tokens"): 2,
            S(REFRESH, "rotate_refresh_token"): 1,
        },
        (),
        (REFRESH, WEB_CLIENT, TOKENS),
    ),
    # exact
    _q(
        "v19-exact-01",
        "exact",
        "A rotated token came back: someone else holds a copy",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            C("inc2744_refresh_reuse"): 2,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 1,
        },
        (11,),
    ),
    _q(
        "v19-exact-02",
        "exact",
        "Must outlast four gateway attempts of GATEWAY_TIMEOUT_SECONDS",
        {
            F(NGINX): 3,
            C("inc2689_nginx_timeout"): 2,
            S(SETTINGS, "Settings"): 1,
        },
        (14,),
    ),
    _q(
        "v19-exact-03",
        "exact",
        'json.dumps({"t": created_at.isoformat(), "id": order_id})',
        {
            S(ORDERS_API, "encode_cursor"): 3,
            S(ORDERS_API, "decode_cursor"): 2,
            C("inc2801_pagination"): 2,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 1,
        },
        (13,),
    ),
    _q(
        "v19-exact-04",
        "exact",
        "a timeout does not mean the charge failed, only that we never saw the answer",
        {
            F(RETRY): 3,
            S(RETRY, "charge_with_retry"): 2,
            C("inc2407_idempotency_retry"): 2,
            S(GATEWAY, "GatewayTimeout"): 1,
        },
        (0, 16),
    ),
    _q(
        "v19-exact-05",
        "exact",
        "20% + 15% gave 35% off",
        {
            S(RULES, "apply_promotions"): 3,
            C("inc2655_promo_stacking"): 2,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
        },
        (8,),
    ),
    _q(
        "v19-exact-06",
        "exact",
        "where is the Redemption dataclass defined?",
        {
            S(RULES, "Redemption"): 3,
            S(CSV_PY, "export_promotions_csv"): 2,
            C("promotions_export"): 1,
        },
    ),
    _q(
        "v19-exact-07",
        "exact",
        "endSession",
        {
            S(SESSION, "endSession"): 3,
            S(WEB_CLIENT, "setAccessToken"): 2,
            S(SESSION, "startSession"): 1,
        },
    ),
    _q(
        "v19-exact-08",
        "exact",
        "createOrder (web client)",
        {
            S(WEB_ORDERS, "createOrder"): 3,
            S(WEB_ORDERS, "OrderDraft"): 2,
            S(ORDERS_API, "create_order"): 1,
        },
    ),
    _q(
        "v19-exact-09",
        "exact",
        "LookupCharge",
        {
            S(RECONCILE, "Gateway"): 3,
            S(RECONCILE, "Reconcile"): 2,
            S(RECONCILE_TEST, "fakeGateway.LookupCharge"): 2,
        },
        (),
        (),
        "worker/**",
    ),
    _q(
        "v19-exact-10",
        "exact",
        "IdempotencyStore.remember",
        {
            S(IDEMPOTENCY, "IdempotencyStore.remember"): 3,
            S(SERVICE, "OrderService.place_order"): 2,
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 1,
        },
    ),
    # change
    _q(
        "v19-change-01",
        "change",
        "decodeExpiry in web/src/auth/session.ts should return the moment the server really "
        "stops accepting the token, exp plus the 60 s skew allowance, so the session code plans "
        "its refreshes around the true deadline and calls /auth/refresh less often.",
        {
            S(SESSION, "decodeExpiry"): 3,
            S(SESSION, "shouldRefresh"): 2,
            F(SESSION_TEST): 2,
            C("inc2390_web_refresh_margin"): 1,
        },
        (15,),
    ),
    _q(
        "v19-change-02",
        "change",
        "Ticket from the ledger team: values like -42.10 in the worker's end-of-day CSV come "
        "through as strings since we prefix them with a quote. Carve '-' out of the formula "
        "escaping in the Go exporter only; the Python download keeps its behaviour.",
        {
            S(CSV_GO, "escapeCell"): 3,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            C("inc2602_csv_injection"): 2,
            S(CSV_GO, "formulaPrefixes"): 1,
        },
        (17,),
    ),
    _q(
        "v19-change-03",
        "change",
        "Product ask for the spring relaunch: someone entering both SPRING20 and WELCOME15 should "
        "get 35% off, with both codes on the receipt. Where does this change live?",
        {
            S(RULES, "apply_promotions"): 3,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
            C("inc2655_promo_stacking"): 2,
            S(BANNER, "stackingNotice"): 1,
        },
        (8,),
    ),
    _q(
        "v19-change-04",
        "change",
        "Dashboards show people getting 429s on login at roughly 14 tries a minute when the "
        "limit is set to 20. Drop the carry-over from the previous window so the limiter agrees "
        "with the dashboard.",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            C("inc2458_sliding_window"): 2,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 1,
        },
        (3,),
    ),
    _q(
        "v19-change-05",
        "change",
        "Before I open a PR that takes `currency` out of OrderDTO (our web checkout only ever "
        "bills in euros), tell me what still reads it and whether tsc will complain.",
        {
            S(WEB_ORDERS, "OrderDTO"): 3,
            S(WEB_ORDERS, "orderTotalLabel"): 2,
            S(ORDER_SUMMARY, "OrderSummary"): 2,
            C("currency_support"): 1,
            S(WEB_ORDERS, "parseOrderResponse"): 1,
        },
        (5,),
    ),
    _q(
        "v19-change-06",
        "change",
        "Keep /auth/login at 20 POSTs a minute but let /orders take 60: the limit should be "
        "configurable per route prefix.",
        {
            S(MIDDLEWARE, "rate_limit_middleware"): 3,
            S(SETTINGS, "Settings"): 2,
            S(LIMITER, "RateLimiter"): 2,
            F(K8S_API): 1,
        },
    ),
    _q(
        "v19-change-07",
        "change",
        "Unknown promo codes get cached for the full 30 s like real ones. Let get_or_load take its "
        "own ttl so a lookup that found nothing is only remembered for 5 seconds.",
        {
            S(CACHE, "TTLCache.get_or_load"): 3,
            S(CACHE, "TTLCache.set"): 2,
            S(CODES, "lookup_code"): 2,
            S(TEST_CACHE, "test_get_or_load_calls_loader_once"): 1,
        },
    ),
    _q(
        "v19-change-08",
        "change",
        "The 'reconciled charge' log line should also carry the gateway's HTTP code and error "
        "code, so on-call can read from the log alone what the gateway said about each order.",
        {
            S(RECONCILE, "Reconcile"): 3,
            S(RECONCILE, "GatewayStatus"): 2,
            C("worker_reconcile_logging"): 2,
            S(RECONCILE, "Outcome.String"): 1,
        },
    ),
    _q(
        "v19-change-09",
        "change",
        "Percentage discounts are rounded down to the cent today. Finance wants half-up rounding "
        "instead: 15% of 9.99 should come to 1.50, not 1.49.",
        {
            S(RULES, "discount_for"): 3,
            S(TEST_PROMOTIONS, "test_percent_discount"): 2,
            S(RULES, "apply_promotions"): 1,
        },
    ),
    _q(
        "v19-change-10",
        "change",
        "A successful POST /orders should also send a Location header pointing at "
        "/orders/{id}, so partner integrations can follow it instead of building the URL "
        "themselves.",
        {
            S(ORDERS_API, "create_order"): 3,
            S(ORDERS_API, "get_order"): 2,
            S(WEB_ORDERS, "createOrder"): 1,
        },
    ),
)


# --- held-out v20: written from the fixture's files, commit history and recorded failures before
# the change it evaluates, without running retrieval on it; report it, never tune on it ----------

_HELDOUT_V20: tuple[_Row, ...] = (
    # causal
    _q(
        "v20-causal-01",
        "causal",
        "escape_cell quotes text that begins with a plus or a minus, not just '='. Was that a "
        "deliberate call, and which incident pushed it? Looks like overkill for a finance export.",
        {
            C("inc2602_csv_injection"): 3,
            S(CSV_PY, "escape_cell"): 2,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            F(CSV_PY): 1,
        },
        (9,),
    ),
    _q(
        "v20-causal-02",
        "causal",
        "history of the currency field on the web OrderDTO: why is it there when the storefront "
        "only sells in euros?",
        {
            C("currency_support"): 3,
            S(WEB_ORDERS, "OrderDTO"): 2,
            S(ORDER_SUMMARY, "OrderSummary"): 2,
            S(WEB_ORDERS, "orderTotalLabel"): 1,
        },
        (5,),
    ),
    _q(
        "v20-causal-03",
        "causal",
        "Who decided that POST /orders keys are kept two full days? 24h would halve the table. "
        "Is there a story behind RECORD_TTL?",
        {
            C("inc2472_idempotency_ttl"): 3,
            F(IDEMPOTENCY): 2,
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (10,),
    ),
    _q(
        "v20-causal-04",
        "causal",
        "PR review question: our proxy waits 45 seconds for the API before giving up, which feels "
        "huge for a shop. What's the reasoning, and what happened when it was shorter?",
        {
            C("inc2689_nginx_timeout"): 3,
            F(NGINX): 2,
            S(SETTINGS, "Settings"): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
    ),
    _q(
        "v20-causal-05",
        "causal",
        "Reviewing retry.py: the key sent to the gateway is computed once, above the attempt "
        "loop, from the order id. Couldn't every attempt simply get its own random key? What "
        "incident is behind this?",
        {
            C("inc2407_idempotency_retry"): 3,
            S(RETRY, "charge_with_retry"): 2,
            F(ADR_IDEMPOTENCY): 2,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 1,
        },
        (0, 16),
    ),
    _q(
        "v20-causal-06",
        "causal",
        "Why does RefreshTokenStore keep only sha256 hashes of refresh tokens rather than the "
        "raw strings?",
        {
            S(REFRESH, "_digest"): 3,
            C("refresh_tokens"): 2,
            S(REFRESH, "RefreshTokenStore"): 1,
        },
    ),
    _q(
        "v20-causal-07",
        "causal",
        "Two partial refunds of 10 EUR on one order: how could their gateway keys ever have "
        "collided, and which review changed refunds.py so they don't?",
        {
            C("review_comments_refunds"): 3,
            S(REFUNDS, "issue_refund"): 2,
            C("refunds_partial"): 1,
        },
    ),
    _q(
        "v20-causal-08",
        "causal",
        "rate limiting middleware lets every GET through untouched and only counts POSTs to "
        "login, refresh and orders. reason?",
        {
            S(MIDDLEWARE, "rate_limit_middleware"): 3,
            C("rate_limiter"): 2,
            S(LIMITER, "RateLimiter"): 1,
        },
    ),
    _q(
        "v20-causal-09",
        "causal",
        "Access tokens used to last an hour and now expire after 15 minutes. What prompted the "
        "shorter lifetime, and did the browser's refresh timing change with it?",
        {
            C("access_ttl_15m"): 3,
            F(TOKENS): 2,
            S(TOKENS, "issue_token"): 2,
            S(SESSION, "REFRESH_MARGIN_MS"): 1,
        },
    ),
    _q(
        "v20-causal-10",
        "causal",
        "What made us add the items_not_empty validator to OrderCreate? Did an empty basket "
        "actually get through to payment at some point?",
        {
            C("schemas_validation"): 3,
            S(SCHEMAS, "OrderCreate.items_not_empty"): 2,
            S(SCHEMAS, "OrderCreate"): 1,
        },
    ),
    # behavioral
    _q(
        "v20-behavioral-01",
        "behavioral",
        "validate_token with an nbf 30 seconds in the future, i.e. issued by a pod whose clock "
        "runs ahead: accepted, or ERR_TOKEN_NOT_YET_VALID?",
        {
            S(TOKENS, "validate_token"): 3,
            S(TEST_TOKENS, "test_token_from_a_pod_with_a_fast_clock_is_accepted"): 2,
            C("inc2291_clock_skew"): 2,
            S(TOKENS, "issue_token"): 1,
        },
        (1,),
    ),
    _q(
        "v20-behavioral-02",
        "behavioral",
        "The worker pulls 50 jobs per fetch. How many of those handlers actually execute at the "
        "same moment inside one pod, and where is that number set?",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            S(WORKER_MAIN, "main"): 2,
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 2,
            C("worker_inflight_comment"): 1,
        },
        (6,),
    ),
    _q(
        "v20-behavioral-03",
        "behavioral",
        "Two orders imported in the same millisecond, and the page break of GET /orders lands "
        "between them. Does the second one appear at the top of the next page?",
        {
            S(ORDERS_API, "list_orders"): 3,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
            C("inc2801_pagination"): 2,
            S(ORDERS_API, "encode_cursor"): 1,
        },
        (13,),
    ),
    _q(
        "v20-behavioral-04",
        "behavioral",
        "gateway answers 503 to the first charge call: what does the payment code do next, how "
        "long does it sleep, and is the Idempotency-Key header on the second call the same one?",
        {
            S(RETRY, "charge_with_retry"): 3,
            S(RETRY, "RetryPolicy.delays"): 2,
            S(GATEWAY, "classify_response"): 1,
            C("inc2407_idempotency_retry"): 1,
        },
        (0, 16),
    ),
    _q(
        "v20-behavioral-05",
        "behavioral",
        "If a web access token's exp is 12:15:00, at what time does session.ts fire /auth/refresh? "
        "Does it count the minute of grace the backend allows?",
        {
            S(SESSION, "shouldRefresh"): 3,
            S(SESSION, "scheduleRefresh"): 2,
            F(SESSION_TEST): 2,
            C("inc2390_web_refresh_margin"): 1,
        },
        (15,),
    ),
    _q(
        "v20-behavioral-06",
        "behavioral",
        "export_promotions_csv: what columns come out, in which order, and is the order id "
        "escaped as well as the code?",
        {
            S(CSV_PY, "export_promotions_csv"): 3,
            S(RULES, "Redemption"): 2,
            S(TEST_CSV_PY, "test_promotions_export_escapes_partner_codes"): 1,
        },
    ),
    _q(
        "v20-behavioral-07",
        "behavioral",
        "What does IdempotencyStore.purge_expired hand back to the caller, and are records that "
        "expire exactly now counted as gone?",
        {
            S(IDEMPOTENCY, "IdempotencyStore.purge_expired"): 3,
            S(TEST_IDEMPOTENCY, "test_records_expire"): 2,
            C("idempotency_store"): 1,
        },
    ),
    _q(
        "v20-behavioral-08",
        "behavioral",
        "In the nightly reconciliation run, which charges get picked up (what is grace for), and "
        "what happens to the remaining charges if MarkOutcome returns an error for one order?",
        {
            S(RECONCILE, "Reconcile"): 3,
            S(RECONCILE, "Store"): 2,
            C("worker_reconcile"): 1,
        },
        (),
        (),
        "worker/**",
    ),
    _q(
        "v20-behavioral-09",
        "behavioral",
        "Once the promotion cache already holds its 4096 entries, which entry is dropped when a "
        "new code gets stored?",
        {
            S(CACHE, "TTLCache.set"): 3,
            S(TEST_CACHE, "test_least_recently_used_is_evicted"): 2,
            S(CODES, "lookup_code"): 1,
        },
    ),
    _q(
        "v20-behavioral-10",
        "behavioral",
        "how does verify_webhook_signature treat a header stamped ten minutes ago, or one "
        "missing the t= part?",
        {
            S(WEBHOOKS, "verify_webhook_signature"): 3,
            S(TEST_WEBHOOKS, "test_stale_timestamp_is_rejected"): 2,
            C("webhooks"): 1,
        },
    ),
    # symptom
    _q(
        "v20-symptom-01",
        "symptom",
        "Ticket #4471: customer's bank shows the same amount taken twice for one purchase. She "
        "says the pay button kept spinning for ages before the confirmation finally appeared.",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            S(TEST_RETRY, "test_retry_does_not_double_charge"): 2,
            F(RUNBOOK): 1,
        },
        (0, 16),
    ),
    _q(
        "v20-symptom-02",
        "symptom",
        "Shoppers get 'too many requests' at checkout although our dashboard shows they made "
        "only about fifteen attempts in the last minute, well below the allowed twenty.",
        {
            S(LIMITER, "RateLimiter._estimate"): 3,
            S(LIMITER, "RateLimiter.allow"): 2,
            C("inc2458_sliding_window"): 2,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 1,
        },
        (3,),
    ),
    _q(
        "v20-symptom-03",
        "symptom",
        "After last night's outage at the card processor, several orders were cancelled by the "
        "morning even though the customers' money had clearly been taken.",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
            S(RECONCILE, "Reconcile"): 1,
        },
        (12,),
    ),
    _q(
        "v20-symptom-04",
        "symptom",
        "complaint: entered WELCOME10 and our 25% spring voucher, the page accepted both, but "
        "the receipt only has the bigger discount. customer feels cheated",
        {
            S(RULES, "apply_promotions"): 3,
            C("inc2655_promo_stacking"): 2,
            S(BANNER, "stackingNotice"): 2,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 1,
        },
        (8,),
    ),
    _q(
        "v20-symptom-05",
        "symptom",
        "In the overnight file for accounting, adjustment notes like '-12.50 goodwill' arrive "
        "with an apostrophe in front, so their import tool can't read the figure.",
        {
            S(CSV_GO, "escapeCell"): 3,
            C("inc2602_csv_injection"): 2,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            S(CSV_GO, "WriteOrdersCSV"): 1,
        },
        (17,),
    ),
    _q(
        "v20-symptom-06",
        "symptom",
        "Marketing creates a brand-new discount code, tries it straight away on the site and is "
        "told it's invalid; half a minute later the same code works.",
        {
            S(CODES, "lookup_code"): 3,
            S(CACHE, "TTLCache.get_or_load"): 2,
            C("ttl_cache"): 1,
        },
    ),
    _q(
        "v20-symptom-07",
        "symptom",
        "Our midnight flash sale in Sweden only started honouring its code around one in the "
        "morning, and the first hour of buyers paid full price.",
        {
            C("promo_expiry_tz"): 3,
            S(RULES, "_as_shop_time"): 2,
            S(RULES, "is_active"): 2,
            S(TEST_PROMOTIONS, "test_naive_campaign_bounds_are_shop_local_time"): 1,
        },
    ),
    _q(
        "v20-symptom-08",
        "symptom",
        "Finance: the spreadsheet we download from admin has no column at all for the sales tax "
        "charged on American orders, so we rebuild it by hand every month.",
        {
            S(CSV_PY, "order_row"): 3,
            S(CSV_PY, "export_orders_csv"): 2,
            C("export_columns"): 2,
            C("order_tax_field"): 1,
        },
    ),
    _q(
        "v20-symptom-09",
        "symptom",
        "People who come back after about a month away must type their password again, although "
        "they never signed out.",
        {
            F(REFRESH): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            S(REFRESH, "start_session"): 2,
            C("refresh_tokens"): 1,
        },
    ),
    _q(
        "v20-symptom-10",
        "symptom",
        "Ops noticed that right after each rollout of the background service, a handful of "
        "shoppers get two identical 'thanks for your order' mails minutes apart.",
        {
            C("worker_shutdown"): 3,
            S(RUNNER, "Runner.processBatch"): 2,
            S(RUNNER, "Runner.Run"): 2,
            F(K8S_WORKER): 1,
        },
    ),
    # coupled
    _q(
        "v20-coupled-01",
        "coupled",
        "Security wants the clock-skew allowance in backend/auth/tokens.py cut from 60 s to 10 s. "
        "What else has tokens.py usually been committed with?",
        {
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 3,
            S(SESSION, "CLOCK_SKEW_MS"): 2,
            C("inc2291_clock_skew"): 2,
            S(SESSION, "shouldRefresh"): 1,
        },
        (1,),
        (TEST_TOKENS, SESSION),
    ),
    _q(
        "v20-coupled-02",
        "coupled",
        "co-change partners of runner.go in the Go worker? planning to spawn goroutines freely, "
        "one each, and delete the sem channel",
        {
            S(RUNNER_TEST, "TestProcessBatchRespectsMaxInFlight"): 3,
            F(K8S_WORKER): 2,
            C("worker_inflight_comment"): 2,
            S(WORKER_MAIN, "main"): 1,
        },
        (6,),
        (RUNNER_TEST, K8S_WORKER, WORKER_MAIN),
    ),
    _q(
        "v20-coupled-03",
        "coupled",
        "I'm narrowing the formula check in backend/export/csv_export.py to cells starting with "
        "'=' only. Which files have moved in lockstep with it before?",
        {
            S(CSV_GO, "escapeCell"): 3,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            C("inc2602_csv_injection"): 2,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 1,
        },
        (9,),
        (CSV_GO, TEST_CSV_PY, CSV_GO_TEST),
    ),
    _q(
        "v20-coupled-04",
        "coupled",
        "If rotate_refresh_token stops revoking the family when an old token reappears, what "
        "files besides backend/auth/refresh.py usually need touching?",
        {
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 3,
            F(MIGRATION_REVOCATIONS): 2,
            C("inc2744_refresh_reuse"): 2,
            F(ERRORS): 1,
        },
        (11,),
        (TEST_REFRESH, MIGRATION_REVOCATIONS, ERRORS),
    ),
    _q(
        "v20-coupled-05",
        "coupled",
        "Shortening the order-history cursor so it only carries created_at. What changed "
        "alongside encode_cursor in backend/api/orders.py in earlier commits?",
        {
            S(REPOSITORY, "OrderRepository.list_before"): 3,
            F(MIGRATION_ORDERS_INDEX): 2,
            S(TEST_ORDERS_API, "test_cursor_round_trip_keeps_the_tie_breaker"): 2,
            C("inc2801_pagination"): 1,
        },
        (13,),
        (REPOSITORY, MIGRATION_ORDERS_INDEX, TEST_ORDERS_API),
    ),
    _q(
        "v20-coupled-06",
        "coupled",
        "GatewayClient.refund is getting a reason argument that ends up on the gateway's refund "
        "record. When refunds first landed, which files changed with backend/payments/gateway.py?",
        {
            S(REFUNDS, "issue_refund"): 3,
            F(MIGRATION_REFUNDS): 2,
            C("refunds_partial"): 2,
            S(GATEWAY, "GatewayClient.refund"): 1,
        },
        (),
        (REFUNDS, MIGRATION_REFUNDS),
    ),
    _q(
        "v20-coupled-07",
        "coupled",
        "We want a fourth promotion kind, buy-one-get-one. Besides the Literal in rules.py, what "
        "has historically been updated with promotion kinds: banner text, SQL, tests?",
        {
            S(BANNER, "BannerPromotion"): 3,
            F(MIGRATION_PROMOTIONS): 2,
            F(TEST_PROMOTIONS): 2,
            S(BANNER, "renderPromoBanner"): 1,
            S(RULES, "discount_for"): 1,
        },
        (),
        (BANNER, MIGRATION_PROMOTIONS, TEST_PROMOTIONS),
    ),
    _q(
        "v20-coupled-08",
        "coupled",
        "Orders are getting a gift_message field. When a field was added to the order payload "
        "before, what moved along with the app's orderParser.ts?",
        {
            S(MOBILE_MODELS, "Order"): 3,
            S(SCHEMAS, "OrderOut"): 2,
            C("delivery_window"): 2,
            S(WEB_ORDERS, "OrderDTO"): 1,
        },
        (),
        (MOBILE_MODELS, SCHEMAS, WEB_ORDERS),
    ),
    _q(
        "v20-coupled-09",
        "coupled",
        "renaming the env var RATE_LIMIT_PER_MINUTE to API_RATE_LIMIT -- what goes with "
        "backend/config/settings.py in the same commit?",
        {
            F(K8S_API): 3,
            C("settings_rate_limits"): 2,
            S(SETTINGS, "get_settings"): 2,
            S(MIDDLEWARE, "rate_limit_middleware"): 1,
        },
        (),
        (K8S_API, MIDDLEWARE),
    ),
    _q(
        "v20-coupled-10",
        "coupled",
        "I'm about to emit a metric for each result of the Go reconciler. Going by git history, "
        "what tends to be touched along with reconcile.go?",
        {
            S(RECONCILE_TEST, "TestSettledAndMismatch"): 3,
            S(GATEWAY, "GatewayTimeout"): 2,
            C("worker_reconcile_logging"): 2,
            S(JOB_METRICS, "Metrics"): 1,
        },
        (),
        (RECONCILE_TEST, GATEWAY),
    ),
    # exact
    _q(
        "v20-exact-01",
        "exact",
        "get() reorders the LRU list and may delete an expired entry",
        {
            F(CACHE): 3,
            S(CACHE, "TTLCache.get"): 2,
            C("cache_perf_revert"): 2,
            C("cache_race_test"): 1,
        },
        (2,),
    ),
    _q(
        "v20-exact-02",
        "exact",
        "converting to major units and back produced totals one cent off",
        {
            S(PARSER, "parseMoney"): 3,
            C("inc2333_mobile_cents"): 2,
            F(PARSER_TEST): 2,
            F(ADR_CENTS): 1,
        },
        (4,),
    ),
    _q(
        "v20-exact-03",
        "exact",
        "the client never relies on that grace",
        {
            F(SESSION): 3,
            S(SESSION, "shouldRefresh"): 2,
            F(SESSION_TEST): 2,
            C("inc2390_web_refresh_margin"): 1,
        },
        (15,),
    ),
    _q(
        "v20-exact-04",
        "exact",
        "a replay that finds no record becomes a second order",
        {
            F(IDEMPOTENCY): 3,
            C("inc2472_idempotency_ttl"): 2,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 1,
        },
        (10,),
    ),
    _q(
        "v20-exact-05",
        "exact",
        "Marking it failed cancelled orders whose money had been captured",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
            S(RECONCILE, "Reconcile"): 1,
        },
        (12,),
    ),
    _q(
        "v20-exact-06",
        "exact",
        "ttl must be positive",
        {
            S(CACHE, "TTLCache.__init__"): 3,
            S(CACHE, "TTLCache"): 2,
            C("ttl_cache"): 1,
        },
    ),
    _q(
        "v20-exact-07",
        "exact",
        "RateLimiter.retry_after",
        {
            S(LIMITER, "RateLimiter.retry_after"): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            S(TEST_RATE_LIMITER, "test_retry_after_points_to_the_next_window"): 2,
        },
    ),
    _q(
        "v20-exact-08",
        "exact",
        "urllib.error.HTTPError exc.read()",
        {
            S(GATEWAY, "GatewayClient._post"): 3,
            S(GATEWAY, "_parse_body"): 2,
            S(GATEWAY, "GatewayClient"): 1,
        },
    ),
    _q(
        "v20-exact-09",
        "exact",
        "cw.Flush() then cw.Error()",
        {
            S(CSV_GO, "WriteOrdersCSV"): 3,
            S(CSV_GO_TEST, "TestWriteOrdersCSVEscapesNotes"): 2,
            S(CSV_GO, "Order"): 1,
        },
        (),
        (),
        "worker/**",
    ),
    _q(
        "v20-exact-10",
        "exact",
        "ERR_ORDER_NOT_CANCELLABLE",
        {
            S(SERVICE, "OrderService.cancel_order"): 3,
            F(ERRORS): 2,
            S(MODELS, "Order.can_cancel"): 2,
        },
    ),
    # change
    _q(
        "v20-change-01",
        "change",
        "Perf task: TTLCache.get should skip the RLock when the key is present and still fresh; "
        "the profiler shows promo lookups queueing on it at peak. Only expired entries would "
        "take the lock.",
        {
            S(CACHE, "TTLCache.get"): 3,
            C("cache_perf_revert"): 2,
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 2,
            C("cache_perf_lockfree"): 1,
        },
        (2,),
    ),
    _q(
        "v20-change-02",
        "change",
        "Task for the app: when a cached payload has total_cents as a decimal like 59.97, "
        "convert it in mobile/src/parsers/orderParser.ts rather than throwing, so old offline "
        "caches still open.",
        {
            S(PARSER, "parseMoney"): 3,
            F(PARSER_TEST): 2,
            C("inc2333_mobile_cents"): 2,
            F(ADR_CENTS): 1,
        },
        (4,),
    ),
    _q(
        "v20-change-03",
        "change",
        "The processor's own rate limiter sometimes sends us HTTP 429. Make that count as a "
        "transient failure so the charge loop backs off and tries again.",
        {
            S(GATEWAY, "classify_response"): 3,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 2,
            C("inc2188_declined_fix"): 2,
            S(RETRY, "charge_with_retry"): 1,
        },
        (7,),
    ),
    _q(
        "v20-change-04",
        "change",
        "Support wants fewer forced sign-outs. Proposal: a refresh token that was rotated "
        "already and comes back should just fail on its own; the newest token of that family "
        "keeps working.",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 2,
            C("inc2744_refresh_reuse"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 1,
        },
        (11,),
    ),
    _q(
        "v20-change-05",
        "change",
        "set proxy_read_timeout to 15s in deploy/nginx/api.conf so mobile clients stop waiting "
        "forever on a stuck checkout",
        {
            F(NGINX): 3,
            C("inc2689_nginx_timeout"): 2,
            S(SETTINGS, "Settings"): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
    ),
    _q(
        "v20-change-06",
        "change",
        "Make the retry warning in backend/payments/retry.py mention the backoff it is about to "
        "sleep and the gateway's HTTP status, so on-call sees both in one line.",
        {
            S(RETRY, "charge_with_retry"): 3,
            S(GATEWAY, "GatewayError"): 2,
            S(TEST_RETRY, "test_retries_timeouts_then_succeeds"): 1,
        },
    ),
    _q(
        "v20-change-07",
        "change",
        "Add an aud claim to the access tokens we issue, and have validation refuse a token "
        "minted for another audience (the partner API will get its own).",
        {
            S(TOKENS, "issue_token"): 3,
            S(TOKENS, "validate_token"): 2,
            S(TEST_TOKENS, "test_round_trip"): 1,
        },
    ),
    _q(
        "v20-change-08",
        "change",
        "The browser's order history wants 50 orders per screen. Give listOrders a size "
        "argument and forward it as the limit query parameter.",
        {
            S(WEB_ORDERS, "listOrders"): 3,
            S(ORDERS_API, "list_orders"): 2,
            S(WEB_ORDERS, "OrderPageDTO"): 1,
        },
    ),
    _q(
        "v20-change-09",
        "change",
        "Jobs of an unregistered kind are requeued over and over. I'd rather park them in a "
        "dead-letter state after the first failure. Which code do I edit?",
        {
            S(RUNNER, "Runner.handle"): 3,
            S(RUNNER_TEST, "TestUnknownKindIsRetried"): 2,
            S(QUEUE, "PostgresQueue.Retry"): 2,
            S(HANDLERS, "DefaultHandlers"): 1,
        },
    ),
    _q(
        "v20-change-10",
        "change",
        "Cap fixed-amount vouchers at half of the basket subtotal, so a 20-euro voucher on a "
        "30-euro basket only takes 15 off.",
        {
            S(RULES, "discount_for"): 3,
            S(TEST_PROMOTIONS, "test_fixed_discount_never_exceeds_subtotal"): 2,
            S(RULES, "Promotion"): 1,
        },
    ),
)


# --- held-out v21: written from the fixture's files, commit history and recorded failures before
# the change it evaluates, without running retrieval on it; report it, never tune on it ----------

_HELDOUT_V21: tuple[_Row, ...] = (
    # causal
    _q(
        "v21-causal-01",
        "causal",
        "New here, reading backend/api/orders.py: the page cursor packs the order id next to "
        "created_at. Isn't the timestamp alone unique enough? What went wrong without the id?",
        {
            C("inc2801_pagination"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
            F(MIGRATION_ORDERS_INDEX): 1,
        },
        (13,),
    ),
    _q(
        "v21-causal-02",
        "causal",
        "On-call question: when the gateway lookup errors during the nightly reconcile, why do we "
        "park the charge as pending instead of marking it failed and releasing the stock?",
        {
            C("inc2710_reconcile_timeout"): 3,
            S(RECONCILE, "classifyGatewayStatus"): 2,
            S(RECONCILE, "Reconcile"): 2,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 1,
        },
        (12,),
    ),
    _q(
        "v21-causal-03",
        "causal",
        "Code review on gateway.py: a 409 or a 400 from the processor comes back as "
        "GatewayDeclined, the same class as a refused card. Looks like a misnomer to me. What's "
        "the history there?",
        {
            C("inc2188_declined_fix"): 3,
            S(GATEWAY, "classify_response"): 2,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 2,
            S(RETRY, "charge_with_retry"): 1,
        },
        (7,),
    ),
    _q(
        "v21-causal-04",
        "causal",
        "The backend tolerates a token up to a minute past exp anyway. So why does the browser "
        "session refresh a full two minutes ahead of expiry? Couldn't it wait and use that minute?",
        {
            C("inc2390_web_refresh_margin"): 3,
            S(SESSION, "shouldRefresh"): 2,
            C("inc2291_clock_skew"): 2,
            S(SESSION, "ensureFresh"): 1,
            F(SESSION_TEST): 1,
        },
        (15,),
    ),
    _q(
        "v21-causal-05",
        "causal",
        "As PM I have to explain to finance why every checkout idempotency record is stored for "
        "48 hours. What happened back when we only kept them for a day?",
        {
            C("inc2472_idempotency_ttl"): 3,
            F(IDEMPOTENCY): 2,
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (10,),
    ),
    _q(
        "v21-causal-06",
        "causal",
        "Why did we pick a JWT-looking HS256 format for access tokens rather than opaque random "
        "session ids?",
        {
            C("auth_tokens"): 3,
            S(TOKENS, "issue_token"): 2,
            S(SESSION, "decodeExpiry"): 2,
            S(TOKENS, "_b64"): 1,
        },
    ),
    _q(
        "v21-causal-07",
        "causal",
        "promotion start/end timestamps without a zone are read as Stockholm local time. which "
        "incident made us stop treating them as UTC?",
        {
            C("promo_expiry_tz"): 3,
            S(RULES, "_as_shop_time"): 2,
            S(RULES, "is_active"): 2,
            S(TEST_PROMOTIONS, "test_naive_campaign_bounds_are_shop_local_time"): 1,
        },
    ),
    _q(
        "v21-causal-08",
        "causal",
        "what prompted the hit/miss counters and stats() on the TTL cache",
        {
            C("cache_stats"): 3,
            S(CACHE, "TTLCache.stats"): 2,
            S(TEST_CACHE, "test_stats_count_hits_and_misses"): 1,
        },
    ),
    _q(
        "v21-causal-09",
        "causal",
        "Someone on the data team asked who needed the currency, subtotal and discount columns in "
        "the finance export, and why the Go file has them too. Where did that come from?",
        {
            C("export_columns"): 3,
            S(CSV_PY, "order_row"): 2,
            S(CSV_GO, "WriteOrdersCSV"): 2,
            S(TEST_CSV_PY, "test_header_and_row"): 1,
        },
    ),
    _q(
        "v21-causal-10",
        "causal",
        "Reviewer here: /auth/refresh hands out a new refresh token on every call and retires the "
        "old one. What was the original motivation for rotating them instead of one long-lived "
        "token per device?",
        {
            C("refresh_tokens"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            S(SESSION, "refreshNow"): 2,
            F(MIGRATION_REFRESH): 1,
        },
    ),
    # behavioral
    _q(
        "v21-behavioral-01",
        "behavioral",
        "A signed-in user fires 20 POST /orders in the final ten seconds of one minute and 5 more "
        "two seconds after the minute rolls over. Does the limiter let any of those 5 through?",
        {
            S(LIMITER, "RateLimiter.allow"): 3,
            S(LIMITER, "RateLimiter._estimate"): 2,
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 2,
            C("inc2458_sliding_window"): 1,
        },
        (3,),
    ),
    _q(
        "v21-behavioral-02",
        "behavioral",
        "validate_token when the server's clock says the token expired 40 s ago: rejected with "
        "ERR_TOKEN_EXPIRED, or still accepted?",
        {
            S(TOKENS, "validate_token"): 3,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 2,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_expired_token_is_rejected"): 1,
        },
        (1,),
    ),
    _q(
        "v21-behavioral-03",
        "behavioral",
        "Is it safe for several request threads to call get() on the promo TTLCache while another "
        "thread is inserting and evicting? What protects move_to_end there?",
        {
            S(CACHE, "TTLCache.get"): 3,
            S(TEST_CACHE, "test_concurrent_get_and_eviction_do_not_raise"): 2,
            C("cache_race_test"): 2,
            C("cache_perf_revert"): 1,
        },
        (2,),
    ),
    _q(
        "v21-behavioral-04",
        "behavioral",
        "Go nightly export: what does a delivery note like '-ring twice, dog bites' look like "
        "once it is written into the CSV cell?",
        {
            S(CSV_GO, "escapeCell"): 3,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            S(CSV_GO, "WriteOrdersCSV"): 2,
            C("inc2602_csv_injection"): 1,
        },
        (17,),
        (),
        "worker/**",
    ),
    _q(
        "v21-behavioral-05",
        "behavioral",
        "Scenario: an attacker uses a stolen refresh token first, then the victim's app sends the "
        "old one it still holds. What happens to each of them, and which error codes come back?",
        {
            S(REFRESH, "rotate_refresh_token"): 3,
            S(TEST_REFRESH, "test_reuse_revokes_the_whole_family"): 2,
            C("inc2744_refresh_reuse"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 1,
        },
        (11,),
    ),
    _q(
        "v21-behavioral-06",
        "behavioral",
        "With no policy argument, what is the backoff schedule for a charge that keeps hitting "
        "503s: each pause in seconds, and when does it give up?",
        {
            S(RETRY, "RetryPolicy.delays"): 3,
            S(RETRY, "charge_with_retry"): 2,
            S(RETRY, "RetryPolicy"): 2,
            S(GATEWAY, "classify_response"): 1,
        },
    ),
    _q(
        "v21-behavioral-07",
        "behavioral",
        "session.ts decodeExpiry: how does it get a timestamp out of an access token? Does it "
        "cope with base64url '-' and '_', and is the result seconds or milliseconds?",
        {
            S(SESSION, "decodeExpiry"): 3,
            S(SESSION, "startSession"): 2,
            S(SESSION, "Session"): 1,
        },
    ),
    _q(
        "v21-behavioral-08",
        "behavioral",
        "web client listOrders on the last page, when the API leaves out next_cursor: what "
        "nextCursor does the caller get?",
        {
            S(WEB_ORDERS, "listOrders"): 3,
            S(WEB_ORDERS, "OrderPageDTO"): 2,
            S(ORDERS_API, "list_orders"): 1,
        },
    ),
    _q(
        "v21-behavioral-09",
        "behavioral",
        "What does Runner.Run in the Go worker do when Fetch errors, or when the queue is empty? "
        "Exit, spin, or back off?",
        {
            S(RUNNER, "Runner.Run"): 3,
            S(QUEUE, "PostgresQueue.Fetch"): 2,
            S(WORKER_MAIN, "main"): 1,
        },
    ),
    _q(
        "v21-behavioral-10",
        "behavioral",
        "IdempotencyStore.lookup gets a key we have seen before but a different request "
        "fingerprint. What does the caller get back?",
        {
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 3,
            S(TEST_IDEMPOTENCY, "test_same_key_different_body_is_rejected"): 2,
            S(IDEMPOTENCY, "request_fingerprint"): 2,
            C("idempotency_store"): 1,
        },
    ),
    # symptom
    _q(
        "v21-symptom-01",
        "symptom",
        "SRE: since this morning's deploy, p99 of POST /orders sits at exactly 10.0 s and every "
        "one of those requests ends in a 504 from the proxy, not the API. Several of those "
        "shoppers now have two orders.",
        {
            F(NGINX): 3,
            C("inc2689_nginx_timeout"): 2,
            S(SETTINGS, "Settings"): 2,
            S(RETRY, "RetryPolicy"): 1,
        },
        (14,),
    ),
    _q(
        "v21-symptom-02",
        "symptom",
        "Incident: checkout returned 500 ERR_DB_POOL_EXHAUSTED for twenty minutes right when the "
        "month-end export jobs kicked off. API pods look healthy, worker pods are busy.",
        {
            S(RUNNER, "Runner.processBatch"): 3,
            C("worker_perf_revert"): 2,
            F(K8S_WORKER): 2,
            C("worker_inflight_comment"): 1,
        },
        (6,),
    ),
    _q(
        "v21-symptom-03",
        "symptom",
        "Crash report, Android 3.14: OrderParseError [ERR_PARSE_AMOUNT] total_cents=24.5 thrown "
        "when the customer opens an order the app saved offline months ago.",
        {
            S(PARSER, "parseMoney"): 3,
            C("inc2333_mobile_cents"): 2,
            F(PARSER_TEST): 2,
            F(ADR_CENTS): 1,
        },
        (4,),
    ),
    _q(
        "v21-symptom-04",
        "symptom",
        "Reconciliation flagged ERR_PAYMENT_DUPLICATE on about 40 orders from yesterday's "
        "slow-gateway window, and each pair of captures carries a different Idempotency-Key. "
        "Where do those keys come from?",
        {
            S(RETRY, "charge_with_retry"): 3,
            C("inc2407_idempotency_retry"): 2,
            F(RUNBOOK): 2,
            F(ADR_IDEMPOTENCY): 1,
        },
        (0, 16),
    ),
    _q(
        "v21-symptom-05",
        "symptom",
        "Support ticket: a wholesale buyer pulled her whole order history page by page through "
        "the API and came up two invoices short. Both missing ones came from the same bulk import "
        "as the last row of a page.",
        {
            S(ORDERS_API, "list_orders"): 3,
            S(ORDERS_API, "encode_cursor"): 2,
            C("inc2801_pagination"): 2,
            S(REPOSITORY, "OrderRepository.list_before"): 2,
            F(MIGRATION_ORDERS_INDEX): 1,
        },
        (13,),
    ),
    _q(
        "v21-symptom-06",
        "symptom",
        "I put RATE_LIMIT_PER_MINUTE=200 in my .env for the staging load test, but the staging API "
        "pods still answer 429 after roughly twenty checkouts a minute.",
        {
            F(K8S_API): 3,
            S(SETTINGS, "get_settings"): 2,
            C("settings_rate_limits"): 2,
            S(MIDDLEWARE, "rate_limit_middleware"): 1,
        },
    ),
    _q(
        "v21-symptom-07",
        "symptom",
        "partner dashboard calls GET /orders?limit=250 and gets a 422 back instead of orders",
        {
            S(ORDERS_API, "list_orders"): 3,
            C("orders_pagination"): 2,
            S(WEB_ORDERS, "listOrders"): 1,
        },
    ),
    _q(
        "v21-symptom-08",
        "symptom",
        "Sentry breadcrumb shows the card gateway's error body as {'raw': '<html><body>Bad "
        "Gateway...'} rather than the usual JSON. Where is that dict built?",
        {
            S(GATEWAY, "_parse_body"): 3,
            S(GATEWAY, "GatewayClient._post"): 2,
            S(GATEWAY, "classify_response"): 1,
        },
    ),
    _q(
        "v21-symptom-09",
        "symptom",
        "Overnight reconcile labelled ord_7f2 as mismatch: we recorded 1250 cents, the gateway "
        "says 1249.",
        {
            S(RECONCILE, "classifyGatewayStatus"): 3,
            S(RECONCILE_TEST, "TestSettledAndMismatch"): 2,
            C("worker_reconcile"): 1,
        },
        (),
        (),
        "worker/**",
    ),
    _q(
        "v21-symptom-10",
        "symptom",
        "Accounting's matching script breaks because created_at reads 2025-07-01T08:00:00Z in the "
        "SFTP file but 2025-07-01T08:00:00+00:00 in the admin download.",
        {
            S(CSV_GO, "WriteOrdersCSV"): 3,
            S(CSV_PY, "order_row"): 2,
            C("csv_export"): 1,
            C("export_columns"): 1,
        },
    ),
    # coupled
    _q(
        "v21-coupled-01",
        "coupled",
        "Want the browser to refresh only 45 s before exp so /auth/refresh drops off the top of "
        "the traffic chart. Before touching session.ts: which backend files have shipped in the "
        "same commits as it?",
        {
            F(TOKENS): 3,
            C("access_ttl_15m"): 2,
            C("inc2291_clock_skew"): 2,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 1,
            F(REFRESH): 1,
            F(SESSION_TEST): 1,
        },
        (15,),
        (TOKENS, TEST_TOKENS),
    ),
    _q(
        "v21-coupled-02",
        "coupled",
        "Agent plan: bring RECORD_TTL down to 12 h to keep idempotency_keys small. Before editing "
        "backend/payments/idempotency.py, what has changed with it in past commits?",
        {
            S(OFFLINE, "MAX_REPLAY_AGE_MS"): 3,
            S(TEST_IDEMPOTENCY, "test_default_ttl_outlives_offline_replays"): 2,
            C("inc2472_idempotency_ttl"): 2,
            F(MIGRATION_IDEMPOTENCY): 1,
        },
        (10,),
        (OFFLINE, TEST_IDEMPOTENCY, MIGRATION_IDEMPOTENCY),
    ),
    _q(
        "v21-coupled-03",
        "coupled",
        "marketing wants two percentage codes on one basket again. if backend/promotions/rules.py "
        "changes for that, which files normally ship in the same commit?",
        {
            S(BANNER, "stackingNotice"): 3,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
            C("inc2655_promo_stacking"): 2,
            S(BANNER, "renderPromoBanner"): 1,
        },
        (8,),
        (BANNER, TEST_PROMOTIONS),
    ),
    _q(
        "v21-coupled-04",
        "coupled",
        "I'd like reconciliation to fail closed when a lookup times out. Which files outside the "
        "Go worker have shared a commit with reconcile.go?",
        {
            S(GATEWAY, "GatewayTimeout"): 3,
            S(RECONCILE_TEST, "TestTimeoutStaysPending"): 2,
            C("inc2710_reconcile_timeout"): 2,
            S(RECONCILE, "classifyGatewayStatus"): 1,
        },
        (12,),
        (GATEWAY, RECONCILE_TEST),
    ),
    _q(
        "v21-coupled-05",
        "coupled",
        "thinking of going back to plain fixed one-minute counters in backend/core/rate_limiter.py, "
        "easier to explain to support. what usually changes alongside it?",
        {
            S(TEST_RATE_LIMITER, "test_burst_across_the_window_edge_is_limited"): 3,
            S(MIDDLEWARE, "rate_limit_middleware"): 2,
            C("inc2458_sliding_window"): 2,
            S(LIMITER, "RateLimiter._estimate"): 1,
        },
        (3,),
        (TEST_RATE_LIMITER, MIDDLEWARE),
    ),
    _q(
        "v21-coupled-06",
        "coupled",
        "Accounting wants negative amounts typed into notes left unquoted in the Go nightly "
        "export (csv.go). When its escaping last changed, what else went into that commit?",
        {
            S(CSV_PY, "escape_cell"): 3,
            S(CSV_GO_TEST, "TestEscapeCellQuotesFormulaPrefixes"): 2,
            C("inc2602_csv_injection"): 2,
            S(TEST_CSV_PY, "test_formula_prefixes_are_quoted"): 2,
            C("export_columns"): 1,
        },
        (9, 17),
        (CSV_PY, CSV_GO_TEST, TEST_CSV_PY),
    ),
    _q(
        "v21-coupled-07",
        "coupled",
        "Fraud review needs an on_hold order status. Last time a status was added "
        "(partially_refunded), which files beyond backend/api/schemas.py went into that commit?",
        {
            S(PARSER, "parseStatus"): 3,
            S(MOBILE_MODELS, "OrderStatus"): 2,
            S(WEB_ORDERS, "OrderStatus"): 2,
            C("refunds_partial"): 2,
            S(ORDER_SCREEN, "statusLabel"): 1,
        },
        (),
        (PARSER, MOBILE_MODELS, WEB_ORDERS),
    ),
    _q(
        "v21-coupled-08",
        "coupled",
        "Adding a per-kind timeout around each handler call in Runner.handle. What tends to be "
        "touched in the same commits as runner.go in the worker?",
        {
            S(WORKER_MAIN, "main"): 3,
            F(RUNNER_TEST): 3,
            S(JOB_METRICS, "Metrics.Observe"): 2,
            C("worker_shutdown"): 1,
            C("worker_metrics"): 1,
        },
        (),
        (WORKER_MAIN, RUNNER_TEST, JOB_METRICS),
    ),
    _q(
        "v21-coupled-09",
        "coupled",
        "Ops asks for an nginx limit_req on /auth/refresh like the one on login. Going by git "
        "history, what else ships when deploy/nginx/api.conf is edited?",
        {
            S(SETTINGS, "Settings"): 3,
            C("inc2689_nginx_timeout"): 2,
            C("nginx_config"): 1,
            S(MIDDLEWARE, "rate_limit_middleware"): 1,
        },
        (),
        (SETTINGS,),
    ),
    _q(
        "v21-coupled-10",
        "coupled",
        "Going to add an iss claim to the tokens issue_token mints. Besides backend/auth/tokens.py, "
        "which files have past commits usually touched at the same time?",
        {
            F(TEST_TOKENS): 3,
            F(SESSION): 2,
            C("access_ttl_15m"): 1,
            F(ERRORS): 1,
            F(PASSWORDS): 1,
        },
        (),
        (TEST_TOKENS, SESSION),
    ),
    # exact
    _q(
        "v21-exact-01",
        "exact",
        'pressed "Pay" again and ended up with two orders',
        {
            C("inc2689_nginx_timeout"): 3,
            F(NGINX): 2,
            S(SETTINGS, "Settings"): 1,
        },
        (14,),
    ),
    _q(
        "v21-exact-02",
        "exact",
        "refresh token reuse detection, OAuth 2.0 Security BCP",
        {
            C("inc2744_refresh_reuse"): 3,
            S(REFRESH, "rotate_refresh_token"): 2,
            F(MIGRATION_REVOCATIONS): 1,
        },
        (11,),
    ),
    _q(
        "v21-exact-03",
        "exact",
        "Safeguards that look redundant but are not",
        {
            F(RUNBOOK): 3,
            C("docs_runbook_update"): 2,
            S(RETRY, "charge_with_retry"): 1,
            F(NGINX): 1,
        },
        (0, 10, 12, 14, 16),
    ),
    _q(
        "v21-exact-04",
        "exact",
        "Every handler holds a database connection",
        {
            C("worker_perf_revert"): 3,
            S(RUNNER, "Runner"): 2,
            C("worker_inflight_comment"): 2,
            F(K8S_WORKER): 1,
        },
        (6,),
    ),
    _q(
        "v21-exact-05",
        "exact",
        "an unlocked read can return an entry that invalidate() has just removed",
        {
            C("cache_perf_revert"): 3,
            S(CACHE, "TTLCache.get"): 2,
            C("cache_perf_lockfree"): 1,
            S(CACHE, "TTLCache.invalidate"): 1,
        },
        (2,),
    ),
    _q(
        "v21-exact-06",
        "exact",
        "key reused with a different body",
        {
            S(IDEMPOTENCY, "IdempotencyStore.lookup"): 3,
            S(TEST_IDEMPOTENCY, "test_same_key_different_body_is_rejected"): 2,
            C("idempotency_store"): 1,
        },
    ),
    _q(
        "v21-exact-07",
        "exact",
        'csv.writer(out, lineterminator="\\n")',
        {
            S(CSV_PY, "export_orders_csv"): 3,
            S(CSV_PY, "export_promotions_csv"): 2,
        },
    ),
    _q(
        "v21-exact-08",
        "exact",
        "ERR_PARSE_ORDER",
        {
            S(PARSER, "parseOrder"): 3,
            S(PARSER, "OrderParseError"): 2,
        },
        (),
        (),
        "mobile/**",
    ),
    _q(
        "v21-exact-09",
        "exact",
        '[...]string{"settled", "pending", "failed", "mismatch"}',
        {
            S(RECONCILE, "Outcome.String"): 3,
            S(RECONCILE, "Outcome"): 2,
        },
        (),
        (),
        "worker/**",
    ),
    _q(
        "v21-exact-10",
        "exact",
        "encodeURIComponent(id)",
        {
            S(WEB_ORDERS, "fetchOrder"): 3,
            S(MOBILE_API, "fetchOrder"): 2,
            S(WEB_ORDERS, "listOrders"): 1,
        },
    ),
    # change
    _q(
        "v21-change-01",
        "change",
        "Make the charge path retry 409 Conflict answers from the card processor; their docs say "
        "a 409 clears after a second or so.",
        {
            S(GATEWAY, "classify_response"): 3,
            S(RETRY, "charge_with_retry"): 2,
            S(TEST_GATEWAY, "test_other_client_errors_are_not_retried"): 2,
            C("inc2188_declined_fix"): 1,
        },
        (7,),
    ),
    _q(
        "v21-change-02",
        "change",
        "Pen-test finding: validate_token still honours a token sixty seconds past its exp. Make "
        "expiry strict, rejecting the moment exp passes, and do the same for nbf.",
        {
            S(TOKENS, "validate_token"): 3,
            S(TEST_TOKENS, "test_clock_skew_grace_after_expiry"): 2,
            C("inc2291_clock_skew"): 2,
            S(SESSION, "CLOCK_SKEW_MS"): 1,
        },
        (1,),
    ),
    _q(
        "v21-change-03",
        "change",
        'A legacy endpoint still sends money as strings like "12.50". Teach the app\'s parseMoney '
        "to accept those and turn them into 1250 cents.",
        {
            S(PARSER, "parseMoney"): 3,
            F(PARSER_TEST): 2,
            C("inc2333_mobile_cents"): 2,
            F(ADR_CENTS): 1,
        },
        (4,),
    ),
    _q(
        "v21-change-04",
        "change",
        "web cleanup: shoppers on this storefront pay in euros, so delete currency from OrderDTO "
        "and parseOrderResponse and format every amount as EUR.",
        {
            S(WEB_ORDERS, "OrderDTO"): 3,
            S(ORDER_SUMMARY, "OrderSummary"): 2,
            S(WEB_ORDERS, "orderTotalLabel"): 2,
            C("currency_support"): 1,
        },
        (5,),
    ),
    _q(
        "v21-change-05",
        "change",
        "Let WELCOME10 combine with whatever seasonal percentage code is live; marketing signed "
        "off. Update the promotion logic accordingly.",
        {
            S(RULES, "apply_promotions"): 3,
            S(TEST_PROMOTIONS, "test_percentage_codes_do_not_stack"): 2,
            C("inc2655_promo_stacking"): 2,
            S(BANNER, "stackingNotice"): 1,
        },
        (8,),
    ),
    _q(
        "v21-change-06",
        "change",
        "charge_with_retry never passes the order's currency, so GatewayClient.charge falls back "
        "to EUR for Swedish and US orders. Thread the currency through from the order service.",
        {
            S(RETRY, "charge_with_retry"): 3,
            S(GATEWAY, "GatewayClient.charge"): 2,
            S(SERVICE, "OrderService._charge"): 2,
            C("currency_support"): 1,
        },
    ),
    _q(
        "v21-change-07",
        "change",
        "Add TTLCache.invalidate_prefix(prefix) so marketing can flush every cached code of a "
        "campaign at once.",
        {
            S(CACHE, "TTLCache"): 3,
            S(CACHE, "TTLCache.invalidate"): 2,
            S(CACHE, "TTLCache.clear"): 1,
            S(CODES, "lookup_code"): 1,
        },
    ),
    _q(
        "v21-change-08",
        "change",
        "When endSession runs in the web app, also POST /auth/logout so the server revokes the "
        "refresh token.",
        {
            S(SESSION, "endSession"): 3,
            S(WEB_CLIENT, "apiPost"): 2,
            S(REFRESH, "RefreshTokenStore.revoke_family"): 1,
        },
    ),
    _q(
        "v21-change-09",
        "change",
        "Reconcile returns on the first MarkOutcome error and leaves the rest for the next night. "
        "Make it carry on and report every error at the end.",
        {
            S(RECONCILE, "Reconcile"): 3,
            S(RECONCILE, "Store"): 2,
            S(RECONCILE_TEST, "TestSettledAndMismatch"): 1,
        },
        (),
        (),
        "worker/**",
    ),
    _q(
        "v21-change-10",
        "change",
        "Finance wants the promo code as its own column, in both the admin CSV and the nightly Go "
        "export.",
        {
            S(CSV_PY, "order_row"): 3,
            S(CSV_GO, "WriteOrdersCSV"): 3,
            S(TEST_CSV_PY, "test_header_and_row"): 2,
            C("export_columns"): 1,
            S(CSV_PY, "escape_cell"): 1,
        },
    ),
)


_ROWS: Mapping[str, tuple[_Row, ...]] = {
    "dev": _DEV,
    "heldout_v1": _HELDOUT_V1,
    "heldout_v2": _HELDOUT_V2,
    "heldout_v3": _HELDOUT_V3,
    "heldout_v4": _HELDOUT_V4,
    "heldout_v5": _HELDOUT_V5,
    "heldout_v6": _HELDOUT_V6,
    "heldout_v7": _HELDOUT_V7,
    "heldout_v8": _HELDOUT_V8,
    "heldout_v9": _HELDOUT_V9,
    "heldout_v10": _HELDOUT_V10,
    "heldout_v11": _HELDOUT_V11,
    "heldout_v12": _HELDOUT_V12,
    "heldout_v13": _HELDOUT_V13,
    "heldout_v14": _HELDOUT_V14,
    "heldout_v15": _HELDOUT_V15,
    "heldout_v16": _HELDOUT_V16,
    "heldout_v17": _HELDOUT_V17,
    "heldout_v18": _HELDOUT_V18,
    "heldout_v19": _HELDOUT_V19,
    "heldout_v20": _HELDOUT_V20,
    "heldout_v21": _HELDOUT_V21,
}


def queries(split: str) -> list[Query]:
    """The queries of one split, in a stable order."""
    if split not in _ROWS:
        raise InputError(f"unknown split {split!r}; known splits: {', '.join(SPLITS)}")
    return [
        Query(
            id=qid,
            split=split,
            query_class=cls,
            text=text,
            relevant=tuple(Relevance(target=t, grade=g) for t, g in relevant.items()),
            expected_warnings=warn,
            coupled_files=coupled,
            file_filter=file_filter,
        )
        for qid, cls, text, relevant, warn, coupled, file_filter in _ROWS[split]
    ]


def to_json(items: Sequence[Query], commits: Mapping[str, str] | None = None) -> list[dict]:
    """JSON-ready dicts; with `commits` (name -> sha) commit targets also carry their SHA."""
    out = []
    for query in items:
        data = query.model_dump(by_alias=True, mode="json")
        if commits is not None:
            for rel in data["relevant"]:
                if rel["target"].startswith("commit:"):
                    rel["sha"] = commits[rel["target"].split(":", 1)[1]]
        out.append(data)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gitstrata.benchmarks.dataset", description="Print benchmark queries."
    )
    parser.add_argument("--split", default="dev", choices=SPLITS)
    parser.add_argument("--json", action="store_true", help="print the queries as JSON")
    parser.add_argument(
        "--fixture", type=Path, help="a built fixture repository: also resolve commit names to SHAs"
    )
    args = parser.parse_args(argv)
    try:
        items = queries(args.split)
        commits = None
        if args.fixture is not None:
            from .fixture import load_fixture

            commits = load_fixture(args.fixture).commits
    except GitstrataError as exc:
        hint = f" ({exc.hint})" if exc.hint else ""
        print(f"error: {exc}{hint}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(to_json(items, commits), indent=2, ensure_ascii=False))
        return 0
    for query in items:
        print(f"{query.id:<20} {query.query_class:<10} {query.text}")
        for rel in query.relevant:
            sha = ""
            if commits is not None and rel.commit_name is not None:
                sha = f"  {commits[rel.commit_name][:10]}"
            print(f"{'':<20} {rel.grade}  {rel.target}{sha}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
