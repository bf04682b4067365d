"""An order to drop instructions, recognised in many languages by its parts within one clause.

Every language says "ignore / forget / do not follow" + "the (previous / your / system)
instructions" with its own words and in its own order (verb first in Finnish, last in Persian
and Hindi; no spaces in Thai, Chinese or Japanese; particles glued to Hebrew and Arabic nouns).
So the parts are looked for, not a phrase: a word for the model's orders (the anchor, found by
the firewall's trigger scan), and in the same clause a verb that drops or disobeys and a word
saying which orders (previous, above, the system's, the reader's own, what the reader was
told). A word for orders that developers use too ("commands", 命令, 명령) needs the reader's
own ("your commands") to count. English is left to the regex rules, which know its grammar:
no English word is in these lists but the borrowed "prompt".

Lists are stems, lower case; a stem in a script written with spaces must start a word.
"""

from __future__ import annotations

import re
import sys
import weakref
from collections.abc import Callable, Iterator

from ..store.regexcache import compile_pattern
from . import firewall_languages as languages


class LazyPattern:
    """A regex compiled on its first use. The firewall holds many; a one-shot process serves a
    few strings and compiling them all would cost it tens of milliseconds, most for patterns
    its strings never reach. Once compiled, the pattern's own methods replace these (set on
    the instance, they are found before the class's): a call costs what a compiled one does."""

    def __init__(self, source: str | Callable[[], str], flags: int = 0) -> None:
        self._source, self._flags = source, flags  # a callable builds the source when needed
        self._compiled: re.Pattern[str] | None = None

    @property
    def ready(self) -> bool:
        """Whether the pattern is compiled already (using it costs no compilation)."""
        return self._compiled is not None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            source = self._source if isinstance(self._source, str) else self._source()
            pattern = self._compiled = compile_pattern(source, self._flags)
            for name in ("search", "match", "fullmatch", "finditer", "findall", "split", "sub"):
                self.__dict__[name] = getattr(pattern, name)
        return self._compiled

    def search(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(s, pos, endpos)

    def match(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(s, pos, endpos)

    def fullmatch(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.fullmatch(s, pos, endpos)

    def finditer(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(s, pos, endpos)

    def findall(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> list:
        return self.compiled.findall(s, pos, endpos)

    def split(self, s: str, maxsplit: int = 0) -> list[str]:
        return self.compiled.split(s, maxsplit)

    def sub(self, repl: str | Callable[[re.Match[str]], str], s: str, count: int = 0) -> str:
        return self.compiled.sub(repl, s, count)


# every pattern made by `lazy`, for `compile_all` (weak: a pattern dropped is not kept alive)
_MADE: weakref.WeakSet[LazyPattern] = weakref.WeakSet()


def lazy(source: str | Callable[[], str], flags: int = 0) -> LazyPattern:
    """`re.compile`, deferred to the first use (`source` may be a function that builds it)."""
    pattern = LazyPattern(source, flags)
    _MADE.add(pattern)
    return pattern


def any_of(words: tuple[str, ...]) -> LazyPattern:
    """A pattern whose `search(text)` finds something exactly when
    `any(w in text for w in words)`: one scan in the regex engine instead of a Python loop
    over the words (that loop, run on every served string, was a tenth of the firewall's time
    on the strings a preflight serves)."""
    return lazy("|".join(re.escape(w) for w in dict.fromkeys(words)) if words else "(?!)")


def compile_all() -> None:
    """Compile every pattern `lazy` has made: a long-lived server pays it once, up front."""
    for pattern in list(_MADE):
        pattern.compiled  # noqa: B018  (the property compiles it)


# verbs that drop or disobey an order (imperative or infinitive), by language
VERBS: tuple[str, ...] = (
    # German, Dutch, Scandinavian
    "ignorier", "vergiss", "vergesst", "vergessen sie", "missacht", "übergeh", "negeer", "vergeet",
    "ignorera", "strunta i", "glöm", "bortse från", "ignorer", "glem", "se bort fra",
    # Romance ("ignore" is Portuguese too: an English text has no word below saying which)
    "ignore", "ignorez", "ignorer", "ignora", "ignorar", "ignorate", "ignoră", "ignorați", "oublie", "ne tiens pas compte", "ne tenez pas compte", "ne suis plus", "ne suivez",
    "olvid", "haz caso omiso", "haga caso omiso", "descart", "desestim", "esquec", "esqueç",
    "desconsider", "despreze", "não siga", "nao siga", "dimentic", "non seguire", "trascura",
    "uită", "uitați", "uitati", "nu ține cont", "nu tine cont", "nu urma",
    # Slavic, Greek, Baltic-Finnic, Hungarian
    "zignoruj", "ignoruj", "ignorujte", "zapomnij", "nie stosuj", "pomiń", "zapomeň", "zabudni", "nevšímej",
    "игнорир", "проигнорир", "забудь", "забыть", "не обращай", "не следуй", "пренебреги",
    "ігнору", "проігнору", "не зважай", "αγνόησ", "αγνοήσ", "ξέχασ", "μην ακολουθ",
    "unohda", "ohita", "älä välitä", "sivuuta", "figyelmen kívül", "felejtsd", "ne törődj",
    # Turkish, Indonesian / Malay, Vietnamese, Tagalog
    "yok say", "görmezden gel", "unut", "dikkate alma", "abaikan", "lupakan", "jangan ikuti",
    "hiraukan", "bỏ qua", "quên", "phớt lờ", "đừng làm theo", "huwag pansinin", "kalimutan",
    "balewalain",
    # Hebrew, Arabic, Persian, Hindi, Bengali, Thai
    "התעלם", "תתעלם", "שכח", "אל תציית", "تجاهل", "انس", "لا تتبع", "نادیده", "فراموش کن",
    "توجه نکن", "अनदेखा", "नज़रअंदाज़", "नजरअंदाज", "भूल जा", "भूल जाओ", "उपेक्षा", "উপেক্ষা",
    "ভুলে যাও", "เพิกเฉย", "ลืม", "ไม่ต้องสนใจ", "ละเว้น",
    # Chinese, Japanese, Korean
    "忽略", "无视", "無視", "忽视", "忽視", "忘记", "忘記", "忘掉", "不要理", "别管", "別管",
    "不要遵守", "不要遵循", "忘れ", "무시", "잊어", "잊으", "잊고",
)  # fmt: skip

# words for the orders a model is given
NOUNS: tuple[str, ...] = (
    "anweisung", "instruktion", "vorgabe", "richtlinie", "regeln", "instruction", "consigne",
    "règle", "directive", "instruccion", "instrucción", "reglas", "indicaciones", "directric",
    "pautas", "instruç", "instruc", "regras", "diretriz", "orientaç", "istruzion", "regole",
    "direttiv", "indicazion", "instructie", "regels", "richtlijn", "polece", "instrukcj", "zasad",
    "reguł", "wytyczn", "pokyn", "instrukc", "pravid", "инструкци", "указани", "правил",
    "директив", "промпт", "інструкці", "вказівк", "instrucțiun", "instrucţiun", "instructiun",
    "reguli", "regulile", "directiv", "instruktion", "regler", "riktlinj", "anvisning", "instruks",
    "retningslinj", "ohje", "sääntö", "säännö", "utasítás", "szabály", "talimat", "kural",
    "yönerge", "instruksi", "aturan", "petunjuk", "arahan", "hướng dẫn", "chỉ dẫn", "quy tắc",
    "chỉ thị", "tagubilin", "panuto", "patakaran", "οδηγί", "οδηγι", "κανόν", "κανον", "הוראות",
    "הנחיות", "כללים", "تعليمات", "قواعد", "إرشادات", "ارشادات", "توجيهات", "دستورالعمل",
    "دستورات", "قوانین", "निर्देश", "नियम", "প্রম্পট", "নির্দেশ", "নিয়ম", "คำแนะนำ", "กฎ",
    "指示", "指令", "规则", "規則", "提示词", "提示詞", "ルール", "プロンプト", "지시", "지침", "규칙",
    "프롬프트", "prompt", "प्रॉम्प्ट", "systemprompt",
    # what the reader was told
    "gesagt", "mitgeteilt", "dicho", "dito", "detto", "verteld", "gezegd", "powiedziano",
    "сказано", "говорили", "řečeno", "sanottu", "mondták", "söylenen", "dikatakan",
)  # fmt: skip

# words for orders that developers use as well: an order only with the reader's own
WEAK_NOUNS = (
    "befehle", "commandes", "comandos", "comandi", "ordens", "ordini", "órdenes", "команд",
    "komut", "perintah", "εντολ", "أوامر", "اوامر", "आदेश", "คำสั่ง", "命令", "명령",
)  # fmt: skip

# which orders: earlier, above, the system's
WHICH: tuple[str, ...] = (
    "vorherig", "bisherig", "obig", "vorangegangen", "früher", "ursprünglich", "vorher",
    "précédent", "antérieur", "ci-dessus", "plus haut", "avant", "anterior", "previa", "previo",
    "previas", "previos", "anteriores", "anteriori", "precedenti", "precedentes",
    "antes", "prévi", "precedent", "sopra", "prima", "eerder", "vorige", "bovenstaande",
    "hiervoor", "poprzedni", "wcześniejsz", "powyższ", "předchozí", "dřívější", "výše",
    "предыдущ", "прежн", "выше", "раньше", "ранее", "попередн", "раніше", "вище", "anterioar",
    "de mai sus", "tidigare", "föregående", "ovanstående", "tidligere", "forrige", "ovenstående",
    "aiemm", "edellis", "aikaisemm", "korábbi", "előző", "fenti", "önceki", "yukarıdaki",
    "sebelumnya", "di atas", "trước đó", "trước đây", "ở trên", "προηγούμεν", "παραπάνω",
    "הקודמות", "הקודמים", "קודמות", "السابقة", "السابق", "سابقة", "قبلی", "پیشین", "पिछले",
    "पिछली", "पूर्व", "ऊपर", "আগের", "ก่อนหน้า", "ข้างต้น", "以前", "これまで", "今まで", "上記",
    "前の", "先ほど", "之前", "上面", "以上", "前面", "先前", "이전", "앞에서", "앞의", "위의",
    "지금까지", "système", "sistema", "sistem", "систем", "σύστημα", "συστήματ",
    "מערכת", "النظام", "سیستم", "सिस्टम", "システム", "系统", "系統", "시스템",
)  # fmt: skip

# the reader's own, or given to the reader
YOURS: tuple[str, ...] = (
    "dein", "dir", "euch", "tes", "vos", "ton", "donné", "reçu", "tus", "tuas", "teus", "suas",
    "seus", "recibid", "recebid", "dadas", "tue", "tuoi", "ricevut", "state date", "jouw",
    "swoich", "swoje", "twoje", "twoich", "otrzyman", "svoje", "své", "tvoje", "сво", "тво",
    "ваш", "тебе", "данн", "полученн", "свої", "твої", "ваші", "tale", "voastre", "dina", "dine",
    "sinun", "sana", "senin", "verilen", "kamu", "anda", "của bạn", "σου", "שלך", "שקיבלת",
    "الخاصة بك", "अपने", "अपनी", "तुम्हारे", "तुम्हारी", "आपके", "आपकी", "दिए गए", "ของคุณ",
    "あなたの", "你的", "您的", "너의", "당신의", "받은",
)  # fmt: skip


# the same parts in further languages (`firewall_languages`)
VERBS += languages.entries("override")
NOUNS += languages.entries("orders")
WHICH += languages.entries("which")
YOURS += languages.entries("you")


def _spaced(word: str) -> bool:
    """A word of a script written with spaces and without glued particles: it must start a
    word. Thai, Chinese, Japanese and Korean have no such starts to find; Hebrew and Arabic
    glue articles and prepositions to the noun (ההוראות, التعليمات); Burmese and Khmer, like Thai
    and Lao, write a sentence's words without spaces between them."""
    cp = ord(word[0])
    return (
        word[0].isalnum()
        and cp < 0x2E80
        and not (0x0590 <= cp <= 0x06FF or 0x0E00 <= cp <= 0x0EFF)
        and not (0x1000 <= cp <= 0x109F or 0x1780 <= cp <= 0x17FF)  # Burmese, Khmer
    )


# words that begin English ones ("previo" is Spanish, "previous" English): whole words only
_WHOLE = frozenset(
    {"previo", "previa", "previos", "previas", "anterior", "avant", "precedent", "prima", "sopra"}
)


def trie(words: list[str], *, loose_spaces: bool = False) -> str:
    """A regex for any of `words`, factored by prefix (a regex engine tries an alternation
    branch by branch, a factored one a character at a time); a word that is a prefix of another
    is enough to find both. `loose_spaces`: a space in a word matches any run of white space."""
    tree: dict = {}
    for w in words:
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        if "" in node:
            return ""
        branches = [
            (r"\s+" if loose_spaces and ch == " " else re.escape(ch)) + emit(child)
            for ch, child in sorted(node.items())
        ]
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return emit(tree)


def _alternation(words: tuple[str, ...], whole: int = 0) -> LazyPattern:
    """Any of `words`; in a script written with spaces, one starts a word, and one of at most
    `whole` letters is a whole word ("tes" is French, not the start of "tests")."""

    def source() -> str:
        low = sorted({w.lower() for w in words})
        exact = [w for w in low if _spaced(w) and (len(w) <= whole or w in _WHOLE)]
        stems = [w for w in low if _spaced(w) and w not in exact]
        glued = [w for w in low if not _spaced(w)]
        parts = [r"(?<![^\W\d_])" + trie(stems, loose_spaces=True)]
        if exact:
            parts.append(r"(?<![^\W\d_])" + trie(exact, loose_spaces=True) + r"(?![^\W\d_])")
        if glued:
            parts.append(trie(glued, loose_spaces=True))
        return "|".join(parts)

    return lazy(source, re.IGNORECASE)


_VERB = _alternation(VERBS, whole=4)
_NOUN = _alternation(NOUNS)
_WEAK = _alternation(WEAK_NOUNS)
_WHICH = _alternation(WHICH + YOURS, whole=4)
_YOURS = _alternation(YOURS, whole=4)
_BOUNDARY = lazy(r"[.!?;\n\u3002\uff01\uff1f\u0964]")
_REACH = 100  # characters either side of the noun: a clause, not a paragraph


def clause_orders(view: str, starts: list[int]) -> list[tuple[int, int]]:
    """Spans of the clauses around `starts` (where a word for orders begins) that hold a verb
    dropping them and a word saying which ones; the span runs from the first of the three
    parts to the last."""
    out: list[tuple[int, int]] = []
    if _VERB.search(view) is None:  # one scan: most texts with a word for orders drop none
        return out
    done = -1
    for p in starts:
        if p < done:
            continue
        noun = _NOUN.match(view, p)
        weak = None if noun else _WEAK.match(view, p)
        if noun is None and weak is None:
            continue
        end_noun = (noun or weak).end()  # type: ignore[union-attr]
        lo = max(p - _REACH, 0)
        cut = [m.end() for m in _BOUNDARY.finditer(view, lo, p)]
        lo = cut[-1] if cut else lo
        nxt = _BOUNDARY.search(view, end_noun, min(len(view), end_noun + _REACH))
        hi = nxt.start() if nxt else min(len(view), end_noun + _REACH)
        verb = _VERB.search(view, lo, hi)
        which = (_WHICH if noun else _YOURS).search(view, lo, hi)
        if verb is None or which is None:
            continue
        out.append((min(p, verb.start(), which.start()), max(end_noun, verb.end(), which.end())))
        done = hi
    return out


TRIGGERS = tuple(sorted({w.lower() for w in NOUNS + WEAK_NOUNS}))

__all__ = [
    "LazyPattern",
    "lazy",
    "NOUNS",
    "TRIGGERS",
    "VERBS",
    "WEAK_NOUNS",
    "WHICH",
    "YOURS",
    "clause_orders",
    "trie",
]
