"""The smaller regions `spans.splice` parses: among the members of a class or the items of a
block, instead of whole top-level symbols.

Invariants:
- A region is kept only where a parse of it, under the lines that open its class or block (and
  the line that closes it), names and nests its symbols as the whole file's parse does: a
  region never ends on an attribute or decorator, which belongs to the symbol below it, and
  the lines a region is parsed under never end on one either (`_opens_cleanly`).
- Outside Python, member regions are used in the languages checked against whole parses on
  real histories (Rust, JavaScript, TypeScript), block regions in Rust.
- Anything else is None: the caller parses the top-level region, or the whole file.
"""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..store.regexcache import compile_pattern

if TYPE_CHECKING:
    from .spans import Spans


# the blocks whose members a region may hold without the rest of the block, outside Python:
# their members are items of their own (methods, associated functions and types, fields);
# in the languages whose member regions were checked against whole parses on real histories
_BRACE_OWNERS = frozenset({"class", "impl", "trait", "interface"})
_MEMBER_LANGUAGES = frozenset({"rust", "javascript", "typescript", "tsx"})
_BLOCK_LANGUAGES = frozenset({"rust"})  # `mod name { ... }`: items inside a non-symbol block
# modules also cut between top-level call statements (`statement_cuts`)
STATEMENT_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
_CLOSERS = (b"}", b"};")
_COMMENT_LEADS = (b"//", b"/*", b"*")


def _last_above(lines: list[bytes], stop: int, *, comments: bool, floor: int = 1) -> bytes:
    """The last non-blank line before line `stop` and not above line `floor`, stripped (b""
    when there is none); `comments`: comment lines are passed over."""
    for k in range(min(stop - 1, len(lines)), floor - 1, -1):
        text = lines[k - 1].strip()
        if text and not (comments and text.startswith(_COMMENT_LEADS)):
            return text
    return b""


def closed(lines: list[bytes], stop: int, *, comments: bool = False) -> bool:
    """The last non-blank line before line `stop` is a lone closing brace (`}` or `};`): nothing
    above the symbol starting at `stop` can attach to it (no attribute or decorator ends there),
    so a region ending there parses the same without that symbol. `comments`: comment lines
    are passed over (a comment above a member is not part of it; an attribute would be)."""
    return _last_above(lines, stop, comments=comments) in _CLOSERS


def _closed_cuts(cuts: list[int], lines: list[bytes], to_y: Callable) -> list[int]:
    """`cuts` (X member starts, ascending) from the first one above which the region before it
    ends on a closing brace: an attribute or decorator left at the end of a region belongs to
    the member after it, which only a parse that sees both can tell (as `splice` does)."""
    k = next((k for k, x in enumerate(cuts) if closed(lines, to_y(x), comments=True)), len(cuts))
    return cuts[k:]


def _opens_cleanly(lines: list[bytes], y_lo: int, y_hi: int) -> bool:
    """Whether the last line of lines [y_lo, y_hi) that is neither blank nor a comment ends
    with `{`, `;` or `}`: a head of a block's own lines ending there holds nothing that
    attaches to the member parsed below it. A line added above the block's first member (an
    attribute, a decorator) sits in the head, but belongs to that member."""
    return _last_above(lines, y_hi, comments=True, floor=y_lo).endswith((b"{", b";", b"}"))


def between(lines: list[bytes], y_lo: int, y_hi: int) -> list[bytes]:
    """Lines [y_lo, y_hi) (1-based; to the end when y_hi is 0)."""
    return lines[y_lo - 1 : y_hi - 1 if y_hi else len(lines)]


def _code(line: bytes) -> bool:
    """A line that is neither blank nor only a comment."""
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith(b"#")


def unindented_first(lines: list[bytes], y_lo: int, y_hi: int) -> bool:
    """Whether the first code line of lines [y_lo, y_hi) starts at column 0 (True when there
    is none)."""
    first = next((line for line in between(lines, y_lo, y_hi) if _code(line)), None)
    return first is None or not _indented(first)


def overloads(lines: list[bytes], y_lo: int, y_hi: int) -> bool:
    """Whether lines [y_lo, y_hi) mention `overload`: a stub folds into the next definition of
    its name, so a region must not part them."""
    return b"overload" in b"\n".join(between(lines, y_lo, y_hi))  # one scan, in C


