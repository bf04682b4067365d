"""Failed agent attempts recorded against the benchmark fixture, as data.

Each record is what an agent session hands to `record_failure`: the file and symbol it changed,
the unified diff it tried, the command that failed and its output, its notes, and when.

Invariants:
- Record order is stable: query datasets refer to failures by their index in this list.
- Every diff is generated from the fixture's HEAD text (`fixture.head_files`), so
  `git apply --check` accepts it on a freshly built fixture.
- Record 16 repeats record 0 (same diff, different timings and addresses), as a second session
  trying the same idea would; a deduplicating store counts it as a second occurrence.
- `failure_records()` returns fresh dicts; callers may mutate them. Their keys (`FAILURE_KEYS`)
  are fields of `store.attempts.Attempt`, so `Strata.record_failure(**record)` takes them as is.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache

from ..serve.api import API_LIMITS
from ..store.attempts import Attempt
from .fixture import FixtureError, head_files

__all__ = ["FAILURE_KEYS", "failure_records"]

FAILURE_KEYS = (
    "file_path",
    "symbol_name",
    "attempted_diff",
    "error_trace",
    "notes",
    "command",
    "recorded_at",
)


@dataclass(frozen=True)
class _Attempt:
    file_path: str
    symbol_name: str | None
    edits: tuple[tuple[str, str], ...]
    error_trace: str
    notes: str
    command: str
    recorded_at: str


def _diff(path: str, edits: tuple[tuple[str, str], ...]) -> str:
    before = head_files()[path]
    after = before
    for old, new in edits:
        if after.count(old) != 1:
            raise FixtureError(f"failure diff for {path}: edit does not match HEAD: {old[:60]!r}")
        after = after.replace(old, new)
    body = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        f"a/{path}",
        f"b/{path}",
        n=3,
    )
    return f"diff --git a/{path} b/{path}\n" + "".join(body)


_TRACE_RETRY = """\
.F..                                                                     [100%]
=================================== FAILURES ===================================
______________________ test_retry_does_not_double_charge _______________________

    def test_retry_does_not_double_charge():
        # The first attempt is captured by the gateway but its answer times out (INC-2407).
        gateway = FakeGateway([GatewayTimeout("ERR_GATEWAY_TIMEOUT")], capture_before_failing=True)
        charge_with_retry(gateway, "ord_2", 4500, sleep=no_sleep)
>       assert len(gateway.captured) == 1, (
            f"expected exactly 1 charge, gateway recorded {len(gateway.captured)} (ERR_PAYMENT_DUPLICATE)"
        )
E       AssertionError: expected exactly 1 charge, gateway recorded 2 (ERR_PAYMENT_DUPLICATE)
E       assert 2 == 1
E        +  where 2 = len({'ecfbee33-cf25-416b-ad5e-9b7d3fa6ff2e': 4500, '8b2df250-b111-42ab-bc66-26848b6dce62': 4500})
E        +    where {'ecfbee33-cf25-416b-ad5e-9b7d3fa6ff2e': 4500, '8b2df250-b111-42ab-bc66-26848b6dce62': 4500} = <test_retry.FakeGateway object at 0x7fa4b3ad9150>.captured

tests/backend/test_retry.py:49: AssertionError
------------------------------ Captured log call -------------------------------
WARNING  backend.payments.retry:retry.py:65 charge attempt 1 for ord_2 failed: ERR_GATEWAY_TIMEOUT
=========================== short test summary info ============================
FAILED tests/backend/test_retry.py::test_retry_does_not_double_charge - Asser...
1 failed, 3 passed in 2.11s
"""


_TRACE_TOKENS = """\
...FF                                                                    [100%]
=================================== FAILURES ===================================
______________________ test_clock_skew_grace_after_expiry ______________________

    def test_clock_skew_grace_after_expiry():
        token = issue_token("user_1", SECRET, now=1000, ttl=60)
>       assert validate_token(token, SECRET, now=1000 + 60 + CLOCK_SKEW_SECONDS)["sub"] == "user_1"
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

tests/backend/test_tokens.py:33:\x20
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\x20

token = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyXzEiLCJpYXQiOjEwMDAsIm5iZiI6MTAwMCwiZXhwIjoxMDYwLCJzY29wZSI6IiJ9.OsGfk12Cpa_6QF4iWOyJgkMoKSOxEWQlEnlP-VUSzOw'
secret = 'test-secret', now = 1120

    def validate_token(token: str, secret: str, *, now: float | None = None) -> dict:
        \"\"\"The token's claims if its signature and time window are valid, else TokenError.\"\"\"
        try:
            header, payload, signature = token.split(".")
        except ValueError:
            raise TokenError("ERR_TOKEN_MALFORMED") from None
        if not hmac.compare_digest(signature, _sign(f"{header}.{payload}", secret)):
            raise TokenError("ERR_TOKEN_SIGNATURE")
        claims = json.loads(_unb64(payload))
        current = time.time() if now is None else now
        # Clocks disagree by tens of seconds between pods and phones; without this grace users
        # were signed out mid-checkout (INC-2291).
        if claims["exp"] < current:
