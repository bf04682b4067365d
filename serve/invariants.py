"""Team invariants: rules that must always hold, stored in `.strata/invariants.okf.json`.

The file is meant to be committed, so its bytes are a function of its content: keys sorted,
rules sorted by id, two-space indent, UTF-8 kept as is, one trailing newline. Adding a rule twice
leaves the file unchanged. Invariants:

- A write reads the current file, changes it and publishes it by `os.replace` of a fsync'd
  temporary file, all under an exclusive lock: concurrent writers never lose a rule and a reader
  never sees half a file.
- Scopes (`glob` or `glob::SymbolGlob`, see `store.globs.Scope`) are compiled once per version
  of the file; `match` is a regex test per rule, no retrieval or scoring: a matching rule always
  fires.
- A file edited by hand that is not valid is reported with its name and the problem, never
  silently treated as empty.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from ..store.errors import InputError
from ..store.globs import Scope
from ..store.lock import FileLock
from ..store.private import write_shared
from ..store.vocabulary import SEVERITIES

FILE_NAME = "invariants.okf.json"
FORMAT = "okf"
VERSION = 1
_RULE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$")
MAX_DESCRIPTION = 4000
# a glob is a path pattern: its compiled form is matched on every preflight, so its size is
# bounded when it is written (and a file holding a larger one is refused, not slowly served)
MAX_SCOPE = 1000


class InvariantError(InputError):
    """An invariant or the invariants file is not valid."""


@dataclass(frozen=True)
class Invariant:
    id: str
    scope: str
    description: str
    severity: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def _validate(rule_id: str, scope: str, description: str, severity: str) -> Invariant:
    rule_id, scope, description = rule_id.strip(), scope.strip(), description.strip()
    severity = severity.strip().lower()
    if not _RULE_ID.match(rule_id):
        shown = rule_id if len(rule_id) <= 80 else rule_id[:77] + "..."
        raise InvariantError(
            f"invalid rule id {shown!r}",
            hint="use letters, digits and . _ - : / (at most 64), e.g. INV-PAY-001",
        )
    if not scope:
        raise InvariantError(
            f"{rule_id}: the scope is empty",
            hint='give a path glob, optionally with symbols: "src/pay/**" or "api/*.py::Order*"',
        )
    if len(scope) > MAX_SCOPE:
        raise InvariantError(
            f"{rule_id}: the scope has {len(scope)} characters (at most {MAX_SCOPE})",
            hint='give a path glob, optionally with symbols: "src/pay/**" or "api/*.py::Order*"',
        )
    path_part = scope.partition("::")[0]
    if path_part.startswith("/") or ".." in path_part.split("/"):
        raise InvariantError(f"{rule_id}: scope {scope!r} must be relative to the repository")
    try:
        Scope(scope)
    except re.error as exc:
        raise InvariantError(f"{rule_id}: scope {scope!r} is not a valid glob ({exc})") from None
    if not description:
        raise InvariantError(f"{rule_id}: the description is empty")
    if len(description) > MAX_DESCRIPTION:
        raise InvariantError(
            f"{rule_id}: the description has {len(description)} characters "
            f"(at most {MAX_DESCRIPTION})"
        )
    if severity not in SEVERITIES:
        raise InvariantError(
            f"{rule_id}: unknown severity {severity!r}", hint=f"use one of {', '.join(SEVERITIES)}"
        )
    return Invariant(rule_id, scope, description, severity)


def dumps(invariants: list[Invariant]) -> str:
    """The canonical file text for `invariants`."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "invariants": [i.to_dict() for i in sorted(invariants, key=lambda i: i.id)],
    }
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _parse(text: str, name: str) -> list[Invariant]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvariantError(
            f"{name}: not valid JSON (line {exc.lineno}: {exc.msg})",
            hint="fix the file by hand or restore it from git",
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("invariants", []), list):
        raise InvariantError(f"{name}: expected an object with an `invariants` list")
    if doc.get("version", VERSION) != VERSION:
        raise InvariantError(
            f"{name}: unsupported version {doc.get('version')!r} (this gitstrata reads {VERSION})"
        )
    out: dict[str, Invariant] = {}
    for n, item in enumerate(doc.get("invariants", []), start=1):
        if not isinstance(item, dict):
            raise InvariantError(f"{name}: invariant #{n} is not an object")
        try:
            inv = _validate(
                str(item["id"]),
                str(item["scope"]),
                str(item["description"]),
                str(item.get("severity", "high")),
            )
        except KeyError as exc:
            raise InvariantError(f"{name}: invariant #{n} has no {exc.args[0]!r}") from None
        except InvariantError as exc:
            raise InvariantError(f"{name}: {exc}", hint=exc.hint) from None
        out[inv.id] = inv
    return sorted(out.values(), key=lambda i: i.id)


