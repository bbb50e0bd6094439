"""``paraspan relabel`` and ``paraspan train-nli`` end to end on tiny files."""

from __future__ import annotations

import json

from paraspan.cli.main import main

ROWS = [
    {"id": "a", "s1": "A man is playing a guitar.", "s2": "A man is playing an instrument."},
    {"id": "b", "s1": "A woman is slicing an onion.", "s2": "There is no woman slicing an onion."},
    {"id": "c", "s1": "The cat sat.", "s2": "The cat sat."},
    {"id": "d", "s1": "", "s2": "Something."},
]


def _write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_relabel_end_to_end(tmp_path, capsys):
    src, out, summary = _write(tmp_path / "pairs.jsonl", ROWS), tmp_path / "out.jsonl", tmp_path / "summary.json"
    assert main(["relabel", str(src), "-o", str(out), "--json", "--summary", str(summary), "--threads", "1"]) == 0
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["a", "b", "c", "d"]
    assert [r["relation"] for r in rows] == ["forward_entailment", "negation", "equivalence", "other"]
    first = rows[0]
    assert (first["forward"], first["backward"], first["agree"], first["judge"]) == (
        "entailment", "neutral", None, "minilm-nli")
    assert set(first["p_forward"]) == {"entailment", "neutral", "contradiction"} and first["truncated"] is False
    assert "identical" in rows[2]["note"] and "empty" in rows[3]["note"] and rows[3]["forward"] is None
    data = json.loads(captured.out)
    assert data["pairs"] == 4 and data["judges"] == ["minilm-nli"]
    assert data["relations"]["negation"]["pairs"] == 1 and "combinations" in data
    assert json.loads(summary.read_text()) == data
    assert "wrote 4 pairs" in captured.err


def test_relabel_prints_tables(tmp_path, capsys):
    src = _write(tmp_path / "pairs.jsonl", ROWS[:1])
    assert main(["relabel", str(src), "-o", str(tmp_path / "o.jsonl"), "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "Table 8" in out and "forward_entailment" in out and "ROUGE-L" in out


def test_relabel_malformed_mrpc_line(tmp_path, capsys):
    src = tmp_path / "msr-para-val.tsv"
    src.write_text("Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tA.\tB.\n1\t3\t4\tno second sentence\n",
                   encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["relabel", str(src), "-o", str(out), "--judges", "llm:/nonexistent.gguf"]) == 1
    err = capsys.readouterr().err
    assert f"{src}:3: expected 5 tab-separated fields" in err and "Traceback" not in err
    assert "nonexistent" not in err  # the file is checked before any model is loaded
    assert not out.exists()


def test_relabel_unknown_judge(tmp_path, capsys):
    src = _write(tmp_path / "pairs.jsonl", ROWS[:1])
    assert main(["relabel", str(src), "-o", str(tmp_path / "o.jsonl"), "--judges", "bert"]) == 1
    assert "unknown judge 'bert'" in capsys.readouterr().err


SICK_HEAD = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
SICK_ROWS = [
    ("A man is playing a guitar", "A man is playing an instrument", "ENTAILMENT"),
    ("A man is playing a guitar", "Nobody is playing a guitar", "CONTRADICTION"),
    ("A dog runs in the grass", "A cat sleeps on a sofa", "NEUTRAL"),
    ("A woman is cutting an onion", "A woman is cutting a vegetable", "ENTAILMENT"),
    ("A woman is cutting an onion", "No woman is cutting an onion", "CONTRADICTION"),
    ("Two kids are swimming", "A man is riding a horse", "NEUTRAL"),
]


def test_train_nli_then_relabel_with_its_weights(tmp_path, capsys):
    sick = tmp_path / "SICK_tiny.txt"
    sick.write_text(SICK_HEAD + "".join(f"{i}\t{a}\t{b}\t4.0\t{c}\n" for i, (a, b, c) in enumerate(SICK_ROWS * 3)),
                    encoding="utf-8")
    weights = tmp_path / "nli"
    args = ["train-nli", str(sick), "-o", str(weights), "--dev", str(sick), "--epochs", "1", "--train-layers", "1",
            "--batch-size", "4", "--threads", "1"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "trained on 18 pairs" in err and "SICK_tiny" in err
    info = json.loads((weights / "minilm-nli.json").read_text())
    assert info["recipe"]["train_layers"] == 1 and info["data"][0]["pairs"] == 18
    assert (weights / "minilm-nli.safetensors").stat().st_size < 5_000_000
    src, out = _write(tmp_path / "pairs.jsonl", ROWS[:2]), tmp_path / "out.jsonl"
    assert main(["relabel", str(src), "-o", str(out), "--judges", f"minilm-nli:{weights}", "--json"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["judge"] == f"minilm-nli:{weights}" and rows[0]["relation"] in (
        "equivalence", "forward_entailment", "reverse_entailment", "negation", "alternation", "other")


def test_train_nli_missing_file(tmp_path, capsys):
    assert main(["train-nli", str(tmp_path / "nope.txt")]) == 1
    assert f"{tmp_path / 'nope.txt'}: no such file" in capsys.readouterr().err
