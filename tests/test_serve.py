"""Serving on a small real repository: preflight, search, rendering, JSON shape, determinism."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gitstrata import Strata
from gitstrata.serve.models import Hit, PreflightReport, SearchResponse
from gitstrata.serve.render import estimate_tokens, render_preflight, render_search

RETRY_V1 = '''"""Charging with retries."""
import uuid


def charge_with_retry(client, order_id, amount_cents, attempts=3):
    """Charge once, retrying gateway timeouts."""
    for _ in range(attempts):
        try:
            return client.charge(order_id, amount_cents, idempotency_key=str(uuid.uuid4()))
        except TimeoutError:
            continue
    raise TimeoutError(order_id)


def refund(client, charge_id):
    return client.refund(charge_id)
'''

RETRY_V2 = RETRY_V1.replace(
    """    for _ in range(attempts):
        try:
            return client.charge(order_id, amount_cents, idempotency_key=str(uuid.uuid4()))""",
    """    idempotency_key = f"{order_id}:{uuid.uuid5(uuid.NAMESPACE_URL, order_id)}"
    for _ in range(attempts):
        try:
            return client.charge(order_id, amount_cents, idempotency_key=idempotency_key)""",
)

GATEWAY = '''"""Gateway client."""


class GatewayClient:
    def charge(self, order_id, amount_cents, idempotency_key):
        """POST /charges."""
        return {"order": order_id, "key": idempotency_key}

    def refund(self, charge_id):
        return {"refund": charge_id}
'''

PARSER = """export function parseOrder(raw: string) {
  return JSON.parse(raw);
}
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    from conftest import GitRepo

    r = GitRepo(tmp_path_factory.mktemp("serve") / "repo")
    r.commit(
        "feat(payments): gateway client and charge retry",
        {
            "backend/payments/retry.py": RETRY_V1,
            "backend/payments/gateway.py": GATEWAY,
            "mobile/src/orderParser.ts": PARSER,
        },
    )
    r.commit("docs: readme", {"README.md": "# shop\n"})
    r.commit(
        "fix(payments): reuse one idempotency key across retries (INC-2407)\n\nA fresh key per attempt "
        "charged customers twice when the gateway timed out after accepting the charge.",
        {"backend/payments/retry.py": RETRY_V2, "mobile/src/orderParser.ts": PARSER + "// v2\n"},
    )
    r.commit(
        "feat(payments): charge metadata",
        {
            "backend/payments/gateway.py": GATEWAY.replace(
                '"POST /charges."', '"POST /charges with metadata."'
            ),
            "mobile/src/orderParser.ts": PARSER + "// v3\n",
        },
    )
    with Strata(r.path) as s:
        s.index(jobs=1)
    return r


def test_preflight_shows_load_bearing_bugfix_lines(repo) -> None:
    with Strata(repo.path) as s:
        report = s.preflight("backend/payments/retry.py", "charge_with_retry", "new key per retry")
    assert report.found and report.symbol == "charge_with_retry"
    assert report.context is not None and report.context.kind == "function"
    assert (report.context.start_line, report.context.end_line) == (5, 13)
    fix = [o for o in report.ownership if o.load_bearing]
    assert len(fix) == 1 and fix[0].commit.intent == "bugfix"
    assert fix[0].lines == 2  # the new key line and the charge call that uses it
    assert report.load_bearing_lines == 2 and report.total_lines == 9
    assert [h.commit.intent for h in report.history] == ["bugfix", "feature"]
    assert "INC-2407" in report.history[0].commit.subject
    block = render_preflight(report)
    assert "<load_bearing_code why_this_code_exists>" in block
    assert "removing them may re-open that bugfix" in block


def test_related_memory_leaves_out_what_the_target_holds(repo) -> None:
    # a class's own methods are the answer, not related context; what is outside its lines
    # (the charging function of another file) is
    with Strata(repo.path) as s:
        report = s.preflight(
            "backend/payments/gateway.py", "GatewayClient", "charge and refund with metadata"
        )
        whole = s.preflight("backend/payments/gateway.py", None, "charge and refund with metadata")
    assert report.found and report.symbol == "GatewayClient"
    related = [(h.path, h.symbol) for h in report.related if h.kind == "symbol"]
    assert related and not [q for p, q in related if (q or "").startswith("GatewayClient.")]
    assert ("backend/payments/retry.py", "charge_with_retry") in related
    # a whole-file preflight holds every symbol of the file: its symbols stay related hits
    assert any((h.symbol or "").startswith("GatewayClient.") for h in whole.related)


