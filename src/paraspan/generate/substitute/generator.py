"""The ``substitute`` generator: the LLM's contextual synonyms of the anchor, sampled, voted and placed."""

from __future__ import annotations

import re
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import ParaspanError
from paraspan.generate.base import (
    Candidate,
    Capabilities,
    GenerationRequest,
    GenerationResult,
    Stage,
    add_stats,
    require_anchor,
)
from paraspan.generate.substitute.words import (
    _CLAUSE_DEPS,
    _CONTEXT_SKIP,
    _QUOTE_BEFORE,
    _WORDS,
    BELIEF_VERBS,
    LIGHT_VERBS,
    TARGETS,
    _name_part,
    _verb_tags,
    _word_lemmas,
    check_anchor,
    fits,
    parse_targets,
    wordnet_synonym,
)
from paraspan.llm.backend import Backend, Prompt
from paraspan.provenance import Generated
from paraspan.text.lexical_units import AnchorTagger

SYSTEM_PROMPT = "You are an expert editor who knows the exact meaning of English words."
#: The instruction and examples (sentences written for paraspan) sit before the split mark, in the
#: cached prefix.
INSTRUCTION = (
    "Find a synonym for the word in [brackets]: a word or short phrase that means exactly the same "
    "in this sentence, of the same part of speech and in the same form (tense, number), so that the "
    "sentence with it in place of the bracketed word is correct English and says the same thing. Never "
    "repeat another word of the sentence. Reply with the synonym only.\n"
    "Examples:\n"
    "Sentence: The council [approved] the new budget on Tuesday.\nWord: approved (verb)\nSynonym: passed\n"
    "Sentence: Anna bought a second-hand bicycle from a [student].\nWord: student (noun)\nSynonym: pupil\n"
    "Sentence: The storm caused [damage] to several houses.\nWord: damage (noun)\nSynonym: harm\n"
    "Sentence: The hikers were [tired] after the long climb.\nWord: tired (adjective)\nSynonym: weary\n"
    "Sentence: Police [say] the attack was planned for months.\nWord: say (verb)\nSynonym: state"
)
#: FrameNet's LU suffixes in words, for the prompt
POS_WORDS = {"v": "verb", "n": "noun", "a": "adjective", "adv": "adverb", "prep": "preposition"}
#: the prompt is cached up to here (the examples above also begin with "Sentence:")
SPLIT_MARK = "Now:"
_CLEAN = re.compile(r"^[\"'“‘(\[]*(.*?)[\"'”’)\].,;:!?]*$")
_ANSWER_WORD = re.compile(r"^[A-Za-z][A-Za-z'-]*$")


@dataclass
class _Job:
    request: GenerationRequest
    structure: int = -1
    note: str | None = None
    prompt: Prompt | None = None
    bans: Any = None
    samples: list[Any] = field(default_factory=list)
    pos: str | None = None  # the anchor's FrameNet-style part of speech (its label's, else the parse's)
    start: int = -1  # the replaced word's offsets (the anchor's, or a context word's)
    end: int = -1
    context: bool = False  # a word outside the anchors is replaced (``targets`` holds "context")
    tag: str | None = None  # a context verb's Penn tag in the parse (its form: "burst" after "reached and" is past)



