"""tree-sitter definitions of C, C++, C# and Ruby: the queries and how a captured node becomes a
`Candidate` (name, kind, owner). `treesitter.py` parses and runs the query; this module only
names what the query selected.

What counts as a definition, per language (bodiless declarations are not symbols, as in the
other languages):
- C / C++: function definitions (prototypes, `= default` and `= delete` are not; a header of
  prototypes only has its types and macros), classes, structs, unions and enums with a body, a
  `typedef` of an anonymous one (named by the typedef), function-like macros (kind "macro").
  C++ methods in a class body are `Class.method`; out-of-line definitions are named by their
  qualified declarator (`void Cart::add()` -> "Cart.add", kind "method"); enclosing named
  namespaces qualify everything (`shop.Cart.add`); a template spans from its `template <...>`,
  a specialization is named by its template. A definition without a return type outside a
  class body is a macro call the parser misread (`TEST(Suite, Name) {`), not a symbol. A `.h`
  file with C++ code in it (`looks_like_cpp`) is parsed with the C++ grammar. The structural
  fallback does not qualify by namespace.
- C#: classes, structs, interfaces, records, enums and delegates; methods, constructors and
  destructors (`~Cart`), operators and properties with a body (an accessor body or `=>`;
  auto-properties are fields). As for Java's packages, namespaces (block or file-scoped) are
  neither symbols nor qualifiers: `Cart.Add`.
- Ruby: modules and classes (both kind "class", as the structural chunker names them), `def`,
  `def self.x` (named "x") and the members of `class << self`, all qualified by the lexically
  enclosing classes and modules; `class A::B` is "A.B" inside its lexical scope.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...store.regexcache import compile_pattern
from . import rules
from .model import Candidate
from .source import Source
from .source import node_end_row as _end_row
from .source import node_text as _text

_C_TYPES = """[(struct_specifier body: (_)) (union_specifier body: (_))
                (enum_specifier body: (_))]"""
_C = f"""
[(function_definition) (preproc_function_def) {_C_TYPES[1:-1]}] @d
(type_definition type: {_C_TYPES}) @d
"""
_CPP = _C + "(class_specifier body: (_)) @d\n"
_CSHARP = """
[(class_declaration) (struct_declaration) (interface_declaration) (record_declaration)
 (enum_declaration) (delegate_declaration) (method_declaration) (constructor_declaration)
 (destructor_declaration) (operator_declaration) (property_declaration)] @d
"""
_RUBY = "[(module) (class) (method) (singleton_method)] @d"

QUERIES = {"c": _C, "cpp": _CPP, "csharp": _CSHARP, "ruby": _RUBY}

_C_KINDS = {
    "class_specifier": "class",
    "struct_specifier": "struct",
    "union_specifier": "struct",
    "enum_specifier": "enum",
}
# the declarator nodes a function's name can be (after pointers, references, parentheses)
_C_NAMES = frozenset(
    {
        "identifier",
        "field_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "template_function",
        "operator_cast",
        "type_identifier",
    }
)
# never a function's name: what the parser takes for one in macro-heavy code
_C_DENY = rules.DENY | {"decltype", "static_assert", "alignas", "defined", "__attribute__"}
# a candidate nested in one of these is qualified through that symbol, not by its namespace
_CPP_SCOPES = frozenset({*_C_KINDS, "function_definition"})

_CS_KINDS = {
    "class_declaration": "class",
    "struct_declaration": "struct",
    "interface_declaration": "interface",
    "record_declaration": "class",
    "enum_declaration": "enum",
    "delegate_declaration": "type",
    "method_declaration": "function",
    "constructor_declaration": "function",
    "destructor_declaration": "function",
    "operator_declaration": "function",
    "property_declaration": "property",
}
_CS_OWNERS = frozenset(
    {
        "class_declaration",
        "struct_declaration",
        "interface_declaration",
        "record_declaration",
    }
)
_CS_TYPES = frozenset({*_CS_OWNERS, "enum_declaration", "delegate_declaration"})
_RB_SCOPES = frozenset({"class", "module"})


def _make(
    src: Source,
    node: Any,
    outer: Any,
    name: str,
    kind: str,
    sig_row: int,
    owner: str | None = None,
    signature: str | None = None,
) -> Candidate | None:
    if not name.strip():  # a node the parser invented to recover from an error
        return None
    if signature is None and sig_row == outer.start_point[0]:
        signature = _inline_signature(src, outer)
    # attributes (`[Serializable]`, `[[nodiscard]]`) are inside the node: no decorator lines
    return Candidate(
        name=name,
        kind=kind,
        start_line=outer.start_point[0],
        end_line=_end_row(node),
        sig_line=sig_row,
        span=(outer.start_byte, node.end_byte),
        owner=owner,
        signature=signature,
    )


def _inline_signature(src: Source, node: Any) -> str | None:
    """The head of a definition that shares its first line with other code (a one-line class
    body, `namespace a { int f() {...} }`): the line's head would name the wrong thing."""
    row, col = node.start_point
    before = src.raw[node.start_byte - col : node.start_byte]
    if b"{" not in before and b"}" not in before and b";" not in before:
        return None  # only modifiers (`typedef`, `static`) before it: they are the head
    pos = src.line_starts[row] + len(before.decode("utf-8", "ignore"))
    return rules.one_line(src.text[pos : src.header_end(pos)])


