"""``paraspan train-generator --task paraphrase`` and ``paraspan paraphrase --adapter``: bad input is one
line naming the file, line and fix, before any model loads (no model needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paraspan.cli.main import main
from paraspan.models.adapters import CARD


def _err(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return " ".join(err.split())


def test_a_one_column_pair_file_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("A man cooks.\tA man is cooking.\tequivalence\njust one column\n", encoding="utf-8")
    assert main(["train-generator", str(pairs), "-o", str(tmp_path / "a"), "--task", "paraphrase",
                 "--base", "small"]) == 1
    err = _err(capsys)
    assert "E520" in err and f"{pairs}:2:" in err and "s1<TAB>s2<TAB>relation" in err


def test_a_relation_the_judges_cannot_give_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("A man cooks.\tA man is cooking.\tsynonym\n", encoding="utf-8")
    assert main(["train-generator", str(pairs), "-o", str(tmp_path / "a"), "--task", "paraphrase"]) == 1
    err = _err(capsys)
    assert "E521" in err and f"{pairs}:1:" in err and "'synonym'" in err


def test_too_few_pairs_of_a_relation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = tmp_path / "pairs.tsv"
    rows = [f"The tall man number {i} cooks rice.\tThe man number {i} cooks.\tforward" for i in range(10)]
    pairs.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["train-generator", str(pairs), "-o", str(tmp_path / "a"), "--task", "paraphrase",
                 "--relations", "forward,reverse"]) == 1
    err = _err(capsys)
    assert "E522" in err and "relation forward" in err and "at least 32" in err


def test_infill_options_are_refused_with_the_paraphrase_task(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("A man cooks.\tA man is cooking.\tequivalence\n", encoding="utf-8")
    assert main(["train-generator", str(pairs), "-o", str(tmp_path / "a"), "--task", "paraphrase",
                 "--kinds", "frame"]) == 1
    assert "E526" in _err(capsys)
    assert main(["train-generator", str(pairs), "-o", str(tmp_path / "a"), "--task", "nope"]) == 1
    assert "E501" in _err(capsys)


@pytest.mark.parametrize("option", ["--ban-share", "--keep-share"])
def test_a_share_outside_0_to_1_names_its_option(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  option: str) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("A man cooks.\tA man is cooking.\tequivalence\n", encoding="utf-8")
    assert main(["train-generator", str(pairs), "-o", str(tmp_path / "a"), "--task", "paraphrase",
                 option, "1.5"]) == 1
    err = _err(capsys)
    assert "E526" in err and option in err and "between 0 and 1" in err


def _adapter(folder: Path, **card: object) -> Path:
    folder.mkdir()
    base = {"format": "paraspan-adapter/1", "name": folder.name, "base": {"name": "gemma-270m"}}
    (folder / CARD).write_text(json.dumps({**base, **card}), encoding="utf-8")
    return folder


def test_a_relation_the_adapter_was_not_trained_for_is_refused(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "a", "text": "A man is cooking rice."}) + "\n", encoding="utf-8")
    adapter = _adapter(tmp_path / "eq-only", task="paraphrase", relations=["equivalence"],
                       prompt={"format": "paraspan-paraphrase/1"})
    assert main(["paraphrase", str(src), "-o", str(tmp_path / "out.jsonl"), "--relation", "forward",
                 "--adapter", str(adapter)]) == 1
    err = _err(capsys)
    assert "E524" in err and "--relation forward" in err and "it has equivalence" in err
    infill = _adapter(tmp_path / "infill", task="infill", prompt={"format": "paraspan-infill/1"})
    assert main(["paraphrase", str(src), "-o", str(tmp_path / "out.jsonl"), "--relation", "equivalence",
                 "--adapter", str(infill)]) == 1
    assert "E525" in _err(capsys)


def test_the_loop_paraphraser_refuses_such_an_adapter_too(tmp_path: Path) -> None:
    from paraspan.errors import ParaspanError
    from paraspan.generate.paraphrase import make_paraphraser

    adapter = _adapter(tmp_path / "eq-only", task="paraphrase", relations=["equivalence"],
                       prompt={"format": "paraspan-paraphrase/1"})
    with pytest.raises(ParaspanError) as caught:
        make_paraphraser(relation="reverse", adapter=str(adapter))
    assert caught.value.code == "E524"
