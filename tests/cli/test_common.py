"""The shared CLI pieces: reader options, format choice, progress displays."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from paraspan.cli import common
from paraspan.errors import ParaspanError

GOOD = {"id": "s1", "text": "Anna sold it .", "structures": []}


def test_reader_options_leave_out_what_was_not_given() -> None:
    assert common.reader_options() == {}
    assert common.reader_options(split="dev", splits=Path("s.json"), trim_punct=True) == {
        "split": "dev", "splits": Path("s.json"), "trim_punct": True}


def test_input_format_from_flag_name_or_default(tmp_path: Path) -> None:
    assert common.input_format(tmp_path / "a.conllu", None) == "conllu-srl"
    assert common.input_format(tmp_path / "a.conllu", "jsonl") == "jsonl"
    assert common.input_format(tmp_path / "a.txt", None) == "jsonl"
    with pytest.raises(ParaspanError, match="cannot tell the format"):
        common.input_format(tmp_path / "a.txt", None, default=None)


def test_read_input_stops_at_the_limit(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({**GOOD, "id": f"s{i}"}) + "\n" for i in range(3)))
    assert [s.id for s in common.read_input(src, None, limit=2)] == ["s0", "s1"]


def test_progress_passes_items_through_when_off_and_on(monkeypatch: pytest.MonkeyPatch) -> None:
    assert list(common.progress(iter(range(4)), "counting", enabled=False)) == [0, 1, 2, 3]
    # Drawn (into a buffer) when stderr is a terminal.
    monkeypatch.setattr(common, "show_progress", lambda enabled: enabled)
    monkeypatch.setattr(common, "console", lambda: Console(file=io.StringIO(), force_terminal=True))
    assert list(common.progress(iter(range(4)), "counting", enabled=True, total=4)) == [0, 1, 2, 3]


def test_progress_bar_is_a_callback_for_library_code(monkeypatch: pytest.MonkeyPatch) -> None:
    with common.ProgressBar("off", 3, enabled=False) as bar:
        bar(1, 3, outputs=2)
        bar.advance()
        bar.stage("stage")()
    monkeypatch.setattr(common, "show_progress", lambda enabled: enabled)
    monkeypatch.setattr(common, "console", lambda: Console(file=io.StringIO(), force_terminal=True))
    with common.ProgressBar("on", 3, enabled=True) as bar:
        bar(1, 3, outputs=2, rate="2.0/s")
        bar.advance(2)
        assert bar._progress.tasks[0].completed == 3
        tick = bar.stage("second row")
        tick()
        assert bar._progress.tasks[1].completed == 1
