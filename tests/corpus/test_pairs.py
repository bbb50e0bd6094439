"""Pair readers: JSONL, MRPC, STS-B, SICK, RTE; malformed lines give FILE:LINE."""

from __future__ import annotations

import json

import pytest

from paraspan.corpus.pairs import Pair, guess_pair_format, read_pair_file
from paraspan.errors import CorpusError, FormatError
from tests.conftest import need_shared

MRPC_HEAD = "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
SICK_HEAD = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_jsonl(tmp_path):
    src = _write(tmp_path / "p.jsonl", json.dumps({"id": "a", "s1": "One.", "s2": "Two.", "label": 1}) + "\n\n"
                 + json.dumps({"s1": "No id.", "s2": "Line number instead."}) + "\n")
    assert list(read_pair_file(src)) == [Pair("a", "One.", "Two.", {"label": 1}),
                                         Pair("3", "No id.", "Line number instead.", {})]


@pytest.mark.parametrize(("line", "what"), [
    ("{oops", "malformed JSON"),
    ('["a"]', "expected a JSON object"),
    ('{"id": "b", "s1": "x"}', "'s2' must be a string"),
    ('{"id": "a", "s1": "x", "s2": "y"}', "duplicate id 'a'"),
    ('{"id": true, "s1": "x", "s2": "y"}', "'id' must be"),
])
def test_jsonl_errors_name_file_and_line(tmp_path, line, what):
    src = _write(tmp_path / "p.jsonl", json.dumps({"id": "a", "s1": "x", "s2": "y"}) + "\n" + line + "\n")
    with pytest.raises(CorpusError) as info:
        list(read_pair_file(src))
    assert f"{src}:2: " in str(info.value) and what in str(info.value)


def test_mrpc_with_bom_and_quotes(tmp_path):
    src = _write(tmp_path / "msr-para-val.tsv", MRPC_HEAD + '1\t11\t12\tHe said "hi".\tHe said "hello".\n'
                 + "0\t13\t14\tA.\tB.\n")
    pairs = list(read_pair_file(src))
    assert pairs[0] == Pair("11-12", 'He said "hi".', 'He said "hello".', {"paraphrase": 1})
    assert pairs[1].gold == {"paraphrase": 0}


@pytest.mark.parametrize(("line", "what"), [
    ("1\t11\t12\tOnly one sentence.", "expected 5 tab-separated fields"),
    ("yes\t11\t12\tA.\tB.", "Quality must be 0 or 1"),
])
def test_mrpc_malformed_line(tmp_path, line, what):
    src = _write(tmp_path / "msr-para-train.tsv", MRPC_HEAD + "1\t1\t2\tA.\tB.\n" + line + "\n")
    with pytest.raises(CorpusError) as info:
        list(read_pair_file(src))
    assert f"{src}:3: " in str(info.value) and what in str(info.value)


def test_stsb(tmp_path):
    src = _write(tmp_path / "stsb-en-dev.csv", 'A plane is taking off.,"An air plane, taking off.",5.0\n'
                 'x,y,oops\n')
    with pytest.raises(CorpusError) as info:
        list(read_pair_file(src))
    assert f"{src}:2: score must be a number" in str(info.value)
    first = next(iter(read_pair_file(src)))
    assert first == Pair("stsb-en-dev-1", "A plane is taking off.", "An air plane, taking off.", {"similarity": 5.0})
    bad = _write(tmp_path / "stsb-bad.csv", "only,two\n")
    with pytest.raises(CorpusError, match=r"stsb-bad.csv:1: expected 3"):
        list(read_pair_file(bad))


def test_sick(tmp_path):
    src = _write(tmp_path / "SICK_trial.txt", SICK_HEAD + "4\tA boy plays.\tNo boy plays.\t3.6\tCONTRADICTION\n")
    assert list(read_pair_file(src)) == [
        Pair("4", "A boy plays.", "No boy plays.", {"nli": "contradiction", "relatedness": 3.6})]


@pytest.mark.parametrize(("line", "what"), [
    ("5\tA.\tB.\t3.0", "expected 5 tab-separated fields"),
    ("5\tA.\tB.\t3.0\tMAYBE", "entailment_judgment must be"),
    ("5\tA.\tB.\thigh\tNEUTRAL", "relatedness_score must be a number"),
])
def test_sick_malformed_line(tmp_path, line, what):
    src = _write(tmp_path / "SICK_train.txt", SICK_HEAD + "4\tA.\tB.\t3.6\tNEUTRAL\n" + line + "\n")
    with pytest.raises(CorpusError) as info:
        list(read_pair_file(src))
    assert f"{src}:3: " in str(info.value) and what in str(info.value)


def test_sick_without_header_columns(tmp_path):
    src = _write(tmp_path / "SICK_x.txt", "1\tA.\tB.\t3.6\tNEUTRAL\n")
    with pytest.raises(CorpusError, match=r"SICK_x.txt:1: the header lacks"):
        list(read_pair_file(src))


RTE = """<?xml version="1.0" encoding="UTF-8"?>
<entailment-corpus>
<pair id="1" value="TRUE" task="IR">
  <t>Oil   prices rose.</t>
  <h>Prices rose.</h>
</pair>
<pair id="2" entailment="NO" task="QA"><t>A.</t><h>B.</h></pair>
<pair id="3" entailment="PERHAPS"><t>A.</t><h>B.</h></pair>
</entailment-corpus>
"""


def test_rte(tmp_path):
    src = _write(tmp_path / "rte9_dev.xml", RTE)
    stream = read_pair_file(src)
    assert next(stream) == Pair("1", "Oil prices rose.", "Prices rose.", {"nli2": "entailment", "task": "IR"})
    assert next(stream).gold["nli2"] == "not_entailment"
    with pytest.raises(CorpusError) as info:
        next(stream)
    assert f"{src}:8: " in str(info.value) and "PERHAPS" in str(info.value)


def test_rte_malformed_xml(tmp_path):
    src = _write(tmp_path / "rte9_dev.xml", "<entailment-corpus>\n<pair id='1'>\n</entailment-corpus>\n")
    with pytest.raises(CorpusError, match=r"rte9_dev.xml:\d+: malformed XML"):
        list(read_pair_file(src))


def test_format_guessing_and_errors(tmp_path):
    assert guess_pair_format("msr-para-val.tsv") == "mrpc"
    assert guess_pair_format("stsb-en-dev.csv") == "stsb"
    assert guess_pair_format("SICK_trial.txt") == "sick"
    assert guess_pair_format("rte1_dev.xml") == "rte"
    assert guess_pair_format("pairs.jsonl") == "jsonl"
    with pytest.raises(FormatError, match="--from"):
        read_pair_file(tmp_path / "pairs.txt")
    with pytest.raises(FormatError, match="unknown pair format"):
        read_pair_file(tmp_path / "pairs.txt", "csv")
    with pytest.raises(CorpusError, match="no such file"):
        list(read_pair_file(tmp_path / "missing.jsonl"))


@pytest.mark.parametrize(("parts", "count", "gold"), [
    (("data", "nli", "sick", "SICK_trial.txt"), 500, "nli"),
    (("data", "nli", "rte", "rte3_dev.xml"), 800, "nli2"),
    (("data", "paraphrase", "mrpc", "msr-para-val.tsv"), 500, "paraphrase"),
    (("data", "paraphrase", "stsb", "stsb-en-dev.csv"), 1500, "similarity"),
])
def test_shared_corpora(parts, count, gold):
    pairs = list(read_pair_file(need_shared(*parts)))
    assert len(pairs) == count and all(gold in p.gold and p.s1 and p.s2 for p in pairs)
