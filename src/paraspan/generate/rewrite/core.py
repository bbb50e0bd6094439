"""Building blocks of a rewrite: output pieces, rules, rendering to text.

A rule reads a spaCy ``Doc`` and returns zero or more rewrites, each a list of :class:`Piece`.
A piece is one output token: either a source token carried over (``src`` = its index; its form
may be re-inflected) or an inserted word (``src`` = ``None``). Every source token appears at most
once as ``src``, so the pieces define a one-to-one (partial) mapping from source to output
tokens; source tokens that appear nowhere were deleted. An inserted piece may be ``attach``-ed to
a source token (e.g. the copied noun phrase that replaces a relative pronoun): a projected span
that holds that source token also takes the attached pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

#: Rule families (the paper's transformation categories, plus the learned grammar).
FAMILIES = ("voice", "extraction", "split", "reorder", "genitive", "compression", "insertion", "lexical", "learned")

_NO_SPACE_BEFORE = {",", ".", ";", ":", "!", "?", "%", ")", "]", "}", "...", "'s", "'", "n't", "'re", "'ve", "'ll",
                    "'d", "'m"}
_NO_SPACE_AFTER = {"(", "[", "{", "$", "#"}
_FINAL = {".", "!", "?"}
#: what may open a sentence before its first word: the word after it is still the sentence's first
_OPENING = {'"', "“", "``", "'", "‘", "(", "["}


@dataclass(slots=True)
class Piece:
    """One output token. ``changed``: the word was replaced by a different lemma (not just
    re-inflected), so a structure anchored on it no longer has the same predicate/LU.
    ``marker``: an attached case marker, which joins the argument spans holding its token but
    not anchors (an entity mention stays "Anna", the agent argument becomes "by Anna")."""

    text: str
    src: int | None = None
    attach: int | None = None
    changed: bool = False
    marker: bool = False  # an attached function word ("by" of a new passive agent): joins arguments, not anchors
    absorbs: int | None = None  # a deleted source token (a dropped case marker) it stands for in argument spans
    copy: int | None = None  # an inserted copy of this source token (a split's copied subject): see MappedToken.copy


@dataclass
class RuleContext:
    """What a rule may consult besides the parse. ``protected``: source tokens a lexical rule
    must not replace (structure anchors). ``wordnet``/``inflect`` are loaded lazily by the caller."""

    protected: frozenset[int] = frozenset()
    wordnet: Callable[[], Any] | None = None
    inflect: Callable[[str, str], str | None] | None = None
    max_lexical: int = 3


RuleFn = Callable[["Doc", RuleContext], list[list[Piece]]]


@dataclass
class Rule:
    """A named, versioned transformation function."""

    name: str
    family: str
    kind: str  # "hand" or "learned"
    fn: RuleFn
    version: str = "1"
    description: str = ""
    example: str = ""
    count: int | None = None  # learned rules: how many aligned pairs it was extracted from
    pattern: dict[str, Any] | None = field(default=None, repr=False)

    def apply(self, doc: Doc, ctx: RuleContext) -> list[list[Piece]]:
        return self.fn(doc, ctx)


# --------------------------------------------------------------------------- token helpers


def child(token: Token, *deps: str) -> Token | None:
    """The first child of ``token`` with one of the dependency labels ``deps``."""
    return next((c for c in token.children if c.dep_ in deps), None)


def children(token: Token, *deps: str) -> list[Token]:
    """The children of ``token`` with one of the dependency labels ``deps``."""
    return [c for c in token.children if c.dep_ in deps]


def subtree(token: Token) -> list[int]:
    return sorted(t.i for t in token.subtree)


def contiguous(ids: Sequence[int]) -> bool:
    return bool(ids) and max(ids) - min(ids) + 1 == len(set(ids))


def sent_range(token: Token) -> range:
    sent = token.sent
    return range(sent.start, sent.end)


def final_punct(token: Token) -> int | None:
    """Index of the sentence-final ``.``/``!``/``?`` of ``token``'s sentence, if it has one."""
    last = token.sent.end - 1
    return last if token.doc[last].text in _FINAL else None


def holds_full_stop(token: Token) -> bool:
    """Whether ``token`` ends its sentence with the full stop in its own text: the tokenizer keeps it
    on an initial or an abbreviation ("… and John F.", "… of Tom Jones Jr."). Moved elsewhere, the
    token takes the stop with it and the sentence ends without one."""
    return token.i == token.sent.end - 1 and len(token.text) > 1 and token.text.endswith(".")


def keep(doc: Doc, ids: Iterable[int]) -> list[Piece]:
    return [Piece(doc[i].text, i) for i in ids]


