"""Review tasks, their assignment to annotators, and the responses, kept in the run store.

The protocol is that of Culkin et al. 2021 §6.1. A *task* shows the definition of the expected
frame (the source's frame: paraphrasing is meant to keep it) and two or three gold example
sentences, then three *candidates* in random order, each with its highlighted trigger and a 0–100
rating of how well the trigger evokes the frame in context:

1. the system output (frame *a*, its lexical unit *b*),
2. a gold in-frame sentence (frame *a*, another LU),
3. a gold out-of-frame sentence (another frame; the output's own trigger word in another frame
   when the gold sentences have one, so that the control is not trivially easy).

The annotator never sees the source sentence (it is neither a control nor an example), nor which
candidate is which: the page gets opaque slots ``c0..c2``. Example triggers are kept disjoint from
the candidates' triggers (the paper's footnote 19). For SRL and entity runs the same protocol
asks whether the highlighted span has the structure's label (predicate sense, entity type).

Tables (created on the store's own SQLite file, next to the store's tables, ``review_`` prefix):

``review_tasks(id, output_id UNIQUE, rank, kind, label, definition, question, examples, items, created)``
    one per judged output; ``items`` (JSON) holds the candidates in display order with what the
    page must not see (which is the output, the gold sentence ids); ``rank`` is a seeded random
    order so that annotators sample the whole run, not its first inputs.
``review_assignments(task_id, annotator, assigned)``
    who was given which task, when.
``review_responses(task_id, annotator, item_id, kind, score, time, seconds, judgment_id)``
    one rating per candidate; the primary key (task, annotator, item) makes a double submission
    impossible. A rating of the system output is also written to the store's ``judgments`` table
    (``judgment_id``), which is what ``paraspan train-filter`` learns from.

Assignment: an annotator gets back their unfinished task if they have one; otherwise the task
with the fewest (finished + currently assigned) annotators, never one they already had, and
never one that has ``redundancy`` ratings. So concurrent annotators get different tasks until
every task has been handed out, and only then start a second round.

**Output mode** (``paraspan review --mode output``) judges each output as an annotator would judge
the whole of it: grammatical English, the source's meaning kept, every span and label right. A
task shows the source sentence and the output, each with every span of the structure highlighted
and labelled, and takes one 0–100 score (≥ 50: fully correct) with an optional note that says
what was wrong first, ``KIND: free text`` (KIND one of :data:`NOTE_KINDS`). There are no gold
controls. Its tasks live in tables of their own (``review_output_tasks`` with a ``view`` column
instead of ``examples``, ``review_output_assignments``, ``review_output_responses``), so both modes
can run on one store without mixing their tasks, progress or assignments.

Judgments of outputs carry a JSON note ``{"review_task", "seconds"}``, with ``"mode": "output"``
in output mode and ``"note"``: the annotator's note, when they gave one.
"""

from __future__ import annotations

import hashlib
import html
import json
import random
import re
import sqlite3
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from paraspan.corpus.schema import Sentence, Structure
from paraspan.errors import ParaspanError, format_code
from paraspan.pipeline.store import RunStore
from paraspan.report.highlight import ANCHOR_COLOUR, MarkedSpan, Palette, highlight_html, structure_spans

