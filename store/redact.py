"""Secret redaction, applied by every writer before text reaches the journal or an artifact.

`redact(text)` returns the text with each secret replaced by `[REDACTED:<kind>]` and the kinds
found, one entry per replacement, in the order the rules ran. Invariants:

- Deterministic and idempotent: `redact(redact(t)[0])[0] == redact(t)[0]`; a placeholder is
  never matched again.
- Rules run from the most specific shape to the most generic, so a GitHub token is reported as
  `github_token`, not as a generic secret, and a PEM key is removed as one block (a `BEGIN`
  without its `END`, as in a truncated diff, is removed to the end of its base64 body).
- Only the secret is replaced; the key name, the URL's user and host and the surrounding code
  stay, so a redacted diff still reads as a diff.
- Generic rules need a key-ish name next to the value (`DB_PASSWORD=...`, `"apiKey": "..."`):
  plain identifiers, calls and attribute reads (`token=get_token()`) are code, not secrets.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

PLACEHOLDER = "[REDACTED:{}]"

_PEM_BEGIN = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----")
# lines of a key body, possibly inside a diff (`+`, `-`, ` ` prefix) or indented
_PEM_BODY_LINE = re.compile(r"[ \t]*[+\- ]?[ \t]*(?:[A-Za-z0-9+/=]{8,}|[A-Za-z\-]+: .*)[ \t]*\Z")

# (kind, pattern): the whole match is the secret
_TOKENS: list[tuple[str, re.Pattern[str]]] = [
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AGPA)[0-9A-Z]{16}\b")),
    ("github_token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,255}\b")),
    ("github_token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,255}\b")),
    ("gitlab_token", re.compile(r"\bgl(?:pat|dt|ptt|rt|cbt|oas)-[A-Za-z0-9_\-]{20,}")),
    ("slack_token", re.compile(r"\bxox[abposr]-(?:[A-Za-z0-9]+-){1,5}[A-Za-z0-9]+\b")),
    (
        "slack_webhook",
        re.compile(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+"),
    ),
    ("stripe_key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b")),
    ("stripe_webhook_secret", re.compile(r"\bwhsec_[A-Za-z0-9]{24,}\b")),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])")),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("pypi_token", re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{20,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
]

# scheme://user:password@host -> only the password goes
_URL_PASSWORD = re.compile(
    r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@'\"]+:)"
    r"(?P<secret>(?!\[REDACTED)[^\s@/'\"]+)(?=@)"
)
_BEARER = re.compile(
    r"(?P<head>\b(?:[Bb]earer|BEARER|[Tt]oken|[Bb]asic)\s+)(?P<secret>[A-Za-z0-9\-._~+/]{16,}=*)"
)

_KEY_WORDS = (
    r"pass(?:word|wd|phrase)?|pwd|secret|token|api[_\-]?key|access[_\-]?key|"
    r"private[_\-]?key|secret[_\-]?key|client[_\-]?secret|credentials?|auth[_\-]?key"
)
# A key-ish name ends with one of the key words (`DB_PASSWORD`, `accessToken`; not `max_tokens`).
_NAME = rf"[A-Za-z_][\w.\-]*?(?:{_KEY_WORDS})|(?:{_KEY_WORDS})"

_QUOTED_ASSIGN = re.compile(
    rf"(?P<head>(?<![\w.\-])(?:{_NAME})[\"']?\s*(?::=|=>|[:=])\s*(?P<q>[\"'`]))"
    r"(?P<secret>(?!\[REDACTED)(?![$<{%])[^\"'`\s]{3,}?|(?!\[REDACTED)(?![$<{%])[^\"'`\n]{6,}?)"
    r"(?P=q)",
    re.IGNORECASE,
)
_BARE_ASSIGN = re.compile(
    rf"(?P<head>(?<![\w.\-])(?:{_NAME})\s*[:=]\s*)"
    r"(?P<secret>(?!\[REDACTED)[^\s\"'`,;()\[\]{}<>$]{4,})(?![\w(\[.])",
    re.IGNORECASE,
)
# the value of a bare assignment is code unless it looks like data
_CODE_VALUE = re.compile(
    r"[A-Za-z_][A-Za-z_]*|(?:true|false|none|null|nil|undefined|str|int|bytes|string|bool)",
    re.IGNORECASE,
)

# `.env` / shell style: an upper-case key-ish name at the start of a line takes any value
_ENV_ASSIGN = re.compile(
    r"(?m)^(?P<head>[ \t+\-]*(?:export[ \t]+)?[A-Z][A-Z0-9_]*?"
    r"(?:PASSWORD|PASSWD|PWD|PASSPHRASE|SECRET|TOKEN|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|"
    r"SECRET_KEY|CREDENTIALS?)[ \t]*=[ \t]*)(?P<secret>(?!\[REDACTED)[^\s\"'`$#][^\s\"'`]*)"
)

_GENERIC = re.compile(
    rf"(?P<head>(?<![\w.\-])(?:[A-Za-z_][\w.\-]*?)?(?:{_KEY_WORDS}|key|signature|sig|auth|salt|hmac)[\"']?[^\S\n]*(?:[:=]|=>)?[^\S\n]*"
    r"[\"'`]?)(?P<secret>(?!\[REDACTED)[A-Za-z0-9+/_\-=]{32,})",
    re.IGNORECASE,
)


def _entropy(s: str) -> float:
    counts = Counter(s)
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _looks_random(s: str) -> bool:
    classes = sum(
        (
            any(c.islower() for c in s),
            any(c.isupper() for c in s),
            any(c.isdigit() for c in s),
        )
    )
    return classes >= 2 and _entropy(s) >= 4.0


def redact(text: str) -> tuple[str, list[str]]:
    """`text` with secrets replaced by `[REDACTED:<kind>]`, and the kinds replaced."""
    if not text:
        return text, []
    kinds: list[str] = []

    def whole(kind: str) -> Callable[[re.Match[str]], str]:
        def sub(m: re.Match[str]) -> str:
            kinds.append(kind)
            return PLACEHOLDER.format(kind)

        return sub

    def tail(kind: str, check: Callable[[str], bool] | None = None):
        def sub(m: re.Match[str]) -> str:
            secret = m.group("secret")
            if check is not None and not check(secret):
                return m.group(0)
            kinds.append(kind)
            rest = m.group(0)[m.end("secret") - m.start() :]
            return m.group("head") + PLACEHOLDER.format(kind) + rest

        return sub

    if "PRIVATE KEY" in text:
        text = _redact_pem(text, kinds)
    for kind, pattern in _TOKENS:
        text = pattern.sub(whole(kind), text)
    if "://" in text:
        text = _URL_PASSWORD.sub(tail("url_password"), text)
    text = _BEARER.sub(tail("bearer_token", lambda s: _entropy(s) >= 3.0), text)
    text = _ENV_ASSIGN.sub(tail("password_assignment"), text)
    text = _QUOTED_ASSIGN.sub(tail("password_assignment", _not_placeholder_value), text)
    text = _BARE_ASSIGN.sub(tail("password_assignment", _data_not_code), text)
    text = _GENERIC.sub(tail("high_entropy_secret", _looks_random), text)
    return text, kinds


def _redact_pem(text: str, kinds: list[str]) -> str:
    out: list[str] = []
    pos = 0
    while (m := _PEM_BEGIN.search(text, pos)) is not None:
        out.append(text[pos : m.start()])
        end_marker = f"-----END {m.group(1)}-----"
        end = text.find(end_marker, m.end())
        if end != -1:
            pos = end + len(end_marker)
        else:
            # truncated block: the base64 body ends at the first line that is not part of it
            pos = m.end()
            while pos < len(text) and text[pos] == "\n":
                nxt = text.find("\n", pos + 1)
                line_end = len(text) if nxt == -1 else nxt
                if not _PEM_BODY_LINE.match(text[pos + 1 : line_end]):
                    break
                pos = line_end
        kinds.append("private_key")
        out.append(PLACEHOLDER.format("private_key"))
    out.append(text[pos:])
    return "".join(out)


def _not_placeholder_value(value: str) -> bool:
    stripped = value.strip()
    return bool(stripped) and set(stripped) - set("*xX.•-_ ") != set()


def _data_not_code(value: str) -> bool:
    if _CODE_VALUE.fullmatch(value):
        return False
    if value.replace(".", "").replace("_", "").isalpha() and "." in value:
        return False  # an attribute path: settings.api_key
    return _not_placeholder_value(value)


def redact_counts(text: str) -> tuple[str, dict[str, int]]:
    """`redact`, with the kinds counted (the shape stored next to a redacted record)."""
    out, kinds = redact(text)
    return out, dict(sorted(Counter(kinds).items()))
