"""The MCP server over a journal with lines that do not fit, and over paths that change under
it: the real server as a subprocess, the SDK's client over stdio."""

from __future__ import annotations

import os

import anyio
import pytest
from test_mcp import build_repo, call, index, read_json, stdio_session, text_of

pytestmark = pytest.mark.slow  # a real MCP session over stdio

ODD = b'{"id":9999,"fingerprint":"a","targets":"x"}\n'
NOTE = (
    "Note: journal: 1 unreadable line skipped (failures.jsonl line 1); kept in the file as they "
    "are, `gitstrata doctor` says why"
)
TRACE = "FAILED tests/test_retry.py::test_retry_does_not_double_charge - AssertionError"


def hunk(new: str) -> str:
    return f"@@ -8,1 +8,1 @@\n-    for _ in range(attempts):\n+{new}\n"


def test_every_answer_reports_skipped_lines_and_writes_go_on(make_repo, tmp_path) -> None:
    repo = build_repo(make_repo("journal").path)
    index(repo)
    journal = repo.path / ".strata" / "journal"
    journal.mkdir(parents=True, exist_ok=True)
    (journal / "failures.jsonl").write_bytes(ODD)

    async def main() -> None:
        async with stdio_session(repo, tmp_path / "server.log") as s:
            pre = await call(s, "preflight_check", file_path="backend/payments/retry.py")
            found = await call(s, "search_causal_history", query="idempotency key")
            for answer in (pre, found):
                assert not answer.is_error
                assert text_of(answer).endswith(NOTE)
                assert answer.structured_content["journal"]["skipped"] == 1
                assert answer.structured_content["journal"]["skipped_lines"] == [
                    {"file": "failures.jsonl", "line": 1, "reason": "no ts"}
                ]
            status = await read_json(s, "strata://status")
            assert status["journal"]["skipped"] == 1

            # two different hunk-only attempts failing the same test: two records
            args = {"file_path": "backend/payments/retry.py", "error_trace": TRACE}
            one = await call(s, "record_failure", attempted_diff=hunk("    for _ in range(9):"),
                             notes="more retries", **args)  # fmt: skip
            two = await call(s, "record_failure", attempted_diff=hunk("    for _ in range(1):"),
                             notes="a single try", **args)  # fmt: skip
            assert [one.structured_content["failure_id"], two.structured_content["failure_id"]] == [
                10_000,
                10_001,
            ]
            assert "already recorded" not in text_of(two)
            assert text_of(two).endswith(NOTE)
            again = await call(s, "record_failure", attempted_diff=hunk("    for _ in range(1):"),
                               notes="a single try, again", **args)  # fmt: skip
            assert again.structured_content["failure_id"] == 10_001
            assert again.structured_content["occurrences"] == 2

            # a target named by the diff's headers outside the repository is never stored
            evil = (
                "diff --git a/../../etc/passwd b/../../etc/passwd\n--- a/../../etc/passwd\n"
                "+++ b/../../etc/passwd\n@@ -1 +1 @@\n-root:x:0:0\n+root::0:0\n"
            )
            got = await call(s, "record_failure", attempted_diff=evil, error_trace="boom", **{
                "file_path": "backend/payments/retry.py"})  # fmt: skip
            assert not got.is_error
            assert got.structured_content["targets"] == ["backend/payments/retry.py"]
            graveyard = await read_json(s, "strata://graveyard")
            assert all("etc/passwd" not in t for f in graveyard["failures"] for t in f["targets"])

            # a path answered once, then swapped for a symlink out of the repository
            ok = await call(s, "preflight_check", file_path="docs/RELEASE.md")
            assert not ok.is_error
            (repo.path / "docs" / "RELEASE.md").unlink()
            os.symlink("/etc/passwd", repo.path / "docs" / "RELEASE.md")
            refused = await call(s, "preflight_check", file_path="docs/RELEASE.md")
            assert refused.is_error and "outside the repository" in text_of(refused)
            refused = await call(
                s, "search_causal_history", query="release", file_path="docs/RELEASE.md"
            )
            assert refused.is_error and "outside the repository" in text_of(refused)

    anyio.run(main)
    assert (journal / "failures.jsonl").read_bytes().startswith(ODD)
