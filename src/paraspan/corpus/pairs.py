"""Sentence-pair readers: JSONL, MRPC, STS-B, SICK and RTE → :class:`Pair`.

Each reader streams ``Pair(id, s1, s2, gold)``; ``gold`` holds the dataset's own labels under
fixed keys (``paraphrase`` 0/1, ``similarity`` 0-5, ``nli`` entailment/neutral/contradiction,
``nli2`` entailment/not_entailment, ``relatedness``), so evaluation code never parses formats.
A malformed line raises :class:`~paraspan.errors.CorpusError` with FILE:LINE.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paraspan.corpus.jsonl import iter_lines
from paraspan.errors import CorpusError, FormatError

PAIR_FORMATS = ("jsonl", "mrpc", "stsb", "sick", "rte")
NLI_LABELS = ("entailment", "neutral", "contradiction")


@dataclass(frozen=True)
class Pair:
    """Two sentences, and whatever gold labels the source file had for them."""

    id: str
    s1: str
    s2: str
    gold: dict[str, Any] = field(default_factory=dict)


def _lines(path: str | Path) -> Iterator[tuple[int, str]]:
    # Corpora downloaded from Windows tools often start with a BOM; it is not part of the text.
    for number, raw in iter_lines(path):
        yield number, (raw.lstrip("\ufeff") if number == 1 else raw)


def read_pairs_jsonl(path: str | Path) -> Iterator[Pair]:
    """``{"id": str, "s1": str, "s2": str, ...}`` per line; other keys go into ``gold``."""
    name = str(path)
    seen: dict[str, int] = {}
    for number, raw in _lines(path):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise CorpusError.from_code("E770", file=name, line=number,
                                        problem=f"malformed JSON: {exc.msg} (column {exc.colno})",
                                        fix='each line must be one JSON object {"id", "s1", "s2"}') from None
        if not isinstance(data, dict):
            raise CorpusError.from_code("E770", file=name, line=number,
                                        problem=f"expected a JSON object, got {type(data).__name__}",
                                        fix='write one {"id", "s1", "s2"} object per line')
        for key in ("s1", "s2"):
            if not isinstance(data.get(key), str):
                raise CorpusError.from_code("E771", file=name, line=number, key=key, get=data.get(key))
        pid = data.get("id", str(number))  # no id: the line number keeps outputs traceable
        if not isinstance(pid, str | int) or isinstance(pid, bool) or pid == "":
            raise CorpusError.from_code("E772", file=name, line=number, pid=pid)
        pid = str(pid)
        if pid in seen:
            raise CorpusError.from_code("E773", file=name, line=number, pid=pid, seen=seen[pid])
        seen[pid] = number
        gold = {k: v for k, v in data.items() if k not in ("id", "s1", "s2")}
        yield Pair(pid, data["s1"], data["s2"], gold)


def read_mrpc(path: str | Path) -> Iterator[Pair]:
    """MRPC TSV: ``Quality, #1 ID, #2 ID, #1 String, #2 String`` with a header line.

    Fields are split on tabs only: the sentences contain quotes that are not CSV quoting.
    """
    name = str(path)
    for number, raw in _lines(path):
        fields = raw.split("\t")
        if number == 1 and fields[0].strip().lower() == "quality":
            continue
        if len(fields) != 5:
            raise CorpusError.from_code("E774", file=name, line=number, n_fields=len(fields))
        quality = fields[0].strip()
        if quality not in ("0", "1"):
            raise CorpusError.from_code("E775", file=name, line=number, quality=quality)
        yield Pair(f"{fields[1].strip()}-{fields[2].strip()}", fields[3], fields[4], {"paraphrase": int(quality)})


def read_stsb(path: str | Path) -> Iterator[Pair]:
    """STS-B CSV without a header: ``sentence1,sentence2,score`` (CSV quoting), score 0-5.

    The id is ``<file stem>-<line>``: the file carries none.
    """
    name = str(path)
    stem = Path(name).stem
    for number, raw in _lines(path):
        try:
            rows = list(csv.reader([raw], strict=True))
        except csv.Error as exc:
            raise CorpusError.from_code("E776", file=name, line=number, problem=f"malformed CSV: {exc}",
                                        fix='quote fields that contain commas with "..."') from None
        fields = rows[0] if rows else []
        if len(fields) != 3:
            raise CorpusError.from_code("E776", file=name, line=number,
                                        problem="expected 3 comma-separated fields (sentence1, sentence2, "
                                                f"score), got {len(fields)}",
                                        fix="quote sentences that contain commas")
        try:
            score = float(fields[2])
        except ValueError:
            if number == 1:  # a header line some copies of the file carry
                continue
            raise CorpusError.from_code("E777", file=name, line=number, fields=fields[2]) from None
        yield Pair(f"{stem}-{number}", fields[0], fields[1], {"similarity": score})


def read_sick(path: str | Path) -> Iterator[Pair]:
    """SICK TSV with a header naming ``pair_ID, sentence_A, sentence_B, ..., entailment_judgment``.

    Columns are found by name, so the full release (with the A→B / B→A columns) works too.
    """
    name = str(path)
    columns: dict[str, int] | None = None
    for number, raw in _lines(path):
        fields = raw.split("\t")
        if columns is None:
            columns = {f.strip(): i for i, f in enumerate(fields)}
            missing = [c for c in ("pair_ID", "sentence_A", "sentence_B") if c not in columns]
            if missing:
                raise CorpusError.from_code("E778", file=name, line=number,
                                            problem=f"the header lacks the column(s) {', '.join(missing)}",
                                            fix="a SICK file starts with the header "
                                                "pair_ID<TAB>sentence_A<TAB>sentence_B<TAB>...")
            continue
        if len(fields) != len(columns):
            raise CorpusError.from_code("E778", file=name, line=number,
                                        problem=f"expected {len(columns)} tab-separated fields as in the "
                                                f"header, got {len(fields)}",
                                        fix="check for a missing or extra tab on this line")
        gold: dict[str, Any] = {}
        if "entailment_judgment" in columns:
            label = fields[columns["entailment_judgment"]].strip().lower()
            if label not in NLI_LABELS:
                raise CorpusError.from_code("E779", file=name, line=number,
                                            problem="entailment_judgment must be ENTAILMENT, NEUTRAL or "
                                                    f"CONTRADICTION, got {label!r}",
                                            fix="fix the label in this line")
            gold["nli"] = label
        if "relatedness_score" in columns:
            try:
                gold["relatedness"] = float(fields[columns["relatedness_score"]])
            except ValueError:
                raise CorpusError.from_code("E779", file=name, line=number,
                                            problem="relatedness_score must be a number, got "
                                                    f"{fields[columns['relatedness_score']]!r}",
                                            fix="the score is on a 1-5 scale") from None
        yield Pair(fields[columns["pair_ID"]].strip(), fields[columns["sentence_A"]],
                   fields[columns["sentence_B"]], gold)


_RTE_TRUE = {"TRUE": True, "YES": True, "FALSE": False, "NO": False}


def read_rte(path: str | Path) -> Iterator[Pair]:
    """RTE 1-3 XML: ``<pair id value|entailment task><t>...</t><h>...</h></pair>``.

    RTE is 2-way: ``gold["nli2"]`` is ``entailment`` or ``not_entailment`` (neutral and
    contradiction are not told apart).
    """
    from lxml import etree

    name = str(path)
    if not Path(name).is_file():
        raise CorpusError.from_code("E010", file=name, what="file", fix="check the path")
    try:
        root = etree.parse(name, etree.XMLParser(resolve_entities=False, no_network=True)).getroot()
    except etree.XMLSyntaxError as exc:
        raise CorpusError.from_code("E780", file=name, line=exc.lineno, msg=exc.msg) from None
    for node in root.iter("pair"):
        line = node.sourceline
        value = (node.get("value") or node.get("entailment") or "").strip().upper()
        if value not in _RTE_TRUE:
            raise CorpusError.from_code("E781", file=name, line=line,
                                        problem=f"pair {node.get('id')!r}: value/entailment must be TRUE/FALSE "
                                                f"or YES/NO, got {value!r}",
                                        fix="set the gold label attribute")
        t, h = node.find("t"), node.find("h")
        if t is None or h is None:
            raise CorpusError.from_code("E781", file=name, line=line,
                                        problem=f"pair {node.get('id')!r} lacks a <t> or <h> element",
                                        fix="each pair needs both")
        gold = {"nli2": "entailment" if _RTE_TRUE[value] else "not_entailment"}
        if node.get("task"):
            gold["task"] = node.get("task")
        yield Pair(str(node.get("id") or line), " ".join((t.text or "").split()), " ".join((h.text or "").split()),
                   gold)


def pair_readers() -> dict[str, Callable[[str | Path], Iterator[Pair]]]:
    return {"jsonl": read_pairs_jsonl, "mrpc": read_mrpc, "stsb": read_stsb, "sick": read_sick, "rte": read_rte}


def guess_pair_format(path: str | Path) -> str | None:
    """A pair format from the file name (as the shared corpora name them), or None."""
    name = Path(path).name.lower()
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.startswith("msr-para") or "mrpc" in name:
        return "mrpc"
    if name.startswith("stsb") or name.startswith("sts-"):
        return "stsb"
    if name.startswith("sick"):
        return "sick"
    if name.startswith("rte") and name.endswith(".xml"):
        return "rte"
    return None


def read_pair_file(path: str | Path, fmt: str | None = None) -> Iterator[Pair]:
    """Stream pairs from ``path`` in format ``fmt`` (default: guessed from the name)."""
    fmt = fmt or guess_pair_format(path)
    if fmt is None:
        raise FormatError.from_code("E782", problem=f"cannot tell the pair format of {path}",
                                    fix=f"pass --from with one of: {', '.join(PAIR_FORMATS)}")
    readers = pair_readers()
    if fmt not in readers:
        raise FormatError.from_code("E782", problem=f"unknown pair format {fmt!r}",
                                    fix=f"choose one of: {', '.join(PAIR_FORMATS)}")
    return readers[fmt](path)
