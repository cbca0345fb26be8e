"""A random-weight ONNX embedding model with BERT's interface, and a WordPiece tokenizer, built by the tests.

Same inputs and output as an exported BERT/E5 encoder (``input_ids``, ``attention_mask``, ``token_type_ids`` →
``last_hidden_state`` [batch, tokens, hidden]); inside, a token embedding and one dense layer instead of
attention blocks. Its vectors carry no meaning beyond word overlap, which is all the tests need.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HIDDEN = 32


def build_embedding_model(folder: Path, corpus: list[str], hidden: int = HIDDEN, seed: int = 0) -> Path:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.train_from_iterator(
        corpus, trainers.WordPieceTrainer(vocab_size=800, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
    )
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    tokenizer.save(str(folder / "tokenizer.json"))

    rng = np.random.default_rng(seed)
    vocab = tokenizer.get_vocab_size()
    inits = [
        numpy_helper.from_array(rng.standard_normal((vocab, hidden)).astype(np.float32), "word_embeddings"),
        numpy_helper.from_array(rng.standard_normal((2, hidden)).astype(np.float32) * 0.1, "type_embeddings"),
        numpy_helper.from_array(rng.standard_normal((hidden, hidden)).astype(np.float32) / hidden**0.5, "dense_w"),
        numpy_helper.from_array(np.zeros(hidden, np.float32), "dense_b"),
        numpy_helper.from_array(np.array([2], np.int64), "axis2"),
    ]
    nodes = [
        helper.make_node("Gather", ["word_embeddings", "input_ids"], ["words"]),
        helper.make_node("Gather", ["type_embeddings", "token_type_ids"], ["types"]),
        helper.make_node("Add", ["words", "types"], ["embedded"]),
        helper.make_node("MatMul", ["embedded", "dense_w"], ["projected"]),
        helper.make_node("Add", ["projected", "dense_b"], ["biased"]),
        helper.make_node("Tanh", ["biased"], ["activated"]),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask_f", "axis2"], ["mask_3d"]),
        helper.make_node("Mul", ["activated", "mask_3d"], ["last_hidden_state"]),
    ]
    dims = ["batch", "tokens"]
    graph = helper.make_graph(
        nodes,
        "tiny_encoder",
        [
            helper.make_tensor_value_info(n, TensorProto.INT64, dims)
            for n in ("input_ids", "attention_mask", "token_type_ids")
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [*dims, hidden])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    (folder / "onnx").mkdir(exist_ok=True)
    onnx.save(model, str(folder / "onnx" / "model.onnx"))
    return folder
