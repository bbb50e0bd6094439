"""A generator and a filter from outside the package: one module plus one registry line each.

The plugin is a module and a ``*.dist-info/entry_points.txt`` in a folder on ``PYTHONPATH``, as
``pip install`` of a package declaring ``[project.entry-points."paraspan.generators"]`` would
leave them; ``paraspan augment`` then runs with both by name, in worker processes too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.pipeline.conftest import SENTENCES, write_corpus

REPO = Path(__file__).resolve().parents[2]

PLUGIN = textwrap.dedent('''
    """A toy generator (swap the anchor for a word of a small table) and a toy filter."""
    from __future__ import annotations

    from paraspan.filter.base import BaseFilter, FilterDecision
    from paraspan.generate.base import Capabilities, Candidate, GenerationResult

    SWAPS = {"sold": "traded", "bought": "purchased", "arrived": "came"}


    class Swapper:
        capabilities = Capabilities(honours_ban=True, deterministic=True)

        def __init__(self, prefix: str) -> None:
            self.prefix = prefix
            self.info = {"toy": "swapper 1.0"}

        def generate(self, request):
            s, e = request.ban[0]
            word = request.text[s:e]
            new = SWAPS.get(word.lower())
            if new is None or new in request.ban_texts:
                return GenerationResult(request, [], note="nothing to swap")
            text = self.prefix + request.text[:s] + new + request.text[e:]
            return GenerationResult(request, [Candidate(text, {"forward": -0.1})])


    def make_swapper(prefix: str = "") -> Swapper:
        return Swapper(prefix)


    class LengthFilter(BaseFilter):
        def __init__(self, max_words: int) -> None:
            self.name = f"short{max_words}"
            self.max_words = max_words

        def decide(self, output, source=None):
            n = len(output.text.split())
            return FilterDecision(n <= self.max_words, float(n), f"{n} words (at most {self.max_words})")


    def make_length_filter(max_words: int = 6) -> LengthFilter:
        return LengthFilter(max_words)
''')

ENTRY_POINTS = textwrap.dedent('''
    [paraspan.generators]
    swapper = toyplugin:make_swapper

    [paraspan.filters]
    short = toyplugin:make_length_filter
''')


@pytest.fixture
def plugin(tmp_path) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    (root / "toyplugin.py").write_text(PLUGIN, encoding="utf-8")
    info = root / "toyplugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplugin\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return root


def _augment(plugin: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin), str(REPO)])}
    return subprocess.run([sys.executable, "-m", "paraspan", "augment", *args, "--aligner",
                           "tests.pipeline.fakes:make_aligner", "--no-progress", *(
                               () if "--filter" in args else ("--filter", "all"))],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


def test_augment_runs_a_plugin_generator_and_filter(tmp_path, plugin):
    corpus = write_corpus(tmp_path / "corpus.jsonl", SENTENCES)
    out = tmp_path / "out.jsonl"
    done = _augment(plugin, str(corpus), "-o", str(out), "--generator", "swapper", "--set", "generator.prefix=So, ",
                    "--set", 'filters=[{"name": "short", "max_words": 6}]', "--filter", "short6",
                    "--choose-by", "none", "--store", str(tmp_path / "run.db"), "--workers", "2")
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    summary = json.loads((tmp_path / "out.summary.json").read_text())
    # sold → traded (8 words: dropped by short6), bought → purchased, arrived → came (kept)
    assert summary["outputs"] == 3 and summary["kept_per_filter"]["short6"] == 2
    assert sorted(r["text"] for r in rows) == ["So, My sister purchased a bicycle.", "So, The train came late."]
    prov = rows[0]["provenance"]
    assert prov["models"]["generator"] == "swapper" and prov["models"]["toy"] == "swapper 1.0"
    assert prov["filters"]["short6"] is True
    assert summary["config"]["generator"] == {"name": "swapper", "prefix": "So, "}
    # a deterministic generator is not retried, and without honours_ban it would stop at one iteration


def test_unknown_plugin_option_names_the_valid_ones(tmp_path, plugin):
    corpus = write_corpus(tmp_path / "corpus.jsonl", SENTENCES)
    done = _augment(plugin, str(corpus), "-o", str(tmp_path / "o.jsonl"), "--generator", "swapper",
                    "--set", "generator.suffix=!")
    assert done.returncode == 1
    assert "generator 'swapper' has no option 'suffix'" in done.stderr and "prefix" in done.stderr
    assert "Traceback" not in done.stderr
    done = _augment(plugin, str(corpus), "-o", str(tmp_path / "o.jsonl"), "--generator", "swaper")
    assert done.returncode == 1 and "swapper" in done.stderr and "paraphrase" in done.stderr
