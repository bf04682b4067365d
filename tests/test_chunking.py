"""Source chunkers: exact symbols per language, backend agreement, imports, bad input."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitstrata.stages.chunking import (
    ParsedFile,
    Symbol,
    SymbolIndex,
    detect_language,
    module_remainder,
    parse_source,
    resolve_imports,
)

PY = '''"""Payment retries for the checkout backend."""

from __future__ import annotations

import os.path
import time as clock
from . import gateway
from .errors import ChargeError, DeclinedError
from backend.payments.models import (
    Order,
)

RETRIES = 3


class TTLCache:
    """A small cache whose entries expire."""

    def __init__(self, ttl: float = 60.0) -> None:
        self.ttl = ttl
        self._items: dict[str, tuple[float, str]] = {}

    @property
    def size(self) -> int:
        return len(self._items)

    def set(self, key: str, value: str) -> None:
        """Store `value` under `key`.

        Overwrites silently.
        """
        self._items[key] = (clock.time() + self.ttl, value)
        # a trailing comment is not part of the method

    class Entry:
        def expired(self, now: float) -> bool:
            return False


@retry(
    times=RETRIES,
)
async def charge_with_retry(client, order_id: str, amount_cents: int) -> str:
    """Charge an order, retrying declines."""

    def backoff(attempt):
        return 2**attempt

    text = """
def not_a_function():
    pass
"""
    for attempt in range(RETRIES):
        try:
            return await client.charge(order_id, amount_cents)
        except DeclinedError:
            clock.sleep(backoff(attempt))
    raise ChargeError(order_id)


if os.path.exists("/etc/payments"):

    def load_config(path="/etc/payments"):
        return open(path).read()
'''

TS = """/**
 * Payment gateway client.
 */

import { HttpClient } from "./http";
import type { Order } from "../models/order";
import * as retry from './retry.js';
const lazy = () => import("./lazy");

// Retry budget for a charge.
export interface RetryPolicy {
  attempts: number;
  backoff(attempt: number): number;
}

export type ChargeResult =
  | { ok: true; id: string }
  | { ok: false; error: string };

export enum Currency {
  EUR = "EUR",
  USD = "USD",
}

/** Charges orders through the gateway. */
@Injectable({ providedIn: "root" })
export class Gateway extends BaseClient implements Client {
  private readonly url: string = "https://example.com/{x}";
  static instances = 0;

  constructor(private http: HttpClient) {
    super();
  }

  // Charge one order.
  async charge(order: Order, amountCents: number): Promise<ChargeResult> {
    const body = `{"amount": ${amountCents}}`;
    if (amountCents <= 0) {
      return { ok: false, error: "amount must be positive" };
    }
    return this.http.post(this.url, body);
  }

  get name(): string {
    return "gateway";
  }

  overload(a: string): void;
  overload(a: any): void {}

  private handle = async (event: Event): Promise<void> => {
    console.log(event);
  };
}

export abstract class BaseClient {
  abstract close(): void;
  protected log(msg: string) { console.log(msg /* } */); }
}

export function formatCents(cents: number, currency: Currency = Currency.EUR): string {
  const re = /[{]/g;
  function pad(n: number) {
    return n < 10 ? "0" + n : String(n);
  }
  return `${Math.floor(cents / 100)}.${pad(cents % 100)} ${currency}`;
}

export const toCents = (amount: number): number => Math.round(amount * 100);

export const refund = async (gateway: Gateway, id: string) => {
  const normalize = (x: string) => x.trim();
  return normalize(id);
};

const config = { retries: 3, timeout: 1000 };
describe("gateway", () => {
  it("charges", () => {});
});
"""

TSX = """import React, { useState } from "react";
import { Button } from "@/components/button";

type Props = { items: string[]; onPick?: (item: string) => void };

/** The cart badge. */
export function CartBadge({ items, onPick }: Props) {
  const [open, setOpen] = useState(false);
  const toggle = () => setOpen(!open);
  return (
    <div className="badge">
      <p>Don't panic: {items.length} items</p>
      <Button onClick={toggle}>{open ? "}" : "{"}</Button>
    </div>
  );
}

export default class CartPage extends React.Component<Props> {
  render() {
    return <CartBadge items={this.props.items} />;
  }
}
"""

JS = """import React, { useState } from "react";
const api = require("./api");

export default function App({ items }) {
  const [count, setCount] = useState(0);
  const onClick = () => setCount(count + 1);
  return (
    <div className="app">
      <p>Don't {count}</p>
      <button onClick={onClick}>+</button>
    </div>
  );
}

class Store {
  #items = [];
  add(item) {
    this.#items.push(item);
  }
  static *iter() {
    yield 1;
  }
  #clear = () => { this.#items = []; };
}

module.exports = { App, Store };

const format = function (x) {
  return String(x);
};
"""

GO = """// Package payments charges orders.
package payments

import (
\t"errors"
\t"fmt"

\t"github.com/acme/shop/internal/gateway"
)

// ErrDeclined is returned when the card is declined.
var ErrDeclined = errors.New("declined {")

// Cache keeps recent charges.
type Cache struct {
\titems map[string]string
\tttl   int
}

type (
\t// Handler handles one event.
\tHandler func(event string) error
\tStore   interface {
\t\tGet(key string) (string, bool)
\t}
)

type ID = string

// NewCache builds a cache.
func NewCache(ttl int) *Cache {
\treturn &Cache{items: map[string]string{}, ttl: ttl}
}

// Get returns a cached value.
func (c *Cache) Get(key string) (string, bool) {
\tv, ok := c.items[key]
\treturn v, ok
}

func (c Cache) Len() int { return len(c.items) }

func ChargeWithRetry(client *gateway.Client, orderID string, amount int) (string, error) {
\tfor i := 0; i < 3; i++ {
\t\tid, err := client.Charge(orderID, amount)
\t\tif err == nil {
\t\t\treturn id, nil
\t\t}
\t}
\treturn "", fmt.Errorf("charge %s: %w", orderID, ErrDeclined)
}
"""

RUST = """//! Payment retries.

use std::collections::HashMap;
use crate::gateway::{self, Client, errors::ChargeError};
use super::models::Order as O;

/// A cached charge.
#[derive(Debug, Clone)]
pub struct Charge {
    pub id: String,
    amount: u64,
}

pub struct Marker;

pub struct Pair(u32, u32);

pub enum State {
    Pending,
    Done { id: String },
}

pub trait Retry {
    fn attempts(&self) -> u32;
    fn backoff(&self, attempt: u32) -> u64 {
        100 * attempt as u64
    }
}

type Result<T> = std::result::Result<T, ChargeError>;

impl Charge {
    /// Builds a charge.
    pub fn new(id: &str, amount: u64) -> Self {
        Charge { id: id.to_string(), amount }
    }

    fn label<'a>(&'a self) -> &'a str {
        let s = "}";
        &self.id
    }
}

impl<T: Clone> Retry for Pair where T: Send {
    fn attempts(&self) -> u32 {
        self.0
    }
}

pub fn charge_with_retry(client: &Client, order_id: &str) -> Result<String> {
    fn bump(x: u32) -> u32 {
        x + 1
    }
    let raw = r#"{"a": "}"}"#;
    let c = '{';
    Ok(String::from(order_id))
}

extern "C" {
    fn abs(x: i32) -> i32;
}
"""

JAVA = """package com.acme.payments;

import java.util.List;
import java.util.Map;
import static com.acme.util.Strings.trim;
import com.acme.gateway.*;

/**
 * Charges orders with retries.
 */
@Service
public class RetryService extends Base implements Runnable {
    private final Map<String, Integer> attempts = new HashMap<>();
    private static final String BRACE = "{";

