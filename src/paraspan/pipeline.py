"""Iterative paraphrastic augmentation (Culkin et al. 2021, §5): the main job.

For every structure of every input sentence (a FrameNet target with its frame elements, an SRL
predicate with its roles, an entity), and for iterations ``1..K``:

1. **Constraints.** The anchor's text — and every anchor text aligned in earlier iterations —
   is banned in all its inflected forms (:func:`~paraspan.text.constraints.expand_bans`).
   With ``keep_args`` the argument texts are positive constraints instead (kept verbatim).
2. **Candidates.** The generator (``paraphrase`` by default: sampling under randomized
   negative constraints, forward + backward scoring, clustering) returns up to ``n``
   paraphrases of the *original* sentence.
3. **Alignment.** The anchor and each argument are aligned into every candidate in one batch;
   the candidate with the best anchor score among those where every required span was placed
   becomes the output (others are kept in the run store as candidates). An iteration with no
   such candidate ends the structure's iterations (nothing new would be banned).
4. **Expansion.** The output's anchor text joins the ban list; next iteration.

Every output is a corpus-schema sentence with one structure, ``source_id`` and ``provenance``
(method, iteration, forward/backward/combined paraphrase score, aligner score per span,
candidate rank, model names and versions, seed, each filter's decision).

:func:`run_augment` drives a run through a :class:`~paraspan.store.RunStore`: inputs are
streamed into the store, each input is one atomic unit of work (so ``--resume`` after a crash
loses and duplicates nothing), and work is done in-process, by ``workers`` local processes
(spawned, each loading its own models; the parent is the only writer), or by Ray actors.
Ray is imported only when ``backend="ray"``.
"""

from __future__ import annotations

import importlib
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import ParaspanError
from paraspan.store import CandidateRow, OutputRow, RunStore, StoreError, WorkResult

METHOD = "iterative-paraphrase"

# Structure keys that hold offsets into the source text: they do not carry over to a rewrite.
_OFFSET_EXTRAS = ("anchor_rest", "more_args", "dropped", "annoset_id", "lu_id", "status")
#: FrameNet's LU suffixes (FrameNet 1.5 uses v n a adv prep num art c scon intj) → universal POS.
_POS = {"v": "VERB", "n": "NOUN", "a": "ADJ", "adj": "ADJ", "adv": "ADV", "prep": "ADP", "num": "NUM",
        "art": "DET", "c": "CCONJ", "scon": "SCONJ", "intj": "INTJ"}
#: Universal POS (spaCy's ``token.pos_``) → FrameNet's LU suffix. Tags FrameNet has no LUs for
#: (PRON, PART, PUNCT, SYM, X, SPACE) are missing: the seed LU's POS is the fallback for them.
UPOS_TO_FN = {"VERB": "v", "AUX": "v", "NOUN": "n", "PROPN": "n", "ADJ": "a", "ADV": "adv", "ADP": "prep",
              "NUM": "num", "DET": "art", "CCONJ": "c", "SCONJ": "scon", "INTJ": "intj"}
_LEMMINFLECT_UPOS = ("NOUN", "VERB", "ADJ", "ADV", "AUX", "PROPN")  # what LemmInflect lemmatizes


@dataclass(frozen=True)
class AugmentConfig:
    """Settings of a run. Those in :data:`RESUME_KEYS` must match when a run is resumed."""

    iterations: int = 3
    # an iteration that yields no placed candidate is tried again this many times with new samples
    # before its chain stops (the paper's beam always gave an output; sampling sometimes does not)
    retries: int = 1
    keep_args: bool = False  # arguments as positive constraints (verbatim) instead of aligned
    require_args: bool = True  # drop outputs where an argument cannot be placed
    kinds: tuple[str, ...] = ("frame", "srl", "entity", "event")
    generator: str = "paraphrase"  # a registered generator, or "module:factory" (factory(config))
    model: str = "default"  # the LLM of the paraphrase generator: default, small or a .gguf path
    aligner: str = "discriminative"  # a registered aligner, or "module:factory" (factory(config))
    candidates: int = 5  # paraphrases aligned per iteration (the paper aligned the top 20 of 30)
    samples: int = 6  # samples per constraint set
    constraint_sets: int = 4
    top_k: int = 10
    rescore_top: int | None = None
    max_score: float | None = None
    seed: int = 0
    threads: int | None = 1  # CPU threads per worker (LLM and encoder)
    n_ctx: int = 2048
    filters: tuple[str, ...] = ()  # extra threshold rules recorded besides the presets (RECORDED)
    learned_filters: tuple[str, ...] = ()  # paths of `paraspan train-filter` models

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AugmentConfig:
        names = {f.name for f in fields(cls)}
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in names})


