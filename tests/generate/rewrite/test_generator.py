"""The generator: projected rewrites of corpus sentences, the Generator contract, bad input."""

from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.generate.base import Candidate, GenerationRequest, generators
from paraspan.generate.rewrite import Rewriter, RuleSet
from paraspan.generate.rewrite.rules import hand_rules
from paraspan.models import load_spacy

from .helpers import CORPUS, entity, find, srl


@pytest.fixture(scope="module")
def rewriter():
    return Rewriter(RuleSet.default(), nlp=load_spacy(), strict=True)


def _labels(sentence: Sentence) -> set[tuple[str, str, str | None]]:
    found = set()
    for st in sentence.structures:
        found.add((st.kind, st.label, st.anchor.label if st.anchor else None))
        found.update((st.kind, st.label, a.label) for a in st.args)
    return found


def test_corpus_rewrites_are_valid_and_never_add_a_label(rewriter):
    out = {s.id: rewriter.rewrite_sentence(s) for s in CORPUS}
    total = sum(len(v) for v in out.values())
    assert total >= 2 * len(CORPUS)
    rules = set()
    for source in CORPUS:
        for rw in out[source.id]:
            rw.validate()
            assert rw.source_id == source.id and rw.id.startswith(source.id + "~rw")
            assert rw.provenance["method"] == "rewrite"
            rules.update(rw.provenance["rules"])
            assert rw.structures, "a rewrite without structures must not be emitted"
            assert _labels(rw) <= _labels(source)
            mapping = rw.provenance["mapping"]
            assert len({i for i, _ in mapping}) == len(mapping) == len({j for _, j in mapping})  # one-to-one
    assert len(rules) >= 10
    assert not [k for k in rewriter.counts if k.startswith("rule_error")]


def test_active_to_passive_projection(rewriter):
    s = srl("p", "The dog ate the cake.", ("eat.01", "ate", [("ARG0", "The dog"), ("ARG1", "the cake")]))
    rws = {r.provenance["rules"][0]: r for r in rewriter.rewrite_sentence(s)}
    rw = rws["active-to-passive"]
    assert rw.text == "The cake was eaten by the dog."
    st = rw.structures[0]
    assert rw.text[st.anchor.start:st.anchor.end] == "eaten"
    assert [(a.label, rw.text[a.start:a.end]) for a in st.args] == [("ARG0", "by the dog"), ("ARG1", "The cake")]


def test_genitive_to_pp_spans_take_the_new_article_and_preposition(rewriter):
    """"the" and "of" stand in for "'s": the whole possessive phrase's span holds them, the
    possessor's span ("Maria 's") becomes "of Maria"."""
    text = "After Maria 's coach taught her the rules , she won the race ."
    frame = Sentence("g", text, [Structure("frame", "Education_teaching", Span(*find(text, "taught"), "teach.v"),
                                           [Span(*find(text, "Maria 's coach"), "Teacher"),
                                            Span(*find(text, "her"), "Student")]),
                                 Structure("frame", "People_by_vocation", Span(*find(text, "coach"), "coach.n"),
                                           [Span(*find(text, "Maria 's"), "Employer")])])
    rws = [r for r in rewriter.rewrite_sentence(frame) if r.provenance["rules"] == ["genitive-to-pp"]]
    assert rws, [r.provenance["rules"] for r in rewriter.rewrite_sentence(frame)]
    rw = rws[0]
    assert rw.text.startswith("After the coach of Maria taught her")
    spans = {(a.label, rw.text[a.start:a.end]) for st in rw.structures for a in st.args}
    assert ("Teacher", "the coach of Maria") in spans
    assert ("Employer", "of Maria") in spans


def test_frames_and_entities(rewriter):
    text = "The farmer sold his old tractor to a neighbour."
    frame = Sentence("f", text, [Structure("frame", "Commerce_sell", Span(*find(text, "sold"), "sell.v"),
                                           [Span(*find(text, "The farmer"), "Seller"),
                                            Span(*find(text, "his old tractor"), "Goods")])])
    rws = rewriter.rewrite_sentence(frame)
    assert rws and all(r.structures[0].label == "Commerce_sell" for r in rws)
    ents = entity("e", "Yesterday Anna met Bob in the old town of Oslo.", ("PER", "Anna"), ("PER", "Bob"),
                  ("LOC", "Oslo"))
    for rw in rewriter.rewrite_sentence(ents):
        for st in rw.structures:
            assert rw.text[st.anchor.start:st.anchor.end] in {"Anna", "Bob", "Oslo"}


