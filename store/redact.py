"""Secret redaction: the one redactor every writer runs before text reaches an artifact, the
journal or an answer.

`redact(text)` returns the text with each secret replaced by `[REDACTED:<kind>]` and the kinds
found, one entry per replacement, in the order the rules ran. A `Redactor` adds a team's own
patterns (`deny`: always redacted, kind `custom`) and exceptions (`allow`: a detected secret in
which one of them is found is kept); `redactor_for(config)` builds it from the `redaction`
section. Invariants:

- Deterministic and idempotent: `redact(redact(t)[0])[0] == redact(t)[0]`; a placeholder is
  never matched again, by the built-in rules or by a team's patterns.
- Rules run from the most specific shape to the most generic, so a GitHub token is reported as
  `github_token`, not as a generic secret, and a PEM key is removed as one block (a `BEGIN`
  without its `END`, as in a truncated diff, is removed to the end of its base64 body).
- Only the secret is replaced; the key name, the flag, the URL's user and host and the
  surrounding code stay, so a redacted diff still reads as a diff. Line breaks outside a key
  block are kept, so line-based consumers still line up.
- Generic rules need a key-ish name next to the value (`DB_PASSWORD=...`, `"apiKey": "..."`,
  `--password=...`) or a value that is random by its letters (a high-entropy token): plain
  identifiers, calls and attribute reads (`token=get_token()`) are code, not secrets.
- Cost: the key-name rules run only on lines that contain a key word, and each provider format
  only when its literal prefix occurs, so code without secrets is scanned a few times, not
  once per rule. `redact_texts` does those scans for a whole batch at once in Arrow's RE2 and
  gives each text what `redact_text` gives it.
"""

from __future__ import annotations

import base64
import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from .regexcache import compile_pattern
from .secret_formats import TOKEN_FORMATS as _TOKEN_SPECS

if TYPE_CHECKING:
    import pyarrow as pa

    from .config import RedactionConfig

PLACEHOLDER = "[REDACTED:{}]"
PLACEHOLDER_RE = compile_pattern(r"\[REDACTED:([a-z0-9_]+)\]")
CUSTOM = "custom"  # the kind of a match of a team's `deny` pattern

_PEM_BEGIN = compile_pattern(r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----")
# lines of a key body, possibly inside a diff (`+`, `-`, ` ` prefix) or indented
# (possessive: the blanks around a diff's `+` could otherwise be split in a square number of
# ways before a long line fails; none of the classes overlaps what follows it)
_PEM_BODY_LINE = compile_pattern(
    r"[ \t]*+(?:[+\-][ \t]*+)?(?:[A-Za-z0-9+/=]{8,}+|[A-Za-z\-]++: .*)[ \t]*+\Z"
)


def _literal_first(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], bool]:
    """A leading `\\b` moved into the replacement's check: a pattern that starts with its
    literal prefix lets the regex engine skip ahead to it, one with `\\b` tries every position."""
    if pattern.pattern.startswith(r"\b"):
        return compile_pattern(pattern.pattern[2:], pattern.flags), True
    return pattern, False


_TOKENS = [(kind, pre, *_literal_first(pat)) for kind, pre, pat in _TOKEN_SPECS]
# every prefix in one pass (longest first, so a found `sk-ant-` also stands for `sk-`; then
# alphabetical: the pattern's text, the compiled-pattern cache's key, is the same in every
# process, whatever order its hash seed gives the set)
_PREFIXES = compile_pattern(
    "|".join(
        re.escape(p)
        for p in sorted({p for _, pre, _ in _TOKEN_SPECS for p in pre}, key=lambda p: (-len(p), p))
    )
)

# scheme://user:password@host -> only the password goes; a password may hold `@`, the host
# starts after the last one
_URL_PASSWORD = compile_pattern(
    r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@'\"]*:)"  # `redis://:<secret>@`
    r"(?P<secret>(?:(?!\[REDACTED)[^\s/'\"])+?)(?=@[^\s@/'\"?#]*(?:[/:?#\s'\"]|\Z))"
)
_BEARER = compile_pattern(
    r"(?P<head>\b(?:[Bb]earer|BEARER|[Tt]oken|[Bb]asic)\s+)(?P<secret>[A-Za-z0-9\-._~+/]{16,}=*)"
)

_KEY_WORDS = (
    r"pass(?:word|wd|phrase)?|pwd|secret|token|api[_\-]?key|access[_\-]?key|"
    r"private[_\-]?key|secret[_\-]?key|client[_\-]?secret|credentials?|auth[_\-]?key"
)
_KEY_WORD_RE = compile_pattern(
    rf"(?:{_KEY_WORDS}|key|signature|sig|auth|salt|hmac)\Z", re.IGNORECASE
)
# A key-ish name ends with one of the key words (`DB_PASSWORD`, `accessToken`; not `max_tokens`).
_NAME = rf"[A-Za-z_][\w.\-]*?(?:{_KEY_WORDS})|(?:{_KEY_WORDS})"

