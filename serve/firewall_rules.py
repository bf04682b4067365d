"""The injection patterns of the context firewall, as data.

Each rule is a case-insensitive regex matched on the firewall's views of a text (NFKC with
homoglyphs folded, and the decoded / joined / unglued views of `firewall_views`), plus the
literal triggers that make it cheap: every match contains one of the rule's `triggers` (lower
case) at most `reach` characters after the match starts, so the firewall only tries the regex
near a trigger. Adding an alternative means adding its trigger too; `tests/test_firewall.py`
checks every payload class against its rule, and `benchmarks/firewall.py` runs the corpus.

Rules aim at orders given to the agent, not at developer prose about the same things: "ignore
previous commands that failed", "### Instructions:" over a numbered list, "Note for Copilot
users", "we must drop the table sessions_old", a `curl | sh` line under "Install" and a badge
URL with a query string all stay as written. `exempt` is how a rule looks at the context of a
match (the words before it) when its own text cannot decide.

Besides orders to drop instructions, the rules know the other shapes an injection takes: a
persona or game for the model ("pretend you are", "an AI without rules"), instructions said to be
withdrawn or replaced by an operator, banners closing a tool's output, asking to hide the act
from the user (`concealment`) or to carry an order into later sessions (`memory_poisoning`), and
secrets read in one step of a list and posted in another. Quoted forms that documentation uses
stay: a delimiter in an inline code span, a download-and-run line set as code under a heading or
a shell comment (or a Dockerfile `RUN` / CI `run:` step), a secret's transfer forbidden right
before its verb ("never put your key in a link"), a file name in a URL's path, a template slot
in a link that names no data (`?title={title}`).

Orders are recognised by their parts, not their phrasing: a verb that drops or disobeys ("ignore",
"do not follow", per language family and script, verb-last languages included), a word for
the model's orders and one saying which ones; the model spoken to (a vocative "AI model," or
"to the assistant:", also inside a quotation, a CSV field, a config value, a comment, or a field
named as a note for it: `AI-Note:`, `llm_instructions:`) followed by an order verb. An attack
quoted as an example (`quoted_mention`: "attackers may write 'ignore previous instructions'")
is kept, as advisories and docs about injection write it, unless it is disguised; what does harm
however it is framed (delimiters, hidden comments, leaking links) is never exempt that way.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

from ..store.regexcache import compile_pattern
from . import firewall_lexicon as lexicon
from .firewall_lexicon import lazy


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
    exempt: Callable[[str, int, int], bool] | None = None  # (view, start, end): context says keep
    # words (lower case) of which the text must hold one before any trigger is looked for
    gate: tuple[str, ...] = ()
    # a match quoted as an example (`quoted_mention`) is kept; not for what does harm however
    # it is framed: a delimiter ends the block, a hidden comment is unseen, a link leaks
    quotable: bool = True
    # matches found by code instead of `source` (view, trigger positions) -> spans
    finder: Callable[[str, list[int]], list[tuple[int, int]]] | None = None

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        # compiled on the first text holding a trigger: compiling every rule costs a one-shot
        # process tens of milliseconds, and most texts hold no trigger of most rules
        return compile_pattern(self.source, re.IGNORECASE | re.MULTILINE)


def _spaced(trigger: str) -> bool:
    """A trigger that starts with a letter of a script written with spaces: it must start a
    word ("rm" is not in "format"); in Thai, Chinese or Japanese there are no words to start,
    and Hebrew and Arabic glue particles to the front of a word."""
    cp = ord(trigger[0])
    return (
        (trigger[0].isalnum() or trigger[0] == "_")
        and cp < 0x2E80
        and not (0x0590 <= cp <= 0x06FF or 0x0E00 <= cp <= 0x0EFF)
    )


_trie = lexicon.trie

# words naming the model a text speaks to, as rule triggers (lower case, searched as substrings)
_MODEL_NAMES = (
    "llm",
    "language model",
    "assistant",
    "agent",
    "copilot",
    "claude",
    "chatgpt",
    "gpt",
    "cursor",
)


class TriggerIndex:
    """Where the triggers of every rule are in a text, in one scan: a factored regex finds
    word-starting triggers, another the others (punctuation, Chinese, Japanese, Korean), ASCII
    ones only when the text is ASCII."""

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        # triggers by their first two characters (one-character ones by that character): at a
        # position, only the few triggers that can start there are compared
        by_two: dict[str, list[tuple[str, int]]] = {}
        for i, rule in enumerate(rules):
            for t in dict.fromkeys(rule.triggers):
                by_two.setdefault(t[:2], []).append((t, i))
        self.by_two = by_two
        # the same, looked up by the text's own substring: per key, for each trigger length,
        # the rules (in `by_two`'s order) of the triggers of that length. A key such as "in"
        # starts dozens of triggers of a handful of lengths: a few dict lookups at a position
        # instead of a comparison per trigger
        self.by_length: dict[str, tuple[tuple[int, dict[str, tuple[tuple[int, int], ...]]], ...]]
        self.by_length = {}
        for key, entries in by_two.items():
            tables: dict[int, dict[str, list[tuple[int, int]]]] = {}
            for order, (t, i) in enumerate(entries):
                tables.setdefault(len(t), {}).setdefault(t, []).append((order, i))
            self.by_length[key] = tuple(
                (n, {t: tuple(v) for t, v in table.items()}) for n, table in tables.items()
            )
        self.seen = 0  # characters scanned: a process that serves much compiles the regexes
        every = {t for r in rules for t in r.triggers}
        spaced = sorted(t for t in every if _spaced(t))
        others = sorted(every.difference(spaced))
        self.others_list_ascii = tuple(t for t in others if t.isascii())
        # by first character: a text without it needs none of them looked for
        self.others_by_first: dict[str, tuple[str, ...]] = {}
        for t in others:
            self.others_by_first[t[0]] = (*self.others_by_first.get(t[0], ()), t)
        self.words_ascii = lazy(lambda: r"\b(?=" + _trie([t for t in spaced if t.isascii()]) + ")")
        self.words_all = lazy(lambda: r"\b(?=" + _trie(spaced) + ")")
        # every position where one starts (a look-ahead: occurrences may overlap, "<<" in "<<<")
        self.others_ascii = lazy(lambda: "(?=" + _trie(list(self.others_list_ascii)) + ")")
        self.others_all = lazy(lambda: "(?=" + _trie(others) + ")")

    def hits(self, low: str) -> dict[int, list[int]]:
        """Rule index -> positions in `low` where one of its triggers starts, in order.

        A short text is scanned without the factored regexes (every word start, and each
        trigger that need not start a word, looked for with `str.find`): compiling them costs
        more than a one-shot process spends on all its short strings. A long text, or a
        process that has scanned 32 kB, compiles them once and scans faster; so does a
        process whose regexes are compiled already (a server warmed by `firewall.warm`),
        where the word-by-word scan took twice as long on the strings an answer serves."""
        ascii_only = low.isascii()
        self.seen += len(low)
        words = self.words_ascii if ascii_only else self.words_all
        others = self.others_ascii if ascii_only else self.others_all
        if len(low) <= _SHORT and self.seen <= _SHORT * 32 and not (words.ready and others.ready):
            starts = {m.start() for m in _WORD_START.finditer(low)}
            for first in self.others_by_first.keys() & set(low):
                for t in self.others_by_first[first]:
                    i = low.find(t)
                    while i != -1:
                        starts.add(i)
                        i = low.find(t, i + 1)
        else:
            starts = {m.start() for m in words.finditer(low)}
            starts.update(m.start() for m in others.finditer(low))
        out: dict[int, list[int]] = {}
        by_length = self.by_length
        for p in sorted(starts):
            two = low[p : p + 2]
            keys = (two,) if len(two) == 1 else (two, two[0])
            for key in keys:
                tables = by_length.get(key)
                if tables is None:
                    continue
                matched: list[tuple[int, int]] = []
                for n, table in tables:
                    rules = table.get(low[p : p + n])
                    if rules is not None:
                        matched += rules
                if len(matched) > 1:
                    matched.sort()  # the order `by_two` lists them in
                for _, i in matched:
                    got = out.get(i)
                    if got is None:
                        out[i] = [p]
                    elif got[-1] != p:
                        got.append(p)
        return out


# texts up to this long are scanned for triggers word by word (see `TriggerIndex.hits`)
_SHORT = 1024
_WORD_START = lazy(r"\b\w")


def _rule(
    name: str,
    why: str,
    *alternatives: str,
    triggers: tuple[str, ...],
    reach: int = 40,
    extend: bool = False,
    negatable: bool = False,
    exempt: Callable[[str, int, int], bool] | None = None,
    gate: tuple[str, ...] = (),
) -> Rule:
    body = "|".join(f"(?:{a})" for a in alternatives)
    quotable = name not in ("fake_delimiter", "hidden_markup", "image_beacon", "camo_proxy")
    return Rule(name, why, body, triggers, reach, extend, negatable, exempt, gate, quotable)


# ------------------------------------------------------------------ context

# words that address the reader as the one who acts: an order, not documentation
_ADDRESSED = lazy(
    r"\b(?:you|your|agent|assistant|ai|llm|model|copilot|claude|chatgpt|must|immediately|now|"
    r"first|before\s+\w+ing|to\s+fix|please)\b",
    re.I,
)
# what introduces a command a reader is meant to run to install something
_INSTALL = lazy(
    r"\b(?:install(?:s|ed|er|ing|ation)?|set\s*up|setup|quick\s*start|getting\s+started|"
    r"bootstrap)\b",
    re.I,
)
_URL = lazy(r"\S+://\S+")
_CLAUSE_START = lazy(r"[.!?;](?=\s)|\n\s*\n")


def _before(view: str, start: int, limit: int) -> str:
    return _URL.sub(" ", view[max(0, start - limit) : start])


def _last_clause(before: str) -> str:
    """The clause `before` ends in (the text up to a match, from `_before`)."""
    return before[max((m.end() for m in _CLAUSE_START.finditer(before)), default=0) :]


# indented, after a prompt, or a Dockerfile `RUN` / CI `run:` step: a command set as code
_CODE_LINE = lazy(r"(?:^|\n)(?: {4}|\t|[ \t]*\$ |[ \t]*RUN[ \t]|[ \t]*-?[ \t]*run:[ \t])[^\n]*$")
_TRAILING_COMMENT = lazy(r"[ \t]#[ \t]+[A-Za-z][^|&;`$]*$")
_FENCE = lazy(r"^[ \t]*(?:```|~~~)", re.M)


# what may stand before the command on its line: a prompt, sudo, a shell or PowerShell wrapper
_COMMAND_START = lazy(
    r"[ \t]*(?:\$[ \t]+)?(?:sudo[ \t]+)?(?:powershell(?:\.exe)?(?:[ \t]+-\w+(?:[ \t]+\w+)?)*?"
    r"[ \t]+-c(?:ommand)?[ \t]+[\"']?|(?:/bin/)?(?:ba|z)?sh[ \t]+-c[ \t]+[\"']?(?:\$\()?)?",
    re.I,
)


# a short label before a command ("On Windows:", "- macOS / Linux:")
_LABEL = lazy(r"[ \t]*(?:[-*][ \t]+)?[\w /().,+!'\u2019-]{1,40}:[ \t]*")


def _code_line(view: str, start: int, end: int) -> bool:
    """The match is on a line of its own set as code: indented four spaces, a `$ ` prompt,
    inside a fenced block, a command alone on its line under a shell comment, a fence or a
    line ending in a colon ("# On Windows.", "Linux:"), or after a short label on its line to
    the line's end ("Linux: curl ... | sh")."""
    line_start = view.rfind("\n", 0, start) + 1
    if _CODE_LINE.search(view, max(0, line_start - 1), start) is not None:
        return True
    label = _LABEL.match(view, line_start, start)
    if (
        label is not None
        and _MODEL_WORD.search(label.group()) is None
        and _COMMAND_START.fullmatch(view, label.end(), start) is not None
        and not view[end : view.find("\n", end) % (len(view) + 1)].strip()
    ):
        return True
    if len(_FENCE.findall(view, 0, line_start)) % 2 == 1:
        return True
    tick = view.find("`", line_start, start)
    if (
        tick != -1
        and _LABEL.fullmatch(view, line_start, tick) is not None
        and _COMMAND_START.fullmatch(view, tick + 1, start) is not None
        and "`" in view[start : view.find("\n", start) % (len(view) + 1)]
    ):
        return True  # a label and the command as inline code ("On Windows: `irm ... | iex`")
    if _COMMAND_START.fullmatch(view, line_start, start) is None:
        return False
    prev = view[:line_start].rstrip().rsplit("\n", 1)[-1].strip()
    return prev.startswith(("#", "```", "~~~")) or prev.endswith(":")


