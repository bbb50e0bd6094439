"""The pipeline on the real models: the small LLM (fast) and, marked slow, the default one."""

from __future__ import annotations

import subprocess
import sys

import pytest

from paraspan.corpus.schema import Sentence
from paraspan.pipeline import AugmentConfig, Augmenter
from tests.pipeline.conftest import SENTENCES


def _check(result, iterations):
    assert result.status == "done"
    assert result.candidates, result.note
    for out in result.outputs:
        s = out.sentence
        [st] = s.structures
        assert s.source_id == "a" and st.label == "Commerce_sell"
        anchor = s.text[st.anchor.start:st.anchor.end]
        assert anchor.lower() not in {"sold", "sell", "sells", "selling"}  # the ban held
        prov = s.provenance
        assert 1 <= prov["iteration"] <= iterations
        assert prov["paraphrase"]["score"] <= 0 and 0 <= prov["aligner"]["anchor"] <= 1
        assert prov["models"]["llm"] and prov["models"]["aligner"] == "discriminative"
        Sentence.from_dict(s.to_dict())  # offsets inside the text


def test_small_model_end_to_end():
    config = AugmentConfig(iterations=2, candidates=3, require_args=False, generator={
        "name": "paraphrase", "model": "small", "samples": 3, "constraint_sets": 2, "rescore_top": 1})
    result = Augmenter.build(config).process(Sentence.from_dict(SENTENCES[0]))
    _check(result, 2)


@pytest.mark.slow
def test_default_model_end_to_end():
    config = AugmentConfig(iterations=1, candidates=3, generator={
        "name": "paraphrase", "model": "default", "samples": 3, "constraint_sets": 2, "rescore_top": 1})
    result = Augmenter.build(config).process(Sentence.from_dict(SENTENCES[0]))
    _check(result, 1)
    assert result.outputs, result.note  # the 1.5B model finds a placeable paraphrase of a plain sentence


def test_local_path_does_not_import_ray(tmp_path):
    code = (
        "import sys\n"
        "from paraspan.pipeline import AugmentConfig, open_store, run_augment\n"
        "from paraspan.corpus.schema import Sentence\n"
        "from tests.pipeline.conftest import SENTENCES, FAKE\n"
        "cfg = AugmentConfig(iterations=1, **FAKE)\n"
        f"store = open_store(__import__('pathlib').Path({str(tmp_path / 'r.db')!r}), cfg, resume=False)\n"
        "run_augment([Sentence.from_dict(s) for s in SENTENCES], store, cfg)\n"
        "assert 'ray' not in sys.modules, 'ray was imported'\n"
    )
    from tests.cli.test_augment import REPO

    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