def test_max_per_sentence_spreads_over_rules():
    r = Rewriter(RuleSet(hand_rules()), nlp=load_spacy(), max_per_sentence=3)
    out = r.rewrite_sentence(CORPUS[1])
    assert len(out) == 3
    assert len({o.provenance["rules"][0] for o in out}) == 3


def test_bad_input_is_counted_not_raised(rewriter):
    rewriter.counts.clear()
    one_word = Sentence("w", "Hello.", [])
    empty = Sentence("x", "   ", [])
    junk = Sentence("j", ",,, ;; ...", [])
    text = "The farmer sold his old tractor."
    overlapping = Sentence("o", text, [
        Structure("entity", "PER", Span(*find(text, "The farmer")), []),
        Structure("entity", "ROLE", Span(*find(text, "farmer")), []),
        Structure("srl", "sell.01", Span(*find(text, "sold")), [Span(*find(text, "The farmer sold"), "ARG0"),
                                                                Span(*find(text, "farmer"), "ARG0")])])
    for s in (one_word, empty, junk):
        assert rewriter.rewrite_sentence(s) == []
    assert rewriter.counts["skipped_too_short"] == 3
    for rw in rewriter.rewrite_sentence(overlapping):
        rw.validate()
        assert _labels(rw) <= _labels(overlapping)


def test_all_structures_lost_is_not_emitted():
    text = "The teacher quickly answered the question."
    s = Sentence("q", text, [Structure("srl", "quick.01", Span(*find(text, "quickly")), [])])
    r = Rewriter(RuleSet([h for h in hand_rules() if h.name == "delete-adverb"]), nlp=load_spacy())
    assert r.rewrite_sentence(s) == []
    assert r.counts["skipped_all_structures_lost"] == 1


def test_generator_contract_and_registry():
    assert set(generators.options("rewrite")) == {"rules", "max_per_sentence", "max_lexical", "families", "learned"}
    gen = Rewriter(RuleSet(hand_rules()), nlp=load_spacy())
    request = GenerationRequest("r", "The cake was eaten by the dog.", keep=((4, 8),), n=5)
    result = gen.generate(request)
    cands = result.candidates
    assert cands and len(cands) <= 5 and gen.capabilities.deterministic and not gen.capabilities.honours_ban
    for c in cands:
        assert isinstance(c, Candidate)
        assert "cake" in c.text
        assert c.mapping is not None and c.meta["rules"]
        src_tokens, out_tokens = c.mapping.source_tokens, c.mapping.tokens
        for i, j in c.mapping.pairs():  # every mapped token lies in its text
            assert 0 <= i < len(src_tokens) and 0 <= j < len(out_tokens)
            assert c.text[out_tokens[j].start:out_tokens[j].end].strip()
    texts = [c.text for c in cands]
    assert "The dog ate the cake." in texts


def test_families_choose_rules_by_the_relation_they_keep():
    from paraspan.errors import ParaspanError
    from paraspan.generate.rewrite.rules import FAMILY_PRESETS, select_families

    every = RuleSet.default()
    same = every.only("equivalence")
    assert same.names() and {r.family for r in same.rules} <= set(FAMILY_PRESETS["equivalence"])
    assert "delete-adjective" not in same.names() and "synonym" not in same.names()
    assert not any(r.kind == "learned" for r in same.rules)
    forward = every.only("forward_entailment")
    assert "delete-adjective" in forward.names() and set(same.names()) < set(forward.names())
    assert len(every.only("all")) == len(every)
    assert select_families("voice,insertion") == ("voice", "insertion")
    with pytest.raises(ParaspanError) as err:
        select_families("voice,nonsense")
    assert err.value.code == "E798" and "nonsense" in str(err.value)
    # the registered generator keeps the meaning by default: no modifier deleted, and no passive
    # (judged right 26 times in 71 after verification); ``equivalence`` still has them
    gen = generators.build("rewrite", {})
    assert "delete-adjective" not in gen.rules.names() and "active-to-passive" not in gen.rules.names()
    assert {r.family for r in gen.rules.rules} == set(FAMILY_PRESETS["reliable"]) == set(FAMILY_PRESETS["equivalence"]) - {"voice"}
    assert "active-to-passive" in generators.build("rewrite", {"families": "equivalence"}).rules.names()
    assert "delete-adjective" in generators.build("rewrite", {"families": "all"}).rules.names()
    fewer = forward.without(["delete-adjective"])
    assert set(forward.names()) - set(fewer.names()) == {"delete-adjective"}
    with pytest.raises(KeyError):
        forward.without(["delete-adjectives"])  # a typo drops nothing: refused