def member_regions(
    spans: Spans,
    moves: list[tuple[int, int, int]],
    lines: list[bytes],
    to_y: Callable,
    top_cuts: list[int],
) -> list[list] | None:
    """X regions [lo, hi, (mode, class, first member)] for hunks that each sit in one
    top-level class after its first line, parsed apart from the rest of the class
    (`spans._spliced`) under the class's header: in Python a line `class <name>:`, elsewhere
    the block's own lines above its first member (and its closing brace line after a region
    that ends inside the block):

    - "members": from the last member (method, nested class) starting before the hunk to the
      next one; the class keeps its mapped start and end;
    - "header": no member before the hunk: from the class's first line to the next member,
      parsed as it is; the class keeps its mapped start and end;
    - "tail": no member after the hunk inside the class: from the last member before it to
      the next of `top_cuts` (`splice`'s), whose parse gives the class's new end.

    None when a hunk is elsewhere, is both before the first member and after the last; outside
    Python, when the class is not one of `_BRACE_OWNERS` closed by a lone brace in one of
    `_MEMBER_LANGUAGES`, or its members are not laid out as its indentation says (`_flat`,
    `_enclosed`); in Python, when `overload` is written between the member above the region
    and its end (a stub folds into the next definition of its name, so the region must hold
    both)."""
    n = len(spans.owner) - 1
    python = spans.python
    tops = np.flatnonzero(spans.top & (spans.indent == 0))
    regions: list[list] = []
    for xs, xc, _ in moves:
        first, last = (xs, xs + xc - 1) if xc else (xs, xs)
        owner = [int(c) for c in tops if spans.starts[c] < first <= spans.ends[c]]
        if len(owner) != 1:
            return None
        c = owner[0]
        if python:
            if spans.kinds[c] != "class":
                return None
        elif (
            spans.language not in _MEMBER_LANGUAGES or spans.kinds[c] not in _BRACE_OWNERS
        ) or not (
            0 < (close := to_y(int(spans.ends[c]))) <= len(lines)
            and lines[close - 1].strip() in _CLOSERS
        ):
            return None
        inside = np.flatnonzero((spans.starts > spans.starts[c]) & (spans.ends <= spans.ends[c]))
        inside = inside[inside != spans.module]
        if not len(inside):
            return None
        level = spans.indent[inside].min()
        cuts = sorted({int(spans.starts[i]) for i in inside if spans.indent[i] == level})
        if not python and not (
            _flat(spans, inside, level)
            and _enclosed(lines, to_y(cuts[0]), to_y(int(spans.ends[c])))
            and _opens_cleanly(lines, to_y(int(spans.starts[c])), to_y(cuts[0]))
        ):
            return None
        before = [x for x in cuts if x < max(first, 2)]
        after = [x for x in cuts if x > last]
        if not python:
            after = _closed_cuts(after, lines, to_y)
        if after and before:
            mode, hi = "members", after[0]
        elif after:
            mode, hi = "header", after[0]
        elif before:
            mode, hi = "tail", min(x for x in top_cuts if x > last)
            if not python and hi <= n and not closed(lines, to_y(hi)):
                hi = min((x for x in top_cuts if x > hi), default=n + 1)  # as `splice` does
        else:
            return None
        lo = before[-1] if before else int(spans.starts[c])
        above = before[-2] if len(before) > 1 else int(spans.starts[c])
        if python and overloads(lines, to_y(above), to_y(hi) if hi <= n else 0):
            return None
        if regions and lo <= regions[-1][1]:
            prev = regions[-1]
            modes = {prev[2][0], mode}
            if prev[2][1] != c or modes == {"header", "tail"}:
                return None
            prev[1] = max(prev[1], hi)
            prev[2] = (next((m for m in ("header", "tail") if m in modes), "members"), c, cuts[0])
        else:
            regions.append([lo, hi, (mode, c, cuts[0])])
    return regions


def _flat(spans: Spans, inside: np.ndarray, level: int) -> bool:
    """Whether the block's members at `level` do not overlap and hold every other symbol of the
    block: braces, not indentation, nest a brace language's symbols, and a side whose members
    nest otherwise than their indentation says (a brace removed above them) keeps its
    structure only in a parse of the whole block."""
    members = sorted(
        (int(spans.starts[i]), int(spans.ends[i])) for i in inside if spans.indent[i] == level
    )
    if any(a[1] >= b[0] for a, b in zip(members, members[1:], strict=False)):
        return False
    return all(
        any(a <= spans.starts[i] and spans.ends[i] <= b for a, b in members)
        for i in inside
        if spans.indent[i] != level
    )


def _enclosed(lines: list[bytes], y_lo: int, y_hi: int) -> bool:
    """Whether every non-blank line of lines [y_lo, y_hi) is indented: on the parsed side the
    block still holds its members (a brace added or removed on the other side can make that
    side's block swallow what follows it, or end early)."""
    return not any(_outdented(line) for line in between(lines, y_lo, y_hi))


