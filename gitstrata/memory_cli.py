"""`gitstrata memory ...`, `gitstrata context` and `gitstrata prompt`: thin commands over
`Strata.memory` (see `serve/memory.py`). Every command that prints data takes `--json`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from .serve.memory import Recalled
    from .serve.memory_stale import StaleNote
    from .store.memory import Memory

memory_app = typer.Typer(
    help="Agent memories: decisions, pitfalls, principles, preferences, facts, session notes.",
    no_args_is_help=True,
)

KindOpt = Annotated[
    str,
    typer.Option(
        "--kind", "-k", help="decision | pitfall | principle | preference | fact | session"
    ),
]
# the shared aliases: --out/--index (a folder or a remote location) and --json
from .cli import JsonOpt, OutOpt  # noqa: E402


def _strata(ctx: typer.Context, out: str | None) -> Any:
    from .cli import _strata as make

    return make(ctx, out)


def _emit(data: Any) -> None:
    from .cli import _emit_json

    _emit_json(data)


def _stale_text(notes: list[StaleNote]) -> str:
    return "; ".join(n.text() for n in notes)


def _print_memory(
    m: Memory, notes: list[StaleNote] | None = None, score: float | None = None
) -> None:
    head = f"{m.id}  [{m.kind}] [{m.status}] importance={m.importance:g}"
    if score is not None:
        head += f"  score={score:.3f}"
    typer.echo(head)
    typer.echo(f"    {m.text}")
    if m.anchors:
        typer.echo(f"    anchors: {', '.join(a.label for a in m.anchors)}")
    if m.tags:
        typer.echo(f"    tags: {', '.join(m.tags)}")
    if notes:
        typer.echo(f"    ! {_stale_text(notes)}")


@memory_app.command("add")
def memory_add(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="What to remember, in a sentence or two.")],
    kind: KindOpt = "fact",
    importance: Annotated[
        float, typer.Option("--importance", "-i", help="0..1 (0.2 minor, 0.5, 0.8, 1 critical).")
    ] = 0.5,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", "-t", help="A tag (repeatable).")
    ] = None,
    anchor: Annotated[
        list[str] | None,
        typer.Option("--anchor", "-a", help="Code it is about: path or path::Symbol (repeatable)."),
    ] = None,
    share: Annotated[
        bool, typer.Option("--share", help="Also write it to .strata/memories.jsonl (commit it).")
    ] = False,
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remember something (near-duplicates reinforce, contradictions supersede)."""
    got = _strata(ctx, out).remember(
        text, kind, importance=importance, tags=tag or None, anchors=anchor or None,
        source="user", share=share,
    )  # fmt: skip
    if as_json:
        _emit(got.to_dict())
        return
    what = {"created": "remembered", "reinforced": "reinforced", "merged": "merged into",
            "superseded": "remembered; it supersedes"}[got.action]  # fmt: skip
    other = f" {got.other.id}" if got.other is not None else ""
    typer.echo(
        f"{what}{other}: {got.memory.id}" if got.action != "created" else f"{what} {got.memory.id}"
    )


@memory_app.command("search")
def memory_search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to recall.")],
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, max=50, help="At most this many.")
    ] = 5,
    kind: Annotated[
        list[str] | None, typer.Option("--kind", "-k", help="Only these kinds.")
    ] = None,
    mode: Annotated[str, typer.Option("--mode", help="hybrid | bm25 | vector")] = "hybrid",
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Recall memories for a question (reinforces what it returns)."""
    hits: list[Recalled] = _strata(ctx, out).recall(query, limit, kinds=kind or None, mode=mode)
    if as_json:
        _emit([h.to_dict() for h in hits])
        return
    if not hits:
        typer.echo("no memory matches")
    for h in hits:
        _print_memory(h.memory, h.stale, h.score)
        if h.via:
            typer.echo(f"    (associated with {h.via})")


@memory_app.command("list")
def memory_list(
    ctx: typer.Context,
    kind: Annotated[str | None, typer.Option("--kind", "-k", help="Only this kind.")] = None,
    status: Annotated[str | None, typer.Option("--status", help="Only this status.")] = None,
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List memories, newest first."""
    mems = _strata(ctx, out).memory.listing(kind=kind, status=status)
    if as_json:
        _emit([m.to_dict() for m in mems])
        return
    for m in mems:
        _print_memory(m)
    if not mems:
        typer.echo('no memories yet: gitstrata memory add "..." --kind decision')