    public RetryService(Gateway gateway) {
        this.gateway = gateway;
    }

    /** Charge once. */
    @Override
    public <T> List<T> charge(String orderId, int amountCents) throws ChargeException {
        if (amountCents <= 0) {
            throw new IllegalArgumentException("amount}");
        }
        Runnable r = new Runnable() {
            public void run() { System.out.println("x"); }
        };
        return List.of();
    }

    abstract void close();

    public void run() {}

    static class Entry {
        int count;

        Entry(int count) { this.count = count; }

        int next() {
            return count + 1;
        }
    }

    enum Mode {
        FAST("f") {
            @Override
            String label() { return "fast"; }
        },
        SLOW("s");

        private final String code;

        Mode(String code) { this.code = code; }

        String label() { return code; }
    }

    interface Listener {
        void onCharge(String id);

        default void onRetry(int attempt) {
            System.out.println(attempt);
        }
    }

    record Point(int x, int y) {
        Point {
            if (x < 0) throw new IllegalArgumentException();
        }

        int sum() { return x + y; }
    }
}
"""

FIXTURES = {
    "backend/payments/retry.py": PY,
    "web/src/gateway.ts": TS,
    "web/src/CartBadge.tsx": TSX,
    "web/src/App.jsx": JS,
    "internal/payments/payments.go": GO,
    "crates/pay/src/retry.rs": RUST,
    "src/main/java/com/acme/payments/RetryService.java": JAVA,
}


def _rows(pf: ParsedFile) -> list[tuple[str, str, str | None, int, int]]:
    return [(s.qualname, s.kind, s.parent, s.start_line, s.end_line) for s in pf.symbols]


def _by_name(pf: ParsedFile) -> dict[str, Symbol]:
    return {s.qualname: s for s in pf.symbols}


EXPECTED = {
    "backend/payments/retry.py": [
        ("<module>", "module", None, 1, 64),
        ("TTLCache", "class", None, 16, 37),
        ("TTLCache.__init__", "method", "TTLCache", 19, 21),
        ("TTLCache.size", "method", "TTLCache", 23, 25),
        ("TTLCache.set", "method", "TTLCache", 27, 32),
        ("TTLCache.Entry", "class", "TTLCache", 35, 37),
        ("TTLCache.Entry.expired", "method", "TTLCache.Entry", 36, 37),
        ("charge_with_retry", "function", None, 40, 58),
        ("charge_with_retry.backoff", "function", "charge_with_retry", 46, 47),
        ("load_config", "function", None, 63, 64),
    ],
    "web/src/gateway.ts": [
        ("<module>", "module", None, 1, 79),
        ("lazy", "function", None, 8, 8),
        ("RetryPolicy", "interface", None, 11, 14),
        ("ChargeResult", "type", None, 16, 18),
        ("Currency", "enum", None, 20, 23),
        ("Gateway", "class", None, 26, 54),
        ("Gateway.constructor", "method", "Gateway", 31, 33),
        ("Gateway.charge", "method", "Gateway", 36, 42),
        ("Gateway.name", "method", "Gateway", 44, 46),
        ("Gateway.overload", "method", "Gateway", 49, 49),
        ("Gateway.handle", "method", "Gateway", 51, 53),
        ("BaseClient", "class", None, 56, 59),
        ("BaseClient.log", "method", "BaseClient", 58, 58),
        ("formatCents", "function", None, 61, 67),
        ("formatCents.pad", "function", "formatCents", 63, 65),
        ("toCents", "function", None, 69, 69),
        ("refund", "function", None, 71, 74),
        ("refund.normalize", "function", "refund", 72, 72),
    ],
    "web/src/CartBadge.tsx": [
        ("<module>", "module", None, 1, 22),
        ("Props", "type", None, 4, 4),
        ("CartBadge", "function", None, 7, 16),
        ("CartBadge.toggle", "function", "CartBadge", 9, 9),
        ("CartPage", "class", None, 18, 22),
        ("CartPage.render", "method", "CartPage", 19, 21),
    ],
    "web/src/App.jsx": [
        ("<module>", "module", None, 1, 30),
        ("App", "function", None, 4, 13),
        ("App.onClick", "function", "App", 6, 6),
        ("Store", "class", None, 15, 24),
        ("Store.add", "method", "Store", 17, 19),
        ("Store.iter", "method", "Store", 20, 22),
        ("Store.#clear", "method", "Store", 23, 23),
        ("format", "function", None, 28, 30),
    ],
    "internal/payments/payments.go": [
        ("<module>", "module", None, 1, 51),
        ("Cache", "struct", None, 15, 18),
        ("Handler", "type", None, 22, 22),
        ("Store", "interface", None, 23, 25),
        ("ID", "type", None, 28, 28),
        ("NewCache", "function", None, 31, 33),
        ("Cache.Get", "method", None, 36, 39),
        ("Cache.Len", "method", None, 41, 41),
        ("ChargeWithRetry", "function", None, 43, 51),
    ],
    "crates/pay/src/retry.rs": [
        ("<module>", "module", None, 1, 61),
        ("Charge", "struct", None, 8, 12),
        ("Marker", "struct", None, 14, 14),
        ("Pair", "struct", None, 16, 16),
        ("State", "enum", None, 18, 21),
        ("Retry", "trait", None, 23, 28),
        ("Retry.attempts", "method", "Retry", 24, 24),
        ("Retry.backoff", "method", "Retry", 25, 27),
        ("Result", "type", None, 30, 30),
        ("impl Charge", "impl", None, 32, 42),
        ("Charge.new", "method", "impl Charge", 34, 36),
        ("Charge.label", "method", "impl Charge", 38, 41),
        ("impl Retry for Pair", "impl", None, 44, 48),
        ("Pair.attempts", "method", "impl Retry for Pair", 45, 47),
        ("charge_with_retry", "function", None, 50, 57),
        ("charge_with_retry.bump", "function", "charge_with_retry", 51, 53),
    ],
    "src/main/java/com/acme/payments/RetryService.java": [
        ("<module>", "module", None, 1, 75),
        ("RetryService", "class", None, 11, 75),
        ("RetryService.RetryService", "method", "RetryService", 16, 18),
        ("RetryService.charge", "method", "RetryService", 21, 30),
        ("RetryService.run", "method", "RetryService", 34, 34),
        ("RetryService.Entry", "class", "RetryService", 36, 44),
        ("RetryService.Entry.Entry", "method", "RetryService.Entry", 39, 39),
        ("RetryService.Entry.next", "method", "RetryService.Entry", 41, 43),
        ("RetryService.Mode", "enum", "RetryService", 46, 58),
        ("RetryService.Mode.Mode", "method", "RetryService.Mode", 55, 55),
        ("RetryService.Mode.label", "method", "RetryService.Mode", 57, 57),
        ("RetryService.Listener", "interface", "RetryService", 60, 66),
        ("RetryService.Listener.onRetry", "method", "RetryService.Listener", 63, 65),
        ("RetryService.Point", "class", "RetryService", 68, 74),
        ("RetryService.Point.sum", "method", "RetryService.Point", 73, 73),
    ],
}

PARSERS = {
    "backend/payments/retry.py": "ast",
    "web/src/gateway.ts": "tree-sitter",
    "web/src/CartBadge.tsx": "tree-sitter",
    "web/src/App.jsx": "tree-sitter",
    "internal/payments/payments.go": "tree-sitter",
    "crates/pay/src/retry.rs": "tree-sitter",
    "src/main/java/com/acme/payments/RetryService.java": "tree-sitter",
}

IMPORTS = {
    "backend/payments/retry.py": (
        "__future__.annotations",
        "os.path",
        "time",
        ".gateway",
        ".errors.ChargeError",
        ".errors.DeclinedError",
        "backend.payments.models.Order",
    ),
    "web/src/gateway.ts": ("./http", "../models/order", "./retry.js", "./lazy"),
    "web/src/CartBadge.tsx": ("react", "@/components/button"),
    "web/src/App.jsx": ("react", "./api"),
    "internal/payments/payments.go": ("errors", "fmt", "github.com/acme/shop/internal/gateway"),
    "crates/pay/src/retry.rs": (
        "std::collections::HashMap",
        "crate::gateway",
        "crate::gateway::Client",
        "crate::gateway::errors::ChargeError",
        "super::models::Order",
    ),
    "src/main/java/com/acme/payments/RetryService.java": (
        "java.util.List",
        "java.util.Map",
        "com.acme.util.Strings.trim",
        "com.acme.gateway.*",
    ),
}


# ------------------------------------------------------------------------------ symbols


@pytest.mark.parametrize("path", list(FIXTURES))
def test_symbols_exact(path: str) -> None:
    pf = parse_source(path, FIXTURES[path].encode())
    assert pf.parser == PARSERS[path]
    assert pf.language == detect_language(path)
    assert _rows(pf) == EXPECTED[path]
    assert pf.imports == IMPORTS[path]


@pytest.mark.parametrize("path", list(FIXTURES))
def test_backends_agree(path: str) -> None:
    """tree-sitter and the structural fallback (and ast for Python) give the same symbols."""
    data = FIXTURES[path].encode()
    backends = ["tree-sitter", "structural"] + (["ast"] if path.endswith(".py") else [])
    results = {b: parse_source(path, data, backend=b) for b in backends}
    assert {results[b].parser for b in backends} == set(backends)
    qualnames = {b: {s.qualname for s in r.symbols} for b, r in results.items()}
    assert all(q == qualnames["tree-sitter"] for q in qualnames.values())
    # stronger than the names: kinds, parents, lines, signatures, docstrings and imports too
    reference = results["tree-sitter"]
    for r in results.values():
        assert r.symbols == reference.symbols
        assert r.imports == reference.imports


def test_python_details() -> None:
    syms = _by_name(parse_source("backend/payments/retry.py", PY.encode()))
    assert syms["<module>"] == Symbol(
        "<module>",
        "<module>",
        "module",
        None,
        1,
        64,
        "",
        "Payment retries for the checkout backend.",
    )
    assert syms["TTLCache.set"].signature == "def set(self, key: str, value: str) -> None"
    assert syms["TTLCache.set"].docstring == "Store `value` under `key`.\n\nOverwrites silently."
    assert syms["TTLCache"].docstring == "A small cache whose entries expire."
    assert syms["TTLCache.size"].start_line == 23  # the @property line
    charge = syms["charge_with_retry"]
    assert charge.signature == (
        "async def charge_with_retry(client, order_id: str, amount_cents: int) -> str"
    )
    assert charge.docstring == "Charge an order, retrying declines."
    assert (charge.start_line, charge.end_line) == (40, 58)  # decorator spans three lines
    assert "not_a_function" not in {s.name for s in syms.values()}
    assert syms["load_config"].signature == 'def load_config(path="/etc/payments")'


def test_typescript_details() -> None:
    syms = _by_name(parse_source("web/src/gateway.ts", TS.encode()))
    assert syms["<module>"].docstring == "Payment gateway client."
    assert syms["RetryPolicy"].docstring == "Retry budget for a charge."
    assert syms["Gateway"].docstring == "Charges orders through the gateway."
    assert syms["Gateway"].signature == "export class Gateway extends BaseClient implements Client"
    assert syms["Gateway.charge"].signature == (
        "async charge(order: Order, amountCents: number): Promise<ChargeResult>"
    )
    assert syms["Gateway.charge"].docstring == "Charge one order."
    assert syms["Gateway.handle"].signature == (
        "private handle = async (event: Event): Promise<void> =>"
    )
    assert syms["ChargeResult"].signature == (
        "export type ChargeResult = | { ok: true; id: string } | { ok: false; error: string }"
    )
    assert syms["toCents"].signature == (
        "export const toCents = (amount: number): number => Math.round(amount * 100)"
    )


def test_go_rust_java_details() -> None:
    go = _by_name(parse_source("internal/payments/payments.go", GO.encode()))
    assert go["<module>"].docstring == "Package payments charges orders."
    assert go["Cache.Get"].signature == "func (c *Cache) Get(key string) (string, bool)"
    assert go["Cache.Get"].docstring == "Get returns a cached value."
    assert go["Handler"].docstring == "Handler handles one event."
    rust = _by_name(parse_source("crates/pay/src/retry.rs", RUST.encode()))
    assert rust["<module>"].docstring == "Payment retries."
    assert rust["Charge"].docstring == "A cached charge."
    assert rust["Charge.new"].docstring == "Builds a charge."
    assert rust["Charge.new"].signature == "pub fn new(id: &str, amount: u64) -> Self"
    assert rust["impl Retry for Pair"].signature == "impl<T: Clone> Retry for Pair where T: Send"
    java = _by_name(
        parse_source("src/main/java/com/acme/payments/RetryService.java", JAVA.encode())
    )
    assert java["RetryService"].docstring == "Charges orders with retries."
    assert java["RetryService.charge"].docstring == "Charge once."
    assert java["RetryService.charge"].signature == (
        "public <T> List<T> charge(String orderId, int amountCents) throws ChargeException"
    )


def test_comments_that_speak_to_tools_are_not_docs() -> None:
    ts = (
        "export class Client {\n"
        "\t// eslint-disable-next-line complexity\n"
        "\tconstructor(input: string) {\n\t\tthis.input = input;\n\t}\n\n"
        "\t/** Send the request. */\n"
        "\t// @ts-expect-error the body is checked at run time\n"
        "\tsend() {\n\t\treturn fetch(this.input);\n\t}\n\n"
        "\t/* istanbul ignore next */\n"
        "\tclose() {\n\t}\n"
        "}\n"
    )
    syms = _by_name(parse_source("source/client.ts", ts.encode()))
    assert syms["Client.constructor"].docstring == ""
    assert syms["Client.send"].docstring == "Send the request."
    assert syms["Client.close"].docstring == ""
    go = (
        "//go:build go1.9\n// +build go1.9\n\npackage mux\n\n// Vars returns the route variables.\n"
    )
    go += "//\n//nolint:errcheck\nfunc Vars() map[string]string {\n\treturn nil\n}\n"
    syms = _by_name(parse_source("mux.go", go.encode()))
    assert syms["<module>"].docstring == ""
    assert syms["Vars"].docstring == "Vars returns the route variables."
    # words that only look like one stay
    doc = "// ESLint rules this package loads.\n// go: the runner\nfunction rules() {\n}\n"
    syms = _by_name(parse_source("rules.js", doc.encode()))
    assert syms["rules"].docstring == "ESLint rules this package loads.\ngo: the runner"


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        (
            "app/Cart.kt",
            "data class Point(val x: Int)\n\nclass Cart {\n  fun add(item: Int) {\n  }\n"
            "  fun size(): Int = items.size\n}\n",
            [("Cart", "class", None, 3, 7), ("Cart.add", "method", "Cart", 4, 5)],
        ),
        (
            "src/Cart.php",
            "<?php\nuse App\\Models\\Item;\n\nclass Cart {\n"
            "    public function add(Item $item): void {\n        $this->items[] = $item;\n"
            "    }\n}\n",
            [("Cart", "class", None, 4, 8), ("Cart.add", "method", "Cart", 5, 7)],
        ),
    ],
)
def test_structural_only_languages(path: str, source: str, expected: list) -> None:
    pf = parse_source(path, source.encode())
    assert pf.parser == "structural"
    assert _rows(pf)[1:] == expected


def test_c_details() -> None:
    pf = parse_source(
        "lib/cart.c",
        b'#include "util.h"\n#include <stdio.h>\n/* A point. */\nstruct point {\n  int x;\n};\n',
    )
    assert pf.imports == ("util.h", "stdio.h")
    assert _by_name(pf)["point"].docstring == "A point."


def test_python_structural_fallback_on_syntax_error() -> None:
    source = b"def ok(a):\n    return a\n\nclass Broken:\n    def m(self):\n        print 'py2'\n"
    pf = parse_source("legacy.py", source)
    assert pf.parser == "structural"
    assert _rows(pf) == [
        ("<module>", "module", None, 1, 6),
        ("ok", "function", None, 1, 2),
        ("Broken", "class", None, 4, 6),
        ("Broken.m", "method", "Broken", 5, 6),
    ]


def test_python_with_an_invalid_escape_parses_without_a_warning() -> None:
    # older code writes regexes in plain strings; the compiler warns of each such escape, and
    # Python 3.12 prints it: an index must neither print it nor lose the file to the fallback
    source = b'import re\n\nDIGITS = re.compile("\\d+")\n\n\ndef parse(s):\n    return "\\s"\n'
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pf = parse_source("legacy.py", source)
    assert pf.parser == "ast"
    assert ("parse", "function", None, 6, 7) in _rows(pf)


def test_text_and_unknown_languages_have_only_module() -> None:
    pf = parse_source("deploy/app.yaml", b"a: 1\nb:\n  - {c: 2}\n")
    assert pf == ParsedFile(
        "yaml", "none", (Symbol("<module>", "<module>", "module", None, 1, 3, "", ""),), ()
    )
    pf = parse_source("data.bin", b"\x00\x01\x02")
    assert (pf.language, pf.parser, len(pf.symbols)) == (None, "none", 1)


def test_import_builds_no_parser() -> None:
    code = (
        "import sys, gitstrata.stages.chunking as c\n"
        "assert 'tree_sitter' not in sys.modules\n"
        "c.parse_source('a.ts', b'function f() {}')\n"
        "assert 'tree_sitter' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unknown_backend_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown chunking backend"):
        parse_source("a.py", b"", backend="regex")


@pytest.mark.parametrize(
    ("text", "n_lines"),
    [(b"", 1), (b"\n", 1), (b"x", 1), (b"x\n", 1), (b"x\ny", 2), (b"x\ny\n", 2), (b"x\n\n", 2)],
)
def test_line_count(text: bytes, n_lines: int) -> None:
    assert parse_source("a.py", text).symbols[0].end_line == n_lines
    assert parse_source("a.go", text).symbols[0].end_line == n_lines


def test_line_numbers_follow_git_not_universal_newlines() -> None:
    # a lone "\r" is not a line break for git; "\r\n" is one
    source = b"# a\rb = 1\r\ndef f():\r\n    return 1\r\n"
    for backend in ("ast", "tree-sitter", "structural"):
        pf = parse_source("a.py", source, backend=backend)
        assert [(s.qualname, s.start_line, s.end_line) for s in pf.symbols] == [
            ("<module>", 1, 3),
            ("f", 2, 3),
        ]


EDGE_CASES = [
    (
        "a.js",
        """app.get("/",
  function handler(req, res) {
    res.send("x");
  });
