"""Read-only views of an index and its journal, shaped for the MCP server's resources."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store.errors import GitstrataError

if TYPE_CHECKING:
    from .engine import Engine


def invariants_for(index_dir: Path, path: str, symbol: str | None) -> list[dict[str, str]]:
    """The team invariants covering `path` (and `symbol`), most severe first."""
    from .invariants import InvariantStore

    store = InvariantStore.in_strata(index_dir)
    rules = store.match(path, symbol) if symbol else store.match_file(path)
    return [r.to_dict() for r in rules]


def invariants_view(index_dir: Path) -> dict[str, Any]:
    from .invariants import FILE_NAME, InvariantStore

    try:
        rules = [r.to_dict() for r in InvariantStore.in_strata(index_dir).rules()]
    except GitstrataError as exc:
        return {"file": FILE_NAME, "error": str(exc), "invariants": []}
    return {"file": FILE_NAME, "count": len(rules), "invariants": rules}


def graveyard_view(journal_root: Path, *, diff_lines: int = 40) -> dict[str, Any]:
    """Recorded failed attempts, newest first, each with a bounded diff excerpt."""
    from ..store.attempts import load_failures
    from ..store.journal import Journal

    warnings: list[str] = []
    failures = load_failures(Journal(journal_root), on_warning=warnings.append)
    items = []
    for f in sorted(failures, key=lambda f: (f.last_seen, f.id), reverse=True):
        changed = f.changed_lines()
        items.append(
            {
                "id": f.id,
                "first_seen": f.first_seen,
                "last_seen": f.last_seen,
                "occurrences": f.occurrences,
                "targets": [f"{p}::{q}" if q else p for p, q in f.targets],
                "command": f.command,
                "exit_code": f.exit_code,
                "notes": f.notes,
                "all_notes": f.all_notes(),  # the first record's and each repeat's
                "errors": list(f.signature.errors[:5]),
                "failing_tests": list(f.signature.failing[:10]),
                "diff_excerpt": "\n".join(changed[:diff_lines]),
                "diff_lines_omitted": max(0, len(changed) - diff_lines),
                "source": f.source,
            }
        )
    return {"count": len(items), "failures": items, "warnings": warnings}


def hotspots_view(engine: Engine, *, limit: int = 20) -> dict[str, Any]:
    """The strongest file couplings, and the hidden ones (changed together, no import link)."""
    import pyarrow.compute as pc

    from ..store.schemas import WEAK_BELOW

    index = engine.index
    out: dict[str, Any] = {"generation": index.name, "top_pairs": [], "hidden_pairs": []}
    if not index.has("cochange_files"):
        return out
    cols = ["src", "dst", "co_commits", "weight", "confidence", "rank_score", "hidden"]
    table = index.table("cochange_files", columns=cols)
    table = table.filter(pc.greater_equal(table["co_commits"], WEAK_BELOW))
    reverse = {
        (s, d): (c, r)
        for s, d, c, r in zip(
            *(table[c].to_pylist() for c in ("src", "dst", "confidence", "rank_score")),
            strict=True,
        )
    }
    # each pair once (both directions exist), by the partner ranking of its stronger direction
    pairs = table.filter(pc.less(table["src"], table["dst"])).to_pylist()
    for r in pairs:
        r["score"] = max(r["rank_score"], reverse.get((r["dst"], r["src"]), (0.0, 0.0))[1])
    pairs.sort(key=lambda r: (-r["score"], -r["co_commits"], r["src"], r["dst"]))

    def row(r: dict[str, Any]) -> dict[str, Any]:
        return {
            "a": r["src"],
            "b": r["dst"],
            "score": round(float(r["score"]), 4),
            "weight": round(float(r["weight"]), 4),
            "co_commits": r["co_commits"],
            "p_b_given_a": round(float(r["confidence"]), 4),
            "p_a_given_b": round(float(reverse.get((r["dst"], r["src"]), (0.0, 0.0))[0]), 4),
            "hidden": r["hidden"],  # None: unknown (imports of that language are not resolved)
        }

    out["top_pairs"] = [row(r) for r in pairs[:limit]]
    hidden = [r for r in pairs if r["hidden"]]
    out["hidden_pairs"] = [row(r) for r in hidden[:limit]]
    out["pairs_total"] = len(pairs)
    out["hidden_total"] = len(hidden)
    return out
