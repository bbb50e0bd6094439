"""Structure-conditioned generation (Cui & Swayamdipta 2024): sister-LU replacement + FE infilling.

For each FrameNet ``frame`` structure of a sentence whose target is a verb:

1. **Sister-LU replacement** (§2, after Pancholy et al. 2021). Pick target LUs of the same frame
   and part of speech (``targets="all"``, or only LUs FrameNet has no annotated sentences for:
   ``"unannotated"``), inflect each to the form of the original token (LemmInflect; a
   multiword LU inflects its first word: "took place" → "happened"), and move every span.
2. **Candidate FEs** (§3.1). An FE span is regenerated when the FE is core and either has no
   ``Agent`` or ``Self_mover`` among itself and its ancestors (FE inheritance), or is a
   prepositional phrase — the phrase type comes from FrameNet's PT layer when the span carries
   one (``extra["pt"]``), else from a spaCy parse (the span opens with a preposition).
3. **Infilling** (§3.2) with a local LLM: the sentence with candidate spans replaced by
   ``<mask>``, conditioned on nothing, on the FE names (``fe``) or on the frame, the LU and the
   definitions of the frame and FEs (``frame+fe``), after few-shot examples of the same frame
   taken from the corpus being augmented (or, in ``augment``, the sentences seen so far); each
   blank is named with the phrase type of the span it replaces (:func:`phrase_shape`, from a spaCy
   parse). ``candidates`` answers are sampled per target LU (overgenerate), each parsed strictly
   (``span | span``, one per blank); an answer that does not parse, or whose phrases do not keep
   their spans' phrase types, is dropped and counted. New spans are placed by offset.
4. **Filter** (§3.3). The FE-type classifier (:mod:`paraspan.filter.fe_classifier`) labels each
   generated span; FE fidelity is the share labelled as the FE it was meant to fill, and the
   strict filter keeps fidelity 1.0. The perplexity of each output under the same LLM is
   recorded, and the best ``keep`` outputs (lowest perplexity) per target LU are returned.

Each output is a new :class:`~paraspan.corpus.schema.Sentence` annotated for the one new LU
(a lexicographic instance, as in the paper), with ``source_id`` and ``provenance``
(``lu_from``, ``lu_to``, ``conditioning``, ``fe_fidelity``, ``perplexity`` …).
"""


from paraspan.generate.infill.fillers import (
    AGENTIVE,
    MASK,
    _fit_punctuation,
    candidate_fes,
    filler_problem,
    outside,
    parse_answer,
)
from paraspan.generate.infill.generator import (
    CONDITIONING,
    INSTRUCTION,
    SPLIT_MARK,
    SYSTEM_PROMPT,
    TARGETS,
    InfillConfig,
    Infiller,
    InfillResult,
    make_infiller,
)

__all__ = ["AGENTIVE", "CONDITIONING", "INSTRUCTION", "MASK", "SPLIT_MARK", "SYSTEM_PROMPT", "TARGETS", "InfillConfig",
           "InfillResult", "Infiller", "_fit_punctuation", "candidate_fes", "filler_problem",
           "make_infiller", "outside", "parse_answer"]
