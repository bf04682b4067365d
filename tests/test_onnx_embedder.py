"""The `onnx` backend with a tiny model the test builds: an embedding lookup and a masked mean.

Skipped when onnxruntime or onnx (the `onnx` and `dev` extras) are not installed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed (the `onnx` extra)")
onnx = pytest.importorskip("onnx", reason="onnx not installed (the `dev` extra builds the model)")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from gitstrata.stages.embed import embed_documents  # noqa: E402
from gitstrata.store.config import Config, EmbeddingConfig  # noqa: E402
from gitstrata.store.embedder import BACKENDS, Embedder  # noqa: E402
from gitstrata.store.errors import ConfigError  # noqa: E402
from gitstrata.store.onnx_embed import OnnxBackend, WordPiece  # noqa: E402

VOCAB = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "retry", "charge", "payment", "cache", "expire",
    "token", "##s", "bucket", "parse", "order", "json", "web", "##hook", "sign", "(", ")", ".",
]  # fmt: skip
DIM = 12


def _table(seed: int = 0) -> np.ndarray:
    table = np.random.default_rng(seed).standard_normal((len(VOCAB), DIM)).astype(np.float32)
    table[0] = 0.0  # padding contributes nothing
    return table


def _model(path: Path, table: np.ndarray, *, per_token: bool) -> None:
    """input_ids, attention_mask -> a masked mean of the rows (per_token: the token vectors)."""
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "t"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["b", "t"])
    weights = numpy_helper.from_array(table, "table")
    nodes = [helper.make_node("Gather", ["table", "input_ids"], ["tok"])]
    if per_token:
        out = helper.make_tensor_value_info("out", TensorProto.FLOAT, ["b", "t", DIM])
        nodes.append(helper.make_node("Identity", ["tok"], ["out"]))
        inits = [weights]
    else:
        out = helper.make_tensor_value_info("out", TensorProto.FLOAT, ["b", DIM])
        axes1 = numpy_helper.from_array(np.array([1], np.int64), "axes1")
        axes2 = numpy_helper.from_array(np.array([2], np.int64), "axes2")
        nodes += [
            helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["m", "axes2"], ["m3"]),
            helper.make_node("Mul", ["tok", "m3"], ["masked"]),
            helper.make_node("ReduceSum", ["masked", "axes1"], ["total"], keepdims=0),
            helper.make_node("ReduceSum", ["m", "axes1"], ["count"], keepdims=1),
            helper.make_node("Div", ["total", "count"], ["out"]),
        ]
        inits = [weights, axes1, axes2]
    graph = helper.make_graph(nodes, "tiny", [ids, mask], [out], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def _folder(tmp_path: Path, *, per_token: bool = False, seed: int = 0) -> Path:
    folder = tmp_path / f"model-{int(per_token)}-{seed}"
    folder.mkdir()
    _model(folder / "model.onnx", _table(seed), per_token=per_token)
    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    return folder


def _reference(texts: list[str], table: np.ndarray, vocab: Path) -> np.ndarray:
    wp = WordPiece(vocab)
    return np.stack([table[wp.encode(t, 256)].mean(axis=0) for t in texts])


def test_wordpiece_splits_words_into_known_pieces(tmp_path: Path) -> None:
    (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    wp = WordPiece(tmp_path / "vocab.txt")
    assert wp.encode("Retry tokens: parse(JSON) webhook!", 256) == [
        2, 4, 9, 10, 1, 12, 18, 14, 19, 15, 16, 1, 3,
    ]  # fmt: skip
    assert wp.encode("retry charge payment cache", 4) == [2, 4, 5, 3]


@pytest.mark.parametrize("per_token", [False, True])
def test_the_model_embeds_as_its_graph_says(tmp_path: Path, per_token: bool) -> None:
    folder = _folder(tmp_path, per_token=per_token)
    backend = OnnxBackend.from_folder(folder).fit(["x"])
    texts = ["retry the payment charge", "parse the json order", "cache tokens expire", ""]
    out = backend.transform(texts)
    assert backend.dim == DIM and out.shape == (4, DIM) and out.dtype == np.float32
    np.testing.assert_allclose(
        out, _reference(texts, _table(), folder / "vocab.txt"), rtol=1e-5, atol=1e-6
    )
    # batches of unequal lengths are padded: a text embeds the same alone and in a batch
    np.testing.assert_allclose(backend.transform([texts[2]])[0], out[2], rtol=1e-5, atol=1e-6)


def test_state_carries_the_model_and_the_documents_embed_end_to_end(tmp_path: Path) -> None:
    import pyarrow as pa

    folder = _folder(tmp_path)
    cfg = Config.from_dict({"embedding": {"backend": "onnx", "onnx_model": str(folder)}}).embedding
    n = 3
    docs = pa.table(
        {
            "doc_id": [f"d{i}" for i in range(n)],
            "content_hash": [f"h{i}" for i in range(n)],
            "title": ["retry the charge", "parse the order", "webhook sign"],
            "path": ["pay.py", "orders.py", "hooks.py"],
            "body": ["payment retry", "json order", "sign webhook"],
        }
    )
    result = embed_documents(docs, cfg)
    assert result.refit and result.embedder.full_dim == DIM and result.embedder.mrl_dim == DIM
    state = tmp_path / "state"
    result.embedder.save(state)
    shutil.rmtree(folder)  # the state is self-contained: the configured folder is not needed
    loaded = Embedder.load(state)
    assert isinstance(loaded.backend, BACKENDS["onnx"])
    np.testing.assert_array_equal(
        loaded.embed_query("retry the charge"), result.embedder.embed_query("retry the charge")
    )
    meta = json.loads((state / "meta.json").read_text())
    assert meta["backend"] == "onnx" and len(meta["params"]["sha256"]) == 64
    assert str(tmp_path) not in (state / "meta.json").read_text()  # relocatable


def test_another_model_in_the_folder_refits(tmp_path: Path) -> None:
    a, b = (
        OnnxBackend.from_folder(_folder(tmp_path)),
        OnnxBackend.from_folder(_folder(tmp_path, seed=1)),
    )
    assert a.params()["sha256"] != b.params()["sha256"]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "is not a folder"),
        ("no-model", "has no model.onnx"),
        ("no-vocab", "neither tokenizer.json nor vocab.txt"),
        ("bad-model", "is not a usable ONNX model"),
    ],
)
def test_a_bad_model_folder_is_a_one_line_error(tmp_path: Path, setup: str, message: str) -> None:
    folder = tmp_path / "m"
    if setup != "missing":
        folder.mkdir()
        if setup != "no-model":
            (folder / "model.onnx").write_bytes(b"not a model")
        if setup != "no-vocab":
            (folder / "vocab.txt").write_text("\n".join(VOCAB))
    cfg = EmbeddingConfig.model_validate({"backend": "onnx", "onnx_model": str(folder)})
    with pytest.raises(ConfigError, match=message) as err:
        OnnxBackend.from_folder(cfg.onnx_model).fit(["retry"])
    assert "\n" not in str(err.value)


def test_the_onnx_backend_needs_a_folder() -> None:
    with pytest.raises(ConfigError, match="needs `onnx_model`"):
        Config.from_dict({"embedding": {"backend": "onnx"}})


def test_a_tokenizer_json_is_read_with_the_tokenizers_library(tmp_path: Path) -> None:
    tokenizers = pytest.importorskip("tokenizers", reason="tokenizers not installed")
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    folder = _folder(tmp_path)
    (folder / "vocab.txt").unlink()
    tok = tokenizers.Tokenizer(WordLevel({t: i for i, t in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.pre_tokenizer = Whitespace()
    tok.save(str(folder / "tokenizer.json"))
    backend = OnnxBackend.from_folder(folder).fit(["x"])
    assert backend.params()["vocab"] == "tokenizer.json"
    table = _table()
    out = backend.transform(["retry charge nonsense", "cache"])
    np.testing.assert_allclose(out[0], table[[4, 5, 1]].mean(axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[1], table[7], rtol=1e-5, atol=1e-6)
