"""Every knob of gitstrata in one typed place, with the defaults.

`Config.load(strata_dir)` reads the optional `config.json` overrides. Unknown keys and bad values
are rejected with one line naming the key (`ConfigError`). Each stage hashes only the section it
reads into its fingerprint, so changing a retrieval weight never re-runs history extraction.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import ConfigError
from .vocabulary import INTENTS, LOAD_BEARING, Intent


class Section(BaseModel):
    # a section's validator is built when a config file is validated, not on import: a served
    # request reads the defaults (`Config.load` without a file), which need no validation
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    @classmethod
    def defaults(cls) -> Self:
        """The section with every default, built without validation (the defaults are valid
        and of their declared types; `tests/test_config_defaults.py` keeps them so)."""
        return cls.model_construct()

    def fingerprint_payload(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class IndexConfig(Section):
    max_commits: int | None = Field(default=None, ge=1)  # None: all of history
    blame: bool = True
    # blame reads who wrote each line from the history's hunks where that is git's answer
    # (`stages/blame.LineHistory`), and runs `git blame` for the other files
    blame_from_history: bool = True
    # blame looks through the commits listed in `.git-blame-ignore-revs` at HEAD (formatting
    # commits); a `blame.ignoreRevsFile` in the repository's git config is git's own and applies
    blame_ignore_revs: bool = True
    keep_generations: int = Field(default=2, ge=1)


class ChunkConfig(Section):
    max_file_bytes: int = Field(default=1_000_000, ge=1)
    vendored: tuple[str, ...] = (
        "vendor/**",
        "**/vendor/**",
        "third_party/**",
        "**/third_party/**",
        "node_modules/**",
        "**/node_modules/**",
        "**/*.min.js",
        "**/*.min.css",
    )
    max_code_chars: int = Field(default=20_000, ge=100)


# section: history


class IntentRule(Section):
    """A team's intent rule, tried before the built-in classification: `intent` when `pattern`
    (a Python regex) is found in the commit message and every changed path matches one of
    `paths` (globs); give either or both."""

    intent: Intent
    pattern: str | None = None
    paths: tuple[str, ...] | None = None

    @field_validator("pattern")
    @classmethod
    def _regex(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                re.compile(v)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from None
        return v

    @model_validator(mode="after")
    def _something(self) -> IntentRule:
        if self.pattern is None and not self.paths:
            raise ValueError("a rule needs a `pattern`, `paths` or both")
        return self


class HistoryConfig(Section):
    """History extraction (`capsule`, `blame`)."""

    bulk_files: int = Field(default=40, ge=1)  # a commit touching more files is "bulk"
    symbol_max_files: int = Field(default=300, ge=0)  # above: file-level touches only
    max_blob_bytes: int = Field(default=1_000_000, ge=1)  # larger versions are not parsed
    patch_text_bytes: int = Field(default=65_536, ge=0)  # hunk text kept per file (counts exact)
    excerpt_chars: int = Field(default=1_500, ge=0)  # commit-level diff excerpt
    symbol_excerpt_chars: int = Field(default=600, ge=0)  # per-touch diff excerpt
    parse_cache: int = Field(default=20_000, ge=16)  # parsed file versions kept (LRU)
    # a range is split over workers only into parts of at least this many commits (a pool's
    # workers are forked from a fork server that imported the parsers once; `Strata.index`
    # starts it first thing in a full index of 2x this many commits, `EARLY_POOL_COMMITS`)
    commits_per_worker: int = Field(default=200, ge=1)
    # an idle worker takes the older half of another's rest when at least this many commits are
    # left there; it is running already, so what a share costs is its cold parse cache
    share_commits: int = Field(default=200, ge=1)
    intent_rules: tuple[IntentRule, ...] = ()  # tried in order before the built-in classifier

    # how the work is split between workers, which never changes a table: not part of the
    # stages' fingerprints, so tuning it does not make the next run extract the history again
    SCHEDULING: ClassVar[frozenset[str]] = frozenset({"commits_per_worker", "share_commits"})

    def fingerprint_payload(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude=set(self.SCHEDULING))


class GraphConfig(Section):
    """Co-change graph (`cochange`)."""

    half_life_days: float = Field(default=365.0, gt=0)  # W, the seed's coupling strength
    # the served partner ranking (`rank_score`): a co-commit's weight halves every
    # `rank_half_life_days` and is divided by (its files - 1) ** `rank_commit_size_power`;
    # both chosen on real histories' temporal hold-out
    rank_half_life_days: float = Field(default=730.0, gt=0)
    rank_commit_size_power: float = Field(default=0.25, ge=0, le=4)
    min_support: int = Field(default=2, ge=1)  # symbol pairs and the search graph's edges
    file_min_support: int = Field(default=1, ge=1)  # file pairs; 1: weak partners are served
    module_symbols: bool = False  # count `<module>` remainders as symbol-level nodes
    max_symbols_per_commit: int = Field(default=100, ge=2)  # larger commits skip symbol pairs
    max_edges_per_node: int = Field(default=64, ge=1)  # strongest out-edges kept in `graph`


# section: retrieval


class EmbeddingConfig(Section):
    """The offline embedder and the vector store (stage `embed`)."""

    # hashing-lsa: fitted on the corpus; wordllama: the pretrained model its wheel ships;
    # hashing-lsa+wordllama: both, cosines fused by `wordllama_weight`; onnx: `onnx_model`
    backend: Literal["hashing-lsa", "wordllama", "hashing-lsa+wordllama", "onnx"] = "hashing-lsa"
    # hashing-LSA's components kept; at least `mrl_dim`. The served prefix alone by default: a
    # wider fit changed no dev answer (0.7547 against 0.7545 nDCG@5 at 384) and cost a third
    # more of the index's largest file
    full_dim: int = Field(default=256, ge=8, le=4096)
    # the served Matryoshka prefix (of each part, for the fused backend); the 1-bit codes are
    # 256 hyperplanes whatever the width
    mrl_dim: int = Field(default=256, ge=8, le=4096)
    # also keep every document's whole vector in float16 (`vectors_f32`, `full_dim` wide), for
    # exact float baselines (`query --mode dense|hybrid`, `retrieval.exact_vectors`); without
    # it those read the served int8 vectors, and the index is 8-15 % smaller
    float_vectors: bool = False
    wordllama_weight: float = Field(default=0.5, ge=0.0, le=1.0)  # its share of the fused cosine
    wordllama_max_tokens: int = Field(default=512, ge=8, le=65_536)  # a text's tokens pooled
    # folder with model.onnx + tokenizer.json or vocab.txt; a relative one is in the repository
    onnx_model: str | None = None
    onnx_max_tokens: int = Field(default=256, ge=8, le=8192)
    seed: int = Field(default=1_234_567, ge=0)
    refit_fraction: float = Field(default=0.30, gt=0.0, le=1.0)
    char_ngrams: bool = True  # character 3-grams of each word, for typo tolerance
    ngram_weight: float = Field(default=0.3, ge=0.0, le=1.0)
    n_features: int = Field(default=1 << 18, ge=1 << 10, le=1 << 24)  # hashed space size
    max_vocab: int = Field(default=65_536, ge=256)  # features kept at fit, most frequent first
    oversample: int = Field(default=16, ge=0)
    power_iters: int = Field(default=4, ge=0, le=20)

    @model_validator(mode="after")
    def _consistent(self) -> EmbeddingConfig:
        if self.backend == "onnx" and not self.onnx_model:
            raise ValueError("backend 'onnx' needs `onnx_model`: a folder holding model.onnx")
        if self.backend.startswith("hashing-lsa") and self.mrl_dim > self.full_dim:
            raise ValueError(
                f"mrl_dim ({self.mrl_dim}) is wider than full_dim ({self.full_dim}): the served "
                "prefix is part of the components kept; raise full_dim or lower mrl_dim"
            )
        return self


# section: graveyard


class GraveyardConfig(Section):
    """Failed attempts: capture bounds and the matching rule (structural anchor + textual)."""

    semantic_threshold: float = Field(default=0.40, ge=0.0)
    context_weight: float = Field(default=0.30, ge=0.0)  # targets a retrieved top-k symbol
    context_top: int = Field(default=3, ge=1)  # "retrieved" means within this rank
    textual_weight: float = Field(default=0.60, ge=0.0)
    same_symbol: float = Field(default=0.75, ge=0.0)
    same_file: float = Field(default=0.5, ge=0.0)
    sibling_weight: float = Field(default=0.25, ge=0.0)  # another function of the target file
    commit_gating: bool = True
    commit_gate: float = Field(default=0.9, ge=0.0, le=1.0)  # x the best score in the top k
    gate_code_hits: int = Field(default=5, ge=1)
    bulk_symbols: int = Field(default=8, ge=1)  # a commit touching more symbols is bulk
    commit_trigger_rank1: bool = True
    commit_trigger_score: float = Field(default=0.8, ge=0.0)  # relative to the best result (1.0)
    trigger_weight: float = Field(default=0.40, ge=0.0)
    # a warning needs evidence that the attempt resembles the change (0..1; see serve/graveyard.py)
    min_evidence: float = Field(default=0.15, gt=0.0, le=1.0)  # failures recorded by agents
    search_min_evidence: float = Field(default=0.25, gt=0.0, le=1.0)  # the same, in a search
    revert_min_evidence: float = Field(default=0.6, gt=0.0, le=1.0)  # reverted commits
    named_symbol_evidence: float = Field(default=0.1, ge=0.0, le=1.0)  # intent names its symbol
    # a search's words that name the attempt's place: x its cosine taken off the resemblance
    location_discount: float = Field(default=0.5, ge=0.0, le=1.0)
    # a fix vouches for the attempt that undoes it when its message covers this much of the query
    trigger_min_evidence: float = Field(default=0.3, ge=0.0, le=1.0)
    max_warnings: int = Field(default=3, ge=1)  # per answer, strongest first
    max_past_attempts: int = Field(default=5, ge=0)  # reverted / failed attempts listed as history
    reapplied_share: float = Field(default=0.5, gt=0.0, le=1.0)  # of a revert's lines back at HEAD
    # by default the commits whose lines are load-bearing trigger a warning
    trigger_intents: tuple[str, ...] = tuple(i for i in INTENTS if i in LOAD_BEARING)
    max_diff_bytes: int = Field(default=32_768, ge=256)  # stored diff excerpt
    max_trace_bytes: int = Field(default=16_384, ge=256)  # stored error output (its tail)
    capture_tail_bytes: int = Field(default=262_144, ge=1024)  # per stream, kept by `exec`


class FirewallConfig(Section):
    """The filter on every string served: invisible Unicode, injections, perplexity."""

    perplexity: bool = True
    calibration: float = Field(default=1.5, gt=0.0)  # threshold = this x the percentile
    percentile: float = Field(default=99.5, gt=0.0, le=100.0)
    min_corpus_chars: int = Field(default=20_000, ge=1_000)  # below: perplexity stays off
    window: int = Field(default=64, ge=8, le=1024)  # characters per scored window
    buckets: int = Field(default=1 << 18, ge=1 << 10, le=1 << 24)  # hashed trigram space
    max_corpus_chars: int = Field(default=8_000_000, ge=1_000)  # training text kept
    # a long-running server passes the strings its answers serve through the firewall in the
    # background once warm (`serve/prescrub.py`): a question not asked before then finds most
    # of them passed, for the memory their digests take (20-40 MB on a 2,000-commit history)
    run_ahead: bool = True

    # read only by a serving process: no stage's fingerprint holds it
    SERVING: ClassVar[frozenset[str]] = frozenset({"run_ahead"})

    def fingerprint_payload(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude=set(self.SERVING))


class RedactionConfig(Section):
    """Secret redaction at index time (`store/redact.py`): a team's own patterns on top of the
    built-in detectors. `allow`: a detected secret in which one of these regexes is found is
    kept (documentation examples, test fixtures); `deny`: text these regexes match is always
    redacted (kind `custom`; a group named `secret` limits the replacement to that group)."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    @field_validator("allow", "deny")
    @classmethod
    def _regexes(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(v) > MAX_REDACTION_PATTERNS:
            raise ValueError(f"at most {MAX_REDACTION_PATTERNS} patterns")
        for pattern in v:
            if len(pattern) > MAX_REDACTION_PATTERN_CHARS:
                raise ValueError(f"a pattern of over {MAX_REDACTION_PATTERN_CHARS} characters")
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from None
            if compiled.fullmatch(""):
                raise ValueError(f"{pattern!r} matches the empty text")
        return v


MAX_REDACTION_PATTERNS = 200
MAX_REDACTION_PATTERN_CHARS = 1_000


def _key(part: Any) -> str:
    text = str(part)
    return text if text.isprintable() and text and " " not in text else repr(text)[:60]


CONFIG_MAX_BYTES = 1 << 20  # a config of every key with its default is ~6 KB

# commit capsules allowed in the first results, per query class (the router's classes)
COMMIT_SLOTS = {
    "causal": 3,
    "behavioral": 2,
    "symptom": 2,
    "coupled": 0,
    "change": 1,
    "exact": 2,
    "general": 2,
}


class RetrievalConfig(Section):
    """Search and preflight (read side): fusion, reranking, slots, rendering."""

    rrf_k: int = Field(default=60, ge=1)
    w_bm25: float = Field(default=1.0, ge=0)
    w_vec: float = Field(default=1.0, ge=0)
    w_graph: float = Field(default=1.0, ge=0)
    adaptive_routing: bool = True
    recency_alpha: float = Field(default=0.25, ge=0)
    recency_half_life_days: float = Field(default=120.0, gt=0)
    stage1_candidates: int = Field(default=400, ge=10)
    path_depth: int = Field(default=50, ge=5)  # candidates each path contributes to fusion
    rerank_top_n: int = Field(default=30, ge=0)
    reranker: bool = True
    graph_path: bool = True
    graph_decay: float = Field(
        default=0.5, ge=0
    )  # delta in a(v) = delta * sum a(s) W(s, v) gamma^[import]
    import_discount: float = Field(default=0.5, ge=0, le=1)  # gamma
    anchor_penalty: float = Field(
        default=0.6, ge=0, le=1
    )  # coupled route: the named file steps back
    time_decay: bool = True
    baseline_blend: bool = True  # fuse a plain path's order into the route's (serve/search.py)
    commit_slots: dict[str, int] = Field(default_factory=lambda: dict(COMMIT_SLOTS))

    @field_validator("commit_slots")
    @classmethod
    def _known_classes(cls, value: dict[str, int]) -> dict[str, int]:
        unknown = sorted(set(value) - set(COMMIT_SLOTS))
        if unknown:
            raise ValueError(
                f"unknown query class {unknown[0]!r} (classes: {', '.join(COMMIT_SLOTS)})"
            )
        negative = [k for k, v in value.items() if v < 0]
        if negative:
            raise ValueError(f"{negative[0]}: a count of commit slots, 0 or more")
        return value

    slot_window: int = Field(default=5, ge=1)
    slot_budget: bool = True
    pin_position: int = Field(default=1, ge=1)
    pin_classes: tuple[str, ...] = ("behavioral", "exact", "change")
    pinning: bool = True
    attach_commits: int = Field(default=3, ge=0)
    exact_vectors: bool = False  # float32 brute force instead of 1-bit + int8 (ablation)
    token_budget: int = Field(default=2000, ge=200)
    history_limit: int = Field(default=8, ge=1)  # causal history entries shown (of all)
    history_recent: int = Field(default=2, ge=0)  # of those, always the newest
    reason_chars: int = Field(default=200, ge=0)  # commit body (the "why") shown per commit
    # a fix's lines are shown as load-bearing when they reach either threshold
    load_bearing_min_lines: int = Field(default=5, ge=1)
    load_bearing_min_share: float = Field(default=0.05, ge=0.0, le=1.0)
    load_bearing_limit: int = Field(default=5, ge=0)  # fix commits listed per target
    coupling_limit: int = Field(default=10, ge=0)
    related_limit: int = Field(default=5, ge=0)


class Config(Section):
    index: IndexConfig = Field(default_factory=IndexConfig.defaults)
    chunk: ChunkConfig = Field(default_factory=ChunkConfig.defaults)
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig.defaults)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig.defaults)
    # section: config-fields
    graveyard: GraveyardConfig = Field(default_factory=GraveyardConfig.defaults)
    firewall: FirewallConfig = Field(default_factory=FirewallConfig.defaults)
    history: HistoryConfig = Field(default_factory=HistoryConfig.defaults)
    graph: GraphConfig = Field(default_factory=GraphConfig.defaults)
    redaction: RedactionConfig = Field(default_factory=RedactionConfig.defaults)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "config") -> Config:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            # keys come from the file: one that is not a plain word is shown quoted, so the
            # message stays one line
            where = ".".join(_key(p) for p in err["loc"]) or "(root)"
            msg = " ".join(str(err["msg"]).removeprefix("Value error, ").split())
            raise ConfigError(
                f"{source}: {where}: {msg}",
                hint="fix or remove that key; `gitstrata config --defaults` lists every key",
            ) from None

    @classmethod
    def load(cls, strata_dir: Path | None) -> Config:
        if strata_dir is None:
            return cls.defaults()
        path = Path(strata_dir) / "config.json"
        if not path.exists():
            return cls.defaults()
        try:
            if path.stat().st_size > CONFIG_MAX_BYTES:
                raise ConfigError(f"{path.name}: over {CONFIG_MAX_BYTES} bytes, not a config file")
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"{path.name}: not valid JSON ({exc})") from None
        except RecursionError:
            raise ConfigError(f"{path.name}: nested too deeply to be a config file") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path.name}: the top level must be an object")
        return cls.from_dict(data, source=path.name)

    def section(self, name: str) -> Section:
        return getattr(self, name)
