"""Each hand-written rule on a sentence written for it."""

from __future__ import annotations

import pytest

from paraspan.generate.rewrite.core import RuleContext, render
from paraspan.generate.rewrite.rules import hand_rules, rewrite_rules
from paraspan.models import load_spacy, load_wordnet
from paraspan.models.inflect import inflect

CASES = [
    ("passive-to-active", "The cake was eaten by the dog.", "The dog ate the cake."),
    ("passive-to-active", "The letters were written by her.", "She wrote the letters."),
    ("active-to-passive", "The dog ate the cake.", "The cake was eaten by the dog."),
    ("active-to-passive", "She writes the letters.", "The letters are written by her."),
    ("extract-appositive", "Mexico City, the biggest city in the world, has many interesting sites.",
     "Mexico City has many interesting sites. Mexico City is the biggest city in the world."),
    ("extract-relative-clause", "The examiner, who was kind, let the student finish his lunch.",
     "The examiner let the student finish his lunch. The examiner was kind."),
    ("extract-participial", "The man, wearing a red hat, left the party.",
     "The man left the party. The man was wearing a red hat."),
    ("split-conjoined-clauses", "He came home, and she stayed at the office.", "He came home. She stayed at the office."),
    ("split-conjoined-vp", "The students read the long book and wrote a short essay.",
     "The students read the long book. The students wrote a short essay."),
    ("move-leading-adverbial", "Because she did not know the rules, she lost the game.",
     "She lost the game, because she did not know the rules."),
    ("front-trailing-adverbial", "The farmer sold his tractor in 1998.", "In 1998, the farmer sold his tractor."),
    ("pp-to-genitive", "The arrival of the train was unexpected.", "The train's arrival was unexpected."),
    ("genitive-to-pp", "The train's arrival was unexpected.", "The arrival of the train was unexpected."),
    ("delete-appositive", "Mexico City, the biggest city in the world, has many sites.", "Mexico City has many sites."),
    ("delete-relative-clause", "The examiner, who was kind, let the student go.", "The examiner let the student go."),
    ("delete-leading-modifier", "In 1998, the company bought a factory.", "The company bought a factory."),
    ("delete-adverb", "The teacher quickly answered the question.", "The teacher answered the question."),
    ("delete-adjective", "The children visited the old museum.", "The children visited the museum."),
    ("it-cleft", "The farmer sold the tractor.", "It was the farmer that sold the tractor."),
    ("insert-that", "The farmer said the tractor was sold.", "The farmer said that the tractor was sold."),
    ("insert-that", "She told reporters the talks had failed.", "She told reporters that the talks had failed."),
    ("delete-that", "The farmer said that the tractor was sold.", "The farmer said the tractor was sold."),
    ("lower-connective", "However, the old factory closed in May.", "The old factory, however, closed in May."),
    ("raise-connective", "The old factory, however, closed in May.", "However, the old factory closed in May."),
    ("move-attribution", "According to the ministry, the old factory closed in May.",
     "The old factory closed in May, according to the ministry."),
    ("front-attribution", "The old factory closed in May, according to the ministry.",
     "According to the ministry, the old factory closed in May."),
    ("swap-conjuncts", "Germany and France signed the treaty in May.", "France and Germany signed the treaty in May."),
    ("particle-shift", "He turned off the light before bed.", "He turned the light off before bed."),
    ("particle-shift", "She picked the old book up.", "She picked up the old book."),
    ("dative-shift", "She gave Anna the keys.", "She gave the keys to Anna."),
    ("dative-shift", "The bank lent the money to his brother.", "The bank lent his brother the money."),
]


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def _texts(nlp, name: str, text: str, protected=frozenset()) -> list[str]:
    doc = nlp(text)
    rule = rewrite_rules.get(name)
    return [render(doc, pieces)[0] for pieces in rule.apply(doc, RuleContext(protected, load_wordnet, inflect))]


@pytest.mark.parametrize(("name", "source", "expected"), CASES)
def test_rule_output(nlp, name, source, expected):
    assert expected in _texts(nlp, name, source)


def test_every_hand_rule_has_a_test_and_an_example():
    names = {r.name for r in hand_rules()}
    assert names == {c[0] for c in CASES} | {"delete-comma-modifier", "synonym"}
    for rule in hand_rules():
        assert " → " in rule.example and rule.family and rule.version


def test_comma_modifier_keeps_the_final_stop(nlp):
    out = _texts(nlp, "delete-comma-modifier", "He left the house, after a long while, for the station.")
    assert "He left the house for the station." in out
    assert all(t.endswith(".") for t in out)


def test_synonym_is_inflected_and_skips_protected_words(nlp):
    out = _texts(nlp, "synonym", "The farmers bought new cars.")
    assert any("automobiles" in t for t in out)  # plural kept through lemminflect
    doc = nlp("The farmers bought new cars.")
    protected = frozenset(t.i for t in doc if t.text == "cars")
    assert not any("automobiles" in t for t in _texts(nlp, "synonym", "The farmers bought new cars.", protected))


def test_rules_decline_what_they_do_not_know(nlp):
    # no by-agent: no active voice; no comma: no appositive extraction; no conjunct: no split
    assert _texts(nlp, "passive-to-active", "The cake was eaten.") == []
    assert _texts(nlp, "extract-appositive", "My friend Anna lives here.") == []
    assert _texts(nlp, "split-conjoined-clauses", "He came home.") == []


def test_rules_decline_what_judges_found_wrong(nlp):
    """Rewrites judged wrong on held-back EWT dev sentences (patterns re-written here)."""
    # a subject shared by two verbs cannot become the passive subject of one of them
    assert _texts(nlp, "active-to-passive", "My brother knows the secret and helps me.") == []
    assert _texts(nlp, "active-to-passive", "The villagers fled the flood.") == []  # no passive
    # a bare plural possessor classifies: "children's books" are not "the books of children"
    assert _texts(nlp, "genitive-to-pp", "She likes to read children's books.") == []
    # "the old city of Rome" is Rome
    assert _texts(nlp, "pp-to-genitive", "They met in the old city of Rome.") == []
    # the second verb shares the modal: "He will fix the door. He paints the wall." changes the meaning
    assert _texts(nlp, "split-conjoined-vp", "He will fix the door and paint the wall.") == []


def test_fragments_and_lists_are_not_appositions_or_cleft_subjects(nlp):
    # a list of noun phrases is no appositive: "Good food is friendly staff" invents a claim
    assert _texts(nlp, "extract-appositive", "Good food, friendly staff, nice views.") == []
    # clefts use "that", which suits people and places alike
    assert _texts(nlp, "it-cleft", "Green Valley has a great location.") == [
        "It is Green Valley that has a great location."]


def test_voice_and_fronting_decline_coordination_particles_and_complements(nlp):
    # "the play was directed by X and was a success": X would become the success
    assert _texts(nlp, "passive-to-active", "The film was made by Anna and was a big success.") == []
    assert _texts(nlp, "front-trailing-adverbial", "They zeroed in on the harbour.") == []  # particle verb
    assert _texts(nlp, "front-trailing-adverbial", "She lives in a small village.") == []  # its complement
    assert _texts(nlp, "front-trailing-adverbial", "In 1651 he was preaching at the abbey.") == []


def test_v3_declines_dangling_stranding_misparses_and_place_pairs(nlp):
    # a leading participle would dangle on the passive subject; a focus particle would be stranded
    assert _texts(nlp, "active-to-passive", "Coming from Leeds, he spent most of his life in York.") == []
    assert _texts(nlp, "active-to-passive", "Even a local paper printed the story.") == []
    # the first object of a two-object verb is the recipient
    assert _texts(nlp, "active-to-passive", "The rain gave it that fresh, clean smell.") == []
    # "Town, Country" is no apposition; "only in X" fronted needs inversion
    assert _texts(nlp, "extract-appositive", "She is a teacher from Leeds, England.") == []
    assert _texts(nlp, "front-trailing-adverbial", "It grows only in Chile.") == []
    # clefts only of one-clause sentences
    assert _texts(nlp, "it-cleft", "The report written here is based on sources that we trust.") == []


def test_v4_keeps_sense_and_attachment(nlp):
    # passives that change a verb's sense, and an idiom
    assert _texts(nlp, "active-to-passive", "The team includes two new players.") == []
    assert _texts(nlp, "active-to-passive", "The meeting takes place in Leeds.") == []
    # a leading phrase moved to the end must not attach to the last noun phrase
    assert _texts(nlp, "move-leading-adverbial",
                  "In the early 1980s, the town began building a school for the children of its workers.") == []
    assert "He sold it in 1998." in _texts(nlp, "move-leading-adverbial", "In 1998, he sold it.")
    # an article that starts a name's phrase is lowered when the phrase moves into the sentence
    out = _texts(nlp, "active-to-passive", "The Royal Society predicts a further rise.")
    assert out == ["A further rise is predicted by the Royal Society."]


def test_splits_and_passives_from_the_cascade_judgments(nlp):
    # a split after a closing quote left ", ''." before the new sentence
    quoted = "The law `` bans the sale of guns , '' and sets a fine for sellers."
    assert _texts(nlp, "split-conjoined-vp", quoted) == []
    assert _texts(nlp, "split-conjoined-clauses", "She said `` no , '' and he left the room.") == []
    # no agent "by it" ("It follows growing concern" → "… is followed by it")
    assert _texts(nlp, "active-to-passive", "It follows a long debate about the budget.") == []
    assert _texts(nlp, "active-to-passive", "The dog ate the cake.") == ["The cake was eaten by the dog."]
    # the object's apposition would stand between the new subject and its verb
    assert _texts(nlp, "active-to-passive", "Voters pick their agents -- a red party and a blue party .") == []
    # a verb whose past is its base form: "If they put …" → "was put" or "is put"?
    assert _texts(nlp, "active-to-passive", "If they put a friend into office , they will gain little .") == []
    # the possessed noun inside a compound (misparsed: "plutonium" as the subject of "reprocessing")
    assert _texts(nlp, "genitive-to-pp", "Analysts doubt Pyongyang 's reported plutonium reprocessing .") == []
    assert _texts(nlp, "genitive-to-pp", "They saw the city 's water supply system .") == [
        "They saw the water supply system of the city."]
    assert _texts(nlp, "genitive-to-pp", "The train's arrival was unexpected.") == ["The arrival of the train was unexpected."]
    # "provide X with Y": spaCy hangs the "with" phrase on the object, the passive moved it along
    assert _texts(nlp, "active-to-passive", "This status provides firms with tax benefits .") == []
    # an indefinite possessor: "at the center of a storm" → "at a storm's center"
    assert _texts(nlp, "pp-to-genitive", "The town stood at the center of a storm .") == []
    # the light verb "do": "An amazing job is done by Barb"
    assert _texts(nlp, "active-to-passive", "Barb does an amazing job .") == []


def test_an_abbreviations_full_stop_does_not_end_the_sentence(nlp):
    """"in 587 b.c. , when …": the comma stays and "when" keeps its case (FrameNet train)."""
    out = _texts(nlp, "genitive-to-pp", "The end of David 's dynasty came in 587 b.c. , when the king invaded Judah .")
    assert out and all("b.c. , when" in t for t in out), out


