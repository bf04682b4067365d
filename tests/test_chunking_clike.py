"""C, C++, C# and Ruby through tree-sitter: definitions, qualnames, kinds and line spans; the
structural fallback on broken text and its agreement on the shared idioms; include / using /
require resolution."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from gitstrata.pipeline.runner import run_index
from gitstrata.pipeline.tree import CHUNK
from gitstrata.serve.targets import match_symbols
from gitstrata.stages.chunking import (
    RESOLVED_LANGUAGES,
    ParsedFile,
    parse_source,
    project_facts,
    resolve_imports,
)
from gitstrata.store.generations import Store


def _rows(pf: ParsedFile) -> list[tuple]:
    return [(s.qualname, s.kind, s.parent, s.start_line, s.end_line) for s in pf.symbols[1:]]


def _sym(pf: ParsedFile, qualname: str):
    return next(s for s in pf.symbols if s.qualname == qualname)


C = """#include "util.h"
#include <stdio.h>
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define LIMIT 10

/* A point. */
struct point {
  int x;
};

typedef struct node {
  struct node *next;
} node_t;

typedef struct {
  int w, h;
} size_t2;

union value { int i; float f; };
enum color { RED, GREEN };
struct point origin;

static char *dup_name(const char *s)
{
  return strdup(s);
}

int
main(int argc, char **argv)
{
  return 0;
}

void proto(int a);
int (*handler(int sig))(int) { return 0; }
"""


def test_c_definitions() -> None:
    pf = parse_source("lib/cart.c", C.encode())
    assert pf.parser == "tree-sitter"
    assert _rows(pf) == [
        ("MAX", "macro", None, 3, 3),
        ("point", "struct", None, 7, 9),
        ("node", "struct", None, 11, 13),
        ("size_t2", "struct", None, 15, 17),
        ("value", "struct", None, 19, 19),
        ("color", "enum", None, 20, 20),
        ("dup_name", "function", None, 23, 26),
        ("main", "function", None, 28, 32),
        ("handler", "function", None, 35, 35),
    ]
    assert pf.imports == ("util.h", "stdio.h")
    assert _sym(pf, "point").docstring == "A point."
    assert _sym(pf, "MAX").signature == "#define MAX(a, b)"
    assert _sym(pf, "dup_name").signature == "static char *dup_name(const char *s)"


def test_c_header_of_prototypes_keeps_types_and_macros() -> None:
    header = (
        "#ifndef CART_H\n#define CART_H\n#define CART_ITEMS(c) ((c)->items)\n"
        "typedef struct cart { int n; } cart;\nint cart_add(cart *c, int item);\n#endif\n"
    )
    pf = parse_source("include/cart.h", header.encode())
    assert _rows(pf) == [
        ("CART_ITEMS", "macro", None, 3, 3),
        ("cart", "struct", None, 4, 4),
    ]


CPP = """#include "cart.hpp"

namespace shop {
class Cart : public Base {
 public:
  Cart(int n) : n_(n) {}
  ~Cart() {}
  Cart(const Cart&) = default;
  int size() const { return n_; }
  void add(int item);
  template <typename T>
  T get(T x) { return x; }
  operator bool() const { return true; }
  struct Item {
    int id;
  };
};

void Cart::add(int item) {
  items_.push_back(item);
}

namespace detail::io { int flush() { return 0; } }
namespace { void hidden() {} }
}  // namespace shop

template <typename T>
class Box {
  T v;
};

template <typename T>
void Box<T>::set(T x) {
  v = x;
}

