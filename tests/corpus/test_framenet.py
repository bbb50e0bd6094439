"""The FrameNet XML reader and frame index, on a hand-written release and (marked shared) on FN 1.5."""

from __future__ import annotations

import json
import logging
import shutil
import tarfile
import time
from collections import Counter
from pathlib import Path

import pytest

from paraspan.corpus.formats import read_corpus
from paraspan.corpus.frame_index import FrameIndex, plain_definition
from paraspan.corpus.framenet import read_framenet
from paraspan.corpus.schema import Sentence, Structure
from paraspan.errors import CorpusError
from tests.conftest import need_shared

FIXTURES = Path(__file__).parent / "fixtures" / "framenet"
RELEASE = FIXTURES / "fndata-0.1"
SPLITS = FIXTURES / "splits.json"


def by_id(sentences: list[Sentence]) -> dict[str, Sentence]:
    return {s.id: s for s in sentences}


def frame(sentence: Sentence, name: str) -> Structure:
    (found,) = [s for s in sentence.structures if s.label == name]
    return found


def make_tar(tmp_path: Path, source: Path = RELEASE, name: str = "fndata-0.1") -> Path:
    """A gzipped tarball of a release folder, members under a top folder like the real one."""
    target = tmp_path / f"{name}.tar.gz"
    with tarfile.open(target, "w:gz") as tar:
        # reversed: the archive order must not matter for full text
        for path in sorted(source.rglob("*"), reverse=True):
            if path.is_file():
                tar.add(path, arcname=f"{name}/{path.relative_to(source).as_posix()}")
    return target


# --------------------------------------------------------------------------- full text


def test_reads_every_sentence_with_ids_and_meta() -> None:
    sentences = list(read_framenet(RELEASE))
    assert [s.id for s in sentences] == [
        "fn01:Mini__Farm:301", "fn01:Mini__Farm:302", "fn01:Mini__Farm:303",
        "fn01:Mini__Harbour:201", "fn01:Mini__Harbour:202",
        "fn01:Mini__Market:101", "fn01:Mini__Market:102", "fn01:Mini__Market:103",
    ]
    first = by_id(sentences)["fn01:Mini__Market:101"]
    assert first.meta == {"source": "framenet", "release": "0.1", "doc": "Mini__Market", "corpus": "Mini",
                          "paragraph_no": 1, "sentence_no": 1}
    for sentence in sentences:
        sentence.validate()  # every kept span is in range and not blank


def test_offsets_are_converted_to_exclusive_ends() -> None:
    s = by_id(read_framenet(RELEASE))["fn01:Mini__Market:101"]
    assert s.text == "Mira sold three baskets to a stranger ."
    (st,) = s.structures  # the POS annotation set is not a frame
    assert st.kind == "frame" and st.label == "Trading"
    assert st.anchor is not None
    assert (st.anchor.text_in(s.text), st.anchor.label) == ("sold", "sell.v")
    assert [(a.label, a.text_in(s.text)) for a in st.args] == [
        ("Seller", "Mira"), ("Goods", "three baskets"), ("Buyer", "to a stranger")]
    assert st.extra["frame_id"] == 2 and st.extra["lu_id"] == 201 and st.extra["annoset_id"] == 1002
    assert st.extra["status"] == "MANUAL"
    assert st.extra["null_args"] == [{"label": "Price", "itype": "INI"}]


def test_discontinuous_target_keeps_first_piece_and_records_the_rest() -> None:
    s = by_id(read_framenet(RELEASE))["fn01:Mini__Market:102"]
    st = frame(s, "Handing_over")
    assert st.anchor is not None and st.anchor.text_in(s.text) == "handed"
    assert st.anchor.label == "hand over.v"
    (rest,) = st.extra["anchor_rest"]
    assert s.text[rest[0]:rest[1]] == "over"
    assert st.extra["null_args"] == [{"label": "Receiver", "itype": "DNI"}]
    # the JSON form carries the extras on the structure
    assert Sentence.from_dict(s.to_dict()).structures[0].extra["anchor_rest"] == [rest]


