"""Benchmark: verification of augmentation outputs (issue 21), one part at a time.

Each part writes only its own key of ``benchmarks/results/verify.json`` (read, update, write back
atomically), so parts run separately, by different people, into one file.

* ``--part fluency``: the fluency filter (:mod:`paraspan.filter.fluency`). Calibrates τ, the 5th
  percentile of the filter's statistic (``--statistic``: ``mean``, d = mean log-prob(output) − mean
  log-prob(source); ``shared-drop``, minus the largest drop of a shared token's log-prob) over both
  directions of MRPC *train* positive pairs (two fluent sentences that mean the same), and ships it
  per (model, statistic) in ``src/paraspan/filter/data/fluency.json``; then measures the acceptance of held-out MRPC
  *validation* positives and the rejection of corrupted calibration sentences, per kind of
  corruption seen in rule rewrites (a word of a phrase moved, a function word dropped, two
  adjacent words swapped, a determiner that no longer agrees, a word duplicated).
* ``--part verifier``: the shipped span-label verifiers (:mod:`paraspan.filter.verifier`), per span
  kind, on the held-back split of each corpus (FrameNet 1.5 test documents, the test part of the
  EWT document split, WikiANN dev): gold spans accepted with their gold label; the same spans
  with a wrong label of the same kind, and shifted gold spans, rejected.

    .venv/bin/python benchmarks/verify.py --part fluency --model small --model default   # ~25 min, 1 thread
    .venv/bin/python benchmarks/verify.py --part fluency --statistic shared-drop --model small   # ~5 min
    .venv/bin/python benchmarks/verify.py --part verifier --threads 1                     # ~10 min
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import load_average, machine

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PARASPAN_SHARED", ROOT.parent / "shared"))
RESULTS = ROOT / "benchmarks" / "results" / "verify.json"


def _write_json(path: Path, data: Any) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file, then a rename)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _update_results(part: str, value: Any, out: Path) -> None:
    """Set ``part`` in the results file, leaving the other parts as they are."""
    data = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    data[part] = value
    _write_json(out, data)


# --------------------------------------------------------------------------- fluency (issue 21)

MRPC = SHARED / "data" / "paraphrase" / "mrpc"
FLUENCY_SHIP = ROOT / "src" / "paraspan" / "filter" / "data" / "fluency.json"
_WORD = re.compile(r"^[A-Za-z]+$")
FUNCTION_WORDS = frozenset("the a an of to in on for with at by from and that is was has have are were be".split())
DETERMINER_SWAP = {"a": "an", "an": "a", "this": "these", "these": "this", "those": "that", "every": "all",
                   "many": "much", "much": "many"}
CORRUPTIONS = ("phrase_word_moved", "function_word_dropped", "adjacent_swap", "agreement_broken", "word_duplicated")


def _core(token: str) -> tuple[str, str, str]:
    """A whitespace token split into (leading punctuation, word, trailing punctuation)."""
    m = re.match(r"^(\W*)(.*?)(\W*)$", token)
    assert m is not None
    return m.group(1), m.group(2), m.group(3)


def corrupt(text: str, kind: str, rng: random.Random) -> str | None:
    """``text`` broken as rule rewrites break sentences; None when it has no place for ``kind``.

    Edits move or change bare words only (punctuation stays where it was), so the rest of the
    text is the source's, byte for byte."""
    toks = text.split()
    words = [_core(t) for t in toks]
    bare = [i for i, (lead, w, trail) in enumerate(words) if _WORD.match(w) and not lead and not trail]
    if kind == "phrase_word_moved":  # "in the summer of 2001" -> "in the of 2001 summer"
        sites = [i for i in bare if i >= 1 and i + 2 < len(toks) and toks[i - 1].lower() in
                 ("the", "a", "an", "his", "her", "its", "their", "our", "this", "that")
                 and w_ok(words, i + 1) and w_ok(words, i + 2)]
        if not sites:
            return None
        i = rng.choice(sites)
        lead, word, trail = words[i + 2]  # the phrase's closing punctuation stays at its end
        out = toks[:i] + [toks[i + 1], lead + word, toks[i] + trail] + toks[i + 3:]
    elif kind == "function_word_dropped":
        sites = [i for i in bare if i > 0 and toks[i].lower() in FUNCTION_WORDS]
        if not sites:
            return None
        i = rng.choice(sites)
        out = toks[:i] + toks[i + 1:]
    elif kind == "adjacent_swap":
        sites = [i for i in bare if i + 1 in bare and i > 0 and toks[i].lower() != toks[i + 1].lower()]
        if not sites:
            return None
        i = rng.choice(sites)
        out = toks[:i] + [toks[i + 1], toks[i]] + toks[i + 2:]
    elif kind == "agreement_broken":  # "an air space" -> "a air space", "these" -> "this"
        sites = [i for i in bare if toks[i].lower() in DETERMINER_SWAP and i + 1 < len(toks)]
        if not sites:
            return None
        i = rng.choice(sites)
        new = DETERMINER_SWAP[toks[i].lower()]
        out = toks[:i] + [new.capitalize() if toks[i][0].isupper() else new] + toks[i + 1:]
    elif kind == "word_duplicated":
        sites = [i for i in bare if i > 0]
        if not sites:
            return None
        i = rng.choice(sites)
        out = toks[:i + 1] + [toks[i]] + toks[i + 1:]
    else:
        raise ValueError(kind)
    result = " ".join(out)
    return result if result != text else None


