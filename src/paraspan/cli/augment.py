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

# the command is built on paraspan.api; its config and worker plan helpers stay importable from here
from paraspan.api import DEMO, demo_corpus  # noqa: F401
from paraspan.cli.common import (
    FromFormat,
    Progress,
    ProgressBar,
    Scheme,
    Split,
    Splits,
    TrimPunct,
    console,
    input_format,
    reader_options,
    use_threads,
)
from paraspan.errors import CorpusError, ParaspanError, Problem, ProblemList
from paraspan.runconfig import directional_check, run_config, uses_gpu, worker_plan  # noqa: F401

_Opt = typer.Option


def augment_cmd(
    corpus: Annotated[Path | None, typer.Argument(help="Input corpus (any reader's format: --from; JSONL by "
                                                       "default). Not with --demo.")] = None,
    out: Annotated[Path | None, _Opt("--output", "-o", help="Output JSONL (written atomically at the end).")] = None,
    iterations: Annotated[int | None, _Opt("--iterations", "-k", min=1, help="Iterations K per structure [3].")] = None,
    retries: Annotated[int | None, _Opt("--retries", min=0, help="Retries, with new samples, of an iteration "
                                                                "that yields no output before its chain stops "
                                                                "[the generator's: 1 for paraphrase, 0 for "
                                                                "substitute and cascade].")] = None,
    store_path: Annotated[Path | None, _Opt("--store", help="Run store (SQLite) to keep; needed for --resume.")] = None,
    resume: Annotated[bool, _Opt("--resume", help="Continue the run in --store (same settings).")] = False,
    filter_name: Annotated[str, _Opt("--filter", help="What -o gets: verified (labels, span shape, fluency, "
                                                      "numbers and names, meaning all checked), all, a preset (iter1, "
                                                      "iter3, para0.6, para0.8, align0.99, align0.95, lax, strict; "
                                                      "calibrated on MultiMWA dev: align-p95, align-p99, lax-cal, "
                                                      "strict-cal), a "
                                                      "rule like 'iteration<=2&aligner>=0.9', a registered filter "
                                                      "(labels, spans, fluency, facts, relation) or a learned filter's "
                                                      "name. Everything stays in --store.")] = "verified",
    filter_model: Annotated[list[Path] | None, _Opt(
        "--filter-model", help="A `train-filter` model whose decision every output records (repeatable).")] = None,
    choose_by: Annotated[str | None, _Opt("--choose-by", help="A filter a candidate must pass to become an "
                                                              "iteration's output: the best-placed candidate "
                                                              "that passes it [the --filter, unless all; none: "
                                                              "the best-placed candidate].")] = None,
    keep_args: Annotated[bool, _Opt("--keep-args", help="Keep argument text verbatim (positive constraints) "
                                                        "instead of aligning it.")] = False,
    partial_args: Annotated[bool, _Opt("--partial-args", help="Keep outputs where some arguments could not be "
                                                              "placed (they are left out).")] = False,
    workers: Annotated[str, _Opt("--workers", help="Worker processes, each with its own models: auto (one per "
                                                   "core, as many as the free memory holds, about 3 GB each "
                                                   "with the default model) or N.")] = "auto",
    backend: Annotated[str, _Opt("--backend", help="local or ray.")] = "local",
    ray_address: Annotated[str | None, _Opt("--ray-address", help="An existing Ray cluster (default: a local "
                                                                   "Ray started for the run).")] = None,
    limit: Annotated[int | None, _Opt("--limit", min=1, help="Only the first N input sentences.")] = None,
    seed: Annotated[int | None, _Opt("--seed", help="Random seed (same seed + same input = same output) [0].")] = None,
    demo: Annotated[bool, _Opt("--demo", help="Run on the bundled FrameNet-style corpus; writes "
                                              "out/demo-augment/ (output, summary, store).")] = False,
    model: Annotated[str | None, _Opt("--model", help="The generator's LLM: default, small, or a .gguf path "
                                                      "(generator.model).")] = None,
    device: Annotated[str | None, _Opt("--device", help="The generator's device: auto, cpu or cuda; a GPU runs the "
                                                        "model through transformers (generator.device).")] = None,
    generator: Annotated[str | None, _Opt("--generator", help="A registered generator (cascade: rule rewrites, "
                                                              "then contextual substitutes of verbs; paraphrase, "
                                                              "rewrite, substitute, infill, the baselines, or a "
                                                              "plugin's) or module:factory [cascade].")] = None,
    aligner: Annotated[str | None, _Opt("--aligner", help="Aligner name (discriminative, ibm2, argmax) or "
                                                          "module:factory [discriminative].")] = None,
    candidates: Annotated[int | None, _Opt("--candidates", min=1,
                                           help="Candidates placed per iteration [5].")] = None,
    samples: Annotated[int | None, _Opt("--samples", min=1, help="Samples per constraint set "
                                                                "(generator.samples) [6].")] = None,
    constraint_sets: Annotated[int | None, _Opt("--constraint-sets", min=1,
                                                help="Randomized constraint sets (generator.constraint_sets) "
                                                     "[4].")] = None,
    rescore_top: Annotated[int | None, _Opt("--rescore-top", min=1, help="Score the best M candidates per "
                                                                         "cluster backwards (ParaBank 2's dual "
                                                                         "score; off by default: the checks "
                                                                         "choose) (generator.rescore_top).")] = None,
    kinds: Annotated[str | None, _Opt("--kinds", help="Structure kinds to augment, comma-separated "
                                                      "[frame,srl,entity,event].")] = None,
    threads: Annotated[str, _Opt("--threads", help="CPU threads per worker: auto (the cores shared among the "
                                                   "workers) or N.")] = "auto",
    config_file: Annotated[Path | None, _Opt("--config", help="A run config JSON (run settings and "
                                                              "generator/aligner/filters blocks); flags and "
                                                              "--set override it.")] = None,
    overrides: Annotated[list[str] | None, _Opt("--set", help="KEY=VALUE into the run config, e.g. --set "
                                                              "generator.frames=PATH, --set "
                                                              "generator.conditioning=fe, or a run setting such as "
                                                              "--set max_structures=64 (inputs with more "
                                                              "structures are skipped; default 32); "
                                                              "repeatable.")] = None,
    include_inputs: Annotated[bool, _Opt("--include-inputs", help="Write the input sentences before the "
                                                                  "outputs (those without structures too).")] = False,
    summary_path: Annotated[Path | None, _Opt("--summary", help="Summary JSON (default: OUT.summary.json).")] = None,
    per_structure: Annotated[bool, _Opt("--per-structure", help="Write a sentence per structure's output, as "
                                                                "the store holds them (default: each output text "
                                                                "once, with every structure verified on it).")] = False,
    from_fmt: FromFormat = None,
    split: Split = None,
    splits: Splits = None,
    scheme: Scheme = None,
    trim_punct: TrimPunct = False,
    progress: Progress = True,
) -> None:
    """Iterative augmentation (Culkin et al. 2021): rewrite each structure's sentence with its anchor
    banned, place anchor and arguments in the best candidate that passes the checks, ban the new
    anchor, repeat K times. The default generator (cascade) gives a rule rewrite where one applies
    and then the LLM's contextual substitutes of a verb anchor; --generator paraphrase is the
    paper's sentence paraphraser (on FrameNet dev its candidates nearly all fail the checks). Every
    output carries source_id and provenance (scores, models, filter decisions). --generator generalize
    (rule deletions of modifiers) and --generator elaborate (relative clauses inserted after a noun
    phrase) write more general and more specific sentences, as `paraspan paraphrase --relation` does
    (--generator paraphrase --set generator.relation=forward --set generator.rewrites=off: the LLM's
    own), and the default verified check asks for that direction, judged by the llm judge."""
    from paraspan.api import augment, read
    from paraspan.pipeline import export_outputs

    if demo:
        if corpus is not None:
            raise ParaspanError.from_code("E740")
        corpus = demo_corpus()
        out = out or Path("out/demo-augment/demo.augmented.jsonl")
        if store_path is None:
            store_path = out.parent / "demo.run.db"
            if not resume:
                for suffix in ("", "-wal", "-shm"):  # the demo starts afresh each time
                    Path(f"{store_path}{suffix}").unlink(missing_ok=True)
    if corpus is None or out is None:
        raise ParaspanError.from_code("E741")
    if resume and store_path is None:
        raise ParaspanError.from_code("E742")
    if backend not in ("local", "ray"):
        raise ParaspanError.from_code("E732", option="--backend", value=backend, fix="use local or ray")
    if not corpus.exists():
        raise CorpusError.from_code("E010", file=str(corpus), what="file", fix="check the path")
    from paraspan.cli.common import check_output, mark_interrupted, sigterm_as_interrupt

    check_output(out, inputs=[corpus, *([splits] if splits else [])], store=store_path)  # before any work
    if summary_path is not None:
        check_output(summary_path, inputs=[corpus, out], store=store_path, option="--summary")
    if resume and store_path is not None and not store_path.exists():
        raise ParaspanError.from_code("E049", file=str(store_path))
    sentences = read(corpus, input_format(corpus, from_fmt),
                     **reader_options(split=split, splits=splits, scheme=scheme, trim_punct=trim_punct))
    con = console()
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if store_path is None:  # a throw-away store: the run cannot be resumed
        tmp = tempfile.TemporaryDirectory(prefix="paraspan-run-")
        store_path = Path(tmp.name) / "run.db"
    try:
        with sigterm_as_interrupt(), ProgressBar("augment", enabled=progress, unit="sentences") as bar:
            # the filter -o gets and the learned filters are recorded for every output (a bad one fails now)
            run = augment(sentences, generator=generator or "cascade", filters=filter_name, iterations=iterations,
                          store=store_path, workers=workers, on_progress=bar, aligner=aligner, retries=retries,
                          candidates=candidates, seed=seed, kinds=kinds.split(",") if kinds is not None else None,
                          keep_args=keep_args, partial_args=partial_args, choose_by=choose_by,
                          filter_models=filter_model or (), model=model, device=device, samples=samples,
                          constraint_sets=constraint_sets, rescore_top=rescore_top, config=config_file,
                          overrides=overrides or (), limit=limit, threads=threads, backend=backend,
                          ray_address=ray_address, resume=resume, per_structure=per_structure, demo_settings=demo,
                          command=sys.argv, on_note=lambda m: con.print(f"note: {m}", markup=False))
            plan, config = run.plan, run.config
            use_threads(plan["threads"])  # this process's encoders (a worker pool's processes set their own)
            try:
                for _ in run:  # -o is written from the store at the end (atomically, in input order)
                    pass
            except KeyboardInterrupt:
                if tmp is None:
                    mark_interrupted(store_path)
                    con.print(f"interrupted: resume with --resume --store {store_path}")
                raise
        summary = run.summary
        assert summary is not None
        from paraspan.pipeline.store import RunStore

        with RunStore.open(store_path) as store:
            written = export_outputs(store, out, "jsonl", filter_name, include_inputs=include_inputs,
                                     per_structure=per_structure)
        data = summary.to_dict()
        data.update({"output": str(out), "written": written, "filter": filter_name,
                     "per_structure": per_structure, "store": str(store_path) if tmp is None else None,
                     "workers": plan, "config": config.to_dict()})
        spath = summary_path or out.with_name(out.name.removesuffix(".jsonl") + ".summary.json")
        from paraspan.corpus.jsonl import atomic_write

        with atomic_write(spath) as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
    finally:
        if tmp is not None:
            tmp.cleanup()
    render_summary(summary, con)
    con.print(f"wrote {written} outputs ({filter_name}) to {out}; summary {spath}"
              + (f"; store {store_path}" if tmp is None else "") + f"; {plan['reason']}", markup=False)


