"""Commit intent, reverted sha and ticket ids of a commit, from its message and its change.

Deterministic and fast: the same message and changed files always give the same answer, in
microseconds. The change is the stronger evidence, the message says which purpose among those the
change allows. Precedence, first match wins:

1. the team's rules (`history.intent_rules`: a regex on the message and / or globs every changed
   path must match);
2. revert: conventional `revert:`, git's `Revert "..."` subject or a `This reverts commit` line
   (`Revert "Revert ..."` re-applies a change and is classified as that change); the reverted
   commit is the one the line names, else the one the subject names (`named_in_subject`, resolved
   over the whole history by the capsule stage);
3. security: a CVE / GHSA id, a vulnerability named in the subject or a `security:` type, but only
   when product source changed (a dependency bump or a policy file that mentions security is not
   a security fix);
4. a release or version-bump subject, or a dependency bump touching build files: build;
5. no product source changed: the kinds of the changed files decide (`filekind`: tests only ->
   test, docs only -> docs, CI / packaging / lock files / manifests -> build, repository
   housekeeping -> chore; source whose changed lines are all comments counts as docs); a mix is
   settled by the message, else by the larger part;
6. product source changed: the conventional-commit type, else subject keywords (word bounded, in
   `_SOURCE_CUES` order), else a fix in the body or a `Fixes #N` trailer; nothing: `feature`.

Without file information (`files=None`) steps 3-6 read the message alone, as before the change
was known. `chore` is what is left when nothing else fits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..store import filekind
from ..store.globs import compile_glob
from ..store.regexcache import compile_pattern
from .patch import FileChange, hunk_lines

_COMMENT_SCAN_LINES = 400  # larger changes are not scanned for comment-only lines

_CONVENTIONAL = compile_pattern(r"^\s*([A-Za-z]+)(?:\(([^)\n]*)\))?!?\s*:\s*")
_BRACKET = compile_pattern(r"^\s*\[([A-Za-z]+)\]\s*")
_TYPE_INTENT = {
    "fix": "bugfix",
    "bugfix": "bugfix",
    "hotfix": "bugfix",
    "bug": "bugfix",
    "sec": "security",
    "security": "security",
    "revert": "revert",
    "perf": "perf",
    "feat": "feature",
    "feature": "feature",
    "refactor": "refactor",
    "docs": "docs",
    "doc": "docs",
    "changelog": "docs",
    "readme": "docs",
    "test": "test",
    "tests": "test",
    "bench": "test",
    "benches": "test",
    "build": "build",
    "ci": "build",
    "deps": "build",
    "dep": "build",
    "release": "build",
    "chore": "chore",
    "style": "chore",
    "lint": "chore",
    "fmt": "chore",
    "wip": "chore",
    "deploy": "build",
    "cargo": "build",
    "msrv": "build",
    "packaging": "build",
    # a linter's or formatter's name as the prefix: the commit answers that tool
    "clippy": "chore",
    "rustfmt": "chore",
    "gofmt": "chore",
    "prettier": "chore",
    "eslint": "chore",
    "ruff": "chore",
    "flake8": "chore",
    "pylint": "chore",
}
_SECURITY_SCOPES = frozenset({"security", "sec", "vuln", "cve"})
_REVERT_SUBJECT = compile_pattern(r'^\s*Revert\s+"', re.I)
_REAPPLY_SUBJECT = compile_pattern(r'^\s*Revert\s+"Revert\s+"(.*?)"*\s*$', re.I)
_REVERTS = compile_pattern(r"\bThis reverts commit ([0-9a-fA-F]{7,40})\b")
# code in a subject, which says nothing of the commit's purpose: a command-line flag
# (`--fixed-strings`), a span in backticks, a quoted string (`'cargo fix --edition'`); a quote
# must stand apart from letters on both sides, so an apostrophe ("don't") opens nothing
_CODE_SPAN = compile_pattern(
    r"`[^`\n]*`|(?<![\w-])--?[A-Za-z][\w-]*|(?<!\w)'[^'\n]+'(?!\w)|(?<!\w)\"[^\"\n]+\"(?!\w)"
)
_WORD = compile_pattern(r"[^\W\d_]{2,}")
_SQUASH_PR = compile_pattern(r"\s*\((?:(?:closes |fixes |see )?#\d+[,; ]*)+\)\s*$", re.I)

_ADVISORY = compile_pattern(r"\b(?:CVE-\d{4}-\d{4,}|GHSA(?:-[23456789cfghjmpqrvwx]{4}){3})\b", re.I)
_VULNERABILITY = compile_pattern(
    r"\b(?:vulnerab\w*|exploitable|xss|cross[- ]site (?:scripting|request forgery)|csrf|ssrf|xxe"
    r"|(?:sql|command|shell|code|header|html|ldap|crlf|template) injection|prototype pollution"
    r"|(?:path|directory) traversal|open redirect|redos|denial[- ]of[- ]service"
    r"|auth(?:entication|orization)? bypass|privilege escalation|remote code execution"
    r"|(?:secrets?|credentials?|tokens?|passwords?) (?:leak\w*|exposure)"
    r"|leak(?:ed|s|ing)? (?:secrets?|credentials?|tokens?|passwords?)"
    r"|security (?:fix|issue|vulnerability|flaw|hole|patch|advisory|bug|problem)"
    r"|attackers?|timing (?:side[- ]channel|attack)|side[- ]channel)\b",
    re.I,
)
_RELEASE = compile_pattern(
    r"^(?:v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?"
    r"|(?:release[ds]?|releasing|prepare|preparing|cut|tag|version|bump(?:ed)?(?: the)? version)"
    r"\b(?: (?:for|of|to|version|v))*[ :]*v?\d+(?:\.\d+)+\S*"
    r"|(?:bump|update|increment)(?:s|ed)? (?:the )?version(?: number)?\b.*|version bump\b.*"
    r"|[\w.-]+[ -]v?\d+\.\d+\.\d+(?:[-+][\w.]+)?)\.?$",
    re.I,
)
_DEP_BUMP = compile_pattern(
    r"^(?:bump|update|upgrade|pin|downgrade)(?:s|ed|d)?\s+(?:the\s+)?[@\w./-]+"
    r"(?:\s+(?:dependency|requirement|package|crate|module))?\s+(?:from\s+\S+\s+)?to\s+v?\d"
    r"|^(?:bump|update|upgrade)(?:s|ed|d)?\s+(?:all\s+)?(?:the\s+)?(?:dev[- ]?)?"
    r"(?:deps|dependencies|requirements|crates|packages|lock ?files?)\b",
    re.I,
)
_FIX_TRAILER = compile_pattern(
    r"^\s*fix(?:e[sd])?:?\s+(?:#\d+|[\w.-]+/[\w.-]+#\d+|https?://\S+/issues/\d+)", re.I | re.M
)
_SUBJECT_TRAILER = compile_pattern(
    r"[\s.,;:(]*\b(?:this |that )?fix(?:e[sd])?:?\s+(?:issue\s+)?#\d+\)?", re.I
)
_BODY_BUGFIX = compile_pattern(
    r"\b(?:fix(?:e[sd])?\s+(?:a|an|the|this|that|#\d+|bugs?|crash\w*|regression\w*|race)"
    r"|bug ?fix\w*|regression\w*|hotfix\w*|incident\w*|root cause)\b",
    re.I,
)
_BODY_PERF = compile_pattern(
    r"\b(?:faster|speed(?:s|ed)? ?up|fewer allocations|less memory|\d+ ?% (?:faster|quicker))\b",
    re.I,
)


def _cues(*pairs: tuple[str, str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((intent, compile_pattern(rf"\b(?:{p})\b", re.I)) for intent, p in pairs)


_REVERT_WORDS = r"^(?:revert(?:s|ed|ing)?|roll(?:ed|s)?[ -]?back|rollback)"
_DOC_WORDS = (
    r"typos?|docstrings?|doc ?comments?|jsdoc|godoc|rustdoc|docs|documentation"
    r"|document(?:s|ed|ing)?|wording|spelling|grammar|readme|changelog|clarif(?:y|ies|ied)"
)
_BUG_WORDS = (
    r"fix(?:e[sd]|ing)?|bugs?|bug ?fix\w*|hotfix\w*|crash\w*|regression\w*|broken|breaks?"
    r"|incorrect(?:ly)?|wrong(?:ly)?|correct(?:s|ed|ly)?|properly|prevent(?:s|ed|ing)?"
    r"|ensur(?:e|es|ed|ing)|erroneous\w*|missing|repair\w*|workaround\w*"
    r"|race condition|deadlock\w*|leak(?:s|ed|ing)?|off[- ]by[- ]one|overflow\w*|panic(?:s|ked)?"
    r"|hang(?:s|ing)?|segfault\w*|never|no longer|(?:does|did)(?:n't| not)"
    r"|validat(?:e|es|ed)|rais(?:e|es|ed|ing)|errors? (?:on|if|when)"
)
_PERF_WORDS = (
    r"perf|performance|speed(?:s|ed)?(?: ?up)?|faster|fast(?:er)? path|optimi[sz]\w*|latency"
    r"|throughput|allocat\w*|memory usage|efficien\w*|vectori[sz]\w*|quicker|cheaper"
)
_REFACTOR_WORDS = (
    r"refactor\w*|clean(?:s|ed|ing)? ?up|cleanups?|restructur\w*|reorgani[sz]\w*|simplif\w*"
    r"|renam(?:e|es|ed|ing)|extract(?:s|ed|ing)?|mov(?:e|es|ed|ing)|rearrang\w*|dedup\w*|tidy"
    r"|rework\w*|moderni[sz]\w*|redundant|unused|unnecessary|dead code|internal(?:ly)?"
    r"|replac(?:e|es|ed|ing)|reduce duplication"
)
_TEST_WORDS = r"tests?|testing|unit ?tests?|specs?|coverage|fixtures?|pytest|benchmarks?"
_BUILD_WORDS = (
    r"build|ci|deps|dependenc(?:y|ies)|bump(?:s|ed)?|upgrade[sd]?|release|version|makefile"
    r"|dockerfile|pyproject|package\.json|requirements|workflows?|travis|appveyor|github actions"
    r"|packaging|publish\w*"
)
_FEATURE_WORDS = (
    r"add(?:s|ed|ing)?|implement\w*|introduc\w*|support(?:s|ed|ing)?|new|feat\w*"
    r"|enabl(?:e|es|ed|ing)|allow(?:s|ed|ing)?|creat(?:e|es|ed|ing)|expos(?:e|es|ed|ing)"
    r"|export(?:s|ed|ing)?|now|options?|flags?|deprecat\w*|generic"
)
_CHORE_WORDS = (
    r"chore|reformat\w*|formatting|formatted|fmt|gofmt|rustfmt|prettier|lint(?:s|ing|er|ers)?"
    r"|flake8|pep8|pycodestyle|pydocstyle|pylint|eslint|golint|clippy|ruff"
    r"|whitespace|wip"
)

# a fix whose object is prose: "Fix docs and changelog", "fix the wording of ..."
_FIXED_PROSE = (
    r"fix(?:e[sd]|ing)?(?: (?:the|a|some|broken|wrong|outdated))? (?:docs?|documentation"
    r"|changelog|change log|comments?|wording|spelling|grammar|readme|docstrings?)"
)
# subject cues when the product source changed, in precedence order
_SOURCE_CUES = _cues(
    ("revert", _REVERT_WORDS),
    ("docs", r"typos?|docstrings?|doc ?comments?|jsdoc|godoc|rustdoc|" + _FIXED_PROSE),
    ("chore", _CHORE_WORDS),
    ("bugfix", _BUG_WORDS),
    ("perf", _PERF_WORDS),
    ("refactor", _REFACTOR_WORDS),
    ("docs", r"docs|documentation|document(?:s|ed|ing)?|clarif(?:y|ies|ied)"),
    (
        "test",  # only about tests: tests kept beside the code (Rust, Go) are not test files
        r"^(?:add(?:s|ed|ing)?|more|improve[sd]?|update[sd]?)(?: \w+)? (?:unit |regression )?"
        r"tests?\b(?!.*\band\b)",
    ),
    ("build", r"deps|dependenc(?:y|ies)|bump(?:s|ed)?|upgrade[sd]?|msrv"),
    ("feature", _FEATURE_WORDS),
)
# subject cues when nothing is known of the change: every intent can be read from words
_MESSAGE_CUES = _cues(
    ("revert", _REVERT_WORDS),
    ("docs", r"typos?|docstrings?|doc ?comments?|jsdoc|godoc|rustdoc|" + _FIXED_PROSE),
    ("chore", _CHORE_WORDS),
    ("bugfix", _BUG_WORDS),
    ("perf", _PERF_WORDS),
    ("refactor", _REFACTOR_WORDS),
    ("docs", _DOC_WORDS + r"|comments?"),
    ("test", _TEST_WORDS),
    ("build", _BUILD_WORDS),
    ("feature", _FEATURE_WORDS),
    ("chore", r"chore|style|wip|merge|misc"),
)
# cues that pick among the kinds of a change without product source
_KIND_CUES = _cues(
    ("test", _TEST_WORDS),
    ("build", _BUILD_WORDS),
    ("docs", _DOC_WORDS + r"|examples?|comments?|guide|licen[cs]e"),
    ("chore", _CHORE_WORDS),
)

_INCIDENT = compile_pattern(r"\b(?:INC|INCIDENT|SEV|OUTAGE|PD)-\d+\b", re.I)
_CVE = compile_pattern(r"\bCVE-\d{4}-\d{4,}\b", re.I)
_KEY_TICKET = compile_pattern(r"(?<![\w/.-])([A-Z][A-Z0-9_]{1,15}-\d{1,7})\b")
_HASH_TICKET = compile_pattern(r"(?<![\w&/#])#(\d{1,7})\b")
# Upper-case words with a number that are not ticket keys.
_NOT_TICKETS = frozenset(
    {"UTF", "SHA", "ISO", "AES", "MD", "RSA", "HTTP", "TLS", "SSL", "PEP", "RFC", "ES", "X", "CP"}
    | {"UCS", "IPV", "WIN", "ARM", "X86", "GPL", "LGPL", "AGPL", "BSD", "APACHE", "CC", "COVID"}
)


@dataclass(frozen=True, slots=True)
class Intent:
    intent: str
    reverted_sha: str | None
    tickets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FileFacts:
    """What the classifier knows of one changed file."""

    path: str
    added: int = 0
    removed: int = 0
    comment_only: bool = False  # every changed line is a comment or blank (and one a comment)
    submodule: bool = False  # a gitlink: bumping it bumps a dependency

    @property
    def kind(self) -> str:
        if self.submodule:
            return "build"
        k = filekind.kind(self.path)
        return "docs" if k == "source" and self.comment_only else k


@dataclass(frozen=True, slots=True)
class Rule:
    """A team rule: `intent` when `pattern` is found in the message (if given) and every changed
    path matches one of `paths` (if given)."""

    intent: str
    pattern: re.Pattern[str] | None = None
    paths: tuple[re.Pattern[str], ...] | None = None

    def matches(self, message: str, files: Sequence[FileFacts] | None) -> bool:
        if self.pattern is not None and not self.pattern.search(message):
            return False
        if self.paths is not None:
            if not files:
                return False
            return all(any(p.match(f.path) for p in self.paths) for f in files)
        return True


def compile_rules(rules: Iterable) -> tuple[Rule, ...]:
    """`Rule`s from config entries with `intent`, optional `pattern` and optional `paths`."""
    out = []
    for r in rules:
        pattern = re.compile(r.pattern) if r.pattern is not None else None
        paths = tuple(compile_glob(g) for g in r.paths) if r.paths is not None else None
        out.append(Rule(r.intent, pattern, paths))
    return tuple(out)


def facts_of(fc: FileChange) -> FileFacts:
    """The classifier's facts of one parsed file change (comment-only needs its hunk text)."""
    comment = False
    if (
        filekind.kind(fc.path) == "source"
        and 0 < fc.added + fc.removed <= _COMMENT_SCAN_LINES
        and not fc.truncated
        and all(h.body is not None for h in fc.hunks)
    ):
        comment = filekind.comment_only([raw for h in fc.hunks for _, _, raw in hunk_lines(h)])
    submodule = "160000" in (fc.old_mode, fc.new_mode)
    return FileFacts(fc.path, fc.added, fc.removed, comment, submodule)