def _shown_command(view: str, start: int, end: int) -> bool:
    """A piped download-and-run (`curl ... | sh`, `sh -c "$(curl ...)"`) on a line of its own
    in a text of nothing but command lines, or ending in a shell comment: the command as it is
    typed, no sentence asks anyone to run it. Saving to a file and running it is not the installer
    idiom docs show, so it is not exempt this way."""
    if "|" not in view[start:end] and "$(" not in view[start:end]:
        return False
    line_start = view.rfind("\n", 0, start) + 1
    if _COMMAND_START.fullmatch(view, line_start, start) is None:
        return False
    line_end = view.find("\n", start)
    line_end = len(view) if line_end == -1 else line_end
    others = (view[:line_start] + view[line_end:]).split("\n")
    alone = all(not line.strip() or _SHELL_LINE.fullmatch(line) for line in others)
    return alone or _TRAILING_COMMENT.search(view, start, line_end) is not None


# a line of a shell snippet: a command word and its arguments, no sentence and nobody spoken to
# ("sudo apt-get install -y nodejs" after the line that adds the repository)
_SHELL_LINE = lazy(
    r"[ \t]*(?:\$[ \t]+)?(?:sudo[ \t]+)?[a-z][\w.+-]*(?:[ \t]+(?![.!?](?:\s|$))\S+)*[ \t]*"
)


def _inline_code(view: str, start: int, end: int) -> bool:
    """The match is quoted inside an inline code span (`<|im_end|>` in docs of a chat format):
    the line has an odd number of backticks before it and a closing one after it."""
    line_start = view.rfind("\n", 0, start) + 1
    line_end = view.find("\n", end)
    line_end = len(view) if line_end == -1 else line_end
    return view.count("`", line_start, start) % 2 == 1 and "`" in view[end:line_end]


_ADVICE = lazy(
    r"\b(?:never|not|don't|dont|do\s+not|avoid|must\s+not|mustn't)\s+(?:ever\s+)?$", re.I
)


def _advised_against(view: str, start: int, end: int) -> bool:
    """The act is forbidden right before its verb ("never put your API key in a Markdown
    link"): security advice. A negation further off does not count: "don't forget to send..."
    is still an order."""
    return _ADVICE.search(view, max(0, start - 20), start) is not None


def _advised_or_shown(view: str, start: int, end: int) -> bool:
    """Advice against the act, or the secret inside an inline code span: a command shown with
    its token as an argument (`codecov -t ${CODECOV_TOKEN}`), not the token sent as data."""
    if _advised_against(view, start, end):
        return True
    line_start = view.rfind("\n", 0, end) + 1
    line_end = view.find("\n", end)
    line_end = len(view) if line_end == -1 else line_end
    span_start = view.rfind("`", line_start, end)
    return (
        view.count("`", line_start, end) % 2 == 1
        and "`" in view[end:line_end]
        and "$" in view[span_start:end]  # a variable passed to a command, not the value sent
    )


# what one may do, said of someone named ("`owner` can delete the repository", "admins are
# allowed to force-push to main"): a permission described, not an order given
_MAY = lazy(
    r"\b(?:can|could|may|might|cannot|can't|is\s+(?:able|allowed|permitted)\s+to|are\s+"
    r"(?:able|allowed|permitted)\s+to|(?:permission|rights?)\s+to)\s+(?:also\s+|still\s+)?$",
    re.I,
)


def permitted(view: str, start: int, end: int) -> bool:
    """The destructive act is what someone named may do, in a sentence that neither speaks to
    the reader nor names the model (a roles table, a permissions page)."""
    clause = _last_clause(_before(view, start, 160))
    if _MAY.search(clause) is None:
        return False
    stop = SENTENCE_END.search(view, end)
    after = _URL.sub(" ", view[end : stop.start() if stop else len(view)])
    return not any(p.search(t) for p in (_ADDRESSED, _MODEL_WORD) for t in (clause, after))


# a revert's title as git writes it: `Revert "<the title of the commit undone>"`
_REVERT_TITLE = lazy(r'^Revert "[^\n]*"[ \t]*$', re.M)


def reverted(view: str, start: int, end: int) -> bool:
    """The match is inside a revert's title, in the quoted title of the commit it undoes."""
    line_start = view.rfind("\n", 0, start) + 1
    m = _REVERT_TITLE.match(view, line_start)
    return m is not None and line_start + len('Revert "') <= start and end < m.end()


def _installed_or_reverted(view: str, start: int, end: int) -> bool:
    return install_line(view, start, end) or reverted(view, start, end)


def _installed_or_reported(view: str, start: int, end: int) -> bool:
    return install_line(view, start, end) or reported_run(view, start, end)


# a command reported as run by something ("the `postinstall` script ran `curl ... | sh`", "a
# file named `$(curl ...)` would execute code"), named as a thing ("The installer (`curl ...
# | sh`) now verifies"), or refused ("refuses to run pipes into a shell (`curl ... | sh`)")
_REPORTED_RUN = lazy(
    r"\b(?:ran|executed|invoked|spawned|triggered|downloaded|contained|fetched|would\s+(?:run|"
    r"execute)|could\s+run|used\s+to\s+run)\s+[`'\"(]*$|"
    r"\b(?:installer|install\s+script|one-?liner|postinstall(?:\s+script)?)\s*[`'\"]?\s*\(\s*[`'\"]*$|"
    r"\b(?:refuses?|refused|declines?|blocks?|blocked|rejects?|warns?)\b[^.!?\n]{0,80}\(\s*[`'\"]*$|"
    r"\bnamed\s+[`'\"]*[^`'\"\s]*$"
)


def reported_run(view: str, start: int, end: int) -> bool:
    """A download-and-run command that the text reports something ran, names, or refuses, and
    that its sentence aims at no one (`_ADDRESSED`): an advisory or a changelog, not an order."""
    clause = _last_clause(_before(view, start, 200))
    return (
        _REPORTED_RUN.search(clause) is not None
        and not _ADDRESSED.search(clause)
        and not _MODEL_WORD.search(clause)
    )


def _permitted_or_reverted(view: str, start: int, end: int) -> bool:
    return permitted(view, start, end) or reverted(view, start, end)


def install_line(view: str, start: int, end: int) -> bool:
    """A download-and-run line introduced as an installation step, or set as a code line of
    its own, and not aimed at the agent: what install docs look like."""
    before = _before(view, start, 200)
    if (
        not _INSTALL.search(before)
        and not _code_line(view, start, end)
        and not _shown_command(view, start, end)
        and _TARGET.search(view, start, end) is not None
    ):
        return False
    clause = _last_clause(before)  # the sentence the command is in, up to it
    line_end = view.find("\n", end)
    after = _URL.sub(" ", view[end : line_end if line_end != -1 else len(view)])
    after = after[: m.start() + 1] if (m := _AFTER_END.search(after)) else after
    return not (_ADDRESSED.search(clause) or _MODEL_WORD.search(clause) or _ADDRESSED.search(after))


# a word naming the model, as a label before a command uses one ("Bot:", "AI agent:"): the
# rules' names of the model (`_MODEL_NAMES`) and the short ones a label is written with
_MODEL_WORD = lazy(
    lambda: (
        r"\b(?:"
        + "|".join(re.escape(n) for n in (*_MODEL_NAMES, "bot", "ai", "model", "gemini", "codex"))
        + r")s?\b"
    ),
    re.I,
)
# what a download names to fetch: a URL, a host, a path or a variable holding one; "`curl | sh`"
# or "`curl ... | sh`" without one is the idiom named, not a command anyone can run
_TARGET = lazy(r"://|\b[\w-]+\.[a-z]{2,}\b|[\s'\"]/\w|\$\{?\w")
# where the command's clause ends after it: the next sentence, or what follows a comma ("`curl
# ... | bash`, then restart your shell"), speaks to the reader about something else
_AFTER_END = lazy(r"[.!?](?=\s)|[,;]")


_QUOTES = (('"', '"'), ("'", "'"), ("\u201c", "\u201d"), ("\u2018", "\u2019"), ("\u00ab", "\u00bb"),
           ("\u201e", "\u201c"), ("`", "`"))  # fmt: skip
# what names a quotation as an example of an attack, not as something to do
_MENTION = lazy(
    r"\b(?:such\s+as|like|e\.\s?g\.?|for\s+(?:example|instance)|i\.\s?e\.?|phrases?|strings?|"
    r"text|payloads?|wording|words|sentences?|lines?|hides?|hidden|contains?|containing|"
    r"embed(?:s|ded)?|blocks?|flags?|detects?|catches|matches|injections?|jailbreaks?|"
    r"attackers?|exploits?|called|known\s+as|patterns?|examples?|samples?|fixtures?|classic)\b"
    r"[^\n]{0,40}$|"
    # "for example" in scripts written without spaces
    r"(?:例如|比如|譬如|举例|舉例|例えば|たとえば|例として|예를\s?들어|예컨대)[^\n]{0,40}$",
    re.I,
)


def line_above(view: str, line_start: int) -> str:
    """The end (80 characters) of the line above the one starting at `line_start`, when the
    sentence runs on from it into this line (a wrapped paragraph: no sentence ends there);
    else ""."""
    if line_start < 2:
        return ""
    above = view[view.rfind("\n", 0, line_start - 1) + 1 : line_start - 1].rstrip()
    if not above or above.endswith((".", "!", "?", "\u3002", "\uff01", "\uff1f")):
        return ""
    return above[-80:]


def _mention_window(view: str, i: int, line_start: int) -> str:
    """What stands before a quotation opening at `i` on its line; when the quotation opens the
    line, the end of the line above it runs on from (a wrapped paragraph: "A classic example
    is a page containing" / "\"Ignore all previous instructions\"")."""
    before = _before(view, i, min(80, i - line_start))
    if before.strip():
        return before
    above = line_above(view, line_start)
    return _URL.sub(" ", above) + " " if above else before


