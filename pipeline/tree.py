"""Adapter of the `chunk` stage: reads HEAD's tree through git and reuses unchanged files.

Only blobs that changed since the previous generation are read and parsed; every other file's
rows are carried over from the previous `files` / `symbols` tables.
"""

from __future__ import annotations

import json
from collections import Counter

import pyarrow as pa
import pyarrow.compute as pc

from ..stages import links as links_stage
from ..stages.chunk import (
    FileEntry,
    build_tables,
    chunk_file,
    file_row,
    is_fact_file,
    needs_text,
    read_facts,
    read_go_names,
    resolve_file_imports,
    skip_reason,
)
from ..store.config import ChunkConfig, RedactionConfig
from ..store.globs import PathMatcher
from ..store.redact import placeholder_counts, redactor_for
from .gitio import BlobReader
from .stage import Stage, StageContext, StageResult

REUSABLE = {"indexed", "binary"}
OTHER_LANGUAGE = "other"  # the summary's name for files of no detected language


def _chunk_task(
    item: tuple[FileEntry, bytes | None, ChunkConfig, RedactionConfig],
) -> tuple[dict, list[dict]]:
    entry, data, cfg, redaction = item
    return chunk_file(entry, data, cfg, redactor_for(redaction))


def run_chunk(ctx: StageContext) -> StageResult:
    cfg = ctx.config.chunk
    vendored = PathMatcher(cfg.vendored)
    entries = [FileEntry(e.path, e.blob, e.mode, e.size) for e in ctx.git.ls_tree(ctx.head)]

    previous_blobs: dict[str, tuple[str, dict]] = {}
    redaction = ctx.config.redaction
    redaction_key = json.dumps(redaction.fingerprint_payload(), sort_keys=True)
    # rows redacted under other patterns are not this run's rows, whatever their blob
    same_redaction = ctx.previous_state.get("redaction") == redaction_key
    prev_files = ctx.previous("files") if same_redaction else None
    if prev_files is not None:
        for row in prev_files.to_pylist():
            if row["status"] in REUSABLE:
                previous_blobs[row["path"]] = (row["blob"], row)

    file_rows: list[dict] = []
    todo: list[FileEntry] = []
    reused_paths: list[str] = []
    for entry in entries:
        reason = skip_reason(entry, cfg, vendored)
        if reason is not None:
            file_rows.append(file_row(entry, reason))
            continue
        prev = previous_blobs.get(entry.path)
        if prev is not None and prev[0] == entry.blob:
            file_rows.append(dict(prev[1]))
            reused_paths.append(entry.path)
        else:
            todo.append(entry)

    def items():
        with BlobReader(ctx.git) as reader:
            for entry in todo:
                yield entry, reader.read(entry.blob), cfg, redaction

    new_symbols: list[dict] = []
    for frow, srows in ctx.map(_chunk_task, items(), label="files", total=len(todo)):
        file_rows.append(frow)
        new_symbols.extend(srows)

    reused = None
    prev_symbols = ctx.previous("symbols")
    if prev_symbols is not None and reused_paths:
        reused = prev_symbols.filter(
            pc.is_in(prev_symbols["path"], value_set=pa.array(reused_paths))
        )

    fact_blobs = [
        e for e in entries if is_fact_file(e.path) and skip_reason(e, cfg, vendored) is None
    ]
    with BlobReader(ctx.git) as reader:
        fact_texts = {e.path: reader.read(e.blob) or b"" for e in fact_blobs}
        go_texts = {r["path"]: reader.read(r["blob"]) or b"" for r in file_rows if needs_text(r)}
    facts = read_facts(fact_texts)
    names = read_go_names(go_texts)
    resolve_file_imports(file_rows, {r["path"] for r in file_rows}, facts, names)
    tables = build_tables(file_rows, new_symbols, reused)

    status = Counter(r["status"] for r in file_rows)
    languages = Counter(tables["symbols"]["language"].to_pylist())
    stats = {
        "files": len(file_rows),
        "indexed": status.pop("indexed", 0),
        "skipped": dict(sorted(status.items())),
        "parsed": len(todo),
        "reused": len(reused_paths),
        "symbols": tables["symbols"].num_rows,
        "symbols_by_language": _by_language(languages),
        "redactions": {"symbols": _source_redactions(tables["symbols"])},
    }
    return StageResult(tables=tables, stats=stats, state={"redaction": redaction_key})


def _source_redactions(symbols: pa.Table) -> dict[str, int]:
    """Secrets redacted in HEAD's source, each counted once: in the outermost symbols and the
    module remainders, which together cover every line of a file once."""
    outer = symbols.filter(pc.is_null(symbols["parent"]))
    return placeholder_counts(outer, ("code",))


def _by_language(counts: Counter[str | None]) -> dict[str, int]:
    """Symbol counts per language name, alphabetical; files of no detected language are counted
    as `other`, last."""
    named = {k: counts[k] for k in sorted(k for k in counts if k is not None)}
    if counts.get(None):
        named[OTHER_LANGUAGE] = counts[None]
    return named


CHUNK = Stage(
    name="chunk",
    run=run_chunk,
    outputs=("files", "symbols"),
    config=("chunk", "redaction"),
    source="tree",
    description="files of HEAD cut into symbols (functions, classes, methods, types, <module>)",
    weight=1.0,
)


def run_links(ctx: StageContext) -> StageResult:
    symbols, touches = ctx.input("symbols"), ctx.input("touches")
    key = links_stage.symbols_key(symbols)
    previous = ctx.previous("symbol_links") if ctx.previous_state.get("symbols") == key else None
    if previous is not None:  # a new commit, the same code: only the commit counts change
        table = links_stage.recount(previous, touches)
    else:
        table = links_stage.build(symbols, touches)
    kinds = Counter(table["kind"].to_pylist())
    stats = {
        "links": kinds.get(links_stage.CALLS, 0),
        "symbols": len(set(table["src"].to_pylist())),
        "reused": previous is not None,
    }
    return StageResult(tables={"symbol_links": table}, stats=stats, state={"symbols": key})


LINKS = Stage(
    name="links",
    run=run_links,
    inputs=("symbols", "touches"),
    outputs=("symbol_links",),
    description="symbols of HEAD that name each other in their code (callers and callees)",
    weight=0.05,
)
