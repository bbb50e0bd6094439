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


# -- usage errors: one line, exit 2, whichever click the installed typer uses --------------------------------


def _leaf_commands() -> list[tuple[list[str], object]]:
    import typer

    from paraspan.cli.main import app

    found: list[tuple[list[str], object]] = []

    def walk(command: object, path: list[str]) -> None:
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
        else:
            found.append((path, command))

    walk(typer.main.get_command(app), [])
    return found


def _one_usage_line(err: str, path: list[str]) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"error [usage] paraspan {' '.join(path)}".rstrip()), err
    assert "Traceback" not in err and "--help" in lines[0]


def test_every_command_unknown_option_is_one_usage_line(capsys):
    commands = _leaf_commands()
    assert len(commands) > 20
    for path, _ in commands:
        assert main([*path, "--no-such-option"]) == 2, path
        _one_usage_line(capsys.readouterr().err, path)


def test_every_command_missing_argument_is_one_usage_line(capsys):
    checked = 0
    for path, command in _leaf_commands():
        if not any(getattr(p, "required", False) for p in getattr(command, "params", [])):
            continue  # runs without arguments (doctor, formats): not a usage error
        assert main(path) == 2, path
        _one_usage_line(capsys.readouterr().err, path)
        checked += 1
    assert checked > 10


def test_usage_errors_from_the_issue(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(GOOD) + "\n")
    for argv in (["convert", str(src)], ["stats", "--top", "abc", str(src)], ["nosuchcmd"],
                 ["augment", str(src), "-o", str(tmp_path / "x.jsonl"), "--iterations", "0"],
                 ["convert", str(src), "-o", str(tmp_path / "o.jsonl"), "--limit", "-1"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("error [usage] paraspan") and err.count("\n") == 1, err


def test_usage_error_in_a_subprocess_has_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "paraspan", "stats", "--top", "abc", "x.jsonl"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "Invalid value for '--top'" in proc.stderr


# -- never write over an input ---------------------------------------------------------------------------------


def test_convert_refuses_to_write_over_its_input_or_a_folder(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(GOOD) + "\n")
    before = src.read_bytes()
    assert main(["convert", str(src), "-o", str(src)]) == 1
    assert "[E040]" in capsys.readouterr().err
    link = tmp_path / "link.jsonl"
    link.symlink_to(src)
    assert main(["convert", str(src), "-o", str(link), "--to", "bio"]) == 1  # the same file by another name
    assert "[E040]" in capsys.readouterr().err
    assert main(["convert", str(src), "-o", str(tmp_path)]) == 1
    assert "[E041]" in capsys.readouterr().err
    assert src.read_bytes() == before


def test_any_command_with_o_refuses_its_input(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(GOOD) + "\n")
    assert main(["train-filter", str(src), "--outputs", str(src), "-o", str(src)]) == 1
    assert "[E040]" in capsys.readouterr().err
    assert src.read_text() == json.dumps(GOOD) + "\n"


# -- what writers cannot hold -----------------------------------------------------------------------------------


FRAME = {"id": "f", "text": "The farmer sold it.", "structures": [
    {"kind": "frame", "label": "Commerce_sell", "anchor": {"start": 11, "end": 15, "label": "sell.v"}, "args": []}],
    "meta": {}}


def test_convert_to_bio_counts_what_it_left_out_or_refuses_with_strict(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(GOOD) + "\n" + json.dumps(FRAME) + "\n")
    out = tmp_path / "out.bio"
    assert main(["convert", str(src), "-o", str(out)]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "bio: 1 frame structure(s) left out" in err
    assert "wrote 2 sentences (1 structures; 1 the format cannot hold were left out)" in err
    out.unlink()
    assert main(["convert", str(src), "-o", str(out), "--strict"]) == 1
    assert "[E043]" in capsys.readouterr().err
    assert not out.exists()


def test_stats_of_a_conll_file_asks_for_from(tmp_path, capsys):
    src = tmp_path / "demo.conll"
    src.write_text("1\tword\tsell.v\tCommerce_sell\tO\n")
    assert main(["stats", str(src)]) == 1
    err = capsys.readouterr().err
    assert "[E021]" in err and "--from" in err and "malformed JSON" not in err


def test_jsonl_gz_is_read(tmp_path, capsys):
    import gzip

    src = tmp_path / "in.jsonl.gz"
    src.write_bytes(gzip.compress((json.dumps(GOOD) + "\n").encode()))
    assert main(["stats", str(src), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sentences"] == 1


# -- SIGTERM: the run is marked interrupted, a temporary store removed -------------------------------------------


def _augment_until_started(tmp_path, extra: list[str], env: dict[str, str]) -> subprocess.Popen:
    import time
    from pathlib import Path

    from tests.pipeline.conftest import SENTENCES, write_corpus

    repo = Path(__file__).resolve().parents[2]
    corpus = write_corpus(tmp_path / "c.jsonl", SENTENCES * 1)
    cmd = [sys.executable, "-m", "paraspan", "augment", str(corpus), "-o", str(tmp_path / "out.jsonl"),
           "--set", "generator.delay=0.5", "--filter", "all", "--generator", "tests.pipeline.fakes:make_generator",
           "--aligner", "tests.pipeline.fakes:make_aligner", "--no-progress", "--workers", "1", *extra]
    proc = subprocess.Popen(cmd, cwd=repo, env={**env, "PYTHONPATH": str(repo)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
        if list(Path(env.get("TMPDIR", tmp_path)).glob("paraspan-run-*/run.db")) or _running(tmp_path):
            break
    time.sleep(2.0)
    return proc


def _running(tmp_path) -> bool:
    import sqlite3

    store = tmp_path / "run.db"
    if not store.exists():
        return False
    try:
        with sqlite3.connect(store, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM runs WHERE status = 'running'").fetchone()[0] > 0
    except sqlite3.OperationalError:
        return False


def test_sigterm_marks_the_run_interrupted(tmp_path):
    import os
    import signal
    import sqlite3

    proc = _augment_until_started(tmp_path, ["--store", str(tmp_path / "run.db")], dict(os.environ))
    assert proc.poll() is None, proc.stderr.read()[-2000:]
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert proc.returncode == 130
    assert "Traceback" not in proc.stderr.read()
    with sqlite3.connect(tmp_path / "run.db") as conn:
        assert [r[0] for r in conn.execute("SELECT status FROM runs")] == ["interrupted"]


def test_sigterm_removes_the_temporary_store(tmp_path):
    import os
    import signal

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    proc = _augment_until_started(tmp_path, [], {**os.environ, "TMPDIR": str(scratch)})
    assert proc.poll() is None, proc.stderr.read()[-2000:]
    assert list(scratch.glob("paraspan-run-*"))
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert proc.returncode == 130
    assert not list(scratch.glob("paraspan-run-*"))
