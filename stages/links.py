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

import numpy as np
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
    paths, names, qualnames = cols["path"], cols["name"], cols["qualname"]
    source = {p: file_kind(p) == "source" for p in set(paths)}
    by_name: dict[str, list[int]] = defaultdict(list)
    by_file: dict[str, dict[str, list[int]]] = defaultdict(dict)  # path -> name -> rows
    for i in rows:
        by_name[names[i]].append(i)
        by_file[paths[i]].setdefault(names[i], []).append(i)
    # a name of one symbol of the repository says which symbol is meant from any file
    only = {word: found[0] for word, found in by_name.items() if len(found) == 1}

    # a code file's remainder (its top-level code: a test file's `describe` blocks, a script)
    # calls what it names, and is named by nothing; prose and data files call nothing
    modules = [i for i in range(n) if qualnames[i] == MODULE_SYMBOL and cols["language"][i] in CODE]
    known = set(by_name)  # a word no symbol is named is most of a code's words: set them aside
    callers: list[int] = []  # the pairs (caller, callee), each once
    callees: list[int] = []
    for a in rows + modules:
        code = cols["code"][a]
        if not code:
            continue
        path, name, qualname = paths[a], names[a], qualnames[a]
        product, in_file = source[path], by_file.get(path, {})
        named: set[int] = set()
        for word in known.intersection(_IDENTIFIER.findall(code)):
            if word == name:
                continue
            targets = in_file.get(word)
            if targets is None:
                b = only.get(word)
                if b is None or (product and not source[paths[b]]):
                    continue  # product code calls no test or example
                targets = [b]
            for b in targets:
                if b != a and _reaches(scope[b], path, qualname, paths[b]):
                    named.add(b)
        callers += [a] * len(named)
        callees += named
    return recount(_assemble(cols, callers, callees), touches)


def _assemble(cols: dict[str, list], callers: list[int], callees: list[int]) -> pa.Table:
    """The `symbol_links` rows of the (caller, callee) row pairs: each pair from both ends,
    at most `MAX_LINKS` per symbol and kind (own file first, then by path and qualname,
    remainders last), sorted by (src, kind, dst); `dst_commits` left 0 for `recount`."""
    ids, paths, qualnames = cols["symbol_id"], cols["path"], cols["qualname"]
    n = len(ids)
    order = np.empty(n, np.int64)  # each row's place in (remainder last, path, qualname) order
    ranked = sorted(range(n), key=lambda r: (qualnames[r] == MODULE_SYMBOL, paths[r], qualnames[r]))
    order[ranked] = np.arange(n)
    by_id = np.empty(n, np.int64)  # each row's place in symbol_id order
    by_id[sorted(range(n), key=ids.__getitem__)] = np.arange(n)
    path_no = np.unique(np.array(paths, dtype=object), return_inverse=True)[1]
    a, b = np.array(callers, np.int64), np.array(callees, np.int64)
    src, dst = np.concatenate([b, a]), np.concatenate([a, b])
    # `called_by` sorts before `calls`: 0 and 1
    kind = np.concatenate([np.zeros(len(b), np.int64), np.ones(len(a), np.int64)])
    elsewhere = path_no[dst] != path_no[src]
    # within each (src, kind): own file first, then (remainder last, path, qualname); one
    # integer key per link (every pair is once, so no two keys are equal)
    rank = np.argsort(((src * 2 + kind) * 2 + elsewhere) * n + order[dst])
    src, dst, kind = src[rank], dst[rank], kind[rank]
    group = np.flatnonzero(np.r_[True, (src[1:] != src[:-1]) | (kind[1:] != kind[:-1])])
    sizes = np.diff(np.r_[group, len(src)])
    place = np.arange(len(src)) - np.repeat(group, sizes)
    kept = place < MAX_LINKS
    src, dst, kind = src[kept], dst[kept], kind[kept]
    final = np.argsort((by_id[src] * 2 + kind) * n + by_id[dst])
    src, dst, kind = pa.array(src[final]), pa.array(dst[final]), kind[final]
    id_array = pa.array(ids, pa.string())
    return pa.table(
        {
            "src": id_array.take(src),
            "dst": id_array.take(dst),
            "kind": pa.array(np.array([CALLED_BY, CALLS], dtype=object)[kind], pa.string()),
            "dst_path": pa.array(paths, pa.string()).take(dst),
            "dst_qualname": pa.array(qualnames, pa.string()).take(dst),
            "dst_commits": pa.array(np.zeros(len(final), np.int32)),
        },
        schema=schemas.SYMBOL_LINKS,
    )


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
    pairs = touches.select(["symbol_id", "sha"]).filter(pc.is_valid(touches["symbol_id"]))
    counts = pairs.group_by("symbol_id").aggregate([("sha", "count_distinct")])
    found = pc.index_in(table["dst"], value_set=counts["symbol_id"])
    commits = pc.take(counts["sha_count_distinct"], found).fill_null(0).cast(pa.int32())
    i = table.schema.get_field_index("dst_commits")
    return table.set_column(i, table.schema.field(i), commits)