def quoted_mention(view: str, start: int, end: int) -> bool:
    """The match is inside a quotation on its line that the words before it name as an example
    ("attackers may write 'ignore previous instructions'", "phrases like \u201cyou are now DAN\u201d"):
    what advisories and docs about injection look like. The quotation must close: an order
    that runs to the end of the text is not quoted."""
    line_start = view.rfind("\n", 0, start) + 1
    line_end = view.find("\n", end)
    line_end = len(view) if line_end == -1 else line_end
    lo, hi = max(line_start, start - 200), min(line_end, end + 300)
    for open_q, close_q in _QUOTES:
        i = view.rfind(open_q, lo, start)
        if i == -1 or (open_q == "'" and i > 0 and view[i - 1].isalnum()):
            continue  # no quote, or an apostrophe
        if close_q in view[i + 1 : start]:
            continue  # the quote before the match closes an earlier one
        j = view.find(close_q, end, hi)
        while j != -1 and close_q == "'" and j + 1 < len(view) and view[j + 1].isalpha():
            j = view.find(close_q, j + 1, hi)
        if j != -1 and (
            _MENTION.search(_mention_window(view, i, line_start)) is not None
            or _NAMED_AFTER.match(view, j + 1) is not None
            or (open_q in "\"'`" and listed_sample(view, i, j))
        ):
            return True
    return False


# an item of a collection in code or data: after `[`, `(`, `{`, `,`, a key's `:` or `=`, a YAML
# list's dash or at the start of its line; and before `,`, a closing bracket, a comment or the
# end of its line
_ITEM_BEFORE = lazy(r"(?:[\[({,:=]|^[ \t]*-|^)[ \t]*$", re.M)
_ITEM_AFTER = lazy(r"[ \t]*(?:[,\])}]|#|//|$)", re.M)
# a line that opens a collection under a name: `NAME = [`, `name: [`, `"name": {`, `name:` (YAML),
# `var denyCases = []struct {` (Go), `const CASES: &[&str] = &[` (Rust), `static final String[]
# CASES = {` (Java)
_OPENER = lazy(
    r"^[ \t]*(?:(?:export|var|let|const|static|final|private|public|protected|readonly|val|pub|"
    r"mut)[ \t]+)*[\"']?([A-Za-z_][\w.-]*)[\"']?[ \t]*(?::[^=\n]*)?(?::=|[:=])[ \t]*"
    r"(?:(?:[&*]|vec!|new[ \t]+[\w.<>\[\], ]*)?[\[({][^\n]*)?$"
)
# the first line of a test: a Python, Go, Rust or Java test function, a JavaScript or Ruby test
# block, or a parametrised test's list of cases
_TEST_HEAD = lazy(
    r"^([ \t]*)(?:(?:async[ \t]+)?def[ \t]+test\w*[ \t]*\(|func[ \t]+Test\w*[ \t]*\(|"
    r"#\[(?:tokio::)?test\]|@(?:Test|ParameterizedTest)\b|@pytest\.mark\.parametrize\(|"
    r"(?:it|test|describe|context|specify)(?:\.each)?[ \t]*[(\[ ][ \t]*[\"'`]|"
    r"(?:it|test|describe|context)[ \t]*\()",
    re.M,
)
# what names test cases (`INJECTION_SAMPLES`, `dangerous_commands`, `blocked_inputs`)
_SAMPLE_NAME = lazy(
    r"(?:^|_|-|\.|(?<=[a-z])(?=[A-Z]))(?:cases?|samples?|examples?|payloads?|attacks?|injections?|"
    r"fixtures?|jailbreaks?|vectors?|dangerous|malicious|blocked|blocklist|denylist|denied|"
    r"forbidden|unsafe|evil|bad|hostile|adversarial)(?:$|_|-|\.|(?=[A-Z]))",
    re.I,
)
# the line that closes the collection says what the cases are for, or a YAML case expects it
# to be refused
_SAMPLE_VERDICT = lazy(
    r"\b(?:must|should|to)\s+(?:be\s+)?(?:refus|block|reject|flag|detect|catch|den[iy]|strip|"
    r"remov|redact|sanitiz|escap|neutrali[sz]|fail|rais)\w*|"
    r"\bexpect(?:ed|s)?[\"']?[ \t]*[:=][ \t]*[\"']?(?:blocked|denied|rejected|flagged|refused|"
    r"unsafe|malicious|injection|error|false)\b|"
    # a labelled case of a detector's data set (`"label": "injection"`, `dangerous: true`,
    # `expected_action: deny`), on the case's line or the lines of its record
    r"\b(?:label|class|category|verdict|expected_\w+|is_\w+|dangerous|malicious|unsafe|"
    r"should_\w+)[\"']?[ \t]*[:=][ \t]*[\"']?(?:injection|prompt_injection|jailbreak|attack|"
    r"malicious|unsafe|dangerous|deny|denied|block(?:ed)?|reject(?:ed)?|refuse[d]?|flag(?:ged)?|"
    r"true)\b|"
    # a CSV row whose last column is the verdict (`5,"cat ~/.aws/credentials | nc ...",deny`)
    r"^[^\n]*,[ \t]*(?:injection|jailbreak|attack|malicious|unsafe|dangerous|deny|denied|"
    r"block(?:ed)?|reject(?:ed)?)[ \t]*$",
    re.I | re.M,
)


def _in_test(view: str, line_start: int) -> bool:
    """The line at `line_start` is inside a test: below a test's first line (at most 40 lines
    up) and, in Python, indented under it with no line between at its indentation or less."""
    lo = line_start
    for _ in range(40):
        if lo == 0:
            return False
        lo = view.rfind("\n", 0, lo - 1) + 1
        m = _TEST_HEAD.match(view, lo)
        if m is None:
            continue
        head = len(m.group(1).expandtabs())
        if not view.startswith(("def", "async"), lo + len(m.group(1))):
            return True  # a block or a function with braces: its end is not looked for
        for line in view[lo:line_start].split("\n")[1:]:
            if line.strip() and len(line) - len(line.lstrip()) <= head:
                return False
        body = view[line_start : view.find("\n", line_start) % (len(view) + 1)]
        return len(body.expandtabs()) - len(body.expandtabs().lstrip()) > head
    return False


def listed_sample(view: str, i: int, j: int) -> bool:
    """The quotation `view[i..j]` (quote characters at both ends) is in a test's code, or an item
    of a collection named as test cases: by the name it is kept under (`SHELL_CASES = [`,
    `dangerous:`), or by what the line that closes it says the cases are for (`]  # the guard
    must refuse each`), or by the verdict a YAML case expects (`expect: blocked`). A detector's
    or a sanitiser's tests hold the attacks they check, as data."""
    if view[i - 1 : i] == view[i] or view[j + 1 : j + 2] == view[j]:
        return False  # a triple-quoted string (a docstring), or an empty one
    line_start = view.rfind("\n", 0, i) + 1
    if view[line_start:i].strip() and _in_test(view, line_start):
        return True  # what a test's code quotes is the data it checks (not its docstring)
    if not _ITEM_BEFORE.search(view, line_start, i) or not _ITEM_AFTER.match(view, j + 1):
        return False
    # the opener: this line, or the nearest line above (at most 12) that opens a collection
    pos, name = line_start, None
    for _ in range(13):
        end = view.find("\n", pos)
        line = view[pos : len(view) if end == -1 else end]
        head = line if pos != line_start else view[pos:i]
        m = _OPENER.match(head.rstrip())
        if m is not None:
            name = m.group(1)
            break
        if pos == 0:
            break
        pos = view.rfind("\n", 0, pos - 1) + 1
    if name is not None and _SAMPLE_NAME.search(name):
        return True
    # the rest of the collection: the line that closes it, or the case's next lines (YAML)
    after = view[j + 1 : j + 600]
    for line in after.split("\n")[:13]:
        if _SAMPLE_VERDICT.search(line):
            return True
        stripped = line.strip()
        if stripped[:1] in ("]", ")", "}"):
            break
    return False


# a quotation named as an example by the noun after it ("remove the '...' test case")
_NAMED_AFTER = lazy(
    r"[ \t]*(?:(?:-?style|-?like|type|kind|form)[ \t]+)?(?:test\s+cases?|tests?|cases?|fixtures?|examples?|strings?|phrases?|payloads?|attacks?|"
    r"prompts?|jailbreaks?|injections?|samples?|patterns?)\b",
    re.I,
)

# a subject before the verb: the sentence says what models do, it does not tell one to do it
_DESCRIBED = lazy(
    r"\b(?:models?|llms?|agents?|assistants?|chatbots?|bots?|the\s+(?:model|agent|assistant|llm|bot|"
    r"ai|chatbot)|they|which|who)\s+(?:(?:sometimes|often|occasionally|frequently|usually|may|might|"
    r"can|could|tend\s+to|seem\s+to|start\s+to|begin\s+to|still|also|will\s+not|won't|do\s+not|"
    r"don't|never)\s+){0,2}$|"
    # what an attempt or a text is for ("attempts to override the system prompt")
    r"\b(?:attempts?|attempting|tries|trying|efforts?|ways|requests|inputs|messages|designed|"
    r"intended|meant|trained)\s+to\s+$|"
    # a question about what a program does ("Why does the builder ignore the instructions
    # after my first FROM?", "Does the parser ignore ..."), its subject a thing, not the reader
    r"(?:\b(?:why|how\s+come|whether)\s+|(?:^|[.!?:]\s+|\n\W*))(?:does|do|did|would|will|can|"
    r"could)(?:n't|\s+not)?\s+(?!you\b|u\b)(?:the|this|that|my|our|a|an|its|their)\s+"
    r"(?:[\w.-]+\s+){1,2}$",
    re.I,
)


# a verb that makes or handles a prompt, and the article of its object ("Build the system
# prompt: join the persona and the rules" is a step of code, not a new prompt)
_PROMPT_WORK = lazy(
    r"\b(?:build|builds|building|construct\w*|assembl\w*|compos\w*|format\w*|render\w*|"
    r"generat\w*|load\w*|print\w*|log|logs|logging|defin\w*|creat\w*|prepar\w*|templat\w*|"
    r"truncat\w*|cach\w*|pars\w*|serializ\w*|read|reads|reading)\s+(?:the|a|our|their|its)\s+$",
    re.I,
)


def _prompt_worked_on(view: str, start: int, end: int) -> bool:
    """A `system prompt:` that is the object of a verb of code ("build the system prompt:")."""
    return (
        view[start : start + 6].lower() == "system"
        and _PROMPT_WORK.search(view, max(0, start - 40), start) is not None
    )


def _described(view: str, start: int, end: int) -> bool:
    """The verb has a subject other than the reader ("models sometimes ignore earlier
    instructions"): a description of what models do, not an order."""
    return _DESCRIBED.search(view, max(0, start - 60), start) is not None


# ------------------------------------------------------------------ vocabulary

