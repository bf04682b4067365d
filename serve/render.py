"""The agent-facing text blocks, bounded by a token budget.

Every line carries a priority; when the block is over budget the least important lines go first
(old history diff lines, weak couplings, related memory), while the frame, invariants and failed
attempts stay. A line can depend on another (a diff line on its history entry, a closing tag on
its opening one): it never outlives it. Whatever is left out is announced in a `<truncated>`
line naming what went and how much, so the agent knows to ask for more. Tokens are estimated as
characters / 4 (close for code and English), plus one per line, so a block that fits its budget
is at most `budget` x 4 characters long.

Each line of a block is one line whatever its fields hold: a character that breaks a line (a
newline in a file's name, a line separator in a note) is shown escaped (`\\n`, `\\u2028`), so a
name cannot add lines of its own making to the block's structure.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ..store import filekind
from ..store.oneline import breaks_line, escape_breaks
from ..store.vocabulary import LOAD_BEARING, tagged
from .models import (
    FailureWarning,
    Hit,
    InvariantHit,
    MemoryRef,
    PastAttempt,
    PreflightReport,
    SearchResponse,
)


def _quoteattr(data: str) -> str:
    """`xml.sax.saxutils.quoteattr`, whose module imports urllib.request (and ssl, http, email):
    a tenth of a second of a one-shot `gitstrata preflight` for one function. Escapes `&`, `<`,
    `>` and newlines / tabs, and quotes with `"` unless the value holds one and no `'`."""
    data = data.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
    data = data.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' in data:
        if "'" in data:
            return '"{}"'.format(data.replace('"', "&quot;"))
        return f"'{data}'"
    return f'"{data}"'


# the same names, subjects and ids are quoted in answer after answer
quoteattr = functools.lru_cache(maxsize=8192)(_quoteattr)

# priorities: higher survives longer
FRAME, MUST, HIGH, MID, LOW, LEAST = 100, 90, 70, 50, 30, 10


@dataclass(eq=False)
class Line:
    text: str
    priority: int
    what: str = ""  # what the line is, counted in the truncation note ("" = frame, intro)
    parent: Line | None = None  # dropped whenever the parent is
    tied: bool = False  # never dropped on its own, only with its parent (closing tags)
    children: list[Line] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if self.parent is not None:
            self.parent.children.append(self)


def _joined(lines: list[Line]) -> str:
    """The lines, one per line of the block: a text holding a line break (a file named with a
    newline) is escaped first. Checked on the whole block: a few scans in C for most blocks."""
    text = "\n".join(line.text for line in lines)
    if text.count("\n") == len(lines) - 1 and not breaks_line(text, newline=False):
        return text
    return "\n".join(escape_breaks(line.text) for line in lines)


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4


def _cost(line: Line) -> int:
    return estimate_tokens(line.text) + 1


def _fit(lines: list[Line], budget: int | None) -> str:
    total = sum(_cost(x) for x in lines)
    if budget is None or total <= budget:
        return _joined(lines)
    # a section whose last entry goes takes its frame and intro with it
    section: dict[int, int] = {}  # id(line) -> index of its section's opener
    content: dict[int, int] = {}  # opener index -> entries left
    overhead: dict[int, int] = {}  # opener index -> tokens of its frame and intro
    for start, end in _sections(lines):
        for x in lines[start + 1 : end]:
            section[id(x)] = start
            if x.what:
                content[start] = content.get(start, 0) + 1
            elif x.parent is None:
                overhead[start] = overhead.get(start, 0) + _cost(x)
        overhead[start] = overhead.get(start, 0) + _cost(lines[start]) + _cost(lines[end])
    dropped: set[int] = set()
    counts: dict[str, int] = {}
    note = truncation_note(budget, counts)
    note_cost = estimate_tokens(note) + 1  # as `_cost` of the note's line
    for i in sorted(range(len(lines)), key=lambda i: (lines[i].priority, -i)):
        if total + note_cost <= budget:
            break
        line = lines[i]
        if line.priority >= FRAME or line.tied or not line.what or id(line) in dropped:
            continue
        stack = [line]
        while stack:
            x = stack.pop()
            if id(x) in dropped:
                continue
            dropped.add(id(x))
            total -= _cost(x)
            if x.what:
                counts[x.what] = counts.get(x.what, 0) + 1
                sec = section.get(id(x))
                if sec is not None:
                    content[sec] -= 1
                    if content[sec] == 0:
                        total -= overhead[sec]
            stack.extend(x.children)
        note = truncation_note(budget, counts)
        note_cost = estimate_tokens(note) + 1
    if not dropped:
        return _joined(lines)
    kept = _drop_empty_sections([x for x in lines if id(x) not in dropped])
    kept.insert(len(kept) - 1, _note(note))  # before the closing root tag
    return _joined(kept)


def _sections(lines: list[Line]) -> list[tuple[int, int]]:
    """(opener, closer) indices of the sections inside the root tag."""
    out = []
    opened: tuple[int, str] | None = None
    for i, line in enumerate(lines):
        if line.priority < FRAME or not line.text.startswith("<"):
            continue
        if line.text.startswith("</"):
            if opened is not None and line.text[2:].rstrip(">") == opened[1]:
                out.append((opened[0], i))
                opened = None
            continue
        tag = line.text[1:].split(" ", 1)[0].split(">", 1)[0]
        if not tag.startswith("gitstrata_") and not line.text.rstrip().endswith(f"</{tag}>"):
            opened = (i, tag)
    return out


def _note(text: str) -> Line:
    """The line that says what the budget left out (the largest three kinds by count), so the
    agent knows the answer is partial and how to get more."""
    return Line(text, FRAME)


def truncation_note(budget: int, counts: dict[str, int], unit: str = "line") -> str:
    """The notice of what `budget` left out: the text block's line, and the structured
    content's `truncated` field."""
    top = sorted(counts.items(), key=lambda kv: -kv[1])
    parts = ", ".join(_plural(n, what) for what, n in top[:3])
    rest = sum(n for _, n in top[3:])
    if rest:
        parts += f" and {rest} more {unit}(s)"
    return f'<truncated budget="retrieval.token_budget={budget}">left out: {parts}</truncated>'


