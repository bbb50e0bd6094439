"""The content check: the source's content words kept, none added, the anchor a synonym."""

from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.filter import build_filter
from paraspan.filter.combine import AllOf
from paraspan.filter.content import ContentFilter

SOURCE = "In 1998 the Navy sold forty old ships to them before the war."


def _source(text: str = SOURCE, anchor: str = "sold", frame: str = "Commerce_sell", lu: str = "sell.v") -> Sentence:
    start = text.index(anchor)
    return Sentence("s", text, [Structure("frame", frame, Span(start, start + len(anchor), lu), [])])


def _out(text: str, anchor: str, **provenance) -> Sentence:
    start = text.index(anchor)
    return Sentence("o", text, source_id="s", provenance={
        "structure": 0, "aligner": {"spans": [{"role": "anchor", "placed": [start, start + len(anchor)]}]},
        **provenance})


@pytest.fixture(scope="module")
def content() -> ContentFilter:
    return build_filter("content")


@pytest.mark.parametrize(("text", "anchor"), [
    (SOURCE, "sold"),
    ("Before the war, forty old ships were sold to them by the Navy in 1998.", "sold"),  # passive, fronting
    ("In 1998 the Navy traded forty old ships to them before the war.", "traded"),  # a WordNet synonym
    ("In 1998 the Navy sells forty old ship to them before the war.", "sells"),  # inflection
    ("It was the Navy that sold forty old ships to them before the war in 1998.", "sold"),  # expletive "it"
])
def test_what_keeps_the_content_passes(content, text, anchor):
    decision = content.decide(_out(text, anchor), _source())
    assert decision.keep, decision.reason


@pytest.mark.parametrize(("text", "anchor", "reason"), [
    ("In 1998 the Navy sold forty ancient vessels to them after the war.", "sold",
     "lost 'old', 'ships', 'before'; added 'ancient', 'vessels', 'after'"),
    ("In 1998 the Navy sold forty old ships to them before the big war.", "sold", "added 'big'"),
    ("In 1998 his Navy sold forty old ships to them before the war.", "sold", "added 'his'"),
    ("In 1998 the Navy sold forty old ships to us before the war.", "sold", "lost 'them'; added 'us'"),
    ("In 1998 the Navy did not sell forty old ships to them before the war.", "sell", "added 'not'"),
])
def test_a_changed_word_fails_and_is_named(content, text, anchor, reason):
    decision = content.decide(_out(text, anchor), _source())
    assert not decision.keep and decision.reason == reason


def test_the_anchor_must_be_a_synonym_or_an_lu_of_its_frame(content):
    sank = content.decide(_out("In 1998 the Navy sank forty old ships to them before the war.", "sank"), _source())
    assert not sank.keep and "'sank' is neither a synonym" in sank.reason
    bought = content.decide(_out("In 1998 the Navy bought forty old ships to them before the war.", "bought"), _source())
    assert not bought.keep and "'bought' is an antonym" in bought.reason
    said = _source("The mayor said that the bridge would reopen in May.", "said", "Statement", "say.v")
    announced = _out("The mayor announced that the bridge would reopen in May.", "announced",
                     anchor_lu={"label": "announce.v"})
    assert content.decide(announced, said).keep  # not WordNet synonyms, but both LUs of Statement
    assert not ContentFilter(anchor="synonym").decide(announced, said).keep
    assert ContentFilter(anchor="any").decide(_out("In 1998 the Navy bought forty old ships to them before the war.",
                                                   "bought"), _source()).keep


def test_an_antonym_never_replaces_the_anchor_even_when_it_shares_the_frame(content):
    admitted = _source("The clerk admitted that the ledger was wrong.", "admitted", "Statement", "admit.v")
    denied = content.decide(_out("The clerk denied that the ledger was wrong.", "denied",
                                 anchor_lu={"label": "deny.v"}), admitted)
    assert not denied.keep and denied.reason == "new anchor 'denied' is an antonym of the old one"
    assert content.decide(_out("The clerk acknowledged that the ledger was wrong.", "acknowledged",
                               anchor_lu={"label": "acknowledge.v"}), admitted).keep


def test_a_noun_anchor_may_move_one_wordnet_step_not_two(content):
    boats = _source("Two boats left the harbour at dawn.", "boats", "Vehicle", "boat.n")
    assert content.decide(_out("Two vessels left the harbour at dawn.", "vessels"), boats).keep  # its hypernym
    leader = _source("The leader of the club resigned.", "leader", "Leadership", "leader.n")
    assert content.decide(_out("The head of the club resigned.", "head"), leader).keep  # a synonym
    president = content.decide(_out("The president of the club resigned.", "president"), leader)
    assert not president.keep and "neither a synonym" in president.reason  # two steps below