def rest_of_doc(doc: Doc, sent_pieces: list[Piece], token: Token) -> list[Piece]:
    """The whole document with ``token``'s sentence replaced by ``sent_pieces``."""
    sent = token.sent
    return keep(doc, range(0, sent.start)) + sent_pieces + keep(doc, range(sent.end, len(doc)))


def tidy(doc: Doc, pieces: list[Piece]) -> list[Piece]:
    """Fix what moving words around breaks: doubled or leading commas, a comma before the final
    stop, capitals (a sentence-initial word moved inside is lower-cased unless it is a name or "I";
    the new first word of each sentence is capitalised)."""
    out: list[Piece] = []
    for piece in pieces:
        is_comma = piece.text in {",", ";"}
        prev = out[-1] if out else None
        if is_comma and (prev is None or prev.text in {",", ";"} or _ends_sentence(doc, prev)):
            continue
        if piece.text in _FINAL and prev is not None and prev.text in {",", ";"}:
            out.pop()
        out.append(piece)
    start = True
    for piece in out:
        if start and not markup_text(piece.text):  # a link or @user keeps its case (not "Http://example.com/…")
            piece.text = piece.text[:1].upper() + piece.text[1:]
        elif piece.src is not None and written_start(doc, piece.src) and _lowerable(doc[piece.src]):
            piece.text = piece.text[:1].lower() + piece.text[1:]
        # after an opening quote the next word still starts the sentence: a rule that puts a new first
        # word there wrote '" the secular nationalism of Arafat was …'
        start = _ends_sentence(doc, piece) or (start and piece.text in _OPENING)
    return out


def markup_text(word: str) -> bool:
    """Whether ``word`` is tweet markup: an @user, a #hashtag or a link."""
    return (len(word) > 1 and word[0] in "@#") or word.lower().startswith(("http://", "https://", "www."))


def written_start(doc: Doc, i: int) -> bool:
    """Whether token ``i`` starts a sentence as written: the parser's sentence start after a full stop,
    "!", "?", a quotation mark or a bracket, or the text's first word. A start the parser put after a
    word ("Q Recently my son …", a question marker) keeps the writer's capital."""
    if not doc[i].is_sent_start:
        return False
    if i == 0:
        return True
    before = doc[i - 1]
    return before.text in _FINAL or before.is_quote or before.is_bracket or "\n" in before.text_with_ws


def lower_common_capitals(doc: Doc, pieces: list[Piece], common: Callable[[str], bool]) -> list[Piece]:
    """Lower-case a sentence-initial word that a rule moved inside a sentence when the parse took it for
    a name only because of its capital — tagged PROPN with no entity, or tagged NOUN and made a
    one-word entity — not part of a longer name, and ``common`` (a lexicon) knows it as a common word.
    "Noise generated by boats is carried well under water." was fronted to "Under water, Noise
    generated by …" (NOUN, PERSON); "Alexei" (PROPN, no entity, no common
    word), "Bill" (PROPN, PERSON) and the possessor "Ash's" (PROPN, no entity)
    stay (a gold entity mention's too, restored by :func:`keep_name_capitals`)."""
    start = True
    for piece in pieces:
        i = piece.src
        if not start and i is not None and written_start(doc, i) and piece.text[:1].isupper():
            token = doc[i]
            # a PROPN without an entity only when modified as common nouns are ("Noise made by …"), and never
            # a possessor ("Ash's face" is a person's)
            deps = {c.dep_ for c in token.children}
            name_tag = (token.pos_ == "PROPN" and not token.ent_type_ and "case" not in deps
                        and bool(deps & {"acl", "relcl", "amod", "prep"})) or (
                token.pos_ == "NOUN" and token.ent_type_ in _NAMES and token.ent_iob_ == "B"
                and not (i + 1 < len(doc) and doc[i + 1].ent_iob_ == "I"))
            in_name = (token.dep_ in {"compound", "amod", "flat"} and token.head.pos_ == "PROPN") or (
                i + 1 < len(doc) and doc[i + 1].pos_ == "PROPN" and doc[i + 1].text[:1].isupper())
            if name_tag and not in_name and not piece.text.isupper() and common(piece.text):
                piece.text = piece.text[:1].lower() + piece.text[1:]
        start = _ends_sentence(doc, piece)
    return pieces


def keep_name_capitals(doc: Doc, pieces: list[Piece], names: frozenset[int]) -> list[Piece]:
    """A token of ``names`` (the gold entity mentions) keeps the capital it was written with,
    whatever a rule or :func:`lower_common_capitals` lowered: it-cleft's :func:`lower_first` took "Small
    stage" for a common noun ("It is small stage that NEEDS …"), and "Harper's team did." became "It was
    harper's team that did." (WNUT17, examples made up)."""
    for piece in pieces:
        i = piece.src
        if i is not None and i in names and piece.text[:1].islower() and doc[i].text[:1].isupper() \
                and piece.text[1:] == doc[i].text[1:]:
            piece.text = doc[i].text
    return pieces


