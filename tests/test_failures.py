"""Failed attempts: signatures from real tool output, changed-line targets, fingerprints,
records, secret redaction and the `failures` journal stream (occurrences, tombstones, crashes,
concurrent writers)."""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitstrata.serve.failures import build_failure_record
from gitstrata.serve.fingerprint import fingerprint
from gitstrata.serve.signatures import extract_signature
from gitstrata.serve.targets import map_changed_lines
from gitstrata.stages.chunk import FileEntry, chunk_file
from gitstrata.store.attempts import (
    Attempt,
    PayloadLimits,
    Signature,
    append_failure,
    forget_failure,
    load_failures,
)
from gitstrata.store.config import ChunkConfig, GraveyardConfig
from gitstrata.store.errors import InputError
from gitstrata.store.journal import Journal
from gitstrata.store.redact import redact
from gitstrata.store.unidiff import parse_diff

DATA = Path(__file__).parent / "data" / "signatures"


def sig(name: str) -> Signature:
    return extract_signature((DATA / name).read_text(encoding="utf-8"))


# ---------------------------------------------------------------- signatures (real output)


def test_pytest_failures_and_ids():
    s = sig("pytest.txt")
    assert s.tools == ("pytest",)
    assert s.failing == (
        "tests/backend/test_retry.py::test_retry_does_not_double_charge",
        "tests/backend/test_retry.py::test_parse_amount_decimal",
        "tests/backend/test_retry.py::test_gateway_keys",
    )
    assert s.errors[0] == (
        "AssertionError: expected exactly 1 charge, gateway recorded 2 (ERR_PAYMENT_DUPLICATE)"
    )
    assert "ValueError: invalid literal for int() with base 10: '12.50'" in s.errors
    assert s.exceptions == ("AssertionError", "ValueError")
    assert s.codes == ("ERR_PAYMENT_DUPLICATE",)
    assert s.locations == (
        "tests/backend/test_retry.py:7",
        "backend/payments/retry.py:24",
        "tests/backend/test_retry.py:21",
    )


def test_pytest_collection_error():
    s = sig("pytest_collect.txt")
    assert s.failing == ("tests/api/test_orders.py",)
    assert s.errors == ("ModuleNotFoundError: No module named 'backend.api'",)
    assert s.exceptions == ("ModuleNotFoundError",)
    assert s.locations == ()  # importlib's frame is the toolchain's, not the project's


def test_python_tracebacks_plain_and_chained():
    s = sig("python_traceback.txt")
    assert s.tools == ("python",)
    assert s.errors == ("KeyError: 'port'",)
    assert s.locations == ("/home/dev/shop/app.py:15", "/home/dev/shop/app.py:11")
    chained = extract_signature(
        (DATA / "python_chained.txt").read_text(encoding="utf-8"), root="/home/dev/shop"
    )
    assert chained.exceptions == ("ZeroDivisionError", "PaymentDeclined")
    assert chained.errors[-1] == "PaymentDeclined: ERR_EMPTY_BATCH: settlement batch is empty"
    assert chained.codes == ("ERR_EMPTY_BATCH",)
    assert chained.locations == ("worker.py:7", "worker.py:13", "worker.py:9")


def test_go_test_failures_and_subtests():
    s = sig("go_test.txt")
    assert s.tools == ("go",)
    assert s.failing == (
        "TestSettleBatch",
        "TestParseOrder",
        "TestParseOrder/empty_currency",
        "example.com/shop/worker/settle",
    )
    assert s.errors[0] == "SettleBatch() total = 1450, want 1500 (ERR_ROUNDING)"
    assert s.codes == ("ERR_ROUNDING",)


def test_go_data_race():
    s = sig("go_race.txt")
    assert s.errors[:2] == (
        "DATA RACE",
        "DATA RACE in example.com/shop/worker/queue.(*Counter).Inc",
    )
    assert s.codes == ("DATA_RACE",)
    assert s.failing == ("TestCounterConcurrent", "example.com/shop/worker/queue")
    assert "/home/dev/shop/worker/queue/counter.go:14" in s.locations
    assert not any("testing.go" in loc for loc in s.locations)


