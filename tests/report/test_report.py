"""The run report: span highlighting, what is collected from a store, the self-contained page."""

from __future__ import annotations

import json
import re

import pytest

from paraspan.pipeline.store import RunStore
from paraspan.report.collect import collect
from paraspan.report.highlight import ANCHOR_COLOUR, MarkedSpan, Palette, highlight_html, legend_html
from paraspan.report.render import _json_for_script, build_report, render
from tests.report.store_fixture import make_store


@pytest.fixture
def store_path(tmp_path):
    return make_store(tmp_path / "run.db", judged={"t01~s0i1": [80, 70, 90], "t01~s0i2": [20, 40, 30],
                                                   "t03~s0i1": [90, 85], "t05~s0i2": [10]})


# ------------------------------------------------------------------ highlighting


def test_highlight_escapes_and_colours_by_label():
    palette = Palette()
    text = "Tom <b> sold a car & a bike."
    spans = [MarkedSpan(8, 12, "sell.v", "anchor"), MarkedSpan(0, 3, "Seller", "arg"), MarkedSpan(13, 27, "Goods", "arg")]
    out = highlight_html(text, spans, palette)
    assert "&lt;b&gt;" in out and "&amp;" in out and "<b>" not in out
    assert f'<mark class="anchor" style="background:{ANCHOR_COLOUR}" title="sell.v">sold</mark>' in out
    assert out.count("<mark") == 3
    assert palette.colours["Seller"] != palette.colours["Goods"]
    # the same label keeps its colour in another sentence
    again = highlight_html("Ann sold it.", [MarkedSpan(0, 3, "Seller", "arg")], palette)
    assert palette.colours["Seller"] in again
    assert re.sub(r"<[^>]+>", "", out) == text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def test_highlight_nested_and_invalid_spans():
    text = "the man who sold it left"
    # the anchor inside an argument wins over it; the argument continues after the anchor
    spans = [MarkedSpan(0, 19, "Seller", "arg"), MarkedSpan(12, 16, "sell.v", "anchor"), MarkedSpan(30, 40, "X", "arg"),
             MarkedSpan(5, 5, "Empty", "arg")]
    out = highlight_html(text, spans)
    assert re.findall(r'<mark class="(\w+)"[^>]*>([^<]*)</mark>', out) == [
        ("arg", "the man who "), ("anchor", "sold"), ("arg", " it")]
    assert out.endswith(" left")


def test_legend_lists_labels():
    palette = Palette()
    for label in ("Goods", "Buyer"):
        palette.colour(label)
    legend = legend_html(palette)
    assert "Buyer" in legend and "Goods" in legend and "anchor" in legend
    many = Palette()
    colours = {many.colour(f"L{i}") for i in range(40)}
    assert len(colours) == 40  # past the fixed fills, hues keep labels apart


# ------------------------------------------------------------------ collected numbers


def test_collect_numbers(store_path):
    with RunStore.open(store_path, readonly=True) as store:
        data = collect(store)
    assert data.inputs == {"total": 11, "done": 10, "skipped": 1}
    assert data.counts["outputs"] == 16
    assert [(r["iteration"], r["structures"], r["outputs"], r["candidates"]) for r in data.iterations] == [
        (1, 10, 10, 20), (2, 6, 6, 12)]
    assert data.iterations[1]["yield"] == pytest.approx(0.6)
    assert len(data.scores["aligner"]) == 16
    assert sorted(data.scores_by_iteration["aligner"]) == [1, 2]
    filters = {f.name: f for f in data.filters}
    assert filters["all"].kept == 16 and filters["all"].multiple == pytest.approx((11 + 16) / 11)
    # judged: t01~s0i1 (80), t03~s0i1 (87.5) accepted; t01~s0i2 (30), t05~s0i2 (10) rejected
    assert data.judgments["outputs_judged"] == 4 and data.judgments["accepted"] == 2
    assert filters["all"].precision == pytest.approx(0.5) and filters["all"].recall == 1.0
    assert filters["iter1"].judged == 2 and filters["iter1"].precision == 1.0 and filters["iter1"].recall == 1.0
    row = next(r for r in data.rows if r["id"] == "t01~s0i1")
    assert row["source"] == "The baker sold fresh bread to the villagers."
    assert ">sold</mark>" in row["source_html"] and ">traded</mark>" in row["text_html"]
    assert 'title="Buyer">to the villagers</mark>' in row["text_html"]
    assert row["judgment"] == 80.0 and row["judgments"] == 3
    assert row["decisions"] == {"align0.95": True, "all": True, "iter1": True}
    assert {"Seller", "Goods", "Buyer"} <= set(data.palette.colours)


def test_collect_truncates_the_table_not_the_numbers(store_path):
    with RunStore.open(store_path, readonly=True) as store:
        data = collect(store, max_rows=5)
    assert len(data.rows) == 5 and data.truncated == 11
    assert len(data.scores["forward"]) == 16
    assert "first 5 outputs" in data.notes[0]


# ------------------------------------------------------------------ the page


def _embedded(page: str) -> dict:
    raw = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1)
    return json.loads(raw)


def test_report_is_one_self_contained_file(store_path, tmp_path):
    out = tmp_path / "report.html"
    data = build_report(store_path, out)
    page = out.read_text(encoding="utf-8")
    # nothing is fetched when the page is viewed: no external scripts, styles, images or fonts
    assert not re.search(r'(src|href)\s*=\s*["\']?(https?:)?//', page)
    assert "@import" not in page and "url(http" not in page
    images = re.findall(r'<img class="fig" alt="([^"]+)" src="([^"]+)"', page)
    assert {alt for alt, _ in images} == {"yield per iteration", "score histograms", "filter trade-offs"}
    assert all(src.startswith("data:image/png;base64,") for _, src in images)
    payload = _embedded(page)
    assert len(payload["rows"]) == len(data.rows) == 16
    assert payload["filters"] == ["align0.95", "all", "iter1"]
    assert "@@" not in page.replace("@@X@@", "")  # every placeholder was filled
    for section in ("Summary", "Yield per iteration", "Scores", "Filters", "Human judgments", "Outputs"):
        assert f"<h2>{section}</h2>" in page


def test_script_data_cannot_close_the_script_element():
    text = json.dumps({"t": "a </script><script>alert(1)</script> <!-- \u2028"})
    safe = _json_for_script(json.loads(text))
    assert "</script" not in safe and "<!--" not in safe and "\u2028" not in safe
    assert json.loads(safe) == json.loads(text)


def test_report_of_an_empty_store(tmp_path):
    path = tmp_path / "empty.db"
    RunStore.create(path).close()
    with RunStore.open(path, readonly=True) as store:
        data = collect(store)
    page = render(data)
    assert "no candidates in this store yet" in page
    assert "no filter decisions are recorded" in page
    assert _embedded(page)["rows"] == []
