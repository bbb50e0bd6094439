"""The rewrite generator: apply rules to a parsed sentence, render, project the labels.

Two entry points:

- :class:`Rewriter` follows the :mod:`paraspan.generate.base` contract (registered as
  ``"rewrite"`` in ``generators``): ``generate(request)`` → candidates, each with a
  :class:`~paraspan.generate.base.TokenMapping` (source token → output token, with offsets).
- :meth:`Rewriter.rewrite_sentence` turns a corpus :class:`Sentence` into rewritten
  ``Sentence``s with ``source_id`` and ``provenance``, its structures carried over by
  :func:`paraspan.generate.project.project_mapping`.

Bad input never raises: sentences spaCy cannot parse into two or more words, rules that would
produce an empty sentence or the same text, and rewrites that lose every structure are skipped
and counted in :attr:`Rewriter.counts`. A rule that raises is a bug: it is logged with the rule's
name and the sentence's id and counted, and with ``strict=True`` (the tests) raised as
:class:`RuleFailure`.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.generate.base import (
    Candidate,
    Capabilities,
    GenerationRequest,
    GenerationResult,
    GeneratorFactory,
    MappedToken,
    TokenMapping,
)
from paraspan.generate.project import doc_heads, doc_tokens, project_mapping, tokens_in
from paraspan.generate.rewrite.core import (
    _FINAL,
    Piece,
    RuleContext,
    keep_name_capitals,
    lower_common_capitals,
    markup_text,
    render,
)
from paraspan.generate.rewrite.rules import RuleSet
from paraspan.provenance import Generated

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

log = logging.getLogger(__name__)


class RuleFailure(RuntimeError):
    """A rewrite rule raised on a sentence (a bug in the rule, raised in strict mode)."""

    def __init__(self, rule: str, sentence_id: str | None, exc: Exception) -> None:
        super().__init__(f"rewrite rule {rule!r} failed on sentence {sentence_id or '(no id)'}: "
                         f"{type(exc).__name__}: {exc}")
        self.rule, self.sentence_id = rule, sentence_id


@dataclass
class RawRewrite:
    """One rule's output before projection."""

    rule: str
    pieces: list[Piece]
    text: str
    offsets: list[tuple[int, int]]

    def mapping(self, doc: Doc) -> TokenMapping:
        """The source → output token mapping of this rewrite of ``doc``."""
        return TokenMapping(
            tuple(doc_tokens(doc)), tuple(doc_heads(doc)),
            tuple(MappedToken(s, e, p.src, p.changed, p.attach, p.marker, p.absorbs,
                              stop=p.src is None and p.attach is None and p.text in _FINAL, copy=p.copy)
                  for p, (s, e) in zip(self.pieces, self.offsets, strict=True)))