def _y_start(xs: int, xc: int, yc: int, to_y: Callable) -> int:
    """The first Y line of a hunk replacing X lines [xs, xs + xc) by yc lines (inserting them
    after line xs when xc is 0)."""
    return to_y(xs) if xc else to_y(xs + 1) - yc


# a call statement at the top of a module: `test(...)`, `describe.skip(...)`, `app.use(...)`
_CALL_STATEMENT = compile_pattern(rb"(?m)^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*[ \t]*\(")
_STATEMENT_ENDS = (b";", b")", b"}")
_OPENS_LONG = compile_pattern(rb"`|/\*|\*/|\\")
# a region between symbol cuts shorter than this is parsed as it is; a statement cut is looked
# for at most this many lines from a hunk (a test is shorter; a module of fewer, longer
# statements gains little)
STATEMENT_REGION_LINES = 128
STATEMENT_WINDOW = 256
STATEMENT_GIVE_UP = 3


@dataclass(slots=True)
class StatementHint:
    """What `statement_cuts` found near the hunks of a file's earlier versions: once
    `STATEMENT_GIVE_UP` or more scans found a cut less than one time in four (a module whose
    tests sit inside one `describe(...)`, or of a few long statements), its later versions are
    not scanned. On the bundles a file was helped nearly every time or nearly never."""

    scans: int = 0
    found: int = 0

    @property
    def skip(self) -> bool:
        return self.scans >= STATEMENT_GIVE_UP and 4 * self.found < self.scans


