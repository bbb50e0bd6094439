"""The ``generator:NAME`` augmenter on the toy corpus, through the real pipeline with the pipeline
tests' rule-based fake generator and aligner (no model): "bought" and "sold" have synonyms,
"stole" has none, so its sentences get no output."""

from __future__ import annotations

import json

import pytest

from paraspan.errors import ParaspanError
from paraspan.evaluate.downstream.augment import get_augmenter
from paraspan.evaluate.downstream.generator_adapter import GeneratorAugmenter, note_reasons
from tests.evaluate.downstream.toy import frame_corpus

FAKE = "generator:tests.pipeline.fakes:make_generator"
SETTINGS = {"aligner": "tests.pipeline.fakes:make_aligner", "kinds": ["frame"]}


def _augmenter(tmp_path, **kw) -> GeneratorAugmenter:
    options = {"filter": "all", "store_dir": tmp_path / "stores", "settings": SETTINGS, "prefix": "toy", **kw}
    augmenter = get_augmenter(FAKE, **options)
    assert isinstance(augmenter, GeneratorAugmenter)
    return augmenter


def test_outputs_derive_from_the_subset_and_nothing_to_replace_is_counted(tmp_path):
    gold = frame_corpus(12)  # verbs cycle bought, sold, stole
    subset = gold[:6]
    augment = _augmenter(tmp_path)
    outputs = augment(subset, 0)
    ids = {s.id for s in subset}
    assert outputs and {o.source_id for o in outputs} == {s.id for s in subset if "stole" not in s.text}
    assert all(o.source_id in ids for o in outputs)
    for out in outputs:
        out.validate()
        [st] = out.structures
        assert st.label in ("Commerce_buy", "Commerce_sell") and st.anchor.text_in(out.text) != "bought"
    report = augment.report()
    assert report["inputs"] == report["eligible"] == 6 and report["no_output"] == 2 and report["none_kept"] == 0
    assert report["notes"] == {"no paraphrase": 2} and report["generated_now"] == 6
    assert report["kept"] == report["outputs"] == len(outputs) and report["store_inputs"] == 6


def test_the_store_is_reused_and_grown_by_later_subsets(tmp_path):
    gold = frame_corpus(12)
    first = _augmenter(tmp_path)(gold[:6], 0)
    again = _augmenter(tmp_path)  # another run, same settings: the same store
    assert [o.text for o in again(gold[:6], 1)] == [o.text for o in first]
    assert again.report()["generated_now"] == 0
    more = again(gold[3:9], 0)
    assert again.report()["generated_now"] == 3 and again.report()["store_added"] == 3
    assert {o.source_id for o in more} <= {s.id for s in gold[3:9]}
    assert len(list((tmp_path / "stores").glob("*.db"))) == 1
    other = _augmenter(tmp_path, overrides=["iterations=1"])  # other settings: another store
    other(gold[:3], 0)
    assert len(list((tmp_path / "stores").glob("*.db"))) == 2


def test_the_filter_decides_what_the_learner_gets(tmp_path):
    gold = frame_corpus(3)[:2]  # bought, sold: three iterations each with the fake synonyms
    everything = _augmenter(tmp_path, settings={**SETTINGS, "iterations": 3})(gold, 0)
    assert len(everything) == 6
    # as `paraspan augment --filter`: a candidate must pass the filter to become an iteration's output
    chosen = _augmenter(tmp_path, settings={**SETTINGS, "iterations": 3}, filter="iter1")
    assert [o.provenance["iteration"] for o in chosen(gold, 0)] == [1, 1]
    assert chosen.report()["outputs"] == 2 and chosen.report()["notes"] == {"no placed candidate passed iter1": 2}
    # with choose_by none every iteration's output is made, and the learner gets those iter1 keeps
    kept_only = _augmenter(tmp_path, settings={**SETTINGS, "iterations": 3, "choose_by": "none"}, filter="iter1")
    kept = kept_only(gold, 0)
    assert len(kept) == 2 and all(o.provenance["iteration"] == 1 for o in kept)
    assert kept_only.report()["outputs"] == 6 and kept_only.report()["kept"] == 2