# ------------------------------------------------------------------------------------- C, C++

# code only C++ has (a C header guarded for C++ with `extern "C"` does not count); each
# pattern runs only on text holding its word, which keeps the check cheap on plain C
_CPP_SIGNS = (
    (("::",), compile_pattern(r"\w::~?\w")),
    (("namespace",), compile_pattern(r"(?m)^[ \t]*namespace\b")),
    (("template",), compile_pattern(r"(?m)^[ \t]*template[ \t]*<")),
    (("class",), compile_pattern(r"\bclass[ \t]+\w+(?:[ \t]+final)?[ \t]*[:{]")),
    (
        ("public", "private", "protected"),
        compile_pattern(r"(?m)^[ \t]*(?:public|private|protected)[ \t]*:"),
    ),
)
# unknown macros leave small parse errors all over real C; only a file mostly in error is
# worth the structural chunker's second opinion
ERROR_SHARE = 0.05


def looks_like_cpp(src: Source) -> bool:
    """Whether a `.h` file is a C++ header: the C grammar would misread its classes and
    templates (and spend long recovering from them)."""
    masked = src.masked
    return any(
        any(w in masked for w in words) and pattern.search(masked) for words, pattern in _CPP_SIGNS
    )


def errors_matter(root: Any) -> bool:
    """Whether parse errors cover more than `ERROR_SHARE` of a C / C++ file (only the
    branches holding an error are walked)."""
    size = max(1, root.end_byte - root.start_byte)
    covered = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            covered += node.end_byte - node.start_byte
            if covered > ERROR_SHARE * size:
                return True
            continue
        stack.extend(c for c in node.children if c.has_error)
    return False


def _c_candidate(src: Source, node: Any, classes: Any, ascii_: bool) -> Candidate | None:
    t = node.type
    if t == "preproc_function_def":
        name_node = node.child_by_field_name("name")
        params = node.child_by_field_name("parameters")
        if name_node is None or params is None:
            return None
        name = _text(src, name_node)
        head = rules.one_line(f"#define {name}{_text(src, params)}")
        return _make(src, node, node, name, "macro", node.start_point[0], signature=head)
    if t == "type_definition":
        # a tagged type is its own capture; only `typedef struct {...} name;` is named here
        spec = node.child_by_field_name("type")
        declarator = node.child_by_field_name("declarator")
        if spec is None or spec.child_by_field_name("name") is not None:
            return None
        if declarator is None or declarator.type != "type_identifier":
            return None
        name = _text(src, declarator)
        return _make(src, node, node, name, _C_KINDS[spec.type], node.start_point[0])
    outer = node
    while outer.parent is not None and outer.parent.type == "template_declaration":
        outer = outer.parent
    namespace = _cpp_namespace(src, node)
    if t in _C_KINDS:
        # a specialization (`struct Wrap<Str>`) is named by its template, `class a::B` like
        # an out-of-line definition
        name_node = node.child_by_field_name("name")
        path = _c_name_path(src, name_node) if name_node is not None else []
        if not path or not all(p.isidentifier() for p in path):
            return None
        owner = ".".join(p for p in (namespace, *path[:-1]) if p) or None
        return _make(src, node, outer, path[-1], _C_KINDS[t], name_node.start_point[0], owner)
    if node.child_by_field_name("body") is None:  # `= default`, `= delete`
        return None
    name_node = _c_function_name(node.child_by_field_name("declarator"))
    if name_node is None:
        return None
    path = _c_name_path(src, name_node)
    if not path or not path[-1] or path[-1] in _C_DENY:
        return None
    if node.child_by_field_name("type") is None and not _typeless_ok(node, name_node, path):
        return None
    kind = "method" if len(path) > 1 else "function"
    owner = ".".join(p for p in (namespace, *path[:-1]) if p) or None
    return _make(src, node, outer, path[-1], kind, name_node.start_point[0], owner)


def _typeless_ok(node: Any, name_node: Any, path: list[str]) -> bool:
    """A definition without a return type is a C++ constructor, destructor or conversion;
    anything else is a macro call the parser took for one (`TEST(Suite, Name) {`, a call
    under `#ifdef`)."""
    if len(path) > 1 or path[-1].startswith(("~", "operator")):
        return True
    parent = node.parent
    if parent is not None and parent.type == "template_declaration":
        parent = parent.parent
    return parent is not None and parent.type == "field_declaration_list"


