"""The llama.cpp backend itself: its own context on the loaded weights, the cached prefix, and batched sampling."""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from paraspan.errors import ModelError
from paraspan.llm.backend import BanIdCache, Prompt, Sample, SampleGroup, SampleJob
from paraspan.llm.llama_backend.scoring import LlamaScoring
from paraspan.llm.llama_backend.sequences import (
    _FIRST_WORK_SEQ,
    _PREFIX_SEQ,
    _PROMPT_SEQ,
    _SPARE,
    ContextTooSmall,
    SharedCalls,
    _Seq,
    as_prompt,
)
from paraspan.text.constraints import VocabIndex, WordGuard, trailing_word


class LlamaBackend(LlamaScoring, SharedCalls):
    """Sampling and scoring on a GGUF model through llama.cpp.

    Build it with :meth:`load` (a packaged name or a ``.gguf`` path) or from a
    :class:`~paraspan.models.llm.LocalLLM`. ``n_ctx`` is the context of this backend's own
    llama.cpp context, shared by all parallel sequences (the prompt is stored once);
    ``max_parallel`` caps how many sequences decode together.
    """

    name = "llama.cpp"

    def __init__(self, llm: Any, *, n_ctx: int = 4096, n_batch: int = 512, max_parallel: int = 32,
                 n_threads: int | None = None, lora_path: str | None = None, lora_scale: float = 1.0) -> None:
        import llama_cpp
        from llama_cpp import _internals

        from paraspan.models import llm as llm_module

        self.llm = llm
        self.model_name = getattr(getattr(llm, "resolved", None), "name", "?")
        model = getattr(llm.llama, "_model", None)
        if model is None or not hasattr(model, "vocab"):
            raise ModelError.from_code("E380")
        self._lib = llama_cpp
        self._model = model
        self._vocab_p = model.vocab
        self._n_vocab = int(model.n_vocab())
        self.max_parallel = max(1, int(max_parallel))
        self.n_batch = int(n_batch)
        # all cores but one by default (models.llm.default_threads): llama.cpp threads spin while
        # waiting for each other, which collapses throughput when another process takes a core
        default = getattr(llm_module, "default_threads", llm_module.available_cores)
        threads = int(n_threads or default())
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = int(n_ctx)
        params.n_batch = self.n_batch
        params.n_ubatch = self.n_batch
        params.n_seq_max = _FIRST_WORK_SEQ + self.max_parallel
        params.kv_unified = True  # one cell pool: forked sequences share the prompt's cells
        params.n_threads = threads
        params.n_threads_batch = threads
        params.no_perf = True
        try:
            self._ctx = _internals.LlamaContext(model=model, params=params, verbose=False)
        except ValueError as exc:
            raise ModelError.from_code("E381", exc=exc) from None
        self._mem = self._ctx.memory
        self._lora = _apply_lora(llama_cpp, model, self._ctx, lora_path, lora_scale) if lora_path else None
        self.lora_path = lora_path
        # a token may belong to several sequences (samples that have not diverged yet)
        self._batch = llama_cpp.llama_batch_init(self.n_batch, 0, params.n_seq_max)
        # Free the context, batch and adapter when this backend goes away (the model stays cached).
        self._finalizer = weakref.finalize(self, _free, self._ctx, llama_cpp, self._batch, self._lora)
        self.n_threads = threads
        self._n_ctx = int(self._ctx.n_ctx())
        self._cached_prefix: tuple[int, ...] | None = None
        self._pieces: list[bytes] | None = None
        self._vocab: VocabIndex | None = None
        self._eog: np.ndarray | None = None
        self._pipe_ids = np.zeros(0, dtype=np.int64)  # set with the vocabulary
        self._end_ids = np.zeros(0, dtype=np.int64)
        self._control: np.ndarray | None = None
        self._ban_cache = BanIdCache()
        self.counters = {"prompt_tokens": 0, "cached_prefix_tokens": 0, "sampled_tokens": 0,
                         "scored_tokens": 0, "decode_calls": 0, "shared_tokens": 0}

    @classmethod
    def load(cls, model: str | None = "default", *, n_threads: int | None = None, seed: int = 0,
             n_ctx: int = 4096, max_parallel: int = 32, lora_path: str | None = None) -> LlamaBackend:
        """Load a packaged model (``default``, ``small``) or a ``.gguf`` path, with a GGUF LoRA when given."""
        from paraspan.models.llm import load_llm

        # The Llama object's own context is not used for generation: keep it small.
        llm = load_llm(model, n_ctx=512, n_threads=n_threads, seed=seed)
        return cls(llm, n_ctx=n_ctx, max_parallel=max_parallel, n_threads=n_threads, lora_path=lora_path)

    def close(self) -> None:
        """Free the llama.cpp context now (the model weights stay loaded and cached)."""
        self._finalizer()  # runs at most once, also when the backend is garbage-collected
        self._batch = None

    # ------------------------------------------------------------------ vocabulary

    def _load_vocab(self) -> None:
        lib, vocab = self._lib, self._vocab_p
        buf = ctypes.create_string_buffer(256)
        pieces: list[bytes] = []
        eog = np.zeros(self._n_vocab, dtype=bool)
        control = np.zeros(self._n_vocab, dtype=bool)
        for token in range(self._n_vocab):
            n = lib.llama_token_to_piece(vocab, token, buf, len(buf), 0, False)
            pieces.append(bytes(buf[: max(n, 0)]))
            eog[token] = lib.llama_vocab_is_eog(vocab, token)
            control[token] = lib.llama_vocab_is_control(vocab, token)
        self._pieces = pieces
        self._eog = eog
        # for SampleGroup.fields: tokens holding the separator, and tokens that end the answer
        self._pipe_ids = np.array([i for i, p in enumerate(pieces) if b"|" in p], dtype=np.int64)
        self._end_ids = np.array([i for i, p in enumerate(pieces) if eog[i] or b"\n" in p], dtype=np.int64)
        # Control tokens that do not end the turn (<|im_start|>, FIM markers, …) are never sampled.
        self._control = np.flatnonzero(control & ~eog)
        self._vocab = VocabIndex.from_pieces([p.decode("utf-8", "ignore") for p in pieces])

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        return list(self._model.tokenize(text.encode("utf-8"), False, special))

    def detokenize(self, tokens: Sequence[int]) -> str:
        return self._model.detokenize(list(tokens)).decode("utf-8", "replace")

    def end_of_turn(self) -> list[int]:
        template = self._chat_template()
        for token in (self._model.token_eot(), self._model.token_eos()):
            if token >= 0 and self._model.token_get_text(token) in template:
                return [token]
        return [self._model.token_eos()]

    def _chat_template(self) -> str:
        return self._model.metadata().get("tokenizer.chat_template", "")

    def chat_prompt(self, system: str, user: str, *, split_at: str | None = None) -> Prompt:
        template = self._chat_template()
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        if template:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            bos = self._model.token_get_text(self._model.token_bos()) if self._model.token_bos() >= 0 else ""
            eos = self._model.token_get_text(self._model.token_eos())
            rendered = Jinja2ChatFormatter(template, eos_token=eos, bos_token=bos)(messages=messages).prompt
        else:  # no template in the GGUF: ChatML, which most small instruct models use
            rendered = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
            rendered += "<|im_start|>assistant\n"
        return self._split_prompt(rendered, user, split_at)

    # ------------------------------------------------------------------ llama.cpp plumbing

    def _decode(self, entries: Sequence[tuple[int, int, int | Sequence[int], bool]]) -> None:
        """One ``llama_decode`` of (token, position, sequence id(s), wants logits) entries."""
        batch = self._batch
        assert batch is not None, "the backend is closed"
        batch.n_tokens = len(entries)
        for i, (token, pos, seq, logits) in enumerate(entries):
            batch.token[i] = token
            batch.pos[i] = pos
            if isinstance(seq, int):
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = seq
            else:
                batch.n_seq_id[i] = len(seq)
                for j, one in enumerate(seq):
                    batch.seq_id[i][j] = one
            batch.logits[i] = logits
        code = self._lib.llama_decode(self._ctx.ctx, batch)
        self.counters["decode_calls"] += 1
        if code < 0:  # llama.cpp refused the batch itself (positions, sequence ids), not for room
            raise ModelError.from_code("E384", status=code)
        if code != 0:
            raise ContextTooSmall.from_code("E382", status=code)

    def _logits(self, rows: int) -> np.ndarray:
        """The logits of the last decode's output rows (a view into llama.cpp's buffer)."""
        pointer = self._lib.llama_get_logits(self._ctx.ctx)
        return np.ctypeslib.as_array(pointer, shape=(rows, self._n_vocab))

    def _seq_rm(self, seq: int) -> None:
        self._lib.llama_memory_seq_rm(self._mem, seq, -1, -1)

    def _ensure_prefix(self, prefix: tuple[int, ...]) -> None:
        if prefix == self._cached_prefix:
            self.counters["cached_prefix_tokens"] += len(prefix)
            return
        self._seq_rm(_PREFIX_SEQ)
        self._cached_prefix = None
        for start in range(0, len(prefix), self.n_batch):
            chunk = prefix[start:start + self.n_batch]
            # one output row per decode (llama.cpp expects at least one); its logits are unused
            self._decode([(t, start + i, _PREFIX_SEQ, i == len(chunk) - 1) for i, t in enumerate(chunk)])
        self.counters["prompt_tokens"] += len(prefix)
        self._cached_prefix = prefix

    def _eval_prompts(self, prompts: Sequence[tuple[Prompt, Sequence[int]]]) -> np.ndarray:
        """Evaluate each prompt into its samples' sequences (``(prompt, sequence ids)``): the cached
        prefix copied to them, then the suffixes of all prompts in as few ``llama_decode`` calls as
        the batch allows, each suffix token one entry that carries every sequence of its prompt.
        Returns the next-token logits, one row per prompt (a copy).

        One call for all suffixes instead of one per prompt: 5 of the substituter's prompts (~30
        tokens each) together evaluate at 22.6 tokens/s on a 2-core EPYC, one alone at 17.0
        (``benchmarks/augment.py --part throughput --step prompts``)."""
        entries: list[tuple[int, int, Sequence[int], bool]] = []
        for prompt, seqs in prompts:
            prefix, suffix = prompt.prefix, prompt.suffix
            if not suffix:  # the last token's logits are needed: it cannot come from the cache
                prefix, suffix = prefix[:-1], prefix[-1:]
            if len(prefix) + len(suffix) >= self._n_ctx:
                raise ContextTooSmall.from_code("E383",
                                                problem=f"the prompt has {len(prompt)} tokens; the context holds "
                                                        f"{self._n_ctx}")
            if prefix:
                self._ensure_prefix(prefix)
                for seq in seqs:
                    self._lib.llama_memory_seq_cp(self._mem, _PREFIX_SEQ, seq, -1, -1)
            base = len(prefix)
            entries.extend((t, base + i, list(seqs), i == len(suffix) - 1) for i, t in enumerate(suffix))
            self.counters["prompt_tokens"] += len(suffix)
        rows: list[np.ndarray] = []
        for start in range(0, len(entries), self.n_batch):
            chunk = entries[start:start + self.n_batch]
            wanted = [k for k, entry in enumerate(chunk) if entry[3]]
            if not wanted:  # llama.cpp wants at least one output row; this one is not read
                chunk[-1] = (*chunk[-1][:3], True)
            self._decode(chunk)
            if wanted:
                rows.append(self._logits(len(wanted)).copy())
        return np.concatenate(rows)

    # ------------------------------------------------------------------ sampling

    def parallel_capacity(self, prompt_tokens: int, max_tokens: int) -> int:
        """How many sequences of ``max_tokens`` fit beside a prompt in the KV cache."""
        room = self._n_ctx - prompt_tokens - 1
        return max(0, min(self.max_parallel, room // max(1, max_tokens)))

    def sample_groups(self, prompt: Prompt | Sequence[int], groups: Sequence[SampleGroup], *, top_k: int = 10,
                      max_tokens: int = 64, temperature: float = 1.0) -> list[Sample]:
        return self.sample_batch([SampleJob(as_prompt(prompt), tuple(groups), max_tokens)], top_k=top_k,
                                 temperature=temperature)[0]

    def sample_batch(self, jobs: Sequence[SampleJob], *, top_k: int = 10,
                     temperature: float = 1.0) -> list[list[Sample]]:
        """The samples of several prompts, decoded together (one list per job).

        The samples of all jobs go through the same decode waves, each as wide as the context
        and ``max_parallel`` allow: on a CPU a wave of 64 sequences decodes about 4× the tokens
        per second of a single one (``benchmarks/augment.py --part throughput``). Each prompt is
        evaluated once per wave it has samples in (the shared prefix is cached).
        """
        self._ensure_vocab()
        flat: list[tuple[int, int, int]] = [(j, g, i) for j, job in enumerate(jobs)
                                            for g, group in enumerate(job.groups) for i in range(group.n)]
        out: list[list[Sample]] = [[] for _ in jobs]
        try:
            for wave in self._waves(jobs, flat):
                for sample, (j, _, _) in zip(self._sample_wave(jobs, wave, top_k=top_k, temperature=temperature),
                                             wave, strict=True):
                    out[j].append(sample)
        finally:
            for seq in range(_PROMPT_SEQ, _FIRST_WORK_SEQ + self.max_parallel):
                self._seq_rm(seq)
        return out

    def _waves(self, jobs: Sequence[SampleJob], flat: list[tuple[int, int, int]]) -> list[list[tuple[int, int, int]]]:
        """``flat`` cut into waves that fit: at most ``max_parallel`` samples, and KV cells for the
        shared prefix, each prompt's suffix and every sample's ``max_tokens``."""
        waves: list[list[tuple[int, int, int]]] = []
        wave: list[tuple[int, int, int]] = []
        cells = 0
        prefixes: set[tuple[int, ...]] = set()  # the prefixes whose cells the wave's samples hold
        for item in flat:
            job = jobs[item[0]]
            prefix = job.prompt.prefix if job.prompt.suffix else job.prompt.tokens[:-1]
            alone = len(job.prompt) + 1 + job.max_tokens  # this prompt's cells and one answer
            if alone + 1 > self._n_ctx:
                raise ContextTooSmall.from_code(
                    "E383", problem=f"the prompt ({len(job.prompt)} tokens) and an answer of up to "
                                    f"{job.max_tokens} tokens do not fit in the context ({self._n_ctx} tokens)")
            need = job.max_tokens
            if not wave or wave[-1][0] != item[0]:  # a new prompt: its suffix (and prefix, if new)
                need += len(job.prompt) - len(prefix) + 1 + (len(prefix) if prefix not in prefixes else 0)
            if wave and (len(wave) >= self.max_parallel or cells + need + 1 > self._n_ctx):
                waves.append(wave)
                wave, cells, prefixes = [], 0, set()
                need = alone
            wave.append(item)
            prefixes.add(prefix)
            cells += need
        if wave:
            waves.append(wave)
        return waves

    def _sample_wave(self, jobs: Sequence[SampleJob], wave: Sequence[tuple[int, int, int]], *, top_k: int,
                     temperature: float) -> list[Sample]:
        """Decode one wave of samples (of one or several prompts) together.

        Samples whose tokens so far are identical (all samples of a prompt at the start,
        duplicates later) share one batch entry: its KV cell carries all their sequence ids and
        its logits serve them all, so a token is computed once however many samples agree on
        the history.
        """
        seqs: list[_Seq] = []
        slots: dict[int, list[int]] = {}  # prompt → its samples' sequence ids, prompts in wave order
        for slot, (j, _, _) in enumerate(wave):
            slots.setdefault(j, []).append(_FIRST_WORK_SEQ + slot)
        logits = self._eval_prompts([(jobs[j].prompt, ids) for j, ids in slots.items()])
        first_row = {j: row for row, j in enumerate(slots)}
        for slot, (j, g, i) in enumerate(wave):
            job = jobs[j]
            group = job.groups[g]
            seqs.append(_Seq(_FIRST_WORK_SEQ + slot, g, i, np.random.default_rng([group.seed & 0xFFFFFFFF, i]),
                             WordGuard(group.bans), self.banned_ids(group.bans),
                             keep=self._keeps(group), fields=group.fields, max_words=group.max_words, job=j,
                             n_past=len(job.prompt),
                             max_tokens=job.max_tokens))
        live = list(seqs)
        rows = [first_row[s.job] for s in live]  # row of `logits` that each live sample reads
        step = 0
        while live:
            chosen = self._choose(live, logits, rows, top_k=top_k, temperature=temperature)
            self.counters["sample_steps"] = self.counters.get("sample_steps", 0) + 1
            nodes: dict[tuple[int, int], list[_Seq]] = {}
            for seq, row, token in zip(live, rows, chosen, strict=True):
                self._advance(seq, token, seq.max_tokens)
                if seq.finish is None:
                    nodes.setdefault((row, token), []).append(seq)
                else:
                    self._seq_rm(seq.seq_id)  # free its cells now
            step += 1
            if not nodes:
                break
            entries = []
            live, rows = [], []
            for r, ((_, token), members) in enumerate(nodes.items()):
                # members share a row, hence a prompt and a history: one position
                entries.append((token, members[0].n_past + step - 1, [m.seq_id for m in members], True))
                live.extend(members)
                rows.extend([r] * len(members))
            self._decode(entries)
            self.counters["shared_tokens"] = self.counters.get("shared_tokens", 0) + len(live) - len(entries)
            logits = self._logits(len(entries))
        self.counters["sampled_tokens"] += sum(len(s.tokens) for s in seqs)
        return [s.sample() for s in seqs]

    @staticmethod
    def _boost_keeps(seq: _Seq, row: np.ndarray) -> None:
        """Raise the next token of every kept phrase the sample has not written yet."""
        tokens = seq.tokens
        for keep in seq.keep:
            begun: list[tuple[tuple[int, ...], int]] = []
            for variant in keep.variants:
                # the longest proper prefix of this spelling that the sample's tokens end with
                for j in range(min(len(variant) - 1, len(tokens)), 0, -1):
                    if tuple(tokens[-j:]) == variant[:j]:
                        begun.append((variant, j))
                        break
            if begun:  # finish what was begun; do not pull towards a fresh start meanwhile
                for token in {variant[j] for variant, j in begun}:
                    row[token] += keep.cont
            elif keep.start:
                for token in {variant[0] for variant in keep.variants}:
                    row[token] += keep.start

    def _choose(self, live: list[_Seq], logits: np.ndarray, rows: list[int], *, top_k: int,
                temperature: float) -> list[int]:
        assert self._pieces is not None and self._eog is not None and self._control is not None
        # Log-normaliser of the raw distribution, for the forward score (once per distinct row).
        peak = logits.max(axis=1, keepdims=True)
        lse = (peak[:, 0] + np.log(np.exp(logits - peak).sum(axis=1))).astype(np.float64)
        masked = logits[rows]  # a copy per sample: bans differ between samples of one row
        for i, seq in enumerate(live):
            if seq.keep:
                self._boost_keeps(seq, masked[i])
        masked[:, self._control] = -np.inf
        for i, seq in enumerate(live):
            if seq.banned.size:
                masked[i, seq.banned] = -np.inf
            if seq.fields > 0:  # exactly `fields` "|"-separated fields: no early end, no extra "|"
                masked[i, self._end_ids if seq.text.count("|") < seq.fields - 1 else self._pipe_ids] = -np.inf
        width = min(self._n_vocab, top_k + _SPARE)
        top = np.argpartition(masked, -width, axis=1)[:, -width:]
        chosen: list[int] = []
        for i, seq in enumerate(live):
            allowed = self._allowed(seq, masked[i], top[i], top_k)
            if not allowed:  # everything plausible is banned: end here, the caller rejects it
                seq.finish = "blocked"
                chosen.append(-1)
                continue
            values = np.array([masked[i, t] for t in allowed], dtype=np.float64) / max(temperature, 1e-6)
            probs = np.exp(values - values.max())
            probs /= probs.sum()
            where = int(np.searchsorted(np.cumsum(probs), seq.rng.random()))
            pick = allowed[min(where, len(allowed) - 1)]
            # the model's own log-probability: boosts for kept phrases do not count
            seq.logprobs.append(float(logits[rows[i], pick]) - float(lse[rows[i]]))
            chosen.append(int(pick))
        return chosen

    def _allowed(self, seq: _Seq, row: np.ndarray, top: np.ndarray, top_k: int) -> list[int]:
        """The best ``top_k`` tokens that pass the guard, best first (rejects → −inf in ``row``)."""
        tail = trailing_word(seq.text)
        allowed: list[int] = []
        order = top[np.argsort(-row[top], kind="stable")]
        for token in order:
            if not np.isfinite(row[token]):
                return allowed
            if self._passes(seq, tail, int(token)):
                allowed.append(int(token))
                if len(allowed) == top_k:
                    return allowed
            else:
                row[token] = -np.inf
        # The guard rejected many of the best tokens: go on down the full ranking (rare).
        seen = set(allowed)
        for token in np.argsort(-row, kind="stable"):
            if not np.isfinite(row[token]):
                break
            if int(token) in seen:
                continue
            if self._passes(seq, tail, int(token)):
                allowed.append(int(token))
                if len(allowed) == top_k:
                    break
        return allowed



def _apply_lora(lib: Any, model: Any, ctx: Any, path: str, scale: float) -> Any:
    """Load the GGUF LoRA at ``path`` for ``model`` and apply it to ``ctx`` (E382 when llama.cpp refuses it)."""
    import ctypes

    from llama_cpp._utils import suppress_stdout_stderr

    with suppress_stdout_stderr(disable=False):  # llama.cpp logs a line per tensor it cannot repack
        adapter = lib.llama_adapter_lora_init(model.model, str(path).encode("utf-8"))
    if adapter is None:
        raise ModelError.from_code("E512", problem=f"llama.cpp cannot load the LoRA {path}",
                                   fix="pass an adapter.gguf written by `paraspan train-generator` for this base model")
    adapters = (lib.llama_adapter_lora_p_ctypes * 1)(adapter)
    scales = (ctypes.c_float * 1)(float(scale))
    if lib.llama_set_adapters_lora(ctx.ctx, adapters, 1, scales):
        lib.llama_adapter_lora_free(adapter)
        raise ModelError.from_code("E512", problem=f"llama.cpp cannot apply the LoRA {path} to this model",
                                   fix="pass an adapter trained on this base model")
    return adapter


def _free(ctx: Any, lib: Any, batch: Any, lora: Any = None) -> None:
    if batch is not None:
        try:
            lib.llama_batch_free(batch)
        except Exception:  # interpreter shutdown
            pass
    ctx.close()
    if lora is not None:
        try:
            lib.llama_adapter_lora_free(lora)
        except Exception:  # interpreter shutdown
            pass

