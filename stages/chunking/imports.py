"""Import specifiers (extraction) and their best-effort mapping to repository paths.

Extraction runs on masked text, so a commented-out import never counts; specifiers keep the
source's spelling: Python "a.b" / "m.name" / ".x", JS/TS "./gateway", Go "github.com/x/y",
Rust "crate::a::b" (use trees expanded), Java "com.acme.Foo" / "com.acme.*", C/C++ "util/x.h"
(quoted or angled), C# "Acme.Billing", Ruby "a/b" (`require`) and "./a/b" (`require_relative`).

Resolution never touches the file system: it only looks specifiers up in `known_paths`
(repo-relative POSIX paths) and in `ProjectFacts`, the few repository-level settings that decide
where an import points (go.mod module paths, package.json "main", tsconfig.json path aliases
through their `extends` chain, Cargo.toml crate names),
parsed from those files' text by `project_facts`. Go files are linked to the other files of
their package (same directory) even without an import, since Go never names them; given each Go
file's `GoNames` (what it declares, which identifiers it mentions) only to the files of its own
or an imported package that define a name it uses, so a package's doc.go, test helpers and
unrelated files are not dependencies of every file. A C/C++ header is linked to the source file
that implements it. Indexes derived from `known_paths` are
cached for the last few collections seen (by identity and size), so resolving every file of a
repository against the same set is cheap; do not mutate that collection between calls.
"""

from __future__ import annotations

import bisect
import json
import posixpath
import re
import tomllib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from ...store.regexcache import compile_pattern
from .source import Source

_PY_IMPORT = compile_pattern(r"(?m)^[ \t]*import[ \t]+([^\n;]+)")
_PY_FROM = compile_pattern(
    r"(?m)^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)?|[^\n;]+)"
)
_JS_KEYWORDS = ("from", "import")
_JS_CALLS = ("require", "import")
_WORD = compile_pattern(r"\w")
_GO = compile_pattern(r"(?m)^[ \t]*import[ \t]*(\()?")
_RUST_USE = compile_pattern(r"(?m)^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?use[ \t]+([^;]+);")
_RUST_CRATE = compile_pattern(r"(?m)^[ \t]*extern[ \t]+crate[ \t]+(\w+)")
_RUST_PATH = compile_pattern(r"crate(?:::\w+)+")
_WORD_OR_COLON = compile_pattern(r"[\w:]")
_RUST_MOD = compile_pattern(r"(?m)^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?mod[ \t]+(\w+)[ \t]*;")
_JAVA = compile_pattern(r"(?m)^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+(?:\.\*)?)[ \t]*;")
_KOTLIN = compile_pattern(r"(?m)^[ \t]*import[ \t]+([\w.]+(?:\.\*)?)")
_CSHARP = compile_pattern(
    r"(?m)^[ \t]*(?:global[ \t]+)?using[ \t]+(?:static[ \t]+)?(?:\w+[ \t]*=[ \t]*)?([\w.]+)[ \t]*;"
)
_INCLUDE = compile_pattern(r"(?m)^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"\n]+)[>\"]")
_PHP_USE = compile_pattern(r"(?m)^[ \t]*use[ \t]+([\w\\]+)")
_STRING_CALL = compile_pattern(
    r"\b(?:require_relative|require|include|require_once|include_once)\b[ \t(]*(?=[\"'])"
)
_RB_AUTOLOAD = compile_pattern(r"\bautoload\b[ \t(]*:\w+[ \t]*,[ \t]*(?=[\"'])")
_AS = compile_pattern(r"\s+as\s+\w+")


