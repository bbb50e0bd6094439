"""``paraspan infill`` (sister-LU replacement + FE infilling + FE filter) and ``paraspan train-fe-classifier``.

Heavy imports (torch, transformers, llama.cpp) happen inside the command functions.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from paraspan.cli.common import (
    FilterSpec,
    Limit,
    Progress,
    Rejected,
    console,
    feature_cache,
    use_threads,
)
from paraspan.errors import ParaspanError


def infill_cmd(
    corpus: Annotated[Path, typer.Argument(help="JSONL corpus with FrameNet frame structures.")],
    out: Annotated[Path, typer.Option("--output", "-o", help="Output JSONL of new sentences ('-' for stdout).")],
    frames: Annotated[Path, typer.Option("--frames", help="FrameNet release (folder or .tar.gz) for the frame "
                                         "index: sister LUs, core FEs, FE inheritance, definitions.")],
    conditioning: Annotated[str, typer.Option(help="What the model is told: none, fe (FE names) or frame+fe "
                                              "(frame, LU, FE names and definitions).")] = "frame+fe",
    candidates: Annotated[int, typer.Option(help="Answers sampled per sentence and target LU (overgenerate).")] = 4,
    target: Annotated[str, typer.Option(help="Target LUs: all sisters, or only those FrameNet has no "
                                        "annotations for (unannotated).")] = "all",
    max_targets: Annotated[int, typer.Option(help="Target LUs tried per frame structure.")] = 1,
    keep: Annotated[int, typer.Option(help="Outputs kept per structure and target LU (lowest perplexity).")] = 1,
    model: Annotated[str, typer.Option(help="LLM: default, small, or a .gguf path.")] = "default",
    classifier: Annotated[Path | None, typer.Option(help="FE classifier head (.npz or folder; default: "
                                                    "packaged).")] = None,
    no_filter: Annotated[bool, typer.Option("--no-filter", help="Keep outputs whatever their FE fidelity "
                                            "(it is still recorded).")] = False,
    all_candidates: Annotated[Path | None, typer.Option("--all-candidates", help="Also write every candidate "
                                                        "the generator returned (with --no-filter every parsed "
                                                        "one), placed or not, to this JSONL.")] = None,
    phrase_types: Annotated[bool, typer.Option(help="Read FrameNet's phrase types (PT layer) from the --frames "
                                               "release for sentences converted from it (else a parse decides "
                                               "which spans are PPs).")] = True,
    shots: Annotated[int, typer.Option(help="Few-shot examples from the corpus in each prompt.")] = 2,
    seed: Annotated[int, typer.Option(help="Random seed (target choice, sampling).")] = 0,
    limit: Limit = None,
    workers: Annotated[str, typer.Option("--workers", help="Worker processes, each with its own models: auto (one "
                                         "per core, as many as the free memory holds, about 3.5 GB each with "
                                         "the default model) or N. The output is the same whatever the number.")]
    = "auto",
    threads: Annotated[str, typer.Option("--threads", help="CPU threads per worker (LLM and FE classifier): auto "
                                         "(the cores shared among the workers) or N.")] = "auto",
    summary_path: Annotated[Path | None, typer.Option("--summary", help="Write the counters as JSON here.")] = None,
    filter_name: FilterSpec = "verified",
    rejected: Rejected = None,
    progress: Progress = True,
) -> None:
    """Make new annotated sentences by swapping in a sister LU and regenerating the FE spans that no longer fit:
    `paraspan augment --generator infill -k 1`, the corpus its own few-shot examples.

    Keeps only outputs whose new spans the FE-type classifier labels as the intended FEs (FE fidelity 1.0);
    provenance records lu_from, lu_to, conditioning, fe_fidelity and perplexity.
    """
    from paraspan.cli.preset import Preset, report, run_preset
    from paraspan.generate.infill import CONDITIONING, TARGETS

    if conditioning not in CONDITIONING:
        raise ParaspanError.from_code("E801", option="--conditioning", value=conditioning,
                                      choices=", ".join(CONDITIONING))
    if target not in TARGETS:
        raise ParaspanError.from_code("E802", option="--target", value=target, choices=", ".join(TARGETS))
    if candidates < 1 or keep < 1 or max_targets < 1:
        raise ParaspanError.from_code("E803", problem="--candidates, --keep and --max-targets must be at least 1",
                                      fix="e.g. --candidates 4")
    if not corpus.is_file():
        raise ParaspanError.from_code("E010", file=str(corpus), what="file",
                                      fix="give a JSONL corpus (paraspan convert makes one)")
    if not frames.exists():
        raise ParaspanError.from_code("E010", file=str(frames), what="file or folder",
                                      fix="give a FrameNet release (its folder or .tar.gz)")

    def attach(sentences: list[Any]) -> None:
        if phrase_types and any("annoset_id" in st.extra for s in sentences for st in s.structures):
            from paraspan.corpus.phrase_types import attach_phrase_types, read_phrase_types

            attach_phrase_types(sentences, read_phrase_types(frames))

    preset = Preset("infill", {"frames": str(frames), "model": model,
                               "classifier": str(classifier) if classifier is not None else None,
                               "conditioning": conditioning, "candidates": candidates, "targets": target,
                               "max_targets": max_targets, "keep": keep, "shots": shots, "strict": not no_filter,
                               "seed": seed, "examples": str(corpus)})
    start = time.perf_counter()
    result = run_preset(preset, corpus, out, filter_name=filter_name, rejected=rejected, from_fmt="jsonl",
                        limit=limit, workers=workers, threads=threads, seed=seed, progress=progress,
                        what="infilling", prepare=attach, candidates=all_candidates)
    seconds = time.perf_counter() - start
    run = result.summary
    cost = dict(run.cost) if run is not None else {}
    counters = {k: int(v) if float(v).is_integer() else v for k, v in sorted(cost.items())
                if not k.endswith("seconds") and k not in _PIPELINE_COUNTERS}
    summary = {"sentences": run.inputs if run is not None else 0, "outputs": result.written,
               "conditioning": conditioning, "counters": counters, "seconds": round(seconds, 1),
               "workers": result.plan}
    if summary_path is not None:
        from paraspan.corpus.jsonl import atomic_write

        with atomic_write(summary_path) as handle:
            handle.write(json.dumps(summary, indent=2) + "\n")
    err = console()
    skipped = ", ".join(f"{v} {k.removeprefix('skipped: ')}" for k, v in counters.items() if k.startswith("skipped: "))
    err.print(f"wrote {result.written:,} sentences to {out} from {summary['sentences']:,} in {seconds:.0f}s; "
              f"{counters.get('sampled', 0)} sampled, {counters.get('unparseable', 0)} unparseable, "
              f"{counters.get('parsed', 0)} parsed, {counters.get('passed_filter', 0)} passed the FE filter"
              + (f"; skipped: {skipped}" if skipped else "") + f"; {result.plan['reason']}", markup=False)
    report(err, result, filter_name, rejected)


#: what the pipeline counts of its own (work statistics), not the infiller's counters
_PIPELINE_COUNTERS = frozenset({"calls", "batches", "inputs", "sampled_tokens"})


def train_fe_classifier_cmd(
    frames: Annotated[Path, typer.Option("--frames", help="FrameNet release (folder or .tar.gz), 1.5 or 1.7.")],
    splits: Annotated[Path, typer.Option("--splits", help="The full-text split JSON (dev/test documents).")],
    out: Annotated[Path, typer.Option("--output", "-o", help="Folder (or .npz file) for fe-head.npz.")]
    = Path("out/fe-classifier"),
    exemplar_every: Annotated[int | None, typer.Option(help="Train on 1 LU exemplar sentence in N (0: full text "
                                                       "only; default 100, with --fine-tune 1).")] = None,
    none_rate: Annotated[float, typer.Option(help="Random NOT_FE spans per real span.")] = 0.11,
    hidden: Annotated[int, typer.Option(help="Hidden units of the head.")] = 512,
    epochs: Annotated[int | None, typer.Option(help="Passes over the training spans (best dev epoch kept; default "
                                               "12, with --fine-tune 3).")] = None,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    cache: Annotated[Path | None, typer.Option(help="Folder to cache encoder features in (default: a "
                                               "per-user folder in the paraspan cache).")] = None,
    threads: Annotated[int, typer.Option(help="torch CPU threads.")] = 1,
    test: Annotated[bool, typer.Option("--test", help="Also report accuracy on the test split (do not tune on "
                                       "it).")] = False,
    fine_tune: Annotated[bool, typer.Option("--fine-tune", help="Train the top encoder layers with the head (the "
                                            "shipped classifier; every exemplar by default).")] = False,
    train_layers: Annotated[int, typer.Option(help="--fine-tune: top encoder layers trained.")] = 2,
    device: Annotated[str, typer.Option(help="--fine-tune: torch device (cpu, cuda).")] = "cpu",
    bundle: Annotated[Path | None, typer.Option(help="--fine-tune: folder for the prepared training bundle "
                                                "(default: OUTPUT/bundle).")] = None,
    bundle_only: Annotated[bool, typer.Option("--bundle-only", help="--fine-tune: write the bundle and stop; train "
                                              "it elsewhere with `python -m paraspan.filter.fe_tune BUNDLE OUT "
                                              "--device cuda`.")] = False,
) -> None:
    """Train the FE-type classifier on FrameNet train + exemplars; pick the epoch on dev.

    Without --fine-tune: an MLP head over frozen MiniLM features (minutes on a CPU). With --fine-tune:
    the top encoder layers and the head together (what paraspan ships in paraspan/filter/data: fe-head.npz +
    fe-encoder.safetensors, made with `--fine-tune --exemplar-every 1 --epochs 3` on a GPU, about 4 minutes;
    on 2 CPU cores expect hours).
    """
    from paraspan.filter.fe_train import FERecipe, evaluate_on_split, train_fe_classifier

    for path in (frames, splits):
        if not path.exists():
            raise ParaspanError.from_code("E010", file=str(path), what="file or folder", fix="check the path")
    err = console()
    cache_dir = cache if cache is not None else feature_cache("fe-classifier")
    use_threads(threads)
    if fine_tune:
        from paraspan.filter.fe_tune import FETuneRecipe, build_bundle, train_bundle

        tune = FETuneRecipe(train_layers=train_layers, epochs=epochs or 3, hidden=hidden, none_rate=none_rate,
                            exemplar_every=1 if exemplar_every is None else exemplar_every, seed=seed)
        folder = build_bundle(frames, splits, bundle or out / "bundle", tune, log=err.print)
        if bundle_only:
            err.print(f"wrote the training bundle {folder}; train it with: python -m paraspan.filter.fe_tune "
                      f"{folder} {out} --device cuda")
            return
        info = train_bundle(folder, out, device=device, recipe=tune, log=err.print)
        dev = info["dev"]
        err.print(f"dev accuracy {100 * dev['accuracy']:.1f}% (FE spans {100 * dev['fe_accuracy']:.1f}%), "
                  f"best epoch {info['best_epoch']}; wrote {out}")
        head_path: Path = out
    else:
        recipe = FERecipe(exemplar_every=100 if exemplar_every is None else exemplar_every, none_rate=none_rate,
                          hidden=hidden, epochs=epochs or 12, seed=seed)
        report = train_fe_classifier(frames, splits, out, recipe, cache_dir=cache_dir, log=err.print)
        err.print(f"trained on {report.examples:,} spans ({report.exemplar_examples:,} from exemplars, "
                  f"{report.none_examples:,} NOT_FE) in {report.seconds:.0f}s; dev accuracy "
                  f"{100 * report.dev_accuracy:.1f}% (FE spans {100 * report.dev_fe_accuracy:.1f}%), best epoch "
                  f"{report.best_epoch}; wrote {report.path}")
        head_path = report.path
    if test:
        scores = evaluate_on_split(head_path, frames, splits, "test", cache_dir=cache_dir, log=err.print)
        err.print(f"test accuracy {100 * scores['accuracy']:.1f}% (FE spans {100 * scores['fe_accuracy']:.1f}%, "
                  f"{scores['fe_spans']:,} FE spans)")