def test_an_exclamation_mark_inside_a_name_does_not_end_the_sentence(nlp):
    """"Yahoo! in Boston": the next word keeps its case (``tidy`` capitalised it)."""
    out = _texts(nlp, "front-trailing-adverbial", "He worked for Yahoo! in Boston before the company moved.")
    assert out == ["Before the company moved, he worked for Yahoo! in Boston."], out


def test_v4_brackets_and_but_from_the_downstream_judgments(nlp):
    """A copied subject leaves its brackets out; "but" starts the second sentence (a split that
    dropped it lost the contrast)."""
    out = _texts(nlp, "extract-appositive", "Lyra ( Vela ) , the largest town nearby , was ruled by Corin .")
    assert out and all("(" not in t.split(" . ")[-1] and t.count("(") == t.count(")") for t in out), out
    out = _texts(nlp, "split-conjoined-clauses", "Anna is getting more praise at work , but it still seems to be "
                                                 "Tom 's project .")
    assert out and all(". But it still seems" in t or ".But it still seems" in t or "work. But it" in t
                       for t in out), out
    assert _texts(nlp, "split-conjoined-clauses", "He came home, and she stayed at the office.") == [
        "He came home. She stayed at the office."]


def test_v5_relative_clause_agreement_cleft_capital_from_the_downstream_judgments(nlp):
    """A non-restrictive clause whose verb does not agree with the noun before it is about another
    noun ("their farms, which was paid for" is the wall): no copy "Their farms was …". A cleft does
    not move a sentence-initial capital that is no name into the sentence ("It was Disease that")."""
    assert _texts(nlp, "extract-relative-clause", "The towns agreed to work together , and built a wall to guard "
                                                  "their farms , which was paid for by the king .") == []
    assert _texts(nlp, "extract-relative-clause", "He thanked the nurses , who were kind to him .") == [
        "He thanked the nurses. The nurses were kind to him."]
    assert _texts(nlp, "it-cleft", "Disease took a heavy toll on the army .") == []
    # a bare singular noun that starts the sentence is declined since it-cleft: the tagger's NN does not
    # tell "Drought took …" from a name it missed ("Victor roared …" → "It was victor that …")
    assert _texts(nlp, "it-cleft", "Drought took a further toll .") == []
    assert _texts(nlp, "it-cleft", "The drought took a further toll .") == [
        "It was the drought that took a further toll ."]


def test_v5_an_appositive_with_its_own_finite_verb_is_a_clause(nlp):
    """The parser can read "…, the Greeks used …" after a comparative phrase as an appositive with a
    clause hung on it; extracting it wrote "The Romans are the Greeks used …". The parse is built
    here as the parser made it on a FrameNet sentence of that shape."""
    from spacy.tokens import Doc

    words = "Far more careful than the Romans , the Greeks used such simple methods as terraces to protect their crops .".split()
    heads = [1, 2, 2, 2, 5, 3, 5, 8, 5, 8, 12, 12, 9, 9, 13, 16, 9, 18, 16, 2]
    deps = ["advmod", "advmod", "ROOT", "prep", "det", "pobj", "punct", "det", "appos", "acl", "amod", "amod", "dobj",
            "prep", "pobj", "aux", "advcl", "poss", "dobj", "punct"]
    tags = ["RB", "RBR", "JJ", "IN", "DT", "NNPS", "," , "DT", "NNPS", "VBD", "JJ", "JJ", "NNS", "IN", "NNS", "TO",
            "VB", "PRP$", "NNS", "."]
    pos = ["ADV", "ADV", "ADJ", "ADP", "DET", "PROPN", "PUNCT", "DET", "PROPN", "VERB", "ADJ", "ADJ", "NOUN", "ADP",
           "NOUN", "PART", "VERB", "PRON", "NOUN", "PUNCT"]
    doc = Doc(nlp.vocab, words=words, spaces=[True] * (len(words) - 1) + [False], heads=heads, deps=deps, tags=tags,
              pos=pos)
    rule = rewrite_rules.get("extract-appositive")
    assert rule.apply(doc, RuleContext(frozenset(), load_wordnet, inflect)) == []
    # the same parse without the clause's verb is an appositive, and is extracted
    assert _texts(nlp, "extract-appositive", "Mexico City, the biggest city in the world, has many interesting sites.")


def test_v5_no_comma_splice_and_no_prepositional_participle(nlp):
    """"A, B, and C" split at "and" left "A, B." (a comma splice); "According to …" and "Given …" are
    no description of the subject ("Peru is according to official estimates.")."""
    assert _texts(nlp, "split-conjoined-clauses", "Peru sent a report on its labs , it has closed two plants in the "
                                                  "presence of inspectors , and it has received many visits .") == []
    assert _texts(nlp, "split-conjoined-clauses", "He came home, and she stayed at the office.") == [
        "He came home. She stayed at the office."]
    assert _texts(nlp, "extract-participial", "According to official estimates , Peru can produce 500 tons of "
                                              "copper per year .") == []
    assert _texts(nlp, "extract-participial", "Given enough time , the team could finish the bridge within two "
                                              "years .") == []
    assert _texts(nlp, "extract-participial", "The man, wearing a red hat, left the party.") == [
        "The man left the party. The man was wearing a red hat."]

def test_a_score_line_is_no_apposition(nlp):
    """extract-appositive, delete-appositive: the second set of a score hangs on the first as
    an apposition in the parse; neither extracted ("The final 6–1 was 6–3") nor deleted
    (re-written). An apposition still is."""
    text = "Marina Petrova won in the final 6–1, 6–3, against Olga Ivanova."
    assert _texts(nlp, "extract-appositive", text) == []
    assert _texts(nlp, "delete-appositive", text) == []
    assert _texts(nlp, "extract-appositive", "Rome, the capital of Italy, is old.") == [
        "Rome is old. Rome is the capital of Italy."]


def test_a_phrase_an_adverb_restricts_stays_with_it(nlp):
    """front-trailing-adverbial: "played mostly on X" is not "On X, it was played mostly"."""
    assert _texts(nlp, "front-trailing-adverbial", "It was shown mostly on music channels such as MTV.") == []
    assert _texts(nlp, "front-trailing-adverbial", "It was sold mainly in small shops.") == []
    assert _texts(nlp, "front-trailing-adverbial", "He sold the farm in 1998.") == ["In 1998, he sold the farm."]


def test_an_ordinal_of_a_group_is_no_possession(nlp):
    """pp-to-genitive: "the second of the Vasa Five" picks one of them; "the Vasa Five's second"
    is someone else (WikiANN dev, re-written). A possession still turns."""
    assert _texts(nlp, "pp-to-genitive", "She was the second of the Vasa Five.") == []
    assert _texts(nlp, "pp-to-genitive", "The arrival of the train was late.") == ["The train's arrival was late."]


def test_a_genitive_that_names_a_kind_stays(nlp):
    """genitive-to-pp: a genitive WordNet lists as one noun names a kind ("the advocate of the
    devil" is not what "the devil's advocate" means)."""
    assert _texts(nlp, "genitive-to-pp", "The senator played the devil's advocate at the hearing.") == []
    assert _texts(nlp, "genitive-to-pp", "The bird's nest was empty.") == []
    assert _texts(nlp, "genitive-to-pp", "The train's arrival was late.") == ["The arrival of the train was late."]


def test_extract_participial_tense(nlp):
    """a passive dated in the past is in the past whatever the main clause's tense (WikiANN dev,
    re-written), and a main verb the tagger read as a participle is a past tense."""
    assert _texts(nlp, "extract-participial", "Founded in 2009, the NWBL is a member of the Western Baseball "
                                              "Union.") == [
        "The NWBL is a member of the Western Baseball Union. The NWBL was founded in 2009."]
    assert _texts(nlp, "extract-participial", "Located near the river, the town is a busy port.") == [
        "The town is a busy port. The town is located near the river."]
    assert _texts(nlp, "extract-participial", "The man, wearing a hat, left.") == [
        "The man left. The man was wearing a hat."]


def test_v6_from_the_fresh_train_judgments(nlp):
    """Patterns of judged rewrites, re-written here: a one-letter "A" is no acronym and is lowered in a cleft; an
    appositive of an indefinite noun ("another officer, Maria Lopez") or one opened by "especially"
    is not extracted; a relative clause after a coordination ("from Peru and Chile, which …") is
    about a noun before it."""
    assert _texts(nlp, "it-cleft", "A large number of these boats currently carry heavy guns .") == [
        "It is a large number of these boats that currently carry heavy guns ."]
    assert _texts(nlp, "extract-appositive", "Later , another senior officer , Maria Lopez , was promoted .") == []
    assert _texts(nlp, "extract-appositive", "He spoke about the poor harvest , especially the drought in the north .") == []
    assert _texts(nlp, "extract-relative-clause", "They bought seeds from Peru and Chile , which could be planted "
                                                  "in spring .") == []


def test_v4_fronting_and_genitives_from_the_train_d_judgments(nlp):
    """"This attack was in response to …" fronted left "…, this attack was."; a date fronted from
    "joined X in 1994 and Y in 1995" dated both; "the majority of these reports" became "these
    reports' majority"."""
    assert _texts(nlp, "front-trailing-adverbial", "The strike was in response to a raid on the port two days "
                                                   "earlier .") == []
    assert _texts(nlp, "front-trailing-adverbial", "Chile joined the first treaty in 1994 and the second treaty "
                                                   "in 1995 .") == []
    assert _texts(nlp, "front-trailing-adverbial", "The farmer sold his tractor in 1998.") == [
        "In 1998, the farmer sold his tractor."]
    assert _texts(nlp, "pp-to-genitive", "The majority of the farmers sold their land .") == []
    assert _texts(nlp, "pp-to-genitive", "The arrival of the train was unexpected.") == [
        "The train's arrival was unexpected."]


def test_v6_from_the_train_f_judgments(nlp):
    """A time is no possessor ("at the turn of the century" → "at the century's turn"); a person still is."""
    assert _texts(nlp, "pp-to-genitive", "The town grew quickly at the turn of the century .") == []
    assert _texts(nlp, "pp-to-genitive", "They praised the courage of the soldiers .") == [
        "They praised the soldiers' courage."]


def test_from_the_train_g_judgments(nlp):
    """Relative clauses: none of an indefinite noun (the copy makes a generic claim), none inside
    an it-cleft; no rewrite of a sentence the parser broke after a title's full stop ("Dr .")."""
    from paraspan.generate.rewrite import Rewriter
    from paraspan.generate.rewrite.generator import false_sentence_break

    assert _texts(nlp, "extract-relative-clause",
                  "Obsidian is a hard rock , which could be made into tools .") == []
    assert _texts(nlp, "extract-relative-clause",
                  "It was in this tense context , which caused a crisis , that the program began .") == []
    assert _texts(nlp, "extract-relative-clause", "The examiner , who was kind , let the student go .") == [
        "The examiner let the student go . The examiner was kind."]
    doc = nlp("The director Dr . Wouter Basson also set up a network of front companies overseas .")
    if any(t.is_sent_start for t in doc[1:]):  # the parser's split, as it made it on FrameNet train
        assert false_sentence_break(doc) and Rewriter().raw_rewrites(doc) == []
    assert not false_sentence_break(nlp("He met Dr. Smith in Paris . They talked ."))



