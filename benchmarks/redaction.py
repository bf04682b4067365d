"""Redaction recall: planted secrets must be in no artifact and in no answer.

    python -m gitstrata.benchmarks.redaction [--json]

Builds a repository in a temp folder whose history plants secrets of many kinds (provider keys,
URL and flag passwords, letters-only passwords, private key blocks, JWTs, high-entropy tokens,
a team's own `deny` pattern) in commit messages, in lines that were added and later removed, and
in files at HEAD, next to decoys that look like secrets but are not (ordinary code, metavars,
integrity hashes, a documented example key the config allows). It runs the real `gitstrata
index` and then looks for every secret:

- tables: every Parquet and Arrow file of the live generation, each string value (lists and
  dictionaries included), compared case-insensitively (the full-text term cache is lower case);
- files: the raw bytes of every file of the generation (Tantivy segments, models, manifests);
- fulltext: the secret's own term in every field of the Tantivy index (its document frequency);
- api_search / api_preflight: what `Strata.search` (queried with the secret itself and with the
  commit or file it was planted in) and `Strata.preflight` (each planted file) return, text and
  JSON; an answer's echo of its own query is the caller's text and is left out;
- mcp: `search_causal_history` and `preflight_check` answers of `gitstrata mcp` over stdio.

Recall per location is the share of planted secrets found nowhere there (target 100 %); a decoy
counts as wrongly redacted when its text is not stored verbatim in the tables it was planted in.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LOCATIONS = ("tables", "files", "fulltext", "api_search", "api_preflight", "mcp")
DENY = r"acme_live_[0-9a-f]{24}"
ALLOW = "EXAMPLE"
_BASE_EPOCH = 1_700_000_000


@dataclass(frozen=True)
class Secret:
    name: str
    kind: str  # what it is, for the report
    value: str  # the text that must not be stored or served
    where: str  # message | removed | head


@dataclass
class Commit:
    message: str
    files: dict[str, str | None] = field(default_factory=dict)  # None: delete


# Built from parts so no complete credential-shaped string sits in this source file.
def _j(*parts: str) -> str:
    return "".join(parts)


RSA_BODY = _j("MIIEowIBAAKCAQEAv3Jq0yQm8p5Zr2LkT7Xw", "9sD4fNc1HbV6uYeR0aGi3KjM5lOn8PqS")
# a key body's random lines (a real OpenSSH key's first line is a fixed header, the same in
# every key, so a rotation's diff shows only lines like these)
SSH_BODY = _j("Wd4Fh7Kj2Lm9Nq3Rs8Tv1Xy6Zb0Cg5Hk", "2Mp7Qt4Uw9Ya3Db8Ef1Gj6Kn0Pr5Sv2Xz")
NEW_SSH_BODY = _j("Tq8Ls3Wn6Xp1Zr4Vb7Yc2Hd9Jf5Kg0Mh", "3Nk8Pm1Qs6Rt4Uv9Wx2Yz7Ab5Cd0Ef8Gh")

SECRETS: tuple[Secret, ...] = (
    Secret("aws_key", "AWS access key id", _j("AKIA", "Q3T7ZK2WX9LMNB4R"), "head"),
    Secret(
        "aws_secret",
        "AWS secret (key name)",
        _j("wJalrXUtnFEMIK7MDENGbPxRfiCY", "9q2LmZ4tVh"),
        "head",
    ),
    Secret(
        "google_key", "Google API key", _j("AIza", "SyD3x9Kq2Lm8Np4Rt6Vw1Yb3Cd5Fg7Hj0Jk"), "head"
    ),
    Secret("flag_password", "letters-only --password=", _j("Troubadour", "HexagonPlinth"), "head"),
    Secret("db_url", "database URL password", _j("S3cr3t-", "Pa55w0rd"), "head"),
    Secret("conn_string", "letters-only connection string", _j("Marmalade", "Skyline"), "head"),
    Secret("rsa_key", "RSA private key block (removed)", RSA_BODY, "removed"),
    Secret(
        "slack",
        "Slack bot token (message)",
        _j("xoxb-", "2451369872-8675309123-", "qW3rT5yU7iO9pA1sD2fG4hJ6"),
        "message",
    ),
    Secret(
        "stripe",
        "Stripe live key (removed)",
        _j("sk_", "live_", "4eC39HqLyjWDarjtT1zdp7dcXq"),
        "removed",
    ),
    Secret(
        "stripe_webhook", "Stripe webhook secret", _j("whsec_", "Mz8Nq4Rw2Tx6Vy1Zb3Cd5Ef7"), "head"
    ),
    Secret(
        "github",
        "GitHub token (message)",
        _j("ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
        "message",
    ),
    Secret("npm", "npm token", _j("npm_", "Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0XcVbNm"), "head"),
    Secret("yaml_password", "letters-only YAML password", _j("wombat", "lantern"), "head"),
    Secret(
        "openai",
        "OpenAI key (message)",
        _j("sk-", "proj-", "Zr8Xq2Wm4Ln6Kp9Jb1Hc3Gd5Fe"),
        "message",
    ),
    Secret("bearer", "Bearer token in docs", _j("eb3a9F2c", "7D1e5B8a4C6f0E9d"), "head"),
    Secret("mongo_url", "letters-only URL password", _j("CorrectHorse", "BatteryStaple"), "head"),
    Secret(
        "jwt",
        "JWT",
        _j(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.",
            "eyJzdWIiOiJwbGFudGVkIiwiYWRtaW4iOnRydWV9.",
            "Wq9Zx8Kp2Lm4Nr6Tv1Yb3Cd5Fg7Hj0Jk",
        ),
        "head",
    ),
    Secret(
        "anthropic",
        "Anthropic key (message)",
        _j("sk-ant-", "api03-Xk9Lm2Np4Qr6St8Uv0Wx"),
        "message",
    ),
    Secret(
        "github_pat",
        "GitHub fine-grained token",
        _j("github_pat_", "11ABCDEFG0123456789_abcdefghijKLMNOPqrstuvWXYZ0123"),
        "head",
    ),
    Secret("gitlab", "GitLab token", _j("glpat-", "Xy7Zq3Wr9Ts5Vu1Pm2Ln"), "head"),
    Secret(
        "entropy_message",
        "high-entropy token (message)",
        _j("Qm3Xr8Lw2Nv5Tb9Y", "c4Hd7Jf1Kp6Sg0Ea"),
        "message",
    ),
    Secret(
        "entropy_named",
        "high-entropy token (key name)",
        _j("Hq7Vw3Ty9Pz2Lk5M", "n8Bx4Rc6Js1Gd0Fa"),
        "head",
    ),
    Secret("ssh_key", "OpenSSH private key block", SSH_BODY, "head"),
    Secret(
        "deny_pattern",
        "the config's deny pattern",
        _j("acme_", "live_", "9f8e7d6c5b4a39281706f5e4"),
        "head",
    ),
    Secret(
        "huggingface",
        "Hugging Face token (message)",
        _j("hf_", "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUi"),
        "message",
    ),
    Secret(
        "sendgrid",
        "SendGrid key",
        _j("SG.", "Ab3De5Gh7Jk9Mn1Pq2Rs4T", ".", "Uv6Wx8Yz0Ab2Cd4Ef6Gh8Ij0Kl2Mn4Op6Qr8St0Uv2Wx"),
        "head",
    ),
    Secret("env_password", ".env password", _j("hunter2", "hunter2"), "head"),
    Secret("rotated_key", "rotated key body (diff without BEGIN / END)", NEW_SSH_BODY, "head"),
    Secret("mysql_glued", "mysql -p<password>", _j("Quokka", "Marzipan"), "head"),
    Secret("pgpassword", "PGPASSWORD= before a command", _j("Zx9Qw3Er", "7Ty1Ui5Op"), "head"),
    Secret("sshpass", "sshpass -p <password>", _j("Gondola", "Pistachio"), "head"),
    Secret("curl_user", "curl -u user:<password>", _j("Tangerine", "Velvet"), "head"),
    Secret("netrc", ".netrc password", _j("Harbour", "Lantern77"), "head"),
    Secret("sql_password", "IDENTIFIED BY '<password>'", _j("Pelican", "Cobalt"), "head"),
    Secret("redis_url", "URL password with no user name", _j("Saffron", "Tundra"), "head"),
    Secret("xml_password", "<password> element", _j("Mandolin", "Glacier"), "head"),
    Secret("subscript_password", 'config["password"] = "..."', _j("Thimble", "Aurora"), "head"),
    Secret("go_dsn", "Go MySQL DSN user:<password>@tcp(...)", _j("Walrus", "Sonata"), "head"),
    Secret("java_property", "-D...Password=<password>", _j("Kestrel", "Origami"), "head"),
    Secret("java_setter", 'setPassword("<password>")', _j("Bramble", "Quasar"), "head"),
    Secret(
        "ini_removed",
        "password = <password> in a removed line",
        _j("Lighthouse", "Ember"),
        "removed",
    ),
    Secret(
        "flag_removed",
        "--password <password> in a removed line",
        _j("Juniper", "Falcon"),
        "removed",
    ),
    Secret(
        "sas_signature",
        "Azure SAS sig= in a URL",
        _j("Xk4Lm8Np2Qr6St0U", "v3Wy7Za1Bc5De9Fg"),
        "head",
    ),
    Secret(
        "crypt_hash",
        "htpasswd password hash",
        _j("$apr1$", "r31.....$HqJZimcKQFAMYayBlzkrA/"),
        "head",
    ),
)

# (text, the file or "message" it is planted in): must be stored verbatim
DECOYS: tuple[tuple[str, str], ...] = (
    ("token = get_token()", "config/settings.py"),
    ('password = request.form["password"]', "config/settings.py"),
    ("max_tokens = 100", "config/settings.py"),
    ('cache_key = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"', "config/settings.py"),
    ('compass = "north"', "config/settings.py"),
    ("thisIsAVeryLongIdentifierName2ForTesting3", "config/settings.py"),
    ("def login(password: str, token=None):", "config/settings.py"),
    ("usage: deploy --password PASSWORD", "README.md"),
    ("sha512-" + "Zx9Kq2Lm8Np4Rt6Vw1Yb3Cd5Fg7Hj0JkZx9Kq2Lm8Np4Rt6Vw1Yb3Cd5Fg7Hj0Jk==", "README.md"),
    (_j("AKIA", "IOSFODNN7", "EXAMPLE"), "README.md"),  # the documented example: allowed
    ("token: ${{ secrets.NPM_TOKEN }}", "ci/publish.yml"),
    ("123e4567-e89b-12d3-a456-426614174000", "message"),
    ("4b825dc642cb6eb9a060e54bf8d69288fbee4904", "message"),
)


def _s(name: str) -> str:
    return next(s.value for s in SECRETS if s.name == name)


def _pem(label: str, body: str) -> str:
    return f"-----BEGIN {label}-----\n{body}\n{body[::-1]}\n-----END {label}-----\n"


def history() -> list[Commit]:
    """The planted repository's commits, oldest first."""
    settings = f'''import os

AWS_ACCESS_KEY_ID = "{_s("aws_key")}"
aws_secret_access_key = "{_s("aws_secret")}"
GOOGLE_MAPS = "{_s("google_key")}"
GITHUB_APP = "{_s("github_pat")}"
GITLAB_CI = "{_s("gitlab")}"


def login(password: str, token=None):
    token = get_token()
    password = request.form["password"]
    max_tokens = 100
    cache_key = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    compass = "north"
    return thisIsAVeryLongIdentifierName2ForTesting3(password, token)
'''
    return [
        Commit(
            f"Add service settings and deploy script\n\nAlerts post with {_s('slack')} for now.",
            {
                "config/settings.py": settings,
                "deploy/deploy.sh": (
                    "#!/bin/sh\nset -e\n"
                    f"mysqldump --user=app --password={_s('flag_password')} shop > dump.sql\n"
                ),
                "db/connect.py": (
                    "import psycopg\n\n\ndef connect():\n"
                    f'    url = "postgres://app:{_s("db_url")}@db.internal:5432/shop"\n'
                    f'    dsn = "host=db user=app password={_s("conn_string")} dbname=shop"\n'
                    "    return psycopg.connect(url or dsn)\n"
                ),
                "keys/deploy_key.pem": _pem("RSA PRIVATE KEY", RSA_BODY),
            },
        ),
        Commit(
            f"Wire the payment provider\n\nCI pushes with {_s('github')} until the app exists.",
            {
                "payments/stripe.py": (
                    "import stripe\n\n"
                    f'stripe.api_key = "{_s("stripe")}"\n'
                    f'WEBHOOK_SECRET = "{_s("stripe_webhook")}"\n'
                ),
            },
        ),
        Commit(
            "Remove the committed deploy key and read the Stripe key from the environment\n\n"
            "Reverts nothing; see 4b825dc642cb6eb9a060e54bf8d69288fbee4904 for the old layout.",
            {
                "keys/deploy_key.pem": None,
                "payments/stripe.py": (
                    "import os\n\nimport stripe\n\n"
                    'stripe.api_key = os.environ["STRIPE_KEY"]\n'
                    f'WEBHOOK_SECRET = "{_s("stripe_webhook")}"\n'
                ),
            },
        ),
        Commit(
            f"Publish from CI\n\nLocal runs used {_s('openai')} to draft release notes.\n"
            "Build 123e4567-e89b-12d3-a456-426614174000.",
            {
                ".npmrc": f"//registry.npmjs.org/:_authToken={_s('npm')}\n",
                "ci/publish.yml": (
                    "publish:\n  env:\n"
                    "    token: ${{ secrets.NPM_TOKEN }}\n"
                    f"    password: {_s('yaml_password')}\n"
                ),
            },
        ),
        Commit(
            "Document the deploy",
            {
                "README.md": (
                    "# Shop\n\nusage: deploy --password PASSWORD\n\n"
                    f"    curl -H 'Authorization: Bearer {_s('bearer')}' https://api.shop.test/\n\n"
                    f"Mongo: mongodb://admin:{_s('mongo_url')}@mongo:27017/shop\n\n"
                    "integrity sha512-"
                    "Zx9Kq2Lm8Np4Rt6Vw1Yb3Cd5Fg7Hj0JkZx9Kq2Lm8Np4Rt6Vw1Yb3Cd5Fg7Hj0Jk==\n\n"
                    f"The AWS docs' example key {_j('AKIA', 'IOSFODNN7', 'EXAMPLE')} is not ours.\n"
                ),
            },
        ),
        Commit(
            f"Test the auth flow\n\nThe fixture was signed with {_s('anthropic')} by mistake.",
            {
                "tests/test_auth.py": (
                    "def test_token_roundtrip():\n"
                    f'    token = "{_s("jwt")}"\n'
                    "    assert decode(token)\n"
                ),
            },
        ),
        Commit(
            f"Rotate the signing secret\n\nThe old one was {_s('entropy_message')}; revoked.",
            {
                "config/signing.py": f'signing_secret = "{_s("entropy_named")}"\n',
                "ops/id_ed25519": _pem("OPENSSH PRIVATE KEY", SSH_BODY),
            },
        ),
        Commit(
            f"Mail and partner keys\n\nModel downloads use {_s('huggingface')}.",
            {
                "partners/acme.py": f'ACME = "{_s("deny_pattern")}"\n',
                "mail/send.py": f'SENDGRID = "{_s("sendgrid")}"\n',
                ".env": f"DB_PASSWORD={_s('env_password')}\n",
            },
        ),
        # only the body lines change: the diff shows them without the BEGIN / END lines
        Commit("Rotate the ops key", {"ops/id_ed25519": _pem("OPENSSH PRIVATE KEY", NEW_SSH_BODY)}),
        Commit(
            f"Add the backup scripts\n\nRun by hand with sshpass -p {_s('sshpass')} ssh backup@db.",
            {
                "ops/backup.sh": (
                    "#!/bin/sh\nset -e\n"
                    f"mysqldump -u root -p{_s('mysql_glued')} shop > shop.sql\n"
                    f"PGPASSWORD={_s('pgpassword')} pg_dump -h db shop > pg.sql\n"
                    f"curl -u backup:{_s('curl_user')} -T shop.sql https://store.shop.test/\n"
                    f"redis-cli -u redis://:{_s('redis_url')}@cache:6379/0 SAVE\n"
                ),
                "ops/netrc": f"machine store.shop.test login backup password {_s('netrc')}\n",
                "db/users.sql": f"CREATE USER 'shop'@'%' IDENTIFIED BY '{_s('sql_password')}';\n",
                "ops/htpasswd": f"admin:{_s('crypt_hash')}\n",
                "ops/settings.xml": f"<server>\n  <password>{_s('xml_password')}</password>\n</server>\n",
                "ops/restore.py": f'config = {{}}\nconfig["password"] = "{_s("subscript_password")}"\n',
                "ops/check.go": (
                    f'package ops\n\nconst dsn = "shop:{_s("go_dsn")}@tcp(db:3306)/shop"\n'
                ),
                "ops/run.sh": (
                    f"java -Djavax.net.ssl.keyStorePassword={_s('java_property')} -jar shop.jar\n"
                    "curl -o shop.sql 'https://shop.blob.core.windows.net/dumps/shop.sql"
                    f"?sv=2020-08-04&sp=r&sig={_s('sas_signature')}'\n"
                ),
                "ops/Store.java": (
                    "class Store {\n  void open(DataSource ds) {\n"
                    f'    ds.setPassword("{_s("java_setter")}");\n'
                    "  }\n}\n"
                ),
                "ops/deploy.ini": f"[db]\nhost = db\npassword = {_s('ini_removed')}\n",
                "ops/restart.sh": f"shop-admin restart --password {_s('flag_removed')}\n",
            },
        ),
        # the lines go: only the removed side of the diff holds them
        Commit(
            "Read the deploy password from the vault",
            {"ops/deploy.ini": "[db]\nhost = db\n", "ops/restart.sh": "shop-admin restart\n"},
        ),
    ]


