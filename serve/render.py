"""The agent-facing text blocks, bounded by a token budget.

Every line carries a priority; when the block is over budget the least important lines go first
(old history diff lines, weak couplings, related memory), while the frame, invariants and failed
attempts stay. Tokens are estimated as characters / 4, which is close for code and English.
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

from ..store.vocabulary import LOAD_BEARING
from .models import (
    FailureWarning,
    Hit,
    InvariantHit,
    PastAttempt,
    PreflightReport,
    SearchResponse,
)

# priorities: higher survives longer
FRAME, MUST, HIGH, MID, LOW, LEAST = 100, 90, 70, 50, 30, 10


@dataclass
class Line:
    text: str
    priority: int


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4


def _fit(lines: list[Line], budget: int | None) -> str:
    if budget is not None:
        total = sum(estimate_tokens(line.text) + 1 for line in lines)
        if total > budget:
            order = sorted(range(len(lines)), key=lambda i: (lines[i].priority, -i))
            drop: set[int] = set()
            for i in order:
                if total <= budget or lines[i].priority >= FRAME:
                    break
                drop.add(i)
                total -= estimate_tokens(lines[i].text) + 1
            lines = [line for i, line in enumerate(lines) if i not in drop]
            lines = _drop_empty_sections(lines)
    return "\n".join(line.text for line in lines)


def _drop_empty_sections(lines: list[Line]) -> list[Line]:
    """Remove `<tag ...>` immediately followed by its `</tag>` (a section emptied by the budget)."""
    out: list[Line] = []
    for line in lines:
        if out and line.text.startswith("</") and out[-1].text.startswith("<"):
            tag = line.text[2:].rstrip(">")
            opener = out[-1].text[1:].split(" ", 1)[0].rstrip(">")
            if opener == tag and not out[-1].text.startswith("<gitstrata_"):
                out.pop()
                continue
        out.append(line)
    return out


def _pct(x: float) -> str:
    return f"{round(100 * x)}%"


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
        out.append(Line(f"  <failed_attempt {attrs}>", MUST))
        if w.targets:
            out.append(Line(f"    targets: {', '.join(w.targets)}", MUST))
        if w.command:
            out.append(Line(f"    command: {_one_line(w.command)}", HIGH))
        if w.tried:
            out.append(Line(f"    what was tried: {_one_line(w.tried, 300)}", MUST))
        if w.errors or w.failing_tests:
            out.append(Line("    failure signature:", HIGH))
            for err in w.errors[:3]:
                out.append(Line(f"      error: {_one_line(err, 240)}", HIGH))
            for test in w.failing_tests[:3]:
                out.append(Line(f"      failing: {_one_line(test, 200)}", MID))
        if w.diff_excerpt:
            out.append(Line("    attempted diff (excerpt):", HIGH))
            for dl in w.diff_excerpt.splitlines()[:12]:
                out.append(Line(f"      {dl[:200]}", MID))
        out.append(Line(f"    matched because: {'; '.join(w.reasons)}", MUST))
        out.append(Line("  </failed_attempt>", MUST))
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
        *(Line(f"  ! {n}", HIGH) for n in notes[:5]),
        Line("</firewall_notes>", FRAME),
    ]


def render_preflight(report: PreflightReport, *, budget: int | None = 2000) -> str:
    attrs = f"file={quoteattr(report.file)}"
    if report.symbol:
        attrs += f" symbol={quoteattr(report.symbol)}"
    attrs += f" latency_ms={quoteattr(f'{report.latency_ms:.2f}')}"
    lines: list[Line] = [Line(f"<gitstrata_preflight {attrs}>", FRAME)]
    if not report.found:
        lines.append(Line(f"<not_found>{report.message or 'unknown target'}</not_found>", FRAME))
        if report.nearest:
            lines.append(Line("<nearest_matches>", FRAME))
            lines += [Line(f"  {n}", MUST) for n in report.nearest]
            lines.append(Line("</nearest_matches>", FRAME))
    ctx = report.context
    if ctx is not None:
        lines.append(Line("<ast_context>", FRAME))
        lines.append(
            Line(f"  {ctx.kind} {ctx.qualname}  {ctx.path}:L{ctx.start_line}-L{ctx.end_line}", MUST)
        )
        if ctx.signature:
            lines.append(Line(f"  signature: {_one_line(ctx.signature, 300)}", HIGH))
        if ctx.docstring:
            lines.append(Line(f"  doc: {_one_line(ctx.docstring, 200)}", MID))
        if report.ownership:
            owners = ", ".join(
                f"{o.commit.short} [{o.commit.intent}] {_pct(o.share)}"
                for o in report.ownership[:4]
            )
            lines.append(Line(f"  blame ownership: {owners}", HIGH))
        lines.append(Line("</ast_context>", FRAME))
    lines += _invariant_lines(report.invariants)
    lines += _warning_lines(report.warnings)
    lines += _past_lines(report.past_attempts)
    lines += _firewall_lines(report.firewall)
    bearing = [o for o in report.ownership if o.load_bearing]
    if bearing and ctx is not None:
        lines.append(Line("<load_bearing_code why_this_code_exists>", FRAME))
        for o in bearing:
            lines.append(
                Line(
                    f"  ! {o.lines} line(s) of {ctx.qualname} ({_pct(o.share)}) were written by "
                    f"{o.commit.short} [{o.commit.intent}] {quoteattr(_one_line(o.commit.subject, 120))}"
                    f" -- removing them may re-open that {o.commit.intent}.",
                    MUST + 5,
                )
            )
        lines.append(Line("</load_bearing_code>", FRAME))
    if report.history:
        lines.append(Line("<causal_history>", FRAME))
        n = len(report.history)
        for i, h in enumerate(report.history):
            c = h.commit
            weight = HIGH if c.intent in LOAD_BEARING else MID
            weight -= min(i, 10)  # older entries go first
            lines.append(
                Line(
                    f"  {c.date} {c.short} [{c.intent}] {_one_line(c.subject, 140)} (+{h.added} -{h.removed})",
                    weight,
                )
            )
            for ex in h.excerpt[:6]:
                lines.append(Line(f"      {ex[:180]}", max(LEAST, weight - 25 - (n - i == 0))))
        lines.append(Line("</causal_history>", FRAME))
    coupling = report.coupling + report.symbol_coupling
    if coupling:
        lines.append(Line("<co_change_coupling>", FRAME))
        for i, cp in enumerate(coupling):
            name = f"{cp.path}::{cp.symbol}" if cp.symbol else cp.path
            flag = "hidden: no import link" if cp.hidden else "import-linked"
            lines.append(
                Line(
                    f"  {name}  W={cp.weight:.2f}  P(changes|target changes)={_pct(cp.confidence)}  "
                    f"co-commits={cp.co_commits}  [{flag}]",
                    HIGH - min(i, 15) if cp.hidden else MID - min(i, 15),
                )
            )
        lines.append(Line("</co_change_coupling>", FRAME))
    if report.related:
        lines.append(Line("<related_memory>", FRAME))
        for i, hit in enumerate(report.related):
            lines.append(Line(f"  {_hit_line(hit)}", LOW - i))
        lines.append(Line("</related_memory>", FRAME))
    lines.append(Line("</gitstrata_preflight>", FRAME))
    return _fit(lines, budget)


def _hit_line(hit: Hit) -> str:
    if hit.kind == "commit":
        return (
            f"[commit] {hit.date or ''} {hit.key[:10]} [{hit.intent}] {_one_line(hit.title, 140)}"
        )
    where = f"  ({hit.path})" if hit.path else ""
    return f"[{hit.kind}] {_one_line(hit.title, 140)}{where}"


def render_search(resp: SearchResponse, *, budget: int | None = 2500) -> str:
    attrs = f"query={quoteattr(_one_line(resp.query, 200))} class={quoteattr(resp.query_class)}"
    if resp.file_filter:
        attrs += f" file={quoteattr(resp.file_filter)}"
    lines = [Line(f"<gitstrata_search {attrs}>", FRAME)]
    lines += _invariant_lines(resp.invariants)
    lines += _warning_lines(resp.warnings)
    lines += _firewall_lines(resp.firewall)
    lines.append(Line("<results>", FRAME))
    for hit in resp.hits:
        lines.append(
            Line(f"  {hit.rank}. {_hit_line(hit)}  score={hit.score:.3f}", MUST - hit.rank)
        )
        for sn in hit.snippet.splitlines()[:4]:
            lines.append(Line(f"       {sn[:160]}", LOW - hit.rank))
        for ref in hit.why[:3]:
            lines.append(
                Line(
                    f"       why: {ref.date} {ref.short} [{ref.intent}] {_one_line(ref.subject, 120)}",
                    MID - hit.rank,
                )
            )
    lines.append(Line("</results>", FRAME))
    lines.append(Line("</gitstrata_search>", FRAME))
    return _fit(lines, budget)
