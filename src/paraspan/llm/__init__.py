"""The LLM runtime that generators and filters share: prompts, batched constrained sampling, scoring.

- :mod:`.backend`: the :class:`~paraspan.llm.backend.Backend` protocol (chat prompts split into a
  cached prefix and a suffix, groups of samples under ban sets, log-probabilities of continuations);
- :mod:`.llama_backend`: its llama.cpp implementation on a packaged GGUF model
  (:func:`paraspan.models.load_llm`), and :func:`~paraspan.llm.llama_backend.text_logprobs`, the
  per-token log-likelihood of whole texts (perplexity for infill, fluency for the filter).

It sits below :mod:`paraspan.generate` and :mod:`paraspan.filter` and imports neither.
"""
