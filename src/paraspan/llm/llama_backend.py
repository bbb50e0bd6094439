"""A :class:`~paraspan.llm.backend.Backend` on llama.cpp (``llama-cpp-python``), CPU only.

Why not ``Llama.create_completion``: it evaluates the prompt for every call, samples one
sequence at a time, and in llama-cpp-python 0.3.36 silently drops both ``logit_bias`` and
``logits_processor`` when both are given. Instead this backend opens its own llama.cpp context
on the already-loaded model weights (no second copy in memory) with several sequences and a
unified KV cache, and then

* keeps the shared prompt prefix (system prompt + instruction) in sequence 0, evaluated once,
  and copies it to every sample's sequence (a KV-cache copy is just metadata);
* decodes one token for up to ``max_parallel`` samples per ``llama_decode`` call — on a CPU
  several times the throughput of one sequence, because the weights are read once per step —
  and batches continuously: as samples finish, queued ones start in the same call, their
  prompt's suffix decoded once into all their sequences beside the running samples' tokens;
* samples in numpy: banned token ids → −inf, top-k, the :class:`WordGuard` check on the
  candidates, temperature, a seeded draw; the log-probability of the drawn token under the
  full distribution is recorded as it goes (the forward score costs nothing extra);
* scores continuations (the backward score) by packing many (prompt, continuation) pairs
  into one batch, asking for logits only where a continuation token is predicted.
"""

from __future__ import annotations

import ctypes
import functools
import weakref
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paraspan.errors import ModelError
from paraspan.llm.backend import BanIdCache, Prompt, Sample, SampleGroup, SampleJob
from paraspan.text.constraints import BanSet, VocabIndex, WordGuard, trailing_word

#: Candidates examined beyond k at each step, so that a few rejected by the guard still
#: leave k to sample from without a second partition.
_SPARE = 16
#: Tokens beyond those that each distinct logits row ranks once per step (:meth:`LlamaBackend._choose`):
#: room for a sample's bans among its best tokens before it must rank its whole row.
_POOL = 48

#: Sequence ids: 0 holds the cached prefix, samples and scored items use 2 on (1 is spare: the
#: decoder-limits benchmark, ``benchmarks/_throughput.py``, decodes into it).
_PREFIX_SEQ = 0
_PROMPT_SEQ = 1
_FIRST_WORK_SEQ = 2


class ContextTooSmall(ModelError):
    """A prompt (plus its continuation) does not fit in the context window."""


def _decode_partial(data: bytes) -> tuple[str, bytes]:
    """Decode UTF-8, holding back an incomplete multi-byte character at the end."""
    try:
        return data.decode("utf-8"), b""
    except UnicodeDecodeError as exc:
        if exc.end >= len(data) and exc.reason == "unexpected end of data":
            return data[: exc.start].decode("utf-8", "replace"), data[exc.start:]
        return data.decode("utf-8", "replace"), b""


@dataclass
class _Seq:
    """One sample being decoded."""

    seq_id: int
    group: int
    index: int
    rng: np.random.Generator
    guard: WordGuard
    banned: np.ndarray
    tokens: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    text: str = ""
    pending: bytes = b""
    finish: str | None = None
    keep: list[_Keep] = field(default_factory=list)  # kept phrases not yet in the text
    fields: int = 0  # required "|"-separated fields (0: any answer)
    job: int = 0  # the prompt it answers (a batch of several prompts)
    n_past: int = 0  # that prompt's length: the position of the sample's first token
    max_tokens: int = 0
    admission: int = -1  # the admission that started it (its prompt's cells: :class:`_Cells`)

    def advance(self, token: int, piece: bytes, end_of_turn: bool, max_tokens: int, *, stop: bool = True) -> None:
        """Append ``token`` (``piece``: its bytes) and set ``finish``: at the end of turn or a line
        break after some text (unless ``stop`` is false: a fixed-length run), or at ``max_tokens``."""
        if self.finish is not None:  # blocked
            return
        self.tokens.append(token)
        if end_of_turn and stop:
            self.finish = "stop"
            return
        text, self.pending = _decode_partial(self.pending + piece)
        if stop and "\n" in text and (self.text + text.split("\n", 1)[0]).strip():
            self.text += text.split("\n", 1)[0]
            self.finish = "newline"
            return
        self.text += text
        if self.keep:
            self.keep = [k for k in self.keep if not any(form in self.text for form in k.forms)]
        if len(self.tokens) >= max_tokens:
            self.finish = "length"