def test_commit_dates_are_when_the_commits_landed(tmp_path) -> None:
    # a commit written before another but committed after it (a rebase) is the newer: history
    # is newest first by commit time, and the dates it shows are commit dates, in that order
    from datetime import UTC, datetime

    from conftest import BASE_EPOCH, DAY, GitRepo

    r = GitRepo(tmp_path / "repo")
    r.commit("feat: add pay", {"app/pay.py": "def pay(x):\n    return x\n"})
    r.commit("feat: round pay", {"app/pay.py": "def pay(x):\n    return round(x)\n"})
    r.commit("fix: pay in cents", {"app/pay.py": "def pay(x):\n    return round(x * 100)\n"})
    landed = BASE_EPOCH + 3 * DAY
    r.git("commit", "--amend", "-q", "--no-edit", "--date", f"@{BASE_EPOCH + DAY // 2} +0000",
          when=landed)  # fmt: skip
    with Strata(r.path) as s:
        s.index(jobs=1)
        report = s.preflight("app/pay.py", "pay")
    history = [(h.commit.subject, h.commit.date) for h in report.history]
    assert history[0] == (
        "fix: pay in cents",
        datetime.fromtimestamp(landed, UTC).date().isoformat(),
    )
    assert [d for _, d in history] == sorted((d for _, d in history), reverse=True)


def test_preflight_unknown_targets_offer_nearest(repo) -> None:
    with Strata(repo.path) as s:
        missing_file = s.preflight("backend/payments/retyr.py")
        missing_symbol = s.preflight("backend/payments/retry.py", "charge_with_retri")
    assert not missing_file.found and missing_file.nearest[0] == "backend/payments/retry.py"
    assert not missing_symbol.found
    assert missing_symbol.nearest == ["backend/payments/retry.py::charge_with_retry"]
    # the candidates are the whole answer: nothing about the file under a name not found
    assert missing_symbol.history == [] and missing_symbol.ownership == []
    assert missing_symbol.coupling == [] and missing_symbol.related == []
    block = render_preflight(missing_symbol)
    assert "<causal_history" not in block and "<co_change_coupling" not in block


def _grouped_reference(table, key: str, order) -> dict:
    """The lookups as plain Python: group the rows by `key`, stable-sort each group by `order`."""
    groups: dict = {}
    for row in table.to_pylist():
        if row[key] is not None:
            groups.setdefault(row[key], []).append(row)
    for rows in groups.values():
        for column, direction in reversed(order):  # stable sorts, least significant first
            rows.sort(key=lambda r, c=column: r[c], reverse=direction == "descending")
    return groups


def test_lookups_match_a_plain_grouping_before_and_after_warm(repo) -> None:
    from gitstrata.serve.index import ServeIndex

    newest = [("commit_time", "descending"), ("sha", "descending")]
    ranked = [
        ("rank_score", "descending"),
        ("co_commits", "descending"),
        ("dst_commits", "descending"),
        ("dst", "ascending"),
    ]
    cases = [
        ("touches_by_symbol", "_touches", "symbol_id", newest),
        ("touches_by_path", "_touches", "head_path", newest),
        ("touches_by_sha", "_touches", "sha", newest),
        ("blame_by_symbol", None, "symbol_id", [("lines", "descending"), ("sha", "ascending")]),
        ("coupling_files", None, "src", ranked),
    ]
    with Strata(repo.path) as s:
        store_root = s.index_dir
    cold, warm = ServeIndex.open(store_root), ServeIndex.open(store_root)
    warm.warm()
    tables = {
        "blame_by_symbol": warm.table("blame", columns=list(warm.blame_by_symbol[next(iter(warm.blame_by_symbol))][0])),
        "coupling_files": warm.table("cochange_files", columns=list(warm.coupling_files[next(iter(warm.coupling_files))][0])),
    }  # fmt: skip
    for attr, source, key, order in cases:
        table = getattr(warm, source) if source else tables[attr]
        expected = _grouped_reference(table, key, order)
        assert expected, attr
        assert sorted(getattr(warm, attr)) == sorted(expected), attr
        for k, rows in expected.items():
            assert getattr(cold, attr).get(k) == rows, (attr, k)
            assert getattr(warm, attr)[k] == rows, (attr, k)
        assert getattr(cold, attr).get("no such key") is None
    paths = sorted({r.path for r in warm.symbols})
    assert warm.paths == paths == cold.paths
    for path in paths:
        expected_rows = [r for r in warm.symbols if r.path == path]
        assert cold.symbols_by_path[path] == expected_rows == warm.symbols_by_path[path]


