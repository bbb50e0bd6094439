"""Facts kept: every number and name of the source is still in the output.

A paraphrase or rewrite that means what its source means keeps its numbers ("22 million", "1993",
"forty dollars"), number words and names ("North Korea", "Christmas", "U.S.", "Chairman"). Held-out
outputs that the NLI meaning check passed changed exactly these: "million" → "billion", "North
Korea" → "Korea", "Chairman" → "President", "U.S. citizen" → "the citizen". This check is lexical
and cheap: the source's protected words (:func:`paraspan.text.constraints.protected_words`:
numbers, number words, capitalised words after the first: a sentence's first word cannot be told
from a name) outside the structure's anchor (the
generator was asked to replace it) must occur in the output, compared case-insensitively with
dots removed ("U.S." = "US"), an acronym may be spelled out ("US" = "United States") and a decade
may lose its apostrophe ("90's" = "90s"). Outputs with new content (infilling, ``provenance["meaning"] ==
"new"``) are not compared.
"""

from __future__ import annotations

import re

from paraspan.corpus.schema import Sentence
from paraspan.filter.base import BaseFilter, FilterDecision, source_structure
from paraspan.text.constraints import WORD_RE, protected_words


def _norm(word: str) -> str:
    return word.lower().replace(".", "")


#: a decade's apostrophe ("the 90's" = "the 90s")
_DECADE = re.compile(r"(\d)['’]s\b")
#: words an acronym's expansion may have that its letters skip ("Department of the Interior")
_SKIPPED = frozenset({"of", "the", "for", "and", "de"})


def _expands(acronym: str, text: str) -> bool:
    """Whether ``text`` spells ``acronym`` ("US", "IAEA") out as capitalised words ("United States")."""
    letters = acronym.lower()
    words = [w for w in WORD_RE.findall(text) if w.lower() not in _SKIPPED]
    n = len(letters)
    return any(all(w[:1].isupper() for w in words[i:i + n]) and "".join(w[0] for w in words[i:i + n]).lower() == letters
               for i in range(len(words) - n + 1))


def missing_facts(source: Sentence, output: Sentence) -> list[str]:
    """The source's numbers and names (outside the anchor of the structure the output was made
    from) that the output lacks, in source order."""
    structure = source_structure(source, output)
    anchor = structure.anchor if structure is not None else None
    text = source.text
    if anchor is not None:  # the anchor's words were banned on purpose
        text = text[:anchor.start] + " " * (anchor.end - anchor.start) + text[anchor.end:]
    text = _DECADE.sub(r"\1s", text.replace(".", ""))  # "U.S." is one word, "US"
    wanted = protected_words(text)
    output_text = _DECADE.sub(r"\1s", output.text.replace(".", ""))
    have = {_norm(m.group()) for m in WORD_RE.finditer(output_text)}
    out: list[str] = []
    for match in WORD_RE.finditer(text):
        word = match.group()
        if word.lower() in wanted and _norm(word) not in have and word not in out:
            if len(word) >= 2 and word.isupper() and word.isalpha() and _expands(word, output_text):
                continue  # spelled out
            out.append(word)
    return out


class FactsFilter(BaseFilter):
    """Keep outputs that keep every number and name of their source (see the module docstring)."""

    def __init__(self, name: str = "facts") -> None:
        self.name = name

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        if (output.provenance or {}).get("meaning") == "new":
            return FilterDecision(True, None, "not compared: the generator writes new content")
        if source is None:
            return FilterDecision(True, None, "no source to compare with")
        lost = missing_facts(source, output)
        if lost:
            return FilterDecision(False, float(-len(lost)), f"lost {', '.join(repr(w) for w in lost[:4])}"
                                  + (f" and {len(lost) - 4} more" if len(lost) > 4 else ""), {"lost": lost})
        return FilterDecision(True, 0.0, "every number and name kept")


def facts_filter(record_as: str | None = None) -> FactsFilter:
    """The registered ``facts`` filter (see the module docstring)."""
    return FactsFilter(record_as or "facts")
