"""A stage's code version: edits to its modules re-run it, edits elsewhere change nothing."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from gitstrata.pipeline.codeversion import (
    PACKAGE_DIR,
    _parsed_imports,
    code_version,
    module_sources,
)
from gitstrata.pipeline.registry import default_stages
from gitstrata.pipeline.runner import run_index
from gitstrata.pipeline.tree import CHUNK
from gitstrata.store.generations import Store

ADAPTER = "gitstrata.pipeline.adapter"


@pytest.fixture
def repo(git_repo):
    git_repo.commit(
        "feat: orders",
        {
            "orders.py": "def total(items):\n    return sum(items)\n",
            "web/cart.ts": "export function count(xs: number[]): number {\n  return xs.length;\n}\n",
            "README.md": "# shop\n",
        },
    )
    return git_repo


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A package folder laid out like `gitstrata`: an adapter, stage and store modules, a
    serving module, and a stage module nobody imports."""
    root = tmp_path / "gitstrata"
    for pkg in ("", "pipeline", "stages", "store", "serve"):
        _write(root, f"{pkg}/__init__.py" if pkg else "__init__.py", "")
    _write(
        root,
        "pipeline/adapter.py",
        "from ..stages import cut\nfrom .stage import Stage\n\n"
        "def run(ctx):\n    from ..store.rows import ROWS  # imported lazily\n    return cut.cut(ROWS)\n",
    )
    _write(root, "pipeline/stage.py", "class Stage: ...\n")
    _write(
        root, "stages/cut.py", "from .helper import half\n\ndef cut(rows):\n    return half(rows)\n"
    )
    _write(root, "stages/helper.py", "def half(rows):\n    return rows[::2]\n")
    _write(root, "stages/unrelated.py", "def other():\n    return 1\n")
    _write(root, "store/rows.py", "ROWS = [1, 2, 3]\n")
    _write(root, "serve/answer.py", "from ..stages import cut\n")
    return root


def test_sources_are_the_adapter_and_the_stage_and_store_modules_it_reaches(tree: Path) -> None:
    found = module_sources(ADAPTER, tree)
    assert sorted(found) == [
        "gitstrata.pipeline.adapter",
        "gitstrata.stages",
        "gitstrata.stages.cut",
        "gitstrata.stages.helper",
        "gitstrata.store",
        "gitstrata.store.rows",
    ]
    assert found["gitstrata.stages.helper"] == tree / "stages" / "helper.py"


