"""``paraspan augment``, ``paraspan export`` and ``paraspan train-filter``.

Heavy imports (llama.cpp, torch, the aligner) happen inside the command functions.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from paraspan.errors import CorpusError, ParaspanError, Problem, ProblemList

_Opt = typer.Option

#: `--demo` settings: the bundled corpus through the default model in a few minutes on 2 idle cores
#: (with 2 worker processes).
DEMO = {"iterations": 2, "samples": 3, "constraint_sets": 2, "candidates": 4, "rescore_top": 1}


def _console() -> Any:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def demo_corpus() -> Path:
    """The bundled FrameNet-style corpus (sentences written for the project)."""
    from importlib.resources import files

    return Path(str(files("paraspan") / "data" / "demo" / "framenet_demo.jsonl"))


def augment_cmd(
    corpus: Annotated[Path | None, typer.Argument(help="Input corpus (JSONL, corpus schema). Not with --demo.")] = None,
    out: Annotated[Path | None, _Opt("--output", "-o", help="Output JSONL (written atomically at the end).")] = None,
    iterations: Annotated[int | None, _Opt("--iterations", "-k", min=1, help="Iterations K per structure [3].")] = None,
    retries: Annotated[int | None, _Opt("--retries", min=0, help="Retries, with new samples, of an iteration "
                                                                "that yields no placed candidate before its "
                                                                "chain stops [1].")] = None,
    store_path: Annotated[Path | None, _Opt("--store", help="Run store (SQLite) to keep; needed for --resume.")] = None,
    resume: Annotated[bool, _Opt("--resume", help="Continue the run in --store (same settings).")] = False,
    filter_name: Annotated[str, _Opt("--filter", help="What -o gets: a preset (all, iter1, iter3, para0.6, "
                                                      "para0.8, align0.99, align0.95, lax, strict; calibrated on "
                                                      "MultiMWA dev: align-p95, align-p99, lax-cal, strict-cal), a "
                                                      "rule like "
                                                      "'iteration<=2&aligner>=0.9', or a learned filter's "
                                                      "name.")] = "all",
    filter_model: Annotated[list[Path] | None, _Opt(
        "--filter-model", help="A `train-filter` model whose decision every output records (repeatable).")] = None,
    keep_args: Annotated[bool, _Opt("--keep-args", help="Keep argument text verbatim (positive constraints) "
                                                        "instead of aligning it.")] = False,
    partial_args: Annotated[bool, _Opt("--partial-args", help="Keep outputs where some arguments could not be "
                                                              "placed (they are left out).")] = False,
    workers: Annotated[int, _Opt("--workers", min=1, help="Worker processes, each with its own models.")] = 1,
    backend: Annotated[str, _Opt("--backend", help="local or ray.")] = "local",
    ray_address: Annotated[str | None, _Opt("--ray-address", help="An existing Ray cluster (default: a local "
                                                                   "Ray started for the run).")] = None,
    limit: Annotated[int | None, _Opt("--limit", min=1, help="Only the first N input sentences.")] = None,
    seed: Annotated[int, _Opt("--seed", help="Random seed (same seed + same input = same output).")] = 0,
    demo: Annotated[bool, _Opt("--demo", help="Run on the bundled FrameNet-style corpus; writes "
                                              "out/demo-augment/ (output, summary, store).")] = False,
    model: Annotated[str | None, _Opt("--model", help="LLM: default, small, or a .gguf path.")] = None,
    generator: Annotated[str, _Opt("--generator", help="Generator name or module:factory.")] = "paraphrase",
    aligner: Annotated[str, _Opt("--aligner", help="Aligner name (discriminative, ibm2, argmax) or "
                                                   "module:factory.")] = "discriminative",
    candidates: Annotated[int | None, _Opt("--candidates", min=1,
                                           help="Paraphrases aligned per iteration [5].")] = None,
    samples: Annotated[int | None, _Opt("--samples", min=1, help="Samples per constraint set [6].")] = None,
    constraint_sets: Annotated[int | None, _Opt("--constraint-sets", min=1,
                                                help="Randomized constraint sets [4].")] = None,
    rescore_top: Annotated[int | None, _Opt("--rescore-top", min=1, help="Backward-score only the best M per "
                                                                         "cluster (faster).")] = None,
    kinds: Annotated[str, _Opt("--kinds", help="Structure kinds to augment, comma-separated.")] = (
        "frame,srl,entity,event"),
    threads: Annotated[int, _Opt("--threads", min=1, help="CPU threads per worker.")] = 1,
    include_inputs: Annotated[bool, _Opt("--include-inputs", help="Write the input sentences before the "
                                                                  "outputs (those without structures too).")] = False,
    summary_path: Annotated[Path | None, _Opt("--summary", help="Summary JSON (default: OUT.summary.json).")] = None,
    progress: Annotated[bool, _Opt(help="Show a progress bar on stderr.")] = True,
) -> None:
    """Iterative paraphrastic augmentation (Culkin et al. 2021): paraphrase each structure's sentence
    with its anchor banned, align anchor and arguments into the best candidate, ban the new anchor,
    repeat K times. Every output carries source_id and provenance (scores, models, filter decisions)."""
    from paraspan.pipeline import AugmentConfig, export_outputs, open_store, render_summary, run_augment

    settings: dict[str, Any] = {}
    if demo:
        if corpus is not None:
            raise ParaspanError("--demo runs on the bundled corpus", "drop CORPUS, or drop --demo", code="E740")
        corpus = demo_corpus()
        settings.update(DEMO)
        out = out or Path("out/demo-augment/demo.augmented.jsonl")
        if store_path is None:
            store_path = out.parent / "demo.run.db"
            if not resume:
                for suffix in ("", "-wal", "-shm"):  # the demo starts afresh each time
                    Path(f"{store_path}{suffix}").unlink(missing_ok=True)
        # two single-threaded workers use 2 cores better than one 2-thread llama.cpp (its threads spin)
        workers = max(workers, 2) if backend == "local" else workers
    if corpus is None or out is None:
        raise ParaspanError("give CORPUS.jsonl and -o OUT.jsonl (or --demo)",
                            "e.g. paraspan augment corpus.jsonl -o augmented.jsonl --iterations 3", code="E741")
    if resume and store_path is None:
        raise ParaspanError("--resume needs the --store of the run", "pass --store RUN.db", code="E742")
    if backend not in ("local", "ray"):
        raise ParaspanError(f"unknown --backend {backend!r}", "use local or ray", code="E732")
    if not corpus.is_file():
        raise CorpusError("no such file", "check the path", file=str(corpus), code="E010")
    for key, value in (("iterations", iterations), ("retries", retries), ("candidates", candidates),
                       ("samples", samples), ("constraint_sets", constraint_sets), ("rescore_top", rescore_top)):
        if value is not None:
            settings[key] = value
    learned = tuple(str(p) for p in (filter_model or []))
    from paraspan.pipeline import build_filters

    # Load the filters now (a bad rule or model file fails before any model work).
    names = {f.name for f in build_filters(AugmentConfig(learned_filters=learned))}
    config = AugmentConfig(keep_args=keep_args, require_args=not partial_args, seed=seed, model=model or "default",
                           generator=generator, aligner=aligner, threads=threads,
                           kinds=tuple(k.strip() for k in kinds.split(",") if k.strip()),
                           filters=() if filter_name in names else (filter_name,),
                           learned_filters=learned, **settings)
    build_filters(config)
    console = _console()
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if store_path is None:  # a throw-away store: the run cannot be resumed
        tmp = tempfile.TemporaryDirectory(prefix="paraspan-run-")
        store_path = Path(tmp.name) / "run.db"
    try:
        store = open_store(store_path, config, resume=resume)
        run_id = store.start_run(sys.argv)
        try:
            summary = run_augment(corpus, store, config, limit=limit, workers=workers, backend=backend,
                                  ray_address=ray_address, progress=progress)
        except KeyboardInterrupt:
            store.finish_run(run_id, "interrupted")
            if tmp is None:
                console.print(f"interrupted: resume with --resume --store {store_path}")
            raise
        store.finish_run(run_id)
        chosen = filter_name
        written = export_outputs(store, out, "jsonl", None if chosen == "all" else chosen,
                                 include_inputs=include_inputs)
        data = summary.to_dict()
        data.update({"output": str(out), "written": written, "filter": chosen, "store": str(store_path) if tmp is None
                     else None, "config": config.to_dict()})
        spath = summary_path or out.with_name(out.name.removesuffix(".jsonl") + ".summary.json")
        from paraspan.corpus.jsonl import atomic_write

        with atomic_write(spath) as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
        store.close()
    finally:
        if tmp is not None:
            tmp.cleanup()
    render_summary(summary, console)
    console.print(f"wrote {written} outputs ({chosen}) to {out}; summary {spath}"
                  + (f"; store {store_path}" if tmp is None else ""))


def export_cmd(
    store_path: Annotated[Path, typer.Argument(help="Run store written by `paraspan augment --store`.")],
    out: Annotated[Path, _Opt("--output", "-o", help="Output file.")],
    to_fmt: Annotated[str, _Opt("--to", help="jsonl, bio, docbin or opensesame.")] = "jsonl",
    filter_name: Annotated[str | None, _Opt("--filter", help="A filter recorded in the store, or a rule.")] = None,
    filter_model: Annotated[Path | None, _Opt("--filter-model", help="Decide with a `train-filter` model "
                                                                     "(recorded in the store).")] = None,
    include_inputs: Annotated[bool, _Opt("--include-inputs", help="Input sentences first.")] = False,
) -> None:
    """Write the outputs of a run store (those a filter keeps) in any writer's format."""
    from paraspan.pipeline import export_outputs
    from paraspan.store import RunStore

    with RunStore.open(store_path) as store:
        written = export_outputs(store, out, to_fmt, None if filter_name == "all" else filter_name,
                                 include_inputs=include_inputs,
                                 learned=str(filter_model) if filter_model else None)
    _console().print(f"wrote {written} sentences to {out} ({to_fmt})")


