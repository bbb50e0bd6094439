"""The replacement baselines (token, mention, synonym, sister LU): labels on the right tokens, seeded
draws, notes when there is nothing to replace, and a run through ``paraspan augment``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paraspan.cli.main import main
from paraspan.corpus.frame_index import Frame, FrameElement, FrameIndex, LexUnit
from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import ParaspanError
from paraspan.generate.base import Candidate, GenerationRequest, generators
from paraspan.generate.baselines import (
    DonorPool,
    MentionReplacer,
    SisterLUReplacer,
    SynonymReplacer,
    TokenReplacer,
    tokenize,
)
from paraspan.generate.project import place, project_mapping
from paraspan.generate.sister_lu import inflect_lu_like
from paraspan.pipeline import AugmentConfig
from paraspan.pipeline.loop import Augmenter

# ----------------------------------------------------------------------------- fixtures


def at(text: str, part: str, label: str | None = None, nth: int = 0) -> Span:
    start = -1
    for _ in range(nth + 1):
        start = text.index(part, start + 1)
    return Span(start, start + len(part), label)


def ner(sid: str, text: str, mentions: list[tuple[str, str]]) -> Sentence:
    return Sentence(sid, text, [Structure("entity", label, at(text, part)) for part, label in mentions])


def srl(sid: str, text: str, pred: str, sense: str, args: list[tuple[str, str]]) -> Sentence:
    return Sentence(sid, text, [Structure("srl", sense, at(text, pred, sense.split(".")[0]),
                                          [at(text, part, label) for part, label in args])])


def frame(sid: str, text: str, name: str, target: str, lu: str, fes: list[tuple[str, str]]) -> Sentence:
    return Sentence(sid, text, [Structure("frame", name, at(text, target, lu), [at(text, p, la) for p, la in fes])])


NER = ner("n1", "Anna Berg met Bob in Paris .", [("Anna Berg", "PER"), ("Bob", "PER"), ("Paris", "LOC")])
#: one donor per label and position, so that p=1 has exactly one outcome
NER_DONOR = ner("d1", "Zed Quill visited Oslo .", [("Zed Quill", "PER"), ("Oslo", "LOC")])
NER_DONOR_LONG = ner("d2", "Lena Maria Ortiz flew to New York City .",
                     [("Lena Maria Ortiz", "PER"), ("New York City", "LOC")])

SRL = srl("s1", "The farmer sold an old tractor to his neighbour yesterday .", "sold", "sell.01",
          [("The farmer", "ARG0"), ("an old tractor", "ARG1"), ("to his neighbour", "ARG2"),
           ("yesterday", "ARGM-TMP")])
SRL_DONOR = srl("s2", "Every dealer bought one apple from her aunt recently .", "bought", "buy.01",
                [("Every dealer", "ARG0"), ("one apple", "ARG1"), ("from her aunt", "ARG2"),
                 ("recently", "ARGM-TMP")])

FN = frame("f1", "Mira sold a basket to a stranger .", "Commerce_sell", "sold", "sell.v",
           [("Mira", "Seller"), ("a basket", "Goods"), ("to a stranger", "Buyer")])
FN_DONOR = frame("f2", "Tom peddled every umbrella to the tourists .", "Commerce_sell", "peddled", "peddle.v",
                 [("Tom", "Seller"), ("every umbrella", "Goods"), ("to the tourists", "Buyer")])


def pool(*sentences: Sentence) -> DonorPool:
    out = DonorPool()
    out.add_all(sentences)
    return out


def request(sentence: Sentence | None, k: int | None = 0, rid: str = "r", n: int = 5,
            text: str | None = None) -> GenerationRequest:
    return GenerationRequest(rid, text if text is not None else sentence.text, sentence=sentence,  # type: ignore[union-attr]
                             structure=k, n=n)


def spans_of(cand: Candidate, k: int) -> list[tuple[str | None, str]]:
    """``(label, text)`` of structure ``k``'s anchor (label: the structure's) and args in the candidate."""
    st = cand.structures[k]  # type: ignore[index]
    assert st is not None
    out = [(st.label, cand.text[st.anchor.start:st.anchor.end])] if st.anchor is not None else []
    return out + [(a.label, cand.text[a.start:a.end]) for a in st.args]


def lu(i: int, name: str, frame_name: str) -> LexUnit:
    return LexUnit(i, name, name.rsplit(".", 1)[1].upper(), name.rsplit(".", 1)[0], frame_name)


def make_index() -> FrameIndex:
    """Commerce_sell (verbs sell/vend/peddle, nouns sale/auction, multiword sell off), a frame
    with one LU, and Size (adjectives big/large/tiny)."""
    sell = Frame(1, "Commerce_sell", "A Seller gives Goods to a Buyer.", fes={
        "Seller": FrameElement("Seller", 11, "Core"), "Goods": FrameElement("Goods", 12, "Core"),
        "Buyer": FrameElement("Buyer", 13, "Core")})
    for i, name in enumerate(("sell.v", "vend.v", "peddle.v", "sale.n", "auction.n", "sell off.v", "sell (out).v")):
        sell.lus[name] = lu(100 + i, name, "Commerce_sell")
    alone = Frame(2, "Sneezing", "Someone sneezes.", fes={"Sneezer": FrameElement("Sneezer", 21, "Core")})
    alone.lus["sneeze.v"] = lu(200, "sneeze.v", "Sneezing")
    size = Frame(3, "Size", "How big an Entity is.", fes={"Entity": FrameElement("Entity", 31, "Core")})
    for i, name in enumerate(("big.a", "large.a", "tiny.a")):
        size.lus[name] = lu(300 + i, name, "Size")
    index = FrameIndex(frames={f.name: f for f in (sell, alone, size)})
    index._build()
    return index


# ----------------------------------------------------------------------------- registry and options


def test_the_baselines_are_registered_with_typed_options() -> None:
    assert {"token_replace", "mention_replace", "synonym_replace", "sister_lu"} <= set(generators.names())
    assert set(generators.options("token_replace")) == {"p", "donors", "donors_format", "n", "seed"}
    assert set(generators.options("mention_replace")) == {"p", "donors", "donors_format", "n", "seed"}
    assert set(generators.options("synonym_replace")) == {"p", "senses", "attested", "n", "seed"}
    assert set(generators.options("sister_lu")) == {"frames", "pos", "n", "seed"}
    gen = generators.build("token_replace", {"p": 0.5, "seed": 3})
    assert isinstance(gen, TokenReplacer) and gen.p == 0.5 and gen.seed == 3
    for name in ("token_replace", "mention_replace"):
        caps = generators.build(name, {}).capabilities
        assert caps.needs_structure and caps.deterministic and not caps.honours_ban and not caps.keeps_meaning
    caps = generators.build("synonym_replace", {}).capabilities
    assert caps.keeps_meaning and caps.needs_structure and caps.deterministic and not caps.honours_ban
    assert SisterLUReplacer.capabilities.keeps_meaning


@pytest.mark.parametrize(("name", "options", "code"), [
    ("token_replace", {"p": 0.0}, "E880"), ("mention_replace", {"p": 1.5}, "E880"),
    ("synonym_replace", {"senses": 0}, "E880"), ("token_replace", {"n": 0}, "E880"), ("sister_lu", {}, "E881"),
])
def test_bad_options_are_errors_with_a_code(name: str, options: dict, code: str) -> None:
    with pytest.raises(ParaspanError) as err:
        generators.build(name, options)
    assert err.value.code == code


def test_a_donor_file_without_labelled_spans_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text(json.dumps({"id": "x", "text": "Nothing here .", "structures": []}) + "\n", encoding="utf-8")
    with pytest.raises(ParaspanError) as err:
        generators.build("mention_replace", {"donors": str(path)})
    assert err.value.code == "E882"


# ----------------------------------------------------------------------------- tokens


def test_tokens_are_cut_at_span_boundaries() -> None:
    s = Sentence("t", "He met well-known Anna.", [Structure("entity", "PER", at("He met well-known Anna.", "Anna"))])
    assert [s.text[a:b] for a, b in tokenize(s)] == ["He", "met", "well-known", "Anna", "."]
    cut = Sentence("t", "xyzAnna", [Structure("entity", "PER", Span(3, 7))])
    assert [cut.text[a:b] for a, b in tokenize(cut)] == ["xyz", "Anna"]


# ----------------------------------------------------------------------------- token replacement


def test_token_replace_ner_puts_each_label_on_its_replaced_tokens() -> None:
    gen = TokenReplacer(1.0, 5, 0, pool(NER_DONOR))
    result = gen.generate(request(NER, 0))
    assert [c.text for c in result.candidates] == ["Zed Quill met Bob in Paris ."]  # B-PER → Zed, I-PER → Quill
    cand = result.candidates[0]
    assert [spans_of(cand, k) for k in range(3)] == [[("PER", "Zed Quill")], [("PER", "Bob")], [("LOC", "Paris")]]
    assert cand.meta["edits"] == [["Anna", "Zed", "PER"], ["Berg", "Quill", "PER"]]
    # the pipeline's placement takes the generator's structures as they are
    placement = place(NER, 0, [], [cand])[0]
    assert placement.via == "placed" and placement.anchor == ((0, 9), 1.0)
    # structure 2 only: the other mentions stay
    loc = gen.generate(request(NER, 2)).candidates
    assert [c.text for c in loc] == ["Anna Berg met Bob in Oslo ."] and spans_of(loc[0], 2) == [("LOC", "Oslo")]


def test_token_replace_draws_only_donors_of_the_same_label_and_position() -> None:
    donors = pool(NER_DONOR, NER_DONOR_LONG)
    result = TokenReplacer(0.5, 6, 1, donors).generate(request(NER, 0))
    assert len(result.candidates) >= 2 and len({c.text for c in result.candidates}) == len(result.candidates)
    for cand in result.candidates:
        (label, mention), = spans_of(cand, 0)
        first, *rest = mention.split()
        assert first in {"Anna", "Zed", "Lena"} and all(w in {"Berg", "Quill", "Maria", "Ortiz"} for w in rest)
        assert spans_of(cand, 1) == [("PER", "Bob")] and spans_of(cand, 2) == [("LOC", "Paris")]
        assert cand.text.endswith(" met Bob in Paris .") and cand.text.startswith(mention)


def test_token_replace_srl_changes_arguments_never_the_predicate_and_the_mapping_agrees() -> None:
    cands = TokenReplacer(1.0, 5, 0, pool(SRL_DONOR)).generate(request(SRL, 0)).candidates
    # p=1: every argument token takes a donor of its label and position; the I-ARG2 tokens have two
    # donors each ("her", "aunt"), every other token one: four outputs in all, each found
    assert {tuple(spans_of(c, 0)) for c in cands} == {
        (("sell.01", "sold"), ("ARG0", "Every dealer"), ("ARG1", "one apple apple"), ("ARG2", f"from {a} {b}"),
         ("ARGM-TMP", "recently")) for a in ("her", "aunt") for b in ("her", "aunt")}
    for cand in cands:
        projected = project_mapping(SRL, cand.mapping)  # type: ignore[arg-type]
        assert [(a.label, cand.text[a.start:a.end]) for a in projected.structures[0].args] == spans_of(cand, 0)[1:]
        assert [t.changed for t in cand.mapping.tokens if t.src == 2] == [False]  # type: ignore[union-attr]


def test_token_replace_framenet_changes_fe_tokens_not_the_target() -> None:
    cands = TokenReplacer(1.0, 5, 0, pool(FN_DONOR)).generate(request(FN, 0)).candidates
    # "to" has no other B-Buyer donor than itself: it stays
    assert {tuple(spans_of(c, 0)) for c in cands} == {
        (("Commerce_sell", "sold"), ("Seller", "Tom"), ("Goods", "every umbrella"), ("Buyer", f"to {a} {b}"))
        for a in ("the", "tourists") for b in ("the", "tourists")}
    assert all(c.structures[0].anchor.label == "sell.v" for c in cands)  # type: ignore[union-attr]
    # an FE that is the target itself is never replaced
    own = Sentence("o", "The sale went well .", [Structure("frame", "Commerce_sell", at("The sale went well .", "sale",
                                                                                         "sale.n"),
                                                           [at("The sale went well .", "sale", "Goods")])])
    result = TokenReplacer(1.0, 5, 0, pool(FN_DONOR)).generate(request(own, 0))
    assert not result.candidates and "no labelled span" in (result.note or "")


# ----------------------------------------------------------------------------- mention replacement


def test_mention_replace_handles_a_longer_mention() -> None:
    gen = MentionReplacer(1.0, 5, 0, pool(NER_DONOR_LONG))
    cand, = gen.generate(request(NER, 1)).candidates
    assert cand.text == "Anna Berg met Lena Maria Ortiz in Paris ."
    assert [spans_of(cand, k) for k in range(3)] == [[("PER", "Anna Berg")], [("PER", "Lena Maria Ortiz")],
                                                     [("LOC", "Paris")]]
    # and a shorter one: the spans after it move back
    short = MentionReplacer(1.0, 5, 0, pool(NER_DONOR)).generate(request(NER_DONOR_LONG, 1)).candidates[0]
    assert short.text == "Lena Maria Ortiz flew to Oslo ." and spans_of(short, 1) == [("LOC", "Oslo")]


def test_mention_replace_srl_keeps_the_final_punctuation_and_the_predicate() -> None:
    text = "The farmer sold the old tractor ."
    ends = srl("s3", text, "sold", "sell.01", [("The farmer", "ARG0"), ("the old tractor .", "ARG1")])
    donor = srl("s4", "Someone bought a very large car !", "bought", "buy.01",
                [("Someone", "ARG0"), ("a very large car !", "ARG1")])
    texts = {c.text for c in MentionReplacer(1.0, 5, 0, pool(donor)).generate(request(ends, 0)).candidates}
    assert texts == {"Someone sold a very large car ."}  # the donor's "!" stays behind, the source's "." stays
    cand = MentionReplacer(1.0, 5, 0, pool(SRL_DONOR)).generate(request(SRL, 0)).candidates[0]
    assert spans_of(cand, 0) == [("sell.01", "sold"), ("ARG0", "Every dealer"), ("ARG1", "one apple"),
                                 ("ARG2", "from her aunt"), ("ARGM-TMP", "recently")]
    # donor case fitted: a capitalized closed-class word is lowered mid-sentence, the first word raised
    assert cand.text == "Every dealer sold one apple from her aunt recently ."
    projected = project_mapping(SRL, cand.mapping)  # type: ignore[arg-type]
    assert [(a.label, cand.text[a.start:a.end]) for a in projected.structures[0].args] == spans_of(cand, 0)[1:]


def test_mention_replace_skips_a_span_that_holds_another_span_of_the_structure() -> None:
    text = "Mira sold the basket of apples ."
    nested = frame("f3", text, "Commerce_sell", "sold", "sell.v",
                   [("Mira", "Seller"), ("the basket of apples", "Goods"), ("apples", "Goods")])
    donor = frame("f4", "Tom sold pears .", "Commerce_sell", "sold", "sell.v", [("Tom", "Seller"), ("pears", "Goods")])
    cand, = MentionReplacer(1.0, 5, 0, pool(donor)).generate(request(nested, 0)).candidates
    # the outer Goods holds the inner one: it is never replaced whole, the inner one is
    assert cand.text == "Tom sold the basket of pears ."
    assert spans_of(cand, 0) == [("Commerce_sell", "sold"), ("Seller", "Tom"), ("Goods", "the basket of pears"),
                                 ("Goods", "pears")]


def test_the_article_before_a_replaced_word_is_fixed() -> None:
    text = "Mira sold a basket ."
    src = frame("f5", text, "Commerce_sell", "sold", "sell.v", [("Mira", "Seller"), ("basket", "Goods")])
    donor = frame("f6", "Tom sold one umbrella .", "Commerce_sell", "sold", "sell.v",
                  [("Tom", "Seller"), ("umbrella", "Goods")])
    cand, = MentionReplacer(1.0, 5, 0, pool(donor)).generate(request(src, 0)).candidates
    assert cand.text == "Tom sold an umbrella ." and spans_of(cand, 0)[2] == ("Goods", "umbrella")


# ----------------------------------------------------------------------------- determinism and the pool


@pytest.mark.parametrize("cls", [TokenReplacer, MentionReplacer])
def test_the_same_seed_and_request_give_the_same_candidates(cls: type) -> None:
    donors = [NER_DONOR, NER_DONOR_LONG, ner("d3", "Kim Lee saw Rome .", [("Kim Lee", "PER"), ("Rome", "LOC")])]

    def texts(seed: int, rid: str, order: list[Sentence]) -> list[str]:
        return [c.text for c in cls(0.5, 4, seed, pool(*order)).generate(request(NER, None, rid)).candidates]

    first = texts(0, "a", donors)
    assert first and first == texts(0, "a", donors)
    assert first == texts(0, "a", donors[::-1])  # the pool's content counts, not the order it was filled in
    others = [texts(seed, rid, donors) for seed, rid in ((1, "a"), (2, "a"), (0, "b"), (0, "c"))]
    assert any(o != first for o in others)


def test_without_donors_the_pool_is_the_sentences_seen() -> None:
    gen = generators.build("mention_replace", {"p": 1.0})
    cand, = gen.generate(request(NER, 1)).candidates  # the only other PER it has seen is in this sentence
    assert cand.text == "Anna Berg met Anna Berg in Paris ."
    assert gen.generate(request(NER, 2)).note.startswith("no donor mention with the same label: LOC")
    gen.generate(request(NER_DONOR_LONG, 0))  # now it has seen a LOC elsewhere
    cand, = gen.generate(request(NER, 2)).candidates
    assert spans_of(cand, 2) == [("LOC", "New York City")]
    assert gen.info["donors"] == "seen sentences"


def test_donors_from_a_corpus_file(tmp_path: Path) -> None:
    path = tmp_path / "donors.bio"
    path.write_text("Zed\tB-PER\nQuill\tI-PER\nvisited\tO\nOslo\tB-LOC\n.\tO\n", encoding="utf-8")
    gen = generators.build("token_replace", {"p": 1.0, "donors": str(path), "donors_format": "bio"})
    assert [c.text for c in gen.generate(request(NER, 0)).candidates] == ["Zed Quill met Bob in Paris ."]
    assert gen.pool.sentences == 1  # a fixed pool: the requests' sentences are not added


# ----------------------------------------------------------------------------- nothing to replace


def test_nothing_to_replace_gives_no_candidates_and_a_note() -> None:
    plain = Sentence("p", "Nothing is labelled here .", [])
    for gen in (TokenReplacer(0.5, 5, 0, pool(NER_DONOR)), MentionReplacer(0.5, 5, 0, pool(NER_DONOR))):
        assert gen.generate(request(plain, None)).note.startswith("no labelled span")
        assert "plain text" in (gen.generate(request(None, None, text="Just text .")).note or "")
        assert "no structure 7" in (gen.generate(request(NER, 7)).note or "")
    misc = ner("m", "The Eiffel Tower is tall .", [("Eiffel Tower", "MISC")])
    note = TokenReplacer(0.5, 5, 0, pool(NER_DONOR)).generate(request(misc, 0)).note or ""
    assert note.startswith("no donor token with the same label: MISC (B), MISC (I)")
    result = SynonymReplacer(0.5).generate(request(SRL, 0))
    assert not result.candidates and result.note == "no word outside the labelled spans has a WordNet synonym"


# ----------------------------------------------------------------------------- synonyms


@pytest.fixture(scope="module")
def synonyms() -> SynonymReplacer:
    return SynonymReplacer(1.0, 6, 0)


def test_synonym_replace_keeps_the_labelled_spans_and_inflects(synonyms: SynonymReplacer) -> None:
    text = "Anna purchases two cars in Paris ."
    s = ner("y1", text, [("Anna", "PER"), ("Paris", "LOC")])
    result = synonyms.generate(request(s, 0))
    assert result.candidates
    for cand in result.candidates:
        assert spans_of(cand, 0) == [("PER", "Anna")] and spans_of(cand, 1) == [("LOC", "Paris")]
        words = cand.text.split()
        assert words[1] == "buys"  # purchase.v.01: buy — VBZ like "purchases"
        assert words[3] in {"autos", "automobiles", "motorcars"}  # car.n.01, plural like "cars"
    mapping = result.candidates[0].mapping
    assert mapping is not None and [t.changed for t in mapping.tokens][:4] == [False, True, False, True]


def test_synonym_replace_fixes_the_article_and_leaves_the_frame_alone(synonyms: SynonymReplacer) -> None:
    text = "Mira sold her neighbour a car yesterday ."
    s = frame("y2", text, "Commerce_sell", "sold", "sell.v", [("Mira", "Seller"), ("her neighbour", "Buyer")])
    got = {c.text for c in synonyms.generate(request(s, 0)).candidates}
    assert got and all(t.startswith("Mira sold her neighbour ") for t in got)
    assert "Mira sold her neighbour an automobile yesterday ." in got or "Mira sold her neighbour an auto yesterday ." in got
    assert all((" a motorcar" in t) or (" an auto" in t) for t in got)


# ----------------------------------------------------------------------------- sister LUs


def test_inflect_lu_like_covers_nouns_and_adjectives() -> None:
    assert inflect_lu_like("sales", "sale.n", "auction.n") == "auctions"
    assert inflect_lu_like("Largest", "large.a", "tiny.a") == "Tiniest"
    assert inflect_lu_like("largest", "large.a", "huge.a") == "hugest"
    assert inflect_lu_like("bigger", "big.a", "enormous.a") == "more enormous"
    assert inflect_lu_like("weapons of mass destruction", "weapon of mass destruction.n", "bomb.n") == "bombs"
    assert inflect_lu_like("sold", "sell.v", "vend.v", "Mira") == "vended"
    assert inflect_lu_like("sold", "sale.n", "auction.n") is None


def test_sister_lu_replaces_the_target_and_relabels_it() -> None:
    gen = SisterLUReplacer(make_index(), 5, 0)
    result = gen.generate(request(FN, 0))
    texts = sorted(c.text for c in result.candidates)
    assert texts == ["Mira peddled a basket to a stranger .", "Mira sold off a basket to a stranger .",
                     "Mira vended a basket to a stranger ."]  # "sell (out).v" is left out: a bracketed name
    for cand in result.candidates:
        st = cand.structures[0]  # type: ignore[index]
        assert st is not None and st.anchor.label == cand.meta["lu_to"] and st.extra["lu_id"] >= 100
        assert spans_of(cand, 0)[1:] == [("Seller", "Mira"), ("Goods", "a basket"), ("Buyer", "to a stranger")]
        assert cand.text[st.anchor.start:st.anchor.end] == cand.text.split(" a basket")[0][5:]
    assert [c.text for c in gen.generate(request(FN, 0)).candidates] == [c.text for c in result.candidates]
    assert [c.text for c in gen.generate(request(FN, 0, n=1)).candidates] == [result.candidates[0].text]


def test_sister_lu_nouns_get_their_article_fixed_and_adjectives_their_degree() -> None:
    text = "They held a sale of the biggest boats ."
    s = Sentence("z", text, [
        Structure("frame", "Commerce_sell", at(text, "sale", "sale.n"), [at(text, "of the biggest boats", "Goods")]),
        Structure("frame", "Size", at(text, "biggest", "big.a"), [at(text, "boats", "Entity")])])
    gen = SisterLUReplacer(make_index(), 5, 0)
    noun, = gen.generate(request(s, 0)).candidates
    assert noun.text == "They held an auction of the biggest boats ."
    assert spans_of(noun, 0) == [("Commerce_sell", "auction"), ("Goods", "of the biggest boats")]
    assert spans_of(noun, 1) == [("Size", "biggest"), ("Entity", "boats")]  # the other frame moved along
    adjectives = sorted(c.text for c in gen.generate(request(s, 1)).candidates)
    assert adjectives == ["They held a sale of the largest boats .", "They held a sale of the tiniest boats ."]


def test_sister_lu_notes_why_it_has_nothing() -> None:
    gen = SisterLUReplacer(make_index(), 5, 0)
    text = "Ann sneezed loudly ."
    lonely = frame("q", text, "Sneezing", "sneezed", "sneeze.v", [("Ann", "Sneezer")])
    assert gen.generate(request(lonely, 0)).note == "no sister LU of sneeze.v in Sneezing"
    assert gen.generate(request(NER, 0)).note == "not a FrameNet frame structure (entity)"
    odd = frame("o", "Mira sellz it .", "Commerce_sell", "sellz", "sell.v", [("Mira", "Seller")])
    assert gen.generate(request(odd, 0)).note == "cannot inflect a sister LU like 'sellz' (sell.v)"
    split = frame("d", "Mira sold it off .", "Commerce_sell", "sold", "sell off.v", [("Mira", "Seller")])
    split.structures[0].extra["anchor_rest"] = [[13, 16]]
    assert gen.generate(request(split, 0)).note == "a discontinuous target"
    # function words are left alone unless asked for
    text = "Mira sold it in May ."
    prep = frame("p", text, "Commerce_sell", "in", "in.prep", [("May", "Goods")])
    assert gen.generate(request(prep, 0)).note == "in.prep is not of a part of speech replaced (pos: v,n,a)"
    index = make_index()
    index.frames["Commerce_sell"].lus["on.prep"] = lu(120, "on.prep", "Commerce_sell")
    index._build()
    anyway = SisterLUReplacer(index, 5, 0, ("prep",)).generate(request(prep, 0)).candidates
    assert [c.text for c in anyway] == ["Mira sold it on May ."]
    with pytest.raises(ParaspanError) as err:
        generators.build("sister_lu", {"frames": "x", "pos": "v,verb"})
    assert err.value.code == "E880"


def test_sister_lu_through_the_pipeline_loop() -> None:
    augmenter = Augmenter(AugmentConfig(candidates=2), SisterLUReplacer(make_index(), 5, 0), aligner=None)
    result = augmenter.process(FN)
    out, = result.outputs
    sentence = out.sentence
    st = sentence.structures[0]
    assert len(result.candidates) == 2 and result.candidates[0].chosen  # --candidates 2; the first is placed
    assert sentence.text == result.candidates[0].text and sentence.source_id == "f1"
    assert st.anchor.label == sentence.provenance["anchor_lu"]["label"] != "sell.v"
    assert sentence.provenance["anchor_lu"]["pos_from"] == "generator"
    assert [(a.label, sentence.text[a.start:a.end]) for a in st.args] == [
        ("Seller", "Mira"), ("Goods", "a basket"), ("Buyer", "to a stranger")]
    assert "meaning" not in sentence.provenance  # keeps_meaning: the meaning check applies


# ----------------------------------------------------------------------------- paraspan augment


BIO = """Anna\tB-PER
Berg\tI-PER
met\tO
Bob\tB-PER
in\tO
Paris\tB-LOC
.\tO

