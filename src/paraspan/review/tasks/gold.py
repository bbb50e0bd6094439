"""Trigger mode (Culkin et al. 2021 §6.1): the gold pool of controls and examples, and the tasks built from it."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from paraspan.corpus.schema import Sentence
from paraspan.pipeline.store import RunStore
from paraspan.report.highlight import Palette, highlight_html, structure_spans
from paraspan.review.tasks.common import (
    GOLD_IN,
    GOLD_OUT,
    QUESTIONS,
    SLOTS,
    SYSTEM,
    TRIGGER,
    PrepareResult,
    _rank,
    write_tasks,
)

# ---------------------------------------------------------------------------------------- gold pool


@dataclass(frozen=True)
class GoldEntry:
    """One gold structure with an anchor: a control or an example candidate."""

    sentence_id: str
    structure: int
    kind: str
    label: str
    lu: str  # the anchor's label (FrameNet LU) or, without one, its lowercased text
    text: str
    start: int
    end: int
    html: str  # the sentence with anchor and arguments highlighted (examples show them)
    trigger: str  # the anchor's text, lowercased

    @property
    def item_id(self) -> str:
        return f"gold:{self.sentence_id}#{self.structure}"


@dataclass
class GoldPool:
    """Gold structures by (kind, label)."""

    by_label: dict[tuple[str, str], list[GoldEntry]] = field(default_factory=lambda: defaultdict(list))
    by_kind: dict[str, list[GoldEntry]] = field(default_factory=lambda: defaultdict(list))
    by_trigger: dict[str, list[GoldEntry]] = field(default_factory=lambda: defaultdict(list))
    palette: Palette = field(default_factory=Palette)
    seen: set[str] = field(default_factory=set)

    def add(self, sentences: Iterable[Sentence]) -> int:
        added = 0
        for sentence in sentences:
            if sentence.is_augmented or sentence.id in self.seen:
                continue
            self.seen.add(sentence.id)
            for index, structure in enumerate(sentence.structures):
                anchor = structure.anchor
                if anchor is None or not 0 <= anchor.start < anchor.end <= len(sentence.text):
                    continue
                lu = anchor.label or anchor.text_in(sentence.text).lower()
                entry = GoldEntry(sentence.id, index, structure.kind, structure.label, lu, sentence.text,
                                  anchor.start, anchor.end,
                                  highlight_html(sentence.text, structure_spans(structure), self.palette),
                                  anchor.text_in(sentence.text).lower())
                self.by_label[(structure.kind, structure.label)].append(entry)
                self.by_kind[structure.kind].append(entry)
                self.by_trigger[entry.trigger].append(entry)
                added += 1
        return added

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_label.values())



def _sample(rng: random.Random, entries: Sequence[GoldEntry], ok: Callable[[GoldEntry], bool],
            k: int = 1) -> list[GoldEntry]:
    """Up to ``k`` distinct random entries that pass ``ok``.

    Random draws first (a large pool would make a full scan per task quadratic over a run), then
    a scan of what is left when draws did not find enough. Deterministic for the ``rng``'s seed.
    """
    chosen: list[GoldEntry] = []
    seen: set[int] = set()
    if entries:
        for _ in range(20 * k):
            index = rng.randrange(len(entries))
            if index not in seen:
                seen.add(index)
                if ok(entries[index]):
                    chosen.append(entries[index])
                    if len(chosen) == k:
                        return chosen
    rest = [i for i in range(len(entries)) if i not in seen and ok(entries[i])]
    rng.shuffle(rest)
    return chosen + [entries[i] for i in rest[:k - len(chosen)]]


def build_task(output: Sentence, input_id: str, pool: GoldPool, *, seed: int = 0,
               definitions: dict[str, str] | None = None) -> tuple[dict[str, Any], PrepareResult] | None:
    """The task for one output (None when the output has no anchor to highlight)."""
    stats = PrepareResult()
    structure = output.structures[0] if output.structures else None
    anchor = structure.anchor if structure is not None else None
    if structure is None or anchor is None:
        return None
    rng = random.Random(f"{seed}|{output.id}")
    trigger = anchor.text_in(output.text).lower()
    out_lu = anchor.label or trigger
    same = pool.by_label.get((structure.kind, structure.label), [])
    # gold in-frame: same frame, another LU (and another trigger word); else any LU of the frame
    found = _sample(rng, same, lambda e: e.sentence_id != input_id and e.lu != out_lu and e.trigger != trigger)
    if not found:
        found = _sample(rng, same, lambda e: e.sentence_id != input_id)
        if found:
            stats.same_lu = 1
        else:
            stats.no_in_frame = 1
    gold_in = found[0] if found else None
    # gold out-of-frame, adversarial where the pool allows: the output's own trigger word evoking
    # another frame (another sense of the word); else any sentence of another frame
    def other_frame(e: GoldEntry) -> bool:
        return e.kind == structure.kind and e.label != structure.label and e.sentence_id != input_id

    found = (_sample(rng, pool.by_trigger.get(trigger, []), other_frame)
             or _sample(rng, pool.by_kind.get(structure.kind, []), other_frame))
    gold_out = found[0] if found else None
    stats.no_out_frame = int(gold_out is None)
    items: list[dict[str, Any]] = [{"kind": SYSTEM, "ref": output.id, "text": output.text, "start": anchor.start,
                                    "end": anchor.end}]
    for kind, entry in ((GOLD_IN, gold_in), (GOLD_OUT, gold_out)):
        if entry is not None:
            items.append({"kind": kind, "ref": entry.item_id, "text": entry.text, "start": entry.start,
                          "end": entry.end, "label": entry.label})
    rng.shuffle(items)
    for slot, item in zip(SLOTS, items, strict=False):
        item["slot"] = slot
    # examples: the frame's other gold sentences, one per sentence and trigger word, triggers disjoint
    # from every candidate's trigger; other LUs than the candidates' when there are enough of them
    triggers = {i["text"][i["start"]:i["end"]].lower() for i in items}
    lus = {out_lu} | ({gold_in.lu} if gold_in else set())
    excluded = {input_id, gold_in.sentence_id if gold_in else None}
    usable = [e for e in same if e.sentence_id not in excluded and e.trigger not in triggers]  # one scan
    rng.shuffle(usable)
    chosen: list[GoldEntry] = []
    for strict in (True, False):
        for e in usable:
            if len(chosen) == 3:
                break
            if (not strict or e.lu not in lus) and all(c.sentence_id != e.sentence_id and c.trigger != e.trigger
                                                       for c in chosen):
                chosen.append(e)
        if len(chosen) >= 2:
            break
    definition = (definitions or {}).get(structure.label, "") if structure.kind == "frame" else ""
    task = {
        "output_id": output.id, "rank": _rank(seed, output.id), "kind": structure.kind, "label": structure.label,
        "definition": definition,
        "question": QUESTIONS.get(structure.kind, QUESTIONS["frame"]).format(label=structure.label),
        "examples": [{"html": e.html, "ref": e.item_id} for e in chosen],
        "items": items,
    }
    return task, stats


def prepare_tasks(store: RunStore, pool: GoldPool, *, seed: int = 0, definitions: dict[str, str] | None = None,
                  filter: str | None = None, sample: int | None = None) -> PrepareResult:
    """Write a task for every output (that ``filter`` kept; a seeded ``sample`` of them) without one.

    Idempotent: outputs that already have a task keep it (answers stay attached to what was shown).
    """

    def build(record: Any, result: PrepareResult) -> dict[str, Any] | None:
        built = build_task(record.sentence, record.input_id, pool, seed=seed, definitions=definitions)
        if built is None:
            result.skipped += 1
            return None
        task, stats = built
        result.no_in_frame += stats.no_in_frame
        result.same_lu += stats.same_lu
        result.no_out_frame += stats.no_out_frame
        return task

    return write_tasks(store, TRIGGER, filter=filter, sample=sample, seed=seed, build=build)
