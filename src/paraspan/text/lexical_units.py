"""The lexical unit (LU) of an anchor in a rewrite: lemma, FrameNet part of speech, and where they came from.

A paraphrase puts a new word where the anchor was ("sold" → "traded"); as a FrameNet LU it is
``trade.v``. :class:`AnchorTagger` reads it from a spaCy parse of the rewrite (the syntactic
head's tag and lemma), falling back to the seed LU's part of speech when the parse has no
usable tag; a structure-aware generator that placed a known LU (infill's sister LU) is taken
at its word.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: FrameNet's LU suffixes (FrameNet 1.5 uses v n a adv prep num art c scon intj) → universal POS.
_POS = {"v": "VERB", "n": "NOUN", "a": "ADJ", "adj": "ADJ", "adv": "ADV", "prep": "ADP", "num": "NUM",
        "art": "DET", "c": "CCONJ", "scon": "SCONJ", "intj": "INTJ"}
#: Universal POS (spaCy's ``token.pos_``) → FrameNet's LU suffix. Tags FrameNet has no LUs for
#: (PRON, PART, PUNCT, SYM, X, SPACE) are missing: the seed LU's POS is the fallback for them.
UPOS_TO_FN = {"VERB": "v", "AUX": "v", "NOUN": "n", "PROPN": "n", "ADJ": "a", "ADV": "adv", "ADP": "prep",
              "NUM": "num", "DET": "art", "CCONJ": "c", "SCONJ": "scon", "INTJ": "intj"}
_LEMMINFLECT_UPOS = ("NOUN", "VERB", "ADJ", "ADV", "AUX", "PROPN")  # what LemmInflect lemmatizes


def lu_pos(label: str | None) -> str | None:
    """The POS of a FrameNet LU label ("sell.v" → "v"), or None."""
    if label and "." in label:
        pos = label.rsplit(".", 1)[1].lower()
        return pos if pos in _POS else None
    return None


def anchor_lemma(text: str, pos: str | None) -> str:
    """A lemma for an anchor text without a parse: the verb of a verbal phrase is its first word,
    else its last (the fallback of :meth:`AnchorTagger.lu`)."""
    words = text.lower().split()
    if not words:
        return ""
    upos = _POS.get(pos or "")
    i = 0 if upos == "VERB" else len(words) - 1
    word = words[i].strip(".,;:!?\"'()")
    words[i] = _lemma_of(word, upos) if word else word
    return " ".join(words)


#: British ↔ American word endings: FrameNet 1.5 lists both kinds ("utilise.v", "recognize.v"), so
#: a lemma is looked up under each (fn-cascade-exemplars-i: "knew" → "recognised" passed as
#: Awareness, while FrameNet lists "recognize.v" under Becoming_aware only)
_SPELLINGS = (("isation", "ization"), ("ise", "ize"), ("yse", "yze"), ("our", "or"), ("tre", "ter"),
              ("ogue", "og"))


def spelling_variants(lemma: str) -> list[str]:
    """``lemma`` and its other spellings by ending ("recognise" → ["recognise", "recognize"]); the
    last word of a phrasal lemma is the one respelled. Variants may not be words: they are only
    looked up."""
    head, _, last = lemma.rpartition(" ")
    out = [lemma]
    for british, american in _SPELLINGS:
        for a, b in ((british, american), (american, british)):
            if last.endswith(a) and len(last) > len(a) + 2:
                variant = f"{head} {last[: -len(a)]}{b}".strip()
                if variant not in out:
                    out.append(variant)
    return out


def _lemma_of(word: str, upos: str | None) -> str:
    """The first lemma LemmInflect gives ``word`` as ``upos`` (any POS when None); closed-class
    words (prepositions, articles, conjunctions …) are their own lemma."""
    word = word.lower()
    if not word or (upos is not None and upos not in _LEMMINFLECT_UPOS):
        return word
    from paraspan.models.inflect import lemmas

    try:
        found = lemmas(word, upos)
    except Exception:  # an odd token: the lowercased word is a fine lemma
        found = []
    return found[0] if found else word


@dataclass(frozen=True)
class AnchorLU:
    """The lexical unit of a new anchor: lemma, FrameNet POS suffix and where the POS came from.

    ``source``: ``source`` (the anchor's words are unchanged: the source's LU), ``generator`` (the
    generator placed a known LU exactly there, e.g. infill's sister LU), ``parse`` (the head word's
    tag in a spaCy parse of the paraphrase), ``seed`` (no usable tag: the seed LU's POS) or ``none``
    (no POS at all). ``upos``: the parse's tag, if any.
    """

    lemma: str
    pos: str | None
    source: str
    upos: str | None = None

    @property
    def label(self) -> str | None:
        return f"{self.lemma}.{self.pos}" if self.pos and self.lemma else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"label": self.label, "pos": self.pos, "pos_from": self.source}
        if self.upos:
            out["upos"] = self.upos
        return out


def span_head(doc: Any, start: int, end: int) -> tuple[str, str] | None:
    """``(lemma, UPOS)`` of the words of a parsed ``doc`` in ``[start, end)``, or None (no word).

    The UPOS is the syntactic head's (the word whose head lies outside the span; the first one
    with a FrameNet POS when there are several); the lemma lemmatizes the head with that POS and
    keeps the other words lowercased ("handed over" → "hand over", VERB). A copula's complement
    is the head ("are mindful" → "mindful", ADJ); punctuation at the edges, and the head's
    auxiliaries, copula and articles are left out.
    """
    toks = [t for t in doc if t.idx < end and t.idx + len(t.text) > start and not t.is_space]
    while toks and toks[0].pos_ == "PUNCT":
        toks.pop(0)
    while toks and toks[-1].pos_ == "PUNCT":
        toks.pop()
    if not toks:
        return None
    inside = {t.i for t in toks}
    roots = [t for t in toks if t.head.i == t.i or t.head.i not in inside] or toks
    head = next((t for t in roots if t.pos_ in UPOS_TO_FN), roots[0])
    if head.pos_ == "AUX":  # a copula: the LU is its complement ("are mindful" → mindful.a)
        head = next((t for t in toks if t.head.i == head.i and t.dep_ in ("acomp", "attr")), head)
    upos = str(head.pos_)
    # the head's auxiliaries, copula and articles are no part of an LU ("were running" → "run",
    # "has been sold" → "sell", "is a success" → "success")
    skip = ("aux", "auxpass", "cop", "det") if upos != "DET" else ("aux", "auxpass", "cop")
    toks = [t for t in toks if t.i == head.i or not (t.head.i == head.i and t.dep_ in skip)
            and not (t.i == head.head.i and t.pos_ == "AUX")]
    parts = []
    for k, t in enumerate(toks):
        word = _lemma_of(t.text, upos if upos in UPOS_TO_FN else None) if t.i == head.i else t.lower_
        parts.append(word + (t.whitespace_ if k < len(toks) - 1 else ""))
    return "".join(parts).strip(), upos


def _generator_lu(placed: Sequence[Any] | None, start: int, end: int) -> AnchorLU | None:
    """The LU a structure-aware generator put at exactly ``[start, end)`` (infill's sister LU);
    ``placed``: the candidate's structures (corpus-schema ``Structure`` objects, or None)."""
    for st in placed or []:
        if st is None or st.kind != "frame" or st.anchor is None:
            continue
        label = st.anchor.label
        if st.anchor.start == start and st.anchor.end == end:
            pos = lu_pos(label)
            if pos and isinstance(label, str):
                return AnchorLU(label.rsplit(".", 1)[0].lower(), pos, "generator")
    return None


class AnchorTagger:
    """Reads the LU of an aligned anchor (:class:`AnchorLU`) from a parse of its paraphrase.

    The spaCy pipeline (the packaged small English one, through :func:`paraspan.models.load_spacy`)
    loads on the first parse, once per tagger, and each worker has one tagger; ``nlp`` may be
    given instead (tests, or a pipeline already loaded).
    """

    def __init__(self, nlp: Any = None) -> None:
        self._nlp = nlp

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            from paraspan.models import load_spacy

            self._nlp = load_spacy(exclude=("ner", "lemmatizer"))  # tagger + parser are what is read
        return self._nlp

    def lu(self, text: str, start: int, end: int, seed_pos: str | None, *, placed: Sequence[Any] | None = None,
           doc: Any = None) -> AnchorLU:
        """The LU of ``text[start:end]``: the generator's when it placed one there (``placed``:
        the candidate's structures), else the parse's head word and tag (``doc``, a parse of
        this text, is reused), else the seed LU's POS with a lemma guessed from the words."""
        known = _generator_lu(placed, start, end)
        if known is not None:
            return known
        if doc is None or getattr(doc, "text", None) != text:
            doc = self.nlp(text)
        got = span_head(doc, start, end)
        if got is not None and got[1] in UPOS_TO_FN and got[0]:
            return AnchorLU(got[0], UPOS_TO_FN[got[1]], "parse", got[1])
        return AnchorLU(anchor_lemma(text[start:end], seed_pos), seed_pos, "seed" if seed_pos else "none",
                        got[1] if got else None)

