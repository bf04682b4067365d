"""tree-sitter backend: Python, JavaScript, TypeScript, TSX, Go, Rust, Java, C, C++, C#, Ruby.

Parsers and queries are built on first use per language and cached per thread (never at
import). One query per language selects the declaration nodes in C; Python then only touches
those nodes, never the whole tree, which keeps a 500-line file in the low milliseconds.

Invariants: the qualname rules match the structural chunker's (methods only in named class
bodies, first declarator of a `const` holding a function, anonymous classes skipped, bodiless
signatures skipped except Rust trait methods and TS overloads, top-level `a.b = function`
named by `rules.js_assigned_names`, members of an exported object literal named
`exports.a` / `default.a` / `o.a`), so both backends name the same symbols. JS/TS
assignment-style definitions are found by walking statements in Python, not by the query (see
`_js_definitions`); inside function bodies only prototype and exported members count (both
backends), except in the bodies of immediately invoked functions (UMD / IIFE wrappers), which
count as top level (tree-sitter only; the structural chunker sees members of exported object
literals only when they start a line). C, C++, C# and Ruby nodes are named by
`treesitter_clike`. Rust 2015's `try!(...)` (a keyword since 2018, which the grammar refuses)
reaches the parser as a macro of the same length (`_parser_input`), so a file that uses it
still parses cleanly; names and spans are always read from the file's own bytes. `parse_tree` returns None when the grammar wheel is missing; callers fall
back to the structural chunker.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

from ...store.regexcache import compile_pattern
from . import rules, treesitter_clike
from .model import Candidate
from .source import Source
from .source import node_end_row as _end_row
from .source import node_text as _text

_GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
}

_FN_VALUES = "[(arrow_function) (function_expression) (generator_function)]"
_JS = f"""
[(function_declaration) (generator_function_declaration) (class_declaration)
 (method_definition)] @d
(lexical_declaration . (variable_declarator value: {_FN_VALUES})) @d
(variable_declaration . (variable_declarator value: {_FN_VALUES})) @d
"""
_TS = (
    _JS
    + f"""
[(abstract_class_declaration) (interface_declaration) (type_alias_declaration)
 (enum_declaration)] @d
