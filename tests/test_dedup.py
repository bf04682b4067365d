"""Repeats of a failed attempt: folded into one record only when they are the same attempt (the
same diff content failing the same way), and nothing a repeat says is ever dropped."""

from __future__ import annotations

import json
from pathlib import Path

from gitstrata.serve.failures import build_failure_record, record_attempt
from gitstrata.store.attempts import (
    Attempt,
    append_failure,
    diff_key,
    load_failures,
)
from gitstrata.store.journal import Journal

TRACE = "FAILED tests/test_limits.py::test_burst - AssertionError: 3 != 2"


def hunk(old: str, new: str, at: int = 12) -> str:
    """A diff of hunks alone (no file headers), as agents often send one."""
    return f"@@ -{at},3 +{at},3 @@ def burst():\n     n = 0\n-{old}\n+{new}\n     return n\n"


def attempt(diff: str, notes: str, trace: str = TRACE) -> Attempt:
    return Attempt("limits.py", diff, trace, notes=notes, command="pytest -q", exit_code=1)


def lines(root: Path) -> list[dict]:
    return [json.loads(x) for x in (root / "failures.jsonl").read_text().splitlines()]


def test_two_different_hunk_only_attempts_failing_the_same_test_are_two_records(tmp_path):
    root = tmp_path / "journal"
    first, a = record_attempt(root, attempt(hunk("    limit = 2", "    limit = 3"), "raise it"))
    second, b = record_attempt(root, attempt(hunk("    limit = 2", "    limit = 1"), "lower it"))
    assert "op" not in second and second["id"] == 2
    assert (a.id, b.id) == (1, 2) and b.occurrences == 1
    failures = load_failures(Journal(root))
    assert [(f.id, f.notes, f.occurrences) for f in failures] == [
        (1, "raise it", 1),
        (2, "lower it", 1),
    ]
    assert "+    limit = 1" in failures[1].diff


def test_the_same_change_at_another_offset_is_an_occurrence_that_keeps_what_it_says(tmp_path):
    root = tmp_path / "journal"
    record_attempt(root, attempt(hunk("    limit = 2", "    limit = 3"), "raise it"))
    moved = hunk("    limit = 2", "    limit = 3", at=40)
    written, failure = record_attempt(root, attempt(moved, "raise it, again after rebasing"))
    assert written["op"] == "occurrence" and written["target"] == 1
    assert written["notes"] == "raise it, again after rebasing"
    assert written["diff"] == build_failure_record(attempt(moved, ""))["diff"]  # its own text
    assert failure.occurrences == 2
    assert failure.all_notes() == ["raise it", "raise it, again after rebasing"]
    [f] = load_failures(Journal(root))
    assert f.occurrences == 2 and f.repeats[0]["diff"].startswith("@@ -40,3")


def test_an_exact_repeat_is_an_occurrence_without_copies_of_what_is_already_there(tmp_path):
    root = tmp_path / "journal"
    diff = hunk("    limit = 2", "    limit = 3")
    record_attempt(root, attempt(diff, "raise it"))
    written, failure = record_attempt(root, attempt(diff, "raise it"))
    assert written["op"] == "occurrence" and failure.occurrences == 2
    assert "diff" not in written and "notes" not in written and "trace" not in written
    # a different output of the same failure (another duration) is kept with the repeat
    root = tmp_path / "timed"
    record_attempt(root, attempt(diff, "raise it", trace=TRACE + " in 0.4s"))
    again, failure = record_attempt(root, attempt(diff, "raise it", trace=TRACE + " in 3.2s"))
    assert again["op"] == "occurrence" and failure.occurrences == 2
    assert again["trace"] == TRACE + " in 3.2s"


def test_changes_the_fingerprint_would_call_alike_stay_apart(tmp_path):
    # the fingerprint ignores what varies between runs (hex addresses, durations, line numbers);
    # as content of a diff they are different attempts
    root = tmp_path / "journal"
    pairs = [
        ("    mask = 0x10", "    mask = 0x20", "    mask = 0x40"),
        ('    timeout = "5s"', '    timeout = "30s"', '    timeout = "90s"'),
        ("    at = 'line 3'", "    at = 'line 4'", "    at = 'line 9'"),
    ]
    for old, one, two in pairs:
        record_attempt(root, attempt(hunk(old, one), f"{one.strip()}"))
        record_attempt(root, attempt(hunk(old, two), f"{two.strip()}"))
    failures = load_failures(Journal(root))
    assert len(failures) == 6 and {f.occurrences for f in failures} == {1}
    assert [f.notes for f in failures][:2] == ["mask = 0x20", "mask = 0x40"]


def test_whole_diffs_with_headers_dedup_by_content_too(tmp_path):
    head = "diff --git a/limits.py b/limits.py\n--- a/limits.py\n+++ b/limits.py\n"
    root = tmp_path / "journal"
    record_attempt(root, attempt(head + hunk("    limit = 2", "    limit = 3"), "a"))
    record_attempt(root, attempt(head + hunk("    limit = 2", "    limit = 3", at=7), "b"))
    record_attempt(root, attempt(head + hunk("    limit = 2", "    limit = 4"), "c"))
    assert [(f.id, f.occurrences) for f in load_failures(Journal(root))] == [(1, 2), (3, 1)]


def test_diff_key_is_content_without_offsets_context_or_blob_ids():
    a = "diff --git a/x b/x\nindex 1111111..2222222 100644\n--- a/x\n+++ b/x\n" + hunk("a", "b")
    b = "diff --git a/x b/x\nindex 3333333..4444444 100644\n--- a/x\n+++ b/x\n" + hunk(
        "a", "b", at=90
    ).replace("     n = 0", "     m = 1")
    assert diff_key(a) == diff_key(b)
    assert diff_key(hunk("a", "b")) != diff_key(hunk("a", "c"))
    assert diff_key(hunk("a", "b")) != diff_key(hunk("b", "a"))
    assert diff_key(a) != diff_key(a.replace("a/x b/x", "a/y b/y").replace("/x\n", "/y\n"))


def test_a_record_written_before_diff_keys_is_compared_by_its_diff(tmp_path):
    root = tmp_path / "journal"
    journal = Journal(root)
    diff = hunk("    limit = 2", "    limit = 3")
    old = build_failure_record(attempt(diff, "raise it"))
    del old["diff_key"]
    journal.append("failures", old)
    cut = {
        **build_failure_record(attempt(hunk("    n = 1", "    n = 2"), "cut")),
        "diff_truncated": True,
    }
    del cut["diff_key"]
    journal.append("failures", cut)
    assert append_failure(journal, build_failure_record(attempt(diff, "x")))["target"] == 1
    # the content of a cut diff is not known: a repeat of it is a record of its own
    again = append_failure(
        journal, build_failure_record(attempt(hunk("    n = 1", "    n = 2"), "y"))
    )
    assert "op" not in again and again["id"] == 4
    assert [r.get("op") for r in lines(root)] == [None, None, "occurrence", None]