SYSTEM, GOLD_IN, GOLD_OUT = "system", "gold-in", "gold-out"
SLOTS = ("c0", "c1", "c2")
MAX_NAME = 64
MAX_NOTE = 300  # characters of an annotator's note
#: What was wrong first (output mode notes are ``KIND: free text``); ``correct`` when nothing was.
NOTE_KINDS = ("frame", "meaning", "span", "grammar", "correct")
_NOTE = re.compile(r"\s*(" + "|".join(NOTE_KINDS) + r")\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)

# The same three tables per mode; {shown} is the column with what the page shows besides the candidates.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS {tasks} (
    id INTEGER PRIMARY KEY, output_id TEXT NOT NULL UNIQUE, rank INTEGER NOT NULL, kind TEXT NOT NULL,
    label TEXT NOT NULL, definition TEXT, question TEXT NOT NULL, {shown} TEXT NOT NULL, items TEXT NOT NULL,
    created TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS {tasks}_rank ON {tasks}(rank);
CREATE TABLE IF NOT EXISTS {assignments} (
    task_id INTEGER NOT NULL, annotator TEXT NOT NULL, assigned REAL NOT NULL, PRIMARY KEY (task_id, annotator));
CREATE TABLE IF NOT EXISTS {responses} (
    task_id INTEGER NOT NULL, annotator TEXT NOT NULL, item_id TEXT NOT NULL, kind TEXT NOT NULL,
    score REAL NOT NULL CHECK (score >= 0 AND score <= 100), time TEXT NOT NULL, seconds REAL,
    judgment_id INTEGER, PRIMARY KEY (task_id, annotator, item_id));
CREATE INDEX IF NOT EXISTS {responses}_annotator ON {responses}(annotator);
"""


@dataclass(frozen=True)
class Mode:
    """A review mode and the tables that hold its tasks, assignments and responses."""

    name: str
    tasks: str
    assignments: str
    responses: str
    shown: str  # the task column with what the page shows besides the candidates (JSON)


TRIGGER = Mode("trigger", "review_tasks", "review_assignments", "review_responses", "examples")
OUTPUT = Mode("output", "review_output_tasks", "review_output_assignments", "review_output_responses", "view")
MODES = {m.name: m for m in (TRIGGER, OUTPUT)}

QUESTIONS = {
    "frame": "How well does the highlighted phrase evoke the frame {label} in its sentence?",
    "srl": "How well does the highlighted word express the predicate sense {label} in its sentence?",
    "entity": "How well is the highlighted phrase a mention of a {label} entity in its sentence?",
    "event": "How well does the highlighted phrase trigger an event of type {label} in its sentence?",
}


class ReviewError(ParaspanError):
    """A review request that cannot be served; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, hint: str = "", status: int = 400, code: str = "E760") -> None:
        super().__init__(message, hint, code=code)
        self.status = status
        self.message = message

    @classmethod
    def from_code(cls, code: str, *, status: int = 400, **fields: Any) -> ReviewError:  # type: ignore[override]
        """The catalogue's ``code`` answered with HTTP ``status``."""
        message, hint = format_code(code, **fields)
        return cls(message, hint, status=status, code=code)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def mode_of(name: str) -> Mode:
    """The review mode called ``name`` (``trigger`` or ``output``)."""
    if name not in MODES:
        raise ReviewError.from_code("E759", mode=name, choices=", ".join(MODES))
    return MODES[name]


def ensure_tables(conn: sqlite3.Connection) -> None:
    for mode in MODES.values():
        schema = _SCHEMA.format(tasks=mode.tasks, assignments=mode.assignments, responses=mode.responses,
                                shown=mode.shown)
        for statement in schema.strip().split(";"):
            if statement.strip():
                conn.execute(statement)


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


def _rank(seed: int, key: str) -> int:
    return int(hashlib.sha256(f"{seed}|{key}".encode()).hexdigest()[:12], 16)


@dataclass
class PrepareResult:
    tasks: int = 0  # new tasks written
    existing: int = 0  # outputs that already had a task
    skipped: int = 0  # outputs without an anchor to highlight
    no_in_frame: int = 0  # tasks without a gold in-frame control
    same_lu: int = 0  # tasks whose in-frame control has the output's LU (no other LU in the pool)
    no_out_frame: int = 0


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
    conn = store.conn
    ensure_tables(conn)
    existing = {r[0] for r in conn.execute("SELECT output_id FROM review_tasks")}
    records = _chosen(store, filter, sample, seed)
    result = PrepareResult()
    rows = []
    for record in records:
        if record.id in existing:
            result.existing += 1
            continue
        built = build_task(record.sentence, record.input_id, pool, seed=seed, definitions=definitions)
        if built is None:
            result.skipped += 1
            continue
        task, stats = built
        result.tasks += 1
        result.no_in_frame += stats.no_in_frame
        result.same_lu += stats.same_lu
        result.no_out_frame += stats.no_out_frame
        rows.append((task["output_id"], task["rank"], task["kind"], task["label"], task["definition"],
                     task["question"], json.dumps(task["examples"], ensure_ascii=False),
                     json.dumps(task["items"], ensure_ascii=False), _now()))
    _insert(conn, TRIGGER, rows)
    return result