>           raise TokenError("ERR_TOKEN_EXPIRED")
E           backend.auth.tokens.TokenError: ERR_TOKEN_EXPIRED

backend/auth/tokens.py:78: TokenError
_____________ test_token_from_a_pod_with_a_fast_clock_is_accepted ______________

    def test_token_from_a_pod_with_a_fast_clock_is_accepted():
        token = issue_token("user_1", SECRET, now=1030)
>       assert validate_token(token, SECRET, now=1000)["sub"] == "user_1"
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

tests/backend/test_tokens.py:38:\x20
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\x20

token = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyXzEiLCJpYXQiOjEwMzAsIm5iZiI6MTAzMCwiZXhwIjoxOTMwLCJzY29wZSI6IiJ9.FMgErSnrTpDjXk0JY4NwUUUC1mKuBqZICZcfGDge6kM'
secret = 'test-secret', now = 1000

    def validate_token(token: str, secret: str, *, now: float | None = None) -> dict:
        \"\"\"The token's claims if its signature and time window are valid, else TokenError.\"\"\"
        try:
            header, payload, signature = token.split(".")
        except ValueError:
            raise TokenError("ERR_TOKEN_MALFORMED") from None
        if not hmac.compare_digest(signature, _sign(f"{header}.{payload}", secret)):
            raise TokenError("ERR_TOKEN_SIGNATURE")
        claims = json.loads(_unb64(payload))
        current = time.time() if now is None else now
        # Clocks disagree by tens of seconds between pods and phones; without this grace users
        # were signed out mid-checkout (INC-2291).
        if claims["exp"] < current:
            raise TokenError("ERR_TOKEN_EXPIRED")
        if claims.get("nbf", 0) > current:
>           raise TokenError("ERR_TOKEN_NOT_YET_VALID")
E           backend.auth.tokens.TokenError: ERR_TOKEN_NOT_YET_VALID

backend/auth/tokens.py:80: TokenError
=========================== short test summary info ============================
FAILED tests/backend/test_tokens.py::test_clock_skew_grace_after_expiry - bac...
FAILED tests/backend/test_tokens.py::test_token_from_a_pod_with_a_fast_clock_is_accepted
2 failed, 3 passed in 2.05s
"""


_TRACE_CACHE = """\
.......................F
=================================== FAILURES ===================================
____________ test_concurrent_get_and_eviction_do_not_raise[6-20] _____________

    def test_concurrent_get_and_eviction_do_not_raise():
        # INC-2519: an unlocked get() raced with set() evicting the same key (KeyError from
        # move_to_end). Hammer both from several threads.
        cache = TTLCache(ttl=60, maxsize=8)
        errors = []
\x20\x20\x20\x20
        def reader():
            try:
                for i in range(20_000):
                    cache.get(i % 16)
            except KeyError as exc:
                errors.append(exc)
\x20\x20\x20\x20
        def writer():
            for i in range(20_000):
                cache.set(i % 16, i)
\x20\x20\x20\x20
        threads = [threading.Thread(target=reader) for _ in range(4)]
        threads.append(threading.Thread(target=writer))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
>       assert errors == []
E       assert [KeyError(13)] == []
E\x20\x20\x20\x20\x20\x20\x20\x20\x20
E         Left contains one more item: KeyError(13)
E         Use -v to get more diff

tests/backend/test_cache.py:50: AssertionError
=========================== short test summary info ============================
FAILED tests/backend/test_cache.py::test_concurrent_get_and_eviction_do_not_raise[6-20]
!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!
1 failed, 23 passed in 9.84s
"""


_TRACE_RATE_LIMIT = """\
..F..                                                                    [100%]
=================================== FAILURES ===================================
_________________ test_burst_across_the_window_edge_is_limited _________________

clock = <conftest.FrozenClock object at 0x7fadc5af20d0>

    def test_burst_across_the_window_edge_is_limited(clock):
        # INC-2458: 20 requests at hh:mm:59 and 20 more at hh:mm+1:00 all passed.
        limiter = RateLimiter(limit=20, window=60, clock=clock)
        clock.now = 60 * 1000 + 59.0
        assert all(limiter.allow("ip:1") for _ in range(20))
        clock.advance(1.0)
>       assert sum(limiter.allow("ip:1") for _ in range(20)) == 0
E       assert 20 == 0
E        +  where 20 = sum(<generator object test_burst_across_the_window_edge_is_limited.<locals>.<genexpr> at 0x7fadc5bb65e0>)

