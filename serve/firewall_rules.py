"""The injection patterns of the context firewall, as data.

Each rule is a case-insensitive regex matched on an NFKC-normalised view of the text, plus the
literal triggers that make it cheap: every match contains one of the rule's `triggers` (lower
case) at most `reach` characters after the match starts, so the firewall only tries the regex
near a trigger. Adding an alternative means adding its trigger too; `tests/test_firewall.py`
checks every payload class against its rule.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """An injection pattern. Every match contains one of `triggers` (lower case) at most
    `reach` characters after its start, so the regex only runs near a trigger."""

    name: str
    why: str
    source: str
    triggers: tuple[str, ...]
    reach: int = 40
    extend: bool = False  # redact to the end of the sentence: the rest is the attacker's too
    negatable: bool = False  # "never force push to main" is advice, not an order

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        # compiled on the first text holding a trigger: compiling every rule costs a one-shot
        # process tens of milliseconds, and most texts hold no trigger of most rules
        return re.compile(self.source, re.IGNORECASE | re.MULTILINE)


def _rule(
    name: str,
    why: str,
    *alternatives: str,
    triggers: tuple[str, ...],
    reach: int = 40,
    extend: bool = False,
    negatable: bool = False,
) -> Rule:
    body = "|".join(f"(?:{a})" for a in alternatives)
    return Rule(name, why, body, triggers, reach, extend, negatable)


_DET = r"(?:(?:the|all|any|every|each|your|my|our|these|those|of|its)\s+){0,3}"
_SECRET = (
    r"(?:api[\s_-]?keys?|tokens?|secrets?|credentials?|passwords?|passphrases?|private\s+keys?|"
    r"ssh\s+keys?|access\s+keys?|session\s+cookies?|cookies|\.env\b|env(?:ironment)?\s+"
    r"(?:file|var(?:iable)?s)|id_rsa|\.npmrc|\.pypirc|\.netrc|aws\s+credentials)"
)
_AGENT = r"(?:ai|llms?|language\s+models?|assistants?|agents?|copilot|claude|chatgpt|gpt|cursor|coding\s+agents?)"

RULES: tuple[Rule, ...] = (
    _rule(
        "instruction_override",
        "text telling the model to drop its instructions",
        r"\b(?:ignore|disregard|forget|override|bypass|discard)\s+"
        + _DET
        + r"(?:previous|prior|preceding|earlier|above|former|foregoing|original|initial|system|"
        r"developer|safety|existing)\s+(?:instructions?|prompts?|rules|directions?|directives?|"
        r"guidelines|guidance|context|messages?|guardrails|constraints|commands|orders|policies)",
        r"\b(?:ignore|disregard|forget)\s+(?:all|everything)\s+(?:you\s+(?:were|have\s+been)\s+"
        r"told|(?:that\s+)?(?:was\s+)?(?:said\s+|written\s+)?(?:above|before))",
        r"\b(?:ignore|disregard)\s+(?:all\s+|any\s+)?(?:your|the)\s+(?:instructions|rules|"
        r"guidelines|system\s+prompt)",
        triggers=("ignore", "disregard", "forget", "override", "bypass", "discard"),
        reach=0,
        extend=True,
    ),
    _rule(
        "role_override",
        "text assigning the model a new role or rules",
        r"\byou\s+are\s+(?:now|no\s+longer)\s+(?:an?\s+|the\s+|in\s+)?(?:[\w-]+\s+){0,3}?"
        r"(?:ai|assistant|model|agent|bot|persona|character|dan|jailbroken|unrestricted|"
        r"unfiltered|uncensored|(?:developer|god|debug)\s+mode)\b",
        r"\bfrom\s+now\s+on,?\s+(?:you\s+(?:are|will|must|shall|should)|act|respond|behave)\b",
        r"\bnew\s+(?:system\s+)?(?:instructions?|prompt|rules)\s*:",
        r"\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+)?"
        r"(?:unrestricted|unfiltered|uncensored|jailbroken|dan)\b",
        r"\bsystem\s+prompt\s*(?::|override|update)",
        triggers=(
            "now",
            "longer",
            "instruction",
            "prompt",
            "rules",
            "unrestricted",
            "unfiltered",
            "uncensored",
            "jailbroken",
            "dan",
        ),
        reach=80,
        extend=True,
    ),
    _rule(
        "fake_delimiter",
        "a chat-template or tool-call delimiter that could end the served block early",
        r"<\|\s*(?:im_start|im_end|im_sep|endoftext|startoftext|system|user|assistant|eot_id|"
        r"eom_id|start_header_id|end_header_id|begin_of_text|end_of_text|fim_\w+|tool_call|"
        r"tool_response)\s*\|>",
        r"\[/?(?:INST|SYS)\]",
        r"<<\s*/?SYS\s*>>",
        r"</?\s*(?:tool_result|tool_use|tool_call|tool_response|tool_output|function_results?|"
        r"function_calls?|function_output|system[-_](?:prompt|message|reminder)|im_start|im_end|"
        r"antml:[\w-]+)\b[^>\n]{0,80}>",
        r"^[ \t>*+\-#/]{0,12}(?:human|assistant)[ \t]*:",
        r"^[ \t>]{0,12}#{1,6}[ \t]*(?:system|instructions?|assistant|user|human)"
        r"(?:[ \t]+(?:prompt|message))?[ \t]*:",
        triggers=(
            "<|",
            "inst]",
            "sys]",
            "<<",
            "tool_",
            "function_",
            "system-",
            "system_",
            "im_start",
            "im_end",
            "antml:",
            "human",
            "assistant",
            "system",
            "instruction",
            "user",
        ),
        reach=20,
    ),
    _rule(
        "image_beacon",
        "a remote image whose URL carries data (fetching it leaks that data)",
        r"!\[[^\]\n]{0,300}\]\(\s*<?(?:https?:)?//[^\s)>]*[?#][^\s)>]*>?"
        r"(?:\s+[\"'][^\"'\n]*[\"'])?\s*\)",
        r"<img\b[^>\n]*\bsrc\s*=\s*[\"']?(?:https?:)?//[^\"'\s>]*\?[^\"'\s>]*[^>\n]*>?",
        triggers=("![", "<img"),
        reach=0,
    ),
    _rule(
        "camo_proxy",
        "an image-proxy URL (a known exfiltration channel)",
        r"(?:https?:)?//camo\.githubusercontent\.com/[^\s)\]\"'>]*",
        triggers=("camo.githubusercontent",),
        reach=10,
    ),
    _rule(
        "secret_exfiltration",
        "text asking to send secrets somewhere",
        r"\b(?:send|post|upload|transmit|forward|leak|exfiltrate|e-?mail|paste|submit|share)\b"
        r"\s+(?:(?:the|all|any|your|my|our|its|their|contents?|values?|of)\s+){0,4}"
        r"(?:[\w.-]+\s+){0,2}?" + _SECRET + r"[^\n.]{0,80}?\b(?:to|into|via)\b",
        r"\b(?:cat|print|echo|output|reveal|display|dump|exfiltrate)\s+(?:out\s+)?(?:the\s+)?"
        r"(?:contents?\s+of\s+)?(?:~/\.ssh/id_\w+|~/\.aws/credentials|/etc/(?:passwd|shadow)|"
        r"~/\.netrc|~/\.npmrc|~/\.pypirc|\$\{?\w*(?:TOKEN|SECRET|API_KEY|PASSWORD)\w*\}?)",
        triggers=(
            "send",
            "post",
            "upload",
            "transmit",
            "forward",
            "leak",
            "exfiltrate",
            "mail",
            "paste",
            "submit",
            "share",
            "cat",
            "print",
            "echo",
            "output",
            "reveal",
            "display",
            "dump",
        ),
        reach=2,
        extend=True,
    ),
    _rule(
        "pipe_to_shell",
        "a download piped straight into a shell",
        r"\b(?:curl|wget)\b[^\n|;]{0,300}\|\s*(?:sudo\s+)?(?:-\w+\s+)*(?:ba|z|k|da|fi)?sh\b",
        r"\b(?:curl|wget)\b[^\n|;]{0,300}\|\s*(?:sudo\s+)?python3?\b",
        r"\b(?:ba|z)?sh\s+(?:-c\s+)?[\"']?(?:\$\(|<\()\s*(?:curl|wget)\b",
        r"\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|]{0,300}\|\s*iex\b",
        r"\biex\s*\(\s*(?:new-object\s+net\.webclient|iwr|irm|invoke-webrequest)",
        triggers=("curl", "wget", "iwr", "irm", "invoke-", "iex"),
        reach=30,
        extend=True,
    ),
    _rule(
        "destructive_order",
        "an order to destroy files, history or data",
        r"\brm\s+(?:-[a-z]*r[a-z]*f[a-z]*|-[a-z]*f[a-z]*r[a-z]*|-r\s+-f|-f\s+-r|--recursive\s+"
        r"--force|--force\s+--recursive)\s+(?:--no-preserve-root\s+)?(?:/\*?|~/?|\$home/?|\*|"
        r"\.\.?/?)(?=[\s;&|'\"`)]|$)",
        r"\b(?:delete|remove|wipe|destroy|erase|nuke|purge)\s+(?:(?:the|this|your|our|entire|"
        r"whole|all|of)\s+)*(?:repo|repository|repositories|codebase|source\s+tree|database|"
        r"production\s+(?:data(?:base)?|db)|git\s+history|\.git(?:\s+(?:folder|directory))?|home"
        r"\s+directory|all\s+(?:files|data|branches|backups))\b",
        r"\bforce[\s-]?push(?:es|ed|ing)?\b[^\n.]{0,40}?\b(?:main|master|production|prod|"
        r"release|trunk)\b",
        r"\bgit\s+push\s+(?:[^\n;|&]*\s)?(?:-f|--force(?:-with-lease)?)\b[^\n;|&]*\b(?:main|"
        r"master)\b",
        r"\b(?:please|now|must|should|then|immediately|also|first|go\s+ahead\s+and|make\s+sure\s+"
        r"(?:to|you)|you\s+(?:must|should|need\s+to))\s+(?:run\s+|execute\s+)?[`\"']?(?:drop\s+"
        r"(?:the\s+)?(?:table|database|schema)|truncate\s+(?:table\s+)?\w+)",
        triggers=(
            "rm",
            "delete",
            "remove",
            "wipe",
            "destroy",
            "erase",
            "nuke",
            "purge",
            "force",
            "push",
            "drop",
            "truncate",
        ),
        reach=60,
        extend=True,
        negatable=True,
    ),
    _rule(
        "agent_directive",
        "text addressed to AI agents reading it",
        r"\b(?:note|message|instructions?|attention|reminder|directive|important)\s+(?:to|for)\s+"
        r"(?:the\s+|any\s+|all\s+)?" + _AGENT + r"\b",
        r"\b(?:ai|llm)\s+(?:agents?|assistants?|models?)\s*(?:reading\s+this|must|should|are\s+"
        r"(?:required|instructed))\b",
        r"\bif\s+you\s+are\s+an?\s+" + _AGENT + r"\b",
        triggers=(
            "note",
            "message",
            "instruction",
            "attention",
            "reminder",
            "directive",
            "important",
            "ai ",
            "ai\t",
            "llm",
            "language model",
            "assistant",
            "agent",
            "copilot",
            "claude",
            "chatgpt",
            "gpt",
            "cursor",
        ),
        reach=30,
        extend=True,
    ),
)

SENTENCE_END = re.compile(r"\n|[.!?](?=\s|$)")
_NEGATION = re.compile(
    r"\b(?:never|not|no|don't|dont|do\s+not|avoid|without|n't)\b[^.!?\n]*$", re.I
)


def negated(text: str, start: int) -> bool:
    """A negation earlier in the same sentence (within 40 characters)."""
    return _NEGATION.search(text, max(0, start - 40), start) is not None
