"""Anti-context: the failed attempts and team rules that must reach an agent.

Failed attempts come from two places: the journal (recorded by `gitstrata exec`, the API and the
MCP `record_failure` tool; read again whenever the journal grows, so a record is searchable the
moment it is written, before any re-index) and the history itself (a reverted commit is an
attempt that failed: the revert is its failure record). Both become `FailureView`s for the
matching rule in `serve/graveyard.py`; invariants match by glob and always fire.

A revert is taken as it really ended. When the revert was itself reverted, or most of the lines
it took out are back in the file at HEAD (a later commit restored the change), the change was
re-applied: it is history ("reverted, later re-applied in <commit>"), never a failure. A revert
muted by a journal tombstone (`graveyard forget revert:<sha>`) is neither. What matched is a
warning (at most `max_warnings`); the other attempts on a preflight's target are history.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..store.attempts import (
    STREAM,
    FailedAttempt,
    StreamState,
    Target,
    changed_lines,
    read_stream,
    revert_id,
    target_label,
    touched_lines,
    without_respacing,
)
from ..store.config import GraveyardConfig
from ..store.ids import MODULE_SYMBOL
from ..store.journal import Journal, Skipped
from ..store.tokenizer import tokenize
from ..store.unidiff import parse_diff
from ..store.vocabulary import LOAD_BEARING
from . import arrow_ops as pc
from . import attempt_views
from .graveyard import (
    REVERT,
    FailureView,
    Intent,
    LazyFailureView,
    RetrievedItem,
    codes,
    identifiers,
    match_preflight,
    match_search,
)
from .index import Grouped, ServeIndex, iso_date
from .invariants import Invariant, InvariantStore
from .models import FailureWarning, InvariantHit, PastAttempt

_ASSIGNED = re.compile(r"\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\s*(?::[^=]*)?=(?!=)")
MAX_DIFF_LINES = 12
MAX_REASON_CHARS = 240


@dataclass
class _Known:
    """What the anti-context knows for one generation and journal state."""

    views: list[FailureView]
    details: dict[int | str, _Parts | _Revert]  # what a warning of each is served from
    past: list[tuple[tuple[Target, ...], _Parts | _Revert]]  # newest first
    commits: dict[str, RetrievedItem] = field(default_factory=dict)  # sha[:10] -> added lines

    @cached_property
    def homes(self) -> frozenset[str]:
        """The files any attempt targets: the only ones whose added lines matching reads."""
        return frozenset().union(*(v.homes for v in self.views))


@dataclass(frozen=True)
class _Parts:
    """A journal attempt's matching view and the text of the commits it would undo (kept with
    the view: `attempt_views`), with its served warning and history entry, made when an answer
    first serves them: an answer serves a few of a journal's attempts, and making them all took
    ~30 ms of every one-shot command with 1,200 of them."""

    view: FailureView
    attempt: FailedAttempt
    why_text: str

    source = "journal"  # where a history entry comes from (not a field)

    @property
    def failure_id(self) -> int:
        return self.attempt.id

    @property
    def date(self) -> str | None:
        """`past.date`, without making the entry."""
        return _day(self.attempt)

    @cached_property
    def warning(self) -> FailureWarning:
        return warning_from_failure(self.attempt)

    @cached_property
    def past(self) -> PastAttempt:
        return _past_attempt(self.attempt)


class AntiContext:
    def __init__(self, store_root: Path, reapplied_share: float | None = None) -> None:
        self.store_root = Path(store_root)
        self.journal = Journal(self.store_root / "journal")
        self.invariants = InvariantStore.in_strata(self.store_root)
        self.reapplied_share = (
            GraveyardConfig().reapplied_share if reapplied_share is None else reapplied_share
        )
        self._lock = threading.Lock()
        self._sig: tuple[str, str] | None = None
        self._cache: _Known | None = None
        # each failed attempt's matching view, warning and history entry, by generation and the
        # attempt as read (`_attempt_key`): an append re-reads the journal but builds only what
        # is new or changed (a journal of 1,200 failures took ~0.9 s to build after each append)
        self._parts_gen: str | None = None
        self._parts: dict[tuple, _Parts] = {}
        self.warnings: list[str] = []
        self.skipped: list[Skipped] = []  # journal lines the last read left out
        self._stream = StreamState()  # an append is parsed alone (1,200 failures: ~0.13 s whole)

    # ------------------------------------------------------------------ failures

    def _journal_failures(self) -> tuple[list[FailedAttempt], list[str]]:
        """The live failed attempts and the muted reverts, from one read of the stream."""
        out, self.skipped, muted = read_stream(self.journal, self._stream)
        self.warnings = [str(s) for s in self.skipped]
        return out, muted

    def views(
        self, index: ServeIndex, embed
    ) -> tuple[list[FailureView], dict[int | str, _Parts | _Revert]]:
        """FailureViews and what their warnings are served from (`.warning`), rebuilt when the
        journal or generation changes."""
        known = self._known(index, embed)
        return known.views, known.details

    def state(self, index: ServeIndex, embed) -> object:
        """The failures known now: the same object until the journal's failures or the
        generation change, so a part of an answer built on them can be kept by it."""
        return self._known(index, embed)

    def _known(self, index: ServeIndex, embed) -> _Known:
        sig = (self.journal.signature((STREAM,)), index.name)  # the failures stream only
        with self._lock:
            if sig == self._sig and self._cache is not None:
                return self._cache
            known = _Known([], {}, [])
            kept = self._parts if self._parts_gen == index.name else {}
            parts: dict[tuple, _Parts] = {}
            messages: dict[str, str | None] = {}  # commit messages read for this pass, by sha
            added: dict[str, AddedLines] = {}  # the lines each file's commits added, by path
            # views an earlier process kept for this generation, then for the one before it:
            # read in this process's first pass of a generation only (after an append the new
            # attempt alone is built, in milliseconds; reading the file would cost more)
            stored: dict[bytes, dict[str, Any]] | None = {} if kept else None
            carried = attempt_views.Previous({}, None) if kept else None
            built = 0
            failures, muted = self._journal_failures()
            for f in failures:
                key = _attempt_key(f)
                got = kept.get(key) or parts.get(key)
                if got is None:
                    if stored is None:
                        stored = attempt_views.load(index.gen)
                    digest = attempt_views.key(key)
                    fields = stored.get(digest)
                    if fields is None:
                        if carried is None:
                            carried = attempt_views.load_previous(index.gen)
                        earlier = carried.rows.get(digest)
                        if earlier is not None and _unchanged(f, carried.changed):
                            fields = earlier  # none of its files changed: the same view whole
                        else:
                            got = _failure_parts(index, embed, f, messages, added, earlier)
                        built += 1  # new to this generation: kept beside it for the next process
                    if got is None:  # kept beside this generation, or taken whole
                        assert fields is not None
                        view = attempt_views.view(f.id, f.targets, fields)
                        got = _Parts(view, f, fields["why_text"])
                parts[key] = got
                known.views.append(got.view)
                known.details[f.id] = got
                known.past.append((f.targets, got))
            self._parts_gen, self._parts = index.name, parts
            # for the next process: every attempt's view, the ones read included; after an
            # append only once many are new (a file of 1,200 views takes ~50 ms to write)
            if built and (not kept or built >= attempt_views.SAVE_AFTER):
                attempt_views.save(
                    index.gen,
                    ((attempt_views.key(k), p.view, p.why_text) for k, p in parts.items()),
                )
            for revert in _reverts(index, muted, self.reapplied_share):
                known.past.append((revert.targets, revert))
                if revert.reapplied_in is None:
                    view = revert.view(embed)
                    known.views.append(view)
                    known.details[view.id] = revert
            known.past.sort(key=lambda p: p[1].date or "", reverse=True)
            self._sig, self._cache = sig, known
            return known

    def _warnings(self, found, details, cap: int) -> list[FailureWarning]:
        out = []
        for w in found[:cap]:
            d = details[w.failure_id].warning.model_copy(deep=True)
            d.score = round(float(w.score), 4)
            d.reasons = list(w.reasons)
            out.append(d)
        return out

    def for_search(
        self,
        index,
        embed,
        query: Intent,
        idf,
        retrieved: Sequence[RetrievedItem],
        cfg: GraveyardConfig,
    ) -> list[FailureWarning]:
        known = self._known(index, embed)
        if not known.views:
            return []
        retrieved = [self._with_added(index, known, r) for r in retrieved]
        found = match_search(query, None, idf, retrieved, known.views, cfg)
        return self._warnings(found, known.details, cfg.max_warnings)

    def _with_added(self, index: ServeIndex, known: _Known, item: RetrievedItem) -> RetrievedItem:
        """A retrieved commit with the lines it added (cached per commit), so that matching can
        tell an attempt that would take those lines out from one that merely touched the same
        function. Only the lines of files an attempt targets are kept: matching reads no other,
        and a large commit (a history's first) touches thousands of files."""
        if item.kind != "commit" or not item.id:
            return item
        got = known.commits.get(item.id)
        if got is None:
            # the whole name when the search gave it: resolving a prefix sorts every sha of the
            # history once per process (12 ms of a one-shot query on 5,700 commits)
            full = item.sha or index.resolve_sha(item.id) or ""
            homes = known.homes
            cols = index.touch_columns(index.touches_by_sha, full, ["head_path", "excerpt"])
            added = frozenset(
                (path, ln[1:].strip())
                for path, excerpt in zip(cols["head_path"], cols["excerpt"], strict=True)
                if path in homes
                for ln in changed_lines(excerpt or "")
                if ln[0] == "+"
            )
            got = RetrievedItem("commit", 0, 0.0, added=added)
            known.commits[item.id] = got
        return replace(item, added=got.added)

    def for_preflight(
        self,
        index,
        embed,
        path,
        qualname,
        intent: Intent,
        idf,
        retrieved,
        cfg: GraveyardConfig,
        kept: dict[int, Any] | None = None,
    ) -> list[FailureWarning]:
        """`kept`: what this question found per failure before (see `match_preflight`)."""
        views, details = self.views(index, embed)
        if not views:
            return []
        found = match_preflight(path, qualname, intent, None, idf, views, cfg, retrieved, kept)
        return self._warnings(found, details, cfg.max_warnings)

    def past_attempts(
        self,
        index,
        embed,
        path: str,
        qualname: str | None,
        shown: Collection[int | str],
        cfg: GraveyardConfig,
    ) -> list[PastAttempt]:
        """The attempts on `path` (`qualname`, or anywhere in the file when None) that are not
        among the warnings `shown`, newest first: history an agent may want, not a warning."""
        out: list[PastAttempt] = []
        for targets, entry in self._known(index, embed).past:
            if len(out) >= cfg.max_past_attempts:
                break
            # a reverted commit that changed only module-level lines of the file (an import, a
            # constant) is about other code: history for the file, not for each function of it
            whole = entry.source != "revert"
            if entry.failure_id not in shown and _on_target(targets, path, qualname, whole):
                out.append(entry.past)
        return out

    # ------------------------------------------------------------------ invariants

    def rules(self, path: str, qualname: str | None = None) -> list[InvariantHit]:
        # typed here: `InvariantStore.list` shadows the builtin in its own annotations
        found: Sequence[Invariant] = (
            self.invariants.match(path, qualname) if qualname else self.invariants.match_file(path)
        )
        return [
            InvariantHit(id=i.id, severity=i.severity, scope=i.scope, description=i.description)
            for i in found
        ]


def _attempt_key(f: FailedAttempt) -> tuple:
    """Everything of a failed attempt its view, warning and history entry are made from."""
    return (
        f.id, f.first_seen, f.last_seen, f.occurrences, f.targets, f.signature, f.fingerprint,
        f.diff, f.trace, f.command, f.exit_code, f.signal, f.notes, f.source,
        tuple(f.all_notes()),
    )  # fmt: skip


# the fields of an attempt's view that follow from the attempt alone (and the embedder)
_OWN_FIELDS = ("text_terms", "vector", "identifiers", "location", "place", "nearby_codes")


def _failure_parts(
    index: ServeIndex,
    embed,
    f: FailedAttempt,
    messages: dict[str, str | None],
    added: dict[str, AddedLines],
    carried: Mapping[str, Any] | None = None,
) -> _Parts:
    """A journal failure's matching view, its served warning and its history entry
    (`messages`: commit messages already read, by sha; `added`: `added_lines` by path; both
    shared by the attempts of one pass). `carried`: the attempt's view as an earlier generation
    with the same embedder kept it (`attempt_views.load_previous`): what follows from the
    attempt alone is taken from it, and what this generation's history says (the commits it
    would undo, the symbols its diff changed) is read again; the embedding and terms of those
    commits' messages are taken too when their text is the same."""
    changed = "\n".join(changed_lines(f.diff))
    touched = touched_lines(f.diff)
    why = _rationale(index, f.targets, touched, added)
    why_text = _why_text(index, why, messages)
    own: Mapping[str, Any]
    if carried is None:
        # every repeat's own notes too: an attempt tried again and described in other words is
        # what those words say as well (the CLI shows them all)
        text = "\n".join(
            x for x in (*f.all_notes(), _what_failed(f, changed), changed, f.command or "") if x
        )
        own = {
            "text_terms": Counter(tokenize(text)),
            "vector": embed(text),
            "identifiers": identifiers(changed),
            "location": frozenset(tokenize(_place(f.targets))),
            "place": embed(_place(f.targets)),
            "nearby_codes": codes(_context_text(f.diff)),
        }
    else:
        own = {name: carried[name] for name in _OWN_FIELDS}
    if carried is not None and carried["why_text"] == why_text:
        why_terms, why_vector = carried["why_terms"], carried["why_vector"]
    else:
        why_terms = frozenset(tokenize(why_text))
        why_vector = embed(why_text) if why_text else None
    view = FailureView(
        id=f.id,
        targets=f.targets,
        touched=touched,
        why_terms=why_terms,
        why_vector=why_vector,
        changed=_changed_symbols(index, f.diff, f.targets),
        **own,
    )
    return _Parts(view, f, why_text)


def _unchanged(f: FailedAttempt, changed: frozenset[str] | None) -> bool:
    """Whether none of `f`'s files (its targets' and both sides of each file of its diff) is
    one of `changed`, the files commits new to this generation touched (None: unknown). What
    `_failure_parts` reads from the history for `f` is then what the earlier generation read."""
    if changed is None:
        return False
    paths = {p for p, _ in f.targets}
    for fc in parse_diff(f.diff or ""):
        paths.update(p for p in (fc.old_path, fc.new_path) if p)
    return paths.isdisjoint(changed)


def _day(f: FailedAttempt) -> str | None:
    """The day an attempt was last seen, as its warning and history entry give it."""
    return (f.last_seen or "")[:10] or None


def _past_attempt(f: FailedAttempt) -> PastAttempt:
    """A journal failure's entry in a preflight's history of attempts."""
    return PastAttempt(
        failure_id=f.id,
        source="journal",
        date=_day(f),
        targets=[target_label(t) for t in f.targets],
        summary=f"failed attempt #{f.id}: "
        + " ".join((f.notes or f.command or "no notes").split())[:200],
    )


def warning_from_failure(f: FailedAttempt, reasons: list[str] | None = None) -> FailureWarning:
    """The served form of a journal failure (score and reasons filled in by the matcher)."""
    return FailureWarning(
        failure_id=f.id,
        score=0.0,
        reasons=reasons or [],
        targets=[target_label(t) for t in f.targets],
        date=_day(f),
        occurrences=f.occurrences,
        exit_code=f.exit_code,
        command=f.command,
        tried=f.notes or "",
        errors=list(f.signature.errors[:3]),
        failing_tests=list(f.signature.failing[:3]),
        diff_excerpt="\n".join(without_respacing(changed_lines(f.diff))[:MAX_DIFF_LINES]),
        source="journal",
    )


def _what_failed(f: FailedAttempt, changed: str) -> str:
    """The failure's signature as matching text: its errors, failing tests and exceptions, and
    the error codes among them or in its changed lines. A code a traceback only printed as
    context (a line of source around the failing one) is not what failed, and the files it
    failed in say where, not what."""
    sig = f.signature
    said = "\n".join((*sig.errors, *sig.failing, changed))
    codes = [c for c in sig.codes if c in said]
    return "\n".join((*sig.errors, *sig.failing, *sig.exceptions, *codes))


@dataclass(frozen=True)
class AddedLines:
    """The lines the commits touching one file added there, looked up by line: an attempt's
    rationale asks which of those commits put in the lines it changes, and a journal's
    attempts on one file ask it of the same touches (1,200 attempts on a 3,000-line file read
    the excerpts of its 437 touches again for each: 5 s of a one-shot command)."""

    shas: tuple[str, ...]  # each touch's commit, in `touches_by_path` order
    by_line: dict[str, tuple[int, ...]]  # an added line, stripped -> the touches adding it
    # a constant (lowercased) -> (touch, how many of its added lines give the constant a value)
    by_constant: dict[str, tuple[tuple[int, int], ...]]


def added_lines(index: ServeIndex, path: str) -> AddedLines:
    """`AddedLines` of `path`'s touches (one pass over their excerpts, read by column: the rows
    as dicts cost twice the parsing)."""
    cols = index.touch_columns(index.touches_by_path, path, ["sha", "excerpt"])
    by_line: dict[str, list[int]] = {}
    by_constant: dict[str, list[tuple[int, int]]] = {}
    for pos, excerpt in enumerate(cols["excerpt"]):
        plus = {ln[1:].strip() for ln in changed_lines(excerpt or "") if ln[0] == "+"}
        setting: Counter[str] = Counter()
        for ln in plus:
            by_line.setdefault(ln, []).append(pos)
            m = _ASSIGNED.search(ln)
            if m is not None:
                setting[m.group(1).lower()] += 1
        for name, k in setting.items():
            by_constant.setdefault(name, []).append((pos, k))
    return AddedLines(
        tuple(cols["sha"]),
        {k: tuple(v) for k, v in by_line.items()},
        {k: tuple(v) for k, v in by_constant.items()},
    )


def _rationale(
    index: ServeIndex,
    targets: Sequence[Target],
    touched: Collection[str],
    added: dict[str, AddedLines] | None = None,
) -> list[str]:
    """The commits that put in the lines an attempt changed in its files, most lines first:
    what the attempt would undo, and why those lines are there. Fixes (load-bearing commits)
    when any of them did; otherwise the commit that put in the most of those lines. `added`:
    `added_lines` already made, by path (filled with the ones made now)."""
    if not touched:
        return []
    added = {} if added is None else added
    count: Counter[str] = Counter()
    lines = set(touched)
    # the constants those lines use: the commit that set one's value is undone with them (an
    # attempt that changes `expiresAt - REFRESH_MARGIN_MS` works against the fix that raised it)
    constants = codes("\n".join(touched))
    for path in dict.fromkeys(p for p, _ in targets):
        got = added.get(path)
        if got is None:
            got = added[path] = added_lines(index, path)
        # per touch: its added lines among `lines`, and its added lines that set a constant
        n: dict[int, int] = {}
        for line in lines:
            for pos in got.by_line.get(line, ()):
                n[pos] = n.get(pos, 0) + 1
        for name in constants:
            for pos, k in got.by_constant.get(name, ()):
                n[pos] = n.get(pos, 0) + k
        for pos in sorted(n):  # the touches' order: ties are ranked by it
            count[got.shas[pos]] += n[pos]
    if not count:
        return []
    ranked = [sha for sha, _ in count.most_common()]
    fixes = [sha for sha in ranked if index.commit_field(sha, "intent") in LOAD_BEARING]
    return fixes or ranked[:1]


def _why_text(index: ServeIndex, shas: Sequence[str], known: dict[str, str | None]) -> str:
    """What the commits an attempt would undo say: their subjects and bodies. `known` holds
    messages read before (by sha, None for a commit without one) and gets the ones read now:
    attempts on the same code name the same commits, and each read filters every commit."""
    missing = {sha for sha in shas if sha not in known}
    if missing:
        got = _messages(index, missing)
        known.update((sha, got.get(sha)) for sha in missing)
    return "\n".join(
        x for sha in shas for x in (index.commits[sha]["subject"], _body(known[sha], 2_000)) if x
    )


def _changed_symbols(index: ServeIndex, diff: str, targets: Sequence[Target]) -> tuple[Target, ...]:
    """The innermost named symbols at HEAD holding the lines `diff` changed (old-side line
    numbers), other than `targets`. A diff recorded against an older HEAD may be a few lines
    off; the symbol found is then a neighbour at worst, which only boosts a match."""
    own = set(targets)
    out: dict[Target, None] = {}
    for fc in parse_diff(diff or ""):
        rows = [
            r
            for r in index.symbols_by_path.get(fc.path) or ()
            if r.qualname and r.qualname != MODULE_SYMBOL
        ]
        for line in dict.fromkeys((*fc.removed, *fc.inserted_after)):
            holding = [r for r in rows if r.start_line <= line <= r.end_line]
            if holding:
                inner = min(holding, key=lambda r: r.end_line - r.start_line)
                target = (fc.path, inner.qualname)
                if target not in own:
                    out[target] = None
    return tuple(out)


def _context_text(diff: str) -> str:
    """The unchanged lines a diff shows around its changes."""
    return "\n".join(ln[1:] for ln in (diff or "").splitlines() if ln.startswith(" "))


def _place(targets: Sequence[Target]) -> str:
    """Where an attempt was made, as text: its files' paths and symbols' names."""
    return " ".join(f"{p} {q or ''}" for p, q in targets)


def _on_target(
    targets: Sequence[Target], path: str, qualname: str | None, whole_file_counts: bool = True
) -> bool:
    """Whether an attempt is about `qualname` in `path` (anywhere in the file when None). Its
    whole-file target (module-level lines: imports, constants) counts for a function of the file
    only when it names no function there, and `whole_file_counts`: beside the functions it
    changed, those lines say nothing of the others (on express, the revert of a commit that
    changed three functions followed 14 of 30 preflights)."""
    whole_file = named_here = False
    for t_path, t_qual in targets:
        if t_path != path:
            continue
        if qualname is None:
            return True
        if t_qual is None:
            whole_file = True
            continue
        named_here = True
        if t_qual == qualname:
            return True
        if t_qual.startswith(qualname + ".") or qualname.startswith(t_qual + "."):
            return True
    return whole_file and whole_file_counts and not named_here


# ---------------------------------------------------------------- reverted commits


@dataclass
class _Revert:
    """A reverted commit with its revert, as matching and history see it; its served warning
    and history entry are made when an answer serves them (most answers serve none of a
    history's reverts)."""

    sha: str
    targets: tuple[Target, ...]
    about: str  # the subjects, the revert's reason, the reverted commit's body
    changed: list[str]
    labels: list[str]  # the targets as served
    date: str | None
    tried: str
    shown: str  # the diff excerpt served
    summary: str
    reapplied_in: str | None

    source = REVERT  # where a history entry comes from (not a field)

    @property
    def failure_id(self) -> str:
        return revert_id(self.sha)

    @cached_property
    def warning(self) -> FailureWarning:
        return FailureWarning(
            failure_id=self.failure_id,
            score=0.0,
            reasons=[],
            targets=self.labels,
            date=self.date,
            occurrences=1,
            command=None,
            tried=self.tried,
            diff_excerpt=self.shown,
            source=REVERT,
        )

    @cached_property
    def past(self) -> PastAttempt:
        return PastAttempt(
            failure_id=self.failure_id,
            source=REVERT,
            date=self.date,
            targets=self.labels,
            summary=self.summary,
            reapplied_in=self.reapplied_in,
        )

    def view(self, embed) -> FailureView:
        # held to the stricter bar: its text is what the commits say, not the diff's words;
        # made when a question's results first point at it (most never are)
        about, changed = self.about, self.changed
        return LazyFailureView(
            revert_id(self.sha),
            self.targets,
            lambda: (
                Counter(tokenize(about)),
                embed(about),
                identifiers("\n".join(changed)),
            ),
        )


def _body(message: str | None, limit: int = MAX_REASON_CHARS) -> str:
    """A commit message's body on one line, without git's revert line and trailers."""
    if not message:
        return ""
    _, _, body = message.strip().partition("\n")
    kept = [
        ln.strip()
        for ln in body.splitlines()
        if ln.strip()
        and not ln.startswith("This reverts commit")
        and not ln.lower().startswith(("signed-off-by:", "co-authored-by:"))
    ]
    text = " ".join(kept)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _messages(index: ServeIndex, shas: set[str]) -> dict[str, str]:
    if not shas or not index.has("commits"):
        return {}
    t = index.table("commits", columns=["sha", "message"])
    t = pc.filter(t, pc.is_in(t.column("sha"), value_set=pa.array(sorted(shas), pa.string())))
    return dict(zip(t.column("sha").to_pylist(), t.column("message").to_pylist(), strict=True))


def _head_code(index: ServeIndex, paths: set[str]) -> dict[str, set[str]]:
    """Each path's stripped code lines at HEAD, from the symbols table (no file reads)."""
    if not paths or not index.has("symbols"):
        return {}
    t = index.table("symbols", columns=["path", "code"])
    t = pc.filter(t, pc.is_in(t.column("path"), value_set=pa.array(sorted(paths), pa.string())))
    out: dict[str, set[str]] = {}
    for path, code in zip(t.column("path").to_pylist(), t.column("code").to_pylist(), strict=True):
        out.setdefault(path, set()).update(ln.strip() for ln in (code or "").splitlines())
    return out


def _reverts(index: ServeIndex, muted: Collection[str], share: float) -> list[_Revert]:
    """Every reverted commit of the history that was not muted, with how it ended."""
    commits = index.commits
    pairs: list[tuple[str, str]] = []  # (reverted, revert)
    reverted_by: dict[str, str] = {}  # a revert's sha prefix -> the commit that reverted it
    for sha, c in index.revert_commits():
        reverted = c.get("reverted_sha")
        if c.get("intent") != "revert" or not reverted:
            continue
        reverted_by[reverted] = sha
        full = index.resolve_sha(reverted)
        if full is None or any(full.startswith(m) for m in muted):
            continue
        pairs.append((full, sha))
    # reverting a revert re-applies the first change: that pair says so ("re-applied in"), so
    # the undone revert is not an attempt of its own
    pairs = [
        (full, sha)
        for full, sha in pairs
        if not (
            commits[full].get("intent") == "revert"
            and (r := commits[full].get("reverted_sha"))
            and index.resolve_sha(r) is not None
        )
    ]
    if not pairs:
        return []
    # a revert's own reverter: the first key (in the history's order) that is a prefix of it
    lengths = sorted({len(k) for k in reverted_by})
    key_order = {k: i for i, k in enumerate(reverted_by)}

    def reverter(sha: str) -> str | None:
        hits = [sha[:n] for n in lengths if sha[:n] in reverted_by]
        return reverted_by[min(hits, key=key_order.__getitem__)] if hits else None

    by_sha = index.touches_by_sha
    if isinstance(by_sha, Grouped):  # every pair's touches in one pass, not one per commit
        by_sha.prefetch(s for p in pairs for s in p)
    messages = _messages(index, {s for p in pairs for s in p})
    code = _head_code(index, {t["head_path"] for _, r in pairs for t in by_sha.get(r, [])})
    out = []
    for full, sha in pairs:
        c, orig = commits[sha], commits[full]
        touches = by_sha.get(full, [])
        targets = tuple(
            dict.fromkeys(
                (t["head_path"], None if t["qualname"] in (None, MODULE_SYMBOL) else t["qualname"])
                for t in touches
            )
        )
        per_touch = [changed_lines(t["excerpt"] or "") for t in touches]
        diff = [ln for lines in per_touch for ln in lines]
        shown = [ln for lines in per_touch for ln in without_respacing(lines)]
        again = reverter(sha)
        reapplied = again[:10] if again else _restored_by(index, sha, code, share)
        reason = _body(messages.get(sha))
        tried = f"{orig['subject']} ({full[:10]}), reverted by {sha[:10]}"
        if reason:
            tried += f": {reason}"
        labels = [target_label(t) for t in targets]
        date = iso_date(c["commit_time"])
        summary = (
            f"reverted, later re-applied in {reapplied}: {orig['subject']} ({full[:10]}), "
            f"reverted by {sha[:10]}"
            if reapplied
            else f"reverted: {tried}"
        )
        about = "\n".join(
            x for x in (orig["subject"], c["subject"], reason, _body(messages.get(full))) if x
        )
        out.append(
            _Revert(
                sha=full,
                targets=targets,
                about=about,
                changed=diff,
                labels=labels,
                date=date,
                tried=tried,
                shown="\n".join(shown[:MAX_DIFF_LINES]),
                summary=summary,
                reapplied_in=reapplied,
            )
        )
    return out


def _restored_by(
    index: ServeIndex, revert_sha: str, code: dict[str, set[str]], share: float
) -> str | None:
    """Who put back what `revert_sha` took out, when at least `share` of the distinctive lines
    it removed (with a letter or digit, not also re-added by it) are in the file at HEAD: the
    later commit whose added lines hold the most of them, else "HEAD". None: it stayed out."""
    removed: set[tuple[str, str]] = set()
    added: set[str] = set()
    for t in index.touches_by_sha.get(revert_sha, []):
        for ln in changed_lines(t["excerpt"] or ""):
            text = ln[1:].strip()
            if ln[0] == "+":
                added.add(text)
            elif any(ch.isalnum() for ch in text):
                removed.add((t["head_path"], text))
    lines = {(p, ln) for p, ln in removed if ln not in added}
    back = {(p, ln) for p, ln in lines if ln in code.get(p, ())}
    if not lines or len(back) < share * len(lines):
        return None
    when = index.commits[revert_sha]["commit_time"]
    best: tuple[int, str] | None = None
    for path in sorted({p for p, _ in back}):
        # newest first: on a tie the earliest restoring commit wins
        for t in index.touches_by_path.get(path, []):
            if t["sha"] == revert_sha or t["commit_time"] <= when:
                continue
            plus = {ln[1:].strip() for ln in changed_lines(t["excerpt"] or "") if ln[0] == "+"}
            n = sum(1 for p, ln in back if p == path and ln in plus)
            if n and (best is None or n >= best[0]):
                best = (n, t["sha"])
    return best[1][:10] if best else "HEAD"