export default class extends Base {
  render() { return 1; }
}
const a = 1
function f() {}
export default async function* stream() {}
var legacy = function () {}, other = 2;
let later;
""",
    ),
    (
        "a.ts",
        """namespace Shop {
  export function total(items: Item[]): number { return 0; }
}
declare function external(a: string): void;
export abstract class Repo<T extends { id: string }> {
  abstract find(id: string): Promise<T>;
  protected constructor(private readonly db: Db) {}
  static create<T>(db: Db): Repo<T> { return null!; }
  @Memo()
  @Log({ level: "debug" })
  cached(): T[] { return []; }
  onEvent = (e: Event): void => {};
  plain = 5;
}
export const enum Flag { A = 1, B = 2 }
type Fn = (a: number) => void;
const identity = <T,>(x: T): T => x;
""",
    ),
    (
        "a.go",
        """package shop

type List[T any] struct {
	items []T
}

func (l *List[T]) Push(item T) {
	l.items = append(l.items, item)
}

func Map[T, U any](xs []T, f func(T) U) []U {
	return nil
}

type Visitor interface{ Visit(n Node) }

func asm()
""",
    ),
    (
        "a.rs",
        """pub(crate) async fn fetch() {}
unsafe impl Send for Handle {}
impl<T> From<T> for Wrapper<T> {
    fn from(t: T) -> Self { Wrapper(t) }
}
pub union Bits { a: u32, b: f32 }
macro_rules! square {
    ($x:expr) => { $x * $x };
}
mod tests {
    #[test]
    fn it_works() {
        assert_eq!(2, 2);
    }
}
trait Shape {
    type Area;
    fn area(&self)
        -> f64;
}
extern "C" {
    fn abs(x: i32) -> i32;
}
""",
    ),
    (
        "A.java",
        """package a;