def head_files() -> dict[str, str]:
    files: dict[str, str] = {}
    for c in history():
        for path, text in c.files.items():
            if text is None:
                files.pop(path, None)
            else:
                files[path] = text
    return files


def _git(repo: Path, *args: str, when: int = _BASE_EPOCH) -> str:
    stamp = f"{when} +0000"
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Planted Author",
        "GIT_AUTHOR_EMAIL": "planted@example.com",
        "GIT_COMMITTER_NAME": "Planted Author",
        "GIT_COMMITTER_EMAIL": "planted@example.com",
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=True)
    return done.stdout.decode("utf-8", "replace")


def build_repo(path: Path, config: dict[str, Any] | None = None) -> Path:
    """The planted repository at `path`, with `config` (by default the allow and deny
    patterns) as its `.strata/config.json`."""
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "init", "-q", "-b", "main")
    for day, commit in enumerate(history(), start=1):
        for rel, text in commit.files.items():
            target = path / rel
            if text is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        _git(path, "add", "-A")
        _git(path, "commit", "-q", "-m", commit.message, when=_BASE_EPOCH + day * 86_400)
    strata = path / ".strata"
    strata.mkdir(exist_ok=True)
    config = config or {"redaction": {"allow": [ALLOW], "deny": [DENY]}}
    (strata / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return path


# ------------------------------------------------------------------ where the secrets may be


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def table_texts(gen_dir: Path) -> dict[str, str]:
    """Every string value of every Parquet / Arrow file of a generation, by file."""
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq

    out: dict[str, str] = {}
    for path in sorted(gen_dir.rglob("*")):
        if path.suffix == ".parquet":
            table = pq.read_table(path)
        elif path.suffix == ".arrow":
            with ipc.open_file(path) as reader:
                table = reader.read_all()
        else:
            continue
        out[path.relative_to(gen_dir).as_posix()] = "\n".join(_strings(table.to_pylist()))
    return out


def _fulltext_hits(gen_dir: Path, value: str) -> int:
    from ..store.fulltext import TEXT_FIELDS, FullText
    from ..store.tokenizer import tokenize

    terms = tokenize(value)
    if not terms:
        return 0
    whole = max(terms, key=len)  # the secret's own term (its parts are ordinary words)
    ft = FullText.open(gen_dir / "fulltext")
    found = sum(ft.doc_freq(name, whole) for name in TEXT_FIELDS)
    if found:
        return found
    # glued to a flag the term is longer (`-p<secret>` gives `p<secret>`): any term holding it
    import tantivy

    inside = ".*" + "".join("\\" + c if not c.isalnum() else c for c in whole) + ".*"
    return sum(
        len(ft.searcher.search(tantivy.Query.regex_query(ft.schema, name, inside), limit=1).hits)
        for name in TEXT_FIELDS
    )


async def _mcp_texts(repo: Path, queries: list[str], files: list[str], log: Path) -> list[str]:
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gitstrata", "-C", str(repo), "mcp"],
        cwd=str(log.parent),
        env=dict(os.environ),
    )
    out: list[str] = []
    with open(log, "a", encoding="utf-8") as errlog:
        await _calls(params, errlog, queries, files, out)
    return out


