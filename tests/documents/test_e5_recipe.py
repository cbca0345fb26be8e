"""LocalMind's vectors equal the multilingual-e5 model card's own recipe, with the catalog entry's settings.

The card's code: "query: " / "passage: " in front of every text, the encoder's last hidden state averaged over the
attention mask (``average_pool``), then ``F.normalize(p=2)``. Here a random-weight BERT (the architecture of
multilingual-e5-small, smaller) runs both ways — that recipe in torch, and LocalMind's Embedder on its ONNX export
with the embedding.json the model manager writes from the catalog — on a query and a passage of different lengths
batched together (so padding is exercised). What this cannot check: the real weights and SentencePiece tokenizer
(none can be downloaded here), hence not the similarity floor either.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from localmind.core.catalog import find_entry, load_catalog
from localmind.documents.embed import Embedder
from tests.documents.embedding_model import build_embedding_model
from tests.documents.files import FACTS, FILLER

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

pytestmark = pytest.mark.slow

QUERY = "how much rain did the Kestrel Ridge gauge record"
PASSAGE = "The rain gauge at Kestrel Ridge recorded 417 millimetres in the wet season. " + FILLER


def test_vectors_follow_the_model_cards_recipe(tmp_path: Path) -> None:
    from tokenizers import Tokenizer

    folder = build_embedding_model(tmp_path / "e5-like", [FILLER, QUERY, PASSAGE, *(f for _, f, _ in FACTS.values())])
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    config = transformers.BertConfig(
        vocab_size=tokenizer.get_vocab_size(), hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=96, max_position_embeddings=512,
    )  # fmt: skip
    torch.manual_seed(0)
    bert = transformers.BertModel(config).eval()

    class Encoder(torch.nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            out = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    ids = torch.ones((2, 8), dtype=torch.long)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter(
            "ignore"
        )  # the exporter's tracer and deprecation notices (the suite turns them into errors)
        torch.onnx.export(
            Encoder().eval(), (ids, ids, torch.zeros_like(ids)), str(folder / "onnx" / "model.onnx"),
            input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["last_hidden_state"],
            dynamic_axes={n: {0: "batch", 1: "tokens"} for n in ("input_ids", "attention_mask", "token_type_ids")},
            opset_version=17, dynamo=False,
        )  # fmt: skip
    entry = find_entry(load_catalog(), "multilingual-e5-small")
    assert entry is not None
    (folder / "embedding.json").write_text(json.dumps({**entry.embedding, "onnx": "onnx/model.onnx"}))

    # The model card's recipe, in torch.
    texts = ["query: " + QUERY, "passage: " + PASSAGE]
    encoded = [tokenizer.encode(t).ids[:512] for t in texts]
    width = max(len(e) for e in encoded)
    input_ids = torch.tensor([e + [0] * (width - len(e)) for e in encoded])
    mask = torch.tensor([[1] * len(e) + [0] * (width - len(e)) for e in encoded])
    assert mask[0].sum() < mask[1].sum()  # the query is padded in this batch
    with torch.no_grad():
        hidden = bert(input_ids=input_ids, attention_mask=mask, token_type_ids=torch.zeros_like(input_ids))
        last = hidden.last_hidden_state.masked_fill(~mask[..., None].bool(), 0.0)
        pooled = last.sum(dim=1) / mask.sum(dim=1)[..., None]
        reference = torch.nn.functional.normalize(pooled, p=2, dim=1).numpy()

    embedder = Embedder(folder)
    query = embedder.embed_query(QUERY)
    passage = embedder.embed_passages([PASSAGE])[0]
    np.testing.assert_allclose(query, reference[0], atol=2e-5)
    np.testing.assert_allclose(passage, reference[1], atol=2e-5)
    # Without the prefixes the vectors differ: they are applied, and where the card says.
    assert not np.allclose(Embedder(folder).embed_passages([QUERY])[0], query, atol=1e-3)
