"""Benchmark: batched constrained sampling through ``TransformersBackend`` on the default model's architecture.

The default LLM is Qwen2.5-Coder-1.5B-Instruct; its architecture (the numbers in :data:`QWEN_1_5B`) is
built with **random weights directly on the device** (no files, no hub: the weights do not change
the speed of a forward pass). The backend is built around the in-memory model with
``TransformersBackend(model, tokenizer)``.

**Tokenizer.** There is no hub here, so the script builds a word-level tokenizer in memory (the
``tokenizers`` library, wrapped in ``PreTrainedTokenizerFast``): one token per model id, ``t0`` …
``t151935``. Prompts are random token ids; with random weights the text is noise, so only speed is
measured. The backend's host work (piece assembly, the word guard when there are bans, the seeded
draw) runs as it does for a real vocabulary.

Measured (medians of ``--reps`` runs, after a warm-up):

* **prompt eval**: one cold prompt of ``--prompt`` tokens (no cached prefix), tokens/s;
* **decode**, for each batch size (1, 8, 32, 64): one ``sample_groups`` call, all samples in one
  batch, on a prompt whose prefix (``--prompt`` minus 48 tokens) is cached; every sample has exactly
  ``--tokens`` tokens (end of turn and line breaks are ignored). tokens/s = batch × tokens / time,
  the suffix evaluation, the KV-cache copy for the batch and the per-step host work included;
* **decode with bans**: the largest batch again, each sample under 2,000 banned words (mask + guard);
* **scoring**: ``logprobs`` of 64 (prompt, continuation) pairs sharing the cached prefix (the
  backward score's shape), tokens/s over suffix + continuation tokens.

    .venv/bin/python benchmarks/gpu_decode.py            # on a GPU: writes benchmarks/results/gpu_decode.json
    .venv/bin/python benchmarks/gpu_decode.py --device cpu --layers 2 --out /tmp/gpu_decode-cpu.json

A CPU run must name ``--out``: ``benchmarks/results/gpu_decode.json`` holds GPU numbers only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import cpu_name, load_average, machine, peak_rss_mb

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "gpu_decode.json"

#: Qwen2.5-1.5B (the default LLM's architecture; the Coder variant has the same shapes).
QWEN_1_5B: dict[str, Any] = {
    "hidden_size": 1536,
    "num_hidden_layers": 28,
    "num_attention_heads": 12,
    "num_key_value_heads": 2,
    "intermediate_size": 8960,
    "vocab_size": 151936,
    "max_position_embeddings": 32768,
    "rope_theta": 1_000_000.0,
    "tie_word_embeddings": True,
    "rms_norm_eps": 1e-6,
    "use_sliding_window": False,
}


def build_model(device: str, layers: int, dtype: Any) -> Any:
    """Qwen2.5-1.5B's architecture with random weights, created on ``device`` in ``dtype``."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    config = Qwen2Config(**{**QWEN_1_5B, "num_hidden_layers": layers})
    config._attn_implementation = "sdpa"
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)  # the weights are created in dtype, on the device: no copy
    try:
        with torch.device(device):
            model = Qwen2ForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    return model.eval()


