"""Language detection from a repository path, and the language families the chunkers use.

Invariants:
- `detect_language` looks only at the path (never at content), so it is deterministic and cheap.
- Every language it returns belongs to exactly one family below: tree-sitter (`TREE_SITTER`,
  with the structural chunker as fallback), brace languages handled by the structural chunker
  only (`BRACE_ONLY`), or text / data languages without symbols (`TEXT`). Python is in
  `TREE_SITTER` too but parses with `ast` first.
"""

from __future__ import annotations

import posixpath

TREE_SITTER = frozenset(
    {
        "python",
        "javascript",
        "typescript",
        "tsx",
        "go",
        "rust",
        "java",
        "c",
        "cpp",
        "csharp",
        "ruby",
    }
)
BRACE_ONLY = frozenset({"kotlin", "swift", "php", "scala"})
TEXT = frozenset(
    {
        "yaml",
        "json",
        "toml",
        "sql",
        "html",
        "css",
        "markdown",
        "shell",
        "dockerfile",
        "nginx",
        "make",
    }
)
# languages with a symbol chunker (everything that is neither text nor unknown)
CODE = TREE_SITTER | BRACE_ONLY

_EXTENSIONS = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".cs": "csharp",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".php": "php",
    ".scala": "scala",
    ".sc": "scala",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".json": "json",
    ".jsonc": "json",
    ".toml": "toml",
    ".sql": "sql",
    ".html": "html",
    ".htm": "html",
    ".css": "css",
    ".scss": "css",
    ".less": "css",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".ksh": "shell",
    ".dockerfile": "dockerfile",
    ".nginx": "nginx",
    ".mk": "make",
    ".mak": "make",
}

_NAMES = {
    "dockerfile": "dockerfile",
    "containerfile": "dockerfile",
    "makefile": "make",
    "gnumakefile": "make",
    "nginx.conf": "nginx",
    "rakefile": "ruby",
    "gemfile": "ruby",
    ".bashrc": "shell",
    ".profile": "shell",
    ".zshrc": "shell",
}


def detect_language(path: str) -> str | None:
    """The language of a repository path (POSIX or Windows separators), or None if unknown."""
    norm = path.replace("\\", "/")
    base = posixpath.basename(norm)
    lower = base.lower()
    if lower in _NAMES:
        return _NAMES[lower]
    if lower.startswith(("dockerfile.", "containerfile.")):
        return "dockerfile"
    parts = norm.lower().split("/")
    if any(p in ("sites-available", "sites-enabled") for p in parts[:-1]):
        return "nginx"
    if lower.endswith(".conf") and "nginx" in parts[:-1]:
        return "nginx"
    _, ext = posixpath.splitext(lower)
    return _EXTENSIONS.get(ext)
