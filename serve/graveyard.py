"""When a failed attempt is relevant: the graveyard's matching rule, as a pure function.

A failure surfaces when structural + textual >= `semantic_threshold` (0.40), where

- structural is the strongest anchor of the failure to the code at hand:
  preflight on its own symbol 0.75, on its file 0.5 (also when either side names no symbol),
  on another function of its file 0.25; a failure targeting a code hit retrieved in the top
  `context_top` (3) 0.3; a *direct trigger* 0.40: a retrieved bugfix / security / revert commit
  ranked #1 or scoring above 0.65 anchors every function it modified; any other retrieved commit
  anchors its functions at 0.3 only through the *commit-relevance gate*: its score is at least
  0.9 x the best score in the top 3, it is not bulk (more than 8 symbols), and the failure's
  function is also among the top-5 code hits;
- textual = 0.6 x max(cosine(query, failure), IDF-weighted share of the query's terms found in
  the failure's text).

Anchoring is symbol-level: a target with a qualname is only anchored by that exact symbol (or,
in preflight, one nested in it or enclosing it). A target without one (a change outside any
named symbol) falls back to file-level matching: any hit or touched symbol in its file anchors it.

Every warning carries human-readable reasons: which anchor and how much text matched. Nothing
here reads files or indexes; callers pass retrieved items and failure views.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..store.attempts import Target, target_label
from ..store.config import GraveyardConfig

CODE_KINDS = frozenset({"symbol", "file", "code", "module"})
_EPS = 1e-9


@dataclass(frozen=True)
class RetrievedItem:
    """One result of a search: a code hit or a commit (other kinds are ignored)."""

    kind: str  # "symbol" | "file" | "commit" | ...
    rank: int  # 1-based
    score: float
    path: str | None = None
    qualname: str | None = None
    intent: str | None = None  # commits: bugfix, security, revert, feature, ...
    symbols_touched: tuple[Target, ...] = ()  # commits: what they modified
    bulk: bool = False
    id: str | None = None  # commit sha or document id, for reasons


@dataclass
class FailureView:
    """What matching needs of a failed attempt."""

    id: int | str
    targets: tuple[Target, ...]
    text_terms: Collection[str] = field(default_factory=frozenset)  # a set or a Counter
    vector: np.ndarray | None = None


@dataclass(frozen=True)
class Warning:
    failure_id: int | str
    score: float
    reasons: tuple[str, ...]
    structural: float = 0.0
    textual: float = 0.0


def _covered(target: Target, symbols: Iterable[Target]) -> Target | None:
    """The symbol of `symbols` that anchors `target` (file-level targets match any in the file)."""
    path, qualname = target
    for sym in symbols:
        if sym[0] == path and (qualname is None or sym[1] == qualname):
            return sym
    return None


def textual_score(
    query_terms: Sequence[str],
    query_vec: np.ndarray | None,
    idf: Callable[[str], float],
    failure: FailureView,
    cfg: GraveyardConfig,
) -> tuple[float, str | None]:
    """textual_weight x max(cosine, IDF coverage), and the reason it is not zero."""
    terms = list(dict.fromkeys(query_terms))
    coverage = 0.0
    if terms:
        weights = [max(float(idf(t)), 0.0) for t in terms]
        total = sum(weights)
        if total > 0:
            hit = sum(w for t, w in zip(terms, weights, strict=True) if t in failure.text_terms)
            coverage = hit / total
    cosine = 0.0
    if query_vec is not None and failure.vector is not None:
        q = np.asarray(query_vec, dtype=np.float64)
        f = np.asarray(failure.vector, dtype=np.float64)
        denom = float(np.linalg.norm(q) * np.linalg.norm(f))
        if denom > 0:
            cosine = max(0.0, float(q @ f) / denom)
    best = max(coverage, cosine)
    if best <= 0:
        return 0.0, None
    reason = (
        f"term overlap {coverage:.0%}"
        if coverage >= cosine
        else f"semantic similarity {cosine:.2f}"
    )
    return cfg.textual_weight * best, reason


def _retrieval_anchors(
    failure: FailureView, retrieved: Sequence[RetrievedItem], cfg: GraveyardConfig
) -> list[tuple[float, str]]:
    """Anchors from a result list: retrieved code, triggering commits, gated commits."""
    code = sorted((r for r in retrieved if r.kind in CODE_KINDS and r.path), key=lambda r: r.rank)
    top = [r for r in code if r.rank <= cfg.context_top]
    gate_hits = [(r.path or "", r.qualname) for r in code if r.rank <= cfg.gate_code_hits]
    head = [r.score for r in retrieved if r.rank <= cfg.context_top]
    best_head = max(head) if head else 0.0
    anchors: list[tuple[float, str]] = []
    for target in failure.targets:
        for r in top:
            if _covered(target, [(r.path or "", r.qualname)]) is not None:
                anchors.append(
                    (
                        cfg.context_weight,
                        f"targets {target_label(target)}, retrieved at rank {r.rank}",
                    )
                )
                break
        for c in retrieved:
            if c.kind != "commit":
                continue
            touched = _covered(target, c.symbols_touched)
            if touched is None:
                continue
            name = f"{c.intent or 'commit'} commit {c.id or '?'}"
            triggers = c.intent in cfg.trigger_intents and (
                (cfg.commit_trigger_rank1 and c.rank == 1) or c.score > cfg.commit_trigger_score
            )
            if triggers:
                anchors.append(
                    (
                        cfg.trigger_weight,
                        f"{name} (rank {c.rank}, score {c.score:.2f}) modified {target_label(touched)}",
                    )
                )
            elif not cfg.commit_gating:
                if c.rank <= cfg.context_top:
                    anchors.append(
                        (
                            cfg.context_weight,
                            f"{name} at rank {c.rank} modified {target_label(touched)}",
                        )
                    )
            elif (
                c.score >= cfg.commit_gate * best_head - _EPS
                and not (c.bulk or len(c.symbols_touched) > cfg.bulk_symbols)
                and _covered(target, gate_hits) is not None
            ):
                anchors.append(
                    (
                        cfg.context_weight,
                        f"{name} (rank {c.rank}) passed the relevance gate and modified "
                        f"{target_label(touched)}, a top-{cfg.gate_code_hits} code hit",
                    )
                )
    return anchors


def _decide(
    failure: FailureView,
    anchors: list[tuple[float, str]],
    textual: tuple[float, str | None],
    cfg: GraveyardConfig,
) -> Warning | None:
    structural, reason = max(anchors, key=lambda a: a[0]) if anchors else (0.0, None)
    score = structural + textual[0]
    if score < cfg.semantic_threshold - _EPS:
        return None
    reasons = tuple(r for r in (reason, textual[1]) if r)
    return Warning(failure.id, round(score, 6), reasons, structural, round(textual[0], 6))


def _ranked(warnings: Iterable[Warning | None]) -> list[Warning]:
    return sorted(
        (w for w in warnings if w is not None), key=lambda w: (-w.score, str(w.failure_id))
    )


def match_search(
    query_terms: Sequence[str],
    query_vec: np.ndarray | None,
    idf: Callable[[str], float],
    retrieved: Sequence[RetrievedItem],
    failures: Iterable[FailureView],
    cfg: GraveyardConfig | None = None,
) -> list[Warning]:
    """Failed attempts relevant to a search and its results, strongest first."""
    cfg = cfg or GraveyardConfig()
    return _ranked(
        _decide(
            f,
            _retrieval_anchors(f, retrieved, cfg),
            textual_score(query_terms, query_vec, idf, f, cfg),
            cfg,
        )
        for f in failures
    )


def _nested(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def match_preflight(
    path: str,
    qualname: str | None,
    intended_change_terms: Sequence[str],
    intended_vec: np.ndarray | None,
    idf: Callable[[str], float],
    failures: Iterable[FailureView],
    cfg: GraveyardConfig | None = None,
    retrieved: Sequence[RetrievedItem] = (),
) -> list[Warning]:
    """Failed attempts relevant to changing `path` (`qualname`), strongest first."""
    cfg = cfg or GraveyardConfig()
    out = []
    for f in failures:
        anchors: list[tuple[float, str]] = []
        for target in f.targets:
            t_path, t_qual = target
            if t_path != path:
                continue
            if qualname is None or t_qual is None:
                anchors.append((cfg.same_file, f"same file {path}"))
            elif _nested(t_qual, qualname):
                anchors.append((cfg.same_symbol, f"same symbol {target_label(target)}"))
            else:
                anchors.append(
                    (
                        cfg.sibling_weight,
                        f"sibling {target_label(target)} in the same file as {qualname}",
                    )
                )
        anchors += _retrieval_anchors(f, retrieved, cfg)
        textual = textual_score(intended_change_terms, intended_vec, idf, f, cfg)
        out.append(_decide(f, anchors, textual, cfg))
    return _ranked(out)
