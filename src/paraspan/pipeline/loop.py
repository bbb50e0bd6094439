"""One input sentence through generate → project → filter: :class:`Augmenter`.

For every structure of the sentence (of the configured kinds, with an anchor) and iterations
``1..K`` (Culkin et al. 2021, §5):

1. **Constraints.** The anchor's text — and every anchor text placed in earlier iterations —
   is banned in all its inflected forms; with ``keep_args`` the argument texts are positive
   constraints instead (kept verbatim).
2. **Generate.** The generator returns candidates for the *original* sentence.
3. **Project.** The anchor and each argument are placed in every candidate
   (:func:`paraspan.generate.project.place`: the generator's own placement, its token mapping,
   or the span aligner); the candidate with the best anchor score among those where every
   required span was placed becomes the output (all are kept in the run store as candidates).
   An iteration with no such candidate is retried with new samples, then ends the chain.
4. **Filter.** Every filter decides on the output; its decision, score and reason are recorded.
5. **Expand.** The output's anchor text joins the ban list; next iteration.

A generator that does not honour bans (rules, infill) runs one iteration per structure, and a
deterministic one is never retried (:class:`~paraspan.generate.base.Capabilities`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.filter.base import reads_checks, recorded, records_check
from paraspan.generate.base import (
    BatchGenerator,
    Candidate,
    GenerationRequest,
    GenerationResult,
    StagedGenerator,
    add_stats,
    require_anchor,
)
from paraspan.generate.project import Placed, carry_entities, place
from paraspan.pipeline.config import AugmentConfig
from paraspan.pipeline.store import CandidateRow, OutputRow, WorkResult
from paraspan.provenance import Generated
from paraspan.text.lexical_units import AnchorLU, AnchorTagger, anchor_lemma, lu_pos

METHOD = "iterative-paraphrase"
#: ``provenance["meaning"]`` of an output whose generator writes new content (see Capabilities)
NEW_CONTENT = "new"

# why an attempt gave no output (chain notes, counted by reason in the summary)
NO_CANDIDATE = "no paraphrase"
NOT_PLACED = "no candidate with every required span placed"
NOT_PASSED = "no placed candidate passed"

# Structure keys that hold offsets into the source text: they do not carry over to a rewrite.
_OFFSET_EXTRAS = ("anchor_rest", "more_args", "dropped", "annoset_id", "lu_id", "status")


def _r(value: Any) -> Any:
    return round(float(value), 4) if isinstance(value, float) else value


class _Clock:
    """Wall and CPU seconds of a block, added to ``stats[f"{name}_seconds"]`` and ``…_cpu_seconds``."""

    def __init__(self, stats: dict[str, float], name: str) -> None:
        self.stats, self.name = stats, name

    def __enter__(self) -> _Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        add_stats(self.stats, {f"{self.name}_seconds": time.perf_counter() - self.wall,
                               f"{self.name}_cpu_seconds": time.process_time() - self.cpu})


@dataclass
class _Chain:
    """One structure's iterations: its constraints so far and where it stands."""

    index: int
    ban_spans: tuple[tuple[int, int], ...]
    args: list[Span]
    keep: tuple[tuple[int, int], ...]
    banned: list[str]  # the source anchor, then each iteration's new anchor
    iterations: int
    retries: int
    #: arguments that contain the anchor and more ("[nuclear *weapons*]"), with the source's words
    #: before and after the anchor inside them: placed around wherever the anchor goes
    around: tuple[tuple[Span, str, str], ...] = ()
    iteration: int = 1
    attempt: int = 0
    rows: int = 0  # candidate rows of this iteration's earlier attempts
    note: str | None = None  # why the chain stopped early
    finished: bool = False


