"""The write operations shared by the Python API and the MCP server.

Both write only to the journal (failed attempts) or the invariants file, never to a generation:
the engine's anti-context overlay sees a new record on the next request, and the next index run
folds it into the documents.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..store.attempts import Attempt, PayloadLimits
from ..store.config import Config
from ..store.errors import GitstrataError
from ..store.generations import Store
from ..store.redact import redactor_for
from .anticontext import warning_from_failure
from .failures import record_attempt
from .invariants import InvariantStore
from .models import FailureWarning, InvariantHit
from .paths import repo_relative

# the Python API's callers are programs: allow more than an agent may send over MCP
API_LIMITS = PayloadLimits(payload=1 << 20, note=1 << 20)


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
    attempt: Attempt,
    *,
    limits: PayloadLimits = API_LIMITS,
) -> FailureWarning:
    """Validate and record `attempt` (a repeat counts one more occurrence); returns it as served.

    `file_path` may be absolute inside `repo_root`; it is stored repository-relative."""
    attempt.validate(limits)
    if attempt.file_path:
        attempt = replace(attempt, file_path=repo_relative(repo_root, attempt.file_path))
    Store(index_dir).ensure()
    config = Config.load(index_dir)
    _, failure = record_attempt(
        Path(index_dir) / "journal",
        attempt,
        symbols_rows(index_dir),
        cfg=config.graveyard,
        repo_root=str(repo_root) if repo_root is not None else None,
        redactor=redactor_for(config.redaction),
    )
    return warning_from_failure(failure, ["recorded"])


def record_invariant(
    index_dir: Path, rule_id: str, scope: str, description: str, severity: str = "high"
) -> InvariantHit:
    Store(index_dir).ensure()
    inv = InvariantStore.in_strata(index_dir).add(rule_id, scope, description, severity or "high")
    return InvariantHit(
        id=inv.id, severity=inv.severity, scope=inv.scope, description=inv.description
    )