def build_tokenizer(vocab_size: int) -> Any:
    """A word-level tokenizer with one token per model id (``t0`` …), built in memory."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {f"t{i}": i for i in range(vocab_size)}
    inner = Tokenizer(models.WordLevel(vocab, unk_token="t0"))
    inner.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=inner, eos_token=f"t{min(151643, vocab_size - 1)}")


def timed(fn: Callable[[], Any], sync: Callable[[], None]) -> tuple[float, Any]:
    sync()
    start = time.perf_counter()
    out = fn()
    sync()
    return time.perf_counter() - start, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="auto", help="auto, cpu or cuda")
    parser.add_argument("--layers", type=int, default=QWEN_1_5B["num_hidden_layers"],
                        help="decoder layers (28: the real model; 2: a quick CPU check)")
    parser.add_argument("--batches", default="1,8,32,64", help="batch sizes, comma-separated")
    parser.add_argument("--tokens", type=int, default=48, help="output tokens per sample")
    parser.add_argument("--prompt", type=int, default=304, help="prompt tokens (a paraphrase prompt's size)")
    parser.add_argument("--reps", type=int, default=3, help="timed runs per measurement (the median is kept)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--out", type=Path, default=None, help=f"results JSON [{RESULTS.relative_to(ROOT)}]")
    args = parser.parse_args(argv)

    import numpy as np
    import torch
    import transformers

    sys.path.insert(0, str(ROOT / "src"))
    from paraspan.llm.backend import Prompt, SampleGroup
    from paraspan.llm.hf_backend import TransformersBackend, resolve_device
    from paraspan.text.constraints import BanSet

    torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    if device == "cpu" and args.out is None:
        parser.error(f"a CPU run must name --out ({RESULTS.relative_to(ROOT)} holds GPU numbers only)")
    out_path = args.out or RESULTS
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    cuda = device.startswith("cuda")

    def sync() -> None:
        if cuda:
            torch.cuda.synchronize()

    started = time.perf_counter()
    model = build_model(device, args.layers, dtype)
    tokenizer = build_tokenizer(QWEN_1_5B["vocab_size"])
    backend = TransformersBackend(model, tokenizer, max_batch=max(int(b) for b in args.batches.split(",")),
                                  model_name=f"qwen2.5-1.5b-architecture-random-{args.layers}-layers")
    backend.vocab_index  # noqa: B018  # build the vocabulary tables before timing
    setup_seconds = time.perf_counter() - started
    rng = np.random.default_rng(0)
    # ordinary ids only: Qwen's special tokens start at 151643
    ids = [int(t) for t in rng.integers(0, 151_000, size=args.prompt + 4096)]
    suffix_len = min(48, args.prompt - 1)
    prefix = tuple(ids[:args.prompt - suffix_len])

    def prompt_for(rep: int) -> Prompt:
        start = args.prompt + rep * suffix_len
        return Prompt(prefix, tuple(ids[start:start + suffix_len]))

    # warm-up: kernels, allocator, the prefix cache
    backend.sample_groups(prompt_for(0), [SampleGroup(8, 0)], max_tokens=4, stop=False)

    def median(values: list[float]) -> float:
        return float(statistics.median(values))

    prompt_times = []
    for rep in range(args.reps):
        cold = Prompt((), tuple(ids[rep:rep + args.prompt]))
        backend.close()  # no cached prefix
        seconds, _ = timed(lambda cold=cold: backend.sample_groups(cold, [SampleGroup(1, 0)], max_tokens=1,
                                                                    stop=False), sync)
        prompt_times.append(seconds)
    prompt_seconds = median(prompt_times)
    results: dict[str, Any] = {
        "prompt_eval": {"tokens": args.prompt, "seconds": round(prompt_seconds, 4),
                        "tokens_per_s": round(args.prompt / prompt_seconds, 1)},
        "decode": [],
    }
    print(f"prompt eval: {args.prompt} tokens in {prompt_seconds * 1000:.1f} ms "
          f"({args.prompt / prompt_seconds:.0f} tokens/s)", flush=True)

    def decode(batch: int, bans: BanSet) -> dict[str, Any]:
        times = []
        for rep in range(args.reps):
            groups = [SampleGroup(batch, rep + 1, bans)]
            seconds, samples = timed(lambda groups=groups, rep=rep: backend.sample_groups(
                prompt_for(rep + 1), groups, top_k=10, max_tokens=args.tokens, stop=False), sync)
            assert all(len(s.tokens) == args.tokens for s in samples)
            times.append(seconds)
        seconds = median(times)
        row = {"batch": batch, "output_tokens": args.tokens, "seconds": round(seconds, 4),
               "tokens_per_s": round(batch * args.tokens / seconds, 1),
               "ms_per_step": round(1000 * seconds / args.tokens, 2)}
        print(f"batch {batch:3d}{' (bans)' if bans else ''}: {row['tokens_per_s']:9.1f} tokens/s, "
              f"{row['ms_per_step']:.2f} ms/step", flush=True)
        return row

    batches = [int(b) for b in args.batches.split(",")]
    for batch in batches:
        results["decode"].append(decode(batch, BanSet()))
    bans = BanSet.exact([f"t{i}" for i in range(2000)])
    results["decode_with_bans"] = {**decode(max(batches), bans), "banned_words": 2000,
                                   "banned_ids": int(backend.banned_ids(bans).size)}

    items = []
    for k in range(64):
        start = 2 * args.prompt + 40 * k
        items.append((Prompt(prefix, tuple(ids[start:start + 20 + k % 16])), ids[start + 40:start + 72]))
    scored_tokens = sum(len(p.suffix) + len(c) for p, c in items)
    score_times = [timed(lambda: backend.logprobs(items), sync)[0] for _ in range(args.reps)]
    score_seconds = median(score_times)
    results["scoring"] = {"items": len(items), "tokens": scored_tokens, "seconds": round(score_seconds, 4),
                          "tokens_per_s": round(scored_tokens / score_seconds, 1)}
    print(f"scoring: {scored_tokens} tokens in {score_seconds * 1000:.1f} ms "
          f"({scored_tokens / score_seconds:.0f} tokens/s)", flush=True)

    report = {
        "benchmark": "gpu_decode",
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python benchmarks/gpu_decode.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "device": torch.cuda.get_device_name(torch.device(device)) if cuda else cpu_name(),
        "device_kind": device,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "transformers": transformers.__version__,
        "dtype": str(dtype).removeprefix("torch."),
        "threads": torch.get_num_threads(),
        "model": {"architecture": "Qwen2ForCausalLM", **QWEN_1_5B, "num_hidden_layers": args.layers,
                  "weights": "random"},
        "setup_seconds": round(setup_seconds, 1),
        **results,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "peak_gpu_mb": round(torch.cuda.max_memory_allocated() / 2**20, 1) if cuda else None,
        "load_average": load_average(),
        "machine": machine(),
    }
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
