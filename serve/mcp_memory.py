"""The memory tools of `gitstrata mcp`: remember, recall, forget, update_memory, memory_stats.

Registered by `serve.mcp_server.build_server`; each handler validates through `MemoryBook`
(bad arguments: a tool error with one sentence, nothing written) and answers with a short text
plus the structured result, both passed through the firewall by the server's `_Replies`. The
server consolidates on a schedule: a recall runs maintenance when the last one is over 12 hours
old. (No `from __future__ import annotations`: the SDK reads the annotations.)
"""

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from ..store.errors import GitstrataError
from ..store.memory import MAX_TEXT
from ..store.oneline import escape_breaks
from ..store.redact import redact_text
from .memory import MAX_RECALL, MemoryBook

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from .lifecycle import Lifecycle

Kind = Literal["decision", "pitfall", "principle", "preference", "fact", "session"]
Status = Literal["active", "rejected", "superseded", "archived"]

REMEMBER_DESCRIPTION = f"""\
Save something worth knowing in later sessions: a decision and its reason, a pitfall you hit, a
principle or preference of this team, a fact about the project, or a session note. Anchor it to
the code it is about (`path` or `path::Symbol`, relative to the repository root): preflight_check
on that code shows it, and once the code changes it is flagged "possibly stale". Saying the same
thing again reinforces the existing memory; saying the opposite (prefer / avoid) supersedes it;
a close variant is merged into it. text is at most {MAX_TEXT} characters. share=true also writes
it to .strata/memories.jsonl for the team (commit that file)."""

RECALL_DESCRIPTION = """\
Search the memories of this repository (decisions, pitfalls, principles, preferences, facts,
session notes; ADRs are imported as decisions) with a question or keywords. Results are ranked by
relevance, kind, importance, status and how recently and often they were useful; memories linked
to a match are included (marked via). Each returned memory is reinforced. A memory whose
anchored code changed since it was written says "possibly stale since <commit>": check the code
before relying on it."""

FORGET_DESCRIPTION = """\
Forget a memory that is wrong or no longer useful, by the id recall returned (e.g. a pitfall
candidate from the git history you checked and found harmless). The journal keeps the history;
the memory no longer appears in recall, search or preflight_check, and a shared one leaves the
team file. To keep it but mark it outdated, use update_memory with status archived instead."""

UPDATE_DESCRIPTION = """\
Change a memory by its id: new text, kind, importance, status (active, rejected, superseded,
archived), tags or anchors. Use it to confirm a pitfall candidate (raise importance) or to mark
a decision rejected or archived."""

STATS_DESCRIPTION = """\
An overview of this repository's memories: counts per kind, status and source, how many are
shared with the team, the strength distribution (memories fade unless recalled), how many are
possibly stale because their anchored code changed, when maintenance (merging and pruning) last
ran, and the engineering view: pitfalls by component and severity, tracked features."""

MemoryId = Annotated[str, Field(description="A memory id as recall returns it (e.g. m3f9c2a1b7d).")]
Tags = Annotated[
    list[str] | None,
    Field(description="Short keywords (letters, digits, . _ : / -), at most 16.", max_length=16),
]
Anchors = Annotated[
    list[str] | None,
    Field(
        description="Code it is about: paths or path::Symbol relative to the repository root, "
        "at most 16 (e.g. src/pay/charge.py::charge_with_retry).",
        max_length=16,
    ),
]


def _line(mem: dict[str, Any]) -> str:
    where = f" [{', '.join(a['path'] + ('::' + a['symbol'] if a.get('symbol') else '') for a in mem['anchors'])}]" if mem["anchors"] else ""  # fmt: skip
    # one line: a memory's text or an anchor's file name cannot add lines (a forged stale note)
    return escape_breaks(f"{mem['id']} [{mem['kind']}/{mem['status']}] {mem['text']}{where}")


