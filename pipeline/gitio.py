"""Reading a repository through git's plumbing.

Everything the batch side knows about a repository comes through here: `git` subprocesses with a
fixed, locale-free environment, streamed line by line (a log is never held in memory), and one
long-lived `git cat-file --batch` per reader for blob contents. Failures become `GitError` /
`NotARepository` / `EmptyRepository` with one line a user can act on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..store.errors import EmptyRepository, GitError, NotARepository

_ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY")


def git_env() -> dict[str, str]:
    """The environment git runs in: the caller's, without what points git at another
    repository. The system and user configuration apply as they do to the user's own git (a
    CI image's system-wide `safe.directory`, say); the options that shape what gitstrata reads
    are named on each command instead (`store/gitdefaults.py`)."""
    env = {k: v for k, v in os.environ.items() if k not in _ENV_DROP}
    env.update(LC_ALL="C", LANG="C", GIT_TERMINAL_PROMPT="0")
    return env


def _git_binary() -> str:
    exe = shutil.which("git")
    if exe is None:
        raise GitError("git is not installed or not on PATH", hint="install git and try again")
    return exe


@dataclass(frozen=True, slots=True)
class TreeEntry:
    path: str
    blob: str
    mode: str
    size: int  # -1 for submodules (commits), which have no size


def refused(given: Path, stderr: bytes) -> NotARepository:
    """Why git would not open `given`, from its `fatal:` lines: a repository another user owns
    (git's `safe.directory` check, common in containers and CI), a checkout whose `.git` names
    a folder that is gone, or no repository at all."""
    text = stderr.decode("utf-8", "replace")
    fatal = [
        ln.removeprefix("fatal: ").strip() for ln in text.splitlines() if ln.startswith("fatal: ")
    ]
    if any("dubious ownership" in f for f in fatal):
        command = next((ln.strip() for ln in text.splitlines() if "safe.directory" in ln), None)
        return NotARepository(
            f"{given}: git will not work in this repository: another user owns it",
            hint=f"if you trust it, run `{command}`"
            if command
            else "add it to git's `safe.directory` if you trust it",
        )
    if fatal and not fatal[0].startswith("not a git repository (or any"):
        return NotARepository(f"{given}: git cannot open this repository: {fatal[0]}")
    return NotARepository(
        f"{given}: not a git repository", hint="run gitstrata inside a git checkout"
    )


class Git:
    """A validated, non-bare git work tree."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.exe = _git_binary()
        given = Path(path)
        if not given.exists():
            raise NotARepository(f"{given}: no such directory")
        if not given.is_dir():
            raise NotARepository(f"{given}: not a directory")
        proc = subprocess.run(
            [
                self.exe,
                "rev-parse",
                "--is-bare-repository",
                "--show-toplevel",
                "--absolute-git-dir",
            ],
            cwd=given,
            capture_output=True,
            env=git_env(),
        )
        if proc.returncode != 0:
            lines = proc.stdout.decode("utf-8", "replace").split()
            if lines[:1] == ["true"]:
                raise NotARepository(f"{given}: a bare repository has no work tree to index")
            raise refused(given, proc.stderr)
        out = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
        if out[0] == "true" or len(out) < 3:
            raise NotARepository(f"{given}: a bare repository has no work tree to index")
        self.root = Path(out[1])
        self.git_dir = Path(out[2])

    # ------------------------------------------------------------------ plain commands

    def run(self, *args: str, check: bool = True, input: bytes | None = None) -> str:
        return self.run_bytes(*args, check=check, input=input).decode("utf-8", "surrogateescape")

    def run_bytes(self, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
        proc = subprocess.run(
            [self.exe, *args], cwd=self.root, capture_output=True, env=git_env(), input=input
        )
        if check and proc.returncode != 0:
            msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git {args[0]} failed: {msg[-1] if msg else f'exit {proc.returncode}'}")
        return proc.stdout

    def stream(self, *args: str, bufsize: int = 1 << 20) -> Iterator[bytes]:
        """Yield stdout lines (with their b"\\n") of a long git command as it runs.

        Raises GitError after the last line if git exited non-zero, so a half-read log is never
        mistaken for a complete one.
        """
        proc = subprocess.Popen(
            [self.exe, *args],
            cwd=self.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=git_env(),
            bufsize=bufsize,
        )
        assert proc.stdout is not None and proc.stderr is not None
        try:
            yield from proc.stdout
        finally:
            if proc.poll() is None:
                proc.stdout.close()
                rc = proc.wait()
                stopped_early = True
            else:
                stopped_early = False
                rc = proc.wait()
            err = proc.stderr.read().decode("utf-8", "replace").strip()
            proc.stderr.close()
        if rc != 0 and not stopped_early:
            last = err.splitlines()[-1] if err else f"exit {rc}"
            raise GitError(f"git {args[0]} failed mid-stream: {last}")

    # ------------------------------------------------------------------ queries

    def head(self) -> str | None:
        """The commit HEAD points to, or None for a repository without commits."""
        proc = subprocess.run(
            [self.exe, "rev-parse", "--verify", "-q", "HEAD^{commit}"],
            cwd=self.root,
            capture_output=True,
            env=git_env(),
        )
        return proc.stdout.decode().strip() or None if proc.returncode == 0 else None

    def require_head(self) -> str:
        head = self.head()
        if head is None:
            raise EmptyRepository(f"{self.root}: the repository has no commits yet")
        return head

    def tree_id(self, rev: str) -> str:
        return self.run("rev-parse", f"{rev}^{{tree}}").strip()

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        proc = subprocess.run(
            [self.exe, "merge-base", "--is-ancestor", ancestor, descendant],
            cwd=self.root,
            capture_output=True,
            env=git_env(),
        )
        return proc.returncode == 0

    def has_commit(self, sha: str) -> bool:
        proc = subprocess.run(
            [self.exe, "cat-file", "-e", f"{sha}^{{commit}}"],
            cwd=self.root,
            capture_output=True,
            env=git_env(),
        )
        return proc.returncode == 0

    def is_shallow(self) -> bool:
        return (self.git_dir / "shallow").exists()

    def is_partial(self) -> bool:
        """A partial clone (`--filter`): contents it lacks are fetched by git on demand."""
        common = self.git_dir
        try:
            rel = (self.git_dir / "commondir").read_text(encoding="utf-8").strip()
            common = (self.git_dir / rel).resolve()
        except OSError:
            pass
        try:
            text = (common / "config").read_text(encoding="utf-8", errors="replace").lower()
        except OSError:
            return False
        return "partialclone" in text or "promisor = true" in text

    def blame_ignore_files(self) -> tuple[list[str], list[str]]:
        """The files `blame.ignoreRevsFile` names (the repository's or the user's setting):
        (those that exist, as absolute paths; the values naming none). `git blame` stops on a
        missing one, and a global setting for `.git-blame-ignore-revs` names one in every
        repository without that file."""
        found: list[str] = []
        missing: list[str] = []
        for value in self.run(
            "config", "--get-all", "blame.ignoreRevsFile", check=False
        ).splitlines():
            if not value:
                found, missing = [], []  # an empty value resets the list, as git reads it
                continue
            path = self.root / os.path.expanduser(value)
            if path.is_file():
                found.append(str(path))
            else:
                missing.append(value)
        return found, missing

    def shallow_boundary(self) -> list[str]:
        """The commits a shallow clone's history stops at (their parents are not here)."""
        try:
            text = (self.git_dir / "shallow").read_text(encoding="ascii", errors="replace")
        except OSError:
            return []
        return sorted(line.strip() for line in text.splitlines() if line.strip())

    def ls_tree(self, rev: str) -> list[TreeEntry]:
        """Every tracked path at `rev` with its blob id, mode and size (one subprocess)."""
        raw = self.run_bytes("ls-tree", "-r", "-z", "--long", "--full-tree", rev)
        entries: list[TreeEntry] = []
        for rec in raw.split(b"\0"):
            if not rec:
                continue
            meta, _, path = rec.partition(b"\t")
            mode, kind, blob, size = meta.split(None, 3)
            entries.append(
                TreeEntry(
                    path=path.decode("utf-8", "surrogateescape"),
                    blob=blob.decode(),
                    mode=mode.decode(),
                    size=int(size) if kind == b"blob" else -1,
                )
            )
        return entries


class BlobReader:
    """One long-lived `git cat-file --batch`: contents of many objects for one process start.

    `read(spec)` takes a blob id or any `rev:path` spec and returns the bytes, or None when the
    object does not exist (a file deleted between listing and reading is not an error).
    """

    def __init__(self, git: Git) -> None:
        self._git = git
        self._proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [self._git.exe, "cat-file", "--batch"],
                cwd=self._git.root,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=git_env(),
            )
        return self._proc

    def read(self, spec: str) -> bytes | None:
        if "\n" in spec:
            return None
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(spec.encode("utf-8", "surrogateescape") + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline()
        if not header:
            raise GitError("git cat-file --batch stopped unexpectedly")
        parts = header.split()
        if len(parts) < 3 or parts[-1] == b"missing" or parts[1] == b"missing":
            return None
        size = int(parts[2])
        data = proc.stdout.read(size)
        proc.stdout.read(1)  # the newline after the contents
        return data if parts[1] == b"blob" else None

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin:
                self._proc.stdin.close()
            if self._proc.stdout:
                self._proc.stdout.close()
            self._proc.wait()
            self._proc = None

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