@dataclass
class Augmenter:
    """Turns one input sentence into a :class:`~paraspan.pipeline.store.WorkResult`."""

    config: AugmentConfig
    generator: Any
    aligner: Any
    models: dict[str, Any] = field(default_factory=dict)
    filters: list[Any] = field(default_factory=list)  # paraspan.filter.base.Filter
    worker: str | None = None
    tagger: AnchorTagger = field(default_factory=AnchorTagger)  # POS of new anchors; spaCy loads lazily
    #: the filter a candidate must pass to become the output (``config.choose_by``), or None
    chooser: Any = None

    @classmethod
    def build(cls, config: AugmentConfig, worker: str | None = None) -> Augmenter:
        """Load the models and filters the config names."""
        from paraspan.pipeline.components import build_aligner, build_chooser, build_filters, build_generator

        generator, ginfo = build_generator(config)
        aligner, ainfo = build_aligner(config)
        filters = build_filters(config)
        return cls(config, generator, aligner, {**ginfo, **ainfo}, filters, worker,
                   chooser=build_chooser(config, filters))

    def process(self, sentence: Sentence) -> WorkResult:
        return self.process_many([sentence])[0]

    def process_many(self, sentences: Sequence[Sentence]) -> list[WorkResult]:
        """One :class:`WorkResult` per sentence, their structures' chains advancing together.

        Iteration i of every structure of every sentence is one generator batch (a generator
        with ``generate_batch`` decodes them together, so a worker's decode steps stay wide);
        each chain's requests, seeds and bans are what they would be alone, so a sentence's
        result does not depend on the sentences beside it (only llama.cpp's rounding does).
        """
        results: list[WorkResult] = []
        chains: list[tuple[int, _Chain]] = []  # (sentence, chain)
        for k, sentence in enumerate(sentences):
            eligible = [i for i, s in enumerate(sentence.structures)
                        if s.kind in self.config.kinds and s.anchor is not None]
            if not eligible:
                results.append(WorkResult(sentence.id, "skipped", "no structure with an anchor to augment",
                                          worker=self.worker))
                continue
            bound = self.config.max_structures
            if bound is not None and len(eligible) > bound:
                results.append(WorkResult(sentence.id, "skipped",
                                          f"more structures than max_structures allows ({len(eligible)} > {bound};"
                                          f" raise it with --set max_structures=N)", worker=self.worker))
                continue
            results.append(WorkResult(sentence.id, "done", worker=self.worker))
            chains.extend((k, self._chain(sentence, index)) for index in eligible)
        while active := [(k, chain) for k, chain in chains if chain.note is None and not chain.finished]:
            requests = [self._request(sentences[k], chain) for k, chain in active]
            staged = self.generator.stages() if isinstance(self.generator, StagedGenerator) else None
            if staged:
                self._staged(staged, sentences, active, requests, results)
                continue
            if isinstance(self.generator, BatchGenerator):
                generated = self._generate(self.generator.generate_batch, requests, [k for k, _ in active], results)
            else:  # one call per request: each is its own batch
                generated = [self._generate(lambda rs: [self.generator.generate(rs[0])], [r], [k], results)[0]
                             for (k, _), r in zip(active, requests, strict=True)]
            for (k, chain), request, one in zip(active, requests, generated, strict=True):
                out, failure = self._attempt(sentences[k], chain, request, results[k], one)
                self._advance(chain, out, failure, results[k])
        for k, result in enumerate(results):
            # structure by structure, iteration by iteration, as a chain at a time would have written them
            result.outputs.sort(key=lambda o: (o.structure, o.iteration))
            result.candidates.sort(key=lambda c: (c.structure, c.iteration, c.candidate))
            notes = [f"structure {chain.index}: {chain.note}" for j, chain in chains if j == k and chain.note]
            result.note = "; ".join(notes) or result.note
        return results

    def _chain(self, sentence: Sentence, index: int) -> _Chain:
        cfg = self.config
        caps = self.generator.capabilities
        text = sentence.text
        structure = sentence.structures[index]
        anchor = require_anchor(structure, "the augmentation loop")
        ban_spans = [(anchor.start, anchor.end)]
        for rest in structure.extra.get("anchor_rest", []) or []:  # discontinuous targets ("take … off")
            if isinstance(rest, list) and len(rest) == 2 and 0 <= rest[0] < rest[1] <= len(text):
                ban_spans.append((int(rest[0]), int(rest[1])))
        args = [a for a in structure.args if not a.overlaps(anchor)]
        around = tuple((a, text[a.start:anchor.start], text[anchor.end:a.end]) for a in structure.args
                       if a.start <= anchor.start and anchor.end <= a.end
                       and (a.start, a.end) != (anchor.start, anchor.end))
        return _Chain(
            index, tuple(ban_spans), args, around=around,
            keep=tuple((a.start, a.end) for a in args) if cfg.keep_args else (),
            banned=[text[anchor.start:anchor.end]],
            # without bans every iteration would give the same output; a deterministic one gives the same on retry
            iterations=cfg.iterations if caps.honours_ban else 1,
            retries=0 if caps.deterministic else max(0, caps.retries if cfg.retries is None else cfg.retries))

    def _request(self, sentence: Sentence, chain: _Chain) -> GenerationRequest:
        return GenerationRequest(
            id=f"{sentence.id}/s{chain.index}/i{chain.iteration}" + (f"/r{chain.attempt}" if chain.attempt else ""),
            text=sentence.text, ban=chain.ban_spans, keep=chain.keep,
            protect=tuple((a.start, a.end) for a in chain.args), n=self.config.candidates,
            ban_texts=tuple(chain.banned[1:]), sentence=sentence, structure=chain.index, attempt=chain.attempt,
            iteration=chain.iteration)

    def _generate(self, batch: Any, requests: list[GenerationRequest], owners: list[int],
                  results: list[WorkResult]) -> list[GenerationResult]:
        """``batch(requests)``, its time given to the sentences (``owners[i]`` is request i's) by
        their requests' sampled tokens (decoding is most of it), evenly where nothing was sampled."""
        clock: dict[str, float] = {}
        with _Clock(clock, "generate"):
            generated = batch(requests)
        weights = [float(g.stats.get("sampled_tokens") or 0) for g in generated]
        if not sum(weights):
            weights = [1.0] * len(generated)
        for k, weight in zip(owners, weights, strict=True):
            add_stats(results[k].stats, {key: value * weight / sum(weights) for key, value in clock.items()})
        for k in set(owners):
            add_stats(results[k].stats, {"batches": 1})
        return list(generated)

    def _staged(self, stages: Sequence[Any], sentences: Sequence[Sentence], active: list[tuple[int, _Chain]],
                requests: list[GenerationRequest], results: list[WorkResult]) -> None:
        """One attempt of every active chain, the generator's stages (a cascade's members) asked in
        order, each only for the chains no earlier stage gave an output (stopping early: the later
        members' decoding is spent on the structures that still need it)."""
        waiting = list(range(len(active)))
        failures: dict[int, list[str]] = {i: [] for i in waiting}
        for k, _ in active:
            add_stats(results[k].stats, {"calls": 1})
        for stage in stages:
            asked = [i for i in waiting if stage.asks(requests[i])]
            if not asked:
                continue
            got = self._generate(stage.generate_batch, [requests[i] for i in asked], [active[i][0] for i in asked],
                                 results)
            for i, one in zip(asked, got, strict=True):
                k, chain = active[i]
                out, failure = self._attempt(sentences[k], chain, requests[i], results[k], one, call=False)
                if out is not None:
                    self._advance(chain, out, "", results[k])
                    waiting.remove(i)
                else:
                    failures[i].append(failure)
        for i in waiting:
            k, chain = active[i]
            self._advance(chain, None, _combined(failures[i]), results[k])

    def _advance(self, chain: _Chain, out: OutputRow | None, failure: str, result: WorkResult) -> None:
        """After one attempt of ``chain``'s iteration: its output, a retry, or the end of the chain."""
        caps = self.generator.capabilities
        if out is None:
            if chain.attempt < chain.retries:
                chain.attempt += 1
                return
            tried = f" ({chain.retries + 1} attempts)" if chain.retries else ""
            chain.note = f"iteration {chain.iteration}: {failure}{tried}"
            return
        result.outputs.append(out)
        new_text = out.anchor_text or ""
        kept = Generated.of(out.sentence.provenance).keeps_anchor
        if kept and caps.honours_ban:  # a cascade's rewrite kept the anchor on purpose: same bans, next iteration
            chain.iteration, chain.attempt, chain.rows = chain.iteration + 1, 0, 0
            chain.finished = chain.iteration > chain.iterations
            return
        if not new_text.strip() or new_text.strip().lower() in {b.strip().lower() for b in chain.banned}:
            if caps.honours_ban:
                chain.note = f"iteration {chain.iteration}: the aligned anchor was banned already ({new_text!r})"
            chain.finished = True
            return
        chain.banned.append(new_text)
        chain.iteration, chain.attempt, chain.rows = chain.iteration + 1, 0, 0
        chain.finished = chain.iteration > chain.iterations

    def _attempt(self, sentence: Sentence, chain: _Chain, request: GenerationRequest, result: WorkResult,
                 generated: GenerationResult, *, call: bool = True) -> tuple[OutputRow | None, str]:
        """Place the anchor (and arguments) in every generated candidate of ``chain``'s attempt,
        record the candidates in ``result`` (numbered on from the iteration's earlier rows, which
        ``chain.rows`` counts); the output of the best placed one, or None and why not."""
        cfg = self.config
        index, iteration, args, banned = chain.index, chain.iteration, chain.args, chain.banned
        offset, attempt = chain.rows, chain.attempt
        add_stats(result.stats, {**({"calls": 1} if call else {}), **generated.stats})
        candidates = generated.candidates
        if not candidates:
            return None, f"{NO_CANDIDATE} ({generated.note or 'none returned'})"
        with _Clock(result.stats, "place"):
            placements = place(sentence, index, args, candidates, aligner=self.aligner, keep_args=cfg.keep_args)
        ranked: list[tuple[float, int]] = []  # placed candidates, best anchor score first (ties: earlier first)
        first_row = len(result.candidates)
        carried = [carry_entities(sentence, index, cand) for cand in candidates]
        around_at: list[list[tuple[int, int] | None]] = []  # per candidate: where each argument around the anchor is
        for c, (cand, placement) in enumerate(zip(candidates, placements, strict=True)):
            got = placement.spans
            anchor_ok = got[0][0] is not None
            args_placed = sum(1 for p, _ in got[1:] if p is not None)
            # an argument around the anchor must be found around it in the candidate too
            around_at.append([_around(cand.text, got[0][0], before, after) for _, before, after in chain.around]
                             if got[0][0] is not None else [])
            around_ok = anchor_ok and all(where is not None for where in around_at[c])
            # the sentence's other entity mentions are required spans too (NER labels every mention)
            placed = (anchor_ok and ((args_placed == len(args) and around_ok) or not cfg.require_args)
                      and carried[c][1] == 0)
            if placed:
                ranked.append((got[0][1], c))
            result.candidates.append(CandidateRow(
                index, iteration, offset + c, cand.text, cand.scores.get("forward"), cand.scores.get("backward"),
                cand.scores.get("score"), got[0][0], got[0][1], placed, False,
                {"args_placed": args_placed, "args": len(args), "attempt": attempt,
                 **({"entities_lost": carried[c][1]} if carried[c][1] else {}),
                 **({"projection": placement.via} if placement.via != "aligner" else {}),
                 **_jsonable({k: v for k, v in cand.meta.items() if k in ("cluster", "constraint_set", "provenance")}),
                 **Generated(rules=Generated.of_meta(cand.meta).rules).meta()}))
        chain.rows += len(candidates)
        if not ranked:
            return None, NOT_PLACED
        ranked.sort(key=lambda item: -item[0])
        refused: list[str] = []
        for _, chosen in ranked:
            with _Clock(result.stats, "filter"):  # the checks of each output (and the chooser's)
                out = self._output(sentence, index, iteration, candidates, chosen, placements[chosen].spans,
                                   args, banned, via=placements[chosen].via, offset=offset, attempt=attempt,
                                   others=carried[chosen][0],
                                   around=list(zip((a for a, _, _ in chain.around), around_at[chosen], strict=True)))
            if self.chooser is not None:  # the best-placed candidate that passes the check
                decision = out.decisions.get(self.chooser.name)
                if decision is None:  # a chooser that is not recorded: decide now, and record it
                    d = self.chooser.decide(out.sentence, sentence)
                    decision = out.decisions[self.chooser.name] = (bool(d.keep), str(d.reason), d.score)
                    out.sentence.provenance["filters"][self.chooser.name] = bool(d.keep)
                if not decision[0]:
                    result.candidates[first_row + chosen].meta["refused"] = decision[1]
                    refused.append(decision[1])
                    continue
            result.candidates[first_row + chosen].chosen = True
            return out, ""
        return None, f"{NOT_PASSED} {self.chooser.name} ({refused[0]})"

    def _output(self, sentence: Sentence, index: int, iteration: int, candidates: list[Candidate], chosen: int,
                placed: list[Placed], args: list[Span], banned: list[str], *, via: str,
                offset: int = 0, attempt: int = 0, others: list[Structure] | None = None,
                around: Sequence[tuple[Span, tuple[int, int] | None]] = ()) -> OutputRow:
        cfg = self.config
        structure = sentence.structures[index]
        anchor = require_anchor(structure, "the augmentation loop")
        cand = candidates[chosen]
        (a_start, a_end), a_score = placed[0]  # type: ignore[misc]
        anchor_text = cand.text[a_start:a_end]
        lu, lemma, label = self._anchor_lu(sentence, structure, cand, (a_start, a_end))
        new_args, span_info = _placed_args(structure, (a_start, a_end), a_score, args, placed[1:], around,
                                           kept=cfg.keep_args)
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
            # what the generator says of its candidate (rewrite rules, sample cluster and bans,
            # infill's sister LU and fillers): which rule or sample made an output is how it is fixed
            **({Generated.KEY: _jsonable(cand.meta)} if cand.meta else {}),
            "aligner": {"anchor": _r(a_score), "spans": span_info},
            **({"projection": via} if via != "aligner" else {}),
            "args_placed": sum(1 for s in span_info[1:] if s["placed"] is not None and not s.get("with_anchor")
                               and not s.get("around_anchor")),
            "args": len(args),
            "candidate_rank": chosen,
            "candidates": len(candidates),
            **({"attempt": attempt} if attempt else {}),
            "models": self.models,
            "seed": cfg.seed,
            # new content (infilling): the meaning check does not compare it with its source
            **({} if self.generator.capabilities.keeps_meaning else {"meaning": NEW_CONTENT}),
        }
        meta = {k: v for k, v in sentence.meta.items() if k != "tokens"}  # token offsets do not carry over
        if others:  # the sentence's other entity mentions, carried by the generator (carry_entities)
            provenance["entities_carried"] = len(others)
        out = Sentence(f"{sentence.id}~s{index}i{iteration}", cand.text, [out_structure, *(others or [])], meta,
                       source_id=sentence.id, provenance=provenance)
        decisions = self._decide(out, sentence, provenance)
        return OutputRow(out, index, iteration, offset + chosen, scores.get("forward"), scores.get("backward"),
                         scores.get("score"), _r(a_score), min(placed_scores) if placed_scores else None,
                         structure.label if structure.kind == "frame" else f"{structure.kind}:{structure.label}",
                         anchor_text, lemma, decisions)

    def _anchor_lu(self, sentence: Sentence, structure: Structure, cand: Candidate,
                   at: tuple[int, int]) -> tuple[AnchorLU | None, str, str]:
        """The new anchor's LU (frames), lemma and label, placed at ``at`` in ``cand``."""
        anchor = require_anchor(structure, "the augmentation loop")
        anchor_text = cand.text[at[0]:at[1]]
        gold_pos = lu_pos(anchor.label) if structure.kind == "frame" else None
        if gold_pos and anchor_text.lower().split() == sentence.text[anchor.start:anchor.end].lower().split():
            # the anchor's words are unchanged (a rewrite around it): its LU is the gold one. A parse's
            # guess gave "a lot.n" → "lot.n", "after.prep" → "after.scon", "fulfilling.a" → "fulfilly.a"
            lu = AnchorLU(anchor.label.rsplit(".", 1)[0], gold_pos, "source")
            return lu, lu.lemma, anchor.label
        if structure.kind == "frame":  # a new LU: its POS is the new word's, read from a parse of cand.text
            lu = self.tagger.lu(cand.text, at[0], at[1], lu_pos(anchor.label), placed=cand.structures)
            return lu, lu.lemma, lu.label or anchor.label
        return None, anchor_lemma(anchor_text, None), anchor.label

    def _decide(self, out: Sentence, sentence: Sentence,
                provenance: dict[str, Any]) -> dict[str, tuple[bool, str, float | None]]:
        """Every filter's decision on ``out`` (a combined check's parts too), recorded in ``provenance``
        (``out``'s)."""
        decisions: dict[str, tuple[bool, str, float | None]] = {}
        checks: dict[str, dict[str, Any]] = {}
        provenance["checks"] = checks  # filled as the checks decide: a learned filter reads those before it
        for flt in sorted(self.filters, key=reads_checks):
            d = flt.decide(out, sentence)
            # a combined check records each part too (labels, spans, fluency, meaning of `verified`)
            for name, part in recorded(flt.name, d).items():
                decisions[name] = (bool(part.keep), str(part.reason), part.score)
                if records_check(flt):
                    checks[name] = {"keep": bool(part.keep), "score": _r(part.score), "reason": str(part.reason)}
        provenance["filters"] = {name: d[0] for name, d in decisions.items()}
        if not checks:
            del provenance["checks"]
        return decisions


