"""Damage, bad input, signals and oversized requests, against the real CLI and MCP server.

Each case runs the installed entry point (`python -m gitstrata`) on a real repository in a temp
dir and asserts the outcome a user sees: one line on stderr, a non-zero exit, no traceback; a
damaged generation named by `status` and repaired by `index`; a stdio server that stops cleanly.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitstrata.serve import router
from gitstrata.serve.payload import bound
from gitstrata.store.config import Config
from gitstrata.store.errors import ConfigError
from gitstrata.store.generations import Store
from tests.conftest import GitRepo

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def gs(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gitstrata", *args],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def one_line_error(done: subprocess.CompletedProcess) -> str:
    """The error line of a failed command; fails the test on a traceback or a zero exit."""
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode != 0, err
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines and lines[0].startswith("error: ") and len(lines) <= 2, err
    return lines[0]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    repo = GitRepo(tmp_path_factory.mktemp("robust") / "repo")
    repo.commit("add pricing", {"pay/price.py": "def price(x):\n    return x * 2\n"})
    repo.commit(
        "fix rounding of prices\n\nCents were lost on refunds.",
        {"pay/price.py": "def price(x):\n    return round(x * 2, 2)\n\ndef refund(x):\n    pass\n"},
    )
    done = gs("-C", str(repo.path), "index", "-q")
    assert done.returncode == 0, done.stderr
    return repo


@pytest.fixture
def repo(indexed: GitRepo, tmp_path: Path) -> GitRepo:
    """A private copy of the indexed repository, free to damage."""
    import shutil

    target = tmp_path / "copy"
    shutil.copytree(indexed.path, target, symlinks=True)
    return GitRepo(target)  # `git init` in an existing repository changes nothing


def _damage_docmeta(strata: Path) -> None:
    target = next(strata.glob("gen-*/docmeta.arrow"))
    data = bytearray(target.read_bytes())
    for i in range(len(data) // 3, len(data) // 3 + 64):
        data[i] ^= 0xFF
    target.write_bytes(bytes(data))  # the same size: only the checksum can tell


def _truncate_commits(strata: Path) -> None:
    target = next(strata.glob("gen-*/commits.parquet"))
    os.truncate(target, 1000)


def _current_not_utf8(strata: Path) -> None:
    (strata / "CURRENT").write_bytes(b"\xff\xfegen\n")


def _current_is_a_folder(strata: Path) -> None:
    (strata / "CURRENT").unlink()
    (strata / "CURRENT").mkdir()


DAMAGE = {
    "docmeta same size": (_damage_docmeta, "docmeta.arrow: checksum mismatch"),
    "commits truncated": (_truncate_commits, "commits.parquet: size differs"),
    "CURRENT not UTF-8": (_current_not_utf8, "CURRENT: not UTF-8 text"),
    "CURRENT a folder": (_current_is_a_folder, "CURRENT: not a file"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(DAMAGE))
@pytest.mark.parametrize("repair", [["index"], ["index", "--rebuild"]])
def test_damage_is_named_by_every_command_and_index_repairs_it(
    repo: GitRepo, case: str, repair: list[str]
) -> None:
    strata = repo.path / ".strata"
    damage, expected = DAMAGE[case]
    damage(strata)
    where = ["-C", str(repo.path)]
    for args in (["status"], ["query", "price"], ["preflight", "pay/price.py"], ["inspect"]):
        line = one_line_error(gs(*where, *args))
        assert expected in line, (args, line)
    fixed = gs(*where, *repair, "-q")
    assert fixed.returncode == 0, fixed.stderr
    assert b"Traceback" not in fixed.stderr
    status = gs(*where, "status", "--json")
    assert status.returncode == 0, status.stderr
    live = json.loads(status.stdout)["generation"]
    assert live != "gen-000001"  # a new generation, not "up to date" over the damaged one
    assert gs(*where, "query", "price").returncode == 0
    assert Store(strata).require_live().verify() == []
    # the damaged generation is collected once a sound one is live
    assert "gen-000001" not in Store(strata).generations() or case.startswith("CURRENT")


def test_an_index_another_version_built_is_named_and_a_server_rebuilds_it(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sound files this code cannot answer from (an index an earlier gitstrata built, whose
    embedder state is of another format): `status` says so and exits 1, opening an engine fails
    at once with the rebuild hint, and a server starts the build that replaces it."""
    from typer.testing import CliRunner

    from gitstrata import Strata
    from gitstrata.cli import app
    from gitstrata.serve.engine import Engine
    from gitstrata.serve.lifecycle import Lifecycle
    from gitstrata.store import embedder
    from gitstrata.store.errors import IndexCorrupt

    strata = repo.path / ".strata"
    assert Strata(repo.path).status()["problem"] is None
    monkeypatch.setattr(embedder, "TOKENIZER_VERSION", embedder.TOKENIZER_VERSION + 1)
    assert Store(strata).require_live().problems() == {}  # no file is damaged
    problem = Strata(repo.path).status()["problem"]
    assert "built by another version of gitstrata" in problem and "--rebuild" in problem
    shown = CliRunner().invoke(app, ["-C", str(repo.path), "status"])
    assert shown.exit_code == 1 and "cannot be served" in shown.output, shown.output
    as_json = CliRunner().invoke(app, ["-C", str(repo.path), "status", "--json"])
    assert as_json.exit_code == 1 and json.loads(as_json.output)["problem"] == problem
    with pytest.raises(IndexCorrupt, match="another version of gitstrata"):
        Engine.open(strata, repo_root=repo.path)
    life = Lifecycle(repo.path, interval=0.1, wait_seconds=10)
    life.start()
    try:
        deadline = time.monotonic() + 30
        while life.last_refresh is None and life._build is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert life.engine is None
        assert life._build is not None or life.last_refresh is not None  # a build was started
        assert any("another version of gitstrata" in e["message"] for e in life.errors)
        text, state, _ = life.notice()
        if state.get("status") == "indexing":  # the build may be over already
            assert "rebuilding this repository's index, which could not be opened" in text
    finally:
        life.close()


