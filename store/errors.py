"""The error hierarchy shared by every layer.

Each error is a user-facing noun with a one-line message; the CLI turns any `GitstrataError` into
that line plus the `hint` (how to fix it) and exit status 1. Programming errors are not wrapped.
"""

from __future__ import annotations


class GitstrataError(Exception):
    """Base of every error gitstrata reports to a user."""

    hint: str | None = None

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint


class NotARepository(GitstrataError):
    """The path is not a usable git work tree (missing, bare, not a repository)."""


class EmptyRepository(GitstrataError):
    """The repository has no commits yet, so there is nothing to index."""

    hint = "commit something first, then run `gitstrata index` again"


class GitError(GitstrataError):
    """A git command failed or git is not installed."""


class IndexMissing(GitstrataError):
    """No published index generation exists where one was expected."""

    hint = "run `gitstrata index` to build it"


class IndexCorrupt(GitstrataError):
    """An artifact is missing, has the wrong format version, or fails its checksum."""

    hint = "run `gitstrata index --rebuild` to rebuild it"


class IndexLocked(GitstrataError):
    """Another `gitstrata index` holds the index lock."""


class ConfigError(GitstrataError):
    """`.strata/config.json` has an unknown key or a bad value."""


class StageError(GitstrataError):
    """A pipeline stage failed; the previous generation stays live."""


class PipelineGraphError(GitstrataError):
    """The stage graph is invalid (unknown inputs, duplicate outputs, cycles)."""


class JournalError(GitstrataError):
    """The journal could not be read or appended to."""


class InputError(GitstrataError):
    """A caller passed a bad argument (a path outside the repository, an oversize payload)."""


class AmbiguousSymbol(InputError):
    """A symbol name that matches several symbols of a file equally well."""

    def __init__(self, path: str, name: str, candidates: list[tuple[str, int, int]]) -> None:
        self.path = path
        self.name = name
        # (qualname, start line, end line), in file order
        self.candidates = candidates
        shown = ", ".join(f"{q} (lines {a}-{b})" for q, a, b in candidates[:12])
        more = f", and {len(candidates) - 12} more" if len(candidates) > 12 else ""
        first = candidates[0]
        hint = f"add the line to the name ({self.pick(first)})"
        if len({q for q, _, _ in candidates}) == len(candidates):
            hint += f" or qualify it ({first[0]})"
        super().__init__(f"{self.headline}: {shown}{more}", hint=hint)

    @property
    def headline(self) -> str:
        return f"{self.path}: {self.name!r} names {len(self.candidates)} symbols"

    def pick(self, candidate: tuple[str, int, int]) -> str:
        """The name that picks `candidate`: the name as given, at its first line."""
        base = self.name.rsplit("@", 1)[0] if "@" in self.name else self.name
        return f"{base}@{candidate[1]}"