def statement_cuts(
    spans: Spans,
    lines: list[bytes],
    moves: list[tuple[int, int, int]],
    to_y: Callable,
    cuts: list[int],
    known: Callable[[], list[bytes] | None],
    hint: StatementHint | None = None,
) -> dict[int, str]:
    """X lines where a top-level call statement starts next to a hunk, in JavaScript and
    TypeScript, each with the name its region's parse is kept under (its first line): a test
    file is a module of `test(...)` calls, none of them a symbol, and without these cuts a hunk
    among them re-parses the whole file. For each hunk whose region between its nearest symbol
    `cuts` (X lines, ascending) has at least `STATEMENT_REGION_LINES` lines in X, the nearest such
    line above it and below it inside that region and within `STATEMENT_WINDOW` lines, where:

    - in Y (`lines`), the line starts at column 0 with a call;
    - in Y and in X (`known()`, the known side's lines, None when the hunks cannot rebuild
      them), the code line above it starts at column 0 and ends a statement (`;`, `)` or `}`;
      no comment, no decorator), and neither line sits inside a string or comment running
      over several lines (the lexer `Source` masks with, run over each side; over Y only when
      no hunk line holds a backtick, `/*`, `*/` or a backslash, which alone could make the two
      sides differ there);
    - in X, no symbol but the module runs across it.

    Only where the two cut at least half of the lines off the region: finding the strings and
    comments costs a scan of the file. A wrong cut only ever costs a parse: a region that does
    not parse cleanly makes `splice` parse the whole file."""
    from .chunking.source import covered_lines

    if hint is not None and hint.skip:
        return {}
    n = len(spans.owner) - 1
    wide: list[tuple[int, int, int, int]] = []  # (Y hunk first, Y hunk end, Y region lo, hi)
    for xs, xc, yc in moves:
        first, last = (xs, xs + xc - 1) if xc else (xs, xs)
        lo = cuts[bisect_left(cuts, max(first, 2)) - 1] if first > 1 else 1
        k = bisect_right(cuts, last)
        hi = cuts[k] if k < len(cuts) else n + 1
        if hi - lo < STATEMENT_REGION_LINES:
            continue  # a hunk that makes a short region long holds most of its lines
        y0 = _y_start(xs, xc, yc, to_y)
        y_lo, y_hi = to_y(lo), (to_y(hi) if hi <= n else len(lines) + 1)
        wide.append((y0, y0 + max(yc, 1), y_lo, y_hi))
    if not wide:
        return {}
    hunks = [(xs, xc, yc, _y_start(xs, xc, yc, to_y)) for xs, xc, yc in moves]
    language = spans.language

    def x_of(y: int) -> int | None:
        """The X line of Y line `y` when it is no hunk's, else None."""
        shift = 0
        for _, xc, yc, y0 in hunks:
            if y0 + yc <= y:
                shift += yc - xc
            elif y0 <= y:
                return None
        return y - shift

    covers: dict[str, list[tuple[int, int]]] = {}  # per side: its multi-line strings, comments
    known = functools.cache(known)  # rebuilt once, when a candidate gets that far

    def starts_statement(side: str, text: list[bytes], k: int) -> bool:
        """Whether line `k` of `text` starts a statement after one that ended, outside strings
        and comments."""
        above = k - 1
        while above >= 1 and not text[above - 1].strip():
            above -= 1
        prev = text[above - 1].rstrip() if above >= 1 else b""
        if (
            not prev
            or _indented(prev)
            or prev.startswith((*_COMMENT_LEADS, b"@"))
            or not prev.endswith(_STATEMENT_ENDS)
        ):
            return False
        if side == "X" and same_strings():
            # the sides' strings and comments are the same outside the hunks: line k's is Y's
            # (checked), and a line above it inside a hunk would put k inside one too
            y_above = to_y(above) if not in_hunk(above) else None
            side, k, above = "Y", to_y(k), (y_above if y_above is not None else to_y(k))
            text = lines
        if side not in covers:
            covers[side] = covered_lines(b"\n".join(text).decode("utf-8", "replace"), language)
        return not any(first < j <= last for first, last in covers[side] for j in (above, k))

    def in_hunk(x: int) -> bool:
        """Whether X line `x` is one a hunk replaces."""
        return any(xs <= x < xs + xc for xs, xc, _, _ in hunks)

    @functools.cache
    def same_strings() -> bool:
        """Whether no hunk line, on either side, holds what can open, close or continue a
        string or comment running over several lines (a backtick, `/*`, `*/`, a backslash):
        then both sides have the same such strings and comments outside the hunks."""
        x_text = known()
        assert x_text is not None  # asked only once the known side was rebuilt
        changed = (
            line
            for xs, xc, yc, y0 in hunks
            for line in (*x_text[xs - 1 : xs - 1 + xc], *lines[y0 - 1 : y0 - 1 + yc])
        )
        return not any(_OPENS_LONG.search(line) for line in changed)

    def valid(y: int) -> int | None:
        x = x_of(y)
        if x is None or not 1 < x <= n or to_y(x) != y:
            return None
        across = (spans.starts < x) & (spans.ends >= x)
        across[spans.module] = False
        if across.any() or not starts_statement("Y", lines, y):
            return None
        x_text = known()
        if x_text is None or not starts_statement("X", x_text, x):
            return None
        return x

    out: dict[int, str] = {}
    checked: dict[int, int | None] = {}

    def nearest(ys: list[int]) -> tuple[int, int] | None:
        """(Y, X) of the first line of `ys` that qualifies."""
        for y in ys:
            if y not in checked:
                checked[y] = valid(y)
            x = checked[y]
            if x is not None:
                return y, x
        return None

    scanned: dict[tuple[int, int], list[int]] = {}  # per region: its calls near its hunks
    for _, _, y_lo, y_hi in wide:
        if (y_lo, y_hi) not in scanned:
            near = [(a, b) for a, b, lo, hi in wide if (lo, hi) == (y_lo, y_hi)]
            scanned[y_lo, y_hi] = _calls(
                lines,
                max(y_lo + 1, min(a for a, _ in near) - STATEMENT_WINDOW),
                min(y_hi, max(b for _, b in near) + STATEMENT_WINDOW),
            )
    for start, end, y_lo, y_hi in wide:
        calls = scanned[y_lo, y_hi]
        above = [y for y in calls[: bisect_left(calls, start)] if y > start - STATEMENT_WINDOW]
        below = [y for y in calls[bisect_left(calls, end) :] if y < end + STATEMENT_WINDOW]
        if not above and not below:
            continue
        if 2 * ((below[0] if below else y_hi) - (above[-1] if above else y_lo)) > y_hi - y_lo:
            continue
        for found in (nearest(above[::-1]), nearest(below)):
            if found is not None:
                y, x = found
                out[x] = "statement:" + lines[y - 1][:80].decode("utf-8", "replace")
    if hint is not None:
        hint.scans += 1
        hint.found += bool(out)
    return out


def _calls(lines: list[bytes], y_lo: int, y_hi: int) -> list[int]:
    """The Y lines in [y_lo, y_hi) that start at column 0 with a call."""
    if y_hi <= y_lo:
        return []
    block = b"\n".join(lines[y_lo - 1 : y_hi - 1])
    out, at, line = [], 0, y_lo
    for m in _CALL_STATEMENT.finditer(block):
        line += block.count(b"\n", at, m.start())
        at = m.start()
        out.append(line)
    return out


