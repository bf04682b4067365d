"""The typed results of search and preflight: one shape for the API, the CLI's `--json` and the
MCP structured content. Field names and nesting are part of the public contract (a snapshot test
pins them); add fields, never rename or remove them without bumping `SCHEMA_VERSION`."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

SCHEMA_VERSION = 1


# default factories that are Python functions: pydantic inspects a factory's signature when it
# builds a model, and `inspect.signature(list)` parses the builtin's text signature (a few
# milliseconds over these models in a one-shot process)
def _list() -> list:
    return []


def _dict() -> dict:
    return {}


class _Model(BaseModel):
    # built on first use: a one-shot process needs the schemas of one response, not all
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Evidence(_Model):
    """Why a hit ranks where it does: each path's contribution."""

    bm25_rank: int | None = None
    bm25_score: float | None = None
    vec_rank: int | None = None
    hamming: int | None = None
    int8_cos: float | None = None
    graph_rank: int | None = None
    graph_activation: float | None = None
    rrf: float = 0.0
    recency: float = 1.0
    rerank: float | None = None


class CommitRef(_Model):
    sha: str
    short: str
    date: str
    intent: str
    subject: str
    reason: str = ""  # the commit body's first paragraph (why), bounded


class Hit(_Model):
    rank: int
    doc: int  # row of documents.parquet in this generation
    kind: str  # symbol | commit | failure | invariant | memory
    key: str  # symbol_id, sha, failure id, ...
    path: str | None = None
    symbol: str | None = None
    title: str
    snippet: str = ""
    date: str | None = None
    intent: str | None = None
    score: float
    pinned: bool = False
    evidence: Evidence = Field(default_factory=Evidence)
    why: list[CommitRef] = Field(default_factory=_list)  # commits that shaped this symbol
    reason: str = ""  # a commit hit: its body's first paragraph, bounded
    author: str | None = None  # a commit hit: its author's name


class FailureWarning(_Model):
    failure_id: int | str  # journal id, or "revert:<sha>" for a reverted commit
    score: float
    reasons: list[str]
    targets: list[str]
    date: str | None = None
    occurrences: int = 1
    exit_code: int | None = None
    command: str | None = None
    tried: str = ""  # what was tried (notes)
    errors: list[str] = Field(default_factory=_list)
    failing_tests: list[str] = Field(default_factory=_list)
    diff_excerpt: str = ""
    source: str = "journal"  # journal | revert


class PastAttempt(_Model):
    """A failed or reverted attempt on the target shown as history, not as a warning: nothing
    says the change at hand repeats it, or it was re-applied later (`reapplied_in`)."""

    failure_id: int | str  # journal id, or "revert:<sha>"
    source: str  # journal | revert
    date: str | None = None
    targets: list[str] = Field(default_factory=_list)
    summary: str  # "reverted: <subject> (<sha>), reverted by <sha>: <reason>"
    reapplied_in: str | None = None  # the commit (short sha) that put the change back


class InvariantHit(_Model):
    id: str
    severity: str
    scope: str
    description: str


class MemoryRef(_Model):
    """A remembered decision, pitfall, ... shown with search and preflight results."""

    id: str
    kind: str
    status: str
    text: str
    importance: float
    score: float
    anchors: list[str] = Field(default_factory=_list)
    stale: list[str] = Field(default_factory=_list)  # "possibly stale since <commit> <subject>"
    via: str | None = None  # the memory whose link brought this one


class SearchResponse(_Model):
    schema_version: int = SCHEMA_VERSION
    query: str
    mode: str
    query_class: str
    fusion_weights: dict[str, float]
    file_filter: str | None = None
    hits: list[Hit]
    warnings: list[FailureWarning] = Field(default_factory=_list)
    invariants: list[InvariantHit] = Field(default_factory=_list)
    latency_ms: dict[str, float] = Field(default_factory=_dict)
    generation: str | None = None
    firewall: list[str] = Field(default_factory=_list)  # spans flagged by the perplexity check
    memories: list[MemoryRef] = Field(default_factory=_list)
    # what the answer cannot know: HEAD moved past the index, history cut at a shallow clone
    index_notes: list[str] = Field(default_factory=_list)


