"""Benchmark: NLI judges and the fine-grained relations built on them (issue #6).

Judges: ``minilm-nli`` (the shipped cross-encoder, trained on SICK train only) on every pair;
``llm`` (the default 1.5B GGUF, label words read from next-token logits) on a fixed random
subsample, because it runs ~1 judgement/s on one CPU thread; and their agreement on that
subsample (a pair counts when both judges give the same label, as the paper keeps only those).

Measured:

* **SICK trial** (500 pairs, 3-way accuracy): the proxy for held-out SICK test, which is not used;
* **RTE 1-3 dev** (1,767 pairs, 2-way: a judge says "entailment" when that is its top label,
  "not entailment" otherwise; RTE's gold does not tell neutral from contradiction);
* **MRPC val** (500 pairs): the paper's Table 10 check, the share of gold-positive paraphrases
  among pairs labelled ``equivalence`` (paper: 99.1% on MRPC), and the other relations' shares;
* **STS-B dev** (1,500 pairs, cross-encoder only): the STS-B row of Table 10, the mean gold
  similarity (0-5) of each relation (paper: ≡ 4.62, ⊏ 3.69, ⊐ 3.71, | 3.06, ∧ 1.19);
* **speed**: pairs per second for relabelling (each pair judged both ways), one CPU thread.

    .venv/bin/python benchmarks/relations.py                  # writes benchmarks/results/relations.json
    .venv/bin/python benchmarks/relations.py --llm-sample 0   # cross-encoder only (~1 min)

``--generate`` measures directional paraphrasing instead (issue 20, the paper's §6 Tables 15-18):
``paraspan paraphrase --relation R --judges llm,minilm-nli`` for R in equivalence, forward and
reverse on ``--n`` sentences of MRPC validation (the first sentence of each pair, no constraints)
and ``--n`` of FrameNet 1.5 dev (one frame per sentence, its target and frame elements kept
verbatim). The first judge selects what is delivered; the second is an independent check. The
LLM selects by default: in a smoke run (2 sentences per set, the default model) minilm-nli put none
of 27 forward and reverse candidates in the requested class (it calls dropped or added details
"entailment" both ways: equivalence), the LLM judge 45-80%. Per set and relation it reports the
share of the candidates each judge puts in the requested class (the prompt's precision, as the
paper's Table 18), the share of delivered outputs in the class by each judge alone and by both,
the share of sentences with at least one delivered output (and with one both judges put in the
class: what ``--agree`` keeps), and the mean differences output − source in words and in
dependency-tree height (spaCy; Tables 15-16).
Generation runs in chunks under ``--work`` (a chunk whose output exists is not run again), which
also gets ``hand-RELATION.jsonl``: up to ``--hand`` delivered outputs per relation to judge by
hand (set ``"in_class"`` to true or false on each line, and a ``"note"`` saying why; a file that
exists is never rewritten, and its judgments are counted in the results and copied, without the
sentences, to ``--judgments`` (``relations-RELATION[-TAG].judgments.jsonl``, committed). The results
JSON holds counts only, no corpus text. Forward and reverse candidates pass the direction's word
check (``paraspan.filter.content``) before the judges; ``--start K`` skips the first K drawn
sentences, those the check was designed on.

    .venv/bin/python benchmarks/relations.py --generate --work WORK \
        --mrpc ../shared/data/paraphrase/mrpc/msr-para-val.tsv \
        --framenet ../shared/data/framenet/fndata-1.5.tar.gz \
        --splits ../shared/data/framenet/fulltext-splits.json --n 200
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from _common import cpu_name

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PARASPAN_SHARED", ROOT.parent / "shared"))
SICK_TRIAL = SHARED / "data" / "nli" / "sick" / "SICK_trial.txt"
RTE = [SHARED / "data" / "nli" / "rte" / f"rte{i}_dev.xml" for i in (1, 2, 3)]
MRPC_VAL = SHARED / "data" / "paraphrase" / "mrpc" / "msr-para-val.tsv"
STSB_DEV = SHARED / "data" / "paraphrase" / "stsb" / "stsb-en-dev.csv"


def sample(items: list[Any], n: int, seed: int) -> list[Any]:
    if n >= len(items):
        return list(items)
    return random.Random(seed).sample(items, n)


def timed_judge(judge: Any, premises: list[str], hypotheses: list[str]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = judge.judge(premises, hypotheses)
    return out, time.perf_counter() - start


def nli_scores(labels: list[str], gold: list[str]) -> dict[str, Any]:
    """3-way accuracy, per-gold-class recall and the confusion counts."""
    hits = sum(p == g for p, g in zip(labels, gold, strict=True))
    confusion = Counter(f"{g}->{p}" for p, g in zip(labels, gold, strict=True))
    recall = {c: round(sum(p == g == c for p, g in zip(labels, gold, strict=True)) / max(1, gold.count(c)), 4)
              for c in ("entailment", "neutral", "contradiction")}
    return {"n": len(gold), "accuracy": round(hits / max(1, len(gold)), 4), "recall": recall,
            "confusion": dict(sorted(confusion.items()))}


def rte_scores(labels: list[str], gold: list[str]) -> dict[str, Any]:
    pred = ["entailment" if p == "entailment" else "not_entailment" for p in labels]
    hits = sum(p == g for p, g in zip(pred, gold, strict=True))
    return {"n": len(gold), "accuracy": round(hits / max(1, len(gold)), 4),
            "predicted_entailment_share": round(pred.count("entailment") / max(1, len(pred)), 4)}


def agreement(a: list[str], b: list[str], gold: list[str], two_way: bool = False) -> dict[str, Any]:
    """Accuracy of the label on which both judges agree, and how many pairs that keeps."""
    if two_way:
        a = ["entailment" if x == "entailment" else "not_entailment" for x in a]
        b = ["entailment" if x == "entailment" else "not_entailment" for x in b]
    kept = [(x, g) for x, y, g in zip(a, b, gold, strict=True) if x == y]
    hits = sum(x == g for x, g in kept)
    return {"n": len(gold), "agreed": len(kept), "coverage": round(len(kept) / max(1, len(gold)), 4),
            "accuracy_on_agreed": round(hits / max(1, len(kept)), 4)}


def table10(pairs: list[Any], relations: list[Any], agreed_only: bool = False) -> dict[str, Any]:
    """Per relation: pairs and the share of MRPC gold-positive paraphrases (paper's Table 10)."""
    rows: dict[str, dict[str, Any]] = {}
    for pair, rel in zip(pairs, relations, strict=True):
        if agreed_only and rel.agree is not True:
            continue
        row = rows.setdefault(rel.relation, {"pairs": 0, "positive": 0})
        row["pairs"] += 1
        row["positive"] += int(pair.gold["paraphrase"])
    total = sum(r["pairs"] for r in rows.values())
    return {rel: {"pairs": r["pairs"], "share": round(r["pairs"] / max(1, total), 4),
                  "gold_positive": round(r["positive"] / r["pairs"], 4)} for rel, r in sorted(rows.items())}


def stsb_table(pairs: list[Any], relations: list[Any]) -> dict[str, Any]:
    """Per relation: pairs and mean gold similarity (the STS-B row of Table 10)."""
    rows: dict[str, list[float]] = {}
    for pair, rel in zip(pairs, relations, strict=True):
        rows.setdefault(rel.relation, []).append(float(pair.gold["similarity"]))
    return {rel: {"pairs": len(v), "share": round(len(v) / max(1, len(pairs)), 4),
                  "mean_similarity": round(sum(v) / len(v), 3)} for rel, v in sorted(rows.items())}


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    torch.set_num_threads(args.threads)
    from paraspan.corpus.pairs import read_pair_file
    from paraspan.filter.judges import load_judge, packaged_weights, recipe_of
    from paraspan.filter.relations import relate

    sick = list(read_pair_file(SICK_TRIAL))
    rte = [p for path in RTE for p in read_pair_file(path)]
    mrpc = list(read_pair_file(MRPC_VAL))
    stsb = list(read_pair_file(STSB_DEV))
    say = (lambda msg: print(msg, file=sys.stderr, flush=True))  # noqa: E731

    result: dict[str, Any] = {"judges": {}, "agreement": {}}
    t0 = time.perf_counter()
    ce = load_judge("minilm-nli", threads=args.threads)
    load_ce = time.perf_counter() - t0
    ce_out: dict[str, Any] = {"load_seconds": round(load_ce, 2), "recipe": recipe_of(packaged_weights())}
    out, secs = timed_judge(ce, [p.s1 for p in sick], [p.s2 for p in sick])
    ce_sick = out.labels()
    ce_out["sick_trial"] = nli_scores(ce_sick, [p.gold["nli"] for p in sick])
    ce_out["sick_trial"]["judgements_per_second"] = round(len(sick) / secs, 1)
    out, secs = timed_judge(ce, [p.s1 for p in rte], [p.s2 for p in rte])
    ce_rte = out.labels()
    ce_out["rte_dev"] = rte_scores(ce_rte, [p.gold["nli2"] for p in rte])
    ce_out["rte_dev"]["truncated"] = int(out.truncated.sum())
    ce_out["rte_dev"]["judgements_per_second"] = round(len(rte) / secs, 1)
    start = time.perf_counter()
    ce_rel = relate([(p.s1, p.s2) for p in mrpc], [ce])
    secs = time.perf_counter() - start
    ce_out["mrpc_val"] = {"table10": table10(mrpc, ce_rel), "pairs_per_second": round(len(mrpc) / secs, 1)}
    ce_out["pairs_per_second"] = ce_out["mrpc_val"]["pairs_per_second"]
    ce_out["stsb_dev"] = {"table10": stsb_table(stsb, relate([(p.s1, p.s2) for p in stsb], [ce]))}
    result["judges"]["minilm-nli"] = ce_out
    say(f"minilm-nli: SICK trial {ce_out['sick_trial']['accuracy']:.3f}, RTE {ce_out['rte_dev']['accuracy']:.3f}, "
        f"MRPC equivalence positive {ce_out['mrpc_val']['table10'].get('equivalence', {}).get('gold_positive')}, "
        f"{ce_out['pairs_per_second']} pairs/s")

    n = args.llm_sample
    if n > 0:
        s_sick = sample(list(range(len(sick))), n, args.seed)
        s_rte = sample(list(range(len(rte))), n, args.seed + 1)
        s_mrpc = sample(list(range(len(mrpc))), n, args.seed + 2)
        t0 = time.perf_counter()
        llm = load_judge("llm", threads=args.threads)
        llm_out: dict[str, Any] = {"load_seconds": round(time.perf_counter() - t0, 2),
                                   "subsample": {"size": n, "seed": args.seed}}
        out, secs = timed_judge(llm, [sick[i].s1 for i in s_sick], [sick[i].s2 for i in s_sick])
        llm_sick = out.labels()
        gold = [sick[i].gold["nli"] for i in s_sick]
        llm_out["sick_trial"] = nli_scores(llm_sick, gold)
        llm_out["sick_trial"]["judgements_per_second"] = round(len(s_sick) / secs, 2)
        say(f"llm: SICK trial {llm_out['sick_trial']['accuracy']:.3f} ({secs:.0f}s)")
        ce_sub = [ce_sick[i] for i in s_sick]
        result["agreement"]["sick_trial"] = agreement(ce_sub, llm_sick, gold)
        result["agreement"]["sick_trial"]["minilm_accuracy_same_subsample"] = nli_scores(ce_sub, gold)["accuracy"]

        out, secs = timed_judge(llm, [rte[i].s1 for i in s_rte], [rte[i].s2 for i in s_rte])
        llm_rte = out.labels()
        gold = [rte[i].gold["nli2"] for i in s_rte]
        llm_out["rte_dev"] = rte_scores(llm_rte, gold)
        llm_out["rte_dev"]["truncated"] = int(out.truncated.sum())
        llm_out["rte_dev"]["judgements_per_second"] = round(len(s_rte) / secs, 2)
        say(f"llm: RTE {llm_out['rte_dev']['accuracy']:.3f} ({secs:.0f}s)")
        ce_sub = [ce_rte[i] for i in s_rte]
        result["agreement"]["rte_dev"] = agreement(ce_sub, llm_rte, gold, two_way=True)
        result["agreement"]["rte_dev"]["minilm_accuracy_same_subsample"] = rte_scores(ce_sub, gold)["accuracy"]

        sub = [mrpc[i] for i in s_mrpc]
        start = time.perf_counter()
        both = relate([(p.s1, p.s2) for p in sub], [ce, llm])  # ce first: its labels are reported
        secs = time.perf_counter() - start
        llm_rel = [_view(r, "llm") for r in both]
        llm_out["mrpc_val"] = {"table10": table10(sub, llm_rel)}
        llm_out["pairs_per_second"] = round(len(sub) / secs, 2)  # includes the (fast) cross-encoder
        result["agreement"]["mrpc_val"] = {
            "agreed": sum(r.agree is True for r in both), "n": len(both),
            "table10_agreed": table10(sub, both, agreed_only=True),
            "table10_minilm_same_subsample": table10(sub, [ce_rel[i] for i in s_mrpc]),
        }
        result["judges"]["llm"] = llm_out
        say(f"llm: MRPC done ({secs:.0f}s)")
    return result


def _view(rel: Any, name: str) -> Any:
    """The relation as one judge saw it (for per-judge Table 10)."""
    from paraspan.filter.relations import PairRelation

    view = rel.judges.get(name)
    if view is None:  # identical or empty: no judge was asked
        return rel
    return PairRelation(view.forward, view.backward, view.p_forward, view.p_backward, view.relation, None, name)


# --------------------------------------------------------------------------- --generate


GENERATE_RELATIONS = ("equivalence", "forward", "reverse")
CLASS_OF = {"equivalence": "equivalence", "forward": "forward_entailment", "reverse": "reverse_entailment"}


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(path)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def fresh_sample(rows: Callable[[int], list[dict[str, Any]]], n: int, seed: int,
                 exclude: Sequence[tuple[int, int]] = (), seen: Iterable[str] = ()) -> list[dict[str, Any]]:
    """``n`` of the rows made for ``seed`` (``rows(seed)``), sampled with it, leaving out those that
    the draws ``exclude`` (seed, size) took and the ids ``seen``: sentences read in earlier runs are
    not judged again."""
    taken = {*seen, *(r["id"] for s, size in exclude for r in sample(rows(s), size, s))}
    return sample([r for r in rows(seed) if r["id"] not in taken], n, seed)


def mrpc_inputs(path: Path, n: int, seed: int, exclude: Sequence[tuple[int, int]] = (),
                seen: Iterable[str] = ()) -> list[dict[str, Any]]:
    """``n`` distinct first sentences of MRPC pairs, sampled with ``seed``, no constraints (none of
    the draws of the ``exclude`` seeds, none ``seen``)."""
    from paraspan.corpus.pairs import read_pair_file

    first: dict[str, str] = {}
    for pair in read_pair_file(path):
        first.setdefault(" ".join(pair.s1.split()), str(pair.id))
    rows = [{"id": f"mrpc-{ident}", "text": text} for text, ident in first.items()]
    return fresh_sample(lambda _seed: rows, n, seed, exclude, seen)


def framenet_inputs(framenet: Path, splits: Path, n: int, seed: int,
                    exclude: Sequence[tuple[int, int]] = (), seen: Iterable[str] = ()) -> list[dict[str, Any]]:
    """``n`` FrameNet dev sentences, each with the target and frame elements of one of its frames
    (chosen with ``seed``) as kept spans: what span augmentation must keep (none of the sentences
    the draws of the ``exclude`` seeds took, none ``seen``)."""
    from paraspan.corpus.formats import read_corpus
    from paraspan.generate.paraphrase import span_problems

    sentences = list(read_corpus(framenet, "framenet", split="dev", splits=splits))

    def rows(draw: int) -> list[dict[str, Any]]:
        rng = random.Random(draw)  # which frame's spans are kept depends on the draw, as before
        out = []
        for sentence in sentences:
            frames = [s for s in sentence.structures if s.kind == "frame" and s.anchor is not None]
            if not frames:
                continue
            frame = rng.choice(frames)
            spans = sorted({(sp.start, sp.end) for sp in [frame.anchor, *frame.args] if sp is not None})
            keep = [list(sp) for sp in spans]
            if span_problems(sentence.text, keep, "keep"):
                continue
            out.append({"id": f"fn-{sentence.id}", "text": sentence.text, "keep": keep})
        return out

    return fresh_sample(rows, n, seed, exclude, seen)


def tree_height(doc: Any) -> int:
    """Nodes on the longest root-to-leaf path of the deepest sentence's dependency tree."""
    def height(token: Any) -> int:
        return 1 + max((height(child) for child in token.children), default=0)

    return max((height(sent.root) for sent in doc.sents), default=0)


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def generate_chunks(args: argparse.Namespace, name: str, inputs: list[dict[str, Any]], relation: str) -> list[Path]:
    """Run ``paraspan paraphrase`` on each chunk of ``inputs`` (the drawn sentences from ``--start``)
    whose output is not yet in --work; chunks are named by their place among all drawn sentences."""
    folder = args.work / f"{name}-{relation}"
    folder.mkdir(parents=True, exist_ok=True)
    outputs = []
    for start in range(0, len(inputs), args.chunk):
        chunk = inputs[start:start + args.chunk]
        stem = f"{args.start + start:04d}-{args.start + start + len(chunk):04d}"
        src, out = folder / f"in-{stem}.jsonl", folder / f"out-{stem}.jsonl"
        outputs.append(out)
        if out.is_file():
            continue  # done in an earlier run (the command writes its output atomically)
        _write_jsonl(src, chunk)
        command = [sys.executable, "-m", "paraspan.cli.main", "paraphrase", str(src), "-o", str(out),
                   "--relation", relation, "--judges", args.judges, "--model", args.model,
                   "--n", str(args.paraphrases), "--candidates", str(args.candidates), "--samples", str(args.samples),
                   "--constraint-sets", str(args.constraint_sets), "--threads", str(args.threads),
                   "--workers", "1", "--seed", str(args.seed), "--no-progress"]
        if args.rewrites is not None:
            command += ["--rewrites", args.rewrites]
        print(f"{name} {relation} {stem}", file=sys.stderr, flush=True)
        started = time.perf_counter()
        if subprocess.call(command) != 0:
            raise SystemExit(f"paraspan paraphrase failed on {src}")
        timing = folder / "seconds.json"
        seconds = json.loads(timing.read_text()) if timing.is_file() else {}
        seconds[stem] = round(time.perf_counter() - started, 1)
        timing.write_text(json.dumps(seconds, indent=1) + "\n")
    return outputs


def generate_stats(rows: list[dict[str, Any]], relation: str, judges: list[str], nlp: Any) -> dict[str, Any]:
    """The counts and means of one set and relation (no text)."""
    wanted = CLASS_OF[relation]
    candidates = sum(r.get("judged", {}).get("candidates", 0) for r in rows)
    cand_in_class = {j: sum(r.get("judged", {}).get("relations", {}).get(j, {}).get(wanted, 0) for r in rows)
                     for j in judges}
    rejected = sum(r.get("judged", {}).get("word_check", {}).get("rejected", 0) for r in rows)
    delivered = [(r, p) for r in rows for p in r["paraphrases"]]
    by_judge = {j: sum(p["relation"]["judges"].get(j, {}).get("relation") == wanted for _, p in delivered)
                for j in judges}
    both = [all(p["relation"]["judges"].get(j, {}).get("relation") == wanted for j in judges) for _, p in delivered]
    with_both = {r["id"] for (r, _), ok in zip(delivered, both, strict=True) if ok}
    from paraspan.filter.relations import tokens

    length = [len(tokens(p["text"])) - len(tokens(r["text"])) for r, p in delivered]
    depth_of: dict[str, int] = {}
    texts = sorted({t for r, p in delivered for t in (r["text"], p["text"])})
    for text, doc in zip(texts, nlp.pipe(texts), strict=True):
        depth_of[text] = tree_height(doc)
    depth = [depth_of[p["text"]] - depth_of[r["text"]] for r, p in delivered]
    return {
        "sentences": len(rows),
        "sentences_with_output": sum(bool(r["paraphrases"]) for r in rows),
        "sentences_with_output_share": _share(sum(bool(r["paraphrases"]) for r in rows), len(rows)),
        "sentences_with_output_both_judges_share": _share(len(with_both), len(rows)),
        "candidates": candidates,
        "word_check_rejected": rejected,
        "word_check_reasons": dict(sum((Counter(r.get("judged", {}).get("word_check", {}).get("reasons", {}))
                                        for r in rows), Counter()).most_common()),
        # over the candidates the judges saw (those the word check passed)
        "judged_in_class_share": {j: _share(n, candidates - rejected) for j, n in cand_in_class.items()},
        "delivered": len(delivered),
        # who made what was delivered (with --rewrites: the rule rewriter or the LLM)
        "delivered_by": dict(Counter(p.get("source", "llm") for _, p in delivered)),
        "sentences_with_rule_candidate": sum(r.get("judged", {}).get("rules", {}).get("candidates", 0) > 0
                                             for r in rows),
        "delivered_in_class_share": {**{j: _share(n, len(delivered)) for j, n in by_judge.items()},
                                     "both": _share(sum(both), len(delivered))},
        "source_words_mean": _mean([len(tokens(r["text"])) for r, _ in delivered]),
        "length_diff_output_minus_source": _mean([float(x) for x in length]),
        "tree_height_diff_output_minus_source": _mean([float(x) for x in depth]),
        "notes": dict(Counter(r["note"].split(" (")[0] for r in rows if r.get("note"))),
    }


def hand_sample(args: argparse.Namespace, relation: str, rows_by_set: dict[str, list[dict[str, Any]]],
                judges: list[str]) -> dict[str, Any]:
    """Write ``hand-RELATION.jsonl`` once (a sample of delivered outputs to judge by hand); count the
    judgments already in it (``"in_class": true/false``)."""
    path = args.work / f"hand-{relation}.jsonl"
    if not path.is_file():
        pool = [{"id": f"{r['id']}#{k}", "set": name, "source": r["text"], "output": p["text"],
                 "requested": relation, "class": CLASS_OF[relation], "made_by": p.get("source", "llm"),
                 "rule": p.get("rule"),
                 "judges": {j: p["relation"]["judges"].get(j, {}).get("relation") for j in judges},
                 "in_class": None}
                for name, rows in rows_by_set.items() for r in rows for k, p in enumerate(r["paraphrases"])]
        if not pool:
            return {"sampled": 0, "judged": 0}
        _write_jsonl(path, sample(pool, args.hand, args.seed))
    lines = _read_jsonl(path)
    judged = [line for line in lines if isinstance(line.get("in_class"), bool)]
    if judged:  # the judgments, without the sentences (which are the data sets'), are committed
        kept = args.judgments / f"relations-{relation}{'-' + args.tag if args.tag else ''}.judgments.jsonl"
        kept.parent.mkdir(parents=True, exist_ok=True)
        _write_jsonl(kept, [{"id": line["id"], "set": line["set"], "in_class": line["in_class"],
                             "note": line.get("note", ""), "judges": line.get("judges", {}),
                             **({"made_by": line["made_by"], "rule": line.get("rule")} if "made_by" in line else {})}
                            for line in judged])
    def tally(key: Callable[[dict[str, Any]], str], keys: Iterable[str]) -> dict[str, dict[str, int]]:
        return {k: {"judged": len(part), "in_class": sum(line["in_class"] for line in part)}
                for k in keys for part in [[line for line in judged if key(line) == k]]}

    def maker(line: dict[str, Any]) -> str:
        return line.get("made_by", "llm")

    out: dict[str, Any] = {"sampled": len(lines), "judged": len(judged),
                           "in_class_share": _share(sum(line["in_class"] for line in judged), len(judged)),
                           "by_set": tally(lambda line: line["set"], rows_by_set),
                           "by_maker": tally(maker, sorted({maker(line) for line in judged}))}
    for j in judges:  # how far each judge's label agrees with the hand judgment
        seen = [line for line in judged if line.get("judges", {}).get(j) is not None]
        out[f"{j}_agrees_with_hand"] = _share(sum((line["judges"][j] == line["class"]) == line["in_class"]
                                                  for line in seen), len(seen))
    return out


def run_generate(args: argparse.Namespace) -> dict[str, Any]:
    from paraspan.models.nlp import load_spacy

    args.work.mkdir(parents=True, exist_ok=True)
    judges = [j.strip() for j in args.judges.split(",") if j.strip()]
    # what the chunks in --work were made with: resuming with other settings would mix two runs
    made_with = {k: getattr(args, k) for k in ("n", "model", "judges", "paraphrases", "candidates", "samples",
                                                "constraint_sets", "seed")}
    if args.exclude_seeds:
        made_with["exclude_seeds"] = args.exclude_seeds
    if args.exclude_inputs:
        made_with["exclude_inputs"] = args.exclude_inputs
    if args.rewrites is not None:
        made_with["rewrites"] = args.rewrites
    stamp = args.work / "settings.json"
    if stamp.is_file() and json.loads(stamp.read_text()) != made_with:
        raise SystemExit(f"{args.work} holds a run with other settings ({stamp.read_text().strip()}): "
                         "use another --work")
    stamp.write_text(json.dumps(made_with) + "\n")
    sets: dict[str, list[dict[str, Any]]] = {}
    exclude = [(int(seed), int(size or args.n)) for seed, _, size in
               (d.strip().partition(":") for d in args.exclude_seeds.split(",") if d.strip())]
    # sentences earlier runs drew (their work folders' inputs), whatever made the draw
    folders = [Path(folder.strip()) for folder in args.exclude_inputs.split(",") if folder.strip()]
    empty = [str(f) for f in folders if not any(f.glob("inputs-*.jsonl"))]
    if empty:  # a mistyped folder would exclude nothing and put read sentences in the new draw
        raise SystemExit(f"--exclude-inputs: no inputs-*.jsonl in {', '.join(empty)}")
    seen = {row["id"] for folder in folders for path in sorted(folder.glob("inputs-*.jsonl"))
            for row in _read_jsonl(path)}
    for name, make in (("mrpc", lambda: mrpc_inputs(args.mrpc, args.n, args.seed, exclude, seen)),
                       ("framenet", lambda: framenet_inputs(args.framenet, args.splits, args.n, args.seed, exclude,
                                                            seen))):
        path = args.work / f"inputs-{name}.jsonl"
        if not path.is_file():  # drawn once: a resumed run works on the same sentences
            _write_jsonl(path, make())
        sets[name] = _read_jsonl(path)[args.start: args.limit]
    nlp = load_spacy(exclude=("ner",))
    results: dict[str, Any] = {}
    hand: dict[str, Any] = {}
    for relation in args.relations.split(","):
        rows_by_set = {}
        for name, inputs in sets.items():
            outputs = generate_chunks(args, name, inputs, relation)
            rows_by_set[name] = [row for out in outputs for row in _read_jsonl(out)]
            results.setdefault(name, {})[relation] = generate_stats(rows_by_set[name], relation, judges, nlp)
            timing = args.work / f"{name}-{relation}" / "seconds.json"
            if timing.is_file():
                results[name][relation]["generate_seconds"] = round(sum(json.loads(timing.read_text()).values()), 1)
        hand[relation] = hand_sample(args, relation, rows_by_set, judges)
    return {"results": results, "hand_judged": hand,
            "settings": {k: getattr(args, k) for k in ("n", "start", "limit", "model", "judges", "relations",
                                                       "paraphrases", "candidates", "samples", "constraint_sets",
                                                       "seed", "hand", "rewrites", "exclude_seeds",
                                                       "exclude_inputs")}}


def _portable(value: Any) -> str:
    """A path as the results file records it: relative to the repository (../shared/...), never this
    machine's absolute path."""
    return os.path.relpath(Path(value).resolve(), ROOT)


def generate_main(args: argparse.Namespace) -> None:
    for flag in ("mrpc", "framenet", "splits", "work"):
        if getattr(args, flag) is None:
            sys.exit(f"--generate needs --{flag}")
    for path in (args.mrpc, args.framenet, args.splits):
        if not path.is_file():
            sys.exit(f"missing {path}")
    start = time.perf_counter()
    result = run_generate(args)
    shown = {"--mrpc": _portable(args.mrpc), "--framenet": _portable(args.framenet),
             "--splits": _portable(args.splits), "--work": "WORK"}
    argv, args_in, i = [], sys.argv[1:], 0
    while i < len(args_in):  # the command, with this machine's paths replaced (and no --out)
        key, eq, _ = args_in[i].partition("=")
        if key in shown or key == "--out":
            i += 0 if eq else 1  # the value is the next argument
            if key in shown:
                argv.append(f"{key} {shown[key]}")
        else:
            argv.append(args_in[i])
        i += 1
    result["meta"] = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python benchmarks/relations.py " + " ".join(argv),
        "machine": f"{cpu_name()}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}",
        "threads": args.threads,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "seconds": round(time.perf_counter() - start, 1),
    }
    out = args.out or ROOT / "benchmarks" / "results" / "relations-generate.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result["results"], indent=1))
    print(f"wrote {out}", file=sys.stderr)


