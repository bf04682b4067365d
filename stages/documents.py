"""Stage `documents`: the retrievable units, one table row per document.

One document per HEAD symbol (qualified name, signature, docstring, code), per commit capsule
(subject and message, intent, tickets, touched symbols with +/- counts, diff excerpt), and per
journal record (failures, invariants, memories). Invariants:

- Order is fixed: symbols by (path, start_line, qualname), then commits by (commit_time, sha),
  then records by (time, kind, key); `doc_idx` is the row number and every row-aligned artifact
  (`docmeta`, vectors, the full-text `doc_idx` field) uses it.
- `doc_id` is stable across runs ("symbol:<symbol_id>", "commit:<sha>", "<kind>:<key>");
  `content_hash` changes exactly when what is indexed or embedded changes.
- `time` of a symbol is the newest commit touching its `symbol_id`, else the newest touching its
  file, else 0. Commits and touches are optional: without them the index is code-only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..store.ids import MODULE_SYMBOL
from ..store.memory import document_fields, fold, imported_memories, indexed
from ..store.schemas import DOCMETA, DOCUMENTS

MAX_TOUCHED_LISTED = 60  # touched symbols named in a commit document
MAX_COMMIT_EXCERPT = 2_000


def _epoch(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, datetime):
        return int(value.timestamp())
    return int(value)


def _hash(kind: str, title: str, body: str, symbols: list[str], paths: list[str]) -> str:
    """blake2b-128 of the parts' lengths, then the parts themselves (UTF-8, one buffer: this runs
    for every document on every refresh). The lengths make the split unambiguous, so no part
    needs escaping: a `repr` of each body was most of this function's time."""
    parts = (kind, title, body, *symbols, *paths)
    head = f"{len(symbols)},{len(paths)}:" + ",".join([str(len(p)) for p in parts]) + "\0"
    text = head + "".join(parts)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


