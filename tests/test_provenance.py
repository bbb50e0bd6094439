"""The typed model of what a generator says of an output: written by generators, read by the checks, and
stored under the keys old run stores hold."""

from __future__ import annotations

import json

import pytest

from paraspan.provenance import Generated


def test_meta_writes_the_stored_keys_and_reads_back():
    said = Generated(rules=("it-cleft",), replaced=("bought",), keeps_anchor=True)
    meta = said.meta(votes=3)
    assert meta == {"votes": 3, "rules": ["it-cleft"], "replaced": ["bought"], "keeps_anchor": True}
    assert Generated.of({"generated": json.loads(json.dumps(meta))}) == said == Generated.of_meta(meta)
    assert Generated().meta() == {} and Generated().meta(cluster=1) == {"cluster": 1}


def test_an_old_stores_provenance_reads_as_before():
    old = {"generated": {"rules": "passive-to-active", "random_bans": ["sold", 3], "keeps_anchor": "yes"}}
    assert Generated.of(old) == Generated(rules=("passive-to-active",), random_bans=("sold",))
    assert Generated.of({"generated": ["not", "a", "block"]}) == Generated() == Generated.of(None)


def test_a_typed_key_given_as_a_free_key_is_refused():
    with pytest.raises(TypeError, match="rules"):
        Generated().meta(rules=["it-cleft"])