def _c_function_name(declarator: Any) -> Any:
    """The name node inside a function's declarator (`*f(...)`, `(*f(int))(int)`, `&T::f`)."""
    node = declarator
    for _ in range(32):
        if node is None:
            return None
        if node.type in _C_NAMES:
            return node
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children if c.type.endswith("declarator")), None)
            if inner is None:
                inner = next((c for c in node.named_children if c.type in _C_NAMES), None)
        node = inner
    return None


def _c_name_path(src: Source, node: Any) -> list[str]:
    """`a::B<T>::f` -> ["a", "B", "f"]; `~Cart` stays "~Cart"; `operator bool` is one name."""
    if node.type == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        name = node.child_by_field_name("name")
        head: list[str] = []
        if scope is not None:
            head = _c_name_path(src, scope)
        return head + (_c_name_path(src, name) if name is not None else [])
    if node.type in ("template_type", "template_function"):
        name = node.child_by_field_name("name")
        return [_text(src, name)] if name is not None else []
    if node.type == "operator_cast":
        cast = node.child_by_field_name("type")
        return ["operator " + " ".join(_text(src, cast).split())] if cast is not None else []
    return [" ".join(_text(src, node).split())]


def _cpp_namespace(src: Source, node: Any) -> str | None:
    """The named namespaces around a top-level definition, outermost first ("a.b")."""
    parts: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type in _CPP_SCOPES:
            return None
        if parent.type == "namespace_definition":
            name = parent.child_by_field_name("name")
            if name is not None:
                parts.append(".".join(_text(src, name).replace(" ", "").split("::")))
        parent = parent.parent
    return ".".join(reversed(parts)) or None


# ----------------------------------------------------------------------------------------- C#


def _cs_candidate(src: Source, node: Any, classes: Any, ascii_: bool) -> Candidate | None:
    t = node.type
    kind = _CS_KINDS[t]
    if t not in _CS_TYPES:
        parent = node.parent
        owner = parent.parent if parent is not None else None
        if parent is None or parent.type != "declaration_list" or owner is None:
            return None
        if owner.type not in _CS_OWNERS:
            return None
        if t == "property_declaration":
            if not _cs_property_has_body(node):
                return None
        elif node.child_by_field_name("body") is None:
            return None
    name_node = node.child_by_field_name("name")
    if t == "operator_declaration":
        op = node.child_by_field_name("operator")
        if op is None:
            return None
        return _make(src, node, node, f"operator {_text(src, op)}", kind, op.start_point[0])
    if name_node is None:
        return None
    name = _text(src, name_node)
    if t == "destructor_declaration":
        name = "~" + name
    return _make(src, node, node, name, kind, name_node.start_point[0])


def _cs_property_has_body(node: Any) -> bool:
    if node.child_by_field_name("value") is not None:  # `int X => x;`
        return any(c.type == "arrow_expression_clause" for c in node.named_children)
    accessors = node.child_by_field_name("accessors")
    if accessors is None:
        return False
    return any(a.child_by_field_name("body") is not None for a in accessors.named_children)


# --------------------------------------------------------------------------------------- Ruby


def _rb_candidate(src: Source, node: Any, classes: Any, ascii_: bool) -> Candidate | None:
    t = node.type
    name_node = node.child_by_field_name("name")
    if name_node is None:
        return None
    if t in _RB_SCOPES:
        path = _rb_path(src, name_node)
        if not path:
            return None
        owner = None
        if len(path) > 1:
            owner = ".".join(p for p in (_rb_scope(src, node), *path[:-1]) if p)
        return _make(src, node, node, path[-1], "class", name_node.start_point[0], owner)
    return _make(src, node, node, _text(src, name_node), "function", name_node.start_point[0])


def _rb_path(src: Source, node: Any) -> list[str]:
    """`A::B::C` -> ["A", "B", "C"] (a leading `::` names the top level)."""
    if node.type == "scope_resolution":
        scope = node.child_by_field_name("scope")
        name = node.child_by_field_name("name")
        head = _rb_path(src, scope) if scope is not None else []
        return head + ([_text(src, name)] if name is not None else [])
    return [_text(src, node)]


def _rb_scope(src: Source, node: Any) -> str:
    """The qualname of the class or module lexically around `node` ("" at the top level)."""
    parts: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type in _RB_SCOPES:
            name = parent.child_by_field_name("name")
            if name is not None:
                parts[:0] = _rb_path(src, name)
        parent = parent.parent
    return ".".join(parts)


CANDIDATES: dict[str, Callable[[Source, Any, Any, bool], Candidate | None]] = {
    "c": _c_candidate,
    "cpp": _c_candidate,
    "csharp": _cs_candidate,
    "ruby": _rb_candidate,
}
