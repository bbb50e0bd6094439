"""A paraphrase adapter end to end on the small model: trained from relabelled pairs, its card lists the
relations and counts, and the loop's paraphraser samples with it under a ban (slow: a minute or two on 2 cores)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paraspan.errors import ParaspanError
from paraspan.generate.base import GenerationRequest
from paraspan.train.lora import TrainConfig

pytestmark = pytest.mark.slow

SUBJECTS = ["The farmer", "My sister", "A tall man", "The old teacher", "Our neighbour", "The young cook",
            "A quiet boy", "The new doctor"]
OBJECTS = ["a red bicycle", "the old tractor", "some fresh bread", "a small boat"]


def _pairs(path: Path) -> Path:
    rows = []
    for subject in SUBJECTS:
        for thing in OBJECTS:
            rows.append((f"{subject} quickly bought {thing} at the market.",
                         f"{subject} purchased {thing} at the market.", "equivalence"))
            rows.append((f"{subject} bought {thing} at the market on Monday.", f"{subject} bought {thing}.",
                         "forward_entailment"))
            rows.append((f"{subject} sold {thing}.", f"{subject} sold {thing} to a friend in May.",
                         "reverse_entailment"))
    path.write_text("".join(json.dumps({"id": f"p{k}", "s1": a, "s2": b, "relation": r}) + "\n"
                            for k, (a, b, r) in enumerate(rows)), encoding="utf-8")
    return path


def test_train_a_paraphraser_and_sample_from_it(tmp_path: Path) -> None:
    pytest.importorskip("peft")
    from paraspan.models.resolve import resolve

    try:
        resolve("llm", "small")
    except ParaspanError:
        pytest.skip("the small model package is not installed")
    from paraspan.generate.paraphrase import make_paraphraser
    from paraspan.models.adapters import GGUF_NAME, read_card
    from paraspan.train.pairs import read_labelled_pairs
    from paraspan.train.run import train_paraphraser

    out = tmp_path / "para"
    config = TrainConfig(base="small", epochs=1, batch_size=8, save_steps=8, rank=4, max_length=96, dev_examples=8,
                         max_examples=64)
    card = train_paraphraser(read_labelled_pairs(_pairs(tmp_path / "pairs.jsonl")), out, config,
                             relations=["equivalence", "forward"])
    assert (out / GGUF_NAME).is_file()
    written = read_card(out)
    assert written["task"] == card["task"] and written["relations"] == ["equivalence", "forward"]
    assert set(written["relation_counts"]["train"]) == {"equivalence", "forward"}
    paraphraser = make_paraphraser(adapter=str(out), relation="forward", model="small", samples=3, constraint_sets=1,
                                   n=2, threads=1, batch=8, n_ctx=512)
    text = "The farmer quickly bought a small boat at the market on Monday."
    result = paraphraser.generate(GenerationRequest("x", text, ((19, 25),), ()))
    assert result.stats["sampled"] == 3
    assert all("bought" not in c.text and "buy" not in c.text.lower() for c in result.candidates)
    with pytest.raises(ParaspanError) as caught:
        make_paraphraser(adapter=str(out), relation="reverse", model="small")
    assert caught.value.code == "E524" and "equivalence, forward" in str(caught.value)
