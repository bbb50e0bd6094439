"""Trained generators against the prompted and retrieval ones, on the same dev sentences and checks.

Two parts:

``compare``: each run is ``NAME=STORE.db`` (a `paraspan augment` run store, ``--filter verified``).
For every run: structures, structures with at least one written (verified) output, outputs written
(one per structure; ``distinct_texts``: the sentences `-o` writes),
diversity against the source (1-BLEU and word ∩/∪ in percent, :mod:`paraspan.evaluate.diversity`), new
(frame, trigger lemma) pairs per 100 structures (an output whose anchor's LU differs from its
source's), the share of the words in the written outputs' labelled spans (anchor and arguments)
that the source does not have (new content where the labels are), and the judged precision of the
written outputs from the judgments in the store (made in
the review app: `paraspan review STORE`; ≥ 50 = right: English, plausible, every span and label
right). Writes ``results/train_generator.json`` (counts and figures only, no corpus text).

    python benchmarks/train_generator.py compare trained=/tmp/bench/trained.db retrieve=/tmp/bench/retrieve.db

``--inputs INPUTS.jsonl`` restricts every run to those sentences (a run stopped for time: the sentences it
finished). A run whose store is gone may be given as ``NAME=JUDGMENTS.jsonl`` (a committed judgments file, every
written output judged) with ``--inputs``: its structures with a judged output and its judged precision on those
inputs (the figures that need the text are left out).

``throughput``: training tokens/s of LoRA (rank 16, every projection) on each base, a few steps of
8 examples from a corpus, on this machine; the share of the forward+backward FLOP ceiling
(6 × non-embedding parameters per token, against a float32 matmul measured in the same process).

    python benchmarks/train_generator.py throughput CORPUS.jsonl --bases gemma-270m 0.5b default --steps 6
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _common import load_average, machine
from judged import wilson

RESULTS = Path(__file__).resolve().parent / "results"


#: a word, for the share of the words in an output's labelled spans that its source does not have
_WORD = re.compile(r"\w+")


def _lu(structure: dict[str, Any] | None) -> str | None:
    anchor = (structure or {}).get("anchor") or {}
    label = anchor.get("label")
    return str(label).rpartition(".")[0] or str(label) if label else None


def compare_store(path: Path, only: set[str] | None = None) -> dict[str, Any]:
    """The figures of one run store (see the module docstring); ``only``: of those inputs alone."""
    from paraspan.evaluate.diversity import intersection_over_union, one_minus_bleu

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    inputs = {i: json.loads(j) for i, j in conn.execute("SELECT id, json FROM inputs") if only is None or i in only}
    structures = sum(len(s.get("structures", [])) for s in inputs.values())
    filters = [f for (f,) in conn.execute("SELECT DISTINCT filter FROM decisions")]
    chosen = "verified" if "verified" in filters else None
    rows = conn.execute("SELECT id, input_id, structure, iteration, text, json FROM outputs").fetchall()
    kept = {o for (o,) in conn.execute("SELECT output_id FROM decisions WHERE filter = ? AND keep = 1",
                                       (chosen,))} if chosen else {r[0] for r in rows}
    written = [r for r in rows if r[0] in kept and r[1] in inputs]
    covered = {(r[1], r[2]) for r in written}
    onemb, iou = [], []
    span_words = new_span_words = 0
    new_pairs: set[tuple[str, str]] = set()
    seed_pairs = {(s.get("label"), _lu(s)) for sent in inputs.values() for s in sent.get("structures", [])}
    for _, input_id, _, _, text, data in written:
        source = inputs[input_id]["text"]
        onemb.append(one_minus_bleu(text, source))
        iou.append(intersection_over_union(text, source))
        out = json.loads(data)
        structs = out.get("structures") or []
        seen = {w.lower() for w in _WORD.findall(source)}
        for struct in structs:
            for span in [struct.get("anchor"), *struct.get("args", [])]:
                words = _WORD.findall(text[span["start"]:span["end"]]) if span else []
                span_words += len(words)
                new_span_words += sum(1 for w in words if w.lower() not in seen)
        frame = next((s for s in structs if s.get("kind") == "frame"), None)
        if frame is not None and (frame.get("label"), _lu(frame)) not in seed_pairs:
            new_pairs.add((frame.get("label"), _lu(frame)))
    judged = {o: s for o, s in conn.execute("SELECT output_id, score FROM judgments")}
    judged_written = [judged[r[0]] for r in written if r[0] in judged]
    right = sum(1 for s in judged_written if s >= 50)
    per_iteration = Counter(r[3] for r in written)
    return {
        "inputs": len(inputs), "structures": structures,
        "structures_with_output": len(covered),
        "coverage": round(len(covered) / structures, 4) if structures else 0.0,
        "written": len(written), "distinct_texts": len({(r[1], r[4]) for r in written}),
        "written_per_iteration": dict(sorted(per_iteration.items())),
        "one_minus_bleu": round(sum(onemb) / len(onemb), 4) if onemb else None,
        "intersection_over_union": round(sum(iou) / len(iou), 4) if iou else None,
        "new_span_word_share": round(new_span_words / span_words, 4) if span_words else None,
        "new_frame_lu_pairs": len(new_pairs),
        "new_pairs_per_100_structures": round(100 * len(new_pairs) / structures, 2) if structures else 0.0,
        "judged": len(judged_written), "judged_right": right,
        "judged_precision": round(right / len(judged_written), 4) if judged_written else None,
        "judged_precision_95ci": wilson(right, len(judged_written)),
    }


#: a written output's id: its input's id, then the structure and the iteration
_OUTPUT_ID = re.compile(r"^(?P<input>.+)~s(?P<structure>\d+)i(?P<iteration>\d+)")


def compare_judgments(path: Path, inputs: dict[str, Any]) -> dict[str, Any]:
    """The figures a committed judgments file gives of a run on ``inputs`` (every written output judged)."""
    structures = sum(len(s.get("structures", [])) for s in inputs.values())
    scores: dict[tuple[str, int, int], float] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        found = _OUTPUT_ID.match(row["output_id"])
        if found and found["input"] in inputs:
            scores[(found["input"], int(found["structure"]), int(found["iteration"]))] = float(row["score"])
    right = sum(1 for s in scores.values() if s >= 50)
    covered = {(i, s) for i, s, _ in scores}
    return {"judgments": path.name, "inputs": len(inputs), "structures": structures,
            "structures_with_output": len(covered),
            "coverage": round(len(covered) / structures, 4) if structures else 0.0, "written": len(scores),
            "judged": len(scores), "judged_right": right,
            "judged_precision": round(right / len(scores), 4) if scores else None,
            "judged_precision_95ci": wilson(right, len(scores))}


def part_compare(args: argparse.Namespace) -> dict[str, Any]:
    inputs = None
    if args.inputs is not None:
        rows = [json.loads(line) for line in args.inputs.read_text(encoding="utf-8").splitlines() if line.strip()]
        inputs = {row["id"]: row for row in rows}
    runs = {}
    for spec in args.runs:
        name, _, path = spec.partition("=")
        if path.endswith(".jsonl"):
            if inputs is None:
                sys.exit(f"{spec}: a judgments file needs --inputs (the sentences the run was given)")
            runs[name] = compare_judgments(Path(path), inputs)
        else:
            runs[name] = {"store": Path(path).name, **compare_store(Path(path), set(inputs) if inputs else None)}
    return {"part": "compare", "runs": runs}


def _matmul_gflops(torch: Any) -> float:
    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    a @ b
    start = time.perf_counter()
    for _ in range(20):
        a @ b
    return 20 * 2 * 1024 ** 3 / (time.perf_counter() - start) / 1e9


def part_throughput(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from paraspan.corpus.jsonl import read_jsonl
    from paraspan.train.lora import TARGET_MODULES, _collate, answer_loss, encode, load_base
    from paraspan.train.run import prepare_examples

    torch.set_num_threads(args.threads)
    examples = prepare_examples(read_jsonl(args.corpus), limit=8 * (args.steps + 1))
    out: dict[str, Any] = {"part": "throughput", "threads": args.threads, "steps": args.steps, "bases": {}}
    for base in args.bases:
        from peft import LoraConfig, get_peft_model

        started = time.perf_counter()
        model, tokenizer, info = load_base(base, "cpu")
        load_s = time.perf_counter() - started
        rows = encode(examples, tokenizer, 160)
        peft = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules=list(TARGET_MODULES),
                                                task_type="CAUSAL_LM"))
        optimizer = torch.optim.AdamW([p for p in peft.parameters() if p.requires_grad], lr=1e-4)
        collate = _collate(tokenizer.pad_token_id)
        tokens, seconds = 0, 0.0
        for step in range(args.steps + 1):
            batch = collate(rows[8 * step:8 * step + 8])
            t0 = time.perf_counter()
            answer_loss(peft, batch).backward()
            optimizer.step()
            optimizer.zero_grad()
            if step > 0:  # the first step warms up allocators and kernels
                seconds += time.perf_counter() - t0
                tokens += int(batch["attention_mask"].sum())
        # the blocks only: the input embedding is a lookup, and the output layer runs on answer tokens alone
        tables = {id(model.get_input_embeddings().weight), id(model.get_output_embeddings().weight)}
        params = sum(p.numel() for p in model.parameters() if id(p) not in tables)
        gflops = _matmul_gflops(torch)
        rate = tokens / seconds
        out["bases"][base] = {
            "load_s": round(load_s, 1), "tokens_per_s": round(rate, 1),
            "examples_per_hour": round(3600 * rate / (tokens / (8 * args.steps)), 0),
            "non_embedding_params_m": round(params / 1e6, 1), "matmul_gflops": round(gflops, 1),
            "flop_ceiling_share": round(6 * params * rate / (gflops * 1e9), 3),
            "architecture": info.architecture,
        }
        print(base, out["bases"][base], file=sys.stderr, flush=True)
        del model, peft, optimizer
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="part", required=True)
    compare = sub.add_parser("compare")
    compare.add_argument("runs", nargs="+", help="NAME=STORE.db, or NAME=JUDGMENTS.jsonl with --inputs")
    compare.add_argument("--inputs", type=Path, help="the runs' input sentences (JSONL), for judgments files")
    throughput = sub.add_parser("throughput")
    throughput.add_argument("corpus", type=Path)
    throughput.add_argument("--bases", nargs="+", default=["gemma-270m", "0.5b", "default"])
    throughput.add_argument("--steps", type=int, default=6)
    throughput.add_argument("--threads", type=int, default=2)
    parser.add_argument("--output", type=Path, default=RESULTS / "train_generator.json")
    args = parser.parse_args()
    result = part_compare(args) if args.part == "compare" else part_throughput(args)
    result.update({"machine": machine(), "load_average": load_average(),
                   "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "argv": sys.argv[1:]})
    previous = json.loads(args.output.read_text()) if args.output.exists() else {}
    previous[args.part] = result
    args.output.write_text(json.dumps(previous, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
