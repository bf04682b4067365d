"""Robustness: bad input, damaged indexes, signals and fuzz against the real CLI and MCP server.

    python -m gitstrata.benchmarks.robustness [--json] [--seed N] [--fuzz N]

Every case runs what a user runs: `python -m gitstrata ...` as a subprocess, `gitstrata mcp`
over stdio spoken to in JSON-RPC, and scripts calling the Python API, on a small repository
built in a temp folder (the pool cases on a synthetic history long enough for capsule's pool). The
git configuration cases index that repository under one setting each that changes what git
prints by default (`GIT_SETTINGS`). Counted per kind of case: cases tried, tracebacks seen
(target 0), cases whose outcome was wrong (not one error line and a non-zero exit; a damage not
named, or not repaired; a server that did not stop with exit 0; an index under a git setting
that failed or whose history differs from the one without it), and records lost (failures the server acknowledged that the journal does not hold
after the server was stopped; target 0). Then the server's memory (RSS from /proc) and latency
over 200 sequential and 20 concurrent calls with oversized arguments.

A signal delivered while the interpreter itself is still starting (before the first line of
gitstrata runs) is Python's to report; the signal cases start at 0.1 s, after that point here.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .metrics import percentile

PY = sys.executable
ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}  # fmt: skip
KINDS = (
    "bad input",
    "corruption",
    "git configuration",
    "signals",
    "Python API",
    "fuzz (CLI)",
    "fuzz (config)",
    "fuzz (MCP)",
)


def _git(repo: Path, *args: str, when: int = 1_700_000_000) -> None:
    stamp = f"{when} +0000"
    env = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
           "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}  # fmt: skip
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def build_repo(path: Path, commits: int = 40) -> Path:
    """A small Python repository with a history of features and fixes."""
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main")
    for n in range(commits):
        module = path / "pay" / f"m{n % 5}.py"
        module.parent.mkdir(exist_ok=True)
        body = "".join(f"def f{k}(x):\n    return x + {k + n}\n\n" for k in range(n % 7 + 2))
        module.write_text(body)
        _git(path, "add", "-A")
        kind = "fix rounding in" if n % 3 == 0 else "add"
        _git(
            path, "commit", "-q", "-m", f"{kind} m{n % 5} step {n}", when=1_700_000_000 + n * 86_400
        )
    return path


def cli(repo: Path | None, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    where = ["-C", str(repo)] if repo is not None else []
    return subprocess.run([PY, "-m", "gitstrata", *where, *args], env=ENV, capture_output=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)  # fmt: skip


class Tally:
    def __init__(self) -> None:
        self.kinds: dict[str, dict[str, Any]] = {
            k: {"tried": 0, "tracebacks": 0, "wrong": 0, "records_lost": 0, "examples": []}
            for k in KINDS
        }

    def add(self, kind: str, name: str, stderr: bytes | str, ok: bool) -> None:
        err = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
        row = self.kinds[kind]
        row["tried"] += 1
        traceback = "Traceback" in err
        row["tracebacks"] += traceback
        row["wrong"] += not ok
        if (traceback or not ok) and len(row["examples"]) < 5:
            row["examples"].append(f"{name}: {err.strip()[-300:]}")


def one_line_failure(done: subprocess.CompletedProcess) -> bool:
    err = done.stderr.decode("utf-8", "replace")
    lines = [ln for ln in err.splitlines() if ln.strip()]
    return (
        done.returncode != 0
        and 1 <= len(lines) <= 2
        and lines[0].startswith("error: ")
        and all(ln.startswith("hint: ") for ln in lines[1:])
    )


# ------------------------------------------------------------------ git configuration

# settings a user's, a CI image's or a repository's git configuration may hold that change what
# git prints by default ("*FILE*" stands for a file the case writes; "MISSING" for none)
GIT_SETTINGS: tuple[tuple[str, str], ...] = (
    ("diff.algorithm", "histogram"),
    ("diff.algorithm", "patience"),
    ("diff.indentHeuristic", "false"),
    ("diff.interHunkContext", "3"),
    ("diff.context", "8"),
    ("diff.renameLimit", "1"),
    ("diff.renames", "copies"),
    ("diff.noprefix", "true"),
    ("diff.mnemonicPrefix", "true"),
    ("diff.relative", "true"),
    ("diff.submodule", "log"),
    ("diff.ignoreSubmodules", "all"),
    ("diff.orderFile", "MISSING"),
    ("diff.orderFile", "*FILE*pay/m4.py"),
    ("core.attributesFile", "*FILE**.py -diff"),
    ("core.quotePath", "true"),
    ("color.ui", "always"),
    ("log.showSignature", "true"),
    ("log.diffMerges", "first-parent"),
    ("i18n.logOutputEncoding", "ISO-8859-1"),
    ("blame.ignoreRevsFile", "MISSING"),
    ("blame.markIgnoredLines", "true"),
    ("blame.markUnblamableLines", "true"),
)
HISTORY_TABLES = ("commits", "touches", "hunks", "blame", "documents", "cochange_files")


def git_configuration(repo: Path, work: Path, tally: Tally) -> None:
    """Each of `GIT_SETTINGS` in the repository's configuration: `index` must succeed and
    write the history's tables of the index made without it."""
    from ..store.generations import Store

    plain = work / "cfg-plain"
    done = cli(repo, "index", "-q", "--out", str(plain))
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode("utf-8", "replace"))
    want = Store(plain).require_live()
    for n, (key, value) in enumerate(GIT_SETTINGS):
        if value == "MISSING":
            value = str(work / "no-such-file")
        elif value.startswith("*FILE*"):
            written = work / f"cfg-file-{n}"
            written.write_text(value.removeprefix("*FILE*") + "\n")
            value = str(written)
        subprocess.run(["git", "config", key, value], cwd=repo, check=True)
        try:
            out = work / f"cfg-{n}"
            done = cli(repo, "index", "-q", "--out", str(out))
        finally:
            subprocess.run(["git", "config", "--unset-all", key], cwd=repo, check=True)
        same = done.returncode == 0 and all(
            Store(out).require_live().table(t).equals(want.table(t)) for t in HISTORY_TABLES
        )
        tally.add("git configuration", f"{key}={value}", done.stderr, same)


