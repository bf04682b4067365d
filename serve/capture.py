"""`gitstrata exec`: run a command transparently and keep what a failed attempt needs.

Invariants of `run_wrapped`:

- Transparent: stdout and stderr are copied live to our own stdout and stderr, each on its own
  stream; stdin is inherited (a terminal stays a terminal for the child); the result's exit code
  is the child's own, `128 + N` when signal N killed it, 127 when the command does not exist
  and 126 when it cannot be executed (with a one-line message, as a shell prints).
- Bounded: only the last `tail_bytes` of each stream are kept, whatever the output's size.
- Signals: SIGTERM and SIGHUP sent to us are forwarded to the child. SIGINT is forwarded too,
  except when we run in the terminal's foreground process group: there the terminal already
  delivered Ctrl-C to the child, and sending it again would interrupt the child's own cleanup.
  Either way we keep waiting for the child and report its exit code.
- If our own stdout is closed early (`... | head`), we stop reading the child's stdout, so the
  child gets SIGPIPE exactly as it would without the wrapper.

`snapshot_worktree` renders the attempted change: `git diff` against HEAD (against the empty tree
in a repository without commits) plus small untracked text files as new-file diffs.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal as signal_mod
import stat as stat_mod
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ..store import gitdefaults
from ..store.attempts import Attempt, append_failure
from ..store.config import GraveyardConfig
from ..store.errors import GitError, GitstrataError, InputError, NotARepository
from ..store.filekind import is_binary
from ..store.journal import Journal
from ..store.redact import Redactor
from .failures import build_failure_record
from .paths import stays_inside

FORWARDED = (signal_mod.SIGINT, signal_mod.SIGTERM, signal_mod.SIGHUP)
UNTRACKED_MAX_BYTES = 64 * 1024
SNAPSHOT_MAX_BYTES = 1 << 20
_READ = 1 << 16
_DRAIN_SECONDS = 2.0  # after the child exits, how long a grandchild may keep our pipes open


@dataclass(frozen=True)
class CaptureResult:
    exit_code: int
    stdout_tail: str
    stderr_tail: str
    signal: int | None = None
    stdout_bytes: int = 0
    stderr_bytes: int = 0

    @property
    def output(self) -> str:
        """Both tails, stdout first (the order tools print results, then errors)."""
        return "\n".join(t for t in (self.stdout_tail, self.stderr_tail) if t)


class _Tail:
    """The last `limit` bytes of a stream, kept in a buffer of at most twice that."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.buf = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.buf += chunk
        if len(self.buf) > 2 * self.limit:
            del self.buf[: len(self.buf) - self.limit]

    def text(self) -> str:
        data = bytes(self.buf[-self.limit :])
        if self.total > len(data):
            cut = data.find(b"\n")
            data = data[cut + 1 :] if 0 <= cut < len(data) - 1 else data
        return data.decode("utf-8", "replace")


class _Sink:
    """Where a stream is copied: a raw fd when there is one (no buffering), else a file."""

    def __init__(self, target: BinaryIO | int | None) -> None:
        self.fd: int | None = None
        self.file: Any = None
        if isinstance(target, int):
            self.fd = target
            return
        if target is not None:
            with contextlib.suppress(AttributeError, OSError, ValueError):
                target.flush()
            try:
                self.fd = target.fileno()
            except (AttributeError, OSError, ValueError):
                self.file = target

    def write(self, data: bytes) -> None:
        if self.fd is not None:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view) :]
        elif self.file is not None:
            self.file.write(data)
            self.file.flush()