@pytest.mark.slow
def test_index_rebuilds_only_the_damaged_stages(repo: GitRepo) -> None:
    strata = repo.path / ".strata"
    _damage_docmeta(strata)
    done = gs("-C", str(repo.path), "index", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    ran = {s["name"] for s in report["stages"] if not s["skipped"]}
    assert "documents" in ran and "capsule" not in ran and "chunk" not in ran
    assert any("damaged" in w for w in report["warnings"])


def test_stale_temp_files_of_dead_writers_are_swept_and_live_ones_kept(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    store.ensure()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    gone = int(dead.stdout)
    (store.root / f".tmp-gen-000007-{gone}").mkdir()
    (store.root / f".CURRENT.{gone}").write_text("gen-000007\n")
    mine = os.getpid()
    (store.root / f".tmp-gen-000008-{mine}").mkdir()
    (store.root / f".CURRENT.{mine}").write_text("gen-000008\n")
    removed = store.sweep()
    assert sorted(removed) == sorted([f".tmp-gen-000007-{gone}", f".CURRENT.{gone}"])
    assert (store.root / f".tmp-gen-000008-{mine}").is_dir()
    assert (store.root / f".CURRENT.{mine}").is_file()


def test_a_verified_generation_is_not_hashed_again_until_a_file_changes(indexed: GitRepo) -> None:
    from gitstrata.store import generations

    store = Store(indexed.path / ".strata")
    gen = store.require_live()
    assert (gen.path / generations.VERIFIED).is_file()  # written when it was published
    sig = gen.stat_signature()
    assert json.loads((gen.path / generations.VERIFIED).read_text())["stat_signature"] == sig
    target = gen.path / "commits.parquet"
    os.utime(target, ns=(target.stat().st_atime_ns, target.stat().st_mtime_ns + 1))
    assert gen.stat_signature() != sig


# ------------------------------------------------------------------ bad input, one line


@pytest.mark.slow
def test_bad_input_is_one_line_and_a_non_zero_exit(indexed: GitRepo, tmp_path: Path) -> None:
    where = ["-C", str(indexed.path)]
    bad = os.fsdecode(b"\xff")
    cases = [
        [*where, "query", "--json", bad],
        [*where, "invariant", "add", "R1", "--scope", "pay/*.py", "-d", bad],
        [*where, "index", "--out", "/etc/hostname"],
        [*where, "sql", "--parquet", str(tmp_path / "no" / "dir" / "x.parquet"), "select 1"],
        [*where, "invariant", "add", "R2", "--scope", "a" * 5000, "-d", "x"],
    ]
    for args in cases:
        one_line_error(gs(*args))


def test_config_rejects_bad_commit_slots_and_deep_nesting(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(
        json.dumps({"retrieval": {"commit_slots": {"bogus": -5}}})
    )
    with pytest.raises(ConfigError, match="unknown query class 'bogus'"):
        Config.load(tmp_path)
    (tmp_path / "config.json").write_text(
        json.dumps({"retrieval": {"commit_slots": {"causal": -1}}})
    )
    with pytest.raises(ConfigError, match="0 or more"):
        Config.load(tmp_path)
    (tmp_path / "config.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ConfigError, match="nested too deeply"):
        Config.load(tmp_path)


@pytest.mark.slow
def test_an_unwritable_store_is_one_line(indexed: GitRepo, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "r"
    shutil.copytree(indexed.path, copy, symlinks=True)
    shutil.rmtree(copy / ".strata")
    (copy / ".strata").write_text("not a folder")  # refuses writes as root too
    for args in (["index"], ["invariant", "add", "R1", "--scope", "x/**", "-d", "d"]):
        assert "not a folder" in one_line_error(gs("-C", str(copy), *args))


cli_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40
)
cli_args = st.lists(
    st.one_of(
        st.sampled_from(["query", "preflight", "index", "status", "sql", "inspect", "invariant",
                         "add", "list", "--json", "--out", "-C", "--top-k", "-s", "--scope", "-d",
                         "--rebuild", "--mode", "graveyard", "config", "-1", "0", "1e9"]),
        cli_text,
    ),
    min_size=1,
    max_size=6,
)  # fmt: skip


@pytest.mark.slow
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(args=cli_args)
def test_fuzzed_cli_arguments_never_print_a_traceback(indexed: GitRepo, args: list[str]) -> None:
    if "index" in args:  # an index run writes; the fuzz only reads
        args = [a for a in args if a != "index"] or ["status"]
    done = gs("-C", str(indexed.path), *args, timeout=120)
    err = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, (args, err)
    if done.returncode != 0:
        # a failure always says why: on stderr, or a command group named without its
        # subcommand prints its usage (exit 2, as every Typer group does)
        out = done.stdout.decode("utf-8", "replace")
        assert err.strip() or (done.returncode == 2 and "Usage:" in out), args


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)  # fmt: skip
config_keys = st.sampled_from(["retrieval", "index", "graveyard", "firewall", "commit_slots",
                               "rrf_k", "token_budget", "keep_generations", "bogus"])  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(data=st.dictionaries(config_keys, json_values | st.dictionaries(config_keys, json_values)))
def test_fuzzed_config_files_load_or_fail_with_one_line(tmp_path_factory, data) -> None:
    folder = tmp_path_factory.mktemp("cfg")
    (folder / "config.json").write_text(json.dumps(data))
    try:
        Config.load(folder)
    except ConfigError as exc:
        assert "\n" not in str(exc)


# ------------------------------------------------------------------ bounded work


def test_the_router_reads_a_bounded_prefix_and_bounded_words() -> None:
    """Structural: whatever the query's length, the patterns see at most MAX_ROUTE_CHARS, and the
    patterns that retry from every position of a word see words of at most MAX_WORD_CHARS."""
    assert router.MAX_ROUTE_CHARS <= 4000 and router.MAX_WORD_CHARS <= 256
    long = "why " + "a" * 100_000
    assert router.route_text(long) == long[: router.MAX_ROUTE_CHARS]
    seen: list[int] = []

    class Spy:
        def finditer(self, text: str, start: int = 0, end: int | None = None):
            seen.append((end if end is not None else len(text)) - start)
            return iter(())

    list(router.per_word(Spy(), router._WORD, "x_y " + "b" * 50_000 + " snake_case"))  # type: ignore[arg-type]
    assert seen and max(seen) <= router.MAX_WORD_CHARS + 1


# a group that is one quantified atom, quantified again: `(a+)+`, `(?:\w*)*`, `([a-z]+){2,}`
_NESTED = re.compile(r"\((?:\?:)?(?:\\.|\[[^\]]*\]|[^()\\\[])[+*]\)[+*{]")


def test_user_input_patterns_have_no_nested_quantifiers() -> None:
    """No `(x+)+`-shaped pattern (exponential backtracking) in the patterns run on queries."""
    from gitstrata.serve import rerank, signatures
    from gitstrata.store import tokenizer

    for module in (router, rerank, signatures, tokenizer):
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                assert not _NESTED.search(value.pattern), (module.__name__, name)


@settings(max_examples=30, deadline=None)
@given(
    unit=st.text(alphabet="aA_.-/#1 (`\"'é", min_size=1, max_size=4),
    repeat=st.integers(min_value=20_000, max_value=40_000),
)
def test_long_tokens_are_classified_and_tokenized(unit: str, repeat: int) -> None:
    """100k-character inputs complete (a quadratic pattern would not, within the test run) and
    give the same answer as the bounded prefix the router documents."""
    from gitstrata.serve.rerank import verbatim_tokens
    from gitstrata.store.tokenizer import tokenize

    text = (unit * repeat)[:100_000]
    route = router.classify(text)
    assert route == router.classify(text[: router.MAX_ROUTE_CHARS])
    assert isinstance(tokenize(text), list)
    assert isinstance(verbatim_tokens(text), list)


def test_structured_content_with_many_warnings_stays_in_budget() -> None:
    warning = {"failure_id": 1, "score": 1.0, "reasons": ["same symbol"], "targets": ["a.py"],
               "tried": "x" * 300, "errors": ["E" * 200], "diff_excerpt": "+" * 400}  # fmt: skip
    data = {"query": "q", "hits": [], "warnings": [dict(warning, failure_id=i) for i in range(1200)],
            "invariants": [{"id": "R", "scope": "a", "description": "d" * 50_000}]}  # fmt: skip
    budget = 2500
    small = bound(data, budget)
    assert len(json.dumps(small, ensure_ascii=False)) <= budget * 4
    assert small["warnings"][0]["failure_id"] == 0 and small["invariants"][0]["id"] == "R"
    assert "failure warning" in small["truncated"]


# ------------------------------------------------------------------ the MCP server


def _mcp(repo: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "gitstrata", "-C", str(repo), "mcp"],
        env=ENV,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _send(proc: subprocess.Popen, message: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def _initialize(proc: subprocess.Popen) -> None:
    _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "test", "version": "1"}}})  # fmt: skip
    assert proc.stdout is not None
    assert b'"result"' in proc.stdout.readline()
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "stdin EOF", "client killed mid-call"])
def test_the_stdio_server_stops_cleanly(indexed: GitRepo, how: str) -> None:
    proc = _mcp(indexed.path)
    _initialize(proc)
    time.sleep(0.5)
    if how in ("SIGINT", "SIGTERM"):
        proc.send_signal(getattr(signal, how))
    elif how == "stdin EOF":
        assert proc.stdin is not None
        proc.stdin.close()
    else:
        for n in range(10):
            _send(proc, {"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call",
                         "params": {"name": "search_causal_history",
                                    "arguments": {"query": "price rounding " * 100}}})  # fmt: skip
        assert proc.stdout is not None and proc.stdin is not None
        proc.stdout.close()
        proc.stdin.close()
    code = proc.wait(timeout=30)
    assert proc.stderr is not None
    err = proc.stderr.read().decode("utf-8", "replace")
    assert code == 0, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


