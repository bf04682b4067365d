"""Tri-path retrieval: BM25 + two-stage vectors + co-change graph, fused and reranked.

    route  -> BM25 (Tantivy) and vectors (1-bit Hamming -> int8 rescoring) in parallel rankings
           -> preliminary RRF seeds one-hop spreading activation over the co-change graph
           -> time-decayed RRF of the three rankings -> interaction reranker on the top N
           -> named anchor files step back -> the route's plain list fused back in
           -> commit slot budget -> named-symbol pinning
           -> hits with evidence and "why" commits

`Searcher.search` runs these as named phases (`_route`, `_bm25_path`, `_vector_path`,
`_graph_path`, `_fuse`, `_rerank`, `_arrange`, `_assemble`) over one `_Run`, the query's state,
and reports each phase's latency.

Modes run the baselines through the same code: `bm25` (BM25 only), `dense` (exact float32
cosine only), `hybrid` (plain RRF of BM25 and exact float32), `full` (everything above).
"""

from __future__ import annotations

import math
import re
import time
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from itertools import zip_longest
from typing import Any

import numpy as np

from ..store.config import RetrievalConfig
from ..store.embedder import Embedder
from ..store.errors import InputError
from ..store.filekind import is_test_to_run, tested_name
from ..store.filekind import kind as file_kind
from ..store.fulltext import FullText
from ..store.generations import Generation
from ..store.globs import compile_glob
from ..store.ids import MODULE_SYMBOL
from ..store.regexcache import compile_pattern
from ..store.tokenizer import query_terms
from ..store.vocabulary import LOAD_BEARING
from .docs import DocTable
from .fusion import (
    fuse_plain,
    pin,
    rank_by,
    recency_array,
    slot_budget,
    spread_activation,
    td_rrf,
)
from .graph import CoGraph
from .index import ServeIndex, iso_date
from .models import CommitRef, Evidence, Hit, SearchResponse
from .rerank import WEIGHTS, Candidate, rerank
from .router import (
    HEX_WORD,
    Route,
    asked_areas,
    asks_about_removal,
    asks_about_revert,
    asks_for_links,
    asks_for_tests,
    asks_where_it_went,
    classify,
    history_end,
    thing_names,
)
from .targets import LINE_PLACE, match_symbols
from .vectors import VectorIndex

MODES = ("full", "bm25", "dense", "hybrid")
# co-change answers share few words with the question: co-change activation counts most
COUPLED_RERANK = {**WEIGHTS, "graph": 1.5}
# a named file's functions seed the co-change graph at this share of the file's own weight
ANCHOR_SYMBOL_SEED = 0.5
# routes whose answer is a fix and the code it fixed, and how deep a fix may sit to count
FIX_CODE_CLASSES = frozenset({"symptom", "causal"})
FIX_CODE_DEPTH = 2
HIT_KINDS = frozenset({"symbol", "commit"})  # failures and invariants surface as warnings


@dataclass(slots=True)
class Ev:
    """Evidence while ranking: a plain record, turned into the `Evidence` model for hits only."""

    bm25_rank: int | None = None
    bm25_score: float | None = None
    vec_rank: int | None = None
    hamming: int | None = None
    int8_cos: float | None = None
    graph_rank: int | None = None
    graph_activation: float | None = None
    rrf: float = 0.0
    recency: float = 1.0
    rerank: float | None = None

    def model(self) -> Evidence:
        """The public model, scores rounded (ranking used the exact values)."""
        return Evidence.model_construct(
            bm25_rank=self.bm25_rank,
            bm25_score=_r(self.bm25_score, 4),
            vec_rank=self.vec_rank,
            hamming=self.hamming,
            int8_cos=_r(self.int8_cos, 4),
            graph_rank=self.graph_rank,
            graph_activation=_r(self.graph_activation, 4),
            rrf=round(self.rrf, 6),
            recency=round(self.recency, 4),
            rerank=_r(self.rerank, 4),
        )


def _r(x: float | None, digits: int) -> float | None:
    return None if x is None else round(float(x), digits)


@dataclass
class Ranked:
    """One fused result with what the graveyard matcher and the benchmark need."""

    row: int
    score: float
    kind: str
    path: str | None
    qualname: str | None
    sha: str | None
    intent: str | None
    evidence: Ev = field(default_factory=Ev)
    pinned: bool = False


@dataclass
class SearchResult:
    response: SearchResponse
    ranked: list[Ranked]  # the full final order (all kinds), best first
    route: Route
    query_vec: np.ndarray | None
    anchors: frozenset[str] = frozenset()  # files a co-change question is about
    terms: list[str] = field(default_factory=list)  # the query's terms, as BM25 searched them


@dataclass(eq=False)
class _Run:
    """One query on its way through the phases: what the route decided, each path's ranking and
    the evidence gathered so far. Lives for one `Searcher.search` call."""

    query: str
    cfg: RetrievalConfig
    mode: str
    file_path: str | None
    route: Route
    weights: dict[str, float]
    terms: list[str]
    depth: int
    keep: Callable[[int], bool]  # the file filter and the kinds a full search may return
    rankings: dict[str, list[int]] = field(default_factory=dict)
    evidence: dict[int, Ev] = field(default_factory=dict)
    activation: dict[int, float] = field(default_factory=dict)  # graph path, per document
    anchors: set[str] = field(default_factory=set)  # files a co-change question names
    qvec: np.ndarray | None = None
    final_score: dict[int, float] = field(default_factory=dict)
    pinned: int | None = None  # the symbol the question names, pinned
    pins: set[int] = field(default_factory=set)  # the places and commits it names, pinned
    route_order: list[int] | None = None  # the route's order before the plain list joined it
    tests: bool = False  # the question asks for tests (`router.asks_for_tests`): test code only
    # it asks for callers or callees: (`symbol_links.kind`, the words naming the function)
    links: tuple[str, str] | None = None

    def ev(self, row: int) -> Ev:
        e = self.evidence.get(row)
        if e is None:
            e = self.evidence[row] = Ev()
        return e


CALLEES_TEXT = 1 << 16  # how much of a function's document "what does X call" reads

# "which tests cover X": how many test files of each list are fused, and the reciprocal rank's
# offset (both lists are short, so the first places count most)
TESTS_DEPTH = 20
TESTS_RRF_K = 4
TESTS_PER_COMMIT = 3  # a commit hit of BM25 stands for its first files


def _ahead(run: _Run, head: list[int], ranked: list[int], at: int = 0) -> list[int]:
    """`ranked` without `head`, then `head` put at position `at` of it, each with evidence and
    a final score (a route may bring a document no path ranked)."""
    for row in head:
        run.ev(row)
        run.final_score.setdefault(row, 0.0)
    chosen = set(head)
    rest = [r for r in ranked if r not in chosen]
    return rest[:at] + head + rest[at:]


# file names that say where code sits, not what it does: no test is named after them
_GENERIC_STEMS = frozenset(("index", "main", "mod", "lib", "__init__", "init", "src", "app"))


def _is_test(path: str | None) -> bool:
    """A test a runner collects (`filekind.is_test_to_run`): not a fixture or a helper."""
    return path is not None and is_test_to_run(path)


