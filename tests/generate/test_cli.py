"""``paraspan paraphrase`` and ``paraspan evaluate diversity``."""

from __future__ import annotations

import json
import subprocess
import sys

from paraspan.cli.main import main

TEXT = "The company sold its shares to investors in March."
GOOD = {"id": "a", "text": TEXT, "ban": [[12, 16]], "keep": [[41, 49]]}


def _write(path, rows) -> None:  # type: ignore[no-untyped-def]
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows),
                    encoding="utf-8")


def test_malformed_jsonl_gives_file_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.jsonl"
    _write(src, [GOOD, "{oops"])
    out = tmp_path / "out.jsonl"
    proc = subprocess.run([sys.executable, "-m", "paraspan.cli.main", "paraphrase", str(src), "-o", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"{src}:2: malformed JSON" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_every_bad_line_is_reported_before_any_model_work(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.jsonl"
    _write(src, [
        GOOD,
        {"id": "b", "text": "Short.", "ban": [[0, 99]]},
        {"id": "c", "text": TEXT, "ban": [[12, 16]], "keep": [[10, 20]]},
        {"text": "no id"},
        {"id": "a", "text": "duplicate id"},
        ["not", "an", "object"],
        {"id": "d", "text": TEXT, "keep": [[3, "x"]]},
    ])
    assert main(["paraphrase", str(src), "-o", str(tmp_path / "o.jsonl"), "--model", "/nonexistent.gguf"]) == 1
    err = capsys.readouterr().err
    for line, what in ((2, "out of range"), (3, "both banned and kept"), (4, '"id"'), (5, "duplicate id"),
                       (6, "expected a JSON object"), (7, "two integers")):
        assert f"{src}:{line}:" in err and what in err, (line, err)
    assert f"{src}:1:" not in err
    assert "no such llm model" not in err  # the model is never loaded for a bad file


def test_paraphrase_end_to_end_on_the_small_model(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.jsonl"
    _write(src, [GOOD, {"id": 2, "text": ""}, {"id": "sym", "text": "$$ %% !!"},
                 {"id": "ru", "text": "Это предложение на русском языке."}])
    out = tmp_path / "out.jsonl"
    args = ["paraphrase", str(src), "-o", str(out), "--model", "small", "--n", "2", "--samples", "2",
            "--constraint-sets", "2", "--threads", "1", "--parallel", "4", "--n-ctx", "1024", "--report"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "paraphrase report" in err and "banned forms in output" in err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["a", 2, "sym", "ru"]
    assert rows[1]["paraphrases"] == [] and rows[1]["note"] == "empty text"
    assert "no letters" in rows[2]["note"] and "not English" in rows[3]["note"]
    for para in rows[0]["paraphrases"]:
        assert set(para) == {"text", "forward", "backward", "score", "cluster"}
        assert "sold" not in para["text"].lower() and "in March" in para["text"]
    if not rows[0]["paraphrases"]:
        assert "note" in rows[0]

    assert main(["evaluate", "diversity", str(out), "--no-trees"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sources"] == (1 if rows[0]["paraphrases"] else 0)


def test_paraphrase_output_does_not_depend_on_the_worker_count(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.jsonl"
    _write(src, [GOOD, {"id": "b", "text": "My sister bought a small red bicycle yesterday.", "ban": [[10, 16]]},
                 {"id": "c", "text": "The train arrived late at the station."}])
    lines = {}
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}.jsonl"
        assert main(["paraphrase", str(src), "-o", str(out), "--model", "small", "--n", "2", "--samples", "2",
                     "--constraint-sets", "2", "--threads", "1", "--parallel", "4", "--n-ctx", "1024",
                     "--no-progress", "--workers", workers]) == 0
        lines[workers] = out.read_text(encoding="utf-8")
        err = capsys.readouterr().err
        assert "wrote 3 lines" in err and f"{workers} asked for" in err and "× 1 thread" in err
    assert lines["1"] == lines["2"] and len(lines["1"].splitlines()) == 3
    assert main(["paraphrase", str(src), "-o", str(tmp_path / "o.jsonl"), "--workers", "0"]) == 1
    assert "--workers '0'" in capsys.readouterr().err
