"""Output mode: each output shown beside its source with every labelled span, scored as a whole."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from paraspan.corpus.schema import Sentence, Structure
from paraspan.pipeline.store import RunStore
from paraspan.report.highlight import ANCHOR_COLOUR, MarkedSpan, Palette, highlight_html, structure_spans
from paraspan.review.tasks.common import (
    OUTPUT,
    SLOTS,
    SYSTEM,
    PrepareResult,
    _rank,
    write_tasks,
)

OUTPUT_QUESTION = ("Is the output fully correct? Grammatical English, the meaning of the source kept, and every "
                   "span and label right: the {anchor} and every {args} with its label.")
_ANCHOR_WORDS = {"frame": ("trigger with its frame", "frame element"),
                 "srl": ("predicate with its sense", "argument"),
                 "entity": ("mention with its entity type", "argument"),
                 "event": ("trigger with its event type", "argument")}


def _anchor_tag(structure: Structure) -> str:
    """The anchor's tag: the structure's label, and the anchor's own label (a FrameNet LU) when it differs."""
    anchor = structure.anchor
    if anchor is not None and anchor.label and anchor.label != structure.label:
        return f"{structure.label} ({anchor.label})"
    return structure.label


def labelled_spans(structure: Structure | None) -> list[MarkedSpan]:
    """The anchor (tagged with the structure's label) and every argument with its label."""
    if structure is None:
        return []
    spans = [MarkedSpan(s.start, s.end, s.label, s.role) for s in structure_spans(structure)]
    if structure.anchor is not None:
        spans[0] = MarkedSpan(structure.anchor.start, structure.anchor.end, _anchor_tag(structure), "anchor")
    return spans


def labelled_html(text: str, spans: list[MarkedSpan], palette: Palette) -> str:
    """``text`` as escaped HTML, each span highlighted and followed by a small tag with its label.

    Nested or overlapping spans cannot each end in a tag: then the spans are only coloured (as in
    the report) and the page lists them with their labels under the sentence.
    """
    valid = sorted((s for s in spans if 0 <= s.start < s.end <= len(text)), key=lambda s: (s.start, -s.end))
    if any(b.start < a.end for a, b in zip(valid, valid[1:], strict=False)):
        return highlight_html(text, valid, palette)
    parts: list[str] = []
    position = 0
    for span in valid:
        colour = ANCHOR_COLOUR if span.role == "anchor" else palette.colour(span.label)
        label = html.escape(span.label, quote=True)
        parts.append(html.escape(text[position:span.start]))
        parts.append(f'<mark class="{span.role}" style="background:{colour}" title="{label}">'
                     f'{html.escape(text[span.start:span.end])}</mark><span class="tag {span.role}">{label}</span>')
        position = span.end
    parts.append(html.escape(text[position:]))
    return "".join(parts)


def sentence_view(text: str, structure: Structure | None, palette: Palette,
                  others: Sequence[Structure] = ()) -> dict[str, Any]:
    """What the page shows of one sentence: its text, labelled HTML, and the spans as a list.
    ``others``: the sentence's further structures (an NER output carries every mention), each shown
    by its anchor with role ``other``, after the structure's own spans."""
    spans = labelled_spans(structure) + [MarkedSpan(o.anchor.start, o.anchor.end, _anchor_tag(o), "other")
                                         for o in others if o.anchor is not None]
    args = sorted((s for s in spans if s.role == "arg"), key=lambda s: (s.start, s.end))
    also = sorted((s for s in spans if s.role == "other"), key=lambda s: (s.start, s.end))
    ordered = [s for s in spans if s.role == "anchor"] + args + also
    return {
        "text": text, "kind": structure.kind if structure else None, "label": structure.label if structure else None,
        "html": labelled_html(text, spans, palette),
        "spans": [{"role": s.role, "label": s.label, "start": s.start, "end": s.end,
                   "text": text[s.start:s.end] if 0 <= s.start < s.end <= len(text) else None,
                   "colour": ANCHOR_COLOUR if s.role == "anchor" else palette.colour(s.label)} for s in ordered],
    }


def build_output_task(output: Sentence, source: Sentence | None, *, structure: int | None = None, seed: int = 0,
                      definitions: dict[str, str] | None = None) -> dict[str, Any]:
    """The output-mode task for one output: source and output with their labelled spans.

    The source's structure is the one the output's provenance names (``structure``), else
    ``structure`` (the store's column); the output's is its first. An output may carry more (an NER
    output carries every mention it kept): they are shown too, with the source's structures of their
    kinds (of entities, always every mention), so that a mention lost or mislabelled is seen.
    """
    index = (output.provenance or {}).get("structure", structure)
    source_structure = None
    if (source is not None and isinstance(index, int) and not isinstance(index, bool)
            and 0 <= index < len(source.structures)):
        source_structure = source.structures[index]
    output_structure = output.structures[0] if output.structures else None
    main = output_structure or source_structure
    kind, label = (main.kind, main.label) if main is not None else ("", "")
    output_others = output.structures[1:]
    other_kinds = {o.kind for o in output_others} | ({"entity"} if kind == "entity" else set())
    source_others = [s for s in (source.structures if source is not None else [])
                     if s is not source_structure and s.kind in other_kinds]
    palette = Palette()  # one per task: a label has the same colour in the source and the output
    source_view = sentence_view(source.text if source is not None else "", source_structure, palette, source_others)
    output_view = sentence_view(output.text, output_structure, palette, output_others)
    # source arguments and further mentions the output lacks (by label): easy to overlook, so the page names them
    placed = {role: [s["label"] for s in output_view["spans"] if s["role"] == role] for role in ("arg", "other")}
    missing = []
    for span in source_view["spans"]:
        if span["role"] == "anchor":
            continue
        if span["label"] in placed[span["role"]]:
            placed[span["role"]].remove(span["label"])
        else:
            missing.append({"label": span["label"], "text": span["text"]})
    anchor, args = _ANCHOR_WORDS.get(kind, ("anchor with its label", "argument"))
    return {
        "output_id": output.id, "rank": _rank(seed, output.id), "kind": kind, "label": label,
        "definition": (definitions or {}).get(label, "") if kind == "frame" else "",
        "question": OUTPUT_QUESTION.format(anchor=anchor, args=args),
        "view": {"source": source_view, "output": output_view, "missing": missing},
        "items": [{"kind": SYSTEM, "ref": output.id, "slot": SLOTS[0]}],
    }


def prepare_output_tasks(store: RunStore, *, seed: int = 0, definitions: dict[str, str] | None = None,
                         filter: str | None = None, sample: int | None = None) -> PrepareResult:
    """Write an output-mode task for every output (that ``filter`` kept; a seeded ``sample``) without one.

    ``filter="all"`` is every output, kept or rejected (as no filter). Idempotent like
    :func:`prepare_tasks`.
    """
    if filter == "all":
        filter = None
    source: tuple[str, Sentence | None] = ("", None)  # outputs come in input order: one source at a time

    def build(record: Any, result: PrepareResult) -> dict[str, Any]:
        nonlocal source
        if source[0] != record.input_id:
            source = (record.input_id, store.source(record.input_id))
        return build_output_task(record.sentence, source[1], structure=record.structure, seed=seed,
                                 definitions=definitions)

    return write_tasks(store, OUTPUT, filter=filter, sample=sample, seed=seed, build=build)
