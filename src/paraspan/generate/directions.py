"""Directions as generators of their own: what bears a relation to its source by construction.

``forward`` (the output is more general, entailed by its source): the rule rewriter's deletions of
modifiers, registered as the ``generalize`` generator. ``reverse`` (more specific): relative clauses
the LLM inserts after a noun phrase, the ``elaborate`` generator (:mod:`paraspan.generate.elaborate`).
``equivalence``: the rule rewriter's ``reliable`` families (the ``rewrite`` generator). The sentence
paraphraser (``paraphrase``) asks the LLM itself, in whichever direction it is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paraspan.generate.base import GeneratorFactory

#: the rewriter's rule families whose rewrites bear the relation to their source (equivalence: the
#: ``reliable`` preset, those of the ``cascade``'s rewrite member: voice is left out there, where
#: active/passive rewrites were judged wrong more often than the others)
RULE_FAMILIES = {"equivalence": "reliable",
                 # deletions of modifiers: adverbs, appositives, non-restrictive relative clauses,
                 # modifiers set off by commas or before the subject
                 "forward": "compression"}
#: rules of those families left out. Over every judged forward run (benchmarks/HISTORY.md,
#: "Directional paraphrases") a dropped adjective was in class 68 times in 101: its errors are lexical
#: (a fixed term, a contrast, a partitive, an ordinal), which no parse shows; the other deletions 97 in 108
RULES_LEFT_OUT = {"forward": ("delete-adjective",)}
#: relations whose rule candidates are insertions the LLM writes at places the parse chooses
#: (:mod:`paraspan.generate.elaborate`: a relative clause after a noun phrase, for reverse)
INSERTIONS = ("reverse",)


def relation_rules(relation: str) -> Any:
    """The rule rewriter's rules whose rewrites bear ``relation`` to their source
    (:data:`RULE_FAMILIES` less :data:`RULES_LEFT_OUT`)."""
    from paraspan.generate.rewrite.rules import RuleSet

    return RuleSet.default().only(RULE_FAMILIES[relation]).without(RULES_LEFT_OUT.get(relation, ()))


def relation_rewriter(relation: str, max_per_sentence: int | None = None) -> Any:
    """A rule rewriter of :func:`relation_rules`, without WordNet synonyms (a synonym may change the
    meaning, so its rewrite would not bear the relation for sure)."""
    from paraspan.generate.rewrite import Rewriter

    return Rewriter(relation_rules(relation), max_lexical=0, max_per_sentence=max_per_sentence)


class GeneralizerFactory(GeneratorFactory):
    """The ``generalize`` generator's factory: forward outputs, and the versions of the rules it applies."""

    def relation(self, options: Mapping[str, Any]) -> str:
        return "forward"

    def code_versions(self, options: Mapping[str, Any]) -> dict[str, str]:
        from paraspan.generate.rewrite.generator import REWRITER_VERSION

        return {"rewriter": REWRITER_VERSION, **{f"rule:{r.name}": r.version for r in relation_rules("forward").rules}}


@GeneralizerFactory
def make_generalizer(n: int = 5) -> Any:
    """The registered ``generalize`` generator: more general sentences (forward entailments), the rule
    rewriter's deletions of modifiers without adjectives (:func:`relation_rewriter`), at most ``n``
    per sentence. ``paraspan augment``'s default ``verified`` check asks for forward entailment."""
    return relation_rewriter("forward", max_per_sentence=n)