class Rewriter:
    """Rewrite sentences with a :class:`RuleSet` (default: every hand-written + learned rule).

    As the registered ``rewrite`` generator its options are ``rules`` (a rules file written by
    ``paraspan refine-rules``; default: every rule), ``max_per_sentence`` and ``max_lexical``
    (WordNet substitutions per sentence). Rules keep the words they move, so ``ban`` does not
    apply: the pipeline runs one iteration per structure. ``strict``: a rule that raises stops the
    run (:class:`RuleFailure`) instead of being logged and counted.
    """

    capabilities = Capabilities(honours_ban=False, deterministic=True)

    def __init__(self, rules: RuleSet | str | None = None, *, max_per_sentence: int | None = None,
                 nlp: Language | None = None, max_lexical: int = 3, n: int | None = None,
                 families: str | Sequence[str] | None = None, strict: bool = False) -> None:
        if isinstance(rules, str):
            rules = RuleSet.from_file(rules)
        self.rules = rules if rules is not None else RuleSet.default()
        if families is not None:  # a preset or family names (rules.FAMILY_PRESETS)
            self.rules = self.rules.only(families)
        self.max_per_sentence = max_per_sentence if max_per_sentence is not None else n
        self.max_lexical = max_lexical
        self.strict = strict
        self._nlp = nlp
        self._wordnet: Any = None
        self.counts: Counter = Counter()

    # -- models, loaded on first use
    @property
    def nlp(self) -> Language:
        if self._nlp is None:
            from paraspan.models import load_spacy

            self._nlp = load_spacy()
        return self._nlp

    def wordnet(self) -> Any:
        if self._wordnet is None:
            from paraspan.models import load_wordnet

            self._wordnet = load_wordnet()
        return self._wordnet

    def _common_word(self, word: str) -> bool:
        """Whether WordNet knows ``word`` in lower case and as no name ("noise", not "Paris")."""
        names = {lemma.name() for synset in self.wordnet().synsets(word.lower()) for lemma in synset.lemmas()}
        return word.lower() in names and word not in names

    def _context(self, protected: Iterable[int]) -> RuleContext:
        from paraspan.models.inflect import inflect

        return RuleContext(frozenset(protected), self.wordnet, inflect, self.max_lexical)

    # -- core
    def raw_rewrites(self, doc: Doc, protected: Iterable[int] = (), names: Iterable[int] = (),
                     sentence_id: str | None = None) -> list[RawRewrite]:
        """Every rule's rewrites of ``doc``: distinct, non-empty, different from the source. ``names``: the
        tokens of labelled entity mentions, whose capitals no rule lowers; ``sentence_id`` names the
        sentence when a rule fails on it."""
        if sum(1 for t in doc if not t.is_punct and not t.is_space) < 2:
            self.counts["skipped_too_short"] += 1
            return []
        if false_sentence_break(doc):
            self.counts["skipped_title_break"] += 1
            return []
        if shouted(doc):
            self.counts["skipped_all_caps"] += 1
            return []
        ctx = self._context(protected)
        names = frozenset(names)
        seen = {doc.text.strip()}
        found: list[RawRewrite] = []
        for rule in self.rules.rules:
            try:
                outputs = rule.apply(doc, ctx)
            except Exception as exc:  # noqa: BLE001 — one rule failing on an odd parse must not stop a corpus run
                self.counts[f"rule_error:{rule.name}:{type(exc).__name__}"] += 1
                if self.strict:
                    raise RuleFailure(rule.name, sentence_id, exc) from exc
                log.warning("rewrite rule %s failed on sentence %s: %s: %s", rule.name, sentence_id or "(no id)",
                            type(exc).__name__, exc, exc_info=log.isEnabledFor(logging.DEBUG))
                continue
            for pieces in outputs:
                lower_common_capitals(doc, pieces, self._common_word)
                keep_name_capitals(doc, pieces, names)
                if not any(p.text.strip() and any(ch.isalnum() for ch in p.text) for p in pieces):
                    self.counts["skipped_empty"] += 1
                    continue
                if moves_markup(doc, pieces):
                    self.counts["skipped_moves_markup"] += 1
                    continue
                if moves_cut_end(doc, pieces):
                    self.counts["skipped_moves_cut_end"] += 1
                    continue
                text, offsets = render(doc, pieces)
                if text.strip() in seen:
                    self.counts["skipped_identical"] += 1
                    continue
                seen.add(text.strip())
                found.append(RawRewrite(rule.name, pieces, text, offsets))
        return found

    def _select(self, items: list[Any], rule_of, key: str) -> list[Any]:
        """At most ``max_per_sentence``: one per rule in turn, the rules in an order that is
        pseudo-random per sentence (hash of ``key`` and the rule name), so that no rule — and no
        position in the rule list — crowds out the rest, and runs are reproducible."""
        if self.max_per_sentence is None or len(items) <= self.max_per_sentence:
            return items
        by_rule: dict[str, list[Any]] = {}
        for item in items:
            by_rule.setdefault(rule_of(item), []).append(item)
        order = sorted(by_rule, key=lambda n: hashlib.sha1(f"{key}\t{n}".encode()).digest())
        queues = [by_rule[name] for name in order]
        chosen: list[Any] = []
        while len(chosen) < self.max_per_sentence:
            for queue in queues:
                if queue and len(chosen) < self.max_per_sentence:
                    chosen.append(queue.pop(0))
        return chosen

    def generate(self, request: GenerationRequest) -> GenerationResult:
        """Rewrites of ``request.text``. ``keep`` spans — and the anchor of the structure being
        augmented — are protected from lexical substitution, and rewrites that change a kept
        span's text are dropped; ``ban`` does not apply (rules keep the words)."""
        if request.sentence is not None and request.structure is not None and \
                request.sentence.structures[request.structure].extra.get("anchor_rest"):
            # a discontinuous target ("rang a vague bell"): the output's anchor would be its first piece
            # alone (the further pieces' offsets do not carry over)
            self.counts["skipped_discontinuous_anchor"] += 1
            return GenerationResult(request, [], note="a discontinuous anchor")
        doc = self.nlp(request.text)
        tokens = doc_tokens(doc)
        spans = list(request.keep)
        if request.sentence is not None and request.structure is not None:
            anchor = request.sentence.structures[request.structure].anchor
            if anchor is not None:
                spans.append((anchor.start, anchor.end))
        protected = {i for s, e in spans for i in tokens_in(tokens, s, e)}
        found = []
        for raw in self.raw_rewrites(doc, protected, _name_tokens(request.sentence, tokens), request.id):
            if any(request.span_text(k) not in raw.text for k in request.keep):
                self.counts["skipped_keep"] += 1
                continue
            found.append(raw)
        limit = request.n or self.max_per_sentence
        saved, self.max_per_sentence = self.max_per_sentence, limit
        try:
            found = self._select(found, lambda r: r.rule, request.text)
        finally:
            self.max_per_sentence = saved
        candidates = [Candidate(raw.text, {}, mapping=raw.mapping(doc), meta=Generated(rules=(raw.rule,)).meta())
                      for raw in found]
        return GenerationResult(request, candidates, note=None if candidates else "no rule applies")

    def rewrite_sentence(self, sentence: Sentence, doc: Doc | None = None) -> list[Sentence]:
        """Projected rewrites of a corpus sentence (ids ``<id>~rw<k>``)."""
        self.counts["sentences"] += 1
        if doc is None:
            doc = self.nlp(sentence.text)
        tokens = doc_tokens(doc)
        protected = {i for s in sentence.structures for sp in ([s.anchor] if s.anchor else [])
                     for i in tokens_in(tokens, sp.start, sp.end)}
        self.counts["structures_in"] += len(sentence.structures)
        out: list[Sentence] = []
        for raw in self.raw_rewrites(doc, protected, _name_tokens(sentence, tokens), sentence.id):
            mapping = raw.mapping(doc)
            projection = project_mapping(sentence, mapping, label_copies=True)
            self.counts.update(projection.counts)  # over every candidate, emitted or not
            if sentence.structures and not projection.structures:
                self.counts["skipped_all_structures_lost"] += 1
                continue
            provenance = {"method": "rewrite", "rules": [raw.rule],
                          "rule_versions": {raw.rule: self.rules.get(raw.rule).version},
                          "mapping": [list(m) for m in mapping.pairs()],
                          "structures_kept": len(projection.structures),
                          "structures_from": projection.sources,
                          "structures_source": len(sentence.structures)}
            out.append(Sentence(sentence.id, raw.text, projection.structures,
                                {"tokens": [list(o) for o in raw.offsets]}, sentence.id, provenance))
        out = self._select(out, lambda s: s.provenance["rules"][0], sentence.id)
        for k, s in enumerate(out):
            s.id = f"{sentence.id}~rw{k}"
        self.counts["rewrites"] += len(out)
        return out

    def rewrite_corpus(self, sentences: Iterable[Sentence], *, batch_size: int = 64) -> Iterator[Sentence]:
        """Rewrites of every sentence, parsing in batches with ``nlp.pipe``."""
        batch: list[Sentence] = []
        for sentence in sentences:
            batch.append(sentence)
            if len(batch) >= batch_size:
                yield from self._batch(batch)
                batch = []
        if batch:
            yield from self._batch(batch)

    def _batch(self, batch: list[Sentence]) -> Iterator[Sentence]:
        for sentence, doc in zip(batch, self.nlp.pipe([s.text for s in batch]), strict=True):
            yield from self.rewrite_sentence(sentence, doc)


