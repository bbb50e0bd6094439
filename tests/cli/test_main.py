from __future__ import annotations

import json
import subprocess
import sys

from paraspan.cli.main import main

GOOD = {"id": "a", "text": "Anna lives in Oslo.", "structures": [
    {"kind": "entity", "label": "PER", "anchor": {"start": 0, "end": 4, "label": None}, "args": []}], "meta": {}}


def test_convert_jsonl_to_jsonl_and_stats_json(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    assert main(["convert", str(src), "-o", str(tmp_path / "out.jsonl")]) == 0
    assert (tmp_path / "out.jsonl").read_bytes() == src.read_bytes()
    capsys.readouterr()
    assert main(["stats", str(src), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sentences"] == 1
    assert data["structures"] == {"entity": 1}
    assert data["labels"]["entity"] == {"PER": 1}


def test_bad_input_gives_file_line_and_no_traceback(tmp_path):
    src = tmp_path / "bad.jsonl"
    src.write_text(json.dumps(GOOD) + "\n" + '{"id": "b", "text": "x", "structures": [{"kind": "nope", "label": "L"}]}\n')
    proc = subprocess.run([sys.executable, "-m", "paraspan.cli.main", "convert", str(src), "-o", str(tmp_path / "o.jsonl")],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"{src}:2: structures[0]: unknown kind 'nope'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "o.jsonl").exists()  # nothing half-written


def test_validate_lists_all_problems(tmp_path, capsys):
    src = tmp_path / "bad.jsonl"
    src.write_text("{oops\n" + json.dumps(GOOD) + "\n" + '{"id": 3}\n')
    assert main(["validate", str(src)]) == 1
    err = capsys.readouterr().err
    assert f"{src}:1:" in err and f"{src}:3:" in err


def test_unknown_format_and_inapplicable_option(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(GOOD) + "\n")
    assert main(["convert", str(src), "-o", str(tmp_path / "o"), "--from", "xml"]) == 1
    assert "unknown reader 'xml'" in capsys.readouterr().err
    assert main(["convert", str(src), "-o", str(tmp_path / "o.jsonl"), "--split", "dev"]) == 1
    assert "--split does not apply" in capsys.readouterr().err


def test_missing_file(tmp_path, capsys):
    assert main(["stats", str(tmp_path / "missing.jsonl")]) == 1
    assert "no such file" in capsys.readouterr().err


def test_formats_lists_readers_and_writers(capsys):
    assert main(["formats"]) == 0
    out = capsys.readouterr().out
    for name in ("jsonl", "framenet", "opensesame", "conllu-srl", "conll2009", "bio", "docbin"):
        assert name in out


def test_demo_writes_every_format(tmp_path):
    assert main(["demo", "-o", str(tmp_path)]) == 0
    stats = json.loads((tmp_path / "stats.json").read_text())
    assert stats["sentences"] == 12 and stats["structures"] == {"frame": 12}
    for name in ("demo.jsonl", "demo.conll", "demo.spacy"):
        assert (tmp_path / name).stat().st_size > 0


def test_version(capsys):
    assert main(["--version"]) == 0
    assert "paraspan" in capsys.readouterr().out