(public_field_definition value: {_FN_VALUES}) @d
[(function_signature) (method_signature)] @d
"""
)
_QUERIES = {
    "python": "[(function_definition) (class_definition)] @d",
    "javascript": _JS + f"(field_definition value: {_FN_VALUES}) @d",
    "typescript": _TS,
    "tsx": _TS,
    "go": "[(function_declaration) (method_declaration) (type_spec) (type_alias)] @d",
    "rust": """[(function_item) (struct_item) (union_item) (enum_item) (trait_item) (impl_item)
                (type_item)] @d
               (trait_item body: (declaration_list [(function_signature_item)
                                                    (associated_type)] @d))""",
    "java": """[(class_declaration) (interface_declaration) (enum_declaration) (record_declaration)
                (annotation_type_declaration) (method_declaration) (constructor_declaration)] @d""",
    **treesitter_clike.QUERIES,
}

_KINDS = {
    "function_definition": "function",
    "class_definition": "class",
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "method_definition": "function",
    "lexical_declaration": "function",
    "variable_declaration": "function",
    "public_field_definition": "function",
    "field_definition": "function",
    "expression_statement": "function",
    "pair": "function",
    "function_signature": "function",
    "method_signature": "function",
    "method_declaration": "function",
    "type_alias": "type",
    "type_spec": "type",
    "function_item": "function",
    "function_signature_item": "function",
    "associated_type": "type",
    "struct_item": "struct",
    "union_item": "struct",
    "enum_item": "enum",
    "trait_item": "trait",
    "impl_item": "impl",
    "type_item": "type",
    "record_declaration": "class",
    "annotation_type_declaration": "interface",
    "constructor_declaration": "function",
}
_CLASS_NODES = frozenset({"class_declaration", "abstract_class_declaration"})
_JAVA_OWNERS = frozenset(
    {
        "class_declaration",
        "record_declaration",
        "interface_declaration",
        "enum_declaration",
        "annotation_type_declaration",
    }
)
_MEMBER_NAMES = frozenset({"property_identifier", "private_property_identifier"})
_FN_TYPES = frozenset({"arrow_function", "function_expression", "generator_function"})
_NAME = compile_pattern(r"[A-Za-z_$][\w$]*")
_MEMBER_PATH = compile_pattern(r"[\w$]+(?:\.[\w$]+)+")
_EXPORTS = frozenset({"exports", "module.exports"})
_JS_FAMILY = frozenset({"javascript", "typescript", "tsx"})
_WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression"})
_TARGETS = frozenset({"identifier", "member_expression"})
# climbing from a `prototype` / `exports` word to the statement assigning to its member path
_ASSIGN_PARTS = frozenset(
    {"identifier", "property_identifier", "member_expression", "assignment_expression"}
)
_NESTED_WORDS = ("prototype", "exports")
_WORD_CHAR = compile_pattern(r"[\w$]")
_SPACE = compile_pattern(r"\s+")
_EXPORTED_PATH = compile_pattern(r"(?:module\.)?exports\b")
_GO_TYPE_KINDS = {"struct_type": "struct", "interface_type": "interface"}
_PY_DEFS = frozenset({"function_definition", "class_definition"})
_IMPL_WORD = compile_pattern(r"\bimpl\b")
_NEEDS_BODY = frozenset(
    {
        "function_declaration",
        "method_declaration",
        "method_definition",
        "function_item",
        "constructor_declaration",
    }
)

# parsers are not safe to share between threads: one cache per thread, filled on first use
_local = threading.local()


def _load(language: str) -> tuple[Any, Any] | None:
    cache: dict[str, tuple[Any, Any] | None] | None = getattr(_local, "cache", None)
    if cache is None:
        cache = _local.cache = {}
    if language in cache:
        return cache[language]
    entry = None
    spec = _GRAMMARS.get(language)
    if spec is not None:
        try:
            ts = importlib.import_module("tree_sitter")
            grammar = importlib.import_module(spec[0])
        except ImportError:
            grammar = None
        if grammar is not None:
            lang = ts.Language(getattr(grammar, spec[1])())
            entry = (ts.Parser(lang), ts.Query(lang, _QUERIES[language]))
    cache[language] = entry
    return entry


def _point(data: bytes, pos: int) -> tuple[int, int]:
    """(row, byte column) of offset `pos` in `data`, as tree-sitter counts them."""
    return data.count(b"\n", 0, pos), pos - (data.rfind(b"\n", 0, pos) + 1)


def _changed(old: bytes, new: bytes) -> tuple[int, int, int]:
    """(start, old end, new end): the one span where two texts differ, their common prefix and
    suffix cut off (the suffix never overlaps the prefix)."""
    import numpy as np

    n = min(len(old), len(new))
    diff = np.flatnonzero(np.frombuffer(old, np.uint8, n) != np.frombuffer(new, np.uint8, n))
    start = int(diff[0]) if len(diff) else n
    limit = n - start
    tail = np.flatnonzero(
        np.frombuffer(old, np.uint8)[::-1][:limit] != np.frombuffer(new, np.uint8)[::-1][:limit]
    )
    suffix = int(tail[0]) if len(tail) else limit
    return start, len(old) - suffix, len(new) - suffix


def _line_edits(old: bytes, new: bytes, moves) -> list[tuple] | None:
    """tree-sitter edits (in order, each on the text the previous ones left) turning `old` into
    `new` by whole lines: `moves` are (a, xc, yc), old lines [a, a + xc) (0-based, ascending,
    disjoint) replaced by yc lines. None unless the untouched lines of `old` are exactly those
    of `new` around the replaced ones (so the edits describe the change whatever produced
    `moves`), or when the edits cover over a quarter of `new` (a fresh parse is faster)."""
    starts = [0]
    pos = old.find(b"\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = old.find(b"\n", pos + 1)
    if starts[-1] < len(old):
        starts.append(len(old))  # a last line without a newline
    n_old = len(starts) - 1
    edits: list[tuple] = []
    parts: list[bytes] = []
    at = 0  # old offset copied up to
    at_line = 0
    shift = 0  # new offset minus old offset, after the edits so far
    rows = 0  # new row minus old row, after the edits so far (from line a on)
    changed = 0
    for a, xc, yc in moves:
        if a < at_line or a + xc > n_old:
            return None
        start_old, end_old = starts[a], starts[a + xc]
        parts.append(old[at:start_old])
        start = start_old + shift
        # the yc replacing lines of `new` start at `start`
        end_new = start
        for _ in range(yc):
            nl = new.find(b"\n", end_new)
            if nl < 0:
                if end_new >= len(new):
                    return None
                end_new = len(new)
                break
            end_new = nl + 1
        parts.append(new[start:end_new])
        o_row, o_col = _point(old, end_old)
        edits.append(
            (
                start,
                start + end_old - start_old,
                end_new,
                _point(new, start),
                (o_row + rows, o_col),
                _point(new, end_new),
            )
        )
        changed += end_new - start
        shift += (end_new - start) - (end_old - start_old)
        rows += yc - xc
        at, at_line = end_old, a + xc
    parts.append(old[at:])
    if 4 * changed > len(new) or b"".join(parts) != new:
        return None
    return edits


def _parse(parser: Any, raw: bytes, slot: dict | None) -> Any:
    """`parser.parse(raw)`, incrementally from the tree of the text `slot` holds when it came
    from the same parser: the old tree is edited so that the edits turn the old text into the
    new one exactly, and tree-sitter reparses only what they touch, giving the tree a fresh
    parse gives. The edits are whole lines when the caller put the lines replaced into
    `slot["moves"]` (see `_line_edits`: one per hunk, checked against both texts), else the one
    span where the texts differ. Edits over more than a quarter of the text reparse more slowly
    than a fresh parse, which is done instead. The new tree replaces the slot's."""
    previous = slot.get("tree") if slot is not None else None
    moves = slot.pop("moves", None) if slot is not None else None
    tree = None
    if previous is not None and previous[0] is parser:
        old_raw, old_tree = previous[1], previous[2]
        edits = _line_edits(old_raw, raw, moves) if moves else None
        if old_raw == raw:
            tree = old_tree
        elif edits is not None:
            for edit in edits:
                old_tree.edit(*edit)
            tree = parser.parse(raw, old_tree)
        else:
            start, old_end, new_end = _changed(old_raw, raw)
            if 4 * (new_end - start) <= len(raw):
                old_tree.edit(
                    start,
                    old_end,
                    new_end,
                    _point(old_raw, start),
                    _point(old_raw, old_end),
                    _point(raw, new_end),
                )
                tree = parser.parse(raw, old_tree)
    if tree is None:
        tree = parser.parse(raw)
    if slot is not None:
        slot["tree"] = (parser, raw, tree)
    return tree


