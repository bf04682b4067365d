"""`linediff.diff_hunks`: -U0 hunks that `patch.apply_hunks` turns back into the new text."""

from __future__ import annotations

import subprocess
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from gitstrata.stages.linediff import diff_hunks, split_lines
from gitstrata.stages.patch import LOG_ARGS, apply_hunks, iter_commits

# few distinct lines, so that texts repeat lines (blank lines, closing brackets) as code does;
# carriage returns inside lines, and texts that end without a newline
LINES = st.sampled_from(
    [b"", b"a", b"b", b"def f():", b"    return 1", b"}", b"x\r", b"\r", b"  # note", b"c"]
)


@st.composite
def texts(draw) -> bytes:
    lines = draw(st.lists(LINES, max_size=30))
    text = b"\n".join(lines)
    return text if draw(st.booleans()) or not text else text + b"\n"


@st.composite
def edited(draw) -> tuple[bytes, bytes]:
    """A text and a version of it a few edits away (and sometimes an unrelated one)."""
    old = draw(texts())
    if draw(st.integers(0, 9)) == 0:
        return old, draw(texts())
    lines = split_lines(old if old.endswith(b"\n") or not old else old + b"\n")
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(lines)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        line = draw(LINES) + b"\n"
        if op == "insert" or not lines:
            lines.insert(at, line)
        elif op == "delete":
            lines.pop(min(at, len(lines) - 1))
        else:
            lines[min(at, len(lines) - 1)] = line
    new = b"".join(lines)
    if draw(st.booleans()) and new.endswith(b"\n"):
        new = new[:-1]
    return old, new


@settings(max_examples=400, deadline=None)
@given(edited())
def test_hunks_turn_one_text_into_the_other(pair):
    old, new = pair
    hunks = diff_hunks(old, new)
    assert apply_hunks(old, hunks, forward=True) == new
    assert apply_hunks(new, hunks, forward=False) == old
    # ordered and apart, as git's -U0 hunks are: an unchanged line between two hunks
    for a, b in pairwise(hunks):
        assert a.old_start + a.old_count < b.old_start + (b.old_count == 0)
        assert a.new_start + a.new_count < b.new_start + (b.new_count == 0)
    assert (not hunks) == (old == new)


def test_hunks_read_like_gits(tmp_path):
    """The hunks of two versions parsed from `git log -p -U0` have the same line numbers and
    bodies as `diff_hunks` of the same two texts, where git's diff has no choice to make."""
    old = b"import os\n\ndef f():\n    return 1\n\ndef g():\n    return 2\n"
    new = b"import os\nimport sys\n\ndef f():\n    return 3\n\ndef g():\n    return 2"

    def run(*args: str) -> bytes:
        return subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True).stdout

    run("init", "-q")
    for i, text in enumerate((old, new)):
        (tmp_path / "m.py").write_bytes(text)
        run("add", "m.py")
        run("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "-m", f"c{i}")
    at = LOG_ARGS.index("log")
    log = run(*LOG_ARGS[:at], "log", "-1", *LOG_ARGS[at + 1 :])
    (commit,) = iter_commits([log])
    git_hunks = [(h.old_start, h.old_count, h.new_start, h.new_count, h.body)
                 for h in commit.files[0].hunks]  # fmt: skip
    ours = [(h.old_start, h.old_count, h.new_start, h.new_count, h.body)
            for h in diff_hunks(old, new)]  # fmt: skip
    assert ours == git_hunks