tests/backend/test_rate_limiter.py:23: AssertionError
=========================== short test summary info ============================
FAILED tests/backend/test_rate_limiter.py::test_burst_across_the_window_edge_is_limited
1 failed, 4 passed in 2.28s
"""


_TRACE_GATEWAY = """\
......F....                                                              [100%]
=================================== FAILURES ===================================
___________________ test_other_client_errors_are_not_retried ___________________

    def test_other_client_errors_are_not_retried():
>       assert isinstance(classify_response(400, {}), GatewayDeclined)
E       AssertionError: assert False
E        +  where False = isinstance(GatewayError('ERR_GATEWAY_REJECTED'), GatewayDeclined)
E        +    where GatewayError('ERR_GATEWAY_REJECTED') = classify_response(400, {})

tests/backend/test_gateway.py:26: AssertionError
=========================== short test summary info ============================
FAILED tests/backend/test_gateway.py::test_other_client_errors_are_not_retried
1 failed, 10 passed in 2.38s
"""


_TRACE_PROMOTIONS = """\
..F......                                                                [100%]
=================================== FAILURES ===================================
______________________ test_percentage_codes_do_not_stack ______________________

    def test_percentage_codes_do_not_stack():
        # INC-2655: SUMMER20 + WELCOME15 gave 35% off.
        promos = [Promotion("SUMMER20", "percent", 20), Promotion("WELCOME15", "percent", 15)]
        applied = apply_promotions(promos, subtotal_cents=10_000, shipping_cents=0, now=NOW)
>       assert applied.codes == ("SUMMER20",), "ERR_PROMO_STACKING: percentage codes were combined"
E       AssertionError: ERR_PROMO_STACKING: percentage codes were combined
E       assert ('SUMMER20', 'WELCOME15') == ('SUMMER20',)
E\x20\x20\x20\x20\x20\x20\x20\x20\x20
E         Left contains one more item: 'WELCOME15'
E         Use -v to get more diff

tests/backend/test_promotions.py:28: AssertionError
=========================== short test summary info ============================
FAILED tests/backend/test_promotions.py::test_percentage_codes_do_not_stack
1 failed, 8 passed in 1.79s
"""


_TRACE_CSV = """\
..FFFFFF.                                                                [100%]
=================================== FAILURES ===================================
_____________________ test_formula_prefixes_are_quoted[+] ______________________

prefix = '+'

    @pytest.mark.parametrize("prefix", ["=", "+", "-", "@", "\\t", "\\r"])
    def test_formula_prefixes_are_quoted(prefix):
>       assert escape_cell(prefix + "SUM(A1:A9)") == "'" + prefix + "SUM(A1:A9)"
E       assert '+SUM(A1:A9)' == "'+SUM(A1:A9)"
E\x20\x20\x20\x20\x20\x20\x20\x20\x20
E         - '+SUM(A1:A9)
E         ? -
E         + +SUM(A1:A9)

tests/backend/test_csv_export.py:35: AssertionError
_____________________ test_formula_prefixes_are_quoted[-] ______________________

prefix = '-'

    @pytest.mark.parametrize("prefix", ["=", "+", "-", "@", "\\t", "\\r"])
    def test_formula_prefixes_are_quoted(prefix):
>       assert escape_cell(prefix + "SUM(A1:A9)") == "'" + prefix + "SUM(A1:A9)"
E       assert '-SUM(A1:A9)' == "'-SUM(A1:A9)"
E\x20\x20\x20\x20\x20\x20\x20\x20\x20
E         - '-SUM(A1:A9)
E         ? -
E         + -SUM(A1:A9)

tests/backend/test_csv_export.py:35: AssertionError
_____________________ test_formula_prefixes_are_quoted[@] ______________________

prefix = '@'

    @pytest.mark.parametrize("prefix", ["=", "+", "-", "@", "\\t", "\\r"])
    def test_formula_prefixes_are_quoted(prefix):
>       assert escape_cell(prefix + "SUM(A1:A9)") == "'" + prefix + "SUM(A1:A9)"
E       assert '@SUM(A1:A9)' == "'@SUM(A1:A9)"
E\x20\x20\x20\x20\x20\x20\x20\x20\x20
E         - '@SUM(A1:A9)
E         ? -
E         + @SUM(A1:A9)

tests/backend/test_csv_export.py:35: AssertionError
_____________________ test_formula_prefixes_are_quoted[\\t] _____________________

prefix = '\\t'

    @pytest.mark.parametrize("prefix", ["=", "+", "-", "@", "\\t", "\\r"])
    def test_formula_prefixes_are_quoted(prefix):