_RUST_TRY = compile_pattern(rb"(?<![\w#])try!")


def _parser_input(src: Source) -> bytes:
    """The bytes the parser sees: the file's own, except Rust's `try!` macro (edition 2015)
    spelled `tr_!` (same length, so every offset and point is the file's)."""
    if src.language == "rust" and b"try!" in src.raw:
        return _RUST_TRY.sub(b"tr_!", src.raw)
    return src.raw


def parse_tree(src: Source, slot: dict | None = None) -> tuple[list[Candidate], bool] | None:
    """(candidates, tree has errors) or None when no grammar is installed for the language.

    For C and C++ only errors over a sizeable share of the file count (see
    `treesitter_clike.errors_matter`). `slot` (a dict the caller keeps per file) holds the last
    tree parsed through it, from which the next text is parsed incrementally (`_parse`)."""
    loaded = _load(src.language or "")
    if loaded is None:
        return None
    parser, query = loaded
    from tree_sitter import QueryCursor

    if src.language == "c" and treesitter_clike.looks_like_cpp(src):
        parser, query = _load("cpp") or loaded
    tree = _parse(parser, _parser_input(src), slot)
    nodes = QueryCursor(query).captures(tree.root_node).get("d", [])
    ascii_ = src.text.isascii()
    classes = {
        (n.start_byte, n.end_byte)
        for n in nodes
        if n.type in _CLASS_NODES and n.child_by_field_name("name") is not None
    }
    out: list[Candidate] = []
    seen: set[tuple[int, int]] = set()
    candidate = treesitter_clike.CANDIDATES.get(src.language or "", _candidate)
    for node in nodes:
        key = (node.start_byte, node.end_byte)
        if key in seen:
            continue
        seen.add(key)
        c = candidate(src, node, classes, ascii_)
        if c is not None:
            out.append(c)
    if src.language in _JS_FAMILY:
        out.extend(_js_definitions(src, tree.root_node, ascii_))
    has_error = tree.root_node.has_error
    if has_error and src.language in ("c", "cpp"):
        has_error = treesitter_clike.errors_matter(tree.root_node)
    return out, has_error