def main() -> None:
    from paraspan.cli.paraphrase import RULE_MODES

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm-sample", type=int, default=100, help="pairs per data set for the LLM judge (0: skip)")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads (torch and llama.cpp)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="results JSON [benchmarks/results/relations.json; --generate: relations-generate.json]")
    gen = parser.add_argument_group("--generate: directional paraphrases (issue 20)")
    gen.add_argument("--generate", action="store_true", help="measure paraspan paraphrase --relation")
    gen.add_argument("--mrpc", type=Path, help="MRPC validation TSV (msr-para-val.tsv)")
    gen.add_argument("--framenet", type=Path, help="the FrameNet 1.5 release (fndata-1.5.tar.gz)")
    gen.add_argument("--splits", type=Path, help="FrameNet full-text splits (fulltext-splits.json)")
    gen.add_argument("--work", type=Path, help="folder for inputs, outputs and hand judgments (not the repository)")
    gen.add_argument("--n", type=int, default=200, help="sentences drawn per set")
    gen.add_argument("--limit", type=int, default=None, help="only the first N drawn sentences of each set")
    gen.add_argument("--exclude-seeds", default="",
                     help="earlier draws whose sentences are left out of this one, SEED[:N],… (N: that draw's --n; "
                          "default this --n): sentences read in earlier runs are not judged again")
    gen.add_argument("--exclude-inputs", default="",
                     help="earlier runs' --work folders, comma-separated: their drawn sentences (inputs-*.jsonl) "
                          "are left out of this draw")
    gen.add_argument("--start", type=int, default=0,
                     help="skip the first K drawn sentences (those the checks were designed on)")
    gen.add_argument("--relations", default=",".join(GENERATE_RELATIONS), help="comma-separated")
    gen.add_argument("--model", default="default", help="the paraphrasing LLM (default, small, a .gguf)")
    gen.add_argument("--judges", default="llm,minilm-nli", help="the first selects, the others check")
    gen.add_argument("--paraphrases", type=int, default=3, help="delivered per sentence at most (--n of the command)")
    gen.add_argument("--candidates", type=int, default=6, help="candidates judged per sentence")
    gen.add_argument("--samples", type=int, default=6, help="samples per constraint set")
    gen.add_argument("--constraint-sets", type=int, default=4, help="constraint sets")
    gen.add_argument("--rewrites", choices=RULE_MODES, default=None,
                     help="paraphrase --rewrites (default: the command's: only for equivalence and forward, "
                          "off for reverse)")
    gen.add_argument("--chunk", type=int, default=25, help="sentences per paraphrase command (the unit of resuming)")
    gen.add_argument("--hand", type=int, default=50, help="delivered outputs per relation sampled for hand judging")
    gen.add_argument("--judgments", type=Path, default=ROOT / "benchmarks" / "results" / "judged",
                     help="where the hand judgments are copied without their sentences (to commit)")
    gen.add_argument("--tag", default="", help="appended to the judgments' file name "
                     "(relations-RELATION-TAG.judgments.jsonl), for a run with other checks or sentences")
    args = parser.parse_args()
    if args.generate:
        generate_main(args)
        return
    args.out = args.out or ROOT / "benchmarks" / "results" / "relations.json"
    for path in [SICK_TRIAL, *RTE, MRPC_VAL, STSB_DEV]:
        if not path.is_file():
            sys.exit(f"missing {path} (set PARASPAN_SHARED to the shared data folder)")
    start = time.perf_counter()
    result = run(args)
    result["meta"] = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python " + " ".join([Path(sys.argv[0]).as_posix().split("/main/")[-1], *sys.argv[1:]]),
        "machine": f"{cpu_name()}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}",
        "threads": args.threads,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "seconds": round(time.perf_counter() - start, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "judges"}, indent=2))
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
