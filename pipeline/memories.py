"""Adapter of the `memories` stage: ADRs at HEAD, the history tables and the team file in,
the `memories` table out (see `stages/memory_sources.py`).

The stage re-runs when HEAD moves (ADRs and history) or the team file `memories.jsonl` changes
(its bytes are part of the fingerprint), so `git pull` of a teammate's memories and the next
`gitstrata index` make them servable.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from ..stages.memory_sources import ADR_DIRS, build_memories, is_adr_path
from ..store.memory_team import FILE_NAME, TeamFile, team_dict
from .gitio import BlobReader
from .stage import Stage, StageContext, StageResult

MAX_ADR_BYTES = 256 * 1024


def _team_signature(ctx: StageContext) -> str:
    try:
        data = (ctx.store_root / FILE_NAME).read_bytes()
    except OSError:
        return ""
    return hashlib.sha256(data).hexdigest()


def run_memories(ctx: StageContext) -> StageResult:
    entries = [
        e for e in ctx.git.ls_tree(ctx.head) if is_adr_path(e.path, ADR_DIRS) and e.size >= 0
    ]
    adr_files = []
    with BlobReader(ctx.git) as reader:
        for e in entries:
            if e.size > MAX_ADR_BYTES:
                continue
            data = reader.read(e.blob)
            if data is not None:
                adr_files.append((e.path, data.decode("utf-8", "replace")))
    warnings: list[str] = []
    team = []
    for mem in TeamFile(ctx.store_root / FILE_NAME).read(warnings):
        team.append({**team_dict(mem), "op": "add", "mid": mem.id, "shared": True})
    commits = ctx.input("commits")
    touches = ctx.input("touches")
    head_time = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if commits.num_rows:
        latest = max(commits["commit_time"].to_pylist())
        head_time = latest.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    table = build_memories(adr_files, commits, touches, team, head_time)
    sources = table["source"].to_pylist()
    return StageResult(
        tables={"memories": table},
        stats={
            "adr": sources.count("adr"),
            "git": sources.count("git"),
            "team": len(team),
            "warnings": warnings[:5],
        },
    )


MEMORIES = Stage(
    name="memories",
    run=run_memories,
    inputs=("commits", "touches"),
    outputs=("memories",),
    source="head",
    extra=_team_signature,
    description="ADR decisions, revert / fix-again pitfall candidates, hotspots and team memories",
    weight=0.05,
)
