"""A stage's code version: a sha256 over the source of the modules that compute its output.

The modules are the stage's adapter (the module defining its `run`) and every `gitstrata.stages`
and `gitstrata.store` module it imports, transitively, found by reading the sources' import
statements (no module is imported to find them; imports inside functions count too). Editing any
of them changes the version, so the stage re-runs and its previous artifacts are not reused;
editing anything else (the serving side, the CLI, the runner's plumbing) changes no stage.

Sources are hashed by module name and bytes, never by path, so a checkout moved elsewhere keeps
its versions. A stage's version is computed once per process.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..store.private import write_private

if TYPE_CHECKING:
    from .stage import Stage

PACKAGE = "gitstrata"
# Packages whose modules decide what a stage writes; the adapter's own imports of pipeline
# modules (git plumbing, the stage context) are left out.
FOLLOWED = ("gitstrata.stages", "gitstrata.store")
# The folder of the `gitstrata` package (through its links to the engine rooms).
PACKAGE_DIR = Path(__file__).parent.parent


def stage_code_version(stage: Stage) -> str:
    # a callable without a module (a partial) has no source to follow: only the rest counts
    return _cached(getattr(stage.run, "__module__", None) or "")


@functools.cache
def _cached(module: str) -> str:
    return code_version(module)


def code_version(module: str, root: Path = PACKAGE_DIR) -> str:
    """sha256 over `module` and the followed modules it imports, `root` being the folder of the
    `gitstrata` package."""
    digest = hashlib.sha256()
    for name, path in sorted(module_sources(module, root).items()):
        data = path.read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def module_sources(module: str, root: Path = PACKAGE_DIR) -> dict[str, Path]:
    """Module name -> source file for `module` and every followed module it reaches."""
    start = _locate(module, root)
    if start is None:
        return {}
    found = {module: start}
    pending = [module]
    while pending:
        name = pending.pop()
        path = found[name]
        for target in _imports(name, path, is_package=path.name == "__init__.py"):
            if target in found or not _followed(target):
                continue
            located = _locate(target, root)
            if located is not None:
                found[target] = located
                pending.append(target)
    return found


def _followed(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in FOLLOWED)


def _locate(module: str, root: Path) -> Path | None:
    if module != PACKAGE and not module.startswith(PACKAGE + "."):
        # A stage defined outside the package (a test, a plugin): its own file only.
        file = getattr(sys.modules.get(module), "__file__", None)
        return Path(file) if file else None
    base = root.joinpath(*module.split(".")[1:])
    for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(module: str, path: Path, *, is_package: bool) -> set[str]:
    """Absolute names a module's import statements may refer to: `from a import b` gives `a`
    and `a.b` (b may be a submodule; names that are not modules are dropped by the caller),
    and the packages above them."""
    # parsed once per content: the stages share most of their modules, and parsing is most of
    # the time an up-to-date `gitstrata index` takes before it can say so
    source = path.read_bytes()
    key = hashlib.sha256(f"{module}\0{is_package}\0".encode() + source).hexdigest()
    found = _import_cache.known.get(key)
    if found is None:
        found = sorted(_parsed_imports(module, source, is_package))
        _import_cache.known[key] = found
        _import_cache.dirty = True
    _import_cache.used.add(key)
    return set(found)


class _ImportCache:
    """Import lists by sha256 of (module, source), kept across runs in the index folder: each
    run would otherwise parse every module a stage reaches. Keyed by content, so never stale."""

    def __init__(self) -> None:
        self.known: dict[str, list[str]] = {}
        self.used: set[str] = set()
        self.dirty = False


_import_cache = _ImportCache()


def load_import_cache(path: Path) -> None:
    """Merge the import lists saved at `path`; a missing or unreadable file counts as empty."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(data, dict):
        for key, names in data.items():
            if isinstance(names, list) and all(isinstance(n, str) for n in names):
                _import_cache.known.setdefault(key, names)


def save_import_cache(path: Path) -> None:
    """Write the import lists this process used to `path` when any had to be parsed."""
    if not _import_cache.dirty:
        return
    data = {k: _import_cache.known[k] for k in sorted(_import_cache.used)}
    tmp = path.with_name(f"{path.name}.{os.getpid()}")
    try:
        write_private(tmp, json.dumps(data).encode("utf-8"))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        return
    _import_cache.dirty = False


# an import statement: at the start of a line or after `;` or `:` (`if x: import y`), `from
# <dots><module> import <names>` (a parenthesised list may span lines, a backslash continues one)
# or `import <names>`. Read from the bytes, not parsed: a line of a docstring or string that
# looks like an import only adds a module to hash, never hides one
_IMPORT = re.compile(
    rb"(?:^|[;:])[ \t]*(?:from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]*"
    rb"(\([^)]*\)|(?:[^\n#;\\]|\\\r?\n)*)|import[ \t]+((?:[^\n#;\\]|\\\r?\n)*))",
    re.M,
)
_NAME = re.compile(rb"[A-Za-z_][\w.]*")


@functools.lru_cache(maxsize=1024)
def _parsed_imports(module: str, source: bytes, is_package: bool) -> frozenset[str]:
    """What `_imports` returns, from the import statements found in `source` (every one the
    parser finds, nested ones included, and possibly a few lines of text that only look like
    one)."""
    package = module if is_package else module.rpartition(".")[0]
    out: set[str] = set()
    for m in _IMPORT.finditer(source):
        dots, name, names, plain = m.groups()
        if plain is not None:
            for part in plain.replace(b"\\", b" ").split(b","):
                found = _NAME.match(part.strip())
                if found:
                    out.add(found.group().decode())
            continue
        level = len(dots)
        base = name.decode().strip(".")
        if level:
            parts = package.split(".")
            if level - 1 >= len(parts):
                continue
            prefix = ".".join(parts[: len(parts) - (level - 1)])
            base = f"{prefix}.{base}" if base else prefix
        elif not base:
            continue
        out.add(base)
        for part in names.strip(b"()").replace(b"\\", b" ").split(b","):
            found = _NAME.match(part.strip())
            if found and found.group() != b"*":
                out.add(f"{base}.{found.group().decode()}")
    # importing a module runs its packages' `__init__` first
    parents = {n.rsplit(".", k)[0] for n in out for k in range(1, n.count(".") + 1)}
    return frozenset(out | parents)