def read_judgments(path: Path) -> dict[str, float]:
    """``{"output_id", "score"}`` lines → mean score per output (all problems reported at once)."""
    from paraspan.corpus.jsonl import iter_lines

    problems = ProblemList()
    scores: dict[str, list[float]] = {}
    hint = 'each line: {"output_id": "...", "score": 0-100}'
    for number, raw in iter_lines(path):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.add(Problem(f"malformed JSON: {exc.msg} (column {exc.colno})", hint, str(path), number, "E100"))
            continue
        oid = data.get("output_id") if isinstance(data, dict) else None
        score = data.get("score") if isinstance(data, dict) else None
        if not isinstance(oid, str) or not oid:
            problems.add(Problem('"output_id" is missing or not a string', hint, str(path), number, "E745"))
        elif isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 100:
            problems.add(Problem(f'"score" must be a number within 0-100, got {score!r}', hint, str(path), number,
                                 "E746"))
        else:
            scores.setdefault(oid, []).append(float(score))
    problems.raise_if_any(CorpusError)
    return {k: sum(v) / len(v) for k, v in scores.items()}


def train_filter_cmd(
    judgments: Annotated[Path | None, typer.Argument(help='Judgments JSONL: {"output_id", "score": 0-100} per '
                                                          'line (≥ 50 = accept). Default: the store\'s '
                                                          'judgments.')] = None,
    store_path: Annotated[Path | None, _Opt("--store", help="Run store holding the judged outputs.")] = None,
    outputs: Annotated[Path | None, _Opt("--outputs", help="Or: the augmented JSONL holding them.")] = None,
    out: Annotated[Path, _Opt("--output", "-o", help="Model file (JSON).")] = Path("filter.json"),
    mode: Annotated[str, _Opt("--mode", help="precision (down-weight accepted) or recall (down-weight "
                                             "rejected).")] = "precision",
    down_weight: Annotated[float, _Opt("--down-weight", min=0.01, max=1.0, help="Loss weight of the "
                                                                                "down-weighted class.")] = 0.3,
    epochs: Annotated[int, _Opt(min=1)] = 400,
    seed: Annotated[int, _Opt()] = 0,
) -> None:
    """Train the learned output filter (2 hidden layers of 10) on human judgments."""
    from paraspan.filter.learned import feature_row, train_filter

    if (store_path is None) == (outputs is None):
        raise ParaspanError("give exactly one of --store RUN.db or --outputs OUT.jsonl",
                            "the judged outputs' scores come from there", code="E747")
    provenance: dict[str, Any] = {}
    if store_path is not None:
        from paraspan.store import RunStore

        with RunStore.open(store_path, readonly=True) as store:
            for record in store.iter_outputs():
                provenance[record.id] = record.sentence.provenance
            if judgments is None:
                grouped: dict[str, list[float]] = {}
                for j in store.judgments():
                    grouped.setdefault(j.output_id, []).append(j.score)
                scores = {k: sum(v) / len(v) for k, v in grouped.items()}
    else:
        from paraspan.corpus.jsonl import read_jsonl

        assert outputs is not None
        for sentence in read_jsonl(outputs):
            provenance[sentence.id] = sentence.provenance
    if judgments is not None:
        scores = read_judgments(judgments)
    elif store_path is None:
        raise ParaspanError("no judgments given", "pass JUDGMENTS.jsonl", code="E748")
    rows, labels, missing = [], [], 0
    for oid, score in scores.items():
        row = feature_row(provenance.get(oid))
        if row is None:
            missing += 1
            continue
        rows.append(row)
        labels.append(int(score >= 50))
    if missing and not rows:
        raise ParaspanError(f"none of the {missing} judged outputs is in the store/outputs",
                            "judge outputs of this run (their ids)", code="E749")
    model = train_filter(rows, labels, mode=mode, down_weight=down_weight, epochs=epochs, seed=seed)
    model.info["unmatched_judgments"] = missing
    model.save(out)
    test = model.info.get("test_scores", {})
    _console().print(f"trained a {mode} filter on {len(rows)} judged outputs ({sum(labels)} accepted"
                     + (f", {missing} unmatched" if missing else "") + f"); held-out precision "
                     f"{test.get('precision', 0):.2f} recall {test.get('recall', 0):.2f} → {out}")