@Entity
@Table(name = "orders",
       schema = "shop")
public final class Order implements Serializable {
    @Id
    @GeneratedValue(strategy = GenerationType.AUTO)
    private Long id;

    protected Order() {}

    public static <K, V extends Comparable<V>> Map<K, V> sort(Map<K, V> in) {
        return in;
    }

    @Override public String toString() { return "Order"; }

    public @interface Audit { String value() default ""; }

    private int[] counts() {
        return new int[] {1, 2};
    }
}
""",
    ),
]


@pytest.mark.parametrize(("path", "source"), EDGE_CASES, ids=[p for p, _ in EDGE_CASES])
def test_backends_agree_on_edge_cases(path: str, source: str) -> None:
    """Expression-position functions, anonymous classes, generics with braces, bodiless
    signatures, attributes and annotations spanning lines: both backends see the same."""
    ts = parse_source(path, source.encode(), backend="tree-sitter")
    st_ = parse_source(path, source.encode(), backend="structural")
    assert ts.symbols == st_.symbols


def test_edge_case_names() -> None:
    names = {
        p: [s.qualname for s in parse_source(p, t.encode()).symbols[1:]] for p, t in EDGE_CASES
    }
    assert names["a.js"] == ["f", "stream", "legacy"]
    assert names["a.ts"] == [
        "total",
        "Repo",
        "Repo.constructor",
        "Repo.create",
        "Repo.cached",
        "Repo.onEvent",
        "Flag",
        "Fn",
        "identity",
    ]
    assert names["a.go"] == ["List", "List.Push", "Map", "Visitor"]
    assert names["a.rs"] == [
        "fetch",
        "impl Send for Handle",
        "impl From for Wrapper",
        "Wrapper.from",
        "Bits",
        "it_works",
        "Shape",
        "Shape.Area",
        "Shape.area",
    ]
    assert names["A.java"] == [
        "Order",
        "Order.Order",
        "Order.sort",
        "Order.toString",
        "Order.Audit",
        "Order.counts",
    ]
    order = _by_name(parse_source("A.java", dict(EDGE_CASES)["A.java"].encode()))["Order"]
    assert (order.start_line, order.signature) == (
        3,
        "public final class Order implements Serializable",
    )


# ------------------------------------------------------------------------------ languages


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a/b.py", "python"),
        ("typings/x.pyi", "python"),
        ("web/x.mjs", "javascript"),
        ("web/x.CJS", "javascript"),
        ("web/App.jsx", "javascript"),
        ("web/x.mts", "typescript"),
        ("web/App.tsx", "tsx"),
        ("cmd/main.go", "go"),
        ("src/lib.rs", "rust"),
        ("A.java", "java"),
        ("x.h", "c"),
        ("x.hpp", "cpp"),
        ("X.cs", "csharp"),
        ("build.gradle.kts", "kotlin"),
        ("Sources/App.swift", "swift"),
        ("lib/a.rb", "ruby"),
        ("index.php", "php"),
        ("A.scala", "scala"),
        ("ci.yml", "yaml"),
        ("package.json", "json"),
        ("pyproject.toml", "toml"),
        ("db/001_init.sql", "sql"),
        ("index.html", "html"),
        ("style.css", "css"),
        ("README.md", "markdown"),
        ("scripts/run.sh", "shell"),
        ("Dockerfile", "dockerfile"),
        ("docker/Dockerfile.prod", "dockerfile"),
        ("api.dockerfile", "dockerfile"),
        ("deploy/nginx.conf", "nginx"),
        ("deploy/site.nginx", "nginx"),
        ("etc/nginx/sites-available/shop", "nginx"),
        ("etc/nginx/conf.d/shop.conf", "nginx"),
        ("Makefile", "make"),
        ("rules.mk", "make"),
        ("win\\path\\a.py", "python"),
        ("LICENSE", None),
        ("image.png", None),
        ("other.conf", None),
    ],
)
def test_detect_language(path: str, language: str | None) -> None:
    assert detect_language(path) == language


def test_every_detected_language_belongs_to_exactly_one_family() -> None:
    from gitstrata.stages.chunking import languages

    detected = set(languages._EXTENSIONS.values()) | set(languages._NAMES.values())
    families = (languages.TREE_SITTER, languages.BRACE_ONLY, languages.TEXT)
    assert {lang for lang in detected if sum(lang in f for f in families) != 1} == set()
    assert detected - languages.TEXT == languages.CODE


# ------------------------------------------------------------------------------ imports

KNOWN = {
    "backend/payments/__init__.py",
    "backend/payments/gateway.py",
    "backend/payments/errors.py",
    "backend/payments/models/__init__.py",
    "backend/payments/retry.py",
    "src/shop/util.py",
    "services/api/app/__init__.py",
    "services/api/app/models.py",
    "services/api/app/main.py",
    "web/src/gateway.ts",
    "web/src/http.ts",
    "web/src/retry.ts",
    "web/src/lazy/index.tsx",
    "web/src/components/button.tsx",
    "web/models/order.ts",
    "internal/payments/payments.go",
    "internal/payments/cache.go",
    "internal/payments/cache_test.go",
    "internal/gateway/client.go",
    "internal/gateway/errors.go",
    "crates/pay/src/lib.rs",
    "crates/pay/src/retry.rs",
    "crates/pay/src/gateway/mod.rs",
    "crates/pay/src/gateway/errors.rs",
    "crates/pay/src/models.rs",
    "src/main/java/com/acme/util/Strings.java",
    "src/main/java/com/acme/gateway/Client.java",
    "src/main/java/com/acme/gateway/Errors.java",
    "src/main/java/com/acme/gateway/README.md",
    "src/main/java/com/acme/payments/RetryService.java",
}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (
            "backend/payments/retry.py",
            [
                "backend/payments/errors.py",
                "backend/payments/gateway.py",
                "backend/payments/models/__init__.py",
            ],
        ),
        (
            "web/src/gateway.ts",
            [
                "web/models/order.ts",
                "web/src/http.ts",
                "web/src/lazy/index.tsx",
                "web/src/retry.ts",
            ],
        ),
        ("web/src/CartBadge.tsx", ["web/src/components/button.tsx"]),
        (
            "internal/payments/payments.go",
            # cache.go: the same package, used without an import
            [
                "internal/gateway/client.go",
                "internal/gateway/errors.go",
                "internal/payments/cache.go",
            ],
        ),
        (
            "crates/pay/src/retry.rs",
            [
                "crates/pay/src/gateway/errors.rs",
                "crates/pay/src/gateway/mod.rs",
                "crates/pay/src/models.rs",
            ],
        ),
        (
            "src/main/java/com/acme/payments/RetryService.java",
            [
                "src/main/java/com/acme/gateway/Client.java",
                "src/main/java/com/acme/gateway/Errors.java",
                "src/main/java/com/acme/util/Strings.java",
            ],
        ),
    ],
)
def test_resolve_imports(path: str, expected: list[str]) -> None:
    pf = parse_source(path, FIXTURES[path].encode())
    assert resolve_imports(path, pf.language, pf.imports, KNOWN) == expected
    # any collection works, and the answer does not depend on its type
    assert resolve_imports(path, pf.language, pf.imports, sorted(KNOWN)) == expected


@pytest.mark.parametrize(
    ("path", "specs", "expected"),
    [
        ("services/api/app/main.py", ["app.models"], ["services/api/app/models.py"]),
        ("scripts/x.py", ["shop.util", "numpy.linalg"], ["src/shop/util.py"]),
        (
            "backend/payments/models/__init__.py",
            ["..gateway", "..errors.X"],
            ["backend/payments/errors.py", "backend/payments/gateway.py"],
        ),
        ("backend/payments/retry.py", [".", ".retry"], ["backend/payments/__init__.py"]),
    ],
)
def test_resolve_python_variants(path: str, specs: list[str], expected: list[str]) -> None:
    assert resolve_imports(path, "python", specs, KNOWN) == expected


def test_resolve_other_variants() -> None:
    assert resolve_imports(
        "crates/pay/src/gateway/mod.rs", "rust", ["self::errors::E", "super::models"], KNOWN
    ) == [
        "crates/pay/src/gateway/errors.rs",
        "crates/pay/src/models.rs",
    ]
    assert resolve_imports("web/src/gateway.ts", "typescript", ["react", "../../x"], KNOWN) == []
    assert resolve_imports(
        "cmd/main.go", "go", ["fmt", "example.com/shop/internal/payments"], KNOWN
    ) == [
        "internal/payments/cache.go",
        "internal/payments/payments.go",
    ]
    assert resolve_imports("README.md", "markdown", ["x"], KNOWN) == []


def test_python_imports_without_ast() -> None:
    source = (
        b"import os.path, json as j\nfrom .a import (b,\n    c as d)\nfrom .. import e\n"
        b"from m import *\n# import hidden\nx = 'import nope'\ndef f(:\n"
    )
    pf = parse_source("pkg/mod.py", source)
    assert pf.parser == "structural"
    assert pf.imports == ("os.path", "json", ".a.b", ".a.c", "..e", "m")


def test_rust_use_trees() -> None:
    pf = parse_source(
        "src/lib.rs", b"use a::{b, c::{d, e as f}, self};\nuse g::*;\nextern crate h;\n"
    )
    assert pf.imports == ("a::b", "a::c::d", "a::c::e", "a", "g", "h")


# ------------------------------------------------------------------------------ index, remainder


def test_module_remainder() -> None:
    pf = parse_source("backend/payments/retry.py", PY.encode())
    remainder = module_remainder(PY, pf.symbols)
    assert remainder.startswith(
        '"""Payment retries for the checkout backend."""\n\nfrom __future__'
    )
    assert "RETRIES = 3\n\nif os.path.exists" in remainder
    assert "def " not in remainder and "class " not in remainder
    assert (
        module_remainder("", [Symbol("<module>", "<module>", "module", None, 1, 1, "", "")]) == ""
    )


def test_module_remainder_exact() -> None:
    text = "import os\n\nX = 1\n\n\ndef f():\n    return 1\n\n\nY = 2\n"
    pf = parse_source("m.py", text.encode())
    assert module_remainder(text, pf.symbols) == "import os\n\nX = 1\n\nY = 2"


@pytest.mark.parametrize("path", list(FIXTURES))
def test_innermost_matches_brute_force_on_fixtures(path: str) -> None:
    symbols = list(parse_source(path, FIXTURES[path].encode()).symbols)
    idx = SymbolIndex(symbols)
    for line in range(0, symbols[0].end_line + 2):
        assert idx.innermost(line) == _brute_innermost(symbols, line)


def test_innermost_on_fixture() -> None:
    pf = parse_source("backend/payments/retry.py", PY.encode())
    idx = SymbolIndex(pf.symbols)
    assert idx.innermost(1).qualname == "<module>"
    assert idx.innermost(20).qualname == "TTLCache.__init__"
    assert idx.innermost(34).qualname == "TTLCache"
    assert idx.innermost(37).qualname == "TTLCache.Entry.expired"
    assert idx.innermost(47).qualname == "charge_with_retry.backoff"
    assert idx.innermost(59).qualname == "<module>"
    assert idx.innermost(10_000).qualname == "<module>"
    assert idx.innermost(-5).qualname == "<module>"


def _brute_innermost(symbols: list[Symbol], line: int) -> Symbol:
    ordered = sorted(
        (s for s in symbols if s.qualname != "<module>"), key=lambda s: (s.start_line, -s.end_line)
    )
    best = None
    for k, s in enumerate(ordered):
        if s.start_line <= line <= s.end_line:
            key = (s.end_line - s.start_line, -k)
            if best is None or key < best[0]:
                best = (key, s)
    return best[1] if best else symbols[0]


@st.composite
def _symbol_sets(draw: st.DrawFn) -> list[Symbol]:
    n_lines = draw(st.integers(1, 60))
    spans = draw(st.lists(st.tuples(st.integers(1, n_lines), st.integers(0, 20)), max_size=25))
    out = [Symbol("<module>", "<module>", "module", None, 1, n_lines, "", "")]
    for i, (start, length) in enumerate(spans):
        out.append(
            Symbol(f"s{i}", f"s{i}", "function", None, start, min(n_lines, start + length), "", "")
        )
    return out


@given(_symbol_sets(), st.data())
def test_innermost_matches_brute_force(symbols: list[Symbol], data: st.DataObject) -> None:
    idx = SymbolIndex(symbols)
    for line in range(0, symbols[0].end_line + 3):
        assert idx.innermost(line) == _brute_innermost(symbols, line)


# ------------------------------------------------------------------------------ bad input

ALL_LANGUAGES = [
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
    "kotlin",
    "swift",
    "ruby",
    "php",
    "scala",
    "yaml",
    None,
]


def _check_invariants(pf: ParsedFile, source: bytes) -> None:
    text = source.decode("utf-8", "replace").removeprefix("\ufeff")
    n_lines = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
    syms = pf.symbols
    assert syms[0] == Symbol(
        "<module>", "<module>", "module", None, 1, n_lines, "", syms[0].docstring
    )
    assert sum(s.qualname == "<module>" for s in syms) == 1
    keys = [(s.start_line, -s.end_line) for s in syms]
    assert keys == sorted(keys)
    qualnames = {s.qualname for s in syms}
    for s in syms:
        assert 1 <= s.start_line <= s.end_line <= n_lines
        assert s.parent is None or s.parent in qualnames
        assert len(s.signature) <= 300 and "\n" not in s.signature
        s.signature.encode("utf-8")  # valid UTF-8, storable in Arrow
        s.docstring.encode("utf-8")
    for spec in pf.imports:
        spec.encode("utf-8")
    assert len(set(pf.imports)) == len(pf.imports)
    SymbolIndex(syms).innermost(1)
    module_remainder(text, syms)


_CODEY = st.text(
    alphabet=st.sampled_from(
        list("{}()[]<>;:=\"'`/\\*#@\n\t abcdefrnu$.,!-|&?éclassdefnfuncimplstruct")
    ),
    max_size=300,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.binary(max_size=400),
    st.sampled_from(ALL_LANGUAGES),
    st.sampled_from(["auto", "tree-sitter", "structural"]),
)
def test_random_bytes_never_raise(source: bytes, language: str | None, backend: str) -> None:
    _check_invariants(parse_source("f", source, language=language, backend=backend), source)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _CODEY, st.sampled_from(ALL_LANGUAGES), st.sampled_from(["auto", "tree-sitter", "structural"])
)
def test_random_code_like_text_never_raises(text: str, language: str | None, backend: str) -> None:
    source = text.encode()
    _check_invariants(parse_source("f", source, language=language, backend=backend), source)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(FIXTURES)), st.integers(0, 2**32 - 1))
def test_mangled_fixtures_never_raise(path: str, seed: int) -> None:
    """Realistic files with random cuts and insertions reach the deep parser paths."""
    rng = random.Random(seed)
    data = bytearray(FIXTURES[path].encode())
    for _ in range(rng.randint(1, 12)):
        pos = rng.randint(0, len(data))
        if rng.random() < 0.5:
            del data[pos : pos + rng.randint(1, 40)]
        else:
            data[pos:pos] = bytes(
                rng.choice(b"{}()[];\"'`/*#\n\xff") for _ in range(rng.randint(1, 4))
            )
    source = bytes(data)
    for backend in ("auto", "tree-sitter", "structural"):
        _check_invariants(parse_source(path, source, backend=backend), source)


@pytest.mark.parametrize(
    "source",
    [
        b"",
        b"\n\n\n",
        b"\xff\xfe\x00garbage\x80",
        b"\xef\xbb\xbfdef f():\n    return 1\n",
        b"def f(\x00):\n    pass\n",
        b"x" * 200_000,
        b"(" * 5_000,
        b"{" * 5_000 + b"}" * 10,
        b"class A {\n" * 300,
        b"def f():\n" + b"    if x:\n" * 120 + b"        pass\n",
        b'"""unterminated\ndef f():\n    pass\n',
        b"/* unterminated comment\nfunction f() {}\n",
    ],
)
def test_hostile_inputs(source: bytes) -> None:
    for language in ALL_LANGUAGES:
        for backend in ("auto", "tree-sitter", "structural"):
            _check_invariants(parse_source("f", source, language=language, backend=backend), source)


