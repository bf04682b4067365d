"""Anti-context: the failed attempts and team rules that must reach an agent.

Failed attempts come from two places: the journal (recorded by `gitstrata exec`, the API and the
MCP `record_failure` tool; read again whenever the journal grows, so a record is searchable the
moment it is written, before any re-index) and the history itself (a reverted commit is an
attempt that failed: the revert is its failure record). Both become `FailureView`s for the
seed's matching rule in `serve/graveyard.py`; invariants match by glob and always fire.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ..store.attempts import (
    FailedAttempt,
    changed_lines,
    load_failures,
    revert_id,
    target_label,
)
from ..store.config import GraveyardConfig
from ..store.ids import MODULE_SYMBOL
from ..store.journal import Journal
from ..store.tokenizer import tokenize
from .graveyard import FailureView, RetrievedItem, match_preflight, match_search
from .index import ServeIndex, iso_date
from .invariants import Invariant, InvariantStore
from .models import FailureWarning, InvariantHit

MAX_DIFF_LINES = 12


class AntiContext:
    def __init__(self, store_root: Path) -> None:
        self.store_root = Path(store_root)
        self.journal = Journal(self.store_root / "journal")
        self.invariants = InvariantStore.in_strata(self.store_root)
        self._lock = threading.Lock()
        self._sig: tuple[str, str] | None = None
        self._views: list[FailureView] = []
        self._details: dict[int | str, FailureWarning] = {}
        self.warnings: list[str] = []

    # ------------------------------------------------------------------ failures

    def _journal_failures(self) -> list[FailedAttempt]:
        found: list[str] = []
        out = load_failures(self.journal, on_warning=found.append)
        self.warnings = found
        return out

    def views(
        self, index: ServeIndex, embed
    ) -> tuple[list[FailureView], dict[int | str, FailureWarning]]:
        """FailureViews and their render details, rebuilt when the journal or generation changes."""
        sig = (self.journal.signature(), index.name)
        with self._lock:
            if sig == self._sig:
                return self._views, self._details
            views: list[FailureView] = []
            details: dict[int | str, FailureWarning] = {}
            for f in self._journal_failures():
                text = "\n".join(
                    x
                    for x in (
                        f.notes or "",
                        f.signature.text(),
                        "\n".join(changed_lines(f.diff)),
                        f.command or "",
                    )
                    if x
                )
                views.append(
                    FailureView(
                        id=f.id,
                        targets=f.targets,
                        text_terms=Counter(tokenize(text)),
                        vector=embed(text),
                    )
                )
                details[f.id] = warning_from_failure(f)
            for view, detail in self._reverts(index, embed):
                views.append(view)
                details[view.id] = detail
            self._sig, self._views, self._details = sig, views, details
            return views, details

    def _reverts(self, index: ServeIndex, embed):
        """Each reverted commit as a failed attempt: its touched symbols are the targets."""
        by_sha = index.touches_by_sha
        for sha, c in index.commits.items():
            reverted = c.get("reverted_sha")
            if c.get("intent") != "revert" or not reverted:
                continue
            full = next((s for s in index.commits if s.startswith(reverted)), None)
            if full is None:
                continue
            orig = index.commits[full]
            touches = by_sha.get(full, [])
            targets = tuple(
                dict.fromkeys(
                    (
                        t["head_path"],
                        None if t["qualname"] in (None, MODULE_SYMBOL) else t["qualname"],
                    )
                    for t in touches
                )
            )
            diff = [ln for t in touches for ln in changed_lines(t["excerpt"] or "")]
            text = f"{orig['subject']}\n{c['subject']}\n" + "\n".join(diff)
            fid = revert_id(full)
            yield (
                FailureView(
                    id=fid, targets=targets, text_terms=Counter(tokenize(text)), vector=embed(text)
                ),
                FailureWarning(
                    failure_id=fid,
                    score=0.0,
                    reasons=[],
                    targets=[target_label(t) for t in targets],
                    date=iso_date(c["author_time"]),
                    occurrences=1,
                    command=None,
                    tried=f"{orig['subject']} ({full[:10]}), reverted by {sha[:10]}: {c['subject']}",
                    diff_excerpt="\n".join(diff[:MAX_DIFF_LINES]),
                    source="revert",
                ),
            )

    def _warnings(self, found, details) -> list[FailureWarning]:
        out = []
        for w in found:
            d = details[w.failure_id].model_copy(deep=True)
            d.score = round(float(w.score), 4)
            d.reasons = list(w.reasons)
            out.append(d)
        return out

    def for_search(
        self,
        index,
        embed,
        terms,
        qvec,
        idf,
        retrieved: Sequence[RetrievedItem],
        cfg: GraveyardConfig,
    ):
        views, details = self.views(index, embed)
        if not views:
            return []
        return self._warnings(match_search(terms, qvec, idf, retrieved, views, cfg), details)

    def for_preflight(
        self, index, embed, path, qualname, terms, qvec, idf, retrieved, cfg: GraveyardConfig
    ):
        views, details = self.views(index, embed)
        if not views:
            return []
        return self._warnings(
            match_preflight(path, qualname, terms, qvec, idf, views, cfg, retrieved), details
        )

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


def warning_from_failure(f: FailedAttempt, reasons: list[str] | None = None) -> FailureWarning:
    """The served form of a journal failure (score and reasons filled in by the matcher)."""
    return FailureWarning(
        failure_id=f.id,
        score=0.0,
        reasons=reasons or [],
        targets=[target_label(t) for t in f.targets],
        date=(f.last_seen or "")[:10] or None,
        occurrences=f.occurrences,
        exit_code=f.exit_code,
        command=f.command,
        tried=f.notes or "",
        errors=list(f.signature.errors[:3]),
        failing_tests=list(f.signature.failing[:3]),
        diff_excerpt="\n".join(changed_lines(f.diff)[:MAX_DIFF_LINES]),
        source="journal",
    )