@dataclass
class _Cells:
    """The KV cells the running samples may need: their prompts' prefixes and suffixes, and
    ``max_tokens`` for each sample (an upper bound: a token shared by several samples takes one
    cell). Continuous batching admits a sample only where its cells fit beside them."""

    answers: int = 0
    serial: int = 0  # the next admission's id
    prefixes: dict[tuple[int, ...], int] = field(default_factory=dict)  # prefix → admissions on it
    admissions: dict[int, list[Any]] = field(default_factory=dict)  # id → [suffix cells, holders, prefix]

    def used(self, cached: tuple[int, ...] | None) -> int:
        held = sum(len(p) for p in self.prefixes if p != cached)
        return len(cached or ()) + held + sum(a[0] + 1 for a in self.admissions.values()) + self.answers

    def holds(self, prefix: tuple[int, ...]) -> bool:
        return prefix in self.prefixes

    def start(self, prefix: tuple[int, ...], suffix: int, *, holder: bool) -> int:
        """A prompt evaluated for some samples (and sequence 1, with ``holder``): its id."""
        key, self.serial = self.serial, self.serial + 1
        self.admissions[key] = [suffix, int(holder), prefix]
        self.prefixes[prefix] = self.prefixes.get(prefix, 0) + 1
        return key

    def join(self, key: int, answers: Sequence[int]) -> None:
        self.admissions[key][1] += len(answers)
        self.answers += sum(answers)

    def leave(self, key: int, answer: int) -> None:
        """A sample (or, with ``answer`` 0, sequence 1) lets go of admission ``key``'s cells."""
        self.answers -= answer
        admission = self.admissions[key]
        admission[1] -= 1
        if admission[1] == 0:
            del self.admissions[key]
            self.prefixes[admission[2]] -= 1
            if self.prefixes[admission[2]] == 0:
                del self.prefixes[admission[2]]


@dataclass
class _Admitting:
    """Continuous batching's state between steps: the cells in use, and the prompt held in sequence 1."""

    cells: _Cells = field(default_factory=_Cells)
    held: int | None = None  # the job whose prompt sequence 1 holds (some of its samples wait)
    admission: int = -1  # that prompt's admission (:class:`_Cells`)
    held_logits: np.ndarray | None = None  # its first-token logits
    capture: int | None = None  # this step's logits row to keep as ``held_logits``
    rows: int = 0  # logits rows this step's decode call gives
    stored: list[np.ndarray] = field(default_factory=list)  # kept rows this step reads after those


@dataclass
class _Keep:
    """A phrase to keep: its surface forms and their token sequences."""

    forms: tuple[str, ...]
    variants: tuple[tuple[int, ...], ...]
    start: float
    cont: float


def keeps_for(group: SampleGroup, tokenize: Callable[[str], list[int]]) -> list[_Keep]:
    """The phrases ``group`` keeps, each with its surface forms and their token sequences (any backend)."""
    if not group.keep or (group.keep_start == 0 and group.keep_continue == 0):
        return []
    out = []
    for phrase in group.keep:
        forms = {phrase}
        if phrase[:1].isalpha():  # a phrase may move in or out of sentence-initial position
            forms.add(phrase[0].swapcase() + phrase[1:])
        variants = {tuple(tokenize(prefix + form)) for form in forms for prefix in ("", " ")}
        out.append(_Keep(tuple(sorted(forms)), tuple(sorted(v for v in variants if v)),
                         group.keep_start, group.keep_continue))
    return out