def extract(src: Source) -> list[str]:
    lang = src.language
    masked = src.masked
    if lang == "python":
        return _python(masked)
    if lang in ("javascript", "typescript", "tsx"):
        return _js(src)
    if lang == "go":
        return _go(src)
    if lang == "rust":
        out = []
        for m in _lines_matching(_RUST_USE, masked, "use"):
            out.extend(_expand_use(_AS.sub("", m.group(1))))
        out.extend(m.group(1) for m in _lines_matching(_RUST_CRATE, masked, "crate"))
        # `mod foo;` loads foo.rs / foo/mod.rs: spelled as the path `use` would give it
        out.extend(f"self::{m.group(1)}" for m in _lines_matching(_RUST_MOD, masked, "mod"))
        # a path used in code (`crate::logger::init()`) is a dependency without any `use`
        out.extend(_rust_paths(masked))
        return list(dict.fromkeys(out))
    if lang == "java":
        return [m.group(1) for m in _JAVA.finditer(masked)]
    if lang in ("kotlin", "scala", "swift"):
        return [m.group(1) for m in _KOTLIN.finditer(masked)]
    if lang == "csharp":
        return [m.group(1) for m in _CSHARP.finditer(masked)]
    if lang in ("c", "cpp"):
        return [m.group(1).strip() for m in _INCLUDE.finditer(src.text)]
    if lang in ("php", "ruby"):
        found = [
            (m.start(), _ruby_relative(s) if m.group().startswith("require_relative") else s)
            for m in _STRING_CALL.finditer(masked)
            if (s := _string_at(src, m.end()))
        ]
        if lang == "php":
            found += [(m.start(), m.group(1)) for m in _PHP_USE.finditer(masked)]
        else:  # `autoload :Cart, "shop/cart"` requires the file when Cart is first used
            found += [
                (m.start(), s)
                for m in _RB_AUTOLOAD.finditer(masked)
                if (s := _string_at(src, m.end()))
            ]
        return [s for _, s in sorted(found)]
    return []


def _ruby_relative(spec: str) -> str:
    """`require_relative "a/b"` as "./a/b": unlike `require "a/b"` (the load path), it names a
    file next to the requiring one, and the resolver must tell the two apart."""
    return spec if spec.startswith(("./", "../", "/")) else "./" + spec


def _js(src: Source) -> list[str]:
    """The strings right after `from`, `import`, `require(` or `import(`. Looking back from each
    string literal is several times cheaper than scanning the whole text for the keywords."""
    masked = src.masked
    out = []
    for pos in src.strings:  # in text order
        if masked[pos] not in "\"'":
            continue
        lo = max(0, pos - 80)
        before = masked[lo:pos].rstrip(" \t")
        keywords = _JS_KEYWORDS
        if before.endswith("("):
            before = before[:-1].rstrip(" \t")
            keywords = _JS_CALLS
        for kw in keywords:
            if before.endswith(kw):
                at = lo + len(before) - len(kw)
                if (at == 0 or not _WORD.match(masked, at - 1)) and (value := _string_at(src, pos)):
                    out.append(value)
                break
    return out


def _lines_matching(pattern: re.Pattern[str], masked: str, word: str) -> list[re.Match[str]]:
    """`pattern.finditer(masked)` for a pattern anchored at a line start whose line must hold
    `word`: tried only on those lines (a line-anchored scan of every line is several times
    slower than finding the word)."""
    out = []
    end = 0
    pos = masked.find(word)
    while pos >= 0:
        start = masked.rfind("\n", 0, pos) + 1
        if start >= end and (m := pattern.match(masked, start)) is not None:
            out.append(m)
            end = max(m.end(), start + 1)
        else:
            end = max(end, start + 1)
        nl = masked.find("\n", pos)
        if nl < 0:
            break
        pos = masked.find(word, nl)
    return out


def _rust_paths(masked: str) -> list[str]:
    """Every `crate::a::b` path not preceded by a word or `::`."""
    out = []
    pos = masked.find("crate::")
    while pos >= 0:
        m = None
        if pos == 0 or not _WORD_OR_COLON.match(masked, pos - 1):
            m = _RUST_PATH.match(masked, pos)
            if m is not None:
                out.append(m.group(0))
        pos = masked.find("crate::", m.end() if m is not None else pos + 7)
    return out


def _string_at(src: Source, pos: int) -> str:
    end = src.strings.get(pos)
    if end is None or end - pos < 2:
        return ""
    value = src.text[pos + 1 : end - 1]
    return "" if "\n" in value or "${" in value else value.strip()


def _python(masked: str) -> list[str]:
    found: list[tuple[int, list[str]]] = []
    for m in _PY_IMPORT.finditer(masked):
        names = [_AS.sub("", n).strip().rstrip("\\").strip() for n in m.group(1).split(",")]
        found.append((m.start(), [n for n in names if re.fullmatch(r"[\w.]+", n)]))
    for m in _PY_FROM.finditer(masked):
        base = m.group(1)
        names = []
        for raw in m.group(2).strip("()\\ \t").split(","):
            n = _AS.sub("", " ".join(raw.split())).strip()
            if n == "*":
                names.append(base)
            elif re.fullmatch(r"\w+", n):
                names.append(base + n if base.endswith(".") else f"{base}.{n}")
        found.append((m.start(), names))
    found.sort(key=lambda t: t[0])
    return [n for _, names in found for n in names if n]