def w_ok(words: list[tuple[str, str, str]], i: int) -> bool:
    return bool(words[i][1]) and not words[i][0]


class _CachedScorer:
    """Mean log-probs by text, kept in a JSON file beside the run so an interrupted run resumes."""

    def __init__(self, model: str, threads: int, cache: Path, chunk: int = 50, *, per_token: bool = False) -> None:
        self.model, self.threads, self.cache, self.chunk = model, threads, cache, chunk
        self.per_token = per_token  # token ids and per-token log-probs (shared-drop) instead of the mean
        self.values: dict[str, Any] = json.loads(cache.read_text()) if cache.is_file() else {}
        self._scorer: Any = None
        self.scored = 0
        self.seconds = 0.0

    def __call__(self, texts: list[str]) -> list[Any]:
        todo = [t for t in dict.fromkeys(texts) if t not in self.values]
        if todo and self._scorer is None:
            from paraspan.llm.llama_backend import text_scorer, text_token_scorer

            load = text_token_scorer if self.per_token else text_scorer
            self._scorer = load(self.model, n_threads=self.threads)
        for start in range(0, len(todo), self.chunk):
            part = todo[start:start + self.chunk]
            t0 = time.perf_counter()
            self.values.update(zip(part, self._scorer(part), strict=True))
            self.seconds += time.perf_counter() - t0
            self.scored += len(part)
            tmp = self.cache.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.values))
            os.replace(tmp, self.cache)
            print(f"  [{self.model}] scored {self.scored}/{len(todo)} new texts, "
                  f"{self.seconds / self.scored:.2f} s/text", flush=True)
        if self.per_token:  # JSON gives lists back; the statistic takes (ids, log-probs)
            return [(list(self.values[t][0]), list(self.values[t][1])) for t in texts]
        return [self.values[t] for t in texts]


def _positives(path: Path) -> list[tuple[str, str]]:
    from paraspan.corpus.pairs import read_mrpc

    return [(p.s1, p.s2) for p in read_mrpc(path) if p.gold.get("paraphrase") == 1]


def _rate(values: list[float], tau: float, keep: bool) -> float:
    return round(sum((d >= tau) == keep for d in values) / len(values), 4) if values else float("nan")


def _stats(values: list[float]) -> dict[str, float]:
    from paraspan.filter.fluency import percentile

    return {"n": len(values), "mean": round(statistics.fmean(values), 4), "p05": round(percentile(values, 0.05), 4),
            "p50": round(percentile(values, 0.5), 4), "p95": round(percentile(values, 0.95), 4)}


