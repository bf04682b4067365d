"""The `onnx` embedding backend: a local sentence-embedding model run by onnxruntime.

The configured folder (`embedding.onnx_model`) holds `model.onnx` and its vocabulary, either a
`tokenizer.json` (read with the `tokenizers` library) or a WordPiece `vocab.txt` (tokenized here:
lower-cased words and punctuation, greedy longest-match sub-words with `##` continuations, and
`[CLS]`/`[SEP]` around when the vocabulary has them). Nothing is downloaded: a file that is
missing is an error naming it. The model takes `input_ids` (and `attention_mask`,
`token_type_ids` when it declares them) and returns either one vector per text or one per token,
which are mean-pooled over the real tokens.

The model is pretrained: `fit` only runs it once to learn its width. `save` copies the model and
its vocabulary into the embedder state, so a generation is self-contained and relocatable and a
query is embedded by exactly the files that embedded the documents; their sha256 is the
backend's identity, so replacing the model refits. onnxruntime and the `tokenizers` library come
with the optional `onnx` extra.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from .errors import ConfigError, IndexCorrupt

REBUILD = "gitstrata index --rebuild"
MODEL_FILE = "model.onnx"
VOCAB_FILES = ("tokenizer.json", "vocab.txt")
STATE_PREFIX = "onnx_"  # the copies in the embedder state, beside the other backends' files
INSTALL_HINT = "pip install 'gitstrata[onnx]'"
BATCH = 64


def file_digest(paths: Sequence[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.name.encode() + b"\0")
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def model_files(folder: str | Path) -> tuple[Path, Path]:
    """(model, vocabulary) of a model folder, or a one-line `ConfigError` naming what lacks."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise ConfigError(
            f"embedding.onnx_model: {folder} is not a folder",
            hint=f"point it at a folder holding {MODEL_FILE} and tokenizer.json or vocab.txt",
        )
    model = root / MODEL_FILE
    if not model.is_file():
        raise ConfigError(f"embedding.onnx_model: {folder} has no {MODEL_FILE}")
    for name in VOCAB_FILES:
        if (root / name).is_file():
            return model, root / name
    raise ConfigError(f"embedding.onnx_model: {folder} has neither tokenizer.json nor vocab.txt")


# ---------------------------------------------------------------- tokenizers

_WORDS = re.compile(r"\w+|[^\w\s]", re.UNICODE)


class WordPiece:
    """BERT's uncased WordPiece over a `vocab.txt` (one token per line, id = line number)."""

    def __init__(self, vocab_file: Path, max_chars: int = 100) -> None:
        lines = vocab_file.read_text(encoding="utf-8").splitlines()
        self.vocab = {tok: i for i, tok in enumerate(lines) if tok}
        self.max_chars = max_chars
        self.unk = self.vocab.get("[UNK]", 0)
        self.pad = self.vocab.get("[PAD]", 0)
        self.cls = self.vocab.get("[CLS]")
        self.sep = self.vocab.get("[SEP]")

    def _word(self, word: str) -> list[int]:
        if len(word) > self.max_chars:
            return [self.unk]
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    out.append(self.vocab[piece])
                    break
                end -= 1
            else:
                return [self.unk]
            start = end
        return out

    def encode(self, text: str, max_tokens: int) -> list[int]:
        text = unicodedata.normalize("NFD", text.lower())
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        ids: list[int] = []
        for word in _WORDS.findall(text):
            ids += self._word(word)
        budget = max_tokens - (self.cls is not None) - (self.sep is not None)
        ids = ids[: max(0, budget)]
        if self.cls is not None:
            ids.insert(0, self.cls)
        if self.sep is not None:
            ids.append(self.sep)
        return ids


class _HFTokenizer:
    """A `tokenizer.json` read by the `tokenizers` library (special tokens as it defines them)."""

    def __init__(self, path: Path) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise ConfigError(
                "embedding backend 'onnx' with a tokenizer.json needs the tokenizers package",
                hint=INSTALL_HINT,
            ) from None
        try:
            self.tok = Tokenizer.from_file(str(path))
        except Exception as exc:  # the library raises a bare Exception for a bad file
            raise ConfigError(f"embedding.onnx_model: unreadable {path.name} ({exc})") from None
        self.tok.no_padding()
        self.tok.no_truncation()
        self.pad = self.tok.token_to_id("[PAD]") or self.tok.token_to_id("<pad>") or 0

    def encode(self, text: str, max_tokens: int) -> list[int]:
        return list(self.tok.encode(text).ids[:max_tokens])


def _tokenizer(vocab: Path) -> WordPiece | _HFTokenizer:
    return _HFTokenizer(vocab) if vocab.name == "tokenizer.json" else WordPiece(vocab)