def test_go_panic_and_build_failure():
    s = sig("go_panic.txt")
    assert s.errors == ("panic: runtime error: index out of range [0] with length 0",)
    assert s.failing[0] == "TestDispatchEmptyQueue"
    assert s.locations[0] == "/home/dev/shop/worker/dispatch/dispatcher.go:33"
    b = sig("go_build.txt")
    assert b.errors[0] == "undefined: roundCents"
    assert b.locations[:2] == ("worker/settle/settle.go:18", "worker/settle/settle.go:24")


def test_rust_compile_error_and_test_panics():
    s = sig("cargo_build.txt")
    assert s.tools == ("rust",)
    assert s.codes == ("E0382",)
    assert s.errors == ("error[E0382]: borrow of moved value: `ledger`",)
    assert s.locations[0] == "src/lib.rs:22"
    t = sig("cargo_test.txt")
    assert t.failing == (
        "tests::first_entry_requires_entries",
        "tests::average_of_empty_ledger_is_zero",
        "tests::posting_twice_doubles",
    )
    assert t.errors == (
        "panicked: ERR_EMPTY_LEDGER: ledger has no entries",
        "panicked: attempt to divide by zero",
        "panicked: assertion `left == right` failed: two posts of 100 cents",
    )
    assert not any("rustc" in loc for loc in t.locations)


def test_jest():
    s = sig("jest.txt")
    assert s.tools == ("jest",)
    assert s.failing == (
        "src/parsers/orderParser.test.ts",
        "parseOrder › keeps the currency of a multi-currency order",
        "parseOrder › rejects an order without items",
    )
    assert s.errors == (
        "expect(received).toEqual(expected) // deep equality",
        "TypeError: Cannot read properties of undefined (reading 'length')",
    )
    assert s.exceptions == ("TypeError",)
    assert "src/parsers/orderParser.ts:33" in s.locations


@pytest.mark.parametrize("name", ["tsc.txt", "tsc_pretty.txt"])
def test_tsc(name):
    s = sig(name)
    assert s.tools == ("tsc",)
    assert "TS2345" in s.codes
    assert (
        "TS2345: Argument of type 'string' is not assignable to parameter of type 'number'."
    ) in s.errors
    assert "src/api/client.ts:12" in s.locations


def test_mypy():
    s = sig("mypy.txt")
    assert s.tools == ("mypy",)
    assert s.codes == ("union-attr", "assignment", "arg-type")
    assert s.errors[0] == 'Item "None" of "str | None" has no attribute "upper"'
    assert s.locations[0] == "backend/payments/types_demo.py:13"


@pytest.mark.parametrize("name", ["ruff.txt", "ruff_concise.txt"])
def test_ruff_both_formats(name):
    s = sig(name)
    assert s.tools == ("ruff",)
    assert s.codes == ("F401", "UP035", "UP006", "F841", "F821")
    assert s.errors[-1] == "F821 Undefined name `undefined_name`"
    assert s.locations[-1] == "backend/payments/lint_demo.py:10"


def test_colour_codes_and_unknown_tools():
    coloured = "\x1b[31mFAILED\x1b[0m tests/test_a.py::test_x - \x1b[1mKeyError\x1b[0m: 'a'\n"
    s = extract_signature(coloured)
    assert s.failing == ("tests/test_a.py::test_x",)
    assert s.errors == ("KeyError: 'a'",)
    other = extract_signature("compiling...\nfatal: unable to open config.yaml\ndone\n")
    assert other.errors == ("fatal: unable to open config.yaml",)
    assert extract_signature("") == Signature()


# ---------------------------------------------------------------- diffs and symbols