async def _calls(params: Any, errlog: Any, queries: list[str], files: list[str], out: list[str]):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    async with AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        calls = [("search_causal_history", {"query": q, "top_k": 20}) for q in queries]
        calls += [("preflight_check", {"file_path": f}) for f in files]
        for tool, args in calls:
            got = await session.call_tool(tool, args, read_timeout_seconds=120)
            echo = str(args.get("query", "\0"))  # the caller's own text, named in the answer
            texts = [str(getattr(c, "text", "")) for c in got.content]
            texts.append(json.dumps(got.structured_content or {}, ensure_ascii=False))
            out.extend(t.replace(echo, "") for t in texts)


def _found(haystack: str, value: str) -> bool:
    return value.lower() in haystack.lower()


def measure(
    workdir: Path | None = None, *, mcp: bool = True, control: bool = True
) -> dict[str, Any]:
    """Build, index and probe the planted repository; the recall table as a dict. `control`
    also probes a copy whose config allows every detection (redaction off): the same probes
    must find the secrets there, or they could not fail."""
    with tempfile.TemporaryDirectory(prefix="gitstrata-redaction-") as tmp:
        base = Path(workdir) if workdir is not None else Path(tmp)
        config = {"redaction": {"allow": [ALLOW], "deny": [DENY]}}
        res = _probe(build_repo(base / "planted", config), base, mcp=mcp)
        if control:
            off = {"redaction": {"allow": [r"[\s\S]"]}}
            seen = _probe(build_repo(base / "control", off), base, mcp=False)
            res["control_recall"] = seen["recall"]
        return res


