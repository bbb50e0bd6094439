"""A :class:`~paraspan.llm.backend.Backend` on Hugging Face transformers (PyTorch): GPU or CPU.

For users with a GPU, or with a model in Hugging Face format. It loads ``hf:ORG/NAME`` from the
local Hugging Face cache (never from the network), a local model folder (``config.json``,
tokenizer, weights), or a ``.gguf`` file through transformers' GGUF support (dequantised on
load; needs the ``gguf`` and ``accelerate`` packages); packaged names (``default``, ``small``)
resolve to their GGUF files.

It samples exactly like :class:`~paraspan.llm.llama_backend.LlamaBackend`, so the two are
interchangeable under :class:`~paraspan.generate.paraphrase.Paraphraser`:

* the prompt prefix (system prompt + instruction) is evaluated once and its KV cache kept;
  each request evaluates only its suffix, once, whatever the number of samples;
* all samples of all groups of a request decode together: the prompt's KV cache is repeated
  for every row and each step is one KV-cached forward of the whole batch. Rows need no padding
  (one prompt per request: every row has the same length); finished rows are dropped from the
  batch once half of it has finished;
* per step, on the device: the log-normaliser of the raw distribution (the forward score is
  the model's own log-probability at temperature 1, whatever the masks and boosts), boosts for
  kept phrases (:class:`~paraspan.llm.backend.SampleGroup` ``keep``), the ban mask (the
  ``bad_words_ids`` of :func:`~paraspan.text.constraints.banned_token_ids`, plus control tokens
  and the ``fields`` format constraint), and the top ``k + 16`` candidates. Only those
  candidates go to the host, where :class:`~paraspan.text.constraints.WordGuard` checks them in
  order (the per-step logits processor) and a generator seeded by ``(seed, sample index)``
  draws one — so a sample does not depend on which other samples share its batch;
* scoring packs many (prompt, continuation) pairs into right-padded batches on top of the
  cached prefix: with causal attention, real tokens never see the padding, so no attention
  mask is needed and positions stay exact.
"""

import os
from typing import Any

from paraspan.llm.hf_backend.backend import TransformersBackend
from paraspan.llm.hf_backend.models import (
    BACKENDS,
    DEVICES,
    ModelSource,
    hf_cache_folder,
    locate_model,
    pick_backend,
    resolve_device,
)
from paraspan.llm.hf_backend.vocab import token_pieces
from paraspan.llm.llama_backend import LlamaBackend

__all__ = ["BACKENDS", "DEVICES", "ModelSource", "TransformersBackend", "hf_cache_folder", "load_backend",
           "locate_model", "pick_backend", "resolve_device", "token_pieces"]


def load_backend(model: str | os.PathLike[str] = "default", *, backend: str = "auto", device: str = "auto",
                 seed: int = 0, n_ctx: int = 4096, n_threads: int | None = None, parallel: int = 32) -> Any:
    """A loaded :class:`~paraspan.llm.backend.Backend` for ``model`` (see :func:`pick_backend`).

    ``parallel``: samples decoded together; ``n_threads``: CPU threads (llama.cpp's, or torch's on a CPU).
    """
    if pick_backend(model, backend, device) == "transformers":
        return TransformersBackend.load(model, device=device, seed=seed, n_ctx=n_ctx, max_batch=max(parallel, 1),
                                        n_threads=n_threads)
    return LlamaBackend.load(str(model), n_threads=n_threads, seed=seed, n_ctx=n_ctx, max_parallel=parallel)