class Substituter:
    """Contextual substitutes of a structure's anchor (see the module docstring)."""

    name = "substitute"

    def __init__(self, backend: Backend, samples: int = 12, n: int = 5, top_k: int = 20, temperature: float = 1.0,
                 max_words: int = 3, seed: int = 0, min_votes: int = 2, agreement: int = 0,
                 min_back_votes: int | None = None, pos: frozenset[str] | None = frozenset({"v"}),
                 kinds: frozenset[str] | None = frozenset({"frame"}), anchor: str = "synonym",
                 targets: frozenset[str] = frozenset({"anchor"}), context_words: int = 2) -> None:
        check_anchor(anchor)
        if not targets or not targets <= set(TARGETS):
            raise ParaspanError.from_code("E880", option="targets", rule="anchor, context or both",
                                          value=",".join(sorted(targets)), fix="e.g. targets={'anchor'}")
        #: what is replaced: the anchor, and (``context``) a verb outside every anchor, where the anchor
        #: gave no output (see :meth:`stages`)
        self.targets = targets
        self.context_words = context_words  # how many verbs of a sentence a context substitute asks about
        #: ``synonym``: a proposal must share a WordNet synset with the old word; ``frame``: any word the
        #: later checks take (the content check lets a verb become any LU of its frame)
        self.anchor = anchor
        self._content: Any = None  # the content check's WordNet lemmas and synonyms, loaded on first use
        self.pos = pos  # the anchors' parts of speech replaced (None: all)
        self.kinds = kinds  # the structure kinds whose anchors are replaced (None: all)
        # spaCy (the pipeline's anchor tagger), loaded for the first anchor whose label has no part of speech
        self._tagger = AnchorTagger()
        self._parsed: dict[tuple[str, int, int], tuple[str, str] | None] = {}  # anchor → (UPOS, Penn tag)
        self._docs: dict[str, Any] = {}  # the last sentence's parse, for its context word
        if min_back_votes is None:
            min_back_votes = min_votes
        if (samples < 1 or n < 1 or max_words < 1 or min_votes < 1 or context_words < 1 or agreement < 0
                or min_back_votes < 0):
            raise ParaspanError.from_code("E880", option="samples, n, max_words, min_votes, context_words (agreement, "
                                          "min_back_votes)",
                                          rule="at least 1 (agreement, min_back_votes: at least 0)",
                                          value=f"{samples}, {n}, {max_words}, {min_votes}, {context_words} "
                                                f"({agreement}, {min_back_votes})",
                                          fix="e.g. --set generator.samples=12")
        self.backend = backend
        self.samples, self.n, self.top_k, self.temperature = samples, n, top_k, temperature
        self.max_words, self.seed, self.min_votes = max_words, seed, min_votes
        self.agreement, self.min_back_votes = agreement, min_back_votes
        self.info: dict[str, Any] = {}

    @property
    def capabilities(self) -> Capabilities:
        # no retries unless asked: on 40 FrameNet dev sentences (91 structures) a second round of 12
        # samples wrote 1 more verified output than none, for 38% of the run's CPU time
        # (benchmarks/HISTORY.md, "Throughput", sampling-retries0). A context substitute keeps the
        # anchor: alone, it does not honour bans (one iteration)
        return Capabilities(honours_ban="anchor" in self.targets, needs_structure=True, keeps_meaning=True, retries=0)

    def stages(self) -> list[Stage] | None:
        """With both targets: the anchor first, then a context word for the chains the anchor's
        substitutes gave no output (the pipeline stops early, as for a cascade's members); the
        context word only in a chain's first iteration (a later one would pick the replaced word
        again). None with one target."""
        if self.targets != frozenset(TARGETS):
            return None
        return [Stage("anchor", lambda r: True, lambda rs: self._generate(rs, False)),
                Stage("context", lambda r: r.iteration <= 1, lambda rs: self._generate(rs, True))]

    def means_the_same(self, form: str, old: str) -> bool:
        """With ``anchor="synonym"``: :func:`wordnet_synonym`; with ``frame``: always (the later checks decide)."""
        if self.anchor != "synonym":
            return True
        if self._content is None:
            from paraspan.filter.content import ContentFilter

            self._content = ContentFilter(anchor="synonym")
        return wordnet_synonym(form, old, self._content)

    def context_fits(self, form: str, old: str, tag: str | None) -> bool:
        """Whether ``form`` may replace the context verb ``old`` (Penn ``tag`` in the parse): it has
        the parse's form ("reached out … and burst the balloon" is past: not "explode"), and the two
        share a frame in FrameNet's lexicon (the shipped ``framenet15`` verifier's). A WordNet synonym
        in some sense was not enough: read, 7 of 14 context substitutes were right without this
        ("parted" → "split", "erupted" → "burst", "paraded" → "exhibited");
        an anchor's substitute has its frame's LUs and the span-label verifier to answer to, a
        context verb only this."""
        from paraspan.models.inflect import lemmas

        first = form.split()[0]
        wanted = {"VBD": "VBD/VBN", "VBN": "VBD/VBN", "VBZ": "VBZ", "VBG": "VBG"}.get(tag or "")
        if wanted is not None and wanted not in _verb_tags(first):
            return False
        if self._content is None:
            from paraspan.filter.content import ContentFilter

            self._content = ContentFilter(anchor="synonym")
        lexicon = self._content.lexicon()

        def frames(word: str) -> set[str]:
            return {f for lemma in {*lemmas(word.lower(), "VERB"), word.lower()}
                    for f in lexicon.get(f"{lemma.lower()}.v", ())}

        return bool(frames(old) & frames(first))

    @property
    def _words(self) -> int:
        """Where a sample stops (``SampleGroup.max_words``): past ``max_words`` words and the one
        label word ("Synonym:") that :meth:`clean` drops, no answer is usable any more."""
        return self.max_words + 1

    def prompt(self, text: str, start: int, end: int, pos: str | None = None, banned: Sequence[str] = ()) -> Prompt:
        """The question for ``text[start:end]`` (bracketed in the sentence); ``pos``: an LU suffix;
        ``banned``: earlier substitutes, named so that the model does not waste samples on them."""
        word = text[start:end]
        marked = f"{text[:start]}[{word}]{text[end:]}"
        user = f"{INSTRUCTION}\n{SPLIT_MARK}\nSentence: {marked}\nWord: {word}"
        if pos in POS_WORDS:
            user += f" ({POS_WORDS[pos]})"
        if len(banned) > 1:
            user += "\nNot: " + ", ".join(banned[1:])
        return self.backend.chat_prompt(SYSTEM_PROMPT, user, split_at=SPLIT_MARK)

    def generate(self, request: GenerationRequest) -> GenerationResult:
        return self.generate_batch([request])[0]

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        """Every target's candidates, the anchor's first (a context word for a chain's first iteration)."""
        if "anchor" not in self.targets:
            return self._generate(requests, True)
        results = self._generate(requests, False)
        if "context" in self.targets:
            picked = [k for k, r in enumerate(requests) if r.iteration <= 1]
            for k, more in zip(picked, self._generate([requests[k] for k in picked], True), strict=True):
                results[k].candidates.extend(more.candidates)
                add_stats(results[k].stats, more.stats)
                if results[k].candidates:
                    results[k].note = None
                elif more.note:
                    results[k].note = f"{results[k].note}; context: {more.note}"
        return results

    def _generate(self, requests: Sequence[GenerationRequest], context: bool) -> list[GenerationResult]:
        """The anchor's substitutes, or (``context``) those of a verb outside every anchor."""
        from paraspan.llm.backend import SampleGroup, SampleJob, sample_batch
        from paraspan.text.constraints import expand_bans
        from paraspan.text.lexical_units import lu_pos

        # a context substitute asks about up to ``context_words`` verbs of each request, best first
        per_request = [self._prepare(r, context) for r in requests]
        owners = [k for k, group in enumerate(per_request) for _ in group]
        jobs = [job for group in per_request for job in group]
        todo = [j for j in jobs if j.note is None]
        for job in todo:
            text = job.request.text
            anchor = job.request.sentence.structures[job.structure].anchor  # type: ignore[union-attr]
            word = text[job.start:job.end]
            if context:  # the anchor's bans are the anchor's; here only the word itself is refused
                banned = [word]
                job.prompt = self.prompt(text, job.start, job.end, job.pos, banned)
            else:
                banned = [word, *(str(t).strip() for t in job.request.ban_texts if str(t).strip())]
                job.prompt = self.prompt(text, anchor.start, anchor.end, lu_pos(anchor.label), banned)
            job.bans = expand_bans(banned)
        started, cpu = time.perf_counter(), time.process_time()
        if todo:
            seeds = [zlib.crc32((f"{self.seed}\x1f{j.request.text}\x1f{j.structure}\x1f{j.request.attempt}"
                                 + (f"\x1fcontext{j.start}" if j.context else "")).encode()) for j in todo]
            sample_jobs = [SampleJob(j.prompt, (SampleGroup(self.samples, seed, j.bans, max_words=self._words),),
                                     8 + 3 * self.max_words)
                           for j, seed in zip(todo, seeds, strict=True)]  # type: ignore[arg-type]
            answers = sample_batch(self.backend, sample_jobs, top_k=self.top_k, temperature=self.temperature)
            for job, samples in zip(todo, answers, strict=True):
                job.samples = samples
        each = [self._result(job) for job in jobs]
        if self.agreement > 0:
            self._round_trip(each)
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
        for result in each:
            if result.stats:
                result.stats.update(sample_seconds=seconds / max(1, len(todo)),
                                    sample_cpu_seconds=cpu_seconds / max(1, len(todo)))
        if not context:
            return each
        results = [GenerationResult(r, []) for r in requests]
        notes: list[list[str]] = [[] for _ in requests]
        for k, one in zip(owners, each, strict=True):  # per request: the first verb's candidates first
            results[k].candidates.extend(one.candidates)
            add_stats(results[k].stats, one.stats)
            if one.note and one.note not in notes[k]:
                notes[k].append(one.note)
        for result, why in zip(results, notes, strict=True):
            if not result.candidates:
                result.note = "; ".join(why) or None
        return results

    def back_votes(self, questions: Sequence[tuple[str, int, int, str | None, str]]) -> list[tuple[int, int]]:
        """For each ``(text, start, end, pos, old)``: how many of ``samples`` answers for the word at
        ``text[start:end]`` (nothing banned) are ``old`` again, in any inflection or case, and the
        tokens sampled for it."""
        from paraspan.llm.backend import SampleGroup, SampleJob, sample_batch
        from paraspan.models.inflect import lemmas
        from paraspan.text.constraints import expand_bans

        jobs = []
        for text, start, end, pos, _ in questions:
            seed = zlib.crc32(f"{self.seed}\x1fback\x1f{text}\x1f{start}".encode())
            jobs.append(SampleJob(self.prompt(text, start, end, pos),
                                  (SampleGroup(self.samples, seed, expand_bans([]), max_words=self._words),),
                                  8 + 3 * self.max_words))
        answers = sample_batch(self.backend, jobs, top_k=self.top_k, temperature=self.temperature) if jobs else []
        out = []
        for (*_, old), samples in zip(questions, answers, strict=True):
            wanted = {old.lower(), *(lemma.lower() for lemma in lemmas(old))}
            count = 0
            for sample in samples:
                form = self.clean(sample.text, "\x00")  # no word to refuse here: compared with ``old`` below
                if form is not None and ({form.lower(), *(x.lower() for x in lemmas(form))} & wanted):
                    count += 1
            out.append((count, sum(len(sample.tokens) for sample in samples)))
        return out

    def _round_trip(self, results: list[GenerationResult]) -> None:
        """Keep the candidates with at least ``min_back_votes`` back votes (the samples that, asked about
        the substitute in the new sentence, give the old word back) and whose votes and back votes
        together reach ``agreement``."""
        from paraspan.text.lexical_units import lu_pos

        questions, where = [], []
        for r, result in enumerate(results):
            sentence = result.request.sentence
            for c, cand in enumerate(result.candidates):
                k = cand.meta["structure"]
                if cand.meta.get("target") == "context":
                    start, end = cand.meta["at"]
                    questions.append((cand.text, start, end, "v", Generated.of_meta(cand.meta).replaced[0]))
                else:
                    anchor = sentence.structures[k].anchor  # type: ignore[union-attr]
                    new = cand.structures[k].anchor  # type: ignore[index]
                    questions.append((cand.text, new.start, new.end, lu_pos(anchor.label),
                                      sentence.text[anchor.start:anchor.end]))  # type: ignore[union-attr]
                where.append((r, c))
        if not questions:
            return
        back = self.back_votes(questions)
        keep: dict[int, list[Candidate]] = defaultdict(list)
        for (r, c), (votes, tokens) in zip(where, back, strict=True):
            cand = results[r].candidates[c]
            cand.meta["back_votes"] = votes
            results[r].stats["sampled"] += self.samples
            results[r].stats["sampled_tokens"] += tokens
            if votes >= self.min_back_votes and cand.meta["votes"] + votes >= self.agreement:
                keep[r].append(cand)
        for r, result in enumerate(results):
            if result.candidates:
                dropped = len(result.candidates) - len(keep[r])
                result.candidates[:] = keep[r]
                result.stats["round_trip_dropped"] = dropped
                if not keep[r]:
                    result.note = "no substitute and the old word propose each other often enough"

    def _prepare(self, request: GenerationRequest, context: bool = False) -> list[_Job]:
        """The jobs of one request: the anchor's, or (``context``) one per context verb, up to
        ``context_words``, best first; a single job with a note where there is nothing to ask."""
        job = _Job(request, context=context)
        sentence = request.sentence
        if sentence is None or request.structure is None:
            job.note = "substitute needs the annotated sentence and the structure (request.sentence, request.structure)"
        elif not 0 <= request.structure < len(sentence.structures):
            job.note = f"the sentence has no structure {request.structure}"
        elif sentence.structures[request.structure].anchor is None:
            job.note = "the structure has no anchor to replace"
        elif sentence.text != request.text:
            job.note = "the request's text is not its sentence's"
        elif context:
            if self.kinds is not None and sentence.structures[request.structure].kind not in self.kinds:
                job.note = f"a {sentence.structures[request.structure].kind} structure (generator.kinds)"
            elif not (words := self._context_words(sentence, request.structure)):
                job.note = "no verb outside the anchors to replace"
            else:
                return [_Job(request, request.structure, pos="v", start=start, end=end, context=True, tag=tag)
                        for start, end, tag in words[:self.context_words]]
        elif sentence.structures[request.structure].extra.get("anchor_rest"):
            job.note = "a discontinuous anchor"
        elif _name_part(sentence.text, sentence.structures[request.structure].anchor):  # type: ignore[arg-type]
            job.note = "the anchor is part of a name"
        elif _QUOTE_BEFORE.search(sentence.text[:sentence.structures[request.structure].anchor.start]):  # type: ignore[union-attr]
            # an inverted quotative ("…, '' says Mr. X"): few verbs stand there ("tells Mr. X" reads as
            # him being told)
            job.note = "the anchor follows a quotation"
        elif self.kinds is not None and sentence.structures[request.structure].kind not in self.kinds:
            job.note = f"a {sentence.structures[request.structure].kind} structure (generator.kinds)"
        else:
            anchor = require_anchor(sentence.structures[request.structure], "the substitute generator")
            job.pos = self._anchor_pos(sentence.text, anchor)
            word = sentence.text[anchor.start:anchor.end].lower()
            if self.pos is not None and job.pos not in self.pos:
                job.note = f"the anchor is not a {'/'.join(sorted(self.pos))} (generator.pos)"
            elif job.pos == "v" and (word in LIGHT_VERBS or _word_lemmas(word) & {"be", "have", "do"}):
                job.note = "the anchor is an auxiliary or copula (be, have, do)"
            elif job.pos == "v" and _word_lemmas(word) & BELIEF_VERBS:
                job.note = "the anchor is a verb of believing (a substitute changes how sure the claim is)"
            else:
                job.structure, job.start, job.end = request.structure, anchor.start, anchor.end
        return [job]

    def _context_words(self, sentence: Sentence, k: int) -> list[tuple[int, int, str]]:
        """The verbs a ``context`` substitute may replace, as offsets and Penn tags, best first: each
        heading a clause, lower-case, not light (:data:`_CONTEXT_SKIP`), not a phrasal verb, not after a quotation, not
        a word the sentence has twice ("Everything's changed … changed, changed": a substitute breaks
        the echo), touching no structure's anchor and no span's edge; one outside structure ``k``'s
        spans first (its labels stay as they were checked), then the sentence's root, then the first."""
        from paraspan.models.inflect import lemmas

        text = sentence.text
        if text not in self._docs:
            self._docs = {text: self._tagger.nlp(text)}  # the last sentence only: its structures ask in turn
        taken = [(s.anchor.start, s.anchor.end) for s in sentence.structures if s.anchor is not None]
        taken += [(int(r[0]), int(r[1])) for s in sentence.structures for r in s.extra.get("anchor_rest") or []
                  if isinstance(r, list | tuple) and len(r) == 2]
        edges = {p for s in sentence.structures for sp in [*([s.anchor] if s.anchor else []), *s.args]
                 for p in (sp.start, sp.end)}
        own = sentence.structures[k].args
        found: list[tuple[tuple[bool, bool, int], int, int, str]] = []
        seen = Counter(w.lower() for w in _WORDS.findall(text))
        for t in self._docs[text]:
            start, end = t.idx, t.idx + len(t.text)
            if (t.pos_ != "VERB" or t.dep_ not in _CLAUSE_DEPS or not t.text.isalpha() or not t.text.islower()
                    or (t.dep_ == "conj" and t.head.pos_ == "ADJ")  # "a genial and stimulating host" (-g)
                    or any(c.dep_ == "prt" or c.dep_ == "oprd" or (c.dep_ == "ccomp" and c.pos_ == "ADJ")
                           for c in t.children)  # "showed herself capable": a verb of a small clause (-g)
                    or {x.lower() for x in lemmas(t.text, "VERB")} & _CONTEXT_SKIP or t.text in _CONTEXT_SKIP):
                continue
            if any(a < end and start < b for a, b in taken) or any(start < p < end for p in edges):
                continue
            if _QUOTE_BEFORE.search(text[:start]) or seen[t.text.lower()] > 1:
                continue
            found.append(((any(a.start <= start and end <= a.end for a in own), t.dep_ != "ROOT", t.i),
                          start, end, t.tag_))
        return [f[1:] for f in sorted(found)]

    def _first_word(self, text: str, start: int, end: int) -> tuple[str, str] | None:
        """The UPOS and Penn tag of the first word of ``text[start:end]`` in a spaCy parse of ``text``
        (one parse per anchor, cached for both its part of speech and its verb form)."""
        key = (text, start, end)
        if key not in self._parsed:
            doc = self._tagger.nlp(text)
            words = [t for t in doc if t.idx < end and t.idx + len(t.text) > start and not t.is_punct]
            self._parsed[key] = (words[0].pos_, words[0].tag_) if words else None
        return self._parsed[key]

    def _anchor_tag(self, text: str, start: int, end: int) -> str | None:
        """The Penn tag of the anchor's first word."""
        word = self._first_word(text, start, end)
        return word[1] if word else None

    def _anchor_pos(self, text: str, anchor: Span) -> str | None:
        """The anchor's part of speech: its label's LU suffix, else (a PropBank roleset, an entity
        type) the UPOS of its first word in a spaCy parse of the sentence, as a FrameNet suffix."""
        from paraspan.text.lexical_units import UPOS_TO_FN, lu_pos

        pos = lu_pos(anchor.label)
        if pos is not None:
            return pos
        word = self._first_word(text, anchor.start, anchor.end)
        return UPOS_TO_FN.get(word[0]) if word else None

    def _result(self, job: _Job) -> GenerationResult:
        if job.note is not None:
            return GenerationResult(job.request, [], note=job.note)
        sentence = cast(Sentence, job.request.sentence)  # a job without one has its note
        old = sentence.text[job.start:job.end]
        votes: dict[str, list[float]] = defaultdict(list)
        rejected = 0
        before = _WORDS.findall(sentence.text[:job.start])
        after = _WORDS.findall(sentence.text[job.end:])
        pos = job.pos
        own = _word_lemmas(old)
        tag = job.tag if job.context else (self._anchor_tag(sentence.text, job.start, job.end) if pos == "v" else None)
        for sample in job.samples:
            form = self.clean(sample.text, old)
            # another form of the anchor itself is no substitute ("is" → "are", "was" → "were")
            if form is None or job.bans.find_leaks(form) or _word_lemmas(form) & own or not fits(
                    form, old, before[-3:], after[:4], pos, tag) or not self.means_the_same(form, old) or (
                    job.context and not self.context_fits(form, old, job.tag)):
                rejected += 1
                continue
            votes[form].append(sum(sample.logprobs) / max(1, len(sample.logprobs)))
        # a substitute one sample proposed is more often wrong than right (held-out FrameNet dev: "weeks"
        # for "years", "chairman" for "legislator"); what several samples agree on is a better bet
        ranked = sorted((f for f in votes if len(votes[f]) >= self.min_votes),
                        key=lambda f: (-len(votes[f]), -sum(votes[f]) / len(votes[f]), f))
        wanted = job.request.n or self.n
        out = [c for c in (self._candidate(sentence, job, form, len(votes[form]),
                                           sum(votes[form]) / len(votes[form])) for form in ranked) if c][:wanted]
        stats = {"sampled": len(job.samples), "sampled_tokens": sum(len(s.tokens) for s in job.samples),
                 "rejected": rejected}
        return GenerationResult(job.request, out, note=None if out else "no usable substitute", stats=stats)

    def clean(self, answer: str, old: str) -> str | None:
        """The substitute an answer proposes, cased like ``old``; None for an unusable answer (empty,
        more than ``max_words`` words, not words, or ``old`` itself)."""
        line = answer.strip().splitlines()[0].strip() if answer.strip() else ""
        line = re.sub(r"^(synonym|replacement|answer)\s*:\s*", "", line, flags=re.IGNORECASE)
        got = _CLEAN.match(line)
        form = got.group(1).strip() if got else ""
        words = form.split()
        if not words or len(words) > self.max_words or not all(_ANSWER_WORD.match(w) for w in words):
            return None
        if form.lower() == old.lower():
            return None
        if len(old) > 1 and old.isupper():  # a word of an all-capitals sentence or a heading
            form = form.upper()
        elif old[:1].isupper() and not form[:1].isupper():
            form = form[:1].upper() + form[1:]
        elif old[:1].islower() and form[:1].isupper() and not form.isupper() and words[0].lower() != "i":
            form = form[:1].lower() + form[1:]  # "Purchased" for "bought" mid-sentence
        return form

    def _candidate(self, sentence: Sentence, job: _Job, form: str, votes: int, logprob: float) -> Candidate | None:
        from paraspan.generate.baselines import tokenize
        from paraspan.generate.edits import article_edits
        from paraspan.generate.project import Edit, apply_edits, splice
        from paraspan.text.lexical_units import anchor_lemma, lu_pos

        text, k = sentence.text, job.structure
        if job.context:
            return self._context_candidate(sentence, job, form, votes, logprob)
        structure = sentence.structures[k]
        anchor = require_anchor(structure, "the substitute generator")
        edit = Edit(anchor.start, anchor.end, form, anchor.label)
        tokens = tokenize(sentence)
        new_text, placed, _, _ = apply_edits(text, sentence.structures, tokens, [edit])
        # this structure: its anchor is the substitute, every argument moves (one cut by the anchor is lost)
        spans = [anchor, *structure.args]
        same, moved = splice(text, spans, [(anchor, form)])
        if same != new_text:
            raise ParaspanError.from_code("E973", what="the substitute's edit and its span splice",
                                          first=new_text, second=same)
        pos = lu_pos(anchor.label)
        label = f"{anchor_lemma(form, pos)}.{pos}" if structure.kind == "frame" and pos else anchor.label
        new_anchor = Span(moved[0].start, moved[0].end, label, dict(moved[0].extra))
        args = [new for old, new in zip(structure.args, moved[1:], strict=True)
                if not (old.start < anchor.end and anchor.start < old.end and not (old.start <= anchor.start
                                                                                 and anchor.end <= old.end))]
        placed[k] = Structure(structure.kind, structure.label, new_anchor, args, dict(structure.extra))
        fixes = article_edits(text, tokens, [edit], [])
        if fixes:  # "a"/"an" before the new word
            new_text, placed, _, _ = apply_edits(new_text, placed, [], fixes)
        return Candidate(new_text, {"votes": float(votes), "forward": logprob}, structures=placed,
                         meta={"generator": self.name, "structure": k, "substitute": form, "votes": votes})

    def _context_candidate(self, sentence: Sentence, job: _Job, form: str, votes: int,
                           logprob: float) -> Candidate | None:
        """The sentence with the context word replaced: every span moves, a span holding the word
        takes the new one, the anchors stay. ``meta["replaced"]`` names the old word (the ``content``
        check then takes a WordNet synonym of it) and ``meta["at"]`` the new one's offsets."""
        from paraspan.generate.baselines import tokenize
        from paraspan.generate.edits import article_edits
        from paraspan.generate.project import Edit, apply_edits

        edit = Edit(job.start, job.end, form)
        tokens = tokenize(sentence)
        new_text, placed, _, at = apply_edits(sentence.text, sentence.structures, tokens, [edit])
        if placed[job.structure] is None:
            return None
        fixes = article_edits(sentence.text, tokens, [edit], [])
        if fixes:  # "a"/"an" before the new word
            new_text, placed, at, _ = apply_edits(new_text, placed, at, fixes)
        old = sentence.text[job.start:job.end]
        return Candidate(new_text, {"votes": float(votes), "forward": logprob}, structures=placed,
                         meta=Generated(replaced=(old,), keeps_anchor=True).meta(
                             generator=self.name, structure=job.structure, substitute=form, votes=votes,
                             target="context", at=list(at[0])))


