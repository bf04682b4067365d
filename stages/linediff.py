"""-U0 hunks between two versions of a file, computed here when git printed none between them.

A history walked from the newest commit back meets a side branch's last version of a file with
no diff leading to it: the merge that took the branch in is not diffed (`--no-merges`). Its
symbols were parsed whole, though a version of the same file in the cache (the merged one, or
the other branch's) is usually a few hunks away. `diff_hunks` gives those hunks, so the version
can be derived or spliced from its neighbour like any other (`spancache`).

Invariants: `patch.apply_hunks(old, diff_hunks(old, new), forward=True) == new` for any two
texts (lines are cut at "\\n" as git cuts them; a last line without one is marked as git marks
it); hunks are ordered, disjoint and separated by at least one unchanged line. The diff need
not be minimal: it anchors on lines that occur once in each text (patience diff), keeps the
longest run of anchors in order, and recurses between them a bounded number of times, taking
what is left as one replacement. A larger hunk than necessary costs a larger region to parse,
never a wrong answer.
"""

from __future__ import annotations

import bisect

from .patch import Hunk

_DEPTH = 8  # recursion between anchors; below it the rest is one replacement
_NO_NEWLINE = b"\n\\ No newline at end of file\n"


def split_lines(data: bytes) -> list[bytes]:
    """`data`'s lines with their "\\n", cut as git cuts them (a lone "\\r" is inside a line)."""
    parts = data.split(b"\n")
    lines = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def diff_hunks(old: bytes, new: bytes) -> list[Hunk]:
    """The -U0 hunks that turn `old` into `new`, with bodies as git prints them."""
    x, y = split_lines(old), split_lines(new)
    spans: list[tuple[int, int, int, int]] = []
    _diff(x, y, 0, len(x), 0, len(y), spans, 0)
    return [
        Hunk(
            a0 + 1 if a1 > a0 else a0,
            a1 - a0,
            b0 + 1 if b1 > b0 else b0,
            b1 - b0,
            _body(b"-", x[a0:a1]) + _body(b"+", y[b0:b1]),
        )
        for a0, a1, b0, b1 in spans
    ]


def _body(prefix: bytes, lines: list[bytes]) -> bytes:
    return b"".join(
        prefix + line if line.endswith(b"\n") else prefix + line + _NO_NEWLINE for line in lines
    )


def _diff(
    x: list[bytes],
    y: list[bytes],
    a0: int,
    a1: int,
    b0: int,
    b1: int,
    out: list[tuple[int, int, int, int]],
    depth: int,
) -> None:
    """Append the changed ranges of x[a0:a1] against y[b0:b1] to `out`, in order."""
    while a0 < a1 and b0 < b1 and x[a0] == y[b0]:
        a0, b0 = a0 + 1, b0 + 1
    while a1 > a0 and b1 > b0 and x[a1 - 1] == y[b1 - 1]:
        a1, b1 = a1 - 1, b1 - 1
    if a0 == a1 and b0 == b1:
        return
    anchors = [] if a0 == a1 or b0 == b1 or depth >= _DEPTH else _anchors(x, y, a0, a1, b0, b1)
    if not anchors:
        out.append((a0, a1, b0, b1))
        return
    for i, j in anchors:
        _diff(x, y, a0, i, b0, j, out, depth + 1)
        a0, b0 = i + 1, j + 1
    _diff(x, y, a0, a1, b0, b1, out, depth + 1)


def _anchors(
    x: list[bytes], y: list[bytes], a0: int, a1: int, b0: int, b1: int
) -> list[tuple[int, int]]:
    """(i, j) of lines that occur once in x[a0:a1] and once in y[b0:b1], the longest series of
    them in the same order on both sides."""
    once_x: dict[bytes, int] = {}
    for i in range(a0, a1):
        line = x[i]
        once_x[line] = -1 if line in once_x else i
    once_y: dict[bytes, int] = {}
    for j in range(b0, b1):
        line = y[j]
        if once_x.get(line, -1) >= 0:
            once_y[line] = -1 if line in once_y else j
    pairs = sorted((once_x[line], j) for line, j in once_y.items() if j >= 0)
    # the longest increasing run of j over pairs sorted by i (patience sorting)
    tails: list[int] = []  # smallest last j of a run of each length
    ends: list[int] = []  # the pair ending that run
    before = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        p = bisect.bisect_left(tails, j)
        if p == len(tails):
            tails.append(j)
            ends.append(k)
        else:
            tails[p] = j
            ends[p] = k
        before[k] = ends[p - 1] if p else -1
    run: list[tuple[int, int]] = []
    k = ends[-1] if ends else -1
    while k != -1:
        run.append(pairs[k])
        k = before[k]
    return run[::-1]
