"""One training run of a generator adapter: examples from a corpus → LoRA → adapter folder."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from paraspan.corpus.schema import Sentence
from paraspan.errors import TrainError
from paraspan.train.examples import TASKS, Example, ExampleConfig, build_examples, corpus_kinds, label_set
from paraspan.train.export import CARD, GGUF_NAME, write_adapter
from paraspan.train.lora import MIN_EXAMPLES, GGUFTokenizer, TrainConfig, load_base, train_lora

__all__ = ["KINDS", "lexicon", "prepare_examples", "train_generator"]

#: Structure kinds an adapter can learn to fill.
KINDS = ("frame", "srl", "entity")


def prepare_examples(sentences: Iterable[Sentence], *, kinds: Sequence[str] | None = None,
                     tasks: Sequence[str] = TASKS, example_config: ExampleConfig | None = None,
                     limit: int | None = None) -> list[Example]:
    """Training examples of ``kinds`` (default: every kind the corpus has); E500 when it has none of them."""
    sentences = list(sentences)
    have = corpus_kinds(sentences)
    for kind in kinds or ():
        if kind not in KINDS:
            raise TrainError.from_code("E501", option="--kinds", value=kind, fix="choose from: " + ", ".join(KINDS))
    for task in tasks:
        if task not in TASKS:
            raise TrainError.from_code("E501", option="--tasks", value=task, fix="choose from: " + ", ".join(TASKS))
    wanted = list(kinds) if kinds else sorted(have)
    if not wanted or not any(have.get(k) for k in wanted):
        shown = ", ".join(f"{k} ({n})" for k, n in sorted(have.items())) or "no structures with spans"
        raise TrainError.from_code("E500", wanted=", ".join(wanted) or "labelled", have=shown)
    return build_examples(sentences, example_config, tasks=tasks, kinds=wanted, limit=limit)


def lexicon(sentences: Iterable[Sentence]) -> dict[str, list[str]]:
    """Each frame's lexical units as the corpus annotates them (``{"Commerce_sell": ["sell.v", …]}``):
    the triggers a trained generator may propose for a frame."""
    units: dict[str, set[str]] = {}
    for sentence in sentences:
        for structure in sentence.structures:
            if structure.kind == "frame" and structure.anchor is not None and structure.anchor.label:
                units.setdefault(structure.label, set()).add(structure.anchor.label)
    return {frame: sorted(names) for frame, names in sorted(units.items())}


def _split_dev(examples: list[Example], count: int, seed: int) -> tuple[list[Example], list[Example]]:
    """Hold out ``count`` examples for dev loss, chosen by a hash of the prompt (stable across runs)."""
    if count <= 0:
        return examples, []
    scored = sorted(examples, key=lambda e: hashlib.sha1(f"{seed}:{e.prompt}".encode()).hexdigest())
    dev = scored[:count]
    held = {id(e) for e in dev}
    return [e for e in examples if id(e) not in held], dev


def train_generator(sentences: Iterable[Sentence], output: Path, config: TrainConfig, *,
                    kinds: Sequence[str] | None = None, tasks: Sequence[str] = TASKS,
                    dev_sentences: Iterable[Sentence] | None = None, resume: bool = False,
                    example_config: ExampleConfig | None = None, describe: dict[str, Any] | None = None,
                    on_log: Callable[[dict[str, float]], None] | None = None) -> dict[str, Any]:
    """Train an adapter on ``sentences`` and write it to ``output``; returns its model card.

    ``dev_sentences``: where dev loss is measured (default: examples held out of ``sentences``).
    ``example_config``: how examples are drawn (:class:`ExampleConfig`); ``describe``: what the card
    says of the corpus (``corpus``, ``format_in``, ``split``).
    """
    if not resume and output.exists() and ((output / CARD).exists() or (output / "checkpoints").exists()):
        raise TrainError.from_code("E502", path=output)
    if resume:
        from paraspan.train.lora import last_checkpoint

        if last_checkpoint(output / "checkpoints") is None:  # before the minutes a base takes to load
            raise TrainError.from_code("E505", folder=output / "checkpoints")
    sentences = list(sentences)
    examples = prepare_examples(sentences, kinds=kinds, tasks=tasks, example_config=example_config)
    if dev_sentences is not None:
        dev = prepare_examples(dev_sentences, kinds=kinds, tasks=tasks, example_config=example_config)
        dev = random.Random(config.seed).sample(dev, min(len(dev), config.dev_examples))
        train = examples
    else:
        train, dev = _split_dev(examples, min(config.dev_examples, len(examples) // 10), config.seed)
    if config.max_examples is not None:
        train = train[: config.max_examples]
    if len(train) < MIN_EXAMPLES:  # before the minutes a base takes to load
        raise TrainError.from_code("E504", count=len(train), minimum=MIN_EXAMPLES, max_length=config.max_length)
    model, tokenizer, base = load_base(config.base, config.device)
    peft_model, report = train_lora(model, tokenizer, train, dev, output, config, resume=resume, on_log=on_log)
    card: dict[str, Any] = dict(describe or {})
    card.update({
        "name": output.name,
        "task": "infill",
        "prompt": {"format": "paraspan-infill/1", "bos": bool(getattr(tokenizer, "add_bos_token", False)
                                                              and tokenizer.bos_token_id is not None),
                   # which tokenizer cut the training text: llama.cpp's ("gguf") is the one generation uses
                   "tokenizer": "gguf" if isinstance(tokenizer, GGUFTokenizer) else "transformers"},
        "base": {"name": base.name, "sha256": base.sha256, "architecture": base.architecture},
        "labels": label_set(train),
        "lexicon": lexicon(sentences),
        "tasks": sorted({e.task for e in train}),
        "examples": {"train": report.train_examples, "dev": report.dev_examples},
        "steps": report.steps, "epochs": report.epochs, "dev_loss": report.dev_loss,
        "stopped_early": report.stopped_early, "best_checkpoint": report.best_checkpoint,
        "trained_seconds": report.seconds, "tokens_per_second": report.tokens_per_second,
        "device": str(next(model.parameters()).device),
        "config": config.model_dump(),
    })
    base_gguf = base.path if base.path.endswith(".gguf") else None
    written = write_adapter(peft_model, output, card, base_gguf)
    if base_gguf is None:
        written["note"] = f"no {GGUF_NAME}: the base is not a GGUF file"
    return written
