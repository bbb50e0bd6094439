"""FrameNet's phrase types (the PT layer of full-text annotation sets), read from a release.

The corpus reader (:mod:`paraspan.corpus.framenet`) keeps frame-element spans but not their
phrase types; the infill generator needs them to tell prepositional phrases (§3.1 of Cui &
Swayamdipta 2024), so :func:`read_phrase_types` reads them from the same release and
:func:`attach_phrase_types` puts them on the spans (``extra["pt"]``) of converted sentences.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from paraspan.corpus.framenet import Release, namespace_of, parse_xml
from paraspan.corpus.schema import Sentence


def read_phrase_types(release: str | Path) -> dict[int, dict[tuple[int, int], str]]:
    """FrameNet's phrase types (the PT layer) of every full-text annotation set: id → {(start, end): PT}.

    The corpus reader keeps FE spans but not their PT layer; this reads it from the same release so
    that :func:`attach_phrase_types` can put it on the spans of sentences converted from it.
    """
    found = Release.open(release)
    table: dict[int, dict[tuple[int, int], str]] = {}
    for rel, data in found.members(folders=("fulltext",)):
        root = parse_xml(data, found.display(rel))
        ns = namespace_of(root)
        for aset in root.iter(f"{ns}annotationSet"):
            set_id = aset.get("ID")
            if aset.get("frameName") is None or set_id is None or not set_id.isdigit():
                continue
            for layer in aset.iterchildren(f"{ns}layer"):
                if layer.get("name") != "PT" or layer.get("rank", "1") != "1":
                    continue
                labels = {}
                for label in layer.iterchildren(f"{ns}label"):
                    start, end, name = label.get("start"), label.get("end"), label.get("name")
                    if start and end and name and start.isdigit() and end.isdigit():
                        labels[(int(start), int(end) + 1)] = name  # FrameNet ends are inclusive
                if labels:
                    table[int(set_id)] = labels
    return table


def attach_phrase_types(sentences: Iterable[Sentence], table: dict[int, dict[tuple[int, int], str]]) -> int:
    """Set ``extra["pt"]`` on FE spans whose annotation set (``extra["annoset_id"]``) has a PT label there."""
    count = 0
    for sentence in sentences:
        for structure in sentence.structures:
            labels = table.get(structure.extra.get("annoset_id"))  # type: ignore[arg-type]
            if not labels:
                continue
            for arg in structure.args:
                pt = labels.get((arg.start, arg.end))
                if pt is not None:
                    arg.extra["pt"] = pt
                    count += 1
    return count
