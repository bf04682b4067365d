"""The write operations shared by the Python API and the MCP server.

Both write only to the journal (failed attempts) or the invariants file, never to a generation:
the engine's anti-context overlay sees a new record on the next request, and the next index run
folds it into the documents.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..store.config import Config
from ..store.errors import GitstrataError, InputError
from ..store.generations import Store
from ..store.journal import Journal
from .anticontext import warning_from_failure
from .failures import build_failure_record, load_failures
from .failures import record_failure as append_failure
from .invariants import InvariantStore
from .models import FailureWarning, InvariantHit
from .paths import repo_relative

MAX_PAYLOAD_CHARS = 1_000_000


def symbols_rows(index_dir: Path) -> Any:
    """HEAD's symbols (path, qualname, lines) from the live index, or () without one."""
    try:
        gen = Store(index_dir).live()
    except GitstrataError:
        return ()
    if gen is None:
        return ()
    return gen.table(
        "symbols", columns=["path", "qualname", "kind", "parent", "start_line", "end_line"]
    )


def record_failure(
    repo_root: Path | None,
    index_dir: Path,
    file_path: str | None,
    attempted_diff: str,
    error_trace: str,
    notes: str | None = None,
    symbol_name: str | None = None,
    command: str | None = None,
    *,
    exit_code: int | None = None,
    recorded_at: str | None = None,
) -> FailureWarning:
    for name, value in (("attempted_diff", attempted_diff), ("error_trace", error_trace)):
        if not isinstance(value, str):
            raise InputError(f"{name} must be text")
        if len(value) > MAX_PAYLOAD_CHARS:
            raise InputError(
                f"{name} is over {MAX_PAYLOAD_CHARS:,} characters; send the relevant part"
            )
    if not (attempted_diff.strip() or error_trace.strip() or (notes or "").strip()):
        raise InputError("a failed attempt needs at least a diff, an error trace or notes")
    path = repo_relative(repo_root, file_path) if file_path else None
    cfg = Config.load(index_dir).graveyard
    record = build_failure_record(
        path,
        attempted_diff,
        error_trace,
        notes,
        symbol_name,
        command,
        exit_code,
        symbols_rows(index_dir),
        cfg=cfg,
        source="api",
        repo_root=str(repo_root) if repo_root is not None else None,
    )
    if recorded_at:
        record["ts"] = recorded_at
    Store(index_dir).ensure()
    journal = Journal(Path(index_dir) / "journal")
    written = append_failure(journal, record)
    fid = written["target"] if written.get("op") == "occurrence" else written["id"]
    failure = next(f for f in load_failures(journal) if f.id == fid)
    return warning_from_failure(failure, ["recorded"])


def record_invariant(
    index_dir: Path, rule_id: str, scope: str, description: str, severity: str = "high"
) -> InvariantHit:
    Store(index_dir).ensure()
    inv = InvariantStore.in_strata(index_dir).add(rule_id, scope, description, severity or "high")
    return InvariantHit(
        id=inv.id, severity=inv.severity, scope=inv.scope, description=inv.description
    )