class Searcher:
    def __init__(self, gen: Generation, index: ServeIndex) -> None:
        self.gen = gen
        self.index = index
        self.docs = DocTable(gen)
        self._why_keys: dict[str, tuple[list[str], dict[str, tuple[bool, float]]]] = {}
        self._why_sorted: dict[str, tuple[list[str], dict[str, int]]] = {}
        self._why_all: dict[str, list[str]] | None = None  # every symbol's, made by `warm`
        self.t_now = float(self.docs.time.max()) if self.docs.n else 0.0

    @cached_property
    def fulltext(self) -> FullText:
        return FullText.open(self.gen.file("fulltext"))

    @cached_property
    def embedder(self) -> Embedder:
        # the state's large arrays come back as plain views of mapped pages (`store/lsa.py`)
        gen = self.gen  # one per generation: the memory book's recall embeds with it too
        return gen.derived("embedder", lambda: Embedder.load(gen.file("embedder")))

    def embed_query(self, text: str) -> np.ndarray:
        """The query's served vector, read-only; the generation's embedder keeps recent texts'
        (search, intent, anti-context and the memory book's recall embed the same texts)."""
        return self.embedder.embed_query(text)

    @cached_property
    def vectors(self) -> VectorIndex:
        return VectorIndex.open(self.gen.path, embedder=self.embedder)

    @cached_property
    def graph(self) -> CoGraph | None:
        return CoGraph(self.gen) if self.gen.has("graph") and self.gen.has("graph_nodes") else None

    @cached_property
    def f32(self) -> np.ndarray:
        """Exact vectors with unit rows, for the baselines and the `exact_vectors` ablation: the
        float16 vectors, full width, of an index that kept them (`embedding.float_vectors`),
        else the served int8 vectors dequantised (the served width)."""
        if self.gen.has("vectors_f32"):
            t = self.gen.table("vectors_f32", columns=["vector"])
            if t.num_rows and t.num_rows == self.vectors.n:
                col = t.column("vector").combine_chunks()
                dim = col.type.list_size
                flat = col.values.to_numpy(zero_copy_only=False)
                m = flat.reshape(len(col), dim).astype(np.float32)
                return _unit_rows(m)
        mapped = self.vectors.mapped
        return _unit_rows(mapped.codes.astype(np.float32) * mapped.scales[:, None])

    def warm(self) -> None:
        self.docs.warm()
        _ = self.fulltext, self.embedder, self.graph
        self.vectors.warm()
        if self.graph is not None:
            _ = self.graph.node_of, self._file_default
        self._why_all = self.index.symbol_commit_orders()

    # ------------------------------------------------------------------ helpers

    @cached_property
    def _idf_cache(self) -> dict[str, float]:
        return {}

    def idf(self, term: str) -> float:
        """BM25's idf of a term over the title and body fields (cached: the index is immutable)."""
        cache = self._idf_cache
        got = cache.get(term)
        if got is None:
            n = max(self.fulltext.num_docs, 1)
            df = self.fulltext.doc_freq("body", term) + self.fulltext.doc_freq("title", term)
            got = cache[term] = math.log(1 + (n - df + 0.5) / (df + 0.5))
            if len(cache) > 100_000:
                cache.clear()
        return got

    def _concerns(self, row: int, path: str) -> bool:
        if any(c in path for c in "*?["):
            rx = compile_glob(path)
            return any(rx.match(p) for p in self.docs.paths_of(row))
        return self.docs.path[row] == path or path in self.docs.paths_of(row)

    def _anchor_files(self, query: str, prelim: list[int]) -> tuple[dict[str, float], bool]:
        """Files a co-change question is about, with a seed weight each, and whether the query
        named them. Named paths or file names win; otherwise the files of the best three
        preliminary code results, weighted by rank (one guess alone is too brittle)."""
        named: dict[str, float] = {}
        by_name: dict[str, float] = {}
        lowered = query.lower()
        for path in self.docs.by_path:
            base = path.rsplit("/", 1)[-1].lower()
            if path.lower() in lowered:
                named[path] = 1.0
            elif len(base) > 4 and "." in base and base in lowered:
                by_name[path] = 1.0
        # a path spelled out is that file, not every file of its name (`src/a/mod.rs`)
        if named or by_name:
            return named or by_name, True
        guessed: dict[str, float] = {}
        for row in prelim:
            p = self.docs.path[row]
            if p and self.docs.is_code(row) and p not in guessed:
                guessed[p] = (1.0, 0.6, 0.4)[len(guessed)]
                if len(guessed) == 3:
                    break
        return guessed, False

    def _in_asked_areas(self, act: dict[int, float], areas: tuple[str, ...]) -> dict[int, float]:
        """Activation of files in the part of the repository a co-change question asks for
        (`router.asked_areas`: a folder or file name starting with one of its words) lifted above
        every other partner's, each part keeping its own order: "which web files" lists the web
        partners first, however strongly the others change with the file."""
        graph = self.graph
        if not areas or graph is None or not act:
            return act
        lift = max(act.values())
        out = {}
        for node, a in act.items():
            key = graph.keys[node]
            path = key if graph.kinds[node] == "file" else self._node_path(node)
            parts = [p for p in _PATH_PARTS.split((path or "").lower()) if p]
            hit = any(p.startswith(w) for p in parts for w in areas)
            out[node] = a + lift if hit else a
        return out

    def _node_path(self, node: int) -> str | None:
        graph = self.graph
        assert graph is not None
        row = self.docs.by_symbol_id.get(graph.keys[node])
        return self.docs.path[row] if row is not None else None

    def _nodes_of(self, row: int) -> list[int]:
        g = self.graph
        if g is None:
            return []
        out = []
        sid = self.docs.symbol_id[row]
        if sid is not None and sid in g.node_of:
            out.append(g.node_of[sid])
        for p in self.docs.paths_of(row)[:10]:
            if p in g.node_of:
                out.append(g.node_of[p])
        return out

    def _file_seeds(self, files: dict[str, float]) -> dict[int, float]:
        """Graph seeds for files, each with its weight: the file's node and, at
        `ANCHOR_SYMBOL_SEED` of it, its functions' nodes (co-change answers are functions)."""
        graph = self.graph
        seeds: dict[int, float] = {}
        if graph is None:
            return seeds
        for path, weight in files.items():
            file_node = graph.node_of.get(path)
            if file_node is not None:
                seeds[file_node] = max(seeds.get(file_node, 0.0), weight)
            for node in self._symbol_nodes.get(path, ()):
                seeds[node] = max(seeds.get(node, 0.0), ANCHOR_SYMBOL_SEED * weight)
        return seeds

    @cached_property
    def _symbol_nodes(self) -> dict[str, list[int]]:
        """path -> the graph's symbol nodes in that file (once per generation)."""
        g = self.graph
        out: dict[str, list[int]] = {}
        if g is None:
            return out
        for node, (kind, key) in enumerate(zip(g.kinds, g.keys, strict=True)):
            row = self.docs.by_symbol_id.get(key) if kind == "symbol" else None
            path = self.docs.path[row] if row is not None else None
            if path is not None:
                out.setdefault(path, []).append(node)
        return out

    @cached_property
    def _file_default(self) -> dict[str, int]:
        """path -> the file's code document that ranks first without a score: its first
        symbol, the module remainder only when there is nothing else (once per generation)."""
        docs = self.docs
        out: dict[str, int] = {}
        for path, rows in docs.by_path.items():
            code = [r for r in rows if docs.is_code(r)]
            if code:
                out[path] = max(code, key=lambda r: (docs.qualname[r] != "<module>", -r))
        return out

    def _scored_by_path(self, scores: dict[int, float]) -> dict[str, list[int]]:
        docs = self.docs
        out: dict[str, list[int]] = {}
        for r in scores:
            path = docs.path[r]
            if path is not None and docs.is_code(r):
                out.setdefault(path, []).append(r)
        return out

    def _doc_of_node(
        self, node: int, scores: dict[int, float], scored: dict[str, list[int]]
    ) -> int | None:
        g = self.graph
        assert g is not None
        key = g.keys[node]
        if g.kinds[node] == "symbol":
            return self.docs.by_symbol_id.get(key)
        default = self._file_default.get(key)
        if default is None:
            return None
        others = scored.get(key)
        if not others:  # most activated files have no scored document yet
            return default
        # the file's best-scoring document so far, else its first symbol (module remainder last);
        # scores are positive, so no unscored document beats `default`
        return max(
            [default, *others],
            key=lambda r: (scores.get(r, 0.0), self.docs.qualname[r] != "<module>", -r),
        )

    def _dense(self, query: str, depth: int) -> tuple[list[int], dict[int, float]]:
        exact = self.f32
        if exact.shape[1] == self.embedder.full_dim:
            q = self.embedder.embed_full([query])[0]
        else:  # the served vectors: the query's served vector
            q = self.embed_query(query)
        sims = exact @ q
        k = min(depth, len(sims))
        if k == 0:
            return [], {}
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.lexsort((top, -sims[top]))]
        return top.tolist(), {int(r): float(sims[r]) for r in top}

    # ------------------------------------------------------------------ search

    def search(
        self,
        query: str,
        top_k: int,
        cfg: RetrievalConfig,
        *,
        file_path: str | None = None,
        mode: str = "full",
        kinds: frozenset[str] | None = HIT_KINDS,
    ) -> SearchResult:
        if mode not in MODES:
            raise InputError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
        lat: dict[str, float] = {}
        t = time.perf_counter()
        run = self._route(query, cfg, mode, file_path, kinds)
        lat["route"] = _ms(t)
        t = time.perf_counter()
        self._bm25_path(run)
        lat["bm25"] = _ms(t)
        t = time.perf_counter()
        self._vector_path(run)
        lat["vectors"] = _ms(t)
        t = time.perf_counter()
        self._graph_path(run)
        lat["graph"] = _ms(t)
        t = time.perf_counter()
        fused, ranked = self._fuse(run)
        lat["fusion"] = _ms(t)
        t = time.perf_counter()
        ranked = self._rerank(run, fused, ranked)
        lat["rerank"] = _ms(t)
        ranked = self._arrange(run, ranked)
        t = time.perf_counter()
        out_ranked, hits = self._assemble(run, ranked, top_k)
        lat["assemble"] = _ms(t)
        lat["total"] = round(sum(lat.values()), 3)
        response = SearchResponse(
            query=query,
            mode=mode,
            query_class=run.route.query_class if mode == "full" else mode,
            fusion_weights=run.weights,
            file_filter=file_path,
            hits=hits,
            latency_ms=lat,
            generation=self.gen.name,
        )
        return SearchResult(
            response=response,
            ranked=out_ranked,
            route=run.route,
            query_vec=run.qvec,
            anchors=frozenset(run.anchors),
            terms=run.terms,
        )

    def _route(
        self,
        query: str,
        cfg: RetrievalConfig,
        mode: str,
        file_path: str | None,
        kinds: frozenset[str] | None,
    ) -> _Run:
        """Classify the query and set each path's fusion weight (a baseline mode fixes them)."""
        route = classify(query, cfg.commit_slots, adaptive=cfg.adaptive_routing and mode == "full")
        weights = {
            "bm25": route.w_bm25 * cfg.w_bm25,
            "vec": route.w_vec * cfg.w_vec,
            "graph": route.w_graph * cfg.w_graph,
        }
        if mode == "bm25":
            weights = {"bm25": 1.0}
        elif mode == "dense":
            weights = {"vec": 1.0}
        elif mode == "hybrid":
            weights = {"bm25": 1.0, "vec": 1.0}
        docs = self.docs
        # "which tests cover X": test code is the answer, X and its history are not
        tests = mode == "full" and asks_for_tests(query)

        def keep(row: int) -> bool:
            return (
                (file_path is None or self._concerns(row, file_path))
                and (kinds is None or docs.kind[row] in kinds or mode != "full")
                and (not tests or (docs.is_code(row) and _is_test(docs.path[row])))
            )

        return _Run(
            query=query,
            cfg=cfg,
            mode=mode,
            file_path=file_path,
            route=route,
            weights=weights,
            terms=query_terms(query),
            # a file filter (or tests alone) discards most of each path's results: look deeper
            depth=cfg.path_depth * (4 if file_path or tests else 1),
            keep=keep,
            tests=tests,
            links=asks_for_links(query) if mode == "full" else None,
        )

    def _bm25_path(self, run: _Run) -> None:
        if "bm25" not in run.weights:
            return
        rows, scores = self.fulltext.search_terms(run.terms, run.depth)
        ranking = []
        for row, score in zip(rows.tolist(), scores.tolist(), strict=True):
            if run.keep(row):
                ranking.append(row)
                e = run.ev(row)
                e.bm25_rank, e.bm25_score = len(ranking), score
        run.rankings["bm25"] = ranking

    def _vector_path(self, run: _Run) -> None:
        """Exact float32 for the baselines (and `exact_vectors`), else 1-bit Hamming candidates
        rescored with int8 dot products."""
        if run.weights.get("vec", 0) <= 0:
            return
        cfg, depth = run.cfg, run.depth
        if run.mode in ("dense", "hybrid") or cfg.exact_vectors:
            rows_l, sims = self._dense(run.query, depth)
            ranking = [r for r in rows_l if run.keep(r)]
            for i, r in enumerate(ranking, start=1):
                e = run.ev(r)
                e.vec_rank, e.int8_cos = i, sims[r]
        else:
            qvec = run.qvec = self.embed_query(run.query)
            cand, dist = self.vectors.candidates(qvec, max(cfg.stage1_candidates, depth))
            cos = self.vectors.rescore(qvec, cand)
            order = np.lexsort((cand, -cos))
            ranking = []
            for j in order.tolist():
                r = int(cand[j])
                if not run.keep(r):
                    continue
                ranking.append(r)
                e = run.ev(r)
                e.vec_rank, e.hamming, e.int8_cos = len(ranking), int(dist[j]), float(cos[j])
                if len(ranking) >= depth:
                    break
        run.rankings["vec"] = ranking

    def _graph_path(self, run: _Run) -> None:
        """One-hop spreading activation over the co-change graph, seeded by a preliminary RRF of
        the other paths (or, for a co-change question, by the files it is about)."""
        cfg, graph = run.cfg, self.graph
        if not (
            run.mode == "full"
            and cfg.graph_path
            and run.weights.get("graph", 0) > 0
            and graph is not None
        ):
            return
        prelim = td_rrf(run.rankings, run.weights, k=cfg.rrf_k)
        seeds_docs = rank_by(prelim)[:10]
        top = prelim[seeds_docs[0]] if seeds_docs else 1.0
        seeds: dict[int, float] = {}
        for d in seeds_docs:
            for node in self._nodes_of(d):
                seeds[node] = max(seeds.get(node, 0.0), prelim[d] / top)
        if run.route.query_class == "change":
            # a change request: what must change along with the place the edit goes, so the
            # files of the best few code results seed the graph, not every result
            edit_files, _ = self._anchor_files(run.query, seeds_docs)
            seeds = self._file_seeds(edit_files)
        neighbours = graph.neighbours
        if run.route.query_class == "coupled":
            anchor_weights, named = self._anchor_files(run.query, seeds_docs)
            if anchor_weights:  # the anchor files are the only seeds: their partners are the answer
                seeds = self._file_seeds(anchor_weights)
                # "what else changes with FILE" (or with a function, whose files are guessed):
                # the partners as preflight ranks them (rank_score). W divides by the partner's
                # own changes, which on real histories' temporal hold-out ranks the files that
                # change next far lower
                neighbours = graph.ranked_neighbours
            # only files the question names step back and count as "about to change"
            run.anchors = set(anchor_weights) if named else set()
        act_nodes = spread_activation(
            seeds, neighbours, delta=cfg.graph_decay, gamma=cfg.import_discount
        )
        if run.route.query_class == "coupled" and run.anchors:
            act_nodes = self._in_asked_areas(act_nodes, asked_areas(run.query))
        activation = run.activation
        scored = self._scored_by_path(prelim)
        # a file's activation lands on its most activated function when it has one
        best_symbol: dict[str, tuple[float, int]] = {}
        for node, a in act_nodes.items():
            sym_row = self.docs.by_symbol_id.get(graph.keys[node])
            if graph.kinds[node] == "symbol" and sym_row is not None:
                sym_path = self.docs.path[sym_row]
                if sym_path is not None and a > best_symbol.get(sym_path, (0.0, -1))[0]:
                    best_symbol[sym_path] = (a, sym_row)
        for node, a in act_nodes.items():
            row: int | None
            if graph.kinds[node] == "file" and graph.keys[node] in best_symbol:
                row = best_symbol[graph.keys[node]][1]
            else:
                row = self._doc_of_node(node, prelim, scored)
            if row is not None and run.keep(row):
                activation[row] = max(activation.get(row, 0.0), a)
        ranking = sorted(activation, key=lambda r: (-activation[r], r))[: run.depth]
        for i, r in enumerate(ranking, start=1):
            e = run.ev(r)
            e.graph_rank, e.graph_activation = i, activation[r]
        run.rankings["graph"] = ranking

    def _fuse(self, run: _Run) -> tuple[dict[int, float], list[int]]:
        """Weighted RRF of the rankings, time-decayed in full mode: (scores, rows best first)."""
        cfg = run.cfg
        fused = td_rrf(run.rankings, run.weights, k=cfg.rrf_k)
        if run.mode == "full" and cfg.time_decay and fused:
            rows_arr = np.fromiter(fused, dtype=np.int64, count=len(fused))
            mult = recency_array(
                self.t_now - self.docs.time[rows_arr].astype(np.float64),
                cfg.recency_alpha,
                cfg.recency_half_life_days,
            )
            # every fused row came from a ranking, which gathered its evidence: `run.ev` is a
            # lookup here, done inline (a few hundred rows per query)
            evidence = run.evidence
            for r, m in zip(rows_arr.tolist(), mult.tolist(), strict=True):
                fused[r] *= m
                e = evidence.get(r)
                if e is None:
                    e = evidence[r] = Ev()
                e.recency = m
        ranked = rank_by(fused)
        evidence = run.evidence
        for r in ranked:
            e = evidence.get(r)
            if e is None:
                e = evidence[r] = Ev()
            e.rrf = fused[r]
        run.final_score = dict(fused)
        return fused, ranked

    def _rerank(self, run: _Run, fused: dict[int, float], ranked: list[int]) -> list[int]:
        """The interaction reranker re-orders the top `rerank_top_n`; the rest keep their place."""
        cfg, docs = run.cfg, self.docs
        if not (run.mode == "full" and cfg.reranker and cfg.rerank_top_n > 0 and ranked):
            return ranked
        head = ranked[: cfg.rerank_top_n]
        # a co-change question's partners include the tests edited with the file
        tests_aside = run.route.query_class != "coupled"
        cands = [
            Candidate(
                row=r,
                rrf=fused[r],
                cos=_r(run.evidence[r].int8_cos, 4),
                graph=run.activation.get(r, 0.0),
                kind=docs.kind[r],
                intent=docs.intent[r],
                test=tests_aside and _is_test_path(docs.path[r] or ""),
            )
            for r in head
        ]
        weights_rr = rerank_weights(run.route, run.weights.get("graph", 0.0), run.cfg.w_graph)
        scored = rerank(
            cands,
            run.query,
            run.terms,
            self.idf,
            docs.terms,
            docs.text,
            run.route.prefer,
            weights_rr,
        )
        for c in scored:
            run.evidence[c.row].rerank = c.rerank
            run.final_score[c.row] = c.rerank
        return [c.row for c in scored] + ranked[cfg.rerank_top_n :]

    def _arrange(self, run: _Run, ranked: list[int]) -> list[int]:
        """Full mode's last word on the order: named anchor files step back, commits get their
        slot budget, a symbol the query names is pinned, a file's own chunk steps behind its
        symbols."""
        if run.mode != "full":
            return ranked
        cfg, route, final_score = run.cfg, run.route, run.final_score
        if route.query_class == "coupled" and run.anchors and route.mixed is None:
            # "what else changes with X": X is the question, never its answer
            anchors = run.anchors
            ranked = [r for r in ranked if self.docs.path[r] not in anchors] + [
                r for r in ranked if self.docs.path[r] in anchors
            ]
        elif route.query_class == "coupled" and run.anchors and cfg.anchor_penalty < 1:
            # a change to X and what comes with it: X's code stays, behind its partners
            for r in ranked:
                if self.docs.path[r] in run.anchors:
                    final_score[r] = final_score.get(r, 0.0) * cfg.anchor_penalty
            ranked = sorted(ranked, key=lambda r: (-final_score.get(r, 0.0), r))
        if cfg.baseline_blend:
            run.route_order = ranked
            ranked = self._blend_baseline(run, ranked)
        if cfg.slot_budget:
            ranked = slot_budget(
                ranked, self.docs.is_commit, cap=route.commit_slots, window=cfg.slot_window
            )
        if route.query_class in FIX_CODE_CLASSES:
            ranked = self._fix_then_code(ranked, run)
        if cfg.pinning and route.pin and route.query_class in cfg.pin_classes:
            pinned = self._named_symbol(route, run.file_path)
            if pinned is not None and run.keep(pinned):
                ranked = pin(ranked, pinned, cfg.pin_position)
                run.ev(pinned)
                final_score.setdefault(pinned, 0.0)
                run.pinned = pinned
                if route.query_class == "behavioral":
                    ranked = self._own_commits_first(ranked, pinned, cfg.slot_window)
        if cfg.pinning:
            named = self._line_symbols(run.query) + self._named_commits(run.query)
            if route.query_class != "coupled":
                more = self._history_commits(run.query, run.file_path)
                more += self._departing_commits(run.query)
                more += self._gone_symbol_commits(run.query, run.route)
                if route.query_class != "change":  # "bump x to 4.2.0" names x's version
                    more = self._release_commits(run.query) + more
                named += [r for r in more if r not in named]
            for row in reversed(named):
                if run.keep(row):
                    ranked = pin(ranked, row, cfg.pin_position)
                    run.ev(row)
                    run.pins.add(row)
                    final_score.setdefault(row, 0.0)
        if cfg.pinning and route.query_class != "coupled" and asks_about_revert(run.query):
            ranked = self._reverts_ahead(run, ranked)
        # what moves up into the window keeps to the commit budget
        cap = route.commit_slots if cfg.slot_budget else None
        ranked = self._module_after_symbols(ranked, cfg.slot_window, cap)
        if run.tests:
            return self._tests_first(run, ranked)
        if run.links is not None:
            return self._links_first(run, ranked)
        return self._partners_first(run, ranked)

    def _reverts_ahead(self, run: _Run, ranked: list[int]) -> list[int]:
        """ "Why was X reverted": the first commit of the window that a revert undid, as its
        subject words the question ("Add the etag option"), steps behind that revert, whose
        message says why and whose subject (`Revert "..."`) a search ranks close but rarely
        above it. On click and express, 2 of the 3 such questions of `benchmarks/real.py`
        (item 9) had the commit undone first and the revert second or third."""
        docs, reverted_by = self.docs, self.index.reverted_by
        if not reverted_by:
            return ranked
        window = ranked[: run.cfg.slot_window]
        for at, row in enumerate(window):
            code = docs.sha.codes[row]
            if not docs.is_commit(row) or code < 0:
                continue
            undone = reverted_by.get(docs.sha.values[code], ())
            # a revert ranked above what it undid stays where it is
            reverts = [
                r
                for r in map(docs.by_sha.get, undone)
                if r is not None and r not in window[:at] and run.keep(r)
            ]
            if reverts:
                return _ahead(run, reverts, ranked, at)  # just ahead of `row`
        return ranked

    def _links_first(self, run: _Run, ranked: list[int]) -> list[int]:
        """ "What calls X" ("what does X call"): the symbols linked to the one function or class
        the question names (`ServeIndex.symbol_links` of the kind asked: a file's top-level
        code too), functions before top-level code, product code first within each, then the
        most changed first (what X calls: in the order X's code first calls each, what it only
        mentions last); "which files import F" ("what does F import"): the files importing
        F (imported by F), product code first, each as its top-level code. The rest keep their
        order. A question naming no symbol or file of the index, or one with no such link,
        keeps the ranking. On the bundles, asked of a function with a unique name, the callers
        found by their call syntax were in the first five about twice as often as in the
        ranking alone (`benchmarks/real.py`, item 13)."""
        assert run.links is not None
        kind, words = run.links
        docs = self.docs
        # "what calls charge in billing.py": the name before the place
        names = thing_names(words) or thing_names(words.partition(" in ")[0])
        named = self._symbol_named(names, run.file_path)
        if named is not None and docs.qualname[named] != MODULE_SYMBOL:
            head = self._linked_symbols(run, named, kind)
        else:
            head = self._imports_of(run, words, kind)
        if not head:
            return ranked
        return _ahead(run, head, ranked)

    def _linked_symbols(self, run: _Run, named: int, kind: str) -> list[int]:
        """The symbol documents `symbol_links` links to symbol document `named` by `kind`, in
        `_links_first`'s order."""
        docs = self.docs
        head: list[int] = []
        for link in self.index.symbol_links.get(docs.symbol_id[named], []):
            if link["kind"] != kind:
                continue
            row = docs.by_symbol_id.get(link["dst"])
            if row is not None and row not in head and run.keep(row):
                head.append(row)
        # a class names what its methods name: the method that does is the answer, not the
        # class around it (nor a function around a closure that does)
        inner = {(docs.path[r], docs.qualname[r]) for r in head}
        head = [
            r
            for r in head
            if not any(
                path == docs.path[r] and qualname.startswith(f"{docs.qualname[r]}.")
                for path, qualname in inner
            )
        ]
        if kind == "calls":
            # what X calls in the order its code first calls each, a name it only mentions
            # (no call after it: a comment, an import, a value passed along) last
            text = docs.text(named, limit=CALLEES_TEXT)

            def first_call(row: int) -> int:
                name = docs.qualname[row].rsplit(".", 1)[-1]
                m = re.search(r"(?<![\w$])" + re.escape(name) + r"\s*\(", text)
                return m.start() if m else len(text)

            head.sort(key=first_call)
            return head
        # functions before a file's top-level code (which often only imports the name), product
        # code first within each (stable: the most changed first)
        head.sort(
            key=lambda row: (
                docs.qualname[row] == MODULE_SYMBOL,
                file_kind(docs.path[row]) != "source",
            )
        )
        return head

    def _imports_of(self, run: _Run, words: str, kind: str) -> list[int]:
        """The files importing ("called_by") or imported by ("calls") the one file `words`
        names (`ServeIndex.imports`), product code first, each as its top-level code (else its
        first document the run keeps); none when the words name no one file."""
        files, said = self._anchor_files(words, [])
        if not said or len(files) != 1:
            return []
        (path,) = files
        imports, importers = self.index.imports
        paths = (importers if kind == "called_by" else imports).get(path, [])
        docs = self.docs
        head: list[int] = []
        for other in sorted(paths, key=lambda p: file_kind(p) != "source"):  # stable: by path
            rows = [r for r in docs.by_path.get(other, []) if run.keep(r) and docs.is_code(r)]
            if rows:
                head.append(next((r for r in rows if docs.qualname[r] == MODULE_SYMBOL), rows[0]))
        return head

    def tests_for(
        self, anchor: str, terms: list[str], depth: int, symbol_id: str | None = None
    ) -> list[str]:
        """The test files for a change to `anchor` (a file at HEAD), best first: those named
        after the symbol `symbol_id` (`test/res.status.js` for `res.status`), then those that
        change with `anchor` (`ServeIndex.coupling_files`, in the order preflight serves them),
        those BM25 ranks for `terms` (a commit hit standing for its first test files), for a
        change to the symbol those whose code names it (`symbol_links`, the file with the most
        such places first), and those named after `anchor` (`mux_test.go` for `mux.go`), the
        first `TESTS_DEPTH` of each fused by reciprocal rank (`TESTS_RRF_K`). The third list
        lifted the MRR of later commits' test files on express, ky and mux and cost click
        0.005; the named tests lifted it from 0.748 to 0.840 on express and from 0.924 to 0.947
        on mux, click and ky within 0.01 (`benchmarks/real.py`, item 12)."""
        docs = self.docs
        partners = [
            p["dst"] for p in self.index.coupling_files.get(anchor, []) if _is_test(p["dst"])
        ]
        words: list[str] = []  # BM25's files: a symbol's own, a commit's test files
        found_rows, _ = self.fulltext.search_terms(terms, depth)
        for row in found_rows.tolist():
            for path in docs.paths_of(row)[: 1 if docs.is_code(row) else TESTS_PER_COMMIT]:
                if _is_test(path) and path not in words:
                    words.append(path)
        calls: dict[str, int] = {}  # test files whose code names the symbol: how many places
        if symbol_id is not None:
            for link in self.index.symbol_links.get(symbol_id, []):
                path = link["dst_path"]
                if link["kind"] == "called_by" and _is_test(path):
                    calls[path] = calls.get(path, 0) + 1
        callers = sorted(calls, key=lambda p: -calls[p])  # stable: the link order within
        named, by_file = self._tests_named(anchor, symbol_id)
        score: dict[str, float] = {}
        for order in (partners, words, callers, by_file):
            for rank, path in enumerate(order[:TESTS_DEPTH], start=1):
                score[path] = score.get(path, 0.0) + 1.0 / (TESTS_RRF_K + rank)
        fused = sorted(score, key=lambda p: (-score[p], p))
        return named + [p for p in fused if p not in named]

    @cached_property
    def _tests_by_name(self) -> dict[str, list[str]]:
        """What a test file at HEAD is named after (`tested_name`) -> those test files."""
        out: dict[str, list[str]] = {}
        for path in sorted(self.index.paths):
            if _is_test(path):
                out.setdefault(tested_name(path), []).append(path)
        return out

    def _tests_named(self, anchor: str, symbol_id: str | None) -> tuple[list[str], list[str]]:
        """The test files named after the symbol `symbol_id` (`test/res.status.js` for
        `res.status`, `test_parse_args.py` for `parse_args`), and those named after its file
        `anchor` (`test_parser.py` for `parser.py`, `mux_test.go` for `mux.go`)."""
        by_name, docs = self._tests_by_name, self.docs
        named: list[str] = []
        row = docs.by_symbol_id.get(symbol_id) if symbol_id is not None else None
        qualname = docs.qualname[row] if row is not None else None
        if qualname and qualname != MODULE_SYMBOL:
            whole = qualname.replace("#", "").lower()
            last = whole.rsplit(".", 1)[-1]
            for key in (whole, last):
                if len(key) >= 3 and not key.startswith("__"):
                    named += [p for p in by_name.get(key, ()) if p not in named]
        stem = anchor.rsplit("/", 1)[-1].split(".", 1)[0].lower()
        by_file = (
            [] if stem in _GENERIC_STEMS else [p for p in by_name.get(stem, ()) if p not in named]
        )
        return named, by_file

    def _tests_first(self, run: _Run, ranked: list[int]) -> list[int]:
        """ "Which tests cover X" (only test code is kept, `_route`): the test files
        `tests_for` lists (named after X first, then those that change with X's file, those
        BM25 ranks for the question, those whose code names X and those named after X's file,
        fused by reciprocal rank), each as its file's best-ranked document; the rest keep their
        order. X is the file the question names, else the one function or class it names; a
        question naming neither keeps the ranking. On the bundles' cut, later commits' test
        files were found about twice as often in the first five as the coupled route's answer
        found them (`benchmarks/real.py`, item 12)."""
        docs = self.docs
        files, named = self._anchor_files(run.query, [])
        anchor: str | None = None
        symbol_id: str | None = None
        if named:
            anchor = next(iter(files)) if len(files) == 1 else None
        else:
            asked = self._symbol_named(thing_names(run.query), run.file_path)
            if asked is not None:
                anchor, symbol_id = docs.path[asked], docs.symbol_id[asked]
        if anchor is None:
            return ranked
        tests = self.tests_for(anchor, run.terms, run.cfg.path_depth, symbol_id)
        return _ahead(run, self._file_rows(run, ranked, tests), ranked)

    def _file_rows(self, run: _Run, ranked: list[int], paths: list[str]) -> list[int]:
        """Each of `paths` as one document, in order: its best-ranked one in `ranked`, else one
        the run keeps (its module's first); a file with none the run keeps is left out."""
        docs = self.docs
        best: dict[str, int] = {}
        for row in ranked:
            path = docs.path[row]
            if path and path not in best:
                best[path] = row
        out: list[int] = []
        for path in paths:
            found = best.get(path)
            if found is None:
                rows = [r for r in docs.by_path.get(path, []) if run.keep(r)]
                if not rows:
                    continue
                found = next((r for r in rows if docs.qualname[r] == MODULE_SYMBOL), rows[0])
                run.ev(found)
                run.final_score.setdefault(found, 0.0)
            if found not in out:
                out.append(found)
        return out

    def _partners_first(self, run: _Run, ranked: list[int]) -> list[int]:
        """ "What else changes with FILE": FILE's co-change partners first, in the order
        preflight serves them (`ServeIndex.coupling_files`), each as its file's best-ranked
        document (else one of its documents, its module's first); the rest keep their order.
        On the real histories that order found the files later commits changed with FILE more
        often than the graph path's (`benchmarks/cochange_holdout.py`). Asked of a function
        (named as an identifier, no file named), it comes first, then its partners as
        preflight lists them (`ServeIndex.symbol_partners`) alternate with its file's (when it
        has none, the graph path's order stays, seeded from its file): on the bundles' cut this
        doubled the functions found that later changed with it, and kept the files found
        within a few hundredths (`benchmarks/real.py`, item 11). Only for a question naming one
        file or function and asking for no part of the repository (`asked_areas` orders
        those)."""
        route = run.route
        if route.query_class != "coupled" or route.mixed is not None or len(run.anchors) > 1:
            return ranked
        if asked_areas(run.query):
            return ranked
        docs = self.docs
        symbols: list[int] = []
        named: int | None = None
        if run.anchors:
            (anchor,) = run.anchors
        else:  # "what else changes with FUNCTION": its partners as preflight lists them
            named = self._symbol_named(thing_names(run.query), run.file_path)
            if named is None or docs.qualname[named] == MODULE_SYMBOL:
                return ranked
            anchor = docs.path[named]
            room = run.cfg.coupling_limit // 2
            for dst, *_ in self.index.symbol_partners(docs.symbol_id[named], room):
                row = docs.by_symbol_id.get(dst)
                if row is not None and run.keep(row) and row not in symbols:
                    run.ev(row)
                    run.final_score.setdefault(row, 0.0)
                    symbols.append(row)
            if not symbols:  # none known: the graph path's answer, from the function's file
                return ranked
        partners = self.index.coupling_files.get(anchor, [])[: run.cfg.coupling_limit]
        head = self._file_rows(run, ranked, [p["dst"] for p in partners])
        if named is not None:  # the function, then its partners and its file's in turn
            files = [r for r in head if r not in symbols and r != named]
            pairs = zip_longest(symbols, files)
            head = [r for pair in pairs for r in pair if r is not None]
            if run.keep(named):
                head.insert(0, named)
        return _ahead(run, head, ranked)

    @cached_property
    def _shas(self) -> list[str]:
        return sorted(self.docs.by_sha)

    def _named_commits(self, query: str) -> list[int]:
        """The commit documents the question names by an abbreviated or full hash (seven to
        forty hex digits naming one commit of the index): a pasted hash asks for that commit,
        whose document holds no hash to match."""
        shas = self._shas
        rows: list[int] = []
        for word in HEX_WORD.findall(query):
            at = bisect_left(shas, word)
            found = [sha for sha in shas[at : at + 2] if sha.startswith(word)]
            if len(found) == 1:
                row = self.docs.by_sha[found[0]]
                if row not in rows:
                    rows.append(row)
        return rows

    def _line_symbols(self, query: str) -> list[int]:
        """The symbol documents of the places the question names as `path:LINE` (a file at
        HEAD, the innermost symbol spanning the line), as tracebacks and compilers print them."""
        if ":" not in query:
            return []
        index = self.index
        rows: list[int] = []
        for m in LINE_PLACE.finditer(query):
            path = m.group("path")
            symbols = index.symbols_by_path.get(path) if index.at_head(path) else None
            if not symbols:
                continue
            spans = [(r.start_line, r.end_line) for r in symbols]
            hits = match_symbols([r.qualname for r in symbols], spans, f"@{m.group('line')}")
            row = self.docs.by_symbol_id.get(symbols[hits[0]].symbol_id) if len(hits) == 1 else None
            if row is not None and row not in rows:
                rows.append(row)
        return rows

    def _history_commits(self, query: str, file_path: str | None) -> list[int]:
        """The commit documents of one end of the history of the thing the question asks about
        (`router.history_end`): the commit that introduced it ("which commit introduced
        ProgressBar"), the one that changed it last ("who last changed src/app.py"), or its
        newest ones, of one intent when the question names it ("what bugs were fixed in X").
        The thing is a file at HEAD or a symbol the question names (by an identifier, or a word
        it calls a function, class ...). Which commits those are is a fact of the history,
        which the question's words rarely match."""
        asked = history_end(query)
        if asked is None or not asked.whole:
            return []
        index = self.index
        # a file at HEAD, as the question spells it (`README.md`, `LICENSE`, `.github/ci.yml`)
        path = next((p for p in _path_words(asked.what) if index.at_head(p)), None)
        rows: list[dict[str, Any]]
        if path is not None:
            rows = index.path_changes(path)  # newest first
            if asked.end == "first":
                # the file as it is began where it was last added (a file deleted and added
                # again began twice); renames carry it on
                rows = [r for r in rows if r["status"] == "A"][:1] or rows
        else:
            row = self._symbol_named(thing_names(asked.what), file_path)
            sid = self.docs.symbol_id[row] if row is not None else None
            rows = index.touches_by_symbol.get(sid, []) if sid else []
        shas = [r["sha"] for r in rows]
        if asked.intent is not None:
            shas = [s for s in shas if index.commit_field(s, "intent") == asked.intent]
        picked = index.in_history_order(shas, asked.limit, oldest=asked.end == "first")
        return [r for r in map(self.docs.by_sha.get, picked) if r is not None]

    def _release_commits(self, query: str) -> list[int]:
        """The release commits of the versions the question names ("what changed in 5.1.0",
        "v2.0.0"): the commit whose subject is the version, which holds its changelog. A
        version's digits alone are not terms (single digits are dropped), so it is looked up,
        not searched."""
        words = _VERSION_WORD.findall(query)
        if not words:
            return []
        releases = self.index.releases
        rows: list[int] = []
        for version in words:
            shas = releases.get(version.rstrip("."), [])
            row = next((r for r in map(self.docs.by_sha.get, shas) if r is not None), None)
            if row is not None and row not in rows:
                rows.append(row)
        return rows

    def _departing_commits(self, query: str) -> list[int]:
        """The commit documents that renamed or deleted the files the question names that are
        not files of the index at HEAD ("why was lib/router/index.js removed"): the answer a
        question about a file that is gone asks for, which it rarely shares many words with
        ("Use router module for routing"). A named file is a word of the question that is a
        path history had, with a folder or an extension; one at HEAD, a bare name a file at
        HEAD has, and names history never had add nothing, and so does a question about another
        change of the file ("why was Security.md updated": the commits that updated it)."""
        words = [w for w in _path_words(query) if "/" in w or "." in w]
        if not words or not asks_about_removal(query):
            return []
        index = self.index
        known = index.history_paths
        rows: list[int] = []
        for path in words:
            if path not in known or index.at_head(path):
                continue
            if "/" not in path and path in index.head_names:
                continue  # a bare name a file at HEAD has: that file, most likely
            gone = index.departed(path)
            row = self.docs.by_sha.get(gone["sha"]) if gone is not None else None
            if row is not None and row not in rows:
                rows.append(row)
        return rows

    def _gone_symbol_commits(self, query: str, route: Route) -> list[int]:
        """The commit documents that last touched the symbols the question names which HEAD
        has none of, when it asks where they went ("why was Post.validate removed", "where did
        withPage go"): the commit that removed or renamed each, which the question's words
        rarely match ("Removed extname() / basename() utils" took express's `exports.extname`).
        A question that names such a symbol for another reason ("app.locals precedence") is
        left to the search: the symbol's removal is not its answer."""
        if not route.named or not asks_where_it_went(query):
            return []
        docs, gone = self.docs, None
        rows: list[int] = []
        for name in route.named:
            if name in docs.by_name:
                continue  # a symbol of that name is at HEAD: the question is about it
            if gone is None:
                gone = self.index.gone_symbols
            sha = gone.get(name)
            row = docs.by_sha.get(sha) if sha is not None else None
            if row is not None and row not in rows:
                rows.append(row)
        return rows

    def _blend_baseline(self, run: _Run, ranked: list[int]) -> list[int]:
        """The route's order fused with a plain path's order (`BASELINE_BLEND`): a reciprocal
        rank fusion in which the route's order has weight 1 and the plain list `weight`, so a
        question the route reads wrongly keeps what plain retrieval found. Files a co-change
        question names stay out of the plain list: they are never its answer."""
        key = _blend_key(run)
        source, weight, k = BASELINE_BLEND.get(key, (None, 0.0, 1))
        if source is None or weight <= 0:
            return ranked
        unsure = UNSURE_BLEND.get(key)
        if unsure is not None and self._bm25_first_covers(run) < UNSURE_COVERAGE:
            source = unsure
        rankings = run.rankings
        if source == "hybrid":
            plain = rank_by(
                td_rrf(
                    {p: rankings.get(p, []) for p in ("bm25", "vec")},
                    {"bm25": 1.0, "vec": 1.0},
                    k=run.cfg.rrf_k,
                )
            )
        else:
            plain = list(rankings.get(source, []))
        if run.anchors:
            plain = [r for r in plain if self.docs.path[r] not in run.anchors]
        return fuse_plain(ranked, plain, weight, k)

    def _bm25_first_covers(self, run: _Run) -> float:
        """The largest share of the question's terms that one of BM25's first `UNSURE_DEPTH`
        documents holds (1.0 when the question has no term or BM25 found nothing)."""
        first = run.rankings.get("bm25", [])[:UNSURE_DEPTH]
        if not run.terms or not first:
            return 1.0
        held = 0
        for row in first:
            body, _ = self.docs.terms(row)
            held = max(held, sum(f" {t} " in body for t in run.terms))
        return held / len(run.terms)

    def _module_after_symbols(
        self, ranked: list[int], window: int, commit_cap: int | None = None
    ) -> list[int]:
        """A file's own chunk below one of that file's symbols in the first `window` places
        repeats the file that symbol already points at: it moves just after the window, and
        the result it held the place of moves up. A file's own chunk above its symbols stays:
        there it may be the answer (a module's constants, a config file). With `commit_cap`,
        what moves up keeps to the commit budget (`slot_budget`, already applied): a commit
        beyond it moves after the window too, and cannot hand its place back to the chunk."""
        docs = self.docs
        head: list[int] = []
        deferred: list[int] = []
        seen: set[str] = set()
        commits = 0
        rest = iter(ranked)
        for r in rest:
            path = docs.path[r]
            if commit_cap is not None and docs.is_commit(r):
                if commits >= commit_cap:
                    deferred.append(r)
                    continue
                commits += 1
                head.append(r)
            elif docs.kind[r] != "symbol" or not path:
                head.append(r)
            elif docs.qualname[r] == "<module>" and path in seen:
                deferred.append(r)
            else:
                seen.add(path)
                head.append(r)
            if len(head) >= window:
                break
        if not deferred:
            return ranked
        return head + deferred + list(rest)

    def _own_commits_first(self, ranked: list[int], pinned: int, window: int) -> list[int]:
        """A question about a named function: the commits in the first `window` places are that
        function's own history (its "why"); other commits move just after the window. When none
        of its own commits made the window, the best ranked of them (among the first
        `OWN_COMMIT_DEPTH`) comes right after the function: its code first, its "why" attached."""
        sid = self.docs.symbol_id[pinned]
        if not sid:
            return ranked
        own, _ = self._symbol_commits(sid)
        mine = set(own)

        def is_own(r: int) -> bool:
            return self.docs.is_commit(r) and self.docs.sha[r] in mine

        head, deferred = [], []
        for r in ranked[:window]:
            if self.docs.is_commit(r) and not is_own(r):
                deferred.append(r)
            else:
                head.append(r)
        rest = ranked[window:]
        if pinned in head and not any(is_own(r) for r in head):
            found = next((r for r in rest[:OWN_COMMIT_DEPTH] if is_own(r)), None)
            if found is not None:
                rest = [r for r in rest if r != found]
                head.insert(head.index(pinned) + 1, found)
        fill = window - len(head)
        if fill < 0:  # the commit brought in pushes the window's last result out, not away
            return head[:window] + deferred + head[window:] + rest
        return head + rest[:fill] + deferred + rest[fill:]

    def _fix_then_code(self, ranked: list[int], run: _Run) -> list[int]:
        """A symptom's answer is the fixing commit and the code it fixed: the function a top
        fix (or revert) changed most follows it."""
        docs = self.docs
        for pos, r in enumerate(ranked[:FIX_CODE_DEPTH]):
            if not docs.is_commit(r) or docs.intent[r] not in LOAD_BEARING or not docs.sha[r]:
                continue
            # which function the fix is about is the route's call, not the plain list's
            fixed = self._fixed_symbol(docs.sha[r], run, run.route_order or ranked)
            if fixed is not None and fixed not in ranked[: pos + 1]:
                ranked = [d for d in ranked if d != fixed]
                ranked.insert(pos + 1, fixed)
                run.final_score.setdefault(fixed, 0.0)
                run.ev(fixed)
            break
        return ranked

    def _fixed_symbol(self, sha: str, run: _Run, ranked: list[int]) -> int | None:
        """Of the product functions a commit changed (tests and module remainders aside), the
        one the query ranked highest, else the one it changed most."""
        position = {r: i for i, r in enumerate(ranked)}
        best: tuple[int, int, int] | None = None
        for t in self.index.touches_by_sha.get(sha, []):
            row = self.docs.by_symbol_id.get(t["symbol_id"])
            path = t["head_path"] or ""
            if row is None or self.docs.qualname[row] == "<module>" or _is_test_path(path):
                continue
            if not run.keep(row):
                continue
            key = (-position.get(row, len(ranked)), int(t["added"] or 0) + int(t["removed"] or 0))
            if best is None or key > best[:2]:
                best = (*key, row)
        return None if best is None else best[2]

    def _assemble(self, run: _Run, ranked: list[int], top_k: int) -> tuple[list[Ranked], list[Hit]]:
        """The final order as `Ranked` records (deep enough for commit attachment and the
        graveyard) and the top `top_k` as hits."""
        cfg, docs = run.cfg, self.docs
        out_ranked = [
            Ranked(
                row=r,
                score=run.final_score.get(r, 0.0),
                kind=docs.kind[r],
                path=docs.path[r],
                qualname=docs.qualname[r],
                sha=docs.sha[r],
                intent=docs.intent[r],
                evidence=run.evidence[r],
                pinned=r == run.pinned or r in run.pins,
            )
            for r in ranked[: max(top_k, 50 if cfg.attach_commits else 10)]
        ]
        candidate_shas = {x.sha for x in out_ranked[:50] if x.kind == "commit" and x.sha}
        hits = [
            self._hit(i, x, cfg, candidate_shas, attach=run.mode == "full")
            for i, x in enumerate(out_ranked[:top_k], start=1)
        ]
        return out_ranked, hits

    def _named_symbol(self, route: Route, file_path: str | None) -> int | None:
        return self._symbol_named(route.named, file_path)

    def _symbol_named(self, names: tuple[str, ...], file_path: str | None) -> int | None:
        """The symbol document the first of `names` that names one symbol names (an exact
        qualified name first; in `file_path`, when given, if it has one)."""
        for name in names:
            rows = self.docs.by_name.get(name)
            if not rows:
                continue
            if file_path is not None:
                rows = [r for r in rows if self.docs.path[r] == file_path] or rows
            exact = [r for r in rows if self.docs.qualname[r] == name]
            if len(exact) == 1:
                return exact[0]
            if len(rows) == 1:
                return rows[0]
        return None

    def hit_text(self, row: int) -> tuple[str, str]:
        """(title, snippet) of a document as a search hit shows them: the title line, and up to
        300 characters of the non-blank lines of the text's first 400 characters after it."""
        title, _, body = self.docs.text(row, limit=400).partition("\n")
        return title, "\n".join(line for line in body.splitlines() if line.strip())[:300]

    def _hit(
        self, rank: int, x: Ranked, cfg: RetrievalConfig, candidate_shas: set[str], *, attach: bool
    ) -> Hit:
        row = x.row
        title, snippet = self.hit_text(row)
        if x.kind == "commit":
            key = x.sha
        elif x.kind == "symbol":
            key = self.docs.symbol_id[row]
        else:  # journal documents: "failure:12" -> "12"
            key = self.docs.doc_id(row).split(":", 1)[-1]
        hit = Hit(
            rank=rank,
            doc=row,
            kind=x.kind,
            key=key or str(row),
            path=x.path,
            symbol=x.qualname,
            title=title,
            snippet=snippet,
            date=iso_date(int(self.docs.time[row])) if self.docs.time[row] else None,
            intent=x.intent,
            score=round(x.score, 6),
            pinned=x.pinned,
            evidence=x.evidence.model(),
        )
        if attach and x.kind == "symbol" and cfg.attach_commits and self.docs.symbol_id[row]:
            hit.why = self._why(self.docs.symbol_id[row], candidate_shas, cfg.attach_commits)
        return hit

    def _symbol_commits(self, symbol_id: str) -> tuple[list[str], dict[str, tuple[bool, float]]]:
        """The commits touching a symbol (first-seen order) with their sort key after the
        query's own part: (not load-bearing, -time). The same for every query of a generation,
        so it is kept (a hot symbol has hundreds of touches)."""
        got = self._why_keys.get(symbol_id)
        if got is None:
            index = self.index
            cols = index.touch_columns(index.touches_by_symbol, symbol_id, ["sha", "commit_time"])
            seen: dict[str, datetime] = {}
            for sha, when in zip(cols["sha"], cols["commit_time"], strict=True):
                seen.setdefault(sha, when)
            field = index.commit_field
            keys = {
                sha: (field(sha, "intent") not in LOAD_BEARING, -when.timestamp())
                for sha, when in seen.items()
            }
            got = self._why_keys[symbol_id] = (list(seen), keys)
        return got

    def _why_order(self, symbol_id: str) -> tuple[list[str], dict[str, int]]:
        """The symbol's commits in the order `_why` prefers them before the query has a say
        (stable on first-seen order), and each one's place in it: once per generation."""
        got = self._why_sorted.get(symbol_id)
        if got is None:
            made = self._why_all
            if made is not None:
                order = made.get(symbol_id, [])
            else:
                shas, keys = self._symbol_commits(symbol_id)
                order = sorted(shas, key=keys.__getitem__)
            got = self._why_sorted[symbol_id] = (order, {s: i for i, s in enumerate(order)})
        return got

    def _why(self, symbol_id: str, candidate_shas: set[str], limit: int) -> list[CommitRef]:
        # the query's candidates first, then the rest, each part in the kept order: the same
        # as sorting every commit by (not a candidate, kept key) with ties in first-seen order
        order, place = self._why_order(symbol_id)
        mine = sorted((s for s in candidate_shas if s in place), key=place.__getitem__)
        picked = mine[:limit]
        if len(picked) < limit:
            chosen = set(picked)
            for sha in order:
                if sha not in chosen:
                    picked.append(sha)
                    if len(picked) == limit:
                        break
        out = []
        for sha in picked:
            c = self.index.commits.get(sha)
            if c is None:
                continue
            out.append(
                CommitRef(
                    sha=sha,
                    short=sha[:10],
                    date=iso_date(c["commit_time"]),
                    intent=c["intent"],
                    subject=c["subject"] or "",
                )
            )
        return out