class RewriterFactory(GeneratorFactory):
    """The rewriter's factory: the versions of the code and rules it applies (:func:`_code_versions`)."""

    def code_versions(self, options: Mapping[str, Any]) -> dict[str, str]:
        return _code_versions(dict(options))


@RewriterFactory
def make_rewriter(rules: str | None = None, max_per_sentence: int | None = None, max_lexical: int = 3,
                  families: str = "reliable", learned: str | None = None) -> Rewriter:
    """The registered ``rewrite`` generator: ``rules`` a rules file (``paraspan refine-rules``;
    default: every hand-written and learned rule), ``learned`` a learned rules file used with the
    hand-written rules instead of the shipped one, at most ``max_per_sentence`` rewrites per
    sentence, ``max_lexical`` WordNet substitutions per rewrite, ``families`` the rule families
    used: a preset (``reliable``, the default: the rules that keep the meaning except the passives,
    which were judged right 26 times in 71; ``equivalence``: those and the passives;
    ``forward_entailment``: those and deletions of modifiers; ``all``) or comma-separated names."""
    return Rewriter(_ruleset(rules, learned), max_per_sentence=max_per_sentence, max_lexical=max_lexical,
                    families=families)


def _ruleset(rules: str | None, learned: str | None) -> RuleSet:
    """The rules of ``rules`` (a refined or learned file), else the hand-written ones with ``learned`` (default:
    the shipped learned rules); E715 for both."""
    if rules is not None and learned is not None:
        raise ParaspanError.from_code("E715")
    return RuleSet.from_file(rules) if rules is not None else RuleSet.default(learned)


