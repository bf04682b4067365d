"""Import specifiers (extraction) and their best-effort mapping to repository paths.

Extraction runs on masked text, so a commented-out import never counts; specifiers keep the
source's spelling: Python "a.b" / "m.name" / ".x", JS/TS "./gateway", Go "github.com/x/y",
Rust "crate::a::b" (use trees expanded), Java "com.acme.Foo" / "com.acme.*".

Resolution never touches the file system: it only looks specifiers up in `known_paths`
(repo-relative POSIX paths). Indexes derived from `known_paths` are cached for the last few
collections seen (by identity and size), so resolving every file of a repository against the
same set is cheap; do not mutate that collection between calls.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Collection, Iterable

from .source import Source

_PY_IMPORT = re.compile(r"(?m)^[ \t]*import[ \t]+([^\n;]+)")
_PY_FROM = re.compile(r"(?m)^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)?|[^\n;]+)")
_JS = re.compile(r"(?=[fir])(?:\bfrom|\bimport|\brequire[ \t]*\(|\bimport[ \t]*\()[ \t]*(?=[\"'])")
_GO = re.compile(r"(?m)^[ \t]*import[ \t]*(\()?")
_RUST_USE = re.compile(r"(?m)^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?use[ \t]+([^;]+);")
_RUST_CRATE = re.compile(r"(?m)^[ \t]*extern[ \t]+crate[ \t]+(\w+)")
_JAVA = re.compile(r"(?m)^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+(?:\.\*)?)[ \t]*;")
_KOTLIN = re.compile(r"(?m)^[ \t]*import[ \t]+([\w.]+(?:\.\*)?)")
_CSHARP = re.compile(
    r"(?m)^[ \t]*(?:global[ \t]+)?using[ \t]+(?:static[ \t]+)?(?:\w+[ \t]*=[ \t]*)?([\w.]+)[ \t]*;"
)
_INCLUDE = re.compile(r"(?m)^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"\n]+)[>\"]")
_PHP_USE = re.compile(r"(?m)^[ \t]*use[ \t]+([\w\\]+)")
_STRING_CALL = re.compile(
    r"\b(?:require_relative|require|include|require_once|include_once)\b[ \t(]*(?=[\"'])"
)
_AS = re.compile(r"\s+as\s+\w+")


def extract(src: Source) -> list[str]:
    lang = src.language
    masked = src.masked
    if lang == "python":
        return _python(masked)
    if lang in ("javascript", "typescript", "tsx"):
        return [s for m in _JS.finditer(masked) if (s := _string_at(src, m.end()))]
    if lang == "go":
        return _go(src)
    if lang == "rust":
        out = []
        for m in _RUST_USE.finditer(masked):
            out.extend(_expand_use(_AS.sub("", m.group(1))))
        out.extend(m.group(1) for m in _RUST_CRATE.finditer(masked))
        return out
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
            (m.start(), s) for m in _STRING_CALL.finditer(masked) if (s := _string_at(src, m.end()))
        ]
        if lang == "php":
            found += [(m.start(), m.group(1)) for m in _PHP_USE.finditer(masked)]
        return [s for _, s in sorted(found)]
    return []


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
    path: str, language: str | None, imports: Iterable[str], known_paths: Collection[str]
) -> list[str]:
    """Repo paths (in `known_paths`) that the import specifiers of `path` refer to; sorted."""
    resolver = _RESOLVERS.get(language or "")
    if resolver is None:
        return []
    idx = _index(known_paths)
    out: set[str] = set()
    for spec in imports:
        out.update(resolver(path, spec, idx))
    out.discard(path)
    return sorted(out)


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


def _resolve_python(path: str, spec: str, idx: _PathIndex) -> list[str]:
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


def _resolve_js(path: str, spec: str, idx: _PathIndex) -> list[str]:
    if spec.startswith(("./", "../")) or spec in (".", ".."):
        targets = [posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))]
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
        if target.startswith("../"):
            continue
        stems = [target]
        for ext in (".js", ".jsx", ".mjs", ".cjs"):
            if target.endswith(ext):
                stems.append(target[: -len(ext)])
        options = [target]
        for stem in stems:
            options += [stem + e for e in _JS_EXT]
            options += [f"{stem}/index{e}" for e in _JS_EXT[:6]]
        hit = _first(idx, options)
        if hit:
            return hit
    return []


def _resolve_go(path: str, spec: str, idx: _PathIndex) -> list[str]:
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
        files = [
            f
            for d in dirs
            for f in idx.dir_files[d]
            if f.endswith(".go") and not f.endswith("_test.go")
        ]
        if files:
            return files
    return []


def _rust_module_dir(path: str) -> str:
    d, name = posixpath.split(path)
    return d if name in ("lib.rs", "main.rs", "mod.rs") else posixpath.join(d, name[:-3])


def _resolve_rust(path: str, spec: str, idx: _PathIndex) -> list[str]:
    parts = spec.split("::")
    if parts[0] == "crate":
        d = posixpath.dirname(path)
        while d and posixpath.basename(d) != "src":
            d = posixpath.dirname(d)
        base = d or "src"
        rest = parts[1:]
    elif parts[0] in ("self", "super"):
        base = _rust_module_dir(path)
        i = 0
        while i < len(parts) and parts[i] in ("self", "super"):
            if parts[i] == "super":
                base = posixpath.dirname(base)
            i += 1
        rest = parts[i:]
    else:
        return []
    for k in range(len(rest), 0, -1):
        stem = posixpath.join(base, *rest[:k])
        hit = _first(idx, (stem + ".rs", stem + "/mod.rs"))
        if hit:
            return hit
    return []


def _resolve_java(path: str, spec: str, idx: _PathIndex) -> list[str]:
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


_RESOLVERS = {
    "python": _resolve_python,
    "javascript": _resolve_js,
    "typescript": _resolve_js,
    "tsx": _resolve_js,
    "go": _resolve_go,
    "rust": _resolve_rust,
    "java": _resolve_java,
}
