"""Training pairs from the rule rewriter: its equivalents and its deletions of modifiers, labelled by rule.

``paraspan relabel PAIRS --rules`` writes, for each distinct sentence of a pair file, the rewrites of the
rules that keep the meaning (``equivalence``: clefts, moved adverbials, genitives, splits) and of those that
delete a modifier (``forward_entailment``: the source entails the shorter sentence), in ``relabel``'s
format, so that ``train-generator --task paraphrase`` reads them beside NLI-labelled pairs. A deletion read
backwards teaches ``reverse``. No judge labels them: the rule is the label, and the training's word check
(``--checked-pairs``) still decides which directions are taught.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["RULE_RELATIONS", "rule_pairs"]

#: the relation a rule family's rewrites bear to their source, and the family's name in
#: :func:`paraspan.generate.directions.relation_rewriter`
RULE_RELATIONS = {"equivalence": "equivalence", "forward_entailment": "forward"}


def rule_pairs(sentences: Iterable[tuple[str, str]], max_per_sentence: int = 5) -> Iterator[dict[str, Any]]:
    """For each ``(id, text)``, the rule rewriter's rewrites as pair records (``id``, ``s1`` the sentence,
    ``s2`` the rewrite, ``relation``, ``judge: "rules"``, ``rules``), at most ``max_per_sentence`` a family."""
    from paraspan.generate.base import GenerationRequest
    from paraspan.generate.directions import relation_rewriter
    from paraspan.provenance import Generated

    rewriters = {relation: relation_rewriter(family, max_per_sentence=max_per_sentence)
                 for relation, family in RULE_RELATIONS.items()}
    for sid, text in sentences:
        for relation, rewriter in rewriters.items():
            for k, cand in enumerate(rewriter.generate(GenerationRequest(sid, text)).candidates):
                yield {"id": f"rules-{sid}-{relation[:3]}{k}", "s1": text, "s2": cand.text, "relation": relation,
                       "judge": "rules", "rules": list(Generated.of_meta(cand.meta).rules)}
