"""Sister-LU replacement (Pancholy et al. 2021; Cui & Swayamdipta 2024, §2).

A FrameNet target is replaced by another lexical unit of the same frame and part of speech,
inflected to the form of the original token ("sold" as sell.v → "traded" as trade.v; a multiword
LU inflects its first word: "took place" → "happened"), and every span of the structure moves
with the new offsets. Used by the infill generator (verbs, :func:`inflect_like`), and on its own
as a label-preserving baseline (``sister_lu`` in :mod:`paraspan.generate.baselines`, any part of
speech, :func:`inflect_lu_like`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paraspan.corpus.schema import Structure
from paraspan.generate.base import require_anchor
from paraspan.generate.project import splice

if TYPE_CHECKING:
    from paraspan.corpus.frame_index import LexUnit

#: Words before a verb that make an ambiguous -ed form a participle (VBN) rather than a past (VBD).
_PARTICIPLE_CUES = frozenset({"have", "has", "had", "having", "'ve", "'s", "'d", "be", "is", "are", "was", "were",
                              "been", "being", "am", "'re", "'m", "get", "gets", "got", "gotten", "getting"})

__all__ = ["inflect_like", "inflect_lu_like", "lemma_words", "replace_lu", "splice"]


def lemma_words(lu: LexUnit | str) -> list[str]:
    name = lu if isinstance(lu, str) else lu.name
    return name.rsplit(".", 1)[0].split()


def _verb_tag(word: str, lemma: str, before: str) -> str | None:
    """The Penn tag of ``word`` as a form of verb ``lemma`` (None: it is not one)."""
    from paraspan.models.inflect import inflections

    low = word.lower()
    table = inflections(lemma, "VERB")
    tags = [tag for tag, forms in table.items() if low in (f.lower() for f in forms)]
    if not tags and low == lemma.lower():
        tags = ["VB"]
    if not tags:
        return None
    if "VBD" in tags and "VBN" not in table:
        # LemmInflect lists no participle for a regular verb (it is its past): "was murdered" is one,
        # and an irregular sister must take its own ("was slain", "has taken"; judged fn-infill-v3, -v5:
        # "has took", "was slew")
        tags.append("VBN")
    if "VBD" in tags and "VBN" in tags:
        return "VBN" if before.lower() in _PARTICIPLE_CUES else "VBD"
    for tag in ("VBG", "VBZ", "VBD", "VBN", "VBP", "VB"):  # the most specific reading first
        if tag in tags:
            return tag
    return tags[0]


def inflect_like(anchor_text: str, lu_from: str, lu_to: str, before: str = "") -> str | None:
    """``lu_to`` in the form ``anchor_text`` has as ``lu_from`` ("sold", sell.v, trade.v → "traded").

    Multiword LUs inflect their first word and keep the rest. None when the anchor is not a form of
    ``lu_from`` that LemmInflect knows.
    """
    from paraspan.models.inflect import inflect

    src, dst = lemma_words(lu_from), lemma_words(lu_to)
    words = anchor_text.split()
    if not src or not dst or not words:
        return None
    tag = _verb_tag(words[0], src[0], before)
    if tag is None:
        return None
    # VBP is the base form (but for "be", below); LemmInflect has none for words it does not know
    head = dst[0] if tag in ("VB", "VBP") else inflect(dst[0], tag)
    if head is None:
        return None
    if dst[0] == "be" and tag == "VBP":  # LemmInflect's VBP of "be" is "am"; "are" is the common one
        head = "are" if before.lower() not in ("i",) else "am"
    out = " ".join([head, *dst[1:]])
    if anchor_text[:1].isupper():
        out = out[:1].upper() + out[1:]
    return out


def _form_tag(word: str, lemma: str, upos: str, tags: tuple[str, ...]) -> str | None:
    """The Penn tag (of ``tags``, base form first) of ``word`` as a form of ``lemma``, or None."""
    from paraspan.models.inflect import inflections

    low = word.lower()
    if low == lemma.lower():
        return tags[0]
    table = inflections(lemma, upos)
    return next((tag for tag in tags[1:] if low in (f.lower() for f in table.get(tag, ()))), None)


def _adjective_form(lemma: str, tag: str) -> str:
    """``lemma`` as JJ/JJR/JJS: its -er/-est form where English has one, else "more"/"most" X."""
    from paraspan.models.inflect import inflections

    if tag == "JJ":
        return lemma
    forms = inflections(lemma, "ADJ").get(tag)
    if forms:
        return forms[0]
    return ("more " if tag == "JJR" else "most ") + lemma


def inflect_lu_like(anchor_text: str, lu_from: str, lu_to: str, before: str = "") -> str | None:
    """``lu_to`` in the form ``anchor_text`` has as ``lu_from``, for any part of speech.

    Verbs as :func:`inflect_like`; nouns inflect their head word for number, the last one or the
    one before "of" ("critics" as critic.n, reviewer.n → "reviewers"; "weapons of mass
    destruction" → "atomic weapons"); adjectives their only word for degree ("strongest" as
    strong.a, powerful.a → "most powerful"); other LUs (adverbs, prepositions …) are replaced only
    in their base form. None when the anchor is not a form of ``lu_from`` (nor has as many words).
    """
    from paraspan.models.inflect import inflect
    from paraspan.text.lexical_units import lu_pos

    pos = lu_pos(lu_from)
    if pos == "v":
        return inflect_like(anchor_text, lu_from, lu_to, before)
    src, dst = lemma_words(lu_from), lemma_words(lu_to)
    words = anchor_text.split()
    if not src or not dst or len(words) != len(src):
        return None
    # the inflected word: the one that differs from the lemma (the last when none does)
    differ = [i for i, (w, s) in enumerate(zip(words, src, strict=True)) if w.lower() != s.lower()]
    if len(differ) > 1:
        return None
    at = differ[0] if differ else len(words) - 1
    if pos == "n":
        tag = _form_tag(words[at], src[at], "NOUN", ("NN", "NNS"))
        if tag is None:
            return None
        # the new head noun: before "of" ("weapons of mass destruction"), else the last word
        to = dst.index("of", 1) - 1 if "of" in dst[1:] else len(dst) - 1
        head = dst[to] if tag == "NN" else inflect(dst[to], "NNS")
        if head is None:
            return None
        out = " ".join([*dst[:to], head, *dst[to + 1:]])
    elif pos == "a" and len(src) == 1:
        tag = _form_tag(words[0], src[0], "ADJ", ("JJ", "JJR", "JJS"))
        if tag is None:
            return None
        out = " ".join([_adjective_form(dst[0], tag), *dst[1:]])
    elif not differ:
        out = " ".join(dst)
    else:
        return None
    if anchor_text[:1].isupper():
        out = out[:1].upper() + out[1:]
    return out


#: WordNet's verb frames with a direct object ("Somebody ----s something", "Somebody ----s somebody PP", …)
_OBJECT_FRAMES = frozenset({5, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21, 24, 25, 30, 31})


def takes_object(lemma: str) -> bool | None:
    """Whether WordNet lists a frame with a direct object for some sense of the verb ``lemma`` (a
    multiword LU: its first word); None when WordNet has no frame for it. A sister LU placed before
    an object it cannot take is not English ("acceded the Agreement", "presided the board": judged
    infill outputs); WordNet's frames are incomplete, so only a verb it knows counts as intransitive."""
    from paraspan.models.wordnet import load_wordnet

    word = lemma.split()[0].lower() if lemma.split() else ""
    frames = {frame for synset in load_wordnet().synsets(word, "v") for name in synset.lemmas()
              if name.name().lower() == word for frame in name.frame_ids()}
    return bool(frames & _OBJECT_FRAMES) if frames else None


def replace_lu(text: str, structure: Structure, lu_to: LexUnit, form: str) -> tuple[str, Structure]:
    """The text with the target replaced by ``form`` and the structure relabelled for ``lu_to``."""
    spans = [require_anchor(structure, "sister-LU replacement"), *structure.args]
    new_text, moved = splice(text, spans, [(structure.anchor, form)])
    anchor = moved[0]
    anchor.label = lu_to.name
    extra = {k: v for k, v in structure.extra.items() if k in ("frame_id", "status")}
    extra["lu_id"] = lu_to.id
    return new_text, Structure("frame", structure.label, anchor, moved[1:], extra)
