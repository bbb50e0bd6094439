"""Benchmark: constrained paraphrasing vs a naive sampler, on FrameNet 1.5 train sentences.

For each chosen sentence the trigger (anchor) of one frame is banned and, where there is one,
a short frame element (1-4 tokens) of the same frame is kept verbatim. Sentences come from the
train split only (held-out halves are not used for tuning or measuring).

Systems, measured in one process one after the other:

* **paraspan**: ``Paraphraser`` with its default configuration (R constraint sets × S samples,
  top-k 10, prompt prefix cached, samples decoded together, dual scoring, clustering), several
  sentences per ``generate_batch`` call as ``paraspan paraphrase`` sends them (``--parallel``
  samples per wave); with ``--unbatched`` also one sentence per call (before issue 18);
* **naive**: one ``create_chat_completion`` call per sample, the KV cache reset before each call
  (no prompt cache), the plain instruction (no constraints), top-k 10; the first n distinct
  non-empty outputs that differ from the source are its paraphrases.

Reported: leak rate (paraphrases containing a form of the banned trigger), diversity against
the source and among paraphrases (paraspan.evaluate.diversity), kept-span preservation,
sampled candidates and paraphrases per second, **delivered** paraphrases (those without a form of
the banned word: what a user can use) per second and per CPU-second against the naive sampler's,
peak resident memory, and the machine load.

    .venv/bin/python benchmarks/paraphrase.py            # writes benchmarks/results/paraphrase.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import cpu_seconds, load_average, machine, peak_rss_mb

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PARASPAN_SHARED", ROOT.parent / "shared"))
FRAMENET = SHARED / "data" / "framenet" / "fndata-1.5.tar.gz"
SPLITS = SHARED / "data" / "framenet" / "fulltext-splits.json"


def _remap(tokens: list[str], starts: list[int], offsets: list[tuple[int, int]], a: int,
           b: int) -> tuple[int, int] | None:
    """A character span of the raw text → the same tokens' span in the detokenized text."""
    first = next((i for i, s in enumerate(starts) if s == a), None)
    last = next((i for i, s in enumerate(starts) if s < b <= s + len(tokens[i])), None)
    if first is None or last is None or last < first:
        return None
    return offsets[first][0], offsets[last][1]


def choose_sentences(count: int, seed: int, min_words: int, max_words: int) -> list[dict[str, Any]]:
    """Detokenized train sentences with one banned trigger and (if any) one kept frame element."""
    from paraspan.corpus.framenet import read_framenet
    from paraspan.text.constraints import expand_ban, is_function_word
    from paraspan.text.detok import detokenize

    pool: list[dict[str, Any]] = []
    for sentence in read_framenet(FRAMENET, split="train", splits=SPLITS):
        raw = sentence.text
        # FrameNet text is space-tokenised ("work ."): re-join it naturally, keeping offsets
        tokens, starts = [], []
        pos = 0
        for tok in raw.split():
            start = raw.index(tok, pos)
            tokens.append(tok)
            starts.append(start)
            pos = start + len(tok)
        if not min_words <= len(tokens) <= max_words:
            continue
        text, offsets = detokenize(tokens)
        remap = functools.partial(_remap, tokens, starts, offsets)
        for frame in sentence.structures:
            anchor = frame.anchor
            if frame.kind != "frame" or anchor is None:
                continue
            word = raw[anchor.start:anchor.end]
            if " " in word or not word.isalpha() or len(word) < 3 or is_function_word(word):
                continue
            ban = remap(anchor.start, anchor.end)
            if ban is None:
                continue
            bans = expand_ban(word)
            keeps = []
            for arg in frame.args:
                span = remap(arg.start, arg.end)
                if span is None or not 1 <= len(raw[arg.start:arg.end].split()) <= 4:
                    continue
                if span[0] < ban[1] and ban[0] < span[1]:
                    continue
                if bans.find_leaks(text[span[0]:span[1]]):
                    continue
                keeps.append(span)
            pool.append({"id": sentence.id, "text": text, "ban": [list(ban)],
                         "keep": [list(keeps[0])] if keeps else [], "frame": frame.label})
            break  # one frame per sentence
    rng = random.Random(seed)
    return sorted(rng.sample(pool, min(count, len(pool))), key=lambda r: r["id"])


