"""``paraspan paraphrase`` and ``paraspan evaluate diversity``.

Heavy imports (llama.cpp, torch, spaCy, sacrebleu) happen inside the command functions.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from paraspan.cli.common import Progress, ProgressBar, console
from paraspan.errors import CorpusError, Problem, ProblemList


@dataclass
class ParaphraseInput:
    """One validated input line."""

    line: int
    id: Any
    text: str
    ban: tuple[tuple[int, int], ...]
    keep: tuple[tuple[int, int], ...]


def read_paraphrase_inputs(path: Path) -> list[ParaphraseInput]:
    """Parse and check every line first, so that a typo on line 900 fails before any model work.

    All problems are reported at once (``FILE:LINE: what — fix``). Overlapping spans within
    ``ban`` (or within ``keep``) are fine; a span both banned and kept is not.
    """
    from paraspan.corpus.jsonl import iter_lines, parse_json
    from paraspan.generate.paraphrase import overlap_problems, span_problems

    name = str(path)
    problems = ProblemList()
    out: list[ParaphraseInput] = []
    seen: dict[str, int] = {}
    for number, raw in iter_lines(path):
        try:
            data = parse_json(raw, file=name, line=number)
        except CorpusError as exc:
            problems.problems.extend(exc.problems)
            continue
        if not isinstance(data, dict):
            problems.add(Problem.from_code("E450", name, number, type_name=type(data).__name__))
            continue
        found: list[str] = []
        ident = data.get("id")
        if not isinstance(ident, (str, int)) or isinstance(ident, bool):
            found.append('"id" is missing or not a string')
        text = data.get("text")
        if not isinstance(text, str):
            found.append('"text" is missing or not a string')
            text = ""
        spans: dict[str, list[Any]] = {}
        for key in ("ban", "keep"):
            value = data.get(key, [])
            if value is None:
                value = []
            if not isinstance(value, list):
                found.append(f'"{key}" must be a list of [start, end] pairs')
                value = []
            spans[key] = value
            if isinstance(data.get("text"), str):
                found.extend(span_problems(text, value, key))
        if not found:
            found.extend(overlap_problems([tuple(s) for s in spans["ban"]], [tuple(s) for s in spans["keep"]]))
        key_id = str(ident)
        if not found and key_id in seen:
            found.append(f"duplicate id {ident!r} (first on line {seen[key_id]})")
        for message in found:
            problems.add(Problem.from_code("E451", name, number, problem=message))
        if found:
            continue
        seen[key_id] = number
        out.append(ParaphraseInput(number, ident, text, tuple(tuple(s) for s in spans["ban"]),
                                   tuple(tuple(s) for s in spans["keep"])))
    problems.raise_if_any(CorpusError)
    return out


def _round(value: float) -> float:
    return round(float(value), 4)


_Opt = typer.Option


def paraphrase_cmd(
    src: Annotated[Path, typer.Argument(
        help="Input JSONL, one object per line: id, text, and optional ban / keep lists of "
             "character spans, each a (start, end) pair.")],
    out: Annotated[Path, _Opt("--output", "-o", help="Output JSONL (one line per input line, same ids).")],
    n: Annotated[int, _Opt("--n", min=1, help="Paraphrases per sentence.")] = 5,
    seed: Annotated[int, _Opt(help="Random seed (same seed + same input = same output).")] = 0,
    model: Annotated[str, _Opt(help="LLM: default, small, a .gguf path, hf:ORG/NAME (from the local Hugging Face "
                                    "cache; never downloaded) or a Hugging Face model folder.")] = "default",
    device: Annotated[str, _Opt(help="auto, cpu or cuda (auto: cuda when torch sees a GPU). A GPU runs the model "
                                     "through transformers.")] = "auto",
    llm_backend: Annotated[str, _Opt("--backend", help="auto, llama or transformers (auto: transformers for hf: "
                                                       "ids, folders and --device cuda, else llama.cpp).")] = "auto",
    samples: Annotated[int, _Opt("--samples", min=1, help="Samples per constraint set (S).")] = 6,
    constraint_sets: Annotated[int, _Opt("--constraint-sets", min=1,
                                         help="Randomized negative-constraint sets (R).")] = 4,
    top_k: Annotated[int, _Opt("--top-k", min=1, help="Top-k sampling.")] = 10,
    temperature: Annotated[float, _Opt(min=0.05, help="Sampling temperature.")] = 1.0,
    random_fraction: Annotated[float, _Opt(
        "--random-fraction", min=0.0, max=1.0,
        help="Share of the source's content words banned in each randomized set.")] = 0.3,
    max_score: Annotated[float | None, _Opt(
        "--max-score", help="Drop candidates whose combined negative log-likelihood -(forward + backward) "
                            "exceeds this (ParaBank 2: 3.5). Default: no threshold.")] = None,
    clusters: Annotated[int | None, _Opt(min=1, help="Clusters besides the source's (default n + 2).")] = None,
    backward: Annotated[bool, _Opt("--backward/--no-backward",
                                   help="Score candidates backwards (source given paraphrase).")] = True,
    rescore_top: Annotated[int, _Opt(
        "--rescore-top", min=0, help="Cluster first and score backwards only the best M per cluster by "
                                     "forward score; 0: score every candidate, as ParaBank 2 (1.6× slower per "
                                     "delivered paraphrase, benchmarks/README.md).")] = 1,
    workers: Annotated[str, _Opt("--workers", help="Worker processes, each with its own model: auto (one per "
                                                   "core, as many as the free memory holds, about 3 GB each "
                                                   "with the default model) or N. The output is the same "
                                                   "whatever the number.")] = "auto",
    threads: Annotated[str, _Opt("--threads", help="CPU threads per worker: auto (the cores shared among the "
                                                   "workers) or N.")] = "auto",
    n_ctx: Annotated[int, _Opt("--n-ctx", min=256, help="Context window shared by all parallel samples "
                                                       "(raised to fit --parallel answers).")] = 4096,
    parallel: Annotated[int, _Opt(min=1, max=200, help="Samples decoded together (rows of a batch), across "
                                                       "sentences: ⌈parallel / (samples × sets)⌉ sentences "
                                                       "go through one batch.")] = 64,
    report: Annotated[bool, _Opt("--report", help="Print diversity and constraint statistics at the end.")] = False,
    progress: Progress = True,
) -> None:
    """Constrained paraphrases: banned spans never appear (in any form), kept spans stay verbatim.

    Top-k sampling under randomized negative constraints, dual (forward + backward) scoring and
    edit-distance clustering, after ParaBank 2. Lines that cannot be paraphrased (empty, no
    letters, not English, too long for the context) get an empty list and a "note".
    """
    from paraspan.cli.augment import uses_gpu, worker_plan
    from paraspan.corpus.jsonl import atomic_write
    from paraspan.generate.paraphrase import ParaphraseConfig
    from paraspan.pipeline.executors import map_ordered

    inputs = read_paraphrase_inputs(src)
    err = console()
    plan = worker_plan(workers, threads, model=model, tasks=len(inputs), gpu=uses_gpu(model, device, llm_backend),
                       warn=lambda m: err.print(f"note: {m}", markup=False))
    config = ParaphraseConfig(n=n, samples=samples, constraint_sets=constraint_sets, top_k=top_k,
                              temperature=temperature, random_fraction=random_fraction,
                              max_score=max_score, clusters=clusters, backward=backward,
                              rescore_per_cluster=rescore_top or None, seed=seed)
    options = {"model": model, "llm_backend": llm_backend, "device": device, "seed": seed, "n_ctx": n_ctx,
               "threads": plan["threads"], "parallel": parallel, "config": config}
    totals: dict[str, Any] = {"sentences": len(inputs), "sampled": 0, "paraphrases": 0, "leaks_caught": 0,
                              "kept_spans_checked": 0, "kept_spans_preserved": 0, "notes": 0,
                              "output_leaks": 0}
    items: list[tuple[str, list[str]]] = []
    started = time.perf_counter()
    # several sentences per batch, so that their samples fill one decode wave (a CPU decodes ~4×
    # the tokens/s at 64 sequences as at one); each sentence's samples are still its own
    per_batch = max(1, -(-parallel // max(1, samples * constraint_sets)))
    chunks = [inputs[i:i + per_batch] for i in range(0, len(inputs), per_batch)]
    results = (done for chunk in map_ordered(paraphrase_worker, options, chunks, plan["workers"]) for done in chunk)
    with atomic_write(out) as handle, ProgressBar("paraphrasing", len(inputs), enabled=progress) as bar:
        for item, done in zip(inputs, results, strict=True):
            record = done["record"]
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            for key in ("sampled", "leaks_caught", "kept_spans_checked", "kept_spans_preserved", "output_leaks"):
                totals[key] += int(done["stats"].get(key, 0))
            totals["notes"] += "note" in record
            totals["paraphrases"] += len(record["paraphrases"])
            items.append((item.text, [p["text"] for p in record["paraphrases"]]))
            bar.advance()
    seconds = time.perf_counter() - started
    err.print(f"wrote {len(inputs)} lines ({totals['paraphrases']} paraphrases, {totals['notes']} "
              f"without any) to {out} in {seconds:.1f}s; {plan['reason']}", markup=False)
    if report:
        _print_report(err, totals, items, seconds)


def paraphrase_worker(*, model: str, llm_backend: str, device: str, seed: int, n_ctx: int, threads: int | None,
                      parallel: int, config: Any) -> Callable[[list[ParaphraseInput]], list[dict[str, Any]]]:
    """Load the model once; the function that paraphrases a batch of inputs into their output
    lines and counters (run in this process or in each worker of
    :func:`paraspan.pipeline.executors.map_ordered`)."""
    from paraspan.generate.base import GenerationRequest
    from paraspan.generate.paraphrase import Paraphraser, context_size
    from paraspan.llm.hf_backend import load_backend

    backend = load_backend(model, backend=llm_backend, device=device, seed=seed,
                           n_ctx=context_size(n_ctx, parallel), n_threads=threads, parallel=parallel)
    paraphraser = Paraphraser(backend, config)

    def work(items: list[ParaphraseInput]) -> list[dict[str, Any]]:
        results = paraphraser.generate_batch([GenerationRequest(str(i.id), i.text, i.ban, i.keep) for i in items])
        return [one(item, result) for item, result in zip(items, results, strict=True)]

    def one(item: ParaphraseInput, result: Any) -> dict[str, Any]:
        record: dict[str, Any] = {"id": item.id, "text": item.text, "paraphrases": [
            {"text": c.text, "forward": _round(c.scores["forward"]), "backward": _round(c.scores["backward"]),
             "score": _round(c.scores["score"]), "cluster": c.meta.get("cluster")}
            for c in result.candidates]}
        if result.note and not result.candidates:
            record["note"] = result.note
        stats = {key: int(result.stats.get(key, 0))
                 for key in ("sampled", "leaks_caught", "kept_spans_checked", "kept_spans_preserved")}
        if item.ban:
            from paraspan.text.constraints import expand_bans

            bans = expand_bans(item.text[s:e] for s, e in item.ban)
            stats["output_leaks"] = sum(bool(bans.find_leaks(c.text)) for c in result.candidates)
        return {"record": record, "stats": stats}

    return work


def _print_report(console: Any, totals: dict[str, Any], items: list[tuple[str, list[str]]], seconds: float) -> None:
    from rich.table import Table

    from paraspan.evaluate.diversity import diversity_report

    div = diversity_report(items).to_dict()
    table = Table(title="paraphrase report")
    table.add_column("metric")
    table.add_column("value", justify="right")
    checked = totals["kept_spans_checked"]
    rows = [
        ("sentences", totals["sentences"]),
        ("sentences without paraphrases", totals["notes"]),
        ("sampled candidates", totals["sampled"]),
        ("sampled candidates / s", f"{totals['sampled'] / seconds:.2f}" if seconds else "-"),
        ("paraphrases", totals["paraphrases"]),
        ("paraphrases / s", f"{totals['paraphrases'] / seconds:.2f}" if seconds else "-"),
        ("banned forms in output", totals["output_leaks"]),
        ("leaks caught by the final check", totals["leaks_caught"]),
        ("kept spans preserved (sampled)",
         f"{100 * totals['kept_spans_preserved'] / checked:.1f}%" if checked else "-"),
        ("1-BLEU vs source (corpus)", div["one_minus_bleu"]),
        ("1-BLEU vs source (sentence mean)", div["one_minus_bleu_sentence"]),
        ("∩/∪ vs source", div["intersection_over_union"]),
        ("tree edit distance (top 3 levels)", div["tree_edit_distance"]),
        ("length ratio", div["length_ratio"]),
        ("collective 1-BLEU", div["collective_one_minus_bleu"]),
        ("collective ∩/∪", div["collective_intersection_over_union"]),
    ]
    for name, value in rows:
        table.add_row(name, str(value))
    console.print(table)


def diversity_cmd(
    src: Annotated[Path, typer.Argument(help="Output of `paraspan paraphrase` (JSONL).")],
    trees: Annotated[bool, _Opt("--trees/--no-trees", help="Parse with spaCy for the tree edit distance.")] = True,
) -> None:
    """Diversity of paraphrases: 1-BLEU, ∩/∪, tree edit distance, length ratio, collective diversity."""
    from paraspan.evaluate.diversity import diversity_report, read_paraphrase_file

    report = diversity_report(read_paraphrase_file(str(src)), trees=trees)
    typer.echo(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