int shop::Cart::count() const { return 0; }
bool operator==(const Box<int>& a, const Box<int>& b) { return true; }
enum class Color { Red, Green };
extern "C" {
int c_entry(void) { return 0; }
}
"""


def test_cpp_definitions_and_qualnames() -> None:
    pf = parse_source("src/cart.cpp", CPP.encode())
    assert pf.parser == "tree-sitter"
    assert _rows(pf) == [
        ("shop.Cart", "class", None, 4, 17),
        ("shop.Cart.Cart", "method", "shop.Cart", 6, 6),
        ("shop.Cart.~Cart", "method", "shop.Cart", 7, 7),
        ("shop.Cart.size", "method", "shop.Cart", 9, 9),
        ("shop.Cart.get", "method", "shop.Cart", 11, 12),
        ("shop.Cart.operator bool", "method", "shop.Cart", 13, 13),
        ("shop.Cart.Item", "struct", "shop.Cart", 14, 16),
        ("shop.Cart.add", "method", None, 19, 21),
        ("shop.detail.io.flush", "function", None, 23, 23),
        ("shop.hidden", "function", None, 24, 24),
        ("Box", "class", None, 27, 30),
        ("Box.set", "method", None, 32, 35),
        ("shop.Cart.count", "method", None, 37, 37),
        ("operator==", "function", None, 38, 38),
        ("Color", "enum", None, 39, 39),
        ("c_entry", "function", None, 41, 41),
    ]
    assert _sym(pf, "shop.detail.io.flush").signature == "int flush()"
    assert _sym(pf, "Box.set").signature == "void Box<T>::set(T x)"
    qualnames = [s.qualname for s in pf.symbols]
    # `Cart::add` names the out-of-line definition whatever namespace holds it
    assert [qualnames[i] for i in match_symbols(qualnames, None, "Cart::add")] == ["shop.Cart.add"]


def test_cpp_specializations_and_macro_calls() -> None:
    source = (
        "template <>\nstruct Wrap<Str> {\n  static int get() { return 1; }\n};\n"
        "class net::Socket {\n  void close() {}\n};\n"
        "TEST(CartTest, Adds) {\n  EXPECT_EQ(1, 1);\n}\n"
        "int main() {\n  return 0;\n}\n"
    )
    pf = parse_source("t.cpp", source.encode())
    assert _rows(pf) == [
        ("Wrap", "struct", None, 1, 4),
        ("Wrap.get", "method", "Wrap", 3, 3),
        ("net.Socket", "class", None, 5, 7),
        ("net.Socket.close", "method", "net.Socket", 6, 6),
        ("main", "function", None, 11, 13),
    ]


def test_cpp_header_named_h_is_read_as_cpp() -> None:
    # the C grammar cannot read a class; the C++ one can, so the header keeps its methods
    source = b"namespace io {\nclass File {\n public:\n  int size() const { return n; }\n};\n}\n"
    pf = parse_source("include/io/file.h", source)
    assert pf.language == "c" and pf.parser == "tree-sitter"
    assert _rows(pf) == [
        ("io.File", "class", None, 2, 5),
        ("io.File.size", "method", "io.File", 4, 4),
    ]


CSHARP = """using System;
using Acme.Billing;

namespace Shop {
  /// <summary>A cart.</summary>
  [Serializable]
  public class Cart<T> : Base {
    public Cart() { }
    ~Cart() { }
    public int Size() => items.Count;
    public int Count { get; set; }
    public int Total {
      get { return items.Sum(); }
    }
    public int Twice => Count * 2;
    public abstract void Clear();
    public void Add(int item) {
      items.Add(item);
    }
    public static Cart<T> operator +(Cart<T> a, Cart<T> b) { return a; }
    public delegate void Changed(int n);

    private class Entry {
      int Next() { return 1; }
    }
  }