def _pump(src: BinaryIO, sink: _Sink, tail: _Tail, *, close_on_broken_pipe: bool) -> None:
    # the forwarded signals are left to the main thread: one the kernel handed to this thread
    # would only set Python's flag, and the main thread, blocked in `wait`, would not run the
    # handler until the child exits (a SIGTERM sent to `gitstrata exec` went unforwarded)
    if hasattr(signal_mod, "pthread_sigmask"):
        signal_mod.pthread_sigmask(signal_mod.SIG_BLOCK, FORWARDED)
    fd = src.fileno()
    live = True
    while True:
        try:
            chunk = os.read(fd, _READ)
        except OSError:
            break
        if not chunk:
            break
        tail.feed(chunk)
        if not live:
            continue
        try:
            sink.write(chunk)
        except BrokenPipeError:
            live = False
            if close_on_broken_pipe:
                break  # closing our end makes the child's next write raise SIGPIPE
        except OSError:
            live = False
    src.close()


def _default_stream(stream: Any) -> BinaryIO | None:
    if stream is None:
        return None
    with contextlib.suppress(AttributeError, OSError, ValueError):
        stream.flush()
    return getattr(stream, "buffer", stream)


def _terminal_delivers_sigint() -> bool:
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd):
                return os.tcgetpgrp(fd) == os.getpgrp()
        except OSError:
            continue
    return False


def run_wrapped(
    argv: Sequence[str],
    *,
    stdin: bool = True,
    stdout: BinaryIO | int | None = None,
    stderr: BinaryIO | int | None = None,
    tail_bytes: int = 256 * 1024,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
) -> CaptureResult:
    """Run `argv`, teeing its output live, and return its exit code and output tails.

    `stdout` / `stderr`: where the child's streams are copied (default: our own).
    `stdin=False` gives the child /dev/null instead of our stdin.
    """
    if not argv:
        raise InputError("no command given", hint="usage: gitstrata exec -- COMMAND [ARGS...]")
    out_sink = _Sink(stdout if stdout is not None else _default_stream(sys.stdout))
    err_sink = _Sink(stderr if stderr is not None else _default_stream(sys.stderr))
    skip_sigint = _terminal_delivers_sigint()
    child: list[subprocess.Popen[bytes]] = []
    pending: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        if signum == signal_mod.SIGINT and skip_sigint:
            return
        if not child:  # not started yet: deliver as soon as it is
            pending.append(signum)
            return
        with contextlib.suppress(ProcessLookupError):
            child[0].send_signal(signum)

    # handlers go in before the child starts: a signal that arrives while it starts is
    # forwarded, never the default action that would kill us and orphan the child
    previous: dict[signal_mod.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in FORWARDED:
            previous[sig] = signal_mod.signal(sig, forward)
    try:
        try:
            proc = subprocess.Popen(
                list(argv),
                stdin=None if stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                cwd=cwd,
                env=env,
            )
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
            missing = isinstance(exc, FileNotFoundError) and exc.filename in (argv[0], None)
            code = 127 if missing else 126
            reason = "command not found" if missing else (exc.strerror or "cannot execute")
            line = f"gitstrata exec: {argv[0]}: {reason}\n"
            with contextlib.suppress(OSError):
                err_sink.write(line.encode("utf-8", "replace"))
            return CaptureResult(code, "", line, None, 0, len(line))
        child.append(proc)
        for signum in pending:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signum)

        tails = (_Tail(tail_bytes), _Tail(tail_bytes))
        assert proc.stdout is not None and proc.stderr is not None
        threads = [
            threading.Thread(
                target=_pump,
                args=(proc.stdout, out_sink, tails[0]),
                kwargs={"close_on_broken_pipe": True},
                daemon=True,
            ),
            threading.Thread(
                target=_pump,
                args=(proc.stderr, err_sink, tails[1]),
                kwargs={"close_on_broken_pipe": False},
                daemon=True,
            ),
        ]
        for t in threads:
            t.start()
        returncode = proc.wait()
    finally:
        for sig, handler in previous.items():
            signal_mod.signal(sig, handler)
    for t in threads:
        t.join(_DRAIN_SECONDS)
    killed = -returncode if returncode < 0 else None
    return CaptureResult(
        exit_code=128 + killed if killed is not None else returncode,
        stdout_tail=tails[0].text(),
        stderr_tail=tails[1].text(),
        signal=killed,
        stdout_bytes=tails[0].total,
        stderr_bytes=tails[1].total,
    )


