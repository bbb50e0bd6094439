"""The ``trained`` generator: a LoRA adapter trained on the corpus fills masked spans and triggers.

For one structure it masks an argument span (a frame element, a role, an entity mention) or the
anchor, asks the adapter (:mod:`paraspan.train`) for several fillers by top-k sampling, and splices
each filler in: the spans are placed by construction, so projection is exact. A filler equal to the
original text, or one that fails the slot checks of :mod:`paraspan.generate.fillers`, is dropped; a
new trigger is sampled with the original trigger's forms banned, re-inflected to the original's form
(LemmInflect), and must be a known lexical unit of the frame (a FrameNet index when given, else the
adapter's training lexicon). The pipeline's ``verified`` checks judge what is returned.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.generate.base import Candidate, Capabilities, GenerationRequest, GenerationResult
from paraspan.generate.fillers import (
    dangling_fillers,
    keeps_shape,
    object_it_cannot_take,
    one_participant_twice,
    phrase_shape,
    reflexive_fillers,
    shape_differs,
    stray_capital,
    stutters,
    unknown_words,
)
from paraspan.generate.project import splice_structures
from paraspan.provenance import Generated
from paraspan.train.examples import (
    MAX_SPAN_WORDS,
    TRIGGER,
    Mask,
    marker,
    maskable_args,
    parse_answer,
    render_prompt,
    span_kind,
)

__all__ = ["AdapterPerKind", "TrainedConfig", "TrainedInfiller", "make_trained"]


@dataclass(frozen=True)
class TrainedConfig:
    """Settings of :class:`TrainedInfiller`.

    ``masks``: span choices tried per structure (each one argument, or two with ``pairs``);
    ``samples``: fillers sampled per choice; ``triggers``: also propose new triggers (FrameNet frames only);
    ``n``: candidates returned, best mean log-probability first; ``parse_checks``: parse each new
    sentence and drop a filler that changes its span's phrase type, a capital inside the sentence, a
    filler naming another argument's participant, a new verb given an object it cannot take.
    """

    masks: int = 3
    samples: int = 6
    pairs: bool = False
    triggers: bool = True
    top_k: int = 40
    temperature: float = 0.8
    max_words: int = MAX_SPAN_WORDS
    n: int = 6
    seed: int = 0
    parse_checks: bool = True


@dataclass
class _Fill:
    text: str
    structures: list[Structure | None]
    logprob: float
    replaced: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)


class TrainedInfiller:
    """Fills masked spans and triggers with a trained adapter (see the module docstring)."""

    capabilities = Capabilities(honours_ban=False, needs_structure=True, deterministic=True, keeps_meaning=False,
                                retries=0)

    def __init__(self, backend: Any, card: dict[str, Any], config: TrainedConfig | None = None,
                 frames: Any = None) -> None:
        self.backend = backend
        self.card = card
        self.config = config or TrainedConfig()
        self.frames = frames
        self.bos = bool(card.get("prompt", {}).get("bos", False))
        self.lexicon: dict[str, set[str]] = {f: set(lus) for f, lus in card.get("lexicon", {}).items()}
        self._nlp: Any | None = None
        self.info: dict[str, Any] = {"adapter": card.get("name"), "adapter_base": card.get("base", {}).get("name"),
                                     "trained_config": {k: v for k, v in vars(self.config).items()}}

    # ------------------------------------------------------------------ prompting
    def _prompt_tokens(self, prompt: str) -> list[int]:
        tokens = self.backend.tokenize(prompt)
        if self.bos:
            from paraspan.llm.llama_backend import start_tokens

            tokens = start_tokens(self.backend)[:1] + tokens
        return tokens

    def _sample(self, prompt: str, count: int, seed: int, bans: Any = None) -> list[tuple[str, float]]:
        from paraspan.llm.backend import SampleGroup
        from paraspan.text.constraints import BanSet

        group = SampleGroup(n=self.config.samples, seed=seed, bans=bans or BanSet(), fields=count if count > 1 else 0,
                            max_words=self.config.max_words * count)
        samples = self.backend.sample_groups(self._prompt_tokens(prompt), [group], top_k=self.config.top_k,
                                             max_tokens=24 * count, temperature=self.config.temperature)
        return [(s.text, s.mean_logprob) for s in samples if s.finish in ("stop", "newline")]

    def _parse(self, text: str) -> Any:
        if self._nlp is None:
            from paraspan.models import load_spacy

            self._nlp = load_spacy(exclude=("ner", "lemmatizer"))
        return self._nlp(text)

    def _slot_check(self, sentence: Sentence, index: int, masked: list[Span]
                    ) -> Callable[[list[str], str, list[Structure | None]], str | None]:
        """A check of one mask choice's fillers: ``check(parts, new_text, structures)`` says why the parse of
        ``new_text`` refuses the fillers ``parts`` of the ``masked`` spans, or None. What the source gives
        (its parse, the masked spans' phrase types, the other participants) is worked out once per choice."""
        old = sentence.structures[index]
        slots = [old.spans().index(span) for span in masked]
        others = [sentence.text[a.start:a.end] for a in old.args if a not in masked]
        if old.kind == "entity":  # a list of places filled with one of its own members
            others = [sentence.text[s.anchor.start:s.anchor.end] for s in sentence.structures
                      if s is not old and s.anchor is not None and s.kind == "entity"]
        wanted: list[tuple[str, ...] | None] = []
        if self.config.parse_checks:
            source = self._parse(sentence.text)
            wanted = [phrase_shape(source, span.start, span.end) for span in masked]

        def check(parts: list[str], new_text: str, structures: list[Structure | None]) -> str | None:
            new = structures[index]
            if not self.config.parse_checks or new is None:
                return None
            if one_participant_twice(parts, others):
                return "names another argument's participant"
            doc = self._parse(new_text)
            for shape, slot in zip(wanted, slots, strict=True):
                placed = new.spans()[slot]
                if not keeps_shape(shape, phrase_shape(doc, placed.start, placed.end)):
                    return "another phrase type"
                if stray_capital(doc, placed.start, placed.end):
                    return "a capital inside the sentence"
            return None

        return check

    def _pieces(self, word: str) -> int:
        """How many tokens of the base model's vocabulary ``word`` takes after a space."""
        return len(self.backend.tokenize(" " + word))

    # ------------------------------------------------------------------ generation
    def generate(self, request: GenerationRequest) -> GenerationResult:
        sentence, index = request.sentence, request.structure
        if sentence is None or index is None or not 0 <= index < len(sentence.structures):
            return GenerationResult(request, [], note="the trained generator needs an annotated structure")
        structure = sentence.structures[index]
        kinds = self.card.get("labels", {}).get("kinds")
        if kinds and span_kind(structure) not in kinds:
            from paraspan.models.adapters import check_labels

            check_labels(self.card, str(self.card.get("name")), {span_kind(structure)}, set())
        stats: Counter[str] = Counter()
        rng = random.Random(zlib.crc32(f"{self.config.seed}:{request.id}:{index}:{request.attempt}".encode()))
        fills: list[_Fill] = []
        for masked in self._choices(sentence, structure, rng, stats):
            fills.extend(self._fill_spans(sentence, index, masked, rng, stats))
        # a new trigger must evoke the same frame; a PropBank roleset belongs to one lemma, so none can
        if self.config.triggers and structure.kind == "frame" and structure.anchor is not None:
            fills.extend(self._fill_trigger(sentence, index, rng, stats))
        seen: set[str] = set()
        candidates = []
        for fill in sorted(fills, key=lambda f: -f.logprob):
            if fill.text in seen or fill.text == sentence.text:
                continue
            seen.add(fill.text)
            said = Generated(replaced=fill.replaced, keeps_anchor=fill.meta.get("task") == "span")
            candidates.append(Candidate(fill.text, {"score": fill.logprob}, fill.structures, None,
                                        said.meta(**fill.meta)))
        candidates = candidates[: request.n or self.config.n]
        note = None if candidates else "no filler differed from the original and parsed: " + (
            ", ".join(f"{k} {v}" for k, v in sorted(stats.items())) or "nothing to mask")
        return GenerationResult(request, candidates, note=note, stats=dict(stats))

    def _choices(self, sentence: Sentence, structure: Structure, rng: random.Random,
                 stats: Counter[str]) -> list[list[Span]]:
        spans = maskable_args(sentence.text, structure, self.config.max_words)
        known = set(self.card.get("labels", {}).get("labels", []))
        if known:  # a marker the adapter never saw would be answered at random
            marks = [marker(structure, s) for s in spans]
            unknown = sorted(set(marks) - known)
            spans = [s for s, mark in zip(spans, marks, strict=True) if mark in known]
            if unknown and not spans:  # said in the note, so that a corpus of another label set learns why
                stats[f"a label adapter {self.card.get('name')!r} was not trained on ({', '.join(unknown)}: "
                      "train one on this corpus with `paraspan train-generator`)"] += 1
        choices = [[s] for s in spans]
        if self.config.pairs and len(spans) > 1:
            choices += [[a, b] for i, a in enumerate(spans) for b in spans[i + 1:]]
        rng.shuffle(choices)
        return choices[: self.config.masks]

    def _fill_spans(self, sentence: Sentence, index: int, masked: list[Span], rng: random.Random,
                    stats: Counter[str]) -> list[_Fill]:
        structure = sentence.structures[index]
        masks = [Mask(s.start, s.end, marker(structure, s)) for s in masked]
        prompt = render_prompt(sentence.text, structure, masks, "span")  # an entity's header names no type
        ordered = sorted(masked, key=lambda s: s.start)
        originals = [sentence.text[s.start:s.end] for s in ordered]
        misreads = self._slot_check(sentence, index, ordered)
        out = []
        for text, logprob in self._sample(prompt, len(ordered), rng.randrange(1 << 30)):
            parts = parse_answer(text, len(ordered))
            if parts is None:
                stats["unparsed"] += 1
                continue
            if any(p.lower() == o.lower() for p, o in zip(parts, originals, strict=True)):
                stats["same as original"] += 1
                continue
            if any(p.lower() in dangling_fillers() for p in parts):
                stats["a function word alone"] += 1
                continue
            if any(p.lower() in reflexive_fillers() for p in parts):
                stats["a reflexive pronoun alone"] += 1
                continue
            if any(unknown_words(p, sentence.text, self._pieces) for p in parts):
                stats["a word the lexicon does not know"] += 1
                continue
            if any(shape_differs(o, p) for o, p in zip(originals, parts, strict=True)):
                stats["another opening preposition"] += 1
                continue
            if any(stutters(sentence.text, s.start, s.end, p) for s, p in zip(ordered, parts, strict=True)):
                stats["repeats the word beside it"] += 1
                continue
            placed = splice_structures(sentence, list(zip(ordered, parts, strict=False)))
            if placed is None:
                stats["overlaps another span"] += 1
                continue
            new_text, structures = placed
            why = misreads(parts, new_text, structures)
            if why is not None:
                stats[why] += 1
                continue
            out.append(_Fill(new_text, structures, logprob, tuple(originals),
                             {"task": "span", "masked": [marker(structure, s) for s in ordered], "fillers": parts}))
        return out

    def _fill_trigger(self, sentence: Sentence, index: int, rng: random.Random, stats: Counter[str]) -> list[_Fill]:
        from paraspan.generate.sister_lu import inflect_lu_like
        from paraspan.models.inflect import inflections, lemmas
        from paraspan.text.constraints import BanSet

        structure = sentence.structures[index]
        anchor = structure.anchor
        if anchor is None:
            return []
        original = sentence.text[anchor.start:anchor.end]
        lu = anchor.label or ""
        lemma, _, pos = lu.rpartition(".") if "." in lu else (original.lower(), "", "")
        upos = {"v": "VERB", "n": "NOUN", "a": "ADJ", "adv": "ADV"}.get(pos)
        forms = {original.lower(), *lemma.split()[:1]}
        for words in inflections(lemma.split()[0], upos).values() if lemma.split() and upos else ():
            forms.update(w.lower() for w in words)
        prompt = render_prompt(sentence.text, structure, [Mask(anchor.start, anchor.end, TRIGGER)], "trigger")
        out = []
        for text, logprob in self._sample(prompt, 1, rng.randrange(1 << 30), BanSet.exact(forms, [original])):
            parts = parse_answer(text, 1)
            if parts is None:
                stats["unparsed"] += 1
                continue
            word = parts[0]
            found = lemmas(word.split()[0], upos) if upos else []
            new_lemma = " ".join([found[0] if found else word.split()[0].lower(), *word.lower().split()[1:]])
            if new_lemma == lemma:
                stats["same trigger"] += 1
                continue
            new_lu = f"{new_lemma}.{pos}" if pos else new_lemma
            if structure.kind == "frame" and not self._known(structure.label, new_lu):
                stats["trigger not an LU of the frame"] += 1
                continue
            before = (sentence.text[:anchor.start].split() or [""])[-1]
            form = inflect_lu_like(original, lu, new_lu, before) if pos else word
            if not form:
                stats["not inflectable"] += 1
                continue
            # a target annotated twice (the same span and LU) gets the new LU in both annotations
            twins = {i: new_lu for i, other in enumerate(sentence.structures)
                     if other.anchor is not None and (other.anchor.start, other.anchor.end, other.anchor.label)
                     == (anchor.start, anchor.end, anchor.label)}
            placed = splice_structures(sentence, [(anchor, form)], relabel=twins)
            if placed is None:
                stats["overlaps another span"] += 1
                continue
            new_text, structures = placed
            moved = structures[index]
            if (self.config.parse_checks and moved is not None and moved.anchor is not None
                    and object_it_cannot_take(self._parse(new_text), moved.anchor, new_lu)):
                stats["an object for a verb that takes none"] += 1
                continue
            out.append(_Fill(new_text, structures, logprob, (original,),
                             {"task": "trigger", "lu_from": lu, "lu_to": new_lu, "fillers": [form]}))
        return out

    def _known(self, frame: str, lu: str) -> bool:
        """Whether ``lu`` is a lexical unit of ``frame``: in the FrameNet index when one is given, else in
        the lexicon of the adapter's training corpus (a trigger the model invents is not proposed)."""
        if self.frames is not None:
            return frame in self.frames.frames_of_lu(lu)
        return lu in self.lexicon.get(frame, ())


class AdapterPerKind:
    """The ``trained`` generator with ``adapter="auto"``: each structure goes to the shipped adapter of its
    kind (:data:`~paraspan.models.adapters.FOR_KIND`), loaded when a structure of that kind first comes."""

    capabilities = TrainedInfiller.capabilities

    def __init__(self, build: Callable[[str], TrainedInfiller]) -> None:
        self._build = build
        self._loaded: dict[str, TrainedInfiller] = {}
        self.info: dict[str, Any] = {"adapter": "auto", "adapters": {}}

    def generate(self, request: GenerationRequest) -> GenerationResult:
        from paraspan.models.adapters import FOR_KIND, shipped_names

        sentence, index = request.sentence, request.structure
        if sentence is None or index is None or not 0 <= index < len(sentence.structures):
            return GenerationResult(request, [], note="the trained generator needs an annotated structure")
        kind = span_kind(sentence.structures[index])
        name = FOR_KIND.get(kind)
        if name is None or name not in shipped_names():
            return GenerationResult(request, [], note=f"no shipped adapter for {kind} structures: train one with "
                                    "`paraspan train-generator` and pass it as generator.adapter")
        if name not in self._loaded:
            self._loaded[name] = self._build(name)
            self.info["adapters"][kind] = self._loaded[name].info
        return self._loaded[name].generate(request)


def make_trained(adapter: str = "auto", model: str | None = None, backend: str = "auto", device: str = "auto",
                 frames: str | None = None, masks: int = 3, samples: int = 6, pairs: bool = False,
                 triggers: bool = True, top_k: int = 40, temperature: float = 0.8, n: int = 6, seed: int = 0,
                 parse_checks: bool = True, threads: int | None = None) -> TrainedInfiller | AdapterPerKind:
    """The registered ``trained`` generator.

    ``adapter``: ``auto`` (the shipped adapter of each structure's kind: ``framenet`` for frames,
    ``wikiann`` for entities, ``ewt-up`` for PropBank roles), a shipped adapter's name, or a folder
    written by ``paraspan train-generator``; ``model``: the base (default: the one the adapter was
    trained on, which must match by sha256); ``backend``: llama (CPU, the GGUF LoRA), transformers
    (peft; GPU) or auto; ``frames``: a FrameNet release, so that only known LUs of a frame are
    proposed as its new triggers; the rest are :class:`TrainedConfig`'s settings.
    """
    config = TrainedConfig(masks=masks, samples=samples, pairs=pairs, triggers=triggers, top_k=top_k,
                           temperature=temperature, n=n, seed=seed, parse_checks=parse_checks)

    def build(name: str) -> TrainedInfiller:
        from paraspan.llm.adapters import load_adapter_backend

        runtime, card = load_adapter_backend(name, model=model, backend=backend, device=device, n_threads=threads)
        index = None
        if frames is not None:
            from paraspan.corpus.frame_index import FrameIndex

            index = FrameIndex.load(Path(frames))
        return TrainedInfiller(runtime, card, config, index)

    return AdapterPerKind(build) if adapter == "auto" else build(adapter)
