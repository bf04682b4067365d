"""The options that make git print what it prints by default, whatever a repository's, a
user's or a CI image's configuration says.

gitstrata reads the output of `git log -p`, `git diff-tree -p`, `git blame` and `git diff`.
Settings such as `diff.algorithm`, `diff.interHunkContext`, `diff.renameLimit`, `diff.orderFile`
(git stops on one it cannot read), `diff.submodule` or a user's own attributes file (`* -diff`)
change that output, so the same repository gave another index on another machine, and blame
read from the history's hunks was no longer `git blame`'s, which diffs with Myers and the indent
heuristic whatever `diff.algorithm` says. Every such command names these instead (the
repository's own `.gitattributes` still applies)."""

from __future__ import annotations

# configuration for every command whose output is read: a user's own attributes file left out
CONFIG: tuple[str, ...] = ("-c", "core.attributesFile=/dev/null")

# a diff's options on the command line (`log -p`, `diff-tree -p`, `diff`, `--raw`, `--name-status`)
DIFF: tuple[str, ...] = (
    "--diff-algorithm=myers",
    "--indent-heuristic",
    "--inter-hunk-context=0",
    "-l1000",  # the rename limit (`diff.renameLimit`): pairs of files compared for renames
    "-O/dev/null",  # no `diff.orderFile`
    "--submodule=short",  # a submodule's change as its two commits (`diff.submodule`)
    "--ignore-submodules=none",  # and always shown (`diff.ignoreSubmodules`)
)

# the same choices as configuration, for a command that reads them only from there (`blame`)
BLAME: tuple[str, ...] = (
    *CONFIG,
    "-c",
    "diff.algorithm=myers",
    "-c",
    "diff.indentHeuristic=true",
    "-c",
    "diff.interHunkContext=0",
)
