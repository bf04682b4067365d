"""The streamed log parser: property tests on rendered logs and real repositories' odd cases."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitstrata.stages.patch import (
    LOG_ARGS,
    MARKER,
    CommitPatch,
    FileChange,
    Hunk,
    PatchFormatError,
    hunk_lines,
    iter_commits,
    iter_records,
    parse_record,
    quote_c_style,
)


def git_bytes(repo, *args: str) -> bytes:
    return subprocess.run(
        ["git", *args], cwd=repo.path, check=True, capture_output=True, env=repo.env(0)
    ).stdout


def log(repo, *extra: str, cap: int = 65_536, chunk: int | None = None) -> list[CommitPatch]:
    out = git_bytes(repo, *LOG_ARGS, *extra)
    chunks = [out] if chunk is None else [out[i : i + chunk] for i in range(0, len(out), chunk)]
    return list(iter_commits(chunks, text_cap=cap))


def numstat(repo) -> dict[str, list[tuple[str, str, str]]]:
    """sha -> [(added, removed, path)] from git's own --numstat (the reference counts)."""
    out = git_bytes(
        repo, "log", "--no-merges", "--root", "-M", "--numstat", "-z", "--format=%x01%H"
    )
    result: dict[str, list[tuple[str, str, str]]] = {}
    for rec in out.split(b"\x01")[1:]:
        sha, _, rest = rec.partition(b"\x00")
        rows: list[tuple[str, str, str]] = []
        parts = rest.lstrip(b"\n").split(b"\x00")
        i = 0
        while i < len(parts):
            item = parts[i].lstrip(b"\n")
            if not item:
                i += 1
                continue
            a, r, path = item.split(b"\t", 2)
            if path == b"":  # rename: old and new path follow
                path = parts[i + 2]
                i += 2
            rows.append((a.decode(), r.decode(), path.decode("utf-8", "replace")))
            i += 1
        result[sha.decode()] = rows
    return result


# ---------------------------------------------------------------- real repositories


def test_odd_cases_match_git_numstat(git_repo):
    r = git_repo
    r.commit("base", {"a.py": "one\ntwo\nthree\n", "bin.dat": b"\x00\x01\x02", "keep.txt": "k\n"})
    r.commit("edit, no newline", {"a.py": "one\nTWO\nthree\nfour"})
    r.git("mv", "a.py", "moved.py")
    r.write("moved.py", "one\nTWO\nthree\nfour\nfive\n")
    r.commit("rename and edit")
    r.commit("binary change", {"bin.dat": b"\x00\x09\x08\x07"})
    (r.path / "keep.txt").chmod(0o755)
    r.commit("mode only")
    r.commit("odd names", {"tab\there.txt": "t\n", 'quo"te\\.txt': "q\n", "é ü.txt": "u\n"})
    r.commit("nothing", allow_empty=True)
    r.remove("bin.dat")
    r.commit("delete binary")
    commits = log(r)
    ref = numstat(r)
    assert [c.message.strip() for c in commits] == [
        "delete binary",
        "nothing",
        "odd names",
        "mode only",
        "binary change",
        "rename and edit",
        "edit, no newline",
        "base",
    ]
    for c in commits:
        got = sorted(
            ("-" if f.binary else str(f.added), "-" if f.binary else str(f.removed), f.path)
            for f in c.files
            if not (f.added == f.removed == 0 and not f.binary and f.status in "MR")
        )
        want = sorted(x for x in ref.get(c.sha, []) if x[:2] != ("0", "0"))
        assert got == want, c.message
    by = {c.message.strip(): c for c in commits}
    assert by["nothing"].files == []
    ren = by["rename and edit"].files[0]
    assert (ren.status, ren.old_path, ren.new_path, ren.score is not None) == (
        "R",
        "a.py",
        "moved.py",
        True,
    )
    assert [(h.old_start, h.old_count, h.new_start, h.new_count) for h in ren.hunks] == [
        (4, 1, 4, 2)
    ]
    edit = by["edit, no newline"].files[0]
    assert [(s, n, t) for h in edit.hunks for s, n, t in hunk_lines(h)] == [
        ("-", 2, b"two"),
        ("+", 2, b"TWO"),
        ("+", 4, b"four"),
    ]
    mode = by["mode only"].files[0]
    assert (mode.old_mode, mode.new_mode, mode.hunks, mode.binary) == (
        "100644",
        "100755",
        [],
        False,
    )
    names = sorted(f.path for f in by["odd names"].files)
    assert names == ['quo"te\\.txt', "tab\there.txt", "é ü.txt"]
    delete = by["delete binary"].files[0]
    assert (delete.status, delete.path, delete.new_blob, delete.binary) == (
        "D",
        "bin.dat",
        None,
        True,
    )
    assert len(delete.old_blob or "") == 40