#: Settings that change what a unit of work produces: a resumed run must use the same.
RESUME_KEYS = ("iterations", "retries", "keep_args", "require_args", "kinds", "generator", "model", "aligner",
               "candidates", "samples", "constraint_sets", "top_k", "rescore_top", "max_score", "seed")


# ----------------------------------------------------------------------------- models


def _import(spec: str) -> Any:
    module, _, attr = spec.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ParaspanError(f"cannot import {spec!r}: {exc}", "give module:attribute of a factory",
                            code="E730") from None


def build_generator(config: AugmentConfig) -> tuple[Any, dict[str, Any]]:
    """The generator and a description of its model (name, package version)."""
    if ":" in config.generator:
        gen = _import(config.generator)(config)
        return gen, {"generator": config.generator, **getattr(gen, "info", {})}
    if config.generator != "paraphrase":
        from paraspan.generate.base import generators

        gen = generators.get(config.generator)()
        return gen, {"generator": config.generator}
    from paraspan.generate.llama_backend import LlamaBackend
    from paraspan.generate.paraphrase import ParaphraseConfig, Paraphraser

    backend = LlamaBackend.load(config.model, n_threads=config.threads, seed=config.seed, n_ctx=config.n_ctx,
                                max_parallel=max(8, config.samples * config.constraint_sets))
    pconf = ParaphraseConfig(n=config.candidates, samples=config.samples, constraint_sets=config.constraint_sets,
                             top_k=config.top_k, rescore_per_cluster=config.rescore_top, max_score=config.max_score,
                             seed=config.seed)
    resolved = getattr(backend.llm, "resolved", None)
    info = {"generator": "paraphrase", "llm": getattr(resolved, "name", config.model),
            "llm_package": getattr(resolved, "source_package", None),
            "paraphrase_config": {k: v for k, v in asdict(pconf).items() if v is not None}}
    return Paraphraser(backend, pconf), info


def build_aligner(config: AugmentConfig) -> tuple[Any, dict[str, Any]]:
    if ":" in config.aligner:
        al = _import(config.aligner)(config)
        return al, {"aligner": config.aligner, **getattr(al, "info", {})}
    from paraspan.align import get_aligner

    options: dict[str, Any] = {"threads": config.threads} if config.aligner in ("discriminative", "argmax") else {}
    al = get_aligner(config.aligner, **options)
    info: dict[str, Any] = {"aligner": config.aligner}
    head = getattr(al, "config", None)
    if head is not None:
        info["encoder"] = getattr(head, "encoder", None)
        info["aligner_threshold"] = getattr(al, "threshold", None)
    enc = getattr(getattr(al, "encoder", None), "resolved", None)
    if enc is not None:
        info["encoder_package"] = enc.source_package
    return al, info