def _chosen(store: RunStore, filter: str | None, sample: int | None, seed: int) -> list[Any]:
    """The outputs ``filter`` kept (all without one), or a seeded ``sample`` of them."""
    records = list(store.iter_outputs(filter))
    if sample is not None and sample < len(records):
        records = sorted(records, key=lambda r: _rank(seed, r.id))[:sample]
    return records


def _insert(conn: sqlite3.Connection, mode: Mode, rows: list[tuple[Any, ...]]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(f"INSERT OR IGNORE INTO {mode.tasks} (output_id, rank, kind, label, definition, question, "
                     f"{mode.shown}, items, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.execute("COMMIT")


# ---------------------------------------------------------------------------------------- output mode

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
    conn = store.conn
    ensure_tables(conn)
    existing = {r[0] for r in conn.execute(f"SELECT output_id FROM {OUTPUT.tasks}")}
    result = PrepareResult()
    rows = []
    source: tuple[str, Sentence | None] = ("", None)  # outputs come in input order: one source at a time
    for record in _chosen(store, filter, sample, seed):
        if record.id in existing:
            result.existing += 1
            continue
        if source[0] != record.input_id:
            source = (record.input_id, store.source(record.input_id))
        task = build_output_task(record.sentence, source[1], structure=record.structure, seed=seed,
                                 definitions=definitions)
        result.tasks += 1
        rows.append((task["output_id"], task["rank"], task["kind"], task["label"], task["definition"],
                     task["question"], json.dumps(task["view"], ensure_ascii=False),
                     json.dumps(task["items"], ensure_ascii=False), _now()))
    _insert(conn, OUTPUT, rows)
    return result


# ---------------------------------------------------------------------------------------- serving


def check_annotator(name: str) -> str:
    name = (name or "").strip()
    if not name or len(name) > MAX_NAME or any(ord(c) < 32 for c in name):
        raise ReviewError.from_code("E761", status=422, max_name=MAX_NAME)
    return name


def check_note(slot: str, note: Any, mode: Mode) -> str:
    """``note`` stripped; in output mode its kind lowercased (``Meaning: x`` → ``meaning: x``).

    Raises :class:`ReviewError` (422) for a note that is not text, is longer than
    :data:`MAX_NOTE`, or (output mode) does not start with ``KIND:``.
    """
    if not isinstance(note, str):
        raise ReviewError.from_code("E769", status=422, slot=slot, problem=f"must be text, not {note!r}",
                                    fix="send the note as a string")
    note = note.strip()
    if len(note) > MAX_NOTE:
        raise ReviewError.from_code("E769", status=422, slot=slot,
                                    problem=f"has {len(note)} characters, more than {MAX_NOTE}",
                                    fix="say briefly what was wrong first")
    if note and mode is OUTPUT:
        match = _NOTE.fullmatch(note)
        if match is None:
            raise ReviewError.from_code("E769", status=422, slot=slot, problem=f"does not start with a kind: {note!r}",
                                        fix="write KIND: free text, KIND one of " + ", ".join(NOTE_KINDS))
        note = f"{match.group(1).lower()}: {match.group(2).strip()}".rstrip()
    return note


@dataclass(frozen=True)
class ReviewSettings:
    redundancy: int = 3  # annotators per task (the paper: 3)
    lease: float = 1800.0  # seconds a handed-out task stays reserved for its annotator
    mode: str = TRIGGER.name  # which tasks are handed out: "trigger" or "output"

    def __post_init__(self) -> None:
        mode_of(self.mode)

    @property
    def tables(self) -> Mode:
        return MODES[self.mode]


def _public(row: sqlite3.Row | tuple, progress: dict[str, Any]) -> dict[str, Any]:
    """What the page may see of a task: no output id, no item kinds, no gold ids."""
    task_id, kind, label, definition, question, examples, items = row
    return {
        "task": task_id, "mode": TRIGGER.name, "kind": kind, "label": label, "definition": definition,
        "question": question,
        "examples": [e["html"] for e in json.loads(examples)],
        "candidates": [{"slot": i["slot"], "text": i["text"], "start": i["start"], "end": i["end"],
                        "html": html.escape(i["text"][:i["start"]]) + "<mark class=\"anchor\">"
                        + html.escape(i["text"][i["start"]:i["end"]]) + "</mark>" + html.escape(i["text"][i["end"]:])}
                       for i in json.loads(items)],
        "progress": progress,
    }


def _public_output(row: sqlite3.Row | tuple, progress: dict[str, Any]) -> dict[str, Any]:
    """What the page sees of an output-mode task: source and output with their spans, no ids."""
    task_id, kind, label, definition, question, view, items = row
    shown = json.loads(view)
    return {
        "task": task_id, "mode": OUTPUT.name, "kind": kind, "label": label, "definition": definition,
        "question": question, "source": shown["source"], "output": shown["output"], "missing": shown["missing"],
        "candidates": [{"slot": i["slot"]} for i in json.loads(items)],
        "note_kinds": list(NOTE_KINDS), "max_note": MAX_NOTE,
        "progress": progress,
    }


def progress(conn: sqlite3.Connection, annotator: str | None, settings: ReviewSettings) -> dict[str, Any]:
    m = settings.tables
    total = int(conn.execute(f"SELECT COUNT(*) FROM {m.tasks}").fetchone()[0])
    per_task = dict(conn.execute(f"SELECT task_id, COUNT(DISTINCT annotator) FROM {m.responses} GROUP BY task_id"))
    out: dict[str, Any] = {
        "tasks": total,
        "tasks_started": len(per_task),
        "tasks_complete": sum(1 for n in per_task.values() if n >= settings.redundancy),
        "redundancy": settings.redundancy,
        "ratings": sum(per_task.values()),
        "target": total * settings.redundancy,
        "annotators": int(conn.execute(f"SELECT COUNT(DISTINCT annotator) FROM {m.responses}").fetchone()[0]),
    }
    if annotator:
        mine = int(conn.execute(f"SELECT COUNT(DISTINCT task_id) FROM {m.responses} WHERE annotator = ?",
                                (annotator,)).fetchone()[0])
        held = int(conn.execute(f"SELECT COUNT(*) FROM {m.assignments} WHERE annotator = ?",
                                (annotator,)).fetchone()[0])
        open_for_me = int(conn.execute(
            f"SELECT COUNT(*) FROM {m.tasks} t WHERE NOT EXISTS (SELECT 1 FROM {m.assignments} a "
            f"WHERE a.task_id = t.id AND a.annotator = ?) AND (SELECT COUNT(DISTINCT r.annotator) FROM "
            f"{m.responses} r WHERE r.task_id = t.id) < ?", (annotator, settings.redundancy)).fetchone()[0])
        out["done_by_you"] = mine
        out["left_for_you"] = open_for_me + (held - mine)
    return out


def next_task(conn: sqlite3.Connection, annotator: str, settings: ReviewSettings) -> dict[str, Any] | None:
    """The task to show ``annotator`` now (reserving it), or None when nothing is left for them."""
    annotator = check_annotator(annotator)
    ensure_tables(conn)
    m = settings.tables
    columns = f"id, kind, label, definition, question, {m.shown}, items"
    now = time.time()
    conn.execute("BEGIN IMMEDIATE")  # one assigner at a time: two annotators never race for one task
    try:
        row = conn.execute(
            f"SELECT {columns} FROM {m.tasks} WHERE id = (SELECT a.task_id FROM {m.assignments} a "
            f"WHERE a.annotator = ? AND NOT EXISTS (SELECT 1 FROM {m.responses} r WHERE r.task_id = a.task_id "
            "AND r.annotator = a.annotator) ORDER BY a.assigned LIMIT 1)", (annotator,)).fetchone()
        if row is not None:  # their unfinished task (a reload, a second tab): the same one
            conn.execute(f"UPDATE {m.assignments} SET assigned = ? WHERE task_id = ? AND annotator = ?",
                         (now, row[0], annotator))
        else:
            row = conn.execute(
                f"""SELECT {columns} FROM (
                      SELECT t.*,
                        (SELECT COUNT(DISTINCT r.annotator) FROM {m.responses} r WHERE r.task_id = t.id) AS done,
                        (SELECT COUNT(*) FROM {m.assignments} a WHERE a.task_id = t.id AND a.assigned > ?
                           AND NOT EXISTS (SELECT 1 FROM {m.responses} r WHERE r.task_id = a.task_id
                                           AND r.annotator = a.annotator)) AS active
                      FROM {m.tasks} t
                      WHERE NOT EXISTS (SELECT 1 FROM {m.assignments} a WHERE a.task_id = t.id
                                        AND a.annotator = ?))
                    WHERE done < ? ORDER BY done + active, active, rank, id LIMIT 1""",
                (now - settings.lease, annotator, settings.redundancy)).fetchone()
            if row is not None:
                conn.execute(f"INSERT INTO {m.assignments} VALUES (?, ?, ?)", (row[0], annotator, now))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if row is None:
        return None
    public = _public_output if m is OUTPUT else _public
    return public(row, progress(conn, annotator, settings))


def submit(store: RunStore, annotator: str, task_id: int, scores: dict[str, float],
           settings: ReviewSettings, notes: dict[str, str] | None = None) -> dict[str, Any]:
    """Record one annotator's ratings of one task's candidates, atomically; returns their progress.

    ``notes`` (optional, per candidate) say why; the system output's note goes into its judgment's
    JSON note (``"note"``), a control's is not kept. In output mode a note is ``KIND: free text``.

    Raises :class:`ReviewError` (with an HTTP status) for an unknown task (404) or candidate (404),
    a missing candidate, a score outside 0–100 or a bad note (422), a task not handed to this
    annotator (409) and a second submission (409). Nothing is written unless everything is valid.
    """
    annotator = check_annotator(annotator)
    conn = store.conn
    ensure_tables(conn)
    m = settings.tables
    for slot, score in scores.items():
        if not isinstance(score, (int, float)) or isinstance(score, bool) or not 0 <= float(score) <= 100:
            raise ReviewError.from_code("E762", status=422, slot=slot, score=score)
    checked = {slot: check_note(slot, note, m) for slot, note in (notes or {}).items()}
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute(f"SELECT output_id, items FROM {m.tasks} WHERE id = ?", (task_id,)).fetchone()
        if row is None:
            raise ReviewError.from_code("E763", status=404, task_id=task_id)
        items = {i["slot"]: i for i in json.loads(row[1])}
        unknown = sorted((set(scores) | set(checked)) - set(items))
        if unknown:
            raise ReviewError.from_code("E764", status=404, task_id=task_id, choices=", ".join(unknown),
                                        choices2=", ".join(sorted(items)))
        missing = sorted(set(items) - set(scores))
        if missing:
            raise ReviewError.from_code("E765", status=422, choices=", ".join(missing), task_id=task_id)
        assigned = conn.execute(f"SELECT assigned FROM {m.assignments} WHERE task_id = ? AND annotator = ?",
                                (task_id, annotator)).fetchone()
        if assigned is None:
            raise ReviewError.from_code("E766", status=409, task_id=task_id, annotator=annotator)
        if conn.execute(f"SELECT 1 FROM {m.responses} WHERE task_id = ? AND annotator = ? LIMIT 1",
                        (task_id, annotator)).fetchone():
            raise ReviewError.from_code("E767", status=409, annotator=annotator, task_id=task_id)
        seconds = round(time.time() - float(assigned[0]), 1)
        stamp = _now()
        for slot, item in items.items():
            score = float(scores[slot])
            judgment_id = None
            if item["kind"] == SYSTEM:
                note: dict[str, Any] = {"review_task": task_id, "seconds": seconds}
                if m is not TRIGGER:
                    note["mode"] = m.name
                if checked.get(slot):
                    note["note"] = checked[slot]
                judgment_id = store.add_judgment(item["ref"], score, annotator,
                                                 note=json.dumps(note, ensure_ascii=False))
            conn.execute(f"INSERT INTO {m.responses} VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (task_id, annotator, item["ref"], item["kind"], score, stamp, seconds, judgment_id))
        conn.execute("COMMIT")
    except sqlite3.IntegrityError:  # a concurrent double submission that passed the check above
        conn.execute("ROLLBACK")
        raise ReviewError.from_code("E767", status=409, annotator=annotator, task_id=task_id) from None
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return progress(conn, annotator, settings)
