"""The corpus model: one schema for FrameNet frames, PropBank-style SRL and named entities.

One sentence is one JSON object (one line of a JSONL file)::

    {"id": str, "text": str,
     "structures": [{"kind": "frame" | "srl" | "entity" | "event",
                     "label": str,
                     "anchor": {"start": int, "end": int, "label": str | null} | null,
                     "args": [{"start": int, "end": int, "label": str}]}],
     "meta": {...}}

Offsets are character offsets into ``text``; ``end`` is exclusive. Augmented sentences add
``"source_id"`` and ``"provenance"``. Unknown keys are kept, and so is the key order of the
input, so that a valid file round-trips byte-for-byte through :func:`Sentence.from_dict` and
:func:`Sentence.to_dict`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from paraspan.errors import Problem, ProblemList

#: Structure kinds the schema knows. ``frame``: FrameNet frame (anchor = target/LU,
#: args = frame elements); ``srl``: PropBank predicate (anchor = predicate, label = roleset);
#: ``entity``: a named entity (anchor = the mention, label = type, no args); ``event``:
#: an event trigger with arguments (ACE-style).
KINDS: frozenset[str] = frozenset({"frame", "srl", "entity", "event"})

_SENTENCE_KEYS = ("id", "text", "structures", "meta", "source_id", "provenance")
_STRUCTURE_KEYS = ("kind", "label", "anchor", "args")
_SPAN_KEYS = ("start", "end", "label")


def _order(canonical: tuple[str, ...], original: tuple[str, ...] | None, values: dict[str, Any],
           extra: dict[str, Any]) -> dict[str, Any]:
    """Lay out ``values`` and the input's unknown keys ``extra`` (they win a clash) in the input's key order,
    new keys after in canonical order."""
    values.update(extra)
    out: dict[str, Any] = {}
    if original:
        for key in original:
            if key in values:
                out[key] = values[key]
    for key in canonical:
        if key in values and key not in out:
            out[key] = values[key]
    for key in values:
        if key not in out:
            out[key] = values[key]
    return out


@dataclass(slots=True)
class Span:
    """A labelled character span ``text[start:end]``."""

    start: int
    end: int
    label: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    key_order: tuple[str, ...] | None = field(default=None, repr=False, compare=False)

    def text_in(self, text: str) -> str:
        return text[self.start : self.end]

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def to_dict(self, *, with_label: bool = True) -> dict[str, Any]:
        values: dict[str, Any] = {"start": self.start, "end": self.end}
        if with_label or self.label is not None or (self.key_order and "label" in self.key_order):
            values["label"] = self.label
        return _order(_SPAN_KEYS, self.key_order, values, self.extra)


@dataclass(slots=True)
class Structure:
    """A frame, a predicate with its arguments, or an entity."""

    kind: str
    label: str
    anchor: Span | None = None
    args: list[Span] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    key_order: tuple[str, ...] | None = field(default=None, repr=False, compare=False)

    def spans(self) -> list[Span]:
        """The anchor (if any) followed by the arguments."""
        return ([self.anchor] if self.anchor is not None else []) + list(self.args)

    def to_dict(self) -> dict[str, Any]:
        values: dict[str, Any] = {
            "kind": self.kind,
            "label": self.label,
            "anchor": self.anchor.to_dict() if self.anchor is not None else None,
            "args": [a.to_dict() for a in self.args],
        }
        return _order(_STRUCTURE_KEYS, self.key_order, values, self.extra)


@dataclass(slots=True)
class Sentence:
    """One sentence with its structures; augmented sentences also carry provenance."""

    id: str
    text: str
    structures: list[Structure] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    source_id: str | None = None
    provenance: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    key_order: tuple[str, ...] | None = field(default=None, repr=False, compare=False)

    @property
    def is_augmented(self) -> bool:
        return self.source_id is not None

    def to_dict(self) -> dict[str, Any]:
        values: dict[str, Any] = {
            "id": self.id,
            "text": self.text,
            "structures": [s.to_dict() for s in self.structures],
            "meta": self.meta,
        }
        if self.source_id is not None or (self.key_order and "source_id" in self.key_order):
            values["source_id"] = self.source_id
        if self.provenance is not None or (self.key_order and "provenance" in self.key_order):
            values["provenance"] = self.provenance
        return _order(_SENTENCE_KEYS, self.key_order, values, self.extra)

    @classmethod
    def from_dict(cls, data: Any, *, file: str | None = None, line: int | None = None) -> Sentence:
        """Build and validate a sentence; raise :class:`CorpusError` listing every problem."""
        problems = ProblemList()
        sentence = _parse_sentence(data, problems, file, line)
        if sentence is not None:
            validate(sentence, problems, file=file, line=line)
        problems.raise_if_any()
        assert sentence is not None
        return sentence

    def validate(self, *, file: str | None = None, line: int | None = None) -> None:
        problems = ProblemList()
        validate(self, problems, file=file, line=line)
        problems.raise_if_any()


# --------------------------------------------------------------------------- parsing


def _reporter(problems: ProblemList, file: str | None, line: int | None, **where: str) -> Callable[..., None]:
    """``bad(code, **fields)``: adds the catalogue's problem ``code`` at this place to ``problems``."""

    def bad(code: str, **fields: Any) -> None:
        problems.add(Problem.from_code(code, file, line, **where, **fields))

    return bad


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _parse_span(
    data: Any, where: str, problems: ProblemList, file: str | None, line: int | None, *, label_required: bool
) -> Span | None:
    bad = _reporter(problems, file, line, where=where)
    if not isinstance(data, dict):
        bad("E112", type_name=type(data).__name__)
        return None
    ok = True
    for key in ("start", "end"):
        if key not in data:
            bad("E113", key=key)
            ok = False
        elif not _is_int(data[key]):
            bad("E114", key=key, data=data[key])
            ok = False
    label = data.get("label")
    if label_required and (not isinstance(label, str) or not label.strip()):
        bad("E115", label=label)
        ok = False
    elif label is not None and not isinstance(label, str):
        bad("E116", label=label)
        ok = False
    if not ok:
        return None
    extra = {k: v for k, v in data.items() if k not in _SPAN_KEYS}
    return Span(data["start"], data["end"], label, extra, tuple(data))