def _char(src: Source, point: Any, ascii_: bool) -> int:
    row, col = point
    start = src.line_starts[row] if row < len(src.line_starts) else len(src.text)
    if ascii_:
        return start + col
    return start + len(src.line(row).encode("utf-8")[:col].decode("utf-8", "ignore"))


def _candidate(
    src: Source, node: Any, classes: set[tuple[int, int]], ascii_: bool
) -> Candidate | None:
    t = node.type
    kind = _KINDS[t]
    if t in _NEEDS_BODY and node.child_by_field_name("body") is None:
        return None
    name_node = node.child_by_field_name("name")
    outer = node
    extra: dict[str, Any] = {}
    if t in ("lexical_declaration", "variable_declaration"):
        declarator = node.named_children[0]
        name_node = declarator.child_by_field_name("name")
        if name_node is None or name_node.type != "identifier":
            return None
    elif t == "method_definition" and _in_object(node):
        return None  # an object literal's member: `_js_definitions` decides
    elif t == "function_signature":
        # an overload signature; `declare function` (ambient) is not one
        parent = node.parent
        if parent is None or parent.type not in ("program", "export_statement"):
            return None
        extra["overload"] = True
    elif t in (
        "method_definition",
        "public_field_definition",
        "field_definition",
        "method_signature",
    ):
        extra["overload"] = t == "method_signature"
        body = node.parent
        if body is None or body.type != "class_body" or body.parent is None:
            return None
        if (body.parent.start_byte, body.parent.end_byte) not in classes:
            return None
        if t == "field_definition":
            name_node = node.child_by_field_name("property")
        if name_node is None or name_node.type not in _MEMBER_NAMES:
            return None
    elif t in ("method_declaration", "constructor_declaration"):
        if src.language == "go":
            receiver = node.child_by_field_name("receiver")
            extra["owner"] = rules.go_receiver_type(_text(src, receiver) if receiver else "")
            kind = "method"
        elif not _java_member(node):
            return None
    elif t == "type_spec":
        type_node = node.child_by_field_name("type")
        kind = _GO_TYPE_KINDS.get(type_node.type if type_node else "", "type")
    elif t == "impl_item":
        body = node.child_by_field_name("body")
        start = _char(src, node.start_point, ascii_)
        stop = _char(src, body.start_point, ascii_) if body else _char(src, node.end_point, ascii_)
        header = src.masked[start:stop]
        m = _IMPL_WORD.search(header)
        name, prefix = rules.rust_impl_names(header[m.start() :] if m else header)
        extra["member_prefix"] = prefix
        return _make(src, node, node, name, "impl", node.start_point[0], extra)
    if name_node is None:
        return None
    parent = node.parent
    if t in _PY_DEFS and parent is not None and parent.type == "decorated_definition":
        outer = parent
    name = _text(src, name_node)
    return _make(src, node, outer, name, kind, name_node.start_point[0], extra)


def _in_object(node: Any) -> bool:
    return node.parent is not None and node.parent.type == "object"


