"""Tri-path retrieval: BM25 + two-stage vectors + co-change graph, fused and reranked.

    route  -> BM25 (Tantivy) and vectors (1-bit Hamming -> int8 rescoring) in parallel rankings
           -> preliminary RRF seeds one-hop spreading activation over the co-change graph
           -> time-decayed RRF of the three rankings -> interaction reranker on the top N
           -> commit slot budget -> named-symbol pinning -> hits with evidence and "why" commits

Modes run the baselines through the same code: `bm25` (BM25 only), `dense` (exact float32
cosine only), `hybrid` (plain RRF of BM25 and exact float32), `full` (everything above).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..store.config import RetrievalConfig
from ..store.embedder import Embedder
from ..store.fulltext import FullText
from ..store.generations import Generation
from ..store.globs import compile_glob
from ..store.tokenizer import query_terms
from ..store.vocabulary import LOAD_BEARING
from .docs import DocTable
from .fusion import pin, rank_by, recency_array, slot_budget, spread_activation, td_rrf
from .graph import CoGraph
from .index import ServeIndex, iso_date
from .models import CommitRef, Evidence, Hit, SearchResponse
from .rerank import WEIGHTS, Candidate, rerank
from .router import Route, classify
from .vectors import VectorIndex

MODES = ("full", "bm25", "dense", "hybrid")
# co-change answers share few words with the question: co-change activation counts most
COUPLED_RERANK = {**WEIGHTS, "graph": 1.5}
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


class Searcher:
    def __init__(self, gen: Generation, index: ServeIndex) -> None:
        self.gen = gen
        self.index = index
        self.docs = DocTable(gen)
        self.t_now = float(self.docs.time.max()) if self.docs.n else 0.0

    @cached_property
    def fulltext(self) -> FullText:
        return FullText.open(self.gen.file("fulltext"))

    @cached_property
    def embedder(self) -> Embedder:
        return Embedder.load(self.gen.file("embedder"))

    @cached_property
    def vectors(self) -> VectorIndex:
        return VectorIndex.open(self.gen.path, embedder=self.embedder)

    @cached_property
    def graph(self) -> CoGraph | None:
        return CoGraph(self.gen) if self.gen.has("graph") and self.gen.has("graph_nodes") else None

    @cached_property
    def f32(self) -> np.ndarray:
        """Exact float32 vectors, full dimension, unit rows (baselines and ablation only)."""
        t = self.gen.table("vectors_f32", columns=["vector"])
        col = t.column("vector").combine_chunks()
        dim = col.type.list_size
        m = col.values.to_numpy(zero_copy_only=False).reshape(len(col), dim).astype(np.float32)
        norms = np.linalg.norm(m, axis=1, keepdims=True)
        return np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)

    def warm(self) -> None:
        self.docs.warm()
        _ = self.fulltext, self.embedder, self.graph
        self.vectors.warm()
        if self.graph is not None:
            _ = self.graph.node_of

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
        lowered = query.lower()
        for path in self.docs.by_path:
            base = path.rsplit("/", 1)[-1].lower()
            if path.lower() in lowered or (len(base) > 4 and "." in base and base in lowered):
                named[path] = 1.0
        if named:
            return named, True
        guessed: dict[str, float] = {}
        for row in prelim:
            p = self.docs.path[row]
            if p and self.docs.is_code(row) and p not in guessed:
                guessed[p] = (1.0, 0.6, 0.4)[len(guessed)]
                if len(guessed) == 3:
                    break
        return guessed, False

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

    def _doc_of_node(self, node: int, scores: dict[int, float]) -> int | None:
        g = self.graph
        assert g is not None
        key = g.keys[node]
        if g.kinds[node] == "symbol":
            return self.docs.by_symbol_id.get(key)
        rows = [r for r in self.docs.by_path.get(key, []) if self.docs.is_code(r)]
        if not rows:
            return None
        # the file's best-scoring document so far, else its first symbol (module remainder last)
        return max(
            rows, key=lambda r: (scores.get(r, 0.0), self.docs.qualname[r] != "<module>", -r)
        )

    def _dense(self, query: str, depth: int) -> tuple[list[int], dict[int, float]]:
        q = self.embedder.embed_full([query])[0]
        sims = self.f32 @ q
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
            raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
        lat: dict[str, float] = {}
        t = time.perf_counter()
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
        terms = query_terms(query)
        depth = cfg.path_depth * (4 if file_path else 1)
        lat["route"] = _ms(t)

        def keep(row: int) -> bool:
            return (file_path is None or self._concerns(row, file_path)) and (
                kinds is None or self.docs.kind[row] in kinds or mode != "full"
            )

        evidence: dict[int, Ev] = {}

        def ev(row: int) -> Ev:
            e = evidence.get(row)
            if e is None:
                e = evidence[row] = Ev()
            return e

        rankings: dict[str, list[int]] = {}
        t = time.perf_counter()
        if "bm25" in weights:
            rows, scores = self.fulltext.search_terms(terms, depth)
            ranking = []
            for row, score in zip(rows.tolist(), scores.tolist(), strict=True):
                if keep(row):
                    ranking.append(row)
                    e = ev(row)
                    e.bm25_rank, e.bm25_score = len(ranking), score
            rankings["bm25"] = ranking
        lat["bm25"] = _ms(t)

        t = time.perf_counter()
        qvec = None
        if weights.get("vec", 0) > 0:
            if mode in ("dense", "hybrid") or cfg.exact_vectors:
                rows_l, sims = self._dense(query, depth)
                ranking = [r for r in rows_l if keep(r)]
                for i, r in enumerate(ranking, start=1):
                    e = ev(r)
                    e.vec_rank, e.int8_cos = i, sims[r]
            else:
                qvec = self.embedder.embed_query(query)
                cand, dist = self.vectors.candidates(qvec, max(cfg.stage1_candidates, depth))
                cos = self.vectors.rescore(qvec, cand)
                order = np.lexsort((cand, -cos))
                ranking = []
                for j in order.tolist():
                    r = int(cand[j])
                    if not keep(r):
                        continue
                    ranking.append(r)
                    e = ev(r)
                    e.vec_rank, e.hamming, e.int8_cos = len(ranking), int(dist[j]), float(cos[j])
                    if len(ranking) >= depth:
                        break
            rankings["vec"] = ranking
        lat["vectors"] = _ms(t)

        t = time.perf_counter()
        activation: dict[int, float] = {}
        anchors: set[str] = set()
        if (
            mode == "full"
            and cfg.graph_path
            and weights.get("graph", 0) > 0
            and self.graph is not None
        ):
            prelim = td_rrf(rankings, weights, k=cfg.rrf_k)
            seeds_docs = rank_by(prelim)[:10]
            top = prelim[seeds_docs[0]] if seeds_docs else 1.0
            seeds: dict[int, float] = {}
            for d in seeds_docs:
                for node in self._nodes_of(d):
                    seeds[node] = max(seeds.get(node, 0.0), prelim[d] / top)
            if route.query_class == "coupled":
                anchor_weights, named = self._anchor_files(query, seeds_docs)
                if (
                    anchor_weights
                ):  # the anchor files are the only seeds: their partners are the answer
                    seeds = {}
                for path, weight in anchor_weights.items():
                    node = self.graph.node_of.get(path)
                    if node is not None:
                        seeds[node] = weight
                # only files the question names step back and count as "about to change"
                anchors = set(anchor_weights) if named else set()
            act_nodes = spread_activation(
                seeds, self.graph.neighbours, delta=cfg.graph_decay, gamma=cfg.import_discount
            )
            for node, a in act_nodes.items():
                row = self._doc_of_node(node, prelim)
                if row is not None and keep(row):
                    activation[row] = max(activation.get(row, 0.0), a)
            ranking = sorted(activation, key=lambda r: (-activation[r], r))[:depth]
            for i, r in enumerate(ranking, start=1):
                e = ev(r)
                e.graph_rank, e.graph_activation = i, activation[r]
            rankings["graph"] = ranking
        lat["graph"] = _ms(t)

        t = time.perf_counter()
        use_decay = mode == "full" and cfg.time_decay

        fused = td_rrf(rankings, weights, k=cfg.rrf_k)
        if use_decay and fused:
            rows_arr = np.fromiter(fused, dtype=np.int64, count=len(fused))
            mult = recency_array(
                self.t_now - self.docs.time[rows_arr].astype(np.float64),
                cfg.recency_alpha,
                cfg.recency_half_life_days,
            )
            for r, m in zip(rows_arr.tolist(), mult.tolist(), strict=True):
                fused[r] *= m
                ev(r).recency = m
        ranked = rank_by(fused)
        for r in ranked:
            ev(r).rrf = fused[r]
        final_score = dict(fused)
        lat["fusion"] = _ms(t)

        t = time.perf_counter()
        # a co-change question's answer shares no words with it: the graph's order stands
        if mode == "full" and cfg.reranker and cfg.rerank_top_n > 0 and ranked:
            head = ranked[: cfg.rerank_top_n]
            cands = [
                Candidate(
                    row=r,
                    rrf=fused[r],
                    cos=_r(evidence[r].int8_cos, 4),
                    graph=activation.get(r, 0.0),
                    kind=self.docs.kind[r],
                    intent=self.docs.intent[r],
                )
                for r in head
            ]
            weights_rr = COUPLED_RERANK if route.query_class == "coupled" else None
            scored = rerank(
                cands,
                query,
                terms,
                self.idf,
                self.docs.terms,
                self.docs.text,
                route.prefer,
                weights_rr,
            )
            for c in scored:
                evidence[c.row].rerank = c.rerank
                final_score[c.row] = c.rerank
            ranked = [c.row for c in scored] + ranked[cfg.rerank_top_n :]
        lat["rerank"] = _ms(t)

        if mode == "full" and route.query_class == "coupled" and anchors and cfg.anchor_penalty < 1:
            # the question names these files; its answer is elsewhere
            for r in ranked:
                if self.docs.path[r] in anchors:
                    final_score[r] = final_score.get(r, 0.0) * cfg.anchor_penalty
            ranked = sorted(ranked, key=lambda r: (-final_score.get(r, 0.0), r))

        pinned_row = None
        if mode == "full":
            if cfg.slot_budget:
                ranked = slot_budget(
                    ranked, self.docs.is_commit, cap=route.commit_slots, window=cfg.slot_window
                )
            if cfg.pinning and route.pin and route.query_class in cfg.pin_classes:
                pinned_row = self._named_symbol(route, file_path)
                if pinned_row is not None and keep(pinned_row):
                    ranked = pin(ranked, pinned_row, cfg.pin_position)
                    ev(pinned_row)
                    final_score.setdefault(pinned_row, 0.0)
                else:
                    pinned_row = None

        t = time.perf_counter()
        out_ranked = [
            Ranked(
                row=r,
                score=final_score.get(r, 0.0),
                kind=self.docs.kind[r],
                path=self.docs.path[r],
                qualname=self.docs.qualname[r],
                sha=self.docs.sha[r],
                intent=self.docs.intent[r],
                evidence=evidence[r],
                pinned=r == pinned_row,
            )
            for r in ranked[: max(top_k, 50 if cfg.attach_commits else 10)]
        ]
        candidate_shas = {x.sha for x in out_ranked[:50] if x.kind == "commit" and x.sha}
        hits = [
            self._hit(i, x, cfg, candidate_shas, attach=mode == "full")
            for i, x in enumerate(out_ranked[:top_k], start=1)
        ]
        lat["assemble"] = _ms(t)
        lat["total"] = round(sum(lat.values()), 3)
        response = SearchResponse(
            query=query,
            mode=mode,
            query_class=route.query_class if mode == "full" else mode,
            fusion_weights=weights,
            file_filter=file_path,
            hits=hits,
            latency_ms=lat,
            generation=self.gen.name,
        )
        return SearchResult(
            response=response,
            ranked=out_ranked,
            route=route,
            query_vec=qvec,
            anchors=frozenset(anchors),
        )

    def _named_symbol(self, route: Route, file_path: str | None) -> int | None:
        for name in route.named:
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

    def _hit(
        self, rank: int, x: Ranked, cfg: RetrievalConfig, candidate_shas: set[str], *, attach: bool
    ) -> Hit:
        row = x.row
        text = self.docs.text(row, limit=400)
        title, _, body = text.partition("\n")
        snippet = "\n".join(line for line in body.splitlines() if line.strip())[:300]
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

    def _why(self, symbol_id: str, candidate_shas: set[str], limit: int) -> list[CommitRef]:
        touches = self.index.touches_by_symbol.get(symbol_id, [])
        seen: dict[str, dict] = {}
        for t in touches:
            seen.setdefault(t["sha"], t)

        def prio(sha: str) -> tuple:
            c = self.index.commits.get(sha, {})
            return (sha not in candidate_shas, c.get("intent") not in LOAD_BEARING)

        order = sorted(seen, key=lambda s: (*prio(s), -seen[s]["commit_time"].timestamp()))
        out = []
        for sha in order[:limit]:
            c = self.index.commits.get(sha)
            if c is None:
                continue
            out.append(
                CommitRef(
                    sha=sha,
                    short=sha[:10],
                    date=iso_date(c["author_time"]),
                    intent=c["intent"],
                    subject=c["subject"] or "",
                )
            )
        return out


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)
