"""Hugging Face ``datasets`` folders (``Dataset.save_to_disk``), written and read back: format ``hf``.

A corpus of entities only (NER) is one row per sentence; a corpus with frames, SRL predicates or
events is one row per such structure (a sentence with three predicates is three rows), as token
classifiers for SRL and frame-semantic parsing are trained. Columns:

``id``, ``text``, ``tokens``
    the sentence's id, text and words (``meta["tokens"]`` when it fits the text, else paraspan's
    tokenizer); every row of one sentence has the same three.
``ner_tags``
    IOB2 tags of the sentence's entities, a ``Sequence(ClassLabel)`` (``O``, ``B-PER``, ``I-PER`` …).
``structure``, ``kind``, ``label``, ``anchor_label``, ``predicate``, ``role_tags``
    (structure rows only) the structure's index in the sentence, its kind (``frame``, ``srl``,
    ``event``), its label (frame or roleset), its anchor's label (the LU), the anchor's token
    indices, and IOB2 tags of its arguments (frame elements, roles) as a ``Sequence(ClassLabel)``.
``source_id``, ``meta``, ``provenance``
    what an augmented sentence carries (``meta`` and ``provenance`` as JSON text; empty when none).

The reader takes these columns (``tokens`` is required; ``ner_tags`` may be strings or a
``ClassLabel``, as in WikiANN) and refuses a dataset with any other column, naming them. The
``datasets`` library is an optional extra (``pip install "paraspan[hf]"``), imported only here.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from paraspan.corpus.conll import decode_tags, iob2_tags, sentence_tokens, tag_spans, warn_counts
from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import CorpusError, FormatError

#: kinds written one row each (with their role tags); entities go to every row's ``ner_tags``
STRUCTURE_KINDS = ("frame", "srl", "event")
#: every column the reader knows
COLUMNS = ("id", "text", "tokens", "ner_tags", "structure", "kind", "label", "anchor_label", "predicate",
           "role_tags", "source_id", "meta", "provenance")


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise FormatError.from_code("E985") from None
    return datasets


def _tag_names(types: Iterable[str]) -> list[str]:
    """``O`` then ``B-``/``I-`` of each type, types sorted (the ClassLabel's names)."""
    return ["O", *(f"{prefix}-{t}" for t in sorted(set(types)) for prefix in ("B", "I"))]


def _label(value: str | None) -> str:
    return (value or "_").replace(" ", "_")


#: one row to write: the sentence, its tokens (character offsets), its entities' IOB2 tags, and the index of
#: the structure the row is for (None: a row per sentence, entities only)
_Row = tuple[Sentence, list[tuple[int, int]], list[str], int | None]


def write_hf(sentences: Iterable[Sentence], path: str | Path) -> int:
    """Write ``sentences`` as a ``datasets`` folder at ``path``; return the number of sentences written.

    ``path`` is replaced when it holds a dataset already; a folder with other files is refused.
    The folder is written beside and moved in at the end, so a failed write leaves no half dataset.
    """
    datasets = _datasets()
    out = Path(path)
    if out.is_file() or (out.is_dir() and any(out.iterdir()) and not (out / "dataset_info.json").is_file()):
        raise FormatError.from_code("E986", problem=f"{out} exists and is not a dataset paraspan may replace",
                                    fix="give a new folder for -o (or an earlier `--to hf` output)")
    dropped = {"overlapping": 0, "uncovered": 0, "no_structure": 0}
    held = list(sentences)
    per_structure = any(s.kind in STRUCTURE_KINDS for sentence in held for s in sentence.structures)
    rows, entity_types, role_types = _rows(held, per_structure, dropped)
    features = _features(datasets, entity_types, role_types if per_structure else None)
    columns = _columns(rows, features, dropped)
    _save(datasets.Dataset.from_dict(columns, features=datasets.Features(features)), out)
    # called here, not in a helper: the warning blames write_hf's caller
    warn_counts("hf", [
        (dropped["overlapping"], "overlapping span(s) dropped (IOB2 tags cannot nest; the first one was kept)"),
        (dropped["uncovered"], "span(s) covering no token were dropped"),
        (dropped["no_structure"], "sentence(s) without a frame, srl or event structure left out (a row per "
                                  "structure; write entities-only corpora for NER)"),
    ])
    return len({id(sentence) for sentence, *_ in rows})


def _tagged(tokens: Sequence[tuple[int, int]], spans: Iterable[tuple[int, int, str]],
            dropped: dict[str, int]) -> list[tuple[int, int, str]]:
    """:func:`tag_spans` of ``spans``, the spans it leaves out counted in ``dropped``."""
    tagged, uncovered, overlapping = tag_spans(tokens, spans)
    dropped["uncovered"] += uncovered
    dropped["overlapping"] += overlapping
    return tagged


def _rows(held: Sequence[Sentence], per_structure: bool,
          dropped: dict[str, int]) -> tuple[list[_Row], set[str], set[str]]:
    """The rows to write (a row per sentence, or per structure when ``per_structure``), with the entity
    types and the role types they tag."""
    rows: list[_Row] = []
    entity_types: set[str] = set()
    role_types: set[str] = set()
    for sentence in held:
        tokens, _ = sentence_tokens(sentence)
        entities = _tagged(tokens, ((s.anchor.start, s.anchor.end, _label(s.label))
                                    for s in sentence.structures if s.kind == "entity" and s.anchor is not None),
                           dropped)
        entity_types.update(label for _, _, label in entities)
        ner = iob2_tags(len(tokens), entities)
        if not per_structure:
            rows.append((sentence, tokens, ner, None))
            continue
        indices = [i for i, s in enumerate(sentence.structures) if s.kind in STRUCTURE_KINDS]
        dropped["no_structure"] += not indices
        for index in indices:
            for arg in sentence.structures[index].args:
                role_types.add(_label(arg.label))
            rows.append((sentence, tokens, ner, index))
    return rows, entity_types, role_types


def _features(datasets: Any, entity_types: set[str], role_types: set[str] | None) -> dict[str, Any]:
    """The dataset's columns and their types; the structure columns only with ``role_types``."""
    ner_label = datasets.ClassLabel(names=_tag_names(entity_types))
    features: dict[str, Any] = {"id": datasets.Value("string"), "text": datasets.Value("string"),
                                "tokens": datasets.Sequence(datasets.Value("string")),
                                "ner_tags": datasets.Sequence(ner_label)}
    if role_types is not None:
        role_label = datasets.ClassLabel(names=_tag_names(role_types))
        features.update({"structure": datasets.Value("int32"), "kind": datasets.Value("string"),
                         "label": datasets.Value("string"), "anchor_label": datasets.Value("string"),
                         "predicate": datasets.Sequence(datasets.Value("int32")),
                         "role_tags": datasets.Sequence(role_label)})
    features.update({"source_id": datasets.Value("string"), "meta": datasets.Value("string"),
                     "provenance": datasets.Value("string")})
    return features


def _columns(rows: Sequence[_Row], features: dict[str, Any], dropped: dict[str, int]) -> dict[str, list[Any]]:
    """Each feature's values, one per row."""
    columns: dict[str, list[Any]] = {name: [] for name in features}
    for sentence, tokens, ner, index in rows:
        columns["id"].append(sentence.id)
        columns["text"].append(sentence.text)
        columns["tokens"].append([sentence.text[s:e] for s, e in tokens])
        columns["ner_tags"].append(ner)
        columns["source_id"].append(sentence.source_id or "")
        columns["meta"].append(json.dumps(sentence.meta, ensure_ascii=False) if sentence.meta else "")
        columns["provenance"].append(json.dumps(sentence.provenance, ensure_ascii=False)
                                     if sentence.provenance is not None else "")
        if index is None:
            continue
        structure = sentence.structures[index]
        args = _tagged(tokens, ((a.start, a.end, _label(a.label)) for a in structure.args), dropped)
        anchor = (tag_spans(tokens, [(structure.anchor.start, structure.anchor.end, "V")])[0]
                  if structure.anchor is not None else [])
        columns["structure"].append(index)
        columns["kind"].append(structure.kind)
        columns["label"].append(structure.label)
        columns["anchor_label"].append((structure.anchor.label or "") if structure.anchor is not None else "")
        columns["predicate"].append(list(range(anchor[0][0], anchor[0][1] + 1)) if anchor else [])
        columns["role_tags"].append(iob2_tags(len(tokens), args))
    return columns


def _save(dataset: Any, out: Path) -> None:
    """``dataset`` saved beside ``out`` and moved in (replacing an earlier dataset there)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        dataset.save_to_disk(str(staging / "dataset"))
        if out.exists():
            shutil.rmtree(out)
        (staging / "dataset").rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# --------------------------------------------------------------------------- reader


def _load(path: Path, split: str | None) -> Any:
    datasets = _datasets()
    if not path.exists():
        raise CorpusError.from_code("E010", file=str(path), what="dataset folder",
                                    fix="give a folder written by save_to_disk or `paraspan convert --to hf`")
    try:
        loaded = datasets.load_from_disk(str(path))
    except (FileNotFoundError, ValueError, OSError) as exc:
        raise CorpusError.from_code("E986", file=str(path), problem=str(exc).splitlines()[0][:200]) from None
    if isinstance(loaded, datasets.DatasetDict):
        names = ", ".join(loaded)
        if split is None and len(loaded) == 1:
            split = next(iter(loaded))
        if split not in loaded:
            raise CorpusError.from_code("E986", file=str(path), problem=f"a DatasetDict with the splits {names}; "
                                        f"{'no split was chosen' if split is None else f'none is {split!r}'}")
        loaded = loaded[split]
    return loaded


def _names(feature: Any) -> list[str] | None:
    """The label names of a ``Sequence(ClassLabel)`` column; None for strings."""
    inner = getattr(feature, "feature", None)
    if inner is None and isinstance(feature, list) and feature:
        inner = feature[0]
    return list(inner.names) if hasattr(inner, "names") else None


def _offsets(text: str, tokens: Sequence[str]) -> list[tuple[int, int]] | None:
    """Where each token lies in ``text``, searched in order; None when one is not found."""
    out: list[tuple[int, int]] = []
    pos = 0
    for token in tokens:
        start = text.find(token, pos)
        if start < 0 or text[pos:start].strip():
            return None
        out.append((start, start + len(token)))
        pos = start + len(token)
    return out


def _char_span(tokens: Sequence[tuple[int, int]], first: int, last: int, label: str | None) -> Span:
    return Span(tokens[first][0], tokens[last][1], label)


def read_hf(path: str | Path, *, split: str | None = None) -> Iterator[Sentence]:
    """Sentences of a ``datasets`` folder (see the module doc for the columns it takes).

    ``split``: the split of a ``DatasetDict`` folder (needed when it has more than one). Rows of one
    sentence (the same ``id``, one after another) become one sentence with all their structures.
    """
    where = Path(path)
    dataset = _load(where, split)
    features = dataset.features
    unknown = sorted(set(features) - set(COLUMNS))
    if unknown:
        raise CorpusError.from_code("E984", file=str(where), features=", ".join(unknown), known=", ".join(COLUMNS))
    if "tokens" not in features:
        raise CorpusError.from_code("E986", file=str(where), problem="it has no 'tokens' column")
    ner_names = _names(features["ner_tags"]) if "ner_tags" in features else None
    role_names = _names(features["role_tags"]) if "role_tags" in features else None
    stem = where.name
    pending: Sentence | None = None
    for number, row in enumerate(dataset):
        sentence = _row_sentence(row, number, stem, ner_names, role_names, str(where))
        if pending is not None and pending.id == sentence.id and "structure" in row:
            pending.structures.extend(s for s in sentence.structures if s.kind != "entity")
            continue
        if pending is not None:
            yield _ordered(pending)
        pending = sentence
    if pending is not None:
        yield _ordered(pending)


def _ordered(sentence: Sentence) -> Sentence:
    """Structures in their recorded order (``extra["_index"]`` from the ``structure`` column), entities last."""
    sentence.structures.sort(key=lambda s: s.extra.get("_index", 1 << 30))
    for s in sentence.structures:
        s.extra.pop("_index", None)
    return sentence


def _tags(values: Sequence[Any] | None, names: list[str] | None, what: str, file: str, row: int) -> list[str]:
    if values is None:
        return []
    if names is None:
        if any(not isinstance(v, str) for v in values):
            raise CorpusError.from_code("E986", file=file, line=row + 1,
                                        problem=f"{what} are numbers without a ClassLabel naming them")
        return list(values)
    return [names[v] for v in values]


def _row_sentence(row: dict[str, Any], number: int, stem: str, ner_names: list[str] | None,
                  role_names: list[str] | None, file: str) -> Sentence:
    words = [str(t) for t in row["tokens"]]
    text = row.get("text")
    offsets = _offsets(text, words) if isinstance(text, str) else None
    if offsets is None:  # no text (a dataset from elsewhere), or one its tokens do not spell
        text = " ".join(words)
        offsets = _offsets(text, words) or []
    sid = row.get("id") or f"{stem}-{number + 1}"
    meta = json.loads(row["meta"]) if row.get("meta") else {}
    provenance = json.loads(row["provenance"]) if row.get("provenance") else None
    structures: list[Structure] = []
    if row.get("kind"):
        predicate = list(row.get("predicate") or [])
        anchor = (_char_span(offsets, min(predicate), max(predicate), row.get("anchor_label") or None)
                  if predicate else None)
        roles = decode_tags(_tags(row.get("role_tags"), role_names, "role_tags", file, number), "auto", file)
        structure = Structure(row["kind"], row.get("label") or "_", anchor,
                              [_char_span(offsets, a, b, label) for a, b, label in roles])
        if row.get("structure") is not None:
            structure.extra["_index"] = int(row["structure"])
        structures.append(structure)
    entities = decode_tags(_tags(row.get("ner_tags"), ner_names, "ner_tags", file, number), "auto", file)
    structures += [Structure("entity", label, _char_span(offsets, a, b, None)) for a, b, label in entities]
    if not meta and "tokens" not in meta and offsets:
        meta = {"tokens": [[s, e] for s, e in offsets]}
    return Sentence(str(sid), text, structures, meta, row.get("source_id") or None, provenance)