def _js_definitions(src: Source, root: Any, ascii_: bool) -> list[Candidate]:
    """Assignment-style definitions, accessors defined by a helper call and exported
    object-literal members. Found by walking the module's statements (and those of immediately
    invoked functions) in Python: a query pattern for them would visit every expression of the
    file. JS has no decorators on statements or object members, so none are looked for. Members assigned deeper, inside function bodies, count only when they are exported or
    prototype members; `_nested_members` finds those few places in the text."""
    out: list[Candidate] = []
    _js_block(src, root, out)
    done = {c.span for c in out}
    for pos in _nested_members(src.masked):
        row = src.line_of(pos)
        col = pos - src.line_starts[row]
        if not ascii_:
            col = len(src.line(row)[:col].encode("utf-8"))
        node = root.descendant_for_point_range((row, col), (row, col))
        while node is not None and node.type in _ASSIGN_PARTS:
            node = node.parent
        if node is None or node.type != "expression_statement" or node.parent is None:
            continue
        if node.parent.type != "statement_block" or (node.start_byte, node.end_byte) in done:
            continue
        expr = node.named_children[0]
        if expr.type == "assignment_expression":
            c = _assigned(src, node, expr, nested=True)
            if c is not None and c.span not in done:
                done.add(c.span)
                out.append(c)
    return out


def _nested_members(masked: str) -> list[int]:
    """Offsets of the words `prototype` and `exports` (str.find: a regex scan of the whole file
    costs more than the rest of the JS walk)."""
    out = []
    for word in _NESTED_WORDS:
        pos = masked.find(word)
        while pos >= 0:
            end = pos + len(word)
            if (pos == 0 or not _WORD_CHAR.match(masked, pos - 1)) and not _WORD_CHAR.match(
                masked, end
            ):
                out.append(pos)
            pos = masked.find(word, end)
    return out


def _js_block(src: Source, block: Any, out: list[Candidate]) -> None:
    """The definitions among the statements of the module or of an immediately invoked
    function's body (a UMD / IIFE wrapper's body is the module's top level in all but name)."""
    for stmt in block.named_children:
        t = stmt.type
        if t == "expression_statement":
            expr = stmt.named_children[0] if stmt.named_child_count else None
            if expr is None:
                continue
            if expr.type == "assignment_expression":
                c = _assigned(src, stmt, expr)
                if c is not None:
                    out.append(c)
                    continue
                right = _unwrap(expr.child_by_field_name("right"))
                left = expr.child_by_field_name("left")
                if _is_object(right) and left is not None and _text(src, left) in _EXPORTS:
                    _object_members(src, right, "exports", out)
                continue
            call = _unwrap(expr)
            if call is not None and call.type == "unary_expression":
                call = _unwrap(call.child_by_field_name("argument"))
            if call is None or call.type != "call_expression":
                continue
            c = _defined(src, stmt, call) if call is expr else None
            if c is not None:
                out.append(c)
                continue
            for body in _iife_bodies(call):
                _js_block(src, body, out)
        elif t == "export_statement":
            value = _unwrap(stmt.child_by_field_name("value"))
            if _is_object(value):
                _object_members(src, value, "default", out)
                continue
            decl = stmt.child_by_field_name("declaration")
            if decl is None or decl.type not in ("lexical_declaration", "variable_declaration"):
                continue
            for declarator in decl.named_children:
                if declarator.type != "variable_declarator":
                    continue
                name = declarator.child_by_field_name("name")
                value = _unwrap(declarator.child_by_field_name("value"))
                if name is not None and name.type == "identifier" and _is_object(value):
                    _object_members(src, value, _text(src, name), out)


def _is_object(node: Any) -> bool:
    return node is not None and node.type == "object"


def _unwrap(node: Any) -> Any:
    """The expression inside parentheses and TS `as` / `satisfies` wrappers."""
    while node is not None and node.type in _WRAPPERS:
        node = node.named_children[0] if node.named_child_count else None
    return node


def _iife_bodies(call: Any) -> list[Any]:
    """Function bodies run at load time by a call of a function expression:
    `(function (root) {...})(this)`, `!function () {...}()`, `(function () {...}).call(this)`,
    and a UMD wrapper's factory passed as an argument."""
    fn = _unwrap(call.child_by_field_name("function"))
    if fn is not None and fn.type == "member_expression":
        prop = fn.child_by_field_name("property")
        if prop is not None and prop.text in (b"call", b"apply"):
            fn = _unwrap(fn.child_by_field_name("object"))
    if fn is None or fn.type not in _FN_TYPES:
        return []
    args = call.child_by_field_name("arguments")
    out = []
    for f in [fn, *(args.named_children if args is not None else ())]:
        f = _unwrap(f)
        if f is not None and f.type in _FN_TYPES:
            body = f.child_by_field_name("body")
            if body is not None and body.type == "statement_block":
                out.append(body)
    return out