def _session(model: Path) -> Any:
    try:
        import onnxruntime as ort
    except ImportError:
        raise ConfigError(
            "embedding backend 'onnx' needs onnxruntime, which is not installed", hint=INSTALL_HINT
        ) from None
    opts = ort.SessionOptions()
    # one thread: the same sums in the same order on every machine, and the batch side already
    # runs one process per core
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's errors share no public base class
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(
            f"embedding.onnx_model: {model.name} is not a usable ONNX model ({first[:200]})"
        ) from None


# ---------------------------------------------------------------- the backend


class OnnxBackend:
    """A local ONNX sentence-embedding model (see the module doc)."""

    name: ClassVar[str] = "onnx"
    matryoshka: ClassVar[bool] = False

    def __init__(
        self,
        *,
        model: Path | None = None,
        vocab: Path | None = None,
        max_tokens: int = 256,
        sha256: str | None = None,
        dim: int | None = None,
    ) -> None:
        self.model_path = model
        self.vocab_path = vocab
        self.max_tokens = max_tokens
        self.sha256 = sha256
        self._dim = dim
        self._session: Any = None
        self._tok: WordPiece | _HFTokenizer | None = None

    @classmethod
    def from_folder(cls, folder: str | Path | None, *, max_tokens: int = 256) -> OnnxBackend:
        if not folder:
            raise ConfigError(
                "embedding backend 'onnx' needs embedding.onnx_model",
                hint="set it to a folder holding model.onnx and tokenizer.json or vocab.txt",
            )
        model, vocab = model_files(folder)
        return cls(
            model=model, vocab=vocab, max_tokens=max_tokens, sha256=file_digest([model, vocab])
        )

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._run(["a"]).shape[1])
        return self._dim

    def params(self) -> dict:
        vocab = self.vocab_path.name if self.vocab_path is not None else None
        return {"max_tokens": self.max_tokens, "sha256": self.sha256, "vocab": vocab}

    def _ready(self) -> tuple[Any, WordPiece | _HFTokenizer]:
        if self._session is None or self._tok is None:
            if self.model_path is None or self.vocab_path is None:
                raise ConfigError("embedding backend 'onnx' has no model folder")
            self._tok = _tokenizer(self.vocab_path)
            self._session = _session(self.model_path)
        return self._session, self._tok

    def _run(self, texts: Sequence[str]) -> np.ndarray:
        session, tok = self._ready()
        ids = [tok.encode(t, self.max_tokens) or [tok.pad] for t in texts]
        width = max(len(i) for i in ids)
        input_ids = np.full((len(ids), width), tok.pad, np.int64)
        mask = np.zeros((len(ids), width), np.int64)
        for row, seq in enumerate(ids):
            input_ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        feed = {}
        for arg in session.get_inputs():
            if arg.name == "input_ids":
                feed[arg.name] = input_ids
            elif arg.name == "attention_mask":
                feed[arg.name] = mask
            elif arg.name == "token_type_ids":
                feed[arg.name] = np.zeros_like(input_ids)
            else:
                raise ConfigError(
                    f"embedding.onnx_model: unexpected model input {arg.name!r}",
                    hint="the model must take input_ids (and attention_mask, token_type_ids)",
                )
        try:
            out = np.asarray(session.run(None, feed)[0], dtype=np.float32)
        except Exception as exc:  # onnxruntime's errors share no public base class
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ConfigError(f"embedding.onnx_model: the model failed ({first[:200]})") from None
        if out.ndim == 3:  # one vector per token: the mean over the real ones
            m = mask[:, :, None].astype(np.float32)
            out = (out * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)
        if out.ndim != 2 or out.shape[0] != len(texts):
            raise ConfigError(
                f"embedding.onnx_model: the model's output has shape {out.shape}, "
                "expected (texts, dim) or (texts, tokens, dim)"
            )
        return out

    def fit(self, texts: Sequence[str]) -> OnnxBackend:
        _ = self.dim
        return self

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        if not len(texts):
            return np.zeros((0, self.dim), np.float32)
        return np.concatenate(
            [self._run(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)]
        )

    def save(self, directory: Path) -> None:
        if self.model_path is None or self.vocab_path is None:
            raise ConfigError("embedding backend 'onnx' has no model folder")
        for src in (self.model_path, self.vocab_path):
            dst = directory / f"{STATE_PREFIX}{src.name}"
            if src.resolve() != dst.resolve():
                shutil.copyfile(src, dst)

    @classmethod
    def load(cls, directory: Path, meta: dict) -> OnnxBackend:
        params = meta["params"]
        model = directory / f"{STATE_PREFIX}{MODEL_FILE}"
        vocab = directory / f"{STATE_PREFIX}{params.get('vocab')}"
        if not model.is_file() or not vocab.is_file():
            raise IndexCorrupt(
                f"{directory}: the ONNX model files are missing", hint=f"run `{REBUILD}`"
            )
        return cls(
            model=model,
            vocab=vocab,
            max_tokens=int(params["max_tokens"]),
            sha256=params.get("sha256"),
            dim=int(meta["full_dim"]) if "full_dim" in meta else None,
        )
