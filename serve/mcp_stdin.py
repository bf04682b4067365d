"""The stdio server's input, one JSON-RPC line at a time, none longer than a bound.

The SDK reads a whole line, decodes it and parses it before any tool sees an argument, so a
10 MB argument costs three 10 MB copies; Python frees them, but the C allocator keeps most of
that memory (the line is read on a worker thread, in that thread's arena), and the server grew
by about 100 MB over a few such calls. Here a line longer than `limit` bytes is never held
whole: its first bytes are kept (the request's id, method and tool name are at the front of
every client's messages), the rest is read in chunks and dropped, and the line handed to the
SDK is a small stand-in that the server answers with an error naming the size.

fd 0 is pointed at the null device while serving, as the SDK does when it owns stdin: a child
process (git) must not read the client's requests.
"""

from __future__ import annotations

import json
import os
import re
from typing import BinaryIO

# a tool call's argument that says the real request was refused by size (see `oversized`)
OVERSIZED_ARGUMENT = "__gitstrata_request_bytes__"
OVERSIZED_METHOD = "gitstrata/request-too-large"
_HEAD = 4096
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
_METHOD = re.compile(rb'"method"\s*:\s*"([\w/.-]{1,100})"')
_NAME = re.compile(rb'"name"\s*:\s*"([\w.-]{1,100})"')


def stand_in(head: bytes, size: int) -> str | None:
    """The small request that takes an oversized one's place: the same id, so the client gets
    its answer; None when the head names no id (a notification needs no answer)."""
    found = _ID.search(head)
    if found is None:
        return None
    request_id = json.loads(found.group(1))
    method = _METHOD.search(head)
    name = _NAME.search(head)
    if method is not None and method.group(1) == b"tools/call" and name is not None:
        params = {"name": name.group(1).decode(), "arguments": {OVERSIZED_ARGUMENT: str(size)}}
        body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    else:
        body = {"jsonrpc": "2.0", "id": request_id, "method": OVERSIZED_METHOD, "params": {}}
    return json.dumps(body) + "\n"


class BoundedLines:
    """`async for line in BoundedLines(buffer, limit)`: the lines of `buffer` as text, each
    line over `limit` bytes replaced by its `stand_in` (or skipped)."""

    def __init__(self, buffer: BinaryIO, limit: int) -> None:
        self.buffer = buffer
        self.limit = limit

    def __aiter__(self) -> BoundedLines:
        return self

    async def __anext__(self) -> str:
        import anyio.to_thread

        line = await anyio.to_thread.run_sync(self.next_line)
        if line is None:
            raise StopAsyncIteration
        return line

    def next_line(self) -> str | None:
        while True:
            data = self.buffer.readline(self.limit + 1)
            if not data:
                return None
            if len(data) <= self.limit or data.endswith(b"\n"):
                return data.decode("utf-8", "replace")
            head, size = data[:_HEAD], len(data)
            del data
            while True:  # the rest of the line, a chunk at a time
                chunk = self.buffer.readline(1 << 20)
                size += len(chunk)
                if not chunk or chunk.endswith(b"\n"):
                    break
            line = stand_in(head, size)
            if line is not None:
                return line


def claim_stdin() -> BinaryIO:
    """The client's stream on a private descriptor; fd 0 reads the null device from now on."""
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    return os.fdopen(private, "rb", buffering=1 << 20)


__all__ = ["OVERSIZED_ARGUMENT", "OVERSIZED_METHOD", "BoundedLines", "claim_stdin", "stand_in"]
