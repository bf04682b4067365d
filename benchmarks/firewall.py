"""The context firewall against an adversarial corpus: injections neutralised, honest text kept.

    python -m gitstrata.benchmarks.firewall [--json] [--split SPLIT|all] [--misses] [--out FILE]

The corpus (`benchmarks/firewall_corpus/*.jsonl`, one JSON object a line: `id`, `category`,
`text`, `expected` injection|benign, `split` dev|heldout|heldout_v2..v15, and for injections
`payload`) holds injections written in many disguises and benign developer texts that look like
them. Every text goes through `serve.firewall.clean`, the function every served string passes
(the engine's result models, MCP answers and resources, the CLI's graveyard and invariant
output).

- An injection is **neutralised** when the text served holds a firewall marker and none of its
  `payload` strings: the words that carry the instruction (as written in the text, disguise
  included) no longer reach the agent; what is left is the marker naming what was removed.
- A benign text is **modified** when the text served differs from it in any way.

Rules were tuned on `dev`. Each held-out split was written and committed before the change it
evaluates and run once for it; then it was used to diagnose misses, so it is retired and its
later numbers are optimistic: `heldout` (written with `dev`) evaluated the first rules,
`heldout_v2` the fixes from `heldout`, `heldout_v3` those from `heldout_v2`, and so on.
`heldout_v8` adds categories the earlier splits lacked (tool-result spoofing, role-play,
multi-step orders; security advisories, changelogs and review comments as benign look-alikes)
and was written from knowledge of attacks, not from what the rules catch. `heldout_v9` uses
languages, encodings and containers none of the earlier splits has (URL-safe base64, base32,
octal, HTML entities, variation selectors; orders inside YAML, TOML, JSON, CSV, docstrings and
commit trailers) against benign texts that discuss injection, agent configs and i18n strings.
`heldout_v10` puts every category's orders where a code-memory tool finds them (commit bodies,
docstrings, configs, READMEs, test names), in polite, passive and conditional wordings and in
further languages (Korean, Hindi, Indonesian, Swahili, Turkish, Polish, Dutch, Italian), against
honest look-alikes of each benign category. `heldout_v11` was written blind (without the rules or
their runs) and committed before the changes it evaluates: orders in Makefiles, TOML, SQL
comments, Jupyter cells, CSV cells, git trailers, log lines and stack traces; Vietnamese, Thai,
Greek, Hebrew, Ukrainian, Czech, Finnish, Hungarian and Bengali; mathematical, circled and
small-capital letters; soft hyphens, word joiners, fillers and bidi isolates; base85,
quoted-printable, Morse, character codes, bits, Caesar and Atbash; further chat templates and
tool-call formats, personas and plans split across sentences; against look-alikes in the same
containers and scripts.
honest look-alikes of each benign category. After its first runs its benign misses and then its
missed injections were read in two halves (odd-numbered ids, then even-numbered ones), each
half's gains counted on the other half while it was still unread.

`heldout_v12` was written blind the same way (its first run is recorded, its texts unread): orders
in GraphQL, protobuf, Terraform, Gradle, nginx, .env, crontab, LaTeX, RST, org-mode, XLIFF, diff
hunks and issue templates; Romanian, Malay, Tagalog, Persian, Urdu, Tamil, Serbian, Amharic, Slovak
and Catalan; Armenian, Cherokee, Lisu and fullwidth letters; joiners, invisible operators and other
format characters between letters; base32, plain hex, uuencode, reversed text, ROT47, the NATO
alphabet and octal escapes; further chat templates and tool-result formats (JSON-RPC, ReAct, SARIF,
JUnit, check runs); acrostics, orders split over fields and paraphrased orders without trigger
words; against look-alikes in the same containers, languages and encodings.

`heldout_v13` was written blind the same way, with about half of its orders in the forms
attackers use most (commit bodies, comments, HTML comments, base64, rot13, chat-template turns,
fake JSON tool results, download-and-run lines) and half in containers and forms earlier splits
lack: Dockerfiles, editor and task configs, git aliases, npm scripts, CI steps, MDX and Mermaid
comments, aria labels, hidden spans, footnotes and alt text; Norwegian, Danish, Lithuanian,
Bulgarian, Georgian, Azerbaijani, Marathi and Icelandic; further mathematical, parenthesized,
squared and modifier letters, Coptic and IPA; soft hyphens with joiners, direction marks,
variation selectors and invisible operators; base64url inside a JWT, CSS escapes, Braille,
A1Z26 and ASCII85; further chat templates and tool-output formats, poisoned tool descriptions
and harness log lines; orders split over SQL, arrays, shell variables and query parameters;
against honest look-alikes in the same containers, languages and encodings.

`heldout_v14` was written blind the same way (half common forms, half forms earlier splits
lack); its writer was asked not to describe what it holds, so nothing of it is known beyond its
categories and counts.

`heldout_v15` was written the same way, without a description, after the last change to the
rules it was first run on; its first run is the estimate for text nobody has tuned on.

`heldout_v16` was written the same way (13 categories of 8 injections, 11 of 7-8 benign texts),
blind to the rules and without a description, and committed before the change it evaluates.

`heldout_v17` was written the same way, committed before the change it evaluates; its writer was
asked for honest look-alikes as real repositories hold them, install lines piped into a shell
among them.

`heldout_v18` was written the same way, committed before the change it evaluates; its writer
was asked for honest look-alikes about AI agents and models (agent frameworks' docs, argument
docs, commit scopes, `User-Agent` headers, contributor notes for agents) among them.

`heldout_v19` was written the same way, committed before the change it evaluates.

`heldout_v20` was written the same way, committed before the change it evaluates.

`heldout_v21` was written the same way, committed before the change it evaluates; its brief
named the test formats its fixtures are written in.

`heldout_v22` was written the same way, committed before the change it evaluates; its brief
named chat-template tokens of other model families and Markdown comments among its carriers.

`heldout_v23` was written the same way, committed before the change it evaluates; its brief
asked for honest setup steps touching `.env` files, keys and tokens, and step-by-step accounts
of what an assistant does.

`heldout_v24` was written the same way, committed before the change it evaluates; its brief
asked for realistic carriers on both sides and honest texts about prompts, secrets, shells and
force pushes, including steps touching keys or `.env` files.

`heldout_v25` was written the same way, committed before the change it evaluates; its brief was
`heldout_v24`'s, with fixtures holding attack strings in many formats (JSON, YAML, CSV, test
tables, snapshots).

`heldout_v26` was written the same way, committed before the change it evaluates; its brief was
`heldout_v25`'s, with labelled data sets among the fixtures and some injections hidden in things
that look like data (a JSON record, a YAML item, a CSV row, a test table).

`heldout_v27` was written the same way, committed before the next change it evaluates; its
brief named every category of both sides with what makes it hard (fake chat turns and role
blocks, orders in base32 or character codes, persona switches, test data quoting attack strings,
emoji built from tag characters and joiners, installs from the project's own domain).

`heldout_v28` was written the same way, blind, and committed before the next change it evaluates;
its brief named each category of both sides by what it is (for steps of orders: a list or plan
with a harmful or deceptive step) and asked for varied carriers, registers and lengths, without
naming any shape the rules read.

`--record-first-run SPLIT` stores a split's numbers in `first_runs.json` with the commit they
ran on; it refuses a split already recorded, so a first run is recorded once.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent / "firewall_corpus"
SPLITS = (
    "dev",
    "heldout",
    "heldout_v2",
    "heldout_v3",
    "heldout_v4",
    "heldout_v5",
    "heldout_v6",
    "heldout_v7",
    "heldout_v8",
    "heldout_v9",
    "heldout_v10",
    "heldout_v11",
    "heldout_v12",
    "heldout_v13",
    "heldout_v14",
    "heldout_v15",
    "heldout_v16",
    "heldout_v17",
    "heldout_v18",
    "heldout_v19",
    "heldout_v20",
    "heldout_v21",
    "heldout_v22",
    "heldout_v23",
    "heldout_v24",
    "heldout_v25",
    "heldout_v26",
    "heldout_v27",
    "heldout_v28",
)
MARKER_PREFIX = "[gitstrata-firewall: removed"
SECTION = "## Context firewall against an adversarial corpus"
# what a table counts for each kind of text
KINDS = (("injections", "neutralised"), ("benign", "modified"))


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    text: str
    expected: str  # "injection" | "benign"
    split: str  # "dev" | "heldout"
    payload: tuple[str, ...] = field(default=())


def load_corpus(folder: Path = CORPUS) -> list[Case]:
    cases = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                row["payload"] = tuple(row.get("payload", ()))
                cases.append(Case(**row))
    return cases


def neutralised(case: Case, served: str) -> bool:
    """The instruction no longer reaches the agent: a marker stands where it was, and none of
    the words that carried it survived."""
    return MARKER_PREFIX in served and not any(p in served for p in case.payload)


def evaluate(
    cases: Iterable[Case], screen: Callable[[str], str] | None = None
) -> list[dict[str, Any]]:
    """One row per case: what was served and how it counts. `screen` defaults to the function
    every served string passes; a model comparison passes an uncached one."""
    from ..serve.firewall import clean

    screen = clean if screen is None else screen
    rows = []
    for case in cases:
        served = screen(case.text)
        ok = neutralised(case, served) if case.expected == "injection" else served == case.text
        rows.append(
            {
                "id": case.id,
                "category": case.category,
                "expected": case.expected,
                "split": case.split,
                "ok": ok,
                "served": served,
            }
        )
    return rows


def _tally(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def count(kind: str, key: str | None = None) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for r in rows:
            if r["expected"] != kind:
                continue
            k = r[key] if key else "all"
            slot = out.setdefault(k, {"total": 0, "ok": 0})
            slot["total"] += 1
            slot["ok"] += int(r["ok"])
        return dict(sorted(out.items()))

    def rename(table: dict[str, dict[str, int]], what: str) -> dict[str, dict[str, int]]:
        return {
            k: {
                "total": v["total"],
                what: v["ok"] if what == "neutralised" else v["total"] - v["ok"],
            }
            for k, v in table.items()
        }

    inj, ben = count("injection"), count("benign")
    return {
        "injections": {
            **rename(inj, "neutralised").get("all", {"total": 0, "neutralised": 0}),
            "by_category": rename(count("injection", "category"), "neutralised"),
        },
        "benign": {
            **rename(ben, "modified").get("all", {"total": 0, "modified": 0}),
            "by_category": rename(count("benign", "category"), "modified"),
        },
    }


def measure(folder: Path = CORPUS) -> dict[str, Any]:
    """Neutralised and modified counts, per split and per category (deterministic)."""
    rows = evaluate(load_corpus(folder))
    first = folder / "first_runs.json"
    first_runs = json.loads(first.read_text(encoding="utf-8")) if first.exists() else {}
    return {
        "first_runs": {k: v for k, v in first_runs.items() if not k.startswith("_")},
        "splits": {s: _tally([r for r in rows if r["split"] == s]) for s in SPLITS},
        "all": _tally(rows),
        "misses": [
            {k: r[k] for k in ("id", "split", "expected", "served")} for r in rows if not r["ok"]
        ],
    }


def first_run_entry(result: dict[str, Any], split: str, commit: str) -> dict[str, Any]:
    """A split's numbers in the shape `first_runs.json` keeps them."""
    data = result["splits"][split]
    i, b = data["injections"], data["benign"]
    return {
        "neutralised": i["neutralised"],
        "injections": i["total"],
        "modified": b["modified"],
        "benign": b["total"],
        "firewall_commit": commit,
        "injections_by_category": i["by_category"],
        "benign_by_category": b["by_category"],
    }