def fluency_part(args: argparse.Namespace) -> dict[str, Any]:
    """Calibrate τ on MRPC train positives, measure acceptance of MRPC val positives and the
    rejection of corrupted train sentences, per model; ship the thresholds."""
    from paraspan.filter.fluency import KEEP_SHARE, percentile

    train, val = _positives(MRPC / "msr-para-train.tsv"), _positives(MRPC / "msr-para-val.tsv")
    rng = random.Random(args.seed)
    calib = rng.sample(train, min(args.pairs, len(train)))
    heldout = random.Random(args.seed + 1).sample(val, min(args.heldout, len(val)))
    # corruptions of the calibration pairs' first sentences: the same dev sentences, broken
    broken: dict[str, list[tuple[str, str]]] = {}
    for kind in CORRUPTIONS:
        krng = random.Random(f"{args.seed}-{kind}")
        out = []
        for s1, _ in calib:
            bad = corrupt(s1, kind, krng)
            if bad is not None:
                out.append((s1, bad))
            if len(out) == args.per_kind:
                break
        broken[kind] = out
    results: dict[str, Any] = {}
    for model in args.model:
        started = time.time()
        per_token = args.statistic == "shared-drop"
        cache = Path(args.cache_dir) / (f"fluency-{model}-tokens.json" if per_token else f"fluency-{model}.json")
        scorer = _CachedScorer(model, args.threads, cache, per_token=per_token)
        texts = [t for pair in calib + heldout for t in pair] + [b for pairs in broken.values() for _, b in pairs]
        print(f"{model}: {len(dict.fromkeys(texts))} distinct texts to score", flush=True)
        scorer(texts)  # all at once, in chunks (resumable)
        value = dict(zip(texts, scorer(texts), strict=True))
        delta = functools.partial(_statistic, value, per_token)

        gold = [d for a, b in calib for d in (delta(a, b), delta(b, a))]
        tau = round(percentile(gold, 1.0 - KEEP_SHARE), 4)
        held = [d for a, b in heldout for d in (delta(a, b), delta(b, a))]
        tokens = _token_counts(model, texts) if args.sum_statistic and not per_token else None
        per_kind: dict[str, Any] = {}
        for kind, pairs in broken.items():
            ds = [delta(s, b) for s, b in pairs]
            # no example sentences: the results file must hold no text of ../shared's corpora
            row: dict[str, Any] = {"n": len(ds), "rejected": _rate(ds, tau, keep=False),
                                   "delta": _stats(ds) if ds else None}
            per_kind[kind] = row
        all_broken = [delta(s, b) for pairs in broken.values() for s, b in pairs]
        sweep = {}
        for keep in (0.90, 0.95, 0.99):
            t = percentile(gold, 1.0 - keep)
            sweep[f"keep_gold_{keep:.2f}"] = {
                "threshold": round(t, 4), "heldout_accepted": _rate(held, t, keep=True),
                "rejected": {kind: _rate([delta(s, b) for s, b in pairs], t, keep=False)
                             for kind, pairs in broken.items()}}
        entry: dict[str, Any] = {
            "model": model, "statistic": args.statistic, "threshold": tau, "keep_share": KEEP_SHARE,
            "calibration": {"data": "MRPC train positives (msr-para-train.tsv, quality 1)", "pairs": len(calib),
                            "directions": len(gold), "delta": _stats(gold),
                            "accepted": _rate(gold, tau, keep=True)},
            "heldout": {"data": "MRPC validation positives (msr-para-val.tsv, quality 1)", "pairs": len(heldout),
                        "directions": len(held), "delta": _stats(held), "accepted": _rate(held, tau, keep=True)},
            "corruptions": per_kind,
            "corruptions_all": {"n": len(all_broken), "rejected": _rate(all_broken, tau, keep=False)},
            "sweep": sweep,
            "threads": args.threads,
            "seconds_per_text": round(scorer.seconds / scorer.scored, 3) if scorer.scored else None,
            "wall_s": round(time.time() - started, 1),
        }
        if tokens is not None:
            entry["sum_statistic"] = _sum_statistic(value, tokens, calib, heldout, broken)
        entry["run"] = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="minutes"),
                        "machine": machine(), "load_average": load_average(),
                        "command": "benchmarks/verify.py " + " ".join(args.argv)}
        results[model] = entry
        # each model's entry as soon as it is measured; the other models' entries (and parts) are kept
        data = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
        _update_results("fluency", _fluency_results(data.get("fluency", {}), args.statistic, model, entry), args.out)
        print(json.dumps({k: entry[k] for k in ("threshold", "heldout", "corruptions_all")}, indent=1), flush=True)
        if not args.no_ship:
            _ship_threshold(model, args.statistic, entry)
    return results


def _statistic(value: dict[str, Any], per_token: bool, src: str, out: str) -> float:
    """The statistic of ``out`` rewritten from ``src``, from their scores in ``value``."""
    from paraspan.filter.fluency import shared_drop

    return shared_drop(value[src], value[out]) if per_token else value[out] - value[src]


