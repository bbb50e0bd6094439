"""Generators: produce rewrites of a sentence (paraphrase now; rewrite and infill later).

Importing this package is cheap; models load only when a generator is built. See
:mod:`paraspan.generate.base` for the contract and :data:`paraspan.generate.base.generators`
for the registry.
"""

from paraspan.generate.base import Candidate, GenerationRequest, GenerationResult, Generator, generators

__all__ = ["Candidate", "GenerationRequest", "GenerationResult", "Generator", "generators"]