class SymbolContext(_Model):
    path: str
    qualname: str
    kind: str
    start_line: int
    end_line: int
    signature: str = ""
    docstring: str = ""
    language: str | None = None


class Ownership(_Model):
    commit: CommitRef
    lines: int
    share: float  # of the symbol's lines
    load_bearing: bool
    code_lines: int = 0  # of `lines`: neither blank nor comment-only
    code_share: float = 0.0  # of the symbol's code lines
    # a shallow clone's boundary commit: blame gives it every older line, so it owns more
    # than it wrote
    boundary: bool = False


class HistoryEntry(_Model):
    commit: CommitRef
    added: int
    removed: int
    excerpt: list[str] = Field(default_factory=_list)
    files: int = 0


class Coupling(_Model):
    path: str
    symbol: str | None = None
    score: float = 0.0  # the partner ranking (recency-weighted P(this | target)); sorted by it
    weight: float  # W, the seed's time-decayed Ochiai coupling strength
    confidence: float  # P(this changes | target changes)
    co_commits: int
    hidden: bool | None  # None: a file's imports are not resolved, so a link is unknown
    weak: bool = False  # seen changing together in a single commit only
    # a symbol partner's link in HEAD's code: "caller" (its code names the target), "callee"
    # (the target's code names it), "caller and callee", "container" (the target is declared
    # inside it: its class, its `impl` block) or "member" (declared inside the target); a
    # partner listed for this link alone, never a co-change partner, has no co-change numbers (0)
    link: str | None = None


class TestFile(_Model):
    """A test file to run after changing the target (`Searcher.tests_for`)."""

    path: str
    co_commits: int = 0  # commits that changed it with the target's file (0: found by its words)


class PreflightReport(_Model):
    schema_version: int = SCHEMA_VERSION
    file: str
    symbol: str | None = None
    intended_change: str | None = None
    found: bool
    message: str | None = None
    nearest: list[str] = Field(default_factory=_list)
    context: SymbolContext | None = None
    ownership: list[Ownership] = Field(default_factory=_list)
    load_bearing_share: float = 0.0
    load_bearing_lines: int = 0
    total_lines: int = 0
    history: list[HistoryEntry] = Field(default_factory=_list)
    coupling: list[Coupling] = Field(default_factory=_list)
    symbol_coupling: list[Coupling] = Field(default_factory=_list)
    tests: list[TestFile] = Field(default_factory=_list)  # to run after the change, best first
    related: list[Hit] = Field(default_factory=_list)
    invariants: list[InvariantHit] = Field(default_factory=_list)
    warnings: list[FailureWarning] = Field(default_factory=_list)
    past_attempts: list[PastAttempt] = Field(default_factory=_list)
    latency_ms: float = 0.0
    generation: str | None = None
    firewall: list[str] = Field(default_factory=_list)
    # `load_bearing_lines` / `_share` count code lines; `load_bearing` lists the fixes above the
    # retrieval.load_bearing_min_lines / _min_share thresholds, largest first
    code_lines: int = 0
    load_bearing: list[Ownership] = Field(default_factory=_list)
    load_bearing_commits: int = 0  # all fix commits that wrote code lines of the target
    history_total: int = 0  # commits touching the target; `history` shows the most useful
    history_more: str = ""  # how to list them all
    memories: list[MemoryRef] = Field(default_factory=_list)  # decisions / pitfalls for the target
    index_notes: list[str] = Field(default_factory=_list)  # as in `SearchResponse`
    # not a field: the shared objects the engine built every field but `LIVE_FIELDS` and the
    # latency from (see `Engine.preflight_checked`); empty for a report built any other way
    _origin: tuple[object, ...] = PrivateAttr(default=())

    # the fields a preflight builds anew on every request
    LIVE_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"invariants", "memories", "index_notes", "firewall"}
    )

    def origin(self) -> tuple[object, ...]:
        return self._origin
