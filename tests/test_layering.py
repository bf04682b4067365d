"""The dependency direction of the architecture, checked on every import in the package.

    gitstrata (face) -> pipeline -> stages -> store
    gitstrata (face) -> serve ----------------> store
    benchmarks -> anything; nothing in the product imports benchmarks

Imports inside functions count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROOMS = ("pipeline", "stages", "store", "serve", "benchmarks")

# layer -> the layers it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "face": {"pipeline", "serve", "store"},
    "pipeline": {"stages", "store"},
    "stages": {"store"},
    "store": set(),
    "serve": {"store"},
    "benchmarks": {"face", "pipeline", "stages", "store", "serve"},
}


def _modules() -> dict[str, Path]:
    """Every module of the package by its `gitstrata.*` name."""
    out: dict[str, Path] = {}
    for path in sorted((ROOT / "gitstrata").glob("*.py")):
        out["gitstrata" if path.stem == "__init__" else f"gitstrata.{path.stem}"] = path
    for room in ROOMS:
        for path in sorted((ROOT / room).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(["gitstrata", *parts])] = path
    return out


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ROOMS else "face"


def _imports(module: str, path: Path) -> set[str]:
    """Absolute names of every `gitstrata` module imported anywhere in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "gitstrata")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if not is_package:
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "gitstrata":
                continue
            found.add(target)
            # `from . import x` / `from ..store import errors` name submodules
            found.update(f"{target}.{a.name}" for a in node.names)
    return found


def test_every_import_follows_the_dependency_direction() -> None:
    modules = _modules()
    assert len(modules) > 80
    violations = []
    for module, path in modules.items():
        layer = _layer(module)
        for target in sorted(_imports(module, path)):
            other = _layer(target)
            if other != layer and other not in ALLOWED[layer]:
                if target not in modules and target.rsplit(".", 1)[0] in modules:
                    # `from ..store.x import name`: the name is not a module
                    other = _layer(target.rsplit(".", 1)[0])
                    if other == layer or other in ALLOWED[layer]:
                        continue
                violations.append(f"{path.relative_to(ROOT)}: {layer} imports {target}")
    assert not violations, "\n".join(violations)


def test_the_checker_sees_relative_and_lazy_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from ..store import errors\n"
        "def f():\n"
        "    from ..pipeline.runner import run_index\n"
        "    import gitstrata.benchmarks.run\n",
        encoding="utf-8",
    )
    assert _imports("gitstrata.serve.probe", probe) >= {
        "gitstrata.store",
        "gitstrata.store.errors",
        "gitstrata.pipeline.runner",
        "gitstrata.benchmarks.run",
    }


@pytest.mark.parametrize("room", ROOMS)
def test_a_room_is_not_importable_from_the_repository_root(room: str) -> None:
    """`import store` from a checkout would create a second copy of every class in it."""
    proc = subprocess.run(
        [sys.executable, "-c", f"import {room}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0
    assert f"gitstrata.{room}" in proc.stderr


def test_the_package_is_found_from_a_folder_holding_a_checkout_named_gitstrata(
    tmp_path: Path,
) -> None:
    """A folder named `gitstrata` in the working directory (a clone of the project) must not
    shadow the installed package."""
    (tmp_path / "gitstrata").mkdir()
    (tmp_path / "gitstrata" / "README.md").write_text("a clone\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", "import gitstrata, sys; print(gitstrata.Strata.__name__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Strata"


def test_the_package_tree_names_every_room() -> None:
    for room in ROOMS:
        mod = importlib.import_module(f"gitstrata.{room}")
        assert mod.__name__ == f"gitstrata.{room}"
