"""Provider credential formats the redactor recognises by shape alone (no key name needed).

Each entry is (kind, literal prefixes, pattern): the pattern runs only on text that contains one
of the prefixes, and the whole match is the secret. A pattern starting with `\\b` has that
boundary checked by the redactor instead (see `redact._literal_first`). Adding a format here
changes the code version of every stage that redacts, so existing indexes are rebuilt.
"""

from __future__ import annotations

import re

from .regexcache import compile_pattern

TOKEN_FORMATS: list[tuple[str, tuple[str, ...], re.Pattern[str]]] = [
    (
        "aws_access_key",
        ("AKIA", "ASIA", "ABIA", "ACCA", "AIDA", "AROA", "AGPA", "ANPA", "ANVA", "APKA"),
        compile_pattern(r"\b(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AGPA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b"),
    ),
    (
        "github_token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        compile_pattern(r"\bgh[pousr]_[A-Za-z0-9]{30,255}\b"),
    ),
    ("github_token", ("github_pat_",), compile_pattern(r"\bgithub_pat_[A-Za-z0-9_]{40,255}\b")),
    (
        "gitlab_token",
        ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "gloas-", "glsoat-", "glffct-"),
        compile_pattern(r"\bgl(?:pat|dt|ptt|rt|cbt|oas|soat|ffct)-[\w\-]{20,}"),
    ),
    (
        "slack_token",
        ("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-"),
        compile_pattern(r"\bxox[abposre]-(?:[A-Za-z0-9]+-){1,5}[A-Za-z0-9]+\b"),
    ),
    ("slack_token", ("xapp-",), compile_pattern(r"\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}\b")),
    (
        "slack_webhook",
        ("hooks.slack.com",),
        compile_pattern(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+"),
    ),
    (
        "discord_webhook",
        ("discord.com/api/webhooks/", "discordapp.com/api/webhooks/"),
        compile_pattern(
            r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w\-]{30,}"
        ),
    ),
    ("square_token", ("sq0atp-", "sq0csp-"), compile_pattern(r"\bsq0(?:atp|csp)-[\w\-]{22,60}")),
    (
        "stripe_key",
        ("_live_", "_test_"),
        compile_pattern(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ),
    ("stripe_webhook_secret", ("whsec_",), compile_pattern(r"\bwhsec_[A-Za-z0-9]{24,}\b")),
    ("anthropic_key", ("sk-ant-",), compile_pattern(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    (
        "openai_key",
        ("sk-",),
        compile_pattern(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ),
    ("google_api_key", ("AIza",), compile_pattern(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])")),
    ("google_oauth_token", ("ya29.",), compile_pattern(r"\bya29\.[0-9A-Za-z_\-]{20,}")),
    ("google_client_secret", ("GOCSPX-",), compile_pattern(r"\bGOCSPX-[0-9A-Za-z_\-]{28}")),
    ("npm_token", ("npm_",), compile_pattern(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("pypi_token", ("pypi-",), compile_pattern(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{20,}")),
    ("huggingface_token", ("hf_",), compile_pattern(r"\bhf_[A-Za-z]{34}\b")),
    ("sendgrid_key", ("SG.",), compile_pattern(r"\bSG\.[\w\-]{16,32}\.[\w\-]{16,64}")),
    ("twilio_key", ("SK",), compile_pattern(r"\bSK[0-9a-f]{32}\b")),
    ("mailgun_key", ("key-",), compile_pattern(r"\bkey-[0-9a-z]{32}\b")),
    (
        "shopify_token",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
        compile_pattern(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ),
    (
        "digitalocean_token",
        ("dop_v1_", "doo_v1_", "dor_v1_"),
        compile_pattern(r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    ),
    ("databricks_token", ("dapi",), compile_pattern(r"\bdapi[a-f0-9]{32}(?:-\d)?\b")),
    ("docker_token", ("dckr_pat_",), compile_pattern(r"\bdckr_pat_[A-Za-z0-9_\-]{27,}")),
    ("postman_key", ("PMAK-",), compile_pattern(r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b")),
    ("vault_token", ("hvs.", "hvb."), compile_pattern(r"\bhv[sb]\.[A-Za-z0-9_\-]{24,}")),
    ("grafana_token", ("glc_", "glsa_"), compile_pattern(r"\b(?:glc|glsa)_[A-Za-z0-9_+/=\-]{32,}")),
    ("groq_key", ("gsk_",), compile_pattern(r"\bgsk_[A-Za-z0-9]{40,}\b")),
    ("age_secret_key", ("AGE-SECRET-KEY-",), compile_pattern(r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b")),
    ("telegram_bot_token", (":AA",), compile_pattern(r"\b\d{8,10}:AA[0-9A-Za-z_\-]{33}\b")),
    (
        "azure_storage_key",
        ("AccountKey=",),
        compile_pattern(r"(?<=AccountKey=)[A-Za-z0-9+/]{80,}={0,2}"),
    ),
    (
        "jwt",
        ("eyJ",),
        compile_pattern(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ),
]
