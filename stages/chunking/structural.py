"""Lexer-aware structural chunker for brace languages (and Ruby's `def ... end`).

How it works, on the masked text (strings and comments blanked, see `source.py`):
1. every `{` is matched with its `}` once (unmatched openers run to the end of the file);
2. line-anchored declaration patterns (`rules.py`) find keyword declarations anywhere, and
   keyword-less methods (`foo(a) {`, `int foo(int a) {`) only directly inside a class-like body,
   which is decided by brace depth, never by indentation;
3. from a declaration head, the body is the first `{` outside parentheses and brackets; a `;`,
   a plain `=` or a `}` first means there is no body (prototypes, abstract methods, fields).

JS/TS member assignments (`a.b = function`) are definitions at the top level, and inside a
body only when they define a prototype or an exported member.

Invariants: never raises on any text; a declaration without a body is dropped, except types
that are complete without one (Rust unit / tuple structs, type aliases, Go named types), Rust
trait methods (required methods are part of the trait's interface) and TS overload
signatures (folded into the implementation by `model.assemble`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable

from ...store.regexcache import compile_pattern
from . import rules
from .model import Candidate
from .source import Source

_BRACES = compile_pattern(r"[{}]")
_BODY_SCAN = compile_pattern(r"[{};()\[\]=<>]")
_BODY_SCAN_NL = compile_pattern(r"[{};()\[\]=<>\n]")
_ASYNC = compile_pattern(r"async\b\s*")
_FUNCTION = compile_pattern(r"function\b")
_FUNCTION_NAME = compile_pattern(r"(?:async\s+)?function\b\s*\*?\s*([\w$]+)")
_STMT_SCAN = compile_pattern(r"[;\n(){}\[\]]")
_PARENS = compile_pattern(r"[()]")
_MEMBER_SCAN = compile_pattern(r"[,(){}\[\]]")
_ARROW = compile_pattern(r"=>")
_WS = compile_pattern(r"\s*")
_IDENT = compile_pattern(r"[\w$]+")
_SCAN_LIMIT = 10_000
_CHAINED = compile_pattern(
    r"\s*+(?P<path>[\w$]+(?:[ \t]*+\.[ \t]*+[\w$]+)+)[ \t]*+=(?![=>])[ \t]*+"
)
_CALL_END = compile_pattern(r"\s*\)")
_NAME = compile_pattern(r"[A-Za-z_$][\w$]*")
_TS = frozenset({"typescript", "tsx"})
_JS_FAMILY = frozenset({"javascript", "typescript", "tsx"})
_TOP_LEVEL_ONLY = frozenset({"assigned", "defined"})
_NESTED_MEMBER = compile_pattern(
    r"\.[ \t]*+prototype[ \t]*+\.|^(?:module[ \t]*+\.[ \t]*+)?exports\b"
)
_DECLARE = compile_pattern(r"\bdeclare\b")
_EXPRESSION_CONTINUES = frozenset("(,=:?[!&|+-*/%<>~^")


class _Braces:
    """Matched brace pairs and brace depth at any offset (O(log n))."""

    def __init__(self, masked: str) -> None:
        self.close: dict[int, int] = {}
        stack: list[int] = []
        for m in _BRACES.finditer(masked):
            if m.group() == "{":
                stack.append(m.start())
            elif stack:
                self.close[stack.pop()] = m.start()
        for o in stack:
            self.close[o] = len(masked) - 1
        self._opens = sorted(self.close)
        self._closes = sorted(self.close.values())

    def depth(self, pos: int) -> int:
        return bisect.bisect_left(self._opens, pos) - bisect.bisect_left(self._closes, pos)


class _Scanner:
    def __init__(self, src: Source, newline_stops: bool = False) -> None:
        self.src = src
        self.newline_stops = newline_stops
        self.masked = src.masked
        self.braces = _Braces(src.masked)

    def match_paren(self, pos: int) -> int | None:
        depth = 0
        for m in _PARENS.finditer(self.masked, pos, pos + _SCAN_LIMIT):
            depth += 1 if m.group() == "(" else -1
            if depth == 0:
                return m.start()
        return None

    def find_body(self, pos: int) -> tuple[int | None, int]:
        """(`{` offset, same) of the body after a head at `pos`, or (None, where it stopped).

        Generic brackets (`<T extends {a: 1}>`) count as nesting at the top level of the head;
        the `>` of `=>` and `->` does not close one."""
        masked = self.masked
        depth = angle = 0
        pattern = _BODY_SCAN_NL if self.newline_stops else _BODY_SCAN
        for m in pattern.finditer(masked, pos, pos + _SCAN_LIMIT):
            c = m.group()
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
                if depth < 0:
                    return None, m.start()
            elif depth:
                continue
            elif c == "<":
                angle += 1
            elif c == ">":
                if angle and masked[m.start() - 1] not in "=-":
                    angle -= 1
            elif angle == 0:
                if c == "{":
                    return m.start(), m.start()
                nxt = masked[m.end() : m.end() + 200].lstrip()[:1]
                if c == "=" and (masked[m.end() : m.end() + 1] == ">" or nxt == "{"):
                    continue
                if c == "\n" and (nxt in ("{", ":", ".") or self._continues(m.start())):
                    continue
                return None, m.start()
        return None, min(len(masked), pos + _SCAN_LIMIT) - 1

    def statement_end(self, pos: int) -> int:
        """Offset of the last character of the statement that continues at `pos`."""
        masked = self.masked
        depth = 0
        limit = pos + 4 * _SCAN_LIMIT
        for m in _STMT_SCAN.finditer(masked, pos, limit):
            c = m.group()
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth < 0:
                    return self._last_code(pos, m.start())
            elif depth == 0:
                if c == ";":
                    return m.start()
                if not self._continues(m.start()):
                    return self._last_code(pos, m.start())
        return self._last_code(pos, min(limit, len(masked)))

    def _last_code(self, pos: int, end: int) -> int:
        seg = self.masked[pos:end].rstrip()
        return pos + max(len(seg) - 1, 0)

    def _continues(self, nl: int) -> bool:
        masked = self.masked
        before = masked[max(0, nl - 200) : nl].rstrip()
        if not before or before.endswith(("=", "|", "&", ",", "<", "(", "?", ":", "+")):
            return True
        after = masked[nl + 1 : nl + 400].lstrip()
        return after.startswith(("|", "&", ".", "?", ":", "=>", "+"))

    def brace_end(self, open_: int) -> int:
        return self.braces.close.get(open_, len(self.masked) - 1)

    def function_value(self, pos: int) -> int | None:
        """End offset of an arrow function / function expression starting at `pos`, else None."""
        masked = self.masked
        p = _skip_ws(masked, pos)
        a = _ASYNC.match(masked, p)
        if a is not None:
            p = a.end()
        if _FUNCTION.match(masked, p):
            open_, _ = self.find_body(p)
            return None if open_ is None else self.brace_end(open_)
        if masked.startswith("<", p):
            close = masked.find(">", p, p + 500)
            if close < 0:
                return None
            p = _skip_ws(masked, close + 1)
        if masked.startswith("(", p):
            paren = self.match_paren(p)
            if paren is None:
                return None
            p = paren + 1
        else:
            m = _IDENT.match(masked, p)
            if m is None:
                return None
            p = m.end()
        arrow = _ARROW.search(masked, p, p + 1000)
        if arrow is None:
            return None
        between = masked[p : arrow.start()].strip()
        if between and (not between.startswith(":") or ";" in between):
            return None
        q = _skip_ws(masked, arrow.end())
        if masked.startswith("{", q):
            return self.brace_end(q)
        return self.statement_end(q)


def _skip_ws(text: str, pos: int) -> int:
    """The first offset at or after `pos` that is not whitespace."""
    m = _WS.match(text, pos)
    return pos if m is None else m.end()


def candidates(src: Source) -> list[Candidate]:
    if src.language == "ruby":
        return _ruby(src)
    lang_rules = rules.RULES.get(src.language or "")
    if lang_rules is None:
        return []
    sc = _Scanner(src, lang_rules.newline_stops)
    found: list[Candidate] = []
    containers: list[tuple[int, int, str, str]] = []  # (body open, close, kind, name)
    for rule in lang_rules.decls:
        for m in _matches(rule.pattern, rule.hint, sc.masked):
            c = _declaration(sc, rule, m, containers)
            if c is not None:
                found.append(c)
    for group in lang_rules.groups:
        for m in group.finditer(sc.masked):
            found.extend(_go_type_group(sc, m))
    if lang_rules.members:
        found.extend(_members(sc, lang_rules, containers))
    if src.language == "rust":
        found.extend(_trait_items(sc, lang_rules.decls[0], containers))
    elif src.language in _JS_FAMILY:
        found.extend(_exported_object_members(sc))
    return found


def _matches(
    pattern: re.Pattern[str], hint: re.Pattern[str] | None, masked: str
) -> Iterable[re.Match[str]]:
    """`pattern.finditer(masked)` for a line-anchored pattern matching within one line; with a
    `hint`, tried only at the start of the lines holding it."""
    if hint is None:
        yield from pattern.finditer(masked)
        return
    tried = -1
    for h in hint.finditer(masked):
        start = masked.rfind("\n", 0, h.start()) + 1
        if start > tried:
            tried = start
            if (m := pattern.match(masked, start)) is not None:
                yield m


def _exported_object_members(sc: _Scanner) -> list[Candidate]:
    """Methods and function-valued properties of a top-level exported object literal, named
    `exports.a` / `default.a` / `api.a` like the tree-sitter backend names them. Only members
    that start a line are seen."""
    out = []
    masked = sc.masked
    for m in _matches(rules.JS_EXPORTED_OBJECT, rules.JS_EXPORTED_OBJECT_HINT, masked):
        open_ = m.end() - 1
        if sc.braces.depth(open_) != 0:
            continue
        owner = (
            "exports" if m.group("cjs") else "default" if m.group("default") else m.group("name")
        )
        close = sc.brace_end(open_)
        depth = sc.braces.depth(open_ + 1)
        for member in rules.JS_OBJECT_MEMBER.finditer(masked, open_ + 1, close):
            pos = member.start("name")
            if sc.braces.depth(pos) != depth or sc.src.line_of(pos) == sc.src.line_of(open_):
                continue
            if member.group("call"):
                paren = sc.match_paren(member.end() - 1)
                body, _ = sc.find_body(paren + 1) if paren is not None else (None, 0)
                last = sc.brace_end(body) if body is not None else None
            else:
                last = sc.function_value(member.end())
                # an arrow's expression body ends at the comma before the next member
                if last is not None:
                    last = min(last, _member_end(sc, member.end(), close))
            if last is None:
                continue
            head = member.start() + len(member.group()) - len(member.group().lstrip())
            out.append(_candidate(sc, member.group("name"), "function", head, last, owner=owner))
    return out


def _member_end(sc: _Scanner, pos: int, close: int) -> int:
    """The last code offset of an object literal's member that continues at `pos`."""
    depth = 0
    for m in _MEMBER_SCAN.finditer(sc.masked, pos, close):
        c = m.group()
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            return sc._last_code(pos, m.start())
    return sc._last_code(pos, close)