def _placed_args(structure: Structure, at: tuple[int, int], a_score: float, args: Sequence[Span],
                 placed: Sequence[Placed], around: Sequence[tuple[Span, tuple[int, int] | None]], *,
                 kept: bool) -> tuple[list[Span], list[dict[str, Any]]]:
    """The output's arguments (by offset) and what provenance records of every span: the anchor at
    ``at``, each argument where it was ``placed``, an argument that is the anchor itself, and one
    that holds the anchor and more (``around``)."""
    anchor = require_anchor(structure, "the augmentation loop")
    a_start, a_end = at
    new_args: list[Span] = []
    span_info: list[dict[str, Any]] = [{"role": "anchor", "label": anchor.label,
                                        "source": [anchor.start, anchor.end], "placed": [a_start, a_end],
                                        "score": _r(a_score)}]
    for arg, (where, score) in zip(args, placed, strict=True):
        span_info.append({"role": "arg", "label": arg.label, "source": [arg.start, arg.end],
                          "placed": list(where) if where else None, "score": _r(score),
                          **({"kept": True} if kept else {})})
        if where is not None:
            new_args.append(Span(where[0], where[1], arg.label))
    # an argument that is the anchor itself (FrameNet: a noun target that is its own FE, "plutonium"
    # as Substance) goes where the anchor went; it was not placed apart from it
    for arg in structure.args:
        if arg.start == anchor.start and arg.end == anchor.end:
            new_args.append(Span(a_start, a_end, arg.label))
            span_info.append({"role": "arg", "label": arg.label, "source": [arg.start, arg.end],
                              "placed": [a_start, a_end], "score": _r(a_score), "with_anchor": True})
    # an argument that holds the anchor and more ("nuclear [weapons]") keeps its words around the new anchor
    for arg, where in around:
        span_info.append({"role": "arg", "label": arg.label, "source": [arg.start, arg.end],
                          "placed": list(where) if where else None, "score": _r(a_score), "around_anchor": True})
        if where is not None:
            new_args.append(Span(where[0], where[1], arg.label))
    new_args.sort(key=lambda s: (s.start, s.end))
    return new_args, span_info


