"""The CLI over a small real repository: every command through `Strata`, a downloaded index
read without a checkout, the graveyard and invariant commands, the typed errors' home."""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gitstrata import Strata

ROOT = Path(__file__).resolve().parent.parent

RETRY = '''"""Charging with retries."""
import uuid


def charge_with_retry(client, order_id, amount_cents, attempts=3):
    """Charge once, retrying gateway timeouts."""
    key = f"{order_id}:{uuid.uuid5(uuid.NAMESPACE_URL, order_id)}"
    for _ in range(attempts):
        try:
            return client.charge(order_id, amount_cents, idempotency_key=key)
        except TimeoutError:
            continue
    raise TimeoutError(order_id)
'''


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gitstrata", *args], cwd=cwd, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    from conftest import GitRepo

    r = GitRepo(tmp_path_factory.mktemp("cli") / "repo")
    r.commit("feat(payments): charge with retry", {"payments/retry.py": RETRY})
    r.commit("docs: readme", {"README.md": "# shop\n"})
    with Strata(r.path) as s:
        s.index(jobs=1)
    return r


def test_a_downloaded_index_is_read_without_a_checkout(repo, tmp_path) -> None:
    downloaded = tmp_path / "downloaded"
    shutil.copytree(repo.path / ".strata", downloaded)
    elsewhere = tmp_path / "no-checkout"
    elsewhere.mkdir()
    for flag in ("--out", "--index"):
        status = cli("-C", str(elsewhere), "status", flag, str(downloaded), "--json")
        assert status.returncode == 0, status.stderr
        info = json.loads(status.stdout)
        assert info["generation"] == "gen-000001" and info["repo_head"] is None
    got = cli(
        "-C", str(elsewhere), "sql", "SELECT count(*) AS n FROM commits", "--out", str(downloaded),
        "--json",
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout) == [{"n": 2}]
    inspect = cli("-C", str(elsewhere), "inspect", "--index", str(downloaded), "--json")
    assert inspect.returncode == 0 and json.loads(inspect.stdout)["generation"] == "gen-000001"
    with Strata(elsewhere, index_dir=downloaded) as strata:
        assert strata.repo is None
        assert strata.sql("SELECT count(*) AS n FROM commits").to_dicts() == [{"n": 2}]
    # without a named index, a folder outside any checkout is an error, not an empty answer
    bad = cli("-C", str(elsewhere), "status")
    assert bad.returncode == 1 and bad.stderr.startswith("error: ")
    assert "not a git repository" in bad.stderr and "Traceback" not in bad.stderr


def test_more_jobs_than_the_machine_can_run_are_bounded(repo, tmp_path) -> None:
    # `--jobs 100000` started worker processes until the machine stalled
    done = cli("index", "--jobs", "100000", "--out", str(tmp_path / "idx"), "-q", cwd=repo.path)
    assert done.returncode == 0, done.stderr
    cores = os.cpu_count() or 1
    assert done.stderr.startswith(f"note: --jobs 100000 is more than this machine's {cores} cores")
    assert (tmp_path / "idx" / "CURRENT").exists()


def test_status_from_a_subfolder_sees_the_work_tree(repo) -> None:
    sub = repo.path / "payments"
    got = cli("-C", str(sub), "status", "--json")
    assert got.returncode == 0, got.stderr
    info = json.loads(got.stdout)
    assert info["repo_head"] == info["indexed_head"] == repo.head() and not info["stale"]
    with Strata(sub) as strata:
        assert strata.repo == repo.path.resolve()
        assert strata.index_dir == repo.path.resolve() / ".strata"


