"""The `cochange` stage: temporal co-change of files and symbols, and its CSR graph.

Pure: `touches`, `commits`, `files` and `symbols` in, tables out. Invariants:

- W(A, B) = sum over co-commits c of exp(-lambda (t_now - t_c)) / sqrt(|C_A| |C_B|), with
  lambda = ln 2 / half-life and t_now the newest indexed commit (not the wall clock), so the same
  history always gives the same weights. P(B | A) = |C_A & C_B| / |C_A|.
- `rank_score` orders A's partners ("what else must change"): `partner_score`, with its own
  half-life (`rank_half_life_days`) and each co-commit counted by its size
  (`rank_commit_size_power`).
- Bulk commits are left out entirely (neither pairs nor |C_A|); file pairs need
  `file_min_support` co-commits (1 by default, so a file with a single co-change still gets an
  answer, served as weak), symbol pairs and the graph's edges `min_support`; files follow renames
  through `touches.head_path`; only nodes that exist at HEAD are kept (a deleted partner cannot
  be changed).
- Every edge is stored in both directions; `graph` keeps each node's `max_edges_per_node`
  out-edges of highest `rank_score` in CSR order (see store/schemas.py).
- Pairs are built with Polars joins, never with Python loops over pairs.
- `hidden` (changed together, no import path between them in either direction, up to
  `IMPORT_HOPS` imports) is asserted only when both files are in a language whose imports are
  resolved (`chunking.RESOLVED_LANGUAGES`); otherwise it is null, unknown.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pyarrow as pa

from ..store import schemas
from ..store.config import GraphConfig
from ..store.ids import MODULE_SYMBOL
from .chunking import RESOLVED_LANGUAGES
from .frames import frame

DAY = 86_400.0


def decay_rate(half_life_days: float) -> float:
    """lambda per second."""
    return math.log(2.0) / (half_life_days * DAY)


def partner_stats(
    events: pl.DataFrame,
    *,
    t_now: int,
    rate: float,
    rank_rate: float | None = None,
    size_power: float = 0.0,
) -> pl.DataFrame:
    """Directed pair statistics from `events` (columns sha, t (unix s), node): one row per
    ordered pair (a, b) that co-changed at least once, with
    co (co-commits), na / nb (commits of a / b), dsum (sum of exp(-rate (t_now - t_c))),
    rsum (the same sum with `rank_rate`, default `rate`, each commit weighted by
    1 / (its nodes - 1) ** `size_power`), last (newest t_c).
    """
    rank_rate = rate if rank_rate is None else rank_rate
    ev = events.select("sha", "t", "node").unique()
    counts = ev.group_by("node").agg(pl.len().cast(pl.Int64).alias("n"))
    size = ev.group_by("sha").agg(pl.len().alias("k"))
    ev = ev.join(size, on="sha").with_columns(
        ((pl.lit(t_now) - pl.col("t")).cast(pl.Float64) * -rate).exp().alias("d"),
        (
            ((pl.lit(t_now) - pl.col("t")).cast(pl.Float64) * -rank_rate).exp()
            / (pl.col("k") - 1).clip(lower_bound=1).cast(pl.Float64).pow(size_power)
        ).alias("r"),
    )
    left = ev.select("sha", "t", "d", "r", pl.col("node").alias("a"))
    right = ev.select("sha", pl.col("node").alias("b"))
    pairs = (
        left.join(right, on="sha")
        .filter(pl.col("a") < pl.col("b"))
        .group_by("a", "b")
        .agg(
            pl.len().cast(pl.Int64).alias("co"),
            pl.col("d").sum().alias("dsum"),
            pl.col("r").sum().alias("rsum"),
            pl.col("t").max().alias("last"),
        )
        .join(counts.rename({"node": "a", "n": "na"}), on="a")
        .join(counts.rename({"node": "b", "n": "nb"}), on="b")
    )
    cols = ["co", "dsum", "rsum", "last"]
    forward = pairs.select("a", "b", *cols, "na", "nb")
    backward = pairs.select(
        pl.col("b").alias("a"),
        pl.col("a").alias("b"),
        *cols,
        pl.col("nb").alias("na"),
        pl.col("na").alias("nb"),
    )
    return pl.concat([forward, backward])


def partner_score() -> pl.Expr:
    """How strongly `b` is expected to change when `a` does, over `partner_stats` columns:
    a recency- and size-weighted P(b | a), the sum over co-commits c of
    exp(-lambda_r (t_now - t_c)) / (|c| - 1) ** p, over |C_a|, with the rank half-life (2 years
    by default), |c| the files (or symbols) of c and p = `rank_commit_size_power` (0.25). For
    one `a` it orders partners by co-commits, a recent one counting more than an old one and
    one of a small commit more than one of a sweeping change; so it keeps raw counts' strength,
    where W, Ochiai and code-maat divide by the partner's own change count and lose to
    counting. Chosen on the temporal hold-out of real histories (benchmarks/cochange_holdout.py):
    over counting alone, and over recency alone with a 4-year half-life, it lists more of the
    files a later commit changes in its first five."""
    return pl.col("rsum") / pl.col("na")


def pair_table(
    events: pl.DataFrame,
    *,
    t_now: int,
    rate: float,
    rank_rate: float,
    size_power: float,
    min_support: int,
) -> pl.DataFrame:
    """Directed co-change rows (src, dst, co_commits, src_commits, dst_commits, weight,
    confidence, rank_score, last_co_commit) with at least `min_support` co-commits."""
    stats = partner_stats(
        events, t_now=t_now, rate=rate, rank_rate=rank_rate, size_power=size_power
    ).filter(pl.col("co") >= min_support)
    na, nb = pl.col("na").cast(pl.Float64), pl.col("nb").cast(pl.Float64)
    return stats.select(
        pl.col("a").alias("src"),
        pl.col("b").alias("dst"),
        pl.col("co").cast(pl.Int32).alias("co_commits"),
        pl.col("na").cast(pl.Int32).alias("src_commits"),
        pl.col("nb").cast(pl.Int32).alias("dst_commits"),
        (pl.col("dsum") / (na * nb).sqrt()).cast(pl.Float32).alias("weight"),
        (pl.col("co") / na).cast(pl.Float32).alias("confidence"),
        partner_score().cast(pl.Float32).alias("rank_score"),
        pl.from_epoch("last", time_unit="s").alias("last_co_commit"),
    ).sort("src", "dst")


def _seconds(col: str) -> pl.Expr:
    return pl.col(col).dt.epoch("s")


# An import path is followed for at most this many imports (a test requiring the package's index,
# which requires the module, which requires the helper is 3), and a step stops growing past
# IMPORT_PATH_ROWS rows, so a huge import graph costs a bounded join; a pair linked only by a
# longer path stays hidden.
IMPORT_HOPS = 3
IMPORT_PATH_ROWS = 2_000_000


def _import_pairs(files: pa.Table, starts: pl.Series) -> pl.DataFrame:
    """(a, b), in both orders, for every file a in `starts` with an import path to b (a imports
    b, or imports a file that imports b, ... up to IMPORT_HOPS): the import-linked pairs."""
    df = frame(files.select(["path", "imports_resolved"]))
    edges = (
        df.explode("imports_resolved")
        .drop_nulls("imports_resolved")
        .select(pl.col("path").alias("a"), pl.col("imports_resolved").alias("b"))
        .unique()
    )
    reach = edges.filter(pl.col("a").is_in(starts.unique().implode()))
    frontier = reach
    step_edges = edges.rename({"a": "b", "b": "c"})
    out_degree = edges.group_by(pl.col("a").alias("b")).len()
    for _ in range(IMPORT_HOPS - 1):
        grows = frontier.join(out_degree, on="b")["len"].sum()
        if frontier.is_empty() or reach.height + grows > IMPORT_PATH_ROWS:
            break
        frontier = (
            frontier.join(step_edges, on="b")
            .select("a", pl.col("c").alias("b"))
            .filter(pl.col("a") != pl.col("b"))
            .unique()
            .join(reach, on=["a", "b"], how="anti")
        )
        reach = pl.concat([reach, frontier])
    return pl.concat([reach, reach.select(pl.col("b").alias("a"), pl.col("a").alias("b"))]).unique()


def _resolved_paths(files: pa.Table) -> pl.Series:
    """HEAD paths in a language whose imports are resolved (see chunking.RESOLVED_LANGUAGES)."""
    df = frame(files.select(["path", "language"]))
    return df.filter(pl.col("language").is_in(sorted(RESOLVED_LANGUAGES)))["path"]


def _hidden(no_link: pl.Expr, a: str, b: str, sure: pl.Series) -> pl.Expr:
    """True: no import link; False: linked (or the same file); null: unknown, because one side's
    imports are not resolved, so a missing link proves nothing."""
    known = pl.col(a).is_in(sure.implode()) & pl.col(b).is_in(sure.implode())
    return pl.when(no_link.not_() | known).then(no_link).otherwise(None).alias("hidden")


def build(
    touches: pa.Table,
    commits: pa.Table,
    files: pa.Table,
    symbols: pa.Table,
    config: GraphConfig,
) -> dict[str, pa.Table]:
    """`cochange_files`, `cochange_symbols`, `graph_nodes` and `graph`."""
    cdf = frame(commits.select(["sha", "commit_time", "bulk"]))
    t_now = int(cdf.select(_seconds("commit_time").max()).item() or 0)
    rate = decay_rate(config.half_life_days)
    rank_rate = decay_rate(config.rank_half_life_days)
    keep = cdf.filter(~pl.col("bulk")).select("sha")
    tdf = frame(touches.select(["sha", "commit_time", "head_path", "symbol_id", "qualname"]))
    tdf = tdf.join(keep, on="sha", how="semi").with_columns(_seconds("commit_time").alias("t"))
    head_files = frame(files.select(["path"]))
    sure = _resolved_paths(files)
    linked = _import_pairs(files, sure)

    def pairs(events: pl.DataFrame, min_support: int) -> pl.DataFrame:
        return pair_table(
            events,
            t_now=t_now,
            rate=rate,
            rank_rate=rank_rate,
            size_power=config.rank_commit_size_power,
            min_support=min_support,
        )

    file_events = tdf.select("sha", "t", pl.col("head_path").alias("node"))
    fpairs = pairs(file_events, config.file_min_support)
    fpairs = _at_head(fpairs, head_files["path"])
    fpairs = fpairs.join(
        linked.with_columns(pl.lit(True).alias("linked")),
        left_on=["src", "dst"],
        right_on=["a", "b"],
        how="left",
    ).with_columns(_hidden(pl.col("linked").is_null(), "src", "dst", sure))

    sdf = tdf.filter(pl.col("symbol_id").is_not_null())
    if not config.module_symbols:
        sdf = sdf.filter(pl.col("qualname") != MODULE_SYMBOL)
    per_commit = sdf.group_by("sha").agg(pl.col("symbol_id").n_unique().alias("k"))
    small = per_commit.filter(pl.col("k") <= config.max_symbols_per_commit).select("sha")
    sym_events = sdf.join(small, on="sha", how="semi").select(
        "sha", "t", pl.col("symbol_id").alias("node")
    )
    spairs = pairs(sym_events, config.min_support)
    head_syms = frame(symbols.select(["symbol_id", "path", "qualname"])).unique("symbol_id")
    spairs = _at_head(spairs, head_syms["symbol_id"])
    src_info = head_syms.rename(
        {"symbol_id": "src", "path": "src_path", "qualname": "src_qualname"}
    )
    dst_info = head_syms.rename(
        {"symbol_id": "dst", "path": "dst_path", "qualname": "dst_qualname"}
    )
    spairs = spairs.join(src_info, on="src").join(dst_info, on="dst")
    spairs = spairs.join(
        linked.with_columns(pl.lit(True).alias("linked")),
        left_on=["src_path", "dst_path"],
        right_on=["a", "b"],
        how="left",
    ).with_columns(
        _hidden(
            pl.col("linked").is_null() & (pl.col("src_path") != pl.col("dst_path")),
            "src_path",
            "dst_path",
            sure,
        )
    )
    cf = fpairs.select(schemas.COCHANGE_FILES.names).sort("src", "dst")
    cs = spairs.select(schemas.COCHANGE_SYMBOLS.names).sort("src", "dst")
    file_n = file_events.unique().group_by("node").len()
    sym_n = sym_events.unique().group_by("node").len()
    # weak file pairs are served by preflight, but stay out of search's spreading activation
    strong = cf.filter(pl.col("co_commits") >= config.min_support)
    nodes, edges = build_graph(strong, cs, file_n, sym_n, head_syms, config.max_edges_per_node)
    return {
        "cochange_files": _arrow(cf, schemas.COCHANGE_FILES),
        "cochange_symbols": _arrow(cs, schemas.COCHANGE_SYMBOLS),
        "graph_nodes": nodes,
        "graph": edges,
    }


def _at_head(pairs: pl.DataFrame, present: pl.Series) -> pl.DataFrame:
    keep = present.implode()
    return pairs.filter(pl.col("src").is_in(keep) & pl.col("dst").is_in(keep))


def _arrow(df: pl.DataFrame, schema: pa.Schema) -> pa.Table:
    table = df.to_arrow()
    return pa.table(
        [table[name].cast(f.type) for name, f in zip(schema.names, schema, strict=True)],
        schema=schema,
    )


def build_graph(
    cf: pl.DataFrame,
    cs: pl.DataFrame,
    file_n: pl.DataFrame,
    sym_n: pl.DataFrame,
    head_syms: pl.DataFrame,
    max_edges: int,
) -> tuple[pa.Table, pa.Table]:
    """CSR over file nodes then symbol nodes; each node's out-edges sorted by rank_score."""
    fkeys = sorted(set(cf["src"].to_list()))
    skeys = sorted(set(cs["src"].to_list()))
    sym_path = dict(zip(head_syms["symbol_id"].to_list(), head_syms["path"].to_list(), strict=True))
    keys = fkeys + skeys
    index = pl.DataFrame(
        {"key": keys, "i": np.arange(len(keys), dtype=np.int32)},
        schema={"key": pl.String, "i": pl.Int32},
    )
    parts = []
    for df in (cf, cs):
        e = df.select(
            "src",
            "dst",
            "weight",
            "confidence",
            "co_commits",
            pl.col("hidden").not_().fill_null(False).alias("import_linked"),
            "rank_score",
        )
        e = e.join(index.rename({"key": "src", "i": "s"}), on="src").join(
            index.rename({"key": "dst", "i": "d"}), on="dst"
        )
        parts.append(
            e.select(
                pl.col("s").alias("src"),
                pl.col("d").alias("dst"),
                "weight",
                "confidence",
                "co_commits",
                "import_linked",
                "rank_score",
            )
        )
    edges = pl.concat(parts) if parts else pl.DataFrame()
    edges = (
        edges.sort(["src", "rank_score", "dst"], descending=[False, True, False])
        .with_columns(pl.int_range(pl.len()).over("src").alias("_rank"))
        .filter(pl.col("_rank") < max_edges)
        .drop("_rank")
    )
    src = edges["src"].to_numpy()
    counts = np.bincount(src, minlength=len(keys)).astype(np.int32)
    starts = (np.cumsum(counts, dtype=np.int64) - counts).astype(np.int64)
    ncount = dict(zip(file_n["node"].to_list(), file_n["len"].to_list(), strict=True))
    scount = dict(zip(sym_n["node"].to_list(), sym_n["len"].to_list(), strict=True))
    nodes = pa.table(
        {
            "key": pa.array(keys, pa.string()),
            "kind": pa.array(["file"] * len(fkeys) + ["symbol"] * len(skeys), pa.string()),
            "path": pa.array(fkeys + [sym_path[k] for k in skeys], pa.string()),
            "commits": pa.array(
                [ncount.get(k, 0) for k in fkeys] + [scount.get(k, 0) for k in skeys], pa.int32()
            ),
            "edge_start": pa.array(starts, pa.int64()),
            "edge_count": pa.array(counts, pa.int32()),
        },
        schema=schemas.GRAPH_NODES,
    )
    return nodes, _arrow(edges, schemas.GRAPH)
