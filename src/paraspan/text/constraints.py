"""Lexical constraints for generation: which word forms are banned, and how to enforce that.

A *banned span* of the source sentence expands to a :class:`BanSet` of word forms:

* every **content word** in the span bans its own form, every inflection of every one of its
  lemmas (LemmInflect: ``getAllLemmas`` first, then ``getAllInflections``; ``sold`` bans
  ``sell``, ``sells``, ``selling``, ``sold``) in any letter case, and every **prefix of at
  least** :data:`MIN_PREFIX` **characters** of those forms as a word in progress. The prefix rule is
  what stops a sampler from spelling a banned word out of smaller pieces, and from drifting
  into derivations of it (``corro|bor|ative``, ``corrobor|amate`` for a banned *corroborate*);
* **function words** (determiners, pronouns, prepositions, auxiliaries, …: :data:`FUNCTION_WORDS`)
  are dropped from a span that also has content words: banning ``the`` of "the company" would
  make paraphrasing nearly impossible, and it is not what identifies the span. A span made only
  of function words bans exactly those words (any case), with no inflections and no prefix
  rule: banning "the" must not ban ``there``, ``theory`` or ``these``.

Enforcement happens at three levels (see :mod:`paraspan.llm.llama_backend`):

1. :func:`banned_token_ids` — vocabulary tokens that *are* a banned form or, for content
   forms, a prefix of one (≥ 3 characters, with or without the leading-space marker). These are
   masked to −inf before top-k. (Transformers' ``bad_words_ids`` / vLLM's ``bad_words`` can
   take the same lists.)
2. :class:`WordGuard` — the check at every sampling step: the word being spelled (the letters
   since the last non-letter) plus the candidate token must not form a banned form or a banned
   prefix. This catches banned words assembled from short pieces (``" s" + "old"``).
3. :meth:`BanSet.find_leaks` — a word-boundary regex over the finished text; any hit rejects the
   candidate. This is the guarantee; 1 and 2 only make hits rare.

Words are runs of letters and digits (``[^\\W_]+``): apostrophes and hyphens separate words, so
``re-sell`` contains the banned word ``sell`` and ``company's`` contains ``company``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

#: A word: a run of letters and digits.
WORD_RE = re.compile(r"[^\W_]+")

#: Shortest word prefix that is banned for content-word forms. Shorter pieces (``" s"``,
#: ``"se"``) begin too many unrelated words to ban.
MIN_PREFIX = 3

#: Closed-class English words: never expanded, never prefix-banned, and dropped from banned
#: spans that also contain content words.
FUNCTION_WORDS: frozenset[str] = frozenset("""
a an the this that these those each every either neither some any no all both half several
many much more most few fewer less least other another such what which whose whatever whichever
i me my mine myself you your yours yourself yourselves he him his himself she her hers herself
it its itself we us our ours ourselves they them their theirs themselves one ones oneself
who whom whoever whomever someone somebody something anyone anybody anything everyone
everybody everything nobody nothing none
about above across after against along amid among around as at before behind below beneath
beside besides between beyond but by despite down during except for from in inside into like
near of off on onto out outside over past per since than through throughout till to toward
towards under underneath unlike until up upon via with within without
and or nor so yet if because although though while whereas unless whether once when whenever
where wherever how why then there here
be am is are was were been being have has had having do does did doing done
will would shall should can could may might must ought
not n't s 's t d ll m re ve
""".split())


#: Number words: a paraphrase must keep them as they are ("Five" must not become "Four").
NUMBER_WORDS: frozenset[str] = frozenset("""
zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million
billion trillion dozen dozens hundreds thousands millions billions half quarter third fourth fifth sixth
seventh eighth ninth tenth first second once twice
""".split())


def words(text: str) -> list[str]:
    """The words of ``text`` (runs of letters and digits), as written."""
    return WORD_RE.findall(text)


def is_function_word(word: str) -> bool:
    return word.lower() in FUNCTION_WORDS


def case_variants(form: str) -> list[str]:
    """``form`` lower-case, Capitalised and UPPER-case (as written first)."""
    seen: dict[str, None] = {}
    for variant in (form, form.lower(), form[:1].upper() + form[1:].lower(), form.upper()):
        seen.setdefault(variant, None)
    return list(seen)


@dataclass(frozen=True)
class BanSet:
    """Banned word forms (stored lower-case; matching ignores case).

    ``forms`` are banned as whole words. ``prefix_forms`` (a subset: the content-word forms)
    also ban every word-in-progress that is a prefix of them of at least ``min_prefix``
    characters.
    """

    forms: frozenset[str] = frozenset()
    prefix_forms: frozenset[str] = frozenset()
    min_prefix: int = MIN_PREFIX
    #: The span texts the forms came from (for prompts and notes), in order.
    sources: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        # Normalise once so that callers may pass any case; prefix forms are forms too.
        forms = frozenset(f.lower() for f in self.forms if f)
        prefix = frozenset(f.lower() for f in self.prefix_forms if f)
        object.__setattr__(self, "forms", forms | prefix)
        object.__setattr__(self, "prefix_forms", prefix)

    @classmethod
    def exact(cls, forms: Iterable[str], sources: Sequence[str] = ()) -> BanSet:
        """Ban exactly these words (any case), nothing else."""
        return cls(forms=frozenset(forms), sources=tuple(sources))

    def __bool__(self) -> bool:
        return bool(self.forms)

    def __or__(self, other: BanSet) -> BanSet:
        return BanSet(self.forms | other.forms, self.prefix_forms | other.prefix_forms,
                      min(self.min_prefix, other.min_prefix), self.sources + other.sources)

    @cached_property
    def prefixes(self) -> frozenset[str]:
        """Every prefix (≥ ``min_prefix`` characters) of a content form, the forms included."""
        out: set[str] = set()
        for form in self.prefix_forms:
            out.update(form[:i] for i in range(self.min_prefix, len(form) + 1))
        return frozenset(out)

    def blocks_word(self, word: str) -> bool:
        """Whether ``word`` — complete or still being spelled — is banned."""
        lowered = word.lower()
        return lowered in self.forms or (len(lowered) >= self.min_prefix and lowered in self.prefixes)

    @cached_property
    def _leak_re(self) -> re.Pattern[str] | None:
        if not self.forms:
            return None
        alternatives = "|".join(re.escape(f) for f in sorted(self.forms, key=lambda f: (-len(f), f)))
        # Word boundaries by our word definition (letters and digits), not \b (which counts "_").
        return re.compile(rf"(?<![^\W_])(?:{alternatives})(?![^\W_])", re.IGNORECASE)

    def find_leaks(self, text: str) -> list[str]:
        """Banned forms that occur in ``text`` as whole words (as written there)."""
        pattern = self._leak_re
        return [] if pattern is None else [m.group() for m in pattern.finditer(text)]


# ----------------------------------------------------------------------------- expansion


def inflected_forms(word: str) -> list[str]:
    """``word`` and every inflection of every lemma of it, lower-case (LemmInflect).

    Unknown words fall back to LemmInflect's rules for both nouns and verbs, so an unknown
    ``blorfed`` still bans ``blorf``, ``blorfs``, ``blorfing``.
    """
    from paraspan.models.inflect import load_lemminflect

    lem = load_lemminflect()
    lowered = word.lower()
    table: dict[str, tuple[str, ...]] = dict(lem.getAllLemmas(lowered))
    if not table and word != lowered:  # proper nouns are listed capitalised
        table = dict(lem.getAllLemmas(word))
    if not table:
        table = {upos: tuple(lem.getAllLemmasOOV(lowered, upos=upos).get(upos, ()))
                 for upos in ("NOUN", "VERB")}
    seen: dict[str, None] = {lowered: None}
    for upos, lemmas in table.items():
        for lemma in lemmas:
            seen.setdefault(lemma.lower(), None)
            forms = lem.getAllInflections(lemma, upos=upos) or lem.getAllInflectionsOOV(lemma, upos=upos)
            for group in forms.values():
                for form in group:
                    seen.setdefault(form.lower(), None)
    return list(seen)


def expand_ban(span_text: str) -> BanSet:
    """The :class:`BanSet` for one banned span (see the module docstring for the rules)."""
    found = words(span_text)
    content = [w for w in found if not is_function_word(w) and not w.isdigit()]
    if content:
        prefix: set[str] = set()
        exact: set[str] = set()
        for word in content:
            if word.isalpha():
                prefix.update(inflected_forms(word))
            else:  # "covid19", "b2b": no morphology to expand
                exact.add(word)
        # Numbers inside a content span are banned as written, like function words are not.
        exact.update(w for w in found if w.isdigit())
        return BanSet(forms=frozenset(exact), prefix_forms=frozenset(prefix), sources=(span_text,))
    return BanSet.exact(found, sources=(span_text,))


def expand_bans(span_texts: Iterable[str]) -> BanSet:
    out = BanSet()
    for text in span_texts:
        out = out | expand_ban(text)
    return out


def content_words(text: str, *, min_length: int = 3) -> list[str]:
    """Distinct content words of ``text`` in order (candidates for randomized constraints)."""
    seen: dict[str, None] = {}
    for word in words(text):
        if len(word) >= min_length and word.isalpha() and not is_function_word(word):
            seen.setdefault(word, None)
    return list(seen)


def protected_words(text: str, spans: Iterable[tuple[int, int]] = ()) -> set[str]:
    """Words of ``text`` a randomized ban must never fall on (lower-cased): numbers and number
    words, names (capitalised words after the first word: "Hungary", "Chemical Weapons
    Convention"), and every word inside ``spans`` (the labelled arguments, whose words the
    aligner must find again). Banning them is what turned "Five" into "Four" and Hungary into
    Bulgaria in held-out paraphrases."""
    out: set[str] = set()
    for k, match in enumerate(WORD_RE.finditer(text)):
        word = match.group()
        if word.lower() in NUMBER_WORDS or any(c.isdigit() for c in word) or (k > 0 and word[:1].isupper()):
            out.add(word.lower())
    for start, end in spans:
        out.update(w.lower() for w in words(text[start:end]))
    return out


# ----------------------------------------------------------------------------- token level


def _strip_space_marker(piece: str) -> str:
    # byte-level BPE pieces decode to a real space; SentencePiece pieces may keep "▁"
    return piece[1:] if piece[:1] in (" ", "\u2581") else piece


@dataclass
class VocabIndex:
    """A vocabulary's decoded pieces, indexed by the word they spell.

    ``pieces[i]`` is token ``i`` as text (``""`` for control tokens). ``by_word`` maps the
    lower-cased letters of every token that is a single word, with or without a leading space
    marker, to its token ids.
    """

    pieces: list[str]
    by_word: dict[str, list[int]]

    @classmethod
    def from_pieces(cls, pieces: Sequence[str]) -> VocabIndex:
        by_word: dict[str, list[int]] = {}
        for token, piece in enumerate(pieces):
            core = _strip_space_marker(piece)
            if core and WORD_RE.fullmatch(core):
                by_word.setdefault(core.lower(), []).append(token)
        return cls(list(pieces), by_word)


def banned_token_ids(bans: BanSet, index: VocabIndex) -> list[int]:
    """Tokens that spell a banned form, or a ≥ ``min_prefix``-character prefix of a content form.

    Matching ignores case, so one lookup covers ``sell``, ``Sell``, ``SELL``, ``" sell"``, … .
    """
    ids: set[int] = set()
    for form in bans.forms:
        ids.update(index.by_word.get(form, ()))
    for prefix in bans.prefixes:
        ids.update(index.by_word.get(prefix, ()))
    return sorted(ids)


def trailing_word(text: str) -> str:
    """The word still being written at the end of ``text`` (``""`` after a non-letter)."""
    end = len(text)
    start = end
    while start > 0 and (text[start - 1].isalnum()):
        start -= 1
    return text[start:end]


@dataclass(frozen=True)
class WordGuard:
    """The per-step check: may ``piece`` follow the word being written?

    ``tail`` is the word in progress at the end of the text so far (:func:`trailing_word`).
    Every word the piece touches — the continued tail, words inside the piece, and the new
    word it leaves open — is checked with :meth:`BanSet.blocks_word`.
    """

    bans: BanSet

    def allows(self, tail: str, piece: str) -> bool:
        if not self.bans or not piece:
            return True
        joined = tail + piece
        for match in WORD_RE.finditer(joined):
            if match.end() <= len(tail):  # a word finished before this piece: checked already
                continue
            if self.bans.blocks_word(match.group()):
                return False
        return True
