"""A :class:`~paraspan.llm.backend.Backend` on llama.cpp (``llama-cpp-python``), CPU only.

Why not ``Llama.create_completion``: it evaluates the prompt for every call, samples one
sequence at a time, and in llama-cpp-python 0.3.36 silently drops both ``logit_bias`` and
``logits_processor`` when both are given. Instead this backend opens its own llama.cpp context
on the already-loaded model weights (no second copy in memory) with several sequences and a
unified KV cache, and then

* keeps the shared prompt prefix (system prompt + instruction) in sequence 0, evaluated once;
* evaluates each request's suffix once, into sequence 1;
* forks sequence 1 into up to ``max_parallel`` sequences (a KV-cache copy is just metadata)
  and decodes one token for every live sequence per ``llama_decode`` call — on a CPU this is
  several times the throughput of one sequence, because the weights are read once per step;
* samples in numpy: banned token ids → −inf, top-k, the :class:`WordGuard` check on the
  candidates, temperature, a seeded draw; the log-probability of the drawn token under the
  full distribution is recorded as it goes (the forward score costs nothing extra);
* scores continuations (the backward score) by packing many (prompt, continuation) pairs
  into one batch, asking for logits only where a continuation token is predicted.
"""


from paraspan.llm.llama_backend.backend import LlamaBackend
from paraspan.llm.llama_backend.sequences import (
    _FIRST_WORK_SEQ,
    _PREFIX_SEQ,
    _PROMPT_SEQ,
    ContextTooSmall,
    _decode_partial,
    _Keep,
    _Seq,
    as_prompt,
    keeps_for,
)
from paraspan.llm.llama_backend.texts import (
    start_tokens,
    text_logprobs,
    text_scorer,
    text_token_logprobs,
    text_token_scorer,
)

__all__ = ["_FIRST_WORK_SEQ", "_PREFIX_SEQ", "_PROMPT_SEQ", "ContextTooSmall", "LlamaBackend", "_Keep", "_Seq",
           "_decode_partial", "as_prompt", "keeps_for", "start_tokens", "text_logprobs", "text_scorer",
           "text_token_logprobs", "text_token_scorer"]