def run_paraspan(inputs: list[dict[str, Any]], args: argparse.Namespace, rescore_top: int | None,
                 per_call: int = 1) -> dict[str, Any]:
    """``per_call`` sentences per ``generate_batch`` call (their samples decoded together, as
    ``paraspan paraphrase`` does); 1 with ``parallel`` = samples × sets is the release before issue 18."""
    from paraspan.generate.base import GenerationRequest
    from paraspan.generate.paraphrase import ParaphraseConfig, Paraphraser, context_size
    from paraspan.llm.llama_backend import LlamaBackend

    parallel = args.parallel if per_call > 1 else args.samples * args.constraint_sets
    backend = LlamaBackend.load(args.model, n_threads=args.threads, max_parallel=parallel,
                                n_ctx=context_size(4096, parallel))
    config = ParaphraseConfig(n=args.n, samples=args.samples, constraint_sets=args.constraint_sets,
                              seed=args.seed, rescore_per_cluster=rescore_top)
    paraphraser = Paraphraser(backend, config)
    # warm-up (page the weights in, cache the prompt prefix): not timed
    paraphraser.generate(GenerationRequest("warm-up", "The cat sat on the mat.", ban=((4, 7),)))
    rows, totals = [], {"sampled": 0, "sampled_tokens": 0, "kept_checked": 0, "kept_preserved": 0,
                        "leaks_caught": 0, "sample_seconds": 0.0, "score_seconds": 0.0, "backward_scored": 0,
                        "sample_cpu_seconds": 0.0, "score_cpu_seconds": 0.0}
    started = time.perf_counter()
    cpu_started = cpu_seconds()
    requests = [GenerationRequest(item["id"], item["text"], tuple(map(tuple, item["ban"])),
                                  tuple(map(tuple, item["keep"]))) for item in inputs]
    results = [result for i in range(0, len(requests), per_call)
               for result in paraphraser.generate_batch(requests[i:i + per_call])]
    for item, result in zip(inputs, results, strict=True):
        stats = result.stats
        totals["sampled"] += stats.get("sampled", 0)
        totals["sampled_tokens"] += stats.get("sampled_tokens", 0)
        totals["kept_checked"] += stats.get("kept_spans_checked", 0)
        totals["kept_preserved"] += stats.get("kept_spans_preserved", 0)
        totals["leaks_caught"] += stats.get("leaks_caught", 0)
        totals["sample_seconds"] += stats.get("sample_seconds", 0.0)
        totals["score_seconds"] += stats.get("score_seconds", 0.0)
        totals["backward_scored"] += stats.get("backward_scored", 0)
        totals["sample_cpu_seconds"] += stats.get("sample_cpu_seconds", 0.0)
        totals["score_cpu_seconds"] += stats.get("score_cpu_seconds", 0.0)
        rows.append({"id": item["id"], "paraphrases": [c.text for c in result.candidates],
                     "scores": [round(c.scores["score"], 3) for c in result.candidates],
                     "note": result.note, "rejected": stats.get("rejected", {})})
    seconds = time.perf_counter() - started
    totals["seconds"] = seconds
    totals["cpu_seconds"] = cpu_seconds() - cpu_started
    totals["counters"] = dict(backend.counters)
    totals["threads"] = backend.n_threads
    totals["per_call"] = per_call
    totals["parallel"] = parallel
    backend.close()
    return {"rows": rows, "totals": totals}


