"""Every artifact's Arrow schema, declared once.

Writers cast to these schemas and readers check them, so a table written by one version of a stage
and read by another fails loudly instead of drifting. `ARTIFACTS` maps an artifact name to its file
name and format: Parquet (zstd) for tables analytics read, Arrow IPC (uncompressed) for what the
server memory-maps, `dir` for folders such as the Tantivy index.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

FORMAT_VERSION = 1

TS = pa.timestamp("s", tz="UTC")


@dataclass(frozen=True)
class Artifact:
    name: str
    file: str
    format: str  # "parquet" | "arrow" | "dir"
    schema: pa.Schema | None = None


# ---------------------------------------------------------------- chunk (working tree at HEAD)

FILES = pa.schema(
    [
        pa.field("path", pa.string(), nullable=False),
        pa.field("blob", pa.string(), nullable=False),
        pa.field("size", pa.int64(), nullable=False),
        pa.field("language", pa.string()),
        pa.field("lines", pa.int32()),
        # parser used: "ast" | "tree-sitter" | "structural" | "none" (data / text without symbols)
        pa.field("parser", pa.string()),
        # "indexed" or why it was skipped: "binary" | "too_large" | "vendored" | "unreadable"
        pa.field("status", pa.string(), nullable=False),
        pa.field("imports", pa.list_(pa.string())),  # raw import specifiers
        pa.field("imports_resolved", pa.list_(pa.string())),  # repo paths they resolve to
    ]
)

SYMBOLS = pa.schema(
    [
        pa.field("symbol_id", pa.string(), nullable=False),
        pa.field("path", pa.string(), nullable=False),
        pa.field("qualname", pa.string(), nullable=False),
        pa.field("name", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("parent", pa.string()),
        pa.field("start_line", pa.int32(), nullable=False),
        pa.field("end_line", pa.int32(), nullable=False),
        pa.field("signature", pa.string()),
        pa.field("docstring", pa.string()),
        pa.field("language", pa.string()),
        pa.field("blob", pa.string(), nullable=False),
        pa.field("code", pa.string()),
    ]
)

# ---------------------------------------------------------------- history (capsule, blame, cochange)
# section: history
# `commits` and `touches` are sorted by (commit_time, sha), touches then by (path, qualname);
# `head_path` follows later renames to the path the file has at the indexed HEAD (its own path
# when it was deleted), and `symbol_id` is `ids.symbol_id(head_path, qualname)`, so a touch joins
# the HEAD `symbols` row of the same symbol across renames. A touch with a null `symbol_id` is a
# file-level row: binary, too large, not read (see `HistoryConfig.symbol_max_files`), or a change
# without changed lines (pure rename, mode change).

# Parquet has no seconds unit (timestamp[s] reads back as [ms]), so history times are [ms].
HTS = pa.timestamp("ms", tz="UTC")

COMMITS = pa.schema(
    [
        pa.field("sha", pa.string(), nullable=False),
        pa.field("parents", pa.list_(pa.string())),
        pa.field("author_name", pa.string()),
        pa.field("author_email", pa.string()),
        pa.field("author_time", HTS, nullable=False),
        pa.field("commit_time", HTS, nullable=False),
        pa.field("subject", pa.string()),
        pa.field("message", pa.string()),
        # bugfix | security | revert | perf | feature | refactor | docs | test | build | chore
        pa.field("intent", pa.string(), nullable=False),
        # as written in "This reverts commit ...", else as the subject names it: `Revert <hash>`
        # or `Revert "S"`, the newest earlier commit with subject S (`capsule._subject_reverts`)
        pa.field("reverted_sha", pa.string()),
        pa.field("tickets", pa.list_(pa.string())),  # INC-2407, ABC-12, #123, CVE-...
        pa.field("files", pa.int32(), nullable=False),
        pa.field("symbols", pa.int32(), nullable=False),
        pa.field("added", pa.int32(), nullable=False),
        pa.field("removed", pa.int32(), nullable=False),
        pa.field("bulk", pa.bool_(), nullable=False),  # more than `history.bulk_files` files
        pa.field("excerpt", pa.string()),  # bounded diff excerpt over all files
    ]
)

TOUCHES = pa.schema(
    [
        pa.field("sha", pa.string(), nullable=False),
        pa.field("commit_time", HTS, nullable=False),
        pa.field("path", pa.string(), nullable=False),  # path in that commit
        pa.field("old_path", pa.string()),  # source path of a rename / copy
        pa.field("status", pa.string(), nullable=False),  # A C D M R T
        pa.field("head_path", pa.string(), nullable=False),
        pa.field("symbol_id", pa.string()),
        pa.field("qualname", pa.string()),
        pa.field("kind", pa.string()),
        pa.field("added", pa.int32(), nullable=False),
        pa.field("removed", pa.int32(), nullable=False),
        pa.field("binary", pa.bool_(), nullable=False),
        pa.field("excerpt", pa.string()),  # this symbol's -/+ lines, bounded
    ]
)

# One row per file a (non-merge) commit changed, with the -U0 hunk headers of its diff against
# its parent: what `blame` follows each HEAD line back through to the commit that wrote it,
# without running `git blame` (`stages/blame.LineHistory`). Sorted by (commit_time, sha, path).
HUNKS = pa.schema(
    [
        pa.field("sha", pa.string(), nullable=False),
        pa.field("commit_time", HTS, nullable=False),
        pa.field("path", pa.string(), nullable=False),  # path in that commit (old for deletions)
        pa.field("old_path", pa.string()),  # null for an added file
        pa.field("status", pa.string(), nullable=False),  # A C D M R T
        pa.field("old_blob", pa.string()),  # null for an added file
        pa.field("new_blob", pa.string()),  # null for a deleted file
        pa.field("binary", pa.bool_(), nullable=False),
        # per hunk: old start, old count, new start, new count (1-based lines, as in `@@`)
        pa.field("hunks", pa.list_(pa.int32()), nullable=False),
    ]
)

# One row per (HEAD symbol, commit that last wrote some of its lines), from `git blame` at HEAD
# (commits in the repository's `.git-blame-ignore-revs` / `blame.ignoreRevsFile` are skipped).
# A symbol counts every line of its span, nested symbols included (`<module>` is the whole file);
# code lines are those neither blank nor comment-only.
BLAME = pa.schema(
    [
        pa.field("path", pa.string(), nullable=False),
        pa.field("blob", pa.string(), nullable=False),  # the file's blob at HEAD (incremental key)
        pa.field("symbol_id", pa.string(), nullable=False),
        pa.field("qualname", pa.string(), nullable=False),
        pa.field("sha", pa.string(), nullable=False),
        pa.field("lines", pa.int32(), nullable=False),
        pa.field("symbol_lines", pa.int32(), nullable=False),
        pa.field("code_lines", pa.int32(), nullable=False),  # of `lines`
        pa.field("symbol_code_lines", pa.int32(), nullable=False),  # of `symbol_lines`
        pa.field("author_time", HTS),
        pa.field("intent", pa.string()),  # null when the commit is outside the indexed history
        # bugfix / security / revert commit that wrote at least one code line of the symbol
        pa.field("load_bearing", pa.bool_(), nullable=False),
        # share of the symbol's code lines written by load-bearing commits (same on all its rows)
        pa.field("load_bearing_share", pa.float32(), nullable=False),
    ]
)

# Directed co-change edges, both directions stored: `weight` is the time-decayed Ochiai
# W(src, dst) = sum over co-commits of exp(-ln2 (t_now - t_c) / half_life) / sqrt(n_src n_dst)
# (symmetric; t_now = newest indexed commit), `confidence` is P(dst | src) = co / n_src. Bulk
# commits are excluded; file pairs have `co_commits >= graph.file_min_support` (1: a pair seen in
# one commit is kept and served as weak), symbol pairs `>= graph.min_support`. `hidden`: neither
# file imports the other (HEAD `files.imports_resolved`); null (unknown) unless both files are in
# a language whose imports are resolved, since only then does a missing link mean anything.
WEAK_BELOW = 2  # a pair with fewer co-commits is a weak partner (served, marked weak)
_COCHANGE_METRICS = [
    pa.field("co_commits", pa.int32(), nullable=False),
    pa.field("src_commits", pa.int32(), nullable=False),
    pa.field("dst_commits", pa.int32(), nullable=False),
    pa.field("weight", pa.float32(), nullable=False),
    pa.field("confidence", pa.float32(), nullable=False),
    # rank partners of src by this ("what else must change"): co-commits decayed with
    # `graph.rank_half_life_days`, each divided by (its files - 1) ** 0.25, / n_src (see
    # `cochange.partner_score`); it beat W, counts, Ochiai, code-maat and confidence
    # on real histories' temporal hold-out (benchmarks/cochange_holdout.py)
    pa.field("rank_score", pa.float32(), nullable=False),
    pa.field("last_co_commit", HTS, nullable=False),
    pa.field("hidden", pa.bool_(), nullable=True),
]
COCHANGE_FILES = pa.schema(
    [pa.field("src", pa.string(), nullable=False), pa.field("dst", pa.string(), nullable=False)]
    + _COCHANGE_METRICS
)
COCHANGE_SYMBOLS = pa.schema(
    [
        pa.field("src", pa.string(), nullable=False),  # symbol_id
        pa.field("dst", pa.string(), nullable=False),
        pa.field("src_path", pa.string(), nullable=False),
        pa.field("dst_path", pa.string(), nullable=False),
        pa.field("src_qualname", pa.string(), nullable=False),
        pa.field("dst_qualname", pa.string(), nullable=False),
    ]
    + _COCHANGE_METRICS
)

# Symbols of HEAD that name each other in their own code (`stages/links.py`): what may have to
# change with a symbol though the two never changed together. Both directions are stored:
# `kind` "calls" (src's code names dst) and "called_by" (dst's code names src); sorted by
# (src, kind, dst). Built from HEAD's symbols and, for `dst_commits`, the history's touches.
SYMBOL_LINKS = pa.schema(
    [
        pa.field("src", pa.string(), nullable=False),  # symbol_id
        pa.field("dst", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("dst_path", pa.string(), nullable=False),
        pa.field("dst_qualname", pa.string(), nullable=False),
        pa.field("dst_commits", pa.int32(), nullable=False),  # indexed commits touching dst
    ]
)

# The co-change graph as CSR for one-hop spreading activation, memory-mapped by the server.
# `graph_nodes` row i is node i (files first, then symbols, each sorted by key); its out-edges
# are rows [edge_start, edge_start + edge_count) of `graph`, sorted by (src, -rank_score, dst).
# Edges need `graph.min_support` co-commits (weak file pairs are not spread over).
GRAPH_NODES = pa.schema(
    [
        pa.field("key", pa.string(), nullable=False),  # file path or symbol_id
        pa.field("kind", pa.string(), nullable=False),  # "file" | "symbol"
        pa.field("path", pa.string(), nullable=False),
        pa.field("commits", pa.int32(), nullable=False),  # non-bulk commits touching it
        pa.field("edge_start", pa.int64(), nullable=False),
        pa.field("edge_count", pa.int32(), nullable=False),
    ]
)
GRAPH = pa.schema(
    [
        pa.field("src", pa.int32(), nullable=False),
        pa.field("dst", pa.int32(), nullable=False),
        pa.field("weight", pa.float32(), nullable=False),
        pa.field("confidence", pa.float32(), nullable=False),
        pa.field("co_commits", pa.int32(), nullable=False),
        pa.field("import_linked", pa.bool_(), nullable=False),
        # the partner ranking of `cochange_*.rank_score`: a co-change question naming a file
        # spreads over it, so search lists that file's partners as preflight does
        pa.field("rank_score", pa.float32(), nullable=False),
    ]
)

# ---------------------------------------------------------------- retrieval (documents, embed)
# section: retrieval
# Row i of `documents`, `docmeta`, `doc_terms`, `vectors_f32`, `vectors_i8` and `vectors_bits` is
# document i
# (`doc_idx`); the Tantivy index in `fulltext/` stores the same number in its `doc_idx` field.
# `doc_id` is stable across runs: "symbol:<symbol_id>", "commit:<sha>", "<kind>:<key>" (journal).
# `time` is the last change: newest commit touching the symbol (else its file), the commit's
# own time, or the record's time; 1970-01-01 when unknown.

DOCUMENTS = pa.schema(
    [
        pa.field("doc_idx", pa.int32(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field(
            "kind", pa.string(), nullable=False
        ),  # symbol | commit | failure | invariant | memory
        pa.field("path", pa.string()),
        pa.field("symbol_id", pa.string()),
        pa.field("qualname", pa.string()),
        pa.field("sha", pa.string()),
        pa.field("title", pa.string(), nullable=False),
        pa.field("body", pa.string(), nullable=False),
        pa.field("time", TS, nullable=False),
        pa.field("intent", pa.string()),
        pa.field("language", pa.string()),
        pa.field("start_line", pa.int32()),
        pa.field("end_line", pa.int32()),
        pa.field("content_hash", pa.string(), nullable=False),  # of what is indexed and embedded
        pa.field("symbols", pa.list_(pa.string())),  # qualnames it concerns (commit: touched)
        pa.field("paths", pa.list_(pa.string())),  # files it concerns (commit: touched)
    ]
)

# What the ranker reads per document at query time, memory-mapped: numbers and dictionaries.
# Each document's terms (`store/tokenizer.py`, joined by single spaces), as
# `store/fulltext.py::field_terms` gives them for its title, symbols, paths and body, and the
# terms of the head of a body longer than the reranker reads (`head_terms`; null when the body
# fits). Keyed by content hash, so a refresh tokenizes only new and changed documents; the
# full-text stage indexes these terms, the embedder fits on them and the reranker reads them.
DOC_TERMS = pa.schema(
    [
        pa.field("content_hash", pa.string(), nullable=False),
        pa.field("title", pa.large_string(), nullable=False),
        pa.field("symbol", pa.large_string(), nullable=False),
        pa.field("path", pa.large_string(), nullable=False),
        pa.field("body", pa.large_string(), nullable=False),
        pa.field("head", pa.large_string()),
    ]
)

DOCMETA = pa.schema(
    [
        pa.field("kind", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("path", pa.dictionary(pa.int32(), pa.string())),
        pa.field("symbol_id", pa.dictionary(pa.int32(), pa.string())),
        pa.field("qualname", pa.dictionary(pa.int32(), pa.string())),
        pa.field("sha", pa.dictionary(pa.int32(), pa.string())),
        pa.field("intent", pa.dictionary(pa.int8(), pa.string())),
        pa.field("time", pa.int64(), nullable=False),  # epoch seconds
        pa.field("title", pa.string(), nullable=False),
    ]
)

# the default widths; a generation's vectors have the width of the embedder that made them
# (`store/embedder.py`), so readers and writers take the list sizes from the table (`sized_like`)
VECTOR_DIM = 256  # the components kept (disk only; hashing-LSA's `full_dim`)
CODE_DIM = 256  # the served Matryoshka prefix

VECTORS_F32 = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        # half precision, and only with `embedding.float_vectors` (else no rows): exact-search
        # baselines read it; float16 keeps cosine similarities to ~1e-3 at half the bytes
        pa.field("vector", pa.list_(pa.float16(), VECTOR_DIM), nullable=False),
    ]
)
VECTORS_I8 = pa.schema(
    [
        pa.field("codes", pa.list_(pa.int8(), CODE_DIM), nullable=False),
        pa.field("scale", pa.float32(), nullable=False),
    ]
)
VECTORS_BITS = pa.schema([pa.field(f"lane{j}", pa.uint64(), nullable=False) for j in range(4)])

# ---------------------------------------------------------------- registry

# ---------------------------------------------------------------- memories
# One row per memory from outside the journal (ADRs, git history, the team file), `record` being
# its `add` record as JSON (the shape of `store.memory`), so the journal's records fold onto it.
MEMORIES = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("origin", pa.string()),
        pa.field("record", pa.string(), nullable=False),
    ]
)

ARTIFACTS: dict[str, Artifact] = {
    a.name: a
    for a in [
        Artifact("files", "files.parquet", "parquet", FILES),
        Artifact("symbols", "symbols.parquet", "parquet", SYMBOLS),
        # section: registry
        Artifact("documents", "documents.parquet", "parquet", DOCUMENTS),
        Artifact("docmeta", "docmeta.arrow", "arrow", DOCMETA),
        Artifact("doc_terms", "doc_terms.parquet", "parquet", DOC_TERMS),
        Artifact("fulltext", "fulltext", "dir"),
        Artifact("embedder", "embedder", "dir"),
        Artifact("firewall_lm", "firewall_lm", "dir"),
        Artifact("vectors_f32", "vectors_f32.parquet", "parquet", VECTORS_F32),
        Artifact("vectors_i8", "vectors_i8.arrow", "arrow", VECTORS_I8),
        Artifact("vectors_bits", "vectors_bits.arrow", "arrow", VECTORS_BITS),
        Artifact("commits", "commits.parquet", "parquet", COMMITS),
        Artifact("touches", "touches.parquet", "parquet", TOUCHES),
        Artifact("hunks", "hunks.parquet", "parquet", HUNKS),
        Artifact("blame", "blame.parquet", "parquet", BLAME),
        Artifact("cochange_files", "cochange_files.parquet", "parquet", COCHANGE_FILES),
        Artifact("cochange_symbols", "cochange_symbols.parquet", "parquet", COCHANGE_SYMBOLS),
        Artifact("symbol_links", "symbol_links.parquet", "parquet", SYMBOL_LINKS),
        Artifact("graph_nodes", "graph_nodes.arrow", "arrow", GRAPH_NODES),
        Artifact("graph", "graph.arrow", "arrow", GRAPH),
        Artifact("memories", "memories.parquet", "parquet", MEMORIES),
    ]
}


def sized_like(schema: pa.Schema, actual: pa.Schema) -> pa.Schema:
    """`schema` with the size of each fixed-size list field taken from the same field of
    `actual`, when it is a fixed-size list there too (the vector columns)."""
    fields = []
    for f in schema:
        i = actual.get_field_index(f.name)
        if pa.types.is_fixed_size_list(f.type) and i >= 0:
            other = actual.field(i).type
            if pa.types.is_fixed_size_list(other) and other.list_size != f.type.list_size:
                f = f.with_type(pa.list_(f.type.value_field, other.list_size))
        fields.append(f)
    return pa.schema(fields, metadata=schema.metadata)


def artifact(name: str) -> Artifact:
    try:
        return ARTIFACTS[name]
    except KeyError:
        raise KeyError(
            f"unknown artifact {name!r}; known: {', '.join(sorted(ARTIFACTS))}"
        ) from None
