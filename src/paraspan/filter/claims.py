"""The same claims: an equivalent paraphrase keeps what makes a sentence's claim hold or not.

A free paraphrase may reword every content word ("composed of" → "made up of"), so the content
check (:mod:`paraspan.filter.content`) is too strict for it, and the NLI judges pass what the
paraphraser changes. On held-out ``paraphrase --relation equivalence`` outputs the LLM judge
accepted counterfactuals made facts ("would have been" → "was"), modals swapped ("could fetch" →
"might be worth"), hedges dropped ("roughly 10%" → "an average of 10%"), quotations reworded and
the model's comments on its own output. This check is lexical:

- **Words that decide whether the claim holds** (negation, modals, hedges, "or"/"if", privative
  adjectives, downward quantifiers: :data:`paraspan.filter.content.NOT_MONOTONE` without the verbs
  of saying and believing, which have ordinary synonyms) must be the same in both sentences.
  Approximations are one class ("about 40" = "approximately 40"), and "about"/"around" count as
  one only before a number ("news about X" is a preposition).
- **Quotations** in the output must be the source's words in order.
- **No commentary**: the output may not talk about the sentence ("the paraphrase keeps …").

``verified`` and ``paraphrase --relation equivalence`` run it with the ``facts`` check (numbers
and names kept).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from paraspan.corpus.schema import Sentence
from paraspan.filter.base import BaseFilter, FilterDecision
from paraspan.text.constraints import NUMBER_WORDS

#: approximations, one class
_APPROXIMATELY = frozenset({"about", "around", "approximately", "roughly", "some"})
#: a number after "about"/"around"
_NUMBER = re.compile(r"^(\d[\d,.]*|" + "|".join(sorted(NUMBER_WORDS)) + r")$", re.I)
#: the model talking about its output
_COMMENTARY = re.compile(r"\b(paraphras\w*|rephras\w*|rewritten|rewrit\w*|the (original|phrase|sentence)|"
                         r"same meaning|original meaning)\b", re.I)


def deciding_words(text: str, lemmas: Callable[[str], frozenset[str]]) -> set[str]:
    """The lemmas of ``text`` that decide whether its claim holds (see the module docstring)."""
    from paraspan.filter.content import NOT_ASSERTING, NOT_MONOTONE, split_words

    words = split_words(text)
    out: set[str] = set()
    for i, word in enumerate(words):
        if i and word[:1].isupper():  # a name ("May"), not a modal
            continue
        found = lemmas(word) & (NOT_MONOTONE - NOT_ASSERTING)  # "said" → "stated" is fine
        if not found:
            continue
        if found & _APPROXIMATELY:
            following = words[i + 1] if i + 1 < len(words) else ""
            if word.lower() in ("about", "around", "some") and not _NUMBER.match(following):
                continue  # a preposition or a determiner, not an approximation
            out.add("≈")
            continue
        out |= found
    return out


class ClaimsFilter(BaseFilter):
    """Keep outputs that make their source's claims (see the module docstring)."""

    def __init__(self, name: str = "claims") -> None:
        self.name = name
        self._content = None

    def lemmas(self, word: str) -> frozenset[str]:
        if self._content is None:
            from paraspan.filter.content import ContentFilter

            self._content = ContentFilter()
        return self._content.lemmas(word)

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        if (output.provenance or {}).get("meaning") == "new":
            return FilterDecision(True, None, "not compared: the generator writes new content")
        if source is None:
            return FilterDecision(True, None, "no source to compare with")
        from paraspan.filter.contraction import cut_units

        problems = []
        if _COMMENTARY.search(output.text) and not _COMMENTARY.search(source.text):
            problems.append("comments on itself")
        src, out = deciding_words(source.text, self.lemmas), deciding_words(output.text, self.lemmas)
        for kind, words in (("dropped", src - out), ("added", out - src)):
            if words:
                problems.append(f"{kind} {', '.join(repr(w) for w in sorted(words)[:4])}: the claim changes")
        problems += [p for p in cut_units(source.text, output.text) if "quotation" in p]
        if problems:
            return FilterDecision(False, -float(len(problems)), "; ".join(problems))
        return FilterDecision(True, 0.0, "the same claims")


def claims_filter(record_as: str | None = None) -> ClaimsFilter:
    """The registered ``claims`` filter (see the module docstring)."""
    return ClaimsFilter(record_as or "claims")