_QUOTED_ASSIGN = compile_pattern(
    rf"(?P<head>(?<![\w.\-])(?P<name>{_NAME})[\"']?\s*(?::=|=>|[:=])\s*(?:&[\w\-]+[ \t]+)?"
    r"(?P<q>[\"'`]))"
    r"(?P<secret>(?!\[REDACTED)(?![$<{%])[^\"'`\s]{3,}?|(?!\[REDACTED)(?![$<{%])[^\"'`\n]{6,}?)"
    r"(?P=q)",
    re.IGNORECASE,
)
_BARE_ASSIGN = compile_pattern(
    rf"(?P<head>(?<![\w.\-:])(?P<name>{_NAME})[\"']?[^\S\n]*(?P<sep>[:=])(?![:=])[^\S\n]*"
    r"(?:&[\w\-]+[^\S\n]+)?)"  # YAML's anchor (`password: &pw ...`) is not the value
    r"(?P<secret>(?!\[REDACTED)(?![&*])[^\s\"'`,;()\[\]{}<>$]{4,})(?![\w(\[.])"
    r"(?P<rest>[^\S\n]*(?:\n|\Z))?",
    re.IGNORECASE,
)
# the value of a bare assignment is code unless it looks like data
_CODE_VALUE = compile_pattern(r"[A-Za-z_][A-Za-z_]*")
_TYPE_NAMES = frozenset(
    [
        "true",
        "false",
        "none",
        "null",
        "nil",
        "undefined",
        "str",
        "int",
        "bytes",
        "string",
        "bool",
        "boolean",
        "number",
        "any",
        "object",
        "unknown",
        "optional",
        "text",
        "varchar",
        "char",
        "secretstr",
    ]
)
_PASSWORD_NAME = compile_pattern(r"(?:pass(?:word|wd|phrase)?|pwd)\Z", re.IGNORECASE)
_KEYWORD_INSIDE = compile_pattern(r"pass|pwd|secret|token|key|cred|auth", re.IGNORECASE)

# `.env` / shell style: an upper-case key-ish name at the start of a line takes any value
_ENV_ASSIGN = compile_pattern(
    r"(?m)^(?P<head>[ \t+\-]*(?:export[ \t]+)?(?P<name>[A-Z][A-Z0-9_]*?"
    r"(?:PASSWORD|PASSWD|PWD|PASSPHRASE|SECRET|TOKEN|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|"
    r"SECRET_KEY|CREDENTIALS?))[ \t]*=[ \t]*)(?P<secret>(?!\[REDACTED)[^\s\"'`$#][^\s\"'`]*)"
)

# command-line flags: `--password=...`, `--db-password '...'`, `--token ...`
_FLAG_WORDS = (
    r"password|passwd|pass|pwd|passphrase|token|secret|api[_\-]?key|access[_\-]?key|"
    r"secret[_\-]?key|client[_\-]?secret|auth"
)
_FLAG = compile_pattern(
    rf"(?P<head>(?<![\w\-])--?(?:[A-Za-z][\w\-]*?[\-_])?(?:{_FLAG_WORDS})(?P<sep>=|[ \t]+)"
    r"(?P<q>[\"']?))(?P<secret>(?!\[REDACTED)(?![$<{%\-])[^\s\"'`]{3,})",
    re.IGNORECASE,
)

# secrets a command line or a statement takes without a key name: `mysql -p<secret>`, `sshpass
# -p <secret>`, `docker login -p <secret>`, `curl -u user:<secret>`, a `.netrc` line,
# `IDENTIFIED BY '<secret>'`, `WITH PASSWORD '<secret>'` (each looked for within 200 characters
# of its command, so a long line is read a bounded number of times)
_COMMAND_SECRET = compile_pattern(
    r"(?P<head>:_(?:authtoken|auth|password)=|(?<![\w\-])(?:"  # `.npmrc`: `:_authToken=`
    r"(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]{0,200}?[ \t]-p"
    r"|sshpass\b[^\n]{0,200}?[ \t]-p[ \t]*"
    r"|docker[ \t]+login\b[^\n]{0,200}?[ \t]-p[ \t]+"
    r"|(?:curl|wget)\b[^\n]{0,200}?[ \t](?:-u|--user)(?:=|[ \t]+)[\"']?[^\s:'\"@]+:"
    r"|machine[ \t]+[\w\-]+(?:\.[\w\-]+)+[ \t]+login[ \t]+\S+[ \t]+password[ \t]+"
    r"|identified[ \t]+by[ \t]+'|with[ \t]+(?:encrypted[ \t]+)?password[ \t]+'"
    r"|(?:alter|create)[ \t]+(?:role|user)\b[^\n]{0,200}?[ \t](?:encrypted[ \t]+)?password[ \t]+'"
    r"|^[ \t]*(?:requirepass|masterauth)[ \t]+|az[ \t]+login\b[^\n]{0,200}?[ \t]-p[ \t]+"
    r"|(?:wpa_)?psk[ \t]*=[ \t]*\""
    r"|ldap(?:search|add|modify|delete|passwd|whoami)\b[^\n]{0,200}?[ \t]-w[ \t]+"
    r"|(?:zip|sqlcmd)\b[^\n]{0,200}?[ \t]-P[ \t]+|7za?\b[^\n]{0,200}?[ \t]-p"
    r"|smbclient\b[^\n]{0,200}?[ \t]-U[ \t]+[^\s%]+%"
    r"|htpasswd[ \t]+-[a-z]*b[a-z]*[ \t]+(?:-[a-z]+[ \t]+)*\S+[ \t]+\S+[ \t]+"
    r"|-(?:src|dest)?(?:store|key)pass[ \t]+|-pass(?:in|out)?[ \t]+pass:"
    r"|ssh-keygen\b[^\n]{0,200}?[ \t]-[NP][ \t]+['\"]?"
    r"|redis-cli\b[^\n]{0,200}?[ \t]-a[ \t]+"
    r"|mongo(?:sh|dump|restore|import|export)?\b[^\n]{0,200}?[ \t]-p[ \t]+"
    r"|-D[\w.\-]*?(?:password|passwd|passphrase|secret|token|api[_\-]?key)="
    r"|^[ \t]*env[ \t]+\w*?(?:password|passwd|secret|token|api_?key|access_?key|private_?key)[ \t]+"
    r"))(?P<secret>(?!\[REDACTED)(?![$<{%])[^\s'\"`]{3,})",
    re.IGNORECASE,
)
# a word each alternative of `_COMMAND_SECRET` holds (lower case): a line without one of them
# (nor "-d" with "api", nor "env" with "key") cannot match it, which `_may_hold_command` checks
# in a few substring tests instead of the regex's scan of every position
_COMMAND_WORDS = (
    ":_", "mysql", "mariadb", "pass", "docker", "curl", "wget", "machine", "identified",
    "masterauth", "login", "psk", "ldap", "zip", "sqlcmd", "7z", "smbclient", "ssh-keygen",
    "redis-cli", "mongo", "secret", "token",
)  # fmt: skip