def render_summary(summary: Any, con: Any) -> None:
    """The end-of-run table (inputs, outputs per iteration, kept by the checks asked for, new pairs, time)."""
    from rich.table import Table

    table = Table(title="augmentation run", show_header=True)
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("inputs", f"{summary.inputs:,}")
    table.add_row("  augmented", f"{summary.done:,}")
    table.add_row("  skipped (no structure, or too many)", f"{summary.skipped:,}")
    table.add_row("  processed in this run", f"{summary.processed_now:,}")
    table.add_row("outputs", f"{summary.outputs:,}")
    for it, n in sorted(summary.outputs_per_iteration.items()):
        table.add_row(f"  iteration {it}", f"{n:,}")
    asked = summary.kept_by_checks()  # the checks this run asked for; every recorded one is in the JSON
    for name, n in asked.items():
        table.add_row(f"kept by {name}", f"{n:,}")
    if len(summary.kept_per_filter) > len(asked):
        table.add_row(f"  + {len(summary.kept_per_filter) - len(asked)} more recorded checks (summary JSON)", "")
    table.add_row("new (frame, trigger lemma) pairs", f"{summary.new_pairs:,}")
    for note, n in sorted(summary.notes.items(), key=lambda kv: -kv[1])[:5]:
        table.add_row(f"stopped: {note}"[:70], f"{n:,}")
    table.add_row("time", f"{summary.seconds:.1f} s")
    cost = summary.cost
    if cost.get("generate_seconds"):  # where the time went, so a user can see what to change
        total = sum(cost.get(f"{k}_seconds", 0.0) for k in ("generate", "place", "filter")) or 1.0
        for part in ("generate", "place", "filter"):
            table.add_row(f"  {part} (all workers)", f"{cost.get(f'{part}_seconds', 0.0):,.1f} s "
                                                    f"({100 * cost.get(f'{part}_seconds', 0.0) / total:.0f}%)")
    rate = summary.sampled_tokens_per_second()
    if rate is not None:
        table.add_row("sampled tokens", f"{int(cost['sampled_tokens']):,} ({rate:,.1f}/s while decoding)")
    con.print(table)