>       assert escape_cell(prefix + "SUM(A1:A9)") == "'" + prefix + "SUM(A1:A9)"
E       assert '\\tSUM(A1:A9)' == "'\\tSUM(A1:A9)"
E\x20\x20\x20\x20\x20\x20\x20\x20\x20
E         - '\tSUM(A1:A9)
E         ? -
E         + \tSUM(A1:A9)

tests/backend/test_csv_export.py:35: AssertionError
_____________________ test_formula_prefixes_are_quoted[\\r] _____________________

prefix = '\\r'

    @pytest.mark.parametrize("prefix", ["=", "+", "-", "@", "\\t", "\\r"])
    def test_formula_prefixes_are_quoted(prefix):
>       assert escape_cell(prefix + "SUM(A1:A9)") == "'" + prefix + "SUM(A1:A9)"
E       assert '\\rSUM(A1:A9)' == "'\\rSUM(A1:A9)"
E\x20\x20\x20\x20\x20\x20\x20\x20\x20
E         - '
E         +\x20
E           SUM(A1:A9)

tests/backend/test_csv_export.py:35: AssertionError
_________________ test_promotions_export_escapes_partner_codes _________________

    def test_promotions_export_escapes_partner_codes():
        out = io.StringIO()
        redemptions = [
            Redemption("ord_1", "SUMMER20", 1200, datetime(2025, 7, 1, tzinfo=timezone.utc)),
            Redemption("ord_2", "@PARTNER", 500, datetime(2025, 7, 2, tzinfo=timezone.utc)),
        ]
        assert export_promotions_csv(redemptions, out) == 2
>       assert out.getvalue().splitlines()[2].startswith("ord_2,'@PARTNER,500,")
E       assert False
E        +  where False = <built-in method startswith of str object at 0x7ff8048cbab0>("ord_2,'@PARTNER,500,")
E        +    where <built-in method startswith of str object at 0x7ff8048cbab0> = 'ord_2,@PARTNER,500,2025-07-02T00:00:00+00:00'.startswith

tests/backend/test_csv_export.py:45: AssertionError
=========================== short test summary info ============================
FAILED tests/backend/test_csv_export.py::test_formula_prefixes_are_quoted[+]
FAILED tests/backend/test_csv_export.py::test_formula_prefixes_are_quoted[-]
FAILED tests/backend/test_csv_export.py::test_formula_prefixes_are_quoted[@]
FAILED tests/backend/test_csv_export.py::test_formula_prefixes_are_quoted[\\t]
FAILED tests/backend/test_csv_export.py::test_formula_prefixes_are_quoted[\\r]
FAILED tests/backend/test_csv_export.py::test_promotions_export_escapes_partner_codes
6 failed, 3 passed in 2.11s
"""


_TRACE_IDEMPOTENCY = """\
..F.                                                                     [100%]
=================================== FAILURES ===================================
__________________ test_default_ttl_outlives_offline_replays ___________________

clock = <conftest.FrozenClock object at 0x7f8ff9538290>

    def test_default_ttl_outlives_offline_replays(clock):
        # INC-2472: queued orders are replayed up to 36 h after they were placed.
        store = IdempotencyStore(clock=clock)
        store.remember("k1", "fp", {"order_id": "ord_1"})
        clock.advance(36 * 3600)
>       assert store.lookup("k1", "fp") == {"order_id": "ord_1"}
E       AssertionError: assert None == {'order_id': 'ord_1'}
E        +  where None = lookup('k1', 'fp')
E        +    where lookup = <backend.payments.idempotency.IdempotencyStore object at 0x7f8ff95381d0>.lookup

tests/backend/test_idempotency.py:31: AssertionError
=========================== short test summary info ============================
FAILED tests/backend/test_idempotency.py::test_default_ttl_outlives_offline_replays
1 failed, 3 passed in 2.00s
"""


_TRACE_REFRESH = """\
..F                                                                      [100%]
=================================== FAILURES ===================================
_____________________ test_reuse_revokes_the_whole_family ______________________

    def test_reuse_revokes_the_whole_family():
        # INC-2744: a copied refresh token kept its family alive after the victim signed in again.
        store = RefreshTokenStore()
        _, stolen = start_session(store, "user_1", SECRET, now=1000)
        _, current = rotate_refresh_token(store, stolen, SECRET, now=1100)
        with pytest.raises(TokenError) as err:
            rotate_refresh_token(store, stolen, SECRET, now=1200)
>       assert err.value.code == "ERR_TOKEN_REUSED"
E       AssertionError: assert 'ERR_TOKEN_EXPIRED' == 'ERR_TOKEN_REUSED'
E\x20\x20\x20\x20\x20\x20\x20\x20\x20
E         - ERR_TOKEN_REUSED
E         ?             ---
E         + ERR_TOKEN_EXPIRED
E         ?           ++++