def _ends_sentence(doc: Doc, piece: Piece) -> bool:
    """A full stop, "!" or "?" — but not a "!" or "?" inside its sentence, nor the stop of an abbreviation ("in 587
    b.c. , when …": spaCy splits "b.c" and "."; treating it as the end dropped the comma and
    capitalised "When" on FrameNet train)."""
    if piece.text not in _FINAL:
        return False
    i = piece.src
    if i is None or i == 0 or i + 1 >= len(doc):
        return True
    if piece.text != ".":
        # a "!" or "?" the parse left inside its sentence is part of it: "Yahoo! in Boston" (not "Yahoo! In")
        return doc[i + 1].is_sent_start
    before = doc[i - 1]
    return not (not before.whitespace_ and "." in before.text and not doc[i + 1].is_sent_start)


_NAMES = {"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"}


def _lowerable(token: Token) -> bool:
    # an acronym stays upper case, a one-letter word is no acronym: "It is A large number of …"
    acronym = token.text.isupper() and len(token.text) > 1
    if token.pos_ == "DET" and token.lower_ in {"the", "a", "an"} and not acronym:
        return True  # "by The Russian Ministry": an article starts a name's phrase, not the name
    if token.dep_ in {"compound", "amod"} and token.head.pos_ == "PROPN" and token.head.text[:1].isupper():
        # the first word of a name the tagger split keeps its capital ("Topic Map methods"),
        # but not a common noun before a person the parser found, outside the name:
        # "Singer Billy Murray" → "It was singer Billy Murray that …"; a title
        # tagged PROPN ("President Obama") stays
        return (token.pos_ == "NOUN" and token.tag_ == "NN" and not token.ent_type_
                and token.head.ent_type_ == "PERSON" and not acronym)
    return token.pos_ != "PROPN" and token.text != "I" and not acronym and token.ent_type_ not in _NAMES


def lower_first(doc: Doc, pieces: list[Piece]) -> list[Piece]:
    """Lower-case the first piece if it is a common word that started a sentence (tidy re-capitalises)."""
    # a pronoun made "I" ("bit me" → "I was bitten") is written with its capital wherever it stands
    if pieces and pieces[0].src is not None and pieces[0].text != "I" and _lowerable(doc[pieces[0].src]):
        pieces[0].text = pieces[0].text[:1].lower() + pieces[0].text[1:]
    return pieces


def render(doc: Doc, pieces: Sequence[Piece]) -> tuple[str, list[tuple[int, int]]]:
    """Join pieces into text, keeping the source spacing between tokens that stay neighbours."""
    parts: list[str] = []
    offsets: list[tuple[int, int]] = []
    pos = 0
    for j, piece in enumerate(pieces):
        if j > 0:
            prev = pieces[j - 1]
            if prev.src is not None and piece.src is not None and piece.src == prev.src + 1:
                space = doc[prev.src].whitespace_
            else:
                space = "" if piece.text in _NO_SPACE_BEFORE or prev.text in _NO_SPACE_AFTER else " "
                if j == 1 and prev.text in _OPENING:
                    space = ""  # a quote that opens the text holds on to its first word (after a full stop
                    # a quote may be the one that closes it: '"Stop." Then …')
            parts.append(space)
            pos += len(space)
        parts.append(piece.text)
        offsets.append((pos, pos + len(piece.text)))
        pos += len(piece.text)
    return "".join(parts), offsets


# --------------------------------------------------------------------------- English morphology

SUBJ_TO_OBJ = {"i": "me", "he": "him", "she": "her", "we": "us", "they": "them", "who": "whom"}
OBJ_TO_SUBJ = {v: k for k, v in SUBJ_TO_OBJ.items()}
_PLURAL_PRON = {"we", "they", "you", "these", "those", "us", "them"}


def recase_pronoun(text: str, table: dict[str, str]) -> str:
    new = table.get(text.lower())
    if new is None:
        return text
    if new == "i":
        return "I"
    return new


def is_plural(token: Token) -> bool:
    if token.tag_ in {"NNS", "NNPS"}:
        return True
    if token.lower_ in _PLURAL_PRON:
        return True
    return any(c.dep_ == "conj" for c in token.children)


def be_form(past: bool, plural: bool, first_person: bool = False) -> str:
    if past:
        return "were" if plural else "was"
    if first_person:
        return "am"
    return "are" if plural else "is"
