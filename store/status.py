"""What `gitstrata status` and the MCP status resource report about a store."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .errors import IndexCorrupt
from .generations import Generation, Store
from .manifest import Manifest


def read_head(repo: Path) -> str | None:
    """The commit HEAD points to, read from .git files without a subprocess (None if unknown)."""
    git = repo / ".git"
    if git.is_file():  # worktrees and submodules: "gitdir: <path>"
        text = git.read_text(encoding="utf-8", errors="replace").strip()
        if not text.startswith("gitdir:"):
            return None
        git = (repo / text[7:].strip()).resolve()
    try:
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not head.startswith("ref:"):
        return head or None
    ref = head[4:].strip()
    common = git
    commondir = git / "commondir"
    if commondir.exists():
        common = (git / os.fsdecode(commondir.read_bytes().strip())).resolve()
    for base in (git, common):
        try:
            return (base / ref).read_text(encoding="utf-8").strip()
        except OSError:
            pass
    try:
        for line in (common / "packed-refs").read_text(encoding="utf-8").splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0]
    except OSError:
        pass
    return None


def index_status(store: Store, repo: Path | None) -> dict[str, Any]:
    gen = store.require_live()
    m = gen.manifest
    tables: dict[str, Any] = {}
    disk = 0
    for stage, rec in m.stages.items():
        for name, info in rec.outputs.items():
            tables[name] = {
                "stage": stage,
                "rows": info.rows,
                "bytes": info.bytes,
                "file": info.file,
            }
            disk += info.bytes
    head = read_head(repo) if repo is not None else None
    return {
        "problem": serving_problem(gen),
        "store": str(store.root),
        "generation": gen.name,
        "created_at": m.created_at,
        "indexed_head": m.repo_head,
        "repo_head": head,
        "stale": head is not None and head != m.repo_head,
        "shallow": m.shallow,
        "indexed_range": m.indexed_range,
        "bytes_on_disk": disk,
        "bytes_mapped_copies": gen.mapped_bytes(),
        "tables": tables,
        "timings": m.timings,
        "generations": store.generations(),
        "redactions": redaction_summary(m),
    }


def serving_problem(gen: Generation) -> str | None:
    """Why this code cannot answer from `gen` though its files are sound (an index another
    version of gitstrata built, whose embedder state it cannot read), None when it can."""
    if not gen.has("embedder"):
        return None
    from .embedder import read_meta

    try:
        read_meta(gen.file("embedder"))
    except IndexCorrupt as exc:
        return str(exc) + (f" (hint: {exc.hint})" if exc.hint else "")
    return None


# Where a secret is counted once: HEAD's source, the commits (message and diff excerpt) and the
# journal's failure records. `touches` and `documents` repeat those texts; their counts are
# listed per table but not added again.
_COUNTED_ONCE = ("symbols", "commits", "journal")


def redaction_summary(manifest: Manifest) -> dict[str, Any]:
    """Secrets the index stores redacted: total, by kind, and by table (what each stage's
    stats recorded when it wrote them)."""
    by_table: dict[str, dict[str, int]] = {}
    for rec in manifest.stages.values():
        found = rec.stats.get("redactions")
        if isinstance(found, dict):
            for table, counts in found.items():
                if isinstance(counts, dict):
                    by_table[str(table)] = {str(k): int(v) for k, v in counts.items()}
    by_kind: dict[str, int] = {}
    for table in _COUNTED_ONCE:
        for kind, n in by_table.get(table, {}).items():
            by_kind[kind] = by_kind.get(kind, 0) + n
    return {
        "total": sum(by_kind.values()),
        "by_kind": dict(sorted(by_kind.items())),
        "by_table": dict(sorted(by_table.items())),
    }
