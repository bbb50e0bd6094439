"""The ``infill`` generator: sister-LU replacement, prompted FE infilling, FE-fidelity filtering and ranking."""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paraspan.corpus.schema import Sentence, Structure
from paraspan.errors import ParaspanError
from paraspan.generate.base import Candidate, Capabilities, GenerationRequest, GenerationResult
from paraspan.generate.fillers import (
    keeps_shape,
    object_it_cannot_take,
    one_participant_twice,
    phrase_shape,
    stray_capital,
)
from paraspan.generate.infill.fillers import (
    _WORD,
    MASK,
    _describe,
    _fit_punctuation,
    candidate_fes,
    filler_problem,
    outside,
    parse_answer,
)
from paraspan.generate.sister_lu import inflect_like, lemma_words, replace_lu, splice

if TYPE_CHECKING:
    from paraspan.corpus.frame_index import FrameIndex, LexUnit
    from paraspan.filter.fe_classifier import FEClassifier
    from paraspan.llm.backend import Backend, Prompt, Sample


CONDITIONING = ("none", "fe", "frame+fe")
TARGETS = ("all", "unannotated")

SYSTEM_PROMPT = "You are a careful annotator who completes English sentences for FrameNet."
INSTRUCTION = (
    "Fill in the blanks (<mask>) of the sentence so that it is fluent and makes sense with its verb. "
    "Generate the phrases that fill the blanks ONLY, in order, separated by \" | \". Do NOT repeat the "
    "sentence or words around the blanks. Answer on one line."
)
_INSTRUCTION_FE = " Each phrase must be of the frame element (FE) type listed for its blank."
_INSTRUCTION_FRAME = (" Each phrase must be of the frame element (FE) type listed for its blank, as the frame "
                      "and FE definitions describe.")
#: The prompt is cached up to here: what comes before is the same for every sentence.
SPLIT_MARK = "Example 1"
#: Used when the corpus has no example to show (a sentence written for paraspan, not FrameNet data).
_FALLBACK_EXAMPLE = {
    "frame": "Giving", "lu": "give.v", "text": "Every winter <mask> gives <mask> to the shelter.",
    "fes": [("Donor", "The person that begins in possession of the Theme and causes it to be in the "
             "possession of the Recipient."), ("Theme", "The object that changes ownership.")],
    "frame_def": "A Donor transfers a Theme from a Donor to a Recipient.",
    "answer": "my neighbour | a box of warm blankets",
}


@dataclass(frozen=True)
class InfillConfig:
    """Settings of :class:`Infiller`."""

    conditioning: str = "frame+fe"  # none | fe | frame+fe
    candidates: int = 4  # answers sampled per (structure, target LU): overgenerate
    targets: str = "all"  # all | unannotated
    max_targets: int = 1  # target LUs per structure (chosen at random, seeded by the text)
    keep: int = 1  # outputs kept per (structure, target LU), lowest perplexity first
    shots: int = 2  # few-shot examples in the prompt
    top_k: int = 20
    temperature: float = 0.8
    strict: bool = True  # keep only outputs of FE fidelity 1.0 (False: keep all, fidelity recorded)
    perplexity: bool = True
    definition_chars: int = 200  # definitions are cut to this length in the prompt
    seed: int = 0


@dataclass
class InfillResult:
    """Outputs kept for one sentence, every parsed candidate (kept or not), and counters."""

    source: Sentence
    outputs: list[Sentence] = field(default_factory=list)
    candidates: list[Sentence] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)


@dataclass
class _Job:
    """One (structure, target LU) to infill."""

    structure: Structure  # after the LU replacement, in `text`
    text: str
    lu_from: str
    lu_to: LexUnit
    masked: list[int]  # indices into structure.args


@dataclass
class _Blanks:
    """What every sample of one job is read against: the same for all of them."""

    job: _Job
    blanks: list[int]  # the masked arguments, in text order
    original: list[str]  # their words in the source
    names: list[str]  # the frame's and the FEs' names: no filler may be one
    wanted: list[tuple[str, ...] | None]  # each blank's phrase type, which its filler must keep
    context: str  # the text around the blanks
    others: list[str]  # the other FEs' words


