"""Failure signatures: what went wrong, read from a tool's output.

`extract_signature(output)` reads the output of pytest, Python tracebacks, `go test` (including
`-race` reports and panics), cargo / rustc (`error[E....]`, panics, failed tests), Jest, tsc,
mypy and ruff, in any mix (a `make check` runs several), and returns the error lines, failing
test ids, exception types, error codes and `file:line` locations. Invariants:

- One pass over the lines, no backtracking: bounded by the output's size, which the caller
  already bounded to a tail.
- Each list keeps first-seen order without duplicates and at most `MAX_ITEMS` entries of at most
  `MAX_CHARS` characters. Colour escapes are removed before matching.
- Locations inside toolchains and dependencies (the standard library, `site-packages`,
  `node_modules`, `/rustc/`, GOROOT) are left out: they are the same for every failure.
- Output no rule understands still gives a signature: the last lines that look like errors.
"""

from __future__ import annotations

import re
from dataclasses import fields

from ..store.attempts import Signature

__all__ = ["Signature", "extract_signature"]

MAX_ITEMS = 20
MAX_CHARS = 300

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_TOOLCHAIN = re.compile(
    r"(?:^|/)(?:site-packages|dist-packages|node_modules|lib/python\d|library/(?:std|core|alloc)|"
    r"go/src|\.cargo/registry|\.rustup)/|^/rustc/|^<frozen |^internal/|^node:|^testing\.go$"
)

_EXC_NAME = r"(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt|Failure|Fault|Timeout|Declined|Denied|Invalid|Mismatch|NotFound|Iteration)"
_EXC_LINE = re.compile(rf"^({_EXC_NAME}|(?:[A-Za-z_]\w*\.)*[A-Z]\w+)(?::\s*(.*))?$")
# a name starts where a dotted chain starts, never inside one: started at every segment of a long
# `a.a.a...` line the scan would cost the square of the line's length
_EXC_ANYWHERE = re.compile(rf"\b(?<!\w\.)({_EXC_NAME})\b")
_CODES = re.compile(
    r"\b(ERR_[A-Z0-9_]{2,}|E\d{4,5}|TS\d{4,5}|DATA_RACE|"
    r"E(?:ACCES|NOENT|CONNREFUSED|CONNRESET|ADDRINUSE|TIMEDOUT|PIPE|NOMEM|EXIST|PERM))\b"
)