def test_a_given_store_of_another_subset_is_refused(tmp_path):
    gold = frame_corpus(40)
    store = tmp_path / "run.db"
    _augmenter(tmp_path, store_dir=None, store=store)(gold[:10], 0)
    with pytest.raises(ParaspanError) as err:
        _augmenter(tmp_path, store_dir=None, store=store)(gold[20:30], 0)
    assert err.value.code == "E892" and "10 of the 10 sentences" in err.value.problem.message
    # a store that holds most of the subset: the rest is augmented into it
    reuse = _augmenter(tmp_path, store_dir=None, store=store)
    reuse(gold[2:12], 0)
    assert reuse.report()["store_added"] == 2


def test_bad_specs_fail_before_any_run(tmp_path):
    with pytest.raises(ParaspanError, match="unknown generator 'nope'"):
        get_augmenter("generator:nope", filter="all")
    with pytest.raises(ParaspanError) as err:
        get_augmenter("generator:", filter="all")
    assert err.value.code == "E893"
    with pytest.raises(ParaspanError) as err:
        get_augmenter(FAKE, store=tmp_path / "a.db", store_dir=tmp_path)
    assert err.value.code == "E893"


def test_note_reasons():
    note = "structure 0: iteration 1: no paraphrase (none returned); structure 2: iteration 2: no candidate with " \
           "every required span placed (2 attempts)"
    assert note_reasons(note) == ["no paraphrase", "no candidate with every required span placed"]
    assert note_reasons(None) == []


@pytest.mark.slow
def test_generator_rewrite_through_the_pipeline(tmp_path):
    """The real rule-based rewriter (a spaCy parse) through the pipeline, kept whole (``all``)."""
    pytest.importorskip("paraspan.generate.rewrite.generator")
    from paraspan.corpus.schema import Sentence, Span, Structure

    text = "The old farmer quickly sold his red tractor to a neighbour ."
    gold = [Sentence("g1", text, [Structure("frame", "Commerce_sell", Span(22, 26, "sell.v"),
                                            [Span(0, 14, "Seller"), Span(27, 43, "Goods")])]),
            Sentence("g2", "Nothing .", [])]
    augment = get_augmenter("generator:rewrite", filter="all", store_dir=tmp_path, settings={"kinds": ["frame"]})
    outputs = augment(gold, 0)
    assert outputs and all(o.source_id == "g1" for o in outputs)
    report = augment.report()
    assert report["eligible"] == 1 and report["skipped"] == 1
    assert report["kept"] == len(outputs) and report["no_output"] == 0


def test_inputs_another_subset_left_pending_are_not_generated(tmp_path):
    gold = frame_corpus(12)
    augment = _augmenter(tmp_path)
    augment(gold[:3], 0)
    store_path = augment.store_path()
    from paraspan.pipeline import open_store

    # another subset's run stopped after adding its inputs: they wait in the store
    store = open_store(store_path, augment.config, resume=True)
    augment._add_inputs(store, gold[6:12])
    store.close()
    augment(gold[:6], 0)
    report = augment.report()
    assert report["generated_now"] == 3 and report["store_inputs"] == 12
    store = open_store(store_path, augment.config, resume=True)
    try:
        assert store.count_inputs("pending") == 6  # still that subset's to generate
        assert store.count_inputs("pending", only={s.id for s in gold[:6]}) == 0
    finally:
        store.close()


