from __future__ import annotations

import json

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import CorpusError, ParaspanError
from paraspan.evaluate.downstream.augment import get_augmenter, keep_derived, lexical_substitution
from tests.evaluate.downstream.toy import frame_corpus


def _rewrite(src: Sentence, text: str, anchor: tuple[int, int], k: int = 0) -> Sentence:
    st = src.structures[0]
    return Sentence(f"{src.id}~rw{k}", text, [Structure(st.kind, st.label, Span(*anchor, st.anchor.label), [])],
                    {}, src.id, {"method": "test"})


def test_keep_derived_drops_outputs_of_other_sentences():
    gold = frame_corpus(4)
    outs = [_rewrite(gold[0], "x bought y", (2, 8)), _rewrite(gold[3], "x sold y", (2, 6))]
    kept, dropped = keep_derived(outs, gold[:2])
    assert [o.source_id for o in kept] == [gold[0].id] and dropped == 1


def test_jsonl_augmenter_filters_by_source_and_reports_missing_source(tmp_path):
    gold = frame_corpus(3)
    path = tmp_path / "aug.jsonl"
    path.write_text("\n".join(json.dumps(_rewrite(g, "Someone purchased it .", (8, 17)).to_dict()) for g in gold) + "\n")
    augment = get_augmenter(f"jsonl:{path}")
    assert [o.source_id for o in augment(gold[1:], 0)] == [gold[1].id, gold[2].id]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "a", "text": "x y", "structures": []}) + "\n")
    with pytest.raises(CorpusError) as err:
        get_augmenter(f"jsonl:{bad}")(gold, 0)
    assert err.value.problem.line == 1 and "source_id" in err.value.problem.message


def test_unknown_augmenter_is_a_user_error():
    with pytest.raises(ParaspanError, match="unknown augmenter 'nope'"):
        get_augmenter("nope")


def test_lexical_substitution_swaps_only_the_anchor_and_checks_pos():
    src = frame_corpus(1)[0]  # "Anna bought a car yesterday ." anchor "bought"
    assert src.text == "Anna bought a car yesterday ."
    outs = [_rewrite(src, "A car was purchased by Anna yesterday .", (10, 19)),
            _rewrite(src, "Anna went shopping for a car .", (5, 9), k=1),
            _rewrite(src, "Anna bought a car .", (5, 11), k=2)]  # same anchor text: no substitution

    def pos(items):
        return ["NOUN" if text[span.start:span.end] == "went" and text.startswith("Anna went a") else "VERB"
                for text, span in items]

    lex = lexical_substitution([src], outs, pos)
    assert [s.text for s in lex] == ["Anna purchased a car yesterday ."]
    st = lex[0].structures[0]
    assert st.anchor.text_in(lex[0].text) == "purchased" and st.label == "Commerce_buy"
    assert [(a.text_in(lex[0].text), a.label) for a in st.args] == [("Anna", "Agent"), ("a car", "Theme")]
    assert lex[0].source_id == src.id and lex[0].provenance["method"] == "lexsub"


def _write(path, outputs):
    path.write_text("".join(json.dumps(o.to_dict()) + "\n" for o in outputs))
    return path


def test_a_file_made_from_another_subset_is_refused_not_silently_thinned(tmp_path):
    gold = frame_corpus(20)
    path = _write(tmp_path / "aug.jsonl", [_rewrite(g, "Someone purchased it .", (8, 17)) for g in gold[:10]])
    augment = get_augmenter(f"jsonl:{path}")
    augment.prepare(gold)
    assert len(augment(gold[:10], 0)) == 10 and augment.report()["sources_outside_subset"] == 0
    with pytest.raises(CorpusError) as err:
        augment(gold[8:18], 1)  # 2 of its 10 sources are in this subset
    assert err.value.code == "E890" and err.value.problem.file == str(path)
    assert "8 of the 10 gold sentences" in err.value.problem.message
    assert "8 of them are other sentences of the training corpus" in err.value.problem.message


def test_a_file_made_from_the_whole_corpus_serves_every_subset_but_not_another_corpus(tmp_path):
    gold = frame_corpus(20)
    path = _write(tmp_path / "all.jsonl", [_rewrite(g, "Someone purchased it .", (8, 17)) for g in gold])
    augment = get_augmenter(f"jsonl-corpus:{path}")
    augment.prepare(gold)
    assert [o.source_id for o in augment(gold[:4], 0)] == [g.id for g in gold[:4]]
    with pytest.raises(CorpusError) as err:
        get_augmenter(f"jsonl-corpus:{path}").prepare(frame_corpus(20, offset=500))
    assert err.value.code == "E891" and "20 of the 20 gold sentences" in err.value.problem.message