def _may_hold_command(line: str) -> bool:
    """False only when `_COMMAND_SECRET` cannot match `line`. Decided for ASCII lines only:
    under IGNORECASE a few other letters match ASCII ones (the Kelvin sign a "k")."""
    if not line.isascii():
        return True
    low = line.lower()
    return (
        any(w in low for w in _COMMAND_WORDS)
        or ("-d" in low and "api" in low)
        or ("env" in low and "key" in low)
    )


# a crypt(3) password hash (`htpasswd`, `/etc/shadow`): Apache MD5, bcrypt, SHA-256/512, yescrypt
_CRYPT_HASH = compile_pattern(
    r"(?P<head>(?<![\w$]))(?P<secret>\$(?:apr1|2[abxy]|[56y])\$[./A-Za-z0-9$=]{20,})"
)
# a key-ish name quoted as a subscript, a call's first argument or an XML element, its value
# quoted or the element's text: `config["password"] = "..."`, `define('DB_PASSWORD', '...')`,
# `<password>...</password>`
_QUOTED_KEY = compile_pattern(
    rf"(?P<head>(?:\[[ \t]*(?P<k1>[\"'])(?P<name>{_NAME})(?P=k1)[ \t]*\][ \t]*=|"
    rf"\([ \t]*(?P<k2>[\"'])(?P<name2>{_NAME})(?P=k2)[ \t]*,)[ \t]*(?P<q>[\"'`]))"
    r"(?P<secret>(?!\[REDACTED)(?![$<{%])[^\"'`\n]{3,}?)(?P=q)",
    re.IGNORECASE,
)
_XML_KEY = compile_pattern(
    rf"(?P<head><(?P<name>{_NAME})>)(?P<secret>(?!\[REDACTED)(?![$<{{%])[^<\s]{{3,}})(?=</(?P=name)>)",
    re.IGNORECASE,
)
# `pass` alone is a key only with a quoted value (nodemailer's `auth: { user, pass: '...' }`);
# unquoted it is a test result far more often (`PASS: test_x`)
_QUOTED_PASS = compile_pattern(
    r"(?P<head>(?<![\w.\-])pass[\"']?[ \t]*(?::|=>|=)[ \t]*(?P<q>[\"'`]))"
    r"(?P<secret>(?!\[REDACTED)(?![$<{%])[^\"'`\s]{4,}?)(?P=q)",
    re.IGNORECASE,
)
# Go's MySQL driver: `user:<password>@tcp(host:port)/db`
_DSN = compile_pattern(
    r"(?P<head>(?<![\w.\-:/])[\w.\-]+:)(?P<secret>(?!\[REDACTED)[^\s@:/'\"\[\]]{3,})(?=@(?:tcp|unix)\()"
)
# a signed URL's signature or session token (Azure SAS `sig=`, `X-Amz-Signature=`, ...)
_URL_SIGNATURE = compile_pattern(
    r"(?P<head>[?&](?:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature)=)"
    r"(?P<secret>(?!\[REDACTED)[^\s&#'\"`]{16,})",
    re.IGNORECASE,
)
# a setter of a key-ish property given a literal: `ds.setPassword("...")`
_SETTER = compile_pattern(
    r"(?P<head>\bset(?P<name>(?:[A-Z]\w*?)?(?:Password|Passwd|Passphrase|Secret|Token|ApiKey|"
    r"AccessKey|SecretKey|PrivateKey|Credentials?))\([ \t]*(?P<q>[\"']))"
    r"(?P<secret>(?!\[REDACTED)(?![$<{%])[^\"'`\n]{3,}?)(?P=q)"
)
# a session cookie's value in a `Cookie:` or `Set-Cookie:` header
_COOKIE = compile_pattern(
    r"(?P<head>(?<![\w.\-])(?:session(?:id)?|sid|phpsessid|jsessionid|connect\.sid|"
    r"[\w.\-]*_session|auth_token|access_token)=)(?P<secret>(?!\[REDACTED)[^\s;,'\"`]{8,})",
    re.IGNORECASE,
)

# HCL: a key-ish variable's `default` inside its block (`variable "db_password" { default = "..." }`)
_HCL_DEFAULT = compile_pattern(
    rf"(?P<head>\bvariable[ \t]+\"(?P<name>{_NAME})\"[ \t]*\{{(?:[^{{}}\"]|\"[^\"\n]*\"){{0,600}}?"
    r"\bdefault[ \t]*=[ \t]*\")(?P<secret>(?!\[REDACTED)(?![$<{%])[^\"\n]{3,}?)\"",
    re.IGNORECASE,
)
# a Docker config's registry credentials: `"auth": "<base64 of user:password>"`
_DOCKER_AUTH = compile_pattern(
    r"(?P<head>\"auth\"[ \t]*:[ \t]*\")(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?=\")"
)
# a password a database client takes as its third argument: `new PDO($dsn, 'user', '...')`,
# `mysqli_connect('host', 'user', '...')`, `new mysqli(...)`
_POSITIONAL = compile_pattern(
    r"(?P<head>(?:\bnew[ \t]+(?:PDO|mysqli)|\bmysqli_connect)[ \t]*\((?:[^,()\n]*,){2}[ \t]*"
    r"(?P<q>[\"']))(?P<secret>(?!\[REDACTED)(?![$<{%])[^\"'`\n]{3,}?)(?P=q)"
)