class Infiller:
    """Sister-LU replacement + FE infilling + FE-type filter (a :class:`Generator`, registered as "infill").

    ``frames``: the FrameNet frame index (or the path of a release to load it from).
    ``generate`` needs the annotated sentence in ``request.sentence``: a plain-text request has no
    frame to work on and gets no candidates.
    ``backend``: a :class:`~paraspan.llm.backend.Backend`, or a model name / ``.gguf`` path
    for a :class:`~paraspan.llm.llama_backend.LlamaBackend`. ``classifier``: the FE-type
    classifier (default: the packaged head). ``examples``: annotated sentences to draw few-shot
    examples from (usually the corpus being augmented); without them, ``generate`` draws them from
    the sentences it has been asked about (as the donor pool of mention replacement does), so that
    the prompt shows real FrameNet fillers instead of the one built-in example, which a small model
    copies ("a box of warm blankets" as a Message, judged fn-infill-v3). Those prompts depend on what
    was seen before (with several workers, each sees its own share): give ``examples`` for output
    that does not depend on the order or the worker count.
    """

    def __init__(self, frames: FrameIndex | str | Path | None = None, backend: Backend | str | None = "default",
                 classifier: FEClassifier | str | Path | None = None, config: InfillConfig | None = None,
                 examples: Iterable[Sentence] = (), n_threads: int | None = None, **overrides: Any) -> None:
        self.config = replace(config or InfillConfig(), **overrides)
        if self.config.conditioning not in CONDITIONING:
            raise ParaspanError.from_code("E801", option="conditioning", value=self.config.conditioning,
                                          choices=", ".join(CONDITIONING))
        if self.config.targets not in TARGETS:
            raise ParaspanError.from_code("E802", option="target selection", value=self.config.targets,
                                          choices=", ".join(TARGETS))
        if self.config.candidates < 1:
            raise ParaspanError.from_code("E803", fix="use e.g. --candidates 4",
                                          problem=f"--candidates must be at least 1, got {self.config.candidates}")
        if frames is None:
            raise ParaspanError.from_code("E800")
        if not hasattr(frames, "frames"):
            from paraspan.corpus.frame_index import FrameIndex

            frames = FrameIndex.load(frames)  # type: ignore[arg-type]
        self.frames: FrameIndex = frames  # type: ignore[assignment]
        if backend is None or isinstance(backend, (str, Path)):
            from paraspan.llm.llama_backend import LlamaBackend

            backend = LlamaBackend.load(str(backend or "default"), n_threads=n_threads)
        self.backend: Backend = backend
        if classifier is None or isinstance(classifier, (str, Path)):
            from paraspan.filter.fe_classifier import FEClassifier

            classifier = FEClassifier.load(classifier)
        self.classifier: FEClassifier = classifier
        self._examples: dict[str, list[tuple[Sentence, Structure]]] = {}
        self._example_ids: set[str] = set()
        examples = list(examples)
        self.learns_examples = not examples  # see the class docstring
        self.add_examples(examples)
        self.info: dict[str, Any] = {}  # model names and versions, recorded in provenance
        self._nlp: Any | None = None
        self._docs: dict[str, Any] = {}

    # -- Generator contract
    #: the target is replaced by a sister LU chosen from the text, not from the ban list; the
    #: samples are seeded by the text, so a retry gives the same answers
    capabilities = Capabilities(honours_ban=False, needs_structure=True, deterministic=True, keeps_meaning=False)

    def generate(self, request: GenerationRequest) -> GenerationResult:
        """Candidates for ``request.sentence`` (its structure ``request.structure``, or all of
        them), each with its one new structure placed; plain text has none."""
        sentence = request.sentence
        if sentence is None:
            return GenerationResult(request, [], note="infilling needs the annotated sentence, not plain text")
        result = self.infill(sentence, only=request.structure)
        if self.learns_examples:
            self.add_examples([sentence])
        out = []
        for new in result.outputs[: request.n] if request.n is not None else result.outputs:
            prov = new.provenance or {}
            ppl = prov.get("perplexity")
            placed: list[Structure | None] = [None] * len(sentence.structures)
            placed[int(prov["structure"])] = new.structures[0]
            out.append(Candidate(text=new.text, scores={
                "fe_fidelity": float(prov.get("fe_fidelity", 0.0)),
                "perplexity": float(ppl) if ppl is not None else float("nan"),
                "score": -math.log(ppl) if ppl else 0.0}, structures=placed, meta={"provenance": prov}))
        note = None if out else ("; ".join(result.notes) or "no candidate passed the FE filter")
        return GenerationResult(request, out, note=note, stats=dict(result.stats))

    # -- examples
    def add_examples(self, sentences: Iterable[Sentence]) -> None:
        for sentence in sentences:
            if len(sentence.text.split()) > 40 or sentence.id in self._example_ids:
                continue  # long examples cost prompt time and teach nothing more
            self._example_ids.add(sentence.id)
            for structure in sentence.structures:
                if (structure.kind == "frame" and structure.anchor is not None and structure.args
                        and (structure.anchor.label or "").endswith(".v")):
                    self._examples.setdefault(structure.label, []).append((sentence, structure))

    def _nlp_model(self) -> Any:
        if self._nlp is None:
            from paraspan.models import load_spacy

            self._nlp = load_spacy(exclude=("ner", "lemmatizer"))
        return self._nlp

    # -- the method
    def infill(self, sentence: Sentence, only: int | None = None) -> InfillResult:
        """New sentences for every verb frame structure of ``sentence`` (or structure ``only``;
        see the module docstring)."""
        result = InfillResult(sentence)
        for k, structure in enumerate(sentence.structures):
            if structure.kind != "frame" or (only is not None and k != only):
                continue
            result.stats["structures"] += 1
            jobs, reason = self._jobs(sentence, structure)
            if reason is not None:
                result.stats[f"skipped: {reason}"] += 1
                result.notes.append(f"{structure.label} ({structure.anchor.label if structure.anchor else '?'}): "
                                    f"{reason}")
                continue
            for job in jobs:
                self._run(sentence, k, job, result)
        return result

    def _jobs(self, sentence: Sentence, structure: Structure) -> tuple[list[_Job], str | None]:
        cfg = self.config
        anchor = structure.anchor
        if anchor is None or not anchor.label:
            return [], "no target"
        lu_name = anchor.label
        if not lu_name.lower().endswith(".v"):
            return [], "not a verb LU"
        if structure.extra.get("anchor_rest"):
            return [], "multiword LU with a discontinuous target"
        frame = self.frames.frames.get(structure.label)
        if frame is None:
            return [], f"frame {structure.label!r} is not in the frame index"
        if not any(fe.is_core for fe in frame.fes.values()):
            return [], "the frame has no core FEs"
        if not structure.args:
            return [], "no frame elements annotated"
        sisters = [lu for lu in self.frames.sister_lus(lu_name, frame=structure.label, pos="V")
                   if lemma_words(lu) != lemma_words(lu_name) and not re.search(r"[()\[\]_]", lu.name)]
        if cfg.targets == "unannotated":
            sisters = [lu for lu in sisters if lu.annotated == 0]
        if not sisters:
            return [], "no sister LU" + (" without annotations" if cfg.targets == "unannotated" else "")
        # the parse is only needed for a span without a FrameNet phrase type
        nlp = self._nlp_model() if any("pt" not in a.extra for a in structure.args) else None
        chosen = candidate_fes(structure, self.frames, sentence.text, nlp)
        if not chosen:
            return [], "no candidate FE (core FEs are agentive, or none annotated)"
        rng = np.random.default_rng([cfg.seed & 0xFFFFFFFF, zlib.crc32(f"{sentence.text}\x1f{lu_name}".encode())])
        order = rng.permutation(len(sisters))[: max(1, cfg.max_targets)]
        before_words = _WORD.findall(sentence.text[: anchor.start])
        before = before_words[-1] if before_words else ""
        jobs = []
        for i in order:
            lu_to = sisters[int(i)]
            form = inflect_like(anchor.text_in(sentence.text), lu_name, lu_to.name, before)
            if form is None:
                return [], f"cannot tell the verb form of {anchor.text_in(sentence.text)!r} as {lu_name}"
            text, moved = replace_lu(sentence.text, structure, lu_to, form)
            masked = [structure.args.index(span) for span in chosen]
            jobs.append(_Job(moved, text, lu_name, lu_to, masked))
        return jobs, None

    # -- prompts
    def _parse(self, text: str) -> Any:
        """The spaCy parse of ``text``, kept for the prompt and the phrase-type check of one job."""
        doc = self._docs.get(text)
        if doc is None:
            if len(self._docs) > 256:
                self._docs.clear()
            doc = self._docs[text] = self._nlp_model()(text)
        return doc

    def _render(self, text: str, structure: Structure, masked: Sequence[int], lu: str) -> str:
        """One task block: the masked sentence and, by conditioning, frame/LU/FE lines (each FE with
        the phrase type its filler must keep, read from the parse; definitions without their example
        sentences, whose phrases a small model copies as fillers: "his collection" for Total)."""
        cfg = self.config
        blanks = [structure.args[i] for i in masked]
        edits = [(span, MASK) for span in blanks]
        masked_text, _ = splice(text, [], edits)
        lines = []
        if cfg.conditioning == "frame+fe":
            frame = self.frames.frames.get(structure.label)
            definition = _cut((frame.gloss or frame.definition) if frame else "", cfg.definition_chars)
            lines.append(f"Frame: {structure.label}. {definition}".strip())
            lines.append(f"Lexical Unit: {lu}.")
        lines.append(f"Sentence ({len(blanks)} blank{'s' if len(blanks) > 1 else ''}): {masked_text}")
        if cfg.conditioning in ("fe", "frame+fe"):
            ordered = sorted(blanks, key=lambda s: s.start)
            names = [s.label or "" for s in ordered]
            doc = self._parse(text)
            kinds = [_describe(phrase_shape(doc, s.start, s.end)) for s in ordered]
            lines.append(f"FE Type: {', '.join(f'{n} ({k})' if k else n for n, k in zip(names, kinds, strict=True))}.")
            if cfg.conditioning == "frame+fe":
                frame = self.frames.frames.get(structure.label)
                for name in dict.fromkeys(names):
                    fe = frame.fes.get(name) if frame else None
                    if fe is not None and (fe.gloss or fe.definition):  # an index built by hand has no gloss
                        lines.append(f"{name}: {_cut(fe.gloss or fe.definition, cfg.definition_chars)}")
        return "\n".join(lines)

    def _example_blocks(self, sentence: Sentence, frame: str) -> list[str]:
        cfg = self.config
        if cfg.shots <= 0:
            return []
        pool = [(s, st) for s, st in self._examples.get(frame, []) if s.text != sentence.text]
        if len(pool) < cfg.shots:  # top up from other frames: the format matters more than the frame
            rng = np.random.default_rng(zlib.crc32(frame.encode()))
            others = [key for key in self._examples if key != frame]
            for j in rng.permutation(len(others))[:8] if others else []:
                pool.extend((s, st) for s, st in self._examples[others[int(j)]][:1] if s.text != sentence.text)
        blocks = []
        rng = np.random.default_rng(zlib.crc32(sentence.text.encode()))
        for j in rng.permutation(len(pool)) if pool else []:
            ex_sentence, ex_structure = pool[int(j)]
            if ex_structure.anchor is None:
                continue
            chosen = candidate_fes(ex_structure, self.frames, ex_sentence.text, None)
            if not chosen:
                continue
            masked = [ex_structure.args.index(c) for c in chosen]
            answer = " | ".join(c.text_in(ex_sentence.text) for c in sorted(chosen, key=lambda s: s.start))
            block = self._render(ex_sentence.text, ex_structure, masked, ex_structure.anchor.label or "")
            blocks.append(f"{block}\nAnswer: {answer}")
            if len(blocks) == cfg.shots:
                break
        if not blocks:
            blocks.append(self._fallback_block())
        return blocks

    def _fallback_block(self) -> str:
        ex = _FALLBACK_EXAMPLE
        cfg = self.config
        lines = []
        if cfg.conditioning == "frame+fe":
            lines += [f"Frame: {ex['frame']}. {ex['frame_def']}", f"Lexical Unit: {ex['lu']}."]
        lines.append(f"Sentence (2 blanks): {ex['text']}")
        if cfg.conditioning in ("fe", "frame+fe"):
            lines.append(f"FE Type: {', '.join(f'{n} (noun phrase)' for n, _ in ex['fes'])}.")
            if cfg.conditioning == "frame+fe":
                lines += [f"{n}: {d}" for n, d in ex["fes"]]
        return "\n".join(lines) + f"\nAnswer: {ex['answer']}"

    def prompt(self, sentence: Sentence, job: _Job) -> Prompt:
        cfg = self.config
        instruction = INSTRUCTION + {"none": "", "fe": _INSTRUCTION_FE, "frame+fe": _INSTRUCTION_FRAME}[
            cfg.conditioning]
        blocks = self._example_blocks(sentence, job.structure.label)
        parts = [instruction]
        for i, block in enumerate(blocks, 1):
            parts.append(f"Example {i}:\n{block}")
        parts.append("Now the task:\n" + self._render(job.text, job.structure, job.masked, job.lu_to.name)
                     + "\nAnswer:")
        return self.backend.chat_prompt(SYSTEM_PROMPT, "\n\n".join(parts), split_at=SPLIT_MARK)

    # -- one job
    def _run(self, sentence: Sentence, k: int, job: _Job, result: InfillResult) -> None:
        from paraspan.llm.backend import SampleGroup

        cfg = self.config
        stats = result.stats
        stats["jobs"] += 1
        blanks = sorted(job.masked, key=lambda i: job.structure.args[i].start)
        original = [job.structure.args[i].text_in(job.text) for i in blanks]
        max_tokens = sum(len(self.backend.tokenize(" " + o)) for o in original) * 2 + 8 * len(blanks) + 8
        prompt = self.prompt(sentence, job)
        frame = self.frames.frames.get(job.structure.label)
        names = [job.structure.label, *(frame.fes if frame else ()), *(a.label or "" for a in job.structure.args)]
        seed = zlib.crc32(f"{cfg.seed}\x1f{job.text}\x1f{job.lu_to.name}".encode())
        # the answer's format (one "|"-separated phrase per blank) is enforced while sampling
        samples = self.backend.sample_groups(prompt, [SampleGroup(cfg.candidates, seed, fields=len(blanks))],
                                             top_k=cfg.top_k,
                                             max_tokens=max_tokens, temperature=cfg.temperature)
        stats["sampled"] += len(samples)
        # each filler must keep its span's phrase type (judged fn-infill runs: a clause's slot filled
        # with a noun phrase, "by suspending X" with "in trust", a plural subject with a singular one)
        source_doc = self._parse(job.text)
        blanked = _Blanks(
            job, blanks, original, names,
            wanted=[phrase_shape(source_doc, job.structure.args[i].start, job.structure.args[i].end) for i in blanks],
            context=outside(job.text, [job.structure.args[i] for i in blanks]),
            others=[a.text_in(job.text) for j, a in enumerate(job.structure.args) if j not in blanks])
        made: dict[str, tuple[str, Structure, list[int]]] = {}
        for sample in samples:
            filled = self._filled(blanked, sample, made, stats)
            if filled is not None:
                made[filled[0]] = filled
        stats["parsed"] += len(made)
        if made:
            self._keep(sentence, k, job, made, result)

    def _filled(self, blanked: _Blanks, sample: Sample, made: dict[str, Any],
                stats: Counter[str]) -> tuple[str, Structure, list[int]] | None:
        """The sentence ``sample``'s phrases make, or None (counted in ``stats``) where one check refuses it."""
        job, blanks = blanked.job, blanked.blanks
        if sample.finish in ("length", "blocked"):
            stats["unparseable"] += 1
            stats["unparseable: too long"] += 1
            return None
        phrases = parse_answer(sample.text, len(blanks), blanked.names, blanked.context)
        if phrases is None:
            stats["unparseable"] += 1
            parts = [p.strip() for p in sample.text.split("|")]
            problems = [filler_problem(p, blanked.names, blanked.context) for p in parts]
            why = ("wrong number of phrases" if len(parts) != len(blanks)
                   else next((p for p in problems if p), "bad phrase"))
            stats[f"unparseable: {why}"] += 1
            return None
        phrases = [_fit_punctuation(p, job.text, job.structure.args[i]) for p, i in zip(phrases, blanks, strict=True)]
        if one_participant_twice(phrases, blanked.others):
            stats["another FE's words"] += 1  # "accumulating the Soviet Union" (the Agent's words, judged)
            return None
        if all(p == o for p, o in zip(phrases, blanked.original, strict=True)):
            stats["unchanged"] += 1  # the model copied the original spans back
        spans = [job.structure.anchor, *job.structure.args]
        assert job.structure.anchor is not None
        edits = [(job.structure.args[i], p) for i, p in zip(blanks, phrases, strict=True)]
        text, moved = splice(job.text, spans, edits)
        for i in blanks:  # a regenerated span's FrameNet phrase type no longer applies
            moved[1 + i].extra.pop("pt", None)
        if text in made:
            stats["duplicate"] += 1
            return None
        doc = self._nlp_model()(text)
        if not all(keeps_shape(w, phrase_shape(doc, moved[1 + i].start, moved[1 + i].end))
                   for w, i in zip(blanked.wanted, blanks, strict=True)):
            stats["phrase type changed"] += 1
            return None
        if object_it_cannot_take(doc, moved[0], job.lu_to.name):
            stats["an object for a verb that takes none"] += 1
            return None
        if any(stray_capital(doc, moved[1 + i].start, moved[1 + i].end) for i in blanks):
            stats["capital inside the sentence"] += 1  # "manufacture Raw materials" (judged fn-infill-v4)
            return None
        return text, Structure("frame", job.structure.label, moved[0], moved[1:], dict(job.structure.extra)), blanks

    def _keep(self, sentence: Sentence, k: int, job: _Job, made: dict[str, tuple[str, Structure, list[int]]],
              result: InfillResult) -> None:
        """Every sentence ``made`` becomes a candidate, scored; the best ``keep`` that pass become outputs."""
        cfg = self.config
        stats = result.stats
        texts = list(made)
        fidelity, predictions = self._fidelity([made[t] for t in texts])
        ppl = self._perplexities(texts) if cfg.perplexity else [None] * len(texts)
        new_sentences: list[tuple[float, Sentence, bool]] = []
        for j, text in enumerate(texts):
            _, structure, masked = made[text]
            keep = fidelity[j] >= 1.0 or not cfg.strict
            prov = {"method": "infill", "structure": k, "lu_from": job.lu_from, "lu_to": job.lu_to.name,
                    "conditioning": cfg.conditioning, "fe_fidelity": round(fidelity[j], 4),
                    "perplexity": round(ppl[j], 3) if ppl[j] is not None else None,
                    "masked": [structure.args[i].label for i in masked],
                    "predicted": predictions[j], "model": getattr(self.backend, "model_name", None)
                    or getattr(self.backend, "name", "?"), "kept": keep}
            meta = {key: v for key, v in sentence.meta.items() if key not in ("tokens", "dropped_spans")}
            new = Sentence(f"{sentence.id}:infill:{k}:{job.lu_to.name}:{j}", text, [structure], meta,
                           source_id=sentence.id, provenance=prov)
            result.candidates.append(new)
            new_sentences.append((ppl[j] if ppl[j] is not None else 0.0, new, keep))
        kept = sorted([(p, s) for p, s, ok in new_sentences if ok], key=lambda x: x[0])[: max(1, cfg.keep)]
        stats["passed_filter"] += sum(1 for _, _, ok in new_sentences if ok)
        stats["kept"] += len(kept)
        result.outputs.extend(s for _, s in kept)

    def _fidelity(self, items: Sequence[tuple[str, Structure, list[int]]]) -> tuple[list[float], list[list[str]]]:
        from paraspan.filter.fe_classifier import FEInstance

        instances = []
        owners = []
        for j, (text, structure, masked) in enumerate(items):
            assert structure.anchor is not None
            lu = (structure.anchor.start, structure.anchor.end)
            for i in masked:
                arg = structure.args[i]
                instances.append(FEInstance(text, lu, (arg.start, arg.end), structure.label, arg.label))
                owners.append(j)
        preds = self.classifier.predict(instances, self.frames)
        right = [0] * len(items)
        total = [0] * len(items)
        labels: list[list[str]] = [[] for _ in items]
        for inst, owner, (label, _) in zip(instances, owners, preds, strict=True):
            total[owner] += 1
            right[owner] += int(label == inst.label)
            labels[owner].append(label)
        return [r / t if t else 0.0 for r, t in zip(right, total, strict=True)], labels

    def _perplexities(self, texts: Sequence[str]) -> list[float | None]:
        """exp(−mean log-probability) of each text after the model's begin-of-text token."""
        from paraspan.llm.llama_backend import text_logprobs

        values = text_logprobs(self.backend, texts)
        return [math.exp(-v) if v == v else None for v in values]


