"""The projection policy: anchors must survive whole, arguments shrink or drop, labels never appear."""

from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.generate.base import MappedToken, TokenMapping
from paraspan.generate.project import project_mapping
from paraspan.generate.rewrite.core import Piece, render
from paraspan.models import load_spacy
from tests.generate.rewrite.helpers import find, srl


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def _run(nlp, sentence: Sentence, build):
    doc = nlp(sentence.text)
    pieces = build(doc)
    text, offsets = render(doc, pieces)
    mapping = TokenMapping(tuple((t.idx, t.idx + len(t.text)) for t in doc), tuple(t.head.i for t in doc),
                           tuple(MappedToken(s, e, p.src, p.changed, p.attach, p.marker,
                                             stop=p.src is None and p.attach is None and p.text == ".", copy=p.copy)
                                 for p, (s, e) in zip(pieces, offsets, strict=True)))
    proj = project_mapping(sentence, mapping)
    return text, proj


def _args(text: str, structure: Structure) -> list[tuple[str, str]]:
    return [(a.label, text[a.start:a.end]) for a in structure.args]


def test_deleted_word_shrinks_the_argument(nlp):
    s = srl("a", "The farmer sold his old tractor.", ("sell.01", "sold", [("ARG0", "The farmer"),
                                                                          ("ARG1", "his old tractor")]))
    text, proj = _run(nlp, s, lambda doc: [Piece(t.text, t.i) for t in doc if t.text != "old"])
    assert text == "The farmer sold his tractor."
    assert _args(text, proj.structures[0]) == [("ARG0", "The farmer"), ("ARG1", "his tractor")]
    assert proj.counts["arg_shrunk_deleted"] == 1


def test_argument_whose_head_is_deleted_is_dropped(nlp):
    s = srl("a", "The farmer sold his old tractor.", ("sell.01", "sold", [("ARG0", "The farmer"),
                                                                          ("ARG1", "his old tractor")]))
    text, proj = _run(nlp, s, lambda doc: [Piece(t.text, t.i) for t in doc if t.text != "tractor"])
    assert [a.label for a in proj.structures[0].args] == ["ARG0"]
    assert proj.counts["arg_dropped"] == 1


def test_lost_or_replaced_anchor_drops_the_structure(nlp):
    s = srl("a", "The farmer sold the tractor and bought a car.",
            ("sell.01", "sold", [("ARG0", "The farmer"), ("ARG1", "the tractor")]),
            ("buy.01", "bought", [("ARG1", "a car")]))
    text, proj = _run(nlp, s, lambda doc: [Piece("purchased" if t.text == "bought" else t.text, t.i,
                                                 changed=t.text == "bought") for t in doc])
    assert [st.label for st in proj.structures] == ["sell.01"]
    assert proj.counts["structure_dropped_anchor_lost"] == 1
    assert proj.sources == [0]


def test_reinflected_anchor_is_kept(nlp):
    s = srl("a", "The dog ate the cake.", ("eat.01", "ate", [("ARG0", "The dog"), ("ARG1", "the cake")]))
    text, proj = _run(nlp, s, lambda doc: [Piece("eats" if t.text == "ate" else t.text, t.i) for t in doc])
    anchor = proj.structures[0].anchor
    assert text[anchor.start:anchor.end] == "eats"


def test_split_argument_keeps_the_run_around_its_head(nlp):
    text0 = "Rome, the capital, is old."
    s = Sentence("a", text0, [Structure("srl", "be.01", Span(*find(text0, "is")),
                                        [Span(*find(text0, "Rome, the capital"), "ARG1")])])

    def build(doc):  # "Rome is old. Rome is the capital." with the appositive moved to the copy
        keep = [Piece(doc[i].text, i) for i in (0, 5, 6, 7)]
        return keep + [Piece("Rome"), Piece("is")] + [Piece(doc[i].text, i) for i in (2, 3)] + [Piece(".")]

    text, proj = _run(nlp, s, build)
    assert text == "Rome is old. Rome is the capital."
    assert _args(text, proj.structures[0]) == [("ARG1", "Rome")]
    assert proj.counts["arg_shrunk_split"] == 1


def test_inserted_words_inside_a_run_belong_to_it_but_not_at_its_edges(nlp):
    s = srl("a", "The arrival of the train was late.", ("be.01", "was", [("ARG1", "The arrival of the train")]))

    def build(doc):  # the train 's arrival was late .
        return [Piece("The", 3), Piece("train", 4), Piece("'s"), Piece("arrival", 1)] + [
            Piece(doc[i].text, i) for i in (5, 6, 7)]

    text, proj = _run(nlp, s, build)
    assert _args(text, proj.structures[0]) == [("ARG1", "The train's arrival")]


