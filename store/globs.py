"""Path globs, compiled once to regular expressions.

Shared by the batch side (vendored files) and the read side (invariant scopes), so a pattern
means the same thing everywhere: `*` and `?` stay inside one path segment, `**` spans segments
(`a/**` matches everything under `a`, `**/x.py` matches `x.py` at any depth). A scope may name
symbols after `::` (`backend/api/*.py::Order*`), matched against qualified names.
"""

from __future__ import annotations

import re
from functools import lru_cache


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                i += 2
                if i < n and pattern[i] == "/":
                    i += 1
                    out.append("(?:.*/)?")  # zero or more whole segments
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex matching whole repo-relative POSIX paths."""
    pattern = pattern.strip().lstrip("/")
    if pattern.endswith("/"):
        pattern += "**"
    return re.compile(_translate(pattern) + r"\Z", re.DOTALL)


class PathMatcher:
    """Several globs compiled into one alternation, for testing many paths fast."""

    def __init__(self, patterns: tuple[str, ...] | list[str]) -> None:
        self.patterns = tuple(patterns)
        if self.patterns:
            alt = "|".join(f"(?:{compile_glob(p).pattern[:-2]})" for p in self.patterns)
            self._re: re.Pattern[str] | None = re.compile(rf"(?:{alt})\Z", re.DOTALL)
        else:
            self._re = None

    def __call__(self, path: str) -> bool:
        return self._re is not None and self._re.match(path) is not None


class Scope:
    """`glob` or `glob::SymbolGlob`: the target of an invariant."""

    def __init__(self, scope: str) -> None:
        self.text = scope
        path_part, sep, symbol_part = scope.partition("::")
        self.path_re = compile_glob(path_part or "**")
        # symbol globs may contain dots (Class.method) and no slashes: `*` spans any characters
        self.symbol_re = (
            re.compile(re.escape(symbol_part).replace(r"\*", ".*").replace(r"\?", ".") + r"\Z")
            if sep
            else None
        )

    def matches(self, path: str, qualname: str | None = None) -> bool:
        if self.path_re.match(path) is None:
            return False
        if self.symbol_re is None:
            return True
        return qualname is not None and self.symbol_re.match(qualname) is not None