# ----------------------------------------------------------------------------- helpers


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

    ``source``: ``generator`` (the generator placed a known LU exactly there, e.g. infill's
    sister LU), ``parse`` (the head word's tag in a spaCy parse of the paraphrase), ``seed`` (no
    usable tag: the seed LU's POS) or ``none`` (no POS at all). ``upos``: the parse's tag, if any.
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


def _generator_lu(meta: dict[str, Any], start: int, end: int) -> AnchorLU | None:
    """The LU a structure-aware generator put at exactly ``[start, end)`` (infill's sister LU)."""
    data = meta.get("sentence")
    if not isinstance(data, dict):
        return None
    for st in data.get("structures") or []:
        anchor = (st.get("anchor") or {}) if isinstance(st, dict) else {}
        label = anchor.get("label")
        if st.get("kind") == "frame" and anchor.get("start") == start and anchor.get("end") == end:
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

    def lu(self, text: str, start: int, end: int, seed_pos: str | None, *, meta: dict[str, Any] | None = None
           ) -> AnchorLU:
        """The LU of ``text[start:end]``: the generator's when it placed one there, else the
        parse's head word and tag (a parse in ``meta["doc"]`` of this text is reused), else the
        seed LU's POS with a lemma guessed from the words."""
        meta = meta or {}
        known = _generator_lu(meta, start, end)
        if known is not None:
            return known
        doc = meta.get("doc")
        if doc is None or getattr(doc, "text", None) != text:
            doc = self.nlp(text)
        got = span_head(doc, start, end)
        if got is not None and got[1] in UPOS_TO_FN and got[0]:
            return AnchorLU(got[0], UPOS_TO_FN[got[1]], "parse", got[1])
        return AnchorLU(anchor_lemma(text[start:end], seed_pos), seed_pos, "seed" if seed_pos else "none",
                        got[1] if got else None)


def _find(text: str, phrase: str) -> tuple[int, int] | None:
    """Where a kept phrase lies in a candidate (its first capital may have changed)."""
    at = text.find(phrase)
    if at < 0 and phrase[:1].isalpha():
        swapped = (phrase[0].lower() if phrase[0].isupper() else phrase[0].upper()) + phrase[1:]
        at = text.find(swapped)
    return (at, at + len(phrase)) if at >= 0 else None


def _r(value: Any) -> Any:
    return round(float(value), 4) if isinstance(value, float) else value


# ----------------------------------------------------------------------------- one input


@dataclass
class Augmenter:
    """Turns one input sentence into a :class:`~paraspan.store.WorkResult`."""

    config: AugmentConfig
    generator: Any
    aligner: Any
    models: dict[str, Any] = field(default_factory=dict)
    filters: list[Any] = field(default_factory=list)  # objects with .name and .keep(provenance)
    worker: str | None = None
    tagger: AnchorTagger = field(default_factory=AnchorTagger)  # POS of new anchors; spaCy loads lazily

    @classmethod
    def build(cls, config: AugmentConfig, worker: str | None = None) -> Augmenter:
        """Load the models and filters the config names."""
        generator, ginfo = build_generator(config)
        aligner, ainfo = build_aligner(config)
        return cls(config, generator, aligner, {**ginfo, **ainfo}, build_filters(config), worker)

    def _paraphrase(self, request: Any) -> tuple[list[Any], str | None]:
        if hasattr(self.generator, "paraphrase"):
            result = self.generator.paraphrase(request)
            return result.candidates, result.note
        return list(self.generator.generate(request)), None

    def process(self, sentence: Sentence) -> WorkResult:
        eligible = [i for i, s in enumerate(sentence.structures)
                    if s.kind in self.config.kinds and s.anchor is not None]
        if not eligible:
            return WorkResult(sentence.id, "skipped", "no structure with an anchor to augment", worker=self.worker)
        result = WorkResult(sentence.id, "done", worker=self.worker)
        notes: list[str] = []
        for index in eligible:
            note = self._structure(sentence, index, result)
            if note:
                notes.append(f"structure {index}: {note}")
        result.note = "; ".join(notes) or None
        return result

    def _structure(self, sentence: Sentence, index: int, result: WorkResult) -> str | None:
        from paraspan.generate.base import GenerationRequest

        cfg = self.config
        text = sentence.text
        structure = sentence.structures[index]
        anchor = structure.anchor
        assert anchor is not None
        ban_spans = [(anchor.start, anchor.end)]
        for rest in structure.extra.get("anchor_rest", []) or []:  # discontinuous targets ("take … off")
            if isinstance(rest, list) and len(rest) == 2 and 0 <= rest[0] < rest[1] <= len(text):
                ban_spans.append((int(rest[0]), int(rest[1])))
        args = [a for a in structure.args if not a.overlaps(anchor)]
        keep = tuple((a.start, a.end) for a in args) if cfg.keep_args else ()
        banned: list[str] = [text[anchor.start:anchor.end]]
        for iteration in range(1, cfg.iterations + 1):
            first_row = len(result.candidates)  # this iteration's candidate rows start here
            out: OutputRow | None = None
            failure = ""
            for attempt in range(max(0, cfg.retries) + 1):
                request = GenerationRequest(
                    id=f"{sentence.id}/s{index}/i{iteration}" + (f"/r{attempt}" if attempt else ""), text=text,
                    ban=tuple(ban_spans), keep=keep, n=cfg.candidates,
                    # structure-aware generators (infill, rewrite) read the annotated sentence itself
                    meta={"ban_texts": banned[1:], "sentence": sentence, "structure": index, "attempt": attempt})
                # candidate numbers go on from the earlier attempts' rows (they share the iteration)
                out, failure = self._attempt(sentence, index, iteration, request, args, banned, result,
                                             offset=len(result.candidates) - first_row, attempt=attempt)
                if out is not None:
                    break
            if out is None:
                tried = f" ({cfg.retries + 1} attempts)" if cfg.retries else ""
                return f"iteration {iteration}: {failure}{tried}"
            result.outputs.append(out)
            new_text = out.anchor_text or ""
            if not new_text.strip() or new_text.strip().lower() in {b.strip().lower() for b in banned}:
                return f"iteration {iteration}: the aligned anchor was banned already ({new_text!r})"
            banned.append(new_text)
        return None

    def _attempt(self, sentence: Sentence, index: int, iteration: int, request: Any, args: list[Span],
                 banned: list[str], result: WorkResult, *, offset: int, attempt: int) -> tuple[OutputRow | None, str]:
        """Paraphrase once, align the anchor (and arguments) into every candidate, record the
        candidates in ``result``; the output of the best placed one, or None and why not."""
        from paraspan.align import AlignTask

        cfg = self.config
        text = sentence.text
        anchor = sentence.structures[index].anchor
        assert anchor is not None
        candidates, note = self._paraphrase(request)
        if not candidates:
            return None, f"no paraphrase ({note or 'none returned'})"
        spans = [anchor] + ([] if cfg.keep_args else args)
        tasks = [AlignTask(f"{c}:{j}", text, cand.text, (span.start, span.end))
                 for c, cand in enumerate(candidates) for j, span in enumerate(spans)]
        aligned = self.aligner.align(tasks)
        per = len(spans)
        best: tuple[float, int] | None = None
        placements: list[list[tuple[tuple[int, int] | None, float]]] = []
        for c, cand in enumerate(candidates):
            got = [(a.pred, float(a.score)) for a in aligned[c * per:(c + 1) * per]]
            if cfg.keep_args:
                got += [(_find(cand.text, text[a.start:a.end]), 1.0) for a in args]
            placements.append(got)
            anchor_ok = got[0][0] is not None
            args_placed = sum(1 for p, _ in got[1:] if p is not None)
            placed = anchor_ok and (args_placed == len(args) or not cfg.require_args)
            if placed and (best is None or got[0][1] > best[0]):
                best = (got[0][1], c)
            result.candidates.append(CandidateRow(
                index, iteration, offset + c, cand.text, cand.scores.get("forward"), cand.scores.get("backward"),
                cand.scores.get("score"), got[0][0], got[0][1], placed, False,
                {"args_placed": args_placed, "args": len(args), "attempt": attempt,
                 **{k: v for k, v in cand.meta.items() if k in ("cluster", "constraint_set")}}))
        if best is None:
            return None, "no candidate with every required span placed"
        chosen = best[1]
        result.candidates[-len(candidates) + chosen].chosen = True
        out = self._output(sentence, index, iteration, candidates, chosen, placements[chosen], args, banned,
                           offset=offset, attempt=attempt)
        return out, ""

    def _output(self, sentence: Sentence, index: int, iteration: int, candidates: list[Any], chosen: int,
                placed: list[tuple[tuple[int, int] | None, float]], args: list[Span], banned: list[str],
                *, offset: int = 0, attempt: int = 0) -> OutputRow:
        cfg = self.config
        structure = sentence.structures[index]
        anchor = structure.anchor
        assert anchor is not None
        cand = candidates[chosen]
        (a_start, a_end), a_score = placed[0]  # type: ignore[misc]
        anchor_text = cand.text[a_start:a_end]
        lu: AnchorLU | None = None
        if structure.kind == "frame":  # a new LU: its POS is the new word's, read from a parse of cand.text
            lu = self.tagger.lu(cand.text, a_start, a_end, lu_pos(anchor.label), meta=cand.meta)
            lemma, label = lu.lemma, lu.label or anchor.label
        else:
            lemma, label = anchor_lemma(anchor_text, None), anchor.label
        new_args: list[Span] = []
        span_info: list[dict[str, Any]] = [{"role": "anchor", "label": anchor.label,
                                            "source": [anchor.start, anchor.end], "placed": [a_start, a_end],
                                            "score": _r(a_score)}]
        for arg, (where, score) in zip(args, placed[1:], strict=True):
            span_info.append({"role": "arg", "label": arg.label, "source": [arg.start, arg.end],
                              "placed": list(where) if where else None, "score": _r(score),
                              **({"kept": True} if cfg.keep_args else {})})
            if where is not None:
                new_args.append(Span(where[0], where[1], arg.label))
        new_args.sort(key=lambda s: (s.start, s.end))
        extra = {k: v for k, v in structure.extra.items() if k not in _OFFSET_EXTRAS}
        out_structure = Structure(structure.kind, structure.label, Span(a_start, a_end, label), new_args, extra)
        scores = {k: _r(cand.scores[k]) for k in ("forward", "backward", "score") if k in cand.scores}
        placed_scores = [s["score"] for s in span_info if s["placed"] is not None]
        provenance: dict[str, Any] = {
            "method": METHOD,
            "iteration": iteration,
            "structure": index,
            "source_anchor": {"text": sentence.text[anchor.start:anchor.end], "label": anchor.label},
            **({"anchor_lu": lu.to_dict()} if lu is not None else {}),
            "banned": list(banned),
            "paraphrase": scores,
            "aligner": {"anchor": _r(a_score), "spans": span_info},
            "args_placed": sum(1 for s in span_info[1:] if s["placed"] is not None),
            "args": len(args),
            "candidate_rank": chosen,
            "candidates": len(candidates),
            **({"attempt": attempt} if attempt else {}),
            "models": self.models,
            "seed": cfg.seed,
        }
        meta = {k: v for k, v in sentence.meta.items() if k != "tokens"}  # token offsets do not carry over
        out = Sentence(f"{sentence.id}~s{index}i{iteration}", cand.text, [out_structure], meta,
                       source_id=sentence.id, provenance=provenance)
        decisions: dict[str, tuple[bool, str, float | None]] = {}
        for flt in self.filters:
            keep, reason, score = _decide(flt, provenance)
            decisions[flt.name] = (keep, reason, score)
        provenance["filters"] = {name: d[0] for name, d in decisions.items()}
        return OutputRow(out, index, iteration, offset + chosen, scores.get("forward"), scores.get("backward"),
                         scores.get("score"), _r(a_score), min(placed_scores) if placed_scores else None,
                         structure.label if structure.kind == "frame" else f"{structure.kind}:{structure.label}",
                         anchor_text, lemma, decisions)


def _decide(flt: Any, provenance: dict[str, Any]) -> tuple[bool, str, float | None]:
    got = flt.keep(provenance)
    if len(got) == 3:
        return bool(got[0]), str(got[1]), got[2]
    return bool(got[0]), str(got[1]), None


def build_filters(config: AugmentConfig) -> list[Any]:
    """The Table 4 presets and their calibrated versions, the config's extra rules and its learned filters."""
    from paraspan.filter.thresholds import RECORDED, parse_rule

    out: list[Any] = [parse_rule(name, name) for name in RECORDED]
    seen = set(RECORDED)
    for spec in config.filters:
        if spec not in seen:
            out.append(parse_rule(spec, spec))
            seen.add(spec)
    if config.learned_filters:
        from paraspan.filter.learned import load_learned_filter

        for path in config.learned_filters:
            flt = load_learned_filter(path)
            out.append(flt)
    return out


# ----------------------------------------------------------------------------- workers


_WORKER_STATE: dict[str, Augmenter] = {}  # per worker *process*: its models, loaded once


def _exit_with_parent(parent: int, every: float = 2.0) -> None:
    """End this worker process soon after its parent dies (a kill -9 of `paraspan augment` would
    otherwise leave workers computing, unseen, until their current sentence is done)."""
    import threading

    def watch() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent:  # re-parented: the run that started us is gone
                os._exit(1)

    threading.Thread(target=watch, name="paraspan-parent-watch", daemon=True).start()


def _init_worker(config_dict: dict[str, Any], parent: int | None = None) -> None:
    if parent is not None:
        _exit_with_parent(parent)
    import torch

    torch.set_num_threads(max(1, int(config_dict.get("threads") or 1)))
    _WORKER_STATE["augmenter"] = Augmenter.build(AugmentConfig.from_dict(config_dict), worker=f"pid{os.getpid()}")


def _work(data: dict[str, Any]) -> WorkResult:
    return _WORKER_STATE["augmenter"].process(Sentence.from_dict(data))


class _RayActor:
    """A Ray actor: one set of models, many sentences (wrapped by ``ray.remote`` at run time)."""

    def __init__(self, config_dict: dict[str, Any]) -> None:
        _init_worker(config_dict)

    def work(self, data: dict[str, Any]) -> WorkResult:
        return _work(data)


def _run_local(pending: Iterator[Sentence], config: AugmentConfig, workers: int,
               commit: Callable[[WorkResult], None], augmenter: Augmenter | None) -> None:
    if workers <= 1:
        aug = augmenter or Augmenter.build(config, worker="main")
        for sentence in pending:
            commit(aug.process(sentence))
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    ctx = multiprocessing.get_context("spawn")  # fork would copy llama.cpp/torch thread state
    window = 2 * workers  # in flight at once: bounded memory, workers never idle
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker,
                             initargs=(config.to_dict(), os.getpid())) as pool:
        futures: set[Any] = set()
        for sentence in pending:
            futures.add(pool.submit(_work, sentence.to_dict()))
            if len(futures) >= window:
                done, futures = wait(futures, return_when=FIRST_COMPLETED)
                for f in done:
                    commit(f.result())
        for f in futures:
            commit(f.result())