# a key-ish name whose value is on the next line, indented: YAML's `password:` (or `password: |`)
# and pretty-printed JSON's `"password":`
_NEXT_LINE_VALUE = compile_pattern(
    r"(?m)^(?P<head>[ \t]*[\"']?(?P<name>[\w.\-]*?(?:password|passwd|passphrase|secret|token|"
    r"api[_\-]?key|private[_\-]?key|access[_\-]?key|credentials?))[\"']?[ \t]*:[ \t]*(?:[|>][-+]?)?"
    r"[ \t]*\n[ \t]+[\"']?)(?P<secret>(?!\[REDACTED)(?![$<{%])[^\s\"'`]{4,})(?=[\"']?[ \t]*,?[ \t]*$)",
    re.IGNORECASE,
)
# passes of the whole redactor over a text (see `Redactor.redact`)
_PASSES = 3
# what a batch scan found absent from a text (`Redactor._absent`): no provider prefix
# (`_PREFIXES`), no key word (`_HINT`), no run long enough for a random token (`_LONG_RUN`)
_NO_TOKENS, _NO_KEYED, _NO_RANDOM = 1, 2, 4
# fewer texts than this are not scanned as a batch (the scans' fixed cost)
_BATCH_MIN = 16
# passes of `_COMMAND_SECRET` over one line (see `keyed` in `Redactor.redact`)
_COMMAND_PASSES = 16
# names glued to their key word that are nonetheless the key (`_name_ok` refuses `compass`)
_GLUED_KEYS = frozenset({"pgpassword", "sshpass", "mysqlpassword", "rediscli_auth"})

# `key=value` pairs of URL queries and connection strings: `?token=...&`, `;Password=...;`,
# `host=db user=app password=...`
_PAIR = compile_pattern(
    r"(?P<head>(?P<lead>[?&;]|(?<=[ \t])|^)(?:[\w.\-]*?[_\-.])?"
    r"(?:password|passwd|pwd|pass|token|secret|api_?key|access_?token|client_secret)=)"
    r"(?P<secret>(?!\[REDACTED)(?![$<{%])[^\s&;'\"#`]{3,})",
    re.IGNORECASE | re.MULTILINE,
)
_CONN_CONTEXT = compile_pattern(
    r"\b(?:host|hostaddr|user|dbname|port|sslmode|server|database|uid)="
)

_GENERIC = compile_pattern(
    rf"(?P<head>(?<![\w.\-])(?P<name>(?:[A-Za-z_][\w.\-]*?)?(?:{_KEY_WORDS}|key|signature|sig|auth|salt|hmac))"
    r"[\"']?[^\S\n]*(?:[:=]|=>)?[^\S\n]*"
    r"[\"'`]?)(?P<secret>(?!\[REDACTED)[A-Za-z0-9+/_\-=]{32,})",
    re.IGNORECASE,
)

# a token that is random by its letters, with no key name beside it
_RANDOM = compile_pattern(
    r"(?:(?<=^[+\-])|(?<![A-Za-z0-9+/_\-.=]))"  # a diff line's own `+` / `-` is no neighbour
    r"[A-Za-z0-9][A-Za-z0-9+/]{31,99}={0,2}(?![A-Za-z0-9+/_\-=])",
    re.MULTILINE,
)
_DATA_PREFIX = compile_pattern(
    r"(?:base64,|sha(?:1|256|384|512)-|h1:|sha256:|integrity=\"?)\Z", re.I
)

# a word every match of a rule holds, matched as the rule matches it (case-insensitively, so
# with the same folding of non-ASCII letters): `_NAME`'s key words (`_ENV_ASSIGN`'s too), those and
# `_GENERIC`'s short names, `_BEARER`'s schemes. A line without it is not searched by the rule.
_NAME_WORD = compile_pattern(r"pass|pwd|secret|token|key|credential", re.IGNORECASE)
_GENERIC_WORD = compile_pattern(
    r"pass|pwd|secret|token|key|credential|sig|auth|salt|hmac", re.IGNORECASE
)
_BEARER_WORD = compile_pattern(r"bearer|token|basic", re.IGNORECASE)

# a line with one of these may hold a key-ish assignment, flag or bearer header
_HINT = compile_pattern(
    r"pass|pwd|secret|token|key|credential|auth|sig|salt|hmac|bearer|basic"
    r"|mysql|mariadb|docker|curl|wget|identified|\$(?:apr1|2[abxy]|[56y])\$"
    r"|ldap|zip|7z|sqlcmd|smbclient|ssh-keygen|redis-cli|mongo|@tcp\(|@unix\(|cookie"
    r"|role|user|requirepass|masterauth|az login|psk|pdo"
)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# a run long enough to hold a random token: the token rule runs only where there is one
_LONG_RUN = compile_pattern(r"[A-Za-z0-9+/=_\-.]{32,}")


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


def _char_class(c: str) -> int:
    return 0 if c.islower() else 1 if c.isupper() else 2 if c.isdigit() else 3


def _random_token(s: str) -> bool:
    """A token no one typed: every letter class, high entropy and class changes at nearly
    every other character (a camelCase identifier or a path changes class once a word)."""
    body = s.rstrip("=")
    if "//" in body:
        return False
    lower = sum(c.islower() for c in body)
    upper = sum(c.isupper() for c in body)
    digits = sum(c.isdigit() for c in body)
    if min(lower, upper, digits) < 2:
        return False
    changes = sum(_char_class(a) != _char_class(b) for a, b in zip(body, body[1:], strict=False))
    return changes / len(body) >= 0.4 and _entropy(body) >= min(4.4, 0.85 * math.log2(len(body)))


def _name_ok(name: str) -> bool:
    """The key word a name ends with starts a word of it (`db_pass`, `dbPass`; not `compass`,
    `OLDPWD`), and a name of `pass` or `pwd` alone is a test result or the working folder."""
    if name.lower() in _NOT_KEYS:
        return False
    if name.lower() in _GLUED_KEYS:
        return True
    m = _KEY_WORD_RE.search(name)
    if m is None:
        return True
    i = m.start()
    if i == 0:
        return True
    before, first = name[i - 1], name[i]
    return not before.isalpha() or (before.islower() and first.isupper())


