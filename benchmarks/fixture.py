"""Build the benchmark fixture: a multi-language monorepo with a dated, realistic history.

Invariants:
- Byte-identical output everywhere: every author, committer, date and file of every commit is
  fixed in `fixture_content`, and git runs with no system or global configuration, no
  templates and no hooks, so HEAD's SHA is the same on every run and machine.
- Commits are written by `git fast-import`, one process per batch. A batch ends just before a
  commit whose message cites an earlier commit's SHA (a revert's "This reverts commit ..."), so
  the SHA can be read from the exported marks and filled in.
- The file contents at every commit are computed in Python first (`plan_history`), so callers
  can read HEAD's files (`head_files`) without building a repository.
- Every commit has a stable name; datasets refer to commits by name and resolve the SHA through
  `FixtureInfo.commits` (or `load_fixture` for a repository built earlier).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import cache, lru_cache
from pathlib import Path
from types import MappingProxyType

from ..store.errors import GitError, GitstrataError
from .fixture_content import (
    AUTHORS,
    COMMITS,
    CommitSpec,
    Delete,
    Edit,
    Reformat,
    Rename,
    Revert,
    Write,
)

__all__ = [
    "FixtureError",
    "FixtureInfo",
    "build_fixture",
    "failure_records",
    "head_files",
    "load_fixture",
    "plan_history",
    "unformat",
]

_SHA_REF = re.compile(r"\{(sha|short):([a-z0-9_]+)\}")


class FixtureError(GitstrataError):
    """The benchmark fixture could not be built, or a directory does not hold it."""


@dataclass(frozen=True)
class FixtureInfo:
    """Where the fixture was built and the SHA of every named commit (in commit order)."""

    path: Path
    head: str
    commit_count: int
    commits: Mapping[str, str] = field(repr=False)

    def sha(self, name: str) -> str:
        try:
            return self.commits[name]
        except KeyError:
            raise FixtureError(f"the fixture has no commit named {name!r}") from None


# --- formatting ---------------------------------------------------------------------------------

_PY_TOPLEVEL = re.compile(r"\n\n\n(?=@|def |class |async def )")
_TS_IMPORT = re.compile(r'^(import .* from )"([^"]+)";$', re.MULTILINE)
_YAML_FLOW_MAP = re.compile(r"\{ ([^{}\n]*?) \}")


@cache
def unformat(path: str, text: str) -> str:
    """The file as it looked before the bulk style commit.

    Python files had one blank line between top-level definitions (the formatter wants two);
    TypeScript import paths were single-quoted, YAML flow maps had no inner spaces and HTML void
    elements were not self-closed (prettier's defaults). No rule touches a line inside a
    function body, so blame of load-bearing lines is unaffected.
    """
    if path.endswith(".py"):
        return _PY_TOPLEVEL.sub("\n\n", text)
    if path.endswith((".ts", ".tsx")):
        return _TS_IMPORT.sub(r"\1'\2';", text)
    if path.endswith((".yaml", ".yml")):
        return _YAML_FLOW_MAP.sub(r"{\1}", text)
    if path.endswith(".html"):
        return text.replace(" />", ">")
    return text


# --- planning -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedCommit:
    """One commit as fast-import needs it: renames first, then file writes and deletes."""

    spec: CommitSpec
    renames: tuple[tuple[str, str], ...]
    writes: tuple[tuple[str, bytes, bool], ...]  # (path, content, executable)
    deletes: tuple[str, ...]


def _edit(path: str, text: str, pairs: Sequence[tuple[str, str]], commit: str) -> str:
    for old, new in pairs:
        count = text.count(old)
        if count != 1:
            raise FixtureError(
                f"commit {commit}: edit of {path} expects its old text exactly once, "
                f"found {count}: {old[:60]!r}"
            )
        text = text.replace(old, new)
    return text


@lru_cache(maxsize=1)
def plan_history() -> tuple[tuple[PlannedCommit, ...], Mapping[str, str]]:
    """Replay every CommitSpec in memory: the planned commits and HEAD's files (path -> text)."""
    logical: dict[str, str] = {}
    executable: dict[str, bool] = {}
    formatted = False
    changes: dict[str, dict[str, tuple[str | None, str | None]]] = {}
    planned: list[PlannedCommit] = []
    seen: set[str] = set()

    def physical(path: str, text: str) -> str:
        return text if formatted else unformat(path, text)

    for spec in COMMITS:
        if spec.name in seen:
            raise FixtureError(f"duplicate commit name {spec.name!r}")
        seen.add(spec.name)
        before_logical = dict(logical)
        before_physical = {p: physical(p, t) for p, t in logical.items()}
        renames: list[tuple[str, str]] = []
        for op in spec.ops:
            if isinstance(op, Write):
                logical[op.path] = op.text
                executable[op.path] = op.executable
            elif isinstance(op, Edit):
                if op.path not in logical:
                    raise FixtureError(f"commit {spec.name}: cannot edit missing {op.path}")
                logical[op.path] = _edit(op.path, logical[op.path], op.pairs, spec.name)
            elif isinstance(op, Delete):
                if logical.pop(op.path, None) is None:
                    raise FixtureError(f"commit {spec.name}: cannot delete missing {op.path}")
            elif isinstance(op, Rename):
                if op.old not in logical or op.new in logical:
                    raise FixtureError(f"commit {spec.name}: bad rename {op.old} -> {op.new}")
                logical[op.new] = logical.pop(op.old)
                executable[op.new] = executable.get(op.old, False)
                renames.append((op.old, op.new))
            elif isinstance(op, Revert):
                for path, (old, new) in changes[op.name].items():
                    if logical.get(path) != new:
                        raise FixtureError(
                            f"commit {spec.name}: cannot revert {op.name}, {path} changed since"
                        )
                    if old is None:
                        del logical[path]
                    else:
                        logical[path] = old
            elif isinstance(op, Reformat):
                formatted = True
        # What git will see: start from the parent's files, moved along the renames.
        moved = dict(before_physical)
        for old, new in renames:
            moved[new] = moved.pop(old)
        writes = []
        for path in sorted(logical):
            content = physical(path, logical[path])
            if moved.get(path) != content:
                writes.append((path, content.encode("utf-8"), executable.get(path, False)))
        deletes = tuple(sorted(p for p in moved if p not in logical))
        if not (renames or writes or deletes):
            raise FixtureError(f"commit {spec.name} changes nothing")
        changes[spec.name] = {
            p: (before_logical.get(p), logical.get(p))
            for p in set(before_logical) | set(logical)
            if before_logical.get(p) != logical.get(p)
        }
        planned.append(PlannedCommit(spec, tuple(renames), tuple(writes), deletes))
    return tuple(planned), MappingProxyType(dict(logical))


def head_files() -> Mapping[str, str]:
    """HEAD's files (path -> text), computed without git."""
    return plan_history()[1]


def failure_records() -> list[dict]:
    """The recorded failed attempts against this fixture (see `failures`)."""
    from .failures import failure_records as records

    return records()


# --- git ----------------------------------------------------------------------------------------


def _timestamp(spec: CommitSpec) -> str:
    tz = AUTHORS[spec.author].tz
    sign = 1 if tz[0] == "+" else -1
    offset = timezone(sign * timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])))
    moment = datetime.strptime(spec.when, "%Y-%m-%d %H:%M").replace(tzinfo=offset)
    return f"{int(moment.timestamp())} {tz}"


