from __future__ import annotations

import json

import pytest

from paraspan.corpus.jsonl import read_jsonl, validate_jsonl, write_jsonl
from paraspan.errors import CorpusError

GOOD = [
    {"id": "a", "text": "Anna lives in Oslo.", "structures": [
        {"kind": "entity", "label": "PER", "anchor": {"start": 0, "end": 4, "label": None}, "args": []},
        {"kind": "entity", "label": "LOC", "anchor": {"start": 14, "end": 18, "label": None}, "args": []}],
     "meta": {"tokens": [[0, 4], [5, 10], [11, 13], [14, 18], [18, 19]]}},
    # another key order, non-ASCII text, extra keys, provenance: all must survive byte-for-byte
    {"text": "Zoë a vendu sa maison.", "id": "b", "structures": [], "meta": {"lang": "fr", "score": 0.1234567},
     "source_id": "a", "provenance": {"method": "paraphrase", "iteration": 2, "scores": [-1.5, 0.25]}, "x": None},
]


def _write(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def test_round_trip_is_byte_for_byte(tmp_path):
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(src, GOOD)
    assert write_jsonl(read_jsonl(src), dst) == 2
    assert dst.read_bytes() == src.read_bytes()


def test_bundled_demo_round_trips(tmp_path):
    from importlib.resources import files

    src = files("paraspan") / "data" / "demo" / "framenet_demo.jsonl"
    dst = tmp_path / "demo.jsonl"
    write_jsonl(read_jsonl(str(src)), dst)
    assert dst.read_bytes() == src.read_bytes()


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ('{"id": "c", "text": "x"', "E100"),  # malformed JSON
        ('[1, 2]', "E101"),
        ('{"id": "c", "text": "Hi", "structures": [{"kind": "frame", "label": "F", "anchor": {"start": 0, "end": 9, "label": null}, "args": []}], "meta": {}}', "E130"),
        ('{"id": "a", "text": "dup", "structures": [], "meta": {}}', "E108"),
    ],
)
def test_bad_line_is_reported_with_file_and_line(tmp_path, line, code):
    src = tmp_path / "bad.jsonl"
    src.write_text(json.dumps(GOOD[0]) + "\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        list(read_jsonl(src))
    assert info.value.code == code
    assert str(info.value).startswith(f"{src}:3: ")


def test_validate_reports_every_problem(tmp_path):
    src = tmp_path / "bad.jsonl"
    src.write_text("{oops\n" + json.dumps(GOOD[0]) + "\n" + '{"id": 3}\n', encoding="utf-8")
    valid, problems = validate_jsonl(src)
    assert valid == 1
    assert [(p.line, p.code) for p in problems.problems][:2] == [(1, "E100"), (3, "E102")]


def test_missing_file_and_bad_encoding(tmp_path):
    with pytest.raises(CorpusError, match="no such file"):
        list(read_jsonl(tmp_path / "nope.jsonl"))
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes('{"id": "a", "text": "caf\xe9"}\n'.encode("latin-1"))
    with pytest.raises(CorpusError, match="UTF-8"):
        list(read_jsonl(bad))


def test_write_is_atomic(tmp_path):
    dst = tmp_path / "out.jsonl"
    dst.write_text("old\n")

    def boom():
        yield from read_jsonl_from(GOOD[:1], tmp_path)
        raise RuntimeError("crash mid-write")

    with pytest.raises(RuntimeError):
        write_jsonl(boom(), dst)
    assert dst.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def read_jsonl_from(rows, tmp_path):
    src = tmp_path / "rows.jsonl"
    _write(src, rows)
    return read_jsonl(src)
