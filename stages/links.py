"""The `links` stage: which symbols of HEAD name each other in their code.

A change to a function often has to reach the code that calls it and the code it calls, whether
or not the two ever changed together before. On the real histories of the benchmark (the later
fifth of each history asked of an index of the earlier four fifths), the symbols changed in the
same commit as a given one were its co-change partners in about a fifth of cases, and a caller or
a callee by name in about a third. Preflight lists these links after the co-change partners.

Pure: `symbols` and `touches` in, `symbol_links` out. Invariants:

- A symbol `a` *names* a symbol `b` when `b`'s name is one of the identifiers of `a`'s code
  (comments and strings included, nested symbols' code included: a class names what its
  methods name; a private member's `#` is part of its name; no parse, every language alike).
- A link needs the name to say which `b` is meant: `b` is in `a`'s file, or no other symbol of
  the repository has that name and, when `a` is product code (`filekind.kind` "source"), `b`
  is product code too: product code calls no test, example or build script, so such a name is
  a word that happens to match ("create file stream" in a comment). A symbol declared inside
  a function or method (a closure, a local helper) is named only by code of that function:
  `this.app` in one file does not name the local `app` of `createApplication` in another.
  Names shorter than `MIN_NAME` characters and a symbol's own name make no link. A code file's
  remainder (`<module>`: its top-level code, a test file's `describe` blocks) names what its
  code names, and is named by nothing (the word `<module>` is no name); a prose or data file
  (README, YAML) names nothing.
- A link is stored from both ends: (`src` names `dst`, kind `calls`) and (`dst` is named by
  `src`, kind `called_by`), sorted by (src, kind, dst). Each symbol keeps at most `MAX_LINKS`
  links of each kind, those in its own file first, then by path and qualname, file remainders
  after the symbols (so a link cut at one end may be kept at the other).
- `dst_commits` is the number of indexed commits that touched `dst` (0 for code the history
  never changed): preflight lists a symbol's links the most changed first.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict

import pyarrow as pa
import pyarrow.compute as pc

from ..store import schemas
from ..store.filekind import kind as file_kind
from ..store.ids import MODULE_SYMBOL
from .chunking import CODE

# the columns of `symbols` links are made from (and `symbols_key` digests)
_INPUTS = ("symbol_id", "path", "qualname", "name", "kind", "parent", "language", "code")
LOCAL_PARENTS = ("function", "method")  # what a symbol declared inside is local to
MIN_NAME = 3  # `fn`, `cb`, `id` name too many things to say which one is meant
MAX_LINKS = 40  # per symbol and kind: a dispatcher naming every handler stays bounded
# an identifier, with the `#` of a JavaScript / TypeScript private member (`this.#retry()` names
# the method `#retry`, not a function `retry`)
_IDENTIFIER = re.compile(r"#?[A-Za-z_$][A-Za-z0-9_$]*")

CALLS = "calls"  # src's code names dst
CALLED_BY = "called_by"  # dst's code names src


def commit_counts(touches: pa.Table) -> dict[str, int]:
    """symbol_id -> the number of commits that touched it."""
    pairs = touches.select(["symbol_id", "sha"]).filter(pc.is_valid(touches["symbol_id"]))
    counts = pairs.group_by("symbol_id").aggregate([("sha", "count_distinct")])
    return dict(
        zip(
            counts["symbol_id"].to_pylist(),
            counts["sha_count_distinct"].to_pylist(),
            strict=True,
        )
    )


def build(symbols: pa.Table, touches: pa.Table) -> pa.Table:
    """`symbol_links` of HEAD's `symbols`, with each end's commits from `touches` (see the
    module doc)."""
    cols = symbols.select(list(_INPUTS)).to_pydict()
    n = len(cols["symbol_id"])
    rows = [
        i
        for i in range(n)
        if cols["qualname"][i] != MODULE_SYMBOL and len(cols["name"][i]) >= MIN_NAME
    ]
    scope = _local_scopes(cols)
    by_name: dict[str, list[int]] = defaultdict(list)
    by_file_name: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i in rows:
        by_name[cols["name"][i]].append(i)
        by_file_name[(cols["path"][i], cols["name"][i])].append(i)

    # a code file's remainder (its top-level code: a test file's `describe` blocks, a script)
    # calls what it names, and is named by nothing; prose and data files call nothing
    modules = [
        i for i in range(n) if cols["qualname"][i] == MODULE_SYMBOL and cols["language"][i] in CODE
    ]
    known = set(by_name)  # a word no symbol is named is most of a code's words: set them aside
    calls: dict[int, set[int]] = defaultdict(set)
    for a in rows + modules:
        code = cols["code"][a]
        if not code:
            continue
        path, name = cols["path"][a], cols["name"][a]
        product = file_kind(path) == "source"
        for word in known.intersection(_IDENTIFIER.findall(code)):
            if word == name:
                continue
            same_file = by_file_name.get((path, word))
            if same_file:
                targets = same_file
            else:
                everywhere = by_name.get(word)
                if everywhere is None or len(everywhere) != 1:
                    continue
                if product and file_kind(cols["path"][everywhere[0]]) != "source":
                    continue  # product code calls no test or example
                targets = everywhere
            for b in targets:
                if b != a and _reaches(scope[b], path, cols["qualname"][a], cols["path"][b]):
                    calls[a].add(b)

    called_by: dict[int, set[int]] = defaultdict(set)
    for a, bs in calls.items():
        for b in bs:
            called_by[b].add(a)

    ids, paths, qualnames = cols["symbol_id"], cols["path"], cols["qualname"]
    order = [0] * n  # each row's place in (remainder last, path, qualname) order
    ranked = sorted(range(n), key=lambda r: (qualnames[r] == MODULE_SYMBOL, paths[r], qualnames[r]))
    for i, row in enumerate(ranked):
        order[row] = i
    src_col: list[str] = []
    dst_col: list[int] = []
    kind_col: list[str] = []
    for src in sorted(set(calls) | set(called_by), key=ids.__getitem__):
        for kind, table in ((CALLED_BY, called_by), (CALLS, calls)):
            dsts: set[int] | list[int] = table.get(src, set())
            if len(dsts) > MAX_LINKS:  # own file first, then by path and qualname, remainders last
                home = paths[src]
                mine = [d for d in dsts if paths[d] == home]
                kept = sorted(mine, key=order.__getitem__)[:MAX_LINKS]
                if len(kept) < MAX_LINKS:
                    others = [d for d in dsts if paths[d] != home]
                    kept += sorted(others, key=order.__getitem__)[: MAX_LINKS - len(kept)]
                dsts = kept
            for dst in sorted(dsts, key=ids.__getitem__):
                src_col.append(ids[src])
                dst_col.append(dst)
                kind_col.append(kind)
    out = {
        "src": src_col,
        "dst": [ids[d] for d in dst_col],
        "kind": kind_col,
        "dst_path": [paths[d] for d in dst_col],
        "dst_qualname": [qualnames[d] for d in dst_col],
        "dst_commits": [0] * len(dst_col),
    }
    return recount(pa.Table.from_pydict(out, schema=schemas.SYMBOL_LINKS), touches)


def _local_scopes(cols: dict[str, list]) -> list[str | None]:
    """Per row, the qualname of the function or method it is declared in (a closure, a local
    helper, a callback), else None: no code outside that function can name it."""
    kinds = dict(zip(zip(cols["path"], cols["qualname"], strict=True), cols["kind"], strict=True))
    return [
        parent if parent and kinds.get((path, parent)) in LOCAL_PARENTS else None
        for path, parent in zip(cols["path"], cols["parent"], strict=True)
    ]


def _reaches(scope: str | None, src_path: str, src_qualname: str, dst_path: str) -> bool:
    """Whether code at `src_qualname` of `src_path` can name a symbol of `dst_path` declared
    in function `scope` (None: declared where any code can name it)."""
    if scope is None:
        return True
    return src_path == dst_path and (src_qualname == scope or src_qualname.startswith(scope + "."))


def symbols_key(symbols: pa.Table) -> str:
    """A digest of what links are made from (each symbol's `_INPUTS`): equal keys, equal
    links, whatever the history."""
    h = hashlib.blake2b(digest_size=16)
    cols = symbols.select(list(_INPUTS)).to_pydict()
    qualname, language = _INPUTS.index("qualname"), _INPUTS.index("language")
    for row in zip(*cols.values(), strict=True):
        if row[qualname] == MODULE_SYMBOL and row[language] not in CODE:
            continue  # a prose or data file's text makes no link
        h.update("\0".join(str(v or "") for v in row).encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


def recount(table: pa.Table, touches: pa.Table) -> pa.Table:
    """`table` (links built earlier from the same symbols) with `dst_commits` counted again
    from `touches`: after a new commit only the counts can differ."""
    commits = commit_counts(touches)
    counts = pa.array([commits.get(d, 0) for d in table["dst"].to_pylist()], pa.int32())
    i = table.schema.get_field_index("dst_commits")
    return table.set_column(i, table.schema.field(i), counts)
