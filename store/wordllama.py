"""The `wordllama` embedding backend: a pretrained static token-embedding model, fully offline.

The `wordllama` wheel ships its 256-d model (`weights/l2_supercat_256.safetensors`, a 32k x 256
float16 token table) and the tokenizer (`tokenizers/l2_supercat_tokenizer_config.json`) inside
the package folder. Both files are read from there by path, with `safetensors` and `tokenizers`:
nothing here can reach the network (the package's own `WordLlama.load()` falls back to
downloading from a model hub when a file is missing, and importing it configures the root
logger), and the package itself is never imported. A text's vector is the mean of its tokens'
rows (the model's own pooling), so paraphrases that share no surface form still land close.

The model is pretrained: `fit` returns the backend unchanged and the state holds no arrays, only
the parameters and the `wordllama` version whose files made the vectors; loading a state made
with another version is an error naming the rebuild, because documents and queries would no
longer be embedded alike. Its dimensions are Matryoshka-trained, so a prefix is sound.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from .errors import ConfigError, IndexCorrupt

REBUILD = "gitstrata index --rebuild"
MODEL = "l2_supercat"
MODEL_DIM = 256
# tokens per text: a document's head carries its title, path and signature; the mean over a long
# body only dilutes them (and bounds the work on generated files)
MAX_TOKENS = 512

# a long text is tokenized from its head: this many characters a token at first (code runs to
# about 3), and this many tokens beyond `max_tokens` before the cut keep the tokens those of
# the whole text
CHARS_PER_TOKEN = 4
CUT_MARGIN = 16

_LOCK = threading.Lock()
_MODELS: dict[tuple[str, int], tuple[Any, np.ndarray]] = {}


def package_dir() -> Path:
    """The installed `wordllama` package folder, found without importing the package."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            "embedding backend 'wordllama' needs the wordllama package, which is not installed",
            hint="pip install 'wordllama>=0.4', or set embedding.backend to 'hashing-lsa'",
        )
    return Path(next(iter(spec.submodule_search_locations)))


def installed_version() -> str:
    package_dir()  # the clear error first when it is missing
    import importlib.metadata  # tens of ms: only an index that uses the backend needs it

    return importlib.metadata.version("wordllama")


def _load_model(model: str, dim: int) -> tuple[Any, np.ndarray]:
    """(tokenizer, float32 token table[vocab, dim]) from the package folder, cached per process."""
    key = (model, dim)
    with _LOCK:
        got = _MODELS.get(key)
        if got is not None:
            return got
        root = package_dir()
        weights = root / "weights" / f"{model}_{MODEL_DIM}.safetensors"
        vocab = root / "tokenizers" / f"{model}_tokenizer_config.json"
        for path in (weights, vocab):
            if not path.is_file():
                raise ConfigError(
                    f"the wordllama package lacks its model file {path.name}",
                    hint="reinstall it: pip install --force-reinstall 'wordllama>=0.4'",
                )
        from safetensors import safe_open
        from tokenizers import Tokenizer

        with safe_open(str(weights), framework="np") as fh:
            # float32 once (32 MB): gathering and averaging float16 rows cost 6x more per text
            table = np.ascontiguousarray(fh.get_tensor("embedding.weight")[:, :dim], np.float32)
        tokenizer = Tokenizer.from_file(str(vocab))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        _MODELS[key] = (tokenizer, table)
        return tokenizer, table


class WordLlamaBackend:
    """Mean-pooled static token embeddings of the `wordllama` model (see the module doc)."""

    name: ClassVar[str] = "wordllama"
    matryoshka: ClassVar[bool] = True

    def __init__(
        self,
        *,
        model: str = MODEL,
        dim: int = MODEL_DIM,
        max_tokens: int = MAX_TOKENS,
        version: str | None = None,
    ) -> None:
        if not 1 <= dim <= MODEL_DIM:
            raise ValueError(f"wordllama dim must be in 1..{MODEL_DIM}, got {dim}")
        self.model = model
        self._dim = dim
        self.max_tokens = max_tokens
        self.version = version if version is not None else installed_version()

    @property
    def dim(self) -> int:
        return self._dim

    def params(self) -> dict:
        return {
            "model": self.model,
            "dim": self._dim,
            "max_tokens": self.max_tokens,
            "version": self.version,
        }

    def fit(self, texts: Sequence[str]) -> WordLlamaBackend:
        return self

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dim), np.float32)
        if not len(texts):
            return out
        tokenizer, table = _load_model(self.model, self._dim)
        for row, ids in enumerate(self._token_ids(tokenizer, texts)):
            if len(ids):
                out[row] = table[np.clip(ids, 0, len(table) - 1)].mean(axis=0)
        return out

    def _token_ids(self, tokenizer: Any, texts: Sequence[str]) -> list[np.ndarray]:
        """The first `max_tokens` token ids of each text. A long text is tokenized from its head
        (`CHARS_PER_TOKEN` characters a token, doubled until the head yields `CUT_MARGIN`
        tokens more than needed, or is the whole text): BPE merges are local, so the tokens
        well before the cut are those of the whole text, and BPE over one long run of text
        costs more than linear time (documents' bodies run to thousands of tokens)."""
        out: list[list[int]] = [[] for _ in texts]
        todo = list(range(len(texts)))
        limit = self.max_tokens * CHARS_PER_TOKEN
        while todo:
            encoded = tokenizer.encode_batch(
                [texts[i][:limit] for i in todo], add_special_tokens=False
            )
            again = []
            for i, e in zip(todo, encoded, strict=True):
                if len(texts[i]) > limit and len(e.ids) < self.max_tokens + CUT_MARGIN:
                    again.append(i)
                else:
                    out[i] = e.ids
            todo, limit = again, limit * 2
        return [np.asarray(ids[: self.max_tokens], np.int64) for ids in out]

    def save(self, directory: Path) -> None:
        """Nothing but `meta.json`'s parameters: the model is the installed package's."""

    @classmethod
    def load(cls, directory: Path, meta: dict) -> WordLlamaBackend:
        params = dict(meta["params"])
        installed = installed_version()
        if params.get("version") != installed:
            raise IndexCorrupt(
                f"{directory}: embedded with wordllama {params.get('version')}, "
                f"installed is {installed}",
                hint=f"run `{REBUILD}`",
            )
        backend = cls(**params)
        # a loaded state serves queries: read the model now, so a server's warm-up pays for it
        # rather than its first query
        _load_model(backend.model, backend.dim)
        return backend
