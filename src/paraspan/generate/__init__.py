"""Generators: rewrites of a sentence, and where its labelled spans went.

- :mod:`.base`: the Generator contract (request, candidates, capabilities) and the registry;
- :mod:`.paraphrase`: constrained LLM paraphrasing (ParaBank 2) on the LLM runtime
  (:mod:`paraspan.llm`: llama.cpp);
- :mod:`.rewrite`: rewrite rules over dependency parses with a token mapping (Woodsend & Lapata);
- :mod:`.infill`: sister-LU replacement (:mod:`.sister_lu`) and FE infilling (Cui & Swayamdipta);
- :mod:`.baselines`: what users try first — label-wise token and mention replacement (Dai & Adel
  2020), WordNet synonym replacement, sister-LU replacement without infilling;
- :mod:`.project`: the one projection module — placed structures, token mappings or the aligner.

Importing this package is cheap; models load only when a generator is built.
"""

from paraspan.generate.base import Candidate, GenerationRequest, GenerationResult, Generator, generators

__all__ = ["Candidate", "GenerationRequest", "GenerationResult", "Generator", "generators"]
