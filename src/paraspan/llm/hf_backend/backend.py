"""The transformers backend itself: a cached prefix, batched KV-cached sampling and packed scoring."""


from __future__ import annotations

import copy
import inspect
import os
import warnings
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from paraspan.errors import ModelError
from paraspan.llm.backend import BanIdCache, Prompt, Sample, SampleGroup
from paraspan.llm.hf_backend.models import _resolve_dtype, locate_model, resolve_device
from paraspan.llm.hf_backend.vocab import _dtype_kwarg, _ids, token_pieces
from paraspan.llm.llama_backend.backend import LlamaBackend
from paraspan.llm.llama_backend.sequences import (
    _SPARE,
    ContextTooSmall,
    SharedCalls,
    _Seq,
    as_prompt,
)
from paraspan.text.constraints import VocabIndex, WordGuard, trailing_word

# marks the assistant's answer when a chat template is rendered to find the end-of-turn token
_ANSWER_MARK = "PARASPAN-ANSWER-MARK"


class TransformersBackend(SharedCalls):
    """Sampling and scoring on a transformers causal LM (see the module docstring).

    Build it with :meth:`load`, or around a model and tokenizer already in memory:
    ``TransformersBackend(model, tokenizer)`` (the model stays on its device). ``n_ctx`` caps the
    context (default: the model's ``max_position_embeddings``); ``max_batch`` is the most rows
    decoded or scored together; ``score_tokens`` the most tokens (rows × length) and ``score_logits``
    the most logits (positions × vocabulary) per scoring batch.
    """

    name = "transformers"

    def __init__(self, model: Any, tokenizer: Any, *, n_ctx: int | None = None, max_batch: int = 64,
                 score_tokens: int = 8192, score_logits: int = 2**27, seed: int = 0, model_name: str | None = None,
                 source_package: str | None = None) -> None:
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.device = next(model.parameters()).device
        self.seed = seed  # sampling seeds come from each SampleGroup; kept for the record
        config = model.config
        limit = int(getattr(config, "max_position_embeddings", 0) or 4096)
        self._n_ctx = min(int(n_ctx), limit) if n_ctx else limit
        self.max_batch = max(1, int(max_batch))
        self.score_tokens = max(1, int(score_tokens))
        self.score_logits = max(1, int(score_logits))
        self.model_name = model_name or str(getattr(config, "_name_or_path", "") or "?")
        self.source_package = source_package
        head = model.get_output_embeddings()
        self._n_vocab = int(head.weight.shape[0]) if head is not None else int(config.vocab_size)
        forward = inspect.signature(model.forward).parameters
        # only the last position's logits are needed when evaluating a prompt (old: num_logits_to_keep)
        self._keep_arg = next((k for k in ("logits_to_keep", "num_logits_to_keep") if k in forward), None)
        self._pieces: list[bytes] | None = None
        self._vocab: VocabIndex | None = None
        self._eog: np.ndarray | None = None
        self._masks: dict[str, Any] = {}  # control / end / pipe masks over the vocabulary, on the device
        self._eot: list[int] | None = None
        self._ban_cache = BanIdCache()
        self._prefix: tuple[int, ...] | None = None
        self._prefix_kv: Any = None
        self._warned_template = False
        self.counters = {"prompt_tokens": 0, "cached_prefix_tokens": 0, "sampled_tokens": 0,
                         "scored_tokens": 0, "decode_calls": 0}

    @classmethod
    def load(cls, model: str | os.PathLike[str] = "default", *, device: str = "auto", dtype: Any = None,
             seed: int = 0, n_ctx: int | None = None, max_batch: int = 64,
             n_threads: int | None = None) -> TransformersBackend:
        """Load ``hf:ORG/NAME`` (local cache only), a model folder, a ``.gguf`` file or a packaged name.

        ``device``: auto (cuda when available), cpu or cuda; ``dtype``: default bfloat16 on a GPU,
        float32 on a CPU; ``n_threads``: torch's CPU threads (process-wide; unchanged when None).
        """
        import torch

        where = resolve_device(device)
        if n_threads and where == "cpu":
            torch.set_num_threads(int(n_threads))
        torch_dtype = _resolve_dtype(dtype, where)
        source = locate_model(model)
        kwargs: dict[str, Any] = {"local_files_only": True}
        if source.gguf_file:
            kwargs["gguf_file"] = source.gguf_file
        try:
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError:
            raise ModelError.from_code("E360") from None
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(source.folder), **kwargs)
            hf_model = AutoModelForCausalLM.from_pretrained(str(source.folder), **kwargs,
                                                            **{_dtype_kwarg(): torch_dtype})
        except Exception as exc:  # missing files, unsupported architecture or GGUF quantisation, no gguf package
            shown = source.folder / source.gguf_file if source.gguf_file else source.folder
            fix = ("transformers dequantises GGUF files itself (it needs the gguf and accelerate packages, and "
                   "supports only some architectures and quantisations): try --backend llama for this file"
                   if source.gguf_file else
                   "pass a folder written by save_pretrained (config.json, tokenizer files, weights)")
            raise ModelError.from_code("E871", path=shown, exc=f"{type(exc).__name__}: {exc}", fix=fix) from None
        hf_model.to(where)
        return cls(hf_model, tokenizer, n_ctx=n_ctx, max_batch=max_batch, seed=seed, model_name=source.name,
                   source_package=source.package)

    def close(self) -> None:
        """Drop the cached prefix (and the GPU memory it holds); the model stays usable."""
        self._prefix, self._prefix_kv = None, None
        if self.device.type == "cuda":
            import torch

            torch.cuda.empty_cache()

    # ------------------------------------------------------------------ vocabulary

    def _load_vocab(self) -> None:
        import torch

        pieces, special = token_pieces(self.tokenizer, self._n_vocab)
        eog = np.zeros(self._n_vocab, dtype=bool)
        for token in self._eog_ids():
            eog[token] = True
        end = np.array([eog[i] or b"\n" in p for i, p in enumerate(pieces)], dtype=bool)
        pipe = np.array([b"|" in p for p in pieces], dtype=bool)
        self._pieces, self._eog = pieces, eog
        # Special tokens that do not end the turn (<|im_start|>, padding ids, …) are never sampled.
        self._masks = {name: torch.as_tensor(mask, device=self.device)
                       for name, mask in (("control", special & ~eog), ("end", end), ("pipe", pipe))}
        self._vocab = VocabIndex.from_pieces([p.decode("utf-8", "ignore") for p in pieces])

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        if not text:
            return []
        # special=False: "<|im_end|>" in a user's text is text, not the control token (as in llama.cpp)
        encoded = self.tokenizer(text, add_special_tokens=False, split_special_tokens=not special)
        return [int(t) for t in encoded["input_ids"]]

    def detokenize(self, tokens: Sequence[int]) -> str:
        return str(self.tokenizer.decode([int(t) for t in tokens], skip_special_tokens=True,
                                         clean_up_tokenization_spaces=False))

    def start_tokens(self) -> list[int]:
        """The begin-of-text token (or end-of-text, or a newline): what a whole text is scored after."""
        for token in (self.tokenizer.bos_token_id, self.tokenizer.eos_token_id):
            if token is not None and token >= 0:
                return [int(token)]
        return self.tokenize("\n")

    def _template(self) -> str:
        return str(getattr(self.tokenizer, "chat_template", None) or "")

    def end_of_turn(self) -> list[int]:
        if self._eot is None:
            self._eot = self._find_end_of_turn()
        return list(self._eot)

    def _find_end_of_turn(self) -> list[int]:
        specials = {int(i) for i, t in (getattr(self.tokenizer, "added_tokens_decoder", {}) or {}).items()
                    if getattr(t, "special", False)}
        eos = _ids(getattr(getattr(self.model, "generation_config", None), "eos_token_id", None))
        eos += _ids(self.tokenizer.eos_token_id)
        template = self._template()
        if template:
            # what the template writes right after an assistant's answer: <|im_end|>, <|eot_id|>, …
            try:
                rendered = self.tokenizer.apply_chat_template(
                    [{"role": "user", "content": "x"}, {"role": "assistant", "content": _ANSWER_MARK}],
                    tokenize=False)
                after = rendered[rendered.index(_ANSWER_MARK) + len(_ANSWER_MARK):]
                first = self.tokenize(after, special=True)[:1]
                if first and first[0] in specials:
                    return first
            except Exception:  # templates that reject this conversation: fall back on eos
                pass
            for token in eos:
                text = self.tokenizer.convert_ids_to_tokens(token)
                if text and text in template:
                    return [token]
        return eos[:1] or self.tokenize("\n")

    def _eog_ids(self) -> list[int]:
        """Tokens that end an answer: the end of turn and the generation config's eos tokens."""
        ids = set(self.end_of_turn())
        generation = _ids(getattr(getattr(self.model, "generation_config", None), "eos_token_id", None))
        # a GGUF tokenizer's eos may be wrong (SmolLM2's reads <|im_start|>): trust the generation config first
        ids.update(generation or _ids(self.tokenizer.eos_token_id))
        return sorted(i for i in ids if 0 <= i < self._n_vocab)

    def chat_prompt(self, system: str, user: str, *, split_at: str | None = None) -> Prompt:
        if self._template():
            rendered = self._render(system, user)
        else:
            if not self._warned_template:
                warnings.warn(f"the model {self.model_name} has no chat template: prompts are plain text "
                              "(system prompt, user turn, newline), which instruction-tuned models may answer "
                              "poorly", stacklevel=2)
                self._warned_template = True
            bos = self.tokenizer.bos_token if self._adds_bos() else ""
            rendered = f"{bos or ''}{system}\n{user}\n"
        return self._split_prompt(rendered, user, split_at)

    def _render(self, system: str, user: str) -> str:
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        try:
            return str(self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
        except Exception:  # templates without a system role (Gemma, Mistral): put it in the user turn
            merged = [{"role": "user", "content": f"{system}\n\n{user}"}]
            return str(self.tokenizer.apply_chat_template(merged, tokenize=False, add_generation_prompt=True))

    def _adds_bos(self) -> bool:
        bos = self.tokenizer.bos_token_id
        if bos is None:
            return False
        ids = self.tokenizer("a", add_special_tokens=True)["input_ids"]
        return bool(ids) and ids[0] == bos

    # ------------------------------------------------------------------ forward passes

    def _forward(self, ids: Any, cache: Any, *, last_only: bool = True) -> tuple[Any, Any]:
        """One forward of ``ids`` (rows × tokens) on ``cache``; the logits (of the last position)."""
        kwargs: dict[str, Any] = {"input_ids": ids, "past_key_values": cache, "use_cache": True}
        if last_only and self._keep_arg is not None:
            kwargs[self._keep_arg] = 1
        out = self.model(**kwargs)
        self.counters["decode_calls"] += 1
        return out.past_key_values, out.logits

    def _prefix_cache(self, prefix: tuple[int, ...]) -> Any:
        """The KV cache of ``prefix`` (one row), computed once for consecutive requests sharing it."""
        import torch

        if prefix == self._prefix:
            self.counters["cached_prefix_tokens"] += len(prefix)
            return self._prefix_kv
        self._prefix, self._prefix_kv = None, None
        ids = torch.tensor([prefix], dtype=torch.long, device=self.device)
        cache, _ = self._forward(ids, None)
        self.counters["prompt_tokens"] += len(prefix)
        self._prefix, self._prefix_kv = prefix, cache
        return cache

    def _eval_prompt(self, prompt: Prompt) -> tuple[Any, Any]:
        """Evaluate ``prompt`` on (a copy of) the cached prefix: its KV cache and next-token logits."""
        import torch

        cache = copy.deepcopy(self._prefix_cache(prompt.prefix)) if prompt.prefix else None
        ids = torch.tensor([prompt.suffix], dtype=torch.long, device=self.device)
        cache, logits = self._forward(ids, cache)
        self.counters["prompt_tokens"] += len(prompt.suffix)
        return cache, logits[0, -1].float()

    @staticmethod
    def _normalise(prompt: Prompt) -> Prompt:
        # the last token's logits are needed: it cannot come from the cache
        return Prompt(prompt.prefix[:-1], prompt.prefix[-1:]) if not prompt.suffix else prompt

    # ------------------------------------------------------------------ sampling

    def sample_groups(self, prompt: Prompt | Sequence[int], groups: Sequence[SampleGroup], *, top_k: int = 10,
                      max_tokens: int = 64, temperature: float = 1.0, stop: bool = True) -> list[Sample]:
        """Samples of every group, all decoded together (in batches of ``max_batch`` rows).

        ``stop=False`` ignores end of turn and line breaks: every sample has ``max_tokens`` tokens
        (for benchmarks).
        """
        import torch

        prompt = self._normalise(as_prompt(prompt))
        self._ensure_vocab()
        if not len(prompt):
            raise ValueError("sampling needs a prompt of at least one token")
        if len(prompt) + max_tokens > self._n_ctx:
            raise ContextTooSmall.from_code("E383",
                                            problem=f"the prompt ({len(prompt)} tokens) and an answer of up to "
                                                    f"{max_tokens} tokens do not fit in the context "
                                                    f"({self._n_ctx} tokens)")
        jobs = [(g, i) for g, group in enumerate(groups) for i in range(group.n)]
        if not jobs:
            return []
        out: list[Sample] = []
        with torch.inference_mode():
            cache, first = self._eval_prompt(prompt)
            for start in range(0, len(jobs), self.max_batch):
                last = start + self.max_batch >= len(jobs)
                wave_cache = cache if last else copy.deepcopy(cache)
                out.extend(self._sample_wave(jobs[start:start + self.max_batch], groups, wave_cache, first,
                                             top_k=top_k, max_tokens=max_tokens, temperature=temperature,
                                             stop=stop))
        self.counters["sampled_tokens"] += sum(len(s.tokens) for s in out)
        return out

    def _sample_wave(self, jobs: Sequence[tuple[int, int]], groups: Sequence[SampleGroup], cache: Any,
                     first: Any, *, top_k: int, max_tokens: int, temperature: float, stop: bool) -> list[Sample]:
        import torch

        seqs: list[_Seq] = []
        for row, (g, i) in enumerate(jobs):
            group = groups[g]
            seqs.append(_Seq(row, g, i, np.random.default_rng([group.seed & 0xFFFFFFFF, i]),
                             WordGuard(group.bans), self.banned_ids(group.bans),
                             keep=self._keeps(group), fields=group.fields, max_words=group.max_words))
        rows = len(seqs)
        if rows > 1:
            cache.batch_repeat_interleave(rows)
        # the bad-words mask of every row: its bans and the control tokens
        mask = self._masks["control"].unsqueeze(0).repeat(rows, 1)
        for seq in seqs:
            if seq.banned.size:
                mask[seq.seq_id, torch.as_tensor(seq.banned, device=self.device)] = True
        logits = first.unsqueeze(0).expand(rows, -1)
        live = list(seqs)
        while live:
            chosen = self._choose(live, logits, mask, top_k=top_k, temperature=temperature)
            for seq, token in zip(live, chosen, strict=True):
                self._advance(seq, token, max_tokens, stop)
            live = [s for s in live if s.finish is None]
            if not live:
                break
            if len(live) <= mask.shape[0] // 2:  # drop finished rows: less to compute from now on
                keep = torch.tensor([s.seq_id for s in live], dtype=torch.long, device=self.device)
                cache.batch_select_indices(keep)
                mask = mask[keep]
                for row, seq in enumerate(live):
                    seq.seq_id = row
            ids = torch.zeros((mask.shape[0], 1), dtype=torch.long)
            for seq in live:
                ids[seq.seq_id, 0] = seq.tokens[-1]
            cache, out = self._forward(ids.to(self.device), cache)
            logits = out[:, -1].float()
        return [s.sample() for s in seqs]

    def _choose(self, live: list[_Seq], logits: Any, mask: Any, *, top_k: int, temperature: float) -> list[int]:
        """One token per live sample: masks and top-k on the device, the guard and the draw on the host."""
        import torch

        index = torch.tensor([s.seq_id for s in live], dtype=torch.long, device=self.device)
        raw = logits.index_select(0, index)  # (live, vocab), the model's own logits
        lse = torch.logsumexp(raw, dim=-1)
        masked = raw.clone()
        boost_rows: list[int] = []
        boost_tokens: list[int] = []
        boost_values: list[float] = []
        for r, seq in enumerate(live):
            if seq.keep:
                boosts: defaultdict[int, float] = defaultdict(float)
                LlamaBackend._boost_keeps(seq, boosts)  # type: ignore[arg-type]  # writes row[token] += boost
                for token, value in boosts.items():
                    boost_rows.append(r)
                    boost_tokens.append(token)
                    boost_values.append(value)
        if boost_rows:
            masked.index_put_((torch.tensor(boost_rows, device=self.device),
                               torch.tensor(boost_tokens, device=self.device)),
                              torch.tensor(boost_values, dtype=masked.dtype, device=self.device), accumulate=True)
        banned = mask.index_select(0, index)
        need_end = [r for r, s in enumerate(live) if s.fields > 0 and s.text.count("|") < s.fields - 1]
        need_pipe = [r for r, s in enumerate(live) if s.fields > 0 and s.text.count("|") >= s.fields - 1]
        if need_end:  # exactly `fields` "|"-separated fields: no early end, no extra "|"
            banned[need_end] |= self._masks["end"]
        if need_pipe:
            banned[need_pipe] |= self._masks["pipe"]
        masked.masked_fill_(banned, float("-inf"))
        width = min(self._n_vocab, top_k + _SPARE)
        values, top = masked.topk(width, dim=-1)
        picked_raw = raw.gather(1, top)
        # one transfer per step: candidate values, their raw logits, their ids, the normalisers
        host = torch.cat([values.double(), picked_raw.double(), top.double(), lse.double().unsqueeze(1)],
                         dim=1).cpu().numpy()
        chosen: list[int] = []
        for r, seq in enumerate(live):
            cand_values = host[r, :width]
            cand_raw = host[r, width:2 * width]
            cand_ids = host[r, 2 * width:3 * width].astype(np.int64)
            allowed, allowed_values, allowed_raw = self._allowed(seq, cand_ids, cand_values, cand_raw, top_k)
            if len(allowed) < top_k and width < self._n_vocab and np.isfinite(cand_values[-1]):
                # the guard rejected many of the best tokens: go on down the full ranking (rare)
                allowed, allowed_values, allowed_raw = self._allowed_full(seq, masked[r], raw[r], top_k)
            if not allowed:  # everything plausible is banned: end here, the caller rejects it
                seq.finish = "blocked"
                chosen.append(-1)
                continue
            scaled = np.asarray(allowed_values, dtype=np.float64) / max(temperature, 1e-6)
            probs = np.exp(scaled - scaled.max())
            probs /= probs.sum()
            where = int(np.searchsorted(np.cumsum(probs), seq.rng.random()))
            pick = min(where, len(allowed) - 1)
            # the model's own log-probability: boosts for kept phrases do not count
            seq.logprobs.append(float(allowed_raw[pick]) - float(host[r, 3 * width]))
            chosen.append(allowed[pick])
        return chosen

    def _allowed(self, seq: _Seq, ids: np.ndarray, values: np.ndarray, raw: np.ndarray,
                 top_k: int) -> tuple[list[int], list[float], list[float]]:
        """The best ``top_k`` candidates (best first) that pass the guard, their masked and raw logits."""
        tail = trailing_word(seq.text)
        allowed: list[int] = []
        kept_values: list[float] = []
        kept_raw: list[float] = []
        for token, value, model_value in zip(ids, values, raw, strict=True):
            if not np.isfinite(value):
                break
            if self._passes(seq, tail, int(token)):
                allowed.append(int(token))
                kept_values.append(float(value))
                kept_raw.append(float(model_value))
                if len(allowed) == top_k:
                    break
        return allowed, kept_values, kept_raw

    def _allowed_full(self, seq: _Seq, masked_row: Any, raw_row: Any,
                      top_k: int) -> tuple[list[int], list[float], list[float]]:
        values = masked_row.double().cpu().numpy()
        raw = raw_row.double().cpu().numpy()
        order = np.argsort(-values, kind="stable")
        return self._allowed(seq, order, values[order], raw[order], top_k)

    # ------------------------------------------------------------------ scoring

    def logprob(self, prompt: Prompt | Sequence[int], continuation: Sequence[int]) -> float:
        return self.logprobs([(prompt, continuation)])[0]

    def logprobs(self, items: Sequence[tuple[Prompt | Sequence[int], Sequence[int]]]) -> list[float]:
        """Mean log-probability of each continuation; prompts sharing a prefix reuse its cache."""
        per_token = self.token_logprobs(items)
        return [sum(values) / len(values) for values in per_token]

    def token_logprobs(self, items: Sequence[tuple[Prompt | Sequence[int], Sequence[int]]]) -> list[list[float]]:
        """Log-probability of each continuation token (one list per item, in token order)."""
        import torch

        prepared = [(self._normalise(as_prompt(prompt)), [int(t) for t in continuation])
                    for prompt, continuation in items]
        by_prefix: dict[tuple[int, ...], list[int]] = {}
        for i, (prompt, continuation) in enumerate(prepared):
            if not continuation or not len(prompt):
                raise ValueError("a log-probability needs a prompt and a non-empty continuation")
            if len(prompt) + len(continuation) > self._n_ctx:
                raise ContextTooSmall.from_code("E383",
                                                problem="prompt + continuation "
                                                        f"({len(prompt) + len(continuation)} tokens) exceed the "
                                                        f"context ({self._n_ctx})")
            by_prefix.setdefault(prompt.prefix, []).append(i)
        results: list[list[float]] = [[] for _ in prepared]
        with torch.inference_mode():
            for prefix, indices in by_prefix.items():
                base = self._prefix_cache(prefix) if prefix else None
                # long rows first, so that rows of one batch have similar lengths (little padding)
                order = sorted(indices, key=lambda i: -(len(prepared[i][0].suffix) + len(prepared[i][1])))
                batch: list[int] = []
                longest, shortest_suffix = 0, 0
                for i in order:
                    suffix, continuation = prepared[i][0].suffix, prepared[i][1]
                    grown = max(longest, len(suffix) + len(continuation))
                    first = min(shortest_suffix, len(suffix)) if batch else len(suffix)
                    rows = len(batch) + 1
                    if batch and (rows > self.max_batch or rows * grown > self.score_tokens
                                  or rows * (grown - first + 1) * self._n_vocab > self.score_logits):
                        self._score_batch(base, [(j, prepared[j][0].suffix, prepared[j][1]) for j in batch], results)
                        batch = []
                        grown, first = len(suffix) + len(continuation), len(suffix)
                    batch.append(i)
                    longest, shortest_suffix = grown, first
                if batch:
                    self._score_batch(base, [(j, prepared[j][0].suffix, prepared[j][1]) for j in batch], results)
        return results

    def _score_batch(self, base: Any, rows: Sequence[tuple[int, tuple[int, ...], list[int]]],
                     results: list[list[float]]) -> None:
        """Score right-padded rows (suffix + continuation) on a copy of the prefix cache."""
        import torch

        tokens = [list(suffix) + continuation for _, suffix, continuation in rows]
        width = max(len(t) for t in tokens)
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        for r, row in enumerate(tokens):
            ids[r, :len(row)] = torch.tensor(row, dtype=torch.long)
        cache = None
        if base is not None:
            cache = copy.deepcopy(base)
            if len(rows) > 1:
                cache.batch_repeat_interleave(len(rows))
        # logits only from the first position that predicts a continuation token
        first = min(len(suffix) - 1 for _, suffix, _ in rows)
        kwargs: dict[str, Any] = {"input_ids": ids.to(self.device), "past_key_values": cache,
                                  "use_cache": cache is not None}
        if self._keep_arg is not None:
            kwargs[self._keep_arg] = width - first
        else:
            first = 0
        logits = self.model(**kwargs).logits  # (rows, width - first, vocab)
        self.counters["decode_calls"] += 1
        self.counters["scored_tokens"] += sum(len(t) for t in tokens)
        batch_index: list[int] = []
        positions: list[int] = []
        targets: list[int] = []
        for r, (_, suffix, continuation) in enumerate(rows):
            for j, token in enumerate(continuation):
                batch_index.append(r)
                positions.append(len(suffix) - 1 + j - first)
                targets.append(token)
        b = torch.tensor(batch_index, device=self.device)
        p = torch.tensor(positions, device=self.device)
        t = torch.tensor(targets, device=self.device)
        values: list[float] = []
        step = 1024  # rows of full-vocabulary log-softmax at a time
        for start in range(0, len(targets), step):
            chunk = logits[b[start:start + step], p[start:start + step]].float()
            chosen = chunk.gather(1, t[start:start + step, None])[:, 0] - torch.logsumexp(chunk, dim=-1)
            values.extend(chosen.double().cpu().tolist())
        at = 0
        for item, _suffix, continuation in rows:
            results[item] = values[at:at + len(continuation)]
            at += len(continuation)