def _go(src: Source) -> list[str]:
    masked = src.masked
    starts = sorted(src.strings)
    out = []
    for m in _GO.finditer(masked):
        if m.group(1):
            close = masked.find(")", m.end())
            stop = close if close >= 0 else len(masked)
        else:
            stop = masked.find("\n", m.end())
            stop = stop if stop >= 0 else len(masked)
        i = bisect.bisect_left(starts, m.end())
        while i < len(starts) and starts[i] < stop:
            if value := _string_at(src, starts[i]):
                out.append(value)
            i += 1
    return out


def _expand_use(tree: str, depth: int = 0) -> list[str]:
    tree = "".join(tree.split())
    brace = tree.find("{")
    if brace < 0 or depth > 16:
        return [tree[:-3] if tree.endswith("::*") else tree] if tree else []
    prefix = tree[:brace]
    inner = tree[brace + 1 : tree.rfind("}")] if tree.endswith("}") else tree[brace + 1 :]
    parts: list[str] = []
    cur: list[str] = []
    level = 0
    for ch in inner:
        if ch == "," and level == 0:
            parts.append("".join(cur))
            cur = []
            continue
        level += ch == "{"
        level -= ch == "}"
        cur.append(ch)
    parts.append("".join(cur))
    out = []
    for part in parts:
        if part == "self":
            out.append(prefix.rstrip(":"))
        elif part:
            out.extend(prefix + q for q in _expand_use(part, depth + 1))
    return out


# ---------------------------------------------------------------------------------- resolution


# Files whose text `project_facts` reads; the chunk stage's adapter passes them in.
FACT_FILES = frozenset({"go.mod", "package.json", "tsconfig.json", "jsconfig.json", "Cargo.toml"})


@dataclass(frozen=True, slots=True)
class TsPaths:
    """One tsconfig.json's module resolution settings; directories are repo-relative."""

    directory: str  # where the tsconfig.json sits: it applies to files below it
    base: str | None  # baseUrl, resolved; None when the config sets none
    paths: tuple[tuple[str, tuple[str, ...]], ...]  # pattern -> targets (repo-relative)


@dataclass(frozen=True, slots=True)
class ProjectFacts:
    """Repository-level settings that decide where imports point."""

    go_modules: tuple[tuple[str, str], ...] = ()  # (module path, its directory), longest first
    js_mains: Mapping[str, str] = field(default_factory=dict)  # folder -> its package's main file
    ts_configs: tuple[TsPaths, ...] = ()  # deepest directory first
    # Rust crate name as code spells it (`grep_searcher`) -> its library root (crates/x/src/lib.rs)
    rust_crates: Mapping[str, str] = field(default_factory=dict)