def test_merge_conflict_markers() -> None:
    ts = (
        b"export class Cart {\n  add(item) {\n    this.items.push(item);\n  }\n"
        b"<<<<<<< HEAD\n  remove(item) {\n    this.items.pop();\n  }\n=======\n"
        b"  drop(item) {\n    this.items = [];\n  }\n>>>>>>> feature\n}\n"
    )
    pf = parse_source("cart.ts", ts)
    assert pf.parser == "tree-sitter"
    assert [s.qualname for s in pf.symbols] == [
        "<module>",
        "Cart",
        "Cart.add",
        "Cart.remove",
        "Cart.drop",
    ]
    py = b"def ok():\n    return 1\n<<<<<<< HEAD\ndef mine():\n    pass\n=======\n" + (
        b"def theirs():\n    pass\n>>>>>>> x\n"
    )
    pf = parse_source("m.py", py)
    assert pf.parser == "structural"
    assert [(s.qualname, s.start_line, s.end_line) for s in pf.symbols] == [
        ("<module>", 1, 9),
        ("ok", 1, 2),
        ("mine", 4, 5),
        ("theirs", 7, 8),
    ]


def test_broken_tree_falls_back_to_structural_when_it_finds_more() -> None:
    # tree-sitter reads both functions as arguments of an unclosed call; the structural
    # chunker sees that only the first one continues an expression
    pf = parse_source("a.js", b"foo(\nfunction a() {}\nfunction b() {}\n")
    assert (pf.parser, [s.qualname for s in pf.symbols]) == ("structural", ["<module>", "b"])
    forced = parse_source(
        "a.js", b"foo(\nfunction a() {}\nfunction b() {}\n", backend="tree-sitter"
    )
    assert (forced.parser, [s.qualname for s in forced.symbols]) == ("tree-sitter", ["<module>"])