def test_from_the_train_h_judgments(nlp):
    """An appositive or relative clause is extracted only right after its noun's phrase (appositive,
    relative clauses), and a relative clause not after a noun inside another noun's phrase."""
    assert _texts(nlp, "extract-appositive",
                  "Half a million people died in the war against Rome , a number unequaled in history .") == []
    assert _texts(nlp, "extract-relative-clause", "They postponed visits to sites related to the new program , "
                                                  "which had been planned for March .") == []
    assert _texts(nlp, "extract-appositive", "Mexico City , the biggest city in the world , has many sites .") == [
        "Mexico City has many sites . Mexico City is the biggest city in the world."]



def test_from_the_train_i_judgments(nlp):
    """No genitive of a place in something ("the road's tip"), no cleft of a bare plural ("It is examples
    that …"), no past "was" copied onto an appositive in the present ("… that today provides")."""
    assert _texts(nlp, "pp-to-genitive", "One bus stood at the tip of the road .") == []
    assert _texts(nlp, "it-cleft", "Examples include the old mill and the bridge .") == []
    assert _texts(nlp, "it-cleft", "The farmer sold the tractor .") == ["It was the farmer that sold the tractor ."]
    assert _texts(nlp, "extract-appositive", "They also built Lake Mead , the reservoir that today provides water "
                                             "to the region .") == []



def test_from_the_train_j_judgments(nlp):
    """No appositive of a noun inside another's phrase ("the final book of the New Testament , the Book
    of Revelation"), none that is a date, no fronting out of "with X at its head"."""
    assert _texts(nlp, "extract-appositive", "He wrote the last book of the New Testament , the Book of "
                                             "Revelation .") == []
    assert _texts(nlp, "extract-appositive", "The report appeared in the Daily Star , 22 October 1997 .") == []
    assert _texts(nlp, "front-trailing-adverbial", "The knights founded a new state with Godfrey at its head .") == []



def test_from_the_train_k_judgments(nlp):
    """No split after a complement clause (the second clause may be part of it); no rewrite of a
    sentence the parser broke inside brackets."""
    from paraspan.generate.rewrite.generator import false_sentence_break

    assert _texts(nlp, "split-conjoined-clauses", "I wonder if that means size is destiny , and it is still "
                                                  "about money .") == []
    assert _texts(nlp, "split-conjoined-clauses", "He came home , and she stayed at the office .") == [
        "He came home. She stayed at the office ."]
    doc = nlp("The diplomat added that talks would go on ( John Smith , Yahoo! News , Feb. 1 ) .")
    if any(t.is_sent_start for t in doc[1:]):  # the parser's split inside the brackets
        assert false_sentence_break(doc)
    assert not false_sentence_break(nlp("He came home ( late ) . She stayed ."))


def test_v5_v7_from_the_train_e_judgments(nlp):
    """"the top of the list" and "the arming of the rebels" keep their "of"; a copied appositive's
    "is"/"are" agrees as the sentence's own verb does ("General Motors … is", not "are")."""
    assert _texts(nlp, "pp-to-genitive", "The town will be near the top of the list for most visitors .") == []
    assert _texts(nlp, "pp-to-genitive", "They tried to prevent the arming of the rebels .") == []
    assert _texts(nlp, "extract-appositive", "General Motors , a large carmaker , is based in Detroit .") == [
        "General Motors is based in Detroit . General Motors is a large carmaker."]
    assert _texts(nlp, "extract-appositive", "The Beatles , a British band , were famous .") == [
        "The Beatles were famous . The Beatles were a British band."]


def test_no_split_under_a_condition_or_not_only(nlp):
    """A split may not assert on its own what a condition or "not only" held over both conjuncts
    (judged wrong); a plain split still happens."""
    for text in ("If it rains tomorrow , the farmers will stay home , and the market will be empty .",
                 "Unless the bridge is repaired , the buses will stop , and the school will close ."):
        assert _texts(nlp, "split-conjoined-clauses", text) == [], text
    assert _texts(nlp, "split-conjoined-vp", "If it rains , they will close the shop and go home .") == []
    assert _texts(nlp, "split-conjoined-vp", "She not only sang at the festival but also danced until midnight .") == []
    assert _texts(nlp, "split-conjoined-vp", "She sang at the festival and danced until midnight .") == [
        "She sang at the festival. She danced until midnight ."]


def test_from_the_rules_only_equivalence_judgments(nlp):
    """No split after a parenthetical "she said" (the second clause was reported too), of a first
    clause the parser misread (no finite verb), or of a second "that"-clause; no connective moved
    to the end ("In sum")."""
    for text in ("The vote is a big step toward cheaper bread for poor families , she said , but there is "
                 "more work ahead .",
                 "At least 3 male guards sharing a cabin and 12 cooks have rashes or other complaints , and about 90 "
                 "sailors who have had contact with them have been isolated .",
                 "On 10 March 2003 , the town notified the bank and the post office that the mayor was leaving the "
                 "council , and that the change would be effective the next day ."):
        assert _texts(nlp, "split-conjoined-clauses", text) == [], text
    assert _texts(nlp, "move-leading-adverbial", "In sum , the plan may have a simple explanation .") == []
    assert _texts(nlp, "move-leading-adverbial", "In 1998 , the shop closed early .") == [
        "The shop closed early in 1998."]


def test_deletions_that_would_not_give_a_more_general_sentence(nlp):
    """A modifier under a negation, a negative or universal determiner or a condition is kept (its
    deletion would make the sentence more specific, not more general), and so is one inside a
    hyphenated word, a name, or between "a"/"an" and a word of the other sound; a subject is not
    under its verb's negation."""
    for text in ("There is no great hurry , the mayor said .", "Every old farmer sold a cow .",
                 "He ate an old pear .", "The open-source editor was praised .", "The Dow Jones industrial average rose ."):
        assert _texts(nlp, "delete-adjective", text) == [], text
    assert _texts(nlp, "delete-leading-modifier", "In 1998 , he did not sell the farm .") == []
    assert _texts(nlp, "delete-adjective", "The new tool has never been used in a violent attack .") == [
        "The tool has never been used in a violent attack ."]
    assert _texts(nlp, "delete-adjective", "She sold her old tractor .") == ["She sold her tractor ."]
    assert _texts(nlp, "delete-adverb", "He quickly sold the farm .") == ["He sold the farm ."]


def test_deletions_from_the_forward_rules_only_judgments(nlp):
    """No deletion under "lose", "difficult" or "block", in a question, a quotation or a compound term,
    and no ordinal dropped."""
    for rule, text in (("delete-adverb", "The town 's ability to directly monitor the river was lost in May ."),
                       ("delete-adverb", "It is difficult to accurately count the birds ."),
                       ("delete-adjective", "Has the number of wild birds increased since 1999 ?"),
                       ("delete-adjective", "The mayor promised to `` quickly repair the old bridge . ''"),
                       ("delete-adverb", "The mayor promised to `` quickly repair the old bridge . ''"),
                       ("delete-adjective", "The plant uses light water power reactors ."),
                       ("delete-adverb", "Second , the council approved the plan ."),
                       ("delete-adjective", "The drug blocks the cell 's ability to form deadly toxins .")):
        assert _texts(nlp, rule, text) == [], (rule, text)


def test_deletions_under_a_focus_word_or_a_condition(nlp):
    """"only" on a verb, on a number or as "the only" keeps everything in its clause; on a noun
    phrase it keeps the rest of the clause but lets that phrase's modifiers go ("found only empty
    jars" entails "found only jars"); "to the extent that" and "as long as" are conditions; nothing
    goes under "abolish"."""
    for rule, text in (("delete-adjective", "He only eats red apples ."),
                       ("delete-adjective", "In only one dry year did the large farms sell cattle ."),
                       ("delete-adjective", "She said the only new tool was broken ."),
                       ("delete-adjective", "To the extent that the main job of junior staff is filing , the office is slow ."),
                       ("delete-adjective", "As long as the old bridge stands , traffic will flow ."),
                       ("delete-adjective", "The court abolished capital punishment in the state .")):
        assert _texts(nlp, rule, text) == [], (rule, text)
    assert _texts(nlp, "delete-adjective", "The cook found only empty jars .") == ["The cook found only jars ."]
    assert _texts(nlp, "delete-adjective", "To the extent that rules apply , small firms will pay more .") == [
        "To the extent that rules apply , firms will pay more ."]


def test_deletions_keep_single_quotations_and_the_comma_before_a_reporting_clause(nlp):
    """A word inside single quotation marks stays (a plural possessive's apostrophe opens none), and a
    modifier dropped before a trailing "the paper said" leaves its comma."""
    assert _texts(nlp, "delete-adjective", "The mayor called the plan 'a dreadful mess' on Monday .") == []
    assert _texts(nlp, "delete-adjective", "The players' old union sold the stadium .") == [
        "The players' union sold the stadium ."]
    assert _texts(nlp, "delete-comma-modifier",
                  "The bank was robbed on May 8 , hours before the parade began , the paper said .") == [
        "The bank was robbed on May 8, the paper said ."]
    assert _texts(nlp, "delete-appositive", "Tom Hale , the mayor , sold the farm .") == ["Tom Hale sold the farm ."]
    assert _texts(nlp, "delete-appositive", "A team led by Tom Hale , the mayor , visited the farm .") == [
        "A team led by Tom Hale visited the farm ."]


def test_deletions_keep_contrasts_names_and_needed_modifiers(nlp):
    """An adjective whose antonym is in the sentence sets two things apart, one after "so-called" is
    part of a name, one on "level" or "basis" is what the noun says, and nothing goes under "hinder"."""
    for text in ("The town allowed checks on its present farms but refused checks on past farms .",
                 "The report said a so-called dirty bomb was found .",
                 "At the federal level , the tax has been rising .",
                 "The party was hindered in its attempts to field a competitive slate ."):
        assert _texts(nlp, "delete-adjective", text) == [], text
    assert _texts(nlp, "delete-adjective", "The town allowed checks on its present farms .") == [
        "The town allowed checks on its farms ."]


def test_deletions_keep_the_whole_of_a_proportion_and_splits_keep_bare_verbs(nlp):
    """Nothing goes from the whole a proportion is of ("90 percent of foreign grain" is not "90
    percent of grain") or under "excluding"; a bare verb conjoined to a past one belongs under its
    "to" and is not split off, while a present plural's is."""
    for text in ("Ninety percent of foreign grain arrives by ship .", "Half of the new cars were red .",
                 "The firm said profits rose , excluding taxes and other costs ."):
        assert _texts(nlp, "delete-adjective", text) == [], text
    assert _texts(nlp, "split-conjoined-vp", "The town agreed to build a new school , and pay the teachers .") == []
    assert _texts(nlp, "split-conjoined-vp", "They come here often and go home late .") == [
        "They come here often. They go home late ."]


def test_deletions_keep_partitives_ordinals_and_idioms(nlp):
    """Nothing goes inside a partitive ("seven of the nine major farms"), an ordinal-like adjective
    stays ("the final chapter"), and so does the adjective of "a difficult time"."""
    for text in ("Seven of the nine major farms sold cattle .", "The judge wrote the final chapter .",
                 "Farmers who have a difficult time selling cattle left ."):
        assert _texts(nlp, "delete-adjective", text) == [], text
    # the exception is to the leading phrase, which may not go without it
    assert _texts(nlp, "delete-leading-modifier",
                  "In every election since 1950 , except for 1964 , the party won more votes .") == []
    assert _texts(nlp, "delete-leading-modifier", "In 1998 , he sold the farm .") == ["He sold the farm ."]