# ---------------------------------------------------------------- the attempted change

_GIT_CONFIG = (
    "-c", "core.quotePath=false",
    *gitdefaults.CONFIG,  # a user's `* -diff` would hide the change
    "-c", "diff.noprefix=false",
    "-c", "diff.mnemonicPrefix=false",
    "-c", "color.ui=false",
)  # fmt: skip
# git's defaults for what a diff holds, named: a user's `diff.context`, `diff.algorithm`,
# `diff.interHunkContext`, `diff.renames` or submodule settings would otherwise change the
# attempt recorded (its fingerprint, the functions it touched), and a `diff.orderFile` that
# cannot be read made `git diff` fail, recording the attempt without its diff
_DIFF_SHAPE = ("-U3", "-M", *gitdefaults.DIFF)
_NEEDS_QUOTE = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t"}


def _git(root: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *_GIT_CONFIG, *args],
            input=stdin,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH") from None


def _git_bounded(root: Path, args: list[str], limit: int) -> bytes:
    """stdout of a git command, at most `limit` bytes (the rest is never read into memory)."""
    proc = subprocess.Popen(
        ["git", "-C", str(root), *_GIT_CONFIG, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    data = proc.stdout.read(limit + 1)
    if len(data) > limit:
        proc.kill()
        cut = data.rfind(b"\n", 0, limit)
        data = data[: cut + 1 if cut > 0 else limit] + b"\n... [diff truncated]\n"
    proc.stdout.close()
    proc.wait()
    return data


def _quote(path: str) -> str:
    if not any(c in path for c in _NEEDS_QUOTE):
        return path
    return '"' + "".join(_NEEDS_QUOTE.get(c, c) for c in path) + '"'


def _new_file_diff(path: str, data: bytes, executable: bool) -> str:
    text = data.decode("utf-8", "replace")
    a, b = _quote(f"a/{path}"), _quote(f"b/{path}")
    head = f"diff --git {a} {b}\nnew file mode {'100755' if executable else '100644'}\n"
    if not text:
        return head
    lines = text.split("\n")
    no_eol = lines[-1] != ""
    if not no_eol:
        lines.pop()
    count = f"1,{len(lines)}" if len(lines) != 1 else "1"
    body = "".join(f"+{line}\n" for line in lines)
    tail = "\\ No newline at end of file\n" if no_eol else ""
    return f"{head}--- /dev/null\n+++ {b}\n@@ -0,0 +{count} @@\n{body}{tail}"


def _read_untracked(root: Path, rel: str, limit: int) -> tuple[bytes, os.stat_result] | None:
    """An untracked regular file's bytes, or None: a symlink (at the end or on the way out of
    the repository), not a regular file, or larger than `limit`. Checked as it is opened, so a
    link swapped in after git listed the file is not followed."""
    if not stays_inside(root, rel):
        return None
    try:
        fd = os.open(root / rel, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat_mod.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(limit + 1)
        return (data, st) if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def snapshot_worktree(
    repo_root: str | os.PathLike[str],
    *,
    max_bytes: int = SNAPSHOT_MAX_BYTES,
    untracked_max_bytes: int = UNTRACKED_MAX_BYTES,
) -> str:
    """The working tree's change against HEAD as one unified diff (bounded to `max_bytes`)."""
    root = Path(repo_root)
    top = _git(root, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise NotARepository(f"{root}: not inside a git work tree")
    root = Path(top.stdout.decode("utf-8", "surrogateescape").strip())
    head = _git(root, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    if head.returncode == 0:
        base = "HEAD"
    else:  # no commit yet: everything tracked is new
        empty = _git(root, "hash-object", "-t", "tree", "--stdin", stdin=b"")
        if empty.returncode != 0:
            raise GitError(f"{root}: cannot compute the empty tree ({empty.stderr.decode()})")
        base = empty.stdout.decode().strip()
    diff_args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/"]
    diff_args += ["--dst-prefix=b/", "--no-relative", *_DIFF_SHAPE, base, "--"]
    parts = [_git_bounded(root, diff_args, max_bytes).decode("utf-8", "replace")]
    size = len(parts[0])
    others = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    for raw in sorted(others.stdout.split(b"\0")):
        if not raw or size >= max_bytes:
            continue
        rel = raw.decode("utf-8", "surrogateescape")
        if rel.startswith(".strata/"):
            continue
        got = _read_untracked(root, rel, untracked_max_bytes)
        if got is None:
            continue
        data, st = got
        if is_binary(data):
            continue
        rendered = _new_file_diff(rel, data, bool(st.st_mode & 0o111))
        parts.append(rendered)
        size += len(rendered)
    return "".join(p if p.endswith("\n") or not p else p + "\n" for p in parts)


# ---------------------------------------------------------------- exec


def exec_and_record(
    repo_root: str | os.PathLike[str],
    journal_root: str | os.PathLike[str],
    argv: Sequence[str],
    notes: str | None = None,
    symbols_rows: Any | Callable[[], Any] = (),
    *,
    cfg: GraveyardConfig | None = None,
    redactor: Redactor | None = None,
    stdin: bool = True,
    stdout: BinaryIO | int | None = None,
    stderr: BinaryIO | int | None = None,
    announce: bool = True,
) -> int:
    """Run `argv` transparently; on a non-zero exit, record the attempt. Returns the exit code.

    `symbols_rows` (or a function returning them, called only on failure) are the index's HEAD
    symbols. Problems while recording are reported on stderr and never change the exit code.
    """
    cfg = cfg or GraveyardConfig()
    result = run_wrapped(
        argv, stdin=stdin, stdout=stdout, stderr=stderr, tail_bytes=cfg.capture_tail_bytes
    )
    if result.exit_code == 0:
        return 0
    err = _Sink(stderr if stderr is not None else _default_stream(sys.stderr))

    def say(message: str) -> None:
        if announce:
            with contextlib.suppress(OSError):
                err.write(f"gitstrata: {message}\n".encode("utf-8", "replace"))

    root = Path(repo_root).resolve()
    try:
        diff = snapshot_worktree(root)
    except (GitstrataError, OSError) as exc:
        diff = ""
        say(f"recording without a diff ({exc})")
    if not (diff.strip() or result.output.strip() or (notes or "").strip()):
        # nothing says what was tried or how it failed: such a record could match nothing
        say(f"nothing recorded (exit {result.exit_code}): no changes, no output and no notes")
        return result.exit_code
    try:
        # whatever happens while recording, the wrapped command's exit code is returned
        rows = symbols_rows() if callable(symbols_rows) else symbols_rows
        attempt = Attempt(
            file_path=None,
            attempted_diff=diff,
            error_trace=result.output,
            notes=notes,
            command=shlex.join(argv),
            exit_code=result.exit_code,
            signal=result.signal,
            source="exec",
        )
        record = build_failure_record(
            attempt, rows, cfg=cfg, repo_root=str(root), redactor=redactor
        )
        written = append_failure(Journal(Path(journal_root)), record)
    except (GitstrataError, OSError, ValueError) as exc:
        say(f"could not record the failed attempt: {exc}")
        return result.exit_code
    except Exception as exc:  # noqa: BLE001 - the wrapped command's exit code is the contract
        say(f"could not record the failed attempt ({type(exc).__name__}: {exc})")
        return result.exit_code
    if written.get("op") == "occurrence":
        say(
            f"failed attempt #{written['target']} seen again "
            f"({written['occurrence']} occurrences, exit {result.exit_code})"
        )
    else:
        say(f"recorded failed attempt #{written['id']} (exit {result.exit_code})")
    return result.exit_code