_UNITS = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def _seconds(col: pa.ChunkedArray) -> np.ndarray | None:
    """Epoch seconds (as `_epoch` gives them) of a timestamp or integer column, or None."""
    if pa.types.is_timestamp(col.type):
        per = _UNITS[col.type.unit]
    elif pa.types.is_integer(col.type):
        per = 1
    else:
        return None
    raw = col.cast(pa.int64(), safe=False).to_numpy(zero_copy_only=False)
    return np.sign(raw) * (np.abs(raw) // per)  # truncated toward zero, as int() does


def _last_change(touches: pa.Table | None) -> tuple[dict[str, tuple[int, str]], dict[str, int]]:
    """(newest (time, sha) per symbol_id, newest time per head_path) from `touches`."""
    by_symbol: dict[str, tuple[int, str]] = {}
    by_path: dict[str, int] = {}
    if touches is None or touches.num_rows == 0:
        return by_symbol, by_path
    secs = _seconds(touches.column("commit_time"))
    if secs is None or touches.column("commit_time").null_count:
        t = touches.select(["sha", "commit_time", "head_path", "symbol_id"]).to_pydict()
        for sha, when, path, sid in zip(
            t["sha"], t["commit_time"], t["head_path"], t["symbol_id"], strict=True
        ):
            ts = _epoch(when)
            if sid is not None and (sid not in by_symbol or (ts, sha) > by_symbol[sid]):
                by_symbol[sid] = (ts, sha)
            if ts > by_path.get(path, -1):
                by_path[path] = ts
        return by_symbol, by_path
    # grouped in Arrow: this runs over every touch on every refresh
    t = pa.table(
        {
            "sid": touches.column("symbol_id"),
            "sha": touches.column("sha"),
            "ts": pa.array(secs, pa.int64()),
            "path": touches.column("head_path"),
        }
    )
    paths = t.group_by("path").aggregate([("ts", "max")])
    for path, ts in zip(paths["path"].to_pylist(), paths["ts_max"].to_pylist(), strict=True):
        if ts > -1:
            by_path[path] = ts
    s = t.filter(pc.is_valid(t["sid"]))
    s = s.join(s.group_by("sid").aggregate([("ts", "max")]), "sid")
    s = s.filter(pc.equal(s["ts"], s["ts_max"]))
    newest = s.group_by("sid").aggregate([("ts", "max"), ("sha", "max")])
    by_symbol = {
        sid: (ts, sha)
        for sid, ts, sha in zip(
            newest["sid"].to_pylist(),
            newest["ts_max"].to_pylist(),
            newest["sha_max"].to_pylist(),
            strict=True,
        )
    }
    return by_symbol, by_path


_SYMBOL_COLUMNS = ("symbol_id", "path", "qualname", "start_line", "end_line")
_SYMBOL_OPTIONAL = ("signature", "docstring", "code", "language")  # read with `.get`


def _symbol_docs(
    symbols: pa.Table, touches: pa.Table | None, intents: Mapping[str, str]
) -> list[dict]:
    by_symbol, by_path = _last_change(touches)
    used = [*_SYMBOL_COLUMNS, *(c for c in _SYMBOL_OPTIONAL if c in symbols.column_names)]
    rows = symbols.select(used).to_pylist()
    rows.sort(key=lambda r: (r["path"], r["start_line"], r["qualname"]))
    docs = []
    for r in rows:
        qual = r["qualname"]
        title = r["path"] if qual == MODULE_SYMBOL else qual
        body = "\n".join(x for x in (r.get("signature"), r.get("docstring"), r.get("code")) if x)
        last = by_symbol.get(r["symbol_id"])
        when = last[0] if last else by_path.get(r["path"], 0)
        docs.append(
            {
                "doc_id": f"symbol:{r['symbol_id']}",
                "kind": "symbol",
                "path": r["path"],
                "symbol_id": r["symbol_id"],
                "qualname": qual,
                "sha": None,
                "title": title,
                "body": body,
                "time": when,
                "intent": intents.get(last[1]) if last else None,
                "language": r.get("language"),
                "start_line": r["start_line"],
                "end_line": r["end_line"],
                "symbols": [qual] if qual != MODULE_SYMBOL else [],
                "paths": [r["path"]],
            }
        )
    return docs


def _touched_by_commit(
    touches: pa.Table | None,
) -> dict[str, list[tuple[str, str | None, str | None, int, int]]]:
    """sha -> (head_path, qualname, symbol_id, added, removed) of each of its touches, in
    table order (read by column: this runs over every touch on every refresh)."""
    out: dict[str, list[tuple[str, str | None, str | None, int, int]]] = {}
    if touches is None or touches.num_rows == 0:
        return out
    cols = touches.select(["sha", "head_path", "qualname", "symbol_id", "added", "removed"])
    sha, *rest = (c.to_pylist() for c in cols.columns)
    for key, row in zip(sha, zip(*rest, strict=True), strict=True):
        got = out.get(key)
        if got is None:
            out[key] = [row]
        else:
            got.append(row)
    return out


def _commit_docs(commits: pa.Table | None, touches: pa.Table | None) -> list[dict]:
    if commits is None or commits.num_rows == 0:
        return []
    touched = _touched_by_commit(touches)
    used = [
        "sha",
        "commit_time",
        "subject",
        "message",
        "intent",
        "tickets",
        "reverted_sha",
        "excerpt",
    ]
    rows = commits.select([c for c in used if c in commits.column_names]).to_pylist()
    rows.sort(key=lambda r: (_epoch(r["commit_time"]), r["sha"]))
    docs = []
    for c in rows:
        subject = c.get("subject") or ""
        message = c.get("message") or subject
        lines = [message, f"intent: {c['intent']}"]
        if c.get("tickets"):
            lines.append("tickets: " + " ".join(c["tickets"]))
        if c.get("reverted_sha"):
            lines.append(f"reverts {c['reverted_sha']}")
        symbols: list[str] = []
        paths: list[str] = []
        for head_path, qualname, symbol_id, added, removed in touched.get(c["sha"], []):
            if head_path not in paths:
                paths.append(head_path)
            if symbol_id is None or qualname is None:
                continue
            if len(symbols) < MAX_TOUCHED_LISTED:
                symbols.append(qualname)
                lines.append(f"touched {head_path}::{qualname} +{added} -{removed}")
        excerpt = (c.get("excerpt") or "")[:MAX_COMMIT_EXCERPT]
        if excerpt:
            lines.append(excerpt)
        docs.append(
            {
                "doc_id": f"commit:{c['sha']}",
                "kind": "commit",
                "path": paths[0] if len(paths) == 1 else None,
                "symbol_id": None,
                "qualname": None,
                "sha": c["sha"],
                "title": subject,
                "body": "\n".join(lines),
                "time": _epoch(c["commit_time"]),
                "intent": c["intent"],
                "language": None,
                "start_line": None,
                "end_line": None,
                "symbols": symbols,
                "paths": paths,
            }
        )
    return docs


def _record_docs(records: Iterable[Mapping[str, Any]] | pa.Table | None) -> list[dict]:
    if records is None:
        return []
    rows = records.to_pylist() if isinstance(records, pa.Table) else [dict(r) for r in records]
    docs = []
    for r in rows:
        kind, key = str(r["kind"]), str(r["key"])
        symbol = r.get("symbol")
        path = r.get("path")
        docs.append(
            {
                "doc_id": f"{kind}:{key}",
                "kind": kind,
                "path": path,
                "symbol_id": r.get("symbol_id"),
                "qualname": symbol,
                "sha": r.get("sha"),
                "title": r.get("title") or "",
                "body": r.get("body") or "",
                "time": _epoch(r.get("time")),
                "intent": r.get("intent"),
                "language": None,
                "start_line": None,
                "end_line": None,
                "symbols": list(r.get("symbols") or ([symbol] if symbol else [])),
                "paths": list(r.get("paths") or ([path] if path else [])),
            }
        )
    docs.sort(key=lambda d: (d["time"], d["kind"], d["doc_id"]))
    return docs


def memory_records(
    imported: Iterable[str],
    journal: Iterable[Mapping[str, Any]],
    redact: Callable[[str], str | None] | None = None,
) -> list[dict[str, Any]]:
    """The active memories as document records (kind `memory`, key the memory's id): the
    `memories` table's records (`imported`: ADRs, git, the team file) with the journal's
    `memories` stream folded on top, as the server folds them. Title and body pass `redact`."""
    mems, _ = fold([dict(r) for r in journal], imported_memories(imported))
    out = []
    for mid in sorted(mems):
        mem = mems[mid]
        if not indexed(mem):
            continue
        rec = document_fields(mem)
        if redact is not None:
            rec["title"] = redact(rec["title"]) or ""
            rec["body"] = redact(rec["body"]) or ""
        out.append(rec)
    return out


def build_documents(
    symbols: pa.Table,
    commits: pa.Table | None = None,
    touches: pa.Table | None = None,
    records: Iterable[Mapping[str, Any]] | pa.Table | None = None,
) -> pa.Table:
    """The `documents` table (schema `DOCUMENTS`). `records` are journal records as mappings
    with kind, key, path, symbol, title, body, time (epoch seconds or datetime)."""
    intents: dict[str, str] = {}
    if commits is not None and commits.num_rows:
        intents = dict(
            zip(
                commits.column("sha").to_pylist(), commits.column("intent").to_pylist(), strict=True
            )
        )
    docs = (
        _symbol_docs(symbols, touches, intents)
        + _commit_docs(commits, touches)
        + _record_docs(records)
    )
    seen: set[str] = set()
    for d in docs:
        if d["doc_id"] in seen:
            raise ValueError(f"duplicate document id {d['doc_id']!r}")
        seen.add(d["doc_id"])
    # built column by column (`time` from epoch seconds as they are): a row-wise `from_pylist`
    # looks every field up in every dict
    columns: dict[str, Any] = {
        name: [d[name] for d in docs] for name in DOCUMENTS.names if name in _ROW_FIELDS
    }
    columns["doc_idx"] = range(len(docs))
    columns["content_hash"] = [
        _hash(d["kind"], d["title"], d["body"], d["symbols"], d["paths"]) for d in docs
    ]
    arrays = [pa.array(columns[f.name], f.type) for f in DOCUMENTS]
    return pa.Table.from_arrays(arrays, schema=DOCUMENTS)


_ROW_FIELDS = frozenset(DOCUMENTS.names) - {"doc_idx", "content_hash"}


def docmeta(documents: pa.Table) -> pa.Table:
    """The per-document columns the ranker reads at query time, dictionary-encoded, one batch."""
    cols = {}
    for field in DOCMETA:
        if field.name == "time":
            cols["time"] = pc.cast(documents.column("time"), pa.int64()).combine_chunks()
            continue
        col = documents.column(field.name).combine_chunks()
        if pa.types.is_dictionary(field.type):
            enc = col.dictionary_encode()
            col = pa.DictionaryArray.from_arrays(
                enc.indices.cast(field.type.index_type), enc.dictionary
            )
        cols[field.name] = col
    return pa.table(cols, schema=DOCMETA).combine_chunks()


EMBED_CHARS = 8_000  # how much of a body is embedded


def embed_text(title: str, path: str | None, body: str, *, max_chars: int = EMBED_CHARS) -> str:
    """The text a document is embedded from: title, path, then the start of the body."""
    return f"{title}\n{path or ''}\n{body[:max_chars]}"