def _trait_items(
    sc: _Scanner, fn_rule: rules.Decl, containers: list[tuple[int, int, str, str]]
) -> list[Candidate]:
    """Rust `fn f(&self);` and `type T;` directly inside a trait body: required items of the
    trait's interface, symbols like the provided ones."""
    traits = [(o, c) for o, c, kind, _ in containers if kind == "trait"]
    out = []
    for pattern, kind in ((fn_rule.pattern, "function"), (rules.RUST_ASSOCIATED_TYPE, "type")):
        for m in pattern.finditer(sc.masked):
            pos = m.start("name")
            depth = sc.braces.depth(pos)
            if not any(o < pos <= c and sc.braces.depth(o + 1) == depth for o, c in traits):
                continue
            if kind == "type":
                last = sc.statement_end(m.end())
            else:
                open_, last = sc.find_body(m.end())
                if open_ is not None or sc.masked[last : last + 1] != ";":
                    continue
            head = m.start() + len(m.group()) - len(m.group().lstrip())
            out.append(_candidate(sc, m.group("name"), kind, head, last))
    return out


def _candidate(
    sc: _Scanner,
    name: str,
    kind: str,
    head: int,
    last: int,
    *,
    owner: str | None = None,
    member_prefix: str | None = None,
) -> Candidate:
    src = sc.src
    line = src.line_of(head)
    return Candidate(
        name=name,
        kind=kind,
        start_line=src.extend_decorators(line),
        end_line=src.line_of(max(last, head)),
        sig_line=line,
        span=(src.line_starts[line], max(last, head) + 1),
        owner=owner,
        member_prefix=member_prefix,
    )


