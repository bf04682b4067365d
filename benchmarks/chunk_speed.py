"""Hand-run throughput check: `python -m gitstrata.benchmarks.chunk_speed [--lines 500]`.

Builds deterministic synthetic files (Python, TypeScript, Express-style JavaScript, Go, Rust, C,
C++, C#, Ruby) of about the requested length and prints the time of `parse_source` per file for every backend. Not
a test: timings are machine dependent and never asserted. To compare two versions, run this
module from each checkout in turn, several times, and compare the medians.
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

# Express-style: prototype and member assignments, exports, a helper-defined accessor
_JS_UNIT = """
/**
 * Send a response, number {i}.
 */
res.send{i} = function send(body) {{
  var chunk = body;
  if (typeof chunk === 'string') {{
    this.set('Content-Type', 'text/html');
  }}
  return this.end(chunk);
}};

Service{i}.prototype.call = function call(payload, done) {{
  var self = this;
  this.client.post('/v1/{i}', payload, function (err, result) {{
    if (err) return done(err);
    done(null, self.parse(result));
  }});
}};

exports.total{i} = function (values) {{
  return values.reduce(function (total, v) {{ return total + v * {i}; }}, 0);
}};

defineGetter(req, 'host{i}', function host() {{
  return this.get('X-Forwarded-Host') || this.get('Host');
}});

function helper{i}(options) {{
  var opts = options || {{}};
  return Object.keys(opts).length;
}}
"""

_GO_UNIT = """
// Service{i} calls the remote endpoint number {i}.
type Service{i} struct {{
\tclient  *http.Client
\tretries int
}}

// Call posts the payload and decodes the answer.
func (s *Service{i}) Call(ctx context.Context, payload map[string]int) (Result, error) {{
\tfor attempt := 0; attempt < s.retries; attempt++ {{
\t\tres, err := s.client.Post("/v1/{i}", "application/json", encode(payload))
\t\tif err == nil && res.StatusCode == 200 {{
\t\t\treturn decode(res.Body)
\t\t}}
\t}}
\treturn Result{{}}, errors.New("failed after retries")
}}

func total{i}(values []int) int {{
\ttotal := 0
\tfor _, v := range values {{
\t\ttotal += v * {i}
\t}}
\treturn total
}}
"""

_RS_UNIT = """
/// Service number {i}.
pub struct Service{i} {{
    client: Client,
    retries: usize,
}}

impl Service{i} {{
    pub fn new(client: Client) -> Self {{
        Self {{ client, retries: 3 }}
    }}

    /// Posts the payload and decodes the answer.
    pub async fn call(&self, payload: &Payload) -> Result<Answer, Error> {{
        for _ in 0..self.retries {{
            if let Ok(res) = self.client.post("/v1/{i}", payload).await {{
                return res.json();
            }}
        }}
        Err(Error::Retries)
    }}
}}

impl fmt::Display for Service{i} {{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{
        write!(f, "service-{i}")
    }}
}}
"""

_UNITS = {
    "module.py": _PY_UNIT,
    "module.ts": _TS_UNIT,
    "module.c": _C_UNIT,
    "module.cpp": _CPP_UNIT,
    "Module.cs": _CS_UNIT,
    "module.rb": _RB_UNIT,
    "module.js": _JS_UNIT,
    "module.go": _GO_UNIT,
    "module.rs": _RS_UNIT,
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