def classify(
    message: str,
    files: Sequence[FileFacts] | None = None,
    rules: Sequence[Rule] = (),
) -> Intent:
    """Intent, reverted sha and ticket ids of one commit; `files` are its changed files (None:
    unknown, the message alone decides) and `rules` the team's rules, tried first."""
    subject, _, body = message.strip().partition("\n")
    reverted = _REVERTS.search(message)
    reverted_sha = reverted.group(1).lower() if reverted else None
    intent = next((r.intent for r in rules if r.matches(message, files)), None)
    if intent is None:
        intent = _intent(subject, body, reverted_sha is not None, files)
    return Intent(intent, reverted_sha, tickets(message))


# a revert whose message names what it reverts in its subject alone (no `This reverts commit`
# line: an edited or squashed message): git's `Revert "<subject>"`, or `Revert <hash>`
_REVERTED_SUBJECT = compile_pattern(r'^\s*Revert\s+"(.+)"\s*$', re.I)
_REVERTED_HASH = compile_pattern(r"^\s*Revert\s+(?:commit\s+)?([0-9a-fA-F]{7,40})\b", re.I)


def plain_subject(subject: str) -> str:
    """`subject` without the pull-request number a squash merge appends (` (#123)`)."""
    return _SQUASH_PR.sub("", subject).strip()


