"""What the infiller asks for and accepts: the FEs to regenerate, the answer's parse, and the checks on each filler."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paraspan.corpus.schema import Span, Structure

if TYPE_CHECKING:
    from paraspan.corpus.frame_index import FrameIndex


MASK = "<mask>"
#: FEs (and FEs inheriting from them) that describe a participant independent of the verb.
AGENTIVE = frozenset({"Agent", "Self_mover"})
_WORD = re.compile(r"[\w'’-]+")
#: the model echoed an LU name ("relinquish.v"), alone or inside a filler ("held over hold over.v")
_LU_NAME = re.compile(r"\b[a-z]+(?: [a-z]+)*\.(?:v|n|a|adv|prep|num|c|scon|art|intj)\b(?!\w)")
#: an LU suffix left at the end of a filler after a space ("the moon v.", judged): "v." inside a name
#: ("Roe v. Wade") is followed by more words
_LU_SUFFIX_END = re.compile(r"\s(?:v|n|a|adv|prep)\.$")


# ----------------------------------------------------------------------------- candidate FEs


def _is_pp(span: Span, text: str, nlp: Any | None, docs: dict[str, Any]) -> bool:
    pt = span.extra.get("pt")
    if isinstance(pt, str) and pt:
        return pt.upper().startswith("PP")
    if nlp is None:
        return False
    doc = docs.get(text)
    if doc is None:
        doc = docs[text] = nlp(text)
    tokens = [t for t in doc if t.idx >= span.start and t.idx + len(t.text) <= span.end]
    return len(tokens) > 1 and tokens[0].pos_ == "ADP" and tokens[0].dep_ in ("prep", "agent", "dative", "ROOT")


def candidate_fes(structure: Structure, frames: FrameIndex, text: str, nlp: Any | None = None) -> list[Span]:
    """The FE spans to regenerate (§3.1): core, and non-agentive or a prepositional phrase.

    Spans that overlap the target or another FE span are never chosen (they could not be moved), nor
    an FE annotated twice: an antecedent and its relative pronoun ("the munitions | that | X stores"),
    which one filler each cannot both replace (judged fn-infill-v4: the name filled into both).
    """
    frame = frames.frames.get(structure.label)
    if frame is None:
        return []
    twice = {label for label, n in Counter(a.label for a in structure.args).items() if n > 1}
    out = []
    docs: dict[str, Any] = {}  # one parse per call, however many spans need it
    for arg in structure.args:
        fe = frame.fes.get(arg.label or "")
        if fe is None or not fe.is_core or arg.label in twice:
            continue
        if structure.anchor is not None and arg.overlaps(structure.anchor):
            continue
        if any(other is not arg and other.overlaps(arg) for other in structure.args):
            continue
        names = {fe.name} | {name for _, name in frames.fe_ancestors(frame.name, fe.name)}
        if names & AGENTIVE and not _is_pp(arg, text, nlp, docs):
            continue
        out.append(arg)
    return out


# ----------------------------------------------------------------------------- answers


#: Fillers that stand for a phrase instead of being one ("something", "X", "___", "…").
_PLACEHOLDER = re.compile(r"^(?:_+|\.{3}|…|[xyz]|something|someone|somebody|somewhere|sometime|"
                          r"blank|mask|n/?a|none|null|\[[^\]]*\]|\([^)]*\))$", re.IGNORECASE)


def filler_problem(phrase: str, names: Sequence[str] = (), context: str = "") -> str | None:
    """Why ``phrase`` is no filler, or None: an FE or frame name copied from the prompt
    ("Speaker"; inside the filler, "the speaker", unless the sentence uses the word) or a definition
    ("Activity: The document that …"), a placeholder ("something", "[Theme]"), a gloss in brackets
    ("cars ( vehicle )"), a repetition loop
    (the same one to four words three times in a row), or a copy of the sentence around it (five
    words in a row of ``context``, the text outside the blanks)."""
    bare = phrase.strip(" .,;:!?\"'").replace("_", " ")
    if _PLACEHOLDER.match(bare):
        return "placeholder"
    known = {n.replace("_", " ").lower() for n in names}
    if bare.lower() in known:
        return "a name from the prompt"
    head, colon, rest = bare.partition(":")
    if colon and (head.strip().lower() in known or len(rest.split()) >= 4):
        return "a definition from the prompt"  # "Agreed Framework: The document or framework that …"
    if _PHRASE_TYPE.search(bare):
        return "the prompt's phrase type"  # "Vitality (noun phrase)" (judged fn-infill-v5)
    lowered, sentence = bare.lower(), context.replace(_GAP, " ").lower()
    for name in known - _ADVERBIAL_FES:
        # an FE or frame name inside the filler is the prompt echoed ("agent's actions", "human being
        # (destroyer)"), unless the sentence itself uses the word
        pattern = rf"(?<![\w-]){re.escape(name)}(?![\w-])"
        if name and re.search(pattern, lowered) and not re.search(pattern, sentence):
            return "a name from the prompt inside the filler"
    if re.search(r"\(\s*[\w' -]+\s*\)", bare):
        return "a gloss in brackets"  # "cars ( vehicle )" (judged fn-infill-v6)
    tokens = bare.lower().split()
    for n in range(1, 5):
        for i in range(len(tokens) - 3 * n + 1):
            gram = tokens[i:i + n]
            if tokens[i + n:i + 2 * n] == gram and tokens[i + 2 * n:i + 3 * n] == gram:
                return "repetition loop"
    if context and len(tokens) >= _COPY_WORDS:
        around = [" ".join(part.lower().split()) for part in context.split(_GAP)]
        for i in range(len(tokens) - _COPY_WORDS + 1):
            gram = " ".join(tokens[i:i + _COPY_WORDS])
            if any(f" {gram} " in f" {part} " for part in around):
                return "copies the sentence around it"
    return None


#: FE names that are the ordinary words of adverbial phrases ("at that time", "in this manner"): a filler
#: may use them, while any other FE or frame name in a filler echoes the prompt (judged fn-infill runs:
#: "FE name with a determiner copied as filler", an FE name in parentheses)
_ADVERBIAL_FES = frozenset({"time", "place", "manner", "means", "degree", "purpose", "reason", "duration",
                            "frequency", "explanation", "circumstances", "condition", "result"})

#: the phrase types the prompt names for each blank (:func:`_describe`), echoed in a filler
_PHRASE_TYPE = re.compile(r"\b(?:noun|verb|adjective) phrase\b|\bphrase starting with\b|\(\s*(?:clause|adverb)\s*\)",
                          re.IGNORECASE)

#: a filler with this many words in a row from the rest of its sentence copies it ("to mature
#: FDA's US Orphan Drug Act is intended to assist …"); the gap marker keeps n-grams off the blanks
_COPY_WORDS = 5
_GAP = "\x00"


def _describe(shape: tuple[str, ...] | None) -> str | None:
    """``shape`` in words for the prompt ("noun phrase, plural"); None for a span of several heads."""
    if shape is None or len(shape) != 1:
        return None
    kind = shape[0]
    if kind.startswith("PP:"):
        return f"phrase starting with '{kind[3:]}'"
    if kind.startswith("NP"):
        return ", ".join(["noun phrase", *({"pl": "plural", "sg": "singular"}[part]
                                           for part in kind.split(":")[1:] if part != "bare")])
    return {"S": "clause", "VPto": "'to' + verb phrase", "VPing": "verb phrase with -ing",
            "VPed": "verb phrase with a past participle", "VP": "verb phrase", "AP": "adjective phrase",
            "AVP": "adverb"}.get(kind)


def outside(text: str, spans: Sequence[Span]) -> str:
    """``text`` with ``spans`` cut out (a gap marker in their place): the context of the blanks."""
    out, at = [], 0
    for span in sorted(spans, key=lambda s: s.start):
        out.append(text[at:span.start])
        at = max(at, span.end)
    out.append(text[at:])
    return _GAP.join(out)


def parse_answer(answer: str, blanks: int, names: Sequence[str] = (), context: str = "") -> list[str] | None:
    """The phrases of a model answer, one per blank, or None when it does not parse.

    Strict: exactly ``blanks`` non-empty phrases separated by ``|``, no mask left, no line break,
    nothing that repeats the prompt's scaffolding ("Sentence:", "Answer:" inside), and no
    phrase that :func:`filler_problem` rejects (``names``: the FE and frame names the prompt
    showed).
    """
    text = answer.strip()
    text = re.sub(r"^(?:answer|output)\s*:\s*", "", text, flags=re.IGNORECASE)
    if not text or "\n" in text:
        return None
    parts = [p.strip() for p in text.split("|")]
    if len(parts) != blanks:
        return None
    out = []
    for part in parts:
        part = part.strip().strip('"“”').strip()
        if len(part) >= 2 and part[0] == part[-1] == "'":
            part = part[1:-1].strip()
        if not part or "<" in part or ">" in part or re.search(r"\b(?:sentence|answer|fe type)\s*:", part, re.I):
            return None
        if (not any(c.isalnum() for c in part) or _LU_NAME.search(part) or _LU_SUFFIX_END.search(part)
                or filler_problem(part, names, context)):
            return None
        out.append(part)
    return out



def _fit_punctuation(phrase: str, text: str, span: Span) -> str:
    """Drop a final period the model added when the sentence goes on with its own punctuation, and
    give a phrase that starts the sentence its capital ("members who …" first in a sentence, judged
    fn-infill-v6)."""
    after = text[span.end:].lstrip()
    if phrase.endswith((".", ",", ";")) and (not after or after[0] in ".,;:!?"):
        phrase = phrase[:-1].rstrip()
    if not text[:span.start].strip() and text[span.start:span.start + 1].isupper() and phrase[:1].islower():
        phrase = phrase[:1].upper() + phrase[1:]
    return phrase