def _run_ray(pending: Iterator[Sentence], config: AugmentConfig, workers: int, address: str | None,
             commit: Callable[[WorkResult], None]) -> None:
    try:
        import ray
        from ray.util import ActorPool
    except ImportError:
        raise ParaspanError("--backend ray needs Ray", "pip install 'paraspan[ray]' (or 'ray[default]')",
                            code="E731") from None
    started = False
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:  # a local Ray, started on demand and stopped at the end
            ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False)
        started = True
    try:
        actor = ray.remote(num_cpus=1)(_RayActor)
        actors = [actor.remote(config.to_dict()) for _ in range(max(1, workers))]
        pool = ActorPool(actors)
        for result in pool.map_unordered(lambda a, d: a.work.remote(d), (s.to_dict() for s in pending)):
            commit(result)
    finally:
        if started and not address:
            ray.shutdown()


# ----------------------------------------------------------------------------- the run


@dataclass
class RunSummary:
    inputs: int
    done: int
    skipped: int
    outputs: int
    outputs_per_iteration: dict[int, int]
    kept_per_filter: dict[str, int]
    new_pairs: int
    seed_pairs: int
    seconds: float
    processed_now: int
    notes: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def open_store(path: Path, config: AugmentConfig, *, resume: bool) -> RunStore:
    """Create the store, or reopen it for ``resume`` after checking the settings match."""
    if not resume:
        return RunStore.create(path, config.to_dict())
    if not path.exists():
        return RunStore.create(path, config.to_dict())
    store = RunStore.open(path)
    old = store.config
    diff = [k for k in RESUME_KEYS if k in old and AugmentConfig.from_dict(old).to_dict()[k] != config.to_dict()[k]]
    if diff:
        shown = ", ".join(f"{k}: {old[k]!r} → {config.to_dict()[k]!r}" for k in diff)
        store.close()
        raise StoreError(f"--resume with different settings ({shown})",
                         "resume with the settings of the run, or start a new --store", file=str(path), code="E708")
    return store