tests/backend/test_refresh.py:34: AssertionError
=========================== short test summary info ============================
FAILED tests/backend/test_refresh.py::test_reuse_revokes_the_whole_family - A...
1 failed, 2 passed in 1.83s
"""


_TRACE_CURSOR = """\
F.                                                                       [100%]
=================================== FAILURES ===================================
_________________ test_cursor_round_trip_keeps_the_tie_breaker _________________

    def test_cursor_round_trip_keeps_the_tie_breaker():
        # INC-2801: two orders created in the same millisecond; the page ended between them.
>       assert decode_cursor(encode_cursor(T, "ord_b")) == (T, "ord_b")
E       AssertionError: assert (datetime.dat...zone.utc), '') == (datetime.dat...utc), 'ord_b')
E\x20\x20\x20\x20\x20\x20\x20\x20\x20
E         At index 1 diff: '' != 'ord_b'
E         Use -v to get more diff

tests/backend/test_orders_api.py:15: AssertionError
=========================== short test summary info ============================
FAILED tests/backend/test_orders_api.py::test_cursor_round_trip_keeps_the_tie_breaker
1 failed, 1 passed in 2.35s
"""


_ATTEMPTS: tuple[_Attempt, ...] = (
    _Attempt(  # 0
        "backend/payments/retry.py",
        "charge_with_retry",
        (
            (
                "return client.charge(order_id, amount_cents, idempotency_key=idempotency_key)",
                "return client.charge(order_id, amount_cents, idempotency_key=str(uuid.uuid4()))",
            ),
        ),
        _TRACE_RETRY,
        "Generated a fresh idempotency key per retry attempt so each attempt is independent "
        "and a stale key can never be rejected by the gateway.",
        "pytest tests/backend/test_retry.py -q",
        "2025-12-16T10:42:07Z",
    ),
    _Attempt(  # 1
        "backend/auth/tokens.py",
        "validate_token",
        (
            (
                '    if claims["exp"] + CLOCK_SKEW_SECONDS < current:\n',
                '    if claims["exp"] < current:\n',
            ),
            (
                '    if claims.get("nbf", 0) - CLOCK_SKEW_SECONDS > current:\n',
                '    if claims.get("nbf", 0) > current:\n',
            ),
        ),
        _TRACE_TOKENS,
        "Removed the clock-skew grace so that tokens expire exactly at their exp claim; a 60 s "
        "leeway after expiry looked like a security hole.",
        "pytest tests/backend/test_tokens.py -q",
        "2025-12-16T15:03:51Z",
    ),
    _Attempt(  # 2
        "backend/core/ttl_cache.py",
        "TTLCache.get",
        (
            (
                "        with self._lock:\n"
                "            entry = self._data.get(key)\n"
                "            if entry is None:\n"
                "                self.misses += 1\n"
                "                return default\n"
                "            value, expires_at = entry\n"
                "            if expires_at <= self._clock():\n"
                "                del self._data[key]\n"
                "                self.misses += 1\n"
                "                return default\n"
                "            self._data.move_to_end(key)\n"
                "            self.hits += 1\n"
                "            return value\n",
                "        # Hot path without the lock: dict reads are atomic under the GIL.\n"
                "        entry = self._data.get(key)\n"
                "        if entry is None:\n"
                "            self.misses += 1\n"
                "            return default\n"
                "        value, expires_at = entry\n"
                "        if expires_at <= self._clock():\n"
                "            self.invalidate(key)\n"
                "            self.misses += 1\n"
                "            return default\n"
                "        self._data.move_to_end(key)\n"
                "        self.hits += 1\n"
                "        return value\n",
            ),
        ),
        _TRACE_CACHE,
        "Skipped the lock in TTLCache.get for the read path to cut p99 latency of promotion "
        "lookups; writes still lock.",
        "pytest tests/backend/test_cache.py -q --count=20 -x",
        "2025-12-17T09:18:33Z",
    ),
    _Attempt(  # 3
        "backend/core/rate_limiter.py",
        "RateLimiter.allow",
        (
            (
                "            state = self._roll(key, now)\n"
                "            if self._estimate(state, now) + 1 > self.limit:\n"
                "                return False\n"
                "            state.current += 1\n",
                "            state = self._roll(key, now)\n"
                "            if state.current >= self.limit:\n"
                "                return False\n"
                "            state.current += 1\n",
            ),
        ),
        _TRACE_RATE_LIMIT,
        "Simplified allow() to count only the current window; the weighted estimate rejected "
        "clients that were clearly under the limit in the dashboard.",
        "pytest tests/backend/test_rate_limiter.py -q",
        "2025-12-17T13:55:02Z",
    ),
    _Attempt(  # 4
        "mobile/src/parsers/orderParser.ts",
        "parseMoney",
        (
            (
                '  throw new OrderParseError("ERR_PARSE_AMOUNT",',
                "  const parsed = Number.parseFloat(String(value));\n"
                "  if (Number.isFinite(parsed)) {\n"
                "    return Math.round(parsed);\n"
                "  }\n"
                '  throw new OrderParseError("ERR_PARSE_AMOUNT",',
            ),
        ),
        """\
 FAIL  src/__tests__/orderParser.test.ts
  parseOrder
    \u2713 parses a paid order (4 ms)
    \u2713 tolerates a missing item list (1 ms)
    \u2713 keeps amounts in integer cents (INC-2333) (1 ms)
    \u2715 rejects fractional amounts with ERR_PARSE_AMOUNT (5 ms)

  \u25cf parseOrder \u203a rejects fractional amounts with ERR_PARSE_AMOUNT

    expect(received).toThrow(expected)

    Expected constructor: OrderParseError

    Received function did not throw

      29 |
      30 |   it("rejects fractional amounts with ERR_PARSE_AMOUNT", () => {
    > 31 |     expect(() => parseOrder({ ...payload, total_cents: 59.97 })).toThrow(OrderParseError);
         |                                                                  ^
      32 |   });
      33 | });
      34 |

      at Object.<anonymous> (src/__tests__/orderParser.test.ts:31:66)