# a version a question names (`5.1.0`, `v2.0.0-rc.1`)
_VERSION_WORD = compile_pattern(r"(?<![\w.])v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)(?![\w-])")
# a word of a question that may be a file's path: no spaces, quotes, brackets or separators
_PATH_TOKEN = compile_pattern(r"[^\s\"'`()\[\]<>,;|]+")


def _path_words(text: str) -> list[str]:
    """The words of `text` that may be files' paths, without the punctuation ending a
    sentence, each once."""
    return list(dict.fromkeys(w.rstrip(".:?!") for w in _PATH_TOKEN.findall(text)))


OWN_COMMIT_DEPTH = 50  # how deep a named function's own commit is looked for
_PATH_PARTS = compile_pattern(r"[/._-]+")  # a path's folder and file name parts

# route -> (plain list, its weight, RRF k) fused into the route's order (`_blend_baseline`):
# "bm25", "vec" (the two-stage vectors) or "hybrid" (their plain RRF). "coupled" is a co-change
# question naming its file (the route is sure: nothing fused), "coupled_guess" one whose file is
# guessed from the first results. Chosen per route over dev and the retired held-out splits, by
# leave-one-split-out cross-validation of nDCG@5 less the per-class shortfalls against the
# baselines (benchmarks/RESULTS.md); a small k keeps the plain list's first places in front.
# A "why" question's, and a question of no class's, is BM25's at half weight, chosen on real
# histories ("why was X fixed" asked of the commits that did it, a bug reported in its fix's
# words: `benchmarks/real.py` items 9 and 10): there the vectors miss many a commit whose
# subject the question words, and a hybrid or vector list pushed such a commit, first in BM25
# and in the route's order, out of the first places.
BASELINE_BLEND: dict[str, tuple[str | None, float, int]] = {
    "behavioral": ("bm25", 0.5, 10),
    "causal": ("bm25", 0.5, 30),
    "change": ("hybrid", 0.5, 30),
    "coupled": (None, 0.0, 1),
    "coupled_guess": ("hybrid", 1.0, 3),
    "exact": ("vec", 0.25, 10),
    "symptom": ("vec", 0.25, 3),
    "general": ("bm25", 0.5, 3),
}


