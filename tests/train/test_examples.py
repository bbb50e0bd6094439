"""Training examples: masks, markers, answers, and the refusals before any model is loaded."""

from __future__ import annotations

import random
from importlib.resources import files
from pathlib import Path

import pytest

from paraspan.corpus.jsonl import read_jsonl
from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import ParaspanError
from paraspan.train.examples import (
    ANSWER,
    ExampleConfig,
    Mask,
    build_examples,
    examples_of,
    label_set,
    parse_answer,
    render_prompt,
)
from paraspan.train.lora import TrainConfig
from paraspan.train.run import prepare_examples, train_generator

DEMO = Path(str(files("paraspan").joinpath("data", "demo", "framenet_demo.jsonl")))


def _sell() -> Sentence:
    text = "The farmer sold his old tractor to a neighbour last spring."
    frame = Structure("frame", "Commerce_sell", Span(11, 15, "sell.v"),
                      [Span(0, 10, "Seller"), Span(16, 31, "Goods"), Span(32, 46, "Buyer"), Span(47, 58, "Time")])
    return Sentence("s1", text, [frame])


def _ner() -> Sentence:
    text = "Anna Berg flew from Oslo to Lima."
    return Sentence("n1", text, [Structure("entity", "PER", Span(0, 9)), Structure("entity", "LOC", Span(20, 24)),
                                 Structure("entity", "LOC", Span(28, 32))])


def test_span_example_masks_arguments_and_answers_with_their_text() -> None:
    config = ExampleConfig(trigger_share=0.0, max_spans=2)
    examples = list(examples_of(_sell(), config, random.Random(3)))
    assert len(examples) == 1
    example = examples[0]
    assert example.task == "span" and example.kind == "frame" and example.structure == "Commerce_sell"
    header, body, answer_line = example.prompt.split("\n")
    assert header == "### frame Commerce_sell, sell.v"
    assert answer_line == ANSWER
    fillers = example.answer.split(" | ")
    assert len(fillers) == len(example.labels)
    for label, filler in zip(example.labels, fillers, strict=False):
        assert f"<{label}>" in body
        assert filler in _sell().text and filler not in body


def test_trigger_example_names_the_frame_and_part_of_speech() -> None:
    example = next(examples_of(_sell(), ExampleConfig(trigger_share=1.0), random.Random(0)))
    assert example.task == "trigger"
    assert example.prompt.startswith("### frame Commerce_sell, new trigger .v\nThe farmer <TARGET> his old")
    assert example.answer == "sold"


def test_entity_examples_mask_mentions_by_type() -> None:
    example = next(examples_of(_ner(), ExampleConfig(max_spans=1), random.Random(1)))
    assert example.kind == "entity" and example.prompt.startswith("### entities\n")
    assert len(example.labels) == 1 and f"<{example.labels[0]}>" in example.prompt
    assert example.answer in ("Anna Berg", "Oslo", "Lima")


def test_prompt_and_answer_round_trip() -> None:
    sentence = _sell()
    prompt = render_prompt(sentence.text, sentence.structures[0], [Mask(0, 10, "Seller"), Mask(16, 31, "Goods")],
                           "span")
    assert "<Seller> sold <Goods> to a neighbour" in prompt
    assert parse_answer("My aunt | a red bicycle\nmore", 2) == ["My aunt", "a red bicycle"]
    assert parse_answer("only one", 2) is None
    assert parse_answer("a <Goods> | b", 2) is None


def test_build_examples_on_the_demo_corpus_records_the_labels() -> None:
    examples = build_examples(read_jsonl(DEMO), ExampleConfig(per_structure=3))
    assert len(examples) >= 30
    labels = label_set(examples)
    assert labels["kinds"] == ["frame"]
    assert "Commerce_sell" in labels["structures"] and "Goods" in labels["labels"]


def test_a_corpus_without_the_kind_asked_is_refused_naming_what_it_has() -> None:
    with pytest.raises(ParaspanError) as caught:
        prepare_examples([_ner()], kinds=["frame"])
    assert caught.value.code == "E500"
    assert "entity (3)" in str(caught.value)


def test_too_few_examples_are_refused_before_the_base_loads(tmp_path: Path) -> None:
    with pytest.raises(ParaspanError) as caught:
        train_generator([_sell()], tmp_path / "adapter", TrainConfig(base="no-such-model"))
    assert caught.value.code == "E504"


def test_an_existing_adapter_is_not_overwritten_without_resume(tmp_path: Path) -> None:
    out = tmp_path / "adapter"
    (out / "checkpoints").mkdir(parents=True)
    with pytest.raises(ParaspanError) as caught:
        train_generator([_sell()], out, TrainConfig())
    assert caught.value.code == "E502"


def test_bad_kind_and_task_are_named() -> None:
    with pytest.raises(ParaspanError) as caught:
        prepare_examples([_sell()], kinds=["frames"])
    assert caught.value.code == "E501" and "--kinds" in str(caught.value)
    with pytest.raises(ParaspanError) as caught:
        prepare_examples([_sell()], tasks=["spans"])
    assert "--tasks" in str(caught.value)