def run_augment(
    corpus: str | Path | Iterable[Sentence],
    store: RunStore,
    config: AugmentConfig,
    *,
    limit: int | None = None,
    workers: int = 1,
    backend: str = "local",
    ray_address: str | None = None,
    progress: bool = True,
    augmenter: Augmenter | None = None,
    on_commit: Callable[[WorkResult], None] | None = None,
) -> RunSummary:
    """Augment a corpus into ``store`` (resuming whatever is pending there); return a summary.

    ``corpus``: a JSONL path (streamed) or sentences. ``augmenter``: ready models for the
    in-process path (tests, the benchmark); otherwise each worker builds its own.
    """
    from itertools import islice

    started = time.perf_counter()
    if isinstance(corpus, (str, Path)):
        from paraspan.corpus.jsonl import read_jsonl

        sentences: Iterable[Sentence] = read_jsonl(corpus)
    else:
        sentences = corpus
    if limit is not None:
        sentences = islice(sentences, limit)
    store.add_inputs((s, i) for i, s in enumerate(sentences))
    total = store.count_inputs("pending")
    notes: Counter[str] = Counter()
    processed = 0

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class _Rate(ProgressColumn):
        def render(self, task: Any) -> Text:
            # the mean since the start: steadier than rich's windowed speed with minutes per item
            elapsed = task.elapsed or 0.0
            return Text(f"{task.completed / elapsed * 60:.1f} sent/min" if elapsed and task.completed else "– sent/min")

    console = Console(stderr=True, highlight=False)
    bar = Progress(TextColumn("[bold]augment"), BarColumn(), MofNCompleteColumn(), _Rate(), TimeElapsedColumn(),
                   TextColumn("ETA"), TimeRemainingColumn(), console=console, disable=not progress)

    def commit(result: WorkResult) -> None:
        nonlocal processed
        store.commit_work(result)
        processed += 1
        if result.note:
            for part in result.note.split("; "):
                notes[part.split(": ", 2)[-1].split(" (")[0]] += 1
        bar.advance(task_id)
        if on_commit is not None:
            on_commit(result)

    with bar:
        task_id = bar.add_task("augment", total=total)
        pending = store.pending()
        if backend == "ray":
            _run_ray(pending, config, workers, ray_address, commit)
        elif backend == "local":
            _run_local(pending, config, workers, commit, augmenter)
        else:
            raise ParaspanError(f"unknown backend {backend!r}", "use local or ray", code="E732")
    return summarize(store, time.perf_counter() - started, processed, notes)