RETRY_PY = """import uuid


class Gateway:
    def charge(self, order_id, key):
        return key

    def refund(self, order_id):
        return None


def charge_with_retry(client, order_id, attempts=3):
    key = f"{order_id}:{uuid.uuid5(uuid.NAMESPACE_URL, order_id)}"
    for _ in range(attempts):
        return client.charge(order_id, key)


def parse_amount(text):
    return int(text)
"""


def rows_for(path: str, text: str) -> list[dict]:
    data = text.encode()
    return chunk_file(FileEntry(path, "0" * 40, "100644", len(data)), data, ChunkConfig())[1]


@pytest.fixture
def pay_repo(git_repo):
    git_repo.commit(
        "payments", {"pay/retry.py": RETRY_PY, "README.md": "Shop\n", "logo.bin": b"\0\1"}
    )
    return git_repo


def worktree_diff(repo, context: int = 3) -> str:
    return repo.git("diff", f"-U{context}", "HEAD")


def test_changed_lines_map_to_symbols_not_context(pay_repo):
    text = RETRY_PY.replace(
        'key = f"{order_id}:{uuid.uuid5(uuid.NAMESPACE_URL, order_id)}"', "key = str(uuid.uuid4())"
    )
    pay_repo.write("pay/retry.py", text)
    diff = worktree_diff(pay_repo, context=5)
    # the context reaches into `Gateway.refund`; only the changed line counts
    assert "return None" in diff
    assert map_changed_lines(diff, rows_for("pay/retry.py", RETRY_PY)) == [
        ("pay/retry.py", "charge_with_retry")
    ]


def test_insertions_use_old_side_positions(pay_repo):
    lines = RETRY_PY.split("\n")
    lines.insert(5, "        assert key")  # inside Gateway.charge, after its `def` line
    lines.insert(17, "# divider")  # between two functions: no symbol spans both sides
    pay_repo.write("pay/retry.py", "\n".join(lines))
    diff = worktree_diff(pay_repo)
    change = parse_diff(diff)[0]
    assert change.removed == []
    assert change.inserted_after == [5, 16]
    rows = rows_for("pay/retry.py", RETRY_PY)
    assert map_changed_lines(diff, rows) == [("pay/retry.py", "Gateway.charge")]


def test_module_level_change_new_binary_and_symbolless_files(pay_repo):
    pay_repo.write("pay/retry.py", "import uuid\nimport time\n" + RETRY_PY[len("import uuid\n") :])
    pay_repo.write("logo.bin", b"\0\2\3")
    pay_repo.write("README.md", "Shop\nMore\n")
    pay_repo.write("pay/new.py", "def fresh():\n    return 1\n")
    pay_repo.git("add", "pay/new.py")
    diff = worktree_diff(pay_repo)
    rows = rows_for("pay/retry.py", RETRY_PY) + rows_for("README.md", "Shop\n")
    assert map_changed_lines(diff, rows) == [
        ("README.md", None),
        ("logo.bin", None),
        ("pay/new.py", None),
        ("pay/retry.py", None),
    ]
    assert [c.binary for c in parse_diff(diff)] == [False, True, False, False]


def test_rename_delete_and_quoted_paths(pay_repo):
    pay_repo.git("mv", "pay/retry.py", "pay/retry_v2.py")
    pay_repo.write(
        "pay/retry_v2.py", RETRY_PY.replace("return int(text)", "return int(text) * 100")
    )
    pay_repo.git("add", "-A")
    pay_repo.commit("odd name", {"pay/naïve file.py": "def f():\n    return 1\n"})
    pay_repo.git("mv", "pay/retry_v2.py", "pay/retry.py")
    pay_repo.write("pay/naïve file.py", "def f():\n    return 2\n")
    pay_repo.git("rm", "-q", "README.md")
    diff = pay_repo.git("-c", "core.quotePath=true", "diff", "-M", "HEAD")
    assert '"a/pay/na\\303\\257ve file.py"' in diff
    v2 = RETRY_PY.replace("return int(text)", "return int(text) * 100")
    rows = (
        rows_for("pay/retry_v2.py", v2)
        + rows_for("pay/naïve file.py", "def f():\n    return 1\n")
        + rows_for("README.md", "Shop\n")
    )
    got = map_changed_lines(diff, rows)
    assert ("README.md", None) in got
    assert ("pay/naïve file.py", "f") in got
    assert ("pay/retry_v2.py", None) in got  # a pure rename changes no line


