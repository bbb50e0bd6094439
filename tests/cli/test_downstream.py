from __future__ import annotations

import json

import pytest

from paraspan.cli.main import main
from tests.evaluate.downstream.toy import frame_corpus


def _write(path, sentences):
    path.write_text("".join(json.dumps(s.to_dict()) + "\n" for s in sentences), encoding="utf-8")
    return path


def _train_dev_and_copies(tmp_path, count):
    """A train and a dev file, and ``aug.jsonl``: one near-copy of each train sentence (an augmenter's output)."""
    train = _write(tmp_path / "train.jsonl", frame_corpus(count))
    dev = _write(tmp_path / "dev.jsonl", frame_corpus(6, offset=50))
    aug = []
    for s in frame_corpus(count):
        d = s.to_dict()
        d["id"], d["source_id"], d["text"] = s.id + "~x", s.id, s.text.replace(" yesterday", " today    ")
        aug.append(d)
    (tmp_path / "aug.jsonl").write_text("".join(json.dumps(d) + "\n" for d in aug))
    return train, dev


@pytest.mark.slow
def test_downstream_frame_id_with_jsonl_augmentation(tmp_path, capsys):
    train, dev = _train_dev_and_copies(tmp_path, 24)
    out = tmp_path / "res.json"
    code = main(["evaluate", "downstream", "--task", "frame_id", "--train", str(train), "--eval", f"dev={dev}",
                 "--augment", f"jsonl:{tmp_path / 'aug.jsonl'}", "--no-lexsub", "--percents", "50,100",
                 "--seeds", "2", "--epochs", "2", "-o", str(out), "--plot", str(tmp_path / "c.png"),
                 "--cache-dir", str(tmp_path / "cache")])
    assert code == 0, capsys.readouterr().err
    data = json.loads(out.read_text())
    assert set(data["frame_id"]) == {"50", "100"}
    point = data["frame_id"]["50"]
    assert len(point["base"]) == 2 and len(point["augmented"]) == 2 and point["n_augmented"] == [12, 12]
    assert data["meta"]["frame_id"]["augmenter"].startswith("jsonl:")
    assert (tmp_path / "c.png").stat().st_size > 1000


