"""Augmenters for the learning curves: named callables ``(gold subset, seed) -> augmented sentences``.

An augmenter sees only the sampled gold subset, so every curve point is augmented from exactly
the data it trains on. ``get_augmenter`` takes a registered name (``none``, ``rewrite``, or one
added through the ``paraspan.augmenters`` entry points), ``generator:NAME`` (any registered
generator through the paraspan pipeline, :mod:`~paraspan.evaluate.downstream.generator_adapter`),
or a pre-made augmented corpus whose outputs are matched to the subset by ``source_id``:
``jsonl:PATH`` (made from the subset: a file whose outputs mostly come from other sentences is
refused, E890) or ``jsonl-corpus:PATH`` (made from the whole training corpus: its sources must
be training sentences, E891; each subset takes the outputs of its own sentences).

An augmenter may also have ``prepare(train)`` (called once with the whole training corpus),
``report()`` (what its last call did: recorded per seed by the curves) and ``whole_subset`` (true:
under an augmentation budget it is called once with the whole subset rather than a chunk at a
time, :func:`~paraspan.evaluate.downstream.budget.augment_to_budget`).

``lexical_substitution`` builds the ablation of Culkin et al. §6.3: the source sentence with only
its anchor replaced by the aligned anchor of an augmented output, kept when the new word has the
same part of speech.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import CorpusError, ParaspanError
from paraspan.registry import Registry

Augmenter = Callable[[list[Sentence], int], list[Sentence]]
PosFn = Callable[[list[tuple[str, Span]]], list[str]]


def no_augmentation() -> Augmenter:
    """No augmented sentences (base curves only)."""

    def augment(sentences: list[Sentence], seed: int) -> list[Sentence]:
        return []

    return augment


def rewrite_augmenter() -> Augmenter:
    """Rule-based rewriting with label projection (``paraspan.generate.rewrite``, issue 7)."""
    from paraspan.evaluate.downstream.rewrite_adapter import RewriteAugmenter

    return RewriteAugmenter()


AUGMENTERS: Registry[Callable[[], Augmenter]] = Registry("augmenters")
AUGMENTERS.register("none", "paraspan.evaluate.downstream.augment:no_augmentation", "no augmented sentences")
AUGMENTERS.register("rewrite", "paraspan.evaluate.downstream.augment:rewrite_augmenter",
                    "rule-based rewrites with label projection (paraspan.generate.rewrite)")


def augmenters() -> Registry[Callable[[], Augmenter]]:
    """Augmenter factories by name (each returns a fresh augmenter; heavy models load lazily)."""
    return AUGMENTERS


#: A pre-made file whose sources are mostly outside the subset (or the corpus) is refused.
MAX_FOREIGN = 0.5


@dataclass
class JsonlAugmenter:
    """Outputs of a pre-made augmented JSONL, matched to the subset by ``source_id``.

    ``scope``: ``subset`` — the file was made from the subset it is used with, so most of its
    outputs' sources must be sentences of that subset (a file made from another subset would
    otherwise leave a handful of outputs, silently); ``corpus`` — it was made from the whole
    training corpus (checked when :meth:`prepare` is given the corpus).
    """

    path: Path
    scope: str = "subset"
    outputs: dict[str, list[Sentence]] = field(default_factory=dict)
    loaded: bool = False
    corpus_ids: set[str] | None = None
    last: dict[str, Any] = field(default_factory=dict)
    #: under a budget, called once with the whole subset (a lookup; its check is of the whole subset)
    whole_subset: ClassVar[bool] = True

    def _load(self) -> None:
        from paraspan.corpus.formats import read_corpus

        if not self.path.is_file():
            raise CorpusError.from_code("E901", file=str(self.path))
        for n, sentence in enumerate(read_corpus(self.path, "jsonl"), start=1):
            if sentence.source_id is None:
                raise CorpusError.from_code("E902", file=str(self.path), line=n, id=sentence.id)
            self.outputs.setdefault(sentence.source_id, []).append(sentence)
        self.loaded = True

    def prepare(self, train: Sequence[Sentence]) -> None:
        """The training corpus the subsets are drawn from: a file's sources must be in it."""
        if not self.loaded:
            self._load()
        self.corpus_ids = {s.id for s in train}
        foreign = set(self.outputs) - self.corpus_ids
        if self.outputs and len(foreign) > MAX_FOREIGN * len(self.outputs):
            raise CorpusError.from_code("E891", file=str(self.path), foreign=len(foreign),
                                        sources=len(self.outputs), size=len(self.corpus_ids))

    def __call__(self, sentences: list[Sentence], seed: int) -> list[Sentence]:
        if not self.loaded:
            self._load()
        ids = {s.id for s in sentences}
        foreign = set(self.outputs) - ids
        if self.scope == "subset" and self.outputs and len(foreign) > MAX_FOREIGN * len(self.outputs):
            detail = ""
            if self.corpus_ids is not None:
                detail = f" ({len(foreign & self.corpus_ids)} of them are other sentences of the training corpus)"
            raise CorpusError.from_code("E890", file=str(self.path), foreign=len(foreign),
                                        sources=len(self.outputs), size=len(ids), detail=detail)
        out = [o for s in sentences for o in self.outputs.get(s.id, [])]
        self.last = {"file": str(self.path), "scope": self.scope, "sources_in_file": len(self.outputs),
                     "sources_outside_subset": len(foreign), "kept": len(out)}
        return out

    def report(self) -> dict[str, Any]:
        return dict(self.last)


