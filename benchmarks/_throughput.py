"""``benchmarks/augment.py --part throughput`` (issue 18): what a user gets per minute, and the decoder's limits.

Steps (``--step``), each merging its numbers into the ``throughput`` section of the results JSON:

``limits``
    the default model's decode rates on this CPU with one llama.cpp thread (a worker's share):
    one sequence (single-stream), 8, 24, 64 and 128 sequences decoded together, and the prompt
    evaluation of 512 tokens in one call (compute-bound: the batched ceiling). Raw
    ``llama_decode`` calls on random tokens, no sampling work: the limits, not the pipeline.
``run``
    ``paraspan augment`` as a user runs it, on FrameNet 1.5 **dev** sentences (``--sentences``
    with at most ``--max-structures`` frame structures, written into ``--work``, never into the
    repository), with a run store; ``--label`` names the run and everything after ``--`` is
    passed to ``augment`` (``before``: the settings of the release before this issue). Recorded:
    written outputs (what ``-o`` got: ``--filter verified``), wall and CPU seconds (this process's
    children: the CLI and its workers), written outputs per minute and per CPU-second, sampled
    tokens and the seconds spent decoding them (from the store's ``work_stats``), hence sampled
    tokens/s per worker against the limits, where the time went, and peak memory.
``prompts``
    the substituter's prompts (the default cascade's decoding) evaluated 1, 5 and 10 together in
    one ``llama_decode`` call, tokens per second after the cached instruction.
``table``
    prints the README table: each run beside the ``before`` run, as ratios, and what each run
    wrote as ``before`` wrote it (digests of the output texts by output id).

    .venv/bin/python benchmarks/augment.py --part throughput --step limits
    .venv/bin/python benchmarks/augment.py --part throughput --step run --label before --work WORK \\
        -- --workers 1 --threads 1 --set generator.batch=24
    .venv/bin/python benchmarks/augment.py --part throughput --step run --label after --work WORK
    .venv/bin/python benchmarks/augment.py --part throughput --step table
"""

from __future__ import annotations

import hashlib
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import load_average

REPO = Path(__file__).resolve().parents[1]


def limits(model: str = "default", threads: int = 1, batches: tuple[int, ...] = (1, 8, 24, 64, 128)) -> dict[str, Any]:
    """Decode rates of ``model`` with ``threads`` threads: single-stream, batched, prompt evaluation."""
    import numpy as np

    # private decode calls on purpose: the limits of llama.cpp here, without any sampling work
    from paraspan.llm.llama_backend import _FIRST_WORK_SEQ, _PROMPT_SEQ, LlamaBackend

    backend = LlamaBackend.load(model, n_threads=threads, n_ctx=8192, max_parallel=max(batches))
    ids = [int(t) for t in np.random.default_rng(0).integers(100, 150_000, size=2048)]

    def prompt_eval(n: int) -> float:
        backend._seq_rm(_PROMPT_SEQ)
        start = time.perf_counter()
        backend._decode([(tok, i, _PROMPT_SEQ, i == n - 1) for i, tok in enumerate(ids[:n])])
        return n / (time.perf_counter() - start)

    def decode(batch: int, steps: int, past: int = 200) -> float:
        """``batch`` sequences forked from a ``past``-token context, ``steps`` one-token steps each."""
        backend._seq_rm(_PROMPT_SEQ)
        backend._decode([(tok, i, _PROMPT_SEQ, i == past - 1) for i, tok in enumerate(ids[:past])])
        for s in range(batch):
            backend._lib.llama_memory_seq_cp(backend._mem, _PROMPT_SEQ, _FIRST_WORK_SEQ + s, -1, -1)
        start = time.perf_counter()
        for step in range(steps):
            backend._decode([(ids[(step * 7 + s) % len(ids)], past + step, _FIRST_WORK_SEQ + s, True)
                             for s in range(batch)])
        seconds = time.perf_counter() - start
        for s in range(batch):
            backend._seq_rm(_FIRST_WORK_SEQ + s)
        return batch * steps / seconds

    prompt_eval(64)  # warm-up
    out: dict[str, Any] = {"model": backend.model_name, "threads": threads,
                           "prompt_eval_512_tokens_per_s": round(prompt_eval(512), 1), "decode_tokens_per_s": {}}
    for batch in batches:
        out["decode_tokens_per_s"][str(batch)] = round(decode(batch, 24 if batch <= 24 else 16), 1)
        print(f"decode {batch}: {out['decode_tokens_per_s'][str(batch)]} tokens/s", file=sys.stderr, flush=True)
    out["single_stream_tokens_per_s"] = out["decode_tokens_per_s"]["1"]
    out["batched_limit_tokens_per_s"] = max(out["prompt_eval_512_tokens_per_s"],
                                            *out["decode_tokens_per_s"].values())
    out["load_average"] = load_average()
    backend.close()
    return out