def _plural(n: int, what: str) -> str:
    if n == 1:
        return f"1 {what}"
    if what.endswith("y") and not what.endswith(("ay", "ey", "oy")):
        return f"{n} {what[:-1]}ies"
    if what.endswith(("s", "x", "ch", "sh")):
        return f"{n} {what}es"
    return f"{n} {what}s"


def _drop_empty_sections(lines: list[Line]) -> list[Line]:
    """Remove every section (`<tag ...>` to `</tag>`) left without entries, its intro included."""
    drop: set[int] = set()
    for start, end in _sections(lines):
        if not any(x.what for x in lines[start + 1 : end]):
            drop.update(range(start, end + 1))
    return [x for i, x in enumerate(lines) if i not in drop]


def _pct(x: float) -> str:
    return f"{round(100 * x)}%"


_FILE_KINDS = {"build": "build or packaging file", "docs": "docs", "chore": "repository file"}


def _what_file(path: str) -> str:
    """What a partner without an import link known is: a changelog, a manifest or CI file, docs
    (no imports to know by nature), or code whose language has no import resolver."""
    if filekind.is_changelog(path):
        return "changelog"
    return _FILE_KINDS.get(filekind.kind(path), "import link unknown")


def _one_line(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _invariant_lines(invariants: list[InvariantHit]) -> list[Line]:
    if not invariants:
        return []
    out = [Line("<invariants must_hold>", FRAME)]
    for inv in invariants:
        out.append(
            Line(
                f"  <invariant id={quoteattr(inv.id)} severity={quoteattr(inv.severity)} "
                f"scope={quoteattr(inv.scope)}>{_one_line(inv.description, 400)}</invariant>",
                MUST,
                "invariant",
            )
        )
    out.append(Line("</invariants>", FRAME))
    return out


def _warning_lines(warnings: list[FailureWarning]) -> list[Line]:
    if not warnings:
        return []
    out = [
        Line("<anti_context_do_not_repeat>", FRAME),
        Line(
            "These approaches were ALREADY TRIED in this repository and FAILED. Do not repeat them; "
            "if you must go this way, explain first why it will work this time.",
            MUST,
        ),
    ]
    for w in warnings:
        attrs = f"id={quoteattr(str(w.failure_id))} date={quoteattr(w.date or '')} occurrences={quoteattr(str(w.occurrences))}"
        if w.exit_code is not None:
            attrs += f" exit_code={quoteattr(str(w.exit_code))}"
        if w.source != "journal":
            attrs += f" source={quoteattr(w.source)}"
        head = Line(f"  <failed_attempt {attrs}>", MUST, "failed attempt")
        out.append(head)

        def detail(text: str, priority: int, head: Line = head) -> None:
            out.append(Line(text, priority, "failed-attempt detail", parent=head))

        if w.targets:
            detail(f"    targets: {', '.join(w.targets)}", MUST)
        if w.command:
            detail(f"    command: {_one_line(w.command)}", HIGH)
        if w.tried:
            detail(f"    what was tried: {_one_line(w.tried, 300)}", MUST)
        if w.errors or w.failing_tests:
            detail("    failure signature:", HIGH)
            for err in w.errors[:3]:
                detail(f"      error: {_one_line(err, 240)}", HIGH)
            for test in w.failing_tests[:3]:
                detail(f"      failing: {_one_line(test, 200)}", MID)
        if w.diff_excerpt:
            detail("    attempted diff (excerpt):", HIGH)
            for dl in w.diff_excerpt.splitlines()[:12]:
                detail(f"      {dl[:200]}", MID)
        detail(f"    matched because: {'; '.join(w.reasons)}", MUST)
        out.append(Line("  </failed_attempt>", MUST, parent=head, tied=True))
    out.append(Line("</anti_context_do_not_repeat>", FRAME))
    return out


def _past_lines(past: list[PastAttempt]) -> list[Line]:
    """Attempts on the target that nothing ties to the change at hand: history, not warnings."""
    if not past:
        return []
    return [
        Line("<past_attempts history_not_a_warning>", FRAME),
        *(
            Line(f"  {p.date or ''} [{p.failure_id}] {_one_line(p.summary, 300)}", MID - i)
            for i, p in enumerate(past)
        ),
        Line("</past_attempts>", FRAME),
    ]


def _firewall_lines(notes: list[str]) -> list[Line]:
    if not notes:
        return []
    return [
        Line("<firewall_notes>", FRAME),
        *(Line(f"  ! {n}", HIGH, "firewall note") for n in notes[:5]),
        Line("</firewall_notes>", FRAME),
    ]


def _reason_line(reason: str, parent: Line, indent: str = "      ") -> Line:
    return Line(
        f"{indent}why: {_one_line(reason, 240)}",
        max(LEAST, parent.priority - 5),
        "commit reason",
        parent=parent,
    )


def _at_risk(intent: str, test: bool) -> str:
    """What removing lines a load-bearing commit wrote may cost, by its intent; in a test file,
    lines a fix wrote are its regression test."""
    if intent == "revert":
        return "removing them may bring back what that revert undid"
    if test:
        fix = "security fix" if intent == "security" else "bugfix"
        return f"they test that {fix}: removing them drops its regression test"
    if intent == "security":
        return "removing them may re-open the hole that security fix closed"
    return f"removing them may re-open that {intent}"


def _load_bearing_lines(report: PreflightReport) -> list[Line]:
    ctx = report.context
    if ctx is None or not report.load_bearing_commits:
        return []
    fixes = _plural(report.load_bearing_commits, "fix")
    if ctx.qualname == "<module>":
        summary = (
            f"  module-level code: {report.code_lines} lines, {_pct(report.load_bearing_share)} "
            f"load-bearing from {fixes}"
        )
    else:
        summary = (
            f"  {ctx.qualname}: {report.code_lines} code lines, "
            f"{_pct(report.load_bearing_share)} load-bearing from {fixes}"
        )
    out = [Line("<load_bearing_code why_this_code_exists>", FRAME), Line(summary, HIGH, "summary")]
    test = filekind.kind(report.file) == "test"
    for o in report.load_bearing:
        entry = Line(
            f"  ! {o.code_lines} line(s) of {ctx.qualname} ({_pct(o.code_share)}) were written by "
            f"{o.commit.short} [{o.commit.intent}] {quoteattr(_one_line(o.commit.subject, 120))}"
            f" -- {_at_risk(o.commit.intent, test)}.",
            MUST + 5,
            "load-bearing fix",
        )
        out.append(entry)
        if o.commit.reason:
            out.append(
                Line(
                    f"      why: {_one_line(o.commit.reason, 240)}",
                    HIGH,
                    "commit reason",
                    parent=entry,
                )
            )
    rest = report.load_bearing_commits - len(report.load_bearing)
    if rest and report.load_bearing:
        lines = report.load_bearing_lines - sum(o.code_lines for o in report.load_bearing)
        out.append(
            Line(
                f"  + {_plural(rest, 'smaller fix')} wrote {lines} more line(s) "
                "(below retrieval.load_bearing_min_lines / _min_share)",
                LOW,
                "summary",
            )
        )
    out.append(Line("</load_bearing_code>", FRAME))
    return out


def _history_lines(report: PreflightReport) -> list[Line]:
    if not report.history:
        return []
    said = {o.commit.sha for o in report.load_bearing if o.commit.reason}  # not twice
    out = [Line("<causal_history>", FRAME)]
    n = len(report.history)
    entries: list[Line] = []
    for i, h in enumerate(report.history):
        c = h.commit
        weight = HIGH if c.intent in LOAD_BEARING else MID
        weight -= min(i, 10)  # older entries go first
        entry = Line(
            f"  {c.date} {c.short} {tagged(c.intent, _one_line(c.subject, 140))}"
            f" (+{h.added} -{h.removed})",
            weight,
            "history entry",
        )
        entries.append(entry)
        out.append(entry)
        if c.reason and c.sha not in said:
            out.append(_reason_line(c.reason, entry))
        for ex in h.excerpt[: 4 if c.intent in LOAD_BEARING else 2]:
            out.append(
                Line(
                    f"      {ex[:180]}",
                    max(LEAST, weight - 25 - (n - i == 0)),
                    "diff line",
                    parent=entry,
                )
            )
    total = max(report.history_total, n)
    if total > n:
        target = report.symbol or report.file
        more = f"; all of them: {report.history_more}" if report.history_more else ""
        # the note lives as long as the entry the budget keeps longest
        best = max(entries, key=lambda x: x.priority)
        out.append(
            Line(
                f"  ({n} of {total} commits that touched {target} shown: the newest, fixes and "
                f"reverts first; {total - n} more{more})",
                best.priority,
                "history note",
                parent=best,
            )
        )
    out.append(Line("</causal_history>", FRAME))
    return out


def render_preflight(report: PreflightReport, *, budget: int | None = 2000) -> str:
    attrs = f"file={quoteattr(report.file)}"
    if report.symbol:
        attrs += f" symbol={quoteattr(report.symbol)}"
    attrs += f" latency_ms={_quoteattr(f'{report.latency_ms:.2f}')}"  # new every call
    lines: list[Line] = [Line(f"<gitstrata_preflight {attrs}>", FRAME)]
    lines += _index_note_lines(report.index_notes)
    if not report.found:
        lines.append(Line(f"<not_found>{report.message or 'unknown target'}</not_found>", FRAME))
        if report.nearest:
            lines.append(Line("<nearest_matches>", FRAME))
            lines += [Line(f"  {n}", MUST, "nearest match") for n in report.nearest]
            lines.append(Line("</nearest_matches>", FRAME))
    ctx = report.context
    if ctx is not None:
        lines.append(Line("<ast_context>", FRAME))
        lines.append(
            Line(
                f"  {ctx.kind} {ctx.qualname}  {ctx.path}:L{ctx.start_line}-L{ctx.end_line}",
                MUST,
                "location",
            )
        )
        if ctx.signature:
            lines.append(Line(f"  signature: {_one_line(ctx.signature, 300)}", HIGH, "signature"))
        if ctx.docstring:
            lines.append(Line(f"  doc: {_one_line(ctx.docstring, 200)}", MID, "docstring"))
        if report.ownership:
            owners = ", ".join(
                f"{o.commit.short} [{o.commit.intent}] {_pct(o.share)}"
                + (" (clone boundary: includes older lines)" if o.boundary else "")
                for o in report.ownership[:4]
            )
            lines.append(Line(f"  blame ownership: {owners}", HIGH, "ownership line"))
        lines.append(Line("</ast_context>", FRAME))
    lines += _invariant_lines(report.invariants)
    lines += _warning_lines(report.warnings)
    lines += _past_lines(report.past_attempts)
    lines += _firewall_lines(report.firewall)
    lines += _load_bearing_lines(report)
    lines += _history_lines(report)
    coupling = report.coupling + report.symbol_coupling
    if coupling:
        lines.append(Line("<co_change_coupling>", FRAME))
        for i, cp in enumerate(coupling):
            name = f"{cp.path}::{cp.symbol}" if cp.symbol else cp.path
            if cp.link is not None and cp.co_commits == 0:  # linked in the code only
                lines.append(
                    Line(
                        f"  {name}  {_LINK_WORDS[cp.link]}  [not a co-change partner]",
                        LOW - min(i, 15),
                        "code link",
                    )
                )
                continue
            flag = (
                _what_file(cp.path)
                if cp.hidden is None
                else "hidden: no import link"
                if cp.hidden
                else "import-linked"
            )
            if cp.weak:
                flag += "; weak: 1 co-commit"
            if cp.link is not None:
                flag += f"; {cp.link}"
            priority = HIGH if cp.hidden else MID
            if cp.weak:  # one shared commit is a hint, not a pattern: dropped first over budget
                priority = LOW
            lines.append(
                Line(
                    f"  {name}  P(changes|target changes)={_pct(cp.confidence)}  "
                    f"co-commits={cp.co_commits}  W={cp.weight:.2f}  [{flag}]",
                    priority - min(i, 15),
                    "co-change partner",
                )
            )
        lines.append(Line("</co_change_coupling>", FRAME))
    if report.tests:
        lines.append(Line("<tests_to_run>", FRAME))
        for i, t in enumerate(report.tests):
            why = (
                f"changes with {report.file} (co-commits={t.co_commits})"
                if t.co_commits
                else "found by its words"
            )
            lines.append(Line(f"  {t.path}  {why}", LOW - min(i, 15), "test file"))
        lines.append(Line("</tests_to_run>", FRAME))
    if report.related or report.memories:
        lines.append(Line("<related_memory>", FRAME))
        lines += _remembered_lines(report.memories)
        for i, hit in enumerate(report.related):
            lines.append(Line(f"  {_hit_line(hit)}", LOW - i, "related memory"))
        lines.append(Line("</related_memory>", FRAME))
    lines.append(Line("</gitstrata_preflight>", FRAME))
    return _fit(lines, budget)


# what a code link says about a partner, on its line
_LINK_WORDS = {
    "caller": "caller: its code names the target",
    "callee": "callee: the target's code names it",
    "caller and callee": "caller and callee: each names the other in its code",
    "container": "container: the target is declared inside it",
    "member": "member: declared inside the target",
}


def _remembered_lines(memories: list[MemoryRef]) -> list[Line]:
    """Remembered decisions and pitfalls, each with its staleness note."""
    out = []
    for i, m in enumerate(memories):
        where = f" anchors={quoteattr(', '.join(m.anchors[:3]))}" if m.anchors else ""
        if m.via:  # linked from another memory, or anchored to a co-change partner
            where += f" via={quoteattr(m.via)}"
        head = Line(
            f"  <memory id={quoteattr(m.id)} kind={quoteattr(m.kind)} "
            f"status={quoteattr(m.status)}{where}>{_one_line(m.text, 300)}</memory>",
            HIGH - i,
            "remembered memory",
        )
        out.append(head)
        for note in m.stale[:2]:
            out.append(Line(f"    ! {_one_line(note, 200)}", HIGH - i, parent=head, tied=True))
    return out


def _index_note_lines(notes: list[str]) -> list[Line]:
    return [Line(f"<index_note>{n}</index_note>", MUST, "index note") for n in notes]


def _hit_line(hit: Hit) -> str:
    if hit.kind == "commit":
        by = f" (by {_one_line(hit.author, 60)})" if hit.author else ""
        title = tagged(hit.intent, _one_line(hit.title, 140))
        return f"[commit] {hit.date or ''} {hit.key[:10]} {title}{by}"
    where = f"  ({hit.path})" if hit.path else ""
    return f"[{hit.kind}] {_one_line(hit.title, 140)}{where}"


def render_search(resp: SearchResponse, *, budget: int | None = 2500) -> str:
    attrs = f"query={quoteattr(_one_line(resp.query, 200))} class={quoteattr(resp.query_class)}"
    if resp.file_filter:
        attrs += f" file={quoteattr(resp.file_filter)}"
    lines = [Line(f"<gitstrata_search {attrs}>", FRAME)]
    lines += _index_note_lines(resp.index_notes)
    lines += _invariant_lines(resp.invariants)
    lines += _warning_lines(resp.warnings)
    lines += _firewall_lines(resp.firewall)
    if resp.memories:
        lines.append(Line("<related_memory>", FRAME))
        lines += _remembered_lines(resp.memories)
        lines.append(Line("</related_memory>", FRAME))
    lines.append(Line("<results>", FRAME))
    for hit in resp.hits:
        # a hit the question names is put first, whatever its score (0 when no path found it)
        rank = "pinned: named by the question" if hit.pinned else f"score={hit.score:.3f}"
        head = Line(f"  {hit.rank}. {_hit_line(hit)}  {rank}", MUST - hit.rank, "result")
        lines.append(head)
        # a commit's reason says what its snippet (subject and body again) would
        snippet = [] if hit.reason else hit.snippet.splitlines()[:4]
        if hit.reason:
            lines.append(_reason_line(hit.reason, head, "       "))
        for sn in snippet:
            lines.append(Line(f"       {sn[:160]}", LOW - hit.rank, "snippet line", parent=head))
        for ref in hit.why[:3]:
            why = Line(
                f"       why: {ref.date} {ref.short} {tagged(ref.intent, _one_line(ref.subject, 120))}",
                MID - hit.rank,
                "attached commit",
                parent=head,
            )
            lines.append(why)
            if ref.reason:
                lines.append(
                    Line(
                        f"         {_one_line(ref.reason, 200)}",
                        MID - hit.rank - 5,
                        "commit reason",
                        parent=why,
                    )
                )
    lines.append(Line("</results>", FRAME))
    lines.append(Line("</gitstrata_search>", FRAME))
    return _fit(lines, budget)