Zed\tB-PER
Quill\tI-PER
visited\tO
Oslo\tB-LOC
.\tO

Nothing\tO
here\tO
.\tO
"""


def test_augment_with_token_replace_end_to_end(tmp_path: Path) -> None:
    bio = tmp_path / "tiny.bio"
    bio.write_text(BIO, encoding="utf-8")
    corpus = tmp_path / "tiny.jsonl"
    assert main(["convert", str(bio), "-o", str(corpus), "--from", "bio"]) == 0
    out = tmp_path / "out.jsonl"
    assert main(["augment", str(corpus), "-o", str(out), "--generator", "token_replace", "--filter", "spans",
                 "--aligner", "tests.pipeline.fakes:make_aligner", "--workers", "1", "--no-progress",
                 "--set", "generator.p=1.0", "--set", f"generator.donors={bio}",
                 "--set", "generator.donors_format=bio"]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    sources = {s["id"]: s for s in map(json.loads, corpus.read_text(encoding="utf-8").splitlines())}
    donors = pool(*(Sentence.from_dict(s) for s in sources.values()))
    # one output per entity: Anna Berg, Bob, Paris; Zed Quill, Oslo
    assert sorted((r["source_id"], r["provenance"]["structure"]) for r in rows) == [
        ("tiny:1", 0), ("tiny:1", 1), ("tiny:1", 2), ("tiny:2", 0), ("tiny:2", 1)]
    for row in rows:
        source = sources[row["source_id"]]
        old = source["structures"][row["provenance"]["structure"]]
        new, *others = row["structures"]
        assert new["kind"] == "entity" and new["label"] == old["label"]
        # every other mention of the sentence comes along, on its own (unchanged) text
        assert len(others) == len(source["structures"]) - 1 == row["provenance"].get("entities_carried", 0)
        kept = [o for i, o in enumerate(source["structures"]) if i != row["provenance"]["structure"]]
        assert [row["text"][o["anchor"]["start"]:o["anchor"]["end"]] for o in others] == \
            [source["text"][o["anchor"]["start"]:o["anchor"]["end"]] for o in kept]
        s, e = old["anchor"]["start"], old["anchor"]["end"]
        ns, ne = new["anchor"]["start"], new["anchor"]["end"]
        mention, replaced = source["text"][s:e].split(), row["text"][ns:ne].split()
        # the label lies on the replaced mention, and only the mention changed
        assert row["text"][:ns] == source["text"][:s] and row["text"][ne:] == source["text"][e:]
        assert len(replaced) == len(mention) and replaced != mention
        for i, (was, now) in enumerate(zip(mention, replaced, strict=True)):
            assert now != was and now in donors.tokens[("entity", old["label"], "B" if i == 0 else "I")]
    assert all(r["provenance"]["meaning"] == "new" and r["provenance"]["projection"] == "placed" for r in rows)
    assert all(r["provenance"]["generated"]["baseline"] == "token_replace" for r in rows)
    summary = json.loads((tmp_path / "out.summary.json").read_text(encoding="utf-8"))
    assert summary["skipped"] == 1 and summary["config"]["generator"]["name"] == "token_replace"