#: The version of what every rule's rewrite passes through here (the checks of
#: :meth:`Rewriter.raw_rewrites` — tweet markup, shouted text, a text's closing dots — and the
#: projection of labels): bump it when a change there changes what the rewriter writes, as a rule's
#: own version is bumped when the rule changes. 2: the tweet checks and span-edge projection of 2026-11;
#: 3: a labelled mention keeps its written capitals (keep_name_capitals); no span runs across a full stop a rule
#: put in, an argument left in the other sentence is its copy there, and a copied mention is labelled
#: (generate.project); 4: the pipeline labels such a copy too (``carry_entities``), where it had refused the
#: candidate.
REWRITER_VERSION = "4"


def _code_versions(options: dict[str, Any]) -> dict[str, str]:
    """The rewriter's version and that of every rule it applies with ``options`` (see
    :func:`paraspan.generate.base.code_versions`): a fix bumps a version, and outputs of the older
    code are then not served from a run store as this one's."""
    ruleset = _ruleset(options.get("rules"), options.get("learned"))
    if options.get("families") is not None:
        ruleset = ruleset.only(options["families"])
    return {"rewriter": REWRITER_VERSION, **{f"rule:{rule.name}": rule.version for rule in ruleset.rules}}



def rewrite_sentence(sentence: Sentence, rules: RuleSet | None = None, **options: Any) -> list[Sentence]:
    """Convenience: projected rewrites of one sentence with a fresh :class:`Rewriter`."""
    return Rewriter(rules, **options).rewrite_sentence(sentence)


#: titles whose full stop, split off by the corpus's tokenizer ("Dr . Wouter Basson"), the parser
#: reads as the end of a sentence
_TITLES = {"dr", "mr", "mrs", "ms", "prof", "gen", "col", "lt", "sgt", "capt", "cmdr", "adm", "maj", "sen", "rep",
           "gov", "pres", "st", "jr", "sr", "rev", "fr", "hon", "mt", "ft", "no", "vs", "dept", "messrs"}


def false_sentence_break(doc: Doc) -> bool:
    """Whether the parser started a sentence right after a title's full stop ("Project Officer Dr .
    Wouter Basson also set up …") or inside brackets: every rule works within the parser's
    sentences, and a cleft of the second half gave "Dr . It was Wouter Basson that …"; such a
    sentence is not rewritten."""
    depth, broken = 0, False
    for t in doc:
        if t.is_sent_start and t.i > 0 and depth > 0:
            broken = True  # inside brackets: "( … Agence France-Presse/Yahoo! News … )"
        depth += t.text.count("(") - t.text.count(")")
    return broken or any(t.is_sent_start and t.i >= 2 and doc[t.i - 1].text == "." and doc[t.i - 2].lower_ in _TITLES
                         for t in doc)