@pytest.mark.slow
def test_mcp_arguments_over_their_limits_are_one_line_errors(indexed: GitRepo, tmp_path) -> None:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, env=ENV,
                                   args=["-m", "gitstrata", "-C", str(indexed.path), "mcp"])  # fmt: skip
    cases = [
        ("preflight_check", {"file_path": "pay/price.py", "symbol_name": "p" * 100_000}),
        ("preflight_check", {"file_path": "p" * 100_000}),
        ("search_causal_history", {"query": "q" * 100_000}),
        (
            "record_invariant",
            {"rule_id": "R1", "scope": "s" * 10_000_000, "invariant_description": "d"},
        ),  # fmt: skip
        (
            "record_invariant",
            {"rule_id": "R1", "scope": "pay/**", "invariant_description": "d" * 100_000},
        ),  # fmt: skip
    ]

    async def main() -> None:
        with open(tmp_path / "server.log", "w") as log:
            async with stdio_client(params, errlog=log) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                for tool, arguments in cases:
                    result = await s.call_tool(tool, arguments)
                    text = result.content[0].text  # type: ignore[union-attr]
                    assert result.is_error, (tool, text[:200])
                    # a request over the stdio bound is refused by its size in bytes, unread
                    assert "characters" in text or "bytes a call may send" in text
                    assert "\n" not in text and len(text) < 400
                listed = await s.read_resource("strata://invariants")  # type: ignore[arg-type]
                assert "s" * 2000 not in listed.contents[0].text  # type: ignore[union-attr]

    anyio.run(main)
    assert "Traceback" not in (tmp_path / "server.log").read_text()