def _fluency_results(old: dict[str, Any], statistic: str, model: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The ``fluency`` key with ``entry`` under statistic → model; other entries kept (entries of the
    older layout, model → entry of the mean, move under ``mean``)."""
    from paraspan.filter.fluency import STATISTICS

    data = {k: v for k, v in old.items() if k in STATISTICS}
    for key, value in old.items():
        if key not in STATISTICS:
            data.setdefault("mean", {}).setdefault(key, value)
    data.setdefault(statistic, {})[model] = entry
    return {stat: dict(sorted(data[stat].items())) for stat in STATISTICS if stat in data}


def _token_counts(model: str, texts: list[str]) -> dict[str, int]:
    from paraspan.llm.llama_backend import LlamaBackend

    backend = LlamaBackend.load(model, n_threads=1)
    return {t: len(backend.tokenize(t)) for t in dict.fromkeys(texts)}


def _sum_statistic(value: dict[str, float], tokens: dict[str, int], calib: list[tuple[str, str]],
                   heldout: list[tuple[str, str]], broken: dict[str, list[tuple[str, str]]]) -> dict[str, Any]:
    """For comparison only: the same calibration on the *total* log-prob difference (not per token)."""
    from paraspan.filter.fluency import percentile

    def total(t: str) -> float:
        return value[t] * tokens[t]

    gold = [d for a, b in calib for d in (total(b) - total(a), total(a) - total(b))]
    held = [d for a, b in heldout for d in (total(b) - total(a), total(a) - total(b))]
    tau = percentile(gold, 0.05)
    return {"threshold": round(tau, 3), "heldout_accepted": _rate(held, tau, keep=True),
            "rejected": {kind: _rate([total(b) - total(s) for s, b in pairs], tau, keep=False)
                         for kind, pairs in broken.items()}}


def _ship_threshold(model: str, statistic: str, entry: dict[str, Any]) -> None:
    """Write ``model``'s calibrated threshold for ``statistic`` into the package's fluency.json
    (other models and statistics kept)."""
    from paraspan.filter.fluency import STATISTIC_DESCRIPTIONS

    data = json.loads(FLUENCY_SHIP.read_text()) if FLUENCY_SHIP.is_file() else {}
    data.pop("statistic", None)  # the older layout: one statistic (the mean), one threshold per model
    data["statistics"] = dict(STATISTIC_DESCRIPTIONS)
    data.setdefault("recipe", "5th percentile of the statistic over both directions of MRPC train positive pairs "
                              "(keeps 95% of gold paraphrases); benchmarks/verify.py --part fluency")
    models = data.setdefault("models", {})
    for name, old in list(models.items()):
        if "threshold" in old:
            models[name] = {"mean": old}
    models.setdefault(model, {})[statistic] = {
        "threshold": entry["threshold"], "pairs": entry["calibration"]["pairs"],
        "heldout_accepted": entry["heldout"]["accepted"],
        "corruptions_rejected": entry["corruptions_all"]["rejected"], "date": dt.date.today().isoformat()}
    data["models"] = {name: dict(sorted(models[name].items())) for name in sorted(models)}
    data = {k: data[k] for k in ("statistics", "recipe", "models")}
    _write_json(FLUENCY_SHIP, data)
    print(f"shipped {model} {statistic}: threshold {entry['threshold']} -> {FLUENCY_SHIP.relative_to(ROOT)}",
          flush=True)


# --------------------------------------------------------------------------- main

# --------------------------------------------------------------------------- span-label verifier (issue 21)

FN_RELEASE = SHARED / "data" / "framenet" / "fndata-1.5.tar.gz"
FN_SPLITS = SHARED / "data" / "framenet" / "fulltext-splits.json"
EWT = SHARED / "data" / "srl" / "up-english-ewt" / "en_ewt-up-dev.conllu"
WIKIANN_DEV = SHARED / "data" / "ner" / "wikiann-en" / "dev"


def _vlog(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


def _held_back(name: str) -> tuple[str, list[Any]]:
    """The held-back sentences of a shipped verifier's corpus, and what they are."""
    from paraspan.corpus.formats import read_corpus
    from paraspan.filter.verifier_train import document_split

    if name == "framenet15":
        return "FrameNet 1.5 full-text test documents", list(read_corpus(FN_RELEASE, "framenet", split="test",
                                                                                splits=FN_SPLITS))
    if name == "ewt-up":
        return ("Universal PropBank EWT, test part of the document split (crc32(doc) % 10 in 8-9)",
                document_split(read_corpus(EWT, "conllu-srl"))["test"])
    return "WikiANN English dev (not used in training: the verifier was trained and calibrated on train)", \
        list(read_corpus(WIKIANN_DEV, "bio"))


def verifier_part(args: argparse.Namespace) -> dict[str, Any]:
    """Accuracy of each shipped verifier per span kind on its corpus's held-back split: gold spans
    accepted with their gold label; the same spans with a wrong label of the kind, and shifted gold
    spans (one word more or less) claiming a gold label of the kind, rejected."""
    import torch

    from paraspan.filter.verifier import Verifier, spans_of
    from paraspan.filter.verifier_train import evaluate

    torch.set_num_threads(max(1, args.threads))
    started = dt.datetime.now(dt.timezone.utc)
    out: dict[str, Any] = {"machine": machine(), "load_average_start": load_average(),
                           "started": started.isoformat(timespec="seconds"),
                           "command": "python benchmarks/verify.py " + " ".join(args.argv), "verifiers": {}}
    if args.out.is_file():  # a run over some verifiers keeps the others' numbers
        earlier = json.loads(args.out.read_text(encoding="utf-8")).get("verifier", {})
        out["verifiers"] = earlier.get("verifiers", {})
    for name in args.verifier or ["framenet15", "ewt-up", "wikiann"]:
        t0 = time.perf_counter()
        what, sentences = _held_back(name)
        if args.max_sentences and len(sentences) > args.max_sentences:  # the first N: a fixed sample
            what += f", its first {args.max_sentences:,} of {len(sentences):,} sentences"
            sentences = sentences[:args.max_sentences]
        verifier = Verifier.load(name)
        unseen = sum(1 for s in sentences for _, _, i in spans_of(s) if not verifier.known(i.kind, i.label or ""))
        scores = evaluate(verifier, sentences, cache_dir=Path(args.cache_dir) / "verifier-bench", log=_vlog)
        out["verifiers"][name] = {"data": what, "date": dt.date.today().isoformat(), "command": out["command"],
                                  "sentences": len(sentences), "unseen_label_spans": unseen,
                                  "thresholds": verifier.thresholds, "kinds": scores,
                                  "training": verifier.meta.get("data", {}), "seconds": round(time.perf_counter() - t0)}
        _vlog(f"{name}: {json.dumps(scores)}")
        _update_results("verifier", out, args.out)
    out["load_average_end"] = load_average()
    _update_results("verifier", out, args.out)
    return out


PARTS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {"fluency": fluency_part,
                                                                  "verifier": verifier_part}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", required=True, choices=["fluency", "verifier"])
    parser.add_argument("--out", type=Path, default=RESULTS)
    fluency = parser.add_argument_group("fluency")
    fluency.add_argument("--model", action="append", help="LLM(s) to calibrate (default, small); default: default")
    fluency.add_argument("--pairs", type=int, default=300, help="MRPC train positive pairs for calibration")
    fluency.add_argument("--heldout", type=int, default=150, help="MRPC validation positive pairs")
    fluency.add_argument("--per-kind", type=int, default=100, help="corrupted sentences per kind")
    fluency.add_argument("--threads", type=int, default=1)
    fluency.add_argument("--statistic", choices=["shared-drop", "mean"], default="mean",
                         help="mean: mean log-prob per token, output − source; shared-drop: the largest drop of "
                              "a shared token's log-prob (paraspan.filter.fluency)")
    fluency.add_argument("--seed", type=int, default=0)
    fluency.add_argument("--cache-dir", default="/tmp", help="where scored texts are kept so a run resumes")
    fluency.add_argument("--sum-statistic", action="store_true",
                         help="also calibrate the total (not per-token) log-prob difference, for comparison")
    parser.add_argument("--max-sentences", type=int, default=0, help="verifier part: measure on the first N "
                        "held-back sentences only (0: all)")
    parser.add_argument("--verifier", action="append", help="verifier part: shipped verifier(s) to measure "
                        "(framenet15, ewt-up, wikiann); default: all")
    fluency.add_argument("--no-ship", action="store_true", help="do not write the thresholds into the package")
    args = parser.parse_args(argv)
    if args.part not in PARTS:
        parser.error(f"--part {args.part} is not in this script yet")
    args.model = args.model or ["default"]
    args.argv = sys.argv[1:] if argv is None else argv
    PARTS[args.part](args)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
