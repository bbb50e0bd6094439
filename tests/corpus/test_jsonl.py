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


# -- inputs that used to end in a traceback; validate and convert agree on them ---------------------------------

BAD_LINES = {
    "E044": '{"id": "z", "text": "x", "structures": [{"kind": "entity", "label": "L", "anchor": {"start": '
            + "9" * 5000 + ', "end": 1}}]}',
    "E045": "[" * 100_000 + "]" * 100_000,
    "E046": '{"id": "s", "text": "bad \\ud800 text"}',
}


@pytest.mark.parametrize("code", sorted(BAD_LINES))
def test_hostile_lines_are_errors_with_codes(tmp_path, code):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(GOOD[0]) + "\n" + BAD_LINES[code] + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        list(read_jsonl(path))
    assert info.value.code == code and info.value.problem.line == 2
    valid, problems = validate_jsonl(path)
    assert valid == 1 and [p.code for p in problems.problems] == [code]


def test_lone_surrogates_anywhere_are_refused_and_pairs_kept(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "a", "text": "ok", "meta": {"k": ["\\udfff"]}}\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"'meta'\['k'\]\[0\] holds a lone surrogate \(\\udfff\)"):
        list(read_jsonl(path))
    path.write_text('{"id": "a", "text": "smile \\ud83d\\ude00"}\n', encoding="utf-8")
    assert [s.text for s in read_jsonl(path)] == ["smile \U0001F600"]


def test_a_bad_byte_deep_in_a_file_names_its_line(tmp_path):
    path = tmp_path / "deep.jsonl"
    lines = [json.dumps({"id": f"s{i}", "text": "x" * 50}) for i in range(300)]
    data = ("\n".join(lines) + "\n").encode() + b'{"id": "q", "text": "caf\xe9"}\n'
    path.write_bytes(data)
    with pytest.raises(CorpusError) as info:
        list(read_jsonl(path))
    assert info.value.code == "E012" and info.value.problem.line == 301
    bad = data.index(b"\xe9")
    assert f"at byte {bad})" in info.value.problem.message


def test_gzip_and_bom_are_read(tmp_path):
    import gzip

    path = tmp_path / "c.jsonl.gz"
    path.write_bytes(gzip.compress(("\ufeff" + json.dumps(GOOD[0]) + "\n").encode()))
    assert [s.id for s in read_jsonl(path)] == ["a"]
    path.write_bytes(gzip.compress((json.dumps(GOOD[0]) + "\n").encode() * 50)[:100])
    with pytest.raises(CorpusError) as info:
        list(read_jsonl(path))
    assert info.value.code == "E047"


def test_long_values_are_cut_in_messages(tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_text('{"id": "a", "text": 5, "meta": {}, "x": "' + "y" * 100 + '"}\n' + "{" + "z" * 3_000_000 + "\n")
    _, problems = validate_jsonl(path)
    assert all(len(str(p)) < 3000 for p in problems.problems)


def test_writing_into_a_folder_is_an_error(tmp_path):
    from paraspan.corpus.jsonl import read_jsonl as _  # noqa: F401 - the module under test

    with pytest.raises(CorpusError) as info:
        write_jsonl([], tmp_path)
    assert info.value.code == "E041"