def make_substituter(model: str = "default", samples: int = 12, n: int = 5, top_k: int = 20,
                     temperature: float = 1.0, max_words: int = 3, seed: int = 0, threads: int | None = 1,
                     backend: str = "auto", device: str = "auto", batch: int = 64, min_votes: int = 2,
                     agreement: int = 0, min_back_votes: int | None = None, pos: str = "v",
                     kinds: str = "frame", anchor: str = "synonym", targets: str = "anchor",
                     context_words: int = 2) -> Substituter:
    """The registered ``substitute`` generator: ``samples`` answers of the LLM (``model``) per
    anchor, the ``n`` most proposed substitutes of at most ``max_words`` words become candidates;
    ``batch``: sequences decoded together (several structures' samples share a wave); ``min_votes``:
    how many samples must propose a substitute; ``agreement``: how many of the substitute's votes
    and its back votes together it needs with the round trip on (0, the default: no round trip; 8 with
    12 samples is the measured setting); ``min_back_votes``: how many back votes it needs (default:
    ``min_votes``); ``pos``: the anchors' parts of speech replaced, FrameNet LU suffixes
    comma-separated (``v``, the default: verbs; ``v,n,a``; ``all``); ``kinds``: the structure kinds
    whose anchors it replaces (``frame``, the default; ``frame,srl``; ``all``); ``anchor``: ``synonym``
    (the default: a substitute shares a WordNet synset with the old word) or ``frame`` (any word the
    verification takes: for a verb, any LU of its frame); ``targets``: ``anchor`` (the default),
    ``context`` (a verb outside every anchor, the anchors kept) or ``anchor,context`` (the context
    word where the anchor's substitutes gave no output); ``context_words``: how many verbs of the
    sentence a context substitute asks about (2, the default), best first."""
    from paraspan.llm.backend import backend_info, context_size
    from paraspan.text.lexical_units import UPOS_TO_FN

    allowed = (None if pos.strip().lower() == "all"
               else frozenset(p.strip().lower() for p in pos.split(",") if p.strip()))
    if allowed is not None and (not allowed or not allowed <= set(UPOS_TO_FN.values())):
        raise ParaspanError.from_code("E880", option="generator.pos", rule="FrameNet LU suffixes (v, n, a, adv, "
                                      "prep …) comma-separated, or all", value=pos, fix="e.g. --set generator.pos=v,n")
    check_anchor(anchor)  # before the model loads
    target_set = parse_targets(targets)
    from paraspan.llm.hf_backend import load_backend

    kind_set = None if kinds.strip().lower() == "all" else frozenset(k.strip() for k in kinds.split(",") if k.strip())
    if kind_set is not None and (not kind_set or not kind_set <= {"frame", "srl", "entity", "event"}):
        raise ParaspanError.from_code("E880", option="generator.kinds", rule="structure kinds (frame, srl, entity, "
                                      "event) comma-separated, or all", value=kinds,
                                      fix="e.g. --set generator.kinds=frame,srl")
    width = max(8, samples, batch)
    runtime = load_backend(model, backend=backend, device=device, seed=seed, n_ctx=context_size(1024, width),
                           n_threads=threads, parallel=width)
    substituter = Substituter(runtime, samples, n, top_k, temperature, max_words, seed, min_votes, agreement,
                              min_back_votes, allowed, kind_set, anchor, target_set, context_words)
    substituter.info = backend_info(runtime, model)
    return substituter