def test_a_since_that_a_perfect_measures_from_stays(nlp):
    """"Since 1990, the club has won six cups" claims six cups of that period."""
    assert _texts(nlp, "delete-leading-modifier", "Since 1990 , the club has won six cups .") == []
    assert _texts(nlp, "delete-leading-modifier", "Since March , the price has risen ten percent .") == []
    assert _texts(nlp, "delete-leading-modifier", "In 1990 , the club won six cups .") == ["The club won six cups ."]


def test_a_dropped_clause_before_a_closing_quote_leaves_its_comma(nlp):
    """'… the old bridge, which collapsed in May," the mayor said.' keeps the comma before the quotation
    mark that "the mayor said" follows."""
    assert _texts(nlp, "delete-relative-clause", "`` We will fix the old bridge , which fell in May , '' the mayor said .") == [
        "`` We will fix the old bridge, '' the mayor said ."]


def test_extractions_leave_quotations_and_misparsed_clauses_alone(nlp):
    """No clause is pulled out of a quotation (the copy would be the writer's claim) or out of "forced
    X, who …, to …" (the parser puts the infinitive inside the clause), and an abbreviation that ends
    the copy gets no second period."""
    assert _texts(nlp, "extract-relative-clause",
                  "We will fix the bridge , which fell in May , '' the mayor said .") == []
    assert _texts(nlp, "extract-relative-clause", "Three attacks forced the club organizer , who called himself "
                  "only as `` Ace12 , '' to extend the contest until Sunday .") == []
    assert _texts(nlp, "extract-relative-clause", "The storm forced the mayor , who was on holiday , to return early .") == [
        "The storm forced the mayor to return early . The mayor was on holiday."]
    assert _texts(nlp, "extract-appositive", "Tom Hale , head of sales at Acme Corp. , left early .") == [
        "Tom Hale left early . Tom Hale was head of sales at Acme Corp."]


def test_no_relative_clause_is_pulled_off_a_phrase_after_the_object(nlp):
    """"stopped the van near the border, which was closed": the clause may be about the van, so the
    parser's nearest noun is no safe antecedent (FrameNet dev, read after the fact)."""
    assert _texts(nlp, "extract-relative-clause", "Police stopped the van near the border , which was closed .") == []
    assert _texts(nlp, "extract-relative-clause", "Police stopped the van , which was stolen .") == [
        "Police stopped the van. The van was stolen."]



def test_the_complementizer_rules_decline_where_that_matters(nlp):
    """"that" is added or dropped only before a finite clause that follows its verb at once and
    begins with its subject; not in a passive "it is believed that", not where a phrase before the
    subject would hang on the verb, not in unquoted speech, not for one of two "that" clauses, not
    after verbs whose bare clause reads as a garden path."""
    assert _texts(nlp, "delete-that", "It is believed that the firm lied.") == []
    assert _texts(nlp, "delete-that", "He said that in 1990 the firm lied.") == []
    assert _texts(nlp, "delete-that", "Officials said that the bridge would open and that tolls would rise.") == []
    assert _texts(nlp, "delete-that", "The minister stated that the budget was balanced.") == []
    assert _texts(nlp, "insert-that", "The minister stated the budget was balanced.") == [
        "The minister stated that the budget was balanced."]
    assert _texts(nlp, "insert-that", "He said I am done.") == []  # speech: "I" is the speaker
    assert _texts(nlp, "insert-that", "I think I am right.") == ["I think that I am right."]
    assert _texts(nlp, "insert-that", 'He said "the plan failed".') == []
    assert _texts(nlp, "insert-that", "He said that was wrong.") == []
    assert _texts(nlp, "insert-that", "He asked whether the plan failed.") == []
    # a verb that needs an object and has none: the clause is a relative one on the object before
    assert _texts(nlp, "insert-that", "I know the band name of the shirt Tom is wearing in the video") == []
    assert _texts(nlp, "insert-that", "We hope you do!") == ["We hope that you do!"]  # "do" stands alone
    # a title is a name: no "that" added or dropped in it
    assert _texts(nlp, "insert-that", "Album: I Never Knew You Were Waiting for Me") == []
    assert _texts(nlp, "delete-that", "I Knew That You Were Waiting for Me") == []
    assert _texts(nlp, "delete-that", "I knew that you were waiting for me") == ["I knew you were waiting for me"]
    assert _texts(nlp, "insert-that", "I said the kids were sleeping.") == ["I said that the kids were sleeping."]


def test_v6_fronting_v8_genitive_from_the_train_m_judgments(nlp):
    """No fronting in a verbless fragment or of a phrase holding a quotation mark, brackets or a web
    address (a source line the parser hung on it); no genitive of a compass part ("Dubai's north")."""
    assert _texts(nlp, "front-trailing-adverbial", "This being typed in a standing position .") == []
    assert _texts(nlp, "front-trailing-adverbial",
                  "The team was led by the mayor at the town hall ( Daily Post , 2 May ) .") == []
    assert _texts(nlp, "front-trailing-adverbial", "The team sold the farm in 1998 .") == [
        "In 1998, the team sold the farm."]
    assert _texts(nlp, "pp-to-genitive", "The farm is situated in the north of Dubai .") == []
    assert _texts(nlp, "pp-to-genitive", "The farm is situated near the home of the mayor .") == [
        "The farm is situated near the mayor's home."]


def test_from_the_wikiann_cascade_e_judgments(nlp):
    """No cleft of a list's verb ("It is its former editors that include …"), no appositive after a
    closing quotation mark (the mark stayed behind: "prints The Journal''."), no fronting of a phrase
    with a clause of its own ("In Australia, where it has been recorded …, it is found.")."""
    assert _texts(nlp, "it-cleft", "Its former editors include Anna Berg and Max Brod .") == []
    assert _texts(nlp, "it-cleft", "Its former editors praised Anna Berg .") == [
        "It was its former editors that praised Anna Berg ."]
    assert _texts(nlp, "extract-appositive", "The school also prints The Courier'' , a weekly newspaper .") == []
    assert _texts(nlp, "front-trailing-adverbial",
                  "The moth is found in Australia , where it has been recorded from Queensland .") == []


def test_connectives_and_attributions_decline_where_the_move_changes_or_breaks_the_sentence(nlp):
    """Patterns met on FrameNet train sentences while writing the rules (re-written here)."""
    # an extraposed "it" reads stilted with the connective after it
    assert _texts(nlp, "lower-connective", "However, it is not clear whether the mill will close.") == []
    # a long or punctuated subject puts the connective too far in
    assert _texts(nlp, "lower-connective", "However, the mill, which opened in May, closed.") == []
    # "thus" does not sit after a subject
    assert _texts(nlp, "lower-connective", "Thus, the mill closed in May.") == []
    # the attribution covers the first clause only after the move
    assert _texts(nlp, "move-attribution", "According to the ministry, the mill closed; the workers left.") == []
    assert _texts(nlp, "front-attribution", "The mill closed; the workers left, according to the ministry.") == []
    # a dateline would end up after the attribution
    assert _texts(nlp, "front-attribution",
                  "NEW YORK ( AP ) --- Singer Ann Lee sold her house in May , according to a new memoir .") == []
    # a participle the parser left outside the attribution would lose its noun
    assert _texts(nlp, "move-attribution",
                  "According to a report, cited by the local paper, the mill closed in May.") == []
    # a quotation: its closing mark would come before the new comma
    assert _texts(nlp, "move-attribution", "According to the minister, `` the mill is closed . ''") == []
    # an anchor on the connective is left where it is
    doc = nlp("However, the old factory closed in May.")
    assert _texts(nlp, "lower-connective", "However, the old factory closed in May.", frozenset({0})) == []
    assert doc[0].text == "However"


def test_swap_conjuncts_declines_lists_dates_one_names_and_titles(nlp):
    """Patterns met on FrameNet train and WikiANN dev while writing the rule (re-written here)."""
    assert _texts(nlp, "swap-conjuncts", "He visited Spain, Italy and Greece in May.") == []  # a list of three
    assert _texts(nlp, "swap-conjuncts", "The mill was closed in July and August.") == []  # dates keep their order
    assert _texts(nlp, "swap-conjuncts", "She worked for the Boston and Maine Railroad.") == []  # inside a name
    assert _texts(nlp, "swap-conjuncts", "He joined the Committee on Education and Labor.") == []
    assert _texts(nlp, "swap-conjuncts", "Bosnia and Herzegovina joined the league.") == []  # one country
    assert _texts(nlp, "swap-conjuncts", "They flew to Trinidad and Tobago last year.") == []
    assert _texts(nlp, "swap-conjuncts", "He chaired the Commission for Britain and Ireland in 1990 .") == []
    assert _texts(nlp, "swap-conjuncts", "Warren Buffett and Bill Gates") == []  # a heading: may be one name
    # the order means something
    assert _texts(nlp, "swap-conjuncts", "Germany and France won gold and silver respectively.") == []


def test_exemplar_judgments_fronting_of_a_governed_preposition_and_a_cut_modifier_list(nlp):
    """Patterns of judged rewrites, re-written here: front-trailing-adverbial does
    not front the preposition the verb governs; pp-to-genitive makes no genitive of a phrase the
    parser cut before a list of modifiers."""
    assert _texts(nlp, "front-trailing-adverbial", "The nurses will insist on a shorter week .") == []
    assert _texts(nlp, "front-trailing-adverbial", "The union will meet in the spring .") == [
        "In the spring, the union will meet."]
    assert _texts(nlp, "pp-to-genitive",
                  "He tried to settle the matter in the terms of the presenting , everyday , talk .") == []


def test_exemplar_judgments_b(nlp):
    """Patterns of judged rewrites, re-written here: no fronting of the second half of "as
    much X, as Y" (front-trailing-adverbial), no "the nest of an ants" (genitive-to-pp)."""
    assert "As to keep the river out, the dam was built as much to keep water in." not in _texts(
        nlp, "front-trailing-adverbial", "The dam was built as much to keep water in , as to keep the river out .")
    assert _texts(nlp, "genitive-to-pp", "The yard looked like an ants ' nest as children ran about .") == []
    # the tagger reads the main verb as no verb here: the copy's "was"/"is" cannot be told (extract-participial)
    assert _texts(nlp, "extract-participial", "Studying his prey through cold eyes , Mortimer strode ahead ,"
                  " gun ready .") == []


def test_swap_conjuncts_v2_keeps_shared_surnames_articles_and_routes(nlp):
    """Patterns of judged rewrites, re-written here."""
    assert _texts(nlp, "swap-conjuncts", "Children will enjoy the books by Tom and Mary Baker .") == []
    assert _texts(nlp, "swap-conjuncts", "Farmers in the North and East burned wood .") == []
    assert _texts(nlp, "swap-conjuncts", "The birds flew home through Spain and France in May .") == []


def test_wikiann_f_judgments(nlp):
    """Patterns of judged rewrites, re-written here: "the civil parish of X" names X (pp-to-genitive)."""
    assert _texts(nlp, "pp-to-genitive", "The church is located in the civil parish of Ballymore .") == []


def test_exemplar_judgments_c(nlp):
    """Patterns of judged rewrites, re-written here: pp-to-genitive, front-trailing-adverbial."""
    assert _texts(nlp, "pp-to-genitive",
                  'She likes books like " The habits of the smaller birds " , but these sell less .') == []
    assert _texts(nlp, "front-trailing-adverbial", "Mira leapt through the broken glass and into the van .") == []


