"""Commit intent, reverted sha and ticket ids from a commit message.

Deterministic and context free: the same message always gives the same answer. Precedence, first
match wins: revert (conventional `revert:`, git's `Revert "..."` subject or a `This reverts commit`
line) > security (conventional `security:` / `sec:` or a security term anywhere in the message) >
conventional-commit type > keywords in the subject (in `_KEYWORDS` order) > keywords in the body >
an incident id (`INC-123`) means bugfix > chore.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CONVENTIONAL = re.compile(r"^\s*([A-Za-z]+)(?:\([^)\n]*\))?!?\s*:")
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
    "test": "test",
    "tests": "test",
    "build": "build",
    "ci": "build",
    "deps": "build",
    "release": "build",
    "chore": "chore",
    "style": "chore",
    "wip": "chore",
}
_REVERT_SUBJECT = re.compile(r'^\s*Revert\s+"', re.I)
_REVERTS = re.compile(r"\bThis reverts commit ([0-9a-fA-F]{7,40})\b")
_SECURITY = re.compile(
    r"\b(?:CVE-\d{4}-\d+|GHSA-[\w-]+|security|vulnerab\w*|exploit\w*|xss|csrf|ssrf|xxe"
    r"|sql[ -]injection|command injection|rce|remote code execution|privilege escalation"
    r"|path traversal|directory traversal|auth(?:entication)? bypass|secret leak\w*"
    r"|leak(?:ed|s)? (?:secrets?|credentials?|tokens?))\b",
    re.I,
)
# (intent, pattern) in precedence order; applied to the subject, then to the body.
_BODY_BUGFIX = re.compile(
    r"\b(?:fix(?:e[sd])?\s+(?:a|an|the|this|that|#\d+|bugs?|crash\w*|regression\w*|race)|bug ?fix\w*"
    r"|regression\w*|hotfix\w*|incident\w*|root cause)\b",
    re.I,
)
_KEYWORDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (intent, re.compile(pattern, re.I))
    for intent, pattern in (
        ("revert", r"\b(?:revert(?:s|ed|ing)?|roll(?:ed)?[ -]?back|undo)\b"),
        ("docs", r"\btypos?\b"),
        (
            "bugfix",
            r"\b(?:fix(?:e[sd]|ing)?|bug\w*|hotfix\w*|crash\w*|regression\w*|incident\w*"
            r"|broken|repair\w*|resolve[sd]?|workaround|patch(?:ed)?|race condition"
            r"|deadlock\w*|leak(?:s|ed|ing)?|off[- ]by[- ]one|typo in code|wrong|incorrect)\b",
        ),
        (
            "perf",
            r"\b(?:perf|performance|speed(?:s|ed)? ?up|faster|optimi[sz]\w*|latency"
            r"|throughput|cach(?:e|ing) (?:results|lookups)|memory usage|vectori[sz]\w*)\b",
        ),
        (
            "refactor",
            r"\b(?:refactor\w*|clean ?up|cleanups?|restructur\w*|reorgani[sz]\w*|simplif\w*"
            r"|renam(?:e|ed|ing)|extract(?:ed|ing)?|mov(?:e|ed|ing) \w+ (?:to|into)|dedup\w*"
            r"|tidy|rework\w*)\b",
        ),
        ("docs", r"\b(?:docs?|documentation|readme|changelog|docstrings?|comments?|typos?)\b"),
        ("test", r"\b(?:tests?|testing|unit ?tests?|spec|specs|coverage|fixtures?|pytest)\b"),
        (
            "build",
            r"\b(?:build|ci|deps|dependenc(?:y|ies)|bump(?:s|ed)?|upgrade[sd]?|release"
            r"|version|makefile|dockerfile|pyproject|package\.json|requirements|workflow|lint)\b",
        ),
        (
            "feature",
            r"\b(?:add(?:s|ed|ing)?|implement\w*|introduc\w*|support(?:s|ed)?|new|feat\w*"
            r"|enable[sd]?|allow(?:s|ed)?|create[sd]?)\b",
        ),
        ("chore", r"\b(?:chore|format(?:ting)?|style|wip|merge|misc)\b"),
    )
)

_INCIDENT = re.compile(r"\b(?:INC|INCIDENT|SEV|OUTAGE|PD)-\d+\b", re.I)
_CVE = re.compile(r"\bCVE-\d{4}-\d{4,}\b", re.I)
_KEY_TICKET = re.compile(r"(?<![\w/.-])([A-Z][A-Z0-9_]{1,15}-\d{1,7})\b")
_HASH_TICKET = re.compile(r"(?<![\w&/#])#(\d{1,7})\b")
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


def classify(message: str) -> Intent:
    """Intent, reverted sha and ticket ids of one commit message."""
    subject, _, body = message.strip().partition("\n")
    reverted = _REVERTS.search(message)
    reverted_sha = reverted.group(1).lower() if reverted else None
    return Intent(_intent(subject, body, reverted_sha is not None), reverted_sha, tickets(message))


def subject_of(message: str) -> str:
    return message.strip().partition("\n")[0].strip()


def _intent(subject: str, body: str, has_revert_line: bool) -> str:
    conv = _CONVENTIONAL.match(subject)
    ctype = _TYPE_INTENT.get(conv.group(1).lower()) if conv else None
    if ctype == "revert" or has_revert_line or _REVERT_SUBJECT.match(subject):
        return "revert"
    if ctype == "security" or (
        ctype not in ("docs", "test", "build", "chore") and _SECURITY.search(f"{subject}\n{body}")
    ):
        return "security"
    if ctype is not None:
        return ctype
    for text in (subject, body):
        for intent, pattern in _KEYWORDS:
            if text is body and intent not in ("bugfix", "perf"):
                continue  # bodies explain; only fixes and speed-ups are worth reading them for
            if intent == "bugfix" and text is body:
                # a body describing new work mentions crashes and errors it now handles; only
                # an explicit fix, regression or incident in the body makes a bugfix
                pattern = _BODY_BUGFIX
            if pattern.search(text):
                return intent
    if _INCIDENT.search(subject) or _INCIDENT.search(body):
        return "bugfix"
    return "chore"


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