def _parse_structure(
    data: Any, where: str, problems: ProblemList, file: str | None, line: int | None
) -> Structure | None:
    bad = _reporter(problems, file, line, where=where)
    if not isinstance(data, dict):
        bad("E120", type_name=type(data).__name__)
        return None
    kind = data.get("kind")
    if not isinstance(kind, str):
        bad("E121", kind=kind, choices=", ".join(sorted(KINDS)))
        return None
    if kind not in KINDS:
        bad("E122", kind=kind, choices=", ".join(sorted(KINDS)))
        return None
    label = data.get("label")
    if not isinstance(label, str) or not label.strip():
        bad("E123", label=label)
        return None
    anchor = None
    if data.get("anchor") is not None:
        anchor = _parse_span(data["anchor"], f"{where}.anchor", problems, file, line, label_required=False)
        if anchor is None:
            return None
    elif kind == "entity":
        bad("E124")
        return None
    raw_args = data.get("args", [])
    if not isinstance(raw_args, list):
        bad("E125", type_name=type(raw_args).__name__)
        return None
    args: list[Span] = []
    for i, raw in enumerate(raw_args):
        span = _parse_span(raw, f"{where}.args[{i}]", problems, file, line, label_required=True)
        if span is not None:
            args.append(span)
    if len(args) != len(raw_args):
        return None
    extra = {k: v for k, v in data.items() if k not in _STRUCTURE_KEYS}
    return Structure(kind, label, anchor, args, extra, tuple(data))


def _parse_sentence(data: Any, problems: ProblemList, file: str | None, line: int | None) -> Sentence | None:
    bad = _reporter(problems, file, line)
    if not isinstance(data, dict):
        bad("E101", type_name=type(data).__name__)
        return None
    ok = True
    sid = data.get("id")
    if not isinstance(sid, str) or not sid:
        bad("E102", sid=sid)
        ok = False
    text = data.get("text")
    if not isinstance(text, str):
        bad("E103", text=text)
        ok = False
    raw_structures = data.get("structures", [])
    if not isinstance(raw_structures, list):
        bad("E104", type_name=type(raw_structures).__name__)
        ok = False
        raw_structures = []
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        bad("E105", type_name=type(meta).__name__)
        ok = False
    source_id = data.get("source_id")
    if source_id is not None and not isinstance(source_id, str):
        bad("E106", source_id=source_id)
        ok = False
    provenance = data.get("provenance")
    if provenance is not None and not isinstance(provenance, dict):
        bad("E107", type_name=type(provenance).__name__)
        ok = False
    structures: list[Structure] = []
    for i, raw in enumerate(raw_structures):
        structure = _parse_structure(raw, f"structures[{i}]", problems, file, line)
        if structure is not None:
            structures.append(structure)
    if not ok or len(structures) != len(raw_structures):
        return None
    assert isinstance(sid, str) and isinstance(text, str)  # checked above; narrows the types
    extra = {k: v for k, v in data.items() if k not in _SENTENCE_KEYS}
    return Sentence(sid, text, structures, meta, source_id, provenance, extra, tuple(data))


# --------------------------------------------------------------------------- validation


def validate(
    sentence: Sentence, problems: ProblemList, *, file: str | None = None, line: int | None = None
) -> None:
    """Check offsets against the text: in range, non-empty, not blank."""
    n = len(sentence.text)
    for i, structure in enumerate(sentence.structures):
        if structure.kind not in KINDS:
            problems.add(Problem.from_code("E122", file, line, where=f"structures[{i}]", kind=structure.kind,
                                           choices=", ".join(sorted(KINDS))))
        named: list[tuple[str, Span]] = []
        if structure.anchor is not None:
            named.append((f"structures[{i}].anchor", structure.anchor))
        named += [(f"structures[{i}].args[{j}]", a) for j, a in enumerate(structure.args)]
        for where, span in named:
            _check_span(where, span, sentence.text, n, problems, file, line)


def _check_span(
    where: str, span: Span, text: str, n: int, problems: ProblemList, file: str | None, line: int | None
) -> None:
    if span.start < 0 or span.end > n:
        problems.add(Problem.from_code("E130", file, line, where=where, span_start=span.start, span_end=span.end, n=n))
    elif span.start >= span.end:
        problems.add(Problem.from_code("E131", file, line, where=where, span_start=span.start, span_end=span.end))
    elif not text[span.start : span.end].strip():
        problems.add(Problem.from_code("E132", file, line, where=where, span_start=span.start, span_end=span.end))


def check_unique_ids(sentences: Iterable[tuple[Sentence, str | None, int | None]]) -> ProblemList:
    """Report duplicate sentence ids (first occurrence wins)."""
    seen: dict[str, int | None] = {}
    problems = ProblemList()
    for sentence, file, line in sentences:
        if sentence.id in seen:
            problems.add(Problem.from_code("E108", file, line, id=sentence.id, first="first seen",
                                           first_line=seen[sentence.id]))
        else:
            seen[sentence.id] = line
    return problems