# route -> the plain list fused instead of `BASELINE_BLEND`'s when none of BM25's first
# `UNSURE_DEPTH` documents holds `UNSURE_COVERAGE` of the question's terms. A "why" question asked
# in a commit's own words finds that commit among BM25's first places; one asked in other words
# (BM25's first documents then miss most of them) is found better by the hybrid list, which the
# vectors bring paraphrases into. On dev and the retired held-out splits a "why" question's
# nDCG@5 went 0.748 -> 0.763 with it (0.762-0.764 for floors of 0.4 to 0.6), and 1,115 "why"
# questions of the real histories, asked in their commits' words (`benchmarks/real.py` item 9),
# kept every first hit. Reading BM25's first document alone gained more on the splits (0.766)
# but lost two first hits of 60 on ripgrep, where a function's name took BM25's first place
# above the commit (benchmarks/RESULTS.md).
UNSURE_BLEND: dict[str, str] = {"causal": "hybrid"}
UNSURE_COVERAGE = 0.5
UNSURE_DEPTH = 3


def _blend_key(run: _Run) -> str:
    cls = run.route.query_class
    if cls == "coupled" and not run.anchors:
        return "coupled_guess"
    return cls


def rerank_weights(route: Route, w_graph: float, base_graph: float) -> dict[str, float]:
    """The reranker's weights for a route. A co-change question's answer shares no words with
    it: the graph's order counts most. Otherwise the graph's activation counts as much as the
    route trusts the graph path (`w_graph`, its fused weight, against the configured
    `base_graph`): a lookup or a question about one function, which turned the graph path down,
    is not re-ranked by it either."""
    if route.query_class == "coupled":
        return COUPLED_RERANK
    share = min(1.0, w_graph / base_graph) if base_graph > 0 else 0.0
    return {**WEIGHTS, "graph": WEIGHTS["graph"] * share}


def _is_test_path(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    return (
        path.startswith("tests/")
        or "/tests/" in path
        or "/__tests__/" in path
        or name.startswith("test_")
        or "_test." in name
        or ".test." in name
        or ".spec." in name
    )


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)


def _unit_rows(m: np.ndarray) -> np.ndarray:
    """`m` with each row scaled to unit length (a zero row stays zero)."""
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)
