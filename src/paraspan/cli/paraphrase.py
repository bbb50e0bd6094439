"""``paraspan paraphrase`` and ``paraspan evaluate diversity``.

``paraspan paraphrase`` is a preset of the one pipeline (:mod:`paraspan.cli.preset`): each input line becomes a
sentence of its own ban and keep spans (:func:`paraspan.generate.paraphrase_spans.span_sentence`), the registered
``paraphrase`` generator is asked for it through the loop, and each line's candidates are read back from the run
store. With ``--relation`` the rule (or insertion) generator runs first, the judges decide on every candidate
(:mod:`paraspan.cli.paraphrase_relation`), and the LLM is asked only for the lines still short of ``--n``.
Heavy imports (llama.cpp, torch, spaCy, sacrebleu) happen inside the functions.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from paraspan.cli.common import Progress, console
from paraspan.cli.paraphrase_relation import (
    RULE_MODES,
    Judging,
    ParaphraseInput,
    _no_class_note,
    check_direction_by,
    check_relation_options,
    check_rewrites,
    deliver,
    direction_check,
    reason_kind,
    relation_record,
    without_banned,
    word_check,
)
from paraspan.errors import CorpusError, Problem, ProblemList
from paraspan.provenance import Generated

__all__ = ["RULE_MODES", "SPANS", "Judging", "ParaphraseInput", "check_relation_options", "check_rewrites", "deliver",
           "direction_check", "diversity_cmd", "paraphrase_cmd", "paraphrase_record", "read_paraphrase_inputs",
           "reason_kind", "relation_record", "without_banned", "word_check"]


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


def _round(value: float | None) -> float | None:
    return None if value is None else round(float(value), 4)


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
    random_fraction: Annotated[float | None, _Opt(
        "--random-fraction", min=0.0, max=1.0,
        help="Share of the source's content words banned in each randomized set [0.3; 0 with --relation "
             "forward or reverse: the bans force words to change where a direction keeps them].")] = None,
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
    parallel: Annotated[int, _Opt(min=1, max=200, help="Samples decoded together (rows of a batch; at least 8 "
                                                       "and samples × sets), across sentences: ⌈parallel / "
                                                       "(samples × sets)⌉ sentences go through one batch.")] = 64,
    report: Annotated[bool, _Opt("--report", help="Print diversity and constraint statistics at the end.")] = False,
    relation: Annotated[str | None, _Opt(
        "--relation", help="equivalence (the same meaning), forward (more general: entailed by the source) or "
                           "reverse (more specific: entails the source): the prompt asks for it, the NLI judges "
                           "label each candidate both ways and only those in that class are delivered, with "
                           "the judges' labels. Forward (reverse) candidates must first drop (add) content "
                           "words and add (drop) none, and no negation, modal, hedge, 'or' or verb of saying "
                           "or believing, and the words they keep must keep their heads in the parse; "
                           "equivalence candidates must keep every number and name, negation, modal and hedge, "
                           "quotation and content word (or a WordNet synonym of it), and each verb its arguments' "
                           "roles. Default: the equivalence prompt, nothing judged.")] = None,
    judges: Annotated[str | None, _Opt(
        "--judges", help="NLI judges for --relation, comma-separated (minilm-nli, minilm-nli:FOLDER, llm, "
                         "llm:MODEL, hub:ID) [minilm-nli]; the first one's labels decide unless --agree. For "
                         "forward and reverse use llm: minilm-nli calls most dropped or added details "
                         "equivalence.")] = None,
    agree: Annotated[bool, _Opt("--agree", help="With several --judges: deliver only candidates that every "
                                                "judge labels alike (both ways), i.e. all put in the class.")] = False,
    candidates: Annotated[int | None, _Opt(
        "--candidates", min=1, help="Candidates judged per sentence with --relation [2 × --n]; the first --n "
                                    "in the class (by score) are delivered.")] = None,
    rewrites: Annotated[str | None, _Opt(
        "--rewrites", help="Rule-made candidates, judged like the LLM's free rewrites: with --relation "
                        "equivalence the rule rewriter's that keep the meaning (an adverbial moved, a cleft, a "
                        "genitive, a sentence split at a conjunction, an appositive or relative clause made a "
                        "sentence), with forward its deletions of modifiers (an adverb, an appositive, a relative "
                        "clause, a modifier set off by commas or before the subject; not adjectives, right 68 times "
                        "in 101), with reverse insertions (a relative clause the LLM writes after a noun phrase the "
                        "parse chooses, every source word kept). first (before the LLM's free rewrites, which are "
                        "asked for only for sentences they leave short of --n), only (no free rewrites; no LLM at "
                        "all for equivalence and forward) or off [only: read on MRPC and FrameNet dev, the rules' "
                        "equivalents were right 128 times in 141 and the LLM's 2 in 5, the rules' forward deletions "
                        "61 in 69 on sentences no rule was made on and the LLM's forward outputs 33 in 45, the "
                        "insertions 64 in 72 and the LLM's reverse outputs 18 in 25 (benchmarks/README.md)].")] = None,
    adapter: Annotated[str | None, _Opt(
        "--adapter", help="A paraphrase adapter (`paraspan train-generator PAIRS --task paraphrase`): its base "
                          "model, asked in the layout it was trained on for --relation, writes the candidates "
                          "(--rewrites off unless given); the bans, checks and judges stay as they are. Refused "
                          "for a relation it was not trained for.")] = None,
    direction_by: Annotated[str, _Opt(
        "--direction-by", help="With --relation forward or reverse: who tells the direction from equivalence. "
                               "judges: their labels both ways; words: the direction's word check (content "
                               "words dropped, or added, and nothing else), the judges then only finding "
                               "entailment the asked way (minilm-nli calls most dropped or added details "
                               "equivalence).")] = "judges",
    progress: Progress = True,
) -> None:
    """Constrained paraphrases: banned spans never appear (in any form), kept spans stay verbatim.

    Top-k sampling under randomized negative constraints, dual (forward + backward) scoring and
    edit-distance clustering, after ParaBank 2: `paraspan augment --generator paraphrase -k 1` on each
    line's own spans, every candidate written. Lines that cannot be paraphrased (empty, no
    letters, not English, too long for the context) get an empty list and a "note"; so do lines
    whose candidates the judges put in no requested class (--relation).
    """
    from paraspan.corpus.jsonl import atomic_write

    err = console()
    specs = check_relation_options(relation, judges, agree, candidates)
    card: dict[str, Any] = {}
    if adapter is not None:
        from paraspan.generate.paraphrase_adapter import check_paraphrase_card
        from paraspan.models.adapters import adapter_folder, read_card

        card = read_card(adapter_folder(adapter))  # refused before any model loads
        check_paraphrase_card(card, adapter, relation or "equivalence")
        rewrites = rewrites or "off"
    rewrites = check_rewrites(rewrites, relation)
    check_direction_by(direction_by, relation)
    if agree and len(specs) == 1:
        err.print("note: --agree with one judge changes nothing (it agrees with itself)", markup=False)
    if relation in ("forward", "reverse") and specs[0].startswith("minilm-nli") and direction_by == "judges":
        # a smoke run of benchmarks/relations.py --generate: minilm-nli put none of 27 directional
        # candidates in their class, the llm judge 45-80%
        err.print("note: minilm-nli seldom tells a direction from equivalence (it calls most dropped or "
                  "added details equivalence); --judges llm does", markup=False)
    inputs = read_paraphrase_inputs(src)
    sizing = model if adapter is None else str(card.get("base", {}).get("name") or model)  # the base is what loads
    # several sentences per batch, so that their samples fill one decode wave (a CPU decodes ~4×
    # the tokens/s at 64 sequences as at one); each sentence's samples are still its own
    per_batch = max(1, -(-parallel // max(1, samples * constraint_sets)))
    run = _Runs(workers, threads, seed, progress, sizing, device, per_batch)
    llm: dict[str, Any] = {k: v for k, v in {
        "name": "paraphrase", "model": model, "backend": llm_backend, "device": device, "n_ctx": n_ctx,
        "batch": parallel, "samples": samples, "constraint_sets": constraint_sets, "top_k": top_k,
        "temperature": temperature, "random_fraction": random_fraction, "max_score": max_score, "clusters": clusters,
        "backward": backward, "rescore_top": rescore_top or None, "n": n, "relation": relation or "equivalence",
        "rewrites": "off", "adapter": adapter}.items() if v is not None}
    started = time.perf_counter()
    if relation is None:
        got = run.generate(llm, inputs, n, "paraphrasing")
        done = [paraphrase_record(item, got[item.line], [(c, None) for c in got[item.line].candidates], None, "off")
                for item in inputs]
        judging = None
    else:
        judging = Judging(relation, specs, agree, candidates or 2 * n, rewrites, direction_by)
        done = _judged(run, judging, inputs, n, None if rewrites == "only" else llm, _rule_block(judging, llm))
    totals: dict[str, Any] = {"sentences": len(inputs), "paraphrases": 0, "notes": 0, "output_leaks": 0, "judged": 0,
                              "in_class": 0, "disagreed": 0, "word_rejected": 0, **{
                                  key: int(run.cost.get(key, 0)) for key in ("sampled", "leaks_caught",
                                                                             "kept_spans_checked",
                                                                             "kept_spans_preserved")}}
    items: list[tuple[str, list[str]]] = []
    with atomic_write(out) as handle:
        for item, (record, stats) in zip(inputs, done, strict=True):
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            for key, value in stats.items():
                totals[key] = totals.get(key, 0) + int(value)
            totals["notes"] += "note" in record
            totals["paraphrases"] += len(record["paraphrases"])
            items.append((item.text, [p["text"] for p in record["paraphrases"]]))
    seconds = time.perf_counter() - started
    err.print(f"wrote {len(inputs)} lines ({totals['paraphrases']} paraphrases, {totals['notes']} "
              f"without any) to {out} in {seconds:.1f}s; {run.plan.get('reason', '')}", markup=False)
    if judging is not None:
        err.print(_relation_line(judging, totals), markup=False)
    if report:
        _print_report(err, totals, items, seconds, judging)


#: the generator the command runs: each input's own ban and keep spans as the request
#: (:mod:`paraspan.generate.paraphrase_spans`)
SPANS = "own-spans"
#: the rule rewriter's candidates are all judged (``--rewrites``): no cap short of this
_EVERY = 10_000


@dataclass
class _Got:
    """What a generator returned for one input: its candidates (best first) and why there are none."""

    candidates: list[Any]
    note: str | None = None


@dataclass
class _Runs:
    """How the command's pipeline runs go (workers, threads, seed, progress, what the worker plan sizes for),
    and what they cost and planned (the LLM's counters; the last run's worker plan)."""

    workers: str
    threads: str
    seed: int
    progress: bool
    model: str
    device: str
    batch: int
    cost: Counter[str] = field(default_factory=Counter)
    plan: dict[str, Any] = field(default_factory=dict)

    def generate(self, block: dict[str, Any], items: list[ParaphraseInput], candidates: int, what: str,
                 source: str | None = None) -> dict[int, _Got]:
        """The candidates and note of the generator ``block`` for each of ``items`` (by input line): the
        preset of the one pipeline (:func:`paraspan.cli.preset.preset_store`), each input a sentence of its
        own spans (:func:`paraspan.generate.paraphrase_spans.span_sentence`); ``source`` names where each
        candidate came from."""
        from paraspan.cli.preset import Preset, preset_store
        from paraspan.generate.paraphrase_spans import span_sentence

        # a model-free aligner: the span generator places every candidate itself, so none is ever aligned
        preset = Preset(SPANS, {"generator": block}, candidates=candidates, aligner="ibm2", batch=self.batch,
                        model=self.model, device=self.device)
        sentences = [span_sentence(str(i.line), i.text, i.ban, i.keep) for i in items]
        with preset_store(preset, sentences, workers=self.workers, threads=self.threads, seed=self.seed,
                          progress=self.progress, what=what) as (store, run):
            notes = store.input_notes()
            got = {i.line: _Got([_candidate(row, source) for row in store.iter_candidates(str(i.line))],
                                _generator_note(notes.get(str(i.line)), i.text, source)) for i in items}
        self.plan = dict(run.plan)
        if source is None and run.summary is not None:  # the sampler's counters (the report's)
            self.cost.update({k: v for k, v in run.summary.cost.items() if isinstance(v, (int, float))})
        return got


def _candidate(row: Any, source: str | None) -> Any:
    """A stored candidate row as the candidate the generator returned: text, scores, cluster, rules."""
    from paraspan.generate.base import Candidate

    scores = {k: v for k, v in (("forward", row.forward), ("backward", row.backward), ("score", row.score))
              if v is not None}
    said = Generated(rules=Generated.of_meta(row.meta).rules)
    return Candidate(row.text, scores, meta=said.meta(cluster=row.meta.get("cluster"),
                                                      **({"source": source} if source else {})))


def _generator_note(note: str | None, text: str, source: str | None) -> str | None:
    """The generator's own note in the loop's (``structure 0: iteration 1: no paraphrase (NOTE)``). A blank
    text is never asked (it has nothing to rewrite): the paraphraser's note for it, none from the rules."""
    import re

    from paraspan.generate.paraphrase import skip_reason
    from paraspan.pipeline.loop import NO_CANDIDATE

    if not text.strip():
        return skip_reason(text) if source is None else None
    found = re.fullmatch(rf"structure \d+: iteration \d+: {re.escape(NO_CANDIDATE)} \((.*)\)", note or "", re.S)
    return None if found is None or found.group(1) == "none returned" else found.group(1)


