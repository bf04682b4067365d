"""Hand-run throughput check: `python -m gitstrata.benchmarks.chunk_speed [--lines 500]`.

Builds deterministic synthetic files (Python, TypeScript, C, C++, C#, Ruby) of about the requested
length and prints the time of `parse_source` per file for every backend. Not a test:
timings are machine dependent and never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time

from ..stages.chunking import parse_source

_PY_UNIT = '''
class Service{i}(Base):
    """Service number {i}."""

    def __init__(self, client, retries: int = 3) -> None:
        self.client = client
        self.retries = retries

    @property
    def name(self) -> str:
        return "service-{i}"

    async def call(self, payload: dict[str, int]) -> dict:
        for attempt in range(self.retries):
            result = await self.client.post("/v1/{i}", json=payload)
            if result.ok:
                return result.json()
        raise RuntimeError("failed after retries")


def total_{i}(values: list[int]) -> int:
    total = 0
    for v in values:
        total += v * {i}
    return total
'''

_TS_UNIT = """
/** Service number {i}. */
export class Service{i} extends Base {{
  private readonly retries = 3;

  constructor(private client: HttpClient) {{
    super();
  }}

  get name(): string {{
    return "service-{i}";
  }}

  async call(payload: Record<string, number>): Promise<Result> {{
    for (let attempt = 0; attempt < this.retries; attempt++) {{
      const result = await this.client.post(`/v1/{i}`, payload);
      if (result.ok) {{
        return result.json();
      }}
    }}
    throw new Error("failed after retries");
  }}
}}

export const total{i} = (values: number[]): number =>
  values.reduce((total, v) => total + v * {i}, 0);
"""

_C_UNIT = """
#define SERVICE_{i}_RETRIES(s) ((s)->retries + {i})

/* Service number {i}. */
struct service_{i} {{
  struct client *client;
  int retries;
}};

static int service_{i}_call(struct service_{i} *s, const char *payload)
{{
  for (int attempt = 0; attempt < s->retries; attempt++) {{
    int rc = client_post(s->client, "/v1/{i}", payload);
    if (rc == 0) {{
      return 0;
    }}
  }}
  return -1;
}}

int total_{i}(const int *values, int n)
{{
  int total = 0;
  for (int k = 0; k < n; k++) {{
    total += values[k] * {i};
  }}
  return total;
}}
"""

_CPP_UNIT = """
namespace shop {{
/// Service number {i}.
class Service{i} : public Base {{
 public:
  explicit Service{i}(Client* client) : client_(client) {{}}
  ~Service{i}() override {{}}

  std::string name() const {{ return "service-{i}"; }}

  template <typename T>
  Result call(const T& payload) {{
    for (int attempt = 0; attempt < retries_; ++attempt) {{
      Result result = client_->post("/v1/{i}", payload);
      if (result.ok()) {{
        return result;
      }}
    }}
    throw std::runtime_error("failed after retries");
  }}

 private:
  Client* client_;
  int retries_ = 3;
}};

int total{i}(const std::vector<int>& values) {{
  int total = 0;
  for (int v : values) total += v * {i};
  return total;
}}
}}  // namespace shop
"""

_CS_UNIT = """
namespace Shop.Services{i}
{{
    /// <summary>Service number {i}.</summary>
    public class Service{i} : Base
    {{
        private readonly int retries = 3;

        public Service{i}(HttpClient client) {{ this.client = client; }}

        public string Name => "service-{i}";

        public async Task<Result> CallAsync(Dictionary<string, int> payload)
        {{
            for (var attempt = 0; attempt < retries; attempt++)
            {{
                var result = await client.PostAsync("/v1/{i}", payload);
                if (result.Ok)
                {{
                    return result;
                }}
            }}
            throw new InvalidOperationException("failed after retries");
        }}

        public static int Total(int[] values) => values.Sum(v => v * {i});
    }}
}}
"""

_RB_UNIT = """
module Shop
  # Service number {i}.
  class Service{i} < Base
    attr_reader :client

    def initialize(client, retries: 3)
      @client = client
      @retries = retries
    end

    def name = "service-{i}"

    def call(payload)
      @retries.times do
        result = client.post("/v1/{i}", payload)
        return result.json if result.ok?
      end
      raise "failed after retries"
    end

    def self.total(values)
      values.sum {{ |v| v * {i} }}
    end
  end
end
"""

_UNITS = {
    "module.py": _PY_UNIT,
    "module.ts": _TS_UNIT,
    "module.c": _C_UNIT,
    "module.cpp": _CPP_UNIT,
    "Module.cs": _CS_UNIT,
    "module.rb": _RB_UNIT,
}


def synthetic(path: str, lines: int) -> bytes:
    unit = _UNITS[path]
    per = unit.count("\n")
    return "".join(unit.format(i=i) for i in range(max(1, lines // per))).encode()


def measure(path: str, source: bytes, backend: str, repeat: int) -> tuple[float, float]:
    """(min, median) seconds of one `parse_source` call; the minimum is the least disturbed by
    other load on the machine."""
    parse_source(path, source, backend=backend)  # warm caches (parsers, regexes)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        parse_source(path, source, backend=backend)
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args()
    for path in _UNITS:
        source = synthetic(path, args.lines)
        n = source.count(b"\n")
        backends = ["ast"] if path.endswith(".py") else []
        for backend in [*backends, "tree-sitter", "structural"]:
            best, median = measure(path, source, backend, args.repeat)
            print(
                f"{path:10} {n:5} lines  {backend:12} min {best * 1000:6.2f} ms  "
                f"median {median * 1000:6.2f} ms  {1 / median:6.0f} files/s"
            )


if __name__ == "__main__":
    main()
