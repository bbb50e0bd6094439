"""Filters made of filters: ``all_of`` and the ``verified`` check (issue 21).

An :class:`AllOf` keeps an output that every part keeps. Its decision carries each part's
decision in ``details["parts"]`` (name → :class:`~paraspan.filter.base.FilterDecision`), so a
run records every check's decision, score and reason, not only the verdict; its reason is the
first failing part's, its score the lowest of the parts' scores.

``verified`` is the check every written output must pass: its labels (the span-label verifier,
``labels``), the shape of its argument spans (``spans``), its fluency against its source
(``fluency``), its numbers and names (``facts``), its content words (``content``: the source's
kept, none added, the anchor replaced by a synonym) and its meaning (the NLI relation both ways,
``relation``: equivalence by default, forward entailment as an option for rewrites that only
delete modifiers); for a directional relation also the order of the kept words (``contraction``:
each keeps its heads).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from paraspan.corpus.schema import Sentence
from paraspan.filter.base import Filter, FilterDecision, decide_all


class AllOf:
    """Keep what every part keeps (see the module docstring). With ``short_circuit`` the parts
    decide in order and an output one part rejects is not shown to the later ones (its
    ``details["parts"]`` holds the parts that decided): the verdict is the same, and the costly
    checks (an LLM's fluency) run only on what the cheap ones let through."""

    def __init__(self, parts: Sequence[Filter], name: str, short_circuit: bool = False) -> None:
        self.parts = list(parts)
        self.name = name
        self.short_circuit = short_circuit

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        return self.decide_batch([(output, source)])[0]

    def decide_batch(self, pairs: Sequence[tuple[Sentence, Sentence | None]]) -> list[FilterDecision]:
        by_part: list[dict[int, FilterDecision]] = []
        alive = list(range(len(pairs)))
        for part in self.parts:
            got = dict(zip(alive, decide_all(part, [pairs[i] for i in alive]), strict=True)) if alive else {}
            by_part.append(got)
            if self.short_circuit:
                alive = [i for i in alive if got[i].keep]
        out = []
        for i in range(len(pairs)):
            decisions = {part.name: got[i] for part, got in zip(self.parts, by_part, strict=True) if i in got}
            failed = [(name, d) for name, d in decisions.items() if not d.keep]
            scores = [d.score for d in decisions.values() if d.score is not None]
            reason = (f"{failed[0][0]}: {failed[0][1].reason}" if failed
                      else "passes " + ", ".join(decisions))
            out.append(FilterDecision(not failed, min(scores) if scores else None, reason, {"parts": decisions}))
        return out


def recorded_names(flt: Filter) -> list[str]:
    """The names ``flt``'s decisions are recorded under: a combined check's parts (theirs first,
    nested ones too), then its own (:func:`paraspan.filter.base.recorded`)."""
    names = [n for part in flt.parts for n in recorded_names(part)] if isinstance(flt, AllOf) else []
    return [*dict.fromkeys([*names, flt.name])]


def unjudged_rules(flt: Filter) -> frozenset[str]:
    """The rewrite rules whose outputs ``flt`` (or a part of it, when it combines checks) keeps
    without asking the NLI judges (the relation filter's ``unjudged_rules``)."""
    from paraspan.filter.relations import RelationFilter

    if isinstance(flt, AllOf):
        return frozenset().union(*(unjudged_rules(part) for part in flt.parts))
    return flt.unjudged_rules if isinstance(flt, RelationFilter) else frozenset()


def all_of(parts: list[str | dict[str, Any]], short_circuit: bool = False, record_as: str | None = None) -> AllOf:
    """``parts``: filter specs (see :func:`paraspan.filter.build_filter`); recorded as
    ``record_as`` (default: the parts' names joined by ``+``); ``short_circuit``: a rejected
    output is not shown to the later parts."""
    from paraspan.filter import build_filters

    built = build_filters(parts)
    return AllOf(built, record_as or "+".join(p.name for p in built), short_circuit)


def verified(labels: bool = True, verifier: str = "auto", frames: str | None = None, spans: bool = True,
             fluency: bool = True,
             fluency_model: str = "default", fluency_threshold: float | None = None,
             fluency_statistic: str | None = None, facts: bool | None = None, content: bool = True,
             meaning: tuple[str, ...] = ("equivalence",), judges: tuple[str, ...] = ("minilm-nli",),
             appeal: tuple[str, ...] = (), labels_relative: bool = True, threads: int | None = 1,
             short_circuit: bool = True, record_as: str | None = None,
             relation: Literal["equivalence", "forward", "reverse"] = "equivalence",
             unjudged_rules: tuple[str, ...] | None = None, new_content: bool = False) -> AllOf:
    """The ``verified`` check: labels (``verifier``, ``frames`` for the FrameNet lexicon), span
    shape (``spans``), fluency (``fluency_model``, ``fluency_statistic``: None = the filter's default,
    ``fluency_threshold``: None = the calibrated one), numbers and names kept (``facts``; None: except
    for ``relation="forward"``, whose outputs may drop them outside the labelled spans), content words
    kept and none added (``content``) and meaning
    (NLI relations in ``meaning``, both ways, by ``judges``, and ``appeal``'s judges asked again about
    what they refuse); ``meaning=()`` leaves it out. ``unjudged_rules``: rewrite rules whose outputs
    skip the NLI judges (None: :data:`~paraspan.filter.relations.ALTERNATION_RULES`, syntactic
    alternations the judges cannot tell right from wrong; ``[]``: judge every output).
    ``new_content``: keep the outputs of generators that write new content (infilling, token and
    mention replacement) without a meaning check; by default the meaning check refuses them, since
    nothing here tells whether their new phrases make sense (infilling was judged mostly wrong).
    ``labels_relative`` (default): a span label the verifier fails on the gold source too (same
    words, kind and label) does not count against the output (judged on FrameNet exemplars: 13 of
    15 outputs it let through right, the same rate as the rest; benchmarks/README.md, "Verified
    augmentation per generator").
    ``short_circuit`` (default): an output a check rejects is not shown to the later, costlier ones.
    ``relation``: what an output may be to its source, ``equivalence``, ``forward`` (more general) or
    ``reverse`` (more specific), for the content check and, when ``meaning`` is left at its default
    (``("equivalence",)``), the NLI class accepted (``forward_entailment``, ``reverse_entailment``)."""
    if relation != "equivalence" and tuple(meaning) == ("equivalence",):
        meaning = (f"{relation}_entailment",)
    if facts is None:
        # a more general sentence may drop a date or a name ("In October 2002, a delegation …"); the
        # content check keeps those of the labelled spans and refuses a dropped hedge or negation
        facts = relation != "forward"
    # cheapest first: with ``short_circuit`` an output the lexical checks reject costs no model call
    parts: list[Mapping[str, Any]] = []
    if spans:
        parts.append({"name": "spans"})
    if facts:
        parts.append({"name": "facts"})
    if content:
        parts.append({"name": "content", **({"relation": relation} if relation != "equivalence" else {})})
        if relation != "equivalence":  # a directional output may drop or add words, not rearrange them
            parts.append({"name": "contraction", "relation": relation})
    if labels:
        parts.append({"name": "labels", "verifier": verifier, "frames": frames,
                      **({"relative": True} if labels_relative else {})})
    if meaning:
        if unjudged_rules is None:
            from paraspan.filter.relations import ALTERNATION_RULES

            unjudged_rules = ALTERNATION_RULES
        parts.append({"name": "relation", "accept": list(meaning), "judges": list(judges), "threads": threads,
                      **({"appeal": list(appeal)} if appeal else {}),
                      **({"unjudged_rules": list(unjudged_rules)} if unjudged_rules else {}),
                      **({"new_content": True} if new_content else {})})
    if fluency:
        parts.append({"name": "fluency", "model": fluency_model, "threshold": fluency_threshold,
                      **({"statistic": fluency_statistic} if fluency_statistic else {}),
                      "threads": threads})
    from paraspan.filter import build_filters

    return AllOf(build_filters([dict(p) for p in parts]), record_as or "verified", short_circuit)