  public interface IRepo {
    void Save();
    int Load() { return 1; }
  }
  public record Point(int X, int Y);
  public record struct Pair(int A) { public int Sum() => A; }
  public enum Mode { Fast, Slow }
}
"""


def test_csharp_definitions_and_qualnames() -> None:
    pf = parse_source("App/Cart.cs", CSHARP.encode())
    assert pf.parser == "tree-sitter"
    assert _rows(pf) == [
        ("Cart", "class", None, 6, 26),
        ("Cart.Cart", "method", "Cart", 8, 8),
        ("Cart.~Cart", "method", "Cart", 9, 9),
        ("Cart.Size", "method", "Cart", 10, 10),
        ("Cart.Total", "property", "Cart", 12, 14),
        ("Cart.Twice", "property", "Cart", 15, 15),
        ("Cart.Add", "method", "Cart", 17, 19),
        ("Cart.operator +", "method", "Cart", 20, 20),
        ("Cart.Changed", "type", "Cart", 21, 21),
        ("Cart.Entry", "class", "Cart", 23, 25),
        ("Cart.Entry.Next", "method", "Cart.Entry", 24, 24),
        ("IRepo", "interface", None, 28, 31),
        ("IRepo.Load", "method", "IRepo", 30, 30),
        ("Point", "class", None, 32, 32),
        ("Pair", "class", None, 33, 33),
        ("Pair.Sum", "method", "Pair", 33, 33),
        ("Mode", "enum", None, 34, 34),
    ]
    assert pf.imports == ("System", "Acme.Billing")
    assert _sym(pf, "Cart").docstring == "<summary>A cart.</summary>"
    assert _sym(pf, "Pair.Sum").signature == "public int Sum() => A"


def test_csharp_file_scoped_namespace_is_not_a_qualifier() -> None:
    source = "namespace Shop.Core;\n\npublic class Order\n{\n    public void Pay() { }\n}\n"
    pf = parse_source("Shop/Core/Order.cs", source.encode())
    assert _rows(pf) == [
        ("Order", "class", None, 3, 6),
        ("Order.Pay", "method", "Order", 5, 5),
    ]


RUBY = """require "json"
require_relative "cart/item"

# The shop.
module Shop
  class Cart < Base
    attr_reader :items

    def add(item)
      @items << item if item
    end

    def self.build = new
    def empty? = @items.empty?
    def ==(other); items == other.items; end

    class << self
      def create(x)
        new(x)
      end
    end
  end

  class Order::Line
    def total
      1
    end
  end
end

class Shop::Audit
  def log; end
