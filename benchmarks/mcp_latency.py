"""MCP latency: `preflight_check` over stdio against the protocol floor, and start-up time.

    python -m gitstrata.benchmarks.mcp_latency [REPO_OR_BUNDLE ...] [--real] [--calls N]
                                               [--starts K] [--json]

Two servers run in the same measurement, both as subprocesses over stdio with the SDK's own
client: `gitstrata mcp` on REPO (default: the benchmark fixture, built in a temp folder, with its
failed attempts recorded, then indexed), and a minimal MCP server with one trivial `echo` tool
(this module with `--serve-echo`: the same SDK, the same transport, nothing else). `--real`
adds `../shared/repos/*.bundle` beside the checkout, each cloned and indexed in a temp folder;
there the targets are the repository's hot symbols (see `serve_latency.hot_targets`).

- Round trip: after `initialize` and after the server reports its engine warm and its run of
  the firewall ahead over the served strings finished (`serve/prescrub.py`), `preflight_check`
  on a fixed set of targets and `echo` calls alternate, one at a time; P50 / P95 of each. The
  target is a preflight P50 within 1 ms of echo's (the protocol floor). A repeated target reuses
  the generation's part of its answer, so the first call on each of 14 more targets (not asked
  before) is reported apart, against the echo call after it. With the wall times, each server's
  own CPU per call over the alternating calls (from /proc, where there is one).
- Start-up: process spawn to the first answered tool call (`initialize` included): a real
  `preflight_check` answer on an existing index against echo's first answer; the median of K
  alternating starts of each (and the ratio of the fastest runs, less sensitive to a busy
  machine). The target is at most 1.3x. Measured as an agent's next session starts the server,
  on an index an earlier process served (the record of texts the firewall passed, in the
  user's cache, holds the first answer's strings), and again with that record off (every
  string through the firewall). Spawn to the answered `initialize` is reported the same way.
  The round trips run without the record, so the first calls on new targets pay the firewall.
- Payload: the largest text and structured content (JSON characters) of `preflight_check` over
  the targets, a whole-file check and a symbol that is not found, and of
  `search_causal_history` over commit subjects, against `retrieval.token_budget` x 4
  characters.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGETS = 7
INTENT = "change its error handling and retry behaviour"


def serve_echo() -> None:
    """The minimal server: one trivial tool, the SDK's defaults."""
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("echo", log_level="WARNING")

    @app.tool(description="Return the text unchanged.")
    async def echo(text: str) -> str:  # a coroutine, like gitstrata's read tools: no thread hop
        return text

    app.run("stdio")


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    pos = (len(s) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def prepare(repo: Path | None, workdir: Path) -> tuple[Path, str]:
    """The repository to serve (indexed) and what it is."""
    from gitstrata import Strata

    if repo is None:
        from .fixture import build_fixture, failure_records

        info = build_fixture(workdir / "fixture", force=True)
        with Strata(info.path) as strata:
            for rec in failure_records():
                strata.record_failure(
                    **{k: v for k, v in rec.items() if k != "recorded_at"},
                    recorded_at=rec.get("recorded_at"),
                )
            strata.index(jobs=1)
        return info.path, f"benchmark fixture ({info.commit_count} commits)"
    from gitstrata.store.generations import Store

    with Strata(repo) as strata:
        if Store(strata.index_dir).current_name() is None:
            strata.index()
        root = strata.git.root
        return root, str(root)


def hot(repo: Path, n: int = 20) -> list[dict[str, str]]:
    """The repository's hot symbols, each with the newest subject touching it as the change."""
    from .serve_latency import hot_targets

    return [
        {"file_path": p, "symbol_name": q or "", "intended_change": i or INTENT}
        for p, q, i in hot_targets(repo / ".strata", n)
    ]


def pick_targets(repo: Path, n: int = TARGETS) -> list[dict[str, str]]:
    """`n` functions or methods spread evenly over the indexed symbols (deterministic)."""
    from gitstrata.store.generations import Store

    table = (
        Store(repo / ".strata")
        .require_live()
        .table("symbols", columns=["path", "qualname", "kind"])
    )
    rows = sorted(
        (r["path"], r["qualname"])
        for r in table.to_pylist()
        if r["kind"] in ("function", "method") and r["qualname"] != "<module>"
    )
    if not rows:
        raise SystemExit(f"{repo}: the index has no functions to run preflight_check on")
    step = max(1, len(rows) // n)
    return [
        {"file_path": p, "symbol_name": q, "intended_change": INTENT} for p, q in rows[::step][:n]
    ]


def _ours(repo: Path) -> list[str]:
    return [sys.executable, "-m", "gitstrata", "-C", str(repo), "mcp"]


def _echo() -> list[str]:
    return [sys.executable, "-m", "gitstrata.benchmarks.mcp_latency", "--serve-echo"]


# a server without the record of texts the firewall passed in earlier processes
# (`serve.firewall_passed`): every string of a new answer goes through the firewall
NO_RECORD = {"GITSTRATA_FIREWALL_CACHE": "off"}


async def _session(stack, argv: list[str], errlog, env: dict[str, str] | None = None):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    # the whole environment (the client passes only a few variables by default): the server
    # must run the code under test (PYTHONPATH), not another installed copy
    params = StdioServerParameters(
        command=argv[0], args=argv[1:], env={**os.environ, **(env or {})}
    )
    read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


def _server_pids() -> dict[str, int]:
    """The pids of this process's two server children ("ours", "echo"), where /proc lists them."""
    out: dict[str, int] = {}
    for children in Path("/proc/self/task").glob("*/children"):
        for pid in children.read_text().split():
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"--serve-echo" in argv:
                out["echo"] = int(pid)
            elif b"mcp" in argv:
                out["ours"] = int(pid)
    return out


def _cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of process `pid` so far (/proc/PID/stat), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _real(result) -> bool:
    return not result.is_error and "status" not in (result.structured_content or {})


async def first_answer(
    argv: list[str], tool: str, arguments: dict[str, Any], errlog, env: dict[str, str] | None = None
) -> tuple[float, float]:
    """Seconds from spawning the server (`env` added to this one's) to its answered
    `initialize`, and to its first real answer to `tool`."""
    from contextlib import AsyncExitStack

    import anyio

    t0 = time.perf_counter()
    async with AsyncExitStack() as stack:
        session = await _session(stack, argv, errlog, env)
        t_init = time.perf_counter() - t0
        while not _real(got := await session.call_tool(tool, arguments)):
            if got.is_error:
                raise SystemExit(f"{tool} failed: {got.content[0].text}")
            await anyio.sleep(0.01)
        return t_init, time.perf_counter() - t0


def _sizes(got) -> tuple[int, int]:
    text = sum(len(c.text) for c in got.content if getattr(c, "text", None) is not None)
    return text, len(json.dumps(got.structured_content or {}, ensure_ascii=False))


async def payloads(
    repo: Path, targets: list[dict[str, str]], queries: list[str], errlog
) -> dict[str, Any]:
    """The largest text and structured content each tool returned, and for which arguments."""
    from contextlib import AsyncExitStack

    calls: list[tuple[str, str, dict[str, Any]]] = []
    for t in targets:
        calls.append(("preflight_check", f"{t['file_path']}::{t['symbol_name']}", t))
    first = targets[0]
    calls.append(("preflight_check", f"{first['file_path']} (whole file)",
                  {"file_path": first["file_path"], "intended_change": first["intended_change"]}))  # fmt: skip
    calls.append(("preflight_check", f"{first['file_path']}::no_such_symbol_here (not found)",
                  {"file_path": first["file_path"], "symbol_name": "no_such_symbol_here"}))  # fmt: skip
    calls += [("search_causal_history", q, {"query": q}) for q in queries]
    out: dict[str, Any] = {}
    async with AsyncExitStack() as stack:
        session = await _session(stack, _ours(repo), errlog)
        for tool, label, arguments in calls:
            got = await session.call_tool(tool, arguments)
            while not _real(got) and not got.is_error:
                import anyio

                await anyio.sleep(0.05)
                got = await session.call_tool(tool, arguments)
            text, structured = _sizes(got)
            for kind, size in (("text", text), ("structured", structured)):
                key = f"{tool}_{kind}"
                if size > out.get(key, {}).get("chars", -1):
                    out[key] = {"chars": size, "largest": label}
    return out


async def round_trips(
    repo: Path,
    targets: list[dict[str, str]],
    calls: int,
    errlog,
    fresh: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """P50 / P95 of `preflight_check` on `targets` (asked again and again, as an agent does
    before each edit) and of `echo`, alternating; then of the first call on each of `fresh`
    (targets not asked before in this generation, so none of the answer is kept yet)."""
    from contextlib import AsyncExitStack

    import anyio

    async with AsyncExitStack() as stack:
        # without the record of passed texts: the first calls on new targets pay the firewall
        ours = await _session(stack, _ours(repo), errlog, NO_RECORD)
        echo = await _session(stack, _echo(), errlog)
        with anyio.fail_after(300):
            while True:  # measure the server as it runs all day: engine loaded and warm, and
                # the firewall's run ahead over the served strings finished
                got = await ours.read_resource("strata://status")
                status = json.loads(got.contents[0].text)
                ahead = status.get("prescrub")
                if status.get("warm") and (ahead is None or ahead.get("finished")):
                    break
                await anyio.sleep(0.2)
        for i in range(3 * len(targets)):  # first touches of every target's lookups
            await ours.call_tool("preflight_check", targets[i % len(targets)])
            await echo.call_tool("echo", {"text": "warm-up"})
        pre, flat, engine = [], [], []
        pids = _server_pids()
        cpu0 = {name: _cpu_s(pid) for name, pid in pids.items()}
        for i in range(calls):
            arguments = targets[i % len(targets)]
            t0 = time.perf_counter()
            got = await ours.call_tool("preflight_check", arguments)
            t1 = time.perf_counter()
            await echo.call_tool("echo", {"text": arguments["symbol_name"]})
            t2 = time.perf_counter()
            if not _real(got):
                raise SystemExit(f"preflight_check did not answer: {got.content[0].text}")
            pre.append((t1 - t0) * 1000)
            flat.append((t2 - t1) * 1000)
            engine.append(float(got.structured_content["latency_ms"]))
        # the servers' own CPU per call (user + system, all threads): what a call costs them,
        # less stretched by a busy machine than the wall time (Linux; 10 ms ticks over all calls)
        cpu = {}
        for name, pid in pids.items():
            before, after = cpu0[name], _cpu_s(pid)
            if before is not None and after is not None:
                cpu[name] = (after - before) * 1000 / calls
        first, first_flat = [], []
        for arguments in fresh or ():
            t0 = time.perf_counter()
            got = await ours.call_tool("preflight_check", arguments)
            t1 = time.perf_counter()
            await echo.call_tool("echo", {"text": arguments["symbol_name"]})
            first.append((t1 - t0) * 1000)
            first_flat.append((time.perf_counter() - t1) * 1000)
    out: dict[str, Any] = {}
    series = [("preflight_ms", pre), ("echo_ms", flat), ("engine_ms", engine)]
    if first:
        series += [("first_call_ms", first), ("first_call_echo_ms", first_flat)]
    for name, xs in series:
        out[name] = {
            "p50": percentile(xs, 50),
            "p95": percentile(xs, 95),
            "mean": statistics.fmean(xs),
        }
    out["p50_over_floor_ms"] = out["preflight_ms"]["p50"] - out["echo_ms"]["p50"]
    out["p95_over_floor_ms"] = out["preflight_ms"]["p95"] - out["echo_ms"]["p95"]
    if len(cpu) == 2:
        out["server_cpu_ms_per_call"] = {**cpu, "over_floor": cpu["ours"] - cpu["echo"]}
    if first:
        out["first_call_p50_over_floor_ms"] = (
            out["first_call_ms"]["p50"] - out["first_call_echo_ms"]["p50"]
        )
    return out


def run(
    repo: Path | None, *, calls: int, starts: int, workdir: Path, real: bool = False
) -> dict[str, Any]:
    import anyio

    from gitstrata.store.config import Config

    if real and repo is not None:
        from .serve_latency import prepare as prepare_real
        from .serve_latency import real_queries

        repo, _, what = prepare_real(repo, workdir)
        targets = hot(repo)
        queries = real_queries(
            repo / ".strata", [(t["file_path"], t["symbol_name"], None) for t in targets]
        )
    else:
        repo, what = prepare(repo, workdir)
        targets = pick_targets(repo)
        queries = [INTENT, *(t["symbol_name"] for t in targets)]
    budget = Config.load(repo / ".strata").retrieval.token_budget
    log = open(workdir / "servers.log", "a", encoding="utf-8")  # noqa: SIM115 - closed below
    try:
        ours_first, echo_first, ours_init, echo_init, bare_first = [], [], [], [], []
        for _ in range(starts):  # alternate, so drift in machine load hits both alike
            init, first = anyio.run(first_answer, _echo(), "echo", {"text": "hi"}, log)
            echo_init.append(init)
            echo_first.append(first)
            # a server started again on an index it served before, as an agent's next session
            # starts it: the texts its first answer serves were passed by an earlier process
            init, first = anyio.run(first_answer, _ours(repo), "preflight_check", targets[0], log)
            ours_init.append(init)
            ours_first.append(first)
            _, first = anyio.run(
                first_answer, _ours(repo), "preflight_check", targets[0], log, NO_RECORD
            )
            bare_first.append(first)
        asked = {(t["file_path"], t["symbol_name"]) for t in targets}
        fresh = [
            t
            for t in pick_targets(repo, 4 * TARGETS)
            if (t["file_path"], t["symbol_name"]) not in asked
        ][: 2 * TARGETS]
        trips = anyio.run(round_trips, repo, targets, calls, log, fresh)
        sizes = anyio.run(payloads, repo, targets, queries, log)
    finally:
        log.close()
    ours_s, echo_s = statistics.median(ours_first), statistics.median(echo_first)
    bare_s = statistics.median(bare_first)
    init_s, echo_init_s = statistics.median(ours_init), statistics.median(echo_init)
    limit = 4 * budget
    return {
        "load_average": os.getloadavg(),  # these are wall times: a busy machine stretches them
        "benchmark": "mcp_latency",
        "repo": what,
        "targets": [f"{t['file_path']}::{t['symbol_name']}" for t in targets],
        "calls": calls,
        "fresh_targets": [f"{t['file_path']}::{t['symbol_name']}" for t in fresh],
        "round_trip": trips,
        "first_answer_s": {
            "gitstrata_mcp": ours_s,
            "minimal_server": echo_s,
            "ratio": ours_s / echo_s,
            "ratio_of_fastest": min(ours_first) / min(echo_first),
            "runs": {"gitstrata_mcp": ours_first, "minimal_server": echo_first},
        },
        "first_answer_no_record_s": {
            "gitstrata_mcp": bare_s,
            "ratio": bare_s / echo_s,
            "ratio_of_fastest": min(bare_first) / min(echo_first),
            "runs": bare_first,
        },
        "initialize_s": {
            "gitstrata_mcp": init_s,
            "minimal_server": echo_init_s,
            "ratio": init_s / echo_init_s,
        },
        "payload_chars": {**sizes, "limit": limit, "token_budget": budget},
        "targets_met": {
            "round_trip_p50_within_1ms_of_echo": trips["p50_over_floor_ms"] <= 1.0,
            "first_answer_within_1.3x": ours_s / echo_s <= 1.3,
            "first_answer_within_1.3x_no_record": bare_s / echo_s <= 1.3,
            "payloads_within_4x_token_budget": all(v["chars"] <= limit for v in sizes.values()),
        },
    }


def _print(res: dict[str, Any]) -> None:
    rt, fa = res["round_trip"], res["first_answer_s"]
    print(f"repository: {res['repo']}; {res['calls']} calls over {len(res['targets'])} targets")
    for name, key in (
        ("preflight_check", "preflight_ms"),
        ("echo (floor)", "echo_ms"),
        ("  in-engine", "engine_ms"),
    ):
        x = rt[key]
        print(
            f"  {name:<16} P50 {x['p50']:7.3f} ms   P95 {x['p95']:7.3f} ms   mean {x['mean']:7.3f} ms"
        )
    print(
        f"  over the floor   P50 {rt['p50_over_floor_ms']:+.3f} ms   P95 {rt['p95_over_floor_ms']:+.3f} ms"
    )
    if "server_cpu_ms_per_call" in rt:
        c = rt["server_cpu_ms_per_call"]
        print(
            f"  server CPU per call: preflight_check {c['ours']:.3f} ms, echo {c['echo']:.3f} ms, "
            f"over the floor {c['over_floor']:+.3f} ms"
        )
    if "first_call_ms" in rt:
        x = rt["first_call_ms"]
        print(
            f"  first call on {len(res['fresh_targets'])} targets not asked before: P50 "
            f"{x['p50']:7.3f} ms, {rt['first_call_p50_over_floor_ms']:+.3f} ms over its echo"
        )
    print(
        f"spawn to first answer: gitstrata mcp {fa['gitstrata_mcp']:.3f} s, minimal server "
        f"{fa['minimal_server']:.3f} s, ratio {fa['ratio']:.2f}x (median of {len(fa['runs']['gitstrata_mcp'])}; "
        f"fastest runs {fa['ratio_of_fastest']:.2f}x)"
    )
    bare = res["first_answer_no_record_s"]
    print(
        f"  without the record of passed texts: {bare['gitstrata_mcp']:.3f} s, ratio "
        f"{bare['ratio']:.2f}x (fastest runs {bare['ratio_of_fastest']:.2f}x)"
    )
    ini = res["initialize_s"]
    print(
        f"spawn to initialize: gitstrata mcp {ini['gitstrata_mcp']:.3f} s, minimal server "
        f"{ini['minimal_server']:.3f} s, ratio {ini['ratio']:.2f}x"
    )
    pay = res["payload_chars"]
    print(f"payloads (limit {pay['limit']} characters = 4 x token_budget {pay['token_budget']}):")
    for key, v in pay.items():
        if isinstance(v, dict):
            print(f"  {key:<34} {v['chars']:>7}  ({v['largest']})")
    print(f"load average during the run: {', '.join(f'{x:.2f}' for x in res['load_average'])}")
    for name, ok in res["targets_met"].items():
        print(f"  {name}: {'met' if ok else 'NOT met'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gitstrata.benchmarks.mcp_latency", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "sources",
        nargs="*",
        type=Path,
        metavar="REPO_OR_BUNDLE",
        help="repositories to serve (default: the benchmark fixture)",
    )
    parser.add_argument("--real", action="store_true", help="add ../shared/repos/*.bundle")
    parser.add_argument(
        "--calls", type=int, default=210, help="preflight_check calls (and as many echo calls)"
    )
    parser.add_argument("--starts", type=int, default=7, help="cold starts of each server")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--serve-echo", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_echo:
        serve_echo()
        return 0
    sources: list[Path | None] = list(args.sources)
    if args.real:
        from .real import shared_bundles

        sources += shared_bundles("mcp_latency")
    results = []
    with tempfile.TemporaryDirectory(prefix="gitstrata-mcp-bench-") as tmp:
        for source in sources or [None]:
            results.append(
                run(
                    source,
                    calls=args.calls,
                    starts=args.starts,
                    workdir=Path(tmp),
                    real=source is not None,
                )  # fmt: skip
            )
            if not args.json:
                _print(results[-1])
                print()
    if args.json:
        print(json.dumps(results if len(results) > 1 else results[0], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