# pytest
_PYTEST_SUMMARY = re.compile(r"^(FAILED|ERROR) (\S+?)(?: - (.*))?$")
_PYTEST_E = re.compile(r"^E\s+(.+)$")
_PYTEST_LOC = re.compile(r"^(\S+\.py):(\d+): (\w+)$")
_PYTEST_RESULT = re.compile(r"^=+ .*\b(?:failed|errors?|passed)\b.* in [\d.]+s.*=+$")
# Python
_PY_FRAME = re.compile(r'^\s+File "(.+)", line (\d+), in (.+)$')
# Go
_GO_FAIL = re.compile(r"^\s*--- FAIL: (\S+) \([\d.]+s\)")
_GO_PKG = re.compile(r"^FAIL\s+(\S+)\s+(?:[\d.]+s|\[build failed\]|\[setup failed\])")
_GO_RACE_ACCESS = re.compile(
    r"^(?:Previous )?(?:[Ww]rite|[Rr]ead) at 0x[0-9a-f]+ by (?:goroutine|main)"
)
_GO_FUNC = re.compile(r"^\s+([\w./*()-]+\.[\w()*.]+)\((?:[^)]*)\)$")
_GO_PANIC = re.compile(r"^panic: (.+?)(?: \[recovered\])?$")
_GO_FRAME = re.compile(r"^\s+(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$")
_GO_TESTLOG = re.compile(r"^\s+(\w[\w.-]*_test\.go|\w[\w.-]*\.go):(\d+): (.+)$")
_GO_COMPILE = re.compile(r"^(\S+\.go):(\d+):(\d+): (.+)$")
# Rust
_RUST_ERR = re.compile(r"^error\[(E\d{4})\]: (.+)$")
_RUST_PLAIN_ERR = re.compile(r"^error: (.+)$")
_RUST_SKIP = re.compile(
    r"^(?:could not compile|aborting due to|test failed, to rerun|\d+ previous error)"
)
_ARROW_LOC = re.compile(r"^\s*--> (\S+?):(\d+):(\d+)$")
_RUST_PANIC = re.compile(r"^thread '(.+?)'(?: \(\d+\))? panicked at (\S+?):(\d+):(\d+):$")
_RUST_PANIC_OLD = re.compile(r"^thread '(.+?)' panicked at '(.*)', (\S+?):(\d+):(\d+)$")
_RUST_TEST = re.compile(r"^test (\S+) \.\.\. FAILED$")
_RUST_FRAME = re.compile(r"^\s+at \./(\S+\.rs):(\d+):(\d+)$")
# Jest
_JEST_FILE = re.compile(r"^\s*FAIL\s+(\S+\.(?:[jt]sx?|mjs|cjs))\b")
_JEST_TEST = re.compile(r"^\s*● (.+)$")
_JEST_FRAME = re.compile(
    r"^\s+at (?:.*? \()?((?:\.{0,2}/)?[\w@./-]+\.(?:[jt]sx?|mjs|cjs)):(\d+):(\d+)\)?$"
)
# tsc
_TSC = re.compile(
    r"^(\S+\.(?:[mc]?tsx?|[mc]?jsx?))(?:\((\d+),(\d+)\)|:(\d+):(\d+)) ?[:-] error (TS\d+): (.+)$"
)
# mypy
_MYPY = re.compile(r"^(\S+\.pyi?):(\d+)(?::\d+)?: error: (.+?)(?:  \[([\w-]+)\])?$")
# ruff / flake8
_RUFF_CONCISE = re.compile(r"^(\S+?):(\d+):(\d+): ([A-Z]{1,4}\d{3,4}) (?:\[\*\] )?(.+)$")
_RUFF_FULL = re.compile(r"^([A-Z]{1,4}\d{3,4}) (?:\[\*\] )?(.+)$")
_GENERIC_ERR = re.compile(
    r"(?i)^\s*(?:error|fatal|failed|failure|panic|exception)\b[:!]?\s+\S|\b\w*Error: "
)


class _Collector:
    def __init__(self, root: str | None) -> None:
        self.root = root.rstrip("/") + "/" if root else None
        self.lists: dict[str, dict[str, None]] = {f.name: {} for f in fields(Signature)}

    def add(self, kind: str, value: str | None) -> None:
        if not value:
            return
        value = " ".join(value.split())
        if len(value) > MAX_CHARS:
            value = value[: MAX_CHARS - 3] + "..."
        bucket = self.lists[kind]
        if value and len(bucket) < MAX_ITEMS:
            bucket[value] = None

    def loc(self, path: str, line: str | int) -> None:
        path = path.strip()
        if self.root and path.startswith(self.root):
            path = path[len(self.root) :]
        if path.startswith("./"):
            path = path[2:]
        if not _TOOLCHAIN.search(path):
            self.add("locations", f"{path}:{line}")

    def exception(self, name: str) -> None:
        self.add("exceptions", name.rsplit(".", 1)[-1])

    def build(self) -> Signature:
        return Signature(**{k: tuple(v) for k, v in self.lists.items()})