def export_cmd(
    store_path: Annotated[Path, typer.Argument(help="Run store written by `paraspan augment --store`.")],
    out: Annotated[Path, _Opt("--output", "-o", help="Output file.")],
    to_fmt: Annotated[str, _Opt("--to", help="jsonl, bio, docbin or opensesame.")] = "jsonl",
    filter_name: Annotated[str | None, _Opt("--filter", help="A filter recorded in the store, a preset or rule, "
                                                             "a registered filter (e.g. relation), or "
                                                             "learned:PATH; all for everything.")] = None,
    filter_model: Annotated[Path | None, _Opt("--filter-model", help="Decide with a `train-filter` model "
                                                                     "(recorded in the store).")] = None,
    include_inputs: Annotated[bool, _Opt("--include-inputs", help="Input sentences first.")] = False,
    per_structure: Annotated[bool, _Opt("--per-structure", help="A sentence per structure's output (default: "
                                                                "each output text once, with all its "
                                                                "structures).")] = False,
    strict: Annotated[bool, _Opt("--strict", help="Refuse (write nothing) when --to cannot hold a structure "
                                                  "kind of the outputs, instead of leaving those structures "
                                                  "out with a warning.")] = False,
) -> None:
    """Write the outputs of a run store (those a filter keeps) in any writer's format."""
    from paraspan.cli.common import check_output
    from paraspan.pipeline import decide_in_store, export_outputs
    from paraspan.pipeline.store import RunStore

    check_output(out, inputs=[*([filter_model] if filter_model else [])], store=store_path)
    with RunStore.open(store_path) as store:
        if filter_model is not None:
            name = decide_in_store(store, f"learned:{filter_model}")
            filter_name = filter_name or name
        written = export_outputs(store, out, to_fmt, filter_name, include_inputs=include_inputs,
                                 per_structure=per_structure, strict=strict)
    console().print(f"wrote {written} sentences to {out} ({to_fmt})")


