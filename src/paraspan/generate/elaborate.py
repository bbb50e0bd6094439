"""Reverse entailments by insertion: a non-restrictive relative clause after a noun phrase.

A more specific sentence that entails its source (``paraspan paraphrase --relation reverse``) is
made here by *adding* to the source, never by rewording it: the parse chooses a definite noun
phrase (a subject before its verb, or a noun that ends the sentence), the LLM writes a relative
clause about it ("The channel, which airs old films, has banned Charlie Chan."), and every word
of the source stays where it was. A non-restrictive relative clause is a second claim beside the
sentence's own, so the result entails the source whatever the context (it is not under the
sentence's negation or conditions). The LLM's free reverse outputs were right 18 times in 25
when read (``benchmarks/HISTORY.md``, Directional paraphrases): it rewords what it should keep.

Each output is checked before it is offered: the clause ends where the LLM went on with the
source's own next words (it meant the clause to end there), it agrees in number with the noun,
it does not repeat the sentence, and the rewriter's ``delete-relative-clause`` rule, run on the
output, gives back the source exactly (the parser reads the clause as a non-restrictive relative
clause of that noun and of nothing else).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paraspan.generate.base import (
    Candidate,
    Capabilities,
    CharSpan,
    GenerationRequest,
    GenerationResult,
    GeneratorFactory,
    MappedToken,
    TokenMapping,
)
from paraspan.provenance import Generated

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

__all__ = ["ElaborateConfig", "Elaborator", "Site", "assemble", "clause_of", "insertion_mapping", "make_elaborator",
           "sites"]

SYSTEM = (
    "You add one plausible detail to a sentence: a relative clause (who …, which …) right after the noun "
    "phrase you are given. Keep every other word of the sentence exactly as it is, and do not contradict "
    "or repeat anything the sentence says. Reply with the whole sentence only."
)
#: sentences written for paraspan; the real prompt ends with the source and "Rewritten:" followed
#: by the source up to the noun phrase and a comma, which the LLM continues (who or which is its choice)
EXAMPLES = (
    "Sentence: The committee approved the library budget.\n"
    'Add a clause after: "The committee"\n'
    "Rewritten: The committee, which meets every Tuesday, approved the library budget.\n"
    "Sentence: Marta lent sixty euros to her cousin.\n"
    'Add a clause after: "her cousin"\n'
    "Rewritten: Marta lent sixty euros to her cousin, who was saving for a guitar.\n"
    "Sentence: The mayor said the bridge would reopen in May.\n"
    'Add a clause after: "The mayor"\n'
    "Rewritten: The mayor, who took office last year, said the bridge would reopen in May.\n"
)
#: the examples' clauses: a small LLM copies them into sentences they do not fit ("Judge Denny Chin,
#: who took office last year"; "the Fed, which took office last year")
EXAMPLE_CLAUSES = ("which meets every Tuesday", "who was saving for a guitar", "who took office last year")

#: determiners and possessives that make a common noun's phrase name one known thing
_DEFINITE = frozenset({"the", "this", "that", "these", "those", "his", "her", "its", "their", "our", "my", "your"})
#: entity types after which a relative clause reads as a comment on a date or amount, not a detail
_NO_CLAUSE_ENTS = frozenset({"DATE", "TIME", "MONEY", "PERCENT", "CARDINAL", "QUANTITY", "ORDINAL"})
#: entity types a pronoun cannot refer to: "Iraq, who is an important political figure" (judged
#: wrong, seed4); a company may be "who" in newswire ("Forrester, who specializes in …", judged right)
_PRONOUN_MISFITS = {"who": frozenset({"GPE", "LOC", "FAC"}), "which": frozenset({"PERSON"})}
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_STOP = frozenset({"the", "a", "an", "of", "to", "in", "on", "for", "and", "with", "by", "at", "from", "is", "was",
                   "are", "were", "be", "been", "has", "have", "had", "it", "its", "that", "this", "as", "who",
                   "which"})


@dataclass(frozen=True)
class ElaborateConfig:
    """``n`` outputs per sentence at most, from up to ``sites`` noun phrases, ``samples`` clauses
    sampled for each (top-k at ``temperature``); a clause has at most ``max_words`` words."""

    n: int = 3
    sites: int = 3
    samples: int = 4
    top_k: int = 10
    temperature: float = 0.8
    max_tokens: int = 40
    max_words: int = 14
    seed: int = 0


@dataclass(frozen=True)
class Site:
    """Where a clause goes: after noun ``token``'s phrase ``phrase``, at character ``offset``;
    ``final``: the sentence ends there."""

    token: int
    offset: int
    phrase: str
    final: bool
    #: the noun's entity type ("" for none): the pronoun must fit it (:data:`_PRONOUN_MISFITS`)
    entity: str = ""


def _definite(n: Token) -> bool:
    if n.pos_ == "PROPN":
        return not any(c.dep_ == "det" and c.lower_ in {"a", "an", "no", "every", "each", "any", "some"}
                       for c in n.children)
    return any(c.dep_ == "poss" or (c.dep_ == "det" and c.lower_ in _DEFINITE) for c in n.children)


def _in_open_quotation(n: Token) -> bool:
    """Whether ``n`` comes before a closing quotation mark that no opening one precedes: the sentence
    began inside a quotation ("Their ancestors are coming home at last,'' the leader told Reuters" —
    a clause there put words in the speaker's mouth; MRPC validation, read after the first run)."""
    # the tokenizer splits a PTB opening quote into two backticks
    marks = [t for t in n.sent if t.text in {"``", "`", "“", "''", "”", '"'}]
    straight = [t for t in marks if t.text == '"']
    if len(straight) % 2 and straight[0].i > n.i:
        return True
    for t in marks:
        if t.text in {"``", "`", "“"}:
            return False
        if t.text in {"''", "”"}:
            return t.i > n.i
    return False


def sites(doc: Doc, keep: Sequence[CharSpan] = ()) -> list[Site]:
    """The noun phrases a relative clause may follow, subjects first: a definite noun (a name, or a
    noun after "the", "this", a possessive …) that ends its own phrase, is the subject of a verb after
    it or the last word of the sentence, and is not in a quotation, a question, a coordination, a
    compound or a date or amount; no site falls inside a ``keep`` span."""
    from paraspan.generate.rewrite.parse import quoted as _quoted
    from paraspan.generate.rewrite.rules_extraction import embedded as _embedded

    found: list[tuple[int, Site]] = []
    for n in doc:
        if n.pos_ not in {"NOUN", "PROPN"} or n.ent_type_ in _NO_CLAUSE_ENTS:
            continue
        if n.sent[-1].text == "?" or _quoted(n) or _in_open_quotation(n) or n.dep_ == "conj" or any(
                c.dep_ == "conj" for c in n.children):
            continue
        subject = n.dep_ in {"nsubj", "nsubjpass"} and n.head.i > n.i
        # a subject's phrase may run on after the noun ("The Centers for Disease Control, which …"):
        # the clause goes after all of it; any other noun must end its phrase
        end = n.right_edge.i if subject else n.i
        if end != n.i and any(t.dep_ in {"relcl", "acl", "appos"} or t.is_punct for t in doc[n.i + 1:end + 1]):
            continue
        if end + 1 >= len(doc) or not (_definite(n) or (subject and n.tag_ == "NNS" and not list(n.children))):
            continue  # a bare plural subject ("Analysts, who …") is a group the sentence is about
        after = doc[end + 1]
        final = after.text in {".", "!"} and after.i == len(doc) - 1 and n.right_edge.i == n.i
        if subject:
            if after.is_punct or any(t.dep_ in {"nsubj", "nsubjpass"} for t in n.head.children if t.i != n.i):
                continue
        elif not (final and n.dep_ in {"dobj", "pobj", "attr", "dative"} and not _embedded(n)):
            continue
        offset = doc[end].idx + len(doc[end].text)
        if any(s < offset < e for s, e in keep):
            continue
        phrase = doc[n.left_edge.i:end + 1].text
        site = Site(n.i, offset, phrase, final, n.ent_type_)
        found.append((0 if subject else 1, site))
    return [s for _, s in sorted(found, key=lambda p: (p[0], p[1].offset))]


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _stem(word: str) -> str:
    """A crude stem: "relocating" and "relocate" are one word to the repetition check."""
    return word[:5] if len(word) > 5 else word


def clause_of(sample: str, source: str, site: Site, max_words: int = 14) -> tuple[str | None, str]:
    """The clause (who … or which …) in the LLM's continuation ``sample`` of the source up to
    ``site`` and a comma, and why not where there is none. It must begin with who or which (not who
    for a place or which for a person); end at a comma (at the sentence's end: its final
    punctuation) after which the LLM goes on with the source's own next words; have 2 to
    ``max_words`` words and no quotation mark, bracket or digit the source lacks; not repeat the
    source (half its content words or more from it) or copy an example's clause
    (:data:`EXAMPLE_CLAUSES`)."""
    text = sample.split("\n")[0].strip()
    pronoun = text.split(" ")[0]
    if pronoun not in {"who", "which"}:
        return None, "not a relative clause"
    if site.entity in _PRONOUN_MISFITS[pronoun]:
        return None, "the pronoun does not fit the noun"
    rest = source[site.offset:].strip()
    stop = "." if site.final else ","
    cut = text.find(stop)
    if cut < 0:
        return None, "unfinished"
    clause, after = text[:cut].strip(), text[cut + 1:].strip()
    if site.final:
        if after:
            return None, "went on after the sentence"
    else:
        want = _words(rest)[:2]
        if not want or _words(after)[:len(want)] != want:
            return None, "did not go on with the sentence"
    words = _words(clause)
    if len(words) < 2 or len(clause.split()) > max_words + 1:
        return None, "length"
    if any(ch in clause for ch in "\"“”()[];:") or any(ch.isdigit() and ch not in source for ch in clause):
        return None, "punctuation or number"
    content = [_stem(w) for w in words if w not in _STOP]
    known = {_stem(w) for w in _words(source)}
    if content and sum(w in known for w in content) * 2 >= len(content):
        return None, "repeats the sentence"
    if any(len(set(words) & set(_words(e))) * 2 >= len(_words(e)) for e in EXAMPLE_CLAUSES):
        return None, "copies an example"
    return clause, ""


def assemble(source: str, site: Site, clause: str) -> str:
    """The source with ``, <clause>,`` after the site's noun phrase (no closing comma before the
    sentence's final punctuation)."""
    tail = source[site.offset:]
    inserted = f", {clause}" + ("" if site.final else ",")
    return source[:site.offset] + inserted + tail


@dataclass
class Elaborator:
    """Relative clauses written by an LLM (a :class:`~paraspan.llm.backend.Backend`) after the noun
    phrases :func:`sites` chooses, checked as the module says. A generator (:meth:`generate`,
    :meth:`generate_batch`): candidates carry ``meta["source"] = "insertion"`` and the rule
    ``insert-relative-clause``."""

    backend: Any
    config: ElaborateConfig = field(default_factory=ElaborateConfig)
    nlp: Language | None = None
    # keeps_meaning: the pipeline's meaning check applies (augment's default ``verified`` asks the
    # judges for reverse entailment with this generator, cli/augment.py directional_check)
    capabilities: Capabilities = field(default=Capabilities(retries=0))
    counts: Counter[str] = field(default_factory=Counter)
    info: dict[str, Any] = field(default_factory=dict)

    def _nlp(self) -> Language:
        if self.nlp is None:
            from paraspan.models import load_spacy

            self.nlp = load_spacy()
        return self.nlp

    def prompt(self, source: str, site: Site) -> Any:
        """The chat prompt for ``site`` with the answer begun: the source up to the noun phrase and a comma
        (the LLM picks who or which: it told a company from a person better than WordNet and the
        entity tagger did on MRPC sentences read while building this)."""
        from paraspan.llm.backend import Prompt

        user = EXAMPLES + f'Sentence: {source}\nAdd a clause after: "{site.phrase}"'
        chat = self.backend.chat_prompt(SYSTEM, user, split_at="Sentence: " + source)
        begun = self.backend.tokenize(f"Rewritten: {source[:site.offset]},")
        return Prompt(chat.prefix, chat.suffix + tuple(begun))

    def generate(self, request: GenerationRequest) -> GenerationResult:
        return self.generate_batch([request])[0]

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        """Every request's checked insertions (at most its ``n`` or the config's), the sites of all
        requests sampled in one batch."""
        from paraspan.llm.backend import SampleGroup, SampleJob, sample_batch
        from paraspan.text.constraints import BanSet

        nlp = self._nlp()
        docs = list(nlp.pipe([r.text for r in requests]))
        # no clause inside a kept or labelled span: it would split the span
        chosen = [sites(doc, (*r.keep, *r.protect))[:self.config.sites] for r, doc in zip(requests, docs, strict=True)]
        jobs, where = [], []
        for ri, (request, found) in enumerate(zip(requests, chosen, strict=True)):
            for si, site in enumerate(found):
                seed = self.config.seed * 1000 + si + 17 * request.attempt
                jobs.append(SampleJob(self.prompt(request.text, site),
                                      (SampleGroup(self.config.samples, seed, BanSet()),), self.config.max_tokens))
                where.append((ri, site))
        sampled = sample_batch(self.backend, jobs, top_k=self.config.top_k,
                              temperature=self.config.temperature) if jobs else []
        offered: list[list[tuple[str, Site, float]]] = [[] for _ in requests]
        for (ri, site), samples in zip(where, sampled, strict=True):
            for sample in samples:
                clause, why = clause_of(sample.text, requests[ri].text, site, self.config.max_words)
                if clause is None:
                    self.counts[f"rejected:{why}"] += 1
                    continue
                mean = sum(sample.logprobs) / len(sample.logprobs) if sample.logprobs else 0.0
                offered[ri].append((assemble(requests[ri].text, site, clause), site, mean))
        texts = [t for group in offered for t, _, _ in group]
        parsed = dict(zip(texts, nlp.pipe(texts), strict=True)) if texts else {}
        results = []
        for request, group, found, doc in zip(requests, offered, chosen, docs, strict=True):
            seen: set[str] = set()
            candidates = []
            for text, site, mean in sorted(group, key=lambda g: -g[2]):
                if text in seen:
                    continue
                seen.add(text)
                why = self._check(parsed[text], request.text)
                if why:
                    self.counts[f"rejected:{why}"] += 1
                    continue
                candidates.append(Candidate(text, {"logprob": round(mean, 4)},
                                            mapping=insertion_mapping(doc, parsed[text], site.offset, site.token),
                                            meta=Generated(rules=("insert-relative-clause",)).meta(
                                                source="insertion", site=site.phrase)))
            note = None if candidates else ("no noun phrase to add a clause to" if not found
                                            else "no clause passed the checks")
            results.append(GenerationResult(request, candidates[:request.n or self.config.n], note,
                                            {"sites": len(found), "sampled": self.config.samples * len(found)}))
        return results

    def _check(self, doc: Doc, source: str) -> str:
        """Why the output ``doc`` is not the source plus one non-restrictive relative clause ("" if it is):
        the rewriter's ``delete-relative-clause`` must give the source back, and the clause agree
        in number with its noun."""
        from paraspan.generate.rewrite.core import RuleContext, render
        from paraspan.generate.rewrite.rules import rewrite_rules
        from paraspan.generate.rewrite.rules_extraction import agrees as _agrees
        from paraspan.generate.rewrite.rules_extraction import nonrestrictive_relcl as _nonrestrictive_relcl

        # spacing aside: a tokenized corpus writes "June ." where the rewriter renders "June."
        target = "".join(source.split())
        for pieces in rewrite_rules.get("delete-relative-clause").apply(doc, RuleContext()):
            text, _ = render(doc, pieces)
            if "".join(text.split()) == target:
                break
        else:
            return "the clause is not read as a relative clause of the noun"
        for m in doc:
            if m.dep_ == "relcl" and _nonrestrictive_relcl(m) and not _agrees(m.head, m):
                return "the clause does not agree with the noun"
        return ""


def insertion_mapping(source: Doc, output: Doc, offset: int, noun: int | None = None) -> TokenMapping:
    """Source → output tokens of an insertion at character ``offset`` of the source: the tokens before
    it are where they were, those after it moved by the inserted text's length. The inserted words,
    but for the commas around them, belong with source token ``noun`` (the noun the clause is
    about) as arguments see it and not as anchors do: an argument is a whole phrase, and a
    non-restrictive relative clause is part of its noun's phrase (PropBank and FrameNet annotate
    "[Agent The museum, which opened in May,] sold …"), while an anchor — a target, a predicate,
    an entity mention — keeps exactly its words. Without ``noun`` they carry nothing."""
    from paraspan.generate.project import doc_heads, doc_tokens

    shift = len(output.text) - len(source.text)
    where = {span: i for i, span in enumerate(doc_tokens(source))}
    tokens = []
    for t in output:
        start, end = t.idx, t.idx + len(t.text)
        if end <= offset:
            src = where.get((start, end))
        elif start >= offset + shift:
            src = where.get((start - shift, end - shift))
        else:
            src = None
        tokens.append(MappedToken(start, end, src))
    if noun is not None:
        inserted = [j for j, t in enumerate(tokens) if t.src is None and offset <= t.start and t.end <= offset + shift]
        while inserted and output[inserted[0]].is_punct:
            inserted.pop(0)
        while inserted and output[inserted[-1]].is_punct:
            inserted.pop()
        for j in inserted:
            # ``marker``: joins arguments, not anchors (see MappedToken)
            tokens[j] = MappedToken(tokens[j].start, tokens[j].end, None, attach=noun, marker=True)
    return TokenMapping(tuple(doc_tokens(source)), tuple(doc_heads(source)), tuple(tokens))


class ElaboratorFactory(GeneratorFactory):
    """The ``elaborate`` generator's factory: its outputs are more specific than their sources."""

    def relation(self, options: Mapping[str, Any]) -> str:
        return "reverse"


@ElaboratorFactory
def make_elaborator(model: str = "default", n: int = 3, sites: int = 3, samples: int = 4, top_k: int = 10,
                    temperature: float = 0.8, seed: int = 0, threads: int | None = 1, n_ctx: int = 2048,
                    batch: int = 64, backend: str = "auto", device: str = "auto") -> Elaborator:
    """The registered ``elaborate`` generator: more specific sentences (reverse entailments) made by
    adding a relative clause the LLM (``model``, as for ``paraphrase``) writes after one of up to
    ``sites`` noun phrases, ``samples`` clauses sampled for each, at most ``n`` outputs; no clause
    goes inside a labelled span; anchors keep exactly their words, and an argument whose noun gets the
    clause takes it in (:func:`insertion_mapping`). ``paraspan augment``'s
    default ``verified`` check asks the NLI judges for reverse entailment with this generator."""
    from paraspan.llm.backend import backend_info, context_size
    from paraspan.llm.hf_backend import load_backend

    width = max(8, samples, batch)
    runtime = load_backend(model, backend=backend, device=device, seed=seed, n_ctx=context_size(n_ctx, width),
                           n_threads=threads, parallel=width)
    config = ElaborateConfig(n=n, sites=sites, samples=samples, top_k=top_k, temperature=temperature, seed=seed)
    return Elaborator(runtime, config, info={**backend_info(runtime, model), "relation": "reverse"})