def smaller_regions(
    spans: Spans,
    moves: list[tuple[int, int, int]],
    lines: list[bytes],
    to_y: Callable,
    top_cuts: list[int],
    lo: int,
    hi: int,
) -> list[list] | None:
    """The smaller regions of the top-level region [lo, hi) for its hunks `moves`: those in
    one top-level class among its members (`member_regions`), the others among the symbols of
    a block that is no symbol (`block_regions`, outside Python). None when a hunk has no such
    home or two homes' regions overlap."""
    tops = np.flatnonzero(spans.top & (spans.indent == 0))
    groups: dict[int, list[tuple[int, int, int]]] = {}
    for move in moves:
        owners = [int(c) for c in tops if spans.starts[c] < move[0] <= spans.ends[c]]
        groups.setdefault(owners[0] if len(owners) == 1 else -1, []).append(move)
    out: list[list] = []
    for owner, inside in groups.items():
        if owner >= 0:
            got = member_regions(spans, inside, lines, to_y, top_cuts)
        elif spans.language not in _BLOCK_LANGUAGES:
            return None
        else:
            got = block_regions(spans, inside, lines, to_y, lo, hi)
        if got is None:
            return None
        out += got
    out.sort(key=lambda r: r[0])
    if any(a[1] > b[0] for a, b in zip(out, out[1:], strict=False)):
        return None
    return out


def _indented(line: bytes) -> bool:
    return line[:1] in (b" ", b"\t")


def _outdented(line: bytes) -> bool:
    """A non-blank line starting at column 0."""
    return bool(line.strip()) and not _indented(line)


def block_regions(
    spans: Spans,
    moves: list[tuple[int, int, int]],
    lines: list[bytes],
    to_y: Callable,
    lo: int,
    hi: int,
) -> list[list] | None:
    """X regions [lo, hi, ("block", (opener, first, closer))] (outside Python) for hunks that
    each sit among top-level symbols indented inside a block that is no symbol (Rust's
    `mod tests { ... }`): from the symbol starting before the hunk to the one after it,
    parsed under the block's opening lines (Y `opener` to `first`, the block's first symbol)
    and its closing line (Y `closer`). None unless every hunk of the top-level region [lo, hi)
    has such a symbol before it and the block is one: its opening line the only unindented
    one above its first symbol, ending with `{`, and a lone `}` the first unindented line
    after the region. A hunk after the block's last symbol: from the symbol before it to `hi`,
    the block's closing line included (no closing line added: `closer` 0)."""
    inner = np.flatnonzero(
        spans.top & (spans.indent > 0) & (spans.starts > lo) & (spans.starts < hi)
    )
    cuts = sorted({int(spans.starts[i]) for i in inner})
    if len(cuts) < 2:
        return None
    regions: list[list] = []
    for xs, xc, _ in moves:
        first, last = (xs, xs + xc - 1) if xc else (xs, xs)
        before = [x for x in cuts if x < max(first, 2)]
        after = _closed_cuts([x for x in cuts if x > last], lines, to_y)
        if not before:
            return None
        # no symbol after the hunk in the block: to the end of the top-level region, the
        # block's closing line included
        r_lo, r_hi = before[-1], after[0] if after else hi
        if regions and r_lo <= regions[-1][1]:
            regions[-1][1] = max(regions[-1][1], r_hi)
        else:
            regions.append([r_lo, r_hi, None])
    y_first = to_y(cuts[0])
    if not 1 < y_first <= len(lines):
        return None
    opener = next((k for k in range(y_first - 1, 0, -1) if _outdented(lines[k - 1])), 0)
    if not opener or not lines[opener - 1].rstrip().endswith(b"{"):
        return None
    if not _opens_cleanly(lines, opener, y_first):
        return None  # a line added above the block's first symbol is that symbol's
    closer = 0  # the block's closing line, after the regions that end inside the block
    inside = [r for r in regions if r[1] != hi]
    if inside:
        y_end = to_y(inside[-1][1])
        closer = next((k for k in range(y_end, len(lines) + 1) if _outdented(lines[k - 1])), 0)
        if not closer or lines[closer - 1].strip() not in _CLOSERS:
            return None
    for region in regions:
        if region[1] != hi and not _enclosed(lines, to_y(region[0]), to_y(region[1])):
            return None  # the region leaves the block
        region[2] = ("block", (opener, y_first, closer if region[1] != hi else 0))
    return regions


def last_code(lines: list[bytes]) -> int:
    """1-based number of the last code line (0: none)."""
    return next((k for k in range(len(lines), 0, -1) if _code(lines[k - 1])), 0)