def test_structured_content_is_bounded_like_the_text(repo) -> None:
    from gitstrata.serve.payload import bound

    with Strata(repo.path) as s:
        report = s.preflight("backend/payments/retry.py")
    data = report.model_dump(mode="json")
    assert bound(data, 100_000) is data  # within the budget: unchanged
    size = len(json.dumps(data, ensure_ascii=False))
    budget = size // 4 * 2 // 3  # two thirds of what it needs
    small = bound(data, budget)
    assert len(json.dumps(small, ensure_ascii=False)) <= budget * 4
    assert small["truncated"].startswith(
        f'<truncated budget="retrieval.token_budget={budget}">left out: '
    )
    assert small["file"] == data["file"] and small["invariants"] == data["invariants"]
    assert len(small["ownership"]) < len(data["ownership"])


def test_search_finds_the_fix_commit_and_is_deterministic(repo) -> None:
    with Strata(repo.path) as s:
        first = s.search("why do retries reuse one idempotency key", top_k=5)
        second = s.search("why do retries reuse one idempotency key", top_k=5)
    assert first.query_class == "causal"
    assert first.hits[0].kind == "commit" and "INC-2407" in first.hits[0].title
    strip = [h.model_dump(exclude={"evidence"}) for h in first.hits]
    assert strip == [h.model_dump(exclude={"evidence"}) for h in second.hits]
    code = [h for h in first.hits if h.kind == "symbol" and h.symbol == "charge_with_retry"]
    assert code and code[0].why and code[0].why[0].intent == "bugfix"


def test_search_modes_and_file_filter(repo) -> None:
    with Strata(repo.path) as s:
        for mode in ("bm25", "dense", "hybrid", "full"):
            resp = s.search("gateway refund", top_k=3, mode=mode)
            assert resp.mode == mode and resp.hits
        filtered = s.search("charge", top_k=10, file_path="backend/payments/gateway.py")
    assert filtered.hits
    for h in filtered.hits:
        assert h.path == "backend/payments/gateway.py" or h.kind == "commit"


def test_exact_baselines_rank_by_the_float_vectors_when_kept_else_by_the_int8_ones(
    repo, tmp_path
) -> None:
    import numpy as np

    from gitstrata.stages.quantize import vectors_matrix

    def exact(index_dir: Path | None) -> tuple[np.ndarray, object, object]:
        with Strata(repo.path, index_dir=index_dir) as s:
            searcher = s.engine.searcher
            assert searcher is not None
            return searcher.f32.copy(), searcher.vectors.mapped, s.engine.index.gen

    # the default index keeps no float vectors: the int8 codes, dequantised, unit rows
    lean, mapped, gen = exact(None)
    assert gen.table("vectors_f32").num_rows == 0
    rows = mapped.codes.astype(np.float32) * mapped.scales[:, None]
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    np.testing.assert_allclose(lean, rows, rtol=0, atol=1e-6)
    # kept on request: those, widened from float16
    kept_dir = tmp_path / "kept"
    kept_dir.mkdir()
    (kept_dir / "config.json").write_text('{"embedding": {"float_vectors": true}}')
    Strata(repo.path, index_dir=kept_dir).index()
    kept, mapped_kept, gen_kept = exact(kept_dir)
    stored = vectors_matrix(gen_kept.table("vectors_f32"))
    assert len(stored) == mapped_kept.n == len(lean)
    np.testing.assert_allclose(
        kept, stored / np.linalg.norm(stored, axis=1, keepdims=True), atol=1e-6
    )
    # the float vectors change nothing served, and the two rank alike at int8's precision
    assert np.array_equal(mapped_kept.codes, mapped.codes)
    assert np.abs(kept - lean).max() < 0.02
    # `inspect` mentions the float vectors where they are kept, and only there
    for index_dir, held in ((None, False), (kept_dir, True)):
        with Strata(repo.path, index_dir=index_dir) as s:
            assert s.inspect()["float_vectors_kept"] is held
        args = ["inspect"] if index_dir is None else ["inspect", "--out", str(index_dir)]
        said = _cli(repo.path, *args)
        assert said.returncode == 0, said.stderr
        assert ("float vectors it keeps" in said.stdout) is held