def test_exemplar_judgments_d(nlp):
    """Patterns of judged rewrites, re-written here: pp-to-genitive, front-trailing-adverbial."""
    assert _texts(nlp, "pp-to-genitive", "On the basis of these notes we can see why the plan failed .") == []
    assert _texts(nlp, "front-trailing-adverbial",
                  "The pair are praised for a knack for spotting new talent before the studios find it .") == []


def test_exemplar_judgments_e(nlp):
    """Patterns of judged rewrites, re-written here: it-cleft, front-trailing-adverbial,
    genitive-to-pp, extract-appositive."""
    assert _texts(nlp, "it-cleft", "A sharp whistle blew and Tom climbed down from the roof .") == []
    assert _texts(nlp, "it-cleft", "Tom climbed down from the roof .") == [
        "It was Tom that climbed down from the roof ."]
    assert _texts(nlp, "front-trailing-adverbial",
                  "The lane is reached by a short walk from the car park -- in the dry months at least !") == []
    assert _texts(nlp, "genitive-to-pp", "After the service , the St Mary 's choir drank tea .") == []
    assert _texts(nlp, "genitive-to-pp", "After the service , the Senate 's choir drank tea .") == [
        "After the service , the choir of the Senate drank tea ."]
    assert _texts(nlp, "extract-appositive",
                  "The closing scenes are really dances , the kind of cheerful revival that fills a hall .") == []


def test_exemplar_judgments_f(nlp):
    """Patterns of judged rewrites, re-written here: pp-to-genitive, genitive-to-pp."""
    assert _texts(nlp, "pp-to-genitive", "There were cries at the sight of the lost dog .") == []
    assert _texts(nlp, "genitive-to-pp", "Now we know the secret behind that Cheshire Cat 's wide grin !") == []


def test_exemplar_judgments_g(nlp):
    """Patterns of judged rewrites, re-written here: it-cleft, split-conjoined-vp,
    pp-to-genitive."""
    assert _texts(nlp, "it-cleft", "Many people find it hard to join a choir .") == []
    assert _texts(nlp, "split-conjoined-vp", "A man drove a truck into the yard and asked him to fix the brakes .") == []
    assert _texts(nlp, "split-conjoined-vp", "The man drove a truck into the yard and asked him to fix the brakes .") == [
        "The man drove a truck into the yard. The man asked him to fix the brakes ."]
    assert _texts(nlp, "pp-to-genitive", "She heard him shout , from the direction of the barn .") == []


def test_exemplar_judgments_h(nlp):
    """Patterns of judged rewrites, re-written here: split-conjoined-vp (a copy keeps a
    hyphenated word whole), front-trailing-adverbial (no dash before the phrase)."""
    assert _texts(nlp, "split-conjoined-vp",
                  "The tail-in turn is very easy in calm air and becomes harder as the wind grows .") == [
        "The tail-in turn is very easy in calm air. The tail-in turn becomes harder as the wind grows ."]
    assert _texts(nlp, "front-trailing-adverbial",
                  "The small firms all grew in Spain and Italy -- indeed , in all countries .") == []


def test_extract_participial_copy_keeps_a_hyphenated_word_whole(nlp):
    """extract-participial: its copied subject is built like the other extractions' copies
    (it spelled "well - known" before, the defect fixed for them)."""
    assert _texts(nlp, "extract-participial",
                  "Wearing a long coat , the well-known singer walked onto the stage .") == [
        "The well-known singer walked onto the stage . The well-known singer was wearing a long coat."]


def test_split_conjoined_clauses_declines_a_noun_read_as_a_verb(nlp):
    """split-conjoined-clauses (a refused candidate, pattern re-written here): the
    parser reads "cooks" as the verb of a "when" clause and "began" as a second main clause."""
    assert _texts(nlp, "split-conjoined-clauses",
                  "In fact , the only time Tom ever talked with other people was when the school cooks , "
                  "and then their friends from round about , began to visit him .") == []
    assert _texts(nlp, "split-conjoined-clauses", "The road serves the village and sometimes the civilians "
                  "have to wait .") == ["The road serves the village. Sometimes the civilians have to wait ."]


def test_split_conjoined_clauses_declines_a_subject_after_its_verb(nlp):
    """split-conjoined-clauses: the parser read the object "Qatar" as
    the subject of "represents", and the split wrote a sentence with no subject."""
    assert _texts(nlp, "split-conjoined-clauses", "He was born in Keiyo , Kenya , but now represents Qatar .") == []
    assert _texts(nlp, "split-conjoined-clauses", "He came home , and she stayed .") == ["He came home. She stayed ."]


def test_split_conjoined_clauses_declines_the_last_of_a_list_of_verb_phrases(nlp):
    """split-conjoined-clauses (read on WikiANN dev, pattern re-written here): "A, B, and C" where A
    and B are verb phrases of one subject left "He attended X, graduated from Y." without its "and"."""
    assert _texts(nlp, "split-conjoined-clauses", "He attended Dartmouth College from 1973 to 1975 , graduated "
                  "from Yale University in 1977 , and he is a 1980 graduate of Harvard Law School .") == []
    assert _texts(nlp, "split-conjoined-clauses", "She wrote the book , edited the film , and he produced the "
                  "record .") == []
    # a participle after the verb is no list member: the first sentence stands
    assert _texts(nlp, "split-conjoined-clauses", "He left the house , leaving the door open , and she "
                  "stayed at the office .") == [
        "He left the house , leaving the door open. She stayed at the office ."]
    # nor is a second verb joined by "and"
    assert _texts(nlp, "split-conjoined-clauses", "The shops were owned and managed by one family for years , "
                  "and theirs was a warm welcome .") == [
        "The shops were owned and managed by one family for years. Theirs was a warm welcome ."]


def test_a_new_first_word_after_an_opening_quote_is_capitalised_and_joined(nlp):
    """Patterns of judged rewrites, re-written here: genitive-to-pp put "the" first after an opening
    quote and wrote '" the secular nationalism of Arafat …'."""
    assert _texts(nlp, "genitive-to-pp", '" Arafat \'s secular nationalism was supple enough to compromise .') == [
        '"The secular nationalism of Arafat was supple enough to compromise .']


def test_it_cleft_lowers_a_common_noun_before_a_persons_name(nlp):
    """it-cleft (judged; pattern re-written here): "It was Singer Billy Murray that …"
    kept the capital of a common noun that only started the sentence; a title tagged as a name stays."""
    assert _texts(nlp, "it-cleft", "Singer Billy Murray recorded two versions in 1907 .") == [
        "It was singer Billy Murray that recorded two versions in 1907 ."]
    assert _texts(nlp, "it-cleft", "President Obama signed the bill .") in (
        [], ["It was President Obama that signed the bill ."])


def test_move_leading_adverbial_declines_a_stranded_preposition(nlp):
    """move-leading-adverbial: WikiANN drops linked text and leaves
    "… is in , and in ."; the moved phrase read "and in in the California State Legislature"."""
    assert _texts(nlp, "move-leading-adverbial", "In the California State Legislature , Seven Trees is in , and in .") == []
    assert _texts(nlp, "move-leading-adverbial", "In 1998 , he sold it .") == ["He sold it in 1998."]


def test_exemplar_judgments_i(nlp):
    """Patterns of judged rewrites, re-written here: genitive-to-pp (no possessor right after
    "and": "Ann and Tom's mother" may be the mother of both), split-conjoined-clauses (no second
    clause whose "subject" is a preposition's object)."""
    assert _texts(nlp, "genitive-to-pp", "On a visit to their home , I enjoyed meeting Ann and Tom 's mother , "
                  "who was the soul of kindness .") == []
    assert _texts(nlp, "genitive-to-pp", "I enjoyed meeting Tom 's mother .") == [
        "I enjoyed meeting the mother of Tom."]
    assert _texts(nlp, "split-conjoined-clauses", "Later she taught French and music at the High School , and "
                  "before marriage published a book about the Essays of Elia .") == []  # no subject


def test_exemplar_judgments_j(nlp):
    """Patterns of judged rewrites, re-written here: insert-that, no "that" before an embedded
    question ("know that what …")."""
    assert _texts(nlp, "insert-that", "` I 'd like to know what were supposed to be doing , that 's all , \" "
                  "Tom grumbled .") == []
    assert _texts(nlp, "insert-that", "He said the plan failed .") == ["He said that the plan failed ."]


def test_wikiann_cascade_h_judgments(nlp):
    """Patterns of judged rewrites, re-written here: genitive-to-pp (no capitalised possessed noun:
    "Mimirin's Mother" is a role's name), it-cleft (the first word of a name the tagger split keeps
    its capital)."""
    assert _texts(nlp, "genitive-to-pp", "Pat Smith ( 1993 ) – Peizuri , Mimirin 's Mother") == []
    assert _texts(nlp, "it-cleft", "Topic Map methods give results relevant to a specific topic.") == [
        "It is Topic Map methods that give results relevant to a specific topic."]
    assert _texts(nlp, "it-cleft", "Market forces give results.") == ["It is market forces that give results."]


def test_exemplar_judgments_k(nlp):
    """Patterns of judged rewrites, re-written here: split-conjoined-vp, no quotation copied as
    the subject of an inverted "said X", no copied subject that would drop its exception."""
    assert _texts(nlp, "split-conjoined-vp", '` That ! " said Tom briefly , and pointed a long finger at the top '
                  "corner of the window .") == []
    assert _texts(nlp, "split-conjoined-vp", "The whole board , apart from the lawyer Tom Smith , is against the "
                  "plan and wants it to go .") == []
    assert _texts(nlp, "split-conjoined-vp", "He grinned and stroked his whiskers .") == [
        "He grinned. He stroked his whiskers ."]
    # it-cleft, front-trailing-adverbial, extract-appositive (found at the end of that session)
    assert _texts(nlp, "it-cleft", "Victor roared with good humour .") == []  # a name the tagger missed
    assert _texts(nlp, "it-cleft", "The crowd roared with good humour .") == [
        "It was the crowd that roared with good humour ."]
    assert _texts(nlp, "front-trailing-adverbial", "This chapter gives an outline of the law as it relates to the "
                  "work of a nurse .") == []
    assert _texts(nlp, "extract-appositive", "She found herself envying the easy talk between her cousins , the "
                  "noisy informality of meals , the laughter and bustle and hugs .") == []


def test_genitive_carries_a_noun_targets_of_phrase():
    """pp-to-genitive: FrameNet's frame element "of the train" of the target "arrival" becomes "the
    train's" (before, it was lost with its "of" and the structure had no candidate)."""
    from paraspan.corpus.schema import Sentence, Span, Structure
    from paraspan.generate.rewrite.generator import rewrite_sentence
    from paraspan.generate.rewrite.rules import RuleSet

    text = "The arrival of the train was late."
    start = text.index("of the train")
    sentence = Sentence("s1", text, [Structure("frame", "Arriving", Span(4, 11, "arrival.n"),
                                               [Span(start, start + len("of the train"), "Theme")])])
    out = rewrite_sentence(sentence, RuleSet([rewrite_rules.get("pp-to-genitive")]))
    assert [o.text for o in out] == ["The train's arrival was late."]
    structure = out[0].structures[0]
    assert out[0].text[structure.anchor.start:structure.anchor.end] == "arrival"
    assert [out[0].text[a.start:a.end] for a in structure.args] == ["The train's"]