def read_judgments(path: Path) -> dict[str, float]:
    """``{"output_id", "score"}`` lines → mean score per output (all problems reported at once)."""
    from paraspan.corpus.jsonl import iter_lines

    problems = ProblemList()
    scores: dict[str, list[float]] = {}
    for number, raw in iter_lines(path):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.add(Problem.from_code("E110", path, number, msg=exc.msg, column=exc.colno))
            continue
        oid = data.get("output_id") if isinstance(data, dict) else None
        score = data.get("score") if isinstance(data, dict) else None
        if not isinstance(oid, str) or not oid:
            problems.add(Problem.from_code("E745", path, number))
        elif isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 100:
            problems.add(Problem.from_code("E746", path, number, score=score))
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
    feature_set: Annotated[str, _Opt("--features", help="paper: iteration, paraphrase NLL, aligner score "
                                                        "(paraphrase outputs only); checks: the recorded "
                                                        "verification checks, relation and aligner scores "
                                                        "(every generator); all: both.")] = "paper",
    folds: Annotated[int, _Opt("--folds", min=0, help="Stratified k-fold cross-validation (the outputs of "
                                                      "one source sentence in one fold), compared with the "
                                                      "recorded `verified` check (0: none).")] = 5,
    as_json: Annotated[bool, _Opt("--json", help="Print the result (cross-validation table included) as "
                                                 "JSON on stdout.")] = False,
) -> None:
    """Train the learned output filter (2 hidden layers of 10) on human judgments, cross-validated
    against the rule-based `verified` check."""
    from paraspan.filter.learned import UNMATCHED, cv_table, feature_columns, feature_table, train_filter

    if (store_path is None) == (outputs is None):
        raise ParaspanError.from_code("E747")
    feature_columns(feature_set)  # an unknown set is an error before anything is read
    provenance: dict[str, Any] = {}
    source_of: dict[str, str] = {}  # output → its source sentence: the cross-validation's groups
    if store_path is not None:
        from paraspan.pipeline.store import RunStore

        with RunStore.open(store_path, readonly=True) as store:
            for record in store.iter_outputs():
                provenance[record.id] = record.sentence.provenance
                source_of[record.id] = record.input_id
            if judgments is None:
                grouped: dict[str, list[float]] = {}
                for j in store.judgments():
                    grouped.setdefault(j.output_id, []).append(j.score)
                scores = {k: sum(v) / len(v) for k, v in grouped.items()}
    elif outputs is not None:  # exactly one of the two (E747 above)
        from paraspan.corpus.jsonl import read_jsonl

        for sentence in read_jsonl(outputs):
            provenance[sentence.id] = sentence.provenance
            source_of[sentence.id] = sentence.source_id or sentence.id
    if judgments is not None:
        scores = read_judgments(judgments)
    elif store_path is None:
        raise ParaspanError.from_code("E748")
    table = feature_table(provenance, scores, feature_set)
    if not table.rows and table.unmatched == len(scores):
        raise ParaspanError.from_code("E749", missing=table.unmatched)
    if not table.rows:
        reasons = "; ".join(f"{n} {why}" for why, n in table.dropped.items())
        fix = ("use --features checks for outputs without a paraphrase NLL (rewrite, infill)"
               if feature_set == "paper" else "run with the verified filter (the default) so outputs record "
               "their checks, or use --features paper")
        raise ParaspanError.from_code("E738", n_judged=len(scores), features=feature_set, reasons=reasons, fix=fix)
    use_threads(1)  # the net is tiny: one thread skips OpenMP's overhead, and the weights do not depend on the cores
    model = train_filter(table.rows, table.labels, mode=mode, down_weight=down_weight, epochs=epochs, seed=seed,
                         features=feature_set, columns=table.columns, folds=folds, rule=table.rule,
                         groups=[source_of.get(i, i) for i in table.ids])
    model.info["unmatched_judgments"] = table.unmatched
    model.info["dropped"] = {why: n for why, n in table.dropped.items() if why != UNMATCHED}
    if table.absent_checks and feature_set != "paper":
        model.info["absent_checks"] = table.absent_checks
    model.save(out)
    dropped = sum(table.dropped.values())
    result = {"model": str(out), "features": feature_set, "columns": table.columns, "mode": mode,
              "rows": len(table.rows), "accepted": sum(table.labels), "judged": len(scores),
              "dropped": table.dropped, "absent_checks": table.absent_checks if feature_set != "paper" else [],
              "test_scores": model.info.get("test_scores"), "cv": model.info.get("cv")}
    test = model.info.get("test_scores", {})
    con = console()
    con.print(f"trained a {mode} filter on {len(table.rows)} judged outputs ({sum(table.labels)} accepted, "
              f"{feature_set} features)" + (f"; dropped {dropped}: " + ", ".join(
                  f"{n} {why}" for why, n in table.dropped.items()) if dropped else "")
              + f"; held-out precision {test.get('precision', 0):.2f} recall {test.get('recall', 0):.2f} → {out}",
              markup=False, highlight=False)
    if result["absent_checks"]:
        con.print(f"no judged output records the check(s) {', '.join(table.absent_checks)}: left out",
                  markup=False, highlight=False)
    if model.info.get("cv"):
        con.print(cv_table(model.info["cv"], mode), markup=False, highlight=False)
    if as_json:
        sys.stdout.write(json.dumps(result, indent=1) + "\n")
