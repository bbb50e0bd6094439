"""A sentence's own spans to ban and to keep as a generator's request: ``paraspan paraphrase`` through the pipeline.

``paraspan paraphrase`` reads sentences with character spans to ban and spans to keep, not labelled structures;
the pipeline's loop rewrites a structure and bans its anchor. :func:`span_sentence` gives such a sentence one
structure anchored on its whole text, with those spans as its arguments (labelled :data:`BAN` and :data:`KEEP`).
:class:`SpanGenerator` (``--generator own-spans``) hands its inner
generator, a registered one (``paraphrase``, ``rewrite``, ``generalize``, ``elaborate`` …), the request those
spans make of the sentence as plain text, and places the structure over each whole candidate: the loop then
neither bans the text nor aligns it, and the inner generator is asked what ``paraspan paraphrase`` asked it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import ParaspanError
from paraspan.generate.base import (
    BatchGenerator,
    Capabilities,
    GenerationRequest,
    GenerationResult,
    GeneratorFactory,
)

#: the labels of a span sentence's arguments: words never to use, phrases to keep verbatim
BAN, KEEP = "ban", "keep"
#: the structure a span sentence has (a kind every run augments; the label names what it stands for)
KIND, LABEL = "event", "sentence"
#: the inner generator when the block names none
DEFAULT_INNER: dict[str, Any] = {"name": "paraphrase"}


def span_sentence(sid: str, text: str, ban: Sequence[tuple[int, int]] = (),
                  keep: Sequence[tuple[int, int]] = ()) -> Sentence:
    """``text`` with its ``ban`` and ``keep`` spans as a sentence of one structure over the whole text (none
    for a blank text, which has nothing to paraphrase: the loop skips it)."""
    if not text.strip():
        return Sentence(sid, text)
    args = [Span(s, e, BAN) for s, e in ban] + [Span(s, e, KEEP) for s, e in keep]
    return Sentence(sid, text, [Structure(KIND, LABEL, Span(0, len(text)), args)])


@dataclass
class SpanGenerator:
    """``inner`` asked with each span sentence's own ban and keep spans (see the module docstring)."""

    inner: Any
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def capabilities(self) -> Capabilities:
        return self.inner.capabilities  # type: ignore[no-any-return]

    def generate(self, request: GenerationRequest) -> GenerationResult:
        return self.generate_batch([request])[0]

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        """The inner generator's results for the requests the spans make (in one batch where it takes one),
        each candidate's structure placed over its whole text."""
        asked = [_spans_request(r) for r in requests]
        if isinstance(self.inner, BatchGenerator):
            got = list(self.inner.generate_batch(asked))
        else:
            got = [self.inner.generate(r) for r in asked]
        for one in got:
            for cand in one.candidates:
                whole = Structure(KIND, LABEL, Span(0, len(cand.text))) if cand.text.strip() else None
                cand.structures = [whole]
        return [GenerationResult(request, one.candidates, one.note, one.stats)
                for request, one in zip(requests, got, strict=True)]


def _spans_request(request: GenerationRequest) -> GenerationRequest:
    """The request ``paraspan paraphrase`` makes of a span sentence: its ban and keep spans, the text without
    its structure (so no generator protects or bans the whole-text anchor); a request without a sentence as
    it is."""
    sentence, index = request.sentence, request.structure
    if sentence is None or index is None:
        return request
    args = sentence.structures[index].args
    return GenerationRequest(sentence.id, request.text, ban=tuple((a.start, a.end) for a in args if a.label == BAN),
                             keep=tuple((a.start, a.end) for a in args if a.label == KEEP), n=request.n,
                             ban_texts=request.ban_texts, attempt=request.attempt, iteration=request.iteration)


class SpanGeneratorFactory(GeneratorFactory):
    """The span generator's factory: what the pipeline asks of it is its inner generator's answer."""

    def check_options(self, options: Mapping[str, Any]) -> None:
        name, values = _inner_block(options)
        factory = _inner_factory(name)
        if isinstance(factory, GeneratorFactory):
            factory.check_options(values)

    def code_versions(self, options: Mapping[str, Any]) -> dict[str, str]:
        from paraspan.generate.base import code_versions

        name, values = _inner_block(options)
        return code_versions(_inner_factory(name), values)

    def reads_corpus(self, options: Mapping[str, Any]) -> bool:
        from paraspan.generate.base import reads_corpus

        name, values = _inner_block(options)
        return reads_corpus(_inner_factory(name), values)

    def relation(self, options: Mapping[str, Any]) -> str:
        from paraspan.registry import with_defaults

        name, values = _inner_block(options)
        factory = _inner_factory(name)
        return factory.relation(with_defaults(factory, values)) if isinstance(factory, GeneratorFactory) \
            else "equivalence"


@SpanGeneratorFactory
def make_span_generator(generator: dict[str, Any] | None = None, model: str | None = None,
                        device: str | None = None, seed: int = 0, threads: int | None = 1) -> SpanGenerator:
    """A :class:`SpanGenerator` around ``generator``, a registered generator's block (``{"name": …, options
    …}``; default ``paraphrase``); ``model``, ``device``, ``seed`` and ``threads`` go to it where it takes
    them and its block leaves them out."""
    name, values = _inner_block({"generator": generator, "model": model, "device": device, "seed": seed,
                                 "threads": threads})
    inner = _inner_factory(name)(**values)
    return SpanGenerator(inner, {"inner": name, **dict(getattr(inner, "info", None) or {})})


def _inner_factory(name: str) -> Any:
    from paraspan.generate.base import generators

    return generators.get(name)


def _inner_block(options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The inner generator's name and validated options, with the run-level values it takes and its block
    leaves out."""
    from paraspan.generate.base import generators
    from paraspan.registry import factory_options

    block = options.get("generator")
    block = dict(DEFAULT_INNER if block is None else block) if isinstance(block, (dict, type(None))) else block
    if not isinstance(block, dict) or not isinstance(block.get("name"), str):
        raise ParaspanError.from_code("E880", option="generator.generator", rule="a generator block with a name",
                                      value=block, fix='e.g. --set \'generator.generator={"name": "paraphrase"}\'')
    name = block.pop("name")
    run = {k: options.get(k) for k in ("model", "device", "seed", "threads")}
    run_level = {k: v for k, v in run.items() if v is not None and k in factory_options(_inner_factory(name))}
    return name, generators.validate(name, block, run_level)