Test Suites: 1 failed, 1 total
Tests:       1 failed, 3 passed, 4 total
Snapshots:   0 total
Time:        1.184 s
Ran all test suites matching /src\\/__tests__\\/orderParser.test.ts/i.
""",
        "Made parseMoney lenient: round decimal amounts instead of throwing, because some "
        "cached payloads from the old API still carry amounts like 59.97.",
        "cd mobile && npx jest src/__tests__/orderParser.test.ts",
        "2025-12-17T18:21:40Z",
    ),
    _Attempt(  # 5
        "web/src/api/orders.ts",
        "OrderDTO",
        (
            ("  status: OrderStatus;\n  currency: string;\n", "  status: OrderStatus;\n"),
            ('    currency: raw.currency ?? "EUR",\n', ""),
        ),
        """\
src/api/orders.ts:90:46 - error TS2339: Property 'currency' does not exist on type 'OrderDTO'.

90   return formatMoney(order.totalCents, order.currency);
                                                ~~~~~~~~

src/components/OrderSummary.tsx:6:61 - error TS2339: Property 'currency' does not exist on type 'OrderDTO'.

6   const money = (cents: number) => formatMoney(cents, order.currency);
                                                              ~~~~~~~~


Found 2 errors in 2 files.

Errors  Files
     1  src/api/orders.ts:90
     1  src/components/OrderSummary.tsx:6
""",
        "Dropped currency from OrderDTO: every order on the web storefront is in EUR, so the "
        "field looked redundant.",
        "cd web && npx tsc --noEmit",
        "2025-12-18T08:47:15Z",
    ),
    _Attempt(  # 6
        "worker/internal/jobs/runner.go",
        "Runner.processBatch",
        (
            (
                "\tvar wg sync.WaitGroup\n"
                "\tsem := make(chan struct{}, r.MaxInFlight)\n"
                "\tfor _, job := range jobs {\n"
                "\t\tsem <- struct{}{}\n"
                "\t\twg.Add(1)\n"
                "\t\tgo func(job Job) {\n"
                "\t\t\tdefer func() { <-sem; wg.Done() }()\n",
                "\tvar wg sync.WaitGroup\n"
                "\tfor _, job := range jobs {\n"
                "\t\twg.Add(1)\n"
                "\t\tgo func(job Job) {\n"
                "\t\t\tdefer wg.Done()\n",
            ),
        ),
        """\
--- FAIL: TestProcessBatchRespectsMaxInFlight (0.01s)
    runner_test.go:55: peak concurrency 20 exceeds MaxInFlight 3