def _rule_block(judging: Judging, llm: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """The generator of ``--rewrites``' candidates for the relation and what a delivered one is called: the
    LLM's insertions (reverse), else the rule rewriter's rules that bear the relation, without WordNet
    synonyms (:func:`paraspan.generate.directions.relation_rewriter`); None with ``--rewrites off``."""
    from paraspan.generate.directions import INSERTIONS, RULE_FAMILIES

    if judging.rewrites == "off":
        return None
    if judging.relation in INSERTIONS:
        shared = {k: llm[k] for k in ("model", "backend", "device", "n_ctx", "batch") if k in llm}
        return {"name": "elaborate", "n": judging.candidates, **shared}, "insertion"
    if judging.relation == "forward":
        return {"name": "generalize", "n": _EVERY}, "rules"
    return {"name": "rewrite", "families": RULE_FAMILIES[judging.relation], "max_lexical": 0}, "rules"


def _judged(run: _Runs, judging: Judging, inputs: list[ParaphraseInput], n: int, llm: dict[str, Any] | None,
            rules: tuple[dict[str, Any], str] | None) -> list[tuple[dict[str, Any], dict[str, int]]]:
    """``--relation``: the rule (or insertion) candidates first, judged; the LLM asked only for the inputs
    they leave short of ``n`` in the class, judged; the first ``n`` in the class delivered. Judged in groups
    of the LLM's batch size, as the judges saw them when the command ran its own batches."""
    by_rules: dict[int, _Got] = {}
    if rules is not None:
        block, source = rules
        by_rules = run.generate(block, inputs, judging.candidates if source == "insertion" else _EVERY,
                                "rewriting", source)
        for item in inputs:
            by_rules[item.line].candidates = without_banned(item, by_rules[item.line].candidates)
    nli = _Judges(judging.judges, run)
    words = direction_check(judging.relation)
    groups = [inputs[i:i + run.batch] for i in range(0, len(inputs), run.batch)]
    ruled = [_judge(nli, words, group, [by_rules[i.line].candidates if rules else [] for i in group])
             for group in groups]
    short = [item for group, judged in zip(groups, ruled, strict=True)
             for item, (_, rels, _) in zip(group, judged, strict=True) if sum(map(judging.keeps, rels)) < n]
    sampled = run.generate(llm, short, judging.candidates, "paraphrasing") if llm is not None and short else {}
    out = []
    for group, judged in zip(groups, ruled, strict=True):
        asked = [item for item in group if item.line in sampled]
        more = dict(zip((i.line for i in asked), _judge(nli, words, asked, [sampled[i.line].candidates
                                                                            for i in asked]), strict=True))
        for item, (passed, rels, rejected) in zip(group, judged, strict=True):
            plus, plus_rels, plus_rejected = more.get(item.line, ([], [], []))
            chosen, verdict = deliver(passed + plus, rels + plus_rels, judging, n, rejected + plus_rejected)
            ruled_got = by_rules.get(item.line, _Got([]))
            if judging.rewrites != "off":
                verdict["rules"] = {"candidates": len(ruled_got.candidates), "delivered": sum(
                    c.meta.get("source") in ("rules", "insertion") for c, _ in chosen)}
            got = sampled.get(item.line) or _Got(ruled_got.candidates, None if ruled_got.candidates
                                                 or judging.rewrites != "only" else ruled_got.note or "no rule applies")
            out.append(paraphrase_record(item, got, chosen, verdict, judging.rewrites, judging))
    return out


@dataclass
class _Judges:
    """The NLI judges of ``--judges``, loaded when first asked: after a run has planned the threads."""

    specs: tuple[str, ...]
    run: _Runs
    loaded: list[Any] = field(default_factory=list)

    def relate(self, pairs: list[tuple[str, str]]) -> list[Any]:
        from paraspan.filter.judges import load_judge
        from paraspan.filter.relations import relate

        if not self.loaded:
            self.loaded = [load_judge(spec, threads=self.run.plan.get("threads")) for spec in self.specs]
        return relate(pairs, self.loaded)


def _judge(nli: _Judges, words: Any, items: list[ParaphraseInput],
           candidates: list[list[Any]]) -> list[tuple[list[Any], list[Any], list[str]]]:
    """Each item's candidates that pass the word check, their relations, and the word check's reasons for
    the rest: the word check first (cheap, and what it rejects needs no judge), then every remaining
    candidate of the items judged both ways in one call per judge."""
    checked = [word_check(item.text, cands, words) for item, cands in zip(items, candidates, strict=True)]
    pairs = [(item.text, c.text) for item, (passed, _) in zip(items, checked, strict=True) for c in passed]
    relations = iter(nli.relate(pairs) if pairs else [])
    return [(passed, [next(relations) for _ in passed], rejected) for passed, rejected in checked]


def paraphrase_record(item: ParaphraseInput, got: _Got, chosen: list[tuple[Any, Any]], judged: dict[str, Any] | None,
                      rewrites: str, judging: Judging | None = None) -> tuple[dict[str, Any], dict[str, int]]:
    """One output line (the input's id and text, the delivered paraphrases, what was judged, why there are
    none) and its counters for the summary."""
    paraphrases = []
    for c, rel in chosen:
        para = {"text": c.text, "forward": _round(c.scores.get("forward")),
                "backward": _round(c.scores.get("backward")), "score": _round(c.scores.get("score")),
                "cluster": c.meta.get("cluster")}
        if c.meta.get("source") in ("rules", "insertion"):  # no paraphrase scores: the rule that made it
            para.update(source=c.meta["source"], rule=next(iter(Generated.of_meta(c.meta).rules), None))
        elif rewrites != "off":
            para["source"] = "llm"
        if judging is not None:
            para["relation"] = relation_record(rel, judging)
        paraphrases.append(para)
    record: dict[str, Any] = {"id": item.id, "text": item.text, "paraphrases": paraphrases}
    if judged is not None:
        record["judged"] = judged
    if got.note and not got.candidates:
        record["note"] = got.note
    elif judging is not None and judged is not None and not chosen:
        record["note"] = _no_class_note(judged, judging)
    stats: dict[str, int] = {}
    if judged is not None:
        stats.update(judged=judged["candidates"], in_class=judged["in_class"], disagreed=judged.get("disagreed", 0),
                     word_rejected=judged.get("word_check", {}).get("rejected", 0))
    if item.ban:
        from paraspan.text.constraints import expand_bans

        bans = expand_bans(item.text[s:e] for s, e in item.ban)
        stats["output_leaks"] = sum(bool(bans.find_leaks(c.text)) for c, _ in chosen)
    return record, stats


def _relation_line(judging: Judging, totals: dict[str, Any]) -> str:
    candidates, in_class, words = totals["judged"], totals["in_class"], totals["word_rejected"]
    share = f" ({100 * in_class / candidates:.0f}%)" if candidates else ""
    line = (f"relation {judging.relation} ({judging.wanted.replace('_', ' ')}) by {', '.join(judging.judges)}"
            f"{' (agreed only)' if judging.agree else ''}: {candidates} candidates, "
            f"{words} rejected by the word check, {candidates - words} judged, {in_class} in the class{share}, "
            f"{totals['paraphrases']} delivered")
    if len(judging.judges) > 1:
        line += f"; the judges disagreed on {totals['disagreed']}"
    return line


def _print_report(console: Any, totals: dict[str, Any], items: list[tuple[str, list[str]]], seconds: float,
                  judging: Judging | None = None) -> None:
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
    if judging is not None:
        judged = totals["judged"]
        rows[3:3] = [
            (f"candidates judged ({judging.relation})", judged),
            (f"  in the class {judging.wanted.replace('_', ' ')}",
             f"{100 * totals['in_class'] / judged:.1f}%" if judged else "-"),
        ] + ([("  judges disagreed", totals["disagreed"])] if len(judging.judges) > 1 else [])
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
