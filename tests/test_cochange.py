"""Co-change weights against a hand computation, and the CSR graph's layout."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
import pytest

from gitstrata.stages import cochange
from gitstrata.stages.chunking import detect_language
from gitstrata.store import schemas
from gitstrata.store.config import GraphConfig
from gitstrata.store.ids import symbol_id

DAY = 86_400
T0 = 1_700_000_000


def tables(commits: list[tuple[str, float, list[str]]], imports: dict[str, list[str]], *, bulk=()):
    """commits: (sha, day, [path or path::qualname]); returns touches, commits, files, symbols."""
    crow, trow, syms = [], [], {}
    for sha, day, items in commits:
        t = datetime.fromtimestamp(T0 + int(day * DAY), tz=UTC)
        files = sorted({i.split("::")[0] for i in items})
        crow.append(
            {
                "sha": sha,
                "author_time": t,
                "commit_time": t,
                "intent": "chore",
                "files": len(files),
                "symbols": 0,
                "added": 1,
                "removed": 0,
                "bulk": sha in bulk,
            }
        )
        for item in items:
            path, _, qual = item.partition("::")
            sid = symbol_id(path, qual) if qual else None
            if sid:
                syms[sid] = (path, qual)
            trow.append(
                {
                    "sha": sha,
                    "commit_time": t,
                    "path": path,
                    "status": "M",
                    "head_path": path,
                    "symbol_id": sid,
                    "qualname": qual or None,
                    "added": 1,
                    "removed": 0,
                    "binary": False,
                }
            )
    paths = sorted({r["path"] for r in trow})
    files = [
        {
            "path": p,
            "blob": "0" * 40,
            "size": 1,
            "status": "indexed",
            "language": detect_language(p),
            "imports": imports.get(p, []),
            "imports_resolved": imports.get(p, []),
        }
        for p in paths
    ]
    symbols = [
        {
            "symbol_id": sid,
            "path": p,
            "qualname": q,
            "name": q,
            "kind": "function",
            "start_line": 1,
            "end_line": 2,
            "blob": "0" * 40,
        }
        for sid, (p, q) in sorted(syms.items())
    ]
    return (
        pa.Table.from_pylist(trow, schema=schemas.TOUCHES),
        pa.Table.from_pylist(crow, schema=schemas.COMMITS),
        pa.Table.from_pylist(files, schema=schemas.FILES),
        pa.Table.from_pylist(symbols, schema=schemas.SYMBOLS),
    )


HISTORY = [
    ("c1", 0, ["a.py::f", "b.py::g"]),
    ("c2", 100, ["a.py::f", "b.py::g", "c.py::h"]),
    ("c3", 200, ["a.py::f", "c.py::h"]),
    ("bulk", 250, ["a.py::f", "b.py::g", "c.py::h"]),
    ("c4", 300, ["b.py::g", "d.py::k"]),
]


def decay(days: float, half_life: float = 365.0) -> float:
    return math.exp(-math.log(2) / half_life * days)


def test_files_weight_and_confidence_by_hand():
    t = tables(HISTORY, {"a.py": ["b.py"]}, bulk={"bulk"})
    out = cochange.build(*t, GraphConfig())
    rows = {(r["src"], r["dst"]): r for r in out["cochange_files"].to_pylist()}
    # |C_a| = 3 (c1 c2 c3), |C_b| = 3 (c1 c2 c4), |C_c| = 2; the bulk commit counts for nothing;
    # t_now = day 300; b-c and b-d have one co-commit only: kept (file pairs), served as weak.
    assert sorted(rows) == [
        ("a.py", "b.py"),
        ("a.py", "c.py"),
        ("b.py", "a.py"),
        ("b.py", "c.py"),
        ("b.py", "d.py"),
        ("c.py", "a.py"),
        ("c.py", "b.py"),
        ("d.py", "b.py"),
    ]
    assert rows[("b.py", "d.py")]["co_commits"] == 1
    ab = rows[("a.py", "b.py")]
    assert ab["weight"] == pytest.approx((decay(300) + decay(200)) / math.sqrt(3 * 3), rel=1e-6)
    assert (ab["co_commits"], ab["src_commits"], ab["dst_commits"]) == (2, 3, 3)
    assert ab["confidence"] == pytest.approx(2 / 3)
    # the directed ranking score: co-commits decayed with the rank half-life (2 years), each
    # over (its files - 1) ** 0.25 (c2 changed three files), over the source's commits
    assert ab["rank_score"] == pytest.approx(
        (decay(300, 730) + decay(200, 730) / 2**0.25) / 3, rel=1e-6
    )
    assert rows[("c.py", "a.py")]["rank_score"] == pytest.approx(
        (decay(200, 730) / 2**0.25 + decay(100, 730)) / 2, rel=1e-6
    )
    assert ab["hidden"] is False and rows[("b.py", "a.py")]["hidden"] is False
    ac, ca = rows[("a.py", "c.py")], rows[("c.py", "a.py")]
    assert ac["weight"] == pytest.approx((decay(200) + decay(100)) / math.sqrt(3 * 2), rel=1e-6)
    assert ca["weight"] == ac["weight"]
    assert (ac["confidence"], ca["confidence"]) == (pytest.approx(2 / 3), pytest.approx(1.0))
    assert ac["hidden"] is True and ca["hidden"] is True
    assert ac["last_co_commit"].timestamp() == T0 + 200 * DAY


def test_hidden_is_unknown_where_imports_are_not_resolved():
    # a.py imports b.py; c.py and notes.md are never linked, but only c.py's silence means
    # anything: Markdown has no imports we resolve
    history = [("x", 1, ["a.py", "b.py", "c.py", "notes.md"]), ("y", 2, ["a.py", "notes.md"])]
    out = cochange.build(*tables(history, {"a.py": ["b.py"]}), GraphConfig(min_support=1))
    rows = {(r["src"], r["dst"]): r["hidden"] for r in out["cochange_files"].to_pylist()}
    assert rows[("a.py", "b.py")] is False and rows[("a.py", "c.py")] is True
    assert rows[("a.py", "notes.md")] is None and rows[("notes.md", "c.py")] is None
    linked = {(r["src"], r["dst"]): r["import_linked"] for r in _graph_edges(out)}
    assert linked[("a.py", "b.py")] is True and linked[("a.py", "notes.md")] is False


def _graph_edges(out: dict[str, pa.Table]) -> list[dict]:
    keys = out["graph_nodes"]["key"].to_pylist()
    return [dict(r, src=keys[r["src"]], dst=keys[r["dst"]]) for r in out["graph"].to_pylist()]


def test_half_life_and_min_support_are_configurable():
    t = tables(HISTORY, {}, bulk={"bulk"})
    cfg = GraphConfig(half_life_days=30, rank_half_life_days=60, min_support=1)
    out = cochange.build(*t, cfg)
    rows = {(r["src"], r["dst"]): r for r in out["cochange_files"].to_pylist()}
    assert rows[("b.py", "c.py")]["weight"] == pytest.approx(
        decay(200, 30) / math.sqrt(6), rel=1e-5
    )
    assert rows[("b.py", "c.py")]["rank_score"] == pytest.approx(
        decay(200, 60) / 2**0.25 / 3, rel=1e-5
    )
    assert rows[("b.py", "d.py")]["confidence"] == pytest.approx(1 / 3)
    assert out["graph"].num_rows == 16  # min support 1: 8 file + 8 symbol edges, weak ones too
    out = cochange.build(*t, GraphConfig(file_min_support=2))
    assert out["cochange_files"].num_rows == 4


def test_a_co_commit_in_a_small_commit_ranks_above_one_in_a_sweeping_change():
    # b and c each changed once with a, on the same day: b in a two-file commit, c in a commit
    # of five files, which says less about a and c belonging together
    history = [
        ("small", 10, ["a.py", "b.py"]),
        ("wide", 10, ["a.py", "c.py", "d.py", "e.py", "f.py"]),
    ]
    rank = {}
    for power in (0.25, 0.0):
        out = cochange.build(*tables(history, {}), GraphConfig(rank_commit_size_power=power))
        rank[power] = {
            r["dst"]: r["rank_score"]
            for r in out["cochange_files"].to_pylist()
            if r["src"] == "a.py"
        }
    assert rank[0.25]["b.py"] == pytest.approx(
        2**0.5 * rank[0.25]["c.py"]
    )  # 1 / 1 vs 1 / 4 ** 0.25
    assert rank[0.0]["b.py"] == rank[0.0]["c.py"]  # size ignored: counts and recency only
    assert GraphConfig().rank_commit_size_power == 0.25


def test_symbols_and_graph_csr():
    t = tables(HISTORY, {"a.py": ["b.py"]}, bulk={"bulk"})
    out = cochange.build(*t, GraphConfig())
    srows = {(r["src_qualname"], r["dst_qualname"]): r for r in out["cochange_symbols"].to_pylist()}
    assert sorted(srows) == [("f", "g"), ("f", "h"), ("g", "f"), ("h", "f")]
    assert srows[("f", "g")]["hidden"] is False and srows[("f", "h")]["hidden"] is True
    assert srows[("f", "h")]["weight"] == pytest.approx(
        (decay(200) + decay(100)) / math.sqrt(6), rel=1e-6
    )
    nodes, edges = out["graph_nodes"], out["graph"]
    assert nodes.schema.equals(schemas.GRAPH_NODES) and edges.schema.equals(schemas.GRAPH)
    keys = nodes["key"].to_pylist()
    assert keys[:3] == ["a.py", "b.py", "c.py"]
    assert nodes["kind"].to_pylist() == ["file"] * 3 + ["symbol"] * 3
    start = nodes["edge_start"].to_numpy()
    count = nodes["edge_count"].to_numpy()
    src, dst = edges["src"].to_numpy(), edges["dst"].to_numpy()
    weight = edges["weight"].to_numpy()
    rank = {
        (r["src"], r["dst"]): r["rank_score"]
        for t in ("cochange_files", "cochange_symbols")
        for r in out[t].to_pylist()
    }
    assert np.array_equal(start, np.concatenate([[0], np.cumsum(count)[:-1]]))
    for i in range(len(keys)):
        s, e = start[i], start[i] + count[i]
        assert (src[s:e] == i).all()
        score = [rank[(keys[i], keys[d])] for d in dst[s:e]]
        assert score == sorted(score, reverse=True)
    # 4 file + 4 symbol edges: the graph keeps min support 2, so b-c and b-d (one co-commit
    # each) are file rows only
    assert edges.num_rows == 8 and out["cochange_files"].num_rows == 8
    a = keys.index("a.py")
    s, e = start[a], start[a] + count[a]
    linked = edges["import_linked"].to_pylist()[s:e]
    got = [(keys[d], float(w), ln) for d, w, ln in zip(dst[s:e], weight[s:e], linked, strict=True)]
    ab = (decay(300) + decay(200)) / 3
    ac = (decay(200) + decay(100)) / math.sqrt(6)
    assert got == [("c.py", pytest.approx(ac), False), ("b.py", pytest.approx(ab), True)]


def test_max_edges_per_node_keeps_the_strongest():
    hist = [(f"c{i}", i, ["hub.py", f"p{i % 3}.py"]) for i in range(9)]
    hist += [("x", 20, ["hub.py", "p2.py"]), ("y", 21, ["hub.py", "p2.py"])]
    out = cochange.build(*tables(hist, {}), GraphConfig(max_edges_per_node=1))
    nodes, edges = out["graph_nodes"], out["graph"]
    hub = nodes["key"].to_pylist().index("hub.py")
    assert nodes["edge_count"][hub].as_py() == 1
    dst = edges["dst"][nodes["edge_start"][hub].as_py()].as_py()
    assert nodes["key"][dst].as_py() == "p2.py"
    assert out["cochange_files"].num_rows == 6


def test_empty_history():
    empty = [
        schemas.TOUCHES.empty_table(),
        schemas.COMMITS.empty_table(),
        schemas.FILES.empty_table(),
        schemas.SYMBOLS.empty_table(),
    ]
    out = cochange.build(*empty, GraphConfig())
    assert {k: v.num_rows for k, v in out.items()} == {
        "cochange_files": 0,
        "cochange_symbols": 0,
        "graph_nodes": 0,
        "graph": 0,
    }


def test_an_import_path_through_other_files_is_a_link():
    # t.js requires index.js, which requires lib/a.js, which requires lib/u.js: t.js and
    # lib/u.js are linked through a path of three imports; t.js and lib/far.js need four
    imports = {
        "t.js": ["index.js"],
        "index.js": ["lib/a.js"],
        "lib/a.js": ["lib/u.js"],
        "lib/u.js": ["lib/far.js"],
        "s.js": ["lib/u.js"],
    }
    files = ["t.js", "lib/u.js", "lib/far.js", "index.js", "lib/a.js", "other.js", "s.js"]
    history = [("x", 1, files)]
    out = cochange.build(*tables(history, imports), GraphConfig())
    rows = {(r["src"], r["dst"]): r["hidden"] for r in out["cochange_files"].to_pylist()}
    assert rows[("t.js", "lib/u.js")] is False and rows[("lib/u.js", "t.js")] is False
    assert rows[("index.js", "lib/far.js")] is False
    assert rows[("t.js", "lib/far.js")] is True and rows[("t.js", "other.js")] is True
    # files that share a dependency have no path between them
    assert rows[("s.js", "lib/a.js")] is True and rows[("s.js", "lib/far.js")] is False
