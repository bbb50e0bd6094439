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
from paraspan.train.pairs import (
    MIN_PER_RELATION,
    PAIR_RELATIONS,
    PROMPT_FORMAT,
    TASK,
    LabelledPair,
    PairExampleConfig,
    build_pair_examples,
    check_relation_counts,
    relation_counts,
    select_examples,
    split_pairs,
)

__all__ = ["KINDS", "lexicon", "prepare_examples", "train_generator", "train_paraphraser"]

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
    _check_output(output, resume)
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
    card.update(_run_card(output, "infill", "paraspan-infill/1", tokenizer, base, report, model, config))
    card.update({"labels": label_set(train), "lexicon": lexicon(sentences),
                 "tasks": sorted({e.task for e in train})})
    return _write(peft_model, output, card, base)


def _run_card(output: Path, task: str, prompt_format: str, tokenizer: Any, base: Any, report: Any, model: Any,
              config: TrainConfig) -> dict[str, Any]:
    """What every adapter's card says of its run: task, prompt layout, base, counts, losses and speed."""
    return {
        "name": output.name,
        "task": task,
        "prompt": {"format": prompt_format, "bos": bool(getattr(tokenizer, "add_bos_token", False)
                                                        and tokenizer.bos_token_id is not None),
                   # which tokenizer cut the training text: llama.cpp's ("gguf") is the one generation uses
                   "tokenizer": "gguf" if isinstance(tokenizer, GGUFTokenizer) else "transformers"},
        "base": {"name": base.name, "sha256": base.sha256, "architecture": base.architecture},
        "examples": {"train": report.train_examples, "dev": report.dev_examples},
        "steps": report.steps, "epochs": report.epochs, "dev_loss": report.dev_loss,
        "stopped_early": report.stopped_early, "best_checkpoint": report.best_checkpoint,
        "trained_seconds": report.seconds, "tokens_per_second": report.tokens_per_second,
        "device": str(next(model.parameters()).device),
        "config": config.model_dump(),
    }


def _write(peft_model: Any, output: Path, card: dict[str, Any], base: Any) -> dict[str, Any]:
    base_gguf = base.path if base.path.endswith(".gguf") else None
    written = write_adapter(peft_model, output, card, base_gguf)
    if base_gguf is None:
        written["note"] = f"no {GGUF_NAME}: the base is not a GGUF file"
    return written


def _check_output(output: Path, resume: bool) -> None:
    """E502 for a finished adapter or run in ``output`` without ``resume``; E505 for nothing to resume."""
    if not resume and output.exists() and ((output / CARD).exists() or (output / "checkpoints").exists()):
        raise TrainError.from_code("E502", path=output)
    if resume:
        from paraspan.train.lora import last_checkpoint

        if last_checkpoint(output / "checkpoints") is None:  # before the minutes a base takes to load
            raise TrainError.from_code("E505", folder=output / "checkpoints")