def _git_env() -> dict[str, str]:
    """An environment in which no user or system setting can change what git writes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_AUTHOR_NAME": "Larkspur Fixture",
            "GIT_AUTHOR_EMAIL": "fixture@larkspur.dev",
            "GIT_COMMITTER_NAME": "Larkspur Fixture",
            "GIT_COMMITTER_EMAIL": "fixture@larkspur.dev",
            "GIT_AUTHOR_DATE": "1734220800 +0000",
            "GIT_COMMITTER_DATE": "1734220800 +0000",
            "LC_ALL": "C",
            "TZ": "UTC",
        }
    )
    return env


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=repo,
            input=stdin,
            capture_output=True,
            env=_git_env(),
            check=False,
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"git {args[0]} failed while building the fixture: {err}")
    return proc.stdout.decode("utf-8", "replace")


def _data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


def _quote(path: str) -> bytes:
    return b'"' + path.encode("utf-8").replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'


def _message(spec: CommitSpec, shas: Mapping[str, str]) -> str:
    def fill(match: re.Match[str]) -> str:
        sha = shas[match.group(2)]
        return sha if match.group(1) == "sha" else sha[:10]

    return _SHA_REF.sub(fill, spec.message)


def _stream(batch: Sequence[tuple[int, PlannedCommit]], shas: Mapping[str, str]) -> bytes:
    out = bytearray()
    for index, planned in batch:
        spec = planned.spec
        author = AUTHORS[spec.author]
        ident = f"{author.name} <{author.email}> {_timestamp(spec)}".encode()
        out += b"commit refs/heads/main\n"
        out += b"mark :%d\n" % (index + 1)
        out += b"author " + ident + b"\ncommitter " + ident + b"\n"
        out += _data(_message(spec, shas).encode("utf-8"))
        if index > 0:
            out += b"from :%d\n" % index
        for old, new in planned.renames:
            out += b"R " + _quote(old) + b" " + _quote(new) + b"\n"
        for path in planned.deletes:
            out += b"D " + _quote(path) + b"\n"
        for path, content, is_exec in planned.writes:
            out += b"M " + (b"100755" if is_exec else b"100644") + b" inline " + _quote(path)
            out += b"\n" + _data(content)
        out += b"\n"
    return bytes(out)


def _batches(planned: Sequence[PlannedCommit]) -> list[list[tuple[int, PlannedCommit]]]:
    batches: list[list[tuple[int, PlannedCommit]]] = [[]]
    pending: set[str] = set()
    for index, item in enumerate(planned):
        cited = {m.group(2) for m in _SHA_REF.finditer(item.spec.message)}
        unknown = cited - {p.spec.name for p in planned[:index]}
        if unknown:
            raise FixtureError(f"commit {item.spec.name} cites unknown commits {sorted(unknown)}")
        if cited & pending:
            batches.append([])
            pending = set()
        batches[-1].append((index, item))
        pending.add(item.spec.name)
    return batches


_REPO_CONFIG = """\
[user]
\tname = Larkspur Fixture
\temail = fixture@larkspur.dev
[commit]
\tgpgsign = false
[tag]
\tgpgsign = false
[core]
\tautocrlf = false
[gc]
\tauto = 0
"""


def build_fixture(out_dir: Path, *, force: bool = False) -> FixtureInfo:
    """Create the fixture repository in `out_dir` and return where its commits are.

    Refuses a directory that exists and is not empty unless `force`, which deletes it first.
    """
    out_dir = Path(out_dir)
    if out_dir.exists():
        if not out_dir.is_dir():
            raise FixtureError(f"{out_dir} exists and is not a directory")
        if any(out_dir.iterdir()):
            if not force:
                raise FixtureError(
                    f"{out_dir} is not empty", hint="choose an empty directory or pass --force"
                )
            shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    planned, _ = plan_history()
    _git(out_dir, "init", "--quiet", "--template=", "-b", "main")
    with open(out_dir / ".git" / "config", "a", encoding="utf-8") as fh:
        fh.write(_REPO_CONFIG)
    shas: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="gitstrata-fixture-") as tmp:
        marks = Path(tmp) / "marks"
        for batch in _batches(planned):
            args = ["fast-import", "--quiet", f"--export-marks={marks}"]
            if marks.exists():
                args.append(f"--import-marks={marks}")
            _git(out_dir, *args, stdin=_stream(batch, shas))
            by_mark = dict(
                line.split(" ", 1) for line in marks.read_text("ascii").splitlines() if line
            )
            for index, item in batch:
                shas[item.spec.name] = by_mark[f":{index + 1}"].strip()
    _git(out_dir, "reset", "--hard", "--quiet", "main")
    head = shas[planned[-1].spec.name]
    return FixtureInfo(out_dir, head, len(planned), MappingProxyType(shas))


def load_fixture(path: Path) -> FixtureInfo:
    """The FixtureInfo of a fixture repository built earlier (checked commit by commit)."""
    path = Path(path)
    if not (path / ".git").exists():
        raise FixtureError(f"{path} is not a git repository", hint="build it with build_fixture")
    log = _git(path, "log", "--reverse", "--format=%H %s", "main")
    rows = [line.split(" ", 1) for line in log.splitlines() if line]
    specs = COMMITS
    if len(rows) != len(specs) or any(
        row[1] != spec.message.splitlines()[0] for row, spec in zip(rows, specs, strict=True)
    ):
        raise FixtureError(
            f"{path} does not hold this version of the fixture",
            hint="rebuild it with `python -m gitstrata.benchmarks.fixture DIR --force`",
        )
    shas = {spec.name: row[0] for row, spec in zip(rows, specs, strict=True)}
    return FixtureInfo(path, rows[-1][0], len(rows), MappingProxyType(shas))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gitstrata.benchmarks.fixture",
        description="Build the benchmark fixture repository.",
    )
    parser.add_argument("out_dir", type=Path, help="directory to create the repository in")
    parser.add_argument("--force", action="store_true", help="replace a non-empty directory")
    args = parser.parse_args(argv)
    try:
        info = build_fixture(args.out_dir, force=args.force)
    except GitstrataError as exc:
        hint = f" ({exc.hint})" if exc.hint else ""
        print(f"error: {exc}{hint}", file=sys.stderr)
        return 1
    print(f"path: {info.path}")
    print(f"head: {info.head}")
    print(f"commits: {info.commit_count}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