@pytest.mark.parametrize("top_k", [0, -1, True, 2.5, "3"])
def test_search_refuses_a_count_that_is_not_a_positive_whole_number(repo, top_k) -> None:
    # a negative count sliced the ranking from its end: -1 gave every hit but the last
    from gitstrata.store.errors import InputError

    with Strata(repo.path) as s:
        with pytest.raises(InputError, match="top_k must be a whole number of at least 1"):
            s.search("gateway refund", top_k=top_k)
        assert len(s.search("gateway refund", top_k=1).hits) == 1


def test_the_api_says_which_argument_is_wrong(repo) -> None:
    # each was a ValueError or a pydantic validation dump; "the query is empty" for a number
    from gitstrata.store.errors import InputError

    path = "backend/payments/retry.py"
    with Strata(repo.path) as s:
        for call, said in (
            (lambda: s.search(123), "the query must be text"),  # type: ignore[arg-type]
            (lambda: s.search("refund", mode="bogus"), "unknown mode 'bogus'; known: full"),
            (lambda: s.preflight(path, 5), "symbol must be text"),  # type: ignore[arg-type]
            (lambda: s.preflight(path, "refund", 7), "intended_change must be text"),  # type: ignore[arg-type]
        ):
            with pytest.raises(InputError) as caught:
                call()
            assert str(caught.value).startswith(said)


def test_exact_symbol_is_pinned(repo) -> None:
    with Strata(repo.path) as s:
        resp = s.search("rename parseOrder to parse_order_payload", top_k=5)
    assert resp.query_class == "change"
    assert resp.hits[0].symbol == "parseOrder" and resp.hits[0].pinned


def test_render_respects_token_budget(repo) -> None:
    with Strata(repo.path) as s:
        report = s.preflight("backend/payments/retry.py", "charge_with_retry")
    full = render_preflight(report, budget=None)
    small = render_preflight(report, budget=150)
    assert estimate_tokens(small) <= 150 + small.count("\n")
    assert small.startswith("<gitstrata_preflight") and small.endswith("</gitstrata_preflight>")
    assert len(small) < len(full)
    assert "removing them may re-open" in small  # load-bearing lines are kept longest
    assert "<related_memory>" not in small  # emptied sections disappear


def test_json_shape_is_stable() -> None:
    def shape(model) -> dict:
        out = {}
        for name, field in model.model_fields.items():
            out[name] = str(field.annotation)
        return out

    assert list(shape(SearchResponse)) == [
        "schema_version",
        "query",
        "mode",
        "query_class",
        "fusion_weights",
        "file_filter",
        "hits",
        "warnings",
        "invariants",
        "latency_ms",
        "generation",
        "firewall",
        "memories",
        "index_notes",
    ]
    assert list(shape(Hit)) == [
        "rank",
        "doc",
        "kind",
        "key",
        "path",
        "symbol",
        "title",
        "snippet",
        "date",
        "intent",
        "score",
        "pinned",
        "evidence",
        "why",
        "reason",
        "author",
    ]
    assert list(shape(PreflightReport)) == [
        "schema_version",
        "file",
        "symbol",
        "intended_change",
        "found",
        "message",
        "nearest",
        "context",
        "ownership",
        "load_bearing_share",
        "load_bearing_lines",
        "total_lines",
        "history",
        "coupling",
        "symbol_coupling",
        "tests",
        "related",
        "invariants",
        "warnings",
        "past_attempts",
        "latency_ms",
        "generation",
        "firewall",
        "code_lines",
        "load_bearing",
        "load_bearing_commits",
        "history_total",
        "history_more",
        "memories",
        "index_notes",
    ]


