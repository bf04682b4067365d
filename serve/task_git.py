"""What a checkpoint records about the work tree, and how the work tree drifted since.

A checkpoint keeps the branch, HEAD and every modified or untracked file with the hash of its
content then (`git hash-object`), so a restore can say which of them changed or disappeared.
The index folder (`.strata/`) is never part of the working set. A few git subprocesses per
checkpoint or restore; nothing here runs per query.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store import gitdefaults

MAX_FILES = 300  # modified files a checkpoint keeps (the rest are counted)


def _git(root: Path, *args: str, stdin: str | None = None) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "-c", "core.quotepath=false", *args],
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def repo_identity(root: Path | None) -> str:
    """The repository's identity across clones: its first root commit ("" without a commit)."""
    if root is None:
        return ""
    out = _git(root, "rev-list", "--max-parents=0", "HEAD")
    roots = sorted((out or "").split())
    return roots[0] if roots else ""


@dataclass
class WorkTree:
    branch: str | None = None
    head: str | None = None
    files: list[dict[str, Any]] = field(default_factory=list)  # path, status, hash
    omitted: int = 0


def _excluded(path: str, prefixes: tuple[str, ...]) -> bool:
    return any(path == p.rstrip("/") or path.startswith(p) for p in prefixes)


def work_tree(root: Path | None, index_dir: Path | None = None) -> WorkTree:
    """Branch, HEAD and the modified and untracked files with their content hashes."""
    if root is None:
        return WorkTree()
    branch = (_git(root, "symbolic-ref", "--short", "-q", "HEAD") or "").strip() or None
    head = (_git(root, "rev-parse", "-q", "--verify", "HEAD") or "").strip() or None
    prefixes: tuple[str, ...] = ()
    if index_dir is not None:
        try:
            prefixes = (Path(index_dir).resolve().relative_to(root.resolve()).as_posix() + "/",)
        except ValueError:
            prefixes = ()
    status: dict[str, str] = {}
    if head is not None:
        for line in (
            # (a `diff.orderFile` that cannot be read made git fail: no changed file listed)
            _git(root, "diff", "--name-status", "--no-renames", *gitdefaults.DIFF, "HEAD") or ""
        ).splitlines():
            code, _, path = line.partition("\t")
            if path:
                status[path] = {"A": "added", "D": "deleted"}.get(code[:1], "modified")
    for path in (_git(root, "ls-files", "--others", "--exclude-standard") or "").splitlines():
        if path:
            status.setdefault(path, "untracked")
    paths = sorted(p for p in status if not _excluded(p, prefixes))
    kept, omitted = paths[:MAX_FILES], max(0, len(paths) - MAX_FILES)
    hashes = file_hashes(root, kept)
    files = [{"path": p, "status": status[p], "hash": hashes.get(p)} for p in kept]
    return WorkTree(branch, head, files, omitted)


def file_hashes(root: Path, paths: list[str]) -> dict[str, str | None]:
    """The git blob hash of each file's content now (None: the file is gone)."""
    present = [p for p in paths if (root / p).is_file()]
    out: dict[str, str | None] = dict.fromkeys(paths)
    if present:
        got = _git(root, "hash-object", "--no-filters", "--stdin-paths", stdin="\n".join(present))
        if got is not None:
            out.update(zip(present, got.split(), strict=False))
    return out


def commits_between(root: Path, old: str, new: str) -> int | None:
    """How many commits `new` is ahead of `old` (None: not an ancestor, or unknown)."""
    if _git(root, "merge-base", "--is-ancestor", old, new) is None:
        return None
    out = _git(root, "rev-list", "--count", f"{old}..{new}")
    return int(out) if out and out.strip().isdigit() else None


def drift(
    root: Path | None,
    state: dict[str, Any],
    index_dir: Path | None = None,
    *,
    now: WorkTree | None = None,
) -> dict:
    """How the work tree moved since a checkpoint's `state`: branch, HEAD, and the checkpoint's
    files that changed or are gone. `drifted` is False when nothing moved. `now`: the work tree
    as already read."""
    out: dict[str, Any] = {"drifted": False, "notes": []}
    if root is None:
        return out
    now = now if now is not None else work_tree(root, index_dir)
    old_branch, old_head = state.get("branch"), state.get("head")
    if old_branch and now.branch != old_branch:
        out["branch"] = {"was": old_branch, "now": now.branch}
        out["notes"].append(
            f"branch switched from {old_branch} to {now.branch or 'a detached HEAD'}"
        )
    if old_head and now.head != old_head:
        ahead = commits_between(root, old_head, now.head) if now.head else None
        out["head"] = {"was": old_head, "now": now.head, "commits_ahead": ahead}
        how = f"{ahead} commit(s) ahead" if ahead is not None else "not a descendant"
        out["notes"].append(f"HEAD moved from {old_head[:10]} to {(now.head or '?')[:10]} ({how})")
    saved = {f["path"]: f.get("hash") for f in state.get("modified_files", [])}
    current = file_hashes(root, sorted(saved))
    gone = sorted(p for p in saved if current[p] is None and saved[p] is not None)
    changed = sorted(p for p in saved if current[p] is not None and current[p] != saved[p])
    if gone:
        out["files_gone"] = gone
        out["notes"].append(
            f"{len(gone)} file(s) of the working set are gone: {', '.join(gone[:5])}"
        )
    if changed:
        out["files_changed"] = changed
        out["notes"].append(
            f"{len(changed)} file(s) changed since the checkpoint: {', '.join(changed[:5])}"
        )
    out["drifted"] = bool(out["notes"])
    return out
