"""The engine: one loaded generation answering search and preflight.

`Engine.open(store_root)` maps the live generation; `reload()` builds a new `ServeIndex` for a
newer generation and swaps one reference, so a request in flight finishes on the index it
started with. Every result leaves scrubbed by the firewall (`safe.scrub_model`), with the
perplexity check's notes when the configuration enables it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from ..store.config import Config, GraveyardConfig, RetrievalConfig
from ..store.embedder import read_meta
from ..store.errors import GitstrataError, IndexCorrupt, InputError
from ..store.filekind import kind as file_kind
from ..store.generations import Store
from ..store.redact import redactor_for
from ..store.tokenizer import query_terms
from .answers import AnswerCache
from .anticontext import AntiContext
from .graveyard import Intent, RetrievedItem
from .headwatch import HeadWatch
from .index import ServeIndex, SymbolRow
from .memory import MemoryBook, Recalled, is_hotspot_fact, memory_refs
from .models import (
    FailureWarning,
    MemoryRef,
    PastAttempt,
    PreflightReport,
    SearchResponse,
    TestFile,
)
from .paths import repo_relative
from .perplexity import PerplexityCheck
from .preflight import attach_reasons, build_preflight, unknown_path
from .safe import scrub_fields, scrub_items, scrub_model
from .search import Ranked, Searcher, SearchResult
from .targets import LINE_PLACE

# the fields of an answer built and scrubbed per request (the rest is the generation's:
# `_PreflightBase`, `_SearchBase`; the anti-context's part is kept per journal state,
# `Engine._kept`)
_PREFLIGHT_LIVE = ("invariants", "memories")
_SEARCH_LIVE = ("invariants", "memories")
# the head of a ranking the anti-context matches a question against (symbols and commits)
_RETRIEVED_DEPTH = 10
# at most this many more related hits are fetched for symbols written inside the target
_INNER_FETCH = 10


# test files a preflight lists to run after the change
TESTS_LISTED = 5


def _tests_to_run(
    index: ServeIndex, searcher: Searcher, target: SymbolRow, name: str, depth: int
) -> list[TestFile]:
    """The test files to run after changing `target`, as search answers "Which tests cover
    X?" (`Searcher.tests_for`, with the tests whose code names the target); none when the
    target is itself a test."""
    if file_kind(target.path) == "test":
        return []
    co = {r["dst"]: r["co_commits"] for r in index.coupling_files.get(target.path, [])}
    terms = query_terms(f"which tests cover {name}")
    paths = searcher.tests_for(target.path, terms, depth, target.symbol_id)[:TESTS_LISTED]
    return [TestFile(path=p, co_commits=co.get(p, 0)) for p in paths]


def _inner_symbols(index: ServeIndex, target: SymbolRow) -> list[str]:
    """Symbol ids of the target's file written within its lines (its methods, nested classes
    and closures), the target excluded."""
    return [
        r.symbol_id
        for r in index.symbols_by_path.get(target.path, ())
        if r.symbol_id != target.symbol_id
        and target.start_line <= r.start_line
        and r.end_line <= target.end_line
    ]


_M = TypeVar("_M", bound=BaseModel)
_K = TypeVar("_K")


def _fresh(shared: _M) -> _M:
    """A copy of `shared` with lists of its own (the models inside stay shared)."""
    out = shared.model_copy()
    fields = out.__dict__
    for name, value in fields.items():
        if type(value) is list:
            fields[name] = list(value)
    return out


@dataclass(frozen=True, eq=False)
class _PreflightBase:
    """The part of a preflight answer that one generation always gives the same question."""

    report: PreflightReport  # scrubbed; the live fields still empty
    path: str
    qualname: str | None
    retrieved: list[RetrievedItem]
    intent: Intent
    warns: bool  # whether the anti-context is asked (a search-backed target)
    rules: bool  # whether invariants apply (a path of the index, or a found target)
    kept: dict[str, tuple[object, object]] = field(default_factory=dict)  # `Engine._kept`
    # each failure matched against the question (`match_preflight`'s `kept`): after an append,
    # only the new attempt is matched
    matched: dict[int, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class _SearchBase:
    """The part of a search answer that one generation always gives the same question."""

    result: SearchResult  # response scrubbed when `shared`; the live fields still empty
    intent: Intent
    retrieved: list[RetrievedItem]
    shared: bool  # no memory document among the hits: kept and shared between answers
    kept: dict[str, tuple[object, object]] = field(default_factory=dict)  # `Engine._kept`


class Engine:
    def __init__(
        self,
        store_root: Path,
        *,
        repo_root: Path | None = None,
        config: Config | None = None,
        watch_head: bool = True,
    ) -> None:
        self.store = Store(store_root)
        self.repo_root = repo_root
        # `watch_head`: the index is this work tree's own, so a HEAD that moved is worth saying
        self._head = HeadWatch(repo_root) if repo_root is not None and watch_head else None
        self.config = config or Config.load(store_root)
        # the question echoed in an answer is redacted with the repository's own patterns too
        self.redactor = redactor_for(self.config.redaction)
        self._lock = threading.Lock()
        self.anti = AntiContext(
            self.store.root, reapplied_share=self.config.graveyard.reapplied_share
        )
        self._set(ServeIndex(self.store.require_live()))
        self.memory = MemoryBook(self.store.root, repo_root, index_vectors=True)
        self._answers = AnswerCache()
        # when the last preflight or search began: a background pass over the served strings
        # keeps out of the way of requests (`serve/prescrub.py`)
        self.asked_at = 0.0

    def _set(self, index: ServeIndex) -> None:
        if index.has("embedder"):
            # an index another version of gitstrata built fails here, not on its first query:
            # `IndexCorrupt` says to rebuild, and a server rebuilds it (`serve/lifecycle.py`)
            read_meta(index.gen.file("embedder"))
        # index, searcher and perplexity check are swapped together: a request reads one snapshot
        self._state = (
            index,
            Searcher(index.gen, index) if index.has("docmeta") else None,
            PerplexityCheck(index.gen) if self.config.firewall.perplexity else None,
        )

    @property
    def index(self) -> ServeIndex:
        return self._state[0]

    @property
    def perplexity(self) -> PerplexityCheck | None:
        return self._state[2]

    @property
    def searcher(self) -> Searcher | None:
        return self._state[1]

    @classmethod
    def open(
        cls,
        store_root: Path,
        *,
        repo_root: Path | None = None,
        config: Config | None = None,
        watch_head: bool = True,
    ) -> Engine:
        return cls(store_root, repo_root=repo_root, config=config, watch_head=watch_head)

    def index_notes(self, index: ServeIndex) -> list[str]:
        """What answers from `index` cannot know: commits after it, history before a shallow
        clone's boundary. A few `stat` calls; git is read only when HEAD's files changed."""
        notes = []
        indexed = index.manifest.repo_head
        head = self._head.poll() if self._head is not None else None
        if head and head != indexed:
            notes.append(
                f"the index is at {indexed[:10]} but HEAD is {head[:10]}: commits after the "
                "index are not covered (run `gitstrata index`)"
            )
        if index.manifest.shallow:
            oldest = index.manifest.indexed_range.get("history_oldest_time") or "its boundary"
            notes.append(
                f"shallow clone: history is cut at {str(oldest)[:10]}; blame gives the boundary "
                "commit every older line, and older fixes and reverts are unknown"
            )
        return notes

    @property
    def generation(self) -> str:
        return self.index.name

    def reload(self) -> bool:
        """Switch to the live generation if it changed; True when swapped."""
        name = self.store.current_name()
        if name is None or name == self.index.name:
            return False
        fresh = ServeIndex(self.store.require_live())
        with self._lock:
            self._set(fresh)
        return True

    def warm(self) -> None:
        index, searcher, _ = self._state
        index.warm()
        if searcher is not None:
            searcher.warm()
        from . import firewall  # loaded on first use elsewhere: a one-shot process may not need it

        firewall.warm()

    def prescrub(self, stop: threading.Event | None = None) -> int:
        """Pass the strings this generation's answers serve through the firewall now, so a
        question not asked before finds them passed (`serve/prescrub.py`); returns how many.
        A long-running server runs it in the background (`Prescrub`)."""
        from .prescrub import prescrub, served_strings

        return prescrub(served_strings(self), stop, self)

    def search_result(
        self,
        query: str,
        top_k: int = 10,
        *,
        file_path: str | None = None,
        mode: str = "full",
        config: RetrievalConfig | None = None,
        graveyard: GraveyardConfig | None = None,
    ) -> SearchResult:
        self.asked_at = time.monotonic()
        index, searcher, check = self._state
        if searcher is None:
            raise IndexCorrupt(
                f"{index.name}: this index has no documents", hint="run `gitstrata index --rebuild`"
            )
        if not isinstance(query, str):
            raise InputError("the query must be text")
        if not query.strip():
            raise InputError("the query is empty")
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            # a negative count sliced the ranking from its end ("all but the last")
            raise InputError(f"top_k must be a whole number of at least 1, not {top_k!r}")
        path = _filter_path(self.repo_root, file_path) if file_path else None
        if (
            path is not None
            and not any(c in path for c in "*?[")
            and path not in searcher.docs.by_path
        ):
            _unknown_filter(index, path)
        cfg = config or self.config.retrieval
        t0 = time.perf_counter()
        key = ("search", query, top_k, path, mode)
        base = self._answers.get(index, key, cfg)
        if base is None:
            base = self._search_base(index, searcher, query, top_k, path, mode, cfg)
            resp = base.result.response
            if base.shared:
                self._answers.put(index, key, cfg, base)
                resp = _fresh(resp)
                resp.latency_ms = dict(resp.latency_ms)
            else:
                # memory documents are served by the live memories' state, not the index's
                resp.hits = self.memory.filter_hits(resp.hits)
        else:  # the generation's part of an answer given before
            resp = _fresh(base.result.response)
            ms = round((time.perf_counter() - t0) * 1000, 3)
            resp.latency_ms = {"cached": ms, "total": ms}
        if mode == "full":
            t0 = time.perf_counter()
            gcfg = graveyard or self.config.graveyard
            embed = searcher.embed_query

            def anti() -> list[FailureWarning]:
                return scrub_items(
                    self.anti.for_search(
                        index, embed, base.intent, searcher.idf, base.retrieved, gcfg
                    )
                )

            # a graveyard setting of this call's own is not the one answers are kept under
            kept = base.kept if graveyard is None else {}
            resp.warnings = list(self._kept(kept, index, embed, anti))
            if path is not None and not any(c in path for c in "*?["):
                resp.invariants = self.anti.rules(path)
            resp.latency_ms["anticontext"] = round((time.perf_counter() - t0) * 1000, 3)
            resp.latency_ms["total"] = round(
                resp.latency_ms.get("total", 0) + resp.latency_ms["anticontext"], 3
            )
            resp.memories = self._memories(lambda: self._recalled_for(query, 3))
        if base.shared:
            scrub_fields(resp, _SEARCH_LIVE, self.redactor)
        else:
            resp = scrub_model(resp, self.redactor)
        resp.index_notes = self.index_notes(index)
        if check is not None and mode == "full":
            # the repository's own text is what the model was trained on; text written from
            # outside (failed attempts recorded by agents and tools) is what it checks
            resp.firewall = check.notes(
                [
                    (f"failed attempt {w.failure_id}", f"{w.tried}\n{w.diff_excerpt}")
                    for w in resp.warnings
                ]
            )
        return replace(base.result, response=resp)

    def _search_base(
        self,
        index: ServeIndex,
        searcher: Searcher,
        query: str,
        top_k: int,
        path: str | None,
        mode: str,
        cfg: RetrievalConfig,
    ) -> _SearchBase:
        """What a search answer takes from the generation alone: the ranking and its hits (with
        their commits' reasons), the intent and retrieved items of the anti-context; scrubbed
        when it can be shared (no memory document among the hits, whose text is the live
        memory's)."""
        result = searcher.search(query, top_k, cfg, file_path=path, mode=mode)
        attach_reasons(index, result.response.hits, cfg.reason_chars)
        intent, retrieved = Intent(), []
        if mode == "full":
            qvec = result.query_vec if result.query_vec is not None else searcher.embed_query(query)
            intent = Intent.of(query, result.terms, qvec)  # tokenised once, by the search
            retrieved = self._retrieved(index, result.ranked)
        shared = not any(h.kind == "memory" for h in result.response.hits)
        if shared:
            result.response = scrub_model(result.response, self.redactor)
        return _SearchBase(result, intent, retrieved, shared)

    def _lite(self, cfg: RetrievalConfig) -> RetrievalConfig:
        cached = getattr(self, "_lite_cfg", None)
        if cached is None or cached[0] is not cfg:
            lite = cfg.model_copy(
                update={
                    "reranker": False,
                    "graph_path": False,
                    "w_vec": 0.0,
                    "attach_commits": 0,
                    "path_depth": 20,
                }
            )
            self._lite_cfg = cached = (cfg, lite)
        return cached[1]

    def _retrieved(
        self, index: ServeIndex, ranked: list[Ranked], depth: int = _RETRIEVED_DEPTH
    ) -> list[RetrievedItem]:
        head = [x for x in ranked if x.kind in ("symbol", "commit")][:depth]
        top = max((x.score for x in head), default=0.0) or 1.0
        out = []
        for rank, x in enumerate(head, start=1):
            touched: tuple = ()
            bulk = False
            if x.kind == "commit" and x.sha:
                touched = index.symbols_touched(x.sha)
                bulk = bool(index.commit_field(x.sha, "bulk"))
            out.append(
                RetrievedItem(
                    kind=x.kind,
                    rank=rank,
                    score=max(0.0, x.score) / top,
                    path=x.path,
                    qualname=None if x.qualname == "<module>" else x.qualname,
                    intent=x.intent,
                    symbols_touched=touched,
                    bulk=bulk,
                    id=(x.sha or "")[:10] or None,
                    sha=x.sha or None,
                )
            )
        return out

    def search(
        self, query: str, top_k: int = 10, *, file_path: str | None = None, mode: str = "full"
    ) -> SearchResponse:
        return self.search_result(query, top_k, file_path=file_path, mode=mode).response

    def preflight(
        self, file_path: str, symbol: str | None = None, intended_change: str | None = None
    ) -> PreflightReport:
        t0 = time.perf_counter()
        path = repo_relative(self.repo_root, file_path)
        for name, value in (("symbol", symbol), ("intended_change", intended_change)):
            if value is not None and not isinstance(value, str):
                raise InputError(f"{name} must be text")
        return self.preflight_checked(path, symbol, intended_change, started=t0)

    def preflight_checked(
        self,
        path: str,
        symbol: str | None = None,
        intended_change: str | None = None,
        *,
        started: float | None = None,
    ) -> PreflightReport:
        """`preflight` of a path this request already passed through `repo_relative` against
        this engine's work tree (the MCP tool checks it before waiting for the engine)."""
        t0 = time.perf_counter() if started is None else started
        self.asked_at = time.monotonic()
        index, searcher, check = self._state  # one generation for the whole request
        path, symbol = _line_reference(index, path, symbol)
        cfg = self.config.retrieval
        base = self._answers.get(index, ("preflight", path, symbol, intended_change), cfg)
        if base is None:
            base = self._preflight_base(index, searcher, path, symbol, intended_change, cfg)
            self._answers.put(index, ("preflight", path, symbol, intended_change), cfg, base)
        # the generation's part, already scrubbed, shared with every answer to the same question;
        # the lists are the report's own, so a caller may edit them
        report = _fresh(base.report)
        path, qualname = base.path, base.qualname
        anti_part: tuple[list[FailureWarning], list[PastAttempt]] | None = None
        if base.warns:
            assert searcher is not None
            gcfg = self.config.graveyard
            embed = searcher.embed_query

            def anti() -> tuple[list[FailureWarning], list[PastAttempt]]:
                warnings = self.anti.for_preflight(
                    index, embed, path, qualname, base.intent, searcher.idf, base.retrieved, gcfg,
                    base.matched,
                )  # fmt: skip
                past = self.anti.past_attempts(
                    index, embed, path, qualname, {w.failure_id for w in warnings}, gcfg
                )
                return scrub_items(warnings), scrub_items(past)

            anti_part = self._kept(base.kept, index, embed, anti)
            warnings, past = anti_part
            report.warnings, report.past_attempts = list(warnings), list(past)
        if base.rules:
            report.invariants = self.anti.rules(path, qualname)
        report.memories = self._memories(
            lambda: self.memory.for_target(
                path, qualname, intended_change, partners=[c.path for c in report.coupling[:5]]
            )
        )
        # what changes between requests of one generation: the journal, the invariants, the memories
        scrub_fields(report, _PREFLIGHT_LIVE, self.redactor)
        report.index_notes = self.index_notes(index)
        if check is not None:
            report.firewall = check.notes(
                [
                    (f"failed attempt {w.failure_id}", f"{w.tried}\n{w.diff_excerpt}")
                    for w in report.warnings
                ]
            )
        # every field but `PreflightReport.LIVE_FIELDS` (built above) and the latency is as
        # `base` and `anti_part` gave it: a caller may key an answer on these objects
        report._origin = (base, anti_part)
        report.latency_ms = round((time.perf_counter() - t0) * 1000, 3)
        return report

    def _preflight_base(
        self,
        index: ServeIndex,
        searcher: Searcher | None,
        path: str,
        symbol: str | None,
        intended_change: str | None,
        cfg: RetrievalConfig,
    ) -> _PreflightBase:
        """What a preflight answer takes from the generation alone (the target, its ownership,
        history and coupling, related hits, the intent and retrieved items the anti-context
        matches against), scrubbed by the firewall."""
        report, target = build_preflight(index, path, symbol, intended_change, cfg)
        qualname = None if target is None or target.qualname == "<module>" else target.qualname
        retrieved: list[RetrievedItem] = []
        intent = Intent()
        warns = False
        if searcher is not None and target is not None:
            query = " ".join(x for x in (intended_change, qualname or path) if x)
            # related memory is context, not the answer: BM25 with recency and the slot budget,
            # no vectors / graph / reranker, so preflight stays around a millisecond
            # the target and what is written inside it (a class's methods, a function's
            # closures) are the answer, not context. One document per symbol, so they are at
            # most that many of the hits: that many more than the limit (at most
            # `_INNER_FETCH` more) is enough, and every hit built costs its text and evidence
            own = {target.symbol_id, *(_inner_symbols(index, target) if qualname else ())}
            fetch = cfg.related_limit + min(len(own), 1 + _INNER_FETCH)
            result = searcher.search(query, fetch, self._lite(cfg))
            # the anti-context reads the same head of the ranking whatever was fetched (the
            # ranking does not depend on the number of hits)
            retrieved = self._retrieved(index, result.ranked[:_RETRIEVED_DEPTH])
            report.related = [h for h in result.response.hits if h.key not in own][
                : cfg.related_limit
            ]
            for i, h in enumerate(report.related, start=1):
                h.rank = i
            report.tests = _tests_to_run(index, searcher, target, qualname or path, cfg.path_depth)
            if report.found or target is not None:
                warns = True
                if intended_change:
                    intent = Intent.of(
                        intended_change,
                        query_terms(intended_change),
                        searcher.embed_query(intended_change),
                    )
        rules = index.symbols_by_path.get(path) is not None or report.found
        report.generation = index.name
        boundary = index.manifest.indexed_range.get("history_boundary") or ()
        for o in report.ownership:
            o.boundary = o.commit.sha in boundary
        report = scrub_model(report, self.redactor)
        return _PreflightBase(report, path, qualname, retrieved, intent, warns, rules)

    def _kept(
        self, kept: dict[str, tuple[object, _K]], index: ServeIndex, embed, build: Callable[[], _K]
    ) -> _K:
        """`build()`, the anti-context's part of an answer (scrubbed), kept in `kept` (a part of
        an answer kept for the generation) while the failures the anti-context knows stay the
        same object: the same question asked again, with the journal's failures unchanged,
        then costs a lookup. Shared like the rest of that part: callers get lists of their own."""
        known = self.anti.state(index, embed)
        got = kept.get("anti")
        if got is None or got[0] is not known:
            got = (known, build())
            kept["anti"] = got
        return got[1]

    def _recalled_for(self, query: str, limit: int) -> list[Recalled]:
        """The memories a search shows beside its hits: those the query recalls and is close to
        (`close_to`), but not the repository's hotspots (a list of file names that many
        questions match by a name)."""
        got = self.memory.recall(query, limit + 1, reinforce=False)
        got = [r for r in got if not is_hotspot_fact(r.memory)][:limit]
        close = self.memory.close_to(query, [r.memory for r in got])
        return [r for r, ok in zip(got, close, strict=True) if ok]

    def _memories(self, recall: Callable[[], list[Recalled]]) -> list[MemoryRef]:
        # a memory is context: a bad journal line or query never fails the answer around it
        try:
            return memory_refs(recall())
        except GitstrataError:
            return []


def _line_reference(index: ServeIndex, path: str, symbol: str | None) -> tuple[str, str | None]:
    """`path:LINE` of a file at HEAD read as that file and the symbol spanning the line (`@LINE`,
    unless a symbol is named); any other path as given."""
    m = LINE_PLACE.fullmatch(path)
    if m is None or index.at_head(path) or not index.at_head(m.group("path")):
        return path, symbol
    if symbol is None or not symbol.strip():
        symbol = f"@{m.group('line')}"
    return m.group("path"), symbol


def _unknown_filter(index: ServeIndex, path: str) -> None:
    """Refuse a file filter that names no file of the index (it would match nothing), saying
    where the file went or what to filter on instead; a file of the index without documents
    of its own (co-change only) is filtered as asked."""
    if index.at_head(path):
        return
    message, nearest = unknown_path(index, path)
    folder = path.rstrip("/")
    if any(p.startswith(folder + "/") for p in nearest):
        hint = f"filter on the files under it with {folder}/**"
    else:
        hint = f"nearest: {', '.join(nearest[:3])}" if nearest else "name one file or a glob"
    raise InputError(f"file filter: {message}", hint=hint)


def _filter_path(repo_root: Path | None, file_path: str) -> str:
    """A file filter: a repo path, or a glob such as `mobile/**` (checked the same way)."""
    if any(c in file_path for c in "*?["):
        return repo_relative(None, file_path)
    return repo_relative(repo_root, file_path)
