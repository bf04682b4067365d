"""The context firewall on honest text of real repositories: how much of it would it change?

    python -m gitstrata.benchmarks.firewall_real [REPO_OR_BUNDLE ...] [--repos click,ky]
                                                 [--misses] [--json]

The adversarial corpus (`benchmarks/firewall.py`) has benign look-alikes written for it; a real
repository has the text an agent is actually served: every commit message on HEAD's history,
and every paragraph (a run of lines between blank lines) of the files at HEAD, docs and code
alike, which is where comments and docstrings are. None of it is an order to a model, so every
changed text is a false alarm (a repository that plants orders in its own history would be
the exception; none of the shared ones does). Each text passes the function every served
string passes (`serve.firewall.clean`); changed = the result differs from the text by one byte.

`--served N` also measures what a user receives: the repository is indexed (in a temp clone),
then `Strata.preflight` is asked about the N functions touched by the most commits (each with
its newest commit's subject as the intended change) and `Strata.search` is asked N commit
subjects spread over the history; an answer whose JSON holds a firewall marker was changed.

With no repository given it uses `../shared/repos/*.bundle` beside the checkout. A bundle is
cloned into a temp folder; a folder is read where it is (its HEAD), never written (with
`--served`, a folder is cloned too: indexing writes an index).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .real import clone, git, pick_repos, repo_name, shared_bundles

# what a paragraph's file is, by extension; other files (data, lock files, binaries) are skipped
DOCS = frozenset({".md", ".markdown", ".rst", ".txt", ".adoc"})
CODE = frozenset(
    {".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".rs", ".go", ".sh", ".toml",
     ".yml", ".yaml", ".cfg", ".ini"}
)  # fmt: skip
MAX_FILE = 400_000  # bytes; a larger file is generated or vendored text, not what is served
MAX_PARAGRAPH = 8_000  # characters; longer runs are cut where a line ends


def commit_messages(repo: Path) -> list[str]:
    raw = git(repo, "log", "--format=%B%x00", "HEAD")
    return [m.strip("\n") for m in raw.split("\x00") if m.strip()]


def paragraphs(text: str) -> Iterator[str]:
    """Runs of non-blank lines; a run longer than `MAX_PARAGRAPH` in line-aligned pieces."""
    block: list[str] = []
    size = 0
    for line in [*text.split("\n"), ""]:
        if not line.strip() or size + len(line) > MAX_PARAGRAPH:
            if block:
                yield "\n".join(block)
            block, size = [], 0
            if not line.strip():
                continue
        block.append(line)
        size += len(line) + 1


def file_paragraphs(repo: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"docs": [], "code": []}
    for rel in git(repo, "ls-files", "-z").split("\x00"):
        path = repo / rel
        suffix = path.suffix.lower()
        kind = "docs" if suffix in DOCS else "code" if suffix in CODE else None
        if kind is None or not path.is_file() or path.is_symlink():
            continue
        if path.stat().st_size > MAX_FILE:
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        out[kind].extend(p for p in paragraphs(text) if any(c.isalpha() for c in p))
    return out


def measure_texts(texts: dict[str, list[str]], keep: int = 0) -> dict[str, Any]:
    """Per kind: texts, changed, and up to `keep` changed ones as (text, served)."""
    from ..serve.firewall import clean

    result: dict[str, Any] = {}
    for kind, items in texts.items():
        changed = []
        for text in items:
            served = clean(text)
            if served != text:
                changed.append({"text": text, "served": served})
        result[kind] = {"texts": len(items), "changed": len(changed), "examples": changed[:keep]}
    return result


MARKER = "[gitstrata-firewall: removed"


def measure_served(repo: Path, n: int, keep: int = 0) -> dict[str, Any]:
    """Index `repo` and count the answers of `n` preflights and `n` searches that hold a firewall
    marker (the repository's own text, so each is a false alarm as the user receives it)."""
    from ..facade import Strata
    from .serve_latency import hot_targets

    strata = Strata(repo)
    try:
        strata.index()
        targets = hot_targets(strata.index_dir, n)
        subjects = [m.split("\n", 1)[0] for m in commit_messages(repo)]
        step = max(1, len(subjects) // n) if subjects else 1
        queries = subjects[::step][:n]
        answers: list[tuple[str, str]] = []
        for path, symbol, intent in targets:
            report = strata.preflight(path, symbol, intent)
            answers.append((f"preflight {path} {symbol}", report.model_dump_json()))
        for q in queries:
            answers.append((f"search {q}", strata.search(q).model_dump_json()))
    finally:
        strata.close()
    marked = [(what, body) for what, body in answers if MARKER in body]
    return {
        "answers": len(answers),
        "changed": len(marked),
        "examples": [{"asked": what, "served": body[:2000]} for what, body in marked[:keep]],
    }


def measure_repo(source: Path, keep: int = 0, served: int = 0) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="gitstrata-fwreal-") as tmp:
        repo = clone(source, Path(tmp) / "repo") if source.is_file() or served else source
        texts = {"commits": commit_messages(repo), **file_paragraphs(repo)}
        t0 = time.perf_counter()
        kinds = measure_texts(texts, keep)
        seconds = time.perf_counter() - t0
        answers = measure_served(repo, served, keep) if served else None
    total = sum(k["texts"] for k in kinds.values())
    changed = sum(k["changed"] for k in kinds.values())
    out = {
        "repo": repo_name(source),
        "texts": total,
        "changed": changed,
        "kinds": kinds,
        "seconds": round(seconds, 2),
    }
    if answers is not None:
        out["served"] = answers
    return out


def markdown(results: list[dict[str, Any]]) -> str:
    rows = [
        "| repository | commit messages (changed / texts) | docs paragraphs | code paragraphs | "
        "all | changed % |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        k = r["kinds"]
        cells = [f"{k[n]['changed']} / {k[n]['texts']}" for n in ("commits", "docs", "code")]
        pct = 100 * r["changed"] / r["texts"] if r["texts"] else 0.0
        rows.append(
            f"| {r['repo']} | {' | '.join(cells)} | {r['changed']} / {r['texts']} | {pct:.2f} % |"
        )
    total = sum(r["texts"] for r in results)
    changed = sum(r["changed"] for r in results)
    if len(results) > 1 and total:
        rows.append(f"| all | | | | {changed} / {total} | {100 * changed / total:.2f} % |")
    if any("served" in r for r in results):
        rows += ["", "| repository | answers (preflight + search) | answers with a marker |",
                 "| --- | ---: | ---: |"]  # fmt: skip
        for r in results:
            if "served" in r:
                rows.append(
                    f"| {r['repo']} | {r['served']['answers']} | {r['served']['changed']} |"
                )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    prog = "python -m gitstrata.benchmarks.firewall_real"
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", nargs="*", type=Path, help="repositories or git bundles")
    ap.add_argument("--repos", help="only these, by name (comma-separated)")
    ap.add_argument("--misses", action="store_true", help="print every changed text")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument(
        "--served",
        type=int,
        default=0,
        metavar="N",
        help="also index each repository and check N preflight and N search answers",
    )
    args = ap.parse_args(argv)
    if args.served < 0:
        print(f"{prog}: --served must be 0 or more", file=sys.stderr)
        return 2
    sources = args.sources or shared_bundles(prog)
    picked = pick_repos(sources, args.repos, prog)
    if picked is None:
        return 2
    for s in picked:
        if not s.exists():
            print(f"{prog}: {s}: no such repository or bundle", file=sys.stderr)
            return 2
    results = []
    for source in picked:
        try:
            results.append(
                measure_repo(source, keep=10_000 if args.misses else 0, served=args.served)
            )
        except (subprocess.CalledProcessError, RuntimeError) as exc:
            print(f"{prog}: {source}: {exc}", file=sys.stderr)
            return 1
    if args.json:
        json.dump(results, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    print(markdown(results))
    if args.misses:
        for r in results:
            for kind, k in r["kinds"].items():
                for ex in k["examples"]:
                    print(f"\n--- {r['repo']} {kind}\n{ex['text']}\n+++ served\n{ex['served']}")
            for ex in r.get("served", {}).get("examples", []):
                print(f"\n--- {r['repo']} answer to {ex['asked']}\n{ex['served']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