def make_infiller(frames: str | None = None, model: str = "default", classifier: str | None = None,
                  conditioning: str = "frame+fe", candidates: int = 4, targets: str = "all", max_targets: int = 1,
                  keep: int = 1, shots: int = 2, top_k: int = 20, temperature: float = 0.8, strict: bool = True,
                  perplexity: bool = True, seed: int = 0, threads: int | None = None,
                  examples: str | None = None) -> Infiller:
    """The registered ``infill`` generator.

    ``frames``: the FrameNet release (folder or .tar.gz) whose frame index gives sister LUs and
    FE definitions; ``model``: the LLM (``default``, ``small`` or a ``.gguf`` path);
    ``classifier``: an FE classifier head (default: the packaged one); ``examples``: a JSONL
    corpus to draw the few-shot examples from (default: the sentences seen so far); the rest are
    :class:`InfillConfig`'s settings.
    """
    shown: list[Sentence] = []
    if examples is not None:
        from paraspan.corpus.jsonl import read_jsonl

        if not Path(examples).is_file():
            raise ParaspanError.from_code("E010", file=str(examples), what="file",
                                          fix="give a JSONL corpus of annotated sentences (paraspan convert makes one)")
        shown = list(read_jsonl(examples))
    config = InfillConfig(conditioning=conditioning, candidates=candidates, targets=targets, max_targets=max_targets,
                          keep=keep, shots=shots, top_k=top_k, temperature=temperature, strict=strict,
                          perplexity=perplexity, seed=seed)
    infiller = Infiller(frames, model, classifier, config, examples=shown, n_threads=threads)
    infiller.info = {"llm": getattr(infiller.backend, "model_name", None) or model, "frames": str(frames),
                     "examples": str(examples) if examples is not None else "seen sentences",
                     "infill_config": {k: v for k, v in vars(config).items() if v is not None}}
    return infiller


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + " …"