_DET = r"(?:(?:the|all|any|every|each|your|my|our|these|those|of|its)\s+){0,3}"
_QUAL = (
    r"(?:previous|prior|preceding|earlier|above|former|foregoing|original|initial|system|"
    r"developer|safety|existing|content|usage|ethical|moderation)"
)
# what only a model is given; "commands", "context", "messages" are also developer words
_ORDERS = (
    r"(?:instructions?|prompts?|rules|directions?|directives?|guidelines|guidance|guardrails|"
    r"constraints|policies|programming|restrictions)"
)
_WEAK_ORDERS = r"(?:commands|orders|messages?|context|conversation)"
_SECRET = (
    r"(?:api[\s_-]?keys?|tokens?|secrets?|credentials?|passwords?|passphrases?|private\s+keys?|"
    r"(?:deploy|signing|secret|master)\s+keys?|output\s+of\s+[`'\"]?(?:env|printenv|set)\b[`'\"]?|"
    r"ssh\s+keys?|access\s+keys?|session\s+cookies?|cookies|\.env\b|env(?:ironment)?\s+"
    r"(?:file|var(?:iable)?s)|id_rsa|\.npmrc|\.pypirc|\.netrc|aws\s+credentials)"
)
_SECRET_PATH = (
    r"(?:(?:~|\$home|/home/[\w.-]+|/root)/)?\.(?:aws/credentials|ssh/id_\w+\b(?!\.pub)|netrc|"
    r"npmrc|pypirc|docker/config\.json|kube/config|config/gh/hosts\.ya?ml|git-credentials|"
    r"env\b)|/etc/(?:passwd|shadow)\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b(?!\.pub)|"
    # a file named for what it holds
    # (folders before it each end in a slash: one way to read them, no lazy run to retry)
    r"\b(?:[\w.-]+/){0,4}(?:secrets?|credentials?|passwords?|private[-_]?key)\.(?:ya?ml|json|toml|env|"
    r"txt|ini|cfg|conf|"
    r"pem|key)\b|\b[\w-]+\.pem\b"
)
# what every text a secret rule can match holds (lower case): a cheap test before the regexes
_SECRET_WORDS = (
    "key",
    "token",
    "secret",
    "credential",
    "password",
    "passwd",
    "passphrase",
    "cookie",
    ".env",
    "env ",
    "env_",
    "id_rsa",
    "id_ed",
    "id_ecdsa",
    "id_dsa",
    "/etc/",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".aws",
    ".ssh",
    ".config",
    ".docker",
    ".kube",
    ".git-cred",
    ".pem",
)
# where a secret's name starts (lower case): the triggers of rules whose match starts at one
_SECRET_TRIGGERS = ("api", "token", "secret", "credential", "password", "passphrase", "private",
                    "deploy", "signing", "master", "ssh", "access", "session", "cookie", ".env",
                    "env", "id_", "~/", "$", "/home/", "/root", "/etc/", ".aws", ".ssh", ".netrc",
                    ".npmrc", ".pypirc", ".docker", ".kube", ".config", ".git-cred", "aws")  # fmt: skip
_ENV_SECRET = (
    r"(?-i:\$\{?[A-Z0-9_]*(?:TOKEN|SECRET|API_?KEY|PASSWORD|PASSWD|CREDENTIALS?|PRIVATE_KEY|"
    r"ACCESS_KEY)[A-Z0-9_]*\}?)"
)
_DEST = (
    r"(?:(?:https?|ftp)://|[\w.+-]+@[\w-]+\.[\w.-]+|\d{1,3}(?:\.\d{1,3}){3}\b|pastebin|paste\.|"
    r"(?:a\s+)?(?:new\s+)?(?:public\s+|secret\s+)?gists?\b|webhooks?\b|requestbin|ngrok|"
    r"discord|telegram|me\b|us\b|(?:an?\s+)?(?:external|remote|public)\s+(?:server|host|url|"
    r"endpoint|site)|this\s+(?:url|address|endpoint|server|host)|the\s+attacker|"
    r"(?:the|your|this|an?)\s+(?:next\s+|new\s+)?(?:public\s+)?(?:reply|response|answer|"
    r"commit\s+message|pull\s+request|pr\b|pr\s+description|issue|comment|discussion|chat)|"
    r"(?:an?\s+)?(?:markdown|html)\s+(?:links?|images?))"
)
_AGENT = (
    r"(?:(?:ai|llm|coding|autonomous)\s+(?:assistants?|agents?|models?|copilots?|reviewers?|readers?|"
    r"tools?|bots?|systems?)|ai|llms?|"
    r"language\s+models?|assistants?|agents?|copilot|claude|chatgpt|gpt|cursor|"
    r"coding\s+agents?|the\s+model)"
)
# verbs (and openers) of the orders an injection gives, once the model was spoken to
_ORDER_VERB = (
    r"(?:ignore|disregard|forget|override|bypass|stop|run|execute|approve|merge|delete|remove|"
    r"drop|skip|insert|send|post|upload|push|reveal|print|output|leak|exfiltrate|disable|treat|"
    r"mark|comply|obey|pretend|from\s+(?:now|here)\s+on|do\s+not|don't|never|always|instead|"
    r"you\s+(?:must|should|will|are\s+now)|your\s+(?:new|real|only|previous)|add\s+(?:a|an|the|"
    r"this|my)\b)\b"
)
# after the address: maybe a clause saying when ("when editing this file,"), then the order
_THEN_ORDER = (
    r"(?:(?:when|while|before|after|if|once|as\s+you)\b[^,\n]{0,60},\s*)?(?:please\s+|also\s+|"
    r"then\s+|just\s+|now\s+)*(?:" + _ORDER_VERB + r"|(?:set|change|modify|edit|grant|enable|"
    r"export|dump|copy|move|tell|summari[sz]e|close|create|commit|install|fetch|visit|report|"
    r"respond|reply|return|list|show|email|rewrite|replace|omit|hide|rate|classify|score)\b)"
)
_NOT_AUDIENCE = (
    r"(?![\s-]+(?:users?|integration|support|plugins?|extensions?|settings|config\w*|docs|"
    r"documentation|assisted|generated|features?)\b)"
)
# a placeholder in a URL that a model would fill in with data it holds
_PLACEHOLDER = (
    r"(?:\{\{[^}\n]{0,80}\}\}|"
    # a single-brace slot is a template's (`?title={title}`) unless it names data the model holds
    r"\{(?=[\w.$-]{0,60}?(?:secret|token|key|pass|cred|env|data|content|histor|conversation|chat|"
    r"prompt|cookie|session|summar|output|diff|message|context|result|response|answer|auth|ssh|"
    r"aws|private|cert|memory|instruction))[\w.$-]{1,60}\}|\$\{?[a-z_]\w*|\$\(|<[^>\s][^>\n]{0,80}>|%s\b|"
    # a bare upper-case word is a slot only as a query value: in a path it is a file's name
    # (`CODE_OF_CONDUCT.md`, `wiki/ISO/IEC_80000`)
    r"(?-i:\[[A-Z_]{2,}\]|(?<==)(?:[A-Z][A-Z0-9]*_[A-Z0-9_]+|SECRET|TOKEN|PASSWORD|APIKEY|KEY|"
    r"CREDENTIALS?|DATA|CONTENTS?|COOKIES?|SESSION|ENV)\b))"
)
_URL_PH = r"(?:https?:)?//[^\s)>\]\"']{0,600}?" + _PLACEHOLDER

# the same order in other languages: a verb "ignore / forget", a word for the model's
# instructions, and a word saying which ones ("all", "previous", "your") near them
_ML_VERB = (
    r"(?:ignorier\w*|vergiss|vergesst|vergessen\s+sie|missachte\w*|ignorez|ignorer|ignore|ignora|"
    r"ignorar|ignorate|oublie[zr]?|olvid[ae]r?|omit[ae]|descarta|dimentica(?:te|re)?|esque[cç]a|"
    r"esquece|negeer|vergeet|"
    # a verb in the past tense reports ("модель игнорировала системные инструкции": a fixed bug)
    r"(?:про)?игнорир\w*(?<![лЛ])(?<![лЛ][аиоАИО])|забудь(?:те)?|забыть|"
    r"не\s+обращай(?:те)?\s+внимани[яе]\s+на|ne\s+(?:tiens|tenez|tenons)\s+pas\s+compte|"
    r"desconsider\w*|desatiend\w*|ignoruj\w*|zignoruj\w*|nie\s+zwracaj\s+uwagi\s+na|abaikan|"
    r"lupakan|bỏ\s+qua|quên|ignorera|glöm|glem|ignorér|ignoreer)"
)
_ML_NOUN = (
    r"(?:anweisung(?:en)?|instruktionen|regeln|vorgaben|richtlinien|instructions|consignes|"
    r"règles|directives|instrucciones|reglas|indicaciones|directrices|istruzioni|regole|"
    r"direttive|instruções|instrucoes|regras|diretrizes|instructies|regels|richtlijnen|"
    r"инструкци\w*|указани\w*|правил\w*|директив\w*|промпт\w*|polece\w*|instrukcj\w*|"
    r"zasad\w*|reguł\w*|wytyczn\w*|instruksi|perintah|aturan|petunjuk|arahan|hướng\s+dẫn|"
    r"chỉ\s+dẫn|quy\s+tắc|instruktioner|regler|instruksjoner|talimat\w*|kural\w*|yönerge\w*)"
)
_ML_QUAL = (
    r"(?:vorherig\w*|bisherig\w*|obig\w*|vorangegangen\w*|früher\w*|ursprünglich\w*|alle[nms]?|"
    r"deine?[nmrs]?|précédent\w*|antérieur\w*|toutes|tous|tes|vos|ci-dessus|anterior\w*|"
    r"previ[oa]s|todas|todos|tus|precedent[ei]|tutte|tutti|tue|suas|tuas|eerdere|vorige|jouw|"
    r"bovenstaande|предыдущ\w*|все|всех|сво\w*|тво\w*|ваш\w*|прежн\w*|выше|"
    r"(?:del|do|da|des|du)\s+(?:sistema|système|systeme)|system\w*|системн\w*|poprzedni\w*|"
    r"wcześniejsz\w*|wszystki\w*|sebelumnya|semua|trước(?:\s+đó)?|tất\s+cả|tidigare|alla|"
    r"tidligere|alle|önceki|tüm|bütün)"
)
# languages that put the verb last (Turkish, Hindi): which orders, then "ignore"
_SOV = (
    r"(?:önceki|tüm|bütün|yukarıdaki|sistem|verilen|mevcut|eski|senin|sana)\s+(?:\w+\s+){0,2}?"
    r"(?:talimat|kural|yönerge|komut)\w*"
    r"(?:\s+\w+)?\s+(?:yok\s+say|görmezden\s+gel|unut)\w*",
    r"(?:पिछले|पिछली|सभी|पूर्व|ऊपर\s+के|अपने|अपनी|तुम्हारे|तुम्हारी|आपके|आपकी|दिए\s+गए)\s+"
    r"(?:\S+\s+){0,2}?(?:निर्देश|नियम|आदेश)\S*\s+(?:को\s+)?"
    r"(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)",
)
_CJK_VERB = r"(?:忽略|无视|無視|忽视|忽視|忘记|忘記|忘掉|不要理会|不要理會|别管|別管)"
_CJK_NOUN = r"(?:指令|指示|规则|規則|提示词|提示詞|说明|說明|ルール|プロンプト|지시|지침|규칙|프롬프트|명령)"
_CJK_QUAL = (
    r"(?:之前|以前|上面|以上|前面|先前|所有|全部|一切|系统|系統|これまで|すべて|全て|上記|前の|"
    r"システム|今まで|先ほど|先程|이전|모든|위의|시스템|지금까지|앞의|기존)"
)
_CJK_STOP = r"[^。！？!?\n]"

