"""Output filters: which augmentation outputs to keep, each decision with a reason.

Every filter follows one contract (:mod:`paraspan.filter.base`): ``decide(output, source) ->
FilterDecision(keep, score, reason)``, plus ``decide_batch`` for model-backed ones. They are
built by name from :data:`filters`, a registry of factories whose typed keyword parameters are
their options (spaCy-style; see :mod:`paraspan.registry`). Targets are ``"module:attr"``
strings, so listing or validating the filters imports no model code.

:func:`build_filter` reads a spec:

- a mapping ``{"name": FACTORY, **options}``, e.g. ``{"name": "relation", "accept":
  ["equivalence", "forward_entailment"], "judges": ["minilm-nli", "llm"]}``;
- the same mapping written as JSON (``'{"name": "verified", "new_content": true}'``: what a
  command's ``--filter`` takes);
- a registered name (``"relation"``): that factory with its defaults;
- ``"learned:PATH"``: the learned filter in the ``train-filter`` model file PATH;
- any other string: a threshold preset or rule (``"lax"``, ``"iteration<=2&aligner>=0.9"``,
  ``"lax&min_span>=0.5"``; see :mod:`paraspan.filter.thresholds`), recorded under the string.

A filter's ``name`` is what a run store records its decisions under (the factories take
``record_as`` to choose another). Adding a filter takes one module and one registry line:
``filters.register("mine", "mypkg.module:factory")``, or an entry point in the group
``paraspan.filters``.

Modules: ``base`` (the contract), ``thresholds`` (presets and rules), ``learned`` (the
``train-filter`` MLP), ``relations`` (NLI relations both ways), ``judges`` (the NLI judges),
``nli_train`` (the ``minilm-nli`` cross-encoder), ``fe_classifier`` / ``fe_tune`` (the
FE-type classifier the infill generator uses).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter.base import BaseFilter, BatchFilter, Filter, FilterDecision, decide_all, record
from paraspan.filter.thresholds import PRESETS, RECORDED
from paraspan.registry import Registry

__all__ = ["RECORDED", "BaseFilter", "BatchFilter", "Filter", "FilterDecision", "build_filter", "build_filters",
           "decide_all", "filters", "split_by"]

#: Filter factories by name; each factory's keyword parameters are its options.
filters: Registry[Callable[..., Filter]] = Registry("filters")
filters.register("threshold", "paraspan.filter.thresholds:threshold_filter",
                 "a preset or rule over iteration, paraphrase NLL and aligner scores (Table 4)")
filters.register("learned", "paraspan.filter.learned:learned_filter",
                 "a `train-filter` model: the 2x10 MLP over (iteration, NLL, aligner score) or the checks' scores")
filters.register("facts", "paraspan.filter.facts:facts_filter",
                 "keep outputs that keep every number and name of their source (outside the anchor)")
filters.register("content", "paraspan.filter.content:content_filter",
                 "keep outputs that keep every content word of their source and add none (outside the anchor)")
filters.register("contraction", "paraspan.filter.contraction:contraction_filter",
                 "keep directional outputs whose kept words keep their heads (rearranged, not only shortened)")
filters.register("claims", "paraspan.filter.claims:claims_filter",
                 "keep outputs with their source's negations, modals, hedges and quotations, and no commentary")
filters.register("relation", "paraspan.filter.relations:relation_filter",
                 "keep rewrites whose NLI relation to their source is in `accept` (default: equivalence)")
filters.register("spans", "paraspan.filter.spans:spans_filter",
                 "keep outputs whose argument spans are whole phrases that leave the anchor alone")
filters.register("all_of", "paraspan.filter.combine:all_of", "keep what every one of `parts` keeps")
filters.register("verified", "paraspan.filter.combine:verified",
                 "labels (span-label verifier), fluency against the source and meaning (NLI both ways), all kept")
filters.register("labels", "paraspan.filter.verifier:labels_filter",
                 "keep outputs whose every span label the span-label verifier accepts")
filters.register("fluency", "paraspan.filter.fluency:fluency_filter",
                 "keep outputs whose mean token log-prob under the LLM is within a calibrated margin of their source's")

LEARNED_PREFIX = "learned:"


def _grammar() -> str:
    return (f"name a filter ({', '.join(filters.names())}; with options as {{name: FILTER, option: value}}), "
            f"learned:PATH, a preset ({', '.join(PRESETS)}) or a rule FIELD OP NUMBER "
            "(e.g. iteration<=2&aligner>=0.9), presets and rules joined by &")


def build_filter(spec: str | Mapping[str, Any]) -> Filter:
    """The filter a spec names (see the module doc for the grammar).

    Raises :class:`ParaspanError` naming the registered filters and the presets when the spec
    cannot be read, and naming the options when an option is unknown or of the wrong type.
    """
    if isinstance(spec, Mapping):
        options = dict(spec)
        name = options.pop("name", None)
        if not isinstance(name, str) or not name.strip():
            raise ParaspanError.from_code("E712", problem=f"the filter {dict(spec)!r} does not say which filter it is",
                                          fix=f"add name: one of {', '.join(filters.names())}")
        if name not in filters:
            if not options:  # {"name": "lax"} reads as "lax"
                return build_filter(name)
            raise ParaspanError.from_code("E712", problem=f"unknown filter {name!r}", fix=_grammar())
        return filters.build(name, options)
    if not isinstance(spec, str) or not spec.strip():
        raise ParaspanError.from_code("E712", problem=f"cannot read the filter {spec!r}", fix=_grammar())
    text = spec.strip()
    if text.startswith("{"):  # a mapping written as JSON, from a command's --filter
        import json

        try:
            mapping = json.loads(text)
        except ValueError as exc:
            raise ParaspanError.from_code("E712", problem=f"cannot read the filter {text!r} as JSON ({exc})",
                                          fix=_grammar()) from None
        if not isinstance(mapping, dict):
            raise ParaspanError.from_code("E712", problem=f"the filter {text!r} is no JSON object", fix=_grammar())
        return build_filter(mapping)
    if text in filters:
        return filters.build(text)
    if text.startswith(LEARNED_PREFIX):
        return filters.build("learned", {"path": text[len(LEARNED_PREFIX):]})
    try:
        return filters.build("threshold", {"rule": text})
    except ParaspanError as exc:
        if exc.code != "E711":
            raise
        # the same E711 message, with the whole spec grammar as the fix (not only the rule syntax)
        raise ParaspanError(exc.problem.message, _grammar(), code=exc.code) from None


def build_filters(specs: Iterable[str | Mapping[str, Any]]) -> list[Filter]:
    """The filters of ``specs`` in order; a spec given twice is built once (so a run's own
    rules may repeat :data:`RECORDED` presets). Two different specs whose filters have the
    same name are an error: their decisions would be recorded as one."""
    out: list[Filter] = []
    spec_of: dict[str, Any] = {}  # filter name -> the spec that built it
    for spec in specs:
        key = spec.strip() if isinstance(spec, str) else dict(spec)
        if isinstance(key, str) and spec_of.get(key) == key:
            continue  # built already (and not loaded twice: a learned model, a judge)
        flt = build_filter(spec)
        if flt.name in spec_of:
            first = out[[f.name for f in out].index(flt.name)]
            if spec_of[flt.name] == key or first == flt:  # the same filter, written another way
                continue
            raise ParaspanError.from_code("E713", name=flt.name, first=spec_of[flt.name], second=key)
        spec_of[flt.name] = key
        out.append(flt)
    return out


def split_by(spec: str | Mapping[str, Any], outputs: Iterable[Sentence], sources: Mapping[str, Sentence],
             *, batch: int = 64) -> Iterator[tuple[Sentence, FilterDecision]]:
    """Each output with the decision of filter ``spec`` (its source looked up by ``source_id``),
    deciding ``batch`` outputs at a time; the decision is recorded in the output's provenance
    (:func:`paraspan.filter.base.record`). For commands that write outputs without a run store."""
    flt = build_filter(spec)
    chunk: list[Sentence] = []

    def flush() -> Iterator[tuple[Sentence, FilterDecision]]:
        pairs = [(out, sources.get(out.source_id or "")) for out in chunk]
        for out, decision in zip(chunk, decide_all(flt, pairs), strict=True):
            record(out, flt.name, decision)
            yield out, decision
        chunk.clear()

    for output in outputs:
        chunk.append(output)
        if len(chunk) >= batch:
            yield from flush()
    if chunk:
        yield from flush()