class LlamaBackend:
    """Sampling and scoring on a GGUF model through llama.cpp.

    Build it with :meth:`load` (a packaged name or a ``.gguf`` path) or from a
    :class:`~paraspan.models.llm.LocalLLM`. ``n_ctx`` is the context of this backend's own
    llama.cpp context, shared by all parallel sequences (the prompt is stored once);
    ``max_parallel`` caps how many sequences decode together.
    """

    name = "llama.cpp"

    def __init__(self, llm: Any, *, n_ctx: int = 4096, n_batch: int = 512, max_parallel: int = 32,
                 n_threads: int | None = None) -> None:
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
        # a token may belong to several sequences (samples that have not diverged yet)
        self._batch = llama_cpp.llama_batch_init(self.n_batch, 0, params.n_seq_max)
        # Free the context and batch when this backend goes away (the model stays cached).
        self._finalizer = weakref.finalize(self, _free, self._ctx, llama_cpp, self._batch)
        self.n_threads = threads
        self._n_ctx = int(self._ctx.n_ctx())
        self._cached_prefix: tuple[int, ...] | None = None
        self._pieces_bytes: list[bytes] | None = None
        self._vocab: VocabIndex | None = None
        self._eog: np.ndarray | None = None
        self._pipe_ids = np.zeros(0, dtype=np.int64)  # set with the vocabulary
        self._end_ids = np.zeros(0, dtype=np.int64)
        self._control: np.ndarray | None = None
        self._control_mask: np.ndarray | None = None  # the same, as a mask over the vocabulary
        self._ban_cache = BanIdCache()
        self.counters = {"prompt_tokens": 0, "cached_prefix_tokens": 0, "sampled_tokens": 0,
                         "scored_tokens": 0, "decode_calls": 0, "shared_tokens": 0}

    @classmethod
    def load(cls, model: str | None = "default", *, n_threads: int | None = None, seed: int = 0,
             n_ctx: int = 4096, max_parallel: int = 32) -> LlamaBackend:
        """Load a packaged model (``default``, ``small``) or a ``.gguf`` path."""
        from paraspan.models.llm import load_llm

        # The Llama object's own context is not used for generation: keep it small.
        llm = load_llm(model, n_ctx=512, n_threads=n_threads, seed=seed)
        return cls(llm, n_ctx=n_ctx, max_parallel=max_parallel, n_threads=n_threads)

    def close(self) -> None:
        """Free the llama.cpp context now (the model weights stay loaded and cached)."""
        self._finalizer()  # runs at most once, also when the backend is garbage-collected
        self._batch = None

    # ------------------------------------------------------------------ vocabulary

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

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
        self._pieces_bytes = pieces
        self._eog = eog
        # for SampleGroup.fields: tokens holding the separator, and tokens that end the answer
        self._pipe_ids = np.array([i for i, p in enumerate(pieces) if b"|" in p], dtype=np.int64)
        self._end_ids = np.array([i for i, p in enumerate(pieces) if eog[i] or b"\n" in p], dtype=np.int64)
        # Control tokens that do not end the turn (<|im_start|>, FIM markers, …) are never sampled.
        self._control = np.flatnonzero(control & ~eog)
        self._control_mask = control & ~eog
        self._vocab = VocabIndex.from_pieces([p.decode("utf-8", "ignore") for p in pieces])

    @property
    def vocab(self) -> list[str]:
        return self.vocab_index.pieces

    @property
    def vocab_index(self) -> VocabIndex:
        if self._vocab is None:
            self._load_vocab()
        assert self._vocab is not None
        return self._vocab

    def banned_ids(self, bans: BanSet) -> np.ndarray:
        """Token ids masked for ``bans`` (memoised per ban set)."""
        return self._ban_cache.ids(bans, self.vocab_index)  # type: ignore[no-any-return]

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
        cut = 0
        if split_at is not None:
            start = rendered.find(user)
            offset = user.find(split_at)
            if start >= 0 and offset >= 0:
                cut = start + offset
        prefix = tuple(self.tokenize(rendered[:cut], special=True)) if cut else ()
        suffix = tuple(self.tokenize(rendered[cut:], special=True))
        return Prompt(prefix, suffix)

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

    # ------------------------------------------------------------------ sampling

    def sample(self, prompt: Prompt | Sequence[int], n: int, *, top_k: int = 10, seed: int = 0,
               banned: BanSet | None = None, max_tokens: int = 64, temperature: float = 1.0) -> list[Sample]:
        return self.sample_groups(prompt, [SampleGroup(n, seed, banned or BanSet())], top_k=top_k,
                                  max_tokens=max_tokens, temperature=temperature)

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
        """The samples of several prompts, decoded together (one list per job, in group order).

        Continuous batching: up to ``max_parallel`` samples decode together, and whenever
        samples finish, the next ones (in job order) take their places in the same step, their
        prompt's suffix decoded in the same ``llama_decode`` call as the running samples' next
        tokens. A step therefore stays near ``max_parallel`` wide until the queue runs dry,
        instead of thinning as a fixed wave's samples end (on a CPU 64 sequences decode about 4×
        the tokens per second of one: ``benchmarks/augment.py --part throughput``). A sample's
        draws depend only on its group's seed and its index; the batch's shape changes only
        llama.cpp's rounding.
        """
        if self._vocab is None:
            self._load_vocab()
        for job in jobs:  # each prompt must fit alone, with one answer
            if len(job.prompt) + job.max_tokens + 2 > self._n_ctx:
                raise ContextTooSmall.from_code(
                    "E383", problem=f"the prompt ({len(job.prompt)} tokens) and an answer of up to "
                                    f"{job.max_tokens} tokens do not fit in the context ({self._n_ctx} tokens)")
        queue = deque((j, g, i) for j, job in enumerate(jobs) for g, group in enumerate(job.groups)
                      for i in range(group.n))
        slots = {(j, g, i): k for j, job in enumerate(jobs)
                 for k, (g, i) in enumerate((g, i) for g, group in enumerate(job.groups) for i in range(group.n))}
        out: list[list[Sample | None]] = [[None] * sum(g.n for g in job.groups) for job in jobs]
        try:
            self._decode_continuously(jobs, queue, top_k=top_k, temperature=temperature,
                                      done=lambda s: out[s.job].__setitem__(slots[(s.job, s.group, s.index)], Sample(
                                          text=s.text, tokens=s.tokens, logprobs=s.logprobs,
                                          finish=s.finish or "stop", group=s.group, index=s.index)))
        finally:
            for seq in range(_PROMPT_SEQ, _FIRST_WORK_SEQ + self.max_parallel):
                self._seq_rm(seq)
        assert all(s is not None for samples in out for s in samples)
        return out  # type: ignore[return-value]

    def _decode_continuously(self, jobs: Sequence[SampleJob], queue: deque[tuple[int, int, int]], *, top_k: int,
                             temperature: float, done: Callable[[_Seq], None]) -> None:
        """Decode every queued sample; ``done`` gets each as it finishes.

        Samples whose tokens so far are identical (all samples of a prompt at the start,
        duplicates later) share one batch entry: its KV cell carries all their sequence ids and
        its logits serve them all, so a token is computed once however many samples agree on
        the history.
        """
        free = list(range(_FIRST_WORK_SEQ + self.max_parallel - 1, _FIRST_WORK_SEQ - 1, -1))  # pop(): lowest
        state = _Admitting()
        nodes: dict[tuple[int, int], list[_Seq]] = {}  # (logits row, token) → the samples that drew it
        while nodes or queue:
            # the running samples' next tokens, then the suffixes of newly admitted prompts
            entries: list[tuple[int, int, int | Sequence[int], bool]] = []
            live: list[_Seq] = []
            rows: list[int] = []
            for r, ((_, token), members) in enumerate(nodes.items()):
                # members share a row, hence a prompt and a history: one position
                entries.append((token, members[0].n_past + len(members[0].tokens) - 1,
                                [m.seq_id for m in members], True))
                live.extend(members)
                rows.extend([r] * len(members))
            if nodes:
                self.counters["shared_tokens"] = self.counters.get("shared_tokens", 0) + len(live) - len(entries)
            state.rows = len(entries)
            state.stored = []
            while queue and free:
                admitted, row = self._admit(jobs, queue, free, state, entries)
                if not admitted:
                    break
                live.extend(admitted)
                rows.extend([row] * len(admitted))
            if not entries and not state.stored:  # nothing fits: cannot happen after the E383 check
                raise ContextTooSmall.from_code("E382", status=1)
            # kept rows (marked -1, -2, …) come after the rows of this step's decode call
            rows = [r if r >= 0 else state.rows - r - 1 for r in rows]
            if entries:
                self._decode(entries)
                logits = self._logits(state.rows)
            else:
                logits = np.zeros((0, self._n_vocab), dtype=np.float32)
            if state.capture is not None:  # the held prompt's first-token logits, for its later samples
                state.held_logits, state.capture = logits[state.capture].copy(), None
            if state.stored:
                logits = np.concatenate([logits, np.stack(state.stored)])
            chosen = self._choose(live, logits, rows, top_k=top_k, temperature=temperature)
            self.counters["sample_steps"] = self.counters.get("sample_steps", 0) + 1
            nodes = {}
            for seq, row, token in zip(live, rows, chosen, strict=True):
                self._advance(seq, token, seq.max_tokens)
                if seq.finish is None:
                    nodes.setdefault((row, token), []).append(seq)
                else:  # free its cells and its sequence id now
                    self._seq_rm(seq.seq_id)
                    free.append(seq.seq_id)
                    state.cells.leave(seq.admission, seq.max_tokens)
                    self.counters["sampled_tokens"] += len(seq.tokens)
                    done(seq)

    def _admit(self, jobs: Sequence[SampleJob], queue: deque[tuple[int, int, int]], free: list[int],
               state: _Admitting, entries: list[tuple[int, int, int | Sequence[int], bool]]) -> tuple[list[_Seq], int]:
        """Start the next queued samples of one prompt, as many as have free sequence ids and KV
        cells; return them and the logits row of their first token ([] when none fits now).

        A prompt's suffix joins ``entries`` (this step's decode call). When some of its samples
        must wait, sequence 1 holds the prompt's cells and its first-token logits are kept, so
        the waiting samples start later from a copy, without evaluating the prompt again.
        """
        j = queue[0][0]
        job = jobs[j]
        prefix, suffix = job.prompt.prefix, job.prompt.suffix
        if not suffix:  # the last token's logits are needed: it cannot come from the cache
            prefix, suffix = prefix[:-1], prefix[-1:]
        waiting = 0
        while waiting < len(queue) and queue[waiting][0] == j:
            waiting += 1
        cells = state.cells
        held = state.held == j
        if held and state.held_logits is None:  # its logits come with this step's decode: next step
            return [], 0
        room = self._n_ctx - 1 - cells.used(self._cached_prefix)
        if not held:
            room -= len(suffix) + 1 + (len(prefix) if prefix != self._cached_prefix and not cells.holds(prefix)
                                       else 0)
        take = min(waiting, len(free), max(0, room) // max(1, job.max_tokens))
        if take == 0 or (not held and len(entries) + 1 > self.n_batch):
            return [], 0
        ids = [free.pop() for _ in range(take)]
        keep = take < waiting  # samples of this prompt will wait: hold its cells in sequence 1
        if held:
            for seq_id in ids:
                self._lib.llama_memory_seq_cp(self._mem, _PROMPT_SEQ, seq_id, -1, -1)
            assert state.held_logits is not None
            state.stored.append(state.held_logits)
            row = -len(state.stored)  # after the decode call's rows, whose number is not known yet
            admission = state.admission
        else:
            if state.held is not None:  # the previous held prompt's samples all started
                self._seq_rm(_PROMPT_SEQ)
                cells.leave(state.admission, 0)
                state.held = None
            if prefix:
                self._ensure_prefix(prefix)  # a new prefix: the old one's cells stay with the samples on it
            targets = ids + [_PROMPT_SEQ] * keep
            for seq_id in targets:
                if prefix:
                    self._lib.llama_memory_seq_cp(self._mem, _PREFIX_SEQ, seq_id, -1, -1)
            # the suffix goes into this step's decode call; a part that does not fit beside the
            # running samples' tokens is decoded first, on its own
            ahead = max(0, len(suffix) - (self.n_batch - len(entries)))
            for start in range(0, ahead, self.n_batch):
                chunk = suffix[start:min(ahead, start + self.n_batch)]
                # one output row per decode (llama.cpp expects at least one); its logits are unused
                self._decode([(t, len(prefix) + start + i, targets, i == len(chunk) - 1)
                              for i, t in enumerate(chunk)])
            entries.extend((t, len(prefix) + k, targets, k == len(suffix) - 1)
                           for k, t in enumerate(suffix) if k >= ahead)
            self.counters["prompt_tokens"] += len(suffix)
            row = state.rows
            state.rows += 1
            admission = cells.start(prefix, len(suffix), holder=keep)
            if keep:
                state.held, state.admission, state.held_logits, state.capture = j, admission, None, row
        seqs = []
        for seq_id in ids:
            _, g, i = queue.popleft()
            group = job.groups[g]
            seqs.append(_Seq(seq_id, g, i, np.random.default_rng([group.seed & 0xFFFFFFFF, i]),
                             WordGuard(group.bans), self.banned_ids(group.bans),
                             keep=self._keeps(group), fields=group.fields, job=j, n_past=len(job.prompt),
                             max_tokens=job.max_tokens, admission=admission))
        cells.join(admission, [s.max_tokens for s in seqs])
        if held and not keep:  # the last of its waiting samples: sequence 1 lets go of the prompt
            self._seq_rm(_PROMPT_SEQ)
            cells.leave(admission, 0)
            state.held, state.held_logits = None, None
        return seqs, row

    def _keeps(self, group: SampleGroup) -> list[_Keep]:
        return keeps_for(group, self.tokenize)

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
        """One token per live sample.

        Each distinct row's best ``width + _POOL`` tokens are found once; a sample's candidates
        are those less the tokens it may not write (control tokens, its bans, the ``fields``
        constraint), plus the tokens its kept phrases boost, best first, down to the pool's
        lowest logit: a prefix of its whole masked ranking, so the draw is the one the whole row
        would give. Only a sample left with fewer than ``width`` candidates, or whose guard
        rejects too many of them, masks and ranks its whole row.
        """
        assert self._pieces_bytes is not None and self._eog is not None and self._control is not None
        # Log-normaliser of the raw distribution, for the forward score (once per distinct row).
        peak = logits.max(axis=1, keepdims=True)
        lse = (peak[:, 0] + np.log(np.exp(logits - peak).sum(axis=1))).astype(np.float64)
        width = min(self._n_vocab, top_k + _SPARE)
        pool = min(self._n_vocab, width + _POOL)
        distinct = sorted(set(rows))
        best = np.argpartition(logits[distinct], -pool, axis=1)[:, -pool:]
        pools: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for k, r in enumerate(distinct):
            order = np.argsort(-logits[r, best[k]], kind="stable")
            ids = best[k][order]
            pools[r] = ids, logits[r, ids].astype(np.float64)
        chosen: list[int] = []
        for i, seq in enumerate(live):
            row = logits[rows[i]]
            ids, values = self._candidates(seq, row, *pools[rows[i]])
            allowed: list[int] = []
            picked_values: list[float] = []
            if len(ids) >= width or pool == self._n_vocab:
                tail = trailing_word(seq.text)
                rejected: list[int] = []
                for token, value in zip(ids.tolist(), values.tolist(), strict=True):
                    if self._passes(seq, tail, token):
                        allowed.append(token)
                        picked_values.append(value)
                        if len(allowed) == top_k:
                            break
                    else:
                        rejected.append(token)
                if len(allowed) < top_k and pool < self._n_vocab:  # the guard rejected many: the whole row
                    allowed, picked_values = self._allowed_in_row(seq, row, rejected, top_k)
            else:  # bans took most of the pool: the whole row (rare)
                allowed, picked_values = self._allowed_in_row(seq, row, [], top_k)
            if not allowed:  # everything plausible is banned: end here, the caller rejects it
                seq.finish = "blocked"
                chosen.append(-1)
                continue
            scaled = np.array(picked_values, dtype=np.float64) / max(temperature, 1e-6)
            probs = np.exp(scaled - scaled.max())
            probs /= probs.sum()
            where = int(np.searchsorted(np.cumsum(probs), seq.rng.random()))
            pick = allowed[min(where, len(allowed) - 1)]
            # the model's own log-probability: boosts for kept phrases do not count
            seq.logprobs.append(float(row[pick]) - float(lse[rows[i]]))
            chosen.append(int(pick))
        return chosen

    def _candidates(self, seq: _Seq, row: np.ndarray, ids: np.ndarray,
                    values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The pool's tokens (``ids``, best first, their logits ``values``) that ``seq`` may write,
        with its kept-phrase boosts, best first, down to the pool's lowest logit."""
        floor = values[-1]
        keep = ~self._forbidden(seq, ids)
        ids, values = ids[keep], values[keep]
        if seq.keep:
            boosts: defaultdict[int, float] = defaultdict(float)
            self._boost_keeps(seq, boosts)  # type: ignore[arg-type]  # writes boosts[token] += boost
            values = values.copy()
            where = {int(t): k for k, t in enumerate(ids)}
            for token, boost in boosts.items():
                if token in where:
                    values[where[token]] += boost
            outside = np.array([t for t in boosts if t not in where], dtype=ids.dtype)
            outside = outside[~self._forbidden(seq, outside)]
            if outside.size:
                ids = np.concatenate([ids, outside])
                values = np.concatenate([values, row[outside].astype(np.float64) + [boosts[int(t)] for t in outside]])
            order = np.argsort(-values, kind="stable")
            ids, values = ids[order], values[order]
            above = values >= floor  # below the pool, tokens outside it may rank higher: not a prefix
            ids, values = ids[above], values[above]
        return ids, values

    def _forbidden(self, seq: _Seq, ids: np.ndarray) -> np.ndarray:
        """Which of ``ids`` ``seq`` may not write: control tokens, its bans, the ``fields`` constraint."""
        assert self._control_mask is not None
        bad = self._control_mask[ids]
        if seq.banned.size:
            bad |= np.isin(ids, seq.banned)
        if seq.fields > 0:  # exactly `fields` "|"-separated fields: no early end, no extra "|"
            bad |= np.isin(ids, self._end_ids if seq.text.count("|") < seq.fields - 1 else self._pipe_ids)
        return bad

    def _allowed_in_row(self, seq: _Seq, row: np.ndarray, rejected: list[int],
                        top_k: int) -> tuple[list[int], list[float]]:
        """The best ``top_k`` tokens of the whole masked ``row`` that pass the guard, and their values."""
        assert self._control is not None
        masked = row.astype(np.float64)
        if seq.keep:
            self._boost_keeps(seq, masked)
        masked[self._control] = -np.inf
        if seq.banned.size:
            masked[seq.banned] = -np.inf
        if seq.fields > 0:
            masked[self._end_ids if seq.text.count("|") < seq.fields - 1 else self._pipe_ids] = -np.inf
        masked[rejected] = -np.inf
        tail = trailing_word(seq.text)
        allowed: list[int] = []
        for token in np.argsort(-masked, kind="stable").tolist():
            if not np.isfinite(masked[token]):
                break
            if self._passes(seq, tail, token):
                allowed.append(token)
                if len(allowed) == top_k:
                    break
        return allowed, [float(masked[t]) for t in allowed]

    def _passes(self, seq: _Seq, tail: str, token: int) -> bool:
        assert self._eog is not None
        return bool(self._eog[token]) or self._ok(seq, tail, token)

    def _ok(self, seq: _Seq, tail: str, token: int) -> bool:
        assert self._pieces_bytes is not None
        if not seq.guard.bans:
            return True
        piece, _ = _decode_partial(seq.pending + self._pieces_bytes[token])
        return seq.guard.allows(tail, piece)

    def _advance(self, seq: _Seq, token: int, max_tokens: int) -> None:
        assert self._pieces_bytes is not None and self._eog is not None
        seq.advance(token, self._pieces_bytes[token], bool(self._eog[token]), max_tokens)

    # ------------------------------------------------------------------ scoring

    def logprob(self, prompt: Prompt | Sequence[int], continuation: Sequence[int]) -> float:
        return self.logprobs([(prompt, continuation)])[0]

    def logprobs(self, items: Sequence[tuple[Prompt | Sequence[int], Sequence[int]]]) -> list[float]:
        """Mean log-probability of each continuation; prompts sharing a prefix reuse its cache."""
        return self._score(items)[0]

    def token_logprobs(self, items: Sequence[tuple[Prompt | Sequence[int], Sequence[int]]]) -> list[list[float]]:
        """Log-probability of each continuation token (one list per item, in token order), in the same
        batches as :meth:`logprobs`, whose mean is the mean of these values."""
        per_token = self._score(items, per_token=True)[1]
        return [per_token.get(i, []) for i in range(len(items))]

    def _score(self, items: Sequence[tuple[Prompt | Sequence[int], Sequence[int]]], *, per_token: bool = False
               ) -> tuple[list[float], dict[int, list[float]]]:
        """Mean log-probabilities (and, with ``per_token``, each token's) of the continuations."""
        items = [(as_prompt(prompt), continuation) for prompt, continuation in items]
        results: list[float] = [float("nan")] * len(items)
        tokens: dict[int, list[float]] = {}
        by_prefix: dict[tuple[int, ...], list[int]] = {}
        for i, (prompt, continuation) in enumerate(items):
            if not continuation:
                raise ValueError("an empty continuation has no log-probability")
            if len(prompt) + len(continuation) > self._n_ctx - 1:
                raise ContextTooSmall.from_code("E383",
                                                problem="prompt + continuation "
                                                        f"({len(prompt) + len(continuation)} tokens) exceed the "
                                                        f"context ({self._n_ctx})")
            by_prefix.setdefault(prompt.prefix, []).append(i)
        try:
            for prefix, indices in by_prefix.items():
                if prefix:
                    self._ensure_prefix(prefix)
                self._score_with_prefix(prefix, [(i, items[i][0].suffix, items[i][1]) for i in indices],
                                        results, per_token=tokens if per_token else None)
        finally:
            for seq in range(_PROMPT_SEQ, _FIRST_WORK_SEQ + self.max_parallel):
                self._seq_rm(seq)
        return results, tokens

    def _score_with_prefix(self, prefix: tuple[int, ...],
                           items: Sequence[tuple[int, tuple[int, ...], Sequence[int]]],
                           results: list[float], *, per_token: dict[int, list[float]] | None = None) -> None:
        base = len(prefix)
        sums: dict[int, float] = {}
        pending: list[tuple[int, int, int, bool]] = []
        targets: list[tuple[int, int]] = []  # (item, target token) per output row
        owners: dict[int, int] = {}  # seq id → item whose last token is in the batch
        free = list(range(_FIRST_WORK_SEQ + self.max_parallel - 1, _FIRST_WORK_SEQ - 1, -1))

        def flush() -> None:
            if not pending:
                return
            self._decode(pending)
            rows = self._logits(len(targets)) if targets else None
            if rows is not None:
                peak = rows.max(axis=1)
                lse = peak + np.log(np.exp(rows - peak[:, None]).sum(axis=1))
                for r, (item, token) in enumerate(targets):
                    sums[item] = sums.get(item, 0.0) + float(rows[r, token] - lse[r])
                    if per_token is not None:  # rows come in token order within an item
                        per_token.setdefault(item, []).append(float(rows[r, token] - lse[r]))
            self.counters["scored_tokens"] += len(pending)
            pending.clear()
            targets.clear()
            for seq, _item in list(owners.items()):
                self._seq_rm(seq)
                free.append(seq)
            owners.clear()

        # a batch also has to fit in the KV cache beside the prefix
        limit = max(1, min(self.n_batch, self._n_ctx - base - 1))
        for item, suffix, continuation in items:
            tokens = list(suffix) + list(continuation)
            first_target = len(suffix) - 1  # the row that predicts continuation[0]
            if not free or len(pending) + len(tokens) > limit:
                flush()  # start the item on a fresh batch if it does not fit in this one
            seq = free.pop()
            if prefix:
                self._lib.llama_memory_seq_cp(self._mem, _PREFIX_SEQ, seq, -1, -1)
            for j, token in enumerate(tokens):
                if len(pending) == limit:
                    flush()  # this item is not in `owners` yet, so its sequence survives
                wants = first_target <= j < len(tokens) - 1
                pending.append((token, base + j, seq, wants))
                if wants:
                    targets.append((item, tokens[j + 1]))
            owners[seq] = item
        flush()
        for item, _suffix, continuation in items:
            results[item] = sums.get(item, 0.0) / len(continuation)


def as_prompt(prompt: Prompt | Sequence[int]) -> Prompt:
    """A :class:`Prompt`; a plain token list becomes one with nothing cached."""
    return prompt if isinstance(prompt, Prompt) else Prompt((), tuple(prompt))


def start_tokens(backend: Any) -> list[int]:
    """The model's begin-of-text token (or end-of-text, or a newline): what a whole text is scored after."""
    own = getattr(backend, "start_tokens", None)
    if callable(own):  # a backend that knows its own (the transformers one)
        return list(own())
    model = getattr(backend, "_model", None)
    if model is not None:
        for token in (model.token_bos(), model.token_eos()):
            if token >= 0:
                return [int(token)]
    return backend.tokenize("\n")


def text_logprobs(backend: Any, texts: Sequence[str]) -> list[float]:
    """Mean log-probability per token of each text after :func:`start_tokens`, in one ``logprobs`` call."""
    start = start_tokens(backend)
    return backend.logprobs([(start, backend.tokenize(text)) for text in texts])


def text_token_logprobs(backend: Any, texts: Sequence[str]) -> list[tuple[list[int], list[float]]]:
    """Each text's token ids and the log-probability of each token after :func:`start_tokens`, in one
    ``token_logprobs`` call (the per-token values whose mean :func:`text_logprobs` gives)."""
    start = start_tokens(backend)
    tokens = [backend.tokenize(text) for text in texts]
    values = backend.token_logprobs([(start, ids) for ids in tokens])
    return [(list(ids), list(lps)) for ids, lps in zip(tokens, values, strict=True)]


def text_token_scorer(model: str = "default", *,
                      n_threads: int | None = None) -> Callable[[Sequence[str]], list[tuple[list[int], list[float]]]]:
    """:func:`text_token_logprobs` on a loaded model; used by the fluency filter's ``shared-drop`` statistic."""
    return functools.partial(text_token_logprobs, LlamaBackend.load(model, n_threads=n_threads))


def text_scorer(model: str = "default", *, n_threads: int | None = None) -> Callable[[Sequence[str]], list[float]]:
    """:func:`text_logprobs` on a loaded model (``default``, ``small`` or a ``.gguf`` path); used by the
    fluency filter."""
    return functools.partial(text_logprobs, LlamaBackend.load(model, n_threads=n_threads))


def _free(ctx: Any, lib: Any, batch: Any) -> None:
    if batch is not None:
        try:
            lib.llama_batch_free(batch)
        except Exception:  # interpreter shutdown
            pass
    ctx.close()

