"""Memories from outside the agent: ADRs, the git history, and the team file.

`build_memories` turns architecture decision records (Nygard and MADR styles, with or without
front matter), revert and "fix ... again" commits, the most-changed files and the team's
`memories.jsonl` into one `memories` table of memory records (`store.memory`'s `add` shape, as
JSON). Invariants: ids are derived from what they describe (an ADR's path, a commit's sha), so a
re-run produces the same rows and an agent's updates or forgets in the journal keep applying;
supersede edges between ADRs point both ways; nothing here reads the clock.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from ..store import filekind
from ..store.ids import MODULE_SYMBOL
from ..store.memory import MAX_TEXT
from ..store.regexcache import compile_pattern
from ..store.schemas import MEMORIES
from ..store.vocabulary import HOTSPOT_TAG

ADR_DIRS = ("docs/adr", "docs/adrs", "docs/decisions", "doc/adr", "doc/adrs", "adr", "adrs",
            "decisions", "docs/architecture/decisions")  # fmt: skip
GIT_DEPTH = 500
MAX_SYMBOL_ANCHORS = 8  # a pitfall candidate anchored to more symbols than this keeps its files
HOTSPOT_MIN = 8
HOTSPOT_FILES = 10

_FRONT = compile_pattern(r"\A---\s*\n(.*?)\n---\s*\n", re.S)
_NUM_FILE = compile_pattern(r"(?:^|/)(?:adr[-_]?)?(\d{1,5})[-_. ]", re.I)
_TITLE = compile_pattern(r"^#\s+(?:(?:ADR[-\s]?)?(\d+)[.:]?\s+)?(.+?)\s*$", re.M | re.I)
_SECTION = compile_pattern(r"^#{2,3}\s+(.+?)\s*$", re.M)
_LIST_FIELD = compile_pattern(r"^\s*[*-]\s*(Status|Date|Deciders)\s*:\s*(.+)$", re.M | re.I)
_REF = compile_pattern(r"(?:ADR[-\s#]?0*(\d+))|\[(?:ADR[-\s]?)?0*(\d+)[^\]]*\]\([^)]*?0*(\d+)[^)]*\)|"
                  r"\(([^)]*?/)?0*(\d+)-[^)]*\.md\)", re.I)  # fmt: skip
_SUPERSEDED_BY = compile_pattern(r"superseded\s+by\b(.*)", re.I)
_SUPERSEDES = compile_pattern(r"\bsupersedes\b(.*)", re.I)
_STATUS_MAP = {
    "accepted": "active", "approved": "active", "proposed": "active", "draft": "active",
    "rejected": "rejected", "declined": "rejected",
    "deprecated": "archived", "superseded": "superseded", "replaced": "superseded",
}  # fmt: skip
# `Revert "subject"` (git's own wording), `Revert: subject`, `revert subject`
_REAPPLIED = compile_pattern(r'\s*revert\s+"revert\b', re.I)
_REVERTED = compile_pattern(
    r'revert(?:s|ed)?\b[:\s]*"(.+)"\s*$|revert(?:s|ed)?\b[:\s]+(?!")(.+?)\s*$', re.I
)
_AGAIN = compile_pattern(r"\bfix(?:e[sd]|ing)?\b.*\bagain\b|\bagain\b.*\bfix", re.I)


@dataclass
class Adr:
    path: str
    number: int | None
    title: str
    status: str  # the raw status word, lowercased
    date: str | None
    summary: str
    superseded_by: list[int] = field(default_factory=list)
    supersedes: list[int] = field(default_factory=list)


def _refs(text: str) -> list[int]:
    out = []
    for m in _REF.finditer(text):
        n = next((g for g in m.groups() if g and g.isdigit()), None)
        if n is not None:
            out.append(int(n))
    return list(dict.fromkeys(out))


def _sections(body: str) -> dict[str, str]:
    heads = list(_SECTION.finditer(body))
    out = {}
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        out[h.group(1).strip().lower()] = body[h.end() : end].strip()
    return out


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    m = _FRONT.match(text)
    if not m:
        return {}, text
    fields = {}
    for line in m.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip().lower()] = value.strip().strip("\"'")
    return fields, text[m.end() :]


def _first_paragraph(text: str, limit: int = 600) -> str:
    para = re.split(r"\n\s*\n", text.strip(), maxsplit=1)[0] if text.strip() else ""
    para = " ".join(line.strip().lstrip("*-").strip() for line in para.splitlines())
    return para[:limit]


def parse_adr(path: str, text: str) -> Adr | None:
    """One ADR, or None when the file has no title."""
    fields, body = _front_matter(text.replace("\r\n", "\n"))
    title_m = _TITLE.search(body)
    if title_m is None and "title" not in fields:
        return None
    number = int(title_m.group(1)) if title_m and title_m.group(1) else None
    if number is None:
        fm = _NUM_FILE.search(path.rsplit("/", 1)[-1] + " ")
        number = int(fm.group(1)) if fm else None
    title = fields.get("title") or (title_m.group(2) if title_m else "")
    secs = _sections(body)
    listed = {m.group(1).lower(): m.group(2).strip() for m in _LIST_FIELD.finditer(body)}
    status_text = fields.get("status") or listed.get("status") or secs.get("status", "")
    status_line = next((ln.strip() for ln in status_text.splitlines() if ln.strip()), "")
    word = re.match(r"[A-Za-z]+", status_line)
    status = word.group(0).lower() if word else "accepted"
    date = fields.get("date") or listed.get("date")
    if date is None:
        dm = re.search(r"^Date:\s*(\S+)", body, re.M)
        date = dm.group(1) if dm else None
    decision = (
        next((v for k, v in secs.items() if k.startswith("decision")), "")
        or secs.get("context and problem statement")
        or secs.get("context", "")
    )
    summary = _first_paragraph(decision)
    superseded_by, supersedes = [], []
    for source in (status_text, fields.get("superseded-by", ""), fields.get("superseded_by", "")):
        for m in _SUPERSEDED_BY.finditer(source):
            superseded_by += _refs(m.group(1))
    if fields.get("superseded-by") or fields.get("superseded_by"):
        superseded_by += _refs(
            "ADR-" + (fields.get("superseded-by") or fields.get("superseded_by") or "")
        )
    for source in (status_text, fields.get("supersedes", "")):
        for m in _SUPERSEDES.finditer(source):
            supersedes += _refs(m.group(1))
    if fields.get("supersedes"):
        supersedes += _refs("ADR-" + fields["supersedes"])
    if superseded_by and status not in ("superseded", "replaced"):
        status = "superseded"
    return Adr(
        path=path,
        number=number,
        title=title.strip(),
        status=status,
        date=date,
        summary=summary,
        superseded_by=sorted(
            set(superseded_by) - {number} if number is not None else set(superseded_by)
        ),
        supersedes=sorted(set(supersedes) - {number} if number is not None else set(supersedes)),
    )


def is_adr_path(path: str, dirs: Iterable[str] = ADR_DIRS) -> bool:
    low = path.lower()
    if not low.endswith((".md", ".markdown")):
        return False
    folder = low.rsplit("/", 1)[0] if "/" in low else ""
    name = low.rsplit("/", 1)[-1]
    if name in ("readme.md", "index.md", "template.md") or name.startswith(("template", "_")):
        return False
    return any(folder == d or folder.endswith("/" + d) for d in dirs)


def _adr_id(path: str) -> str:
    return "adr-" + hashlib.blake2b(path.encode(), digest_size=5).hexdigest()


def _when(date: str | None, fallback: str) -> str:
    if date:
        try:
            d = datetime.fromisoformat(date.strip()[:10]).replace(tzinfo=UTC)
            return d.strftime("%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            pass
    return fallback


def adr_records(files: list[tuple[str, str]], head_time: str) -> list[dict[str, Any]]:
    """Decision memory records of the ADR `files` ((path, text)), with supersede edges."""
    adrs = [a for a in (parse_adr(p, t) for p, t in sorted(files)) if a is not None]
    by_number = {a.number: a for a in adrs if a.number is not None}
    recs: dict[str, dict[str, Any]] = {}
    for a in adrs:
        label = f"ADR-{a.number:04d}" if a.number is not None else a.path.rsplit("/", 1)[-1]
        text = f"{label}: {a.title}." + (f" {a.summary}" if a.summary else "")
        when = _when(a.date, head_time)
        recs[a.path] = {
            "op": "add",
            "mid": _adr_id(a.path),
            "kind": "decision",
            "text": text[:MAX_TEXT],
            "importance": 0.7 if a.status in ("accepted", "approved") else 0.5,
            "status": _STATUS_MAP.get(a.status, "active"),
            "tags": ["adr"],
            "anchors": [],
            "source": "adr",
            "origin": a.path,
            "created": when,
            "updated": when,
            "supersedes": [],
        }
    for a in adrs:
        rec = recs[a.path]
        for n in a.superseded_by:
            other = by_number.get(n)
            if other is not None:
                rec["status"] = "superseded"
                rec["superseded_by"] = _adr_id(other.path)
                if rec["mid"] not in recs[other.path]["supersedes"]:
                    recs[other.path]["supersedes"].append(rec["mid"])
        for n in a.supersedes:
            other = by_number.get(n)
            if other is not None:
                if _adr_id(other.path) not in rec["supersedes"]:
                    rec["supersedes"].append(_adr_id(other.path))
                recs[other.path]["status"] = "superseded"
                recs[other.path]["superseded_by"] = rec["mid"]
    return [recs[p] for p in sorted(recs)]


def git_records(commits: pa.Table, touches: pa.Table, *, depth: int = GIT_DEPTH,
                hotspot_min: int = HOTSPOT_MIN) -> list[dict[str, Any]]:  # fmt: skip
    """Pitfall candidates from reverts and "fix ... again" commits among the last `depth`
    commits, and one hotspot fact naming the files most of them changed."""
    if commits.num_rows == 0:
        return []
    rows = commits.select(["sha", "commit_time", "subject", "intent", "reverted_sha"]).to_pylist()
    rows.sort(key=lambda r: (r["commit_time"], r["sha"]), reverse=True)
    recent = rows[:depth]
    shas = {r["sha"] for r in recent}
    files_of: dict[str, list[str]] = {}
    symbols_of: dict[str, dict[tuple[str, str], None]] = {}  # in touch order
    t = touches.select(["sha", "head_path"])
    sha_col, path_col = t["sha"].to_pylist(), t["head_path"].to_pylist()
    names = (
        touches.column("qualname").to_pylist()
        if "qualname" in touches.column_names
        else [None] * len(sha_col)
    )
    for sha, path, qualname in zip(sha_col, path_col, names, strict=True):
        if sha in shas:
            files_of.setdefault(sha, [])
            if path not in files_of[sha]:
                files_of[sha].append(path)
            if qualname and qualname != MODULE_SYMBOL:
                symbols_of.setdefault(sha, {})[(path, qualname)] = None
    # a revert that was itself reverted: the change it undid is back, and no pitfall
    # (`This reverts commit` may name it by a prefix)
    undone = tuple({r["reverted_sha"].lower() for r in rows if r["reverted_sha"]})
    out = []
    for r in recent:
        subject = (r["subject"] or "").strip()
        if _REAPPLIED.match(subject) or (undone and r["sha"].startswith(undone)):
            continue  # `Revert "Revert ..."` puts a change back; it warns of nothing
        revert = r["intent"] == "revert" or subject.lower().startswith("revert")
        if not (revert or _AGAIN.search(subject)):
            continue
        when = _fmt(r["commit_time"])
        files = files_of.get(r["sha"], [])[:3]
        # anchored to the functions the commit changed, so that preflight shows the candidate
        # where that code is edited; a commit that changed no named symbol, or more than a
        # handful, keeps its files (shown for a whole file, not for each of its symbols)
        symbols = list(symbols_of.get(r["sha"], ()))
        if symbols and len(symbols) <= MAX_SYMBOL_ANCHORS:
            anchors = [{"path": p, "symbol": q} for p, q in symbols]
        else:
            anchors = [{"path": p} for p in files]
        where = f" (in {', '.join(files)})" if files else ""
        if revert:
            # what was undone, named once: `Revert "X"` reads as X, with both commits
            named = _REVERTED.match(subject)
            what = (
                f"Reverted: {(named.group(1) or named.group(2)).rstrip(' .') if named else subject}"
            )
            what += f" ({r['reverted_sha'][:10]})" if r["reverted_sha"] else ""
            what += f", undone by {r['sha'][:10]}"
        else:
            what = f"Fixed again: {subject}"
        out.append({
            "op": "add",
            "mid": "git-" + r["sha"][:10],
            "kind": "pitfall",
            "text": f"{what}{where}. Check why before changing this code the same way."[:MAX_TEXT],
            "importance": 0.2,
            "status": "active",
            "tags": ["candidate", "revert" if revert else "refix"],
            "anchors": anchors,
            "source": "git",
            "origin": r["sha"],
            "created": when,
            "updated": when,
        })  # fmt: skip
    # code only: a changelog, a manifest or a CI file changes in most commits and says nothing
    # of where the code is fragile
    counts = Counter(p for r in recent for p in files_of.get(r["sha"], []) if filekind.is_code(p))
    # ties by path: the fact must not depend on the order anything was counted in
    ranked = sorted(counts.items(), key=lambda pn: (-pn[1], pn[0]))[:HOTSPOT_FILES]
    hot = [(p, n) for p, n in ranked if n >= hotspot_min]
    if hot:
        when = _fmt(recent[0]["commit_time"])
        listing = ", ".join(f"{p} ({n})" for p, n in hot)
        out.append({
            "op": "add",
            "mid": "git-hotspots",
            "kind": "fact",
            "text": f"Code hotspots (source and test files changed most in the last {len(recent)} commits): {listing}.",
            "importance": 0.4,
            "status": "active",
            "tags": [HOTSPOT_TAG],
            "anchors": [],
            "source": "git",
            "created": when,
            "updated": when,
        })  # fmt: skip
    return out


def _fmt(value: Any) -> str:
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return datetime.fromtimestamp(int(value) / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def build_memories(
    adr_files: list[tuple[str, str]],
    commits: pa.Table,
    touches: pa.Table,
    team: list[dict[str, Any]],
    head_time: str,
) -> pa.Table:
    """The `memories` table: ADR decisions, git pitfall candidates and hotspots, and the team
    file's memories (already in record shape, `shared` set), one row per id (the team's version
    of an id wins: a teammate may have edited an imported memory)."""
    recs: dict[str, dict[str, Any]] = {}
    for rec in [*adr_records(adr_files, head_time), *git_records(commits, touches), *team]:
        recs[rec["mid"]] = rec
    ids = sorted(recs)
    return pa.table(
        {
            "id": ids,
            "kind": [recs[i]["kind"] for i in ids],
            "source": [recs[i].get("source", "agent") for i in ids],
            "origin": [recs[i].get("origin") for i in ids],
            "record": [json.dumps(recs[i], sort_keys=True, ensure_ascii=False) for i in ids],
        },
        schema=MEMORIES,
    )