def test_sentences_without_frames_are_kept() -> None:
    s = by_id(read_framenet(RELEASE))["fn01:Mini__Market:103"]
    assert s.text == "The market closed early ." and s.structures == []


def test_unannotated_sets_and_empty_targets_count_as_frames() -> None:
    s = by_id(read_framenet(RELEASE))["fn01:Mini__Harbour:202"]
    rained, stormy = s.structures
    assert rained.extra["status"] == "UNANN" and rained.args == []
    assert rained.anchor is not None and rained.anchor.text_in(s.text) == "rained"
    assert stormy.anchor is None and stormy.label == "Weather_state"


def test_higher_rank_fe_layers_go_to_extra() -> None:
    s = by_id(read_framenet(RELEASE))["fn01:Mini__Farm:301"]
    (st,) = s.structures
    assert [a.text_in(s.text) for a in st.args] == ["Old Tom", "eggs and honey"]
    (more,) = st.extra["more_args"]
    assert (s.text[more["start"]:more["end"]], more["label"], more["rank"]) == ("eggs", "Goods", 2)


def test_unknown_frame_id_still_loads() -> None:
    s = by_id(read_framenet(RELEASE))["fn01:Mini__Farm:302"]
    (st,) = s.structures
    assert (st.label, st.extra["frame_id"]) == ("Scratch_frame", 999)
    assert FrameIndex.load(RELEASE).by_id(999) is None


def test_malformed_spans_are_dropped_and_counted(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="paraspan.corpus.framenet"):
        s = by_id(read_framenet(RELEASE))["fn01:Mini__Farm:303"]
    (st,) = s.structures
    assert [a.label for a in st.args] == ["Trader"]
    assert [(d["label"], d["reason"]) for d in st.extra["dropped"]] == [("Goods", "out of range"),
                                                                      ("Partner", "blank")]
    assert s.meta["dropped_spans"] == 2
    s.validate()
    assert "dropped 2 malformed span(s) in 1 sentence(s)" in caplog.text


# --------------------------------------------------------------------------- splits


@pytest.mark.parametrize(("split", "docs"), [("dev", {"Mini__Market"}), ("test", {"Mini__Harbour"}),
                                             ("train", {"Mini__Farm"})])
def test_split_selection(split: str, docs: set[str]) -> None:
    sentences = list(read_framenet(RELEASE, split=split, splits=SPLITS))
    assert {s.meta["doc"] for s in sentences} == docs
    assert {s.meta["split"] for s in sentences} == {split}


def test_splits_alone_tags_every_sentence() -> None:
    sentences = list(read_framenet(RELEASE, splits=SPLITS))
    assert Counter(s.meta["split"] for s in sentences) == {"train": 3, "test": 2, "dev": 3}


def test_split_without_split_file_is_an_error() -> None:
    with pytest.raises(CorpusError) as err:
        read_framenet(RELEASE, split="dev")
    assert "--splits" in err.value.problem.hint


def test_unknown_split_is_an_error() -> None:
    with pytest.raises(CorpusError) as err:
        read_framenet(RELEASE, split="validation", splits=SPLITS)
    assert "train, dev, test" in err.value.problem.hint


def test_bad_split_file_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "splits.json"
    bad.write_text('{"dev": "Mini__Market.xml"}')
    with pytest.raises(CorpusError) as err:
        read_framenet(RELEASE, split="dev", splits=bad)
    assert err.value.problem.file == str(bad)


