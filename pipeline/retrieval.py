"""Adapters of the retrieval stages: `documents`, `fulltext`, `embed` (with the served codes of
the vectors), and the `firewall` model.

They read the earlier artifacts, call the pure functions in `gitstrata.stages`, and do the I/O
those functions must not do: the Tantivy index, the embedder state and the firewall's model are
folder artifacts written into the generation being built. `documents` also writes each document's
terms (`doc_terms`), which `fulltext` indexes and `embed` fits on, so the two run side by side.

`documents` declares `commits` and `touches` as inputs, so the history stages always run before
it; the pure `build_documents` also accepts none of them (a code-only table).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..stages.documents import build_documents, docmeta, memory_records
from ..stages.embed import Reuse, embed_documents, model_identity
from ..stages.firewall_lm import corpus as firewall_corpus
from ..stages.firewall_lm import train_texts as train_firewall_texts
from ..stages.firewall_lm import update as update_firewall_lm
from ..store import fulltext, fulltext_writer
from ..store.attempts import changed_lines, load_failures, target_label
from ..store.charlm import load_state as load_lm_state
from ..store.charlm import save_state as save_lm_state
from ..store.config import EmbeddingConfig, FirewallConfig
from ..store.embedder import Embedder
from ..store.errors import IndexCorrupt
from ..store.journal import Journal
from ..store.memory import STREAM as MEMORY_STREAM
from ..store.redact import Redactor, count_placeholders, redact_text, redact_texts, redactor_for
from ..store.schemas import DOC_TERMS
from .stage import Stage, StageContext, StageResult


def _journal(ctx: StageContext) -> Journal:
    return Journal(ctx.store_root / "journal")


def journal_records(journal: Journal, redactor: Redactor | None = None) -> list[dict[str, Any]]:
    """Failed attempts of the journal as document records (forgotten ones left out, repeats
    folded into their first record), so every configuration can retrieve them as text. They
    were redacted when recorded; `redactor` applies the team's patterns of today too, to all
    titles and bodies as one batch (`redact_texts`: the same texts as one at a time, a
    journal of 1,200 attempts in about a quarter of the time)."""
    docs: list[tuple[str, tuple[str | None, str | None], int]] = []
    titles: list[str] = []
    bodies: list[str] = []
    for f in load_failures(journal):
        first = f.targets[0] if f.targets else (None, None)
        changed = changed_lines(f.diff, keep_blank=True)
        titles.append(f.notes or next(iter(f.signature.errors), "") or "failed attempt")
        bodies.append(
            "\n".join(
                [
                    *(target_label(t) for t in f.targets),
                    f.command or "",
                    *f.signature.errors,
                    *f.signature.failing,
                    *changed[:40],
                ]
            )
        )
        try:
            when = datetime.fromisoformat(f.first_seen.replace("Z", "+00:00")).timestamp()
        except ValueError:
            when = 0
        docs.append((str(f.id), first, int(when)))
    redacted = redact_texts([*titles, *bodies], redactor)
    return [
        {
            "kind": "failure",
            "key": key,
            "path": first[0],
            "symbol": first[1],
            "title": (title or "")[:300],
            "body": body or "",
            "time": when,
        }
        for (key, first, when), title, body in zip(
            docs, redacted[: len(docs)], redacted[len(docs) :], strict=True
        )
    ]


# Fewer documents than this are tokenized in this process: starting pool workers (each imports
# the package) costs more than tokenizing a few thousand documents.
POOL_MIN_DOCUMENTS = 4_000
# Fewer documents than this are indexed by one Tantivy writer thread (see `run_fulltext`).
FULLTEXT_THREADS_MIN_DOCUMENTS = 20_000
TERM_FIELDS = fulltext.TEXT_FIELDS  # `fulltext.field_terms` gives them in this order
_TERM_COLUMNS = (*TERM_FIELDS, "head")  # `doc_terms` after its content hash, as `_Terms` holds them


_Terms = tuple[str, str, str, str, str | None]


def _field_terms(row: tuple[str, list[str], list[str], str]) -> _Terms:
    return (*fulltext.field_terms(*row), fulltext.head_terms(row[3]))


def _previous_rows(table: pa.Table | None, hashes: list[str]) -> np.ndarray:
    """Row of the previous run's `doc_terms` (this code's own table only) holding each content
    hash of `hashes`, or -1 where it has none."""
    if table is None or table.num_rows == 0:
        return np.full(len(hashes), -1, np.int64)
    row_of = {h: i for i, h in enumerate(table.column("content_hash").to_pylist())}
    return np.fromiter((row_of.get(h, -1) for h in hashes), np.int64, len(hashes))


def _document_terms(ctx: StageContext, docs: pa.Table) -> tuple[pa.Table, int]:
    """The `doc_terms` table of `docs` and how many documents were tokenized: only those whose
    content hash the previous run did not have (tokenizing is most of the documents' cost). The
    other rows are taken from the previous table in Arrow, never turned into Python strings."""
    hashes = docs.column("content_hash").to_pylist()
    previous = ctx.previous("doc_terms")
    source = _previous_rows(previous, hashes)
    todo = np.flatnonzero(source < 0)
    cols = docs.select(["title", "symbols", "paths", "body"]).take(pa.array(todo)).to_pydict()
    rows = zip(cols["title"], cols["symbols"], cols["paths"], cols["body"], strict=True)
    fresh = list(
        ctx.map(_field_terms, rows, label="terms", total=len(todo), min_items=POOL_MIN_DOCUMENTS)
    )
    table = {"content_hash": pa.array([hashes[i] for i in todo], pa.string())}
    for k, name in enumerate(_TERM_COLUMNS):
        table[name] = pa.array([t[k] for t in fresh], pa.large_string())
    parts = [pa.table(table, schema=DOC_TERMS)]
    if previous is not None and len(todo) < len(hashes):
        kept = np.flatnonzero(source >= 0)
        parts.append(previous.select(DOC_TERMS.names).cast(DOC_TERMS).take(pa.array(source[kept])))
        order = np.empty(len(hashes), np.int64)  # the fresh rows first, then the kept ones
        order[np.concatenate([todo, kept])] = np.arange(len(hashes))
        terms = pa.concat_tables(parts).take(pa.array(order))
    else:
        terms = parts[0]
    return terms.combine_chunks(), len(todo)


def run_documents(ctx: StageContext) -> StageResult:
    symbols = ctx.input("symbols")
    commits = ctx.input("commits")
    touches = ctx.input("touches")
    journal, redactor = _journal(ctx), redactor_for(ctx.config.redaction)
    records = journal_records(journal, redactor)
    memories = ctx.input("memories").column("record").to_pylist()
    records += memory_records(
        memories, journal.read(MEMORY_STREAM).records, lambda t: redact_text(t, redactor)
    )
    docs = build_documents(symbols, commits, touches, records=records)
    terms, tokenized = _document_terms(ctx, docs)
    kinds = docs.column("kind").value_counts().to_pylist()
    stats = {
        "documents": docs.num_rows,
        "tokenized": tokenized,
        "by_kind": {k["values"]: k["counts"] for k in sorted(kinds, key=lambda k: k["values"])},
        "with_history": commits is not None,
        "redactions": {
            "journal": dict(
                sorted(count_placeholders(r[k] for r in records for k in ("title", "body")).items())
            )
        },
    }
    tables = {"documents": docs, "docmeta": docmeta(docs), "doc_terms": terms}
    return StageResult(tables=tables, stats=stats)


def run_fulltext(ctx: StageContext) -> StageResult:
    """The Tantivy index of the documents' terms: a stage of its own, so that it runs beside the
    embedder. With more than one job it is built in a child process (`fulltext_writer`), as
    Tantivy holds the interpreter lock while it indexes."""
    documents, terms = ctx.input("documents"), ctx.input("doc_terms")
    n = documents.num_rows
    # one writer thread makes one segment: ~15 % smaller (one term dictionary) and less CPU
    # than two at the sizes of most repositories; more threads pay off only on large corpora
    threads = 1 if n < FULLTEXT_THREADS_MIN_DOCUMENTS else max(1, min(4, ctx.jobs))
    out = ctx.output_dir("fulltext")
    docs = documents.select(["doc_idx", "kind", "paths"]).to_pydict()
    texts = zip(*(c.to_pylist() for c in terms.select(list(TERM_FIELDS)).columns), strict=True)
    rows = list(zip(docs["doc_idx"], docs["kind"], docs["paths"], texts, strict=True))
    in_child = ctx.jobs > 1
    with ctx.progress.task("fulltext: documents", total=None):
        written = None
        if in_child:
            try:
                written = fulltext_writer.build_in_child(out, rows, threads=threads)
            except (OSError, RuntimeError):
                # a host whose interpreter cannot be started again (an embedded Python) or a
                # child that failed: built here, where a real problem raises its own error
                shutil.rmtree(out, ignore_errors=True)
                out.mkdir(parents=True)
                in_child = False
        if written is None:
            written = fulltext_writer.write_index(out, rows, threads=threads)
    if written != n:
        raise RuntimeError(f"the full-text index holds {written} of {n} documents")
    return StageResult(stats={"documents": written, "in_child": in_child})


def _link_or_save(previous: Path, out: Path, embedder: Embedder) -> None:
    """An unchanged embedder state as hard links to the previous one (its largest file need
    not be written and synced again), or saved when the file system cannot link."""
    out.mkdir(parents=True, exist_ok=True)
    try:
        for f in previous.iterdir():
            os.link(f, out / f.name)
    except OSError:
        for f in out.iterdir():
            f.unlink()
        embedder.save(out)


def _embedding(ctx: StageContext) -> EmbeddingConfig:
    """The `embedding` section with a relative ONNX model folder resolved in the repository."""
    cfg = ctx.config.embedding
    if cfg.onnx_model and not Path(cfg.onnx_model).expanduser().is_absolute():
        cfg = cfg.model_copy(update={"onnx_model": str(ctx.git.root / cfg.onnx_model)})
    return cfg


def run_embed(ctx: StageContext) -> StageResult:
    documents = ctx.input("documents")
    previous = None
    prev_dir = ctx.previous_path("embedder")
    if prev_dir is not None and prev_dir.is_dir():
        try:
            previous = Embedder.load(prev_dir)
        except IndexCorrupt:
            previous = None  # an unreadable or older state: refit
    reuse = None
    old_i8, old_bits = ctx.previous("vectors_i8"), ctx.previous("vectors_bits")
    if (
        previous is not None
        and old_i8 is not None
        and old_bits is not None
        and ctx.previous_generation is not None
    ):
        try:
            old_docs = ctx.previous_generation.table(
                "documents", columns=["doc_id", "content_hash"]
            )
            # the previous float vectors are read only when this run keeps them too
            floats = ctx.previous("vectors_f32") if _embedding(ctx).float_vectors else None
            reuse = Reuse(old_docs, old_i8, old_bits, floats)
        except (IndexCorrupt, OSError, KeyError):
            reuse = None  # a vector is then computed again, never reused blindly
    with ExitStack() as fit_task, ExitStack() as documents_task:
        task = documents_task.enter_context(
            ctx.progress.task("embed: documents", total=documents.num_rows)
        )

        def fit_progress(total: int) -> Callable[[int], None]:
            # the documents' features are done; the fit after them (a third of the stage on a
            # large corpus) is a step of its own
            documents_task.close()
            return fit_task.enter_context(ctx.progress.task("embed: fit", total=total)).advance

        result = embed_documents(
            documents,
            _embedding(ctx),
            previous,
            reuse=reuse,
            advance=task.advance,
            mapper=ctx.executor.map_units if documents.num_rows >= POOL_MIN_DOCUMENTS else None,
            terms=lambda: ctx.input("doc_terms").select(["content_hash", "title", "body"]),
            threads=ctx.jobs,
            fit_progress=fit_progress,
        )
    out = ctx.output_dir("embedder")
    if result.embedder is previous and prev_dir is not None:
        _link_or_save(prev_dir, out, result.embedder)
    else:
        result.embedder.save(out)
    stats = {
        "documents": documents.num_rows,
        "refit": result.refit,
        "new_fraction": round(result.new_fraction, 4),
        "backend": result.embedder.backend.name,
        "fit_documents": int(len(result.embedder.fit_keys)),
        "reused_vectors": result.reused,
        "served_bytes_per_vector": 32 + result.embedder.mrl_dim + 4,
    }
    tables = {"vectors_i8": result.i8, "vectors_bits": result.bits, "vectors_f32": result.vectors}
    return StageResult(tables=tables, stats=stats)


DOCUMENTS = Stage(
    name="documents",
    run=run_documents,
    inputs=("symbols", "commits", "touches", "memories"),
    outputs=("documents", "docmeta", "doc_terms"),
    config=("redaction",),
    extra=lambda ctx: _journal(ctx).signature(),  # a new journal record re-runs the stage
    description="symbols, commit capsules, journal records and memories as documents, and their terms",
    weight=1.1,
)

FULLTEXT = Stage(
    name="fulltext",
    run=run_fulltext,
    inputs=("documents", "doc_terms"),
    outputs=("fulltext",),
    description="the Tantivy index of the documents' terms (BM25)",
    child=True,  # `run_fulltext`
    weight=0.3,
)

EMBED = Stage(
    name="embed",
    run=run_embed,
    inputs=("documents", "doc_terms"),  # the fit reads the documents' terms: no tokenizing again
    outputs=("embedder", "vectors_i8", "vectors_bits", "vectors_f32"),
    config=("embedding",),
    extra=lambda ctx: model_identity(_embedding(ctx)),  # a new pretrained model re-embeds
    description=(
        "the embedder (refit when > 30 % of documents are new), the served int8 and 1-bit codes "
        "of every document's vector, and the float vectors when `embedding.float_vectors` is on"
    ),
    weight=1.5,
)


def _refresh_firewall(
    ctx: StageContext, symbols: pa.Table, commits: pa.Table
) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
    """The previous model updated with the texts that changed, or None to train anew."""
    prev_dir = ctx.previous_path("firewall_lm")
    gen = ctx.previous_generation
    if prev_dir is None or gen is None or not prev_dir.is_dir():
        return None
    try:
        arrays, meta = load_lm_state(prev_dir)
        old = firewall_corpus(
            gen.table("symbols", columns=["code"]), gen.table("commits", columns=["message"])
        )
    except (OSError, ValueError, KeyError, IndexCorrupt, pa.ArrowInvalid):
        return None  # a model is always trained again rather than updated from a bad one
    return update_firewall_lm(
        arrays, meta, old, firewall_corpus(symbols, commits), ctx.config.firewall
    )


# the characters of the firewall's corpus from which its training goes to a worker
APART_CHARS = 1_000_000


def _train_firewall(
    unit: tuple[pa.Array, FirewallConfig],
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    return train_firewall_texts(*unit)


def run_firewall(ctx: StageContext) -> StageResult:
    symbols, commits = ctx.input("symbols"), ctx.input("commits")
    refreshed = _refresh_firewall(ctx, symbols, commits)
    if refreshed is None:
        texts = firewall_corpus(symbols, commits)
        unit = (texts, ctx.config.firewall)
        # a full training is Python work (about 0.4 s per million characters) while `embed`
        # runs beside it: a long one goes to a worker, where one can be forked at once, and
        # the two share no lock; a short one costs less here than shipping it
        if (pc.sum(pc.utf8_length(texts)).as_py() or 0) >= APART_CHARS:
            arrays, meta = ctx.executor.apart(_train_firewall, unit)
        else:
            arrays, meta = _train_firewall(unit)
    else:
        arrays, meta = refreshed
    save_lm_state(ctx.output_dir("firewall_lm"), arrays, meta)
    stats = {
        "active": meta["active"],
        "corpus_chars": meta["corpus_chars"],
        "updated": refreshed is not None,
    }
    return StageResult(stats=stats)


FIREWALL = Stage(
    name="firewall",
    run=run_firewall,
    inputs=("symbols", "commits"),
    outputs=("firewall_lm",),
    config=("firewall",),
    description="character-trigram model of the repository's own text (the firewall's perplexity check)",
    weight=0.5,
)

STAGES = [DOCUMENTS, FULLTEXT, EMBED, FIREWALL]