end
"""


def test_ruby_definitions_and_qualnames() -> None:
    pf = parse_source("lib/shop.rb", RUBY.encode())
    assert pf.parser == "tree-sitter"
    assert _rows(pf) == [
        ("Shop", "class", None, 5, 29),
        ("Shop.Cart", "class", "Shop", 6, 22),
        ("Shop.Cart.add", "method", "Shop.Cart", 9, 11),
        ("Shop.Cart.build", "method", "Shop.Cart", 13, 13),
        ("Shop.Cart.empty?", "method", "Shop.Cart", 14, 14),
        ("Shop.Cart.==", "method", "Shop.Cart", 15, 15),
        ("Shop.Cart.create", "method", "Shop.Cart", 18, 20),
        ("Shop.Order.Line", "class", "Shop", 24, 28),
        ("Shop.Order.Line.total", "method", "Shop.Order.Line", 25, 27),
        ("Shop.Audit", "class", None, 31, 33),
        ("Shop.Audit.log", "method", "Shop.Audit", 32, 32),
    ]
    assert pf.imports == ("json", "./cart/item")
    assert _sym(pf, "Shop").docstring == "The shop."


# The idioms both backends read: the structural chunker names them the same way.
AGREE = {
    "lib/cart.c": (
        '#include "util.h"\n/* A point. */\nstruct point {\n  int x;\n};\n'
        "static char *dup_name(const char *s)\n{\n  return strdup(s);\n}\n"
        "void proto(int a);\nenum color {\n  RED\n};\n"
    ),
    "lib/cart.cpp": (
        "class Cart : public Base {\n public:\n  Cart(int n) : n_(n) {}\n"
        "  int size() const { return n_; }\n  void add(int item);\n};\n"
        "void Cart::add(int item) {\n  items_.push_back(item);\n}\n"
        "template <typename T> struct Box {\n  T get() { return v; }\n};\n"
    ),
    "App/Cart.cs": (
        "namespace Shop {\n  [Serializable]\n  public class Cart {\n"
        "    public Cart() { }\n    public abstract void Clear();\n"
        "    public void Add(int item) {\n      items.Add(item);\n    }\n"
        "    struct Entry {\n      int Next() {\n        return 1;\n      }\n    }\n  }\n"
        "  interface IRepo {\n    void Save();\n  }\n}\n"
    ),
    "lib/cart.rb": (
        "module Shop\n  class Cart\n    def add(item)\n      @items << item if item\n"
        "    end\n\n    def self.build = new\n\n    class << self\n      def create\n"
        "        new\n      end\n    end\n  end\n\n  class Order::Line\n    def total\n"
        "      1\n    end\n  end\nend\n"
    ),
}


@pytest.mark.parametrize("path", list(AGREE))
def test_backends_agree_on_shared_idioms(path: str) -> None:
    ts = parse_source(path, AGREE[path].encode(), backend="tree-sitter")
    st_ = parse_source(path, AGREE[path].encode(), backend="structural")
    assert ts.parser == "tree-sitter" and st_.parser == "structural"
    assert len(ts.symbols) > 3
    assert _rows(ts) == _rows(st_)
    assert [s.signature for s in ts.symbols] == [s.signature for s in st_.symbols]


def test_cpp_namespaces_qualify_only_with_tree_sitter() -> None:
    source = b"namespace shop {\nclass Cart {\n  int size() { return 0; }\n};\n}\n"
    assert [s.qualname for s in parse_source("a.cpp", source).symbols[1:]] == [
        "shop.Cart",
        "shop.Cart.size",
    ]
    structural = parse_source("a.cpp", source, backend="structural")
    assert [s.qualname for s in structural.symbols[1:]] == ["Cart", "Cart.size"]


def test_broken_ruby_falls_back_to_the_structural_chunker() -> None:
    # an unclosed hash swallows the rest of the class for the parser; indentation still tells
    source = "class A\n  def f\n    x = {\n  end\n\n  def g\n    2\n  end\n\n  def h\n    3\n  end\nend\n"
    pf = parse_source("lib/a.rb", source.encode())
    assert pf.parser == "structural"
    assert _rows(pf) == [
        ("A", "class", None, 1, 13),
        ("A.f", "method", "A", 2, 4),
        ("A.g", "method", "A", 6, 8),
        ("A.h", "method", "A", 10, 12),
    ]


def test_broken_c_falls_back_to_the_structural_chunker() -> None:
    # an unclosed initializer puts the rest of the file in one parse error
    source = "int x = (\nint a(void) {\n  return 1;\n}\nint b(void) {\n  return 2;\n}\n"
    assert len(parse_source("a.c", source.encode(), backend="tree-sitter").symbols) < 3
    pf = parse_source("a.c", source.encode())
    assert pf.parser == "structural"
    assert _rows(pf) == [("a", "function", None, 2, 4), ("b", "function", None, 5, 7)]


def test_small_c_parse_errors_keep_tree_sitter() -> None:
    # two heads for one body under #ifdef: the parser recovers the definitions, the brace
    # matcher sees one function running to the end of the file
    source = (
        "#ifdef A\nint f(void) {\n#else\nint f(int x) {\n#endif\n  return 0;\n}\n"
        "int g(void) {\n  return 1;\n}\n"
    )
    pf = parse_source("a.c", source.encode())
    assert pf.parser == "tree-sitter"
    assert _rows(pf) == [("f", "function", None, 4, 7), ("g", "function", None, 8, 10)]
    assert [
        s.qualname for s in parse_source("a.c", source.encode(), backend="structural").symbols[1:]
    ] == ["f"]


@pytest.mark.parametrize(
    ("path", "source"),
    [("a.c", C), ("a.cpp", CPP), ("a.h", CPP), ("A.cs", CSHARP), ("a.rb", RUBY)],
)
def test_mangled_sources_keep_the_invariants(path: str, source: str) -> None:
    """Random cuts and insertions reach the parser's error recovery and the odd nodes it
    leaves; every result still nests, sorts and names its parents."""
    rng = random.Random(path)
    pieces = [
        "{",
        "}",
        "(",
        ")",
        ";",
        "::",
        "template <",
        "class ",
        "def ",
        "end\n",
        "#define X(",
        '"',
    ]
    for _ in range(60):
        data = list(source)
        for _ in range(rng.randint(1, 8)):
            k = rng.randrange(len(data) + 1)
            if rng.random() < 0.5:
                del data[k : k + rng.randint(1, 40)]
            else:
                data[k:k] = rng.choice(pieces)
        text = "".join(data)
        for backend in ("auto", "tree-sitter"):
            pf = parse_source(path, text.encode(), backend=backend)
            n_lines = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
            qualnames = {s.qualname for s in pf.symbols}
            keys = [(s.start_line, -s.end_line) for s in pf.symbols]
            assert keys == sorted(keys)
            for s in pf.symbols:
                assert 1 <= s.start_line <= s.end_line <= n_lines
                assert s.parent is None or s.parent in qualnames
                assert s.name and "\n" not in s.signature


def test_missing_grammar_wheel_falls_back_to_the_structural_chunker() -> None:
    # a fresh interpreter where the wheel cannot be imported, as on an install without it
    code = (
        "import sys\n"
        "sys.modules['tree_sitter_ruby'] = None\n"
        "from gitstrata.stages.chunking import parse_source\n"
        "pf = parse_source('a.rb', b'class A\\n  def f\\n  end\\nend\\n')\n"
        "print(pf.parser, [s.qualname for s in pf.symbols])\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "structural ['<module>', 'A', 'A.f']"


# ------------------------------------------------------------------------------ imports


def links(path: str, source: str, known: set[str]) -> list[str]:
    pf = parse_source(path, source.encode())
    return resolve_imports(path, pf.language, pf.imports, known, project_facts({}))


C_TREE = {
    "src/cart.c",
    "src/cart.h",
    "src/util/strings.h",
    "src/util/strings.c",
    "include/shop/api.h",
    "lib/api.c",
    "tests/test_cart.c",
    "vendor/a/log.h",
    "vendor/b/log.h",
    "compat/getopt.h",
}


@pytest.mark.parametrize(
    ("path", "include", "expected"),
    [
        # next to the including file, and a header to the file that implements it
        ("src/cart.c", '#include "cart.h"', ["src/cart.h"]),
        ("src/cart.c", '#include "util/strings.h"', ["src/util/strings.h"]),
        # an include folder above the file
        ("src/cart.c", "#include <shop/api.h>", ["include/shop/api.h"]),
        # from a test folder: the project's src/ and the one file ending with the spec
        ("tests/test_cart.c", '#include "cart.h"', ["src/cart.h"]),
        ("tests/test_cart.c", '#include "../src/cart.h"', ["src/cart.h"]),
        ("tests/test_cart.c", '#include "getopt.h"', ["compat/getopt.h"]),
        # two files could be meant: no link rather than a guess; system headers stay outside
        ("tests/test_cart.c", '#include "log.h"', []),
        ("src/cart.c", "#include <stdio.h>", []),
        # a commented-out include is not one
        ("src/cart.c", '// #include "cart.h"', []),
    ],
)
def test_c_includes_resolve(path: str, include: str, expected: list[str]) -> None:
    assert links(path, include + "\n", C_TREE) == expected


def test_c_headers_link_to_their_implementation() -> None:
    assert links("src/cart.h", "int cart_add(int);\n", C_TREE) == ["src/cart.c"]
    # `include/shop/api.h` is implemented by the only api.c there is
    assert links("include/shop/api.h", "", C_TREE) == ["lib/api.c"]
    assert links("vendor/a/log.h", "", C_TREE) == []
    # so a test including a header reaches the definitions in two steps
    assert "c" in RESOLVED_LANGUAGES and "cpp" in RESOLVED_LANGUAGES
    assert "ruby" not in RESOLVED_LANGUAGES and "csharp" not in RESOLVED_LANGUAGES


CS_TREE = {
    "src/Acme.Billing/Invoice.cs",
    "src/Acme.Billing/Models/Line.cs",
    "src/Acme.Billing/Models/notes.txt",
    "src/Shop/Core/Order.cs",
    "src/App/System/Clock.cs",
    "Program.cs",
}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("Acme.Billing", ["src/Acme.Billing/Invoice.cs"]),
        ("Acme.Billing.Models", ["src/Acme.Billing/Models/Line.cs"]),
        ("Shop.Core", ["src/Shop/Core/Order.cs"]),
        # a type: its file in the namespace's folder
        ("static Acme.Billing.Invoice", ["src/Acme.Billing/Invoice.cs"]),
        ("Line = Acme.Billing.Models.Line", ["src/Acme.Billing/Models/Line.cs"]),
        ("static Acme.Billing.Missing", []),
        # a framework namespace does not match a folder that happens to share its name
        ("System", []),
        ("System.Text", []),
    ],
)
def test_csharp_usings_resolve_to_namespace_folders(spec: str, expected: list[str]) -> None:
    assert links("Program.cs", f"using {spec};\nclass P {{}}\n", CS_TREE) == expected


RB_TREE = {
    "lib/shop.rb",
    "lib/shop/cart.rb",
    "lib/shop/cart/item.rb",
    "spec/spec_helper.rb",
    "spec/shop/cart_spec.rb",
    "gems/tool/lib/tool.rb",
    "gems/tool/lib/tool/cli.rb",
}


@pytest.mark.parametrize(
    ("path", "line", "expected"),
    [
        ("lib/shop/cart.rb", 'require_relative "cart/item"', ["lib/shop/cart/item.rb"]),
        ("lib/shop/cart.rb", "require_relative '../shop'", ["lib/shop.rb"]),
        ("spec/shop/cart_spec.rb", 'require "spec_helper"', ["spec/spec_helper.rb"]),
        ("spec/shop/cart_spec.rb", 'require "shop/cart"', ["lib/shop/cart.rb"]),
        ("gems/tool/lib/tool.rb", 'require "tool/cli"', ["gems/tool/lib/tool/cli.rb"]),
        ("lib/shop.rb", 'autoload :Cart, "shop/cart"', ["lib/shop/cart.rb"]),
        ("lib/shop.rb", "autoload(:Cart, 'shop/cart')", ["lib/shop/cart.rb"]),
        # `require` searches the load path, not the requiring file's folder
        ("lib/shop/cart.rb", 'require "cart/item"', []),
        ("lib/shop.rb", 'require "json"', []),
    ],
)
def test_ruby_requires_resolve(path: str, line: str, expected: list[str]) -> None:
    assert links(path, line + "\n", RB_TREE) == expected


def test_chunk_stage_links_c_and_ruby_files(git_repo) -> None:
    git_repo.commit(
        "init",
        {
            "src/cart.h": "int cart_add(int item);\n",
            "src/cart.c": '#include "cart.h"\n\nint cart_add(int item) {\n  return item;\n}\n',
            "tests/test_cart.c": '#include "cart.h"\n\nint main(void) { return cart_add(1); }\n',
            "lib/shop.rb": 'require_relative "shop/cart"\n\nmodule Shop\nend\n',
            "lib/shop/cart.rb": "module Shop\n  class Cart\n    def add; end\n  end\nend\n",
        },
    )
    run_index(git_repo.path, stages=[CHUNK], rebuild=True)
    store = Store(git_repo.path / ".strata").require_live()
    resolved = {r["path"]: r["imports_resolved"] for r in store.table("files").to_pylist()}
    assert resolved["tests/test_cart.c"] == ["src/cart.h"]
    assert resolved["src/cart.h"] == ["src/cart.c"]
    assert resolved["src/cart.c"] == ["src/cart.h"]
    assert resolved["lib/shop.rb"] == ["lib/shop/cart.rb"]
    symbols = {(r["path"], r["qualname"]) for r in store.table("symbols").to_pylist()}
    assert ("src/cart.c", "cart_add") in symbols
    assert ("lib/shop/cart.rb", "Shop.Cart.add") in symbols