def get_augmenter(spec: str, *, filter: str = "verified", store: str | Path | None = None,
                  store_dir: str | Path | None = None, settings: dict[str, Any] | None = None,
                  overrides: Sequence[str] = (), prefix: str = "", workers: int = 1) -> Augmenter:
    """``none``, ``rewrite``, another registered name, ``generator:NAME``, ``jsonl:PATH`` or
    ``jsonl-corpus:PATH``. The keywords are for ``generator:NAME``
    (:class:`~paraspan.evaluate.downstream.generator_adapter.GeneratorAugmenter`)."""
    if spec.startswith("jsonl:"):
        return JsonlAugmenter(Path(spec[len("jsonl:"):]))
    if spec.startswith("jsonl-corpus:"):
        return JsonlAugmenter(Path(spec[len("jsonl-corpus:"):]), scope="corpus")
    if spec.startswith("generator:"):
        name = spec[len("generator:"):].strip()
        if not name:
            raise ParaspanError.from_code("E893", problem=f"augmenter {spec!r} names no generator",
                                          fix="write generator:NAME, e.g. generator:rewrite")
        if store is not None and store_dir is not None:
            raise ParaspanError.from_code("E893", problem="both a run store and a store folder were given",
                                          fix="give --store PATH (one store, reused) or --store-dir DIR")
        from paraspan.evaluate.downstream.generator_adapter import GeneratorAugmenter

        augmenter = GeneratorAugmenter(name, filter, Path(store) if store is not None else None,
                                       Path(store_dir) if store_dir is not None else None,
                                       dict(settings or {}), tuple(overrides), prefix, max(1, workers))
        augmenter.config  # noqa: B018 - an unknown generator, option or filter fails now, not after the base run
        return augmenter
    return augmenters().get(spec)()


def keep_derived(outputs: Sequence[Sentence], subset: Sequence[Sentence]) -> tuple[list[Sentence], int]:
    """The outputs whose ``source_id`` is a sentence of the subset, and how many were dropped."""
    ids = {s.id for s in subset}
    kept = [o for o in outputs if o.source_id in ids]
    return kept, len(outputs) - len(kept)


def check_augmented(outputs: Sequence[Sentence], where: str) -> None:
    """Augmented sentences must be valid and name their source."""
    for sentence in outputs:
        if sentence.source_id is None:
            raise ParaspanError.from_code("E903", where=where, id=sentence.id)
        sentence.validate()


# --------------------------------------------------------------------------- lexical substitution


def spacy_pos(nlp: Any) -> PosFn:
    """Coarse POS of the last word of each (text, span), tagged in context by a spaCy pipeline."""

    def pos(items: list[tuple[str, Span]]) -> list[str]:
        out = []
        for doc, (_, span) in zip(nlp.pipe([t for t, _ in items], batch_size=64), items, strict=True):
            words = [t for t in doc if t.idx < span.end and t.idx + len(t) > span.start]
            out.append(words[-1].pos_ if words else "")
        return out

    return pos


def _shift(arg: Span, anchor: Span, delta: int) -> Span | None:
    if arg.end <= anchor.start:
        return Span(arg.start, arg.end, arg.label)
    if arg.start >= anchor.end:
        return Span(arg.start + delta, arg.end + delta, arg.label)
    if arg.start <= anchor.start and arg.end >= anchor.end:
        return Span(arg.start, arg.end + delta, arg.label)
    return None  # cuts through the replaced words


def lexical_substitution(subset: Sequence[Sentence], augmented: Sequence[Sentence], pos: PosFn) -> list[Sentence]:
    """For each augmented output, its source with only the anchor of each structure swapped for the
    output's aligned anchor (paired by kind and label, in order); same-POS swaps only, no duplicates."""
    sources = {s.id: s for s in subset}
    # source, output, the source's structure and anchor, the output's anchor (its text, its label)
    candidates: list[tuple[Sentence, Sentence, Structure, Span, str, str]] = []
    for out in augmented:
        src = sources.get(out.source_id or "")
        if src is None:
            continue
        used: set[int] = set()
        for structure in out.structures:
            if structure.anchor is None:
                continue
            for i, original in enumerate(src.structures):
                if i in used or original.anchor is None or (original.kind, original.label) != (
                        structure.kind, structure.label):
                    continue
                used.add(i)
                new = structure.anchor.text_in(out.text)
                if new.strip() and new.lower() != original.anchor.text_in(src.text).lower():
                    candidates.append((src, out, original, original.anchor, new, structure.anchor.label))
                break
    built: list[tuple[Sentence, Span, Span]] = []
    seen: set[tuple[str, str]] = set()
    for src, out, original, anchor, new, label in candidates:
        text = src.text[: anchor.start] + new + src.text[anchor.end :]
        if (text, original.label) in seen:
            continue
        seen.add((text, original.label))
        delta = len(new) - (anchor.end - anchor.start)
        new_anchor = Span(anchor.start, anchor.start + len(new), label)
        args = [a for a in (_shift(arg, anchor, delta) for arg in original.args) if a is not None]
        sentence = Sentence(f"{out.id}:lexsub{len(built)}", text,
                            [Structure(original.kind, original.label, new_anchor, args)], {}, src.id,
                            {"method": "lexsub", "from": out.id})
        built.append((sentence, anchor, new_anchor))
    if not built:
        return []
    tags = pos([(s.text, a) for s, _, a in built] + [(sources[s.source_id or ""].text, a) for s, a, _ in built])
    half = len(built)
    return [s for n, (s, _, _) in enumerate(built) if tags[n] and tags[n] == tags[half + n]]