def _probe(repo: Path, base: Path, *, mcp: bool) -> dict[str, Any]:
    import anyio

    from ..facade import Strata
    from ..serve.render import render_preflight, render_search

    done = subprocess.run(
        [sys.executable, "-m", "gitstrata", "index", str(repo), "--quiet"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"gitstrata index failed: {done.stderr.strip()}")
    strata = Strata(repo)
    gen_dir = strata.store.require_live().path
    tables = table_texts(gen_dir)
    all_tables = "\n".join(tables.values())
    raw = [p.read_bytes().lower() for p in gen_dir.rglob("*") if p.is_file()]

    subjects = [c.message.split("\n", 1)[0] for c in history()]
    files = sorted(head_files())
    queries = [s.value for s in SECRETS] + subjects + [f"what changed in {f}" for f in files]
    served_search: list[str] = []
    for q in queries:
        resp = strata.search(q, 20)
        # an answer names its own query: that echo is the caller's text, not the index's
        served_search += [
            render_search(resp).replace(q, ""),
            resp.model_dump_json().replace(q, ""),
        ]
    served_preflight: list[str] = []
    for f in files:
        report = strata.preflight(f)
        served_preflight += [render_preflight(report), report.model_dump_json()]
    strata.close()
    served_mcp: list[str] = []
    if mcp:
        served_mcp = anyio.run(_mcp_texts, repo, queries, files, base / "mcp.log")
    status = Strata(repo).status()

    leaks: dict[str, list[str]] = {loc: [] for loc in LOCATIONS}
    search_text = "\n".join(served_search)
    preflight_text = "\n".join(served_preflight)
    mcp_text = "\n".join(served_mcp)
    for s in SECRETS:
        if _found(all_tables, s.value):
            leaks["tables"].append(s.name)
        if any(s.value.lower().encode() in blob for blob in raw):
            leaks["files"].append(s.name)
        if _fulltext_hits(gen_dir, s.value):
            leaks["fulltext"].append(s.name)
        if _found(search_text, s.value):
            leaks["api_search"].append(s.name)
        if _found(preflight_text, s.value):
            leaks["api_preflight"].append(s.name)
        if mcp and _found(mcp_text, s.value):
            leaks["mcp"].append(s.name)
    if not mcp:
        leaks.pop("mcp")

    stored = {
        "message": tables.get("commits.parquet", ""),
        **{f: tables.get("symbols.parquet", "") for f in head_files()},
    }
    wrongly = [text for text, where in DECOYS if text not in stored[where]]
    served_all = search_text + preflight_text + mcp_text
    n = len(SECRETS)
    return {
        "planted": n,
        "kinds": len({s.kind for s in SECRETS}),
        "commits": len(history()),
        "recall": {loc: round((n - len(v)) / n, 4) for loc, v in leaks.items()},
        "leaked": {loc: v for loc, v in leaks.items() if v},
        "decoys": len(DECOYS),
        "decoys_redacted": len(wrongly),
        "decoys_redacted_list": wrongly,
        "served_placeholders": served_all.count("[REDACTED:"),
        "status_redactions": status.get("redactions", {}),
        "tables_checked": len(tables),
        "files_checked": len(raw),
        "served_answers": {
            "api_search": len(served_search) // 2,
            "api_preflight": len(served_preflight) // 2,
            "mcp": len(served_mcp) // 2,
        },
    }


def markdown(res: dict[str, Any], command: str = "python -m gitstrata.benchmarks.redaction") -> str:
    """The RESULTS.md section."""
    rows = [
        "## Redaction recall (planted secrets)",
        "",
        f"Measured by `{command}`: {res['planted']} secrets of {res['kinds']} kinds planted in "
        f"commit messages, removed lines and files at HEAD over {res['commits']} commits, next "
        f"to {res['decoys']} decoys; the real `gitstrata index`, then every table, every file "
        "of the generation, the full-text index and the answers of the API and the MCP server "
        f"({res['served_answers']['mcp']} MCP calls) searched for each secret. Target: 100 %.",
        "",
        "The control column probes a copy whose config allows every detection (redaction off; "
        "its MCP answers are not probed): there the same probes must find the secrets. The "
        "`files` probe reads bytes as written, and compressed Parquet pages hide some of them; "
        "the `tables` probe reads the decoded values.",
        "",
        "| location | recall | leaked | control: recall with redaction off |",
        "| --- | ---: | --- | ---: |",
    ]
    control = res.get("control_recall", {})
    for loc, recall in res["recall"].items():
        leaked = ", ".join(res["leaked"].get(loc, [])) or "-"
        off = f"{control[loc] * 100:.1f} %" if loc in control else "-"
        rows.append(f"| {loc} | {recall * 100:.1f} % | {leaked} | {off} |")
    rows += [
        "",
        f"Decoys wrongly redacted: {res['decoys_redacted']} of {res['decoys']}. "
        f"`gitstrata status` counts {res['status_redactions'].get('total', 0)} redactions.",
    ]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m gitstrata.benchmarks.redaction", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--no-mcp", action="store_true", help="skip the MCP server")
    ap.add_argument("--no-control", action="store_true", help="skip the redaction-off control")
    args = ap.parse_args(argv)
    res = measure(mcp=not args.no_mcp, control=not args.no_control)
    if args.json:
        json.dump(res, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(markdown(res))
    return 0 if all(v == 1.0 for v in res["recall"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