def _declaration(
    sc: _Scanner,
    rule: rules.Decl,
    m: re.Match[str],
    containers: list[tuple[int, int, str, str]],
) -> Candidate | None:
    head = m.start() + len(m.group()) - len(m.group().lstrip())
    # decided before any scanning: most such heads are inside bodies, where only a prototype
    # or an exported member is a definition
    if (
        rule.mode in _TOP_LEVEL_ONLY
        and sc.braces.depth(head) != 0
        and (rule.mode != "assigned" or not _NESTED_MEMBER.search(m.group("name")))
    ):
        return None
    if rule.statement_only:
        before = sc.masked[max(0, head - 200) : head].rstrip()
        if before and before[-1] in _EXPRESSION_CONTINUES:
            return None
    groups = m.groupdict()
    kw = groups.get("kw")
    kind = rules.KIND.get(kw or "", rule.kind)
    name = groups.get("name") or ""
    owner: str | None = None
    member_prefix: str | None = None
    if rule.mode == "value":
        last = sc.function_value(m.end())
        if last is None:
            return None
    elif rule.mode == "defined":
        last = sc.function_value(m.end())
        if last is None:
            return None
        close = _CALL_END.match(sc.masked, last + 1)
        name = sc.src.text[m.start("name") : m.end("name")]
        if close is None or not _NAME.fullmatch(name):
            return None
        owner = re.sub(r"\s+", "", groups["owner"])
        c = _candidate(sc, name, "function", head, last, owner=owner)
        open_, _ = sc.find_body(m.end())
        if open_ is not None and open_ < last:
            c.signature = rules.one_line(sc.src.text[head:open_])
        return c
    elif rule.mode == "assigned":
        # `a.x = a.y = function` is one definition, named by the member holding the function
        end = sig = m.end()
        while (chained := _CHAINED.match(sc.masked, end)) is not None:
            name, end, sig = chained.group("path"), chained.end(), chained.start("path")
        last = sc.function_value(end)
        if last is None:
            return None
        fn = _FUNCTION_NAME.match(sc.masked, end)
        owner, name, kind = rules.js_assigned_names(name, fn.group(1) if fn else None)
        c = _candidate(sc, name, kind, head, last, owner=owner)
        c.sig_line = sc.src.line_of(sig if sig != m.end() else head)
        return c
    elif rule.mode == "statement" or (rule.mode == "go_type" and kw is None):
        last = sc.statement_end(m.end())
    else:
        open_, stop = sc.find_body(m.end())
        if open_ is None:
            if _ts_overload(sc, m.group(), stop) and rule.kind == "function" and name:
                c = _candidate(sc, name, "function", head, stop)
                c.overload = True
                return c
            if rule.mode != "brace_or_semi" or sc.masked[stop : stop + 1] != ";":
                return None
            last = stop
        else:
            last = sc.brace_end(open_)
        if rule.mode == "impl":
            name, member_prefix = rules.rust_impl_names(sc.masked[m.start("kw") : stop])
        elif kind == "impl":  # Swift extension
            member_prefix = name
            name = f"{kw} {name}"
        if open_ is not None:
            containers.append((open_, last, kind, name))
        if rule.mode == "scope":
            return None
    if not name:
        return None
    if "recv" in groups and groups["recv"]:
        owner = rules.go_receiver_type(groups["recv"])
        kind = "method"
    if "::" in name and kind != "impl":  # `impl Trait for io::Error` names a path, not an owner
        path, _, name = name.rpartition("::")
        owner = path.replace("::", ".")
        kind = "method"
    return _candidate(sc, name, kind, head, last, owner=owner, member_prefix=member_prefix)