def run_naive(inputs: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    from paraspan.generate.paraphrase import INSTRUCTION, SPLIT_MARK, SYSTEM_PROMPT, clean_output, normalise
    from paraspan.models.llm import load_llm

    llm = load_llm(args.model, n_ctx=2048, n_threads=args.threads, seed=args.seed)
    kept_checked = kept_preserved = 0
    rows = []

    def call(text: str, seed: int) -> tuple[str, int]:
        llm.llama.reset()  # no prompt cache: llama-cpp-python would otherwise reuse the prefix
        out = llm.chat([{"role": "system", "content": SYSTEM_PROMPT},
                        {"role": "user", "content": f"{INSTRUCTION}\n{SPLIT_MARK} {text}"}],
                       max_tokens=2 * len(llm.llama.tokenize(text.encode(), add_bos=False)) + 16,
                       temperature=1.0, top_k=10, top_p=1.0, min_p=0.0, seed=seed, stop=["\n"])
        return out.text, out.completion_tokens

    call("The cat sat on the mat.", 0)  # warm-up
    sampled = tokens = 0
    started = time.perf_counter()
    cpu_started = cpu_seconds()
    for item in inputs:
        outputs = []
        for j in range(args.naive_samples):
            text, n_tokens = call(item["text"], args.seed * 1000 + j)
            sampled += 1
            tokens += n_tokens
            outputs.append(clean_output(text))
            for start, end in item["keep"]:
                kept_checked += 1
                kept_preserved += item["text"][start:end] in outputs[-1]
        seen, paraphrases = set(), []
        for text in outputs:
            key = normalise(text)
            if text and key != normalise(item["text"]) and key not in seen:
                seen.add(key)
                paraphrases.append(text)
        rows.append({"id": item["id"], "paraphrases": paraphrases[: args.n]})
    seconds = time.perf_counter() - started
    return {"rows": rows, "totals": {"sampled": sampled, "sampled_tokens": tokens, "seconds": seconds,
                                     "cpu_seconds": cpu_seconds() - cpu_started,
                                     "kept_checked": kept_checked, "kept_preserved": kept_preserved}}


def summarise(name: str, inputs: list[dict[str, Any]], run: dict[str, Any]) -> dict[str, Any]:
    from paraspan.evaluate.diversity import diversity_report
    from paraspan.text.constraints import expand_bans

    by_id = {item["id"]: item for item in inputs}
    leaks = total = 0
    items = []
    for row in run["rows"]:
        item = by_id[row["id"]]
        bans = expand_bans(item["text"][s:e] for s, e in item["ban"])
        leaks += sum(bool(bans.find_leaks(p)) for p in row["paraphrases"])
        total += len(row["paraphrases"])
        items.append((item["text"], row["paraphrases"]))
    t = run["totals"]
    div = diversity_report(items).to_dict()
    return {
        "system": name,
        "sentences": len(run["rows"]),
        "sentences_with_paraphrases": sum(bool(r["paraphrases"]) for r in run["rows"]),
        "paraphrases": total,
        "leak_rate": round(leaks / total, 4) if total else None,
        "leaking_paraphrases": leaks,
        "kept_spans_preserved_in_samples":
            round(t["kept_preserved"] / t["kept_checked"], 4) if t["kept_checked"] else None,
        "sampled_candidates": t["sampled"],
        "sampled_tokens": t["sampled_tokens"],
        "seconds": round(t["seconds"], 1),
        "sample_seconds": round(t["sample_seconds"], 1) if "sample_seconds" in t else None,
        "score_seconds": round(t["score_seconds"], 1) if "score_seconds" in t else None,
        "sampled_candidates_per_second": round(t["sampled"] / t["seconds"], 3),
        "sampled_candidates_per_second_sampling_only":
            round(t["sampled"] / t["sample_seconds"], 3) if t.get("sample_seconds") else None,
        "sampled_tokens_per_second": round(t["sampled_tokens"] / t["seconds"], 1),
        "paraphrases_per_second": round(total / t["seconds"], 3),
        # what a user can use: paraphrases without a form of the banned word
        "delivered": total - leaks,
        "delivered_per_second": round((total - leaks) / t["seconds"], 4),
        "delivered_per_cpu_second": round((total - leaks) / t["cpu_seconds"], 4),
        "cpu_seconds": round(t["cpu_seconds"], 1),
        "sample_cpu_seconds": round(t["sample_cpu_seconds"], 1) if "sample_cpu_seconds" in t else None,
        "score_cpu_seconds": round(t["score_cpu_seconds"], 1) if "score_cpu_seconds" in t else None,
        "sampled_candidates_per_cpu_second_sampling_only":
            round(t["sampled"] / t["sample_cpu_seconds"], 3) if t.get("sample_cpu_seconds") else None,
        "sampled_candidates_per_cpu_second": round(t["sampled"] / t["cpu_seconds"], 3),
        "paraphrases_per_cpu_second": round(total / t["cpu_seconds"], 3),
        **{f"diversity_{k}": v for k, v in div.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=24)
    parser.add_argument("--naive-sentences", type=int, default=10, help="the first N of the same sentences")
    parser.add_argument("--naive-samples", type=int, default=5)
    parser.add_argument("--min-words", type=int, default=8)
    parser.add_argument("--max-words", type=int, default=25)
    parser.add_argument("--model", default="default")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--parallel", type=int, default=64,
                        help="samples decoded together across sentences (paraspan paraphrase's default)")
    parser.add_argument("--unbatched", action="store_true",
                        help="also run paraspan one sentence per call (the release before issue 18)")
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--samples", type=int, default=6)
    parser.add_argument("--constraint-sets", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rescore-top", type=int, nargs="*", default=[1],
                        help="also run paraspan scoring backwards only the best M per cluster (one run per M)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "paraphrase.json")
    args = parser.parse_args()
    if not FRAMENET.exists():
        print(f"{FRAMENET} is missing (set PARASPAN_SHARED)", file=sys.stderr)
        return 1

    inputs = choose_sentences(args.sentences, args.seed, args.min_words, args.max_words)
    words = [len(i["text"].split()) for i in inputs]
    print(f"{len(inputs)} sentences, {sum(words) / len(words):.1f} words on average", file=sys.stderr)
    load_before = load_average()
    rss_start = peak_rss_mb()
    summaries, runs = [], []
    per_call = max(1, -(-args.parallel // (args.samples * args.constraint_sets)))
    systems = [(rescore, per_call) for rescore in [None, *args.rescore_top]]
    if args.unbatched:
        systems += [(rescore, 1) for rescore in [None, *args.rescore_top]]
    for rescore, chunk in systems:
        run = run_paraspan(inputs, args, rescore, chunk)
        name = ("paraspan" if rescore is None else f"paraspan --rescore-top {rescore}") + \
            (f", {chunk} sentences per batch" if chunk > 1 else ", one sentence per call")
        summary = summarise(name, inputs, run)
        summary["peak_rss_mb"] = round(peak_rss_mb(), 1)
        summary["backward_scored"] = run["totals"]["backward_scored"]
        summaries.append(summary)
        runs.append(run)
    ours = runs[0]
    load_mid = load_average()
    naive = run_naive(inputs[: args.naive_sentences], args)
    rss_naive = peak_rss_mb()
    load_after = load_average()

    summary_naive = summarise("naive", inputs, naive)
    summary_naive["peak_rss_mb_cumulative"] = round(rss_naive, 1)
    for summary in summaries:
        summary["delivered_vs_naive"] = round(
            summary["delivered_per_second"] / summary_naive["delivered_per_second"], 2) \
            if summary_naive["delivered_per_second"] else None
        summary["delivered_vs_naive_cpu_time"] = round(
            summary["delivered_per_cpu_second"] / summary_naive["delivered_per_cpu_second"], 2) \
            if summary_naive["delivered_per_cpu_second"] else None
        summary["speedup_vs_naive"] = round(
            summary["sampled_candidates_per_second"] / summary_naive["sampled_candidates_per_second"], 2)
        summary["speedup_vs_naive_cpu_time"] = round(
            summary["sampled_candidates_per_cpu_second"] / summary_naive["sampled_candidates_per_cpu_second"], 2)
        if summary["sampled_candidates_per_second_sampling_only"]:
            summary["speedup_vs_naive_sampling_only"] = round(
                summary["sampled_candidates_per_second_sampling_only"]
                / summary_naive["sampled_candidates_per_second"], 2)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or None
    result = {
        "benchmark": "paraphrase",
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "commit": commit,
        "machine": machine(),
        "load_average": {"before": load_before, "between": load_mid, "after": load_after},
        "data": {"corpus": "FrameNet 1.5 full text, train split", "sentences": len(inputs),
                 "naive_sentences": min(args.naive_sentences, len(inputs)),
                 "mean_words": round(sum(words) / len(words), 1),
                 "with_kept_span": sum(bool(i["keep"]) for i in inputs)},
        "config": {"model": args.model, "threads": ours["totals"]["threads"], "n": args.n,
                   "samples": args.samples, "constraint_sets": args.constraint_sets, "top_k": 10,
                   "naive_samples": args.naive_samples, "seed": args.seed, "parallel": args.parallel,
                   "rescore_top_runs": args.rescore_top},
        "rss_mb_before_models": round(rss_start, 1),
        "results": [*summaries, summary_naive],
        "backend_counters": ours["totals"]["counters"],
        "examples": [{"text": i["text"], "ban": [i["text"][s:e] for s, e in i["ban"]],
                      "keep": [i["text"][s:e] for s, e in i["keep"]], "paraspan": r["paraphrases"],
                      "naive": n["paraphrases"]}
                     for i, r, n in zip(inputs[:4], ours["rows"][:4], naive["rows"][:4], strict=False)],
        "notes_paraspan": {r["id"]: r["note"] for r in ours["rows"] if r["note"]},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("load_average", "results")},
                     indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