FAIL
FAIL\tgithub.com/larkspur/worker/internal/jobs\t1.031s
FAIL
""",
        "Removed the MaxInFlight semaphore so a whole batch runs in parallel; the nightly export "
        "backlog was draining too slowly.",
        "cd worker && go test -race ./internal/jobs/",
        "2025-12-18T11:02:29Z",
    ),
    _Attempt(  # 7
        "backend/payments/gateway.py",
        "classify_response",
        (
            (
                '    return GatewayDeclined("ERR_GATEWAY_REJECTED", status)\n',
                '    return GatewayError("ERR_GATEWAY_REJECTED", status)\n',
            ),
        ),
        _TRACE_GATEWAY,
        "Made non-card 4xx answers (429 from the gateway's rate limiter, 409) retryable "
        "GatewayErrors so that charge_with_retry retries them.",
        "pytest tests/backend/test_gateway.py tests/backend/test_retry.py -q",
        "2025-12-18T16:30:12Z",
    ),
    _Attempt(  # 8
        "backend/promotions/rules.py",
        "apply_promotions",
        (
            (
                "    if percent:\n"
                "        # Never stack two percentage codes: 20% + 15% gave 35% off (INC-2655).\n"
                "        best = max(percent, key=lambda p: discount_for(p, subtotal_cents, shipping_cents))\n"
                "        chosen.insert(0, best)\n",
                "    if percent:\n        chosen[:0] = percent\n",
            ),
        ),
        _TRACE_PROMOTIONS,
        "Let percentage codes stack so marketing can combine the welcome code with a campaign "
        "code, as they asked in the winter planning.",
        "pytest tests/backend/test_promotions.py -q",
        "2025-12-19T10:14:48Z",
    ),
    _Attempt(  # 9
        "backend/export/csv_export.py",
        "escape_cell",
        (("    if text.startswith(FORMULA_PREFIXES):\n", '    if text.startswith("="):\n'),),
        _TRACE_CSV,
        "Only quote cells that start with '='; delivery notes beginning with '-' or '+' (bullet "
        "lists, phone numbers) showed a stray quote in Excel.",
        "pytest tests/backend/test_csv_export.py -q",
        "2025-12-19T14:40:05Z",
    ),
    _Attempt(  # 10
        "backend/payments/idempotency.py",
        None,
        (("RECORD_TTL = timedelta(hours=48)\n", "RECORD_TTL = timedelta(hours=24)\n"),),
        _TRACE_IDEMPOTENCY,
        "Reduced RECORD_TTL to 24 hours to halve the size of the idempotency_keys table; 48 h "
        "seemed arbitrary.",
        "pytest tests/backend/test_idempotency.py -q",
        "2025-12-19T17:26:54Z",
    ),
    _Attempt(  # 11
        "backend/auth/refresh.py",
        "rotate_refresh_token",
        (
            (
                "    if record.used:\n"
                "        # A rotated token came back: someone else holds a copy. Revoke every token of the\n"
                "        # family, including the one the legitimate client holds now (INC-2744).\n"
                "        store.revoke_family(record.family_id)\n"
                '        raise TokenError("ERR_TOKEN_REUSED")\n',
                '    if record.used:\n        raise TokenError("ERR_TOKEN_EXPIRED")\n',
            ),
        ),
        _TRACE_REFRESH,
        "Treat a reused refresh token like an expired one instead of revoking the family: "
        "customers with two tabs open were signed out everywhere.",
        "pytest tests/backend/test_refresh.py -q",
        "2025-12-20T09:05:37Z",
    ),
    _Attempt(  # 12
        "worker/internal/payments/reconcile.go",
        "classifyGatewayStatus",
        (
            (
                '\tif gs.HTTPCode == 504 || gs.ErrorCode == "ERR_GATEWAY_TIMEOUT" {\n'
                "\t\treturn OutcomePending\n"
                "\t}\n",
                "",
            ),
            ('\tcase "processing", "":\n', '\tcase "processing":\n'),
        ),
        """\
--- FAIL: TestTimeoutStaysPending (0.00s)
    reconcile_test.go:43: timeout classified as failed, want pending (INC-2710)
FAIL
FAIL\tgithub.com/larkspur/worker/internal/payments\t0.412s
FAIL
""",
        "Fail closed on unknown gateway answers: anything that is not succeeded or processing is "
        "now marked failed, including lookups that timed out.",
        "cd worker && go test -race ./internal/payments/",
        "2025-12-20T13:48:20Z",
    ),
    _Attempt(  # 13
        "backend/api/orders.py",
        "encode_cursor",
        (
            (
                '    raw = json.dumps({"t": created_at.isoformat(), "id": order_id}).encode()\n',
                '    raw = json.dumps({"t": created_at.isoformat()}).encode()\n',
            ),
            (
                '        return datetime.fromisoformat(data["t"]), data["id"]\n',
                '        return datetime.fromisoformat(data["t"]), data.get("id", "")\n',
            ),
        ),
        _TRACE_CURSOR,
        "Shortened the pagination cursor to the timestamp only; the order id made cursors 40% "
        "longer in shared URLs.",
        "pytest tests/backend/test_orders_api.py -q",
        "2025-12-21T10:31:09Z",
    ),
    _Attempt(  # 14
        "deploy/nginx/api.conf",
        None,
        (("        proxy_read_timeout 45s;\n", "        proxy_read_timeout 10s;\n"),),
        """\
smoke: running checkout scenarios against https://staging.larkspur.shop
  ok    browse_catalogue                      0.41s
  ok    place_order_fast_gateway              1.12s
  FAIL  place_order_slow_gateway             10.02s
        POST /api/orders -> 504 Gateway Time-out (nginx) after 10.0s
        gateway sandbox latency injected: 9.0s per attempt, 2 attempts
        expected 201 Created; order ord_5c1e0b27d9a44f81a6e2 was captured by the gateway at 18.3s
        client retried with a new Idempotency-Key -> 2 orders for 1 basket (ERR_PAYMENT_DUPLICATE)
  ok    refund_partial                        2.07s