def test_graveyard_and_invariant_commands_round_trip(repo) -> None:
    with Strata(repo.path) as strata:
        first = strata.record_failure(
            "payments/retry.py",
            attempted_diff="",
            error_trace="E   AssertionError: charged twice (ERR_PAYMENT_DUPLICATE)",
            notes="fresh key per retry",
            symbol_name="charge_with_retry",
        )
    fid = int(first.failure_id)
    listed = cli("-C", str(repo.path), "graveyard", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [f["id"] for f in json.loads(listed.stdout)] == [fid]
    # `list`, as the other groups spell it, lists the same
    assert cli("-C", str(repo.path), "graveyard", "list", "--json").stdout == listed.stdout
    shown = json.loads(cli("-C", str(repo.path), "graveyard", "show", str(fid), "--json").stdout)
    assert shown["notes"] == "fresh key per retry"
    assert shown["targets"] == [{"path": "payments/retry.py", "qualname": "charge_with_retry"}]
    missing = cli("-C", str(repo.path), "graveyard", "show", "999")
    assert missing.returncode == 1
    assert missing.stderr.splitlines() == [
        "error: no failed attempt #999",
        "hint: `gitstrata graveyard` lists them",
    ]
    forgot = cli("-C", str(repo.path), "graveyard", "forget", str(fid))
    assert forgot.returncode == 0 and forgot.stdout == f"forgot failed attempt #{fid}\n"
    with Strata(repo.path) as strata:
        assert strata.failures() == []

    added = cli(
        "-C", str(repo.path), "invariant", "add", "PAY-9", "--scope", "payments/**",
        "-d", "One key per order", "--severity", "critical", "--json",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["id"] == "PAY-9"
    with Strata(repo.path) as strata:
        assert [(r.id, r.severity) for r in strata.invariants()] == [("PAY-9", "critical")]
    listed = cli("-C", str(repo.path), "invariant", "list", "--json")
    assert [r["id"] for r in json.loads(listed.stdout)] == ["PAY-9"]
    removed = cli("-C", str(repo.path), "invariant", "remove", "PAY-9")
    assert removed.returncode == 0 and removed.stdout == "removed PAY-9\n"
    again = cli("-C", str(repo.path), "invariant", "remove", "PAY-9")
    assert again.returncode == 1 and again.stderr.startswith("error: no invariant 'PAY-9'")
    with Strata(repo.path) as strata:
        assert strata.invariants() == []


def test_typed_errors_are_exported_from_the_package() -> None:
    import gitstrata
    from gitstrata import GitstrataError, InputError, NotARepository
    from gitstrata.store import errors

    assert InputError is errors.InputError and NotARepository is errors.NotARepository
    assert issubclass(InputError, GitstrataError)
    exported = {n for n in gitstrata.__all__ if n not in ("Strata", "__version__")}
    defined = {
        name
        for name, obj in vars(errors).items()
        if isinstance(obj, type) and issubclass(obj, errors.GitstrataError)
    }
    assert exported == defined
    for name in gitstrata.__all__:
        assert getattr(gitstrata, name) is not None
    with pytest.raises(AttributeError):
        _ = gitstrata.Nope  # type: ignore[attr-defined]


# What the command-line modules may import from the engine rooms: the progress reporter (a
# terminal concern), the error base they turn into one line, and the agent-facing renderer.
# Everything else is reached through `Strata`.
CLI_MODULES = ("cli.py", "entry.py", "oneshot.py", "options.py")
# the firewall too (through its record of passed texts): what the CLI prints of recorded text
# is served text; the record that the process froze its start-up out of the cycle collector
# (a process setting, like `gc`'s); and the cache of code compiled from generated text, which
# the command line installs before its first import (a process setting too); and the escape
# that keeps an error on its one line whatever a name in it holds
CLI_MAY_IMPORT = {
    "pipeline.progress",
    "store.errors",
    "serve.render",
    "serve.firewall_passed",
    "store.collector",
    "store.codecache",
    "store.oneline",
}


def _runtime_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(n) for b in node.body for n in ast.walk(b))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and id(node) not in typing_only:
            found.add(node.module or "")
    return found


@pytest.mark.parametrize("name", CLI_MODULES)
def test_cli_reaches_the_library_only_through_strata(name: str) -> None:
    path = ROOT / "gitstrata" / name
    if not path.exists():
        pytest.skip(f"{name} does not exist")
    rooms = {m for m in _runtime_imports(path) if m.split(".")[0] in ("pipeline", "serve", "store")}
    assert rooms <= CLI_MAY_IMPORT, rooms - CLI_MAY_IMPORT


# ---------------------------------------------------------------- the fast path and Typer


def _typer_params(command: str) -> dict[str, tuple]:
    import typer.main

    from gitstrata.cli import app

    group = typer.main.get_command(app)
    out = {}
    for p in group.commands[command].params:
        td = p.type_descriptor
        kind = "str" if td.is_choice else getattr(td.annotation, "__name__", str(td.annotation))
        choices = tuple(td.choices) if td.is_choice else None
        out[p.name] = (tuple(sorted(p.opts)), kind, p.default, choices, p.min, p.max)
    return out


def _fast_params(command: str) -> dict[str, tuple]:
    from gitstrata.options import FAST_COMMANDS, argparse_parser, parse_fast

    ranges = {o.dest: (o.min, o.max) for o in FAST_COMMANDS[command]}
    out = {}
    for action in argparse_parser(command)._actions:
        flags = tuple(sorted(action.option_strings)) or (action.dest,)
        kind = "bool" if action.nargs == 0 else action.type.__name__  # type: ignore[union-attr]
        if isinstance(action, argparse._AppendAction):  # a repeatable option: a list in Typer
            kind = "list"
        choices = tuple(action.choices) if action.choices is not None else None
        low, high = ranges[action.dest]
        out[action.dest] = (flags, kind, action.default, choices, low, high)
        if low is None and high is None:
            continue
        # the range really is enforced: out of range goes to Typer, which reports it
        positional = [] if command in ("mcp", "index") else ["x"]
        bounds = []
        if low is not None:
            bounds += [(low, True), (low - 1, False)]
        if high is not None:
            bounds += [(high, True), (high + 1, False)]
        for value, accepted in bounds:
            got = parse_fast(command, [*positional, flags[-1], str(value)])
            assert (got is not None) == accepted, (command, action.dest, value)
    return out


@pytest.mark.parametrize("command", ["query", "preflight", "mcp", "index"])
def test_fast_parser_accepts_what_typer_accepts(command: str) -> None:
    from gitstrata.options import FAST_COMMANDS

    typer_side = _typer_params(command)
    fast_side = _fast_params(command)
    assert typer_side == fast_side
    assert set(fast_side) == {o.dest for o in FAST_COMMANDS[command]}


def _loaded_probe(modules: tuple[str, ...]) -> str:
    """Code that runs the command line on its arguments, then prints which of `modules` it
    loaded as its last line on stderr (`loaded: [...]`)."""
    return (
        "import sys\n"
        "from gitstrata.entry import main\n"
        "sys.argv = ['gitstrata', *sys.argv[1:]]\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        f"    loaded = sorted(m for m in {modules!r} if m in sys.modules)\n"
        "    print('loaded:', loaded, file=sys.stderr)\n"
    )


def test_fast_path_imports_neither_typer_nor_rich(repo) -> None:
    probe = _loaded_probe(("typer", "rich", "click"))
    for args in (
        ["query", "idempotency key", "--json", "-k", "3"],
        ["query", "idempotency key", "--raw", "--mode", "bm25"],
        ["query", "idempotency key", "-k", "3"],
        ["preflight", "payments/retry.py", "-s", "charge_with_retry"],
        ["index", "--json"],
        ["index"],  # the report a person reads is plain text too
    ):
        proc = subprocess.run(
            [sys.executable, "-c", probe, "-C", str(repo.path), *args],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.splitlines()[-1] == "loaded: []", (args, proc.stderr)


def test_one_shot_answers_load_only_what_they_need(tmp_path) -> None:
    """A one-shot `query` / `preflight` reads a few tables: no JIT compiler, no dataset layer
    (a filtered Parquet read), no numpy.ma (`pa.array` of an ndarray), no wrappers of every
    Arrow kernel (`pyarrow.compute`), no Typer or Rich; a memory in the index makes recall read
    the memory documents too."""
    from conftest import GitRepo

    r = GitRepo(tmp_path / "repo")
    r.commit("feat(payments): charge with retry", {"payments/retry.py": RETRY})
    with Strata(r.path) as s:
        s.remember("charge_with_retry must reuse one idempotency key", kind="decision",
                   anchors=["payments/retry.py"])  # fmt: skip
        s.index(jobs=1)
    heavy = ("numba", "pyarrow.dataset", "pyarrow.compute", "numpy.ma", "typer", "rich")
    probe = _loaded_probe(heavy)
    for args in (
        ["query", "idempotency key retry", "--raw"],
        ["query", "idempotency key retry", "--json"],
        ["preflight", "payments/retry.py", "-s", "charge_with_retry", "-i", "retry faster"],
    ):
        proc = subprocess.run(
            [sys.executable, "-c", probe, "-C", str(r.path), *args],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
        assert "idempotency" in proc.stdout, args
        assert proc.stderr.splitlines()[-1] == "loaded: []", (args, proc.stderr)


# ---------------------------------------------------------------- repository text is not markup

MARKUP_SUBJECTS = (
    "fix(parser): close the [/x] tag before flushing",
    "feat(api): accept list[int] order ids",
    "docs: [bold] is a literal, [red]so is this[/red] :warning:",
)


def test_repository_text_prints_as_written(make_repo, tmp_path) -> None:
    r = make_repo("markup")
    r.commit(MARKUP_SUBJECTS[0], {"parse.py": "def parse(text):\n    return text.split()\n"})
    r.commit(
        MARKUP_SUBJECTS[1], {"api.py": "def ids(raw: list[int]) -> list[int]:\n    return raw\n"}
    )
    r.commit(MARKUP_SUBJECTS[2], {"README.md": "# [bold] shop\n"})
    env = {**os.environ, "COLUMNS": "200"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "gitstrata", "-C", str(r.path), *args],
            capture_output=True,
            text=True,
            env=env,
        )

    indexed = run("index", "--jobs", "1")
    assert indexed.returncode == 0, indexed.stderr
    sql = run("sql", "SELECT subject FROM commits ORDER BY author_time")
    assert sql.returncode == 0, sql.stderr
    lines = [line.rstrip() for line in sql.stdout.splitlines()]
    assert lines == ["subject", *MARKUP_SUBJECTS, "3 rows"]

    query = run("query", "list[int] order ids", "--mode", "bm25")
    assert query.returncode == 0, query.stderr
    assert "[feature] feat(api): accept list[int] order ids" in query.stdout

    with Strata(r.path) as strata:
        strata.record_failure(
            "api.py",
            attempted_diff="",
            error_trace="E   TypeError: list[int] is not [bold]callable[/]",
            notes="tried [/x] and [bold]list[int][/bold]",
        )
    listed = run("graveyard")
    assert listed.returncode == 0, listed.stderr
    assert "tried [/x] and [bold]list[int][/bold]" in listed.stdout
    shown = run("graveyard", "show", "1")
    assert shown.returncode == 0, shown.stderr
    assert "  tried: tried [/x] and [bold]list[int][/bold]\n" in shown.stdout


# ---------------------------------------------------------------- configuration


def test_exec_honours_the_repository_config(make_repo) -> None:
    r = make_repo("exec-config")
    r.commit("feat: app", {"app.py": "def f():\n    return 1\n"})
    noisy = "import sys; sys.stderr.write('x' * 5000 + '\\nE   ValueError: boom\\n'); sys.exit(3)"

    def exec_noisy() -> int:
        proc = subprocess.run(
            [sys.executable, "-m", "gitstrata", "exec", "--", sys.executable, "-c", noisy],
            cwd=r.path,
            capture_output=True,
            text=True,
        )
        assert "recorded failed attempt" in proc.stderr, proc.stderr
        return proc.returncode

    assert exec_noisy() == 3
    with Strata(r.path) as strata:
        assert len(strata.failures()[0].trace.encode()) > 5000  # the default keeps it all
    (r.path / ".strata" / "config.json").write_text('{"graveyard": {"max_trace_bytes": 300}}')
    r.write("app.py", "def f():\n    return 2\n")  # another attempt, not a repeat
    assert exec_noisy() == 3
    with Strata(r.path) as strata:
        newest = strata.failures()[0]
    assert newest.id == 2
    assert 0 < len(newest.trace.encode()) <= 300 and newest.trace.endswith("ValueError: boom\n")

    (r.path / ".strata" / "config.json").write_text('{"graveyard": {"max_trace_bytes": "x"}}')
    bad = subprocess.run(
        [sys.executable, "-m", "gitstrata", "exec", "--", sys.executable, "-c", noisy],
        cwd=r.path,
        capture_output=True,
        text=True,
    )
    # a broken config costs the command neither its run nor its exit code: a warning
    assert bad.returncode == 3
    assert bad.stderr.startswith("gitstrata: config.json: graveyard.")
    assert "recording with the default settings" in bad.stderr


def test_config_command_prints_the_effective_config(make_repo) -> None:
    from gitstrata.store.config import Config

    r = make_repo("config")
    r.commit("feat: app", {"app.py": "x = 1\n"})
    got = cli("-C", str(r.path), "config", "--json")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout) == Config().model_dump(mode="json")

    (r.path / ".strata").mkdir()
    (r.path / ".strata" / "config.json").write_text(
        '{"retrieval": {"rrf_k": 30}, "graveyard": {"commit_gate": 0.5}}'
    )
    data = json.loads(cli("-C", str(r.path), "config", "--json").stdout)
    assert data["retrieval"]["rrf_k"] == 30 and data["graveyard"]["commit_gate"] == 0.5
    assert data["retrieval"]["w_bm25"] == Config().retrieval.w_bm25
    text = cli("-C", str(r.path), "config").stdout.splitlines()
    assert "retrieval.rrf_k = 30  (config.json)" in text
    assert "retrieval.w_bm25 = 1.0" in text
    defaults = json.loads(cli("-C", str(r.path), "config", "--defaults", "--json").stdout)
    assert defaults["retrieval"]["rrf_k"] == 60

    # a bad key: the error's hint names a command that works even then
    (r.path / ".strata" / "config.json").write_text('{"retrieval": {"rrf_kk": 30}}')
    bad = cli("-C", str(r.path), "config")
    assert bad.returncode == 1
    assert bad.stderr.splitlines() == [
        "error: config.json: retrieval.rrf_kk: Extra inputs are not permitted",
        "hint: fix or remove that key; `gitstrata config --defaults` lists every key",
    ]
    hinted = cli("-C", str(r.path), "config", "--defaults")
    assert hinted.returncode == 0 and "retrieval.rrf_k = 60" in hinted.stdout.splitlines()


def test_query_output_is_a_plain_table_with_whole_names_and_no_control_characters(
    make_repo,
) -> None:
    from gitstrata.render_plain import COLUMNS, plain, search_text, table

    r = make_repo("plain")
    deep = "services/billing/adapters/retrying_client.py"
    r.commit(
        "fix(billing): retry \x1b[2Jthe capture\tonce",
        {deep: "def capture_with_bounded_retries(amount):\n    return amount\n"},
    )
    env = {**os.environ, "COLUMNS": "40", "TERM": "xterm-256color"}
    run = [sys.executable, "-m", "gitstrata", "-C", str(r.path)]
    assert subprocess.run([*run, "index", "--jobs", "1"], env=env).returncode == 0
    got = subprocess.run(
        [*run, "query", "capture with bounded retries", "-k", "3"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    out = got.stdout
    assert "\x1b" not in out and "\t" not in out  # not a terminal: no styling either
    lines = out.splitlines()
    assert lines[0].startswith("class ") and lines[1].split() == list(COLUMNS)
    # a name longer than the terminal is printed whole, on its row
    assert f"{deep}::capture_with_bounded_retries" in out
    assert plain("a\x1b[31mb\nc\x9bd") == "a?[31mb?c?d"
    # columns: left for kind and result, right for numbers, as wide as their widest cell
    assert table(("#", "kind", "rrf"), [("1", "commit", "0.5"), ("10", "symbol", "0.25")]) == (
        " #  kind     rrf\n 1  commit   0.5\n10  symbol  0.25"
    )
    with Strata(r.path) as s:
        styled = search_text(s.search("capture with bounded retries", 3), styled=True)
    assert styled.startswith("class \x1b[1m") and "\x1b[2J" not in styled


def test_index_report_is_plain_text_with_control_characters_shown(tmp_path) -> None:
    from gitstrata.pipeline.runner import IndexReport, StageReport
    from gitstrata.render_plain import index_report_text

    stages = [
        StageReport("chunk", False, 0.5, {"files": 2, "symbols": 3},
                    {"files": 2, "indexed": 2, "skipped": {}, "symbols": 3,
                     "symbols_by_language": {"python": 2, "None": 1}}),
        StageReport("capsule", False, 1.25, {"commits": 4, "touches": 6}),
        StageReport("embed", True, 0.0, {"vectors_i8": None}),
    ]  # fmt: skip
    report = IndexReport(
        store=tmp_path, generation="gen-000002", path=tmp_path / "gen-000002",
        head="0123456789abcdef", up_to_date=False, shallow=False, seconds=1.75,
        stages=stages, warnings=["journal line 3 \x1b[2Jskipped"], notes=["from [bold]x[/]"],
    )  # fmt: skip
    text = index_report_text(report, repo=tmp_path / "repo")
    assert "\x1b" not in text  # no styling off a terminal, and the repository's escapes shown
    lines = text.splitlines()
    assert lines[:3] == [
        "indexed repo at 0123456789 into gen-000002",
        "from [bold]x[/]",  # written as it is: nothing here is markup
        "warning: journal line 3 ?[2Jskipped",
    ]
    assert lines[3:6] == [
        "  files 2 (indexed 2; skipped: none)",
        "  symbols 3 (python 2, other 1)",
        "  capsule: commits 4, touches 6",
    ]
    assert lines[6:10] == [
        "stage    status               seconds",
        "chunk    ran                     0.50",
        "capsule  ran                     1.25",
        "embed    skipped (unchanged)     0.00",
    ]
    assert lines[10].startswith("  total 1.75s; index at ")
    styled = index_report_text(report, repo=tmp_path / "repo", styled=True)
    assert "\x1b[33mwarning:\x1b[0m" in styled and "\x1b[2J" not in styled


_POOL_PROBE = """
import os, sys, tempfile
sys.argv = ["gitstrata", "-C", tempfile.mkdtemp(), *sys.argv[1:]]
from gitstrata import entry
try:
    entry.main()  # no repository there: a one-line error, after the command's imports
except SystemExit:
    pass
import pyarrow as pa, pyarrow.parquet as pq
path = os.path.join(tempfile.mkdtemp(), "t.parquet")
pq.write_table(pa.table({"x": [str(i) for i in range(50_000)]}), path)
pq.read_table(path)
chosen = [os.environ.get(k, "-") for k in ("ARROW_DEFAULT_MEMORY_POOL", "OPENBLAS_THREAD_TIMEOUT")]
print(pa.mimalloc_memory_pool().max_memory(), *chosen)
"""


def _pool_probe(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    chosen = ("ARROW_DEFAULT_MEMORY_POOL", "OPENBLAS_THREAD_TIMEOUT")
    base = {k: v for k, v in os.environ.items() if k not in chosen}
    out = subprocess.run(
        [sys.executable, "-c", _POOL_PROBE, *argv],
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return int(out[0]), out[1], out[2]


def test_the_index_command_allocates_through_the_c_library_unless_told_otherwise() -> None:
    # Arrow fixes its default pool when it first needs one, which importing it can do: the
    # choice is made before the command's imports, or Arrow's own reads stay on mimalloc
    # (and numpy's OpenBLAS threads sleep once a product is done)
    assert _pool_probe("index", "-q") == (0, "system", "4")
    # the probe can tell: another command keeps Arrow's pool (its OpenBLAS threads sleep too),
    # and the user's choice is kept
    mimalloc, *chosen = _pool_probe("query", "x")
    assert mimalloc > 0 and chosen == ["-", "4"]
    user = {"ARROW_DEFAULT_MEMORY_POOL": "mimalloc", "OPENBLAS_THREAD_TIMEOUT": "20"}
    mimalloc, *chosen = _pool_probe("index", "-q", env=user)
    assert mimalloc > 0 and chosen == ["mimalloc", "20"]


def test_sql_rows_stay_whole_on_a_narrow_console(make_repo) -> None:
    r = make_repo("narrow")
    subject = "feat: " + " ".join(f"word{i}" for i in range(30)) + " \x1b[31mred"
    r.commit(subject, {"a.py": "def a():\n    return 1\n"})
    done = subprocess.run(
        [sys.executable, "-m", "gitstrata", "-C", str(r.path), "index", "--jobs", "1", "-q"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    sql = subprocess.run(
        [sys.executable, "-m", "gitstrata", "-C", str(r.path), "sql",
         "SELECT subject, added FROM commits"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "40"},
    )  # fmt: skip
    assert sql.returncode == 0, sql.stderr
    lines = sql.stdout.splitlines()
    shown = subject.replace("\x1b", "?")
    assert lines[0].split() == ["subject", "added"]
    # one line per row, the value whole, its escape shown as `?`, the number right-aligned
    assert lines[1] == shown + "  " + "2".rjust(len("added"))
    assert lines[2:] == ["1 rows"]
    # the graveyard's listing too: one line per attempt, its note whole up to 100 characters
    note = "tried " + " ".join(f"step{i}" for i in range(30))
    with Strata(r.path) as strata:
        strata.record_failure("a.py", attempted_diff="", error_trace="E boom", notes=note)
    listed = subprocess.run(
        [sys.executable, "-m", "gitstrata", "-C", str(r.path), "graveyard"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "40"},
    )
    assert listed.returncode == 0, listed.stderr
    rows = listed.stdout.splitlines()
    assert len(rows) == 3 and rows[2] == "1 rows"
    assert " a.py " in rows[1] and rows[1].endswith("  " + note[:99] + "…")
