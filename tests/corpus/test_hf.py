"""Hugging Face datasets folders: written (a row per sentence for NER, per frame or predicate otherwise),
read back, and refused when they hold columns paraspan does not read."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import pytest

datasets = pytest.importorskip("datasets")

from paraspan.cli.main import main  # noqa: E402
from paraspan.corpus.formats import read_corpus, write_corpus  # noqa: E402
from paraspan.corpus.schema import Sentence  # noqa: E402
from paraspan.errors import ParaspanError  # noqa: E402

NER = [
    {"id": "n1", "text": "Anna Berg moved to Oslo.", "structures": [
        {"kind": "entity", "label": "PER", "anchor": {"start": 0, "end": 9, "label": None}, "args": []},
        {"kind": "entity", "label": "LOC", "anchor": {"start": 19, "end": 23, "label": None}, "args": []}],
     "meta": {}},
    {"id": "n2", "text": "Nothing here.", "structures": [], "meta": {}},
    {"id": "n2~s0i1", "text": "It was Anna who left.", "source_id": "n2", "provenance": {"iteration": 1},
     "structures": [{"kind": "entity", "label": "PER", "anchor": {"start": 7, "end": 11, "label": None},
                     "args": []}], "meta": {}},
]


def _sentences(rows: list[dict]) -> list[Sentence]:
    return [Sentence.from_dict(r) for r in rows]


def _demo() -> list[Sentence]:
    from paraspan.api import demo_corpus

    return list(read_corpus(demo_corpus(), "jsonl"))


def test_ner_is_a_row_per_sentence_with_classlabel_tags_and_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "ner"
    assert write_corpus(_sentences(NER), out, "hf") == 3
    ds = datasets.load_from_disk(str(out))
    assert ds.num_rows == 3 and "role_tags" not in ds.features
    names = ds.features["ner_tags"].feature.names
    assert names == ["O", "B-LOC", "I-LOC", "B-PER", "I-PER"]
    assert ds[0]["tokens"] == ["Anna", "Berg", "moved", "to", "Oslo", "."]
    assert [names[t] for t in ds[0]["ner_tags"]] == ["B-PER", "I-PER", "O", "O", "B-LOC", "O"]
    back = list(read_corpus(out, "hf"))
    assert [s.id for s in back] == ["n1", "n2", "n2~s0i1"]
    import paraspan

    assert [s.id for s in paraspan.read(out)] == ["n1", "n2", "n2~s0i1"]  # a datasets folder is told as hf
    for got, want in zip(back, _sentences(NER), strict=True):
        assert got.text == want.text and got.source_id == want.source_id and got.provenance == want.provenance
        assert [(s.kind, s.label, s.anchor.start, s.anchor.end) for s in got.structures] == [
            (s.kind, s.label, s.anchor.start, s.anchor.end) for s in want.structures]


def test_frames_are_a_row_each_with_role_tags_and_read_back(tmp_path: Path) -> None:
    demo = _demo()
    frames = sum(len(s.structures) for s in demo)
    out = tmp_path / "fn"
    extra = Sentence.from_dict(NER[1])  # no frame: no row (a warning counts it)
    with pytest.warns(UserWarning, match="1 sentence.s. without a frame, srl or event structure left out"):
        written = write_corpus([*demo, extra], out, "hf")
    with_frames = [s for s in demo if s.structures]
    assert written == len(with_frames)
    ds = datasets.load_from_disk(str(out))
    assert ds.num_rows == frames
    row = ds[0]
    assert row["kind"] == "frame" and row["label"] == with_frames[0].structures[0].label
    role_names = ds.features["role_tags"].feature.names
    anchor = with_frames[0].structures[0].anchor
    assert " ".join(row["tokens"][i] for i in row["predicate"]) == with_frames[0].text[anchor.start:anchor.end]
    assert {role_names[t][2:] for t in row["role_tags"] if t} == {a.label for a in with_frames[0].structures[0].args}
    back = list(read_corpus(out, "hf"))
    assert [s.id for s in back] == [s.id for s in with_frames]
    for got, want in zip(back, with_frames, strict=True):
        assert [(s.kind, s.label, s.anchor.label, s.anchor.start, s.anchor.end,
                 [(a.label, a.start, a.end) for a in s.args]) for s in got.structures] == [
            (s.kind, s.label, s.anchor.label, s.anchor.start, s.anchor.end,
             [(a.label, a.start, a.end) for a in s.args]) for s in want.structures]


def test_a_dataset_from_elsewhere_reads_and_unknown_features_are_named(tmp_path: Path) -> None:
    tags = datasets.ClassLabel(names=["O", "B-PER", "I-PER", "B-ORG", "I-ORG"])
    features = datasets.Features({"tokens": datasets.Sequence(datasets.Value("string")),
                                  "ner_tags": datasets.Sequence(tags)})
    plain = datasets.Dataset.from_dict({"tokens": [["Anna", "works", "at", "Acme", "Corp"]],
                                        "ner_tags": [[1, 0, 0, 3, 4]]}, features=features)
    plain.save_to_disk(str(tmp_path / "plain"))
    (only,) = read_corpus(tmp_path / "plain", "hf")
    assert only.text == "Anna works at Acme Corp" and only.id == "plain-1"
    assert [(s.label, s.anchor.text_in(only.text)) for s in only.structures] == [("PER", "Anna"), ("ORG", "Acme Corp")]
    wikiann = plain.add_column("langs", [["en"] * 5]).add_column("spans", [["PER: Anna"]])
    wikiann.save_to_disk(str(tmp_path / "wikiann"))
    with pytest.raises(ParaspanError, match="features paraspan does not read: langs, spans") as caught:
        list(read_corpus(tmp_path / "wikiann", "hf"))
    assert caught.value.code == "E984" and "remove_columns" in str(caught.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ParaspanError) as caught:
        list(read_corpus(tmp_path / "empty", "hf"))
    assert caught.value.code == "E986"
    datasets.DatasetDict({"train": plain, "dev": plain}).save_to_disk(str(tmp_path / "dict"))
    assert len(list(read_corpus(tmp_path / "dict", "hf", split="dev"))) == 1
    with pytest.raises(ParaspanError, match="splits train, dev"):
        list(read_corpus(tmp_path / "dict", "hf"))


def test_the_writer_replaces_only_a_dataset(tmp_path: Path) -> None:
    out = tmp_path / "ner"
    write_corpus(_sentences(NER), out, "hf")
    assert write_corpus(_sentences(NER[:1]), out, "hf") == 1  # an earlier dataset is replaced
    assert datasets.load_from_disk(str(out)).num_rows == 1
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(ParaspanError, match="not a dataset paraspan may replace"):
        write_corpus(_sentences(NER), tmp_path / "mine", "hf")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def test_convert_to_hf_and_back(tmp_path: Path) -> None:
    src = tmp_path / "ner.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in NER), encoding="utf-8")
    assert main(["convert", str(src), "--to", "hf", "-o", str(tmp_path / "ds"), "--no-progress"]) == 0
    assert main(["convert", str(tmp_path / "ds"), "--from", "hf", "-o", str(tmp_path / "back.jsonl"),
                 "--no-progress"]) == 0
    back = [json.loads(line) for line in (tmp_path / "back.jsonl").read_text().splitlines()]
    assert [r["text"] for r in back] == [r["text"] for r in NER]
    assert [len(r["structures"]) for r in back] == [2, 0, 1]


def test_without_datasets_the_error_names_the_extra(tmp_path: Path, monkeypatch) -> None:
    real = builtins.__import__

    def no_datasets(name, *args, **kwargs):
        if name == "datasets":
            raise ImportError("no datasets")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_datasets)
    with pytest.raises(ParaspanError, match=r'pip install "paraspan\[hf\]"') as caught:
        write_corpus(_sentences(NER), tmp_path / "x", "hf")
    assert caught.value.code == "E985"