def test_an_added_that_joins_the_clause_argument_and_a_dropped_one_leaves_it(rewriter):
    """FrameNet and PropBank put the complementizer inside the clause's span ("[Message that the
    talks failed]"); the clause's own arguments and every anchor keep their words."""
    text = "The minister said the talks failed ."
    s = Sentence("t", text, [
        Structure("frame", "Statement", Span(*find(text, "said"), "say.v"),
                  [Span(*find(text, "The minister"), "Speaker"), Span(*find(text, "the talks failed"), "Message")]),
        Structure("frame", "Success_or_failure", Span(*find(text, "failed"), "fail.v"),
                  [Span(*find(text, "the talks"), "Agent")])])
    [rw] = [r for r in rewriter.rewrite_sentence(s) if r.provenance["rules"] == ["insert-that"]]
    assert rw.text == "The minister said that the talks failed ."
    spans = [[(a.label, rw.text[a.start:a.end]) for a in st.args] for st in rw.structures]
    assert spans == [[("Speaker", "The minister"), ("Message", "that the talks failed")], [("Agent", "the talks")]]
    assert [rw.text[st.anchor.start:st.anchor.end] for st in rw.structures] == ["said", "failed"]
    back = Sentence("b", rw.text, rw.structures)
    [dropped] = [r for r in rewriter.rewrite_sentence(back) if r.provenance["rules"] == ["delete-that"]]
    assert dropped.text == text
    assert [[(a.label, dropped.text[a.start:a.end]) for a in st.args] for st in dropped.structures] == [
        [("Speaker", "The minister"), ("Message", "the talks failed")], [("Agent", "the talks")]]



def test_connective_and_attribution_moves_carry_every_span_with_its_words(rewriter):
    """The subject keeps its words around a moved "however"; an anchor on the connective itself
    stays put (moved, it would land inside its own frame element); an attribution and the clause
    change places with all their spans."""
    text = "However , the mill closed in May ."
    closure = Structure("frame", "Business_closure", Span(*find(text, "closed"), "close.v"),
                        [Span(*find(text, "the mill"), "Business"), Span(*find(text, "in May"), "Time")])
    [rw] = [r for r in rewriter.rewrite_sentence(Sentence("t", text, [closure]))
            if r.provenance["rules"] == ["lower-connective"]]
    assert rw.text == "The mill, however, closed in May ."
    assert [(a.label, rw.text[a.start:a.end]) for a in rw.structures[0].args] == [
        ("Business", "The mill"), ("Time", "in May")]
    concessive = Structure("frame", "Concessive", Span(*find(text, "However"), "however.adv"),
                           [Span(*find(text, "the mill closed in May"), "Main_assertion")])
    assert not [r for r in rewriter.rewrite_sentence(Sentence("c", text, [concessive, closure]))
                if r.provenance["rules"] == ["lower-connective"]]
    text = "According to the ministry , the mill closed in May ."
    attributed = Structure("frame", "Attributed_information", Span(*find(text, "According to"), "according to.prep"),
                           [Span(*find(text, "the ministry"), "Speaker"),
                            Span(*find(text, "the mill closed in May"), "Proposition")])
    [rw] = [r for r in rewriter.rewrite_sentence(Sentence("a", text, [attributed]))
            if r.provenance["rules"] == ["move-attribution"]]
    assert rw.text == "The mill closed in May, according to the ministry."
    st = rw.structures[0]
    assert rw.text[st.anchor.start:st.anchor.end] == "according to"
    assert [(a.label, rw.text[a.start:a.end]) for a in st.args] == [
        ("Speaker", "the ministry"), ("Proposition", "The mill closed in May")]


def test_a_discontinuous_target_gets_no_rewrite():
    """The output's anchor would be the target's first piece alone: "rang a vague bell" came out with the
    anchor "rang a". The substituter, infilling and sister-LU baselines decline it too."""
    text = "The name rang a vague bell ."
    structure = Structure("frame", "Evoking", Span(9, 15, "ring a bell.v"), [Span(0, 8, "Stimulus")],
                          extra={"anchor_rest": [[23, 27]]})
    sentence = Sentence("s1", text, [structure])
    gen = Rewriter(RuleSet(hand_rules()), nlp=load_spacy())
    result = gen.generate(GenerationRequest("r", text, sentence=sentence, structure=0))
    assert result.candidates == [] and result.note == "a discontinuous anchor"
    plain = Structure("frame", "Evoking", Span(9, 15, "ring a bell.v"), [Span(0, 8, "Stimulus")])
    assert gen.generate(GenerationRequest("r", text, sentence=Sentence("s1", text, [plain]), structure=0)).candidates