def add_memory_tools(app: "MCPServer", life: "Lifecycle", replies: Any) -> MemoryBook:
    """Register the memory tools over one `MemoryBook`, returned (a session outcome reweights
    what its recalls returned)."""
    from mcp_types import CallToolResult, ToolAnnotations

    book = MemoryBook(life.index_dir, life.repo, index_vectors=True)
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    @app.tool(name="remember", description=REMEMBER_DESCRIPTION, annotations=writes)
    def remember(
        text: Annotated[
            str, Field(description=f"The memory in 1-3 sentences (at most {MAX_TEXT} characters).")
        ],
        kind: Annotated[Kind, Field(description="What it is.")] = "fact",
        importance: Annotated[
            float,
            Field(ge=0, le=1, description="0.2 minor, 0.5 normal, 0.8 important, 1 critical."),
        ] = 0.5,
        tags: Tags = None,
        anchors: Anchors = None,
        share: Annotated[
            bool, Field(description="Also write it to the team file .strata/memories.jsonl.")
        ] = False,
    ) -> CallToolResult:
        try:
            got = book.remember(
                text, kind, importance=importance, tags=tags, anchors=anchors, share=share
            )
        except GitstrataError as exc:
            raise replies.fail(exc) from None
        data = got.to_dict()
        if got.action == "created":
            text_out = f"Remembered {got.memory.id}."
        elif got.action == "reinforced":
            text_out = f"Already known as {got.memory.id}: reinforced it."
        elif got.action == "merged":
            text_out = f"Merged into the similar memory {got.memory.id}."
        else:
            text_out = (
                f"Remembered {got.memory.id}; it supersedes {got.other.id if got.other else ''}."
            )
        return replies.result(text_out + "\n" + _line(data["memory"]), data)

    @app.tool(name="recall", description=RECALL_DESCRIPTION, annotations=writes)
    def recall(
        query: Annotated[
            str, Field(description="A question or keywords (at most 4000 characters).")
        ],
        limit: Annotated[
            int, Field(ge=1, le=MAX_RECALL, description=f"How many (1-{MAX_RECALL}).")
        ] = 5,
        kinds: Annotated[
            list[Kind] | None, Field(description="Only these kinds (default: all).")
        ] = None,
    ) -> CallToolResult:
        try:
            book.maybe_maintain()
            hits = book.recall(query, limit, kinds=kinds)
        except GitstrataError as exc:
            raise replies.fail(exc) from None
        rows = [h.to_dict() for h in hits]
        lines = []
        for r in rows:
            lines.append(_line(r) + (f" (linked from {r['via']})" if r["via"] else ""))
            lines += [f"  ! {s['note']}" for s in r["stale"]]
        text_out = "\n".join(lines) if lines else "No memory matches."
        return replies.result(text_out, {"query": redact_text(query), "memories": rows})

    @app.tool(name="forget", description=FORGET_DESCRIPTION, annotations=writes)
    def forget(memory_id: MemoryId) -> CallToolResult:
        try:
            mem = book.forget(memory_id)
        except GitstrataError as exc:
            raise replies.fail(exc) from None
        return replies.result(f"Forgot {mem.id}.", {"forgotten": mem.id})

    @app.tool(name="update_memory", description=UPDATE_DESCRIPTION, annotations=writes)
    def update_memory(
        memory_id: MemoryId,
        text: Annotated[str | None, Field(description="New text.")] = None,
        kind: Annotated[Kind | None, Field(description="New kind.")] = None,
        importance: Annotated[
            float | None, Field(ge=0, le=1, description="New importance 0-1.")
        ] = None,
        status: Annotated[Status | None, Field(description="New status.")] = None,
        tags: Tags = None,
        anchors: Anchors = None,
    ) -> CallToolResult:
        try:
            mem = book.update(
                memory_id, text=text, kind=kind, importance=importance, status=status,
                tags=tags, anchors=anchors,
            )  # fmt: skip
        except GitstrataError as exc:
            raise replies.fail(exc) from None
        data = mem.to_dict()
        return replies.result(f"Updated {mem.id}.\n" + _line(data), data)

    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @app.tool(name="memory_stats", description=STATS_DESCRIPTION, annotations=read_only)
    def memory_stats() -> CallToolResult:
        try:
            stats = book.stats()
        except GitstrataError as exc:
            raise replies.fail(exc) from None
        kinds = ", ".join(f"{n} {k}" for k, n in stats["kinds"].items()) or "none"
        text_out = (
            f"{stats['total']} memories ({kinds}); {stats['stale']} possibly stale; "
            f"last maintenance: {stats['last_maintenance'] or 'never'}."
        )
        return replies.result(text_out, stats)

    return book