def test_split_listing_a_missing_document_warns(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    splits = tmp_path / "splits.json"
    splits.write_text(json.dumps({"dev": ["Mini__Market.xml", "Other__Gone.xml"], "test": []}))
    with caplog.at_level(logging.WARNING, logger="paraspan.corpus.framenet"):
        assert len(list(read_framenet(RELEASE, split="dev", splits=splits))) == 3
    assert "Other__Gone" in caplog.text


def test_registered_reader_takes_the_cli_options() -> None:
    sentences = list(read_corpus(RELEASE, "framenet", split="test", splits=str(SPLITS)))
    assert len(sentences) == 2


# --------------------------------------------------------------------------- exemplars


def test_exemplars() -> None:
    sentences = list(read_framenet(RELEASE, exemplars=True))
    # natural LU order: lu201 before lu1000
    assert [s.id for s in sentences] == ["fn01:lu201:5001", "fn01:lu201:5002", "fn01:lu201:5003",
                                         "fn01:lu1000:5101"]
    s = sentences[0]
    (st,) = s.structures
    assert (st.label, st.anchor.label if st.anchor else None) == ("Trading", "sell.v")
    assert st.anchor is not None and st.anchor.text_in(s.text) == "sold"
    assert [(a.label, a.text_in(s.text)) for a in st.args] == [
        ("Seller", "The twins"), ("Goods", "lemonade"), ("Time", "all summer")]
    assert st.extra == {"frame_id": 2, "lu_id": 201, "annoset_id": 6002, "status": "MANUAL",
                        "null_args": [{"label": "Buyer", "itype": "INI"}]}
    assert s.meta == {"source": "framenet", "release": "0.1", "lu": "sell.v", "frame": "Trading",
                      "subcorpus": "V-np-np"}
    assert sentences[2].structures == []  # an exemplar with only its POS layer


def test_exemplar_in_two_subcorpora_is_merged() -> None:
    # the same sentence annotated twice for one LU (FN 1.5 has 19): one id, both annotation sets
    s = by_id(read_framenet(RELEASE, exemplars=True))["fn01:lu201:5002"]
    assert [st.extra["annoset_id"] for st in s.structures] == [6004, 6007]
    assert [st.extra["status"] for st in s.structures] == ["MANUAL", "AUTO_APP"]
    assert (s.meta["subcorpus"], s.meta["also_in_subcorpora"]) == ("V-np-pp", ["other"])


def test_exemplars_do_not_take_splits() -> None:
    with pytest.raises(CorpusError):
        read_framenet(RELEASE, exemplars=True, split="dev", splits=SPLITS)


# --------------------------------------------------------------------------- archive vs folder


def test_tar_gz_reads_like_the_folder(tmp_path: Path) -> None:
    archive = make_tar(tmp_path)
    folder = [s.to_dict() for s in read_framenet(RELEASE, split="train", splits=SPLITS)]
    packed = [s.to_dict() for s in read_framenet(archive, split="train", splits=SPLITS)]
    assert packed == folder
    assert [s.to_dict() for s in read_framenet(archive)] == [s.to_dict() for s in read_framenet(RELEASE)]
    exemplars = sorted(s.id for s in read_framenet(archive, exemplars=True))
    assert exemplars == sorted(s.id for s in read_framenet(RELEASE, exemplars=True))
    index = FrameIndex.load(archive)
    assert sorted(index.frames) == sorted(FrameIndex.load(RELEASE).frames)
    assert index.fe_relations == FrameIndex.load(RELEASE).fe_relations


def test_parent_folder_of_the_release_is_accepted(tmp_path: Path) -> None:
    shutil.copytree(RELEASE, tmp_path / "fndata-0.1")
    assert len(list(read_framenet(tmp_path))) == 8


def test_release_version_falls_back_to_the_readme(tmp_path: Path) -> None:
    shutil.copytree(RELEASE, tmp_path / "mini")
    first = next(read_framenet(tmp_path / "mini"))
    assert first.id == "fn01:Mini__Farm:301" and first.meta["release"] == "0.1"


def test_not_a_release_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError) as err:
        read_framenet(tmp_path)
    assert err.value.code == "E210"
    with pytest.raises(CorpusError) as err:
        read_framenet(tmp_path / "missing")
    assert err.value.code == "E010"