def test_blob_ids_match_diff_tree(git_repo):
    r = git_repo
    r.commit("one", {"x.txt": "1\n", "y.txt": "2\n"})
    r.commit("two", {"x.txt": "1\n1\n"})
    for c in log(r):
        raw = git_bytes(r, "diff-tree", "-r", "--root", "--no-abbrev", "-M", c.sha).decode()
        want = sorted(
            (line.split()[2], line.split()[3], line.split("\t")[-1])
            for line in raw.splitlines()
            if line.startswith(":")
        )
        got = sorted((f.old_blob or "0" * 40, f.new_blob or "0" * 40, f.path) for f in c.files)
        assert got == want


def test_non_utf8_path_and_typechange(git_repo):
    r = git_repo
    r.commit("base", {"t.txt": "x\n"})
    (r.path / "link").symlink_to("t.txt")
    r.write(b"caf\xe9.txt".decode("utf-8", "surrogateescape"), "latin\n")
    r.commit("latin-1 name and symlink")
    (r.path / "link").unlink()
    r.write("link", "now a file\n")
    r.commit("symlink becomes a file")
    commits = {c.message.strip(): c for c in log(r)}
    names = sorted(f.path for f in commits["latin-1 name and symlink"].files)
    assert names == ["caf\ufffd.txt", "link"]
    tc = commits["symlink becomes a file"].files
    assert len(tc) == 1
    assert (tc[0].status, tc[0].old_mode, tc[0].new_mode, tc[0].added, tc[0].removed) == (
        "T",
        "120000",
        "100644",
        1,
        1,
    )


def test_huge_diff_caps_text_not_counts(git_repo):
    r = git_repo
    r.commit("big", {"big.txt": "".join(f"line {i}\n" for i in range(5000))})
    r.commit("every other line", {"big.txt": "".join(f"line {i}\n" for i in range(0, 5000, 2))})
    commits = log(r, cap=200, chunk=997)
    f = commits[0].files[0]
    assert (f.added, f.removed, len(f.hunks), f.truncated) == (0, 2500, 2500, True)
    assert sum(1 for h in f.hunks if h.body is not None) < 30
    assert commits[1].files[0].added == 5000


def test_chunking_does_not_matter(git_repo):
    r = git_repo
    for i in range(6):
        r.commit(f"c{i}\n\nbody {i}", {f"f{i % 3}.txt": f"v{i}\n" * (i + 1)})
    whole = log(r)
    for size in (1, 7, 64, 4096):
        assert log(r, chunk=size) == whole


def test_garbage_is_a_format_error():
    with pytest.raises(PatchFormatError):
        list(iter_records([b"not a log"]))
    with pytest.raises(PatchFormatError):
        parse_record(b"abc\x00def")


# ---------------------------------------------------------------- rendered logs (property)

_names = st.text(
    alphabet=st.characters(blacklist_characters="\x00/", blacklist_categories=("Cs",)),
    min_size=1,
    max_size=12,
)


@st.composite
def file_changes(draw) -> FileChange:
    status = draw(st.sampled_from("AMDR"))
    old = draw(_names)
    new = draw(_names) if status == "R" else old
    hunks: list[Hunk] = []
    old_line = new_line = 1
    for _ in range(draw(st.integers(0, 4))):
        old_line += draw(st.integers(0, 5))
        new_line += draw(st.integers(0, 5))
        oc = 0 if status == "A" else draw(st.integers(0, 3))
        nc = 0 if status == "D" else draw(st.integers(0 if oc else 1, 3))
        if oc == nc == 0:
            continue
        text = st.text(
            alphabet=st.characters(blacklist_characters="\n\r\x00", blacklist_categories=("Cs",)),
            max_size=20,
        )
        body = b"".join(b"-" + draw(text).encode() + b"\n" for _ in range(oc))
        body += b"".join(b"+" + draw(text).encode() + b"\n" for _ in range(nc))
        if draw(st.booleans()) and body:
            body += b"\\ No newline at end of file\n"
        hunks.append(
            Hunk(old_line if oc else old_line - 1, oc, new_line if nc else new_line - 1, nc, body)
        )
        old_line += oc
        new_line += nc
    blob = draw(st.from_regex(r"[1-9a-f][0-9a-f]{38}[1-9a-f]", fullmatch=True))
    return FileChange(
        status=status,
        old_path=None if status == "A" else old,
        new_path=None if status == "D" else new,
        old_mode="000000" if status == "A" else "100644",
        new_mode="000000" if status == "D" else "100644",
        old_blob=None if status == "A" else blob,
        new_blob=None if status == "D" else blob[::-1],
        score=90 if status == "R" else None,
        binary=False,
        hunks=hunks,
        added=sum(h.new_count for h in hunks),
        removed=sum(h.old_count for h in hunks),
    )


