"""OKF invariants: canonical file bytes, validation, glob and symbol scopes, concurrent writers."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gitstrata.serve.invariants import Invariant, InvariantError, InvariantStore

PAY = "Every gateway charge reuses ONE idempotency key per order across retries (INC-2407)."


@pytest.fixture
def store(tmp_path):
    return InvariantStore(tmp_path / ".strata" / "invariants.okf.json")


def test_file_is_canonical_sorted_json(store):
    store.add("INV-PAY-001", "backend/payments/**", PAY, "critical")
    store.add(
        "INV-API-002",
        "backend/api/schemas.py::Order*",
        "Order fields stay in sync with the mobile parser.",
        "High",
    )
    assert store.path.read_text(encoding="utf-8") == (
        "{\n"
        '  "format": "okf",\n'
        '  "invariants": [\n'
        "    {\n"
        '      "description": "Order fields stay in sync with the mobile parser.",\n'
        '      "id": "INV-API-002",\n'
        '      "scope": "backend/api/schemas.py::Order*",\n'
        '      "severity": "high"\n'
        "    },\n"
        "    {\n"
        f'      "description": "{PAY}",\n'
        '      "id": "INV-PAY-001",\n'
        '      "scope": "backend/payments/**",\n'
        '      "severity": "critical"\n'
        "    }\n"
        "  ],\n"
        '  "version": 1\n'
        "}\n"
    )
    before = store.path.read_bytes()
    store.add("INV-PAY-001", "backend/payments/**", PAY, "critical")
    assert store.path.read_bytes() == before  # re-adding the same rule changes nothing
    assert [p.name for p in store.path.parent.iterdir() if not p.name.endswith(".lock")] == [
        "invariants.okf.json"
    ]  # no temporary file left behind


def test_readd_replaces_and_remove(store):
    store.add("R1", "src/**", "first", "low")
    store.add("R1", "lib/**", "second", "medium")
    assert store.rules() == [Invariant("R1", "lib/**", "second", "medium")]
    assert store.remove("R1") == Invariant("R1", "lib/**", "second", "medium")
    assert store.rules() == []
    with pytest.raises(InvariantError, match="no invariant 'R1'"):
        store.remove("R1")


@pytest.mark.parametrize(
    ("rule_id", "scope", "description", "severity", "message"),
    [
        ("R1", "src/**", "x", "urgent", "unknown severity 'urgent'"),
        ("bad id!", "src/**", "x", "low", "invalid rule id"),
        ("R1", "  ", "x", "low", "the scope is empty"),
        ("R1", "/etc/**", "x", "low", "must be relative"),
        ("R1", "../other/**", "x", "low", "must be relative"),
        ("R1", "src/**", "   ", "low", "the description is empty"),
    ],
)
def test_validation_errors_are_clear(store, rule_id, scope, description, severity, message):
    with pytest.raises(InvariantError, match=message):
        store.add(rule_id, scope, description, severity)
    assert not store.path.exists()


def test_glob_scopes(store):
    store.add("PAY", "backend/payments/**", PAY, "critical")
    store.add("PY", "**/*.py", "Python files are formatted with ruff.", "low")
    store.add("TOP", "src/*.ts", "Top-level sources only.", "medium")
    store.add("DIR", "docs/", "Docs are reviewed.", "low")
    assert [i.id for i in store.match("backend/payments/retry.py")] == ["PAY", "PY"]
    assert [i.id for i in store.match("backend/payments/deep/x/gateway.go")] == ["PAY"]
    assert [i.id for i in store.match("setup.py")] == ["PY"]
    assert [i.id for i in store.match("src/app.ts")] == ["TOP"]
    assert store.match("src/nested/app.ts") == []
    assert [i.id for i in store.match("docs/guide/intro.md")] == ["DIR"]
    assert store.match("backend/paymentsX/retry.go") == []


def test_symbol_scopes(store):
    store.add(
        "ORD", "backend/api/*.py::Order*", "Order models change with the mobile parser.", "high"
    )
    store.add("TTL", "cache.py::TTLCache.set", "set() takes the lock.", "critical")
    assert [i.id for i in store.match("backend/api/schemas.py", "OrderLine")] == ["ORD"]
    assert [i.id for i in store.match("backend/api/schemas.py", "Order.total")] == ["ORD"]
    assert store.match("backend/api/schemas.py", "Customer") == []
    assert store.match("backend/api/schemas.py") == []  # no symbol given
    assert [i.id for i in store.match_file("backend/api/schemas.py")] == ["ORD"]
    assert [i.id for i in store.match("cache.py", "TTLCache.set")] == ["TTL"]
    assert store.match("cache.py", "TTLCache.setdefault") == []


def test_sorted_by_severity_then_id(store):
    for rule_id, severity in [("B", "low"), ("A", "low"), ("C", "critical"), ("D", "medium")]:
        store.add(rule_id, "**", f"rule {rule_id}", severity)
    assert [i.id for i in store.match("any/file.py")] == ["C", "D", "A", "B"]


def test_external_edit_is_seen_and_bad_file_is_reported(store):
    store.add("R1", "src/**", "first", "low")
    assert len(store.match("src/a.py")) == 1
    other = InvariantStore(store.path)
    other.add("R2", "src/**", "second", "high")
    assert [i.id for i in store.match("src/a.py")] == ["R2", "R1"]
    store.path.write_text('{"invariants": [{"id": "R1", "scope": "src/**"}]}\n')
    with pytest.raises(
        InvariantError, match="invariants.okf.json: invariant #1 has no 'description'"
    ):
        store.rules()
    store.path.write_text("{not json")
    with pytest.raises(InvariantError, match="invariants.okf.json: not valid JSON"):
        store.rules()


ADDER = """
import sys
from gitstrata.serve.invariants import InvariantStore
store = InvariantStore(sys.argv[1])
for i in range(15):
    store.add(f"{sys.argv[2]}-{i:02d}", "src/**", "rule", "low")
"""


def test_concurrent_writers_lose_nothing(store):
    procs = [
        subprocess.Popen([sys.executable, "-c", ADDER, str(store.path), name])
        for name in ("A", "B", "C")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    ids = [i.id for i in store.rules()]
    assert len(ids) == 45 and ids == sorted(ids)