def test_banned_words_may_become_synonyms_and_spelling_does_not_count(content):
    source = _source("The tired hikers sold their soup to a neighbour.", "sold")
    weary = _out("The weary hikers sold their soup to a neighbor.", "sold")
    assert content.decide(weary, source).reason == "lost 'tired'; added 'weary'"
    told = _out("The weary hikers sold their soup to a neighbor.", "sold", generated={"random_bans": ["tired"]})
    assert content.decide(told, source).keep
    # a context substitute names the word it replaced: a synonym of it may stand there, nothing else
    dawn = _source("The hikers sold their soup and departed at dawn.", "sold")
    left = _out("The hikers sold their soup and left at dawn.", "sold", generated={"replaced": ["departed"]})
    assert content.decide(left, dawn).keep
    arrived = _out("The hikers sold their soup and arrived at dawn.", "sold", generated={"replaced": ["departed"]})
    assert not content.decide(arrived, dawn).keep
    assert ContentFilter(synonyms=True).decide(weary, source).keep


def test_contractions_and_new_content(content):
    source = _source("They don't sell the boat.", "sell")
    assert content.decide(_out("They do not sell the boat.", "sell"), source).keep
    assert content.decide(_out("They sell the boat.", "sell"), source).reason == "lost 'not'"
    assert content.decide(_out("A farmer grows wheat.", "grows", meaning="new"), source).keep
    assert build_filter({"name": "content", "max_added": 1}).decide(
        _out("They don't sell the old boat.", "sell"), source).keep


def test_verified_runs_the_cheap_checks_first_and_stops_at_a_rejection():
    seen: list[str] = []

    class Part:
        def __init__(self, name: str, keep: bool) -> None:
            self.name, self.keep = name, keep

        def decide(self, output, source=None):
            from paraspan.filter.base import FilterDecision

            seen.append(self.name)
            return FilterDecision(self.keep, None, self.name)

    out = _out(SOURCE, "sold")
    decision = AllOf([Part("a", True), Part("b", False), Part("c", True)], "x", short_circuit=True).decide(out)
    assert not decision.keep and seen == ["a", "b"] and list(decision.details["parts"]) == ["a", "b"]
    seen.clear()
    decision = AllOf([Part("a", True), Part("b", False), Part("c", True)], "x").decide(out)
    assert not decision.keep and seen == ["a", "b", "c"] and decision.reason == "b: b"
    parts = [p.name for p in build_filter({"name": "verified", "fluency": False, "meaning": []}).parts]
    assert parts == ["spans", "facts", "content", "labels"]


def test_directional_outputs_may_drop_or_add_words_only_outside_the_labelled_spans():
    text = "Yesterday the Navy quickly sold forty old ships."
    start = text.index("sold")
    goods = text.index("forty old ships")
    source = Sentence("s", text, [Structure("frame", "Commerce_sell", Span(start, start + 4, "sell.v"),
                                            [Span(goods, goods + 15, "Goods")])])

    def out(new: str, goods_text: str) -> Sentence:
        at, g = new.index("sold"), new.index(goods_text)
        return Sentence("o", new, source_id="s", provenance={"structure": 0, "aligner": {"spans": [
            {"role": "anchor", "placed": [at, at + 4]}, {"role": "arg", "placed": [g, g + len(goods_text)]}]}})

    general = out("The Navy sold forty old ships.", "forty old ships")
    assert not build_filter("content").decide(general, source).keep
    assert build_filter({"name": "content", "relation": "forward"}).decide(general, source).keep
    cut = out("The Navy sold forty ships.", "forty ships")
    assert build_filter({"name": "content", "relation": "forward"}).decide(cut, source).reason == (
        "lost 'old' (in a labelled span)")
    specific = out("Yesterday in Norfolk the Navy quickly sold forty old ships.", "forty old ships")
    assert build_filter({"name": "content", "relation": "reverse"}).decide(specific, source).keep
    inside = out("Yesterday the Navy quickly sold forty old wooden ships.", "forty old wooden ships")
    assert not build_filter({"name": "content", "relation": "reverse"}).decide(inside, source).keep
    with pytest.raises(ValueError, match="relation must be one of"):
        ContentFilter(relation="sideways")  # type: ignore[arg-type]