@pytest.mark.slow
def test_mcp_status_says_broken_and_tools_answer_one_line(repo: GitRepo, tmp_path) -> None:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    _truncate_commits(repo.path / ".strata")
    # a server that must not repair it while the test looks: its HEAD watch starts a build only
    # once the status was read; the status is read first
    params = StdioServerParameters(command=sys.executable, env=ENV,
                                   args=["-m", "gitstrata", "-C", str(repo.path), "mcp"])  # fmt: skip

    async def main() -> None:
        with open(tmp_path / "server.log", "w") as log:
            async with stdio_client(params, errlog=log) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                # the index is looked at after `initialize`: until then the status says so
                for _ in range(100):
                    res = await s.read_resource("strata://status")  # type: ignore[arg-type]
                    status = json.loads(res.contents[0].text)  # type: ignore[union-attr]
                    if status["phase"] not in ("starting", "loading"):
                        break
                    await anyio.sleep(0.1)
                assert status["phase"] in ("broken", "indexing", "error"), status["phase"]
                assert status["phase"] != "ready"
                assert "gen-000001 is damaged" in (status.get("index_error") or "")
                result = await s.call_tool("preflight_check", {"file_path": "pay/price.py"})
                text = result.content[0].text  # type: ignore[union-attr]
                if result.is_error:
                    assert "\n" not in text.strip()

    anyio.run(main)


