"""``paraspan train-generator``: LoRA fine-tuning of a local model to fill spans and triggers of a corpus.

Heavy imports (torch, transformers, peft) happen inside the command.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from paraspan.cli.common import FromFormat, Limit, Split, Splits, console, read_input, reader_options, use_threads
from paraspan.errors import ParaspanError

#: What train-generator can teach: span and trigger infilling of a labelled corpus, or sentence paraphrases.
TRAIN_TASKS = ("infill", "paraphrase")


def train_generator_cmd(
    corpus: Annotated[list[Path], typer.Argument(help="Training corpus file(s), all in one format (train splits "
                                                "only: for FrameNet, the full-text train documents and the "
                                                "exemplars); with --task paraphrase, pair files labelled by "
                                                "`paraspan relabel` (JSONL) or with a relation column "
                                                "(s1<TAB>s2<TAB>relation).")],
    out: Annotated[Path, typer.Option("--output", "-o", help="Adapter folder to write (peft safetensors, a GGUF "
                                      "LoRA, the model card and resumable checkpoints).")],
    fmt: FromFormat = None,
    split: Split = None,
    splits: Splits = None,
    base: Annotated[str, typer.Option(help="Base model: default (Qwen2.5-Coder 1.5B), 0.5b, gemma-270m, small, "
                                      "a .gguf path or a save_pretrained folder.")] = "default",
    kinds: Annotated[str | None, typer.Option(help="Structure kinds to learn, comma-separated: frame, srl, entity "
                                              "(default: every kind the corpus has).")] = None,
    tasks: Annotated[str, typer.Option(help="What is masked: span (arguments, entities), trigger (anchors), or "
                                       "both, comma-separated.")] = "span,trigger",
    dev: Annotated[Path | None, typer.Option(help="Dev corpus for the loss at each checkpoint (default: examples "
                                             "held out of the training corpus).")] = None,
    epochs: Annotated[float, typer.Option(help="Passes over the training examples.")] = 1.0,
    rank: Annotated[int, typer.Option(help="LoRA rank (every projection of every block).")] = 16,
    learning_rate: Annotated[float, typer.Option("--lr", help="Peak learning rate.")] = 2e-4,
    batch_size: Annotated[int, typer.Option(help="Examples per step.")] = 8,
    max_examples: Annotated[int | None, typer.Option(help="Train on at most this many examples.")] = None,
    max_length: Annotated[int, typer.Option(help="Longer examples (tokens) are left out.")] = 160,
    save_steps: Annotated[int, typer.Option(help="Checkpoint (and dev loss) every this many steps.")] = 50,
    patience: Annotated[int, typer.Option(help="Stop after this many checkpoints without a better dev loss.")] = 3,
    threads: Annotated[int | None, typer.Option(help="CPU threads for torch (default: torch's).")] = None,
    device: Annotated[str, typer.Option(help="auto (cuda when available), cpu or cuda.")] = "auto",
    resume: Annotated[bool, typer.Option("--resume", help="Go on from the last checkpoint in -o.")] = False,
    seed: Annotated[int, typer.Option(help="Seed for example drawing, dev hold-out and training.")] = 0,
    limit: Limit = None,
    task: Annotated[str, typer.Option(help="infill (mask spans and triggers of a labelled corpus) or paraphrase "
                                      "(rewrite a sentence under a relation, from relabelled pairs).")] = "infill",
    relations: Annotated[str, typer.Option(help="--task paraphrase: the relations to learn, comma-separated: "
                                           "equivalence, forward (more general), reverse (more specific).")]
    = "equivalence,forward,reverse",
    ban_share: Annotated[float, typer.Option(help="--task paraphrase: the share of examples whose prompt lists "
                                             "source words the answer avoids (teaches rephrasing around a "
                                             "ban).")] = 0.5,
    keep_share: Annotated[float, typer.Option(help="--task paraphrase: the share of examples whose prompt names "
                                              "phrases the answer copies word for word (teaches keeping "
                                              "named phrases, as the augmentation loop keeps argument spans)."
                                              )] = 0.5,
    checked_pairs: Annotated[bool, typer.Option("--checked-pairs/--all-pairs", help="--task paraphrase: teach only "
                                                "the directions whose target passes the word check `paraspan "
                                                "paraphrase --relation` applies to that relation (the counts kept "
                                                "and why the rest went are in the model card), or every pair.")]
    = True,
) -> None:
    """Fine-tune a local model (LoRA) to fill masked argument spans and triggers, learned from the corpus itself
    (or, with --task paraphrase, to paraphrase a sentence under a relation, learned from relabelled pairs).

    Each example masks one or two labelled spans of a structure (or its trigger) with plain-text markers
    naming what they hold (frame + FE, roleset + role, entity type); the answer is the masked text. The
    adapter is written as peft safetensors (transformers backend) and as a GGUF LoRA (llama.cpp), with a
    model card. Use it with `paraspan augment --generator trained --generator-options '{"adapter": "DIR"}'`.

    --task paraphrase: each pair teaches its relation both ways (equivalence both ways; a forward pair read
    backwards is reverse); the prompt names the relation and may list source words to avoid. Use the
    adapter with `paraspan paraphrase --relation R --adapter DIR` or `--set generator.adapter=DIR`.
    """
    from pydantic import ValidationError

    from paraspan.train.lora import TrainConfig
    from paraspan.train.run import train_generator

    err = console()
    try:
        config = TrainConfig(base=base, epochs=epochs, rank=rank, learning_rate=learning_rate,
                             batch_size=batch_size, max_examples=max_examples, max_length=max_length,
                             save_steps=save_steps, patience=patience, device=device, seed=seed)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ParaspanError.from_code("E501", option="--" + str(first["loc"][0]).replace("_", "-"),
                                      value=first.get("input"), fix=str(first["msg"])) from None
    if out.exists() and not out.is_dir():
        raise ParaspanError.from_code("E501", option="-o", value=str(out), fix="give a folder for the adapter")
    from paraspan.train.pairs import TASK as PARAPHRASE

    if task not in TRAIN_TASKS:
        raise ParaspanError.from_code("E501", option="--task", value=task, fix="choose from: " + ", ".join(TRAIN_TASKS))

    def show(logs: dict[str, float]) -> None:
        shown = {k: logs[k] for k in ("loss", "eval_loss", "tokens_per_s", "eta_min", "epoch") if k in logs}
        err.print("train " + json.dumps(shown))

    if task == PARAPHRASE:
        given = {"--from": fmt, "--split": split, "--splits": splits, "--kinds": kinds}
        for option, value in given.items():
            if value is not None:
                raise ParaspanError.from_code("E526", option=option, value=str(value), task=task,
                                              fix="leave it out: pair files are read as labelled pairs")
        use_threads(threads)
        _train_paraphraser(corpus, out, config, dev=dev, relations=relations, ban_share=ban_share,
                           keep_share=keep_share, limit=limit, resume=resume, on_log=show, checked=checked_pairs)
        return
    use_threads(threads)
    options = reader_options(split=split, splits=splits)
    sentences = [s for path in corpus for s in read_input(path, fmt, limit=limit, **options)]
    dev_sentences = list(read_input(dev, fmt, **reader_options())) if dev is not None else None
    kind_list = [k.strip() for k in kinds.split(",") if k.strip()] if kinds else None
    task_list = [t.strip() for t in tasks.split(",") if t.strip()]

    card = train_generator(sentences, out, config, kinds=kind_list, tasks=task_list, dev_sentences=dev_sentences,
                           resume=resume, on_log=show,
                           describe={"corpus": ", ".join(p.name for p in corpus), "format_in": fmt or "auto",
                                     "split": split or "as given"})
    err.print(f"wrote {out}: {card['examples']['train']} examples, {card['steps']} steps, dev loss "
              f"{card['dev_loss']}, {card['tokens_per_second']} tokens/s")


def _train_paraphraser(corpus: list[Path], out: Path, config: Any, *, dev: Path | None, relations: str,
                       ban_share: float, keep_share: float, limit: int | None, resume: bool,
                       on_log: Callable[[dict[str, float]], None], checked: bool = True) -> None:
    """``--task paraphrase``: read every pair file first (a bad line fails before the base loads), then train."""
    from itertools import islice

    from pydantic import ValidationError

    from paraspan.train.checked import check_training_pairs, describe_check
    from paraspan.train.pairs import PairExampleConfig, read_labelled_pairs
    from paraspan.train.run import train_paraphraser

    try:
        example_config = PairExampleConfig(ban_share=ban_share, keep_share=keep_share, seed=config.seed)
    except ValidationError as exc:
        option = "--" + str(exc.errors()[0]["loc"][0]).replace("_", "-")
        raise ParaspanError.from_code("E526", option=option, value=exc.errors()[0].get("input"), task="paraphrase",
                                      fix="give a share between 0 and 1") from None
    pairs = [p for path in corpus for p in read_labelled_pairs(path)]
    if limit is not None:
        pairs = list(islice(pairs, limit))
    dev_pairs = list(read_labelled_pairs(dev)) if dev is not None else None
    wanted = [r.strip() for r in relations.split(",") if r.strip()]
    pairs, dev_pairs, word_check = check_training_pairs(pairs, dev_pairs, _word_check if checked else None,
                                                        example_config, relations=wanted)
    console().print(describe_check(word_check))
    card = train_paraphraser(pairs, out, config, relations=wanted, example_config=example_config,
                             dev_pairs=dev_pairs, resume=resume, on_log=on_log,
                             describe={"corpus": ", ".join(p.name for p in corpus), "format_in": "relabelled pairs",
                                       "split": "as given", "word_check": word_check})
    counts = ", ".join(f"{r} {n}" for r, n in card["relation_counts"]["train"].items())
    console().print(f"wrote {out}: {card['examples']['train']} examples ({counts}), {card['steps']} steps, dev loss "
                    f"{card['dev_loss']}, {card['tokens_per_second']} tokens/s")


def _word_check(relation: str, pairs: Sequence[tuple[str, str]]) -> list[str | None]:
    """Why ``paraspan paraphrase --relation`` would refuse each target as a candidate for its source before the
    judges (its :func:`direction_check`, as :func:`word_check` asks it, in one batch), by the reason's kind."""
    from paraspan.cli.paraphrase_relation import direction_check, reason_kind, refusals

    return [None if why is None else reason_kind(why) for why in refusals(direction_check(relation), pairs)]
