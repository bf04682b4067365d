"""Symbol spans of file versions, for attributing history hunks to symbols.

`Spans.owner[line]` is the innermost symbol of a line (the same rule as
`chunking.SymbolIndex.innermost`: smallest span, ties to the nested one). Parsing a version costs
milliseconds, and history has one version per file change, so most versions are *derived*:
`derive` maps a known version's spans across a commit's -U0 hunks to the other side of the diff
without reading or parsing it. Invariant: `derive` returns spans only when no changed line can
move a symbol boundary, and then they equal what parsing that version gives (checked by property
tests against `parse_source`); otherwise it returns None and the caller parses.

A hunk is derivable when it sits strictly inside one container (never on a symbol's first or last
line) and `spanrules` finds it inert: no changed line can declare, end or decorate a symbol. For
Python, lines added inside a symbol must also stay indented deeper than its header, and must not
be indented deeper than the header of a symbol that ends right before them (they would join it).

When a hunk may change the structure, `splice` re-parses only the top-level regions it touches,
for any version that ast or tree-sitter parsed without a syntax error (`Spans.clean`); in
JavaScript and TypeScript a module of top-level calls (a test file of `test(...)`) is also cut
between them (`spanregions.statement_cuts`). Every
path is compared with parsing every version whole, on generated histories in the tests and on
real repositories by `benchmarks.history_speed --check`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from ..store.ids import MODULE_SYMBOL
from ..store.regexcache import compile_pattern
from . import spanrules
from .patch import Hunk, apply_hunks
from .spanregions import (
    STATEMENT_LANGUAGES,
    StatementHint,
    between,
    closed,
    last_code,
    overloads,
    smaller_regions,
    statement_cuts,
    unindented_first,
)


@dataclass(frozen=True, slots=True)
class Spans:
    """A file version's symbols. Arrays are per symbol; `owner` has one entry per line + 1
    (index 0 unused) and lines past its end belong to `<module>`."""

    owner: np.ndarray  # int32
    starts: np.ndarray  # int32
    ends: np.ndarray  # int32
    indent: np.ndarray  # int32, header indentation, -1 for <module>
    top: np.ndarray  # bool, no parent symbol
    qualnames: tuple[str, ...]
    kinds: tuple[str, ...]
    module: int
    language: str | None
    # parsed by ast or by tree-sitter without a syntax error (or derived from such a version):
    # only then can a region be parsed on its own and agree with the whole file (`splice`)
    clean: bool

    @property
    def python(self) -> bool:
        return self.language == "python"


def _build(
    quals,
    kinds,
    starts,
    ends,
    indent,
    top,
    module: int,
    n_lines: int,
    language: str | None,
    clean: bool = False,
) -> Spans:
    """Paint spans outermost first so each line keeps its innermost symbol; equal spans go to
    the later symbol (the nested one in the chunker's order)."""
    n_lines = max([n_lines, *ends])
    owner = np.full(n_lines + 1, module, dtype=np.int32)
    order = sorted(
        (i for i in range(len(quals)) if i != module),
        key=lambda i: (-(ends[i] - starts[i]), starts[i], i),
    )
    for i in order:
        owner[max(starts[i], 1) : ends[i] + 1] = i
    return Spans(
        owner,
        np.array(starts, dtype=np.int32),
        np.array(ends, dtype=np.int32),
        np.array(indent, dtype=np.int32),
        np.array(top, dtype=bool),
        tuple(quals),
        tuple(kinds),
        module,
        language,
        clean,
    )


def module_only() -> Spans:
    """Spans of a file without symbols (not source code): every line is `<module>`."""
    return _build([MODULE_SYMBOL], ["module"], [1], [1], [-1], [True], 0, 0, None)


def _indent(line: bytes) -> int:
    stripped = line.lstrip(b" \t")
    head = line[: len(line) - len(stripped)]
    return len(head.expandtabs(8)) if b"\t" in head else len(head)


def _lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if len(lines) > 1 and lines[-1] == b"":
        lines.pop()  # a trailing newline does not start a line, as git counts
    return lines


def _columns(symbols: Sequence, lines: list[bytes], offset: int = 0):
    quals, kinds, starts, ends, indent, top = [], [], [], [], [], []
    for s in symbols:
        if s.qualname == MODULE_SYMBOL:
            continue
        quals.append(s.qualname)
        kinds.append(s.kind)
        starts.append(s.start_line + offset)
        ends.append(s.end_line + offset)
        indent.append(_indent(lines[s.start_line - 1]) if s.start_line <= len(lines) else 0)
        top.append(s.parent is None)
    return quals, kinds, starts, ends, indent, top


def from_symbols(
    symbols: Sequence, data: bytes, language: str | None, *, clean: bool = False
) -> Spans:
    """Spans of a version parsed by the chunker (`<module>` first, as the chunker orders it);
    `clean`: ast or tree-sitter parsed it without a syntax error."""
    lines = _lines(data)
    quals, kinds, starts, ends, indent, top = _columns(symbols, lines)
    return _build(
        [MODULE_SYMBOL, *quals],
        ["module", *kinds],
        [1, *starts],
        [len(lines), *ends],
        [-1, *indent],
        [True, *top],
        0,
        len(lines),
        language,
        clean,
    )


def _sides(hunk: Hunk) -> tuple[list[bytes], list[bytes]] | None:
    if hunk.body is None:
        return None
    removed: list[bytes] = []
    added: list[bytes] = []
    for line in hunk.body.split(b"\n"):
        if line.startswith(b"-"):
            removed.append(line[1:].rstrip(b"\r"))
        elif line.startswith(b"+"):
            added.append(line[1:].rstrip(b"\r"))
    if len(removed) != hunk.old_count or len(added) != hunk.new_count:
        return None
    return removed, added


def _container(spans: Spans, first: int, last: int) -> int:
    """Smallest symbol containing lines first..last (ties: the later one), else `<module>`."""
    owner, n = spans.owner, len(spans.owner) - 1
    a = int(owner[first]) if 1 <= first <= n else spans.module
    b = int(owner[last]) if 1 <= last <= n else spans.module
    if a == b and (a == spans.module or (spans.starts[a] <= first and spans.ends[a] >= last)):
        return a  # one symbol owns both ends, so it spans the lines between: the innermost
    mask = (spans.starts <= first) & (spans.ends >= last)
    mask[spans.module] = False
    idx = np.flatnonzero(mask)
    if not len(idx):
        return spans.module
    size = spans.ends[idx] - spans.starts[idx]
    best = idx[size == size.min()]
    return int(best[-1])


def derive(
    spans: Spans,
    hunks: Sequence[Hunk],
    *,
    forward: bool,
    text: Callable[[], bytes | None] | None = None,
) -> Spans | None:
    """The other side's spans: new from old (`forward`) or old from new, or None when a hunk
    might change the symbol structure. `text` gives the known side's bytes, read only for the
    hunks whose rule looks at the lines around them (`spanrules.separated`)."""
    n = len(spans.owner) - 1
    known: list[list[bytes] | None] = []  # the known side's lines, once read
    # the per-language rules describe what ast and tree-sitter capture; a version the
    # structural chunker parsed (a syntax error) gets the strictest, language-blind rule
    rules = spans.language if spans.clean else None
    moves: list[tuple[int, int, int, int]] = []  # (xs, xc, yc, container) per hunk
    prev = 1
    for h in hunks:
        if forward:
            xs, xc, yc = h.old_start, h.old_count, h.new_count
        else:
            xs, xc, yc = h.new_start, h.new_count, h.old_count
        sides = _sides(h)
        if sides is None:
            return None
        x_lines, y_lines = sides if forward else (sides[1], sides[0])
        # X lines replaced (xc > 0), or the two lines the insertion goes between
        first, last = (xs, xs + xc - 1) if xc else (xs, xs + 1)
        if first < 0 or last > n + 1 or xs < prev - (0 if xc else 1):
            return None
        s = _container(spans, first, last)
        if not spanrules.container_ok(rules, spans.kinds[s]):
            return None
        if not known and (
            spanrules.needs_separation(rules, spans.kinds[s])
            or spanrules.needs_header(rules, spans.kinds[s])
        ):
            data = text() if text is not None else None
            known.append(_lines(data) if data is not None else None)
        if spanrules.needs_header(rules, spans.kinds[s]) and not spanrules.below_header(
            known[0], int(spans.starts[s]), first - 1 if xc else xs
        ):
            return None
        if spanrules.needs_separation(rules, spans.kinds[s]):
            below = spans.starts > (last if xc else xs)
            below[spans.module] = False
            later = spans.starts[below]
            if not spanrules.separated(
                known[0],
                x_lines,
                y_lines,
                first - 1 if xc else xs,
                last + 1 if xc else xs + 1,
                int(later.min()) if len(later) else None,
            ):
                return None
        top = s == spans.module
        if not top and spanrules.names(x_lines, spans.qualnames[s]):
            return None  # a decorated symbol's header sits inside it: a rename may touch it
        inside = (spans.starts > spans.starts[s]) & (spans.ends <= spans.ends[s])
        inside[spans.module] = False
        follows = bool((inside & (spans.ends < first)).any())
        x_shape = spanrules.shape(x_lines, rules, top, follows)
        y_shape = spanrules.shape(y_lines, rules, top, follows)
        if (x_shape is None or y_shape is None) and spanrules.continues_across(rules, top):
            # a leading `.then(...)` line: fine when the statement above is plain
            if not known:
                data = text() if text is not None else None
                known.append(_lines(data) if data is not None else None)
            if spanrules.plain_statement(known[0], first - 1 if xc else xs, spans.ends.__eq__):
                x_shape = spanrules.shape(x_lines, rules, top, follows, plain_before=True)
                y_shape = spanrules.shape(y_lines, rules, top, follows, plain_before=True)
        if not spanrules.compatible(x_shape, y_shape):
            return None
        if xc:
            if xc > 1 and (spans.owner[first : last + 1] != s).any():
                return None
            if s != spans.module and not (spans.starts[s] < first and last < spans.ends[s]):
                return None
        if spans.python and not _indent_ok(spans, s, first - 1 if xc else first, y_lines):
            return None
        prev = xs + xc if xc else xs + 1
        moves.append((xs, xc, yc, s))
    if all(xc == yc for _, xc, yc, _ in moves):
        return spans  # lines replaced one for one inside their own symbols: nothing moves
    pieces: list[np.ndarray] = [spans.owner[:1]]
    starts, ends = spans.starts.copy(), spans.ends.copy()
    prev = 1
    for xs, xc, yc, s in moves:
        after = xs + xc if xc else xs + 1
        pieces.append(spans.owner[prev : xs if xc else after])
        pieces.append(np.full(yc, s, dtype=np.int32))
        prev = after
        if yc != xc:
            starts[spans.starts >= after] += yc - xc
            ends[spans.ends >= after] += yc - xc
    pieces.append(spans.owner[prev:])
    owner = np.concatenate(pieces)
    starts[spans.module] = 1
    ends[spans.module] = max(len(owner) - 1, 1)
    return Spans(
        owner,
        starts,
        ends,
        spans.indent,
        spans.top,
        spans.qualnames,
        spans.kinds,
        spans.module,
        spans.language,
        spans.clean,
    )


def _indent_ok(spans: Spans, s: int, before: int, y_lines: list[bytes]) -> bool:
    """Python: added code stays in `s` (deeper than its header) and joins no block that closed
    just before it (not deeper than the headers of the symbols inside `s` that ended last)."""
    inds = [
        _indent(line) for line in y_lines if line.strip() and not line.lstrip().startswith(b"#")
    ]
    if not inds:
        return True
    if min(inds) <= spans.indent[s]:
        return False
    inner = (spans.ends <= before) & (spans.starts > (spans.starts[s] if s != spans.module else 0))
    inner[spans.module] = False
    inner[s] = False
    if not inner.any():
        return True
    last_end = spans.ends[inner].max()
    return max(inds) <= int(spans.indent[inner & (spans.ends == last_end)].min())


def line_moves(
    hunks: Sequence[Hunk], *, forward: bool, lo: int = 1, hi: int | None = None
) -> list[tuple[int, int, int]]:
    """The hunks as (a, xc, yc): lines [a, a + xc) of the known side X (0-based from X's line
    `lo`) replaced by yc lines, for the hunks inside X's lines [lo, hi)."""
    out = []
    for h in hunks:
        xs, xc, yc = (
            (h.old_start, h.old_count, h.new_count)
            if forward
            else (h.new_start, h.new_count, h.old_count)
        )
        a = (xs if xc else xs + 1) - lo
        if a >= 0 and (hi is None or a + xc <= hi - lo):
            out.append((a, xc, yc))
    return out


def splice(
    spans: Spans,
    hunks: Sequence[Hunk],
    *,
    forward: bool,
    data: bytes,
    parse: Callable,
    hint: StatementHint | None = None,
) -> Spans | None:
    """The other side's spans from its bytes `data`, parsing only the regions the hunks touch:
    each region runs between two top-level, unindented symbol starts, where a module can be cut
    into independent statements. `parse(region)` returns the region's symbols, or None when it
    does not parse cleanly (with `ast`, or with tree-sitter without an error); then, or when the
    known side was not parsed cleanly, the result is None (the caller parses the whole file).
    `parse` also gets the qualname of the top-level symbol the region starts with ("" at the
    top of the file): the same region of the next version is usually parsed from it again; and
    the hunks inside the region (`line_moves`, from the region's first line), which turn the
    known side's text of the region into this one.

    Hunks inside top-level classes (in Python) or class, impl, trait and interface blocks
    closed by a lone brace (in Rust, JavaScript and TypeScript) are first tried with smaller
    regions, around the members of the block they touch, parsed under the block's own first
    lines (Python: a line `class <name>:`) so that their symbols are named and nested as in
    the whole file; in Rust, hunks among the items of a block that is no symbol (`mod tests {
    ... }`) around those items (`spanregions`).

    In JavaScript and TypeScript a region may also end at a top-level call statement next to
    the hunk (`spanregions.statement_cuts`; `hint` remembers how often the file's earlier
    versions had any); when a region cut there does not parse cleanly, the regions between
    symbols are tried."""
    if not spans.clean or not hunks:
        return None
    n = len(spans.owner) - 1
    moves = [
        (h.old_start, h.old_count, h.new_count)
        if forward
        else (h.new_start, h.new_count, h.old_count)
        for h in hunks
    ]
    # X line -> Y line: the shifts of every hunk above it (from the first line past each hunk,
    # ascending), summed once
    shift_at = [xs + xc if xc else xs + 1 for xs, xc, _ in moves]
    shifted = list(accumulate((yc - xc for _, xc, yc in moves), initial=0))

    def to_y(line: int) -> int:
        return line + shifted[bisect_right(shift_at, line)]

    lines = _lines(data)
    symbol_cuts = sorted(
        {1, n + 1} | {int(x) for x in spans.starts[spans.top & (spans.indent == 0)] if 1 < x <= n}
    )
    statements = (
        statement_cuts(
            spans,
            lines,
            moves,
            to_y,
            symbol_cuts,
            lambda: _known_lines(data, hunks, forward, n),
            hint,
        )
        if spans.language in STATEMENT_LANGUAGES
        else {}
    )
    # with the statement cuts first; a region of theirs that does not parse cleanly is tried
    # again between symbols only
    tries = [(sorted({*symbol_cuts, *statements}), statements)] if statements else []
    for cuts, named in [*tries, (symbol_cuts, {})]:
        regions, held = _top_regions(spans, moves, lines, to_y, cuts, named)
        # a region whose hunks all sit among a class's members or a block's symbols: only
        # those members and symbols, first
        mixed: list[list] = []
        for region, inside in zip(regions, held, strict=True):
            smaller = smaller_regions(spans, inside, lines, to_y, symbol_cuts, region[0], region[1])
            mixed += [region] if smaller is None else smaller
        if any(r[2] is not None for r in mixed):
            found = _spliced(spans, hunks, forward, lines, mixed, parse, to_y, named)
            if found is not None:
                return found
        found = _spliced(spans, hunks, forward, lines, regions, parse, to_y, named)
        if found is not None:
            return found
    return None


def _known_lines(data: bytes, hunks: Sequence[Hunk], forward: bool, n: int) -> list[bytes] | None:
    """The known side's lines, from the other side's bytes `data` with its hunks undone
    (`patch.apply_hunks`); None when the hunks cannot give them back or do not give `n`."""
    known = apply_hunks(data, list(hunks), forward=not forward)
    lines = None if known is None else _lines(known)
    return lines if lines is not None and len(lines) == n else None


def _top_regions(
    spans: Spans,
    moves: list[tuple[int, int, int]],
    lines: list[bytes],
    to_y: Callable,
    cuts: list[int],
    statements: dict[int, str],
) -> tuple[list[list], list[list[tuple[int, int, int]]]]:
    """`splice`'s top-level regions [lo, hi, None] (X lines, between `cuts`) and the moves
    inside each."""
    n = len(spans.owner) - 1
    python = spans.python
    regions: list[list] = []
    held: list[list[tuple[int, int, int]]] = []
    for move in moves:
        xs, xc, _ = move
        first, last = (xs, xs + xc - 1) if xc else (xs, xs)
        lo = max(c for c in cuts if c < max(first, 2)) if first > 1 else 1
        hi = min((c for c in cuts if c > last), default=n + 1)
        if python and lo > 1:
            # a hunk after the end of the symbol above it: the region starts below that end
            # when its first statement is unindented, so it cannot continue the symbol
            above = np.flatnonzero(spans.top & (spans.indent == 0) & (spans.starts == lo))
            end = int(spans.ends[above].max()) if len(above) else first
            y_hi = to_y(hi) if hi <= n else 0
            if (
                end < first
                and unindented_first(lines, to_y(end + 1), y_hi)
                and not overloads(lines, to_y(lo), y_hi)
            ):
                lo = end + 1
        if hi <= n and not python and hi not in statements and not closed(lines, to_y(hi)):
            # the symbol after the hunk too: an attribute or decorator left at the end of the
            # region belongs to it, which only a parse that sees both can tell (in Python a
            # decorator without its definition does not parse)
            hi = min((c for c in cuts if c > hi), default=n + 1)
        if regions and lo <= regions[-1][1]:  # touching regions merge: Y ranges stay disjoint
            regions[-1][1] = max(regions[-1][1], hi)
            held[-1].append(move)
        else:
            regions.append([lo, hi, None])
            held.append([move])
    return regions, held


def _folds_across(
    spans: Spans, keep: np.ndarray, rows: list, parsed: list[str], lines: list[bytes]
) -> bool:
    """Whether an overload stub may fold into a definition of its name outside its region (the
    whole file's parse folds a stub into the next definition of its name wherever it stands,
    `chunking.model`): an overloaded name twice among the spliced symbols (a stub parsed apart
    from its implementation), or an overloaded name the regions held before and no longer hold
    (an implementation removed, its stubs elsewhere now standing alone)."""
    overloaded = _overloaded_names(lines)
    if not overloaded:
        return False
    names = [r[2] for r in rows if r[2].rsplit(".", 1)[-1] in overloaded]
    gone = {
        q
        for i in np.flatnonzero(~keep)
        if i != spans.module and (q := spans.qualnames[i]).rsplit(".", 1)[-1] in overloaded
    }
    return len(set(names)) < len(names) or not gone <= set(parsed)


# the decorator line `chunking.model` reads as an overload stub's (`_PY_OVERLOAD`), and a def
_OVERLOAD_LINE = compile_pattern(rb"^\s*@\s*(?:[\w.]+\.)?overload\s*$")
_DEF_NAME = compile_pattern(rb"^\s*(?:async\s+)?def\s+(\w+)")


def _overloaded_names(lines: list[bytes]) -> set[str]:
    """The names of the functions an `@overload` decorator line stands above."""
    out = set()
    for k, line in enumerate(lines):
        if b"overload" in line and _OVERLOAD_LINE.match(line):
            for below in lines[k + 1 : k + 6]:
                m = _DEF_NAME.match(below)
                if m:
                    out.add(m.group(1).decode("utf-8", "replace"))
                    break
    return out


def _spliced(
    spans: Spans,
    hunks: Sequence[Hunk],
    forward: bool,
    lines: list[bytes],
    regions: list[list],
    parse: Callable,
    to_y: Callable,
    statements: dict[int, str],
) -> Spans | None:
    """`splice`'s result from its regions [lo, hi, None or (mode, ...)] (X lines, see
    `spanregions`): the known side's symbols outside them, mapped to Y lines, and each region's
    symbols as parsed (a region starting at one of `statements` under that statement's name)."""
    n = len(spans.owner) - 1
    keep = np.ones(len(spans.qualnames), dtype=bool)
    keep[spans.module] = False
    cols: list[list] = [[] for _ in range(6)]
    new_end: dict[int, int] = {}  # a class whose end a "tail" region found again
    for lo, hi, within in regions:
        replaced = (spans.starts >= lo) & (spans.starts < hi)
        if within is not None and within[0] == "header":
            replaced[within[1]] = False  # the class itself stays, its first lines re-parsed
        keep &= ~replaced
        y_lo = 1 if lo == 1 else to_y(lo)
        y_hi = len(lines) + 1 if hi > n else to_y(hi)
        chunk = b"\n".join(lines[y_lo - 1 : y_hi - 1]) + b"\n"
        if within is not None and within[0] == "block":
            opener, y_first, closer = within[1]
            head = b"\n".join(between(lines, opener, y_first)) + b"\n"
            head_lines = head.count(b"\n")
            text = head + chunk + (lines[closer - 1] + b"\n" if closer else b"")
            found = parse(text, f"block:{lo}", None)
            if found is None:
                return None
            last_line = head_lines + chunk.count(b"\n")
            symbols = [
                s for s in found if s.start_line > head_lines and s.qualname != MODULE_SYMBOL
            ]
            if any(
                s.start_line <= head_lines and s.qualname != MODULE_SYMBOL for s in found
            ) or any(s.end_line > last_line for s in symbols):
                return None  # a symbol of the block's own lines, or one ending past the region
            y_lo -= head_lines
        elif within is not None:
            mode, c, first_member = within
            name = spans.qualnames[c]
            if spans.python:
                head = b"" if mode == "header" else b"class " + name.encode() + b":\n"
                tail = b""
            else:  # the block's own lines above its first member, and its closing line
                head = b""
                if mode != "header":
                    above = between(lines, to_y(int(spans.starts[c])), to_y(first_member))
                    head = b"\n".join(above) + b"\n"
                tail = b"" if mode == "tail" else lines[to_y(int(spans.ends[c])) - 1] + b"\n"
            head_lines = head.count(b"\n")
            text = head + chunk + tail
            found = parse(text, f"{name}:{lo}", None)
            if found is None:
                return None
            outer = [s for s in found if s.start_line == 1 and s.qualname == name]
            symbols = [
                s
                for s in found
                if s.start_line > max(1, head_lines) and s.qualname != MODULE_SYMBOL
            ]
            if len(outer) != 1:
                return None
            if mode == "tail":  # the header's lines are above y_lo
                new_end[c] = outer[0].end_line + y_lo - 1 - head_lines
            elif outer[0].end_line < last_code(text.split(b"\n")) or any(
                s.parent is None for s in symbols
            ):
                return None  # the class ends inside the region
            y_lo -= head_lines
        else:
            at = np.flatnonzero(spans.top & (spans.starts == lo))
            symbols = parse(
                chunk,
                spans.qualnames[int(at[0])] if lo > 1 and len(at) else statements.get(lo, ""),
                line_moves(hunks, forward=forward, lo=lo, hi=hi),
            )
            if symbols is None:
                return None
        if spans.python and hi <= n and b"overload" in chunk:
            # overload stubs fold into the next definition of their name: it must not be the
            # symbol right after the region
            after = spans.qualnames[int(np.flatnonzero(spans.starts == hi)[0])]
            if any(s.qualname == after for s in symbols):
                return None
        for col, values in zip(cols, _columns(symbols, lines[y_lo - 1 :], y_lo - 1), strict=True):
            col.extend(values)
    idx = np.flatnonzero(keep)
    kept_starts = [to_y(int(x)) for x in spans.starts[idx]]
    kept_ends = [new_end.get(int(i), to_y(int(spans.ends[i]))) for i in idx]
    rows = list(
        zip(
            kept_starts + cols[2],
            [-e for e in kept_ends + cols[3]],
            [spans.qualnames[i] for i in idx] + cols[0],
            [spans.kinds[i] for i in idx] + cols[1],
            [int(spans.indent[i]) for i in idx] + cols[4],
            [bool(spans.top[i]) for i in idx] + cols[5],
            strict=True,
        )
    )
    rows.sort(key=lambda r: (r[0], r[1]))
    if spans.python and overloads(lines, 1, 0) and _folds_across(spans, keep, rows, cols[0], lines):
        return None
    return _build(
        [MODULE_SYMBOL, *(r[2] for r in rows)],
        ["module", *(r[3] for r in rows)],
        [1, *(r[0] for r in rows)],
        [len(lines), *(-r[1] for r in rows)],
        [-1, *(r[4] for r in rows)],
        [True, *(r[5] for r in rows)],
        0,
        len(lines),
        spans.language,
        True,
    )
