"""The Python API against the CLI, and the spaCy augmenter's cost per epoch → benchmarks/results/api.json.

``--part first``: time to the first augmented sentence on the bundled demo corpus (the demo's settings, the
default cascade generator and verified checks, one worker), through ``paraspan.augment`` (a fresh process:
import, models, first output yielded) and through ``paraspan augment --demo`` (a fresh process: the first
output committed to its store, and -o written, which is when a CLI user gets it); both runs' outputs must be
the same bytes (the API's written with ``paraspan.write`` in the order they came).

``--part spacy``: a 10% sample of WikiANN train (every tenth sentence of ../shared/data/ner/wikiann-en/train),
augmented once into a run store (mention replacement, every output kept: a fast generator, so the store has
outputs for most sentences), then one epoch of ``spacy train`` (``init config`` for English NER, efficiency)
with and without the ``paraspan.store.v1`` augmenter, and the corpus read alone with and without it (the
augmenter's own cost, apart from training on more examples). ``--fraction`` makes the sample smaller.

    .venv/bin/python benchmarks/api.py --part first
    .venv/bin/python benchmarks/api.py --part spacy [--fraction 0.1]
    .venv/bin/python benchmarks/api.py --part merge [--limit 10]

``--part merge``: ``augment -o`` (one line per output text, with every structure verified on it) against
``export --per-structure`` of the same store, on the first sentences of EWT dev (SRL: several predicates a
sentence, so one rewrite is often verified for several of them).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_average, machine  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "api.json"
WIKIANN = REPO.parent / "shared" / "data" / "ner" / "wikiann-en" / "train"

API_RUN = """
import sys, time
start = time.perf_counter()
import paraspan
first = None
outputs = []
for sentence in paraspan.augment(paraspan.read(paraspan.demo_corpus(), "jsonl"), workers=1, demo_settings=True,
                                 store=sys.argv[1]):
    if first is None:
        first = time.perf_counter() - start
    outputs.append(sentence)