def _object_members(src: Source, obj: Any, owner: str, out: list[Candidate]) -> None:
    """Methods and function-valued properties of an exported object literal, as `owner.name`."""
    for member in obj.named_children:
        t = member.type
        if t == "pair":
            key = member.child_by_field_name("key")
            value = member.child_by_field_name("value")
            if value is None or value.type not in _FN_TYPES:
                continue
        elif t == "method_definition":
            key = member.child_by_field_name("name")
        else:
            continue
        if key is None or key.type != "property_identifier":
            continue
        name = _text(src, key)
        row = key.start_point[0]
        out.append(_make(src, member, member, name, "function", row, {"owner": owner}, False))


def _assigned(src: Source, node: Any, assign: Any, nested: bool = False) -> Candidate | None:
    """`a.b.c = function ...` (naming rules shared with the structural chunker); `nested` (in a
    function body) only when it defines an exported or a prototype member."""
    left = assign.child_by_field_name("left")
    value = assign.child_by_field_name("right")
    if left is None or left.type != "member_expression" or value is None:
        return None
    if value.type == "assignment_expression":
        inner = value.child_by_field_name("left")
        if inner is None or inner.type != "member_expression":
            return None
    elif value.type not in _FN_TYPES:
        return None
    # `a.x = a.y = function`: one definition, named by the member holding the function
    while value is not None and value.type == "assignment_expression":
        assign, value = value, value.child_by_field_name("right")
    if value is None or value.type not in _FN_TYPES:
        return None
    left = assign.child_by_field_name("left")
    path = _text(src, left) if left is not None else ""
    if not _MEMBER_PATH.fullmatch(path):
        path = _SPACE.sub("", path)
        if not _MEMBER_PATH.fullmatch(path):
            return None
    own = value.child_by_field_name("name")
    owner, name, kind = rules.js_assigned_names(path, _text(src, own) if own else None)
    if nested and kind != "method" and not _EXPORTED_PATH.match(_SPACE.sub("", path)):
        return None
    return _make(src, node, node, name, kind, assign.start_point[0], {"owner": owner}, False)


def _defined(src: Source, node: Any, call: Any) -> Candidate | None:
    """A top-level `defineGetter(obj, 'name', function)`: an accessor defined by a helper."""
    args = call.child_by_field_name("arguments")
    if args is None or args.named_child_count != 3:
        return None
    target, key, value = args.named_children
    if target.type not in _TARGETS or key.type != "string" or value.type not in _FN_TYPES:
        return None
    owner = _text(src, target)
    if not (_NAME.fullmatch(owner) or _MEMBER_PATH.fullmatch(owner)):
        owner = _SPACE.sub("", owner)
    name = _text(src, key)[1:-1]
    if not _NAME.fullmatch(name) or not (_NAME.fullmatch(owner) or _MEMBER_PATH.fullmatch(owner)):
        return None
    extra: dict[str, Any] = {"owner": owner}
    body = value.child_by_field_name("body")
    if body is not None and body.type == "statement_block":
        head = src.raw[node.start_byte : body.start_byte].decode("utf-8", "replace")
        extra["signature"] = rules.one_line(head)
    return _make(src, node, node, name, "function", node.start_point[0], extra, False)


def _make(
    src: Source,
    node: Any,
    outer: Any,
    name: str,
    kind: str,
    sig_row: int,
    extra: dict,
    decorated: bool = True,
) -> Candidate:
    start = outer.start_point[0]
    if decorated and outer is node and src.language != "python":
        start = src.extend_decorators(start)
    return Candidate(
        name=name,
        kind=kind,
        start_line=start,
        end_line=_end_row(node),
        sig_line=sig_row,
        span=(outer.start_byte, node.end_byte),
        **extra,
    )


def _java_member(node: Any) -> bool:
    body = node.parent
    if body is None:
        return False
    if body.type == "enum_body_declarations":
        return True
    owner = body.parent
    return (
        body.type in ("class_body", "interface_body", "annotation_type_body")
        and owner is not None
        and owner.type in _JAVA_OWNERS
    )