def test_a_fixed_rule_gets_a_new_store_in_the_store_folder(tmp_path, monkeypatch):
    """``--store-dir`` names a store by everything that decides its outputs, the rules' versions too:
    after a fix, the older rule's outputs are not served again."""
    from paraspan.generate.rewrite import generator as rewriter

    cascade = get_augmenter("generator:cascade", filter="all", store_dir=tmp_path)
    mentions = get_augmenter("generator:mention_replace", filter="all", store_dir=tmp_path)
    before = (cascade.store_path(), mentions.store_path())
    monkeypatch.setattr(rewriter, "REWRITER_VERSION", "999")
    after = (get_augmenter("generator:cascade", filter="all", store_dir=tmp_path).store_path(),
             get_augmenter("generator:mention_replace", filter="all", store_dir=tmp_path).store_path())
    assert after[0] != before[0] and after[1] == before[1]


def _ner_corpus(names: list[str], offset: int = 0) -> list:
    from paraspan.corpus.schema import Sentence, Span, Structure

    return [Sentence(f"n{offset + i}", f"{name} spoke today .", [Structure("entity", "PER", Span(0, len(name)))])
            for i, name in enumerate(names)]


def _inserted(outputs) -> set[str]:
    return {st.anchor.text_in(o.text) for o in outputs for st in o.structures if st is not None}


def test_a_generator_that_reads_its_corpus_draws_donors_from_the_subset_only(tmp_path):
    """Mention replacement's pool is the sentences its run has seen: with a store per subset, the
    second subset's outputs carry its own names only, never the first subset's (a store shared
    across subsets had served them, since a sentence is augmented once)."""
    first = _ner_corpus(["Anna", "Boris", "Chen", "Dana"])
    second = first[:2] + _ner_corpus(["Emil", "Fatima"], offset=4)  # shares two sentences with first
    options = {"filter": "all", "store_dir": tmp_path, "prefix": "toy",
               "settings": {"kinds": ["entity"], "generator": {"p": 1.0, "n": 3}}}
    augment = get_augmenter("generator:mention_replace", **options)
    assert isinstance(augment, GeneratorAugmenter) and augment.reads_corpus
    out_first = augment(first, 0)
    out_second = augment(second, 1)
    assert _inserted(out_first) <= {"Anna", "Boris", "Chen", "Dana"} and out_first
    assert out_second and _inserted(out_second) <= {"Anna", "Boris", "Emil", "Fatima"}
    assert augment.report()["generated_now"] == 4  # the shared two were generated again, from this pool
    assert len(list(tmp_path.glob("toy-mention_replace-all-*-subset-*.db"))) == 2
    # the same subset again: its store is reused, nothing generated
    assert [o.text for o in augment(second, 2)] == [o.text for o in out_second]
    assert augment.report()["generated_now"] == 0
    # with a fixed donor corpus the outputs do not depend on the subset: one store serves all
    donors = tmp_path / "donors.jsonl"
    donors.write_text("".join(json.dumps(s.to_dict()) + "\n" for s in first))
    fixed = get_augmenter("generator:mention_replace", **{**options, "settings": {
        "kinds": ["entity"], "generator": {"p": 1.0, "n": 3, "donors": str(donors)}}})
    assert not fixed.reads_corpus and "-subset-" not in fixed.store_path(second).name


def test_a_given_store_with_other_sentences_is_refused_to_a_generator_that_reads_its_corpus(tmp_path):
    gold = _ner_corpus(["Anna", "Boris", "Chen", "Dana"])
    store = tmp_path / "run.db"
    options = {"filter": "all", "store": store, "settings": {"kinds": ["entity"], "generator": {"p": 1.0}}}
    get_augmenter("generator:mention_replace", **options)(gold, 0)
    with pytest.raises(ParaspanError) as err:
        get_augmenter("generator:mention_replace", **options)(gold[:3], 0)  # E892 would let this pass
    assert err.value.code == "E894" and "1 of the store's 4 inputs" in err.value.problem.message
    # the rewriter does not read its corpus: a store of more sentences serves a subset
    assert not get_augmenter("generator:rewrite", filter="all", store=store).reads_corpus