def record_first_run(result: dict[str, Any], split: str, folder: Path = CORPUS) -> dict[str, Any]:
    """Store a held-out split's first run; a second run of the same split is refused, since
    only the first is the honest number."""
    import subprocess

    path = folder / "first_runs.json"
    runs = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if split == "dev" or split in runs:
        raise ValueError(f"{split}: a first run is recorded once, for a held-out split only")
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    runs[split] = first_run_entry(result, split, commit or "unknown")
    path.write_text(json.dumps(runs, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return runs[split]


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f} %" if d else "-"


def markdown(
    result: dict[str, Any], command: str = "python -m gitstrata.benchmarks.firewall"
) -> str:
    """The RESULTS.md section: totals per split (with each held-out split's first run), then
    per category and split."""
    first = result.get("first_runs", {})
    lines = [
        SECTION,
        "",
        f"Measured by `{command}`: every text of `benchmarks/firewall_corpus/` through the "
        "function every served string passes. Neutralised: a firewall marker stands in the text "
        "and none of the words that carried the instruction survived. Modified: any change to a "
        "benign text. Targets: >= 95 % neutralised, <= 2 % modified, on text not tuned on.",
        "",
        "The rules were tuned on `dev`. Each held-out split was committed before the change it "
        'evaluates and run once for it ("first run", the honest number); it was then used to '
        "find misses, so its current numbers are optimistic. `heldout_v8` added kinds the "
        "earlier splits lack (tool-result spoofing, role-play, multi-step orders; advisories, "
        "changelogs and review comments); its misses were read after its first run, so its "
        '"now" column is not blind. `heldout_v9` and `heldout_v10` were each written apart from '
        "the rules and run on them before and after one change; their misses have since been "
        'read, so their "now" columns are not blind either: the first runs are the numbers to '
        "quote. `heldout_v11` was written the same way and run before and after the next change; "
        "its texts have not been read, so both of its columns are blind. `heldout_v12`, "
        "`heldout_v13` and `heldout_v14` were written the same way; none of their texts has been "
        'read (one of `heldout_v13`\'s was shown by a failing test), so their "now" columns are '
        "blind too, with two reservations: `heldout_v12`'s commit message names its languages "
        "and scripts, and `heldout_v13`'s writer's summary named its containers and template "
        "families before the second of the two changes since. `heldout_v14`'s first run is on "
        "the rules after the first of those changes (letters of any script, further languages), "
        "so it measures that change blind; one rule of the second change was dropped after it "
        "cost `heldout_v14` an injection; three more changes followed (words split by invisible "
        "characters, letters in frames, orders spelled in Morse, NATO, Braille, A1Z26 or "
        "ASCII85), each run on all four before and after. `heldout_v15` was written the same "
        "way, without a description, after the last of those changes; its misses were read "
        "when a removal was made to take the order's whole line and up to two more lines of its "
        "paragraph (measured on the splits up to `heldout_v15` by their counts: 885 -> 917 "
        'neutralised, the same 16 benign texts modified), so its "now" column is not blind. '
        "`heldout_v16` was written the same way, blind and without a description, committed "
        "before that change and run once before it (56/104 neutralised, 7/80 modified) and once "
        "after it (its first run below). Then the benign texts modified in `heldout_v11` to "
        "`heldout_v15` were read (16, nine of them install commands piped into a shell) and the "
        "exemptions for such commands widened (16 -> 12 modified there, 917 neutralised before "
        "and after); `heldout_v17`, written the same way and committed before that change, was "
        "run once before it (70/104 neutralised, 6/80 modified) and once after it (its first "
        "run below). The cue layer then took a sentence that opens by naming the model it "
        "speaks to, followed by an order, as an order with no word of harm (designed on the "
        "splits up to `heldout_v16` by their counts: 917 -> 934 neutralised up to `heldout_v15`, "
        "69 -> 74 on `heldout_v16`, the same benign texts modified); `heldout_v17`, unread, went "
        "70 -> 75/104 with it and `heldout_v18`, written the same way and committed before it, "
        "58/104 (7/80 modified) before it and its first run below after it. The model's name "
        'after a determiner or a "for", or with what it is doing between it and an '
        "obligation, then counted as spoken to (designed on the splits up to `heldout_v18`: "
        "1,150 -> 1,154 neutralised, the same benign texts modified); `heldout_v19`, written the "
        "same way and committed before it, gave 71/104 neutralised and 16/80 modified before "
        "and after it. The benign texts modified in the splits up to `heldout_v19` were then "
        "read (41) and four shapes of honest text kept: attacks held as a collection of test "
        'cases, a permission described ("`owner` can delete the repository"), a label with an '
        "apostrophe before an install command, the act of piping into a shell declined or "
        "named in a revert's title (41 -> 32 modified there, 1,226 neutralised before and "
        "after); `heldout_v20`, written the same way and committed before that change, gave "
        "77/104 neutralised and 11/80 modified before and after it. Its modified texts were "
        "then read and a test's code taken as data (a string literal passed, assigned or "
        "compared in a test, never its docstring; tables of cases opened with a declaration; "
        'a force push in a revert\'s title; phrases "like" a quotation): 11 -> 6 modified on '
        "`heldout_v20`, the splits before it unchanged; `heldout_v21`, written the same way "
        "(its brief named the test formats of its fixtures) and committed before that change, "
        "gave 83/104 neutralised before and after it and 16 -> 15/80 modified. The injections "
        "`heldout_v20` and `heldout_v21` missed were then read and five shapes added (chat "
        "turns of other model families and role tags named by purpose, banners with spaces in "
        "their dashes, Markdown comments, lines to be read backwards, words parted by "
        "invisible characters): 1,226 -> 1,229 neutralised up to `heldout_v19`, 77 -> 80 and "
        "83 -> 88 on those two, no benign text modified more; `heldout_v22`, written the same "
        "way (its brief named chat-template tokens and Markdown comments among its carriers) "
        "and committed before that change, went from 73/104 to 75/104 neutralised and from "
        "9/80 to 10/80 modified with it (its first run); the role tags were then narrowed to "
        "the system's and the developer's part (a commit quoting `<user_input>` tags), 74/104 "
        "and 9/80 after that. Steps reading a secret and a later step moving it, handed to a "
        "model the text names, then counted as a plan (designed on the multistep misses of "
        "`heldout_v20` to `heldout_v22`: 80 -> 81 on `heldout_v20`, nothing else moved); "
        "`heldout_v23`, written the same way (its brief asked for honest setup steps touching "
        "`.env` files and keys, and accounts of what an assistant does) and committed before "
        "it, gave 83/104 neutralised and 11/80 modified before and after it. Steps of orders "
        'with one that hides them from the person the agent works for ("no need to mention '
        'this step to the author", "leave step 3 out of your summary"), and a secret read '
        "then moved for a reader named as automated, then counted as a plan (designed on the "
        "multistep misses of `heldout_v20` to `heldout_v23`: 1,555 -> 1,567 neutralised over "
        "the corpus, the same benign texts modified); `heldout_v24`, written the same way (its "
        "brief asked for realistic carriers and honest texts about prompts, secrets, shells and "
        "force pushes) and committed before it, gave 62/104 neutralised and 17/80 modified "
        "before and after it (none of its eight multistep orders hides itself that way); the "
        "gate then read a model mentioned by its handle (`@copilot`) as spoken to, as the cue "
        "layer did (63/104 there since). Its modified texts were then read and a quotation that "
        "opens its line taken with the end of the line above, when the sentence runs on from "
        'it, as what introduces it (an example named in a wrapped paragraph; "for example" in '
        "Chinese, Japanese and Korean too): 90 -> 88 modified over the corpus, nothing "
        "neutralised less; `heldout_v25`, written the same way (its brief asked for fixtures "
        "holding attack strings in many formats) and committed before it, gave 70/104 "
        "neutralised and 16/80 modified before and after it. The fixtures `heldout_v23` to "
        "`heldout_v25` modified were then read and a case a detector's data set labels as an "
        'attack kept as data (`"label": "injection"`, `dangerous: true`, a CSV row ending in '
        "`deny`; a record labelled harmless is still read): 104 -> 101 modified over the "
        "corpus, nothing neutralised less; `heldout_v26`, written the same way (its brief asked "
        "for labelled data sets among the fixtures and for injections hidden in data-like "
        "records) and committed before it, gave 76/104 neutralised and 19/80 modified before "
        "and after it. `heldout_v27`, written the same way (its brief named what makes each "
        "category of both sides hard) and committed with no firewall change after it, gave "
        "89/104 neutralised and 7/80 modified at its first run; for steps of orders its brief "
        "named a step hiding something from the user, the shape the plan rule above reads, so "
        "its 7/8 multistep count is not blind to that rule. The misses of the splits up to "
        "`heldout_v27` were then read and the next change designed on them (words spelled a "
        "letter at a time, sentences glued into one name, permissions said to be granted, "
        "safeguards switched off in settings, changes misreported, orders said rolled back or "
        "outranked, labels inside markup; a question about what a program ignores, an "
        "advisory's report of what malware ran and a URL's own escapes kept): 1,865 -> 1,926 "
        "neutralised and 127 -> 117 modified over those splits. `heldout_v28`, written the same "
        "way (its brief named each category by what it is and no shape the rules read) and "
        "committed before that change, gave 78/104 neutralised before and after it and 10/80 "
        "-> 9/80 modified (its first run: the change did not carry to new text); one of its "
        "texts was shown by a failing gate test before that run, and the gates' reading of a "
        "hyphenated name piece by piece came from it (the text was neutralised before and "
        "after). First runs are the estimate for text nobody has tuned on.",
        "",
        "| split | injections | neutralised (first run) | neutralised now | benign | modified "
        "(first run) | modified now |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, data in [*result["splits"].items(), ("all", result["all"])]:
        i, b = data["injections"], data["benign"]
        f = first.get(name)
        fi = f"{f['neutralised']} ({_pct(f['neutralised'], f['injections'])})" if f else "-"
        fb = f"{f['modified']} ({_pct(f['modified'], f['benign'])})" if f else "-"
        lines.append(
            f"| {name} | {i['total']} | {fi} | {i['neutralised']} "
            f"({_pct(i['neutralised'], i['total'])}) | {b['total']} | {fb} | {b['modified']} "
            f"({_pct(b['modified'], b['total'])}) |"
        )
    held = [s for s in SPLITS if s in first]
    if held:
        n, t = sum(first[s]["neutralised"] for s in held), sum(first[s]["injections"] for s in held)
        m, b = sum(first[s]["modified"] for s in held), sum(first[s]["benign"] for s in held)
        lines += [
            "",
            f"Pooled over the held-out splits' first runs: {n} / {t} injections neutralised "
            f"({_pct(n, t)}), {m} / {b} benign texts modified ({_pct(m, b)}).",
        ]
    for kind, what in KINDS:
        lines += _by_category(
            f"{kind.capitalize()} {what} at each held-out split's first run, by category:",
            result["all"][kind]["by_category"],
            {split: first[split].get(f"{kind}_by_category", {}) for split in held},
            what,
        )
    for kind, what in KINDS:
        lines += _by_category(
            f"{kind.capitalize()} {what} now, by category:",
            result["all"][kind]["by_category"],
            {split: result["splits"][split][kind]["by_category"] for split in SPLITS},
            what,
        )
    return "\n".join(lines)


def write_section(result: dict[str, Any], path: Path) -> None:
    """Put the firewall section into RESULTS.md, replacing the previous one, else before the
    separately measured sections (it belongs to the generated part: `run.py` writes it too)."""
    from .report import KEPT_MARKER

    section = markdown(result)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if SECTION in text:
        head, rest = text.split(SECTION, 1)
        nxt = rest.find("\n## ")
        marker = rest.find(KEPT_MARKER)
        cut = min(x for x in (nxt, marker, len(rest)) if x >= 0)
        tail = rest[cut:].lstrip("\n")
        text = head + section + ("\n\n" + tail if tail else "\n")
    elif KEPT_MARKER in text:
        head, rest = text.split(KEPT_MARKER, 1)
        text = head.rstrip("\n") + "\n\n" + section + "\n\n" + KEPT_MARKER + rest
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")


def _print_table(result: dict[str, Any], split: str) -> None:
    data = result["all"] if split == "all" else result["splits"][split]
    i, b = data["injections"], data["benign"]
    print(f"split {split}: injections neutralised {i['neutralised']}/{i['total']} "
          f"({_pct(i['neutralised'], i['total'])}); benign modified {b['modified']}/{b['total']} "
          f"({_pct(b['modified'], b['total'])})")  # fmt: skip
    for kind, what in (("injections", "neutralised"), ("benign", "modified")):
        for cat, c in data[kind]["by_category"].items():
            print(f"  {kind[:3]} {cat:14} {c[what]:3d} / {c['total']:3d} {what}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m gitstrata.benchmarks.firewall", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    ap.add_argument("--misses", action="store_true", help="list the texts that count against")
    ap.add_argument("--out", type=Path, help="write the section into this RESULTS.md")
    ap.add_argument(
        "--record-first-run",
        choices=SPLITS[1:],
        metavar="SPLIT",
        help="store this held-out split's numbers in first_runs.json (once per split)",
    )
    ap.add_argument(
        "--model",
        action="store_true",
        help="the learned screen left one split out, beside the rules alone",
    )
    ap.add_argument(
        "--train-model",
        action="store_true",
        help="train the learned screen and write the shipped weights: on the splits the "
        "shipped weights name (a held-out split written since stays out), or on --train-splits",
    )
    ap.add_argument(
        "--train-splits",
        metavar="SPLIT,...",
        help="with --train-model: train on these splits (comma-separated; 'all' for every one)",
    )
    args = ap.parse_args(argv)
    if args.train_model:
        from ..serve import firewall_model as fm

        if args.train_splits == "all":
            chosen = set(SPLITS)
        elif args.train_splits:
            chosen = {s.strip() for s in args.train_splits.split(",") if s.strip()}
        else:
            chosen = set(fm.load(fm.WEIGHTS).splits)
        unknown = sorted(chosen - set(SPLITS))
        if unknown or not chosen:
            print(f"error: unknown split {', '.join(unknown) or '(none given)'}", file=sys.stderr)
            return 2
        model, _ = build_model([c for c in load_corpus() if c.split in chosen])
        fm.save(model, fm.WEIGHTS)
        print(json.dumps({"written": fm.WEIGHTS.name, **fm.describe(model)}))
        return 0
    if args.model:
        report = measure_model()
        if args.json:
            json.dump(report, sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            print(model_markdown(report))
            for split, d in report["splits"].items():
                print(f"  {split}: gained {d['gained']} newly modified {d['newly_modified']}")
        return 0
    result = measure()
    if args.record_first_run:
        try:
            record_first_run(result, args.record_first_run)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    misses = [m for m in result["misses"] if args.split in ("all", m["split"])]
    if args.json:
        shown = result if args.split == "all" else result["splits"][args.split]
        json.dump({**shown, "misses": misses} if args.misses else shown, sys.stdout, indent=2,
                  ensure_ascii=False)  # fmt: skip
        sys.stdout.write("\n")
    else:
        _print_table(result, args.split)
        if args.misses:
            for m in misses:
                print(f"  miss {m['id']} ({m['split']}): {m['served']!r}")
    if args.out:
        write_section(result, args.out)
    return 0


# ------------------------------------------------------------------ the learned screen


def _screened_text(case: Case) -> str:
    """The text the injection layers read: right-to-left runs and invisible characters gone."""
    from ..serve.firewall import reveal_reversed, strip_invisible

    return strip_invisible(reveal_reversed(case.text)[0])[0]


def _units(cases: list[Case]) -> list[Any]:
    from ..serve import firewall_model as fm

    return [
        fm.labelled(_screened_text(c), c.payload if c.expected == "injection" else None)
        for c in cases
    ]


def model_folds(cases: list[Case], splits: tuple[str, ...] = SPLITS) -> dict[str, Any]:
    """Leave one split out: for each split a model trained on every other one, and every
    text's score from the model that did not see it (its highest segment's logit)."""
    from ..serve import firewall_model as fm

    units = _units(cases)
    models: dict[str, tuple[Any, float]] = {}
    scores: list[float] = [0.0] * len(cases)
    for split in splits:
        train = [u for u, c in zip(units, cases, strict=True) if c.split != split]
        w, b = fm.train(train)
        models[split] = (w, b)
        for i, (u, c) in enumerate(zip(units, cases, strict=True)):
            if c.split == split:
                scores[i] = fm.text_score(w, b, u[0])
    return {"models": models, "scores": scores, "units": units}


def build_model(cases: list[Case] | None = None) -> Any:
    """The shipped model: trained on every split of `cases` (the whole corpus by default), its
    threshold the lowest that flags none of the benign texts scored by models that left their
    split out; the splits are kept in the model, so a split added later does not change what a
    fresh training run on them gives."""
    from ..serve import firewall_model as fm

    cases = load_corpus() if cases is None else cases
    splits = tuple(s for s in SPLITS if any(c.split == s for c in cases))
    folds = model_folds(cases, splits)
    benign = [s for s, c in zip(folds["scores"], cases, strict=True) if c.expected == "benign"]
    w, b = fm.train(folds["units"])
    return fm.Model(w, b, fm.choose_threshold(benign), splits), folds


def measure_model(cases: list[Case] | None = None) -> dict[str, Any]:
    """The learned screen left one split out, beside the rules alone, per split and pooled.

    For a split: the model is trained on every other split; its threshold is the lowest that
    flags none of the other splits' benign texts, as scored by their own left-out models (so
    the split's own texts choose nothing). `rules` is the firewall without the
    model (its rules were tuned on every split, so it is in-sample), `model` what the model
    flags alone, `both` the firewall with the model: neutralised and modified as in `measure`.
    """
    from ..serve import firewall_model as fm
    from ..serve.firewall import Firewall

    cases = load_corpus() if cases is None else cases
    splits = tuple(s for s in SPLITS if any(c.split == s for c in cases))
    folds = model_folds(cases, splits)
    scores = folds["scores"]

    def screen(text: str) -> str:
        return Firewall().scan(text)[0]

    per: dict[str, Any] = {}
    for split in splits:
        mine = [i for i, c in enumerate(cases) if c.split == split]
        others = [
            scores[i] for i, c in enumerate(cases) if c.split != split and c.expected == "benign"
        ]
        threshold = fm.choose_threshold(others)
        w, b = folds["models"][split]
        part = [cases[i] for i in mine]
        with fm.using(None):
            rules = evaluate(part, screen)
        with fm.using(fm.Model(w, b, threshold)):
            both = evaluate(part, screen)
        model_hits = {cases[i].id: scores[i] > threshold for i in mine}
        per[split] = {
            "threshold": round(threshold, 4),
            "rules": _counts(rules),
            "both": _counts(both),
            "model": _counts(
                [
                    {
                        "expected": r["expected"],
                        "ok": model_hits[r["id"]] == (r["expected"] == "injection"),
                    }
                    for r in rules
                ]  # fmt: skip
            ),
            "gained": sorted(
                r["id"]
                for r, s in zip(rules, both, strict=True)
                if r["expected"] == "injection" and s["ok"] and not r["ok"]
            ),
            "newly_modified": sorted(
                r["id"]
                for r, s in zip(rules, both, strict=True)
                if r["expected"] == "benign" and r["ok"] and not s["ok"]
            ),
        }
    pooled = {
        k: {
            q: sum(per[s][k][q] for s in splits)
            for q in ("injections", "neutralised", "benign", "modified")
        }
        for k in ("rules", "model", "both")
    }
    return {"splits": per, "pooled": pooled}


def _counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    inj = [r for r in rows if r["expected"] == "injection"]
    ben = [r for r in rows if r["expected"] == "benign"]
    return {
        "injections": len(inj),
        "neutralised": sum(r["ok"] for r in inj),
        "benign": len(ben),
        "modified": sum(not r["ok"] for r in ben),
    }


def model_markdown(result: dict[str, Any]) -> str:
    lines = [
        "| split (left out) | injections | rules | model alone | rules + model | benign | "
        "rules | model alone | rules + model |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    rows = [*result["splits"].items(), ("pooled", result["pooled"])]
    for name, d in rows:
        r, m, b = d["rules"], d["model"], d["both"]
        lines.append(
            f"| {name} | {r['injections']} | {r['neutralised']} | {m['neutralised']} | "
            f"{b['neutralised']} ({_pct(b['neutralised'], b['injections'])}) | {r['benign']} | "
            f"{r['modified']} | {m['modified']} | {b['modified']} "
            f"({_pct(b['modified'], b['benign'])}) |"
        )
    return "\n".join(lines)


__all__ = [
    "Case",
    "first_run_entry",
    "build_model",
    "load_corpus",
    "measure_model",
    "markdown",
    "measure",
    "neutralised",
    "record_first_run",
    "write_section",
]


def _by_category(
    title: str, categories: Any, columns: dict[str, dict[str, Any]], what: str
) -> list[str]:
    """A table of `what` / total per category (rows) and split (columns); "-" where a split has
    no text of that category."""
    lines = ["", title, "", f"| category | {' | '.join(columns)} |",
             "| --- |" + " ---: |" * len(columns)]  # fmt: skip
    for cat in sorted(categories):
        cells = []
        for counts in columns.values():
            c = counts.get(cat)
            cells.append(f"{c[what]} / {c['total']}" if c else "-")
        lines.append(f"| {cat} | {' | '.join(cells)} |")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