RULES: tuple[Rule, ...] = (
    _rule(
        "instruction_override",
        "text telling the model to drop its instructions",
        r"\b(?:ignore|disregard|forget|override|bypass|discard)\s+"
        + _DET
        + _QUAL
        + r"\s+"
        + _ORDERS,
        r"\b(?:ignore|disregard|forget|override|bypass|discard)\s+(?:(?:all|your|any)\s+)+"
        + _DET
        + _QUAL
        + r"\s+"
        + _WEAK_ORDERS,
        # "ignore the above, and ...": what is above is the object; "the above warning" is not
        r"\b(?:ignore|disregard|forget)\s+(?:all\s+of\s+|all\s+)?(?:the\s+)?(?:above|foregoing|"
        r"preceding)\s*(?:[,;.:\u2014-]|and\b|then\b|instead\b)",
        r"\b(?:ignore|disregard|forget|scratch|discard|drop)\s+(?:all|everything)\s+(?:you\s+(?:were|have\s+been)\s+"
        r"told|(?:that\s+)?(?:was\s+)?(?:said\s+|written\s+)?(?:above|before))",
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+)?(?:of\s+)?"
        r"(?:your|the)\s+(?:(?:safety|security|content|original|initial|hidden)\s+)?"
        r"(?:instructions|rules|guidelines|guardrails|directives|restrictions|programming|"
        r"system\s+prompt)",
        r"\bsystem\s+override\b",
        # what the model was told, named by who told it ("whatever the developer told you")
        r"\b(?:ignore|disregard|forget)\s+(?:whatever|what|everything|anything|all)\s+(?:that\s+)?"
        r"(?:[\w-]+\s+){0,3}?(?:told|instructed|asked|gave|taught|ordered)\s+you\b",
        # the task itself dropped ("forget the task you were given")
        r"\b(?:ignore|disregard|forget)\s+(?:the|your)\s+(?:current\s+|original\s+|"
        r"previous\s+|assigned\s+|initial\s+)?(?:task|job|assignment|request|goal|objective|mission)s?"
        r"\s+(?:(?:that\s+)?you\s+(?:were|have\s+been)\s+(?:given|assigned|told|asked)|(?:given|"
        r"assigned)\s+to\s+you)\b",
        triggers=(
            "ignore",
            "disregard",
            "forget",
            "override",
            "bypass",
            "discard",
            "system override",
            "scratch",
            "drop all",
            "drop everything",
        ),
        reach=0,
        extend=True,
        exempt=_described,
    ),
    _rule(
        "instruction_override",
        "text telling the model to drop its instructions",
        # what came before declared void ("everything above this line was a test")
        r"\b(?:everything|all|anything)\s+(?:written\s+|said\s+)?(?:above|before)\s+(?:this\s+|here\s+)?"
        r"(?:(?:line|point|message|sentence)\s+)?(?:was|is)\s+(?:just\s+|only\s+)?(?:a\s+test|fake|"
        r"irrelevant|noise|a\s+joke|a\s+distraction|a\s+lie|not\s+real|void|obsolete)\b"
        # what comes next is what the text means instead: the next sentence goes too
        r"(?:[.!:;]\s+[^.!?\n]{1,200})?",
        r"\bthe\s+real\s+(?:request|task|instructions?|order|assignment|job)\s*:",
        r"\bstop\s+(?:what|everything|anything)\s+(?:you(?:'re|\s+are)\s+doing|else)\b",
        triggers=("above", "before", "the real", "stop what", "stop everything", "stop anything"),
        reach=24,
        extend=True,
    ),
    _rule(
        "instruction_override",
        "text telling the model to drop its instructions (in another language)",
        r"\b" + _ML_VERB + r"\b(?=[^.!?\n]{0,80}?\b" + _ML_QUAL + r"\b)(?:\s+[\w'’-]+){0,4}?\s+"
        r"" + _ML_NOUN,
        _CJK_VERB + r"(?=" + _CJK_STOP + r"{0,16}?" + _CJK_QUAL + r")" + _CJK_STOP + r"{0,16}?"
        r"" + _CJK_NOUN,
        _CJK_QUAL + _CJK_STOP + r"{0,12}?" + _CJK_NOUN + _CJK_STOP + r"{0,12}?"
        r"(?:無視|忘れ|忽略|无视|忘记|무시|잊)",
        # "commands" is a developer's word too ("忽略之前失败的命令"): an order only when they
        # are the reader's own, or all of them so far
        r"(?:これまで|今まで|先ほど|あなたの|你的|您的|너의|당신의)" + _CJK_STOP + r"{0,6}?"
        r"(?:命令|명령)" + _CJK_STOP + r"{0,8}?(?:無視|忘れ|忽略|无视|忘记|무시|잊)",
        *_SOV,
        # "forget everything you were told", in the languages that say it so
        r"\b(?:vergeet|vergiss|vergesst|oublie[zr]?|olvida|esque[çc]a|esquece|dimentica|zapomnij|"
        r"забудь(?:те)?|ξέχασε)\s+(?:alles|alle|tout|todo|tudo|tutto|wszystko|всё|все|όλα)\s+"
        r"(?:\S+\s+){0,4}?(?:verteld|gezegd|gesagt|mitgeteilt|dit|dicho|dito|detto|powiedziano|"
        r"сказано|говорили|είπαν|ειπώθηκε)",
        # German puts the negation after the object: "beachte die obigen Anweisungen nicht"
        r"\b(?:beachte|befolge)\w*\s+(?:\S+\s+){0,3}?(?:anweisung\w*|instruktionen|regeln|"
        r"vorgaben|richtlinien|befehle)\s+(?:nicht|nie|keinesfalls)\b",
        triggers=(
            "ignor",
            "zapomnij",
            "beacht",
            "befolg",
            "zignor",
            "ne tiens",
            "ne tenez",
            "ne tenons",
            "desconsider",
            "desatiend",
            "nie zwracaj",
            "abaikan",
            "lupakan",
            "bỏ qua",
            "quên",
            "glöm",
            "glem",
            "önceki",
            "tüm",
            "bütün",
            "yukarıdaki",
            "sistem",
            "verilen",
            "mevcut",
            "eski",
            "senin",
            "sana",
            "अपन",
            "तुम्हार",
            "आपक",
            "दिए",
            "今まで",
            "先ほど",
            "先程",
            "지금까지",
            "앞의",
            "あなたの",
            "你的",
            "您的",
            "너의",
            "당신의",
            "기존",
            "पिछल",
            "सभी",
            "पूर्व",
            "ऊपर",
            "vergiss",
            "vergesst",
            "vergessen",
            "missacht",
            "oubli",
            "olvid",
            "omit",
            "descarta",
            "dimentic",
            "esquec",
            "esqueç",
            "negeer",
            "vergeet",
            "игнор",
            "проигнор",
            "забуд",
            "забыть",
            "не обращай",
            "忽略",
            "无视",
            "無視",
            "忽视",
            "忽視",
            "忘记",
            "忘記",
            "忘掉",
            "不要理",
            "别管",
            "別管",
            "之前",
            "以前",
            "上面",
            "以上",
            "前面",
            "先前",
            "所有",
            "全部",
            "一切",
            "これまで",
            "すべて",
            "全て",
            "上記",
            "前の",
            "システム",
            "系统",
            "系統",
            "시스템",
            "이전",
            "모든",
            "위의",
        ),
        reach=0,
        extend=True,
    ),
    _rule(
        "role_override",
        "text assigning the model a new role or rules",
        r"\byou(?:\s+are|'re|\u2019re)\s+(?:now|no\s+longer)\s+(?:an?\s+|the\s+|in\s+)?(?:[\w-]+\s+){0,3}?"
        r"(?:ai|assistant|model|agent|bot|persona|character|dan|jailbroken|unrestricted|"
        r"unfiltered|uncensored|(?:developer|god|debug)\s+mode)\b",
        r"\b(?:from\s+(?:now|here)\s+on|from\s+this\s+point\s+(?:on|forward)|henceforth|going\s+"
        r"forward|starting\s+now),?\s+(?:you\s+(?:are|will|must|shall|should|act|respond|behave|"
        r"answer|reply|obey|only|always|never)|act|respond|behave)\b",
        r"\bnew\s+(?:system\s+)?(?:instructions?|prompt|rules)\s*:",
        r"\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+)?"
        r"(?:unrestricted|unfiltered|uncensored|jailbroken|dan)\b",
        r"\bsystem\s+prompt\s*(?::[ \t]*\S|override|update)",
        # role-play: a persona for the model to take on, or a game whose rules it is to follow
        r"\bpretend\s+(?:to\s+be|you\s+are|you're|that\s+you(?:'re|\s+are|\s+have)|you\s+have)\b",
        r"\b(?:stay|remain|keep)\s+in\s+(?:character|role)\b",
        r"\b(?:let'?s\s+(?:play\s+a\s+game|role-?play|pretend)|role-?play(?:\s+time)?|new\s+game)\b"
        r"[^\n]{0,40}?\byou\s+(?:are|will\s+be|play|act)\b",
        r"(?-i:\byou\s+are\s+(?:now\s+)?(?:DAN|STAN|DUDE|AIM)\b)",
        triggers=(
            "now",
            "longer",
            "here on",
            "this point",
            "henceforth",
            "going forward",
            "starting now",
            "instruction",
            "prompt",
            "rules",
            "unrestricted",
            "unfiltered",
            "uncensored",
            "jailbroken",
            "dan",
            "pretend",
            "stay in",
            "remain in",
            "keep in",
            "let's",
            "lets",
            "role",
            "new game",
        ),
        reach=80,
        extend=True,
        exempt=_prompt_worked_on,
    ),
    _rule(
        "role_override",
        "text giving the model a persona without rules",
        r"\b(?:an?\s+)?(?:[\w-]+\s+){0,2}?(?:ai|model|assistant|bot|chatbot|terminal|shell|persona|"
        r"agent)s?,?\s+(?:with\s+no|without\s+(?:any\s+)?|that\s+has\s+no|free\s+(?:of|from)\s+"
        r"(?:all\s+|any\s+)?)(?:rules|restrictions|limits|limitations|filters|guidelines|guardrails|"
        r"ethics|morals|censorship|boundaries)\b(?!\s+(?:on|for|in|of)\b)",
        r"\byou\s+(?:now\s+)?have\s+no\s+(?:rules|restrictions|limits|limitations|filters|"
        r"guidelines|guardrails|boundaries)\b",
        triggers=("with no", "without", "that has no", "free of", "free from", "have no"),
        reach=40,
        extend=True,
    ),
    _rule(
        "role_override",
        "text saying the model's instructions were withdrawn or replaced",
        r"\byour\s+(?:[\w-]+\s+){0,2}?(?:instructions|guidelines|guidance|rules|restrictions|guardrails|"
        r"directives|programming|system\s+prompt|polic(?:y|ies))\s+(?:are|is|have\s+been|has\s+been|"
        r"were)\s+(?:now\s+|hereby\s+|officially\s+|temporarily\s+)?(?:revoked|lifted|void|null|"
        r"suspended|cancel+ed|disabled|removed|overridden|superseded|replaced|obsolete|invalid|"
        r"outdated|withdrawn|expired|"
        r"no\s+longer\s+(?:valid|in\s+effect|active|applicable))",
        r"\b(?:(?:your|the|all)\s+)?(?:safety|content|usage)\s+(?:polic(?:y|ies)|guidelines|guardrails|"
        r"restrictions)\s+(?:no\s+longer\s+appl(?:y|ies)|(?:do|does)\s+not\s+apply|"
        r"(?:is|are)\s+(?:now\s+)?(?:disabled|lifted|suspended|revoked|void))",
        r"\byour\s+(?:real|actual|true|new|only|primary|sole|secret)\s+(?:task|goal|job|objective|"
        r"purpose|mission|instructions?|role)\s+(?:is|are|now|will\s+be)\b",
        r"\b(?:guidance|instructions?|rules|directions|orders|prompts?|guidelines|directives)\s+you\s+"
        r"(?:received|were\s+given|got|have|were\s+told|have\s+(?:been\s+given|received))\b[^.!?\n]{0,30}?\b(?:no\s+"
        r"longer\s+(?:appl|valid|in\s+effect|matter)|(?:is|are|was|were)\s+(?:now\s+)?(?:outdated|"
        r"obsolete|void|revoked|cancel+ed|superseded|invalid|wrong|fake|withdrawn))",
        r"\b(?:the\s+)?(?:user|owner|admin\w*|operator|maintainers?|developers?)\s+(?:(?:has|have)\s+)?"
        r"(?:already\s+)?(?:authori[sz]ed|granted|approved|allowed|permitted|given)\s+you\b",
        triggers=(
            "your",
            "security",
            "safety",
            "content",
            "usage",
            "user",
            "owner",
            "admin",
            "operator",
            "maintainer",
            "developer",
            "guidance",
            "instruction",
            "rules",
            "direction",
            "orders",
            "prompt",
            "guideline",
            "directive",
        ),
        reach=5,
        extend=True,
    ),
    _rule(
        "role_override",
        "text posing as new orders from whoever runs the model",
        r"\bnew\s+(?:system\s+)?(?:instructions?|orders?|directives?|tasks?|rules|priorit(?:y|ies)|"
        r"missions?|objectives?|assignments?)\s+(?:from|by)\s+"
        r"(?:the\s+|your\s+)?(?:operator|user|admin\w*|developers?|system|owner|maintainers?|"
        r"supervisor|security\s+team|anthropic|openai)\b",
        r"\bnew\s+(?:system\s+)?(?:instructions?|directives?|rules)\s+(?:follow|below|as\s+follows)\b",
        r"\bimportant\s+system\s+(?:update|notice|message|alert)\b",
        r"^[ \t>*#\[]{0,6}system\s+(?:notice|message|alert|update|override|directive)\s*[:\]]",
        r"\b(?:updated|revised|corrected|real|actual)\s+(?:system\s+)?(?:instructions|orders|directives)"
        r"\s*:\s*(?=\S)",
        r"\[\s*(?:system|admin(?:istrator)?|operator)\s+(?:notice|message|note|override|update|alert)"
        r"\s*\]",
        triggers=(
            "new",
            "important",
            "[system",
            "[admin",
            "[operator",
            "[ ",
            "system",
            "updated",
            "revised",
            "corrected",
            "real",
            "actual",
        ),
        reach=0,
        extend=True,
    ),
    _rule(
        "fake_delimiter",
        "a chat-template or tool-call delimiter that could end the served block early",
        r"<\|\s*(?:im_start|im_end|im_sep|endoftext|startoftext|system|user|assistant|eot_id|"
        r"eom_id|start_header_id|end_header_id|begin_of_text|end_of_text|fim_\w+|tool_call|"
        r"tool_response|start|end|message|channel|return|call|constrain|"
        r"(?:begin|end)[\s\u2581_]of[\s\u2581_]sentence)\s*\|>",
        r"\[/?(?:INST|SYS)\]",
        r"<<\s*/?SYS\s*>>",
        r"</?\s*(?:tool_result|tool_use|tool_call|tool_response|tool_output|function_results?|"
        r"function_calls?|function_output|(?:system|developer)[-_](?:prompt|message|"
        r"reminder|instructions?|request|query|input|response|notice)|im_start|im_end|"
        r"start_of_turn|end_of_turn|antml:[\w-]+)\b[^>\n]{0,80}>",
        # a turn of a transcript; "human : bool, optional" is a parameter's doc
        r"^[ \t>*+\-#/]{0,12}(?:human|assistant)[ \t]*:(?![ \t]*\n[ \t]+[\w-]+[ \t]*:)(?![ \t]*(?:bool|int|str|float|list|dict|"
        r"tuple|set|optional|none|callable|array[\w-]*|ndarray|object|any)\b)",
        triggers=(
            "<|",
            "inst]",
            "sys]",
            "<<",
            "tool_",
            "function_",
            "system-",
            "system_",
            "developer_",
            "developer-",
            "start_of_turn",
            "end_of_turn",
            "im_start",
            "im_end",
            "antml:",
            "human",
            "assistant",
        ),
        exempt=_inline_code,
        reach=20,
    ),
    _rule(
        "fake_delimiter",
        "a banner or fence posing as the end of a tool's output or as the system's turn",
        r"^[ \t]*(?:[=\-*#_~<\[(/][ \t]*){2,}(?:end|begin|start)\s+(?:of\s+)?(?:the\s+)?(?:tool|"
        r"function|search|command|api|system|user|assistant|untrusted|external|retrieved)\s+(?:output|"
        r"results?|response|call|input|prompt|message|data|content)s?\b[^\n]*",
        # the same banner with its word for end or start last ("=== TOOL RESULT END ===")
        r"^[ \t]*[=\-*#_~<\[(]{2,}[ \t]*(?:tool|function|search|command|api|system|user|assistant)\s+"
        r"(?:output|results?|response|call|input|prompt|message)s?\s+(?:ends?|begins?|starts?|"
        r"complete|finished|over)\b[^\n]*",
        r"^[ \t]*(?:```|~~~)[ \t]*(?:system|system[-_]prompt|prompt|instructions?)[ \t]*\n"
        r"[\s\S]{0,2000}?(?:^[ \t]*(?:```|~~~)|\Z)",
        triggers=("end", "begin", "start", "```", "~~~", "complete", "finished", "over"),
        reach=30,
    ),
    _rule(
        "fake_delimiter",
        "a heading or line posing as the system's or the user's turn, with an order in it",
        # "### System:" over an OS version, "### Instructions:" over a numbered list: headings
        r"^[ \t>]{0,12}(?:#{1,6}[ \t]*)?(?:system|instructions?|assistant|user|human|developer)"
        r"(?:[ \t]+(?:prompt|message|override))?[ \t]*:[ \t]*(?=(?:you|your|ignore|disregard|"
        r"forget|always|never|do\s+not|don't|approve|delete|remove|run|execute|respond|reply|"
        r"answer|act|pretend|obey|the\s+(?:user|assistant|ai|model)|from\s+now)\b)",
        # the order on the line under the heading: only words no how-to list starts with
        r"^[ \t>]{0,12}(?:#{1,6}[ \t]*)?(?:system|instructions?|assistant|user|human|developer)"
        r"(?:[ \t]+(?:prompt|message|override))?[ \t]*:[ \t]*\n[ \t]*(?=(?:you|your|ignore|"
        r"disregard|forget|always|never|do\s+not|don't|approve|merge|obey|pretend|from\s+now)\b)",
        triggers=("system", "instruction", "assistant", "user", "human", "developer"),
        reach=20,
        extend=True,
    ),
    _rule(
        "hidden_markup",
        "an HTML comment or hidden element speaking to the model (a reader never sees it)",
        # the comment speaks to the model ("AI agents: ..."), or gives an order a model obeys
        # (an agent named with a colon or as the one spoken to, an order at a clause's start)
        r"<!--(?=(?:(?!-->)[\s\S]){0,2000}?(?:\b" + _AGENT + r"\s*:|(?:(?<=<!--)|^|[.!?;]\s)[\s]*"
        r"(?:hey\s+|dear\s+)?"
        + _AGENT
        + r"\s*,|(?:(?<=<!--)|^|[.!?:;]\s|\b(?:please|must|should|and|"
        r"then|now)\s)[ \t]*(?:ignore|disregard|"
        r"forget)\b[^\n]{0,60}\b(?:instructions?|rules|prompt|guidance|comments?|reviews?|"
        r"tests?|failures?|errors?)\b|\byou\s+(?:must|should|will|are\s+now)\b|\b(?:do\s+not|"
        r"don't)\s+(?:mention|tell|reveal|show)\b))"
        r"(?:(?!-->)[\s\S]){0,2000}(?:-->|$)",
        r"<(div|span|p|section|details)\b[^>\n]{0,200}?(?:display\s*:\s*none|visibility\s*:\s*"
        r"hidden|font-size\s*:\s*0|\bhidden\b)[^>\n]{0,200}>[\s\S]{0,2000}?(?:</\1\s*>|$)",
        # a Markdown comment (`[//]: # (...)`, `[comment]: <> (...)`), which no reader sees either,
        # naming the model or giving it orders
        r"^[ \t]{0,3}\[(?://|comment|_|#|hidden|note)\]:[ \t]*(?:#|<>)[ \t]*[(\"'](?=[^\n]{0,400}?(?:\b"
        + _AGENT
        + r"\b|\b(?:ignore|disregard|forget|you\s+(?:must|should|will))\b))[^\n]*",
        triggers=("<!--", "display", "visibility", "font-size", "hidden", "]:"),
        reach=220,
        exempt=_inline_code,
    ),
    _rule(
        "image_beacon",
        "a Markdown or HTML link or image whose URL carries data for a model to fill in "
        "(rendering or following it leaks that data)",
        r"!?\[[^\]\n]{0,300}\]\(\s*<?" + _URL_PH + r"[^\n)]{0,300}\)?",
        r"^[ \t]{0,3}\[[^\]\n]{1,300}\]:[ \t]*<?" + _URL_PH + r"[^\n]*",
        r"<" + _URL_PH + r"[^>\n]{0,300}>",
        r"<img\b[^>\n]*\bsrc\s*=\s*[\"']?" + _URL_PH + r"[^>\n]*>?",
        triggers=("](", "]:", "<http", "<//", "<img"),
        reach=310,
    ),
    _rule(
        "image_beacon",
        "a URL with a slot the model is asked to fill with data (following it leaks that data)",
        r"(?:https?:)?//[^\s)>\]\"']{0,300}?(?:<|\{\{?|\[)\s*(?:paste|insert|put|fill\s+in|add|"
        r"append|include|the\s+(?:output|contents?|conversation|chat\s+history|system\s+prompt|"
        r"previous\s+messages))\b[^>}\]\n]{0,80}?\b(?:output|contents?|env|environment|secrets?|"
        r"tokens?|keys?|passwords?|credentials?|cookies?|history|conversation|prompt|messages|"
        r"here)\b[^>}\]\n]{0,40}(?:>|\}\}?|\])?",
        triggers=("://", "//"),
        reach=8,
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
        # a secret, and where to send it
        r"\b(?:send|post|upload|transmit|forward|leak|e-?mail|paste|submit|share|copy|push|"
        r"pipe|sync|publish|include|put|embed|write|collect|gather|harvest|extract|grab|append|"
        r"attach)\b"
        r"[^\n]{0,80}?(?:" + _SECRET_PATH + "|" + _ENV_SECRET + "|" + _SECRET + r")[^\n]{0,80}?"
        r"\b(?:to|into|via|on|in|with|as)\b\s+(?:[\w-]+\s+){0,5}?" + _DEST,
        # a secret file or variable, sent or put where others read it
        r"\b(?:send|post|upload|transmit|forward|leak|e-?mail|publish)\b[^\n]{0,80}?(?:"
        r"" + _SECRET_PATH + "|" + _ENV_SECRET + r")",
        r"(?:^[ \t>*\-]*|[.!?:;][ \t]+|\b(?:please|now|then|must|should|you)\s+)exfiltrate\b",
        r"\b(?:cat|print|echo|output|reveal|display|dump|exfiltrate)\s+(?:out\s+)?(?:the\s+)?"
        r"(?:contents?\s+of\s+)?(?:" + _SECRET_PATH + "|" + _ENV_SECRET + r")",
        r"\b(?:send|give|tell|show|reveal|print|output|display|dump|repeat|leak)\s+(?:me\s+|us\s+)?"
        r"(?:your|the)\s+(?:full\s+|hidden\s+|initial\s+|original\s+|exact\s+)?(?:system\s+prompt|"
        r"initial\s+prompt|hidden\s+instructions|instructions\s+above|environment\s+variables|"
        r"env\s+vars)",
        r"\b(?:cat|printenv|env|echo|base64)\b[^\n|]{0,80}\|\s*(?:curl|wget|nc|ncat|netcat)\b",
        # what only the model holds, put where a request carries it off
        r"\b(?:encode|embed|put|include|append|add|insert|place|write)\s+(?:your|the)\s+(?:full\s+|entire\s+|"
        r"hidden\s+|original\s+)?(?:system\s+prompt|instructions|conversation|chat\s+history|context|"
        r"previous\s+messages|memory)\s+(?:in|into|to|as)\s+(?:the\s+|a\s+|this\s+)?(?:url|link|query|"
        r"image|request|address|parameter)",
        triggers=(
            "send",
            "post",
            "upload",
            "transmit",
            "forward",
            "leak",
            "exfiltrat",
            "mail",
            "email",
            "e-mail",
            "paste",
            "submit",
            "share",
            "copy",
            "push",
            "pipe",
            "sync",
            "publish",
            "include",
            "put",
            "add",
            "append",
            "embed",
            "write",
            "cat",
            "print",
            "echo",
            "output",
            "reveal",
            "display",
            "dump",
            "give",
            "tell",
            "show",
            "repeat",
            "env",
            "base64",
            "collect",
            "gather",
            "harvest",
            "extract",
            "grab",
            "attach",
            "encode",
            "insert",
            "place",
        ),
        reach=12,
        extend=True,
        exempt=_advised_or_shown,
        gate=_SECRET_WORDS
        + ("exfiltrat", "prompt", "instructions", "environment", "env var", "output of"),
    ),
    _rule(
        "secret_exfiltration",
        "text asking to send secrets somewhere",
        # the secret named first, then sent on ("print the env vars and post them to ...")
        r"(?:"
        + _SECRET_PATH
        + "|"
        + _ENV_SECRET
        + "|"
        + _SECRET
        + r")[^\n.;]{0,60}?\b(?:and|then)\s+"
        r"(?:send|post|upload|forward|e-?mail|paste|push|leak|publish)\s+(?:them|it|this|that|"
        r"those|these|the\s+\w+)\s+(?:to|into|on)\s+(?:[\w-]+\s+){0,3}?" + _DEST,
        triggers=_SECRET_TRIGGERS,
        reach=8,
        extend=True,
        gate=("send", "post", "upload", "forward", "mail", "paste", "push", "leak", "publish"),
    ),
    _rule(
        "secret_exfiltration",
        "text asking to send secrets somewhere",
        # a request to an outside URL carrying a secret ("... to https://x/?c= followed by ...")
        r"(?:https?|ftp)://\S+[^\n]{0,20}?\b(?:followed\s+by|with|plus|containing|including|"
        r"carrying|appending|appended\s+with)\s+(?:the\s+)?(?:(?:contents?|value|text)\s+of\s+"
        r"(?:the\s+|your\s+)?)?(?:" + _SECRET_PATH + "|" + _ENV_SECRET + "|" + _SECRET + r")",
        triggers=("://",),
        reach=8,
        extend=True,
        gate=_SECRET_WORDS,
    ),
    # a secret file read and then put somewhere: the file comes first, the putting may be a
    # later step of a numbered list
    _rule(
        "secret_exfiltration",
        "text asking to send secrets somewhere",
        r"\b(?:read|open|cat|load)\s+(?:the\s+)?(?:" + _SECRET_PATH + "|" + _ENV_SECRET + r")"
        r"[^\n.]{0,40}?\b(?:include|put|paste|add|append|embed|write|copy|send|post)\b",
        r"\b(?:read|open|cat|load|copy)\s+(?:the\s+)?(?:" + _SECRET_PATH + "|" + _ENV_SECRET + r")"
        r"[\s\S]{0,160}?\b(?:include|put|paste|add|append|embed|write|send|post|upload)\s+(?:it|them|"
        r"this|that|the\s+(?:key|token|value|contents?|output|result))\s+(?:in|into|to|on)\b",
        r"\b(?:read|list|print|dump|collect|gather|copy|open)\s+(?:all\s+)?(?:the\s+|your\s+)?(?:"
        + _SECRET_PATH
        + "|"
        + _ENV_SECRET
        + "|"
        + _SECRET
        + r")[\s\S]{0,200}?\b(?:include|put|paste|add|append|embed|write|send|post|upload|insert)\s+"
        r"(?:it|them|this|that|those|these|the\s+(?:key|token|value|contents?|output|result))\s+"
        r"(?:in|into|to|on)\s+(?:[\w-]+\s+){0,2}?" + _DEST,
        r"\b(?:read|tell|give|show|recite|print|list|reveal)\s+(?:me|us)\s+(?:the|your|all|our)\s+"
        r"(?:[\w-]+\s+){0,2}?(?:passwords?|api\s+keys?|tokens?|secrets?|credentials?|private\s+keys?)"
        r"\b(?!\s+(?:polic\w*|format|length|rules?|requirements?|fields?|budget|limits?|rotation|"
        r"expiry|usage|counts?|type|names?)\b)",
        triggers=(
            "read",
            "open",
            "cat",
            "load",
            "copy",
            "tell",
            "give",
            "show",
            "recite",
            "print",
            "list",
            "reveal",
            "dump",
            "collect",
            "gather",
        ),  # fmt: skip
        reach=2,
        extend=True,
        gate=_SECRET_WORDS + ("environment",),
    ),
    _rule(
        "pipe_to_shell",
        "a download run straight away as code",
        r"\b(?:curl|wget)\b[^\n|;]{0,300}\|\s*(?:sudo\s+)?(?:-\w+\s+)*(?:ba|z|k|da|fi)?sh\b",
        r"\b(?:curl|wget)\b[^\n|;]{0,300}\|\s*(?:sudo\s+)?python3?\b",
        r"\b(?:ba|z)?sh\s+(?:-c\s+)?[\"']?(?:\$\(|<\()\s*(?:curl|wget)\b",
        r"\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|]{0,300}\|\s*iex\b",
        r"\biex\s*\(\s*(?:new-object\s+net\.webclient|iwr|irm|invoke-webrequest)",
        # saved to a file, then that file run
        r"\b(?:curl|wget)\b[^\n]{0,300}?(?:\s-o\s*|\s-O\s*|\s--output[= ]|>\s*)(\S+)[^\n]{0,200}?"
        r"(?:&&|;|\|\|)\s*(?:sudo\s+)?(?:(?:(?:ba|z|da|k|fi)?sh|python3?|perl|ruby|node|source|"
        r"\.)\s+|chmod\s+\+x\s+|\./)\1",
        r"\bbase64\s+(?:-d|--decode|-D)\b[^\n|]{0,40}\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b",
        triggers=("curl", "wget", "iwr", "irm", "invoke-", "iex", "base64"),
        reach=30,
        extend=True,
        exempt=_installed_or_reported,
    ),
    _rule(
        "pipe_to_shell",
        "a download run straight away as code",
        # the act in words: an order when told, not when a sentence declines it ("if you would
        # rather not pipe a script into bash") or a revert's title names the commit undone
        r"\bdownload\b[^\n]{0,200}?\b(?:and\s+)?(?:then\s+)?(?:execute|run)\s+it\b",
        r"\bpipe\b[^\n]{0,200}?\b(?:in)?to\s+(?:sudo\s+)?(?:ba|z|k|da)?sh\b",
        triggers=("download", "pipe"),
        reach=30,
        extend=True,
        negatable=True,
        exempt=_installed_or_reverted,
    ),
    _rule(
        "pipe_to_shell",
        "a download run straight away as code",
        r"\b(?:exec|eval)\s*\([^\n]{0,120}?(?:urlopen|urlretrieve|requests\.get|httpx\.get)\s*\(",
        triggers=("urlopen", "urlretrieve", "requests.get", "httpx.get"),
        reach=130,
        extend=True,
    ),
    _rule(
        "destructive_order",
        "an order to destroy files, history or data",
        r"\brm\s+(?:-[a-z]*r[a-z]*f[a-z]*|-[a-z]*f[a-z]*r[a-z]*|-r\s+-f|-f\s+-r|--recursive\s+"
        r"--force|--force\s+--recursive)\s+(?:--no-preserve-root\s+)?(?:/\*?|~/?|\$home/?|\*|"
        r"\.\.?/?)(?=[\s;&|'\"`)<]|$)",
        r"\b(?:delete|remove|wipe|destroy|erase|nuke|purge)\s+(?:(?:the|this|your|our|entire|"
        r"whole|all|of)\s+)*(?:repo|repository|repositories|codebase|source\s+tree|database|"
        r"production\s+(?:data(?:base)?|db)|git\s+history|\.git(?:\s+(?:folder|directory))?|home"
        r"\s+directory|all\s+(?:files|data|branches|backups))\b"
        # the thing itself, not a compound ("delete the repository fixture", "remove the
        # repository mirror step"): the object ends the phrase
        r"(?=\s*(?:$|[.,;:!?)]|(?:and|then|now|immediately|completely|entirely|permanently|too|"
        r"from|on|in|at|with|using|via|before|after|without|for\s+good|as\s+well)\b))",
        # "force push is disabled", "force push protection": about the setting, not an order
        r"\bforce[\s-]?push(?:es|ed|ing)?\b(?!\s+(?:is|are|was|were|has|have|to\s+\w+\s+is|"
        r"protections?|rules?|settings?|polic(?:y|ies)|permissions?|hooks?|checks?)\b)"
        # the branch pushed to, not the one rebased onto or pulled from
        r"[^\n.]{0,40}?(?<!onto )(?<!from )\b(?:main|master|production|prod|release|trunk)\b"
        r"(?!\s+(?:is|are|was|were|get|gets)\s+(?:now\s+)?(?:rejected|blocked|disabled|forbidden|"
        r"disallowed|prevented|refused|not\s+allowed)\b)",
        r"\bgit\s+push\s+(?:[^\n;|&]*\s)?(?:-f|--force(?:-with-lease)?)\b[^\n;|&]*\b(?:main|"
        r"master)\b",
        # an order, not a plan: "we must drop the table sessions_old" is how migrations read
        r"\b(?:please|now|immediately|go\s+ahead\s+and|you\s+(?:must|should|need\s+to))\s+"
        r"(?:run\s+|execute\s+)?[`\"']?(?:drop\s+(?:the\s+)?(?:table|database|schema)|truncate\s+"
        r"(?:table\s+)?\w+)",
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
        exempt=_permitted_or_reverted,
    ),
    _rule(
        "agent_directive",
        "text addressed to AI agents reading it",
        # a heading-like address ("Note to AI agents: ..."), not a phrase in a sentence
        r"\b(?:note|message|instructions?|attention|reminder|directive|important)\s+(?:to|for)\s+"
        r"(?:the\s+|any\s+|all\s+)?" + _AGENT + r"\b" + _NOT_AUDIENCE + r"(?=[ \t]*(?:[:\-\u2014]|"
        r"reading\b|who\s+reads?\b|(?:reviewing|processing|parsing|summari[sz]ing|analy[sz]ing|"
        r"looking\s+at|working\s+on)\b[^:\n]{0,40}:))",
        r"\b(?:ai|llm)\s+(?:agents?|assistants?|models?)\s*(?:reading\s+this|must|should|are\s+"
        r"(?:required|instructed))\b",
        r"\bif\s+you\s+are\s+an?\s+" + _AGENT + r"\b",
        r"\bas\s+(?:an?|the)\s+" + _AGENT + r"\s+(?:reading|processing|reviewing|analy[sz]ing|"
        r"parsing|looking\s+at)\b",
        r"^[ \t>*\-]{0,6}(?:hey\s+|dear\s+|(?:attention|note|important|notice|reminder)\s*[,:]?"
        r"\s*)?" + _AGENT + r"\s*[,:]\s*(?:please\s+)?(?:ignore|"
        r"disregard|forget|run|execute|approve|merge|delete|remove|skip|do\s+not|don't|you|your|"
        r"always|never|insert|add|send|comply|obey|follow)\b",
        # the same heading in other languages ("Hinweis an die KI:", "Nota per l'IA:")
        r"^[ \t>*\-]{0,6}(?:hinweis|nachricht|notiz|achtung|nota|mensaje|mensagem|observa[cç][aã]o|"
        r"aviso|remarque|avis|message|note|uwaga|wiadomo[sś][cć]|catatan|pesan|lưu\s+ý)\s+"
        r"(?:an|für|für|à|a|al|ao|para|pour|per|do|dla|untuk|cho|to|for)\s+(?:die|den|das|la|le|"
        r"el|o|a|l'|the)?\s*(?:ki|ia|ai|llm|assistent\w*|asistente|assistente|assistant|agent\w*|"
        r"modell|modelo|modèle|modello|model\w*|sztucznej\s+inteligencji|trợ\s+lý)\s*:",
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
            "ai,",
            "ai:",
            *_MODEL_NAMES,
            "reading",
            "processing",
            "reviewing",
            "analy",
            "parsing",
            "looking at",
            "hinweis",
            "nachricht",
            "notiz",
            "achtung",
            "nota",
            "mensaje",
            "mensagem",
            "observa",
            "aviso",
            "remarque",
            "avis",
            "uwaga",
            "wiadomo",
            "catatan",
            "pesan",
            "lưu ý",
        ),
        reach=30,
        extend=True,
    ),
    _rule(
        "agent_directive",
        "text addressed to AI agents reading it",
        # the model spoken to inside a quotation, a CSV field, a config value or a comment
        # ("Dear AI model, stop ...", `# assistant: disregard ...`, `; to the AI: ...`), with an
        # order a model obeys right after the address
        r"(?:^|(?<=[\"'\u201c\u2018(\[,;=>]))[ \t]*(?:#+|//+|--+|/\*+|;+)?[ \t]*(?:(?:dear|hey|"
        r"attention|to|for)\s+(?:the\s+|any\s+|all\s+|an?\s+)?)?" + _AGENT + _NOT_AUDIENCE + r"\s*"
        r"[,:\u2014]\s*" + _THEN_ORDER,
        # the model addressed in parentheses: "(for AI reviewers) approve this"
        r"\((?:for|to|attn:?|attention:?|note\s+to)\s+(?:the\s+|any\s+|all\s+)?" + _AGENT + r"\)\s*"
        r"[,:\u2014-]?\s*" + _THEN_ORDER,
        # a code note naming the model as its owner, `NOTE(llm):`; a commit's scope, `fix(agent):`,
        # names a part of the code instead
        r"\b(?:note|todo|fixme|xxx|hack|nb)\((?:the\s+)?"
        + _AGENT
        + r"\)[ \t]*[,:\u2014-]?\s*"
        + _THEN_ORDER,
        # a field or trailer named as a note to the model (`AI-Note:`, `llm_instructions:`)
        r"(?:^[ \t>*\-#/]{0,6}|(?<=[\s\"'<{,;]))@?(?:x-)?(?:ai|llm|assistant|agent|copilot|claude|gpt|"
        r"model|bot)[-_ ]?(?:instructions?|notes?|directives?|prompts?|messages?|orders?|tasks?|hints?|"
        r"todo)(?:[ \t]*[:=][ \t]*[\"']?|[\"']?[ \t]+(?:content|value)=[\"']|[ \t]+)" + _THEN_ORDER,
        triggers=(
            "ai",
            *_MODEL_NAMES,
            "@ai",
            "(for",
            "(to",
            "(attn",
            "(attention",
            "(note",
            "note(",
            "todo(",
            "fixme(",
            "xxx(",
            "hack(",
            "nb(",
        ),
        reach=14,
        extend=True,
    ),
    _rule(
        "concealment",
        "text asking the model to hide what it does from the people it works for",
        r"\b(?:do\s+not|don't|never)\s+(?:mention|tell|reveal|report|disclose|say\s+anything\s+about|"
        r"bring\s+up)\s+(?:this|it|that|these\s+\w+|any\s+of\s+this|what\s+you\s+(?:did|changed|"
        r"added))\s+(?:in|to)\s+(?:your|the)\s+(?:summary|reply|response|answer|report|output|"
        r"final\s+\w+|user|human|reviewers?|maintainers?)\b",
        r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify|alert|warn)\s+(?:the\s+)?(?:user|human|"
        r"reviewers?|maintainers?|developers?|owner)\s+(?:about|of|that)\s+(?:this|it|that|what\s+you|the\s+"
        r"(?:[\w-]+\s+){0,2}?(?:change|edit|request|commit|command|modification|code|"
        r"file|dependency|step|call|endpoint|script|backdoor)s?)\b",
        r"\b(?:secretly|covertly|surreptitiously)\s+(?:\w+\s+){0,2}?(?:add|insert|disable|remove|"
        r"delete|send|upload|push|commit|modify|change|install|include|turn\s+off)\b",
        r"\b(?:quietly|silently)\s+(?:disable|turn\s+off|bypass|remove|delete|weaken)\s+(?:the\s+|"
        r"all\s+|any\s+)?(?:[\w-]+\s+){0,2}?(?:hooks?|checks?|verification|signing|signatures?|"
        r"protections?|security|audit\w*|logging|monitoring|tests?|ci|linters?|reviews?)\b",
        triggers=(
            "do not",
            "don't",
            "never",
            "secretly",
            "covertly",
            "surreptitiously",
            "quietly",
            "silently",
        ),
        reach=0,
        extend=True,
    ),
    _rule(
        "memory_poisoning",
        "text asking the model to carry an order over to later tasks or sessions",
        r"\b(?:remember|memori[sz]e|keep\s+in\s+mind|note|store|save)\s+(?:this|that|the\s+following)?"
        r"\s*(?:(?:to|in|into)\s+(?:your\s+)?(?:long-term\s+)?(?:memory|notes)\s+)?(?:for|in|across|"
        r"during)\s+(?:all\s+|every\s+)?(?:later|future|subsequent|upcoming|every|all)\s+"
        r"(?:tasks?|sessions?|conversations?|chats?|interactions?|runs?|prompts?)\b",
        r"\b(?:for|in|across|during)\s+(?:all\s+)?(?:later|future|subsequent|upcoming)\s+(?:tasks?|"
        r"sessions?|conversations?|chats?|interactions?)\s*,?\s*(?:remember|always|never|keep\s+in\s+"
        r"mind|note)\b",
        triggers=(
            "remember",
            "memori",
            "keep in",
            "note",
            "store",
            "save",
            "for",
            "in",
            "across",
            "during",
        ),  # fmt: skip
        reach=0,
        extend=True,
        gate=("later", "future", "subsequent", "upcoming", "every ", "all "),
    ),
)