def render(c: CommitPatch) -> bytes:
    """A commit as `git log` with LOG_ARGS prints it (raw section, then patch sections)."""
    head = b"\x00".join(
        [
            c.sha.encode(),
            " ".join(c.parents).encode(),
            c.author_name.encode(),
            c.author_email.encode(),
            str(c.author_time).encode(),
            str(c.commit_time).encode(),
            c.message.encode(),
        ]
    )
    out = MARKER + head + b"\x00"
    if not c.files:
        return out + b"\x00"
    out += b"\x00\n"
    z = "0" * 40
    for f in c.files:
        st_ = f"{f.status}{f.score:03d}" if f.score is not None else f.status
        out += f":{f.old_mode} {f.new_mode} {f.old_blob or z} {f.new_blob or z} {st_}\x00".encode()
        out += (f.old_path or f.new_path).encode() + b"\x00"
        if f.status in "RC":
            out += f.new_path.encode() + b"\x00"
    out += b"\x00"
    for f in c.files:
        a = quote_c_style(b"a/" + (f.old_path or f.new_path).encode())
        b = quote_c_style(b"b/" + (f.new_path or f.old_path).encode())
        out += b"diff --git " + a + b" " + b + b"\n"
        if f.status == "R":
            out += b"similarity index 90%\nrename from x\nrename to y\n"
        out += b"index 0000000..1111111\n--- a/x\n+++ b/x\n"
        for h in f.hunks:
            out += f"@@ -{h.old_start},{h.old_count} +{h.new_start},{h.new_count} @@ ctx\n".encode()
            out += h.body or b""
    return out


@st.composite
def commits(draw) -> CommitPatch:
    files = draw(st.lists(file_changes(), max_size=4))
    return CommitPatch(
        sha=draw(st.from_regex(r"[0-9a-f]{40}", fullmatch=True)),
        parents=tuple(draw(st.lists(st.from_regex(r"[0-9a-f]{40}", fullmatch=True), max_size=2))),
        author_name=draw(_names),
        author_email="a@b.c",
        author_time=draw(st.integers(0, 2**32)),
        commit_time=draw(st.integers(0, 2**32)),
        message=draw(
            st.text(
                alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))
            )
        ),
        files=files,
    )


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(commits(), max_size=4), st.integers(1, 50))
def test_render_parse_roundtrip(log_commits, chunk):
    stream = b"".join(render(c) for c in log_commits)
    chunks = [stream[i : i + chunk] for i in range(0, len(stream), chunk)]
    assert list(iter_commits(chunks)) == log_commits


def test_apply_hunks_rebuilds_both_sides(git_repo):
    """Each side of every change is rebuilt from the other side's bytes and the -U0 hunks,
    byte for byte (missing final newlines and CRLF included)."""
    from gitstrata.pipeline.gitio import Git
    from gitstrata.pipeline.history import rev_list, stream_log
    from gitstrata.stages.patch import apply_hunks, iter_commits

    r = git_repo
    r.commit("one", {"a.py": "x = 1\ny = 2\nz = 3\n", "b.txt": "no newline"})
    r.commit("two", {"a.py": "x = 1\nz = 3\nw = 4", "b.txt": "no newline\r\nnow crlf\r\n"})
    r.commit("three", {"a.py": "start\nx = 1\nz = 3\nw = 5\n", "b.txt": ""})
    git = Git(r.path)
    changes = 0
    for c in iter_commits(stream_log(git, rev_list(git, git.require_head()))):
        for fc in c.files:
            old = git.run_bytes("cat-file", "blob", fc.old_blob) if fc.old_blob else b""
            new = git.run_bytes("cat-file", "blob", fc.new_blob) if fc.new_blob else b""
            assert apply_hunks(old, fc.hunks, forward=True) == new
            assert apply_hunks(new, fc.hunks, forward=False) == old
            changes += 1
            if fc.path == "a.py" and fc.removed:
                assert apply_hunks(b"extra\n" + old, fc.hunks, forward=True) is None
    assert changes == 6