def test_cli_query_and_preflight(repo) -> None:
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "gitstrata", "-C", str(repo.path), *args],
            capture_output=True,
            text=True,
        )

    q = run("query", "idempotency key", "--json")
    assert q.returncode == 0, q.stderr
    assert json.loads(q.stdout)["hits"]
    raw = run("query", "idempotency key", "--raw")
    assert raw.stdout.startswith("<gitstrata_search")
    p = run("preflight", "backend/payments/retry.py", "-s", "charge_with_retry")
    assert p.returncode == 0 and "<causal_history>" in p.stdout
    bad = run("preflight", "../outside.py")
    assert bad.returncode == 1 and bad.stderr.startswith(
        "error: ../outside.py: outside the repository"
    )
    render_search(SearchResponse.model_validate_json(q.stdout))


def test_inspect_hotspots_are_code_files(tmp_path) -> None:
    # the changelog and the manifest change with every release, so they have the most partners
    from conftest import GitRepo

    r = GitRepo(tmp_path / "repo")
    for i in range(3):
        r.commit(
            f"release {i}",
            {
                "CHANGES.md": f"# changes\n- {i}\n",
                "package.json": f'{{"version": "1.{i}.0"}}\n',
                "src/a.py": f"def a():\n    return {i}\n",
                "src/b.py": f"def b():\n    return {i}\n",
            },
        )
    r.commit("c alone", {"src/c.py": "def c():\n    return 1\n"})
    got = _cli(r.path, "index", "-q", "-j", "1")
    assert got.returncode == 0, got.stderr
    hot = [h["path"] for h in json.loads(_cli(r.path, "inspect", "--json").stdout)["hotspots"]]
    assert sorted(hot) == ["src/a.py", "src/b.py"]


def _cli(path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gitstrata", "-C", str(path), *args], capture_output=True, text=True
    )


def test_sql_describes_a_table_and_refuses_to_write(repo) -> None:
    from gitstrata.store.errors import InputError

    with Strata(repo.path) as s:
        cols = s.sql("describe commits;").to_dicts()
        assert cols[0] == {"column": "sha", "type": "String"}
        assert [c["column"] for c in cols] == s.sql("SELECT * FROM commits LIMIT 0").columns
        for statement in ("DESCRIBE nope", "DESCRIBE commits, touches"):
            with pytest.raises(InputError, match="DESCRIBE names one table"):
                s.sql(statement)
        for statement in (
            "DROP TABLE commits",
            "truncate touches",
            "-- note\nUPDATE commits SET sha = 'x'",
        ):
            with pytest.raises(InputError, match="the index is read-only"):
                s.sql(statement)
        assert s.sql("SELECT count(*) AS n FROM touches").item() > 0


def test_sql_and_inspect(repo) -> None:
    def run(*args: str) -> subprocess.CompletedProcess:
        return _cli(repo.path, *args)

    got = run(
        "sql", "SELECT intent, count(*) AS n FROM commits GROUP BY intent ORDER BY intent", "--json"
    )
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout) == [
        {"intent": "bugfix", "n": 1},
        {"intent": "docs", "n": 1},
        {"intent": "feature", "n": 2},
    ]
    bad = run("sql", "SELECT * FROM nope")
    assert bad.returncode == 1 and bad.stderr.startswith("error: SQL error")
    # the index is read-only: a statement that would write is refused, whatever precedes it
    gone = run("sql", "/* tidy */ (DELETE FROM commits")
    assert gone.returncode == 1
    assert gone.stderr.splitlines() == [
        "error: DELETE: the index is read-only, `sql` runs queries",
        "hint: ask with SELECT or WITH; SHOW TABLES lists the tables, DESCRIBE <table> its columns",
    ]
    assert json.loads(run("sql", "SELECT count(*) AS n FROM commits", "--json").stdout) == [
        {"n": 4}
    ]
    info = json.loads(run("inspect", "--json").stdout)
    assert info["bytes_mapped_by_server"] < info["bytes_on_disk"]
    lb = {r["path"]: r["bugfix_lines"] for r in info["load_bearing_files"]}
    assert lb == {"backend/payments/retry.py": 2}