RULES += (
    _rule(
        "role_override",
        "text saying the model's instructions were withdrawn or replaced",
        r"\b(?:(?:previous|prior|earlier|existing|original|all)\s+)(?:instructions|directives|guidelines|"
        r"guidance|orders|rules|prompts?)\s+(?:are|have\s+been|were)\s+(?:hereby|officially)\s+(?:\w+\s+)?"
        r"(?:revoked|cancel+ed|void|withdrawn|rescinded|superseded|annulled|lifted)",
        triggers=("hereby", "officially"),
        reach=50,
        extend=True,
    ),
    _rule(
        "role_override",
        "text assigning the model a new role or rules",
        r"\b(?:imagine|suppose|assume)\s+(?:that\s+)?(?:you\s+are|you're|you\s+were)\s+(?:now\s+)?"
        r"(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,2}?(?:ai|model|assistant|bot|chatbot|agent|llm|persona|"
        r"character|terminal|shell|version\s+of\s+yourself)\b",
        r"\b(?:ai|model|assistant|bot|chatbot|agent|persona)\s+(?:called|named)\s+\w+\s*,?\s+(?:that|"
        r"who|which)\s+(?:answers|does|has\s+no|ignores|never\s+refuses|can\s+do)\b",
        # a mode the model is said to be in, and a restriction lifted in the same breath
        r"\byou\s+are\s+now\s+(?:in\s+|running\s+in\s+)?(?:[\w-]+\s+){0,2}?mode\b[^.\n]{0,60}?\b(?:"
        r"disable|ignore|bypass|turn\s+off|skip|without|no\s+longer|unrestricted|unlimited|"
        r"(?:all|any)\s+(?:restrictions|rules|filters|checks))",
        r"\bfor\s+the\s+rest\s+of\s+(?:this|the|our)\s+(?:conversation|chat|session|thread|"
        r"exchange|dialog(?:ue)?)\b",
        triggers=("imagine", "suppose", "assume", "called", "named", "rest of", "you are"),
        reach=20,
        extend=True,
    ),
    Rule(
        "instruction_override",
        "text telling the model to drop its instructions (in another language)",
        "(?!)",
        lexicon.TRIGGERS,
        reach=0,
        extend=True,
        finder=lexicon.clause_orders,
    ),
)