def named_in_subject(subject: str) -> tuple[str, str] | None:
    """What a revert's subject names as the commit it reverts: ("sha", a hash or its prefix,
    lower case) or ("subject", that commit's subject, `plain_subject`); None when it names
    neither (`revert: ...`, "revert the cache change")."""
    subject = plain_subject(subject)
    m = _REVERTED_HASH.match(subject)
    if m is not None:
        return "sha", m.group(1).lower()
    m = _REVERTED_SUBJECT.match(subject)
    if m is not None and not _REAPPLY_SUBJECT.match(subject):
        return "subject", plain_subject(m.group(1))
    return None


def subject_of(message: str) -> str:
    return message.strip().partition("\n")[0].strip()


def _first(cues: tuple[tuple[str, re.Pattern[str]], ...], text: str, allowed=None) -> str | None:
    for intent, pattern in cues:
        if (allowed is None or intent in allowed) and pattern.search(text):
            return intent
    return None


def _intent(
    subject: str, body: str, has_revert_line: bool, files: Sequence[FileFacts] | None
) -> str:
    conv = _CONVENTIONAL.match(subject) or _BRACKET.match(subject)
    ctype = _TYPE_INTENT.get(conv.group(1).lower()) if conv else None
    reapply = _REAPPLY_SUBJECT.match(subject)
    if reapply:
        subject, has_revert_line, ctype = reapply.group(1), False, None
    elif ctype == "revert" or has_revert_line or _REVERT_SUBJECT.match(subject):
        return "revert"
    # the words after a type or scope prefix (`fix(parser): ...`, `printer: ...`), without the
    # pull-request number a squash merge appends
    text = _SQUASH_PR.sub("", subject[conv.end() :] if conv else subject).strip()
    # "... This fixes #12" names the issue closed, which may as well be a feature request
    text, closes = _SUBJECT_TRAILER.subn("", text)
    kinds: dict[str, int] = {}
    for f in files or ():
        kinds[f.kind] = kinds.get(f.kind, 0) + f.added + f.removed + 1
    source = files is None or "source" in kinds
    cues = _SOURCE_CUES if files is not None else _MESSAGE_CUES
    words = _CODE_SPAN.sub(" ", text)
    # a subject that is all code or all quoted (`go fmt`, "Add ...") is read as written
    found = _first(cues, words if _WORD.search(words) else text.strip("`'\" "))
    scope = conv.group(2) if conv and conv.re is _CONVENTIONAL else None
    fix = ctype == "bugfix" or found == "bugfix"
    if (
        source
        and ctype != "docs"
        and (
            ctype == "security"
            or (fix and scope is not None and scope.strip().lower() in _SECURITY_SCOPES)
            or _ADVISORY.search(f"{subject}\n{body}")
            or _VULNERABILITY.search(subject)
            or (fix and _VULNERABILITY.search(body))  # a fix that says what it closes
        )
        and not _DEP_BUMP.match(text)
    ):
        return "security"
    if files is not None and not files:
        return "chore"  # an empty commit
    if _RELEASE.match(text) or (_DEP_BUMP.match(text) and (files is None or "build" in kinds)):
        return "build"
    if not source:
        return _by_kinds(kinds, ctype, text, files or ())
    if ctype is not None:
        return ctype
    if found == "chore" and "build" in kinds:
        return "build"  # a formatter or linter adopted: its configuration is the point
    if found is not None:
        return found
    if closes or _BODY_BUGFIX.search(body) or _FIX_TRAILER.search(body):
        return "bugfix"
    if _BODY_PERF.search(body):
        return "perf"
    if _INCIDENT.search(subject) or _INCIDENT.search(body):
        return "bugfix"
    if files is None:
        return "chore"
    # No stated purpose. New tests or a changelog entry mean users see a change; without either
    # a source edit is most often internal.
    if "test" in kinds or any(filekind.is_changelog(f.path) for f in files):
        return "feature"
    return "refactor"