mcp_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30)
    | st.sampled_from(["pay/price.py", "../../etc/passwd", "/etc/hosts", "x" * 5000, "price"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip
mcp_calls = st.sampled_from(
    tuple({"preflight_check": ["file_path", "symbol_name", "intended_change"],
     "search_causal_history": ["query", "top_k", "file_path"],
     "record_invariant": ["rule_id", "scope", "invariant_description", "severity"]}.items()
    )
).flatmap(
    lambda item: st.tuples(
        st.just(item[0]),
        st.dictionaries(st.sampled_from([*item[1], "bogus"]), mcp_values, max_size=4),
    )
)  # fmt: skip


@pytest.fixture(scope="module")
def server(indexed: GitRepo, tmp_path_factory: pytest.TempPathFactory):
    import shutil

    from gitstrata.benchmarks.robustness import Server

    copy = tmp_path_factory.mktemp("fuzz-mcp") / "repo"
    shutil.copytree(indexed.path, copy, symlinks=True)
    srv = Server(copy)
    yield srv
    code, log = srv.stop("stdin EOF")
    assert code == 0 and "Traceback" not in log, log


@pytest.mark.slow
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(call=mcp_calls)
def test_fuzzed_mcp_arguments_get_an_answer_or_one_line(server, call) -> None:
    tool, arguments = call
    reply = server.tool(tool, arguments)
    assert "result" in reply, reply  # a tool answer, never a protocol failure
    result = reply["result"]
    text = " ".join(c.get("text", "") for c in result.get("content", []))
    assert "Traceback" not in text
    if result.get("isError"):
        assert "\n" not in text.strip(), text
    assert server.proc.poll() is None  # still serving