def test_arrow_table_rows_and_plain_unified_diff():
    rows = rows_for("pay/retry.py", RETRY_PY)
    table = pa.Table.from_pylist(rows)
    plain = "".join(
        difflib.unified_diff(
            RETRY_PY.splitlines(keepends=True),
            RETRY_PY.replace("return int(text)", "return float(text)").splitlines(keepends=True),
            "a/pay/retry.py",
            "b/pay/retry.py",
        )
    )
    assert map_changed_lines(plain, table) == [("pay/retry.py", "parse_amount")]
    assert map_changed_lines("not a diff at all", rows) == []


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d", "", "x = 1"]), max_size=30),
    st.lists(st.sampled_from(["a", "b", "c", "e", "", "x = 2"]), max_size=30),
    st.integers(min_value=0, max_value=4),
)
def test_parse_diff_changed_lines_property(old, new, context):
    """Removed lines and insertion points agree with difflib's own edit script."""
    diff = "".join(
        difflib.unified_diff(
            [f"{x}\n" for x in old], [f"{x}\n" for x in new], "a/f.py", "b/f.py", n=context
        )
    )
    removed, inserted = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        if tag in ("delete", "replace"):
            removed += range(i1 + 1, i2 + 1)
        if tag in ("insert", "replace"):
            inserted += [i2] * (j2 - j1)
    changes = parse_diff(diff)
    assert [n for c in changes for n in c.removed] == removed
    assert [n for c in changes for n in c.inserted_after] == inserted


# ---------------------------------------------------------------- fingerprints

TRACE_A = """FAILED tests/test_retry.py::test_once - AssertionError: charged 2 times at 0x7f3a9c1d2e80
E   AssertionError: charged 2 times at 0x7f3a9c1d2e80
  File "/tmp/pytest-of-dev/pytest-12/test_once0/retry.py", line 41, in charge
tests/test_retry.py:17: AssertionError
request 7d444840-9dc0-11d1-b245-5ffdce74fad2 at 2025-12-09T10:11:12Z
=========== 1 failed in 0.93s ===========
"""
TRACE_B = """FAILED tests/test_retry.py::test_once - AssertionError: charged 2 times at 0x55d0c2a1b010
E   AssertionError:   charged 2 times at 0x55d0c2a1b010
  File "/tmp/pytest-of-dev/pytest-31/test_once0/retry.py", line 44, in charge
tests/test_retry.py:19: AssertionError
request 0b1c0ffe-1111-2222-3333-444455556666 at 2025-12-10T08:00:01Z
=========== 1 failed in 12.40s ===========
"""
DIFF_A = """diff --git a/pay/retry.py b/pay/retry.py
--- a/pay/retry.py
+++ b/pay/retry.py
@@ -13,1 +13,1 @@ def charge_with_retry(client, order_id, attempts=3):
-    key = f"{order_id}:{uuid.uuid5(uuid.NAMESPACE_URL, order_id)}"
+    key = str(uuid.uuid4())
"""
DIFF_B = DIFF_A.replace("@@ -13,1 +13,1 @@", "@@ -27,1 +29,1 @@").replace(
    "+    key = str(uuid.uuid4())", "+    key  =  str(uuid.uuid4())   "
)


def test_fingerprint_ignores_volatile_parts():
    fa = fingerprint(DIFF_A, extract_signature(TRACE_A), "pytest  -q")
    fb = fingerprint(DIFF_B, extract_signature(TRACE_B), "pytest -q")
    assert fa == fb
    assert len(fa) == 16