_GO_MODULE = compile_pattern(r"(?m)^[ \t]*module[ \t]+\"?([^\s\"/]+(?:/[^\s\"]*)?)\"?")
_JSONC_NOISE = compile_pattern(r'("(?:\\.|[^"\\\n])*")|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = compile_pattern(r",(\s*[}\]])")


def _jsonc(text: str) -> dict:
    """tsconfig.json is JSON with comments and trailing commas; anything unreadable is {}."""
    cleaned = _JSONC_NOISE.sub(lambda m: m.group(1) or "", text)
    try:
        value = json.loads(_TRAILING_COMMA.sub(r"\1", cleaned))
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _join(*parts: str) -> str:
    p = posixpath.normpath(posixpath.join(*parts))
    return "" if p == "." else p


def project_facts(texts: Mapping[str, str]) -> ProjectFacts:
    """Facts from the text of the repository's `FACT_FILES` (path -> text)."""
    modules = []
    mains = {}
    configs = []
    crates: dict[str, str] = {}
    for path, text in texts.items():
        d, name = posixpath.split(path)
        if name == "go.mod":
            if m := _GO_MODULE.search(text):
                modules.append((m.group(1), d))
        elif name == "package.json":
            main = _jsonc(text).get("main")
            if isinstance(main, str) and main:
                mains[d] = _join(d, main)
        elif name in ("tsconfig.json", "jsconfig.json"):
            if (cfg := _ts_config(path, texts)) is not None:
                configs.append(cfg)
        elif name == "Cargo.toml" and (crate := _cargo_crate(d, text)) is not None:
            crates.setdefault(*crate)
    modules.sort(key=lambda t: (-len(t[0]), t[0]))
    configs.sort(key=lambda c: (-c.directory.count("/") - bool(c.directory), c.directory))
    return ProjectFacts(tuple(modules), mains, tuple(configs), crates)


def _ts_options(path: str, texts: Mapping[str, str]) -> tuple[str | None, dict[str, list[str]]]:
    """(baseUrl, paths) of a tsconfig after following its `extends` chain: a setting of the
    child overrides its parent's; a relative `baseUrl` is relative to the file that sets it and
    `paths` to the baseUrl in force (or to the file that sets them, without one). Only
    configs inside the repository are followed (a package name in `extends` is not)."""
    base: str | None = None
    paths: dict | None = None
    paths_dir = ""
    seen: set[str] = set()
    while path in texts and path not in seen:
        seen.add(path)
        config = _jsonc(texts[path])
        opts = config.get("compilerOptions")
        d = posixpath.dirname(path)
        if isinstance(opts, dict):
            if base is None and isinstance(opts.get("baseUrl"), str):
                base = _join(d, opts["baseUrl"])
            if paths is None and isinstance(opts.get("paths"), dict):
                paths, paths_dir = opts["paths"], d
        parent = config.get("extends")
        if not isinstance(parent, str) or not parent.startswith((".", "/")):
            break
        parent = _join(d, parent.lstrip("/") if parent.startswith("/") else parent)
        path = parent if parent.endswith(".json") else parent + ".json"
    targets_base = base if base is not None else paths_dir
    return base, {
        k: [_join(targets_base or "", t) for t in v if isinstance(t, str)]
        for k, v in (paths or {}).items()
        if isinstance(v, list)
    }


def _ts_config(path: str, texts: Mapping[str, str]) -> TsPaths | None:
    base, raw = _ts_options(path, texts)
    paths = tuple((k, tuple(v)) for k, v in raw.items())
    if base is None and not paths:
        return None
    return TsPaths(posixpath.dirname(path), base, paths)


def _cargo_crate(d: str, text: str) -> tuple[str, str] | None:
    """(crate name as code spells it, library root) of a Cargo.toml with a `[package]`: a
    workspace member is used from the other members as `name::...`."""
    try:
        manifest = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    package = manifest.get("package")
    lib = manifest.get("lib")
    lib = lib if isinstance(lib, dict) else {}
    name = lib.get("name") or (package.get("name") if isinstance(package, dict) else None)
    if not isinstance(name, str) or not name:
        return None
    root = lib.get("path")
    return name.replace("-", "_"), _join(d, root if isinstance(root, str) else "src/lib.rs")


NO_FACTS = ProjectFacts()


class _PathIndex:
    def __init__(self, known: Collection[str]) -> None:
        self.paths = known if isinstance(known, set | frozenset) else set(known)
        self.by_name: dict[str, list[str]] = {}
        self.dir_files: dict[str, list[str]] = {}
        for p in self.paths:
            d, name = posixpath.split(p)
            self.by_name.setdefault(name, []).append(p)
            self.dir_files.setdefault(d, []).append(p)
        self.dirs_by_last: dict[str, list[str]] = {}
        for d in self.dir_files:
            self.dirs_by_last.setdefault(posixpath.basename(d), []).append(d)


_INDEXES: list[tuple[Collection[str], int, _PathIndex]] = []


def _index(known: Collection[str]) -> _PathIndex:
    for obj, size, idx in _INDEXES:
        if obj is known and size == len(known):
            return idx
    idx = _PathIndex(known)
    _INDEXES.insert(0, (known, len(known), idx))
    del _INDEXES[4:]
    return idx


def resolve_imports(
    path: str,
    language: str | None,
    imports: Iterable[str],
    known_paths: Collection[str],
    facts: ProjectFacts = NO_FACTS,
    go_names: Mapping[str, GoNames] | None = None,
) -> list[str]:
    """Repo paths (in `known_paths`) that the import specifiers of `path` refer to; sorted.

    For Go, `go_names` (path -> `go_names(text)`, for the repository's Go files) narrows a
    package to the files that define a name `path` uses; without it every source file of an
    imported or of its own package is a link."""
    resolver = _RESOLVERS.get(language or "")
    if resolver is None:
        return []
    idx = _index(known_paths)
    out: set[str] = set()
    for spec in imports:
        out.update(resolver(path, spec, idx, facts))
    if language == "go":
        if go_names is not None and path in go_names:
            return _go_used(path, out, idx, go_names)
        out.update(_go_package(path, idx))
    elif language in ("c", "cpp"):
        out.update(_c_implementation(path, idx))
    out.discard(path)
    return sorted(out)


# Languages whose imports `resolve_imports` maps: only between two files of these can "no import
# link" be asserted; elsewhere a missing link says nothing.
# C and C++ are: a header is linked to its implementation file, so a caller including it reaches
# the definitions. C# `using` names namespaces and Ruby code uses constants that autoloading
# (Rails, Zeitwerk) loads without any `require`, so their silence proves nothing.
RESOLVED_LANGUAGES = frozenset(
    {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp"}
)


def _first(idx: _PathIndex, options: Iterable[str]) -> list[str]:
    for o in options:
        if o in idx.paths:
            return [o]
    return []


def _python_module(idx: _PathIndex, base: str, dotted: str) -> list[str]:
    parts = [p for p in dotted.split(".") if p]
    for k in range(len(parts), 0, -1):
        stem = posixpath.join(base, *parts[:k])
        hit = _first(idx, (stem + ".py", stem + "/__init__.py", stem + ".pyi"))
        if hit:
            return hit
    if not parts and base:
        return _first(idx, (base + "/__init__.py",))
    return []


def _resolve_python(path: str, spec: str, idx: _PathIndex, facts: ProjectFacts) -> list[str]:
    if spec.startswith("."):
        level = len(spec) - len(spec.lstrip("."))
        base = posixpath.dirname(path)
        for _ in range(level - 1):
            base = posixpath.dirname(base)
        return _python_module(idx, base, spec[level:])
    roots = ["", "src"]
    d = posixpath.dirname(path)
    while d:
        roots.append(d)
        d = posixpath.dirname(d)
    for root in roots:
        hit = _python_module(idx, root, spec)
        if hit:
            return hit
    return []


_JS_EXT = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts", ".json")


def _js_target(target: str, idx: _PathIndex, facts: ProjectFacts) -> list[str]:
    """Node's order: the file as named, with an extension added, the folder's package.json
    "main", the folder's index file."""
    stems = [target]
    for ext in (".js", ".jsx", ".mjs", ".cjs"):
        if target.endswith(ext):
            stems.append(target[: -len(ext)])
    options = [target] if target else []
    for stem in stems:
        if stem:
            options += [stem + e for e in _JS_EXT]
    main = facts.js_mains.get(target)
    if main is not None:
        options += [main] + [main + e for e in _JS_EXT[:6]]
        options += [f"{main}/index{e}" for e in _JS_EXT[:6]]
    prefix = f"{target}/" if target else ""
    options += [f"{prefix}index{e}" for e in _JS_EXT[:8]]
    return _first(idx, options)


def _ts_alias(path: str, spec: str, facts: ProjectFacts) -> list[str] | None:
    """Targets from the nearest tsconfig.json above `path`; None when none applies."""
    for cfg in facts.ts_configs:
        if cfg.directory and not path.startswith(cfg.directory + "/"):
            continue
        out = []
        for pattern, targets in cfg.paths:
            star = pattern.find("*")
            if star < 0:
                if spec == pattern:
                    out += list(targets)
                continue
            pre, post = pattern[:star], pattern[star + 1 :]
            if spec.startswith(pre) and spec.endswith(post) and len(spec) >= len(pre) + len(post):
                middle = spec[len(pre) : len(spec) - len(post)]
                out += [_join(t.replace("*", middle, 1)) for t in targets]
        if cfg.base is not None:
            out.append(_join(cfg.base, spec))
        return out
    return None


def _resolve_js(path: str, spec: str, idx: _PathIndex, facts: ProjectFacts) -> list[str]:
    if spec.startswith(("./", "../")) or spec in (".", ".."):
        targets = [_join(posixpath.dirname(path), spec)]
    elif (aliased := _ts_alias(path, spec, facts)) is not None:
        targets = aliased
    elif spec.startswith(("@/", "~/")):
        # the common alias for the project's src/ folder; the project may sit in a subfolder
        targets = []
        d = posixpath.dirname(path)
        while True:
            targets.append(posixpath.join(d, "src", spec[2:]))
            if not d:
                break
            d = posixpath.dirname(d)
    else:
        return []
    for target in targets:
        if target == ".." or target.startswith("../"):
            continue
        hit = _js_target(target, idx, facts)
        if hit:
            return hit
    return []


def _go_sources(idx: _PathIndex, d: str) -> list[str]:
    return [f for f in idx.dir_files.get(d, ()) if f.endswith(".go") and not f.endswith("_test.go")]


def _go_package(path: str, idx: _PathIndex) -> list[str]:
    """A directory is one Go package: its files use each other's sources without importing
    them. Test files are left out as targets: sources never use them, and a test rarely uses
    another test file, so linking them would hide real couplings between tests."""
    return _go_sources(idx, posixpath.dirname(path))


@dataclass(frozen=True, slots=True)
class GoNames:
    """What one Go file declares at top level and which names it mentions (masked text)."""

    package: str
    defined: frozenset[str]  # functions, types, vars and consts
    methods: frozenset[str]
    bare: frozenset[str]  # identifiers not after a `.`
    selected: frozenset[str]  # identifiers after a `.` (`pkg.Name`, `x.Method`)


_GO_PACKAGE = compile_pattern(r"(?m)^[ \t]*package[ \t]+(\w+)")
_GO_FUNC = compile_pattern(r"(?m)^func[ \t]+(\w+)")
_GO_METHOD = compile_pattern(r"(?m)^func[ \t]*\([^()]*\)[ \t]*(\w+)")
_GO_DECL = compile_pattern(r"(?m)^(?:type|var|const)[ \t]+(\w+(?:[ \t]*,[ \t]*\w+)*)")
_GO_GROUP = compile_pattern(r"(?m)^(?:type|var|const)[ \t]*\(")
_GO_SPEC_NAMES = compile_pattern(r"(?m)^[ \t]+(\w+(?:[ \t]*,[ \t]*\w+)*)")
_GO_IDENT = compile_pattern(r"(\.[ \t]*)?\b([A-Za-z_]\w*)")
_GO_NESTING = compile_pattern(r"[(){}\[\]]")
_NOT_NAMES = frozenset({"_", "init", "main"})


def go_names(text: bytes) -> GoNames:
    """The top-level names a Go file declares and the identifiers it uses, from its text."""
    masked = Source(text, "go").masked
    package = _GO_PACKAGE.search(masked)
    defined = {m.group(1) for m in _GO_FUNC.finditer(masked)}
    for m in _GO_DECL.finditer(masked):
        defined.update(n.strip() for n in m.group(1).split(","))
    for m in _GO_GROUP.finditer(masked):
        depth = 1
        line_start = True
        pos = m.end()
        while depth and pos < len(masked):
            if line_start and depth == 1 and (spec := _GO_SPEC_NAMES.match(masked, pos)):
                defined.update(n.strip() for n in spec.group(1).split(","))
            nl = masked.find("\n", pos)
            stop = nl if nl >= 0 else len(masked)
            for b in _GO_NESTING.finditer(masked, pos, stop):
                depth += 1 if b.group() in "({[" else -1
                if depth == 0:
                    break
            pos = stop + 1
            line_start = True
    bare: set[str] = set()
    selected: set[str] = set()
    for m in _GO_IDENT.finditer(masked):
        (selected if m.group(1) else bare).add(m.group(2))
    return GoNames(
        package.group(1) if package else "",
        frozenset(defined - _NOT_NAMES),
        frozenset(m.group(1) for m in _GO_METHOD.finditer(masked)),
        frozenset(bare),
        frozenset(selected),
    )


def _go_used(
    path: str, candidates: set[str], idx: _PathIndex, names: Mapping[str, GoNames]
) -> list[str]:
    """The files of `path`'s own package (tests included when `path` is a test) and of the
    packages it imports that define a name `path` uses: a package-level name mentioned bare in
    its own package, `pkg.Name` elsewhere, or a method name after a `.` that only one file of
    that package defines (`Match` on three types says nothing). A file whose names are not
    known is kept (nothing says it is unused)."""
    own = names[path]
    d = posixpath.dirname(path)
    is_test = path.endswith("_test.go")
    out = []
    for f in idx.dir_files.get(d, ()):
        if not f.endswith(".go") or f == path or (f.endswith("_test.go") and not is_test):
            continue
        other = names.get(f)
        if other is None or (
            other.package == own.package
            and (own.bare & other.defined or own.selected & _unique_methods(f, idx, names))
        ):
            out.append(f)
    for f in candidates:
        other = names.get(f)
        if other is not None and posixpath.dirname(f) == d and other.package == own.package:
            continue  # the own package: decided above
        if other is None or own.selected & (other.defined | _unique_methods(f, idx, names)):
            out.append(f)
    return sorted(set(out) - {path})


_METHOD_OWNERS: list[tuple[Mapping[str, GoNames], dict[str, dict[tuple[str, str], int]]]] = []


def _unique_methods(path: str, idx: _PathIndex, names: Mapping[str, GoNames]) -> frozenset[str]:
    """The methods of `path` that no other file of its package defines."""
    if not _METHOD_OWNERS or _METHOD_OWNERS[0][0] is not names:
        _METHOD_OWNERS[:] = [(names, {})]
    per_dir = _METHOD_OWNERS[0][1]
    d = posixpath.dirname(path)
    counts = per_dir.get(d)
    if counts is None:
        counts = per_dir[d] = {}
        for f in idx.dir_files.get(d, ()):
            if (g := names.get(f)) is not None:
                for m in g.methods:
                    counts[(g.package, m)] = counts.get((g.package, m), 0) + 1
    own = names[path]
    return frozenset(m for m in own.methods if counts.get((own.package, m)) == 1)


def _resolve_go(path: str, spec: str, idx: _PathIndex, facts: ProjectFacts) -> list[str]:
    for module, d in facts.go_modules:
        if spec == module or spec.startswith(module + "/"):
            return _go_sources(idx, _join(d, spec[len(module) + 1 :]))
    if facts.go_modules:
        # a go.mod names the repository's module: anything outside it is a dependency
        return []
    parts = [p for p in spec.split("/") if p]
    if len(parts) < 2:
        return []
    for k in range(len(parts), 0, -1):
        suffix = "/".join(parts[-k:])
        dirs = [
            d
            for d in idx.dirs_by_last.get(parts[-1], [])
            if d == suffix or d.endswith("/" + suffix)
        ]
        files = [f for d in dirs for f in _go_sources(idx, d)]
        if files:
            return files
    return []


def _rust_module_dir(path: str) -> str:
    d, name = posixpath.split(path)
    return d if name in ("lib.rs", "main.rs", "mod.rs") else posixpath.join(d, name[:-3])


def _rust_crate_root(path: str, idx: _PathIndex) -> tuple[str, list[str]]:
    """(directory of the crate root, the root file): the nearest folder above `path` holding a
    lib.rs or main.rs (a crate need not live in src/), else the enclosing src/."""
    d = posixpath.dirname(path)
    while True:
        root = _first(idx, (_join(d, "lib.rs"), _join(d, "main.rs")))
        if root:
            return d, root
        if not d:
            break
        d = posixpath.dirname(d)
    d = posixpath.dirname(path)
    while d and posixpath.basename(d) != "src":
        d = posixpath.dirname(d)
    return d or "src", []


def _resolve_rust(path: str, spec: str, idx: _PathIndex, facts: ProjectFacts) -> list[str]:
    parts = spec.split("::")
    root: list[str] = []
    if parts[0] == "crate":
        base, root = _rust_crate_root(path, idx)
        rest = parts[1:]
    elif parts[0] in ("self", "super"):
        base = _rust_module_dir(path)
        i = 0
        while i < len(parts) and parts[i] in ("self", "super"):
            if parts[i] == "super":
                base = posixpath.dirname(base)
            i += 1
        rest = parts[i:]
    elif (lib := facts.rust_crates.get(parts[0])) is not None and lib in idx.paths:
        # another crate of the workspace: its modules sit beside its lib.rs
        base, root, rest = posixpath.dirname(lib), [lib], parts[1:]
    else:
        return []
    for k in range(len(rest), 0, -1):
        stem = posixpath.join(base, *rest[:k])
        hit = _first(idx, (stem + ".rs", stem + "/mod.rs"))
        if hit:
            return hit
    # `use crate::Item`: the item lives in (or is re-exported by) the crate root
    return root


def _resolve_java(path: str, spec: str, idx: _PathIndex, facts: ProjectFacts) -> list[str]:
    parts = spec.split(".")
    if parts[-1] == "*":
        suffix = "/".join(parts[:-1])
        dirs = [
            d
            for d in idx.dirs_by_last.get(parts[-2] if len(parts) > 1 else "", [])
            if d == suffix or d.endswith("/" + suffix)
        ]
        return [f for d in dirs for f in idx.dir_files[d] if f.endswith(".java")]
    for k in range(len(parts), 1, -1):
        rel = "/".join(parts[:k]) + ".java"
        hits = [
            p
            for p in idx.by_name.get(parts[k - 1] + ".java", [])
            if p == rel or p.endswith("/" + rel)
        ]
        if hits:
            return hits
    return []


_C_HEADERS = (".h", ".hh", ".hpp", ".hxx", ".h++")
_C_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".c++")


def _ancestors(path: str) -> list[str]:
    """The directories above `path`, nearest first, ending with the repository root ("")."""
    out = []
    d = posixpath.dirname(path)
    while d:
        out.append(d)
        d = posixpath.dirname(d)
    out.append("")
    return out


def _resolve_c(path: str, spec: str, idx: _PathIndex, facts: ProjectFacts) -> list[str]:
    """`#include "x.h"` the way a build would find it: next to the including file, then in an
    `include/` or `src/` folder (or the root) of any directory above it, then the one file in
    the repository whose path ends with the spec. `<x.h>` is looked up the same way, so a
    system header only links to a repository file that shadows it unambiguously."""
    spec = spec.strip()
    if not spec or spec.startswith("/"):
        return []
    here = _join(posixpath.dirname(path), spec)
    options = [here] if not here.startswith("../") else []
    for d in _ancestors(path):
        options += [_join(d, "include", spec), _join(d, "src", spec), _join(d, spec)]
    hit = _first(idx, (o for o in options if o and not o.startswith("../")))
    if hit or spec.startswith("../"):
        return hit
    rel = posixpath.normpath(spec)
    matches = [
        p for p in idx.by_name.get(posixpath.basename(rel), ()) if p == rel or p.endswith("/" + rel)
    ]
    return matches if len(matches) == 1 else []


def _c_implementation(path: str, idx: _PathIndex) -> list[str]:
    """A header's definitions live in the source file of the same stem: beside it, else the
    only one in the repository (`include/lib/x.h` and `src/x.c`)."""
    stem, ext = posixpath.splitext(path)
    if ext.lower() not in _C_HEADERS:
        return []
    beside = [stem + e for e in _C_SOURCES if stem + e in idx.paths]
    if beside:
        return beside
    base = posixpath.basename(stem)
    found = [p for e in _C_SOURCES for p in idx.by_name.get(base + e, ())]
    return found if len(found) == 1 else []


def _resolve_csharp(path: str, spec: str, idx: _PathIndex, facts: ProjectFacts) -> list[str]:
    """`using Acme.Billing;` -> the `.cs` files of the folder that holds that namespace by the
    usual layout: `Acme/Billing/`, or a project folder named by the namespace's first parts
    (`Acme.Billing/`, `Acme/Billing.Core/...`). A one-part namespace (`System`) only matches a
    top-level folder (or one under `src/`), never any folder of that name. A type
    (`using static Acme.Billing.Guard;`, an alias) is its file in its namespace's folder."""
    parts = [p for p in spec.split(".") if p]
    if not parts or not all(re.fullmatch(r"\w+", p) for p in parts):
        return []
    out = [f for d in _cs_namespace_dirs(idx, parts) for f in idx.dir_files[d] if f.endswith(".cs")]
    if not out and len(parts) > 1:
        dirs = set(_cs_namespace_dirs(idx, parts[:-1]))
        out = [f for f in idx.by_name.get(parts[-1] + ".cs", ()) if posixpath.dirname(f) in dirs]
    return sorted(set(out))


def _cs_namespace_dirs(idx: _PathIndex, parts: list[str]) -> list[str]:
    spec = ".".join(parts)
    suffixes = {"/".join([".".join(parts[:k]), *parts[k:]]) for k in range(1, len(parts) + 1)}
    out = []
    for d in idx.dirs_by_last.get(parts[-1], []) + idx.dirs_by_last.get(spec, []):
        if len(parts) == 1:
            ok = d in (spec, f"src/{spec}")
        else:
            ok = any(d == s or d.endswith("/" + s) for s in suffixes)
        if ok:
            out.append(d)
    return out


def _resolve_ruby(path: str, spec: str, idx: _PathIndex, facts: ProjectFacts) -> list[str]:
    """`require_relative` (spelled "./x") from the requiring file; `require "a/b"` from the
    load path a project sets up: the `lib/`, `spec/` and `test/` folders of any directory above
    the file. A gem's own name (`require "json"`) only links when the repository has it there."""
    if spec.startswith("/"):
        return []
    name = spec if spec.endswith(".rb") else spec + ".rb"
    if spec.startswith(("./", "../")):
        target = _join(posixpath.dirname(path), name)
        return [] if target.startswith("../") else _first(idx, (target,))
    options = [_join(d, root, name) for d in _ancestors(path) for root in ("lib", "spec", "test")]
    return _first(idx, (o for o in options if not o.startswith("../")))


_RESOLVERS = {
    "python": _resolve_python,
    "javascript": _resolve_js,
    "typescript": _resolve_js,
    "tsx": _resolve_js,
    "go": _resolve_go,
    "rust": _resolve_rust,
    "java": _resolve_java,
    "c": _resolve_c,
    "cpp": _resolve_c,
    "csharp": _resolve_csharp,
    "ruby": _resolve_ruby,
}
