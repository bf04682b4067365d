"""Words the artifacts are written in, read by both sides: commit intents, invariant severities,
class-like symbol kinds.

The pipeline writes them into the tables (`commits.intent`, `blame.load_bearing`,
`symbols.kind`) and the invariants file; the read side ranks, filters and validates by them. A
word added or renamed here changes what old artifacts mean, so both sides must see one
definition.
"""

from __future__ import annotations

from typing import Literal, get_args

# commit intents, in the order the classifier's precedence and the reports list them
Intent = Literal[
    "bugfix", "security", "revert", "perf", "feature", "refactor", "docs", "test", "build", "chore"
]
INTENTS: tuple[str, ...] = get_args(Intent)
# intents whose lines are load-bearing: removing them may reopen what the commit fixed
LOAD_BEARING = frozenset({"bugfix", "security", "revert"})

# an invariant's severity, most severe first (the order rules are listed in)
Severity = Literal["critical", "high", "medium", "low"]
SEVERITIES: tuple[str, ...] = get_args(Severity)


def tagged(intent: str | None, subject: str) -> str:
    """A commit's subject after its intent, `[bugfix] Fix ...`; the subject alone when it
    starts with that tag already (authors who tag their own subjects: `[docs] Note ...`)."""
    tag = f"[{intent}]"
    return subject if subject[: len(tag)].lower() == tag.lower() else f"{tag} {subject}"


# symbol kinds whose functions are methods and whose bodies hold other symbols
CLASS_LIKE = frozenset({"class", "interface", "struct", "enum", "trait", "impl"})

# the tag of the memory the index draws from git history naming the most-changed code files: a
# fact about the whole repository, which a context pack shows and a search does not
HOTSPOT_TAG = "hotspot"