def limits_together(model: str = "default", processes: int = 2) -> dict[str, Any]:
    """:func:`limits` in ``processes`` processes at once, one thread each (as ``--workers auto`` runs
    on this machine): what each worker can reach while the others decode too (they share the
    memory bandwidth and caches)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        each = list(pool.map(limits, [model] * processes))
    batched = [one["batched_limit_tokens_per_s"] for one in each]
    wide = [one["decode_tokens_per_s"]["64"] for one in each]
    return {"processes": processes, "each": each,
            "batched_limit_tokens_per_s_per_process": round(sum(batched) / len(batched), 1),
            "decode_64_tokens_per_s_per_process": round(sum(wide) / len(wide), 1)}


def sampling(inputs: Path, label: str, model: str = "default") -> dict[str, Any]:
    """One ``generate_batch`` of the paraphrase generator (the pipeline's defaults, one thread) on
    every frame structure of ``inputs``, in this process: how wide the decode steps are, what a step
    costs, and the sampled tokens per second. Run it with another checkout's ``src`` first on
    ``PYTHONPATH`` to compare that code's sampling on the same requests."""
    import cProfile
    import pstats

    from paraspan.corpus.jsonl import read_jsonl
    from paraspan.generate.base import GenerationRequest
    from paraspan.generate.paraphrase import make_paraphraser

    paraphraser = make_paraphraser(model, threads=1, batch=64)
    requests = [GenerationRequest(id=f"{s.id}/{k}", text=s.text, ban=((st.anchor.start, st.anchor.end),), n=4,
                                  sentence=s, structure=k)
                for s in read_jsonl(inputs) for k, st in enumerate(s.structures) if st.anchor is not None]
    paraphraser.generate_batch(requests[:1])  # warm-up: the prefix cached, the vocabulary read
    before = dict(paraphraser.backend.counters)
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    paraphraser.generate_batch(requests)
    profile.disable()
    seconds = time.perf_counter() - start
    counters = {k: v - before.get(k, 0) for k, v in paraphraser.backend.counters.items()}
    by_name: dict[str, float] = {}
    steps = 0  # one token choice per decode step (older code counts no steps: its _choose calls do)
    for (_, _, name), row in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        if name in ("_decode", "_choose"):
            by_name[name] = by_name.get(name, 0.0) + row[3]  # cumulative seconds
        if name == "_choose":
            steps += row[1]
    sampled = counters.get("sampled_tokens", 0)
    return {"label": label, "requests": len(requests), "seconds": round(seconds, 1), "sampled_tokens": sampled,
            "prompt_tokens": counters.get("prompt_tokens", 0), "decode_calls": counters["decode_calls"],
            "steps": steps, "samples_per_step": round(sampled / steps, 1) if steps else None,
            "decode_seconds": round(by_name.get("_decode", 0.0), 1),
            "choose_seconds": round(by_name.get("_choose", 0.0), 1),
            "seconds_per_step": round(by_name.get("_decode", 0.0) / steps, 2) if steps else None,
            "sampled_tokens_per_s": round(sampled / seconds, 1), "load_average_end": load_average()}


def prompt_batching(inputs: Path, model: str = "default", counts: tuple[int, ...] = (1, 5, 10)) -> dict[str, Any]:
    """Prompt evaluation of the substituter's prompts (the default cascade's decoding), ``k`` prompts
    evaluated together in one ``llama_decode`` call against one at a time: tokens per second of the
    suffixes after the cached instruction, one thread."""
    from paraspan.corpus.jsonl import read_jsonl
    from paraspan.generate.substitute import make_substituter
    from paraspan.llm.llama_backend import _FIRST_WORK_SEQ

    substituter = make_substituter(model, threads=1)
    backend = substituter.backend
    prompts = [substituter.prompt(s.text, st.anchor.start, st.anchor.end, "v") for s in read_jsonl(inputs)
               for st in s.structures if st.anchor is not None][:max(counts)]

    def clear() -> None:
        for seq in range(_FIRST_WORK_SEQ, _FIRST_WORK_SEQ + backend.max_parallel):
            backend._seq_rm(seq)

    backend._ensure_prefix(prompts[0].prefix)  # cached, as in the pipeline
    out: dict[str, Any] = {"model": backend.model_name, "threads": 1, "prefix_tokens": len(prompts[0].prefix),
                           "tokens_per_s": {}}
    for k in counts:
        clear()
        tokens = sum(len(p.suffix) for p in prompts[:k])
        start = time.perf_counter()
        backend._eval_prompts([(p, [_FIRST_WORK_SEQ + i]) for i, p in enumerate(prompts[:k])])
        out["tokens_per_s"][str(k)] = round(tokens / (time.perf_counter() - start), 1)
        print(f"{k} prompts together ({tokens} tokens): {out['tokens_per_s'][str(k)]} tokens/s", file=sys.stderr)
    clear()
    backend.close()
    out["load_average"] = load_average()
    return out


def select_dev(framenet: Path, splits: Path, n: int, max_structures: int, out: Path, min_words: int = 8) -> int:
    """The first ``n`` FrameNet 1.5 dev sentences with 1..``max_structures`` frame structures,
    ``min_words`` words or more (the dev documents open with headers such as "Currently.") and
    under 160 characters, written to ``out`` (JSONL); returns their frame structures."""
    from paraspan.corpus.formats import read_corpus
    from paraspan.corpus.jsonl import write_jsonl

    picked = []
    for sentence in read_corpus(framenet, "framenet", split="dev", splits=splits):
        if (1 <= _frames(sentence) <= max_structures and len(sentence.text) < 160
                and len(sentence.text.split()) >= min_words):
            picked.append(sentence)
        if len(picked) >= n:
            break
    write_jsonl(picked, out)
    return sum(_frames(s) for s in picked)


def _frames(sentence: Any) -> int:
    """The sentence's frame structures with an anchor (what the pipeline augments)."""
    return sum(1 for st in sentence.structures if st.kind == "frame" and st.anchor is not None)


def select_sample(framenet: Path, splits: Path, split: str, n: int, seed: int, out: Path) -> int:
    """``n`` FrameNet 1.5 full-text sentences of ``split`` with a frame structure, drawn with ``seed``
    (the kind of sentence a downstream subset holds: several frames each), written to ``out`` (JSONL);
    returns their frame structures."""
    import random

    from paraspan.corpus.formats import read_corpus
    from paraspan.corpus.jsonl import write_jsonl

    pool = [s for s in read_corpus(framenet, "framenet", split=split, splits=splits) if _frames(s)]
    picked = [pool[i] for i in sorted(random.Random(seed).sample(range(len(pool)), min(n, len(pool))))]
    write_jsonl(picked, out)
    return sum(_frames(s) for s in picked)


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def same_outputs(run: dict[str, Any], other: dict[str, Any]) -> str:
    """How many of ``run``'s written outputs ``other`` wrote too, word for word ("–" where either
    run predates the digests)."""
    mine, theirs = run.get("written_digests"), other.get("written_digests")
    if mine is None or theirs is None:
        return "–"
    same = sum(1 for k, v in mine.items() if theirs.get(k) == v)
    return f"{same} of {len(mine)} (other has {len(theirs)})"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(label: str, inputs: Path, work: Path, extra: list[str]) -> dict[str, Any]:
    """``paraspan augment`` on ``inputs`` with a store in ``work``; what a user received, and its cost."""
    from paraspan.pipeline.store import RunStore

    store_path, output = work / f"throughput-{label}.db", work / f"throughput-{label}.jsonl"
    for path in (store_path, output):
        path.unlink(missing_ok=True)
    paraspan = shutil.which("paraspan", path=str(Path(sys.executable).parent)) or "paraspan"
    command = [paraspan, "augment", str(inputs), "-o", str(output), "--store", str(store_path), *extra]
    print(" ".join(command), file=sys.stderr, flush=True)
    cpu0, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu0
    if done.returncode != 0:
        raise SystemExit(f"augment failed ({done.returncode}):\n{done.stderr[-3000:]}")
    lines = [line for line in output.read_text(encoding="utf-8").splitlines() if line.strip()]
    written = len(lines)
    # a digest of what was written, by output id, so that runs on one input can be compared output
    # by output (corpus text stays out of the results)
    texts = {(o := json.loads(line))["id"]: _digest(o["text"]) for line in lines}
    with RunStore.open(store_path, readonly=True) as store:
        cost = store.work_stats()
        counts = store.counts()
    summary = json.loads(output.with_name(output.name.removesuffix(".jsonl") + ".summary.json").read_text())
    structures = sum(json.loads(line).get("structures", []).__len__()
                     for line in inputs.read_text(encoding="utf-8").splitlines() if line.strip())
    sampled, decode_s = cost.get("sampled_tokens", 0), cost.get("sample_seconds", 0.0)
    parts = {k: round(cost.get(f"{k}_seconds", 0.0), 1) for k in ("generate", "sample", "score", "place", "filter")}
    return {
        "label": label, "augment_args": extra, "sentences": cost.get("inputs", 0), "structures": structures,
        "written_outputs": written, "all_outputs": counts["outputs"],
        "written_digests": texts,
        "wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1),
        "written_per_minute": round(60 * written / wall, 3),
        "written_per_cpu_second": round(written / cpu, 5) if cpu else None,
        "sampled_tokens": int(sampled), "decode_seconds": round(decode_s, 1),
        # decode seconds are summed over workers: this is the rate of one worker while it decodes
        "sampled_tokens_per_s_per_worker": round(sampled / decode_s, 1) if decode_s else None,
        # samples per decode step (shared tokens count for each sample), where the backend counts steps
        "samples_per_step": round(sampled / cost["sample_steps"], 1) if cost.get("sample_steps") else None,
        "generator_calls": int(cost.get("calls", 0)), "generator_batches": int(cost.get("batches", 0)),
        "seconds_by_stage": parts,
        "peak_rss_mb_largest_process": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
        "workers": summary.get("workers"), "generator": summary.get("config", {}).get("generator"),
        # the CLI's last line, with the work folder named WORK (results name no path of this machine)
        "summary_line": [line.replace(str(work), "WORK") for line in done.stderr.strip().splitlines()[-1:]],
        "load_average_end": load_average(),
    }


def table(section: dict[str, Any]) -> str:
    """The README table: every run beside ``before``, and the sampled-token rate against the limits."""
    runs = section.get("runs", {})
    lim = section.get("limits", {})
    base = runs.get("before") or next(iter(runs.values()), None)  # else the first run is the reference
    rows = ["| run | structures | written | wall s | CPU s | structures/min | written/min | × before | written/CPU-s | "
            "× before | "
            "sampled tok/s per worker | samples per step | share of batched limit | share of the 2-process limit | "
            "peak RSS MB | written as `before` wrote it | generate s | check s |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    ceiling = lim.get("batched_limit_tokens_per_s")
    together = section.get("limits_together", {}).get("batched_limit_tokens_per_s_per_process")
    for label, r in runs.items():
        ratio = (f"{r['written_per_minute'] / base['written_per_minute']:.2f}×"
                 if base and base["written_per_minute"] and r["written_per_minute"] else "–")
        ratio_cpu = (f"{r['written_per_cpu_second'] / base['written_per_cpu_second']:.2f}×"
                     if base and base.get("written_per_cpu_second") and r.get("written_per_cpu_second") else "–")
        rate = r.get("sampled_tokens_per_s_per_worker")
        share = f"{100 * rate / ceiling:.0f}%" if rate and ceiling else "–"
        # the 2-process limit applies where two workers decoded at once
        two = (r.get("workers") or {}).get("workers") == 2
        share2 = f"{100 * rate / together:.0f}%" if rate and together and two else "–"
        stage = r.get("seconds_by_stage") or {}
        # structures processed per minute: what the decoding buys where nothing passes the checks
        rows.append(f"| {label} | {r['structures']} | {r['written_outputs']} | {r['wall_seconds']:.0f} | "
                    f"{r['cpu_seconds']:.0f} | {60 * r['structures'] / r['wall_seconds']:.2f} | "
                    f"{r['written_per_minute']:.2f} | {ratio} | {r['written_per_cpu_second'] or 0:.4f} | "
                    f"{ratio_cpu} | {rate or '–'} | {r.get('samples_per_step') or '–'} | {share} | {share2} | "
                    f"{r['peak_rss_mb_largest_process']:,.0f} | {same_outputs(r, base) if base else '–'} | "
                    # seconds summed over the workers, per stage (the checks: the filter stage)
                    f"{stage.get('generate', '–')} | {stage.get('filter', '–')} |")
    return "\n".join(rows)


def sampling_table(section: dict[str, Any]) -> str:
    """The README table of ``--step sampling`` runs: step width, step cost, tokens per second."""
    rows = ["| code | structures | sampled tokens | decode steps | samples per step | s per step | decode s | "
            "choosing tokens s | total s | sampled tok/s |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for label, r in section.get("sampling", {}).items():
        rows.append(f"| {label} | {r['requests']} | {r['sampled_tokens']:,} | {r['steps']} | {r['samples_per_step']} | "
                    f"{r['seconds_per_step']} | {r['decode_seconds']} | {r['choose_seconds']} | {r['seconds']} | "
                    f"{r['sampled_tokens_per_s']} |")
    return "\n".join(rows)