_NOT_KEYS = frozenset({"pass", "pwd"})
# what documentation writes where a password goes
_PLACEHOLDER_WORDS = frozenset(
    {"password", "passwd", "pass", "pwd", "pw", "secret", "token", "user", "username", "changeit"}
)


def _not_placeholder_value(value: str) -> bool:
    """Some letter or digit other than `x` (`****`, `xxxx`, `...` are placeholders)."""
    return any(c.isalnum() and c not in "xX" for c in value)


def _url_value(m: re.Match[str]) -> bool:
    value = m.group("secret")
    if value[:1] in "$<{%[" or value.lower() in _PLACEHOLDER_WORDS:
        return False  # a template or the word itself: `postgres://user:password@host`
    return _not_placeholder_value(value)


# a metavar in help text or usage: `--password PASSWORD`, `sshpass -p PASSWORD`
_METAVAR = compile_pattern(r"[A-Z][A-Z_\-]*")


def _command_value(m: re.Match[str]) -> bool:
    """Not a metavar, a template, the word itself or an example."""
    return _METAVAR.fullmatch(m.group("secret")) is None and _url_value(m) and not _example(m)


def _literal_value(m: re.Match[str]) -> bool:
    """A quoted literal that is no placeholder, version, template, the word itself or example."""
    return _quoted_value(m) and _url_value(m) and not _example(m)


def _key_name(m: re.Match[str]) -> str:
    """The key a match's value belongs to (its `name` group, else `name2`; "" for none)."""
    groups = m.re.groupindex
    name = m.group("name") if "name" in groups else None
    return name or (m.group("name2") if "name2" in groups else None) or ""


def _quoted_key(m: re.Match[str]) -> bool:
    """A quoted key's literal: its name is a key (`_name_ok`)."""
    return _name_ok(_key_name(m)) and _literal_value(m)


# a mode named by lowercase words: fetch's `credentials: 'same-origin'` ('omit', 'include')
_MODE_WORDS = compile_pattern(r"[a-z]+(?:[\-_][a-z]+)*")
_CREDENTIALS_NAME = compile_pattern(r"credentials?\Z", re.IGNORECASE)


def _credentials_mode(m: re.Match[str]) -> bool:
    """A `credentials` setting whose value is a mode in lowercase words, not a credential."""
    return bool(_CREDENTIALS_NAME.search(_key_name(m))) and bool(
        _MODE_WORDS.fullmatch(m.group("secret"))
    )