def _ts_overload(sc: _Scanner, head: str, stop: int) -> bool:
    """A TS signature ended by `;` that is not ambient: an overload of the body after it."""
    return (
        sc.src.language in _TS
        and sc.masked[stop : stop + 1] == ";"
        and _DECLARE.search(head) is None
    )


def _go_type_group(sc: _Scanner, m: re.Match[str]) -> list[Candidate]:
    open_paren = m.end() - 1
    close = sc.match_paren(open_paren)
    end = close if close is not None else len(sc.masked)
    base = sc.braces.depth(open_paren)
    out = []
    for spec in rules.GO_SPEC.finditer(sc.masked, open_paren + 1, end):
        if sc.braces.depth(spec.start()) != base or sc.src.line_of(spec.start()) == sc.src.line_of(
            open_paren
        ):
            continue
        head = spec.start() + len(spec.group()) - len(spec.group().lstrip())
        kw = spec.group("kw")
        if kw:
            open_, _ = sc.find_body(spec.end())
            if open_ is None:
                continue
            last = sc.brace_end(open_)
        else:
            last = min(sc.statement_end(spec.end()), end - 1)
        out.append(_candidate(sc, spec.group("name"), rules.KIND.get(kw or "", "type"), head, last))
    return out


def _members(
    sc: _Scanner, lang_rules: rules.LanguageRules, containers: list[tuple[int, int, str, str]]
) -> list[Candidate]:
    """Keyword-less methods (and class-field functions) directly inside a class-like body."""
    scopes = sorted((o, c, name) for o, c, kind, name in containers if kind in lang_rules.scopes)
    starts = [s[0] for s in scopes]
    out: list[Candidate] = []
    for pattern, is_field in lang_rules.members:
        for m in pattern.finditer(sc.masked):
            pos = m.start("name")
            depth = sc.braces.depth(pos)
            owner_name: str | None = None
            k = bisect.bisect_left(starts, pos) - 1
            while k >= 0:
                o, c, cname = scopes[k]
                if o < pos <= c and sc.braces.depth(o + 1) == depth:
                    owner_name = cname
                    break
                if o < pos <= c:
                    break
                k -= 1
            if owner_name is None and not (lang_rules.top_level_methods and depth == 0):
                continue
            member = _member(sc, lang_rules, m, is_field, owner_name)
            if member is not None:
                out.append(member)
    return out