def test_fingerprint_sees_real_differences():
    base = fingerprint(DIFF_A, extract_signature(TRACE_A), "pytest -q")
    other_change = DIFF_A.replace("uuid.uuid4()", "uuid.uuid1()")
    assert fingerprint(other_change, extract_signature(TRACE_A), "pytest -q") != base
    other_error = TRACE_A.replace("charged 2 times", "charged 3 times")
    assert fingerprint(DIFF_A, extract_signature(other_error), "pytest -q") != base
    assert fingerprint(DIFF_A, extract_signature(TRACE_A), "pytest -x") != base


# ---------------------------------------------------------------- records and redaction

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
GH_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEpAIBAAKCAQEA1c2VjcmV0a2V5bWF0ZXJpYWw=\n"
    "-----END RSA PRIVATE KEY-----"
)


@pytest.mark.parametrize(
    ("text", "expected", "kinds"),
    [
        (
            f"aws_access_key_id = {AWS_KEY}",
            "aws_access_key_id = [REDACTED:aws_access_key]",
            ["aws_access_key"],
        ),
        (f"token: {GH_TOKEN}", "token: [REDACTED:github_token]", ["github_token"]),
        ("glpat-xXyYzZ0123456789abcd", "[REDACTED:gitlab_token]", ["gitlab_token"]),
        (
            "SLACK=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
            "SLACK=[REDACTED:slack_token]",
            ["slack_token"],
        ),
        (
            "stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'",
            "stripe.api_key = '[REDACTED:stripe_key]'",
            ["stripe_key"],
        ),
        (
            "OPENAI_API_KEY=sk-proj-abcDEF1234567890ghiJKLmnopQRstuv",
            "OPENAI_API_KEY=[REDACTED:openai_key]",
            ["openai_key"],
        ),
        (
            "auth eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "auth [REDACTED:jwt]",
            ["jwt"],
        ),
        (f"+{PEM}\n+x = 1", "+[REDACTED:private_key]\n+x = 1", ["private_key"]),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAtzc2gtZW\n\nnext",
            "[REDACTED:private_key]\n\nnext",
            ["private_key"],
        ),
        (
            "DATABASE_URL=postgres://app:s3cr3t-P4ss@db.internal:5432/shop",
            "DATABASE_URL=postgres://app:[REDACTED:url_password]@db.internal:5432/shop",
            ["url_password"],
        ),
        (
            "curl -H 'Authorization: Bearer abcdefghijklmnop1234567890' https://x",
            "curl -H 'Authorization: Bearer [REDACTED:bearer_token]' https://x",
            ["bearer_token"],
        ),
        (
            "password = 'hunter22'",
            "password = '[REDACTED:password_assignment]'",
            ["password_assignment"],
        ),
        (
            "export DB_PASSWORD=admin",
            "export DB_PASSWORD=[REDACTED:password_assignment]",
            ["password_assignment"],
        ),
        (
            'signing_key: "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1u"',
            'signing_key: "[REDACTED:high_entropy_secret]"',
            ["high_entropy_secret"],
        ),
    ],
)
def test_redact_secrets(text, expected, kinds):
    out, found = redact(text)
    assert (out, found) == (expected, kinds)
    assert redact(out) == (out, [])  # idempotent


@pytest.mark.parametrize(
    "code",
    [
        'password = request.form["password"]',
        "token = get_token()",
        "def login(password: str, token=None):",
        "max_tokens=100",
        "api_key=settings.api_key",
        "secret = os.environ['SECRET']",
        "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 sorted by key",
        'cache_key = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"',
    ],
)
def test_redact_leaves_code_alone(code):
    assert redact(code) == (code, [])