def test_downstream_bad_input_is_one_line_and_exit_1(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    dev = _write(tmp_path / "dev.jsonl", frame_corpus(2))
    assert main(["evaluate", "downstream", "--task", "frame_id", "--train", str(empty), "--eval", f"dev={dev}"]) == 1
    err = capsys.readouterr().err
    assert "training corpus is empty" in err and "Traceback" not in err
    assert main(["evaluate", "downstream", "--task", "ner", "--train", str(dev), "--eval", f"dev={dev}"]) == 1
    assert "no entity structures" in capsys.readouterr().err
    assert main(["evaluate", "downstream", "--task", "srl", "--train", str(dev)]) == 1
    assert "no evaluation set" in capsys.readouterr().err
    assert main(["evaluate", "downstream", "--task", "frame_id", "--train", str(dev), "--eval", f"dev={dev}",
                 "--percents", "0,200"]) == 1
    assert "1..100" in capsys.readouterr().err
    assert main(["evaluate", "downstream", "--task", "ner", "--train", str(dev), "--eval", f"dev={dev}",
                 "--ner-budget", "twice"]) == 1
    err = capsys.readouterr().err
    assert "E945" in err and "choose all or gold" in err and "Traceback" not in err


@pytest.mark.slow
def test_downstream_with_a_generator_through_the_pipeline(tmp_path, capsys):
    # the pipeline tests' rule-based fake generator and aligner: "stole" has no synonym, so its
    # sentences get no output; the run store is kept in --store-dir and reused by the second call
    train = _write(tmp_path / "train.jsonl", frame_corpus(12))
    dev = _write(tmp_path / "dev.jsonl", frame_corpus(6, offset=50))
    out = tmp_path / "res.json"
    args = ["evaluate", "downstream", "--task", "frame_id", "--train", str(train), "--eval", f"dev={dev}",
            "--augment", "generator:tests.pipeline.fakes:make_generator", "--filter", "iter1",
            "--store-dir", str(tmp_path / "stores"), "--set", "aligner=tests.pipeline.fakes:make_aligner",
            "--set", "iterations=2", "--no-lexsub", "--percents", "100", "--seeds", "1", "--epochs", "1",
            "-o", str(out), "--cache-dir", str(tmp_path / "cache")]
    assert main(args) == 0, capsys.readouterr().err
    [store] = list((tmp_path / "stores").glob("*.db"))
    assert store.name.startswith("train-")
    data = json.loads(out.read_text())
    # iter1: one output per structure with a synonym (8 of the 12), none of a later iteration
    assert data["frame_id"]["100"]["n_augmented"] == [8]
    assert data["meta"]["frame_id"]["filter"] == "iter1"
    assert data["meta"]["frame_id"]["settings"] == ["aligner=tests.pipeline.fakes:make_aligner", "iterations=2"]
    assert main(args) == 0  # the same settings: the same store, nothing generated again
    assert list((tmp_path / "stores").glob("*.db")) == [store]


def test_downstream_generator_options_are_checked_before_any_training(tmp_path, capsys):
    train = _write(tmp_path / "train.jsonl", frame_corpus(4))
    base = ["evaluate", "downstream", "--task", "frame_id", "--train", str(train), "--eval", f"dev={train}",
            "-o", str(tmp_path / "res.json")]
    assert main([*base, "--augment", "generator:no_such_generator"]) == 1
    err = capsys.readouterr().err
    assert "no_such_generator" in err and "Traceback" not in err
    assert main([*base, "--augment", "generator:rewrite", "--set", "no_such_key=1"]) == 1
    err = capsys.readouterr().err
    assert "no_such_key" in err and "Traceback" not in err
    assert not (tmp_path / "res.json").exists()


def test_downstream_refuses_a_results_file_of_another_setting_before_training(tmp_path, capsys):
    train = _write(tmp_path / "train.jsonl", frame_corpus(12))
    dev = _write(tmp_path / "dev.jsonl", frame_corpus(4, offset=50))
    out = tmp_path / "res.json"
    # a curve of the same task, run with another augmenter into this file earlier
    out.write_text(json.dumps({"frame_id": {"100": {"seeds": [0], "base": [50.0]}},
                               "meta": {"frame_id": {"augmenter": "rewrite", "train_sentences": 12}}}))
    before = out.read_text()
    assert main(["evaluate", "downstream", "--task", "frame_id", "--train", str(train), "--eval", f"dev={dev}",
                 "--augment", "none", "--percents", "100", "--seeds", "1", "-o", str(out),
                 "--cache-dir", str(tmp_path / "cache")]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "E931" in err and "augmenter: 'rewrite' there, 'none' here" in err and "Traceback" not in err
    assert out.read_text() == before


def test_downstream_a_budget_out_of_range_is_one_line(tmp_path, capsys):
    dev = _write(tmp_path / "dev.jsonl", frame_corpus(4))
    assert main(["evaluate", "downstream", "--task", "srl", "--train", str(dev), "--eval", f"dev={dev}",
                 "--augment", "rewrite", "--augment-budget", "0"]) == 1
    err = capsys.readouterr().err
    assert "E940" in err and "--augment-budget 0 is not in (0, 100]" in err and "Traceback" not in err


@pytest.mark.slow
def test_downstream_srl_with_a_budget_copies_and_held_aside_gold(tmp_path, capsys):
    train, dev = _train_dev_and_copies(tmp_path, 32)  # 25%: 8 sentences; 12.5% of 32: 4 generated
    out = tmp_path / "res.json"
    code = main(["evaluate", "downstream", "--task", "srl", "--train", str(train), "--eval", f"dev={dev}",
                 "--augment", f"jsonl-corpus:{tmp_path / 'aug.jsonl'}", "--no-lexsub", "--percents", "25",
                 "--seeds", "2", "--augment-budget", "12.5", "--augment-chunk", "2", "--copy-control", "--gold-control",
                 "--epochs", "1", "-o", str(out), "--cache-dir", str(tmp_path / "cache")])
    assert code == 0, capsys.readouterr().err
    data = json.loads(out.read_text())
    point = data["srl"]["25"]
    assert point["n_augmented"] == point["n_gold"] == [4, 4] and len(point["gold"]) == len(point["copy"]) == 2
    assert [r["sentences_used"] for r in point["budget"]] == [4, 4]
    assert "augmented_over_gold" in point["gain"] and "gold" in point["gain"]
    assert data["meta"]["srl"]["augment_budget"] == {"percent": 12.5, "count": 4, "chunk": 2,
                                                     "of": "the full training set"}