def _pair(kind: str, frame: str, label: str | None, lemma: str) -> tuple[str, str]:
    """The (frame, trigger) pair a structure counts as: a frame's LU label ("crucial.a") when it
    has a FrameNet POS, else the anchor lemma."""
    if kind == "frame" and lu_pos(label) and label:
        return frame, label.lower()
    return frame, lemma


def summarize(store: RunStore, seconds: float = 0.0, processed: int = 0,
              notes: Counter[str] | None = None) -> RunSummary:
    """Counts from the store, and how many (frame, LU) pairs are new to the inputs.

    A pair is (frame, LU label) — ``("Cogitation", "crucial.a")`` — so a new part of speech of a
    seed lemma counts as new; structures without a FrameNet POS count by (label, anchor lemma).
    """
    import json

    counts = store.counts()
    seed_pairs: set[tuple[str, str]] = set()
    for sentence in store.iter_inputs():
        for s in sentence.structures:
            if s.anchor is not None:
                frame = s.label if s.kind == "frame" else f"{s.kind}:{s.label}"
                lemma = anchor_lemma(sentence.text[s.anchor.start:s.anchor.end], lu_pos(s.anchor.label))
                seed_pairs.add(_pair(s.kind, frame, s.anchor.label, lemma))
    out_pairs: set[tuple[str, str]] = set()
    for frame, lemma, line in store.conn.execute(
            "SELECT frame, anchor_lemma, json FROM outputs WHERE anchor_lemma IS NOT NULL"):
        st = (json.loads(line).get("structures") or [{}])[0]
        out_pairs.add(_pair(st.get("kind", ""), frame, (st.get("anchor") or {}).get("label"), lemma))
    status = counts["inputs"]
    return RunSummary(
        inputs=sum(status.values()), done=status.get("done", 0), skipped=status.get("skipped", 0),
        outputs=counts["outputs"], outputs_per_iteration=counts["outputs_per_iteration"],
        kept_per_filter={k: int(v or 0) for k, v in counts["kept_per_filter"].items()},
        new_pairs=len(out_pairs - seed_pairs), seed_pairs=len(seed_pairs), seconds=round(seconds, 2),
        processed_now=processed, notes=dict(notes or {}))