BROKEN_LINE = 9  # the first sentence's <text> in Mini__Harbour.xml


def broken_release(tmp_path: Path) -> Path:
    release = tmp_path / "fndata-0.1"
    shutil.copytree(RELEASE, release)
    doc = release / "fulltext" / "Mini__Harbour.xml"
    lines = doc.read_text(encoding="utf-8").splitlines(keepends=True)
    assert "<text>" in lines[BROKEN_LINE - 1]
    lines[BROKEN_LINE - 1] = lines[BROKEN_LINE - 1].replace("</text>", "</txet>")
    doc.write_text("".join(lines), encoding="utf-8")
    return release


def test_malformed_xml_names_file_and_line(tmp_path: Path) -> None:
    release = broken_release(tmp_path)
    with pytest.raises(CorpusError) as err:
        list(read_framenet(release))
    assert err.value.problem.file == str(release / "fulltext" / "Mini__Harbour.xml")
    assert err.value.problem.line == BROKEN_LINE
    assert err.value.code == "E211"


def test_malformed_xml_in_an_archive_names_the_member(tmp_path: Path) -> None:
    archive = make_tar(tmp_path, broken_release(tmp_path))
    with pytest.raises(CorpusError) as err:
        list(read_framenet(archive))
    assert err.value.problem.file == f"{archive}/fulltext/Mini__Harbour.xml"
    assert err.value.problem.line == BROKEN_LINE


def test_truncated_archive_is_an_error(tmp_path: Path) -> None:
    archive = make_tar(tmp_path)
    cut = tmp_path / "cut-0.1.tar.gz"
    cut.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    with pytest.raises(CorpusError) as err:
        list(read_framenet(cut, exemplars=True))
    assert err.value.problem.file == str(cut)


# --------------------------------------------------------------------------- frame index


@pytest.fixture(scope="module")
def index() -> FrameIndex:
    return FrameIndex.load(RELEASE)


def test_frames_and_fe_core_types(index: FrameIndex) -> None:
    assert sorted(index.frames) == ["Bartering", "Handing_over", "Trading", "Weather_state"]
    trading = index.frames["Trading"]
    assert trading.id == 2 and index.by_id(2) is trading and index.by_id("2") is trading
    assert trading.cdate == "01/01/2020 09:00:00 PST Wed"
    assert trading.definition == "A Seller gives Goods to a Buyer for a Price."
    assert {n: fe.core_type for n, fe in trading.fes.items()} == {
        "Seller": "Core", "Buyer": "Core", "Goods": "Core", "Price": "Peripheral", "Place": "Peripheral",
        "Time": "Peripheral", "Money": "Core-Unexpressed"}
    assert trading.fes["Seller"].id == 21 and trading.fes["Seller"].definition == "The one who sells."
    assert trading.fes["Seller"].gloss == "The one who sells."  # no example sentences in this one
    assert [fe.name for fe in index.core_fes("Trading")] == ["Seller", "Buyer", "Goods", "Money"]
    assert index.frames["Handing_over"].fes["Reason"].core_type == "Extra-Thematic"


def test_lexical_units(index: FrameIndex) -> None:
    sell = index.frames["Trading"].lus["sell.v"]
    assert (sell.id, sell.name, sell.pos, sell.lemma, sell.frame) == (201, "sell.v", "V", "sell", "Trading")
    assert (sell.status, sell.cdate) == ("Finished_Initial", "02/03/2020 11:12:13 PST Mon")
    assert (sell.annotated, sell.total) == (201 % 7, 201 % 11)
    assert index.frames["Handing_over"].lus["hand over.v"].lemma == "hand over"
    assert index.lu_by_id(1000) is index.frames["Trading"].lus["vend.v"]