def test_non_utf8_is_replaced() -> None:
    pf = parse_source("a.py", b"def caf\xe9():\n    '''doc \xff'''\n")
    assert pf.parser == "structural"  # U+FFFD is not an identifier character, ast refuses it
    pf = parse_source("a.go", b"package x\n// Caf\xe9 brews.\nfunc Caf() {}\n")
    assert _by_name(pf)["Caf"].docstring == "Caf\ufffd brews."


def test_deterministic() -> None:
    for path, text in FIXTURES.items():
        assert parse_source(path, text.encode()) == parse_source(path, text.encode())


# ------------------------------------------------------------------------------ idioms

JS_ASSIGNED = """/** Send a body. */
res.send = function send(body) {
  function inner() {}
  return body;
};
app.use = function use(fn) { return this; };
Router.prototype.route = function route(path) {
  return path;
};
res.json = (obj) => obj;
module.exports = function createApplication() {};
module.exports.helper = async function () {};
exports.other = function* gen() {};
exports.name = 'x';
module.exports = {
  a() {},
  b: function () {},
  c: 1,
  d: (x) => x,
};
class K {
  handle = () => {};
}
function outer() {
  res.inner = function () {};
  const o = { m() {} };
}
"""


def _rows4(pf: ParsedFile) -> list[tuple[str, str, int, int]]:
    return [(s.qualname, s.kind, s.start_line, s.end_line) for s in pf.symbols[1:]]