# ------------------------------------------------------------------ bad input


def bad_input(repo: Path, work: Path, tally: Tally) -> None:
    bad = os.fsdecode(b"\xff\xfe")
    cases: list[tuple[str, list[str]]] = [
        ("non-UTF-8 query --json", ["query", "--json", bad]),
        (
            "non-UTF-8 invariant description",
            ["invariant", "add", "R1", "--scope", "pay/**", "-d", bad],
        ),
        ("non-UTF-8 -C", ["preflight", bad]),
        ("--out is a file", ["index", "--out", "/etc/hostname"]),
        ("--out under a file", ["index", "--out", "/etc/hostname/x"]),
        (
            "sql --parquet in a missing folder",
            ["sql", "--parquet", str(work / "no" / "x.parquet"), "select 1"],
        ),
        ("sql syntax", ["sql", "selec nothing"]),
        ("sql unknown table", ["sql", "select * from nope"]),
        ("100 KB scope", ["invariant", "add", "R2", "--scope", "s" * 100_000, "-d", "x"]),
        ("100 KB rule id", ["invariant", "add", "r" * 100_000, "--scope", "pay/**", "-d", "x"]),
        ("absolute scope", ["invariant", "add", "R3", "--scope", "/etc/**", "-d", "x"]),
        ("unknown file", ["preflight", "no/such/file.py"]),
        ("a file named with a newline", ["preflight", "no/such\nerror: forged.py"]),
        ("a symbol named with a newline", ["preflight", "pay/m0.py", "-s", "x\nhint: forged"]),
        ("path outside the repository", ["preflight", "../../etc/passwd"]),
        ("empty query", ["query", ""]),
        ("top-k 0", ["query", "x", "--top-k", "0"]),
        ("unknown mode", ["query", "x", "--mode", "nope"]),
        ("unknown command", ["frobnicate"]),
        ("no repository", ["-C", str(work), "status"]),
    ]
    for name, args in cases:
        done = cli(repo, *args)
        # usage errors exit 2 (click's box); an unknown file is a report on stdout and exit 1
        report = done.returncode == 1 and bool(done.stdout.strip()) and not done.stderr.strip()
        ok = one_line_failure(done) or done.returncode == 2 or report
        tally.add("bad input", name, done.stderr, ok)
    strata = repo / ".strata"
    config_cases = {
        "commit_slots bogus -5": json.dumps({"retrieval": {"commit_slots": {"bogus": -5}}}),
        "deeply nested config": "[" * 200_000 + "]" * 200_000,
        "config not JSON": "{retrieval:",
        "config not UTF-8": b"\xff\xfe{}".decode("latin-1"),
        "config a list": "[]",
    }
    for name, text in config_cases.items():
        (strata / "config.json").write_text(text, encoding="latin-1")
        for args in (["query", "x"], ["index", "-q"]):
            done = cli(repo, *args)
            tally.add("bad input", f"{name} ({args[0]})", done.stderr, one_line_failure(done))
    (strata / "config.json").unlink()
    # an unwritable store: a file where the folder belongs refuses writes even to root
    copy = work / "unwritable"
    shutil.copytree(repo, copy, symlinks=True)
    shutil.rmtree(copy / ".strata")
    (copy / ".strata").write_text("not a folder")
    for args in (["index"], ["invariant", "add", "R1", "--scope", "pay/**", "-d", "d"]):
        done = cli(copy, *args)
        tally.add("bad input", f"unwritable store ({args[0]})", done.stderr, one_line_failure(done))
    shutil.rmtree(copy)


