"""The contract every generator (paraphrase, rewrite, infill, baselines, plugins) follows.

A generator turns one :class:`GenerationRequest` into a :class:`GenerationResult`: ranked
:class:`Candidate` rewrites, and a note saying why there are none. A candidate tells the
projection stage (:mod:`paraspan.generate.project`) where the labelled spans went in one of
three ways, best first:

- ``structures``: the generator placed the structures itself (infill splices new spans in);
- ``mapping``: a source-token → output-token :class:`TokenMapping` (rule rewrites know it);
- neither: free text (a paraphrase), placed by the span aligner.

A generator declares what it can do in :class:`Capabilities`, and what more it offers by the
protocols it follows (:class:`BatchGenerator`, :class:`StagedGenerator`), so the pipeline never
guesses from attribute names. Generators are registered by name in :data:`generators` as
``"module:factory"`` strings (nothing heavy is imported to list them) and built from their
config block by :meth:`paraspan.registry.Registry.build`: the factory's typed keyword
parameters are its options. What the pipeline asks of a generator before building it (its code
versions, whether it reads the corpus, its nested blocks) a :class:`GeneratorFactory` answers.
Other packages register theirs under the entry point group ``paraspan.generators``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from paraspan.errors import ParaspanError
from paraspan.registry import Registry

if TYPE_CHECKING:
    from paraspan.corpus.schema import Sentence, Span, Structure

#: A character span ``[start, end)`` of the request text.
CharSpan = tuple[int, int]


@dataclass(frozen=True)
class Capabilities:
    """What a generator does, read by the pipeline.

    ``honours_ban``: no word of a banned span appears in a candidate, in any form (so an
    iteration can find a new anchor); a generator without it runs one iteration per structure.
    ``needs_structure``: it reads ``request.sentence`` (the annotated sentence); plain text gets
    no candidates. ``deterministic``: the same request gives the same candidates, so a retry
    with new samples is pointless. ``keeps_meaning``: a candidate means what its source means
    (paraphrases, rewrites); a generator that writes new content into the frame (infilling)
    does not, and the meaning check does not apply to its outputs (the pipeline records
    ``provenance["meaning"] = "new"``). ``retries``: how often an iteration with no output is
    tried again with new samples when the run does not say (``AugmentConfig.retries``): what a
    retry buys differs by generator (one sentence paraphrase in 12 samples is not the next 12's).
    """

    honours_ban: bool = False
    needs_structure: bool = False
    deterministic: bool = False
    keeps_meaning: bool = True
    retries: int = 1


@dataclass(frozen=True)
class GenerationRequest:
    """One sentence to rewrite.

    ``ban``: spans whose words (in any form) must not appear in a rewrite; ``ban_texts``: more
    words to ban that the text no longer holds (earlier iterations' anchors). ``keep``: spans
    whose text must appear verbatim in every rewrite. ``protect``: spans a generator must not
    push away from on its own (the labelled arguments: a paraphraser bans no word of them at
    random). ``sentence``/``structure``: the annotated
    sentence and the index of the structure being augmented (structure-aware generators read
    them). ``attempt``: 0, then 1, 2 … when an iteration is retried with new samples.
    """

    id: str
    text: str
    ban: tuple[CharSpan, ...] = ()
    keep: tuple[CharSpan, ...] = ()
    protect: tuple[CharSpan, ...] = ()
    n: int | None = None  # how many rewrites to return (None: the generator's default)
    ban_texts: tuple[str, ...] = ()
    sentence: Sentence | None = field(default=None, compare=False)
    structure: int | None = None
    attempt: int = 0
    iteration: int = 1
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def span_text(self, span: CharSpan) -> str:
        return self.text[span[0]:span[1]]


@dataclass(frozen=True)
class MappedToken:
    """One output token of a :class:`TokenMapping`, at ``[start, end)`` of the candidate text.

    ``src``: the source token it carries over (its form may be re-inflected); None for an
    inserted word. ``changed``: the carried word was replaced by a different lemma, so an anchor
    on it no longer has its predicate/LU. ``attach``: an inserted word that belongs with source
    token ``attach`` (a copied noun phrase standing in for a relative pronoun). ``marker``: an
    attached case marker (the "by" of a new passive agent): it joins arguments, not anchors.
    ``absorbs``: a deleted source token this one stands for in argument spans (the dropped "to" of
    "gave the keys to Anna" → "gave Anna the keys": the recipient's span "to Anna", headed by the
    "to", becomes "Anna" instead of being lost with its head). ``stop``: an inserted token that ends a
    sentence (a split's full stop), across which no span runs: the split of "Marta is a baker and
    has just opened a shop" had kept the copula's ARG2 (its head's subtree, the conjunct included) over "a
    baker. Marta has just opened …" (EWT dev, read 2026-11-28; example made up); it ends with the first sentence.
    ``copy``: an inserted copy of source token ``copy`` (the subject a split repeats): an argument of a
    predicate in the copy's sentence is the copy ("We liked it" has its own ARG0), not the original
    in the sentence before.
    """

    start: int
    end: int
    src: int | None = None
    changed: bool = False
    attach: int | None = None
    marker: bool = False
    absorbs: int | None = None
    stop: bool = False
    copy: int | None = None


@dataclass(frozen=True)
class TokenMapping:
    """Source tokens (character offsets and syntactic heads) and the output tokens they became."""

    source_tokens: tuple[CharSpan, ...]
    source_heads: tuple[int, ...]  # each source token's head (itself for a root)
    tokens: tuple[MappedToken, ...]

    def pairs(self) -> list[tuple[int, int]]:
        """``(source token, output token)`` for every carried-over token."""
        return [(t.src, j) for j, t in enumerate(self.tokens) if t.src is not None]


@dataclass
class Candidate:
    """One rewrite.

    ``scores`` are named numbers, larger = better unless the name says otherwise (the
    paraphraser uses ``forward``, ``backward`` and ``score``). ``structures``: the source's
    structures placed in ``text`` by the generator (same order; None where one was lost), or
    None. ``mapping``: see :class:`TokenMapping`. ``meta`` holds anything else (cluster,
    constraint set …); what other components read back (the rules applied, random bans, replaced
    words, ``keeps_anchor``: the chain goes on with the same bans) is written through
    :class:`paraspan.provenance.Generated` (``meta=Generated(rules=(name,)).meta(...)``).
    """

    text: str
    scores: dict[str, float] = field(default_factory=dict)
    structures: list[Structure | None] | None = None
    mapping: TokenMapping | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class GenerationResult:
    """Candidates for one request (best first), plus why there are none (``note``) and counters."""

    request: GenerationRequest
    candidates: list[Candidate]
    note: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Generator(Protocol):
    """Anything with ``capabilities`` and ``generate(request) -> GenerationResult``.

    An ``info`` dict (model names and versions), when present, is recorded in each output's
    provenance; a :class:`GeneratorFactory`'s code versions (:func:`code_versions`), in the run store.
    """

    capabilities: Capabilities

    def generate(self, request: GenerationRequest) -> GenerationResult: ...


@runtime_checkable
class BatchGenerator(Generator, Protocol):
    """A generator that answers many requests in one call (an LLM decodes them together)."""

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]: ...


@runtime_checkable
class StagedGenerator(Generator, Protocol):
    """A generator asked in :class:`Stage` s, each only for the requests no earlier stage answered
    (a cascade's members); ``stages()`` is None when it is to be asked all at once."""

    def stages(self) -> list[Stage] | None: ...


class GeneratorFactory:
    """A generator factory, with what the pipeline asks of it before it builds a generator.

    ``build``'s keyword parameters are the options (its name, signature, type hints and docstring
    are this object's). Subclass to answer more than the defaults: :meth:`check_options` (blocks
    nested in the options, checked with the run's config), :meth:`code_versions` and
    :meth:`reads_corpus`; a plain function registered as a factory answers the defaults.
    """

    def __init__(self, build: Callable[..., Any]) -> None:
        self.build = build
        functools.update_wrapper(self, build)

    def __call__(self, *args: Any, **options: Any) -> Any:
        return self.build(*args, **options)

    def check_options(self, options: Mapping[str, Any]) -> None:
        """Check what the registry's validation of ``options`` cannot (nested generator blocks)."""

    def code_versions(self, options: Mapping[str, Any]) -> Mapping[str, str]:
        """The versions of the code that writes the outputs with ``options`` (complete): see
        :func:`code_versions`."""
        return {}

    def reads_corpus(self, options: Mapping[str, Any]) -> bool:
        """Whether the generator built with ``options`` (complete) draws on the other sentences of
        its run: see :func:`reads_corpus`."""
        return False

    def relation(self, options: Mapping[str, Any]) -> str:
        """What its outputs are to their sources with ``options`` (complete): ``equivalence``,
        ``forward`` (more general) or ``reverse`` (more specific); the default check asks for it."""
        return "equivalence"


@dataclass
class Stage:
    """One turn of a staged round (a cascade's member, or one of a generator's own steps): the
    requests it is asked for (``asks``) and its candidates for them (``generate_batch``). The
    pipeline asks a generator's stages in order, each only for the chains no earlier stage gave an
    output (:meth:`paraspan.pipeline.loop.Augmenter._staged`)."""

    name: str
    asks: Callable[[GenerationRequest], bool]
    generate_batch: Callable[[Sequence[GenerationRequest]], list[GenerationResult]]


def require_anchor(structure: Structure, where: str) -> Span:
    """``structure``'s anchor; an error (E970) naming ``where`` when it has none (only anchored
    structures are rewritten)."""
    if structure.anchor is None:
        raise ParaspanError.from_code("E970", kind=structure.kind, label=structure.label, where=where)
    return structure.anchor


def add_stats(total: dict[str, Any], stats: Mapping[str, Any]) -> None:
    """Add the numbers of ``stats`` to ``total`` (nested dicts such as rejection counts are skipped)."""
    for key, value in stats.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            total[key] = total.get(key, 0) + value


def code_versions(factory: Callable[..., Any], options: Mapping[str, Any]) -> dict[str, str]:
    """The versions of the code ``factory`` would run with ``options`` (``{"rule:it-cleft": "17", …}``).

    A :class:`GeneratorFactory` names (``options`` complete, the factory's defaults filled in) each
    versioned piece of code whose changes change what it writes (the rewriter's rules). A run store
    records them, so a store written by older code is not resumed or reused as if it were this
    code's outputs. Any other factory: ``{}``.
    """
    from paraspan.registry import with_defaults

    if not isinstance(factory, GeneratorFactory):
        return {}
    return {str(k): str(v) for k, v in factory.code_versions(with_defaults(factory, options)).items()}


def reads_corpus(factory: Callable[..., Any], options: Mapping[str, Any]) -> bool:
    """Whether the generator ``factory`` builds with ``options`` draws on the other sentences of
    its run (a donor pool filled from the sentences it is given), so that a sentence's outputs
    depend on which corpus or subset it was augmented with.

    A :class:`GeneratorFactory` says so (``options`` complete). A store of such a generator's
    outputs serves only the sentences it was run on: reused for another subset, it would hand
    that subset outputs made from sentences outside it.
    """
    from paraspan.registry import with_defaults

    if not isinstance(factory, GeneratorFactory):
        return False
    return bool(factory.reads_corpus(with_defaults(factory, options)))


#: Generators by name. Values are factories whose keyword parameters are their options.
generators: Registry[Any] = Registry("generators")
generators.register("paraphrase", "paraspan.generate.paraphrase:make_paraphraser",
                    "LLM paraphrases under negative/positive lexical constraints (ParaBank 2 style)")
generators.register("rewrite", "paraspan.generate.rewrite.generator:make_rewriter",
                    "rewrite rules over dependency parses with a token mapping (Woodsend & Lapata 2014)")
generators.register("infill", "paraspan.generate.infill.generator:make_infiller",
                    "sister-LU replacement + FE-span infilling + FE-type filter (Cui & Swayamdipta 2024)")
generators.register("token_replace", "paraspan.generate.baselines.donors:make_token_replacer",
                    "label-wise token replacement from a donor pool (Dai & Adel 2020)")
generators.register("mention_replace", "paraspan.generate.baselines.donors:make_mention_replacer",
                    "mention replacement from a donor pool (Dai & Adel 2020)")
generators.register("synonym_replace", "paraspan.generate.baselines.lexical:make_synonym_replacer",
                    "WordNet synonyms outside the labelled spans, inflected")
generators.register("sister_lu", "paraspan.generate.baselines.lexical:make_sister_lu",
                    "sister-LU replacement of a FrameNet target, no infilling (Pancholy et al. 2021)")
generators.register("substitute", "paraspan.generate.substitute.generator:make_substituter",
                    "the LLM's contextual substitutes of the anchor, the rest of the sentence kept")
generators.register("elaborate", "paraspan.generate.elaborate:make_elaborator",
                    "more specific sentences: the LLM's relative clause after a noun phrase (reverse entailment)")
generators.register("generalize", "paraspan.generate.directions:make_generalizer",
                    "more general sentences: the rule rewriter's deletions of modifiers (forward entailment)")
generators.register("trained", "paraspan.generate.trained:make_trained",
                    "a LoRA adapter trained on the corpus fills masked spans and triggers (paraspan train-generator)")
generators.register("retrieve", "paraspan.generate.retrieve:make_retriever",
                    "fillers of the same slot from a training corpus, ranked by the base model (no decoding)")
generators.register("own-spans", "paraspan.generate.paraphrase_spans:make_span_generator",
                    "a sentence's own ban and keep spans made one request of an inner generator (paraspan paraphrase)")
generators.register("cascade", "paraspan.generate.cascade:make_cascade",
                    "several generators in one chain, in order (default: rewrite, then substitute)")
