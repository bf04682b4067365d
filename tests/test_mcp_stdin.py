"""The stdio server's request size bound: a line over it is answered as too large without
being held whole, the server keeps serving, and child processes never read the client's
stream."""

from __future__ import annotations

import io
import json
import os
import threading

import anyio

from gitstrata.serve.mcp_server import MAX_REQUEST_BYTES
from gitstrata.serve.mcp_stdin import OVERSIZED_ARGUMENT, OVERSIZED_METHOD, BoundedLines, stand_in


def _request(n: int, tool: str, **arguments: str) -> bytes:
    body = {"jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}  # fmt: skip
    return (json.dumps(body) + "\n").encode()


def _lines(data: bytes, limit: int) -> list[str]:
    async def main() -> list[str]:
        return [line async for line in BoundedLines(io.BytesIO(data), limit)]

    return anyio.run(main)


def test_a_long_line_becomes_a_small_stand_in_with_the_same_id():
    small = _request(1, "preflight_check", file_path="a.py")
    big = _request("r-2", "record_invariant", rule_id="X", scope="s" * 50_000)
    note = b'{"jsonrpc": "2.0", "method": "notifications/x", "params": {"p": "' + b"n" * 5000
    ping = b'{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"p": "' + b"p" * 5000
    got = _lines(small + big + note + b'"}}\n' + ping + b'"}}\n', limit=1000)
    assert got[0] == small.decode()
    refused = json.loads(got[1])
    assert refused["id"] == "r-2" and refused["params"]["name"] == "record_invariant"
    assert refused["params"]["arguments"] == {OVERSIZED_ARGUMENT: str(len(big))}
    # the notification has no id to answer: skipped; the other request gets an error method
    assert json.loads(got[2]) == {"jsonrpc": "2.0", "id": 7, "method": OVERSIZED_METHOD,
                                  "params": {}}  # fmt: skip
    assert len(got) == 3


def test_the_stand_in_needs_an_id_from_the_front_of_the_line():
    assert stand_in(b'{"jsonrpc": "2.0", "method": "x", "params": {"a": "', 10**7) is None
    assert json.loads(stand_in(b'{"id": -3, "method": "tools/call"', 9) or "")["id"] == -3


def test_every_argument_at_its_limit_still_fits_in_one_request():
    from gitstrata.serve.mcp_server import ARG_LIMITS, MCP_LIMITS

    # the diff and the output are bounded in bytes, escaped at worst to \\u00XX
    worst = 6 * (2 * MCP_LIMITS.payload) + 2 * sum(ARG_LIMITS.values())
    assert worst < MAX_REQUEST_BYTES


def test_the_server_answers_an_oversized_call_and_goes_on(git_repo, tmp_path):
    from test_mcp import call, stdio_session, text_of

    git_repo.commit("init", {"a.py": "def f():\n    return 1\n"})

    async def main() -> None:
        async with stdio_session(git_repo, tmp_path / "server.log") as s:
            big = await call(s, "record_invariant", rule_id="BIG", scope="s" * (5 << 20),
                             invariant_description="d")  # fmt: skip
            assert big.is_error
            assert f"over the {MAX_REQUEST_BYTES} bytes a call may send" in text_of(big)
            ok = await call(s, "record_invariant", rule_id="R1", scope="a.py",
                            invariant_description="f returns 1")  # fmt: skip
            assert not ok.is_error, text_of(ok)

    anyio.run(main)


def test_a_pipe_of_huge_lines_is_read_a_chunk_at_a_time():
    # the bound holds on a real pipe, line after line, with the writer still writing
    r, w = os.pipe()
    line = _request(5, "record_invariant", scope="s" * 3_000_000)

    def writer() -> None:
        with os.fdopen(w, "wb") as f:
            for _ in range(4):
                f.write(line)

    threading.Thread(target=writer, daemon=True).start()

    async def main() -> list[str]:
        with os.fdopen(r, "rb") as f:
            return [x async for x in BoundedLines(f, 1 << 20)]

    got = anyio.run(main)
    assert [json.loads(x)["params"]["arguments"] for x in got] == [
        {OVERSIZED_ARGUMENT: str(len(line))}
    ] * 4
