"""Writing the Tantivy full-text index: its schema, its analyzer, and a build from the documents'
terms that can run in a process of its own.

Tantivy's Python binding holds the interpreter lock while it indexes and commits, so an index
built in the indexing process stalls every stage running beside it. `build_in_child` builds it
in a fresh interpreter that imports only this module and Tantivy (this module imports nothing
else of the package, so the child starts in a few tens of milliseconds), and waits for it
without the lock.
"""

from __future__ import annotations

import marshal
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import tantivy

ANALYZER = "gitstrata_terms"
TEXT_FIELDS = ("title", "symbol", "path", "body")


def analyzer() -> tantivy.TextAnalyzer:
    return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()


def schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    for name in TEXT_FIELDS:
        sb.add_text_field(name, tokenizer_name=ANALYZER, index_option="freq")
    sb.add_text_field("kind", tokenizer_name="raw", index_option="basic")
    sb.add_text_field("path_exact", tokenizer_name="raw", index_option="basic")
    sb.add_unsigned_field("doc_idx", fast=True)
    return sb.build()


def write_index(
    directory: Path,
    docs: Iterable[tuple[int, str, Sequence[str], Sequence[str]]],
    *,
    heap_bytes: int = 256_000_000,
    threads: int = 1,
) -> int:
    """Build a fresh index in `directory` (created or emptied by the caller).

    `docs` yields (doc_idx, kind, paths, field texts) in any order: the file paths the document
    concerns (each indexed verbatim for the path filter) and its title, symbol, path and body
    field texts as `fulltext.field_terms` gives them. Returns the number of documents written."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    index = tantivy.Index(schema(), path=str(directory), reuse=False)
    index.register_tokenizer(ANALYZER, analyzer())
    writer = index.writer(heap_size=heap_bytes, num_threads=threads)
    n = 0
    for doc_idx, kind, paths, texts in docs:
        doc = tantivy.Document()
        doc.add_unsigned("doc_idx", int(doc_idx))
        doc.add_text("kind", kind)
        for path in paths or ():
            doc.add_text("path_exact", path)
        for name, joined in zip(TEXT_FIELDS, texts, strict=True):
            if joined:
                doc.add_text(name, joined)
        writer.add_document(doc)
        n += 1
    writer.commit()
    writer.wait_merging_threads()
    return n


def build_in_child(
    directory: Path,
    docs: Iterable[tuple[int, str, Sequence[str], Sequence[str]]],
    *,
    threads: int = 1,
) -> int:
    """`write_index` in a child interpreter, the documents sent through its standard input
    (marshalled: the child imports neither Arrow nor the rest of the package); its error as a
    RuntimeError."""
    rows = [(int(i), k, list(p or ()), tuple(t)) for i, k, p, t in docs]
    code = (
        "import sys; from gitstrata.store.fulltext_writer import _child; "
        "sys.exit(_child(sys.argv[1:]))"
    )
    args = [sys.executable, "-c", code, str(directory), str(threads)]
    done = subprocess.run(args, input=marshal.dumps(rows), capture_output=True, check=False)
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = lines[-1] if lines else f"exit status {done.returncode}"
        raise RuntimeError(f"the full-text index could not be built: {why}")
    try:
        return int(done.stdout.split()[-1])  # its last word: whatever else it printed before
    except (IndexError, ValueError):
        why = "the full-text index child did not say how many documents it wrote"
        raise RuntimeError(why) from None


def _child(argv: list[str]) -> int:
    directory, threads = argv
    rows = marshal.loads(sys.stdin.buffer.read())
    print(write_index(Path(directory), rows, threads=int(threads)))
    return 0