def _by_kinds(
    kinds: dict[str, int], ctype: str | None, text: str, files: Sequence[FileFacts]
) -> str:
    """The intent of a change without product source: its only kind, else the kind the message
    names, else the larger part (a changelog entry beside build files is a release's)."""
    if len(kinds) == 1:
        return next(iter(kinds))
    if ctype in kinds:
        return ctype  # type: ignore[return-value]
    named = [(m.start(), i) for i, p in _KIND_CUES if i in kinds and (m := p.search(text))]
    if named:
        return min(named)[1]  # the purpose the subject names first
    if "build" in kinds and all(filekind.is_changelog(f.path) for f in files if f.kind == "docs"):
        return "build"
    return max(kinds, key=lambda k: (kinds[k], -filekind.KINDS.index(k)))


def tickets(message: str) -> tuple[str, ...]:
    """Ticket and incident ids in order of first appearance: `ABC-12`, `INC-2407`, `#123`, CVEs."""
    found: dict[str, int] = {}
    for m in _CVE.finditer(message):
        found.setdefault(m.group(0).upper(), m.start())
    cves = [(m.start(), m.end()) for m in _CVE.finditer(message)]
    for m in _KEY_TICKET.finditer(message):
        key = m.group(1)
        if key.split("-", 1)[0] in _NOT_TICKETS:
            continue
        if any(a <= m.start() < b for a, b in cves):
            continue
        found.setdefault(key, m.start())
    for m in _HASH_TICKET.finditer(message):
        found.setdefault(f"#{m.group(1)}", m.start())
    return tuple(sorted(found, key=lambda k: (found[k], k)))