def render_summary(summary: RunSummary, console: Any) -> None:
    """The end-of-run table (inputs, outputs per iteration, kept per filter, new pairs, time)."""
    from rich.table import Table

    table = Table(title="augmentation run", show_header=True)
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("inputs", f"{summary.inputs:,}")
    table.add_row("  augmented", f"{summary.done:,}")
    table.add_row("  skipped (no structure)", f"{summary.skipped:,}")
    table.add_row("  processed in this run", f"{summary.processed_now:,}")
    table.add_row("outputs", f"{summary.outputs:,}")
    for it, n in sorted(summary.outputs_per_iteration.items()):
        table.add_row(f"  iteration {it}", f"{n:,}")
    for name, n in summary.kept_per_filter.items():
        table.add_row(f"kept by {name}", f"{n:,}")
    table.add_row("new (frame, trigger lemma) pairs", f"{summary.new_pairs:,}")
    for note, n in sorted(summary.notes.items(), key=lambda kv: -kv[1])[:5]:
        table.add_row(f"stopped: {note}"[:70], f"{n:,}")
    table.add_row("time", f"{summary.seconds:.1f} s")
    console.print(table)


def export_outputs(store: RunStore, out: str | Path, fmt: str = "jsonl", filter: str | None = None,
                   *, include_inputs: bool = False, learned: str | None = None) -> int:
    """Write the store's outputs (those ``filter`` keeps) to ``out`` in ``fmt``, atomically.

    ``filter`` is a filter recorded in the store, or any threshold rule (evaluated now on the
    outputs' provenance); ``learned`` a `train-filter` model whose decisions are recorded first.
    ``include_inputs``: the input sentences come first (those without structures too).
    """
    from paraspan.corpus.formats import write_corpus

    recorded = set(store.filters())
    if learned is not None:
        from paraspan.filter.learned import load_learned_filter

        flt = load_learned_filter(learned)
        store.set_decisions((r.id, flt.name, *flt.keep(r.sentence.provenance)) for r in store.iter_outputs())
        filter = filter or flt.name
        recorded = set(store.filters())
    rule = None
    if filter is not None and filter not in recorded:
        from paraspan.filter.thresholds import parse_rule

        rule = parse_rule(filter)

    def sentences() -> Iterator[Sentence]:
        if include_inputs:
            yield from store.iter_inputs()
        source = store.iter_outputs(filter if filter in recorded else None)
        for record in source:
            if rule is not None and not rule.keep(record.sentence.provenance)[0]:
                continue
            yield record.sentence

    return write_corpus(sentences(), out, fmt)