_SEVERITY_RANK = {s: n for n, s in enumerate(SEVERITIES)}


class InvariantStore:
    """The invariants file of one repository (`path` need not exist yet)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._stamp: tuple[int, int, int] | None = None
        self._rules: list[tuple[Invariant, Scope]] = []

    @classmethod
    def in_strata(cls, strata_dir: str | os.PathLike[str]) -> InvariantStore:
        return cls(Path(strata_dir) / FILE_NAME)

    # -------------------------------------------------------------- reading

    def _load(self) -> list[tuple[Invariant, Scope]]:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._stamp, self._rules = None, []
            return self._rules
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        if stamp != self._stamp:
            rules = _parse(self.path.read_text(encoding="utf-8"), self.path.name)
            self._rules = [(inv, Scope(inv.scope)) for inv in rules]
            self._stamp = stamp
        return self._rules

    def rules(self) -> list[Invariant]:
        return [inv for inv, _ in self._load()]

    def get(self, rule_id: str) -> Invariant | None:
        return next((inv for inv in self.rules() if inv.id == rule_id), None)

    def match(self, path: str, qualname: str | None = None) -> list[Invariant]:
        """Rules whose scope covers `path` (and `qualname`), most severe first.

        A scope narrowed to symbols (`::Name*`) matches only when a matching `qualname` is
        given; use `match_file` to ask about a file as a whole.
        """
        hits = [inv for inv, scope in self._load() if scope.matches(path, qualname)]
        return sorted(hits, key=lambda i: (_SEVERITY_RANK[i.severity], i.id))

    def match_file(self, path: str) -> list[Invariant]:
        """Rules whose path glob covers `path`, whatever symbols they are narrowed to."""
        hits = [inv for inv, scope in self._load() if scope.path_re.match(path) is not None]
        return sorted(hits, key=lambda i: (_SEVERITY_RANK[i.severity], i.id))

    # -------------------------------------------------------------- writing

    def add(self, rule_id: str, scope: str, description: str, severity: str = "high") -> Invariant:
        """Add a rule, or replace the rule with the same id."""
        inv = _validate(rule_id, scope, description, severity)
        with self._locked():
            rules = {i.id: i for i in self._read_fresh()}
            rules[inv.id] = inv
            self._write(list(rules.values()))
        return inv

    def remove(self, rule_id: str) -> Invariant:
        with self._locked():
            rules = {i.id: i for i in self._read_fresh()}
            if rule_id not in rules:
                raise InvariantError(
                    f"no invariant {rule_id!r}", hint="`gitstrata invariant list` shows them"
                )
            gone = rules.pop(rule_id)
            self._write(list(rules.values()))
        return gone

    def _locked(self) -> FileLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return FileLock(self.path.with_name(f".{self.path.name}.lock"))

    def _read_fresh(self) -> list[Invariant]:
        try:
            return _parse(self.path.read_text(encoding="utf-8"), self.path.name)
        except FileNotFoundError:
            return []

    def _write(self, invariants: list[Invariant]) -> None:
        write_shared(self.path, dumps(invariants).encode("utf-8"))
        self._stamp = None  # reload (and recompile) on the next read