paraspan.write(outputs, sys.argv[2])
print(first, time.perf_counter() - start, len(outputs))
"""


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def first_output(work: Path) -> dict[str, Any]:
    """Seconds to the first augmented sentence through the API and the CLI, and whether they wrote the same."""
    python = str(REPO / ".venv" / "bin" / "python")
    api_out, cli_out = work / "api.jsonl", work / "cli" / "demo.augmented.jsonl"
    load = [load_average()]
    done = subprocess.run([python, "-c", API_RUN, str(work / "api.db"), str(api_out)], capture_output=True,
                          text=True, env=_env(), cwd=work, check=True)
    api_first, api_total, api_n = done.stdout.split()
    load.append(load_average())
    store = work / "cli" / "demo.run.db"
    start = time.perf_counter()
    proc = subprocess.Popen([str(REPO / ".venv" / "bin" / "paraspan"), "augment", "--demo", "-o", str(cli_out),
                             "--workers", "1", "--no-progress"], env=_env(), cwd=work,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    committed = None
    while proc.poll() is None:  # the first output row in the store: made, but not yet the user's
        time.sleep(0.2)
        if committed is None and store.exists():
            import sqlite3

            try:
                with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1) as conn:
                    if conn.execute("SELECT COUNT(*) FROM outputs").fetchone()[0]:
                        committed = time.perf_counter() - start
            except sqlite3.Error:
                pass
    cli_total = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr.read()[-2000:]
    load.append(load_average())
    same = api_out.read_bytes() == cli_out.read_bytes()
    return {
        "corpus": "bundled demo (12 sentences), --demo settings, cascade generator, verified, 1 worker",
        "api_first_output_seconds": round(float(api_first), 1),
        "api_total_seconds": round(float(api_total), 1),
        "api_outputs": int(api_n),
        "cli_first_output_committed_seconds": round(committed, 1) if committed is not None else None,
        "cli_first_output_written_seconds": round(cli_total, 1),
        "cli_outputs": sum(1 for _ in cli_out.open(encoding="utf-8")),
        "same_bytes": same,
        "load_average": load,
    }


def merged_outputs(work: Path, limit: int) -> dict[str, Any]:
    """Lines of ``augment -o`` (each output text once, with all its structures) against ``--per-structure``
    (``export`` of the same store), on the first ``limit`` sentences of EWT dev (Universal PropBank)."""
    paraspan = str(REPO / ".venv" / "bin" / "paraspan")
    ewt = REPO.parent / "shared" / "data" / "srl" / "up-english-ewt" / "en_ewt-up-dev.conllu"
    start = time.perf_counter()
    subprocess.run([paraspan, "augment", str(ewt), "--from", "conllu-srl", "--limit", str(limit), "-k", "2",
                    "--workers", "1", "--store", str(work / "run.db"), "-o", str(work / "out.jsonl"), "--no-progress"],
                   env=_env(), check=True, capture_output=True)
    seconds = time.perf_counter() - start
    subprocess.run([paraspan, "export", str(work / "run.db"), "-o", str(work / "per.jsonl"), "--filter", "verified",
                    "--per-structure"], env=_env(), check=True, capture_output=True)
    rows = {name: [json.loads(line) for line in (work / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
            for name in ("out", "per")}
    return {"corpus": f"EWT dev (Universal PropBank), first {limit} sentences", "settings": "cascade, verified, -k 2",
            "lines": len(rows["out"]), "lines_per_structure": len(rows["per"]),
            "distinct_texts": len({(r["source_id"], r["text"]) for r in rows["per"]}),
            "structures": sum(len(r["structures"]) for r in rows["out"]),
            "structures_per_structure": sum(len(r["structures"]) for r in rows["per"]),
            "most_structures_on_one_line": max((len(r["structures"]) for r in rows["out"]), default=0),
            "seconds": round(seconds, 1), "load_average": load_average()}


def _config(train: Path, dev: Path, store: Path | None, path: Path) -> Path:
    from spacy.cli.init_config import init_config

    config = init_config(lang="en", pipeline=["ner"], optimize="efficiency")
    config["paths"]["train"] = str(train)
    config["paths"]["dev"] = str(dev)
    if store is not None:
        config["corpora"]["train"]["augmenter"] = {"@augmenters": "paraspan.store.v1", "store": str(store),
                                                   "filter": "all", "corpus": str(train)}
    config["training"]["max_epochs"] = 1
    config["training"]["max_steps"] = 0
    config["training"]["eval_frequency"] = 100000  # no evaluation inside the epoch: the epoch alone is timed
    config.to_disk(path)
    return path


def spacy_overhead(work: Path, fraction: float) -> dict[str, Any]:
    """One epoch of spacy train with and without the augmenter; the corpus read with and without it."""
    from spacy.cli.train import train
    from spacy.training import Corpus
    from spacy.util import load_model_from_config, registry

    import paraspan

    every = round(1 / fraction)
    sample = [s for i, s in enumerate(paraspan.read(WIKIANN, "bio")) if i % every == 0]
    train_path, dev_path = work / "train.spacy", work / "dev.spacy"
    paraspan.write(sample, train_path, "docbin")
    paraspan.write(sample[:200], dev_path, "docbin")
    store = work / "run.db"
    start = time.perf_counter()
    outputs = sum(1 for _ in paraspan.augment(paraspan.read(train_path, "docbin"), generator="mention_replace",
                                               filters="all", iterations=1, workers=1, store=store))
    augment_seconds = time.perf_counter() - start
    result: dict[str, Any] = {"sentences": len(sample), "fraction": fraction, "store_outputs": outputs,
                              "augment_seconds": round(augment_seconds, 1)}
    for name, with_store in (("without", None), ("with", store)):
        config = _config(train_path, dev_path, with_store, work / f"{name}.cfg")
        from thinc.api import Config

        nlp = load_model_from_config(Config().from_disk(config), auto_fill=True)
        augmenter = registry.augmenters.get("paraspan.store.v1")
        reads = []
        for _ in range(3):  # the fastest of three reads (the first also warms up the reader)
            made = time.perf_counter()
            corpus = Corpus(train_path, augmenter=augmenter(str(store), filter="all") if with_store else None)
            examples = sum(1 for _ in corpus(nlp))
            reads.append(time.perf_counter() - made)
        read_seconds = min(reads)
        start = time.perf_counter()
        train(config, None, use_gpu=-1)
        result[name] = {"examples_per_epoch": examples, "read_corpus_seconds": round(read_seconds, 2),
                        "epoch_seconds": round(time.perf_counter() - start, 1), "load_average": load_average()}
    result["augmenter_read_overhead_seconds"] = round(result["with"]["read_corpus_seconds"]
                                                      - result["without"]["read_corpus_seconds"], 2)
    # the augmenter alone: made once (the store read), then called on every example of an epoch, timed in
    # CPU seconds of this process (single-threaded Python: the machine's other load hardly moves them)
    from paraspan.spacy_augmenter import store_augmenter

    nlp = load_model_from_config(Config().from_disk(work / "with.cfg"), auto_fill=True)
    examples = list(Corpus(train_path)(nlp))
    cpu = time.process_time()
    augmenter = store_augmenter(str(store), filter="all", corpus=str(train_path))
    made_cpu = time.process_time() - cpu
    epochs = []
    for _ in range(3):
        cpu = time.process_time()
        added = sum(1 for eg in examples for _ in augmenter(nlp, eg)) - len(examples)
        epochs.append(time.process_time() - cpu)
    result["augmenter_alone"] = {"make_cpu_seconds": round(made_cpu, 2), "per_epoch_cpu_seconds": round(min(epochs), 2),
                                 "examples_added_per_epoch": added,
                                 "ms_per_added_example": round(1000 * min(epochs) / max(1, added), 2)}
    result["epoch_overhead_seconds"] = round(result["with"]["epoch_seconds"] - result["without"]["epoch_seconds"], 1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("first", "spacy", "merge"), required=True)
    parser.add_argument("--limit", type=int, default=10, help="EWT dev sentences (--part merge)")
    parser.add_argument("--fraction", type=float, default=0.1, help="of WikiANN train (--part spacy)")
    args = parser.parse_args()
    data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    with tempfile.TemporaryDirectory(prefix="paraspan-bench-api-") as tmp:
        work = Path(tmp)
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        if args.part == "first":
            part = first_output(work)
        elif args.part == "merge":
            part = merged_outputs(work, args.limit)
        else:
            if not WIKIANN.exists():
                raise SystemExit(f"{WIKIANN} is not there (../shared)")
            part = spacy_overhead(work, args.fraction)
    part.update({"machine": machine(), "started": started,
                 "command": f".venv/bin/python benchmarks/api.py --part {args.part}"
                            + (f" --fraction {args.fraction}" if args.part == "spacy" else "")
                            + (f" --limit {args.limit}" if args.part == "merge" else "")})
    data[args.part] = part
    RESULTS.write_text(json.dumps(data, indent=1) + "\n")
    print(json.dumps(part, indent=1))


if __name__ == "__main__":
    main()