def test_js_assignment_definitions() -> None:
    """Member and prototype assignments, `module.exports` / `exports.*`, members of an exported
    object literal and class fields holding arrow functions are symbols; a member assigned
    inside a function body or an object literal that is not exported is not."""
    pf = parse_source("lib/response.js", JS_ASSIGNED.encode())
    assert pf.parser == "tree-sitter"
    assert _rows4(pf) == [
        ("res.send", "function", 2, 5),
        ("res.send.inner", "function", 3, 3),
        ("app.use", "function", 6, 6),
        ("Router.route", "method", 7, 9),
        ("res.json", "function", 10, 10),
        ("createApplication", "function", 11, 11),
        ("exports.helper", "function", 12, 12),
        ("exports.other", "function", 13, 13),
        ("exports.a", "function", 16, 16),
        ("exports.b", "function", 17, 17),
        ("exports.d", "function", 19, 19),
        ("K", "class", 21, 23),
        ("K.handle", "method", 22, 22),
        ("outer", "function", 24, 27),
    ]
    send = pf.symbols[1]
    assert (send.signature, send.docstring) == ("res.send = function send(body)", "Send a body.")
    # the structural fallback names assignments and exported object members the same way
    st_ = parse_source("lib/response.js", JS_ASSIGNED.encode(), backend="structural")
    assert _rows4(st_) == _rows4(pf)
    ts_ = parse_source("src/response.ts", JS_ASSIGNED.encode())
    assert _rows4(ts_) == _rows4(pf)


JS_EXPORTED_OBJECTS = """\
export default {
  name: 'widget',
  data() {
    return {};
  },
  render: (h) => h('div'),
  async load() {},
};
export const api = {
  get(url) {
    return url;
  },
  post: function (url, body) {},
  retries: 3,
};
const local = { hidden() {} };
"""


@pytest.mark.parametrize("path", ["src/widget.js", "src/widget.ts"])
@pytest.mark.parametrize("backend", ["tree-sitter", "structural"])
def test_js_exported_object_literal_members(backend: str, path: str) -> None:
    """Methods and function-valued properties of `export default {...}` and
    `export const api = {...}` are symbols (default.x, api.x); other properties and members of a
    local object are not."""
    pf = parse_source(path, JS_EXPORTED_OBJECTS.encode(), backend=backend)
    assert _rows4(pf) == [
        ("default.data", "function", 3, 5),
        ("default.render", "function", 6, 6),
        ("default.load", "function", 7, 7),
        ("api.get", "function", 10, 12),
        ("api.post", "function", 13, 13),
    ]


def test_ts_exported_object_with_as_const() -> None:
    source = "export const handlers = {\n  run() {},\n} as const;\n"
    pf = parse_source("src/h.ts", source.encode())
    assert _rows4(pf) == [("handlers.run", "function", 2, 2)]


JS_WRAPPED = """\
(function (root, factory) {
  root.lib = factory();
  root.version = function version() { return 1; };
})(this, function () {
  function helper() {}
  var api = {};
  api.run = function run() {};
  return api;
});
!function () {
  Widget.prototype.draw = function () {};
}();
(function () {
  module.exports = function create() {};
  module.exports.extra = function () {};
}).call(this);
describe('x', function () {
  app.ignored = function () {};
});
"""


def test_js_definitions_inside_iife_and_umd_wrappers() -> None:
    """The bodies of immediately invoked functions (and of a UMD factory passed to one) are
    the module's top level: their member assignments are definitions; a callback's are not."""
    pf = parse_source("dist/lib.js", JS_WRAPPED.encode())
    assert _rows4(pf) == [
        ("root.version", "function", 3, 3),
        ("helper", "function", 5, 5),
        ("api.run", "function", 7, 7),
        ("Widget.draw", "method", 11, 11),
        ("create", "function", 14, 14),
        ("exports.extra", "function", 15, 15),
    ]


@pytest.mark.parametrize("backend", ["tree-sitter", "structural"])
def test_js_prototype_and_exported_members_inside_function_bodies(backend: str) -> None:
    """Inside an ordinary function body, prototype and exported members are definitions; other
    member assignments (`res.local = function`) are not."""
    source = """\
function setup(exports) {
  Foo.prototype.bar = function bar() {};
  exports.baz = function () {};
  module.exports.qux = () => 1;
  res.local = function () {};
  if (ok) {
    View.prototype.render = function (cb) {
      cb();
    };
  }
}
"""
    pf = parse_source("lib/setup.js", source.encode(), backend=backend)
    assert [(s.qualname, s.kind, s.parent, s.start_line, s.end_line) for s in pf.symbols[1:]] == [
        ("setup", "function", None, 1, 11),
        ("Foo.bar", "method", "setup", 2, 2),
        ("exports.baz", "function", "setup", 3, 3),
        ("exports.qux", "function", "setup", 4, 4),
        ("View.render", "method", "setup", 7, 9),
    ]


@pytest.mark.parametrize("backend", ["tree-sitter", "structural"])
def test_js_chained_assignment_is_one_definition(backend: str) -> None:
    """`a.x = a.y = function` is named by the member holding the function, from the first line."""
    source = (
        "res.contentType =\nres.type = function contentType(type) {\n  return 1;\n};\n"
        "res.a = res.b = function () {};\nres.d = res.e = 5;\n"
    )
    pf = parse_source("lib/response.js", source.encode(), backend=backend)
    assert _rows4(pf) == [("res.type", "function", 1, 4), ("res.b", "function", 5, 5)]
    assert pf.symbols[1].signature == "res.type = function contentType(type)"


