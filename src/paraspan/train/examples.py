"""Training examples built from a labelled corpus: spans and triggers masked by plain-text markers.

Every labelled span of a corpus is an example of what may stand there. An example masks one or
more argument spans of one structure (a frame's elements, a predicate's roles, a sentence's
entity mentions) or the structure's anchor (a frame's trigger, a predicate), and asks for the
masked text. Markers are plain text (``<Goods>``), not new special tokens, because a GGUF LoRA
cannot carry new embeddings; the header names what the markers belong to (frame and LU, roleset,
or "entities"), as Cui & Swayamdipta's ``frame+FE`` conditioning does.

The same :func:`render_prompt` builds training prompts and generation prompts, so what the
generator asks is what the adapter learned.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from paraspan.corpus.schema import Sentence, Span, Structure

__all__ = ["ANSWER", "MAX_SPAN_WORDS", "SEPARATOR", "TASKS", "Example", "ExampleConfig", "Mask", "build_examples",
           "corpus_kinds", "label_set", "marker", "maskable_args", "parse_answer", "render_prompt", "span_kind"]

#: What an example can mask.
TASKS = ("span", "trigger")
#: The line that starts the answer.
ANSWER = "=> "
SEPARATOR = " | "
#: The marker of a masked anchor (a frame's trigger or a predicate).
TRIGGER = "TARGET"
#: Longer spans are not masked (clauses cost tokens and teach little about filling a slot).
MAX_SPAN_WORDS = 12


@dataclass(frozen=True)
class Mask:
    """A masked character span ``[start, end)`` of the sentence, shown as ``<marker>``."""

    start: int
    end: int
    marker: str


@dataclass(frozen=True)
class Example:
    """One training or generation prompt and, for training, its answer."""

    prompt: str
    answer: str
    task: str
    kind: str
    labels: tuple[str, ...] = ()
    structure: str = ""  # the frame, roleset or "entities" the markers belong to


@dataclass(frozen=True)
class ExampleConfig:
    """How examples are drawn from a structure.

    ``trigger_share``: the share of examples that mask the anchor instead of arguments (frames and
    predicates only). ``max_spans``: at most this many argument spans masked together.
    ``max_span_words``: longer spans are not masked (clauses cost tokens and teach little about
    filling a slot). ``per_structure``: examples drawn from each structure.
    """

    trigger_share: float = 0.3
    max_spans: int = 2
    max_span_words: int = MAX_SPAN_WORDS
    per_structure: int = 1
    seed: int = 0


def span_kind(structure: Structure) -> str:
    """``frame``, ``srl`` or ``entity`` (events are treated as frames)."""
    return "entity" if structure.kind == "entity" else ("srl" if structure.kind == "srl" else "frame")


def corpus_kinds(sentences: Iterable[Sentence]) -> Counter[str]:
    """How many structures of each kind the corpus has, counting only those with a usable span."""
    kinds: Counter[str] = Counter()
    for sentence in sentences:
        for structure in sentence.structures:
            if structure.kind == "entity" and structure.anchor is not None:
                kinds["entity"] += 1
            elif structure.kind != "entity" and (structure.args or structure.anchor is not None):
                kinds[span_kind(structure)] += 1
    return kinds


def _header(structure: Structure, task: str) -> str:
    kind = span_kind(structure)
    if kind == "entity":
        return "### entities"
    if kind == "srl":
        if task == "trigger":
            return f"### predicate {structure.label.rpartition('.')[0] or structure.label} sense, new verb"
        return f"### predicate {structure.label}"
    lu = structure.anchor.label if structure.anchor is not None and structure.anchor.label else ""
    if task == "trigger":
        pos = lu.rpartition(".")[2] if "." in lu else ""
        return f"### frame {structure.label}, new trigger" + (f" .{pos}" if pos else "")
    return f"### frame {structure.label}" + (f", {lu}" if lu else "")


def render_prompt(text: str, structure: Structure, masks: Sequence[Mask], task: str) -> str:
    """The prompt: a header naming what the markers belong to, then the text with ``masks`` replaced."""
    pieces: list[str] = []
    at = 0
    for mask in sorted(masks, key=lambda m: m.start):
        pieces.append(text[at:mask.start])
        pieces.append(f"<{mask.marker}>")
        at = mask.end
    pieces.append(text[at:])
    return f"{_header(structure, task)}\n{''.join(pieces)}\n{ANSWER}"


def parse_answer(answer: str, count: int) -> list[str] | None:
    """The ``count`` fillers of an answer line, or None when it does not have exactly that many."""
    line = answer.split("\n", 1)[0].strip()
    parts = [p.strip() for p in line.split(SEPARATOR.strip())]
    if len(parts) != count or any(not p or "<" in p or ">" in p for p in parts):
        return None
    return parts


def _words(text: str) -> int:
    return len(text.split())


def maskable_args(text: str, structure: Structure, max_words: int) -> list[Span]:
    """Argument spans (or entity mentions) that may be masked: non-empty, short, apart from the anchor."""
    if structure.kind == "entity":
        spans = [structure.anchor] if structure.anchor is not None else []
    else:
        spans = [a for a in structure.args if structure.anchor is None or not a.overlaps(structure.anchor)]
    out = []
    for span in spans:
        if span.label is None and structure.kind != "entity":
            continue
        piece = text[span.start:span.end]
        if piece.strip() and "\n" not in piece and _words(piece) <= max_words:
            out.append(span)
    # overlapping arguments cannot both be masked: keep the first of each overlap
    kept: list[Span] = []
    for span in sorted(out, key=lambda s: (s.start, s.end)):
        if not any(span.overlaps(k) for k in kept):
            kept.append(span)
    return kept


def marker(structure: Structure, span: Span) -> str:
    """What a masked span is named by: its entity type, else its label (FE, role)."""
    return structure.label if structure.kind == "entity" else str(span.label)


def _trigger_example(sentence: Sentence, structure: Structure) -> Example | None:
    anchor = structure.anchor
    if anchor is None or structure.kind == "entity":
        return None
    piece = sentence.text[anchor.start:anchor.end]
    if not piece.strip() or _words(piece) > 4:
        return None
    prompt = render_prompt(sentence.text, structure, [Mask(anchor.start, anchor.end, TRIGGER)], "trigger")
    return Example(prompt, piece, "trigger", span_kind(structure), (), structure.label)


def _span_example(sentence: Sentence, structure: Structure, spans: Sequence[Span]) -> Example:
    masks = [Mask(s.start, s.end, marker(structure, s)) for s in spans]
    prompt = render_prompt(sentence.text, structure, masks, "span")
    ordered = sorted(spans, key=lambda s: s.start)
    answer = SEPARATOR.join(sentence.text[s.start:s.end] for s in ordered)
    labels = tuple(marker(structure, s) for s in ordered)
    return Example(prompt, answer, "span", span_kind(structure), labels, structure.label)


def _entity_structures(sentence: Sentence) -> list[Structure]:
    return [s for s in sentence.structures if s.kind == "entity" and s.anchor is not None]


def examples_of(sentence: Sentence, config: ExampleConfig, rng: random.Random,
                tasks: Sequence[str] = TASKS) -> Iterator[Example]:
    """The examples drawn from one sentence: per structure for frames and predicates, per sentence
    for entities (a sentence's mentions are masked together, each named by its type)."""
    entities = _entity_structures(sentence)
    if entities and "span" in tasks:
        for _ in range(config.per_structure):
            chosen = rng.sample(entities, k=min(len(entities), rng.randint(1, config.max_spans)))
            spans = [Span(e.anchor.start, e.anchor.end, e.label) for e in chosen if e.anchor is not None]
            spans = [s for s in spans if _words(sentence.text[s.start:s.end]) <= config.max_span_words]
            if spans and not any(a.overlaps(b) for i, a in enumerate(spans) for b in spans[i + 1:]):
                holder = Structure("entity", "entities")
                masks = [Mask(s.start, s.end, str(s.label)) for s in spans]
                prompt = render_prompt(sentence.text, holder, masks, "span")
                ordered = sorted(spans, key=lambda s: s.start)
                yield Example(prompt, SEPARATOR.join(sentence.text[s.start:s.end] for s in ordered), "span",
                              "entity", tuple(str(s.label) for s in ordered), "entities")
    for structure in sentence.structures:
        if structure.kind == "entity":
            continue
        for _ in range(config.per_structure):
            want_trigger = "trigger" in tasks and rng.random() < config.trigger_share
            if want_trigger or "span" not in tasks:
                example = _trigger_example(sentence, structure)
                if example is not None:
                    yield example
                continue
            spans = maskable_args(sentence.text, structure, config.max_span_words)
            if not spans:
                continue
            chosen = rng.sample(spans, k=min(len(spans), rng.randint(1, config.max_spans)))
            yield _span_example(sentence, structure, chosen)


def build_examples(sentences: Iterable[Sentence], config: ExampleConfig | None = None, *,
                   tasks: Sequence[str] = TASKS, kinds: Sequence[str] | None = None,
                   limit: int | None = None) -> list[Example]:
    """Examples from every sentence, shuffled with ``config.seed``; at most ``limit`` of them.

    ``kinds`` keeps only structures of those kinds (``frame``, ``srl``, ``entity``).
    """
    config = config or ExampleConfig()
    rng = random.Random(config.seed)
    out: list[Example] = []
    for sentence in sentences:
        if kinds is not None:
            kept = [s for s in sentence.structures if span_kind(s) in kinds]
            if not kept:
                continue
            if len(kept) != len(sentence.structures):
                sentence = Sentence(sentence.id, sentence.text, kept)
        out.extend(examples_of(sentence, config, rng, tasks))
    rng.shuffle(out)
    return out[:limit] if limit is not None else out


def label_set(examples: Iterable[Example]) -> dict[str, list[str]]:
    """``{"kinds", "structures", "labels"}`` of what ``examples`` teach (recorded in the model card):
    the structure kinds, the frames/rolesets, and the argument labels (FEs, roles, entity types)."""
    kinds: set[str] = set()
    structures: set[str] = set()
    labels: set[str] = set()
    for example in examples:
        kinds.add(example.kind)
        if example.kind != "entity":
            structures.add(example.structure)
        labels.update(example.labels)
    return {"kinds": sorted(kinds), "structures": sorted(structures), "labels": sorted(labels)}