def test_a_common_word_the_tagger_took_for_a_name_is_lower_cased_when_moved_inside():
    """"Noise" opening a sentence is tagged PROPN with no entity, or NOUN and a PERSON: fronted behind
    "Under water," it kept its capital. Names stay: "Alexei" (no
    entity, no common word), "Bill" (PROPN, PERSON, though "bill" is a common word)."""
    rewriter = Rewriter(RuleSet([r for r in hand_rules() if r.name == "front-trailing-adverbial"]))
    for source, expected in [
        ("Noise made by ships is carried especially well under water .",
         "Under water, noise made by ships is carried especially well."),
        ("Noise generated by heavy industry and ship traffic is carried especially well under water .",
         "Under water, noise generated by heavy industry and ship traffic is carried especially well."),
        ("Alexei dived into the pool in the morning .", "In the morning, Alexei dived into the pool."),
        ("Bill sold the farm in the spring .", "In the spring, Bill sold the farm."),
    ]:
        assert [r.text for r in rewriter.raw_rewrites(rewriter.nlp(source))] == [expected]
    # a possessor is a name, not a common word, whatever WordNet knows of "ash"
    genitives = Rewriter(RuleSet([r for r in hand_rules() if r.name == "genitive-to-pp"]))
    assert [r.text for r in genitives.raw_rewrites(genitives.nlp("Ash 's face was close to the flame ."))] == [
        "The face of Ash was close to the flame ."]


# Tweet markup (the cascade's WNUT17 outputs, read 2026-11-28): the parser reads an @user, a #tag or a link as words of
# the sentence, and rules moved, copied or recased them. Sentences written for these tests.
@pytest.mark.parametrize(("text", "mentions", "bad"), [
    # a cleft put the addressee in focus: "It was @sam_k Lena that …"
    ("@sam_k Lena played here two weeks back. She spoke out against the plan during the show.",
     [("person", "Lena")], "It was @sam_k"),
    # genitive-to-pp moved a link into the possessor: "the odds of http://… Jo Smith"
    ("RT @betnews: Paddy Power Party Leadership Market- http://bit.ly/aB3cD9 Jo Smith's odds have shortened "
     "significantly in the last week.", [("person", "Jo Smith")], "of http://bit.ly/aB3cD9"),
    # a split copied the addressees as the second clause's subject
    ("@ann_k @bobby @cara_m @dave_z still thinking, and what you pick may differ from me. Back to Oslo then.",
     [("location", "Oslo")], ". @ann_k"),
    # a hashtag the tokenizer split ("#" "GG") is markup too: no "#GG's voice"
    ("I only just found out today that Ann Bell is the voice of #GG: wow", [("person", "Ann Bell")], "#GG's"),
    # a moved clause left the link first in its sentence, and the capital went to it
    ("NEW: Block Quest. if you like Tetris or Doom, you may also like Block Quest. http://example.com/bq",
     [("product", "Tetris")], "Http://"),
])
def test_tweet_markup_is_not_moved_copied_or_recased(rewriter, text, mentions, bad):
    outputs = rewriter.rewrite_sentence(entity("t", text, *mentions))
    assert not [o.text for o in outputs if bad in o.text]


def test_a_shouted_text_is_not_rewritten(rewriter):
    before = rewriter.counts["skipped_all_caps"]
    assert rewriter.rewrite_sentence(entity("t", "WIN FREE TICKETS FOR A WEEK !!! Only at Zara.",
                                            ("corporation", "Zara"))) == []
    assert rewriter.counts["skipped_all_caps"] == before + 1
    # a word in capitals is no shouting
    kept = rewriter.rewrite_sentence(entity("u", "Jeff told me he was going to Oslo TONIGHT.", ("location", "Oslo")))
    assert any("that he was going" in o.text for o in kept)