def test_build_record_redacts_bounds_and_targets(pay_repo):
    rows = rows_for("pay/retry.py", RETRY_PY)
    diff = DIFF_A.replace("@@ -13,1 +13,1 @@", "@@ -13,1 +13,2 @@") + f'+    token = "{GH_TOKEN}"\n'
    attempt = Attempt(
        "pay/retry.py",
        diff,
        "x\n" * 20_000 + TRACE_A + f"using {AWS_KEY}\n",
        notes="tried a fresh key; pass was hunter2 in postgres://u:hunter2@db/x",
        symbol_name="charge_with_retry",
        command="pytest -q --token=" + GH_TOKEN,
        exit_code=1,
    )
    rec = build_failure_record(attempt, rows, cfg=GraveyardConfig(max_trace_bytes=1024))
    text = json.dumps(rec)
    assert GH_TOKEN not in text and AWS_KEY not in text and "hunter2@" not in text
    assert rec["redactions"] == {"aws_access_key": 1, "github_token": 2, "url_password": 1}
    assert rec["targets"] == [{"path": "pay/retry.py", "qualname": "charge_with_retry"}]
    assert len(rec["trace"].encode()) <= 1024 + 40
    assert rec["trace"].startswith("[... ") and rec["trace"].endswith("[REDACTED:aws_access_key]\n")
    assert rec["signature"]["failing"] == ["tests/test_retry.py::test_once"]
    assert rec["exit_code"] == 1 and rec["kind"] == "failed_attempt"
    with pytest.raises(InputError):
        build_failure_record(Attempt("../outside.py"), symbols_rows=rows)


def test_diff_excerpt_is_bounded():
    big = DIFF_A + "".join(f"+    line_{i} = {i}\n" for i in range(5000))
    rec = build_failure_record(Attempt(None, big, "boom"), cfg=GraveyardConfig(max_diff_bytes=2048))
    assert rec["diff_truncated"] is True
    assert len(rec["diff"].encode()) < 2048 + 60
    assert rec["diff_bytes"] == len(big.encode())


# ---------------------------------------------------------------- the journal stream


def make(trace: str = TRACE_A, diff: str = DIFF_A) -> dict:
    attempt = Attempt(
        "pay/retry.py",
        diff,
        trace,
        notes="fresh key",
        symbol_name="charge_with_retry",
        command="pytest -q",
        exit_code=1,
    )
    return build_failure_record(attempt)


def test_repeat_counts_as_occurrence_and_forget_is_a_tombstone(tmp_path):
    journal = Journal(tmp_path / "journal")
    first = append_failure(journal, make(TRACE_A, DIFF_A))
    again = append_failure(journal, make(TRACE_B, DIFF_B))
    other = append_failure(journal, make(TRACE_A.replace("2 times", "5 times")))
    assert first["id"] == 1 and "op" not in first
    assert again["op"] == "occurrence" and again["target"] == 1 and again["occurrence"] == 2
    assert other["id"] == 3
    failures = load_failures(journal)
    assert [(f.id, f.occurrences) for f in failures] == [(1, 2), (3, 1)]
    assert failures[0].targets == (("pay/retry.py", "charge_with_retry"),)
    assert failures[0].last_seen >= failures[0].first_seen
    forget_failure(journal, 1)
    assert [f.id for f in load_failures(journal)] == [3]
    # after a forget, the same attempt starts a new record
    fresh = append_failure(journal, make())
    assert fresh["id"] == 5 and "op" not in fresh
    lines = (tmp_path / "journal" / "failures.jsonl").read_text().splitlines()
    assert len(lines) == 5  # nothing rewritten
    with pytest.raises(InputError):
        forget_failure(journal, 1)


def test_truncated_last_line_is_skipped_with_a_warning(tmp_path):
    journal = Journal(tmp_path / "journal")
    append_failure(journal, make())
    path = tmp_path / "journal" / "failures.jsonl"
    with path.open("ab") as fh:
        fh.write(b'{"id": 2, "kind": "failed_att')
    warnings: list[str] = []
    assert [f.id for f in load_failures(journal, on_warning=warnings.append)] == [1]
    assert warnings == ["failures.jsonl: skipped an incomplete last line"]
    assert append_failure(journal, make(TRACE_B, DIFF_B))["target"] == 1
    assert load_failures(journal)[0].occurrences == 2