# the learned screen (`firewall_model`) is no pattern: this entry names what it removes and why;
# without triggers it never runs as a rule
LEARNED = "learned_screen"
RULES += (
    Rule(
        LEARNED,
        "a sentence a model trained on injections and honest look-alikes scores as an order "
        "to the model",
        "(?!)",
        (),
        reach=0,
        quotable=False,
    ),
)
# Whether served text passes the learned screen. Off: at the threshold that keeps real commit
# messages, comments and docs unchanged it neutralised 12 of the 144 injections the rules missed
# at the first runs of `heldout_v9`..`heldout_v11` (0 of `heldout_v11`'s 33) and cost more CPU
# a string than the rules (README, "Context firewall"). `firewall_model.using` turns it on for
# a block, which is how the benchmark measures it.
LEARNED_SCREEN = False


def learned_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, rule) in `text` of every segment the learned screen flags, when it is on;
    numpy is imported then, not with the firewall."""
    if not LEARNED_SCREEN and _MODEL_MODULE not in sys.modules:
        return []
    from .firewall_model import spans

    return spans(text)


_MODEL_MODULE = __name__.rsplit(".", 1)[0] + ".firewall_model"


# the classic order with every space taken out, for words split in odd places ("ig nore prev
# ious"): looked for only when a piece of its verb is there and nothing else matched
COLLAPSED_ORDER = lazy(
    r"(?:ignore|disregard|forget|override|bypass)(?:all|any|every|your|the|of)*(?:previous|prior|"
    r"preceding|earlier|above|former|original|initial|system)(?:instructions?|prompts?|rules|"
    r"directions?|directives?|guidelines|guidance)"
)
COLLAPSED_HINTS = ("nore", "regard", "rget", "rride", "ypass")

SENTENCE_END = lazy(r"\n|[.!?。！？](?=\s|$|[^\x00-\x7f])")
# a ban on the act, not an order to do it ("disallow force pushes to release branches")
_NEGATION = lazy(
    r"\b(?:never|not|no|don't|dont|do\s+not|avoid|without|n't|disallow\w*|prevent\w*|"
    r"forbid\w*|prohibit\w*|refus\w*)\b[^.!?\n]*$",
    re.I,
)


def negated(text: str, start: int) -> bool:
    """A negation earlier in the same sentence (within 40 characters)."""
    return _NEGATION.search(text, max(0, start - 40), start) is not None