def test_sister_lus(index: FrameIndex) -> None:
    assert [lu.name for lu in index.sister_lus("sell.v")] == ["sale.n", "trade.v", "vend.v"]
    assert [lu.name for lu in index.sister_lus("sell.v", pos="v")] == ["trade.v", "vend.v"]
    assert [lu.name for lu in index.sister_lus("swap.v", frame="Bartering", pos="N")] == ["swap.n"]
    assert [lu.name for lu in index.sister_lus("scribble.v", frame="Trading")][:1] == ["sale.n"]
    assert index.sister_lus("scribble.v") == []
    assert index.sister_lus("swap.v", frame="No_such_frame") == []


def test_fe_ancestors_follow_inheritance_transitively(index: FrameIndex) -> None:
    assert index.fe_ancestors("Bartering", "Trader") == [("Trading", "Seller"), ("Handing_over", "Giver")]
    assert index.fe_ancestors("Bartering", "Goods") == [("Trading", "Goods"), ("Handing_over", "Item")]
    # Trading.Place reaches Weather_state.Place only through "Using", which is not inheritance
    assert index.fe_ancestors("Bartering", "Place") == [("Trading", "Place")]
    assert index.fe_ancestors("Bartering", "Partner") == []


def test_relations(index: FrameIndex) -> None:
    assert ("Inheritance", "Handing_over", "Trading") in index.relations
    assert ("Using", "Weather_state", "Trading") in index.relations
    assert index.relations[0].super_frame == "Handing_over"
    assert ("Inheritance", "Trading", "Seller", "Bartering", "Trader") in index.fe_relations
    assert index.parents("Trading") == ["Handing_over"]


def test_plain_definition() -> None:
    raw = "<def-root>A <fen>Giver</fen> gives.<ex><fex name=\"Giver\">Ann</fex> &amp; co</ex></def-root>"
    assert plain_definition(raw) == "A Giver gives. Ann & co"
    # the infill prompt shows definitions without their examples, whose phrases a small model copies
    assert plain_definition(raw, examples=False) == "A Giver gives."


# --------------------------------------------------------------------------- FrameNet 1.5 (shared data)

# (documents, sentences, frame structures): Das & Smith (2011) split, as used by open-sesame
EXPECTED = {"test": (23, 2420, 4459), "dev": (8, 387, 2333)}


def _counts(sentences: list[Sentence]) -> tuple[int, int, int]:
    return (len({s.meta["doc"] for s in sentences}), len(sentences), sum(len(s.structures) for s in sentences))


@pytest.mark.shared
def test_framenet15_fulltext_counts() -> None:
    archive = need_shared("data", "framenet", "fndata-1.5.tar.gz")
    splits = need_shared("data", "framenet", "fulltext-splits.json")
    started = time.perf_counter()
    sentences = list(read_framenet(archive, splits=splits))  # one pass over the archive
    elapsed = time.perf_counter() - started
    by_split = {name: [s for s in sentences if s.meta["split"] == name] for name in ("train", "dev", "test")}
    for name, expected in EXPECTED.items():
        assert _counts(by_split[name]) == expected, name
    # all 78 documents load, the two that name frame 398 ("Test35") included
    assert len({s.meta["doc"] for s in sentences}) == 78
    assert any(st.label == "Test35" for s in by_split["dev"] for st in s.structures)
    train = _counts(by_split["train"])
    args = sum(len(st.args) for s in by_split["train"] for st in s.structures)
    print(f"\nFN 1.5 train: {train[0]} docs / {train[1]} sentences / {train[2]} frames / {args} args "
          f"(read in {elapsed:.1f}s)")
    for sentence in sentences:
        sentence.validate()
    ids = [s.id for s in sentences]
    assert len(ids) == len(set(ids)) and ids[0].startswith("fn15:")


@pytest.mark.shared
def test_framenet15_split_selection_matches() -> None:
    archive = need_shared("data", "framenet", "fndata-1.5.tar.gz")
    splits = need_shared("data", "framenet", "fulltext-splits.json")
    assert _counts(list(read_framenet(archive, split="dev", splits=splits))) == EXPECTED["dev"]


