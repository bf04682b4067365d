"""What `gitstrata inspect` shows: coupling hotspots, hidden couplings, load-bearing files, and
the index's footprint on disk and in the serving process's memory (what it maps)."""

from __future__ import annotations

from typing import Any

from . import filekind
from .generations import Generation
from .schemas import WEAK_BELOW
from .tables import run_sql

SERVED = ("docmeta", "vectors_bits", "vectors_i8", "graph", "graph_nodes")


def inspect_index(gen: Generation, limit: int = 10) -> dict[str, Any]:
    def rows(sql: str) -> list[dict[str, Any]]:
        return run_sql(gen, sql).to_dicts()

    out: dict[str, Any] = {"generation": gen.name, "head": gen.manifest.repo_head}
    if gen.has("cochange_files"):
        # code files: a changelog, a lock file or a manifest changes with everything and
        # would head the list without telling anyone anything
        every = rows(
            "SELECT src AS path, count(*) AS partners, sum(co_commits) AS co_commits, "
            "round(max(CAST(weight AS DOUBLE)), 3) AS max_w FROM cochange_files "
            f"WHERE co_commits >= {WEAK_BELOW} "
            "GROUP BY src ORDER BY partners DESC, co_commits DESC, path"
        )
        out["hotspots"] = [r for r in every if filekind.is_code(r["path"])][:limit]
        # each pair once, by the partner ranking of its stronger direction
        out["hidden_couplings"] = rows(
            "SELECT f.src AS a, f.dst AS b, "
            "round(CAST(greatest(f.rank_score, r.rank_score) AS DOUBLE), 3) AS score, "
            "f.co_commits AS co_commits, round(CAST(f.confidence AS DOUBLE), 2) AS p_b_given_a, "
            "round(CAST(r.confidence AS DOUBLE), 2) AS p_a_given_b, "
            "round(CAST(f.weight AS DOUBLE), 3) AS w "
            "FROM cochange_files f JOIN cochange_files r ON f.src = r.dst AND f.dst = r.src "
            f"WHERE f.hidden AND f.src < f.dst AND f.co_commits >= {WEAK_BELOW} "
            f"ORDER BY score DESC, a, b LIMIT {limit}"
        )
    if gen.has("blame"):
        out["load_bearing_files"] = rows(
            "SELECT path, sum(lines) AS bugfix_lines, count(DISTINCT sha) AS fix_commits FROM blame "
            "WHERE load_bearing AND qualname = '<module>' GROUP BY path "
            f"ORDER BY bugfix_lines DESC, path LIMIT {limit}"
        )
    disk: dict[str, int] = {}
    kept_floats = False  # `embedding.float_vectors`: the float16 vectors kept beside the codes
    for rec in gen.manifest.stages.values():
        for name, info in rec.outputs.items():
            disk[name] = info.bytes
            if name == "vectors_f32":
                kept_floats = bool(info.rows)
    out["bytes_on_disk"] = sum(disk.values())
    out["bytes_mapped_copies"] = gen.mapped_bytes()
    out["bytes_mapped_by_server"] = sum(v for k, v in disk.items() if k in SERVED)
    out["bytes_f32_vectors_on_disk"] = disk.get("vectors_f32", 0)
    out["float_vectors_kept"] = kept_floats
    out["tables"] = disk
    return out
