"""``paraspan align``, ``paraspan train-aligner`` and ``paraspan evaluate alignment``.

Heavy imports (torch, transformers) happen inside the command functions.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from paraspan.cli.common import Progress, ProgressBar, console, table_console, use_threads
from paraspan.errors import ParaspanError


def align_cmd(
    tasks: Annotated[Path, typer.Argument(help="Span tasks, JSONL: id, source, target, source_span [, gold].")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Predictions JSONL ('-' for stdout).")],
    aligner: Annotated[str, typer.Option("--aligner", "-a", help="discriminative, ibm2 or argmax.")] = "discriminative",
    head: Annotated[Path | None, typer.Option(help="discriminative: a head from `paraspan train-aligner` "
                                                 "(default: the shipped one).")] = None,
    encoder: Annotated[str | None, typer.Option(help="discriminative/argmax: encoder name or folder.")] = None,
    threshold: Annotated[float | None, typer.Option(help="Null threshold (default: the tuned one).")] = None,
    bitext: Annotated[list[Path] | None, typer.Option(
        help="ibm2: extra sentence pairs for EM (span-task JSONL, MultiMWA TSV or 'src ||| tgt'); repeatable.")] = None,
    threads: Annotated[int | None, typer.Option(help="Torch threads (default: all cores).")] = None,
    batch_size: Annotated[int, typer.Option(help="Sentence pairs per encoder batch.")] = 32,
    progress: Progress = True,
) -> None:
    """Find, for each task, the span of the target that means what the source span means (or null)."""
    from paraspan.align.base import aligners, get_aligner
    from paraspan.align.tasks import read_task_lines, write_predictions

    if aligner not in aligners():
        raise ParaspanError.from_code("E650", aligner=aligner, choices=", ".join(aligners().names()))
    if bitext and aligner != "ibm2":
        raise ParaspanError.from_code("E651", problem="--bitext is for the ibm2 aligner",
                                      fix="drop --bitext or pass --aligner ibm2")
    if head is not None and aligner != "discriminative":
        raise ParaspanError.from_code("E651", problem="--head is for the discriminative aligner", fix="drop --head")
    lines = read_task_lines(tasks)
    use_threads(threads or os.cpu_count() or 1)
    options: dict[str, Any] = {}
    if aligner == "discriminative":
        options = {"head": head, "encoder": encoder, "threshold": threshold, "batch_size": batch_size}
    elif aligner == "argmax":
        options = {"encoder": encoder, "batch_size": batch_size}
        if threshold is not None:
            options["threshold"] = threshold
    else:
        options = {"bitext": list(bitext or [])}
    start = time.perf_counter()
    model = get_aligner(aligner, **options)
    loaded = time.perf_counter()
    with ProgressBar(f"aligning ({aligner})", len(lines), enabled=progress) as bar:
        results = model.align([t.task for t in lines], progress=bar.advance)
    seconds = time.perf_counter() - loaded
    write_predictions(output, lines, results)
    nulls = sum(r.pred is None for r in results)
    widened = sum(r.widened for r in results)
    rate = len(lines) / seconds if seconds > 0 else float("inf")
    note = f", {widened} source spans widened to token boundaries" if widened else ""
    console().print(f"aligned {len(lines)} tasks with {aligner} in {seconds:.1f}s ({rate:.0f} tasks/s; model load "
                    f"{loaded - start:.1f}s): {nulls} null{note} → {output}")


def train_aligner_cmd(
    train: Annotated[list[Path], typer.Argument(help="Training span tasks (JSONL with gold), e.g. "
                                                "../shared/data/alignment/span-tasks/{mtref,wiki}-train.jsonl.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Where to write the head (.npz).")],
    dev: Annotated[list[Path] | None, typer.Option(help="Dev span tasks, scored once at the end; repeatable.")] = None,
    encoder: Annotated[str, typer.Option(help="Frozen encoder (name or folder).")] = "minilm",
    layer: Annotated[int, typer.Option(help="Encoder layer to read (0: embeddings, -1: last).")] = 2,
    k: Annotated[int, typer.Option(help="Candidate spans: length within k words of the source span's.")] = 5,
    features: Annotated[str, typer.Option(help="Comma-separated feature groups: df, mx, cue, cos, align, lex.")]
    = "df,mx,cue,align,lex",
    hidden: Annotated[int, typer.Option(help="Hidden units of the scorer.")] = 128,
    epochs: Annotated[int, typer.Option(help="Training epochs (the best on the held-out slice is kept).")] = 12,
    lr: Annotated[float, typer.Option(help="Adam learning rate.")] = 1e-3,
    holdout: Annotated[float, typer.Option(help="Share of training pairs held out for epoch and threshold.")] = 0.1,
    seed: Annotated[int, typer.Option(help="Random seed (shuffles, initialization, held-out split).")] = 13,
    threads: Annotated[int | None, typer.Option(help="Torch threads (default: all cores).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON on stdout.")] = False,
) -> None:
    """Train the discriminative aligner's scorer on frozen encoder features and print dev scores."""
    from paraspan.align.train import train_aligner
    from paraspan.evaluate.alignment import format_table

    err = console()
    names = [f.strip() for f in features.split(",") if f.strip()]
    use_threads(threads or os.cpu_count() or 1)
    report = train_aligner(train, dev or [], out=output, encoder=encoder, layer=layer, k=k, features=names,
                           hidden=hidden, epochs=epochs, lr=lr, holdout=holdout, seed=seed, log=err.print)
    size = output.stat().st_size
    err.print(f"wrote {output} ({size / 1e6:.2f} MB): best epoch {report.best_epoch}, null threshold "
                  f"{report.threshold:.3f}, {report.seconds['total']:.0f}s in all")
    if as_json:
        typer.echo(json.dumps({"head": str(output), "config": report.config.__dict__, "history": report.history,
                               "dev": report.dev, "seconds": report.seconds}, indent=2, default=str))
        return
    out = table_console()
    for name, scores in report.dev.items():
        out.print(format_table(scores, title=f"dev: {name}"))


def evaluate_alignment_cmd(
    preds: Annotated[Path, typer.Argument(help="Predictions JSONL from `paraspan align` (with gold spans).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False,
) -> None:
    """Exact-match and soft (token-overlap) span P/R/F1, overall and on non-identical tasks."""
    from paraspan.evaluate.alignment import AlignmentEvaluator, format_table, read_predictions

    records = read_predictions(preds)
    scores = AlignmentEvaluator()(records)
    if as_json:
        typer.echo(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in scores.items()}, indent=2))
        return
    table_console().print(format_table(scores, title=str(preds)))
