"""Secrets never stored or served: the redactor's detectors (true positives and honest code), a
team's allow / deny patterns, redaction through the real index pipeline (tables, full-text index,
search and preflight), the count `status` shows, rebuilds when the patterns change, and the
owner-only permissions of everything the index folder holds."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import GitRepo
from hypothesis import given, settings
from hypothesis import strategies as st

from gitstrata.facade import Strata
from gitstrata.pipeline.codeversion import module_sources
from gitstrata.serve.render import render_preflight, render_search
from gitstrata.store.config import Config
from gitstrata.store.errors import ConfigError
from gitstrata.store.journal import Journal
from gitstrata.store.redact import Redactor, count_placeholders, redact
from gitstrata.store.tasks_log import TaskLog


def _j(*parts: str) -> str:
    return "".join(parts)  # no complete credential-shaped literal in the source


GH = _j("ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
AWS = _j("AKIA", "Q3T7ZK2WX9LMNB4R")
RANDOM = _j("Qm3Xr8Lw2Nv5Tb9Y", "c4Hd7Jf1Kp6Sg0Ea")
LETTERS = _j("CorrectHorse", "BatteryStaple")
PEM_BODY = _j("MIIEowIBAAKCAQEAv3Jq0yQm8p5Zr2LkT7Xw", "9sD4fNc1HbV6uYeR0aGi3KjM5lOn8PqS")


# ---------------------------------------------------------------- detectors


DETECTED = [
    (
        f"mysqldump --password={LETTERS} shop",
        "mysqldump --password=[REDACTED:password_assignment] shop",
        ["password_assignment"],
    ),
    (
        f"deploy --db-password '{LETTERS}'",
        "deploy --db-password '[REDACTED:password_assignment]'",
        ["password_assignment"],
    ),
    (
        f"mysql --password {LETTERS} -e 'select 1'",
        "mysql --password [REDACTED:password_assignment] -e 'select 1'",
        ["password_assignment"],
    ),
    (
        f"https://api.test/v1?user=a&token={LETTERS}&page=2",
        "https://api.test/v1?user=a&token=[REDACTED:password_assignment]&page=2",
        ["password_assignment"],
    ),
    (
        f"Server=db;User Id=app;Password={LETTERS};",
        "Server=db;User Id=app;Password=[REDACTED:password_assignment];",
        ["password_assignment"],
    ),
    (
        f'dsn = "host=db user=app password={LETTERS} dbname=shop"',
        'dsn = "host=db user=app password=[REDACTED:password_assignment] dbname=shop"',
        ["password_assignment"],
    ),
    ("  password: wombatlantern", "  password: [REDACTED:password_assignment]", None),
    (f"password = {LETTERS}", "password = [REDACTED:password_assignment]", None),
    (
        f"mongodb://admin:{LETTERS}@mongo:27017/shop",
        "mongodb://admin:[REDACTED:url_password]@mongo:27017/shop",
        ["url_password"],
    ),
    (
        "postgres://app:p@ss%2Fw0rd@db.internal/shop",
        "postgres://app:[REDACTED:url_password]@db.internal/shop",
        ["url_password"],
    ),
    (f"rotated to {RANDOM} today", "rotated to [REDACTED:high_entropy_token] today", None),
    (
        f"the signing key {RANDOM}",
        "the signing key [REDACTED:high_entropy_secret]",
        ["high_entropy_secret"],
    ),
    (
        _j(
            "SENDGRID = 'SG.",
            "Ab3De5Gh7Jk9Mn1Pq2Rs4T.Uv6Wx8Yz0Ab2Cd4Ef6Gh8Ij0Kl2Mn4Op6Qr8St0Uv2W'",
        ),
        "SENDGRID = '[REDACTED:sendgrid_key]'",
        ["sendgrid_key"],
    ),
    (
        f"mysql -u root -p{LETTERS} shop",
        "mysql -u root -p[REDACTED:password_assignment] shop",
        ["password_assignment"],
    ),
    (
        f"PGPASSWORD={RANDOM} psql -h db",
        "PGPASSWORD=[REDACTED:password_assignment] psql -h db",
        ["password_assignment"],
    ),
    (
        f"sshpass -p {LETTERS} ssh deploy@host",
        "sshpass -p [REDACTED:password_assignment] ssh deploy@host",
        ["password_assignment"],
    ),
    (
        f"docker login -u bob -p {LETTERS} registry.test",
        "docker login -u bob -p [REDACTED:password_assignment] registry.test",
        ["password_assignment"],
    ),
    (
        f"curl -u admin:{LETTERS} https://api.test",
        "curl -u admin:[REDACTED:password_assignment] https://api.test",
        ["password_assignment"],
    ),
    (
        f"machine api.example.com login bob password {LETTERS}",
        "machine api.example.com login bob password [REDACTED:password_assignment]",
        ["password_assignment"],
    ),
    (
        f"CREATE USER 'app'@'%' IDENTIFIED BY '{LETTERS}';",
        "CREATE USER 'app'@'%' IDENTIFIED BY '[REDACTED:password_assignment]';",
        ["password_assignment"],
    ),
    (
        f"ALTER USER app WITH PASSWORD '{LETTERS}';",
        "ALTER USER app WITH PASSWORD '[REDACTED:password_assignment]';",
        ["password_assignment"],
    ),
    (
        f"redis://:{LETTERS}@cache:6379/0",
        "redis://:[REDACTED:url_password]@cache:6379/0",
        ["url_password"],
    ),
    (
        f'config["password"] = "{LETTERS}"',
        'config["password"] = "[REDACTED:password_assignment]"',
        ["password_assignment"],
    ),
    (
        f"define('DB_PASSWORD', '{LETTERS}');",
        "define('DB_PASSWORD', '[REDACTED:password_assignment]');",
        ["password_assignment"],
    ),
    (
        f"<password>{LETTERS}</password>",
        "<password>[REDACTED:password_assignment]</password>",
        ["password_assignment"],
    ),
    (
        f'sql.Open("mysql", "root:{LETTERS}@tcp(127.0.0.1:3306)/app")',
        'sql.Open("mysql", "root:[REDACTED:password_assignment]@tcp(127.0.0.1:3306)/app")',
        ["password_assignment"],
    ),
    (
        f"java -Djavax.net.ssl.keyStorePassword={RANDOM} -jar app.jar",
        "java -Djavax.net.ssl.keyStorePassword=[REDACTED:password_assignment] -jar app.jar",
        ["password_assignment"],
    ),
    (
        f"ldapsearch -x -D cn=admin -w {LETTERS} -b dc=x",
        "ldapsearch -x -D cn=admin -w [REDACTED:password_assignment] -b dc=x",
        ["password_assignment"],
    ),
    (
        f"keytool -importcert -storepass {LETTERS} -keystore x.jks",
        "keytool -importcert -storepass [REDACTED:password_assignment] -keystore x.jks",
        ["password_assignment"],
    ),
    (
        f"openssl rsa -in key.pem -passin pass:{LETTERS}",
        "openssl rsa -in key.pem -passin pass:[REDACTED:password_assignment]",
        ["password_assignment"],
    ),
    (
        f"ENV DB_PASSWORD {LETTERS}",
        "ENV DB_PASSWORD [REDACTED:password_assignment]",
        ["password_assignment"],
    ),
    (
        f"db:\n  password:\n    {LETTERS}\n",
        "db:\n  password:\n    [REDACTED:password_assignment]\n",
        ["password_assignment"],
    ),
    (
        f'{{\n  "api_key":\n    "{LETTERS}"\n}}',
        '{\n  "api_key":\n    "[REDACTED:password_assignment]"\n}',
        ["password_assignment"],
    ),
    (
        f"password: |\n  {LETTERS}\n",
        "password: |\n  [REDACTED:password_assignment]\n",
        ["password_assignment"],
    ),
    (
        f"ALTER ROLE app PASSWORD '{LETTERS}';",
        "ALTER ROLE app PASSWORD '[REDACTED:password_assignment]';",
        ["password_assignment"],
    ),
    (
        f"requirepass {LETTERS}",
        "requirepass [REDACTED:password_assignment]",
        ["password_assignment"],
    ),
    (
        f"mvn deploy -Dgpg.passphrase={LETTERS}",
        "mvn deploy -Dgpg.passphrase=[REDACTED:password_assignment]",
        ["password_assignment"],
    ),
    (
        f'network={{\n  ssid="home"\n  psk="{LETTERS}"\n}}',
        'network={\n  ssid="home"\n  psk="[REDACTED:password_assignment]"\n}',
        ["password_assignment"],
    ),
    (
        f"auth: {{ user: 'bob', pass: '{LETTERS}' }}",
        "auth: { user: 'bob', pass: '[REDACTED:password_assignment]' }",
        ["password_assignment"],
    ),
    (
        f'ds.setPassword("{LETTERS}");',
        'ds.setPassword("[REDACTED:password_assignment]");',
        ["password_assignment"],
    ),
    (
        f"https://acct.blob.core.windows.net/c?sv=2020-08-04&sp=r&sig={RANDOM}%3D",
        "https://acct.blob.core.windows.net/c?sv=2020-08-04&sp=r&sig=[REDACTED:url_signature]",
        ["url_signature"],
    ),
    (
        f"Cookie: theme=dark; sessionid={LETTERS}",
        "Cookie: theme=dark; sessionid=[REDACTED:session_cookie]",
        ["session_cookie"],
    ),
    (
        f"//registry.npmjs.org/:_authToken={LETTERS}",
        "//registry.npmjs.org/:_authToken=[REDACTED:password_assignment]",
        ["password_assignment"],
    ),
    (
        _j(
            "https://discord.com/api/webhooks/123456789012345678/",
            "AbCdEfGhIjKlMnOpQrStUvWxYz0123",
        ),
        "[REDACTED:discord_webhook]",
        ["discord_webhook"],
    ),
    (
        _j("admin:$apr1$", "r31.....$HqJZimcKQFAMYayBlzkrA/"),
        "admin:[REDACTED:password_hash]",
        ["password_hash"],
    ),
    (_j("hf_", "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUi"), "[REDACTED:huggingface_token]", None),
    (_j("ya29.", "a0AfH6SMBx9Kq2Lm8Np4Rt6Vw1Yb3"), "[REDACTED:google_oauth_token]", None),
    (_j("hvs.", "CAESIJx9Kq2Lm8Np4Rt6Vw1Yb3Cd5"), "[REDACTED:vault_token]", None),
    (
        f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n{PEM_BODY}\n-----END PGP PRIVATE KEY BLOCK-----",
        "[REDACTED:private_key]",
        ["private_key"],
    ),
]


@pytest.mark.parametrize(("text", "expected", "kinds"), DETECTED)
def test_new_detectors_find_the_secret_and_only_it(text, expected, kinds) -> None:
    out, found = redact(text)
    assert out == expected
    if kinds is not None:
        assert found == kinds
    assert redact(out) == (out, [])  # idempotent


HONEST = [
    "token = get_token()",
    'password = request.form["password"]',
    "password = password",
    "password = hashed_password",
    "password: str",
    "def login(password: str, token=None):",
    'compass = "north"',
    'bypass = "yes"',
    "max_tokens=100",
    'parser.add_argument("--password", help="the --password to use")',
    "usage: deploy --password PASSWORD",
    "pass --token and the --secret option",
    "token: ${{ secrets.NPM_TOKEN }}",
    "password=os.environ['PW']",
    "thisIsAVeryLongIdentifierName2ForTesting3",
    "src/components/SomeLongComponentName2/index.tsx",
    "integrity sha512-Zx9Kq2Lm8Np4Rt6Vw1Yb3Cd5Fg7Hj0JkZx9Kq2Lm8Np4Rt6Vw1Yb3Cd5Fg7Hj0Jk==",
    "Reverts 4b825dc642cb6eb9a060e54bf8d69288fbee4904 and 123e4567-e89b-12d3-a456-426614174000",
    "https://user@example.com/path?page=2&sort=desc",
    "session_key_ttl = 3600",
    "Token::RecursivePrefix => 1,",
    '"pbkdf2-password": "1.2.1",',
    "--- PASS: TestParseOrder/valid (0.00s)",
    "PWD=/home/dev/src",
    "postgres://user:password@localhost/db",
    "postgres://app:${DB_PASSWORD}@db/shop",
    "if password == secret_value:",
    "https://example.com/login?next=/home&token=",
    "mysql -u root -p shop",
    "mysql -uroot -ppassword",
    "curl -u $USER:$TOKEN https://api.test",
    "sshpass -p PASSWORD ssh host",
    "CREATE USER 'app'@'%' IDENTIFIED BY 'password';",
    "docker login -u bob --password-stdin registry.test",
    "see the machine learning login page: password reset",
    "redis://localhost:6379/0",
    'printf "$6$"',
    "url.searchParams.set('token', 'secret-token');",
    'os.environ.get("API_KEY", "")',
    "<password>${env.DB_PASSWORD}</password>",
    "ssh-keygen -t ed25519 -N '' -f key",
    "user.setPassword(hash(raw));",
    'cfg.setApiKey("${API_KEY}")',
    "Cookie: theme=dark; lang=en",
    "https://example.com/x?sig=short",
    "pass: 'true'",
    "{ pass: process.env.SMTP_PASS }",
    "pass: '${SMTP_PASS}'",
    "expect(result.pass).toBe(true)",
    "password:\n  required: true\n  minLength: 12",
    "token:\n  - read\n  - write",
    "secrets:\n  GITHUB_TOKEN",
    "api_key:\n  ${{ secrets.API_KEY }}",
    "password: *db_pass",
    "password: &pw ${DB_PASSWORD}",
    "let token = &token_str;",
    'variable "db_password" {\n  type      = string\n  sensitive = true\n}',
    'variable "db_password" {\n  default = var.fallback\n}',
    'variable "db_password" {\n  type = string\n}\n\nvariable "region" {\n  default = "eu-west-1"\n}',
    '"auth": "required"',
    '"auth": "oauth2-bearer-token-flow"',
    "$db = new PDO($dsn, $user, $password);",
    "$db = new PDO('sqlite::memory:', null, null);",
    "$conn = mysqli_connect($host, $user, $pass, $db);",
    # fetch's `credentials` modes, not credentials
    "credentials: 'same-origin', // a request option",
    "type RequestCredentials = 'omit' | 'include' | 'same-origin';",
    '"credentials": "include"',
    # the text after a string's escaped line break
    'assert out == "Password: \\nScrew you.\\n"',
    'assert out == "Password:\\ninterrupted\\n"',
]


@pytest.mark.parametrize("code", HONEST)
def test_honest_code_is_left_alone(code) -> None:
    assert redact(code) == (code, [])


def test_a_key_block_can_keep_the_line_count() -> None:
    text = f"a = 1\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\nb = 2\n"
    out, kinds = Redactor().redact(text, keep_lines=True)
    assert kinds == ["private_key"]
    assert out.count("\n") == text.count("\n")
    assert out.splitlines()[0] == "a = 1" and out.splitlines()[4] == "b = 2"
    assert PEM_BODY not in out


def test_allow_keeps_a_detected_secret_and_deny_adds_one() -> None:
    r = Redactor(allow=["EXAMPLE"], deny=[r"acme_[0-9a-f]{12}", r"pin=(?P<secret>\d{4,})"])
    example = _j("AKIA", "IOSFODNN7", "EXAMPLE")
    text = f"{example} {AWS} acme_0123456789ab pin=4242 {GH}"
    out, kinds = r.redact(text)
    assert out == (
        f"{example} [REDACTED:aws_access_key] [REDACTED:custom] pin=[REDACTED:custom] "
        "[REDACTED:github_token]"
    )
    assert sorted(kinds) == ["aws_access_key", "custom", "custom", "github_token"]
    assert r.redact(out) == (out, [])
    # a deny pattern that would match the placeholder's own letters never re-matches it
    greedy = Redactor(deny=[r"[A-Z]{8}"])
    once = greedy.redact("CAPITALS here")[0]
    assert once == "[REDACTED:custom] here"
    assert greedy.redact(once) == (once, [])


def test_a_redactor_that_saw_a_line_before_redacts_it_as_a_new_one_would() -> None:
    """Lines are remembered per redactor: seen again, alone or among others, in a diff or not,
    they give the text and kinds a fresh redactor gives; a redactor with other `allow` rules
    keeps its own answers."""
    lines = [
        "password = 's3cr3t-Value-42'",
        f"+token = '{GH}'",
        f"-aws_key = {AWS}",
        "user = request.user",
        f"api_key: {_j('AKIA', 'IOSFODNN7', 'EXAMPLE')}",
        "mysql -u root -phunter2hunter2 db",
    ]
    texts = ["\n".join(lines), *lines, "\n".join(reversed(lines)), "\n".join(lines * 2)]
    for make in (Redactor, lambda: Redactor(allow=["EXAMPLE", "hunter2"])):
        shared = make()
        for text in texts + texts:
            assert shared.redact(text) == make().redact(text)
    assert Redactor().redact(lines[4]) != Redactor(allow=["EXAMPLE"]).redact(lines[4])


# pieces of secrets and of their contexts, glued at random by the property tests below
PARTS = [
    GH,
    AWS,
    RANDOM,
    LETTERS,
    "password=",
    "--password=",
    " ",
    "\n",
    "://u:",
    "@h/",
    "'",
    "x",
    "mysql -p",
    "@tcp(",
    "<password>",
    "</password>",
    '["password"] = "',
    '"',
    "$apr1$",
    "-Dx.password=",
    ":_authToken=",
    "Cookie: sessionid=",
    "?sig=",
    "\u00c0",
    "password: &pw ",
    'variable "db_password" {',
    'default = "',
    '"auth": "',
    "dXNlcjpwYXNz",
    "new PDO(a, 'u', '",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PARTS) | st.text(max_size=12), max_size=12))
def test_redaction_is_idempotent_and_keeps_line_breaks(parts) -> None:
    text = "".join(parts)
    once, _ = redact(text)
    assert redact(once) == (once, [])
    assert once.count("\n") == text.count("\n")
    spaced = redact(" ".join(parts))[0]  # glued to a word, a token has no edge to be found by
    assert GH not in spaced and AWS not in spaced


def _as_diff(text: str) -> list[str]:
    return [text, *(f"{sign}{line}" for line in text.split("\n") for sign in "+- ")]


def test_a_batch_is_redacted_as_each_text_alone() -> None:
    # the batch scan lets a text skip the rules that need what it lacks: it must skip none
    # that would have matched, in any text of the detectors' and honest cases, or as diff lines
    texts = [
        *(t for text, _, _ in DETECTED for t in _as_diff(text)),
        *(t for code in HONEST for t in _as_diff(code)),
        "plain words, nothing to find",
        "",
        None,
        "\n".join(text for text, _, _ in DETECTED),
    ]
    for make in (Redactor, lambda: Redactor(allow=["EXAMPLE", "hunter2"])):
        assert make().redact_texts(texts) == [
            None if t is None else make().redact(t)[0] for t in texts
        ]
    # and it does skip: honest code holds no prefix, plain words no key word either
    absent = Redactor()._absent(texts)
    assert absent[texts.index("plain words, nothing to find")] == 7
    assert all(a & 1 for a, t in zip(absent, texts, strict=True) if t in HONEST)


def test_a_batch_with_deny_patterns_or_a_key_block_skips_nothing() -> None:
    texts = [f"x = {i}" for i in range(20)]
    assert Redactor(deny=["x = 1[0-9]"])._absent(texts) == [0] * 20
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n"
    assert Redactor()._absent([pem, *texts])[0] == 0
    assert Redactor()._absent(["x \udc80 y", *texts]) == [0] * 21  # no scan, every rule runs


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PARTS) | st.text(max_size=12), max_size=10), min_size=16))
def test_any_batch_is_redacted_as_each_text_alone(batch) -> None:
    texts = ["".join(parts) for parts in batch]
    assert Redactor().redact_texts(texts) == [Redactor().redact(t)[0] for t in texts]


def test_config_validates_the_patterns(tmp_path) -> None:
    cfg = Config.from_dict({"redaction": {"allow": ["EXAMPLE"], "deny": [r"acme_\w+"]}})
    assert cfg.redaction.deny == (r"acme_\w+",)
    for bad, why in (
        ({"deny": ["("]}, "not a valid regular expression"),
        ({"deny": ["x*"]}, "matches the empty text"),
        ({"allow": "EXAMPLE"}, "redaction.allow"),
        ({"mask": ["x"]}, "redaction.mask"),
    ):
        with pytest.raises(ConfigError, match=why):
            Config.from_dict({"redaction": bad})


def test_a_bad_pattern_is_one_line_and_exit_1(git_repo: GitRepo) -> None:
    git_repo.commit("init", {"a.py": "x = 1\n"})
    strata = git_repo.path / ".strata"
    strata.mkdir()
    (strata / "config.json").write_text('{"redaction": {"deny": ["(unclosed"]}}')
    done = subprocess.run(
        [sys.executable, "-m", "gitstrata", "index", str(git_repo.path), "--quiet"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "redaction.deny" in done.stderr and "not a valid regular expression" in done.stderr


# ---------------------------------------------------------------- through the pipeline


SETTINGS = f'''import os

GITHUB = "{GH}"


def connect(password: str, token=None):
    token = get_token()
    url = "postgres://app:{LETTERS}@db/shop"
    return url, token
'''


def _planted(repo: GitRepo) -> None:
    repo.commit(
        f"Add settings\n\nCI used {AWS} for the upload.",
        {
            "app/settings.py": SETTINGS,
            "keys/id_rsa": f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\n",
            "deploy.sh": f"mysqldump --password={LETTERS} shop\nexport TEAM=acme_0123456789ab\n",
        },
    )
    repo.remove("keys/id_rsa")
    repo.commit(f"Remove the key; the old signing key {RANDOM} is revoked")


def _all_strings(gen_dir: Path) -> str:
    out = []
    for path in gen_dir.rglob("*.parquet"):
        for row in pq.read_table(path).to_pylist():
            out.append(json.dumps(row, ensure_ascii=False, default=str))
    return "\n".join(out).lower()


def _leaks(text: str, secrets: list[str]) -> list[str]:
    return [s for s in secrets if s.lower() in text.lower()]


SECRETS = [GH, AWS, RANDOM, LETTERS, PEM_BODY]


def test_nothing_planted_is_stored_or_served(git_repo: GitRepo) -> None:
    _planted(git_repo)
    strata = Strata(git_repo.path)
    strata.index()
    gen = strata.store.require_live()
    stored = _all_strings(gen.path)
    assert _leaks(stored, SECRETS) == []
    assert "[redacted:private_key]" in stored  # the removed key block is in history, redacted
    raw = b"".join(p.read_bytes() for p in gen.path.rglob("*") if p.is_file()).lower()
    assert [s for s in SECRETS if s.lower().encode() in raw] == []
    commits = gen.table("commits").to_pylist()
    assert (
        commits[0]["message"] == "Add settings\n\nCI used [REDACTED:aws_access_key] for the upload."
    )
    code = "\n".join(gen.table("symbols").column("code").to_pylist())
    assert "token = get_token()" in code  # honest code kept verbatim
    assert "postgres://app:[REDACTED:url_password]@db/shop" in code
    served = []
    for query in [*SECRETS, "Add settings", "Remove the key", "connect database url"]:
        resp = strata.search(query, 20)
        served += [
            render_search(resp).replace(query, ""),
            resp.model_dump_json().replace(query, ""),
        ]
    for path in ("app/settings.py", "deploy.sh"):
        report = strata.preflight(path)
        served += [render_preflight(report), report.model_dump_json()]
    strata.close()
    text = "\n".join(served)
    assert _leaks(text, SECRETS) == []
    assert "[REDACTED:" in text  # the redacted documents were among the answers


def test_a_secret_typed_into_a_question_is_not_echoed(git_repo: GitRepo) -> None:
    # the answer repeats the question (`query`, `intended_change`): a key pasted into it must
    # come back redacted, in the model, its JSON and the rendered block
    _planted(git_repo)
    with Strata(git_repo.path) as strata:
        strata.index()
        query = f"why does upload fail with {AWS} and --password={LETTERS} token {GH}"
        resp = strata.search(query, 5)
        report = strata.preflight("app/settings.py", None, f"rotate {GH} in settings")
        served = [
            resp.query,
            resp.model_dump_json(),
            render_search(resp),
            report.intended_change or "",
            report.model_dump_json(),
            render_preflight(report),
        ]
    text = "\n".join(served)
    assert _leaks(text, [AWS, LETTERS, GH]) == []
    assert resp.query.startswith("why does upload fail with [REDACTED:aws_access_key]")
    assert report.intended_change == "rotate [REDACTED:github_token] in settings"


def test_a_question_is_redacted_with_the_teams_deny_patterns(git_repo: GitRepo) -> None:
    # the echo uses the repository's own patterns too, not only the built-in rules
    _planted(git_repo)
    (git_repo.path / ".strata").mkdir(exist_ok=True)
    (git_repo.path / ".strata" / "config.json").write_text(
        json.dumps({"redaction": {"deny": [r"acme_[0-9a-f]{12}"]}})
    )
    team = "acme_fedcba987654"
    with Strata(git_repo.path) as strata:
        strata.index()
        resp = strata.search(f"where is {team} read", 5)
        report = strata.preflight("app/settings.py", None, f"rotate {team}")
    assert team not in resp.model_dump_json() + report.model_dump_json()
    assert report.intended_change == "rotate [REDACTED:custom]"


def test_status_counts_redactions_in_text_and_json(git_repo: GitRepo) -> None:
    _planted(git_repo)
    Strata(git_repo.path).index()
    info = Strata(git_repo.path).status()["redactions"]
    assert info["by_table"]["commits"]["aws_access_key"] == 1
    assert info["by_table"]["symbols"]["github_token"] == 1
    # the key block is in two commit excerpts: the commit adding it and the one removing it
    assert info["by_kind"]["private_key"] == 2
    assert info["total"] == sum(info["by_kind"].values())
    cli = [sys.executable, "-m", "gitstrata", "-C", str(git_repo.path), "status"]
    as_json = subprocess.run([*cli, "--json"], capture_output=True, text=True, check=True)
    assert json.loads(as_json.stdout)["redactions"] == info
    plain = subprocess.run(cli, capture_output=True, text=True, check=True)
    assert f"secrets redacted: {info['total']} (" in plain.stdout
    assert f"github_token {info['by_kind']['github_token']}" in plain.stdout
    # one line however many kinds, in a pipe as on a terminal (not folded at 80 columns)
    kinds = ", ".join(f"{k} {n}" for k, n in info["by_kind"].items())
    assert f"  secrets redacted: {info['total']} ({kinds})\n" in plain.stdout


def test_changing_the_patterns_rebuilds_what_they_cover(git_repo: GitRepo) -> None:
    _planted(git_repo)
    strata = Strata(git_repo.path)
    strata.index()
    team = "acme_0123456789ab"
    assert team in _all_strings(strata.store.require_live().path)
    (git_repo.path / ".strata" / "config.json").write_text(
        json.dumps({"redaction": {"deny": [r"acme_[0-9a-f]{12}"]}})
    )
    strata.index()
    gen = strata.store.require_live()
    assert team not in _all_strings(gen.path)
    assert gen.manifest.stages["chunk"].stats["redactions"]["symbols"]["custom"] == 1
    assert gen.manifest.stages["capsule"].stats["mode"] == "full"
    strata.close()


def test_a_new_commit_is_redacted_incrementally(git_repo: GitRepo) -> None:
    git_repo.commit("init", {"a.py": "x = 1\n"})
    strata = Strata(git_repo.path)
    strata.index()
    git_repo.commit(f"Add the key {GH}", {"a.py": f'x = 1\nTOKEN = "{GH}"\n'})
    strata.index()
    gen = strata.store.require_live()
    assert gen.manifest.stages["capsule"].stats["mode"] == "incremental"
    assert GH.lower() not in _all_strings(gen.path)
    counts = count_placeholders(gen.table("commits").column("message").to_pylist())
    assert counts == {"github_token": 1}
    strata.close()


def test_a_recorded_failure_is_redacted_in_the_journal_and_its_documents(git_repo: GitRepo) -> None:
    git_repo.commit("init", {"app.py": "def deploy():\n    return 1\n"})
    strata = Strata(git_repo.path)
    strata.index()
    strata.record_failure(
        "app.py",
        error_trace=f"auth failed for mongodb://admin:{LETTERS}@mongo/shop",
        notes=f"tried the CI token {GH}",
        command=f"deploy --password={LETTERS}",
        exit_code=1,
    )
    journal = b"".join(p.read_bytes() for p in (strata.index_dir / "journal").glob("*.jsonl"))
    assert LETTERS.encode() not in journal and GH.encode() not in journal
    assert b"[REDACTED:password_assignment]" in journal
    strata.index()  # the record becomes a document
    gen = strata.store.require_live()
    assert _leaks(_all_strings(gen.path), [LETTERS, GH]) == []
    assert gen.manifest.stages["documents"].stats["redactions"]["journal"]["github_token"] == 1
    strata.close()


def test_the_teams_patterns_apply_when_a_failure_is_recorded(git_repo: GitRepo) -> None:
    # `redaction.deny` / `allow` hold at record time, through the API and `exec`, not only
    # when the index is built
    git_repo.commit("init", {"app.py": "def deploy():\n    return 1\n"})
    (git_repo.path / ".strata").mkdir(exist_ok=True)
    (git_repo.path / ".strata" / "config.json").write_text(
        json.dumps({"redaction": {"deny": [r"acme_[0-9a-f]{12}"], "allow": ["EXAMPLE"]}})
    )
    team, example = "acme_0123456789ab", _j("AKIA", "IOSFODNN7", "EXAMPLE")
    with Strata(git_repo.path) as strata:
        strata.index()
        strata.record_failure("app.py", notes=f"the team key {team}, the doc key {example}")
        code = strata.exec(
            [sys.executable, "-c", f"import sys; print('login {team}'); sys.exit(3)"],
            notes=f"again {team}",
        )
        journal = b"".join(p.read_bytes() for p in strata.journal_dir.glob("*.jsonl"))
    assert code == 3
    assert team.encode() not in journal
    assert journal.count(b"[REDACTED:custom]") >= 3  # the notes of both, the exec output
    assert example.encode() in journal  # allowed: kept as written


def test_redaction_is_part_of_the_stages_code_version() -> None:
    for adapter in ("gitstrata.pipeline.history", "gitstrata.pipeline.tree"):
        found = module_sources(adapter)
        assert {"gitstrata.store.redact", "gitstrata.store.secret_formats"} <= set(found)


# ---------------------------------------------------------------- permissions


def _modes(root: Path) -> dict[str, int]:
    out = {".": stat.S_IMODE(root.stat().st_mode)}
    for p in root.rglob("*"):
        if not p.is_symlink():
            out[p.relative_to(root).as_posix()] = stat.S_IMODE(p.stat().st_mode)
    return out


@pytest.mark.parametrize("umask", [0o022, 0o000, 0o277])
def test_everything_in_the_index_folder_is_owner_only(git_repo: GitRepo, umask: int) -> None:
    git_repo.commit("init", {"a.py": "def f():\n    return 1\n"})
    old = os.umask(umask)
    try:
        strata = Strata(git_repo.path)
        strata.index()
        Journal(strata.index_dir / "journal").append("notes", {"text": "hello"})
        TaskLog(strata.index_dir).repair()  # the task snapshot, as `doctor` writes it
        git_repo.commit("more", {"a.py": "def f():\n    return 2\n"})
        strata.index()  # carried and new artifacts alike
        strata.close()
    finally:
        os.umask(old)
    modes = _modes(git_repo.path / ".strata")
    assert modes["journal/notes.jsonl"] == 0o600 and modes["journal"] == 0o700
    assert modes["index.lock"] == 0o600 and modes["CURRENT"] == 0o600
    assert modes["snapshots/tasks.json"] == 0o600 and modes["snapshots"] == 0o700
    dirs = [n for n in modes if (git_repo.path / ".strata" / n).is_dir()]
    assert {modes[n] for n in dirs} == {0o700}
    files = [n for n in modes if (git_repo.path / ".strata" / n).is_file()]
    assert {modes[n] for n in files} == {0o600}


def test_an_older_readable_store_is_tightened(git_repo: GitRepo) -> None:
    git_repo.commit("init", {"a.py": "x = 1\n"})
    store = git_repo.path / ".strata"
    (store / "journal").mkdir(parents=True)
    os.chmod(store, 0o755)
    os.chmod(store / "journal", 0o755)
    old = store / "journal" / "notes.jsonl"
    old.write_text('{"id":1,"ts":"2024-01-01T00:00:00Z"}\n')
    os.chmod(old, 0o644)
    Journal(store / "journal").append("notes", {"text": "x"})
    Strata(git_repo.path).index()
    assert stat.S_IMODE(store.stat().st_mode) == 0o700
    assert stat.S_IMODE((store / "journal").stat().st_mode) == 0o700
    assert stat.S_IMODE(old.stat().st_mode) == 0o600


# ---------------------------------------------------------------- the benchmark, end to end


@pytest.mark.slow
def test_the_benchmark_finds_every_planted_secret_redacted(tmp_path) -> None:
    from gitstrata.benchmarks.redaction import LOCATIONS, markdown, measure

    res = measure(tmp_path)  # the real index, the API and `gitstrata mcp` over stdio
    assert res["planted"] >= 20
    assert res["recall"] == dict.fromkeys(LOCATIONS, 1.0), res["leaked"]
    assert res["decoys_redacted"] == 0, res["decoys_redacted_list"]
    assert res["served_answers"]["mcp"] > 0 and res["served_placeholders"] > 0
    # with every detection allowed the same probes see the secrets: they can fail
    assert res["control_recall"]["tables"] == 0.0 and res["control_recall"]["fulltext"] == 0.0
    assert res["control_recall"]["api_search"] < 0.1
    assert "| mcp | 100.0 % | - |" in markdown(res)


@pytest.mark.parametrize(
    "line",
    [
        f"password = {LETTERS}",
        f"password: {LETTERS}",
        f"ldapsearch -x -w {LETTERS} -b dc=x",
        f"machine api.example.com login bob password {LETTERS}",
        f'options.Password = "{LETTERS}";',
        f"ENV DB_PASSWORD {LETTERS}",
    ],
)
def test_a_diffs_added_and_removed_lines_are_redacted_like_the_line(line: str) -> None:
    # a commit's diff excerpt keeps each line's sign: `-password = ...` read as a flag, or as
    # nothing, kept the secret of every removed line
    for sign in ("", "+", "-", " "):
        out, kinds = redact(f"{sign}{line}\n-unchanged = 1")
        assert LETTERS not in out and kinds, (sign, out)
        assert out.startswith(sign) and out.endswith("\n-unchanged = 1")


def test_a_secret_glued_to_a_token_is_found_in_the_same_call() -> None:
    # the hash and the property start a word only once the token before them is a placeholder:
    # redaction goes on until a pass finds nothing, so the result is what redacting it again gives
    for text in (
        _j(RANDOM, "$apr1$", "r31.....$HqJZimcKQFAMYayBlzkrA/"),
        _j("x=", LETTERS, "-Dx.password=", RANDOM[:12], "z"),
        _j("setPassword(", AWS, ":_authToken=", "q8Zr4Kw2"),
    ):
        once, kinds = redact(text)
        assert redact(once) == (once, []), once
        assert kinds


def test_a_secret_inside_a_refused_keys_value_is_found() -> None:
    # the first key name (glued to a random token by a letter) is refused; its value holds a
    # key and a secret of their own, which a search resuming after the whole value missed
    token = "Qm3Xr8Lw2Nv5Tb9Yc4Hd7Jf1Kp6Sg0Ea"
    once, kinds = redact(f"{token}\u00c0password=password={token}")
    assert token not in once
    assert sorted(kinds) == ["high_entropy_token", "password_assignment"]
    assert redact(once) == (once, [])


def test_a_chain_of_refused_keys_is_searched_in_linear_time() -> None:
    # every value is searched again after its refused key a few times in a row, not each time
    text = "Xpassword=" * 20_000
    assert redact(text) == (text, [])


def test_a_private_key_body_line_is_matched_in_linear_time() -> None:
    # a truncated key block whose next "line" is blanks around a diff sign, then a character
    # no body holds: split every way between the blanks, the old pattern took minutes
    from gitstrata.store.redact import _PEM_BODY_LINE

    blanks = " \t" * 100_000
    assert _PEM_BODY_LINE.match(blanks + "+" + blanks + "!") is None
    assert _PEM_BODY_LINE.match(blanks + "+" + "QUJD" * 50_000 + blanks) is not None
    text = "-----BEGIN RSA PRIVATE KEY-----\n+MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\n" + blanks + "!"
    out, kinds = redact(text)
    assert kinds == ["private_key"] and "MIIEow" not in out and out.endswith(blanks + "!")


R = "[REDACTED:password_assignment]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a YAML anchor stands between the key and its value
        ("password: &db_pass s3cr3tValue99", f"password: &db_pass {R}"),
        ('db_password: &pw "hunter2hunter2"', f'db_password: &pw "{R}"'),
        # HCL: the variable's name says what its default is
        (
            'variable "db_password" {\n  type    = string\n  default = "Sup3rS3cretPw"\n}',
            f'variable "db_password" {{\n  type    = string\n  default = "{R}"\n}}',
        ),
        (
            'variable "admin_password" { default = "Adm1nPassw0rd" }',
            f'variable "admin_password" {{ default = "{R}" }}',
        ),
        # a Docker config's `auth`: base64 of user:password
        (
            '{"auths": {"registry.example.com": {"auth": "dXNlcjpwYXNz"}}}',
            f'{{"auths": {{"registry.example.com": {{"auth": "{R}"}}}}}}',
        ),
        # a database client's password argument
        ("$db = new PDO($dsn, 'root', 'Rootpw2024');", f"$db = new PDO($dsn, 'root', '{R}');"),
        (
            "$conn = mysqli_connect('localhost', 'admin', 'Adm1nPw!', 'shop');",
            f"$conn = mysqli_connect('localhost', 'admin', '{R}', 'shop');",
        ),
        (
            '$m = new mysqli("127.0.0.1", "user", "s3cretpw", "db");',
            f'$m = new mysqli("127.0.0.1", "user", "{R}", "db");',
        ),
    ],
)
def test_a_value_its_key_names_from_elsewhere_is_found(text: str, expected: str) -> None:
    assert redact(text) == (expected, ["password_assignment"])
    assert redact(expected) == (expected, [])


# one line per alternative of `_COMMAND_SECRET`, in mixed case
_COMMANDS = [
    "//registry.npmjs.org/:_authToken=Xq7vLm2Rt9",
    "MySQL -u root -pXq7vLm2Rt9 db",
    "mariadb-dump -u app -pXq7vLm2Rt9",
    "SSHPASS -p Xq7vLm2Rt9 ssh host",
    "docker Login -u me -p Xq7vLm2Rt9 reg",
    "curl -s --user admin:Xq7vLm2Rt9 http://x",
    "WGET -u bob:Xq7vLm2Rt9 http://x",
    "machine api.example.com login bob password Xq7vLm2Rt9",
    "CREATE USER app IDENTIFIED BY 'Xq7vLm2Rt9'",
    "ALTER ROLE app WITH ENCRYPTED PASSWORD 'Xq7vLm2Rt9'",
    "requirepass Xq7vLm2Rt9",
    "  MasterAuth Xq7vLm2Rt9",
    "az login -u a@b.c -p Xq7vLm2Rt9",
    'wpa_psk="Xq7vLm2Rt9"',
    "ldapsearch -x -D cn=admin -w Xq7vLm2Rt9",
    "ZIP -r out.zip dir -P Xq7vLm2Rt9",
    "sqlcmd -S host -U sa -P Xq7vLm2Rt9",
    "7za a out.7z dir -pXq7vLm2Rt9",
    "smbclient //h/s -U user%Xq7vLm2Rt9",
    "htpasswd -b -c .htpasswd user Xq7vLm2Rt9",
    "keytool -keystore k.jks -storepass Xq7vLm2Rt9",
    "openssl pkcs12 -passin pass:Xq7vLm2Rt9",
    "ssh-keygen -t ed25519 -N 'Xq7vLm2Rt9'",
    "redis-cli -h host -a Xq7vLm2Rt9",
    "mongosh db -u u -p Xq7vLm2Rt9",
    "java -Ddb.API_KEY=Xq7vLm2Rt9 -jar app.jar",
    "java -Dapp.token=Xq7vLm2Rt9 -jar app.jar",
    "env MY_API_KEY Xq7vLm2Rt9",
]


def test_a_command_line_that_holds_a_secret_is_never_skipped():
    """`_may_hold_command` is only a shortcut: every line `_COMMAND_SECRET` matches passes it."""
    from gitstrata.store.redact import _COMMAND_SECRET, _may_hold_command

    for line in _COMMANDS:
        assert _COMMAND_SECRET.search(line), line
        assert _may_hold_command(line), line


_PIECES = [
    "mysql", "-p", "-P", "-u", "--user", "login", "docker", "curl", "env", "key", "api", "-D",
    "password", "PASS", "with", "create", "user", "role", "identified", "by", "'", '"', "=",
    ":", "%", "_", "machine", "a.b", "psk", "7z", "zip", "mongo", "token", "secret", " ", "\t",
    "x1y2z3", "storepass", "pass:", ":_auth=", "ssh-keygen", "-N", "redis-cli", "-a", "-w",
    "ldapadd", "smbclient", "htpasswd", "-b", "Key", "abcd", "K", "\u212a",
]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14))
def test_the_command_shortcut_never_skips_a_match(pieces):
    from gitstrata.store.redact import _COMMAND_SECRET, _may_hold_command

    line = "".join(pieces)
    if _COMMAND_SECRET.search(line):
        assert _may_hold_command(line)


def test_the_journal_s_documents_are_redacted_as_each_text_alone(make_repo) -> None:
    # `journal_records` redacts every title and body as one batch: the same texts as one at a
    # time, with a team's patterns of today (a deny pattern the records were not written with)
    from gitstrata.pipeline.retrieval import journal_records

    repo = make_repo()
    repo.commit("add the module", {"m.py": "def f():\n    return 1\n"})
    with Strata(repo.path) as strata:
        for i in range(20):
            strata.record_failure(
                "m.py",
                f"--- a/m.py\n+++ b/m.py\n@@ -2 +2 @@\n-    return 1\n+    return {i}  # fast path\n",
                f"FAILED tests/test_m.py::test_{i} - AssertionError: speed it up broke f",
                notes=f"tried to speed it up, step {i}, with {GH if i % 5 == 0 else 'no key'}",
                symbol_name="f",
            )
        journal = Journal(strata.journal_dir)
    raw = journal_records(journal, Redactor(allow=[r"[\s\S]"]))  # every detected secret allowed
    # without a deny pattern the batch's scan lets texts skip rules; with one, none is skipped
    for team in (Redactor(allow=["no key"]), Redactor(allow=["no key"], deny=["speed it up"])):
        got = journal_records(journal, team)
        assert len(got) == 20
        assert [(r["title"], r["body"]) for r in got] == [
            (team.redact(r["title"])[0], team.redact(r["body"])[0]) for r in raw
        ]
        assert not any(GH in r["title"] for r in got)
    assert not any("speed it up" in r["title"] + r["body"] for r in got)
