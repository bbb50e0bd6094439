"""The FrameNet frame index: frames, their frame elements and lexical units, frame relations.

Loaded from ``frame/*.xml`` and ``frRelation.xml`` of a release folder or ``.tar.gz``
(:meth:`FrameIndex.load`). From an archive the pass stops as soon as every frame listed in
``frameIndex.xml`` and ``frRelation.xml`` have been read, so the 500 MB of ``lu/`` that
follows them in the official tarball is never decompressed.

Used for sister lexical units (substituting a target by another LU of its frame) and for FE
ancestry through Inheritance (mapping FEs of a child frame onto those of its parents).
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from lxml import etree

from paraspan.corpus.framenet import Release, namespace_of, parse_xml
from paraspan.errors import CorpusError

__all__ = ["FERelation", "Frame", "FrameElement", "FrameIndex", "FrameRelation", "LexUnit", "plain_definition"]

#: Core types counted as core by :meth:`FrameIndex.core_fes`.
CORE_TYPES = frozenset({"Core", "Core-Unexpressed"})

_TAG = re.compile(r"<[^>]*>")
_BLOCK = re.compile(r"</?(?:ex|def-root)\b[^>]*>")
_SPACE = re.compile(r"\s+")
_EXAMPLE = re.compile(r"<ex\b[^>]*>.*?</ex>", re.DOTALL)


def plain_definition(raw: str | None, examples: bool = True) -> str:
    """A FrameNet definition without its markup (``<def-root>``, ``<fen>``, ``<ex>`` ...); with
    ``examples=False`` also without its example sentences (the ``<ex>`` blocks)."""
    if not raw:
        return ""
    if not examples:
        raw = _EXAMPLE.sub(" ", raw)
    text = _BLOCK.sub(" ", raw)  # examples start a new "sentence": keep them apart
    text = html.unescape(_TAG.sub("", text))
    return _SPACE.sub(" ", text).strip()


@dataclass(slots=True)
class FrameElement:
    name: str
    id: int
    core_type: str  # "Core", "Peripheral", "Extra-Thematic", "Core-Unexpressed"
    definition: str = ""
    abbrev: str = ""
    gloss: str = ""  # the definition without its example sentences

    @property
    def is_core(self) -> bool:
        return self.core_type in CORE_TYPES


@dataclass(slots=True)
class LexUnit:
    id: int
    name: str  # "sell.v"
    pos: str  # the POS attribute, e.g. "V", "N", "PREP"
    lemma: str  # the name without its ".pos" suffix: "go on" for "go on.v"
    frame: str
    status: str = ""
    cdate: str = ""  # as written in the XML: "10/25/2001 07:44:04 PDT Thu"
    annotated: int | None = None  # sentenceCount/@annotated
    total: int | None = None  # sentenceCount/@total
    definition: str = ""


@dataclass(slots=True)
class Frame:
    id: int
    name: str
    definition: str = ""
    cdate: str = ""
    fes: dict[str, FrameElement] = field(default_factory=dict)
    gloss: str = ""  # the definition without its example sentences
    lus: dict[str, LexUnit] = field(default_factory=dict)


class FrameRelation(NamedTuple):
    type: str  # "Inheritance", "Using", "Subframe", "Perspective_on", ...
    super_frame: str
    sub_frame: str


class FERelation(NamedTuple):
    type: str
    super_frame: str
    super_fe: str
    sub_frame: str
    sub_fe: str


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


@dataclass
class FrameIndex:
    """Frames by name, with relations between frames and between their FEs."""

    frames: dict[str, Frame] = field(default_factory=dict)
    relations: list[FrameRelation] = field(default_factory=list)
    fe_relations: list[FERelation] = field(default_factory=list)
    _by_id: dict[int, Frame] = field(default_factory=dict, repr=False)
    _lu_frames: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _lu_by_id: dict[int, LexUnit] = field(default_factory=dict, repr=False)
    _fe_parents: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ loading

    @classmethod
    def load(cls, path: str | Path) -> FrameIndex:
        """Read ``frame/*.xml`` and ``frRelation.xml`` from a release folder or archive."""
        release = Release.open(path)
        if not release.exists("frame"):
            raise CorpusError.from_code("E210", file=str(release.location),
                                        problem="the release has no frame/ folder",
                                        fix="give a FrameNet release folder or .tar.gz")
        index = cls()
        expected: set[str] | None = None
        seen: set[str] = set()
        have_relations = False

        def done() -> bool:
            return expected is not None and have_relations and expected <= seen

        for rel, data in release.members(folders=("frame",), files=("frameIndex.xml", "frRelation.xml"),
                                         done=done):
            root = parse_xml(data, release.display(rel))
            if rel == "frameIndex.xml":
                ns = namespace_of(root)
                expected = {f"frame/{el.get('name')}.xml" for el in root.iterchildren(f"{ns}frame")}
            elif rel == "frRelation.xml":
                index._add_relations(root)
                have_relations = True
            else:
                index._add_frame(root)
                seen.add(rel)
        if not index.frames:
            raise CorpusError.from_code("E210", file=str(release.location), problem="no frames found (frame/*.xml)",
                                        fix="give a FrameNet release folder or .tar.gz")
        index._build()
        return index

    def _add_frame(self, root: etree._Element) -> None:
        ns = namespace_of(root)
        name = root.get("name") or ""
        raw = root.findtext(f"{ns}definition")
        frame = Frame(_int(root.get("ID")) or 0, name, plain_definition(raw), root.get("cDate") or "",
                      gloss=plain_definition(raw, examples=False))
        for el in root.iterchildren(f"{ns}FE"):
            raw = el.findtext(f"{ns}definition")
            fe = FrameElement(el.get("name") or "", _int(el.get("ID")) or 0, el.get("coreType") or "",
                              plain_definition(raw), el.get("abbrev") or "", plain_definition(raw, examples=False))
            frame.fes[fe.name] = fe
        for el in root.iterchildren(f"{ns}lexUnit"):
            lu_name = el.get("name") or ""
            count = el.find(f"{ns}sentenceCount")
            frame.lus[lu_name] = LexUnit(
                id=_int(el.get("ID")) or 0, name=lu_name, pos=el.get("POS") or "",
                lemma=lu_name.rsplit(".", 1)[0], frame=name, status=el.get("status") or "",
                cdate=el.get("cDate") or "",
                annotated=_int(count.get("annotated")) if count is not None else None,
                total=_int(count.get("total")) if count is not None else None,
                definition=plain_definition(el.findtext(f"{ns}definition")),
            )
        self.frames[name] = frame

    def _add_relations(self, root: etree._Element) -> None:
        ns = namespace_of(root)
        for rtype in root.iterchildren(f"{ns}frameRelationType"):
            type_name = rtype.get("name") or ""
            for rel in rtype.iterchildren(f"{ns}frameRelation"):
                sup, sub = rel.get("superFrameName") or "", rel.get("subFrameName") or ""
                self.relations.append(FrameRelation(type_name, sup, sub))
                for fer in rel.iterchildren(f"{ns}FERelation"):
                    self.fe_relations.append(FERelation(type_name, sup, fer.get("superFEName") or "", sub,
                                                        fer.get("subFEName") or ""))

    def _build(self) -> None:
        lu_frames: dict[str, list[str]] = defaultdict(list)
        for frame in self.frames.values():
            self._by_id[frame.id] = frame
            for lu in frame.lus.values():
                lu_frames[lu.name].append(frame.name)
                self._lu_by_id[lu.id] = lu
        self._lu_frames = dict(lu_frames)
        parents: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
        for r in self.fe_relations:
            if r.type == "Inheritance":
                parents[(r.sub_frame, r.sub_fe)].append((r.super_frame, r.super_fe))
        self._fe_parents = dict(parents)

    # ------------------------------------------------------------------ queries

    def __len__(self) -> int:
        return len(self.frames)

    def __contains__(self, frame: object) -> bool:
        return frame in self.frames

    def __iter__(self) -> Iterator[Frame]:
        return iter(self.frames.values())

    def by_id(self, frame_id: int | str) -> Frame | None:
        """The frame with this id, or None (FN 1.5 full text names frame 398, which has no file)."""
        key = _int(str(frame_id))
        return self._by_id.get(key) if key is not None else None

    def lu_by_id(self, lu_id: int | str) -> LexUnit | None:
        key = _int(str(lu_id))
        return self._lu_by_id.get(key) if key is not None else None

    def frames_of_lu(self, lu_name: str) -> list[str]:
        """The frames that list an LU of this name (``"give.v"`` evokes several)."""
        return list(self._lu_frames.get(lu_name, ()))

    def sister_lus(self, lu_name: str, frame: str | None = None, pos: str | None = None) -> list[LexUnit]:
        """The other LUs of the frame(s) of ``lu_name``, sorted by name.

        ``frame`` restricts to one frame (and works even when ``lu_name`` is not listed there);
        ``pos`` keeps sisters of that part of speech (``"v"`` or ``"V"``). An unknown LU or frame
        gives ``[]``.
        """
        frames = [frame] if frame is not None else self.frames_of_lu(lu_name)
        wanted = pos.upper() if pos is not None else None
        found: dict[tuple[str, str], LexUnit] = {}
        for name in frames:
            entry = self.frames.get(name)
            if entry is None:
                continue
            for lu in entry.lus.values():
                if lu.name == lu_name:
                    continue
                if wanted is not None and lu.pos.upper() != wanted and lu.name.rsplit(".", 1)[-1].upper() != wanted:
                    continue
                found[(lu.name, lu.frame)] = lu
        return sorted(found.values(), key=lambda lu: (lu.name, lu.frame))

    def fe_ancestors(self, frame: str, fe: str) -> list[tuple[str, str]]:
        """``(frame, FE)`` pairs that ``fe`` inherits from, nearest first (transitive, no cycles)."""
        out: list[tuple[str, str]] = []
        seen = {(frame, fe)}
        queue = [(frame, fe)]
        while queue:
            nxt: list[tuple[str, str]] = []
            for node in queue:
                for parent in self._fe_parents.get(node, ()):
                    if parent not in seen:
                        seen.add(parent)
                        out.append(parent)
                        nxt.append(parent)
            queue = nxt
        return out

    def core_fes(self, frame: str) -> list[FrameElement]:
        """The FEs of ``frame`` that are Core or Core-Unexpressed, in file order; KeyError if unknown."""
        return [fe for fe in self.frames[frame].fes.values() if fe.is_core]

    def parents(self, frame: str, relation: str = "Inheritance") -> list[str]:
        """The super frames of ``frame`` by one relation type."""
        return [r.super_frame for r in self.relations if r.type == relation and r.sub_frame == frame]
