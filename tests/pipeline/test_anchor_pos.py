"""The LU of a new anchor takes its part of speech from a parse of the paraphrase, not from the
seed LU (issue 5: "Cogitation:crucial.n" for the adjective "crucial")."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.generate.base import Candidate, Capabilities, GenerationRequest, GenerationResult
from paraspan.pipeline import Augmenter, build_filters, open_store, run_augment
from paraspan.text.lexical_units import UPOS_TO_FN, AnchorTagger, span_head
from tests.pipeline.conftest import with_
from tests.pipeline.fakes import FakeAligner, FakeGenerator

THINK = {"id": "t", "text": "We think about the plan.",
         "structures": [{"kind": "frame", "label": "Cogitation", "anchor": {"start": 3, "end": 8, "label": "think.v"},
                         "args": [{"start": 0, "end": 2, "label": "Cognizer"},
                                  {"start": 9, "end": 23, "label": "Topic"}]}]}
EAGER = {"id": "e", "text": "The students were eager to learn.",
         "structures": [{"kind": "frame", "label": "Desiring", "anchor": {"start": 18, "end": 23, "label": "eager.a"},
                         "args": [{"start": 0, "end": 12, "label": "Experiencer"},
                                  {"start": 24, "end": 32, "label": "Event"}]}]}


def _augmenter(config, tagger=None):
    aug = Augmenter(config, FakeGenerator(), FakeAligner(), {"llm": "fake"}, build_filters(config))
    if tagger is not None:
        aug.tagger = tagger
    return aug


def _lus(result):
    out = []
    for o in result.outputs:
        [st] = o.sentence.structures
        out.append((o.sentence.text[st.anchor.start:st.anchor.end], st.anchor.label,
                    o.sentence.provenance["anchor_lu"]["pos_from"]))
    return out


def test_adjective_anchor_of_a_verb_seed_gets_a(fake_config):
    result = _augmenter(with_(fake_config, iterations=2)).process(Sentence.from_dict(THINK))
    assert _lus(result) == [("reflect", "reflect.v", "parse"), ("are mindful", "mindful.a", "parse")]
    out = result.outputs[1]
    assert out.anchor_lemma == "mindful" and out.frame == "Cogitation"
    lu = out.sentence.provenance["anchor_lu"]
    assert lu == {"label": "mindful.a", "pos": "a", "pos_from": "parse", "upos": "ADJ"}
    assert out.sentence.provenance["source_anchor"]["label"] == "think.v"  # the seed's stays on record


def test_verb_anchor_of_an_adjective_seed_gets_v(fake_config):
    result = _augmenter(with_(fake_config, iterations=2)).process(Sentence.from_dict(EAGER))
    assert _lus(result) == [("itching", "itch.v", "parse"), ("keen", "keen.a", "parse")]
    assert result.outputs[0].sentence.provenance["anchor_lu"]["upos"] == "VERB"


def test_multiword_anchor_takes_the_heads_pos(fake_config):
    sentence = Sentence.from_dict({"id": "a", "text": "The farmer sold his tractor to a neighbour.",
                                   "structures": [{"kind": "frame", "label": "Commerce_sell",
                                                   "anchor": {"start": 11, "end": 15, "label": "sell.n"},
                                                   "args": []}]})
    result = _augmenter(with_(fake_config, iterations=2)).process(sentence)
    # the seed says noun (deliberately wrong here); the parse says verb, "over" is a particle
    assert [lab for _, lab, _ in _lus(result)] == ["trade.v", "hand over.v"]


class _Doc(list):
    """A parse with no usable tag: every token is X, its own head (a spaCy stand-in)."""

    def __init__(self, text: str) -> None:
        tokens, at = [], 0
        for i, word in enumerate(text.split(" ")):
            token = SimpleNamespace(i=i, idx=at, text=word, pos_="X", dep_="dep", is_space=False,
                                    lower_=word.lower(), whitespace_=" ")
            token.head = token
            tokens.append(token)
            at += len(word) + 1
        super().__init__(tokens)
        self.text = text


def test_seed_pos_is_only_the_fallback(fake_config):
    aug = _augmenter(with_(fake_config, iterations=1), tagger=AnchorTagger(nlp=_Doc))
    [(text, label, source)] = _lus(aug.process(Sentence.from_dict(EAGER)))
    assert (text, label, source) == ("itching", "itch.a", "seed")  # no tag: the seed's POS (eager.a)


def test_generator_lu_and_a_given_parse_are_reused():
    tagger = AnchorTagger(nlp=lambda text: pytest.fail("parsed although a parse was given"))
    placed = [Structure("frame", "Commerce_buy", Span(4, 13, "purchase.v"), [])]
    lu = tagger.lu("She purchased it.", 4, 13, "v", placed=placed)
    assert (lu.label, lu.source) == ("purchase.v", "generator")
    from paraspan.models import load_spacy

    doc = load_spacy(exclude=("ner", "lemmatizer"))("It is crucial.")
    lu = tagger.lu("It is crucial.", 6, 13, "n", doc=doc)
    assert (lu.label, lu.source, lu.upos) == ("crucial.a", "parse", "ADJ")


def test_span_head_and_pos_table():
    from paraspan.models import load_spacy

    nlp = load_spacy(exclude=("ner", "lemmatizer"))
    doc = nlp("The children were running home quickly.")
    assert span_head(doc, 13, 25) == ("run", "VERB")  # "were running": the auxiliary is left out
    assert span_head(doc, 31, 39) == ("quickly", "ADV")  # trailing "." dropped
    assert span_head(doc, 38, 39) is None  # punctuation only
    assert {UPOS_TO_FN[u] for u in ("VERB", "NOUN", "PROPN", "ADJ", "ADV", "ADP", "NUM")} == {
        "v", "n", "a", "adv", "prep", "num"}


def test_summary_counts_pairs_by_the_new_label(tmp_path, fake_config):
    config = with_(fake_config, iterations=2)
    store = open_store(tmp_path / "pos.db", config, resume=False)
    summary = run_augment([Sentence.from_dict(THINK), Sentence.from_dict(EAGER)], store, config,
                          augmenter=_augmenter(config))
    # reflect.v, mindful.a, itch.v, keen.a: all new to the seeds (think.v, eager.a)
    assert summary.seed_pairs == 2 and summary.new_pairs == 4
    labels = {r.sentence.structures[0].anchor.label for r in store.iter_outputs()}
    assert labels == {"reflect.v", "mindful.a", "itch.v", "keen.a"}


def test_summary_a_seed_lemma_with_a_new_pos_is_new(tmp_path, fake_config):
    # seed "itch.a" (a made-up LU): the output's "itch.v" has the seed's lemma but is a new (frame, LU) pair
    data = {**EAGER, "structures": [{**EAGER["structures"][0],
                                     "anchor": {"start": 18, "end": 23, "label": "itch.a"}}]}
    config = with_(fake_config, iterations=1)
    store = open_store(tmp_path / "pos2.db", config, resume=False)
    summary = run_augment([Sentence.from_dict(data)], store, config, augmenter=_augmenter(config))
    assert summary.new_pairs == 1  # itch.v is not the seed's itch.a


@dataclass
class _KeepAnchor:
    """A rewrite around the anchor (as the cascade's rule rewrites): the anchor's words stay."""

    info: dict = field(default_factory=lambda: {"llm": "fake"})
    capabilities = Capabilities(honours_ban=False)

    def generate(self, request: GenerationRequest) -> GenerationResult:
        return GenerationResult(request, [Candidate("Indeed, a lot of us think about the plan.", {"score": -1.0},
                                                    meta={"keeps_anchor": True})])


def test_an_unchanged_anchor_keeps_its_gold_lu(fake_config):
    """The parse's guess is not asked when the anchor's words are the source's: it gave "lot.n"
    for "a lot.n", "after.scon" for "after.prep", "fulfilly.a" for "fulfilling.a" (FrameNet train)."""
    data = {"id": "q", "text": "A lot of us think about the plan.",
            "structures": [{"kind": "frame", "label": "Quantity", "anchor": {"start": 0, "end": 5, "label": "a lot.n"},
                            "args": [{"start": 6, "end": 11, "label": "Individuals"}]}]}
    aug = Augmenter(with_(fake_config, iterations=1), _KeepAnchor(), FakeAligner(), {"llm": "fake"},
                    build_filters(fake_config))
    [out] = aug.process(Sentence.from_dict(data)).outputs
    [st] = out.sentence.structures
    assert out.sentence.text[st.anchor.start:st.anchor.end] == "a lot"
    assert st.anchor.label == "a lot.n"
    assert out.sentence.provenance["anchor_lu"] == {"label": "a lot.n", "pos": "n", "pos_from": "source"}
