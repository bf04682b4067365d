"""Memories over MCP: the real server over stdio, a memory anchored to a symbol, recalled by a
later session, shown by preflight, and marked possibly stale once a commit changes the symbol."""

from __future__ import annotations

import anyio
import pytest
from test_mcp import RETRY_V2, build_repo, call, index, poll, refreshed_to, stdio_session, text_of

pytestmark = pytest.mark.slow

RETRY = "backend/payments/retry.py"


def test_remember_recall_preflight_and_staleness_over_stdio(make_repo, tmp_path) -> None:
    repo = build_repo(make_repo("memory").path)
    index(repo)
    log = tmp_path / "server.log"

    async def first_session() -> str:
        async with stdio_session(repo, log) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            props = tools["remember"].input_schema["properties"]
            assert props["importance"]["maximum"] == 1 and "enum" in str(props["kind"])
            got = await call(
                s, "remember", kind="decision", importance=0.8,
                text="Reuse one idempotency key across all retries of a charge.",
                anchors=[f"{RETRY}::charge_with_retry"],
            )  # fmt: skip
            assert not got.is_error, text_of(got)
            mid = got.structured_content["memory"]["id"]
            assert got.structured_content["action"] == "created"
            again = await call(s, "remember", kind="decision",
                               text="Reuse one idempotency key across all retries of a charge",
                               anchors=[f"{RETRY}::charge_with_retry"])  # fmt: skip
            assert again.structured_content["action"] == "reinforced"
            bad = await call(s, "remember", text="x", anchors=["../../etc/passwd"])
            assert bad.is_error and "outside the repository" in text_of(bad)
            empty = await call(s, "remember", text="   ")
            assert empty.is_error and "empty" in text_of(empty)
            unknown = await call(s, "forget", memory_id="mnosuchthing")
            assert unknown.is_error and "unknown memory id" in text_of(unknown)
            stats = await call(s, "memory_stats")
            assert stats.structured_content["kinds"] == {"decision": 1}
            return mid

    async def second_session(mid: str) -> None:
        async with stdio_session(repo, log) as s:
            key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
            got = await call(s, "recall", query=f"idempotency key for retries {key}")
            assert key not in str(got.structured_content["query"])
            mems = got.structured_content["memories"]
            assert mems[0]["id"] == mid and mems[0]["stale"] == []
            pre = await call(s, "preflight_check", file_path=RETRY, symbol_name="charge_with_retry")
            assert [m["id"] for m in pre.structured_content["memories"]] == [mid]
            assert "<related_memory>" in text_of(pre) and mid in text_of(pre)
            other = await call(s, "preflight_check", file_path=RETRY, symbol_name="refund")
            assert mid not in [m["id"] for m in other.structured_content["memories"]]

            head = repo.commit(
                "refactor(payments): derive the key from the order id",
                {RETRY: RETRY_V2.replace("uuid.NAMESPACE_URL", "uuid.NAMESPACE_OID")},
            )
            await refreshed_to(s, head)

            async def stale():
                got = await call(s, "recall", query="idempotency key for retries")
                notes = got.structured_content["memories"][0]["stale"]
                return notes or None

            notes = await poll(stale, "the memory to be marked stale")
            assert notes[0]["commit"] == head
            assert "possibly stale since" in notes[0]["note"]
            pre = await call(s, "preflight_check", file_path=RETRY, symbol_name="charge_with_retry")
            assert "possibly stale since" in text_of(pre)
            assert pre.structured_content["memories"][0]["stale"]

    mid = anyio.run(first_session)
    anyio.run(second_session, mid)