def test_exemplar_judgments_l(nlp):
    """Patterns of judged rewrites, re-written here: split-conjoined-vp, it-cleft, pp-to-genitive."""
    # a fronted phrase the parser took for a second subject was copied as the subject
    assert _texts(nlp, "split-conjoined-vp", "The first of its kind in Wales , this course teaches a strong German "
                  "element and has been developed with industry .") == []
    # a verb read as a noun leaves an "and" with nothing after it inside the subject
    assert _texts(nlp, "it-cleft", "The sledge bucks on an uneven hummock and throws me off .") == []
    # a clause without "that" goes on from the possessor
    assert _texts(nlp, "pp-to-genitive", "Then his worried gaze met the shining eyes above the white patch of the "
                  "handkerchief the girl was holding at her chin .") == []
    assert _texts(nlp, "pp-to-genitive", "His gaze met the white patch of the handkerchief .") == [
        "His gaze met the handkerchief's white patch."]


def test_exemplar_judgments_alternation(nlp):
    """Patterns of judged rewrites, re-written here: split-conjoined-vp, split-conjoined-clauses, extract-appositive, pp-to-genitive."""
    assert _texts(nlp, "split-conjoined-vp", '` You and your Private Detective , " said Dolly , and pulled her coat up , '
                  "revealing her white scarf .") == []
    assert _texts(nlp, "split-conjoined-clauses", "Did n't they all know about the strange visit of the wolf last "
                  "winter , and how it had roamed the valley , stealing lambs from the farms .") == []
    assert _texts(nlp, "extract-appositive", "The retired teacher , who lives at the Cedars , Great Ayton , wrote a "
                  "book .") == []  # a name after a relative clause
    assert _texts(nlp, "extract-appositive", "He lives in the Laurels , Upper Bolton , with his wife .") == []  # an address
    assert _texts(nlp, "pp-to-genitive", "She put the glasses down to the right of each plate .") == []
    assert _texts(nlp, "split-conjoined-clauses", "He came home , and she stayed at the office .") == [
        "He came home. She stayed at the office ."]


def test_exemplar_judgments_m(nlp):
    """Patterns of judged rewrites, re-written here: front-trailing-adverbial, pp-to-genitive."""
    # right after an intransitive verb or its object a place or a manner is the verb's or the noun's own
    assert _texts(nlp, "front-trailing-adverbial", "I looked in the box .") == []
    assert _texts(nlp, "front-trailing-adverbial", "Her lips curled in a smile .") == []
    assert _texts(nlp, "front-trailing-adverbial", "The rebels are tightening their hold on a narrow strip along "
                  "the river .") == []
    assert _texts(nlp, "front-trailing-adverbial", "The farmer sold his tractor in 1998 .") == [
        "In 1998, the farmer sold his tractor."]  # a time modifies the clause
    # a phrase after the possessor may be its own; a verb after it may have its subject inside it
    assert _texts(nlp, "pp-to-genitive", "The room smelt of the contents of the bin down the hall .") == []
    assert _texts(nlp, "pp-to-genitive", "Outside , a dog barked , and among the roots of the hedge mice rustled "
                  "and squeaked .") == []
    # the last word of a compound may be the verb the parser missed
    assert _texts(nlp, "pp-to-genitive", "Legend has it that each time a bride walks past them the sound of the "
                  "harp echoes round the hall .") == []


def test_exemplar_judgments_n(nlp):
    """Patterns of judged rewrites, re-written here: delete-that and insert-that, extract-relative-clause, front-trailing-adverbial, pp-to-genitive."""
    # "claims" after a name is a noun the parser read as a verb without a subject
    assert _texts(nlp, "delete-that", "Novell has reacted angrily to Oracle claims that a large share of users "
                  "prefer its product .") == []
    # the relative clause's closing comma also opens the phrase after it
    assert _texts(nlp, "extract-relative-clause", "Marcus , who had resumed his calm posture , his hands clasped on "
                  "his knee , watched the show with raised eyebrows .") == []
    # when it came is what "came" says; a time clause of another verb still moves
    assert _texts(nlp, "front-trailing-adverbial", "The split apparently came after the pair had a row about money .") == []
    assert _texts(nlp, "front-trailing-adverbial", "He left after she arrived .") == ["After she arrived, he left."]
    # the participle phrase belongs to the possessor
    assert _texts(nlp, "pp-to-genitive", "It just grazed the head of the fella working opposite me .") == []


def test_exemplar_judgments_o(nlp):
    """Patterns of judged rewrites, re-written here: extract-appositive, no vocative."""
    assert _texts(nlp, "extract-appositive", "` Do I detect from your tone , Chief Inspector , that you think us a "
                  "pair of fools ?") == []
    assert _texts(nlp, "extract-appositive", "Mexico City , the biggest city in the world , has many sites .") == [
        "Mexico City has many sites . Mexico City is the biggest city in the world."]


def test_exemplar_judgments_p(nlp):
    """Patterns of judged rewrites, re-written here: front-trailing-adverbial, genitive-to-pp,
    move-leading-adverbial."""
    # after a noun a place phrase may be the noun's ("staff at the College for the Deaf at Exeter")
    assert _texts(nlp, "front-trailing-adverbial", "The new lift was fitted in the library by staff at the Royal "
                  "College for the Deaf at Exeter .") == []
    # a measure with "a", and a possessor that ends a name
    assert _texts(nlp, "genitive-to-pp", "Give him a cup of tea and send him on a week 's holiday .") == []
    assert _texts(nlp, "genitive-to-pp", "Their reserves , required by Bank for International Settlements ' rules to "
                  "exceed 8% , have fallen .") == []
    # "then" answers the "if"
    assert _texts(nlp, "move-leading-adverbial", "If your first name is Midas , then the answer is simple .") == []


def test_exemplar_judgments_x(nlp):
    """Patterns of judged rewrites, re-written here: genitive-to-pp, extract-relative-clause,
    extract-appositive."""
    # a clipped word's apostrophe is no possessive
    assert _texts(nlp, "genitive-to-pp", "` Flippin' nuisance , \" muttered Ann to herself as she looked at the car .") == []
    # a quotation left open: the new sentence would read as part of it
    assert _texts(nlp, "extract-relative-clause", "Inspector Tom Brown , who is leading the search , said : ` It was a "
                  "very hard day but she acted sensibly by staying calm .") == []
    assert "He sold the house. The house was old." in _texts(nlp, "extract-relative-clause",
                                                             "He sold the house , which was old .")
    # a possessive's apostrophe opens no quotation
    assert "She sent a dog to find the boy ARTHUR. The boy was James ' son." in _texts(
        nlp, "extract-relative-clause", "She sent a dog to find the boy ARTHUR , who was James ' son .")


def test_exemplar_judgments_w(nlp):
    """Patterns of judged rewrites, re-written here: genitive-to-pp, pp-to-genitive."""
    from spacy.tokens import Doc

    # the verb "rings" read as a noun: the of-phrase would land after it
    assert _texts(nlp, "genitive-to-pp", "There is no false pride here ; the writer 's honesty rings true .") == []
    # a quoted possessor, on the parse the parser gave an exemplar of this shape (the closing quote hung elsewhere)
    words = "They praised the aims of the policy of ` Renewal \" .".split()
    heads = [1, 1, 3, 1, 3, 6, 4, 6, 9, 7, 1, 1]
    deps = ["nsubj", "ROOT", "det", "dobj", "prep", "det", "pobj", "prep", "punct", "pobj", "punct", "punct"]
    tags = ["PRP", "VBD", "DT", "NNS", "IN", "DT", "NN", "IN", "``", "NNP", "''", "."]
    pos = ["PRON", "VERB", "DET", "NOUN", "ADP", "DET", "NOUN", "ADP", "PUNCT", "PROPN", "PUNCT", "PUNCT"]
    doc = Doc(nlp.vocab, words=words, spaces=[True] * (len(words) - 1) + [False], heads=heads, deps=deps, tags=tags,
              pos=pos)
    assert rewrite_rules.get("pp-to-genitive").apply(doc, RuleContext(frozenset(), load_wordnet, inflect)) == []


def test_exemplar_judgments_v(nlp):
    """Patterns of judged rewrites, re-written here: front-trailing-adverbial, extract-appositive."""
    from spacy.tokens import Doc

    # a present verb and a past time after the object's own phrase: the time is the story's
    assert _texts(nlp, "front-trailing-adverbial", "He tells a story of the explorer Stanley in Africa in the "
                  "nineteenth century .") == []
    assert "In 1998, he sold the farm." in _texts(nlp, "front-trailing-adverbial", "He sold the farm in 1998 .")
    # the appositive hung on the head noun, as the parser did on an exemplar of this shape: a nearer noun
    # ("one Edward Platt") is what it renames, not "the death"
    words = "The old records lament the death of one Edward Platt , a keeper at the turnpike .".split()
    heads = [2, 2, 3, 3, 5, 3, 5, 9, 9, 6, 5, 12, 5, 12, 15, 13, 3]
    deps = ["det", "amod", "nsubj", "ROOT", "det", "dobj", "prep", "nummod", "compound", "pobj", "punct", "det",
            "appos", "prep", "det", "pobj", "punct"]
    tags = ["DT", "JJ", "NNS", "VBP", "DT", "NN", "IN", "CD", "NNP", "NNP", ",", "DT", "NN", "IN", "DT", "NN", "."]
    pos = ["DET", "ADJ", "NOUN", "VERB", "DET", "NOUN", "ADP", "NUM", "PROPN", "PROPN", "PUNCT", "DET", "NOUN", "ADP",
           "DET", "NOUN", "PUNCT"]
    doc = Doc(nlp.vocab, words=words, spaces=[True] * (len(words) - 1) + [False], heads=heads, deps=deps, tags=tags,
              pos=pos)
    assert rewrite_rules.get("extract-appositive").apply(doc, RuleContext(frozenset(), load_wordnet, inflect)) == []


def test_exemplar_judgments_u(nlp):
    """Patterns of judged rewrites, re-written here: genitive-to-pp, extract-appositive,
    extract-relative-clause."""
    # a plural possessor that classifies: "the cats' home" is a kind of place
    assert _texts(nlp, "genitive-to-pp", "On a cold morning we walked to the cats ' home .") == []
    assert "She took the toys of the children." in _texts(nlp, "genitive-to-pp", "She took the children 's toys .")
    # an absolute phrase after a name is no apposition
    assert _texts(nlp, "extract-appositive", "The bus drove past the church and turned onto Main Street , the tall "
                  "old houses flashing by on the left .") == []
    # a noun of the head's own phrase stands nearer the clause, which may be about it
    assert _texts(nlp, "extract-relative-clause", "She met the father of the bride , who was a doctor .") == []
    assert "He sold the house. The house was old." in _texts(nlp, "extract-relative-clause",
                                                             "He sold the house , which was old .")