@pytest.mark.shared
def test_framenet15_frame_index_loads_fast() -> None:
    archive = need_shared("data", "framenet", "fndata-1.5.tar.gz")
    started = time.perf_counter()
    index = FrameIndex.load(archive)
    elapsed = time.perf_counter() - started
    assert len(index) == 1019 and elapsed < 30
    assert index.by_id(398) is None
    assert "sell.v" in index.frames["Commerce_sell"].lus
    assert index.frames["Commerce_sell"].fes["Seller"].core_type == "Core"
    assert ("Giving", "Donor") in index.fe_ancestors("Commerce_sell", "Seller")
    assert "vend.v" in {lu.name for lu in index.sister_lus("sell.v", frame="Commerce_sell")}


@pytest.mark.shared
def test_framenet15_exemplars_stream() -> None:
    archive = need_shared("data", "framenet", "fndata-1.5.tar.gz")
    stream = read_framenet(archive, exemplars=True)
    first = [next(stream) for _ in range(200)]
    stream.close()  # type: ignore[attr-defined]
    assert all(s.id.startswith("fn15:lu") for s in first)
    assert sum(len(s.structures) for s in first) >= 190


# -- releases that used to be read in part, or end in a traceback -------------------------------------------------


def _tar_of(tmp_path: Path) -> tuple[bytes, list[tarfile.TarInfo]]:
    path = tmp_path / "fndata-0.1.tar"
    with tarfile.open(path, "w") as tar:
        tar.add(RELEASE, arcname="fndata-0.1")
    with tarfile.open(path) as tar:
        members = tar.getmembers()
    return path.read_bytes(), members


def test_a_tar_cut_between_members_is_truncated(tmp_path):
    data, members = _tar_of(tmp_path)
    whole = tmp_path / "whole" / "fndata-0.1.tar"
    whole.parent.mkdir()
    whole.write_bytes(data)
    assert list(read_framenet(whole))  # a complete archive reads
    cut = tmp_path / "fndata-0.1-cut.tar"
    first = next(i for i, m in enumerate(members) if "/fulltext/" in m.name and m.name.endswith(".xml"))
    cut.write_bytes(data[: members[first + 1].offset])  # one document whole, the other missing
    with pytest.raises(CorpusError) as info:
        list(read_framenet(cut))
    assert info.value.code == "E051" and "truncated" in str(info.value)


def test_an_undefined_entity_is_an_error_at_its_line(tmp_path):
    release = tmp_path / "fndata-0.1"
    shutil.copytree(RELEASE, release)
    doc = sorted((release / "fulltext").glob("*.xml"))[0]
    text = doc.read_text(encoding="utf-8")
    # with a DOCTYPE an undefined entity is no syntax error: lxml kept it as a node and cut the text there
    text = text.replace("<fullTextAnnotation", '<!DOCTYPE fullTextAnnotation SYSTEM "x.dtd">\n<fullTextAnnotation', 1)
    text = text.replace("<text>", "<text>The &e; ", 1)
    line = next(n for n, raw in enumerate(text.splitlines(), 1) if "&e;" in raw)
    for declared in (text, text.replace(' standalone="yes"', "")):  # an error, or (not standalone) a node
        doc.write_text(declared, encoding="utf-8")
        with pytest.raises(CorpusError) as info:
            list(read_framenet(release))
        assert info.value.code == "E052" and info.value.problem.line == line
        assert info.value.problem.file == str(doc) and "&e;" in info.value.problem.message


def test_an_unreadable_file_in_a_release_is_named(tmp_path):
    release = tmp_path / "fndata-0.1"
    shutil.copytree(RELEASE, release)
    (release / "fulltext" / "zz_broken.xml").mkdir()  # reading it fails as a file without permission does
    with pytest.raises(CorpusError) as info:
        list(read_framenet(release))
    assert info.value.code == "E053" and info.value.problem.file.endswith("fulltext/zz_broken.xml")