@pytest.mark.parametrize(("text", "mentions", "bad"), [
    # a wish ("God bless her") is no statement to cleft
    ("Lena sang for us all night. God bless her for that.", [("person", "Lena")], "It is God that"),
    # a "particle" before a noun phrase is its preposition ("out my flat" for "out of my flat")
    ("Since spring, Anna has been clearing all the junk out my flat and showing me new music.", [("person", "Anna")],
     "clearing out all the junk my"),
    # an idiom, a clipped plural, a one-letter abbreviation
    ("@ann_k you made Nina's day. Sweet surprises for you.", [("person", "Nina")], "the day of Nina"),
    ("Neither candidate has control of those org's Mitchell ad as @Bo_F said.", [("person", "Mitchell")],
     "Mitchell ad of those org"),
    ("@Strigy got mine in Leeds today. Played chess on it in store! V impressed. Did you get one?",
     [("location", "Leeds")], "It was V that"),
    # "that" goes after an object that is told ("told reporters that"), not one that is shown
    ("Next time you will show restraint you do not get another chance with Tom.", [("person", "Tom")],
     "show restraint that"),
    # a text cut off may have cut its last phrase ("… of the garden[ magazine]", "last mont[h]"): the word
    # before the closing dots stays there
    ("RT @shopnews: New stock from Kew arrived today! going straight into the spring edition of the garden...",
     [("location", "Kew")], "the garden's spring edition"),
    ("Kew faces more fines after the failed test: Per the terms of her lease in the case as laid out last mont... "
     "http://example.com/k", [("location", "Kew")], "laid last mont out"),
    # a name that closes a sentence said to someone is who is spoken to, no apposition
    ("I love this song, Maria!", [("person", "Maria")], "This song is Maria"),
    ("We miss the old days, Jake.", [("person", "Jake")], "are Jake"),
    # a passive has no object for its particle to cross
    ("Sara got kicked out LOL", [("person", "Sara")], "kicked LOL out"),
    # a relative clause without "that", parsed as a second clause: the particle stays
    ("Check out the clip Nora and I filmed", [("person", "Nora")], "out Nora"),
    ("Check out the clip Nora filmed", [("person", "Nora")], "clip out"),
    # a call to people, no statement
    ("young London actors step up!", [("location", "London")], "It is young"),
    # a slashed pair is two places; one genitive makes them one
    ("We loved the beaches of Nice / Cannes.", [("location", "Nice"), ("location", "Cannes")], "Cannes'"),
    # "have X on" is to have X as a guest; "have on X" is to wear X
    ("They need to have Mira on.", [("person", "Mira")], "have on Mira"),
    # a quantified possessor owns nothing
    ("That is easily the best Veritasium episode of all time.", [("creative-work", "Veritasium")], "all time's best"),
    # a phrase that opens the second verb phrase cannot follow the copied subject
    ("She is now a fan of the Oslo Film Club page and with luck gets a ticket for the show this year.",
     [("group", "Oslo Film Club")], "She with luck"),
    # a question asks whether she did, a cleft whether it was she
    ("Petra started hosting for Boxing and no more wrestling?", [("person", "Petra")], "It was Petra"),
    # a relative clause without "that" after an object, parsed as a clause with the object for subject: what
    # is known is the name, not that the name is worn
    ("does anybody know the colour name of the lipstick sara is wearing at 1: 20", [("person", "sara")],
     "know that"),
    ("I know the band name of the shirt Tom is wearing in the video", [("person", "Tom")], "know that"),
    # a noun compound ("the break up video") misread as a bare verb after "get"
    ("it is only a matter of time until we get the Marco break up video", [("person", "Marco")], "break video up"),
])
def test_misreadings_of_informal_text_are_declined(rewriter, text, mentions, bad):
    assert not [o.text for o in rewriter.rewrite_sentence(entity("t", text, *mentions)) if bad in o.text]


@pytest.mark.parametrize(("text", "mentions", "good"), [
    # what the guards above leave alone: a person's name after a word for a person is an apposition
    ("I met his brother, John.", [("person", "John")], "His brother was John."),
    # a second clause with an object of its own
    ("Pick up the kids and I will cook dinner for Anna.", [("person", "Anna")], "Pick the kids up and I will"),
    # a statement in the past
    ("Texas fans stood up for the team.", [("location", "Texas")], "It was Texas fans that stood up"),
    ("We loved the beaches of Nice.", [("location", "Nice")], "We loved Nice's beaches."),
])
def test_what_those_guards_still_rewrite(rewriter, text, mentions, good):
    assert [o.text for o in rewriter.rewrite_sentence(entity("t", text, *mentions)) if good in o.text]