def test_exemplar_judgments_t(nlp):
    """Patterns of judged rewrites, re-written here: pp-to-genitive, move-leading-adverbial,
    front-trailing-adverbial."""
    # "the aspect of X" is no "X's aspect"
    assert _texts(nlp, "pp-to-genitive", "They studied the legal aspect of the new policy .") == []
    # "that" resumes the if-clause: behind it, it would point at nothing
    assert _texts(nlp, "move-leading-adverbial", "If you can make a weak team competitive , that is impressive .") == []
    assert "It would be great, if you can come." in _texts(nlp, "move-leading-adverbial",
                                                          "If you can come , it would be great .")
    # an inverted "as are X" compares with the clause before it
    assert _texts(nlp, "front-trailing-adverbial", "Roads and the rail bridges of the region are damaged , as are "
                  "power lines and pipes .") == []


def test_exemplar_judgments_s(nlp):
    """Patterns of judged rewrites, re-written here: split-conjoined-clauses."""
    # the second "was" left out: "The council dissolved." alone would be active
    assert _texts(nlp, "split-conjoined-clauses", "In May 1990 the charter was suspended and the council dissolved "
                  "following the coup in March .") == []
    # two subordinate clauses joined: the first part is no sentence
    assert _texts(nlp, "split-conjoined-clauses", "As heat and light are related in living systems , and as all "
                  "reactions are heat-dependent , it is not unwise to suggest that water is the basis .") == []
    # a past tense that is no participle, or a passive of its own, still splits
    assert "The bridge was closed. The river rose ." in _texts(nlp, "split-conjoined-clauses",
                                                              "The bridge was closed and the river rose .")
    assert "The bridge was closed. The road was flooded ." in _texts(nlp, "split-conjoined-clauses",
                                                                    "The bridge was closed and the road was flooded .")
    assert "The bridge was closed. The mayor announced that it would reopen ." in _texts(
        nlp, "split-conjoined-clauses", "The bridge was closed and the mayor announced that it would reopen .")


def test_exemplar_judgments_q(nlp):
    """Patterns of judged rewrites, re-written here: pp-to-genitive."""
    # "the problem of X" is a problem about X, not one X has
    assert _texts(nlp, "pp-to-genitive", "The problem of the lonely child was harder because of the danger posed by "
                  "his friends .") == []
    assert _texts(nlp, "pp-to-genitive", "They discussed the question of the new bridge .") == []


@pytest.mark.parametrize("sentence", [
    "He shook his head slowly .",  # a possessive of the subject, a body part: "His head was shaken by him"
    "Maria brushed her hair before the party .",
    "The builders repaired their van in the yard .",  # "their" of a plural subject
    "She waved a tired hand at the waiter .",
    "He gave a long sigh .",  # light verbs: "A long sigh was given by him"
    "The pilgrims made a journey to Rome .",
    "To the children the house seemed a magical place .",  # a linking verb read as transitive
    "She only bought fresh vegetables .",  # the focus word's scope: "were only bought by her"
    "Workers began the job by clearing the rubbish .",  # a second "by"
    "Anna glanced out the window .",  # a preposition read as a particle
    "He pushed the cart into the barn , stopping only to wave at me .",  # the cart would stop
    "He admired Paul Smith , then still a young boy , who sang the solo .",  # the phrase after the object
    '` We need money to fix the roof , " he said .',  # a capital after the opening quotation
    "They disparage themselves for doubting .",  # "Themselves is disparaged by them"
    "First , you follow the main road out of the town .",  # a generic "you" as agent
    "We obtained our sample B12/ 71 from another lab .",  # the object's name hung on the verb
])
def test_active_to_passive_declines_what_the_exemplar_blocks_showed(nlp, sentence):
    """Passives read on FrameNet exemplar blocks -t … -x (the sentences re-written)."""
    assert _texts(nlp, "active-to-passive", sentence) == []


def test_passive_participles_and_pronouns(nlp):
    # "I" keeps its capital inside the sentence, and a regular past is its own participle where the
    # parser's lemma is another verb's ("scraped" given "scrap" made "scrapped")
    assert _texts(nlp, "active-to-passive", "That was when the old dog really bit me , he said .") == [
        "That was when I was really bitten by the old dog, he said ."]
    assert _texts(nlp, "active-to-passive", "That was when I scraped the car on a rock .") == [
        "That was when the car was scraped by me on a rock ."]
    assert _texts(nlp, "active-to-passive", "Once the polls showed strong support for the plan , they moved quickly .") == [
        "Once strong support for the plan was shown by the polls, they moved quickly ."]


@pytest.mark.parametrize("sentence", [
    "The prices were cut by up to 33% .",  # a measure, no agent
    "The path was marked out by deep cuts in the rock .",  # the particle would follow the object
])
def test_passive_to_active_declines_measures_and_particles(nlp, sentence):
    assert _texts(nlp, "passive-to-active", sentence) == []


@pytest.mark.parametrize("sentence", [
    "Middlesbrough deserved their win after leading for a long spell .",  # "their" of a name; "after leading"
    "Pleydell and his men carried out a number of operations whilst crouching under bushes .",
    "In 1958 he met Helene Hoskins , who under the pen name Celeste later wrote a column in the magazine .",
    "Isabel suspected her still of watching the house .",  # "still" left after the agent
    "Immediately after leaving the firm in March , Mr Lopez demanded deep price cuts from suppliers .",
    '` Mistress Hussey , " said the prince , ` we beg your forgiveness for the delay .',
    "It is odd that you still read such claims , used as though they constituted arguments against the theory .",
    "She drew the necklace from her neck , unslung three fragments of bone .",  # "unslung" tagged ADJ
    "In this aspect the world 's values find expression in the lust for power .",
    "He liked her in red dresses .",
    "They coin nouns to talk about objects , verbs to talk about actions , and adjectives to talk about states .",
])
def test_active_to_passive_declines_what_the_voice_set_showed(nlp, sentence):
    """Passives judged wrong (the sentences re-written)."""
    assert _texts(nlp, "active-to-passive", sentence) == []


def test_active_to_passive_keeps_what_the_voice_set_had_right(nlp):
    # "a number of" takes a plural verb; a particle left after a pronoun object is declined, the
    # clause before it is not; a participle inside a fronted phrase is the noun's, not the subject's
    assert _texts(nlp, "active-to-passive", "Pleydell and his men carried out a number of operations in the desert .") == [
        "A number of operations were carried out by Pleydell and his men in the desert ."]
    assert _texts(nlp, "active-to-passive", "When I answer the telephone , I switch it off .") == [
        "When the telephone is answered by me, I switch it off ."]
    assert _texts(nlp, "active-to-passive", "From the bag hanging at his side he brought out a silver flask .") == [
        "From the bag hanging at his side a silver flask was brought out by him."]
    # "into taking": the object's clause, which the passive keeps with it
    assert "Though the viewer was fooled by him into taking his painting for reality , Zeuxis practised an idealist art ." in (
        _texts(nlp, "active-to-passive",
               "Though he fooled the viewer into taking his painting for reality , Zeuxis practised an idealist art ."))


@pytest.mark.parametrize(("rule", "sentence"), [
    ("split-conjoined-vp", "Others had run across the field , dodging shells , and had taken off later ."),  # a second set
    ("particle-shift", "The lorries were turning off the road now ."),  # leaving the road
    # the first of a list of appositives: the rest would read as a second leader
    ("extract-appositive", "This group is led by Ms Smith , a former actress , and , more important , a former friend "
                           "of the late Mr Jones ."),
    # a clause the parser read as a leading noun phrase, before an absolute phrase
    ("move-leading-adverbial", "Ruth jerked round , the sheer force of that voice turning her ."),
])
def test_rules_decline_what_fn_cascade_exemplars_y_showed(nlp, rule, sentence):
    assert _texts(nlp, rule, sentence) == []


def test_a_capital_after_a_word_the_parser_split_off_stays(nlp):
    """"Q Recently my son …": the parser makes "Q" a sentence of its own; "Recently" was lower-cased as a
    sentence start moved inside."""
    out = _texts(nlp, "split-conjoined-clauses",
                 "Q Recently my son enlarged our garden pond and while moving the fish , we noticed a crack .")
    assert out == ["Q Recently my son enlarged our garden pond. While moving the fish , we noticed a crack ."]


@pytest.mark.parametrize(("rule", "sentence"), [
    ("active-to-passive", "When they reached the river they began the slow descent of the bank ."),  # "was begun by"
    ("active-to-passive", "In such claims , one often detects a hidden motive ."),  # the generic "one"
    ("active-to-passive", "On the road north , a left fork leads eastwards to the village ."),  # a direction
    ("active-to-passive", "After the meeting Darren and his brother Mark condemned the bank for its action ."),
    ("passive-to-active", "He was challenged by a Labour MP , Kim Howells , over the searches ."),  # a lost comma
    ("active-to-passive", "People were so polite , particularly as Brian hardly said anything ."),
    ("active-to-passive", "She spent weekends with friends in the country ."),  # a time as object
    ("active-to-passive", "They learn maths through playing with dominoes , she says ."),
    ("active-to-passive", "They argued a lot about the plan ."),  # an adverbial "a lot"
    ("active-to-passive", "In Section A , we describe two couples with different lifestyles ."),  # the object's "with"
    ("active-to-passive", "Each part has a score to show how close the word matched the entry in the list ."),
    ("active-to-passive", "He nodded as he smiled a cautious greeting ."),  # a cognate object
    ("active-to-passive", "Some of the recent changes represent responses to the pressure from the councils ."),
    ("extract-participial", "Having regard to future needs , an exclusion clause would be essential in the new system ."),
])
def test_rules_decline_what_the_voice_sets_and_z_showed(nlp, rule, sentence):
    """Outputs judged wrong (active-to-passive, passive-to-active, extract-participial; the sentences re-written)."""
    assert _texts(nlp, rule, sentence) == []


def test_a_passive_of_some_of_a_plural_is_plural(nlp):
    assert _texts(nlp, "active-to-passive", "The shock of entering the firm shatters some of these naive expectations .") == [
        "Some of these naive expectations are shattered by the shock of entering the firm."]


def test_a_modifier_before_a_clause_conjunction_is_no_list(nlp):
    """", but he …" after a relative clause starts a clause, not a second modifier (a
    right extraction, which the first version of the list check of extract-appositive dropped)."""
    assert _texts(nlp, "extract-relative-clause",
                  "She sent two snakes to kill the young Tom , who was the son of Zeus , but he strangled them .") == [
        "She sent two snakes to kill the young Tom but he strangled them . The young Tom was the son of Zeus."]


def test_no_cleft_of_a_sentence_the_parser_began_after_and(nlp):
    """The parser can end a sentence at an "and" and begin the next at its subject ("…, Emily put on her
    stockings and Preston piled …" on a FrameNet exemplar); the cleft wrote "and
    It was Preston that piled …". The parse is built here as the parser made it."""
    from spacy.tokens import Doc

    words = "We sang and Anna put on her slippers and Peter piled more wood on the fire .".split()
    heads = [1, 1, 1, 4, 1, 4, 7, 4, 7, 10, 10, 12, 10, 10, 15, 13, 10]
    deps = ["nsubj", "ROOT", "cc", "nsubj", "conj", "prt", "poss", "dobj", "cc", "nsubj", "ROOT", "amod", "dobj",
            "prep", "det", "pobj", "punct"]
    tags = ["PRP", "VBD", "CC", "NNP", "VBD", "RP", "PRP$", "NNS", "CC", "NNP", "VBD", "JJR", "NN", "IN", "DT", "NN",
            "."]
    pos = ["PRON", "VERB", "CCONJ", "PROPN", "VERB", "ADP", "PRON", "NOUN", "CCONJ", "PROPN", "VERB", "ADJ", "NOUN",
           "ADP", "DET", "NOUN", "PUNCT"]
    doc = Doc(nlp.vocab, words=words, spaces=[True] * (len(words) - 2) + [True, False], heads=heads, deps=deps,
              tags=tags, pos=pos, ents=["O", "O", "O", "B-PERSON"] + ["O"] * 5 + ["B-PERSON"] + ["O"] * 7)
    assert [s.start for s in doc.sents] == [0, 9]
    assert rewrite_rules.get("it-cleft").apply(doc, RuleContext(frozenset(), load_wordnet, inflect)) == []