class _Reader:
    """One pass over the lines: each tool's rules in turn, the first that consumes a line wins.

    A rule method returns True when the line was its own (no later rule sees it); state that
    spans lines (inside a traceback, inside a race report, a message expected on the next line)
    lives here.
    """

    def __init__(self, lines: list[str], root: str | None) -> None:
        self.lines = lines
        self.c = _Collector(root)
        self.in_traceback = self.in_race = False
        self.want_panic_msg = self.want_jest_msg = False
        self.fallback: list[str] = []

    def _next(self, i: int) -> str | None:
        return self.lines[i + 1] if i + 1 < len(self.lines) else None

    def read(self) -> Signature:
        rules = (self.python, self.pytest, self.path_first, self.go, self.rust, self.jest)
        for i, line in enumerate(self.lines):
            stripped = line.strip()
            if not stripped:
                continue
            for code in _CODES.findall(line):
                self.c.add("codes", code)
            if self.continuation(stripped):
                continue
            if _GENERIC_ERR.search(line):
                self.fallback.append(stripped)
            if any(rule(i, line, stripped) for rule in rules):
                continue
            if (m := _EXC_ANYWHERE.search(stripped)) is not None and ": " in stripped:
                self.c.exception(m.group(1))
        return self.finish()

    def continuation(self, stripped: str) -> bool:
        """The message line a Rust panic or a Jest failure header announced."""
        c = self.c
        if self.want_panic_msg:
            self.want_panic_msg = False
            c.add("errors", f"panicked: {stripped}")
            return True
        if self.want_jest_msg and not stripped.startswith("●"):
            self.want_jest_msg = False
            c.add("errors", stripped)
            if (m := _EXC_ANYWHERE.search(stripped)) is not None:
                c.exception(m.group(1))
            return True
        return False

    def python(self, i: int, line: str, stripped: str) -> bool:
        """Python tracebacks (also inside pytest output)."""
        c = self.c
        if stripped.startswith("Traceback (most recent call last)"):
            c.add("tools", "python")
            self.in_traceback = True
            return True
        if (m := _PY_FRAME.match(line)) is not None:
            c.loc(m.group(1), m.group(2))
            return True
        if self.in_traceback and not line[:1].isspace():
            self.in_traceback = False
            if (m := _EXC_LINE.match(stripped)) is not None:
                c.exception(m.group(1))
                c.add("errors", stripped)
                return True
        return False

    def pytest(self, i: int, line: str, stripped: str) -> bool:
        c = self.c
        if (m := _PYTEST_SUMMARY.match(line)) is not None and (
            "::" in m.group(2) or m.group(2).endswith(".py")
        ):
            c.add("tools", "pytest")
            c.add("failing", m.group(2))
            msg = m.group(3)
            if msg and not msg.endswith("..."):
                c.add("errors", msg)
            return True
        if (m := _PYTEST_E.match(line)) is not None:
            body = m.group(1).strip()
            if (e := _EXC_LINE.match(body)) is not None and e.group(2) is not None:
                c.exception(e.group(1))
                c.add("errors", body)
            elif body.startswith("assert "):
                c.add("errors", body)
            return True
        if (m := _PYTEST_LOC.match(line)) is not None:
            c.loc(m.group(1), m.group(2))
            c.exception(m.group(3))
            return True
        if _PYTEST_RESULT.match(stripped):
            c.add("tools", "pytest")
            return True
        return False

    def path_first(self, i: int, line: str, stripped: str) -> bool:
        """mypy, tsc and ruff: formats that start with the file's path."""
        c = self.c
        if (m := _MYPY.match(line)) is not None:
            c.add("tools", "mypy")
            c.loc(m.group(1), m.group(2))
            c.add("errors", m.group(3))
            c.add("codes", m.group(4))
            return True
        if (m := _TSC.match(line)) is not None:
            c.add("tools", "tsc")
            c.loc(m.group(1), m.group(2) or m.group(4))
            c.add("codes", m.group(6))
            c.add("errors", f"{m.group(6)}: {m.group(7)}")
            return True
        if (m := _RUFF_CONCISE.match(line)) is not None:
            c.add("tools", "ruff")
            c.loc(m.group(1), m.group(2))
            c.add("codes", m.group(4))
            c.add("errors", f"{m.group(4)} {m.group(5)}")
            return True
        nxt = self._next(i)
        if (
            (m := _RUFF_FULL.match(line)) is not None
            and nxt is not None
            and (loc := _ARROW_LOC.match(nxt)) is not None
        ):
            c.add("tools", "ruff")
            c.loc(loc.group(1), loc.group(2))
            c.add("codes", m.group(1))
            c.add("errors", f"{m.group(1)} {m.group(2)}")
            return True
        return False

    def go(self, i: int, line: str, stripped: str) -> bool:
        """`go test` failures, panics, compile errors and `-race` reports."""
        c = self.c
        if stripped == "WARNING: DATA RACE":
            c.add("tools", "go")
            c.add("errors", "DATA RACE")
            c.add("codes", "DATA_RACE")
            self.in_race = True
            return True
        if self.in_race:
            nxt = self._next(i)
            if stripped.startswith("=================="):
                self.in_race = False
            elif _GO_RACE_ACCESS.match(stripped) and nxt is not None:
                if (f := _GO_FUNC.match(nxt)) is not None:
                    c.add("errors", f"DATA RACE in {f.group(1)}")
            elif (m := _GO_FRAME.match(line)) is not None:
                c.loc(m.group(1), m.group(2))
            return True
        if (m := _GO_FAIL.match(line)) is not None or (m := _GO_PKG.match(line)) is not None:
            c.add("tools", "go")
            c.add("failing", m.group(1))
            return True
        if (m := _GO_PANIC.match(stripped)) is not None:
            c.add("tools", "go")
            c.add("errors", f"panic: {m.group(1)}")
            return True
        if (m := _GO_FRAME.match(line)) is not None:
            c.loc(m.group(1), m.group(2))
            return True
        if (m := _GO_COMPILE.match(line)) is not None:
            c.add("tools", "go")
            c.loc(m.group(1), m.group(2))
            c.add("errors", m.group(4))
            return True
        if (m := _GO_TESTLOG.match(line)) is not None:
            c.loc(m.group(1), m.group(2))
            c.add("errors", m.group(3))
            return True
        return False

    def rust(self, i: int, line: str, stripped: str) -> bool:
        """cargo / rustc errors, panics and failed tests."""
        c = self.c
        if (m := _RUST_ERR.match(line)) is not None:
            c.add("tools", "rust")
            c.add("codes", m.group(1))
            c.add("errors", f"error[{m.group(1)}]: {m.group(2)}")
            return True
        if (m := _ARROW_LOC.match(line)) is not None:
            c.loc(m.group(1), m.group(2))
            return True
        if (m := _RUST_PANIC.match(stripped)) is not None:
            c.add("tools", "rust")
            c.loc(m.group(2), m.group(3))
            self.want_panic_msg = True
            return True
        if (m := _RUST_PANIC_OLD.match(stripped)) is not None:
            c.add("tools", "rust")
            c.loc(m.group(3), m.group(4))
            c.add("errors", f"panicked: {m.group(2)}")
            return True
        if (m := _RUST_TEST.match(line)) is not None:
            c.add("tools", "rust")
            c.add("failing", m.group(1))
            return True
        if (m := _RUST_FRAME.match(line)) is not None:
            c.loc(m.group(1), m.group(2))
            return True
        if (m := _RUST_PLAIN_ERR.match(line)) is not None and not _RUST_SKIP.match(m.group(1)):
            c.add("errors", m.group(1))
            return True
        return False

    def jest(self, i: int, line: str, stripped: str) -> bool:
        c = self.c
        if (m := _JEST_FILE.match(line)) is not None:
            c.add("tools", "jest")
            c.add("failing", m.group(1))
            return True
        if (m := _JEST_TEST.match(line)) is not None and not m.group(1).startswith("Console"):
            c.add("tools", "jest")
            c.add("failing", m.group(1))
            self.want_jest_msg = True
            return True
        if (m := _JEST_FRAME.match(line)) is not None:
            c.loc(m.group(1), m.group(2))
            return True
        return False

    def finish(self) -> Signature:
        """The signature; output no rule understood keeps its last error-looking lines."""
        sig = self.c.build()
        if not sig.errors and self.fallback:
            for text in self.fallback[-5:]:
                self.c.add("errors", text)
            sig = self.c.build()
        return sig


def extract_signature(output: str, *, root: str | None = None) -> Signature:
    """The signature of a failed command's output (any mix of the supported tools).

    `root`: the repository's absolute path; locations under it are made repo-relative.
    """
    lines = [_ANSI.sub("", raw).rstrip("\r") for raw in output.splitlines()]
    return _Reader(lines, root).read()
