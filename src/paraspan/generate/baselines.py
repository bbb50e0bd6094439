"""The simple baselines users try first, as generators (registered in :data:`~paraspan.generate.base.generators`).

- ``token_replace`` — label-wise token replacement (Dai & Adel 2020, "An Analysis of Simple Data
  Augmentation for Named Entity Recognition", LwTR): every token of a labelled span is replaced,
  with probability ``p``, by a token that has the same label in a donor pool — the same span
  label and, as in BIO tagging, the same position (first token of its span, ``B``, or a later
  one, ``I``).
- ``mention_replace`` — mention replacement (Dai & Adel 2020, MR): every labelled span is
  replaced, with probability ``p``, by another span of the same label from the donor pool; the
  number of tokens may change.
- ``synonym_replace`` — WordNet synonym replacement outside the labelled spans: every content word
  (noun, verb, adjective, adverb in the packaged spaCy parse, as the rewriter's ``synonym`` rule
  reads it) is replaced, with probability ``p``, by a synonym from its most frequent WordNet
  senses, inflected to the word's Penn tag (LemmInflect).
- ``sister_lu`` — sister-LU replacement for FrameNet (Pancholy et al. 2021): the target is
  replaced by another LU of its frame with the same part of speech, inflected like the original
  (:mod:`paraspan.generate.sister_lu`, the step the infill generator uses), without infilling.

What is replaced. The labelled spans are an entity's mention (NER) and the arguments of a
predicate (SRL) or frame (FrameNet FEs); a predicate's or target's anchor is never replaced by
token, mention or synonym replacement. A request for one structure (``request.structure``, as
the pipeline sends) changes that structure's spans only (synonyms: the words outside its spans
and outside every entity mention); a request without one changes every structure's.

Where the labels go. A candidate carries ``structures``: every structure of the source placed
in the new text by the generator itself (the edits are known exactly, so nothing needs
aligning), and, for the token-level baselines, a :class:`~paraspan.generate.base.TokenMapping`
(replaced tokens marked ``changed``; extra words of a longer mention attached to its last
token). The placed structures are what :func:`paraspan.generate.project.place` uses: the mapping
policy drops a structure whose *anchor* was replaced, and an entity's anchor is its mention,
which token and mention replacement do replace. Another structure that an edit breaks (its
predicate replaced, a span cut in the middle) is ``None`` in ``structures``; an argument of
another structure that an edit cuts is left out.

Donor pool (token and mention replacement). With ``donors`` (a corpus file, read with
``donors_format``, by default guessed from the name) the pool is that corpus, and the outputs
depend only on the seed, the request and that corpus: the same run gives the same outputs with
any number of workers. Without it the pool is the sentences the generator has seen, each added
when its first request comes (its own other mentions count): the paper draws from the training
set being augmented, which is what an augmentation run sees, and it needs no second file. It
grows as the run goes, so the first sentences have few donors and an output depends on what its
worker saw before. Draws are weighted by how often a donor occurs and read the pool in sorted
order, so the same pool content gives the same draws whatever order it was filled in.

Randomness. Every request draws from its own ``random.Random`` seeded with the generator's seed
and the request id (never global state): the same seed and request give the same candidates.
Up to ``n`` distinct candidates, each different from the source, are returned; a draw that
changes nothing (every coin came up "keep") is drawn again, a bounded number of times.

Meaning (``Capabilities.keeps_meaning``). Token and mention replacement write other content into
the mentions ("Paris" → "Berlin"): the output is a new sentence, not a paraphrase, and the
meaning check must not compare it with its source (``keeps_meaning=False``). Synonym and
sister-LU replacement keep every labelled span and swap one word for another of the same
meaning (a synonym) or of the same frame (a sister LU): the output should mean what the source
means, and where it does not (a WordNet sense that does not fit; a sister LU that is an antonym,
rise.v → fall.v in Change_position_on_a_scale) that is exactly what the meaning check is there
to catch (``keeps_meaning=True``).

A request with nothing to replace (no labelled span, no donor of the same label, no synonym, no
sister LU) gets no candidates and a note saying why; the pipeline counts it.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import ParaspanError
from paraspan.generate.base import (
    Candidate,
    Capabilities,
    CharSpan,
    GenerationRequest,
    GenerationResult,
    GeneratorFactory,
    MappedToken,
    TokenMapping,
    require_anchor,
)

# PREDICATE_KINDS: their anchor is never replaced by token, mention or synonym replacement
from paraspan.generate.edits import article_edits
from paraspan.generate.project import PREDICATE_KINDS, Edit, apply_edits, span_relation, tokens_in
from paraspan.generate.sister_lu import inflect_lu_like, lemma_words, replace_lu

if TYPE_CHECKING:
    from paraspan.corpus.frame_index import FrameIndex, LexUnit

__all__ = ["DonorPool", "MentionReplacer", "SisterLUReplacer", "SynonymReplacer", "TokenReplacer",
           "labelled_spans", "make_mention_replacer", "make_sister_lu", "make_synonym_replacer",
           "make_token_replacer", "tokenize"]

#: FrameNet's LU part-of-speech suffixes, and those ``sister_lu`` replaces by default.
LU_POS = ("v", "n", "a", "adv", "prep", "num", "art", "c", "scon", "intj")
CONTENT_POS = ("v", "n", "a")
#: Draws per wanted candidate before giving up (a draw may change nothing, or repeat one).
DRAWS_PER_CANDIDATE = 10

_TOKEN = re.compile(r"\w+(?:[-'’.&]\w+)*|[^\w\s]")
_WORD = re.compile(r"[\w'’-]+")
#: Closed-class words that are capitalized only because they began their sentence: lowered when a
#: donor that began its sentence lands in the middle of another.
_CLOSED = frozenset((
    "a an the this that these those his her its their our my your some any many all no every each both "
    "in on at for with from to by of into onto about after before during over under since until "
    "he she it they we you there here when while if as"
).split())
_WN_POS = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
#: Penn tags whose form is the lemma itself (the rewriter's synonym rule uses the same set).
_BASE_TAGS = frozenset({"NN", "NNP", "VB", "VBP", "JJ", "RB"})


# ----------------------------------------------------------------------------- tokens and spans


def _meta_tokens(sentence: Sentence) -> list[CharSpan] | None:
    """The reader's tokens (``meta["tokens"]``) when they fit the text, else None."""
    raw = sentence.meta.get("tokens")
    if not isinstance(raw, list) or not raw:
        return None
    out: list[CharSpan] = []
    last = 0
    for item in raw:
        if not (isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(v, int) for v in item)):
            return None
        s, e = int(item[0]), int(item[1])
        if not (last <= s < e <= len(sentence.text)) or not sentence.text[s:e].strip():
            return None
        out.append((s, e))
        last = e
    return out