@pytest.mark.parametrize(
    ("rel", "changes"),
    [
        ("pipeline/adapter.py", True),
        ("stages/helper.py", True),  # reached through another stage module
        ("store/rows.py", True),  # reached through an import inside a function
        ("stages/unrelated.py", False),
        ("serve/answer.py", False),
        ("pipeline/stage.py", False),  # runner plumbing, not what the stage computes
    ],
)
def test_an_edit_changes_the_version_only_of_stages_that_use_the_module(
    tree: Path, rel: str, changes: bool
) -> None:
    before = code_version(ADAPTER, tree)
    path = tree / rel
    path.write_text(path.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert (code_version(ADAPTER, tree) != before) is changes


def test_the_version_does_not_depend_on_where_the_tree_lives(tree: Path, tmp_path: Path) -> None:
    moved = shutil.copytree(tree, tmp_path / "elsewhere" / "gitstrata")
    assert code_version(ADAPTER, moved) == code_version(ADAPTER, tree)


def _copy_package(dest: Path) -> Path:
    """The real package's engine rooms, copied as plain folders (links followed)."""
    for room in ("pipeline", "stages", "store", "serve"):
        shutil.copytree(
            PACKAGE_DIR / room,
            dest / room,
            ignore=lambda _dir, names: [n for n in names if n == "__pycache__"],
        )
    return dest


def _versions(root: Path) -> dict[str, str]:
    return {s.name: code_version(s.run.__module__, root) for s in default_stages()}


def test_real_stages_follow_edits_to_their_own_modules(tmp_path: Path) -> None:
    root = _copy_package(tmp_path / "gitstrata")
    base = _versions(root)
    assert base == _versions(PACKAGE_DIR)

    for rel in ("serve/search.py", "serve/engine.py", "pipeline/runner.py"):
        path = root / rel
        path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert _versions(root) == base

    chunker = root / "stages" / "chunking" / "structural.py"
    chunker.write_text(chunker.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    after = _versions(root)
    assert after["chunk"] != base["chunk"]
    assert after["documents"] == base["documents"]  # retrieval does not parse code

    quantize = root / "stages" / "quantize.py"  # the served codes are made by `embed`
    quantize.write_text(quantize.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert _versions(root)["embed"] != after["embed"]
    assert _versions(root)["chunk"] == after["chunk"]


def test_no_stage_reads_the_serving_side() -> None:
    for stage in default_stages():
        names = module_sources(stage.run.__module__)
        assert not [n for n in names if n.startswith("gitstrata.serve")], stage.name


def _rewrite_manifest(out: Path, edit) -> None:
    gen = Store(out).require_live().path
    path = gen / "manifest.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    edit(raw["stages"]["chunk"])
    path.write_text(json.dumps(raw), encoding="utf-8")


def test_artifacts_written_by_other_code_are_rebuilt_not_reused(repo, tmp_path) -> None:
    out = tmp_path / "index"
    run_index(repo.path, out, stages=[CHUNK])
    assert run_index(repo.path, out, stages=[CHUNK]).up_to_date

    _rewrite_manifest(out, lambda rec: rec["state"].update(code_version="0" * 64))
    again = run_index(repo.path, out, stages=[CHUNK])
    assert not again.up_to_date
    stats = again.stage("chunk").stats
    assert stats["reused"] == 0 and stats["parsed"] == 3  # every file again, from scratch
    assert run_index(repo.path, out, stages=[CHUNK]).up_to_date


def test_a_manifest_with_hand_versions_opens_and_its_stages_rerun(repo, tmp_path) -> None:
    out = tmp_path / "index"
    run_index(repo.path, out, stages=[CHUNK])

    def legacy(rec: dict) -> None:
        del rec["state"]["code_version"]
        rec["version"] = 1

    _rewrite_manifest(out, legacy)
    assert Store(out).require_live().manifest.stages["chunk"].code_version == ""
    again = run_index(repo.path, out, stages=[CHUNK])
    assert not again.up_to_date and again.stage("chunk").stats["reused"] == 0


def test_stage_records_keep_the_fields_older_readers_require(repo, tmp_path) -> None:
    # a long-running server of an older release reads what a newer `gitstrata index` wrote, and
    # its models forbid unknown fields
    out = tmp_path / "index"
    run_index(repo.path, out, stages=[CHUNK])
    raw = json.loads((Store(out).require_live().path / "manifest.json").read_text(encoding="utf-8"))
    record = raw["stages"]["chunk"]
    assert set(record) == {
        "version",
        "fingerprint",
        "outputs",
        "seconds",
        "skipped",
        "state",
        "stats",
    }
    assert isinstance(record["version"], int)
    assert record["state"]["code_version"] == code_version(CHUNK.run.__module__)


def _parser_imports(module: str, source: bytes, is_package: bool) -> set[str]:
    """The reference: every import statement the parser finds, resolved as `_imports` does."""
    package = module if is_package else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                if node.level - 1 >= len(parts):
                    continue
                prefix = ".".join(parts[: len(parts) - (node.level - 1)])
                base = f"{prefix}.{base}" if base else prefix
            elif not base:
                continue
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
    return out | {n.rsplit(".", k)[0] for n in out for k in range(1, n.count(".") + 1)}


def test_import_scan_finds_every_import_the_parser_finds() -> None:
    modules = 0
    for room in ("pipeline", "stages", "store", "serve", "benchmarks"):
        for path in sorted((PACKAGE_DIR / room).rglob("*.py")):
            rel = path.relative_to(PACKAGE_DIR).with_suffix("").parts
            package = path.name == "__init__.py"
            module = ".".join(("gitstrata", *(rel[:-1] if package else rel)))
            source = path.read_bytes()
            found = _parsed_imports(module, source, package)
            assert _parser_imports(module, source, package) <= found, module
            modules += 1
    assert modules > 100


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (b"import a.b as c, d\n", {"a", "a.b", "d"}),
        (
            b"from . import (\n    x,\n    y as z,\n)\n",
            {"gitstrata.stages", "gitstrata.stages.x", "gitstrata.stages.y", "gitstrata"},
        ),
        (
            b"def f():\n    from ..store.rows import ROWS\n",
            {"gitstrata.store", "gitstrata.store.rows", "gitstrata.store.rows.ROWS", "gitstrata"},
        ),
        (b"if X: import e\ntry: from f import g\nexcept ImportError: pass\n", {"e", "f", "f.g"}),
        (b"from h import i, \\\n    j\n", {"h", "h.i", "h.j"}),
    ],
)
def test_import_scan_reads_each_form_of_the_statement(source: bytes, expected: set[str]) -> None:
    assert _parsed_imports("gitstrata.stages.mod", source, False) == expected