def _name_tokens(sentence: Sentence | None, tokens: Sequence[tuple[int, int]]) -> set[int]:
    """The tokens of ``sentence``'s entity mentions (None: no sentence)."""
    if sentence is None:
        return set()
    return {i for s in sentence.structures if s.kind == "entity" and s.anchor is not None
            for i in tokens_in(tokens, s.anchor.start, s.anchor.end)}


def markup(token: Token) -> bool:
    """A web address, @user or #hashtag: tweet markup, which the parser reads as words of the sentence."""
    text = token.text
    if text in {"#", "@"}:  # spaCy splits some hashtags: "#" "GG"
        return not token.whitespace_ and token.i + 1 < len(token.doc)
    if token.i > 0 and token.doc[token.i - 1].text in {"#", "@"} and not token.doc[token.i - 1].whitespace_:
        return True
    return bool(token.like_url or token.like_email or markup_text(text))


def moves_markup(doc: Doc, pieces: Sequence[Piece]) -> bool:
    """Whether a rewrite copies, moves or buries tweet markup. The parser reads an @user or a link as
    part of the sentence, so rules took it for a noun phrase (the cascade's WNUT17 outputs, read
    2026-11-28; the examples here are made up): a cleft put the addressee in focus ("It was @sam_k Lena
    that played here"), genitive-to-pp moved a link into the possessor ("the odds of http://bit.ly/…
    Jo Smith"), and split-conjoined-vp copied the addressees as the second clause's subject. Refused:
    a copied piece that is markup; markup whose order against the other source words changed;
    text-initial markup with a word put before it."""
    marked = {t.i for t in doc if markup(t)}
    if not marked:
        return False
    if any(p.src is None and any(part and markup_text(part) for part in p.text.split()) for p in pieces):
        return True
    order = [p.src for p in pieces if p.src is not None]
    for k, i in enumerate(order):
        if i in marked and (any(j > i for j in order[:k]) or any(j < i for j in order[k + 1:])):
            return True  # a source word crossed it
    # markup that opens the text ("@user …", "RT @user: …") addresses or quotes; nothing goes before it
    opening = min(marked)
    if not all(not t.text.strip() or t.i in marked or t.text in {"RT", ":"} for t in doc[:opening]):
        return False
    at = next((k for k, p in enumerate(pieces) if p.src == opening), None)
    return at is not None and any(p.src is None and p.text.strip() for p in pieces[:at])


def moves_cut_end(doc: Doc, pieces: Sequence[Piece]) -> bool:
    """Whether a rewrite moves the word before a text's closing "..." (tweets cut at their length
    limit): that word may be cut short, and its phrase with it. "the spring edition of the garden..."
    (of a garden magazine?) became "the garden's spring edition...", and "as laid out last mont..."
    became "as laid last mont out..." (WNUT17; examples made up). A rewrite must leave the word before
    the closing dots where it was."""
    dots = next((t.i for t in reversed(doc) if t.text in {"...", "…"}), None)
    if dots is None or dots == 0 or not all(t.is_punct or t.is_space or markup(t) for t in doc[dots + 1:]):
        return False
    last = dots - 1
    order = [p.src for p in pieces if p.text.strip()]
    return dots in order and last in order and order.index(dots) != order.index(last) + 1


def shouted(doc: Doc) -> bool:
    """Whether the text is mostly in capitals ("WIN FREE TICKETS FOR A WEEK !!!"): the parser reads
    such words as names and nouns, and a cleft made "It was WIN that FREE TICKETS …" (WNUT17).
    At least three words of two or more letters, and most of them capitals."""
    words = [t.text for t in doc if t.is_alpha and len(t.text) > 1]
    caps = sum(1 for w in words if w.isupper())
    return caps >= 3 and caps * 2 > len(words)