def test_a_labelled_name_keeps_its_capital_when_a_rule_moves_it(rewriter):
    # "Harper" is also a common noun (a harp player); the gold mention says it is a name here
    outputs = rewriter.rewrite_sentence(entity("t", "Who won the game? Harper's team did.", ("person", "Harper")))
    assert outputs and all("harper" not in o.text for o in outputs)
    assert all(m.anchor.text_in(o.text) == "Harper" for o in outputs for m in o.structures)


def test_a_labelled_name_keeps_its_capital_whatever_a_rule_lowers(rewriter):
    # it-cleft lower-cases a first word it takes for a common noun; the gold mention says it is a name
    # (the article keeps it from reading as a headline, which it-cleft leaves alone)
    outputs = rewriter.rewrite_sentence(entity("t", "Small stage NEEDS to have Mira Vale on the show!!!",
                                               ("creative-work", "Small stage"), ("person", "Mira Vale")))
    clefts = [o for o in outputs if o.provenance["rules"] == ["it-cleft"]]
    assert clefts and clefts[0].text.startswith("It is Small stage that")
    assert [m.anchor.text_in(clefts[0].text) for m in clefts[0].structures] == ["Small stage", "Mira Vale"]


def test_a_span_that_ends_inside_a_parser_token_keeps_its_edge(rewriter):
    # the corpus's mention is "NC St", spaCy's token "St."; moved or not, the mention keeps its words
    outputs = rewriter.rewrite_sentence(entity(
        "t", "Wake, Davidson and NC St. have all been in to check out guard Tyler Lewis since May.",
        ("group", "NC St"), ("person", "Tyler Lewis")))
    shift = [o for o in outputs if o.provenance["rules"] == ["particle-shift"]]
    assert shift and [m.anchor.text_in(shift[0].text) for m in shift[0].structures] == ["NC St", "Tyler Lewis"]


def test_a_split_ends_every_span_with_its_sentence(rewriter):
    """The copula's ARG2 (a head's subtree, the conjunct included, as UP-English gives it) ends with the
    first sentence; the second verb's arguments are in its own: the copied subject, and not the "So"
    left in the first (EWT dev read 2026-11-28; sentences written for the test)."""
    def split(sentence):
        [out] = [o for o in rewriter.rewrite_sentence(sentence) if o.provenance["rules"] == ["split-conjoined-vp"]]
        stop = out.text.index(". ") + 1
        return out, stop

    out, stop = split(srl("s", "Marta is a baker and has just opened a shop.",
                          ("be.01", "is", [("ARG1", "Marta"), ("ARG2", "a baker and has just opened a shop.")]),
                          ("open.01", "opened", [("ARG0", "Marta"), ("ARGM-TMP", "just"), ("ARG1", "a shop")])))
    be, opened = out.structures
    assert [(a.label, a.text_in(out.text)) for a in be.args] == [("ARG1", "Marta"), ("ARG2", "a baker")]
    assert [(a.label, a.text_in(out.text)) for a in opened.args] == [
        ("ARG0", "Marta"), ("ARGM-TMP", "just"), ("ARG1", "a shop")]
    assert all(a.start > stop for a in opened.args)
    out, stop = split(srl("s", "So we booked the room and liked it.",
                          ("book.01", "booked", [("ARGM-DIS", "So"), ("ARG0", "we"), ("ARG1", "the room")]),
                          ("like.01", "liked", [("ARGM-DIS", "So"), ("ARG0", "we"), ("ARG1", "it")])))
    liked = out.structures[1]
    assert [(a.label, a.text_in(out.text)) for a in liked.args] == [("ARG0", "We"), ("ARG1", "it")]
    assert all(a.start > stop for a in liked.args)


def test_a_mention_a_rule_writes_again_is_labelled_there_too(rewriter):
    """NER labels every mention: the subject a split repeats, and the noun phrase an extraction
    copies, are mentions of the same entity (left unlabelled, they taught a tagger they are none)."""
    outputs = rewriter.rewrite_sentence(entity("t", "Anna Berg sings in Oslo and plays the piano.",
                                               ("person", "Anna Berg"), ("location", "Oslo")))
    [split] = [o for o in outputs if o.provenance["rules"] == ["split-conjoined-vp"]]
    assert split.text == "Anna Berg sings in Oslo. Anna Berg plays the piano."
    assert sorted((m.anchor.start, m.label, m.anchor.text_in(split.text)) for m in split.structures) == [
        (0, "person", "Anna Berg"), (19, "location", "Oslo"), (25, "person", "Anna Berg")]
    assert split.provenance["structures_from"] == [0, 0, 1]
