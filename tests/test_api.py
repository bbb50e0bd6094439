"""The Python API (paraspan.read / write / augment) with the fake models, and `paraspan augment` built on it:
one sentence per output text, --per-structure, --from, the same bytes through both, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import paraspan
from paraspan.cli.main import main
from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from tests.pipeline.conftest import SENTENCES, write_corpus

FAKE = {"generator": "tests.pipeline.fakes:make_generator", "aligner": "tests.pipeline.fakes:make_aligner"}
FAKE_ARGS = ["--filter", "all", "--generator", FAKE["generator"], "--aligner", FAKE["aligner"], "--no-progress",
             "--workers", "1"]
# two frames with one anchor: both chains rewrite "sold" alike, so the two outputs are one text
TWO_FRAMES = {"id": "e", "text": "The farmer sold his tractor.",
              "structures": [{"kind": "frame", "label": "Commerce_sell", "anchor": {"start": 11, "end": 15,
                                                                                   "label": "sell.v"},
                              "args": [{"start": 0, "end": 10, "label": "Seller"}]},
                             {"kind": "frame", "label": "Giving", "anchor": {"start": 11, "end": 15, "label": "sell.v"},
                              "args": [{"start": 16, "end": 27, "label": "Theme"}]}]}


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_import_paraspan_loads_nothing_heavy() -> None:
    code = ("import sys, paraspan; heavy = [m for m in ('paraspan.api', 'paraspan.pipeline', 'spacy', 'torch', "
            "'typer', 'datasets') if m in sys.modules]; print(heavy); paraspan.read; "
            "print('paraspan.api' in sys.modules, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]"
    assert out[1] == "True False"  # the API loads on first use, and even then no model library
    assert {"read", "write", "augment", "Sentence"} <= set(dir(paraspan))
    with pytest.raises(AttributeError):
        paraspan.no_such_thing  # noqa: B018


def test_augment_yields_verified_outputs_with_provenance(tmp_path) -> None:
    progress: list[tuple[int, int]] = []
    run = paraspan.augment(SENTENCES, filters="all", iterations=2, workers=1, store=tmp_path / "run.db",
                           on_progress=lambda done, total: progress.append((done, total)), **FAKE)
    outputs = list(run)
    assert [o.id for o in outputs] == ["a~s0i1", "a~s0i2", "c~s0i1", "c~s0i2", "d~s0i1", "d~s0i2"]
    assert all(o.source_id in {"a", "c", "d"} and o.provenance["iteration"] in (1, 2) for o in outputs)
    assert progress[0] == (0, 4) and progress[-1] == (4, 4)
    assert run.summary is not None and run.summary.outputs == 6 and run.plan["workers"] == 1
    assert run.config.iterations == 2 and run.config.generator.name == FAKE["generator"]
    from paraspan.pipeline.store import RunStore

    with RunStore.open(tmp_path / "run.db", readonly=True) as store:  # the store keeps the run
        assert store.counts()["outputs"] == 6
        assert store.get_meta("corpus") is None  # a list: no corpus file to name
    # the default filter is `verified`; with it, an iteration's output is one it kept
    assert paraspan.augment(SENTENCES, workers=1, **FAKE).config.choose_by == "verified"


def test_one_sentence_per_output_text_with_every_structure(tmp_path) -> None:
    merged = list(paraspan.augment([TWO_FRAMES], filters="all", iterations=1, workers=1, **FAKE))
    assert len(merged) == 1
    only = merged[0]
    assert only.text == "The farmer traded his tractor." and [s.label for s in only.structures] == [
        "Commerce_sell", "Giving"]
    assert only.provenance["merged"] == ["e~s0i1", "e~s1i1"]
    split = list(paraspan.augment([TWO_FRAMES], filters="all", iterations=1, workers=1, per_structure=True, **FAKE))
    assert [len(s.structures) for s in split] == [1, 1] and {s.text for s in split} == {only.text}
    # the CLI writes the same: -o once with both frames, --per-structure the old shape, the store both rows
    corpus = write_corpus(tmp_path / "c.jsonl", [TWO_FRAMES])
    assert main(["augment", str(corpus), "-o", str(tmp_path / "m.jsonl"), "-k", "1", "--store",
                 str(tmp_path / "run.db"), *FAKE_ARGS]) == 0
    rows = _lines(tmp_path / "m.jsonl")
    assert len(rows) == 1 and len(rows[0]["structures"]) == 2
    assert main(["augment", str(corpus), "-o", str(tmp_path / "p.jsonl"), "-k", "1", "--per-structure",
                 *FAKE_ARGS]) == 0
    assert [len(r["structures"]) for r in _lines(tmp_path / "p.jsonl")] == [1, 1]
    assert main(["export", str(tmp_path / "run.db"), "-o", str(tmp_path / "x.jsonl"), "--per-structure"]) == 0
    assert len(_lines(tmp_path / "x.jsonl")) == 2
    assert main(["export", str(tmp_path / "run.db"), "-o", str(tmp_path / "y.jsonl")]) == 0
    assert _lines(tmp_path / "y.jsonl") == rows


def test_merge_outputs_keeps_each_structure_once_and_the_first_provenance() -> None:
    from paraspan.pipeline.run import merge_outputs

    entity = {"kind": "entity", "label": "PER", "anchor": {"start": 0, "end": 4, "label": None}, "args": []}
    place = {"kind": "entity", "label": "LOC", "anchor": {"start": 14, "end": 18, "label": None}, "args": []}
    rows = [Sentence.from_dict({"id": f"s~s{i}i1", "text": "Anna moved to Oslo.", "structures": structures,
                                "source_id": "s", "provenance": {"structure": i}})
            for i, structures in enumerate([[entity, place], [place, entity]])]
    rows.append(Sentence.from_dict({"id": "s~s0i2", "text": "Anna went to Oslo.", "structures": [entity],
                                    "source_id": "s", "provenance": {"structure": 0}}))
    rows.append(Sentence.from_dict({"id": "t~s0i1", "text": "Anna moved to Oslo.", "structures": [entity],
                                    "source_id": "t", "provenance": {"structure": 0}}))
    out = list(merge_outputs(rows))
    assert [(s.id, len(s.structures)) for s in out] == [("s~s0i1", 2), ("s~s0i2", 1), ("t~s0i1", 1)]
    assert out[0].provenance == {"structure": 0, "merged": ["s~s0i1", "s~s1i1"]}
    assert "merged" not in out[1].provenance and rows[0].provenance == {"structure": 0}  # inputs untouched


def test_api_and_cli_write_the_same_bytes(tmp_path) -> None:
    corpus = write_corpus(tmp_path / "corpus.jsonl", [*SENTENCES, TWO_FRAMES])
    assert main(["augment", str(corpus), "-o", str(tmp_path / "cli.jsonl"), "-k", "2", *FAKE_ARGS]) == 0
    outputs = list(paraspan.augment(paraspan.read(corpus), filters="all", iterations=2, workers=1, **FAKE))
    assert paraspan.write(outputs, tmp_path / "api.jsonl") == len(outputs)
    assert (tmp_path / "api.jsonl").read_bytes() == (tmp_path / "cli.jsonl").read_bytes()


def test_augment_reads_every_format(tmp_path, capsys) -> None:
    conll = tmp_path / "train.conll"
    conll.write_text("The\tO\nteacher\tB-PER\narrived\tO\n.\tO\n\nNo\tO\nnames\tO\n\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["augment", str(conll), "--from", "bio", "-o", str(out), "-k", "1", *FAKE_ARGS]) == 0
    rows = _lines(out)
    assert [r["text"] for r in rows] == ["The tutor arrived."]
    assert rows[0]["structures"][0]["kind"] == "entity" and rows[0]["source_id"] == "train:1"
    summary = json.loads((tmp_path / "out.summary.json").read_text())
    assert summary["inputs"] == 2 and summary["per_structure"] is False
    # the API names the corpus file in the store (the spaCy augmenter reports it)
    from paraspan.pipeline.store import RunStore

    list(paraspan.augment(paraspan.read(conll, "bio"), filters="all", iterations=1, workers=1,
                          store=tmp_path / "run.db", **FAKE))
    with RunStore.open(tmp_path / "run.db", readonly=True) as store:
        assert store.get_meta("corpus") == {"name": str(conll)}


def test_read_and_write_round_trip_and_refuse_writing_over_the_input(tmp_path) -> None:
    corpus = write_corpus(tmp_path / "corpus.jsonl", SENTENCES)
    assert paraspan.write(paraspan.read(corpus), tmp_path / "copy.jsonl") == 4
    assert [s.to_dict() for s in paraspan.read(tmp_path / "copy.jsonl")] == [s.to_dict() for s in paraspan.read(corpus)]
    before = corpus.read_bytes()
    with pytest.raises(ValueError, match="the output is the file the sentences are read from") as caught:
        paraspan.write(paraspan.read(corpus), str(corpus))
    assert isinstance(caught.value, ParaspanError) and caught.value.code == "E983"
    assert corpus.read_bytes() == before  # untouched
    with pytest.raises(ParaspanError, match="cannot tell the format"):
        paraspan.read(tmp_path / "corpus.unknown")
    assert paraspan.write(SENTENCES, tmp_path / "dicts.jsonl") == 4  # corpus-schema dicts are sentences too
    with pytest.raises(TypeError, match="paraspan.write got a str"):
        paraspan.write("corpus.jsonl", tmp_path / "x.jsonl")
    with pytest.raises(ValueError, match="item 0 is not a sentence"):
        paraspan.write([{"id": "x"}], tmp_path / "x.jsonl")
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize(("given", "error", "words"), [
    ("corpus.jsonl", TypeError, "got a str ('corpus.jsonl'): expected an iterable of paraspan.Sentence"),
    (Path("corpus.jsonl"), TypeError, "got a PosixPath"),
    (SENTENCES[0], TypeError, "got a single dict"),
    (42, TypeError, "got a int"),
    ([{"id": "x", "words": ["a"]}], ValueError, "item 0 is not a sentence of the corpus schema: 'text' must be"),
    ([SENTENCES[0], {"id": "y", "text": "Hi.", "structures": [{"kind": "nope"}]}], ValueError, "item 1"),
    ([SENTENCES[0], "a sentence"], TypeError, "got a str as item 1"),
])
def test_augment_refuses_what_is_not_a_corpus(given, error, words) -> None:
    with pytest.raises(error) as caught:
        paraspan.augment(given, workers=1, **FAKE)
    assert isinstance(caught.value, ParaspanError) and caught.value.code in ("E980", "E981")
    assert words in str(caught.value)


def test_a_stream_is_checked_as_it_is_read_and_bad_options_are_refused(tmp_path) -> None:
    stream = iter([SENTENCES[0], {"id": "z"}])
    run = paraspan.augment(stream, filters="all", workers=1, **FAKE)
    with pytest.raises(ValueError, match="item 1 is not a sentence"):
        list(run)
    with pytest.raises(ValueError, match="resume=True needs the store of the run"):
        paraspan.augment(SENTENCES, resume=True, workers=1, **FAKE)
    with pytest.raises(ParaspanError, match="there is no run store here"):
        paraspan.augment(SENTENCES, resume=True, store=tmp_path / "missing.db", workers=1, **FAKE)
    with pytest.raises(ParaspanError, match="unknown"):
        paraspan.augment(SENTENCES, generator="no-such-generator", workers=1)
    store = tmp_path / "run.db"
    list(paraspan.augment(SENTENCES, filters="all", iterations=1, workers=1, store=store, **FAKE))
    with pytest.raises(ParaspanError, match="already exists"):  # raised where the caller iterates
        list(paraspan.augment(SENTENCES, filters="all", iterations=1, workers=1, store=store, **FAKE))


def test_leaving_the_loop_early_stops_the_run(tmp_path) -> None:
    rows = [{**s, "id": f"{s['id']}{i}"} for i in range(6) for s in SENTENCES]
    with paraspan.augment(rows, filters="all", iterations=1, workers=1, store=tmp_path / "run.db",
                          overrides=["sentences_per_batch=1"], **FAKE) as run:
        first = next(run)
    assert first.source_id == "a0" and run.summary is None
    from paraspan.pipeline.store import RunStore

    with RunStore.open(tmp_path / "run.db", readonly=True) as store:
        assert store.count_inputs("pending") > 0  # stopped: the rest waits for a resume
        assert store.conn.execute("SELECT status FROM runs").fetchone()[0] == "interrupted"
    resumed = list(paraspan.augment(rows, filters="all", iterations=1, workers=1, store=tmp_path / "run.db",
                                    resume=True, overrides=["sentences_per_batch=1"], **FAKE))
    assert first.source_id not in {s.source_id for s in resumed} and len(resumed) >= 1


def readme_quickstart() -> str:
    """The first Python block of README.md's "Python API" section, as written there."""
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


@pytest.mark.slow
def test_readme_quickstart_runs_as_written(tmp_path, monkeypatch, capsys) -> None:
    code = readme_quickstart()
    assert "paraspan.augment(" in code and len(code.splitlines()) <= 10
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md (Python API)", "exec"), {"__name__": "__quickstart__"})
    written = _lines(tmp_path / "augmented.jsonl")
    assert written and all(r["source_id"] and r["provenance"]["filters"]["verified"] for r in written)
    assert len({(r["source_id"], r["text"]) for r in written}) == len(written)  # each text once
    assert f"{written[0]['source_id']} → {written[0]['text']}" in capsys.readouterr().out