WRITER = """
import sys
from pathlib import Path
from gitstrata.serve.failures import build_failure_record
from gitstrata.store.attempts import Attempt, append_failure
from gitstrata.store.journal import Journal
root, n, kind = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
for i in range(n):
    trace = f"FAILED tests/t.py::test_{kind} - AssertionError: {kind}"
    rec = build_failure_record(Attempt("a.py", "", trace, command="pytest", exit_code=1))
    append_failure(Journal(root), rec)
"""


def test_concurrent_writers_never_duplicate_or_interleave(tmp_path):
    root = tmp_path / "journal"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(root), "10", kind])
        for kind in ("same", "same", "same", "other")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    lines = (root / "failures.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]  # every line is whole JSON
    assert len(records) == 40
    assert sorted(r["id"] for r in records) == list(range(1, 41))
    failures = load_failures(Journal(root))
    assert sorted(f.occurrences for f in failures) == [10, 30]


def test_attempt_validation_is_one_path_for_every_edge():
    limits = PayloadLimits(payload=1024, note=16)
    Attempt("a.py", DIFF_A[:1000], "", notes="x" * 16).validate(limits)
    with pytest.raises(InputError, match="all empty"):
        Attempt("a.py", " \n", "", notes="  ").validate(limits)
    with pytest.raises(InputError, match="error_trace is 1025 bytes, over the 1 KB limit"):
        Attempt("a.py", "", "é" * 512 + "x").validate(limits)
    with pytest.raises(InputError, match="command is 17 bytes"):
        Attempt("a.py", "d", "", command="y" * 17).validate(limits)
    with pytest.raises(InputError, match="attempted_diff must be text"):
        Attempt("a.py", None, "boom").validate(limits)  # type: ignore[arg-type]
    # empty optional texts mean "not given", as the MCP tool's omitted arguments do
    assert Attempt("a.py", "d", notes="", symbol_name="", command="").notes is None


# ---------------------------------------------------------------- what an attempt changed


def test_touched_lines_are_the_replaced_lines_or_the_neighbours_of_an_insertion() -> None:
    from gitstrata.store.attempts import touched_lines

    replaced = (
        "--- a/x.py\n+++ b/x.py\n@@ -1,4 +1,4 @@\n def f():\n-    return key\n+    return new()\n"
        "     # done\n"
    )
    assert touched_lines(replaced) == {"return key"}
    inserted = (
        "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,5 @@\n def parse(v):\n+    if ok(v):\n"
        "+        return round(v)\n     raise ParseError(v)\n }\n"
    )
    # wedged between the signature and the raise; a lone brace is no evidence
    assert touched_lines(inserted) == {"def parse(v):", "raise ParseError(v)"}
    assert touched_lines("") == frozenset()


def test_error_codes_a_traceback_only_printed_are_not_what_failed() -> None:
    from gitstrata.serve.anticontext import _what_failed
    from gitstrata.store.attempts import FailedAttempt

    attempt = FailedAttempt(
        id=1,
        first_seen="",
        last_seen="",
        occurrences=1,
        targets=(("a.py", "check"),),
        signature=Signature(
            errors=("TokenError: ERR_SAMPLE_EXPIRED",),
            codes=("ERR_SAMPLE_EXPIRED", "ERR_PRINTED_ONLY", "ERR_NEW"),
        ),
        fingerprint="f",
    )
    text = _what_failed(attempt, '+    raise TokenError("ERR_NEW")')
    assert "ERR_SAMPLE_EXPIRED" in text and "ERR_NEW" in text
    assert "ERR_PRINTED_ONLY" not in text