def _around(text: str, anchor: tuple[int, int], before: str, after: str) -> tuple[int, int] | None:
    """Where an argument that was ``before`` + anchor + ``after`` lies in ``text``, whose anchor was
    placed at ``anchor``: the same words touch the new anchor on both sides, with a space where the
    source had one, and the argument starts and ends at word boundaries; None when they do not."""
    start, end = anchor
    s, e = start, end
    core = before.rstrip()
    if core:
        left = text[:start]
        if bool(left != left.rstrip()) != bool(before != core) or not left.rstrip().endswith(core):
            return None
        s = len(left.rstrip()) - len(core)
        if s > 0 and text[s - 1].isalnum() and core[0].isalnum():
            return None  # "antinuclear weapons" is not "nuclear weapons"
    core = after.lstrip()
    if core:
        right = text[end:]
        if bool(right != right.lstrip()) != bool(after != core) or not right.lstrip().startswith(core):
            return None
        e = end + (len(right) - len(right.lstrip())) + len(core)
        if e < len(text) and text[e].isalnum() and core[-1].isalnum():
            return None
    return s, e


def _combined(failures: list[str]) -> str:
    """Why a staged attempt gave no output, as asking every stage at once would say it: a refusal
    by the check first, then a placement failure, else every stage's note."""
    for kind in (NOT_PASSED, NOT_PLACED):
        if hit := next((f for f in failures if f.startswith(kind)), None):
            return hit
    notes = [f.removeprefix(f"{NO_CANDIDATE} (").removesuffix(")") for f in failures]
    return f"{NO_CANDIDATE} ({'; '.join(notes) or 'no member was asked'})"


def _jsonable(meta: dict[str, Any]) -> dict[str, Any]:
    """``meta`` with the values JSON cannot hold dropped (provenance is written as JSON)."""
    out = {}
    for key, value in meta.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            continue
        out[key] = value
    return out