def test_attached_copy_goes_with_its_token(nlp):
    text0 = "The man, who was kind, left."
    s = Sentence("a", text0, [Structure("srl", "be.01", Span(*find(text0, "was")),
                                        [Span(*find(text0, "who"), "ARG1")])])

    def build(doc):  # "The man left. The man was kind."
        return [Piece(doc[i].text, i) for i in (0, 1, 7, 8)] + [Piece("The", None, 3), Piece("man", 3)] + [
            Piece(doc[i].text, i) for i in (4, 5)] + [Piece(".")]

    text, proj = _run(nlp, s, build)
    assert _args(text, proj.structures[0]) == [("ARG1", "The man")]


def test_entities_move_with_their_tokens(nlp):
    text0 = "Anna met Bob in Oslo."
    s = Sentence("e", text0, [Structure("entity", lab, Span(*find(text0, w)), []) for lab, w in
                              (("PER", "Anna"), ("PER", "Bob"), ("LOC", "Oslo"))])
    text, proj = _run(nlp, s, lambda doc: [Piece(doc[i].text, i) for i in (3, 4, 0, 1, 2, 5)])
    assert text == "in Oslo Anna met Bob."
    assert [(st.label, text[st.anchor.start:st.anchor.end]) for st in proj.structures] == [
        ("PER", "Anna"), ("PER", "Bob"), ("LOC", "Oslo")]


def test_an_extraction_that_copies_a_mention_labels_the_copy(nlp):
    """NER labels every mention: a copy of an entity's words is labelled too (it had been left
    without, and the candidate refused, since wikiann-cascade-f: "… was the X leader. The X
    leader was …")."""
    from paraspan.generate.base import GenerationRequest
    from paraspan.generate.project import carry_entities
    from paraspan.generate.rewrite import Rewriter, RuleSet

    text = "Her grandfather was the famous Basque poet , the Bard of Irun ."
    sentence = Sentence("e", text, [Structure("entity", "ORG", Span(*find(text, "Basque"), "ORG"), []),
                                    Structure("entity", "PER", Span(*find(text, "Bard of Irun"), "PER"), [])])
    rewriter = Rewriter(RuleSet.default().only("extraction"), nlp=nlp)
    result = rewriter.generate(GenerationRequest("e", text, sentence=sentence, structure=1))
    [copy] = [c for c in result.candidates if c.meta["rules"] == ["extract-appositive"]]
    assert copy.text.count("Basque") == 2
    carried, lost = carry_entities(sentence, 1, copy)
    assert lost == 0
    assert [(s.label, s.anchor.text_in(copy.text), s.anchor.start) for s in carried] == [
        ("ORG", "Basque", copy.text.index("Basque")), ("ORG", "Basque", copy.text.rindex("Basque"))]


def test_a_mention_written_anew_without_being_a_copy_is_not_carried():
    """Words of a mention that a rewrite writes as new words, not marked a copy, have no label: the
    candidate counts them as a mention not carried."""
    from paraspan.generate.base import Candidate
    from paraspan.generate.project import carry_entities

    text = "Anna met Bob ."
    sentence = Sentence("e", text, [Structure("entity", "PER", Span(0, 4, "PER"), []),
                                    Structure("entity", "PER", Span(9, 12, "PER"), [])])
    source_tokens = ((0, 4), (5, 8), (9, 12), (13, 14))
    out = "Anna met Bob . Bob smiled ."  # the second "Bob" written as a new word, not as a copy

    def tokens(copy):
        return (MappedToken(0, 4, 0), MappedToken(5, 8, 1), MappedToken(9, 12, 2), MappedToken(13, 14, 3),
                MappedToken(15, 18, None, copy=copy), MappedToken(19, 25), MappedToken(26, 27))

    for copy, lost, labelled in ((None, 1, 1), (2, 0, 2)):
        mapping = TokenMapping(source_tokens, (1, 1, 1, 1), tokens(copy))
        carried, got = carry_entities(sentence, 0, Candidate(out, {}, mapping=mapping))
        assert got == lost and len(carried) == labelled


def test_a_full_stop_put_in_ends_spans_and_a_copy_stands_in_the_second_sentence(nlp):
    """``MappedToken.stop``: no span runs across it; ``MappedToken.copy``: an argument left in the other
    sentence is its copy there, or is dropped."""
    s = srl("a", "Then Ann smiled and sold the bike.", ("sell.01", "sold", [
        ("ARGM-TMP", "Then"), ("ARG0", "Ann"), ("ARG1", "the bike")]))

    def build(doc):  # "Then Ann smiled. Ann sold the bike.": "and" gone, a full stop and the subject's copy put in
        return ([Piece(t.text, t.i) for t in doc[:3]] + [Piece("."), Piece("Ann", copy=1)]
                + [Piece(t.text, t.i) for t in doc[4:]])

    text, proj = _run(nlp, s, build)
    assert text == "Then Ann smiled. Ann sold the bike."
    assert _args(text, proj.structures[0]) == [("ARG0", "Ann"), ("ARG1", "the bike")]
    assert proj.structures[0].args[0].start > text.index(".")  # the copy, in the anchor's sentence
    assert proj.counts["arg_to_copy"] == 1 and proj.counts["arg_dropped_other_sentence"] == 1