def _member(
    sc: _Scanner,
    lang_rules: rules.LanguageRules,
    m: re.Match[str],
    is_field: bool,
    owner_name: str | None,
) -> Candidate | None:
    name = m.group("name")
    head = m.start() + len(m.group()) - len(m.group().lstrip())
    if is_field:
        last = sc.function_value(m.end())
        if last is None:
            return None
        return _candidate(sc, name, "function", head, last)
    if not rules.member_head_ok(lang_rules, m.groupdict().get("pre") or "", name, owner_name):
        return None
    close = sc.match_paren(m.end() - 1)
    if close is None:
        return None
    open_, stop = sc.find_body(close + 1)
    if open_ is None:
        if not _ts_overload(sc, m.group(), stop) or "abstract" in m.group().split():
            return None
        c = _candidate(sc, name, "function", head, stop)
        c.overload = True
        return c
    kind = "function"
    owner: str | None = None
    if "::" in name:
        path, _, name = name.rpartition("::")
        owner = path.replace("::", ".")
        kind = "method"
    return _candidate(sc, name, kind, head, sc.brace_end(open_), owner=owner)


_RUBY_DECL = compile_pattern(r"(?m)^([ \t]*+)(def|class|module)[ \t]+(?:self\.)?([\w:.]*\w[?!=]?)")
_RUBY_END = compile_pattern(r"end\b")


def _ruby(src: Source) -> list[Candidate]:
    """Ruby by indentation: a `def` / `class` / `module` ends at the first `end` at its indent."""
    masked = src.masked
    lines = masked.split("\n")[: src.n_lines]
    out = []
    scopes: list[tuple[int, str]] = []  # (end line, qualname) of the enclosing classes / modules
    for m in _RUBY_DECL.finditer(masked):
        line = src.line_of(m.start())
        while scopes and scopes[-1][0] < line:
            scopes.pop()
        indent = len(m.group(1).expandtabs(8))
        rest = masked[m.end() : src.line_span(line)[1]]
        end_line = None
        if re.search(r"(?:;\s*end\b|=)", rest) and m.group(2) == "def":
            end_line = line
        else:
            for j in range(line + 1, len(lines)):
                s = lines[j].lstrip()
                if not s:
                    continue
                ind = len(lines[j][: len(lines[j]) - len(s)].expandtabs(8))
                if ind < indent or (ind == indent and not _RUBY_END.match(s)):
                    break
                if ind == indent:
                    end_line = j
                    break
        if end_line is None:
            continue
        name = m.group(3).replace("::", ".").rsplit(".", 1)[-1]
        kind = "function" if m.group(2) == "def" else "class"
        owner = None
        if kind == "class":
            path = m.group(3).split("::")
            outer = scopes[-1][1] if scopes else ""
            if len(path) > 1:  # `class A::B` is "A.B" inside the lexically enclosing scope
                owner = ".".join(p for p in (outer, *path[:-1]) if p)
            scopes.append((end_line, ".".join(p for p in (owner or outer, name) if p)))
        out.append(
            Candidate(
                name=name,
                kind=kind,
                start_line=line,
                end_line=end_line,
                sig_line=line,
                span=(src.line_starts[line], src.line_span(end_line)[1] + 1),
                owner=owner,
            )
        )
    return out