def prepare_pair_examples(pairs: Sequence[LabelledPair], config: TrainConfig, *,
                          relations: Sequence[str] = PAIR_RELATIONS, example_config: PairExampleConfig | None = None,
                          dev_pairs: Sequence[LabelledPair] | None = None, source: str = "the pairs",
                          minimum: int = MIN_PER_RELATION) -> tuple[list[Example], list[Example], dict[str, Any]]:
    """Train and dev examples of ``relations`` and what the card records of them; E522 when a relation
    has fewer than ``minimum`` training examples (checked on all of them and on the ``max_examples``
    drawn)."""
    from collections import Counter

    for relation in relations:
        if relation not in PAIR_RELATIONS:
            raise TrainError.from_code("E526", option="--relations", value=relation, task=TASK,
                                       fix="choose from: " + ", ".join(PAIR_RELATIONS))
    example_config = example_config or PairExampleConfig(seed=config.seed)
    skipped: Counter[str] = Counter()
    pairs = list(pairs)
    if dev_pairs is None:
        teaching = [p for p in pairs if p.relation is not None]
        held, dev_pairs = split_pairs(teaching, 0.1, config.seed, most=config.dev_examples // 2)
        pairs = held + [p for p in pairs if p.relation is None]
    examples = build_pair_examples(pairs, example_config, relations=relations, skipped=skipped)
    check_relation_counts(examples, relations, f"{len(pairs)} pairs of {source}", minimum)
    dev = build_pair_examples(dev_pairs, example_config, relations=relations)[: config.dev_examples]
    train = select_examples(examples, config.max_examples, relations)
    check_relation_counts(train, relations, f"--max-examples {config.max_examples}", minimum)
    facts = {"relations": list(relations), "relation_counts": {"train": relation_counts(train),
                                                               "dev": relation_counts(dev),
                                                               "available": relation_counts(examples)},
             "pairs": {"read": len(pairs) + len(dev_pairs), "dev": len(dev_pairs), "skipped": dict(skipped)},
             "example_config": example_config.model_dump()}
    return train, dev, facts


def train_paraphraser(pairs: Iterable[LabelledPair], output: Path, config: TrainConfig, *,
                      relations: Sequence[str] = PAIR_RELATIONS, example_config: PairExampleConfig | None = None,
                      dev_pairs: Iterable[LabelledPair] | None = None, resume: bool = False,
                      describe: dict[str, Any] | None = None,
                      on_log: Callable[[dict[str, float]], None] | None = None) -> dict[str, Any]:
    """Train a relation-conditioned paraphraser on relabelled ``pairs`` and write it to ``output``;
    returns its model card (which lists the relations trained and their example counts).

    ``dev_pairs``: where dev loss is measured (default: a tenth of the pairs, held out whole);
    ``describe``: what the card says of the corpus (``corpus``, ``format_in``, ``split``).
    """
    _check_output(output, resume)
    train, dev, facts = prepare_pair_examples(
        list(pairs), config, relations=relations, example_config=example_config,
        dev_pairs=list(dev_pairs) if dev_pairs is not None else None,
        source=str((describe or {}).get("corpus") or "the pairs"))
    if len(train) < MIN_EXAMPLES:
        raise TrainError.from_code("E504", count=len(train), minimum=MIN_EXAMPLES, max_length=config.max_length)
    model, tokenizer, base = load_base(config.base, config.device)
    peft_model, report = train_lora(model, tokenizer, train, dev, output, config, resume=resume, on_log=on_log)
    card: dict[str, Any] = dict(describe or {})
    card.update(_run_card(output, TASK, PROMPT_FORMAT, tokenizer, base, report, model, config))
    card.update(facts)
    card.update({"train_tokens": report.train_tokens, "tasks": [TASK],
                 "labels": {"kinds": [], "structures": [], "labels": []}})
    written = _write(peft_model, output, card, base)
    (output / "README.md").write_text(_paraphraser_readme(written), encoding="utf-8")
    return written


def _paraphraser_readme(card: dict[str, Any]) -> str:
    base = card.get("base", {})
    counts = card.get("relation_counts", {}).get("train", {})
    return "\n".join([
        f"# paraspan adapter: {card.get('name', 'unnamed')}",
        "",
        "A LoRA that paraphrases a sentence under a relation (equivalence, forward: more general, reverse: "
        "more specific), trained on relabelled pairs (`paraspan train-generator --task paraphrase`). Use it "
        "with `paraspan paraphrase --relation R --adapter DIR`.",
        "",
        f"- base model: {base.get('name')} (sha256 {base.get('sha256')})",
        f"- pairs: {card.get('corpus')}",
        "- training examples per relation: " + ", ".join(f"{r} {n}" for r, n in counts.items()),
        f"- steps: {card.get('steps')}, epochs {card.get('epochs')}; dev loss {card.get('dev_loss')}",
        f"- trained {card.get('trained_seconds')} s at {card.get('tokens_per_second')} tokens/s "
        f"on {card.get('device')}",
        "",
    ])