@memory_app.command("show")
def memory_show(
    ctx: typer.Context,
    memory_id: Annotated[str, typer.Argument(help="The memory's id (or a unique prefix).")],
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show one memory with its anchors, links and staleness."""
    book = _strata(ctx, out).memory
    m = book.get(memory_id)
    notes = book.staleness(m)
    if as_json:
        _emit({**m.to_dict(), "stale": [n.to_dict() for n in notes]})
        return
    _print_memory(m, notes)
    typer.echo(f"    source: {m.source}  created: {m.created}  recalls: {m.recalls}")
    if m.supersedes:
        typer.echo(f"    supersedes: {', '.join(m.supersedes)}")
    if m.superseded_by:
        typer.echo(f"    superseded by: {m.superseded_by}")
    if m.links:
        typer.echo("    linked: " + ", ".join(f"{k} ({w:.2f})" for k, w in sorted(m.links.items())))


@memory_app.command("update")
def memory_update(
    ctx: typer.Context,
    memory_id: Annotated[str, typer.Argument(help="The memory's id.")],
    text: Annotated[str | None, typer.Option("--text", help="New text.")] = None,
    kind: Annotated[str | None, typer.Option("--kind", "-k", help="New kind.")] = None,
    status: Annotated[
        str | None, typer.Option("--status", help="active | rejected | superseded | archived")
    ] = None,
    importance: Annotated[float | None, typer.Option("--importance", "-i", help="0..1")] = None,
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Change a memory (appends an update; nothing is rewritten)."""
    m = _strata(ctx, out).update_memory(
        memory_id, text=text, kind=kind, status=status, importance=importance
    )
    if as_json:
        _emit(m.to_dict())
    else:
        typer.echo(f"updated {m.id}")


@memory_app.command("forget")
def memory_forget(
    ctx: typer.Context,
    memory_id: Annotated[str, typer.Argument(help="The memory's id.")],
    out: OutOpt = None,
) -> None:
    """Forget a memory (appends a tombstone; the journal keeps the history)."""
    m = _strata(ctx, out).forget_memory(memory_id)
    typer.echo(f"forgot {m.id}")


@memory_app.command("consolidate")
def memory_consolidate(
    ctx: typer.Context,
    prune_below: Annotated[
        float, typer.Option("--prune-below", help="Strength under which a memory is pruned.")
    ] = 0.05,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would change.")] = False,
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Merge clusters of similar memories and prune faded ones (bridges are kept)."""
    got = _strata(ctx, out).memory.consolidate(prune_below=prune_below, dry_run=dry_run)
    if as_json:
        _emit(got)
        return
    verb = "would merge" if dry_run else "merged"
    for m in got["merged"]:
        typer.echo(f"{verb} {', '.join(m['merged'])} into {m['into']}")
    for mid in got["pruned"]:
        typer.echo(f"{'would prune' if dry_run else 'pruned'} {mid}")
    for mid in got["kept_bridges"]:
        typer.echo(f"kept {mid} (bridges strong memories)")
    if not (got["merged"] or got["pruned"]):
        typer.echo("nothing to consolidate")


@memory_app.command("stale")
def memory_stale(ctx: typer.Context, out: OutOpt = None, as_json: JsonOpt = False) -> None:
    """List memories whose anchored code changed since they were written."""
    rows = _strata(ctx, out).memory.stale()
    if as_json:
        _emit([{**m.to_dict(), "stale": [n.to_dict() for n in notes]} for m, notes in rows])
        return
    for m, notes in rows:
        _print_memory(m, notes)
    if not rows:
        typer.echo("no stale memories")


@memory_app.command("stats")
def memory_stats(ctx: typer.Context, out: OutOpt = None, as_json: JsonOpt = False) -> None:
    """Counts per kind and status, strength distribution, last maintenance."""
    stats = _strata(ctx, out).memory_stats()
    if as_json:
        _emit(stats)
        return
    typer.echo(f"memories: {stats['total']} live, {stats['forgotten']} forgotten, "
               f"{stats['shared']} shared, {stats['stale']} possibly stale")  # fmt: skip
    for key in ("kinds", "statuses", "sources", "strength"):
        typer.echo(f"  {key}: " + ", ".join(f"{k} {v}" for k, v in stats[key].items()))
    typer.echo(f"  last maintenance: {stats['last_maintenance'] or 'never'}")


def register(app: typer.Typer) -> None:
    app.add_typer(memory_app, name="memory")

    @app.command("context")
    def context(
        ctx: typer.Context,
        budget: Annotated[
            int, typer.Option("--budget", min=100, max=100_000, help="Token budget.")
        ] = 2000,
        out: OutOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """A token-budgeted context pack: summary, decisions, pitfalls, invariants, stale."""
        text = _strata(ctx, out).context_pack(budget)
        if as_json:
            _emit({"budget": budget, "text": text})
        else:
            typer.echo(text, nl=False)

    @app.command("prompt")
    def prompt(
        ctx: typer.Context,
        budget: Annotated[
            int, typer.Option("--budget", min=100, max=100_000, help="Token budget.")
        ] = 1500,
        out: OutOpt = None,
    ) -> None:
        """Print a CLAUDE.md / AGENTS.md snippet built from the context pack."""
        from .serve.memory_context import agent_prompt

        typer.echo(agent_prompt(_strata(ctx, out).context_pack(budget)), nl=False)
