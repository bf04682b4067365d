"""Provider credential formats the redactor recognises by shape alone (no key name needed).

Each entry is (kind, literal prefixes, pattern): the pattern runs only on text that contains one
of the prefixes, and the whole match is the secret. A pattern starting with `\\b` has that
boundary checked by the redactor instead (see `redact._literal_first`). Adding a format here
changes the code version of every stage that redacts, so existing indexes are rebuilt.
"""

from __future__ import annotations

import re

TOKEN_FORMATS: list[tuple[str, tuple[str, ...], re.Pattern[str]]] = [
    (
        "aws_access_key",
        ("AKIA", "ASIA", "ABIA", "ACCA", "AIDA", "AROA", "AGPA", "ANPA", "ANVA", "APKA"),
        re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AGPA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b"),
    ),
    (
        "github_token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,255}\b"),
    ),
    ("github_token", ("github_pat_",), re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,255}\b")),
    (
        "gitlab_token",
        ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "gloas-", "glsoat-", "glffct-"),
        re.compile(r"\bgl(?:pat|dt|ptt|rt|cbt|oas|soat|ffct)-[\w\-]{20,}"),
    ),
    (
        "slack_token",
        ("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-"),
        re.compile(r"\bxox[abposre]-(?:[A-Za-z0-9]+-){1,5}[A-Za-z0-9]+\b"),
    ),
    ("slack_token", ("xapp-",), re.compile(r"\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}\b")),
    (
        "slack_webhook",
        ("hooks.slack.com",),
        re.compile(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+"),
    ),
    (
        "stripe_key",
        ("_live_", "_test_"),
        re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ),
    ("stripe_webhook_secret", ("whsec_",), re.compile(r"\bwhsec_[A-Za-z0-9]{24,}\b")),
    ("anthropic_key", ("sk-ant-",), re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("openai_key", ("sk-",), re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")),
    ("google_api_key", ("AIza",), re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])")),
    ("google_oauth_token", ("ya29.",), re.compile(r"\bya29\.[0-9A-Za-z_\-]{20,}")),
    ("google_client_secret", ("GOCSPX-",), re.compile(r"\bGOCSPX-[0-9A-Za-z_\-]{28}")),
    ("npm_token", ("npm_",), re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("pypi_token", ("pypi-",), re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{20,}")),
    ("huggingface_token", ("hf_",), re.compile(r"\bhf_[A-Za-z]{34}\b")),
    ("sendgrid_key", ("SG.",), re.compile(r"\bSG\.[\w\-]{16,32}\.[\w\-]{16,64}")),
    ("twilio_key", ("SK",), re.compile(r"\bSK[0-9a-f]{32}\b")),
    ("mailgun_key", ("key-",), re.compile(r"\bkey-[0-9a-z]{32}\b")),
    (
        "shopify_token",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
        re.compile(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ),
    (
        "digitalocean_token",
        ("dop_v1_", "doo_v1_", "dor_v1_"),
        re.compile(r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    ),
    ("databricks_token", ("dapi",), re.compile(r"\bdapi[a-f0-9]{32}(?:-\d)?\b")),
    ("docker_token", ("dckr_pat_",), re.compile(r"\bdckr_pat_[A-Za-z0-9_\-]{27,}")),
    ("postman_key", ("PMAK-",), re.compile(r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b")),
    ("vault_token", ("hvs.", "hvb."), re.compile(r"\bhv[sb]\.[A-Za-z0-9_\-]{24,}")),
    ("grafana_token", ("glc_", "glsa_"), re.compile(r"\b(?:glc|glsa)_[A-Za-z0-9_+/=\-]{32,}")),
    ("groq_key", ("gsk_",), re.compile(r"\bgsk_[A-Za-z0-9]{40,}\b")),
    ("age_secret_key", ("AGE-SECRET-KEY-",), re.compile(r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b")),
    ("telegram_bot_token", (":AA",), re.compile(r"\b\d{8,10}:AA[0-9A-Za-z_\-]{33}\b")),
    (
        "azure_storage_key",
        ("AccountKey=",),
        re.compile(r"(?<=AccountKey=)[A-Za-z0-9+/]{80,}={0,2}"),
    ),
    (
        "jwt",
        ("eyJ",),
        re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ),
]