@pytest.mark.parametrize(("relation", "source", "output", "reason"), [
    # a forward (more general) output drops a modifier; a reverse (more specific) one adds one
    ("forward", "The goat kicked one hiker in the knee, rangers said.", "The goat kicked one hiker, rangers said.",
     None),
    ("reverse", "The goat kicked one hiker.", "The goat kicked one hiker in the knee.", None),
    # the same words in another part of speech, and a detokenizer's "U. S.", are not new words
    ("forward", "They focus on the development of new vaccines in the U.S. today.",
     "They focus on developing vaccines in the U. S.", None),
    # a restatement is not more general (or more specific)
    ("forward", "The ground was broken at the center.", "At the center, the ground was broken.",
     "no content word dropped: not more general"),
    ("reverse", "The ground was broken at the center.", "At the center, the ground was broken.",
     "no content word added: not more specific"),
    # words whose loss or arrival turns the entailment round
    ("forward", "The bakery neither confirmed nor denied the rumour.", "The bakery confirmed or denied the rumour.",
     "dropped 'neither', 'nor': turns the entailment round"),
    ("forward", "People will be sorry, he said.", "People will be sorry.", "dropped 'say': turns the entailment round"),
    ("forward", "They blamed the delay in part on wet snow.", "They blamed the delay on snow.",
     "dropped 'part': turns the entailment round"),
    ("reverse", "The ship sank.", "The ship probably sank near Malta.", "added 'probably': turns the entailment round"),
    ("reverse", "The president spoke.", "The former president spoke in Paris.",
     "added 'former': turns the entailment round"),
    # a name is not a modal
    ("forward", "The treaty was signed in May in a small town.", "The treaty was signed in May.", None),
    # a forward output adds nothing, a reverse one drops nothing
    ("forward", "Keepers fed the birds that met the Peruvian vet.", "Keepers fed the birds from Peru.",
     "added 'Peru'"),
    # "also", "again" add a presupposition, not a detail: only these changed is not a direction
    ("reverse", "The mill closed its doors in spring.", "The mill also closed its doors in spring.",
     "no content word added: not more specific (only 'also': a presupposition, no detail)"),
    ("forward", "The mill again closed its doors in spring.", "The mill closed its doors in spring.",
     "no content word dropped: not more general (only 'again': a presupposition, no detail)"),
    ("forward", "The mill also closed its doors in spring.", "The mill closed its doors.", None),
    # a heading before a colon is not content: losing it is not more general
    ("forward", "QA : Do the ferries run on Sundays ?", "Do the ferries run on Sundays?",
     "no content word dropped: not more general"),
])
def test_a_direction_drops_or_adds_words_and_none_that_turn_it_round(relation, source, output, reason):
    decision = build_filter({"name": "content", "relation": relation}).decide(
        Sentence("o", output, provenance={}), Sentence("s", source))
    assert decision.keep is (reason is None) and decision.reason == (reason or "content words kept")


def test_a_referential_it_is_new_content(content):
    source = _source("Al-Aksa claims chemical weapons.", "claims", "Statement", "claim.v")
    decision = content.decide(_out("Al-Aksa says it has chemical weapons.", "says", anchor_lu={"label": "say.v"}),
                              source)
    assert not decision.keep and decision.reason == "added 'it'"


def test_a_noun_target_needs_a_wordnet_relative_not_a_sister_kind(content):
    text = "Countries have 18 months to agree."
    at = text.index("months")
    source = Sentence("s", text, [Structure("frame", "Calendric_unit", Span(at, at + 6, "month.n"), [])])
    years = content.decide(_out("Countries have 18 years to agree.", "years", anchor_lu={"label": "year.n"}), source)
    assert not years.keep and "'years' is neither a synonym" in years.reason  # both LUs of Calendric_unit
    text = "The device was found."
    source = Sentence("s", text, [Structure("frame", "Gizmo", Span(4, 10, "device.n"), [])])
    assert content.decide(_out("The gadget was found.", "gadget", anchor_lu={"label": "gadget.n"}), source).keep


def test_a_word_may_change_part_of_speech_but_not_become_its_agent(content):
    source = Sentence("s", "The attack delayed the development of vaccines.")
    developing = content.decide(Sentence("o", "The attack delayed developing vaccines.", provenance={}), source)
    assert developing.keep
    attacker = content.decide(Sentence("o", "The attacker delayed the development of vaccines.", provenance={}), source)
    assert attacker.reason == "lost 'attack'; added 'attacker'"