4 scenarios, 1 failed
make: *** [Makefile:31: smoke-staging] Error 1
""",
        "Lowered proxy_read_timeout to 10s so that clients fail fast instead of hanging on a slow "
        "gateway.",
        "make smoke-staging",
        "2025-12-21T15:12:44Z",
    ),
    _Attempt(  # 15
        "web/src/auth/session.ts",
        "shouldRefresh",
        (
            (
                "  return now >= session.expiresAt - REFRESH_MARGIN_MS;\n",
                "  return now >= session.expiresAt + CLOCK_SKEW_MS - REFRESH_MARGIN_MS;\n",
            ),
        ),
        """\
 FAIL  src/__tests__/session.test.ts
  shouldRefresh
    \u2713 waits while the token is fresh (2 ms)
    \u2715 refreshes inside the margin (3 ms)
    \u2713 never relies on the server's clock-skew grace

  \u25cf shouldRefresh \u203a refreshes inside the margin

    expect(received).toBe(expected) // Object.is equality

    Expected: true
    Received: false

       9 |
      10 |   it("refreshes inside the margin", () => {
    > 11 |     expect(shouldRefresh(session, 1_000_000 - REFRESH_MARGIN_MS)).toBe(true);
         |                                                                   ^
      12 |   });
      13 |
      14 |   it("never relies on the server's clock-skew grace", () => {

      at Object.<anonymous> (src/__tests__/session.test.ts:11:67)

Test Suites: 1 failed, 1 total
Tests:       1 failed, 2 passed, 3 total
Snapshots:   0 total
Time:        0.932 s
""",
        "Refresh later by counting the server's 60 s clock-skew grace as usable token lifetime; "
        "the refresh endpoint is 30% of API traffic.",
        "cd web && npx jest src/__tests__/session.test.ts",
        "2025-12-22T09:40:18Z",
    ),
    _Attempt(  # 16: the same idea as record 0, tried again by another session
        "backend/payments/retry.py",
        "charge_with_retry",
        (
            (
                "return client.charge(order_id, amount_cents, idempotency_key=idempotency_key)",
                "return client.charge(order_id, amount_cents, idempotency_key=str(uuid.uuid4()))",
            ),
        ),
        _TRACE_RETRY.replace("0x7fa4b3ad9150", "0x7f0c5e21b9d0")
        .replace("in 2.11s", "in 1.94s")
        .replace("ecfbee33-cf25-416b-ad5e-9b7d3fa6ff2e", "0e9c2f61-7b3d-4a8e-8d55-c1f4b6a2e093")
        .replace("8b2df250-b111-42ab-bc66-26848b6dce62", "a4f7d0c2-6e19-4b3a-9c8d-5e2b1f7a3d64"),
        "Each retry gets its own uuid4 idempotency key so that a retry is never confused with "
        "the attempt that timed out.",
        "pytest tests/backend/test_retry.py -q",
        "2025-12-22T14:08:55Z",
    ),
    _Attempt(  # 17
        "worker/internal/export/csv.go",
        "escapeCell",
        (("\t\tif strings.HasPrefix(s, p) {\n", '\t\tif strings.HasPrefix(s, p) && p != "-" {\n'),),
        """\
--- FAIL: TestEscapeCellQuotesFormulaPrefixes (0.00s)
    csv_test.go:13: escapeCell("-2") = "-2", want a leading quote
FAIL
FAIL\tgithub.com/larkspur/worker/internal/export\t0.206s
FAIL
""",
        "Stopped quoting values that start with '-' in the nightly export so negative "
        "adjustments stay numeric for the accounting import.",
        "cd worker && go test -race ./internal/export/",
        "2025-12-23T10:26:31Z",
    ),
)


@lru_cache(maxsize=1)
def _records() -> tuple[tuple[tuple[str, str | None], ...], ...]:
    out = []
    for item in _ATTEMPTS:
        attempt = Attempt(
            file_path=item.file_path,
            symbol_name=item.symbol_name,
            attempted_diff=_diff(item.file_path, item.edits),
            error_trace=item.error_trace,
            notes=item.notes,
            command=item.command,
            recorded_at=item.recorded_at,
        )
        attempt.validate(API_LIMITS)  # what the API would refuse is a broken fixture
        out.append(tuple((key, getattr(attempt, key)) for key in FAILURE_KEYS))
    return tuple(out)


def failure_records() -> list[dict]:
    """The recorded failed attempts, in stable order (index = failure id in the datasets)."""
    return [dict(items) for items in _records()]
