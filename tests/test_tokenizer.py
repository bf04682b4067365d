"""The code-aware tokenizer: exact outputs on known shapes, and properties over generated input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitstrata.store.tokenizer import STOPWORDS, query_terms, split_identifier, tokenize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("charge_with_retry", ["charge_with_retry", "charge", "with", "retry"]),
        ("TTLCache.set", ["ttlcache.set", "ttlcache", "ttl", "cache", "set"]),
        (
            "ERR_PAYMENT_DUPLICATE",
            ["err_payment_duplicate", "err", "payment", "duplicate"],
        ),
        ("E4012", ["e4012", "4012"]),
        ("INC-2407 and #123", ["inc-2407", "inc", "2407", "#123"]),
        ("reverts 9ca5becbbbf19ff9", ["reverts", "9ca5becbbbf19ff9"]),
        (
            "see src/pay/charge.py.",
            ["see", "src/pay/charge.py", "src", "pay", "charge.py", "charge", "py"],
        ),
        ("raise ValueError", ["raise", "valueerror", "value", "error"]),
        (
            "parseJSON HTTPServer2Go",
            ["parsejson", "parse", "json", "httpserver2go", "http", "server", "go"],
        ),
        ("Why does the cache expire?", ["cache", "expire"]),
        ("Bump sphinx from 3.4.3 to v3.5.1.", ["bump", "sphinx", "3.4.3", "3.5.1"]),
        ("timeout = 0.5; python3.11", ["timeout", "python3", "python", "11"]),
        ("1.2.3-beta on 127.0.0.1", ["1.2.3", "beta", "127.0.0.1"]),
        ("__init__", ["__init__", "init"]),
        ("naïveCafé", ["naïvecafé", "naïve", "café"]),
        ("", []),
    ],
)
def test_known_shapes(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_query_terms_are_distinct_in_order() -> None:
    assert query_terms("retry charge_with_retry retry") == [
        "retry",
        "charge_with_retry",
        "charge",
        "with",
    ]


def test_split_identifier_examples() -> None:
    assert split_identifier("TTLCache") == ["TTL", "Cache"]
    assert split_identifier("get_HTTPResponse2") == ["get", "HTTP", "Response", "2"]
    assert split_identifier("ÉTATCivil_x9") == ["ÉTAT", "Civil", "x", "9"]


ascii_ident = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,30}\Z")
any_ident = st.text(
    alphabet=st.characters(categories=("Lu", "Ll", "Lo", "Nd"), include_characters="_"),
    min_size=1,
    max_size=20,
)


@given(ascii_ident)
def test_split_round_trips_ascii(ident: str) -> None:
    assert "".join(split_identifier(ident)) == ident.replace("_", "")


@given(any_ident)
def test_split_round_trips_unicode(ident: str) -> None:
    assert "".join(split_identifier(ident)) == ident.replace("_", "")


# an identifier with structure (an underscore or a case change), so it is split
compound = st.builds(
    lambda a, b, sep: f"{a}{sep}{b.capitalize() if sep == '' else b}",
    st.from_regex(r"\A[a-z][a-z0-9]{1,8}\Z"),
    st.from_regex(r"\A[a-z][a-z]{1,8}\Z"),
    st.sampled_from(["", "_"]),
)


@given(compound, st.sampled_from(["{}", "call {}()", "the {} failed", "x = {}.y"]))
def test_identifier_kept_whole_and_split(ident: str, template: str) -> None:
    toks = tokenize(template.format(ident))
    assert ident.lower() in toks
    for part in split_identifier(ident):
        if len(part) >= 2:
            assert part.lower() in toks


codes = st.one_of(
    st.from_regex(r"\AERR(_[A-Z]{2,8}){1,3}\Z"),
    st.from_regex(r"\AE[0-9]{3,5}\Z"),
    st.from_regex(r"\A[A-Z]{2,5}-[0-9]{1,6}\Z"),
    st.from_regex(r"\A#[0-9]{1,6}\Z"),
    st.from_regex(r"\A[0-9a-f]{6}[0-9][a-f][0-9a-f]{0,30}\Z"),
    st.from_regex(r"\A[A-Z][a-z]{2,8}(Error|Exception)\Z"),
)


@given(codes, st.sampled_from(["{}", "failed with {} again", "({})", "see {}."]))
def test_codes_kept_whole(code: str, template: str) -> None:
    assert code.lower() in tokenize(template.format(code))


@given(st.text(max_size=200))
def test_deterministic_and_lowercase_ascii(text: str) -> None:
    first = tokenize(text)
    assert first == tokenize(text)
    for tok in first:
        assert 2 <= len(tok) <= 128
        if tok.isascii():
            assert tok == tok.lower()


@given(st.sampled_from(sorted(STOPWORDS)))
def test_stopwords_dropped_alone_kept_inside(word: str) -> None:
    assert tokenize(f"{word} {word.upper()}") == []
    if len(word) >= 2:
        assert word in tokenize(f"load_{word}_config")


# ---------------------------------------------------------------- linear time on crafted runs


def _reference(text: str) -> list[str]:
    """The terms of the single regex's matches, one match at a time (quadratic on long runs)."""
    from gitstrata.store.tokenizer import _TOKEN_RE, _emit_match

    out: list[str] = []
    for m in _TOKEN_RE.finditer(text):
        _emit_match(m, out)
    return out


def _run_spans(text: str, start: int, end: int) -> list[tuple[tuple[int, int], str | None]]:
    from gitstrata.store.tokenizer import _run_matches

    stop = min(end + 1, len(text))  # the character after the run in view, as `tokenize` does
    return [(m.span(), m.lastgroup) for m in _run_matches(text, start, end, stop)]


@given(st.text(alphabet="ab1Z_-./# é:\nF0c", max_size=60))
def test_terms_are_those_of_the_single_regex(text):
    assert tokenize(text) == _reference(text)


@given(st.text(alphabet="ab1Z_-./#é0c", max_size=40))
def test_a_run_with_a_slash_is_matched_as_the_single_regex_matches_it(run):
    from gitstrata.store.tokenizer import _TOKEN_RE

    text = run + " "
    assert _run_spans(text, 0, len(run)) == [
        (m.span(), m.lastgroup) for m in _TOKEN_RE.finditer(text)
    ]


def test_identifiers_and_tickets_in_code_and_prose():
    text = "Fix INC-2407 in pay/charge.py: charge_with_retry() calls TTLCache.set (deadbeef12)"
    assert tokenize(text) == _reference(text)
    assert tokenize(text * 3) == _reference(text) * 3


def test_a_long_run_that_ends_in_a_slash_is_tokenized_whole():
    # `a-a-...-a/`: the single regex tries `path` from every `a`, each try scanning to the
    # slash (the square of the length: about a minute here); run by run it is one pass
    n = 200_000
    text = "a-" * n + "/ tail"
    found = _run_spans(text, 0, 2 * n + 1)
    assert len(found) == n
    assert found[0] == ((0, 1), "ident") and found[-1] == ((2 * n - 2, 2 * n - 1), "ident")
    assert tokenize(text) == ["tail"]  # one-letter words are dropped; the stray slash too
    # a path at the end of such a run is still a path
    assert _run_spans("x-" * n + "/y", 0, 2 * n + 2)[-1] == ((0, 2 * n + 2), "path")
    assert tokenize("x-" * n + "/yy") == ["yy"]  # too long to keep whole; its one long part