def _docker_auth(m: re.Match[str]) -> bool:
    """Base64 of `user:password` (printable), as `docker login` writes it."""
    try:
        decoded = base64.b64decode(m.group("secret"), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return False
    user, colon, password = decoded.partition(":")
    return bool(colon and user and password) and decoded.isprintable()


def _quoted_pass(m: re.Match[str]) -> bool:
    """`pass`'s literal, unless it is a type name (`pass: 'true'`)."""
    return _literal_value(m) and m.group("secret").lower() not in _TYPE_NAMES


# the words an example value is made of in documentation (`secret-token`, `your_api_key`)
_EXAMPLE_WORDS = _PLACEHOLDER_WORDS | {
    "my", "your", "api", "key", "here", "example", "sample", "dummy", "fake", "test", "demo",
    "changeme", "foo", "bar", "abc", "123", "access", "auth", "private", "db", "value", "super",
}  # fmt: skip


def _example(m: re.Match[str]) -> bool:
    """Whether a value is only the words of an example (`secret-token`, `my_password`)."""
    parts = [p for p in re.split(r"[-_.\s]+", m.group("secret").lower()) if p]
    return bool(parts) and all(p in _EXAMPLE_WORDS for p in parts)


# a version, not a secret: `"pbkdf2-password": "1.2.1"`, `token = ^2.0.0`
_VERSION = compile_pattern(r"[\^~>=<v]*\d+(?:\.\d+)+[\w.\-+]*")


def _quoted_value(m: re.Match[str]) -> bool:
    value = m.group("secret")
    if _credentials_mode(m):
        return False
    return _not_placeholder_value(value) and not _VERSION.fullmatch(value)


_ESCAPED_BREAKS = ("\\n", "\\r", "\\t")  # `"Password: \\nScrew you"`


def _data_not_code(m: re.Match[str]) -> bool:
    value = m.group("secret")
    if _VERSION.fullmatch(value) or value.startswith(_ESCAPED_BREAKS):
        return False  # a version, or the text after a string's escaped line break
    if _CODE_VALUE.fullmatch(value):
        return _letters_are_secret(m, value)
    if value.lower() in _TYPE_NAMES:
        return False
    if value.replace(".", "").replace("_", "").isalpha() and "." in value:
        return False  # an attribute path: settings.api_key
    return _not_placeholder_value(value)


def _letters_are_secret(m: re.Match[str], value: str) -> bool:
    """A letters-only value is a variable in code, except for a password-like key on a line of
    its own in configuration style: `password: hunter` (YAML), `password = CorrectHorse`."""
    if "_" in value or value.lower() in _TYPE_NAMES or _KEYWORD_INSIDE.search(value):
        return False
    if not _PASSWORD_NAME.search(m.group("name")) or m.group("rest") is None:
        return False
    if m.group("sep") == ":":
        return len(value) >= 4
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return len(value) >= 8 and mixed


def _flag_value(m: re.Match[str]) -> bool:
    value = m.group("secret")
    if _METAVAR.fullmatch(value):
        return False  # a metavar in help text: --password PASSWORD
    if not _not_placeholder_value(value):
        return False
    if m.group("sep") == "=" or m.group("q"):
        return True
    # `--token and ...` in prose: a word after a space is a secret only when it cannot be prose
    return not value.isalpha() or (len(value) >= 10 and not value.islower())


class Redactor:
    """The built-in rules plus a team's `allow` and `deny` patterns (Python regexes)."""

    def __init__(self, allow: Sequence[str] = (), deny: Sequence[str] = ()) -> None:
        self.allow = re.compile("|".join(f"(?:{p})" for p in allow)) if allow else None
        self.deny = [re.compile(p) for p in deny]
        # line -> (its key-name rules' result, the kinds they replaced): what those rules make
        # of a line depends on that line and this redactor's `allow` alone, and a history
        # redacts the same diff lines many times (in a commit's excerpt and in its symbols')
        self._lines: dict[str, tuple[str, tuple[str, ...]]] = {}

    def _allowed(self, secret: str) -> bool:
        return self.allow is not None and self.allow.search(secret) is not None

    def redact(self, text: str, *, keep_lines: bool = False) -> tuple[str, list[str]]:
        """`text` with secrets replaced by `[REDACTED:<kind>]`, and the kinds replaced.
        `keep_lines`: a key block leaves its line breaks behind, so the text keeps its line
        count (source whose symbols are known by line number).

        A pass that replaced something is followed by another (at most `_PASSES` in all): a
        placeholder gives its neighbours an edge a glued secret lacked (`<token>$apr1$...`: the
        hash starts a word once the token before it is a placeholder), so the result is what
        redacting it again gives."""
        return self._redact(text, keep_lines, 0)

    def _redact(self, text: str, keep_lines: bool, absent: int) -> tuple[str, list[str]]:
        kinds: list[str] = []
        for _ in range(_PASSES):
            text, found = self._pass(text, keep_lines, absent)
            if not found:
                break
            kinds += found
            absent = 0  # what the first pass wrote is not what the batch's scan read
        return text, kinds

    def redact_texts(
        self, texts: Sequence[str | None], *, keep_lines: bool = False
    ) -> list[str | None]:
        """`redact_text` of each of `texts`, in order, with the same results. The whole batch
        is scanned first, a few times, by Arrow's RE2 (a DFA, many times faster than Python's
        `re` on these alternations of words): a text in which no key word, provider prefix
        or long run occurs skips the rules that need one (`_absent`)."""
        absent = self._absent(texts)
        return [
            self._redact(t, keep_lines, a)[0] if t else t
            for t, a in zip(texts, absent, strict=True)
        ]

    def _absent(self, texts: Sequence[str | None]) -> list[int]:
        """Per text, the bits of `_NO_*` whose rules cannot match it; 0 where that is not
        known. Known only for ASCII text (the scans fold case as Python's ASCII-lowered
        search does), without a key block (its placeholder holds a key word) and without a
        team's `deny` patterns (they run first and may change the text)."""
        if self.deny or len(texts) < _BATCH_MIN:
            return [0] * len(texts)
        import pyarrow as pa
        import pyarrow.compute as pc

        try:
            arr = pa.array(texts, pa.large_string())
        except (pa.ArrowException, UnicodeError):  # a lone surrogate: no scan, every rule runs
            return [0] * len(texts)
        plain = pc.and_kleene(
            pc.string_is_ascii(arr),
            pc.invert(pc.match_substring(arr, "PRIVATE KEY")),
        ).to_pylist()
        bits = [0] * len(texts)
        for bit, pattern, fold in (
            (_NO_TOKENS, _PREFIXES.pattern, False),
            (_NO_KEYED, _HINT.pattern, True),
            (_NO_RANDOM, _LONG_RUN.pattern, False),
        ):
            found = pc.match_substring_regex(arr, pattern, ignore_case=fold).to_pylist()
            for i, hit in enumerate(found):
                if hit is False and plain[i]:
                    bits[i] |= bit
        return bits

    def _pass(self, text: str, keep_lines: bool, absent: int = 0) -> tuple[str, list[str]]:
        if not text:
            return text, []
        kinds: list[str] = []
        allowed = self._allowed

        def whole(kind: str, boundary: bool = False) -> Callable[[re.Match[str]], str]:
            def sub(m: re.Match[str]) -> str:
                start = m.start()
                if (
                    boundary
                    and start
                    and (m.string[start - 1].isalnum() or m.string[start - 1] == "_")
                ):
                    return m.group(0)  # inside a longer word
                if allowed(m.group(0)):
                    return m.group(0)
                kinds.append(kind)
                return PLACEHOLDER.format(kind)

            return sub

        def tail(
            kind: str, check: Callable[[re.Match[str]], bool] | None = None
        ) -> Callable[[re.Match[str]], str | None]:
            """A key's value as a placeholder; None when the match is no secret."""

            def sub(m: re.Match[str]) -> str | None:
                secret = m.group("secret")
                if check is not None and not check(m):
                    return None
                name = m.group("name") if "name" in m.re.groupindex else None
                if name is not None and not _name_ok(name):
                    return None
                if allowed(secret):
                    return None
                kinds.append(kind)
                rest = m.group(0)[m.end("secret") - m.start() :]
                return m.group("head") + PLACEHOLDER.format(kind) + rest

            return sub

        custom = _custom(kinds)
        for pattern in self.deny:
            # one pattern at a time: a placeholder the last one wrote is never matched again
            text = _outside_placeholders(text, functools.partial(pattern.sub, custom))
        if "PRIVATE KEY" in text:
            text = _redact_pem(text, kinds, allowed, keep_lines)
        found = set() if absent & _NO_TOKENS else set(_PREFIXES.findall(text))
        if found:
            for kind, prefixes, pattern, boundary in _TOKENS:
                if any(p in f for p in prefixes for f in found):
                    text = pattern.sub(whole(kind, boundary), text)
        if "://" in text:
            text = _keyed_sub(_URL_PASSWORD, tail("url_password", _url_value), text)

        long_runs_absent = bool(absent & _NO_RANDOM)

        def keyed(line: str) -> str:
            # the rules below that need a key name (`_NAME`) run only on a line holding one of
            # its words, looked for again in a line a rule has changed
            last: list = [None, False]  # (the line looked at, whether it holds one)

            def named(text: str) -> bool:
                if text is not last[0]:
                    last[0], last[1] = text, _NAME_WORD.search(text) is not None
                return last[1]

            if _BEARER_WORD.search(line):
                line = _keyed_sub(
                    _BEARER,
                    tail("bearer_token", lambda m: _entropy(m.group("secret")) >= 3.0),
                    line,
                )
            if named(line):
                line = _keyed_sub(_ENV_ASSIGN, tail("password_assignment"), line)
            if "-" in line:
                line = _keyed_sub(_FLAG, tail("password_assignment", _flag_value), line)
            if "=" in line:
                line = _keyed_sub(_PAIR, tail("password_assignment", _pair_value), line)
            if named(line):
                line = _keyed_sub(_QUOTED_ASSIGN, tail("password_assignment", _quoted_value), line)
            if named(line):
                line = _keyed_sub(_BARE_ASSIGN, tail("password_assignment", _data_not_code), line)
            # a command's flag given twice (`mysql -pA -pB`): each pass takes the first one
            # not yet redacted, so passes repeat while they find one (a bounded number)
            for _ in range(_COMMAND_PASSES if _may_hold_command(line) else 0):
                done = _keyed_sub(
                    _COMMAND_SECRET, tail("password_assignment", _command_value), line
                )
                if done == line:
                    break
                line = done
            if "$" in line:
                line = _keyed_sub(_CRYPT_HASH, tail("password_hash"), line)
            if "pass" in line.lower():
                line = _keyed_sub(_QUOTED_PASS, tail("password_assignment", _quoted_pass), line)
            if ("[" in line or "(" in line) and named(line):
                line = _keyed_sub(_QUOTED_KEY, tail("password_assignment", _quoted_key), line)
            if "</" in line and named(line):
                line = _keyed_sub(_XML_KEY, tail("password_assignment", _command_value), line)
            if "?" in line or "&" in line:
                line = _keyed_sub(_URL_SIGNATURE, tail("url_signature", _url_value), line)
            if "set" in line:
                line = _keyed_sub(_SETTER, tail("password_assignment", _quoted_key), line)
            if "cookie" in line.lower():
                line = _keyed_sub(_COOKIE, tail("session_cookie", _command_value), line)
            if '"auth"' in line:
                line = _keyed_sub(_DOCKER_AUTH, tail("password_assignment", _docker_auth), line)
            if "PDO" in line or "mysqli" in line:
                line = _keyed_sub(_POSITIONAL, tail("password_assignment", _literal_value), line)
            if "@tcp(" in line or "@unix(" in line:
                line = _keyed_sub(_DSN, tail("password_assignment", _url_value), line)
            if long_runs_absent or not _GENERIC_WORD.search(line):
                return line  # `_GENERIC`'s secret is a run `_LONG_RUN` would have found
            return _keyed_sub(
                _GENERIC,
                tail("high_entropy_secret", lambda m: _looks_random(m.group("secret"))),
                line,
            )

        known = self._lines

        def keyed_or_diff(line: str) -> str:
            hit = known.get(line)
            if hit is not None:
                kinds.extend(hit[1])
                return hit[0]
            before = len(kinds)
            # a diff's added or removed line is its own line once the sign is off: a removed
            # `-password = ...` reads as a flag, or as nothing, with it
            done = keyed(line)
            if done[:1] in ("+", "-") and len(done) > 1:
                done = done[0] + keyed(done[1:])
            if len(known) >= _KNOWN_LINES:
                known.clear()
            known[line] = (done, tuple(kinds[before:]))
            return done

        if not absent & _NO_KEYED:  # each rule below needs a key word (`_HINT`) in the text
            text = _on_hinted_lines(text, keyed_or_diff)
            if "variable" in text and "default" in text:
                text = _keyed_sub(_HCL_DEFAULT, tail("password_assignment", _literal_value), text)
            if ":\n" in text or ": |" in text or ": >" in text:
                text = _keyed_sub(
                    _NEXT_LINE_VALUE, tail("password_assignment", _command_value), text
                )
        if not absent & _NO_RANDOM:
            text = _random_tokens(text, kinds, allowed)
        return text, kinds


# refused keys whose values are searched again in a row (see `_keyed_sub`)
_NESTED = 4
# lines whose key-name result a redactor remembers (then forgets them all and starts again)
_KNOWN_LINES = 20_000


def _keyed_sub(
    pattern: re.Pattern[str], sub: Callable[[re.Match[str]], str | None], text: str
) -> str:
    """`pattern.sub(sub, text)` for a key and its value (groups `head` and `secret`), where
    `sub` says None to a match that is no secret: the search then goes on right after that
    match's key, not after its value, because the value may hold a key and a secret of its own
    (`Xpassword=password=<secret>`: the first name is refused, the second is the secret's).
    A value is searched again at most `_NESTED` times in a row, and past them as before: each
    search may read to the end of the value, and a chain of refused keys (`Xpassword=` x 4,000)
    must not make that quadratic."""
    out: list[str] = []
    done = at = refused = outer = 0  # refused in a row inside the value ending at `outer`
    while (m := pattern.search(text, at)) is not None:
        new = sub(m)
        if new is None:
            refused = refused + 1 if m.start() < outer else 1
            outer = max(outer, m.end())
            inside = refused <= _NESTED  # else past the chain, as `re.sub` would go on
            at = max(m.end("head") if inside else m.end(), m.start() + 1)
            continue
        out += (text[done : m.start()], new)
        done = at = max(m.end(), m.start() + 1)
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def _custom(kinds: list[str]) -> Callable[[re.Match[str]], str]:
    def sub(m: re.Match[str]) -> str:
        if not m.group(0):
            return ""
        kinds.append(CUSTOM)
        if "secret" in m.re.groupindex and m.group("secret") is not None:
            start, end = m.span("secret")
            whole = m.group(0)
            return (
                whole[: start - m.start()] + PLACEHOLDER.format(CUSTOM) + whole[end - m.start() :]
            )
        return PLACEHOLDER.format(CUSTOM)

    return sub


def _outside_placeholders(text: str, fn: Callable[[str], str]) -> str:
    """`fn` applied to the pieces of `text` between placeholders, which stay as they are."""
    out, pos = [], 0
    for m in PLACEHOLDER_RE.finditer(text):
        out.append(fn(text[pos : m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(fn(text[pos:]))
    return "".join(out)


def _on_hinted_lines(text: str, fn: Callable[[str], str]) -> str:
    """`fn` applied to each line holding a key word (its own line ending kept apart)."""
    # searched in an ASCII-lowered copy: the same length, so the same positions, and a
    # case-sensitive search is several times faster than an IGNORECASE one
    hits = list(_HINT.finditer(text.translate(_ASCII_LOWER)))
    if not hits:
        return text
    out: list[str] = []
    pos = 0
    for m in hits:
        if m.start() < pos:
            continue  # this line was done
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end == -1 else end
        out.append(text[pos:start])
        out.append(fn(text[start:end]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _pair_value(m: re.Match[str]) -> bool:
    value = m.group("secret")
    if not _not_placeholder_value(value) or value.lower() in _TYPE_NAMES:
        return False
    if m.group("lead") and m.group("lead") in "?&;":
        return True
    # after a space: only inside a connection string (`host=db user=app password=...`)
    line_start = m.string.rfind("\n", 0, m.start()) + 1
    return _CONN_CONTEXT.search(m.string, line_start, m.start() + 1) is not None


def _random_tokens(text: str, kinds: list[str], allowed: Callable[[str], bool]) -> str:
    """High-entropy tokens replaced, looked for only inside runs long enough to hold one."""
    sub = _random_sub(text, kinds, allowed)
    out: list[str] = []
    pos = 0
    for run in _LONG_RUN.finditer(text):
        for m in _RANDOM.finditer(text, run.start(), run.end()):
            new = sub(m)
            if new != m.group(0):
                out += (text[pos : m.start()], new)
                pos = m.end()
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def _random_sub(
    text: str, kinds: list[str], allowed: Callable[[str], bool]
) -> Callable[[re.Match[str]], str]:
    def sub(m: re.Match[str]) -> str:
        token = m.group(0)
        if not _random_token(token) or allowed(token):
            return token
        if _DATA_PREFIX.search(text, max(0, m.start() - 20), m.start()):
            return token  # an integrity hash or inline data, not a credential
        # a line of base64 among others is redacted too: a rotated key's diff shows its body
        # lines without the BEGIN / END lines (a certificate's lines go as well, harmlessly)
        kinds.append("high_entropy_token")
        return PLACEHOLDER.format("high_entropy_token")

    return sub


def _redact_pem(
    text: str, kinds: list[str], allowed: Callable[[str], bool], keep_lines: bool = False
) -> str:
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
        if allowed(text[m.start() : pos]):
            out.append(text[m.start() : pos])
            continue
        kinds.append("private_key")
        out.append(PLACEHOLDER.format("private_key"))
        if keep_lines:
            out.append("\n" * text.count("\n", m.start(), pos))
    out.append(text[pos:])
    return "".join(out)


DEFAULT = Redactor()


def redact(text: str, redactor: Redactor | None = None) -> tuple[str, list[str]]:
    """`text` with secrets replaced by `[REDACTED:<kind>]`, and the kinds replaced (the
    built-in rules, or `redactor`'s)."""
    return (redactor or DEFAULT).redact(text)


def redact_counts(text: str, redactor: Redactor | None = None) -> tuple[str, dict[str, int]]:
    """`redact`, with the kinds counted (the shape stored next to a redacted record)."""
    out, kinds = redact(text, redactor)
    return out, dict(sorted(Counter(kinds).items()))


def redact_text(
    text: str | None, redactor: Redactor | None = None, *, keep_lines: bool = False
) -> str | None:
    """The redacted text alone (None stays None): what a writer stores."""
    if not text:
        return text
    return (redactor or DEFAULT).redact(text, keep_lines=keep_lines)[0]


def redact_texts(
    texts: Sequence[str | None], redactor: Redactor | None = None, *, keep_lines: bool = False
) -> list[str | None]:
    """`redact_text` of each of `texts`, scanned as one batch (`Redactor.redact_texts`)."""
    return (redactor or DEFAULT).redact_texts(texts, keep_lines=keep_lines)


@functools.lru_cache(maxsize=16)
def _cached(allow: tuple[str, ...], deny: tuple[str, ...]) -> Redactor:
    return Redactor(allow, deny)


def redactor_for(config: RedactionConfig | None) -> Redactor:
    """The redactor of a `redaction` config section (built once per distinct section)."""
    if config is None or (not config.allow and not config.deny):
        return DEFAULT
    return _cached(tuple(config.allow), tuple(config.deny))


def count_placeholders(texts: Iterable[str | None]) -> Counter[str]:
    """Placeholders by kind in stored texts: what a table holds redacted."""
    counts: Counter[str] = Counter()
    for text in texts:
        if text and "[REDACTED:" in text:
            counts.update(PLACEHOLDER_RE.findall(text))
    return counts


def placeholder_counts(table: pa.Table, columns: Sequence[str]) -> dict[str, int]:
    """Placeholders by kind in `columns` of a table (only rows holding one are read)."""
    import pyarrow.compute as pc  # here: a journal writer never needs Arrow

    counts: Counter[str] = Counter()
    for name in columns:
        col = table.column(name)
        hits = pc.filter(col, pc.fill_null(pc.match_substring(col, "[REDACTED:"), False))
        counts.update(count_placeholders(hits.to_pylist()))
    return dict(sorted(counts.items()))