# ------------------------------------------------------------------ corruption


def _damage(strata: Path, how: str) -> None:
    gen = sorted(strata.glob("gen-*"))[-1]
    if how == "CURRENT not UTF-8":
        (strata / "CURRENT").write_bytes(b"\xff\xfe\n")
    elif how == "CURRENT a folder":
        (strata / "CURRENT").unlink()
        (strata / "CURRENT").mkdir()
    elif how == "CURRENT names nothing":
        (strata / "CURRENT").write_text("gen-999999\n")
    elif how == "docmeta same-size damage":
        target = gen / "docmeta.arrow"
        data = bytearray(target.read_bytes())
        for i in range(len(data) // 3, len(data) // 3 + 64):
            data[i] ^= 0xFF
        target.write_bytes(bytes(data))
    elif how == "commits truncated to 1000 bytes":
        os.truncate(gen / "commits.parquet", 1000)
    elif how == "manifest not JSON":
        (gen / "manifest.json").write_text("{")
    elif how == "an artifact replaced by a folder":
        (gen / "symbols.parquet").unlink()
        (gen / "symbols.parquet").mkdir()
    elif how == "a full-text file removed":
        next(p for p in (gen / "fulltext").iterdir() if p.is_file()).unlink()
    elif how == "stale temp files of a dead writer":
        dead = subprocess.run(
            [PY, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
        )
        pid = int(dead.stdout)
        (strata / f".tmp-gen-000099-{pid}").mkdir()
        (strata / f".CURRENT.{pid}").write_text("gen-000099\n")


CORRUPTIONS = ("CURRENT not UTF-8", "CURRENT a folder", "CURRENT names nothing",
               "docmeta same-size damage", "commits truncated to 1000 bytes", "manifest not JSON",
               "an artifact replaced by a folder", "a full-text file removed",
               "stale temp files of a dead writer")  # fmt: skip


def corruption(repo: Path, work: Path, tally: Tally) -> None:
    for how in CORRUPTIONS:
        for repair in (["index", "-q"], ["index", "--rebuild", "-q"]):
            copy = work / "damaged"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(repo, copy, symlinks=True)
            _damage(copy / ".strata", how)
            stale = how.startswith("stale")
            for args in (["status"], ["query", "rounding"], ["preflight", "pay/m1.py"]):
                done = cli(copy, *args)
                ok = done.returncode == 0 if stale else one_line_failure(done)
                tally.add("corruption", f"{how}: {args[0]}", done.stderr, ok)
            fixed = cli(copy, *repair)
            status = cli(copy, "status", "--json")
            query = cli(copy, "query", "rounding")
            left = [
                p.name
                for p in (copy / ".strata").iterdir()
                if p.name.startswith((".tmp-", ".CURRENT."))
            ]
            ok = fixed.returncode == 0 and status.returncode == 0 and query.returncode == 0
            ok = ok and not left and b"up to date" not in fixed.stdout.lower() or (stale and ok)
            errs = fixed.stderr + status.stderr + query.stderr
            tally.add("corruption", f"{how}: {' '.join(repair)} repairs", errs, ok)
            shutil.rmtree(copy, ignore_errors=True)


# ------------------------------------------------------------------ signals and the server


class Server:
    """`gitstrata mcp` over stdio, spoken to in raw JSON-RPC."""

    def __init__(self, repo: Path) -> None:
        self.proc = subprocess.Popen([PY, "-m", "gitstrata", "-C", str(repo), "mcp"], env=ENV,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)  # fmt: skip
        self.next_id = 1
        reply = self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": "bench", "version": "1"}})  # fmt: skip
        assert "result" in reply, reply
        self.notify("notifications/initialized")

    def send(self, method: str, params: dict[str, Any]) -> int:
        assert self.proc.stdin is not None
        n = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": n, "method": method, "params": params}
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        return n

    def notify(self, method: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError("the server closed its output")
            msg = json.loads(line)
            if "id" in msg:
                return msg

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.send(method, params)
        return self.read()

    def tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.call("tools/call", {"name": name, "arguments": arguments})

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self, how: str) -> tuple[int | str, str]:
        if how == "SIGINT":
            self.proc.send_signal(signal.SIGINT)
        elif how == "SIGTERM":
            self.proc.send_signal(signal.SIGTERM)
        elif how == "client killed mid-call":
            for _ in range(10):
                self.send("tools/call", {"name": "search_causal_history",
                                         "arguments": {"query": "rounding " * 400}})  # fmt: skip
            assert self.proc.stdout is not None and self.proc.stdin is not None
            self.proc.stdout.close()
            self.proc.stdin.close()
        else:  # stdin EOF
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            code: int | str = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = "hung"
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read().decode("utf-8", "replace")


def _journal_failures(repo: Path) -> set[int]:
    done = cli(repo, "graveyard", "--json")
    try:
        rows = json.loads(done.stdout)
    except ValueError:
        return set()
    return {int(r["id"]) for r in rows if isinstance(r, dict) and isinstance(r.get("id"), int)}


def marked_processes(mark: str) -> list[int]:
    """Processes whose environment holds `mark`: a command and every process it started."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def waited(check, seconds: float) -> bool:
    """Whether `check()` came true within `seconds` (polled every 20 ms)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def pool_signals(work: Path, tally: Tally) -> None:
    """A signal sent to `gitstrata index` alone (a CI timeout, a supervisor) while capsule's
    worker processes run: the command ends with one line and leaves no process behind."""
    if not Path("/proc/self/environ").exists():
        return
    from .history_speed import make_synthetic

    repo = make_synthetic(work / "pool-history", 900)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        mark = f"GITSTRATA_ROBUSTNESS_RUN={os.getpid()}-{sig.value}-{time.monotonic_ns()}"
        env = {**ENV, mark.split("=")[0]: mark.split("=")[1]}
        out = work / f"pool-index-{sig.name}"
        proc = subprocess.Popen([PY, "-m", "gitstrata", "index", str(repo), "--out", str(out),
                                 "--jobs", "2", "-q"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
        started = waited(
            lambda m=mark: len(marked_processes(m)) >= 4, 60
        )  # command, server, workers
        time.sleep(0.15)  # the workers busy with their ranges
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # the command's stderr held open by what it left
            proc.kill()
            err = b"stderr still open 60 s after the command ended"
        gone = waited(lambda m=mark: not marked_processes(m), 10)
        lines = err.decode("utf-8", "replace").splitlines()
        said = sig == signal.SIGKILL or lines == [
            "interrupted" if sig == signal.SIGINT else "terminated"
        ]
        shutil.rmtree(out, ignore_errors=True)
        if sig == signal.SIGKILL:
            # killed mid-request, the fork server (Python's own) may print its EOFError: the
            # command could say nothing, so only what it left behind counts
            err = b""
        tally.add("signals", f"index {sig.name} to the command alone, workers running", err,
                  started and gone and said)  # fmt: skip


def signals(repo: Path, work: Path, tally: Tally) -> None:
    for sig in (signal.SIGINT, signal.SIGTERM):
        for delay in (0.1, 0.2, 0.4, 0.8, 1.5, 3.0):
            copy = work / "sig"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(repo, copy, symlinks=True)
            shutil.rmtree(copy / ".strata")
            proc = subprocess.Popen([PY, "-m", "gitstrata", "-C", str(copy), "index", "-q"], env=ENV,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True)  # fmt: skip
            time.sleep(delay)
            try:
                os.killpg(proc.pid, sig)  # as a terminal's Ctrl-C: the whole process group
            except ProcessLookupError:
                pass
            _, err = proc.communicate(timeout=120)
            live = cli(copy, "status")
            # 130/143: interrupted by gitstrata's handlers; -2/-15: the signal ended the
            # interpreter before them (silently, for SIGTERM); either way no half index is live
            ended = proc.returncode in (0, 130, 143, -signal.SIGINT, -signal.SIGTERM)
            ok = ended and (live.returncode == 0 or b"no index has been built" in live.stderr)
            tally.add("signals", f"index {sig.name} at {delay}s", err + live.stderr, ok)
    pool_signals(work, tally)
    for how in ("SIGINT", "SIGTERM", "stdin EOF", "client killed mid-call"):
        copy = work / "srv"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(repo, copy, symlinks=True)
        server = Server(copy)
        acked = set()
        for n in range(5):
            reply = server.tool("record_failure", {
                "file_path": "pay/m1.py", "attempted_diff": f"-    return x + 1\n+    return x - {n}\n",
                "error_trace": f"AssertionError: case {n}", "notes": f"tried variant {n}"})  # fmt: skip
            sc = reply.get("result", {}).get("structuredContent") or {}
            if "failure_id" in sc:
                acked.add(int(sc["failure_id"]))
        code, log = server.stop(how)
        lost = len(acked - _journal_failures(copy))
        tally.kinds["signals"]["records_lost"] += lost
        tally.add("signals", f"mcp {how}", log, code == 0 and lost == 0 and len(acked) == 5)
        shutil.rmtree(copy, ignore_errors=True)


# ------------------------------------------------------------------ Python API


def unguarded_script(repo: Path, out: Path, marker: Path) -> str:
    """A plain script (no `if __name__ == "__main__":` guard) that indexes `repo` into `out`,
    notes each run of its body in `marker`, and prints the number of capsule's workers."""
    return (
        "from gitstrata import Strata\n"
        f"with open({str(marker)!r}, 'a') as fh:\n"
        "    fh.write('ran\\n')\n"
        f"with Strata({str(repo)!r}, index_dir={str(out)!r}) as strata:\n"
        "    report = strata.index(jobs=2)\n"
        "    print(next(s.stats['workers'] for s in report.stages if s.name == 'capsule'))\n"
    )


def pool_script(repo: Path, outs: list[Path]) -> str:
    """A script indexing `repo` into each of `outs` from its own two-worker process pool (the
    workers are daemonic), printing each index's number of capsule workers."""
    return (
        "import multiprocessing\n"
        "from gitstrata import Strata\n"
        "def index(out):\n"
        f"    with Strata({str(repo)!r}, index_dir=out) as strata:\n"
        "        report = strata.index()\n"
        "        return next(s.stats['workers'] for s in report.stages if s.name == 'capsule')\n"
        "if __name__ == '__main__':\n"
        "    with multiprocessing.get_context('forkserver').Pool(2) as pool:\n"
        f"        print(*pool.map(index, {[str(o) for o in outs]!r}))\n"
    )


def run_script(script: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([PY, str(script)], env=ENV, capture_output=True, text=True,
                          timeout=timeout, cwd=script.parent)  # fmt: skip


def python_api(work: Path, tally: Tally) -> None:
    """Scripts as users write them: the README's example saved without a main guard, on a history
    long enough for capsule's pool (its workers once ran the script again, and the run ended in
    `BrokenProcessPool`); an index in a worker of the script's own pool, which may not start
    processes."""
    from .history_speed import make_synthetic

    repo = work / "pool-history"
    if not repo.exists():
        repo = make_synthetic(repo, 900)
    marker = work / "api-runs.txt"
    script = work / "api-unguarded.py"
    script.write_text(unguarded_script(repo, work / "api-idx", marker))
    done = run_script(script)
    ok = done.returncode == 0 and done.stdout.split() == ["2"] and marker.read_text() == "ran\n"
    tally.add("Python API", "a script without a main guard, capsule on its pool", done.stderr, ok)
    script = work / "api-pool.py"
    script.write_text(pool_script(repo, [work / "api-a", work / "api-b"]))
    done = run_script(script)
    ok = done.returncode == 0 and done.stdout.split() == ["1", "1"]
    tally.add("Python API", "an index in a worker of the script's own pool", done.stderr, ok)
    for out in ("api-idx", "api-a", "api-b"):
        shutil.rmtree(work / out, ignore_errors=True)


# ------------------------------------------------------------------ fuzz

WORDS = ["query", "preflight", "index", "status", "sql", "inspect", "invariant", "add", "list",
         "remove", "graveyard", "show", "config", "--json", "--out", "-C", "--top-k", "-s",
         "--scope", "-d", "--mode", "--raw", "--help", "-1", "0", "1e9", "", "..", "/", "--"]  # fmt: skip


def _noise(rng: random.Random) -> str:
    pool = "aZ9_-./:*?[]{}()<>|&;$`'\"\\ \t\n#%@!~é中\u202e\u200b"
    text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 30)))
    return text.replace("\x00", "")


def fuzz_cli(repo: Path, tally: Tally, n: int, rng: random.Random) -> None:
    for _ in range(n):
        args = [
            rng.choice(WORDS) if rng.random() < 0.6 else _noise(rng)
            for _ in range(rng.randint(1, 6))
        ]
        args = [a for a in args if a != "index"] or ["status"]  # the fuzz only reads
        done = cli(repo, *args)
        err = done.stderr.decode("utf-8", "replace")
        tally.add("fuzz (CLI)", " ".join(args)[:80], err, done.returncode == 0 or bool(err.strip()))


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.random()
    if depth > 3 or pick < 0.4:
        return rng.choice(
            [None, True, -5, 0, 10**12, 1.5, "", _noise(rng), "x" * rng.randint(0, 3000)]
        )
    if pick < 0.7:
        return [_json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    keys = ["retrieval", "index", "commit_slots", "causal", "bogus", "rrf_k", "token_budget",
            "graveyard", "firewall", "keep_generations", _noise(rng)]  # fmt: skip
    return {rng.choice(keys): _json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def fuzz_config(repo: Path, tally: Tally, n: int, rng: random.Random) -> None:
    from ..store.config import Config
    from ..store.errors import ConfigError

    folder = Path(tempfile.mkdtemp(prefix="gitstrata-cfg-"))
    try:
        for i in range(n):
            value = _json_value(rng)
            (folder / "config.json").write_text(json.dumps(value))
            try:
                Config.load(folder)
                ok, err = True, ""
            except ConfigError as exc:
                ok, err = "\n" not in str(exc), ""
            except Exception as exc:  # noqa: BLE001 - what the benchmark counts
                ok, err = False, f"Traceback: {type(exc).__name__}: {exc}"
            tally.add("fuzz (config)", f"config #{i}", err, ok)
        # the CLI end to end on a few of them
        for i in range(5):
            (repo / ".strata" / "config.json").write_text(json.dumps(_json_value(rng)))
            done = cli(repo, "query", "rounding")
            tally.add("fuzz (config)", f"cli config #{i}", done.stderr,
                      done.returncode == 0 or one_line_failure(done))  # fmt: skip
        (repo / ".strata" / "config.json").unlink()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


TOOLS = {
    "preflight_check": ["file_path", "symbol_name", "intended_change"],
    "search_causal_history": ["query", "top_k", "file_path"],
    "record_invariant": ["rule_id", "scope", "invariant_description", "severity"],
}


def fuzz_mcp(repo: Path, work: Path, tally: Tally, n: int, rng: random.Random) -> None:
    copy = work / "fuzz-mcp"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(repo, copy, symlinks=True)
    server = Server(copy)
    try:
        for i in range(n):
            tool = rng.choice(list(TOOLS))
            args = {k: _json_value(rng) for k in TOOLS[tool] if rng.random() < 0.8}
            if rng.random() < 0.2:
                args[_noise(rng) or "extra"] = _json_value(rng)
            try:
                reply = server.tool(tool, args)
            except (EOFError, ValueError) as exc:
                tally.add("fuzz (MCP)", f"{tool} #{i}", f"server gone: {exc}", False)
                break
            result = reply.get("result") or {}
            texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict)]
            text = " ".join(texts)
            ok = "result" in reply and (not result.get("isError") or "\n" not in text.strip())
            tally.add("fuzz (MCP)", f"{tool} #{i}", "Traceback" if "Traceback" in text else "", ok)
    finally:
        code, err = server.stop("stdin EOF")
        tally.add("fuzz (MCP)", "server log", err, code == 0)
        shutil.rmtree(copy, ignore_errors=True)


# ------------------------------------------------------------------ load


OVERSIZED = [
    ("search_causal_history", {"query": "why rounding " + "q" * 3900}),
    ("search_causal_history", {"query": "x" * 100_000}),
    ("preflight_check", {"file_path": "pay/m1.py", "symbol_name": "f" * 100_000}),
    ("preflight_check", {"file_path": "pay/m1.py", "intended_change": "round " * 650}),
    (
        "record_invariant",
        {"rule_id": "BIG", "scope": "s" * 10_000_000, "invariant_description": "d"},
    ),
]


def _record_failures(repo: Path, count: int) -> None:
    """`count` different failed attempts on one function, through the public API."""
    from .. import Strata

    with Strata(repo) as strata:
        for n in range(count):
            strata.record_failure(
                "pay/m1.py",
                f"--- a/pay/m1.py\n+++ b/pay/m1.py\n@@ -2 +2 @@\n-    return x + 1\n"
                f"+    return x * {n + 2}  # variant {n}\n",
                f"FAILED tests/test_m1.py::test_f{n} - AssertionError: rounding {n}",
                notes=f"tried multiplying by {n + 2} to fix the rounding",
            )


def journal_growth(repo: Path, work: Path, failures: int = 1200, rounds: int = 5) -> dict[str, Any]:
    """With `failures` recorded attempts: the first preflight (every attempt read and built),
    then, `rounds` times, one more attempt recorded and the next preflight and search timed (in
    process, through the public API, on a copy of `repo`)."""
    from .. import Strata

    copy = work / "journal-growth"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(repo, copy, symlinks=True)
    try:
        _record_failures(copy, failures)
        with Strata(copy) as strata:
            t0 = time.perf_counter()
            strata.preflight("pay/m1.py", "f1", "multiply to fix the rounding")
            first = (time.perf_counter() - t0) * 1000
            pre, srch = [], []
            for n in range(rounds):
                strata.record_failure(
                    "pay/m1.py",
                    f"-    return x + 1\n+    return x / {n + 3}  # round {n}\n",
                    f"FAILED tests/test_m1.py::test_div{n} - ZeroDivisionError: round {n}",
                    notes=f"tried dividing by {n + 3} to fix the rounding",
                )
                t0 = time.perf_counter()
                strata.preflight("pay/m1.py", "f1", "multiply to fix the rounding")
                pre.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                strata.search("rounding fix", 8)
                srch.append((time.perf_counter() - t0) * 1000)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    return {
        "recorded_failures": failures,
        "first_preflight_ms": round(first, 1),
        "preflight_after_append_p50_ms": round(percentile(pre, 50), 1),
        "search_after_append_p50_ms": round(percentile(srch, 50), 1),
        "rounds": rounds,
    }


# single tokens that cost the square of their length in a pattern retried from every position
LONG_TOKEN_UNITS = ("a", "A", "a-", "a.", "a_", "a/", "aB", "Z-1", "a(")


def long_tokens(repo: Path, chars: int = 30_000) -> dict[str, Any]:
    """The slowest in-process search for a query that is one `chars`-character token."""
    from .. import Strata

    times = {}
    with Strata(repo) as strata:
        strata.search("rounding", 5)
        for unit in LONG_TOKEN_UNITS:
            t0 = time.perf_counter()
            strata.search((unit * chars)[:chars], 8)
            times[unit] = (time.perf_counter() - t0) * 1000
    worst = max(times, key=lambda u: times[u])
    return {"chars": chars, "max_ms": round(times[worst], 1), "slowest": worst}


def _settle(server: Server, timeout: float = 60.0) -> None:
    """Wait until the server's RSS stops moving (2 s apart, within 2 MB)."""
    deadline = time.monotonic() + timeout
    prev = -1
    while time.monotonic() < deadline:
        time.sleep(2.0)
        cur = server.rss_kb()
        if abs(cur - prev) < 2048:
            return
        prev = cur


def load(repo: Path, work: Path, failures: int = 200) -> dict[str, Any]:
    copy = work / "load"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(repo, copy, symlinks=True)
    _record_failures(copy, failures)
    server = Server(copy)
    from ..serve.mcp_server import MAX_REQUEST_BYTES

    out: dict[str, Any] = {
        "recorded_failures": failures,
        "max_request_mb": round(MAX_REQUEST_BYTES / 2**20, 1),
    }
    try:
        server.tool("search_causal_history", {"query": "rounding"})
        # the engine loads in the background once the first answer is out: the baseline is
        # taken once it has (RSS steady), after a few ordinary calls
        out["rss_first_answer_mb"] = round(server.rss_kb() / 1024, 1)
        _settle(server)
        for query in ("rounding fix", "why multiply", "m1 f1"):
            server.tool("search_causal_history", {"query": query})
        server.tool("preflight_check", {"file_path": "pay/m1.py", "symbol_name": "f1"})
        _settle(server)
        out["rss_start_mb"] = round(server.rss_kb() / 1024, 1)
        seq: list[float] = []
        for i in range(200):
            tool, args = OVERSIZED[i % len(OVERSIZED)]
            t0 = time.perf_counter()
            server.tool(tool, args)
            seq.append((time.perf_counter() - t0) * 1000)
        out["sequential_200"] = {"p50_ms": round(percentile(seq, 50), 2),
                                 "p95_ms": round(percentile(seq, 95), 2),
                                 "max_ms": round(max(seq), 2)}  # fmt: skip
        t0 = time.perf_counter()
        for i in range(20):
            tool, args = OVERSIZED[i % len(OVERSIZED)]
            server.send("tools/call", {"name": tool, "arguments": args})
        for _ in range(20):
            server.read()
        out["concurrent_20"] = {"total_ms": round((time.perf_counter() - t0) * 1000, 1)}
        out["rss_end_mb"] = round(server.rss_kb() / 1024, 1)
        sizes = []
        for query in ("rounding fix", "multiplying m1 f1", "AssertionError rounding"):
            reply = server.tool("search_causal_history", {"query": query})
            result = reply.get("result", {})
            sizes.append(len(json.dumps(result.get("structuredContent") or {})))
            sizes.append(len(json.dumps(result.get("content") or [])))
        out["search_structured_bytes"] = max(sizes[0::2])
        out["search_text_bytes"] = max(sizes[1::2])
        # one 4,000-character token per call (the longest query a call may send)
        held = []
        for unit in LONG_TOKEN_UNITS:
            t0 = time.perf_counter()
            server.tool("search_causal_history", {"query": (unit * 4000)[:4000]})
            held.append((time.perf_counter() - t0) * 1000)
        out["mcp_4k_token_max_ms"] = round(max(held), 1)
    finally:
        server.stop("stdin EOF")
        shutil.rmtree(copy, ignore_errors=True)
    return out


# ------------------------------------------------------------------ run and report


def measure(seed: int = 17, fuzz: int = 60, repo: Path | None = None) -> dict[str, Any]:
    """Every case on a fresh copy of `repo` (a small built one by default)."""
    rng = random.Random(seed)
    tally = Tally()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gitstrata-robust-") as tmp:
        work = Path(tmp)
        base = work / "repo"
        if repo is None:
            build_repo(base)
        else:
            shutil.copytree(repo, base, symlinks=True)
            shutil.rmtree(base / ".strata", ignore_errors=True)
        done = cli(base, "index", "-q", timeout=1800)
        if done.returncode != 0:
            raise RuntimeError(done.stderr.decode("utf-8", "replace"))
        bad_input(base, work, tally)
        corruption(base, work, tally)
        git_configuration(base, work, tally)
        signals(base, work, tally)
        python_api(work, tally)
        fuzz_cli(base, tally, fuzz, rng)
        fuzz_config(base, tally, fuzz * 3, rng)
        fuzz_mcp(base, work, tally, fuzz * 2, rng)
        server = load(base, work)
        server["long_token"] = long_tokens(base)
        server["journal_growth"] = journal_growth(base, work)
    total = {
        k: sum(row[k] for row in tally.kinds.values())
        for k in ("tried", "tracebacks", "wrong", "records_lost")
    }
    return {"kinds": tally.kinds, "total": total, "server": server,
            "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "## Robustness (`python -m gitstrata.benchmarks.robustness`)",
        "",
        "Bad input, damaged indexes, signals, scripts using the Python API and fuzz against the "
        "real CLI and `gitstrata mcp` (stdio). *Wrong*: not one error line with a non-zero exit, "
        "a damage not named or not repaired, a server that did not exit 0, a script that did not "
        "index, an index under a git setting that failed or whose history differs from the one "
        "without it.",
        "",
        "| cases | tried | tracebacks | wrong | records lost |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for kind, row in result["kinds"].items():
        lines.append(
            f"| {kind} | {row['tried']} | {row['tracebacks']} | {row['wrong']} | {row['records_lost']} |"
        )
    t = result["total"]
    lines.append(
        f"| **total** | **{t['tried']}** | **{t['tracebacks']}** | **{t['wrong']}** | **{t['records_lost']}** |"
    )
    s = result["server"]
    lines += [
        "",
        f"MCP server under oversized arguments (100 KB query and symbol name, a 10 MB request "
        f"(refused unread past {s.get('max_request_mb', '-')} MB), 4 KB queries): RSS "
        f"{s.get('rss_first_answer_mb', '-')} MB at the first answer, {s['rss_start_mb']} MB "
        f"once the engine is loaded and warm, {s['rss_end_mb']} MB after "
        f"200 sequential + 20 concurrent calls; sequential p50 {s['sequential_200']['p50_ms']} ms, "
        f"p95 {s['sequential_200']['p95_ms']} ms, max {s['sequential_200']['max_ms']} ms; "
        f"20 concurrent in {s['concurrent_20']['total_ms']} ms. With "
        f"{s['recorded_failures']} recorded failures a search's structured content is at most "
        f"{s['search_structured_bytes']} bytes (its text {s['search_text_bytes']} bytes). "
        f"A query of one {s['long_token']['chars']:,}-character token takes at most "
        f"{s['long_token']['max_ms']} ms in process (`{s['long_token']['slowest']}...`); over MCP "
        f"a 4,000-character one holds the server at most {s['mcp_4k_token_max_ms']} ms.",
        "",
    ]
    g = s.get("journal_growth")
    if g:
        lines += [
            f"With {g['recorded_failures']:,} recorded failures (in process): the first preflight "
            f"{g['first_preflight_ms']} ms; after one more is recorded, the next preflight "
            f"{g['preflight_after_append_p50_ms']} ms and search {g['search_after_append_p50_ms']} ms "
            f"(P50 of {g['rounds']}).",
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gitstrata.benchmarks.robustness",
                                 description=__doc__.split("\n\n")[0])  # fmt: skip
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--fuzz", type=int, default=60, help="CLI fuzz cases (config x3, MCP x2)")
    ap.add_argument("--repo", type=Path, help="a repository to copy instead of the built one")
    ap.add_argument(
        "--journal-growth",
        type=int,
        metavar="N",
        help="only time answers after an append with N recorded failures (built repository)",
    )
    args = ap.parse_args(argv)
    if args.journal_growth is not None:
        with tempfile.TemporaryDirectory(prefix="gitstrata-robust-") as tmp:
            base = build_repo(Path(tmp) / "repo")
            done = cli(base, "index", "-q", timeout=1800)
            if done.returncode != 0:
                raise SystemExit(done.stderr.decode("utf-8", "replace"))
            got = journal_growth(base, Path(tmp), args.journal_growth)
        sys.stdout.write(json.dumps(got) + "\n")
        return 0
    result = measure(args.seed, args.fuzz, args.repo)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(markdown(result) + "\n")
        for kind, row in result["kinds"].items():
            for example in row["examples"]:
                sys.stdout.write(f"  {kind}: {example}\n")
    return 0 if result["total"]["tracebacks"] == 0 and result["total"]["records_lost"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
