"""Training end to end on the small model: an adapter is written, resumes from its checkpoint, loads in
llama.cpp, and the trained generator places its fillers exactly (slow: a few minutes on 2 cores)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest

from paraspan.corpus.jsonl import read_jsonl
from paraspan.errors import ParaspanError
from paraspan.generate.base import GenerationRequest
from paraspan.train.examples import ExampleConfig
from paraspan.train.lora import TrainConfig, last_checkpoint

DEMO = Path(str(files("paraspan").joinpath("data", "demo", "framenet_demo.jsonl")))

pytestmark = pytest.mark.slow


def test_train_resume_and_generate(tmp_path: Path) -> None:
    pytest.importorskip("peft")
    from paraspan.models.resolve import resolve

    try:
        resolve("llm", "small")
    except ParaspanError:
        pytest.skip("the small model package is not installed")
    from paraspan.generate.trained import TrainedConfig, TrainedInfiller
    from paraspan.llm.adapters import load_adapter_backend
    from paraspan.models.adapters import GGUF_NAME, PEFT_DIR, read_card
    from paraspan.train.run import train_generator

    sentences = list(read_jsonl(DEMO))
    out = tmp_path / "adapter"
    examples = ExampleConfig(per_structure=5, trigger_share=0.3)
    config = TrainConfig(base="small", epochs=1, batch_size=8, save_steps=3, rank=4, max_length=96)
    card = train_generator(sentences, out, config, example_config=examples)
    assert (out / GGUF_NAME).is_file() and (out / PEFT_DIR / "adapter_model.safetensors").stat().st_size > 1000
    assert card["base"]["name"] == "small" and len(card["base"]["sha256"]) == 64
    assert card["examples"]["train"] >= 32 and card["dev_loss"] is not None
    first_steps = card["steps"]
    assert read_card(out)["labels"]["kinds"] == ["frame"]

    resumed = train_generator(sentences, out, config.model_copy(update={"epochs": 2}), example_config=examples,
                              resume=True)
    assert resumed["steps"] == 2 * first_steps  # the second epoch only: it went on from the checkpoint

    # a write failure at the next checkpoint (a full disk) is reported with the last intact checkpoint
    from transformers import Trainer

    intact = last_checkpoint(out / "checkpoints")
    assert intact is not None

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Trainer, "_save_checkpoint", full_disk)
        with pytest.raises(ParaspanError) as caught:
            train_generator(sentences, out, config.model_copy(update={"epochs": 3}), example_config=examples,
                            resume=True)
    assert caught.value.code == "E506" and intact.name in str(caught.value)
    assert last_checkpoint(out / "checkpoints") == intact and (intact / "trainer_state.json").is_file()

    backend, loaded = load_adapter_backend(out, n_threads=1)  # 2 spinning threads stall on a busy machine
    assert loaded["name"] == "adapter"
    generator = TrainedInfiller(backend, loaded, TrainedConfig(masks=3, samples=4, triggers=True))
    sentence = sentences[0]
    result = generator.generate(GenerationRequest(id=sentence.id, text=sentence.text, sentence=sentence,
                                                  structure=0))
    for candidate in result.candidates:
        assert candidate.text != sentence.text
        frame = candidate.structures[0]
        fillers = candidate.meta["fillers"]
        spans = [frame.anchor] if candidate.meta["task"] == "trigger" else [
            a for a in frame.args if a.label in candidate.meta["masked"]]
        assert sorted(candidate.text[s.start:s.end] for s in spans) == sorted(fillers)


def test_resume_without_a_checkpoint_is_refused(tmp_path: Path) -> None:
    from paraspan.train.run import train_generator

    sentences = list(read_jsonl(DEMO))
    with pytest.raises(ParaspanError) as caught:
        train_generator(sentences, tmp_path / "none", TrainConfig(base="small"),
                        example_config=ExampleConfig(per_structure=5), resume=True)
    assert caught.value.code == "E505"