@pytest.mark.parametrize("backend", ["tree-sitter", "structural"])
def test_js_accessor_defined_by_a_helper_call(backend: str) -> None:
    """A top-level `helper(obj, 'name', function)` (Express' `defineGetter`) defines obj.name;
    other calls taking a function (routes, tests) define nothing."""
    source = """defineGetter(req, 'query', function query(){
  return 1;
});
defineGetter(req, "fresh", function () { return 2; });
app.get('/', function (req, res) {});
util.def(a.b, 'c', (x) => x);
define(x, 'not a name', function () {});
define(x, 'y', function () {}, 3);
function f() {
  defineGetter(req, 'inner', function () {});
}
"""
    pf = parse_source("lib/request.js", source.encode(), backend=backend)
    assert _rows4(pf) == [
        ("req.query", "function", 1, 3),
        ("req.fresh", "function", 4, 4),
        ("a.b.c", "function", 6, 6),
        ("f", "function", 9, 11),
    ]
    assert pf.symbols[1].signature == "defineGetter(req, 'query', function query()"


PY_OVERLOADS = '''import typing
from typing import overload


class A:
    @overload
    def get(self, k: int) -> int: ...

    @typing.overload
    def get(self, k: str) -> str: ...

    def get(self, k):
        """Get it."""
        return k


@overload
def f(x: int) -> int: ...
@overload
def f(x: str) -> str: ...
def f(x):
    return x


@overload
def lone(x: int) -> int: ...
'''

TS_OVERLOADS = """/** Parse a value. */
export function parse(a: string): string;
export function parse(a: number): number;
export function parse(a: any): any {
  return a;
}
declare function external(a: string): void;
function lone(a: string): void;
class C {
  m(a: string): void;
  m(a: number): void;
  m(a: any) {
    return a;
  }
}
interface I {
  n(a: string): void;
}
"""


@pytest.mark.parametrize("backend", ["ast", "tree-sitter", "structural"])
def test_python_overloads_fold_into_the_implementation(backend: str) -> None:
    """One symbol per overloaded function, with the implementation's lines and signature and
    the stubs' signatures listed in its docstring; a stub without implementation stays."""
    pf = parse_source("a.py", PY_OVERLOADS.encode(), backend=backend)
    assert _rows4(pf) == [
        ("A", "class", 5, 14),
        ("A.get", "method", 12, 14),
        ("f", "function", 21, 22),
        ("lone", "function", 25, 26),
    ]
    syms = _by_name(pf)
    assert syms["A.get"].signature == "def get(self, k)"
    assert syms["A.get"].docstring == (
        "Get it.\n\nOverloads:\ndef get(self, k: int) -> int\ndef get(self, k: str) -> str"
    )
    assert syms["f"].docstring == "Overloads:\ndef f(x: int) -> int\ndef f(x: str) -> str"
    assert syms["lone"].signature == "def lone(x: int) -> int"


def test_typescript_overloads_fold_into_the_implementation() -> None:
    pf = parse_source("a.ts", TS_OVERLOADS.encode())
    assert _rows4(pf) == [
        ("parse", "function", 4, 6),
        ("C", "class", 9, 15),
        ("C.m", "method", 12, 14),
        ("I", "interface", 16, 18),
    ]
    syms = _by_name(pf)
    assert syms["parse"].signature == "export function parse(a: any): any"
    assert syms["parse"].docstring == (
        "Parse a value.\n\nOverloads:\n"
        "export function parse(a: string): string\nexport function parse(a: number): number"
    )
    assert syms["C.m"].docstring == "Overloads:\nm(a: string): void\nm(a: number): void"
    st_ = parse_source("a.ts", TS_OVERLOADS.encode(), backend="structural")
    assert st_.symbols == pf.symbols


RUST_TRAITS = """/// Shapes.
pub trait Shape {
    type Area;
    /// The area.
    fn area(&self) -> f64;
    fn scaled(&self, k: f64)
        -> f64;
    fn name(&self) -> String {
        String::new()
    }
}
extern "C" {
    fn abs(x: i32) -> i32;
}
struct Square(f64);
impl Shape for Square {
    type Area = f64;
    fn area(&self) -> f64 {
        self.0
    }
}
impl<T: Clone> Shape for Vec<T> {
    fn area(&self) -> f64 { 0.0 }
}
impl Square {
    pub fn new(x: f64) -> Self {
        Square(x)
    }
}
impl Shape for io::Error {
    type Area = ();
    fn area(&self) -> f64 { 1.0 }
}
trait Stream {
    type Item<'a>: Send where Self: 'a;
    type Default = u8;
}
"""

GO_METHODS = """package shapes

type Square struct{ side float64 }

func (s Square) Area() float64 { return s.side * s.side }

func (s *Square) Scale(k float64) {
	s.side *= k
}

func (l *List[T]) Push(item T) {}

func New(side float64) *Square { return &Square{side} }
"""


@pytest.mark.parametrize("backend", ["tree-sitter", "structural"])
def test_rust_trait_items_and_impl_methods(backend: str) -> None:
    """Trait methods and associated types with and without a body are `Trait.item`;
    `impl Trait for Type` items are `Type.item`; foreign (`extern`) signatures are not symbols."""
    pf = parse_source("src/shape.rs", RUST_TRAITS.encode(), backend=backend)
    assert _rows4(pf) == [
        ("Shape", "trait", 2, 11),
        ("Shape.Area", "type", 3, 3),
        ("Shape.area", "method", 5, 5),
        ("Shape.scaled", "method", 6, 7),
        ("Shape.name", "method", 8, 10),
        ("Square", "struct", 15, 15),
        ("impl Shape for Square", "impl", 16, 21),
        ("Square.Area", "type", 17, 17),
        ("Square.area", "method", 18, 20),
        ("impl Shape for Vec", "impl", 22, 24),
        ("Vec.area", "method", 23, 23),
        ("impl Square", "impl", 25, 29),
        ("Square.new", "method", 26, 28),
        ("impl Shape for io::Error", "impl", 30, 33),
        ("Error.Area", "type", 31, 31),
        ("Error.area", "method", 32, 32),
        ("Stream", "trait", 34, 37),
        ("Stream.Item", "type", 35, 35),
        ("Stream.Default", "type", 36, 36),
    ]
    assert _by_name(pf)["Shape.area"].docstring == "The area."


@pytest.mark.parametrize("backend", ["tree-sitter", "structural"])
def test_go_methods_are_qualified_by_receiver_type(backend: str) -> None:
    pf = parse_source("shapes/square.go", GO_METHODS.encode(), backend=backend)
    assert _rows4(pf) == [
        ("Square", "struct", 3, 3),
        ("Square.Area", "method", 5, 5),
        ("Square.Scale", "method", 7, 9),
        ("List.Push", "method", 11, 11),
        ("New", "function", 13, 13),
    ]


def test_a_pdf_is_binary_though_its_first_bytes_hold_no_nul():
    from gitstrata.stages.chunk import FileEntry, chunk_file
    from gitstrata.store.config import ChunkConfig
    from gitstrata.store.filekind import BINARY_SNIFF, is_binary

    # an Illustrator file is a PDF: readable metadata first, compressed streams after
    pdf = b"%PDF-1.6\r%\xe2\xe3\xcf\xd3\r" + b"<x:xmpmeta>logo</x:xmpmeta>\n" * 400 + b"\0\x01"
    assert b"\0" not in pdf[:BINARY_SNIFF] and is_binary(pdf)
    row, symbols = chunk_file(
        FileEntry("media/logo.ai", "0" * 40, "100644", len(pdf)), pdf, ChunkConfig()
    )
    assert row["status"] == "binary" and symbols == []
    # the same words in a text file that is not one stay text
    note = b"Exported as %PDF-1.6 by the build.\n"
    assert not is_binary(note)
    row, symbols = chunk_file(
        FileEntry("notes.txt", "0" * 40, "100644", len(note)), note, ChunkConfig()
    )
    assert row["status"] == "indexed"