def test_dative_shift_leaves_give_leave_alone(nlp):
    """"when they give you your first leave" (time off) is no "give your first leave to you"."""
    assert _texts(nlp, "dative-shift", "He promised him it would be a special Christmas when they give you your "
                                       "first leave .") == []


def test_no_cleft_of_an_indefinite_subject(nlp):
    """"A woman has to be brave or mad to sail alone" → "It is a woman that …" contrasts her with a man
    (it-cleft); a definite subject and a specific indefinite one ("an officer
    pulled …", judged right in -n) are still clefted."""
    assert _texts(nlp, "it-cleft", "A woman has to be brave or mad to sail alone these days .") == []
    assert _texts(nlp, "it-cleft", "The farmer sold the tractor.") == ["It was the farmer that sold the tractor."]
    assert _texts(nlp, "it-cleft", "A soldier pulled the alarm cord as a joke .") == [
        "It was a soldier that pulled the alarm cord as a joke ."]


def test_no_apposition_of_an_absolute_phrase(nlp):
    """"…, pipe in mouth, …" parsed as an apposition of the noun before it: "The steps were pipe in mouth."
    (extract-appositive). The parse is built here as the parser made it."""
    from spacy.tokens import Doc

    words = "He walked up the steps , hat in hand , muttered a greeting and knocked on the door .".split()
    heads = [1, 1, 1, 4, 2, 4, 4, 6, 7, 4, 1, 12, 10, 10, 10, 14, 17, 15, 1]
    deps = ["nsubj", "ROOT", "prep", "det", "pobj", "punct", "appos", "prep", "pobj", "punct", "conj", "det", "dobj",
            "cc", "conj", "prep", "det", "pobj", "punct"]
    tags = ["PRP", "VBD", "IN", "DT", "NNS", ",", "NN", "IN", "NN", ",", "VBD", "DT", "NN", "CC", "VBD", "IN", "DT",
            "NN", "."]
    pos = ["PRON", "VERB", "ADP", "DET", "NOUN", "PUNCT", "NOUN", "ADP", "NOUN", "PUNCT", "VERB", "DET", "NOUN", "CCONJ",
           "VERB", "ADP", "DET", "NOUN", "PUNCT"]
    doc = Doc(nlp.vocab, words=words, spaces=[True] * (len(words) - 2) + [True, False], heads=heads, deps=deps,
              tags=tags, pos=pos)
    assert rewrite_rules.get("extract-appositive").apply(doc, RuleContext(frozenset(), load_wordnet, inflect)) == []


@pytest.mark.parametrize(("rule", "sentence"), [
    # the possessor may own the coordinated noun too (genitive-to-pp)
    ("genitive-to-pp", "She glanced at her uncle 's broad smiling face and sparkling brown eyes and guessed that Tom "
                       "was teasing ."),
    ("genitive-to-pp", "On my father 's side , my uncle and his family emigrated when he was offered a job ."),  # lineage
    ("particle-shift", "This small smoke alarm will give off a loud beep when it detects smoke ."),  # emit
])
def test_rules_decline_what_fn_cascade_exemplars_ac_showed(nlp, rule, sentence):
    assert _texts(nlp, rule, sentence) == []


@pytest.mark.parametrize(("rule", "sentence"), [
    # the second verb's number is another subject's: "The hotel in Palma are fully equipped" (split-conjoined-vp)
    ("split-conjoined-vp", "The hotel in Palma consists of rooms which sleep 2-3 people , and are fully equipped "
                           "with kitchens and balconies ."),
    # a noun the parser did not make an object stands nearer: the appositive renames "subject", not "aspect"
    # (extract-appositive)
    ("extract-appositive", "In the next talk in our course on physics , we are going to look at one aspect of that "
                           "most baffling and intriguing topic , the birth of stars ."),
])
def test_rules_decline_what_fn_cascade_exemplars_ad_showed(nlp, rule, sentence):
    assert _texts(nlp, rule, sentence) == []


def test_v15_genitive_from_the_fn_ds_s3_judgments(nlp):
    """A list item's first word is often an imperative, which the parser reads into the name after it:
    "the general funds of Guard ACME"; a name after it is moved."""
    assert _texts(nlp, "genitive-to-pp", "7- Guard ACME 's general funds and do not waste these funds .") == []
    assert _texts(nlp, "genitive-to-pp", "7- President Obama 's plan failed .") == [
        "7- the plan of President Obama failed ."]  # a list item's first word that is no verb stays in the name


@pytest.mark.parametrize("sentence", [
    "Local man wins lottery jackpot in Leeds .",  # a bare singular subject with a modifier
    "Tennis star Kovacs fails drug test .",  # and object
    "Apple unveils new phone at Cupertino event .",
    "Kovacs banned for two years after failed test .",  # a passive without "was": Kovacs did not ban
])
def test_no_cleft_of_a_headline(nlp, sentence):
    """it-cleft: a headline drops its articles and auxiliaries, and a cleft of it reads as neither
    ("It is X that fails drug test"; WNUT17, re-written here)."""
    assert _texts(nlp, "it-cleft", sentence) == []


def test_cleft_of_a_sentence_beside_a_headline(nlp):
    assert _texts(nlp, "it-cleft", "Anna Berg sold her old car to a dealer .") == [
        "It was Anna Berg that sold her old car to a dealer ."]
    assert _texts(nlp, "it-cleft", "The committee banned the old car .") == [
        "It was the committee that banned the old car ."]
    # with an article in the sentence, a past verb alone and a bare noun are ordinary English
    assert _texts(nlp, "it-cleft", "The show opened at a small theatre in Leeds .") == [
        "It was the show that opened at a small theatre in Leeds ."]
    assert _texts(nlp, "it-cleft", "The farmers had free rein in the valley .") == [
        "It was the farmers that had free rein in the valley ."]


def test_move_leading_adverbial_puts_no_pronoun_before_its_noun(nlp):
    """move-leading-adverbial: "If a dog …, its owner …" moved behind would put "its" before "a dog"
    (a judged WNUT17 output's pattern, re-written). A pronoun the phrase repeats moves."""
    assert _texts(nlp, "move-leading-adverbial", "If a dog barks during the night in Leeds , its owner may be "
                  "fined .") == []
    assert _texts(nlp, "move-leading-adverbial", "Because she did n't know the rules , she died .") == [
        "She died, because she did n't know the rules."]
    assert _texts(nlp, "move-leading-adverbial", "Because the storm hit Leeds , we stayed inside .") == [
        "We stayed inside, because the storm hit Leeds."]
    # "he" stands for no time: the phrase moves
    assert _texts(nlp, "move-leading-adverbial", "During part of the war , he commanded a small fleet .") == [
        "He commanded a small fleet during part of the war."]


def test_leading_noun_phrase_must_say_when(nlp):
    """_leading: a leading noun phrase that names no date or time is a fragment the parser hung on the
    clause (a weather line; WNUT17, made up); "Last week" still moves and goes."""
    line = "Mostly Cloudy and 55 F at Leeds Airport , UK Winds are Calm ."
    assert _texts(nlp, "move-leading-adverbial", line) == []
    assert _texts(nlp, "delete-leading-modifier", line) == []
    assert _texts(nlp, "move-leading-adverbial", "Last week , the farmer sold the tractor .") == [
        "The farmer sold the tractor last week."]
    assert _texts(nlp, "move-leading-adverbial", "Thanks to a hidden tunnel , the town escaped the fire .") == [
        "The town escaped the fire thanks to a hidden tunnel."]
    assert _texts(nlp, "move-leading-adverbial", "Anna , you are so kind .") == []  # a vocative


def test_a_locator_a_dangling_participle_and_a_full_stop_inside_a_name(nlp):
    """Read in the verified cascade's WikiANN train store (patterns re-written here):
    extract-appositive makes no second name of a place in a work ("Ann Lee was chapter 4");
    extract-participial does not copy a leading participle onto a subject with a possessive,
    which it may be about ("Its museum was founded in 1950"); swap-conjuncts does not move a
    name whose token holds the sentence's full stop ("… Tom Jones Jr. and Mary Smith" without one)."""
    assert _texts(nlp, "extract-appositive", "Written by Ann Lee, chapter 4.") == []
    assert _texts(nlp, "extract-appositive", "The book was written by Ann Lee, a teacher from Leeds.") == [
        "The book was written by Ann Lee. Ann Lee was a teacher from Leeds."]
    assert _texts(nlp, "extract-participial", "Founded in 1950, its museum is located in the old town of Kastel.") == []
    assert _texts(nlp, "extract-participial", "Born in Ohio, his father worked as a miner.") == []
    assert _texts(nlp, "extract-participial", "Founded in 1950, the museum is located in the old town of Kastel.") == [
        "The museum is located in the old town of Kastel. The museum was founded in 1950."]
    assert _texts(nlp, "swap-conjuncts", "The song was written by Mary Smith and Tom Jones Jr.") == []
    assert _texts(nlp, "swap-conjuncts", "He met Ann Lee and John F.") == []
    assert _texts(nlp, "swap-conjuncts", "She bore him two sons: Karl V and Otto II.") == [
        "She bore him two sons: Otto II and Karl V."]


def test_a_shared_object_and_a_possessor_holding_the_full_stop(nlp):
    """Read in the verified cascade's WikiANN train store (patterns re-written here):
    split-conjoined-vp does not split verbs that share the object after the second ("The
    committee discussed. The committee approved the budget."); pp-to-genitive makes no genitive of a
    possessor whose token holds the sentence's full stop ("Tom Jones Jr.'s daughter" without one)."""
    assert _texts(nlp, "split-conjoined-vp", "The committee discussed and approved the budget.") == []
    assert _texts(nlp, "split-conjoined-vp", "The council reviewed and rejected the plan in May.") == []
    assert _texts(nlp, "split-conjoined-vp", "He graduated in 1893 and set up his own firm in Riga.") == [
        "He graduated in 1893. He set up his own firm in Riga."]
    assert _texts(nlp, "pp-to-genitive", "She was the daughter of Tom Jones Jr.") == []
    assert _texts(nlp, "pp-to-genitive", "She was the daughter of Tom Jones.") == ["She was Tom Jones's daughter."]


def test_an_inverted_as_clause_read_as_a_possession_stays(nlp):
    """front-trailing-adverbial: "…, as have many famous singers" is an inverted clause whose verb
    stands for the clause before it, though the parser reads "have" as owning the singers; fronted,
    it comes before what it stands for (WikiANN dev, read; re-written). An ordinary "as" clause moves."""
    assert _texts(nlp, "front-trailing-adverbial",
                  "The city orchestra often performs there, as have many famous singers.") == []
    assert _texts(nlp, "front-trailing-adverbial", "He left the party early, as he had planned.") == [
        "As he had planned, he left the party early."]
