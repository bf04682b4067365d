"""The `chunk` stage: the files of one commit's tree, cut into symbols.

Pure: it receives each file's path, blob id and bytes, and returns rows. The same blob always
gives the same rows (under one redaction config), which is what makes the stage incremental by
blob id. Files that cannot be
indexed (binary, too large, vendored, submodules, symlinks) are kept in `files` with the reason
in `status`, so skips are counted, never silent.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)

from ..store import schemas
from ..store.config import ChunkConfig
from ..store.filekind import is_binary
from ..store.globs import PathMatcher
from ..store.ids import MODULE_SYMBOL, symbol_id
from ..store.redact import Redactor, redact_text
from .chunking import (
    FACT_FILES,
    GoNames,
    ProjectFacts,
    detect_language,
    go_names,
    module_remainder,
    parse_source,
    project_facts,
    resolve_imports,
)


@dataclass(frozen=True, slots=True)
class FileEntry:
    path: str
    blob: str
    mode: str
    size: int


def skip_reason(entry: FileEntry, cfg: ChunkConfig, vendored: PathMatcher) -> str | None:
    """Why a tree entry is not chunked, decided from metadata alone (no read needed)."""
    if entry.mode == "160000":
        return "submodule"
    if entry.mode == "120000":
        return "symlink"
    if vendored(entry.path):
        return "vendored"
    if entry.size > cfg.max_file_bytes:
        return "too_large"
    return None


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _clean(path: str) -> str:
    # Arrow strings must be valid UTF-8; git paths may not be.
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def file_row(entry: FileEntry, status: str, **extra: object) -> dict:
    row = {
        "path": _clean(entry.path),
        "blob": entry.blob,
        "size": max(entry.size, 0),
        "language": detect_language(entry.path),
        "lines": None,
        "parser": None,
        "status": status,
        "imports": [],
        "imports_resolved": [],
    }
    row.update(extra)
    return row


def chunk_file(
    entry: FileEntry, data: bytes | None, cfg: ChunkConfig, redactor: Redactor | None = None
) -> tuple[dict, list[dict]]:
    """One file's `files` row and `symbols` rows; the text stored (code, signature, docstring)
    passed `redactor` (the built-in rules by default). The file is redacted whole, keeping its
    line count, so symbols' line ranges still cut it where the parser found them."""
    if data is None:
        return file_row(entry, "unreadable"), []
    if is_binary(data):
        return file_row(entry, "binary"), []
    path = _clean(entry.path)
    parsed = parse_source(path, data)
    text = redact_text(_text(data), redactor, keep_lines=True) or ""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    rows = []
    seen: dict[str, int] = {}
    for sym in parsed.symbols:
        # overloads, getter/setter pairs and conditional definitions repeat a qualified name;
        # the first keeps the plain id (history joins on it), later ones get an ordinal
        n = seen.get(sym.qualname, 0)
        seen[sym.qualname] = n + 1
        sid = symbol_id(path, sym.qualname if n == 0 else f"{sym.qualname}#{n}")
        if sym.qualname == MODULE_SYMBOL:
            code = module_remainder(text, parsed.symbols)
        else:
            code = "\n".join(lines[sym.start_line - 1 : sym.end_line])
        rows.append(
            {
                "symbol_id": sid,
                "path": path,
                "qualname": sym.qualname,
                "name": sym.name,
                "kind": sym.kind,
                "parent": sym.parent,
                "start_line": sym.start_line,
                "end_line": sym.end_line,
                "signature": redact_text(sym.signature, redactor),
                "docstring": redact_text(sym.docstring, redactor),
                "language": parsed.language,
                "blob": entry.blob,
                "code": code[: cfg.max_code_chars],
            }
        )
    frow = file_row(
        entry,
        "indexed",
        language=parsed.language,
        lines=len(lines),
        parser=parsed.parser,
        imports=list(parsed.imports),
    )
    return frow, rows


def is_fact_file(path: str) -> bool:
    """Whether the file's text is a repository-level fact for import resolution (go.mod,
    package.json, tsconfig.json): the adapter reads those and passes them to `read_facts`."""
    return path.rsplit("/", 1)[-1] in FACT_FILES


def read_facts(texts: dict[str, bytes]) -> ProjectFacts:
    return project_facts({p: _text(b) for p, b in texts.items()})


def needs_text(row: dict) -> bool:
    """Whether import resolution needs the file's text again (Go: the names it declares and
    uses decide which files of a package it depends on); the adapter reads those."""
    return row["language"] == "go" and row["status"] == "indexed"


def read_go_names(texts: dict[str, bytes]) -> dict[str, GoNames]:
    return {p: go_names(b) for p, b in texts.items()}


def resolve_file_imports(
    file_rows: list[dict],
    known_paths: Collection[str],
    facts: ProjectFacts | None = None,
    names: dict[str, GoNames] | None = None,
) -> None:
    """Fill `imports_resolved` in place; depends on the whole tree, so it reruns every time.
    Go files get the files of their package that define a name they use even with no import
    (every file of the package when `names` is not given), and C/C++ headers their
    implementation."""
    for row in file_rows:
        row["imports_resolved"] = (
            resolve_imports(
                row["path"],
                row["language"],
                row["imports"],
                known_paths,
                facts or ProjectFacts(),
                names,
            )
            if row["imports"] or row["language"] in ("go", "c", "cpp")
            else []
        )


def build_tables(
    file_rows: Iterable[dict], symbol_rows: Iterable[dict], reused_symbols: pa.Table | None = None
) -> dict[str, pa.Table]:
    """Sorted `files` and `symbols` tables; `reused_symbols` are rows kept from the previous
    generation for files whose blob did not change."""
    files = sorted(file_rows, key=lambda r: r["path"])
    symbols = pa.Table.from_pylist(list(symbol_rows), schema=schemas.SYMBOLS)
    if reused_symbols is not None and reused_symbols.num_rows:
        symbols = pa.concat_tables([reused_symbols.cast(schemas.SYMBOLS), symbols])
    symbols = symbols.append_column("_neg_end", pa.compute.negate(symbols["end_line"])).sort_by(
        [
            ("path", "ascending"),
            ("start_line", "ascending"),
            ("_neg_end", "ascending"),
            ("qualname", "ascending"),
        ]
    )
    return {
        "files": pa.Table.from_pylist(files, schema=schemas.FILES),
        "symbols": symbols.drop_columns(["_neg_end"]),
    }
