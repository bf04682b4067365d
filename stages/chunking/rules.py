"""Declaration patterns of the structural chunker, per language, and the naming functions that
the tree-sitter backend shares with it (Rust impl names, Go receiver types, member heads).

Every pattern is line-anchored and runs on masked text (no strings, no comments). The patterns
only find declaration heads; `structural.py` finds bodies and nesting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...store.regexcache import compile_pattern
from .source import SIGNATURE_MAX


@dataclass(frozen=True)
class Decl:
    pattern: re.Pattern[str]
    kind: str
    # "brace": needs a {...} body; "brace_or_semi": or ends at `;` (Rust structs);
    # "statement": ends with its statement (type aliases); "go_type": brace if struct/interface,
    # else statement; "value": `name = <function>`; "assigned": top-level `a.b = <function>`;
    # "defined": top-level `helper(obj, 'name', <function>)` (the name's quotes masked);
    # "impl": Rust impl block; "scope": a
    # namespace whose body may hold keyword-less functions, not a symbol itself
    mode: str = "brace"
    # JS: a `function` / `class` that continues an expression is not a declaration
    statement_only: bool = False
    # text every line such a declaration starts on holds (the whole match is on that line):
    # only those lines are tried, which is cheaper than a line-anchored scan of every line
    hint: re.Pattern[str] | None = None


@dataclass(frozen=True)
class LanguageRules:
    decls: list[Decl]
    groups: list[re.Pattern[str]] = field(default_factory=list)
    # (pattern, is_field): keyword-less members directly inside a body of a kind in `scopes`
    members: list[tuple[re.Pattern[str], bool]] = field(default_factory=list)
    scopes: frozenset[str] = frozenset()
    top_level_methods: bool = False
    modifiers: frozenset[str] = frozenset()
    # constructors: a member head without a return type is valid only when named like its class
    constructors: bool = False
    # the body brace must follow on the head's line or the next one (Kotlin, Swift, Scala)
    newline_stops: bool = False


KIND = {
    "class": "class",
    "object": "class",
    "record": "class",
    "actor": "class",
    "interface": "interface",
    "protocol": "interface",
    "@interface": "interface",
    "struct": "struct",
    "union": "struct",
    "enum": "enum",
    "trait": "trait",
    "impl": "impl",
    "extension": "impl",
    "type": "type",
}

# never a method name or a return type of one (control flow and expression keywords)
DENY = frozenset(
    [
        "class",
        "interface",
        "record",
        "if",
        "for",
        "foreach",
        "while",
        "switch",
        "catch",
        "function",
        "return",
        "with",
        "do",
        "else",
        "new",
        "typeof",
        "await",
        "yield",
        "super",
        "this",
        "throw",
        "throws",
        "case",
        "goto",
        "delete",
        "sizeof",
        "using",
        "lock",
        "fixed",
        "unless",
        "until",
        "elif",
    ]
)


def _p(body: str) -> re.Pattern[str]:
    return compile_pattern(r"(?m)^[ \t]*+" + body)


_ANN = r"(?:@[\w.$]+(?:\([^()\n]*\))?[ \t]++)*"
_JS_EXPORT = r"(?:export[ \t]++(?:default[ \t]++)?)?(?:declare[ \t]++)?"
_JS_MODS = (
    r"(?:(?:public|private|protected|static|readonly|abstract|override|async|declare|accessor"
    r"|get|set)[ \t]++)*"
)
_JS_FIELD_MODS = (
    r"(?:(?:public|private|protected|static|readonly|override|declare|accessor)[ \t]++)*"
)
_CSTYLE = _p(
    r"(?P<pre>(?:@[\w.$]+(?:\([^()\n]*\))?[ \t]++|[\w$.<>\[\]?,&*:~]+[ \t]++)*?)"
    r"[*&]*[ \t]*+(?P<name>(?:[A-Za-z_$][\w$]*::)*~?[A-Za-z_$][\w$]*)[ \t]*+\("
)
_RS_VIS = r"(?:pub(?:[ \t]*+\([^()\n]*\))?[ \t]++)?"
_CPP_CLASS = _p(
    r"(?:template[ \t]*+<[^\n]*>[ \t]*+)?(?:typedef[ \t]++)?"
    r"(?P<kw>class|struct|union|enum)(?:[ \t]++(?:class|struct))?[ \t]++(?:\w+[ \t]++)*?"
    r"(?P<name>\w+)(?=[ \t]*+(?:final\b[ \t]*+)?(?::(?!:)|\{|$))"
)

_JS = LanguageRules(
    decls=[
        Decl(
            _p(_JS_EXPORT + r"(?:async[ \t]++)?function\b[ \t]*+\*?[ \t]*+(?P<name>[\w$]+)"),
            "function",
            statement_only=True,
            hint=compile_pattern("function"),
        ),
        Decl(
            _p(
                _ANN + _JS_EXPORT + r"(?:abstract[ \t]++)?(?P<kw>class)[ \t]++"
                r"(?!extends\b|implements\b)(?P<name>[\w$]+)"
            ),
            "class",
            statement_only=True,
            hint=compile_pattern("class"),
        ),
        Decl(
            _p(_JS_EXPORT + r"(?P<kw>interface)[ \t]++(?P<name>[\w$]+)"),
            "interface",
            hint=compile_pattern("interface"),
        ),
        Decl(
            _p(_JS_EXPORT + r"(?:const[ \t]++)?(?P<kw>enum)[ \t]++(?P<name>[\w$]+)"),
            "enum",
            hint=compile_pattern("enum"),
        ),
        Decl(
            _p(
                r"(?:export[ \t]++)?(?:declare[ \t]++)?(?P<kw>type)[ \t]++(?P<name>[\w$]+)[ \t]*+"
                r"(?:<[^\n]*?>)?[ \t]*+=(?![=>])"
            ),
            "type",
            "statement",
            hint=compile_pattern("type"),
        ),
        Decl(
            _p(
                r"(?:export[ \t]++)?(?:declare[ \t]++)?(?:const|let|var)[ \t]++(?P<name>[\w$]+)"
                r"[ \t]*+(?::[^=;\n]*)?=(?![=>])[ \t]*+"
            ),
            "function",
            "value",
            hint=compile_pattern(r"\b(?:const|let|var)[ \t]"),
        ),
        Decl(
            _p(r"(?P<name>[\w$]++(?:[ \t]*+\.[ \t]*+[\w$]++)++)[ \t]*+=(?![=>])[ \t]*+"),
            "function",
            "assigned",
            statement_only=True,
            hint=compile_pattern(r"\.[ \t]*+[\w$]++[ \t]*+=(?![=>])"),
        ),
        Decl(
            _p(
                r"[\w$]++(?:[ \t]*+\.[ \t]*+[\w$]++)*+[ \t]*+\([ \t]*+"
                r"(?P<owner>[\w$]++(?:[ \t]*+\.[ \t]*+[\w$]++)*+)[ \t]*+,[ \t]*+"
                r"(?P<quote>['\"])(?P<name>[ ]+)(?P=quote)[ \t]*+,[ \t]*+"
            ),
            "function",
            "defined",
            statement_only=True,
            hint=compile_pattern(r",[ \t]*+['\"]"),
        ),
    ],
    members=[
        (
            _p(
                _ANN + _JS_MODS + r"(?:\*[ \t]*+)?(?P<name>#?[\w$]+)[ \t]*+[?!]?[ \t]*+"
                r"(?:<[^\n]*?>)?[ \t]*+\("
            ),
            False,
        ),
        (
            _p(
                _ANN + _JS_FIELD_MODS + r"(?P<name>#?[\w$]+)[ \t]*+[?!]?[ \t]*+(?::[^=;\n]*)?"
                r"=(?![=>])[ \t]*+"
            ),
            True,
        ),
    ],
    scopes=frozenset({"class"}),
)

_JAVA_MODS = frozenset(
    [
        "public",
        "private",
        "protected",
        "static",
        "final",
        "abstract",
        "synchronized",
        "native",
        "default",
        "strictfp",
        "transient",
        "sealed",
        "non-sealed",
    ]
)
_JAVA = LanguageRules(
    decls=[
        Decl(
            _p(
                _ANN + r"(?:(?:public|private|protected|static|final|abstract|sealed|non-sealed"
                r"|strictfp)[ \t]++)*(?P<kw>class|interface|enum|record|@interface)[ \t]++"
                r"(?P<name>\w+)"
            ),
            "class",
        )
    ],
    members=[(_CSTYLE, False)],
    scopes=frozenset({"class", "interface", "enum"}),
    modifiers=_JAVA_MODS,
    constructors=True,
)

_GO = LanguageRules(
    decls=[
        Decl(_p(r"func[ \t]++(?P<name>\w+)"), "function"),
        Decl(_p(r"func[ \t]*+(?P<recv>\([^()\n]*\))[ \t]*+(?P<name>\w+)"), "method"),
        Decl(
            _p(
                r"type[ \t]++(?P<name>\w+)(?:\[[^\]\n]*\])?[ \t]*+(?:=[ \t]*+)?"
                r"(?:(?P<kw>struct|interface)\b)?"
            ),
            "type",
            "go_type",
        ),
    ],
    groups=[_p(r"type[ \t]*+\(")],
)
# an associated type without a default (`type Item;`, `type Error: Bound;`), inside a trait
RUST_ASSOCIATED_TYPE = _p(
    r"type[ \t]++(?P<name>\w+)(?=[ \t]*+(?:<[^;=\n]*?>)?[ \t]*+(?::[^=;{}]*)?;)"
)
# an object literal whose members are exported: `module.exports = {`, `export default {`,
# `export const api = {` (the owner of the members: "exports", "default", the const's name)
JS_EXPORTED_OBJECT = _p(
    r"(?:(?P<cjs>(?:module[ \t]*+\.[ \t]*+)?exports)[ \t]*+=(?![=>])|(?P<default>export[ \t]++default)"
    r"|export[ \t]++(?:const|let|var)[ \t]++(?P<name>[\w$]+)[ \t]*+(?::[^=;\n]*)?=(?![=>]))"
    r"[ \t]*+\{"
)
JS_EXPORTED_OBJECT_HINT = compile_pattern("export")
# a method (`name(`) or a property (`name:`) at the start of a line of an object literal
JS_OBJECT_MEMBER = _p(
    r"(?:(?:async|get|set)[ \t]++)?(?:\*[ \t]*+)?(?P<name>[\w$]+)[ \t]*+(?:(?P<call>\()|:[ \t]*+)"
)
GO_SPEC = compile_pattern(
    r"(?m)^[ \t]*+(?P<name>\w+)(?:\[[^\]\n]*\])?[ \t]++(?:=[ \t]*+)?(?:(?P<kw>struct|interface)\b)?"
)

_RUST = LanguageRules(
    decls=[
        Decl(
            _p(
                _RS_VIS + r"(?:(?:default|const|async|unsafe|extern(?:[ \t]++\"[^\"\n]*\")?)"
                r"[ \t]++)*fn[ \t]++(?P<name>\w+)"
            ),
            "function",
        ),
        Decl(_p(_RS_VIS + r"(?P<kw>struct|union)[ \t]++(?P<name>\w+)"), "struct", "brace_or_semi"),
        Decl(_p(_RS_VIS + r"(?P<kw>enum)[ \t]++(?P<name>\w+)"), "enum"),
        Decl(
            _p(_RS_VIS + r"(?:unsafe[ \t]++)?(?:auto[ \t]++)?(?P<kw>trait)[ \t]++(?P<name>\w+)"),
            "trait",
        ),
        Decl(_p(_RS_VIS + r"(?P<kw>type)[ \t]++(?P<name>\w+)[^;=\n]*="), "type", "statement"),
        Decl(_p(r"(?:unsafe[ \t]++)?(?:default[ \t]++)?(?P<kw>impl)\b"), "impl", "impl"),
    ]
)

_CSHARP_MODS = frozenset(
    [
        "public",
        "private",
        "protected",
        "internal",
        "static",
        "virtual",
        "override",
        "abstract",
        "sealed",
        "async",
        "extern",
        "unsafe",
        "new",
        "partial",
        "readonly",
    ]
)
_CSHARP = LanguageRules(
    decls=[
        Decl(
            _p(
                r"(?:\[[^\n]*\][ \t]*+)*(?:(?:public|private|protected|internal|static|abstract"
                r"|sealed|partial|readonly|unsafe|ref)[ \t]++)*"
                r"(?P<kw>class|interface|struct|enum|record)(?:[ \t]++(?:struct|class))?[ \t]++"
                r"(?P<name>\w+)"
            ),
            "class",
        ),
        Decl(_p(r"namespace[ \t]++(?P<name>[\w.]+)"), "namespace", "scope"),
    ],
    members=[(_CSTYLE, False)],
    scopes=frozenset({"class", "struct", "interface"}),
    modifiers=_CSHARP_MODS,
    constructors=True,
)

_CPP_MODS = frozenset(
    ["virtual", "inline", "static", "explicit", "constexpr", "friend", "extern", "const"]
)
_C_FAMILY = LanguageRules(
    decls=[
        Decl(_CPP_CLASS, "struct"),
        Decl(_p(r"namespace[ \t]++(?P<name>[\w:]+)"), "namespace", "scope"),
        Decl(_p(r"extern[ \t]++\"(?P<name>[^\"\n]*)\""), "namespace", "scope"),
    ],
    members=[(_CSTYLE, False)],
    scopes=frozenset({"class", "struct", "namespace"}),
    top_level_methods=True,
    modifiers=_CPP_MODS,
    constructors=True,
)

_KT_MODS = (
    r"(?:(?:public|private|protected|internal|open|override|abstract|final|suspend|inline"
    r"|operator|infix|tailrec|external|data|sealed|inner|enum|annotation|value|companion"
    r"|static|mutating|fileprivate|convenience|required|dynamic|lazy|implicit|case|fun)[ \t]++)*"
)
_KOTLIN = LanguageRules(
    decls=[
        Decl(
            _p(
                _ANN + _KT_MODS + r"fun[ \t]++(?:<[^>\n]*>[ \t]*+)?(?:[\w.<>?]+\.)?"
                r"(?P<name>\w+)"
            ),
            "function",
        ),
        Decl(_p(_ANN + _KT_MODS + r"(?P<kw>class|interface|object)[ \t]++(?P<name>\w+)"), "class"),
    ],
    newline_stops=True,
)
_SWIFT = LanguageRules(
    decls=[
        Decl(_p(_ANN + _KT_MODS + r"(?:class[ \t]++)?func[ \t]++(?P<name>\w+)"), "function"),
        Decl(
            _p(
                _ANN + _KT_MODS + r"(?P<kw>class|struct|enum|protocol|extension|actor)[ \t]++"
                r"(?!func\b|var\b|let\b)(?P<name>[\w.]+)"
            ),
            "class",
        ),
    ],
    newline_stops=True,
)
_SCALA = LanguageRules(
    decls=[
        Decl(_p(_ANN + _KT_MODS + r"def[ \t]++(?P<name>\w+)"), "function"),
        Decl(_p(_ANN + _KT_MODS + r"(?P<kw>class|trait|object|enum)[ \t]++(?P<name>\w+)"), "class"),
    ],
    newline_stops=True,
)
_PHP = LanguageRules(
    decls=[
        Decl(
            _p(
                r"(?:(?:public|private|protected|static|abstract|final)[ \t]++)*"
                r"function[ \t]++&?(?P<name>\w+)"
            ),
            "function",
        ),
        Decl(
            _p(
                r"(?:(?:abstract|final|readonly)[ \t]++)*(?P<kw>class|interface|trait|enum)[ \t]++"
                r"(?P<name>\w+)"
            ),
            "class",
        ),
    ]
)

RULES: dict[str, LanguageRules] = {
    "javascript": _JS,
    "typescript": _JS,
    "tsx": _JS,
    "java": _JAVA,
    "go": _GO,
    "rust": _RUST,
    "csharp": _CSHARP,
    "c": _C_FAMILY,
    "cpp": _C_FAMILY,
    "kotlin": _KOTLIN,
    "swift": _SWIFT,
    "scala": _SCALA,
    "php": _PHP,
}

_ANN_STRIP = compile_pattern(r"@[\w.$]+(?:\([^()\n]*\))?")


def member_head_ok(rules: LanguageRules, pre: str, name: str, owner: str | None) -> bool:
    """Whether `pre name(` directly in a class body (or at top level) declares a method."""
    bare = name.rsplit("::", 1)[-1]
    if bare in DENY:
        return False
    tokens = [t for t in _ANN_STRIP.sub(" ", pre).split() if t not in rules.modifiers]
    if any(t in DENY for t in tokens):
        return False
    if tokens or not rules.modifiers:
        return True
    # no return type: a constructor (or destructor), or an out-of-class C++ definition
    if not rules.constructors:
        return False
    return "::" in name or (owner is not None and bare.lstrip("~") == owner)


_WHERE = compile_pattern(r"\bwhere\b.*$", re.S)
_LEAD = compile_pattern(r"^(?:&\s*)?(?:'\w+\s+)?(?:mut\s+|dyn\s+)*")


def _strip_angles(s: str) -> str:
    out = []
    depth = 0
    prev = ""
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">" and prev != "-" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
        prev = ch
    return "".join(out)


def rust_impl_names(header: str) -> tuple[str, str]:
    """("impl Trait for Type" or "impl Type", "Type") from the text `impl ... ` before `{`.

    Generic parameters and where clauses are dropped; the member prefix is the type's last
    path segment, so `impl fmt::Display for crate::a::Foo<T>` gives methods "Foo.fmt"."""
    h = " ".join(header.split())
    h = _WHERE.sub("", h)
    if h.startswith("impl"):
        h = h[4:]
    h = _strip_angles(h).strip()
    trait, sep, typ = h.partition(" for ")
    if not sep:
        trait, typ = "", trait
    typ = _LEAD.sub("", typ.strip()).strip()
    trait = " ".join(trait.split())
    type_name = typ.rsplit("::", 1)[-1].strip() or typ
    name = f"impl {trait} for {typ}" if trait else f"impl {typ}"
    return name.strip(), type_name


_RECV = compile_pattern(r"\(\s*(?:\w+\s+)?\*?\s*(\w+)")


def go_receiver_type(receiver: str) -> str:
    """`(c *Cache[K, V])` -> "Cache"."""
    m = _RECV.search(receiver)
    return m.group(1) if m else receiver.strip("() *")


def one_line(head: str) -> str:
    """A declaration head as a signature: whitespace collapsed, at most 300 characters."""
    return " ".join(head.split())[:SIGNATURE_MAX]


def js_assigned_names(path: str, function_name: str | None) -> tuple[str | None, str, str]:
    """(owner, name, kind) of a top-level `a.b.c = function ...`, as a developer names it.

    `Foo.prototype.bar` is `Foo.bar` (a method), `module.exports.x` is `exports.x`, and
    `module.exports = function name()` is the function's own name."""
    parts = "".join(path.split()).split(".")
    kind = "function"
    if len(parts) > 2 and parts[-2] == "prototype":
        parts = [*parts[:-2], parts[-1]]
        kind = "method"
    if parts[:2] == ["module", "exports"]:
        if len(parts) == 2 and function_name:
            parts = [function_name]
        elif len(parts) > 2:
            parts = parts[1:]
    return ".".join(parts[:-1]) or None, parts[-1], kind