def tokenize(sentence: Sentence) -> list[CharSpan]:
    """Tokens of ``sentence``: the reader's (``meta["tokens"]``) or words and punctuation marks,
    cut at every span boundary so that each labelled span is a run of whole tokens."""
    text = sentence.text
    base = _meta_tokens(sentence) or [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    cuts = sorted({o for st in sentence.structures for sp in st.spans() for o in (sp.start, sp.end)})
    out: list[CharSpan] = []
    for s, e in base:
        bounds = [s, *(c for c in cuts if s < c < e), e]
        for a, b in zip(bounds, bounds[1:], strict=False):
            piece = text[a:b]
            if piece.strip():
                lead = len(piece) - len(piece.lstrip())
                out.append((a + lead, a + len(piece.rstrip())))
    return out


def labelled_spans(structure: Structure) -> list[tuple[Span, str]]:
    """The spans of ``structure`` that replacement may change, with their labels: an entity's
    mention (labelled with the entity type), or a predicate's arguments (never one that overlaps
    the anchor: a noun target that is its own FE)."""
    if structure.kind == "entity":
        return [(structure.anchor, structure.label)] if structure.anchor is not None else []
    anchor = structure.anchor
    return [(a, a.label) for a in structure.args if a.label and (anchor is None or not a.overlaps(anchor))]


def _wordlike(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _at_start(text: str, offset: int) -> bool:
    """Whether ``offset`` begins the sentence (nothing but punctuation before it)."""
    return not _wordlike(text[:offset])


_FINAL = re.compile(r"\s*[.!?]+[\"'”’)]*\s*$")


def _final_punctuation(text: str, span: Span) -> int:
    """How many characters at the end of an argument ``span`` are its sentence's final
    punctuation (0 unless the span ends the sentence): they stay in place when it is replaced,
    and they are no part of it as a donor."""
    if text[span.end:].strip():
        return 0
    found = _FINAL.search(text[span.start:span.end])
    return len(found.group(0)) if found and found.start() > 0 else 0


def _fit_case(new: str, at_start: bool) -> str:
    """A donor's text for its new place: capitalized at the start of the sentence; a closed-class
    first word that was capitalized only because it began its own sentence is lowered."""
    if not new:
        return new
    if at_start:
        return new[:1].upper() + new[1:]
    first = re.match(r"\w+", new)
    if first is not None:
        word = first.group(0)
        if word.lower() in _CLOSED and word[:1].isupper() and not (len(word) > 1 and word.isupper()):
            return new[:1].lower() + new[1:]
    return new


# ----------------------------------------------------------------------------- edits → candidate


def _mapping(tokens: Sequence[CharSpan], heads: Sequence[int], edits: Sequence[Edit], new_tokens: Sequence[CharSpan],
             new_edits: Sequence[CharSpan], new_text: str) -> TokenMapping:
    """Source token → output token: kept tokens as they are, a replaced token ``changed``; a
    longer mention's extra words attached to its last token, a shorter one's last tokens deleted."""
    covered: dict[int, int] = {}
    for k, e in enumerate(edits):
        for i in tokens_in(tokens, e.start, e.end):
            covered[i] = k
    out: list[MappedToken] = []
    done: set[int] = set()
    for i, (s, e) in enumerate(new_tokens):
        k = covered.get(i)
        if k is None:
            out.append(MappedToken(s, e, i))
            continue
        if k in done:
            continue
        done.add(k)
        ids = [j for j, kk in sorted(covered.items()) if kk == k]
        start, end = new_edits[k]
        pieces = [(start + m.start(), start + m.end()) for m in _TOKEN.finditer(new_text[start:end])] or [(start, end)]
        for j, (a, b) in enumerate(pieces):
            if j < len(ids):
                out.append(MappedToken(a, b, ids[j], changed=edits[k].changed))
            else:
                out.append(MappedToken(a, b, None, attach=ids[-1]))
    return TokenMapping(tuple(tokens), tuple(heads), tuple(out))


def _scope(request: GenerationRequest, what: str) -> tuple[list[int] | None, str | None]:
    """The structures a request changes, or why there are none to work on."""
    sentence = request.sentence
    if sentence is None:
        return None, f"{what} needs the annotated sentence (request.sentence), not plain text"
    if request.structure is None:
        return list(range(len(sentence.structures))), None
    if not 0 <= request.structure < len(sentence.structures):
        return None, f"the sentence has no structure {request.structure}"
    return [request.structure], None


class _Drawing:
    """Shared by the random baselines: seeded draws until ``n`` distinct candidates."""

    name = ""
    capabilities = Capabilities()

    def __init__(self, p: float, n: int, seed: int) -> None:
        if not 0.0 < p <= 1.0:
            raise ParaspanError.from_code("E880", option="p", rule="a probability in (0, 1]", value=p,
                                          fix="e.g. --set generator.p=0.3")
        if n < 1:
            raise ParaspanError.from_code("E880", option="n", rule="at least 1", value=n,
                                          fix="e.g. --candidates 5")
        self.p = p
        self.n = n
        self.seed = seed
        self.info: dict[str, Any] = {"baseline": self.name, "p": p}

    def rng(self, request: GenerationRequest) -> random.Random:
        # a str seed is hashed with SHA-512 by random.Random: the same in every process and run
        return random.Random(f"{self.seed}\x1f{request.id}")

    def _draw(self, request: GenerationRequest, text: str, draw: Callable[[random.Random], list[Edit]],
              build: Callable[[list[Edit]], Candidate]) -> list[Candidate]:
        rng = self.rng(request)
        wanted = request.n or self.n
        seen = {text}
        out: list[Candidate] = []
        for _ in range(DRAWS_PER_CANDIDATE * wanted):
            edits = draw(rng)
            if not edits:
                continue
            cand = build(edits)
            if cand.text in seen:
                continue
            seen.add(cand.text)
            out.append(cand)
            if len(out) == wanted:
                break
        return out


def _candidate(sentence: Sentence, tokens: Sequence[CharSpan], heads: Sequence[int] | None, edits: list[Edit],
               frozen: Sequence[CharSpan], method: str) -> Candidate:
    """A candidate with every structure placed and a token mapping (articles fixed first)."""
    edits = sorted(edits, key=lambda e: e.start)
    edits = sorted([*edits, *article_edits(sentence.text, tokens, edits, frozen)], key=lambda e: e.start)
    new_text, placed, new_tokens, new_edits = apply_edits(sentence.text, sentence.structures, tokens, edits)
    mapping = _mapping(tokens, heads if heads is not None else list(range(len(tokens))), edits, new_tokens,
                       new_edits, new_text)
    meta = {"baseline": method, "edits": [[sentence.text[e.start:e.end], e.new, e.label] for e in edits if e.changed]}
    return Candidate(new_text, {}, structures=placed, mapping=mapping, meta=meta)


def _frozen_anchors(sentence: Sentence, which: Sequence[int]) -> list[CharSpan]:
    """The predicate anchors of the structures being changed: never edited."""
    return [(st.anchor.start, st.anchor.end) for k in which
            for st in [sentence.structures[k]] if st.kind in PREDICATE_KINDS and st.anchor is not None]


# ----------------------------------------------------------------------------- donor pool


@dataclass
class DonorPool:
    """Label-wise tokens (``(kind, label, "B"|"I")``) and mentions (``(kind, label)``) with counts."""

    tokens: dict[tuple[str, str, str], Counter[str]] = field(default_factory=dict)
    mentions: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    sentences: int = 0
    _seen: set[tuple[str, str]] = field(default_factory=set, repr=False)

    def add(self, sentence: Sentence) -> bool:
        """Add the labelled spans of ``sentence`` (once per id and text); whether it was new."""
        key = (sentence.id, sentence.text)
        if key in self._seen:
            return False
        self._seen.add(key)
        self.sentences += 1
        text = sentence.text
        toks = tokenize(sentence)
        for st in sentence.structures:
            for span, label in labelled_spans(st):
                cut = _final_punctuation(text, span) if st.kind != "entity" else 0
                mention = text[span.start:span.end - cut].strip()
                if _wordlike(mention):
                    self.mentions.setdefault((st.kind, label), Counter())[mention] += 1
                for pos, i in enumerate(tokens_in(toks, span.start, span.end)):
                    word = text[toks[i][0]:toks[i][1]]
                    if _wordlike(word):
                        self.tokens.setdefault((st.kind, label, "B" if pos == 0 else "I"), Counter())[word] += 1
        return True

    def add_all(self, sentences: Iterable[Sentence]) -> None:
        for sentence in sentences:
            self.add(sentence)

    @staticmethod
    def choices(table: dict[Any, Counter[str]], key: Any, original: str) -> tuple[list[str], list[int]]:
        """Donors of ``key`` other than ``original`` (any case), sorted, with their counts."""
        counter = table.get(key)
        if not counter:
            return [], []
        low = original.casefold()
        items = sorted((w, c) for w, c in counter.items() if w.casefold() != low)
        return [w for w, _ in items], [c for _, c in items]

    @classmethod
    def load(cls, path: str | Path, fmt: str | None = None) -> DonorPool:
        """A pool of every labelled span of the corpus at ``path`` (format ``fmt``, or guessed)."""
        from paraspan.corpus.formats import guess_format, read_corpus

        pool = cls()
        pool.add_all(read_corpus(path, fmt or guess_format(path) or "jsonl"))
        if not pool.mentions:
            raise ParaspanError.from_code("E882", path=str(path))
        return pool


class _Donating(_Drawing):
    """Token and mention replacement: a donor pool, from a corpus or from what was seen."""

    def __init__(self, p: float, n: int, seed: int, donors: DonorPool | str | Path | None = None,
                 donors_format: str | None = None) -> None:
        super().__init__(p, n, seed)
        self.fixed = donors is not None
        if donors is None:
            self.pool = DonorPool()
        elif isinstance(donors, DonorPool):
            self.pool = donors
        else:
            self.pool = DonorPool.load(donors, donors_format)
        self.info["donors"] = (str(donors) if isinstance(donors, (str, Path)) else
                               "given" if self.fixed else "seen sentences")

    def _prepare(self, request: GenerationRequest) -> tuple[Sentence | None, list[int] | None, str | None]:
        which, why = _scope(request, self.name)
        sentence = request.sentence
        if sentence is not None and not self.fixed:
            self.pool.add(sentence)
        return sentence, which, why


class TokenReplacer(_Donating):
    """Label-wise token replacement (Dai & Adel 2020; see the module docstring); registered as ``token_replace``."""

    name = "token_replace"
    capabilities = Capabilities(honours_ban=False, needs_structure=True, deterministic=True, keeps_meaning=False)

    def generate(self, request: GenerationRequest) -> GenerationResult:
        sentence, which, why = self._prepare(request)
        if sentence is None or which is None:
            return GenerationResult(request, [], note=why)
        text = sentence.text
        tokens = tokenize(sentence)
        frozen = _frozen_anchors(sentence, which)
        keys: dict[int, tuple[str, str, str]] = {}
        for k in which:
            st = sentence.structures[k]
            for span, label in labelled_spans(st):
                for pos, i in enumerate(tokens_in(tokens, span.start, span.end)):
                    s, e = tokens[i]
                    if i in keys or not _wordlike(text[s:e]) or any(a < e and s < b for a, b in frozen):
                        continue
                    keys[i] = (st.kind, label, "B" if pos == 0 else "I")
        if not keys:
            return GenerationResult(request, [], note="no labelled span to replace tokens in")
        options = {i: DonorPool.choices(self.pool.tokens, key, text[tokens[i][0]:tokens[i][1]])
                   for i, key in sorted(keys.items())}
        options = {i: o for i, o in options.items() if o[0]}
        if not options:
            labels = sorted({f"{k[1]} ({k[2]})" for k in keys.values()})
            return GenerationResult(request, [], note="no donor token with the same label: "
                                    f"{', '.join(labels)} (pool of {self.pool.sentences} sentences)")

        def draw(rng: random.Random) -> list[Edit]:
            edits = []
            for i, (words, weights) in options.items():
                if rng.random() < self.p:
                    word = rng.choices(words, weights)[0]
                    s, e = tokens[i]
                    edits.append(Edit(s, e, _fit_case(word, _at_start(text, s)), keys[i][1]))
            return edits

        cands = self._draw(request, text, draw, lambda edits: _candidate(sentence, tokens, None, edits, frozen,
                                                                         self.name))
        return GenerationResult(request, cands, note=None if cands else "every draw repeated the source or another "
                                "candidate", stats={"replaceable_tokens": len(options)})


class MentionReplacer(_Donating):
    """Mention replacement (Dai & Adel 2020; see the module docstring); registered as ``mention_replace``."""

    name = "mention_replace"
    capabilities = Capabilities(honours_ban=False, needs_structure=True, deterministic=True, keeps_meaning=False)

    def generate(self, request: GenerationRequest) -> GenerationResult:
        sentence, which, why = self._prepare(request)
        if sentence is None or which is None:
            return GenerationResult(request, [], note=why)
        text = sentence.text
        frozen = _frozen_anchors(sentence, which)
        changed = [sentence.structures[k] for k in which]
        # every span of the structures being changed must come through whole: a mention is only
        # replaced when no other of their spans lies inside it or cuts it
        others = [sp for st in changed for sp in st.spans()]
        targets: dict[tuple[int, int], tuple[Span, str, str]] = {}
        for st in changed:
            for span, label in labelled_spans(st):
                key = (span.start, span.end)
                if key in targets or any(a < span.end and span.start < b for a, b in frozen):
                    continue
                if any((o.start, o.end) != key and o.overlaps(span)
                       and not (o.start <= span.start and span.end <= o.end) for o in others):
                    continue
                targets[key] = (span, st.kind, label)
        if not targets:
            return GenerationResult(request, [], note="no labelled span to replace")
        options: dict[tuple[int, int], tuple[Span, str, tuple[list[str], list[int]]]] = {}
        for key, (span, kind, label) in sorted(targets.items()):
            # an argument that ends the sentence keeps the sentence's final punctuation
            cut = _final_punctuation(text, span) if kind != "entity" else 0
            edited = Span(span.start, span.end - cut, label)
            found = DonorPool.choices(self.pool.mentions, (kind, label), edited.text_in(text).strip())
            if found[0]:
                options[key] = (edited, label, found)
        if not options:
            labels = sorted({label for _, _, label in targets.values()})
            return GenerationResult(request, [], note="no donor mention with the same label: "
                                    f"{', '.join(labels)} (pool of {self.pool.sentences} sentences)")

        def draw(rng: random.Random) -> list[Edit]:
            edits: list[Edit] = []
            for span, label, (texts, weights) in options.values():
                if rng.random() < self.p and not any(e.start < span.end and span.start < e.end for e in edits):
                    new = rng.choices(texts, weights)[0]
                    edits.append(Edit(span.start, span.end, _fit_case(new, _at_start(text, span.start)), label))
            return edits

        tokens = tokenize(sentence)
        cands = self._draw(request, text, draw, lambda edits: _candidate(sentence, tokens, None, edits, frozen,
                                                                         self.name))
        return GenerationResult(request, cands, note=None if cands else "every draw repeated the source or another "
                                "candidate", stats={"replaceable_mentions": len(options)})


# ----------------------------------------------------------------------------- synonyms


class SynonymReplacer(_Drawing):
    """WordNet synonym replacement outside the labelled spans (see the module docstring);
    registered as ``synonym_replace``.

    The parse is the packaged spaCy pipeline's (the rewriter's), WordNet the packaged 3.0
    (:func:`paraspan.models.load_wordnet`), inflection LemmInflect's. A word is a candidate when
    it is a noun, verb, adjective or adverb, not a stop word, a name (spaCy entity), part of a
    compound or an auxiliary; its synonyms are the single-word lemmas of its ``senses`` most
    frequent synsets (``attested``: only lemmas SemCor has seen in that sense, which leaves out
    most rare words), inflected to its tag.
    """

    name = "synonym_replace"
    capabilities = Capabilities(honours_ban=False, needs_structure=True, deterministic=True, keeps_meaning=True)

    def __init__(self, p: float = 0.3, n: int = 5, seed: int = 0, senses: int = 1, attested: bool = True,
                 nlp: Any = None, wordnet: Any = None) -> None:
        super().__init__(p, n, seed)
        if senses < 1:
            raise ParaspanError.from_code("E880", option="senses", rule="at least 1", value=senses,
                                          fix="e.g. --set generator.senses=1")
        self.senses = senses
        self.attested = attested
        self._nlp = nlp
        self._wordnet = wordnet
        self.info.update({"senses": senses, "attested": attested})

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            from paraspan.models import load_spacy

            self._nlp = load_spacy()
        return self._nlp

    @property
    def wordnet(self) -> Any:
        if self._wordnet is None:
            from paraspan.models import load_wordnet

            self._wordnet = load_wordnet()
        return self._wordnet

    def synonyms(self, token: Any) -> list[str]:
        """Inflected synonyms of a spaCy token (the module's rules), in WordNet's order."""
        from paraspan.models.inflect import inflect

        if token.pos_ not in _WN_POS or token.is_stop or not token.is_alpha or len(token.text) < 3:
            return []
        if token.dep_ in ("aux", "auxpass", "neg", "compound", "prt") or token.ent_type_:
            return []
        if any(c.dep_ == "prt" for c in token.children):  # a phrasal verb: "give up" is not "give"
            return []
        lemma = token.lemma_.lower()
        out: dict[str, None] = {}
        for synset in self.wordnet.synsets(lemma, pos=_WN_POS[token.pos_])[: self.senses]:
            for ln in synset.lemmas():
                name = ln.name()
                if name.lower() == lemma or not name.isalpha() or (self.attested and ln.count() <= 0):
                    continue
                form = name if token.tag_ in _BASE_TAGS else inflect(name, token.tag_)
                if not form or form.lower() == token.text.lower():
                    continue
                if token.text.isupper() and len(token.text) > 1:
                    form = form.upper()
                elif token.text[:1].isupper():
                    form = form[:1].upper() + form[1:]
                out.setdefault(form, None)
        return list(out)

    def generate(self, request: GenerationRequest) -> GenerationResult:
        from paraspan.generate.project import doc_heads, doc_tokens

        which, why = _scope(request, self.name)
        sentence = request.sentence
        if sentence is None or which is None:
            return GenerationResult(request, [], note=why)
        text = sentence.text
        doc = self.nlp(text)
        tokens = doc_tokens(doc)
        # the spans of the structures being changed, and every entity mention, keep their words
        kept = [(sp.start, sp.end) for k in which for sp in sentence.structures[k].spans()]
        kept += [(st.anchor.start, st.anchor.end) for st in sentence.structures
                 if st.kind == "entity" and st.anchor is not None]
        options: dict[int, list[str]] = {}
        for tok in doc:
            s, e = tokens[tok.i]
            if any(a < e and s < b for a, b in kept):
                continue
            found = self.synonyms(tok)
            if found:
                options[tok.i] = found
        if not options:
            return GenerationResult(request, [], note="no word outside the labelled spans has a WordNet synonym")

        def draw(rng: random.Random) -> list[Edit]:
            edits = []
            for i, forms in options.items():
                if rng.random() < self.p:
                    s, e = tokens[i]
                    edits.append(Edit(s, e, rng.choice(forms)))
            return edits

        heads = doc_heads(doc)
        cands = self._draw(request, text, draw, lambda edits: _candidate(sentence, tokens, heads, edits, kept,
                                                                         self.name))
        return GenerationResult(request, cands, note=None if cands else "every draw repeated the source or another "
                                "candidate", stats={"replaceable_words": len(options)})


# ----------------------------------------------------------------------------- sister LUs


class SisterLUReplacer:
    """Sister-LU replacement without infilling (Pancholy et al. 2021); registered as ``sister_lu``.

    For each FrameNet ``frame`` structure asked for: the LUs of its frame with the target's part
    of speech (:meth:`FrameIndex.sister_lus`; not the same lemma, nor names with brackets or
    underscores), in an order drawn from the seed and the request id; the first ``n`` that inflect
    to the form of the target (:func:`~paraspan.generate.sister_lu.inflect_lu_like`) replace it
    (:func:`~paraspan.generate.sister_lu.replace_lu`: the anchor is relabelled with the new LU and
    every FE moves). An "a"/"an" before the target is fixed for the new word. A discontinuous
    target ("take … off") is left alone, and so are targets of other parts of speech than
    ``pos`` (FrameNet's LU suffixes; by default verbs, nouns and adjectives: the sisters of a
    preposition, conjunction or adverb swap "in" for "on", "because" for "so", "where" for
    "underground" — other words, not the same situation).
    """

    name = "sister_lu"
    capabilities = Capabilities(honours_ban=False, needs_structure=True, deterministic=True, keeps_meaning=True)

    def __init__(self, frames: FrameIndex | str | Path | None, n: int = 5, seed: int = 0,
                 pos: Sequence[str] = CONTENT_POS) -> None:
        if frames is None:
            raise ParaspanError.from_code("E881")
        if n < 1:
            raise ParaspanError.from_code("E880", option="n", rule="at least 1", value=n, fix="e.g. --candidates 5")
        unknown = [p for p in pos if p not in LU_POS]
        if unknown or not pos:
            raise ParaspanError.from_code("E880", option="pos", rule=f"LU suffixes of {', '.join(LU_POS)} or all",
                                          value=",".join(pos), fix="e.g. --set generator.pos=v,n,a")
        self.pos = tuple(pos)
        if not hasattr(frames, "frames"):
            from paraspan.corpus.frame_index import FrameIndex

            frames = FrameIndex.load(frames)  # type: ignore[arg-type]
        self.frames: FrameIndex = frames  # type: ignore[assignment]
        self.n = n
        self.seed = seed
        self.info: dict[str, Any] = {"baseline": self.name, "pos": ",".join(self.pos)}

    def sisters(self, structure: Structure) -> list[LexUnit]:
        """The LUs that may replace the target of ``structure`` (sorted by name)."""
        from paraspan.text.lexical_units import lu_pos

        label = structure.anchor.label if structure.anchor is not None else None
        pos = lu_pos(label)
        if not label or pos is None:
            return []
        return [lu for lu in self.frames.sister_lus(label, frame=structure.label, pos=pos)
                if lemma_words(lu) != lemma_words(label) and not re.search(r"[()\[\]_]", lu.name)]

    def generate(self, request: GenerationRequest) -> GenerationResult:
        which, why = _scope(request, self.name)
        sentence = request.sentence
        if sentence is None or which is None:
            return GenerationResult(request, [], note=why)
        rng = random.Random(f"{self.seed}\x1f{request.id}")
        queues: list[list[tuple[int, LexUnit]]] = []
        notes: list[str] = []
        for k in which:
            st = sentence.structures[k]
            reason = self._skip(st)
            if reason is None:
                sisters = self.sisters(st)
                rng.shuffle(sisters)
                if not sisters:
                    reason = f"no sister LU of {st.anchor.label if st.anchor else '?'} in {st.label}"
                queues.append([(k, lu) for lu in sisters])
            if reason is not None:
                notes.append(reason)
        # several structures (a request without one): take them in turn
        jobs = [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]
        wanted = request.n or self.n
        out: list[Candidate] = []
        seen = {sentence.text}
        failed: list[str] = []
        for k, lu in jobs:
            cand = self._replace(sentence, k, lu)
            if cand is None:
                failed.append(lu.name)
                continue
            if cand.text in seen:
                continue
            seen.add(cand.text)
            out.append(cand)
            if len(out) == wanted:
                break
        if not out and failed:
            st = sentence.structures[jobs[0][0]]
            anchor = st.anchor.text_in(sentence.text) if st.anchor is not None else "?"
            notes.append(f"cannot inflect a sister LU like {anchor!r} ({st.anchor.label if st.anchor else '?'})")
        return GenerationResult(request, out, note=None if out else "; ".join(notes) or "no sister LU",
                                stats={"sisters": len(jobs), "not_inflected": len(failed)})

    def _skip(self, structure: Structure) -> str | None:
        from paraspan.text.lexical_units import lu_pos

        if structure.kind != "frame":
            return f"not a FrameNet frame structure ({structure.kind})"
        if structure.anchor is None or not structure.anchor.label:
            return "no target LU"
        if lu_pos(structure.anchor.label) not in self.pos:
            return f"{structure.anchor.label} is not of a part of speech replaced (pos: {','.join(self.pos)})"
        if structure.extra.get("anchor_rest"):
            return "a discontinuous target"
        return None

    def _replace(self, sentence: Sentence, k: int, lu: LexUnit) -> Candidate | None:
        text = sentence.text
        structure = sentence.structures[k]
        anchor = require_anchor(structure, "sister-LU replacement")
        if not anchor.label:
            return None  # no LU to replace it with a sister of
        words = _WORD.findall(text[:anchor.start])
        form = inflect_lu_like(anchor.text_in(text), anchor.label, lu.name, words[-1] if words else "")
        if form is None:
            return None
        new_text, target = replace_lu(text, structure, lu, form)
        edit = Edit(anchor.start, anchor.end, form, anchor.label)
        tokens = tokenize(sentence)
        same_text, placed, _, _ = apply_edits(text, sentence.structures, tokens, [edit])
        if same_text != new_text:
            raise ParaspanError.from_code("E973", what="sister-LU replacement's edit and its span splice",
                                          first=new_text, second=same_text)
        # an FE that the target cuts (not the target itself, nor one holding it) has no place
        target.args = [new for old, new in zip(structure.args, target.args, strict=True)
                       if span_relation(old, [edit]) != "broken"]
        placed[k] = target
        fixes = article_edits(text, tokens, [edit], [])
        if fixes:  # "a"/"an" before the new word: a second pass over the new text (it lies before the target)
            new_text, placed, _, _ = apply_edits(new_text, placed, [], fixes)
        meta = {"baseline": self.name, "structure": k, "lu_from": anchor.label, "lu_to": lu.name}
        return Candidate(new_text, {}, structures=placed, meta=meta)


# ----------------------------------------------------------------------------- factories


class DonorPoolFactory(GeneratorFactory):
    """A donor-pool generator's factory: without ``donors`` the pool is the sentences the run has
    seen, so it reads the corpus (:func:`paraspan.generate.base.reads_corpus`)."""

    def reads_corpus(self, options: Mapping[str, Any]) -> bool:
        return options.get("donors") is None


@DonorPoolFactory
def make_token_replacer(p: float = 0.3, donors: str | None = None, donors_format: str | None = None, n: int = 5,
                        seed: int = 0) -> TokenReplacer:
    """The registered ``token_replace`` generator: each labelled token replaced with probability
    ``p`` by a donor token of the same label and position; ``donors`` a corpus to draw them from
    (format ``donors_format``, guessed from the name by default; default: the sentences seen)."""
    return TokenReplacer(p, n, seed, donors, donors_format)


@DonorPoolFactory
def make_mention_replacer(p: float = 0.3, donors: str | None = None, donors_format: str | None = None, n: int = 5,
                          seed: int = 0) -> MentionReplacer:
    """The registered ``mention_replace`` generator: each labelled span replaced with probability
    ``p`` by a donor mention of the same label; ``donors`` as for ``token_replace``."""
    return MentionReplacer(p, n, seed, donors, donors_format)


def make_synonym_replacer(p: float = 0.3, senses: int = 1, attested: bool = True, n: int = 5,
                          seed: int = 0) -> SynonymReplacer:
    """The registered ``synonym_replace`` generator: each content word outside the labelled spans
    replaced with probability ``p`` by a WordNet synonym of its ``senses`` most frequent senses
    (``attested``: only lemmas SemCor has seen in that sense), inflected like it."""
    return SynonymReplacer(p, n, seed, senses, attested)


def make_sister_lu(frames: str | None = None, pos: str = "v,n,a", n: int = 5, seed: int = 0) -> SisterLUReplacer:
    """The registered ``sister_lu`` generator: the target replaced by other LUs of its frame with
    its part of speech, inflected like it; ``frames`` the FrameNet release (folder or .tar.gz),
    ``pos`` the targets replaced (comma-separated LU suffixes: v, n, a, adv, prep …, or all)."""
    wanted = LU_POS if pos.strip().lower() == "all" else tuple(p.strip().lower() for p in pos.split(",") if p.strip())
    replacer = SisterLUReplacer(frames, n, seed, wanted)
    replacer.info["frames"] = str(frames)
    return replacer
