"""Verb alternations that keep every word (family ``reorder``; Levin 1993, §1.4 and §2.1).

- ``particle-shift``: a phrasal verb's particle moves across a short object, either way: "He turned
  off the light." ↔ "He turned the light off."
- ``dative-shift``: a verb of giving changes its double object for a "to" phrase, either way:
  "She gave Anna the keys." ↔ "She gave the keys to Anna."

Where they apply: about 3% of FrameNet exemplar sentences (1,157 of the 39,600 that the connective and
swap rules leave alone, ``benchmarks/generators.py exemplars``); on random exemplar blocks they give 0–4
more structures in 200 a rewrite that carries every span (step ``candidates``). Judged in the cascade
runs fn-cascade-exemplars-l … -o, -alternation and -alternation-b (``benchmarks/README.md``, "Verified
augmentation per generator"): particle-shift 73 of 82 right, dative-shift 14 of 17; every wrong pattern
found is declined now (the lists below).

Spans: every word keeps its token, so a labelled span moves with its words. The "to" of a dative
is a case marker: a new one joins the recipient's argument spans ("[Recipient to Anna]", as
FrameNet and PropBank annotate it); a dropped one leaves the recipient's span without it. A
particle inside an anchor (the target "turned off" of a multiword LU) stays where it is: moved,
the anchor would no longer be one run of words.

What they leave alone, each because the other order is not English or means something else:
pronoun objects ("turned it off", never "turned off it"; "gave it to Anna", never "gave Anna it"),
heavy objects (more than :data:`MAX_OBJECT` words, or holding a clause or a preposition), a "to"
phrase that is a place rather than a recipient ("sent the letter to London" is no "sent London
the letter": a recipient must be a person by its pronoun, spaCy's PERSON or WordNet's
``noun.person``/``noun.group``), and the light-verb uses of "give" ("gave him a call", "give it a
try"), whose prepositional form is not said.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paraspan.generate.rewrite.core import Piece, Rule, RuleContext, contiguous, keep, subtree, tidy
from paraspan.generate.rewrite.core import child as _child
from paraspan.generate.rewrite.core import children as _children

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

#: the most words an object may have to move across a particle or a recipient
MAX_OBJECT = 4
#: particles whose verb alternates ("out of", "up to" are prepositions and do not come here)
_PARTICLES = frozenset({"up", "down", "off", "out", "back", "away", "over", "in", "on", "around", "round", "aside",
                        "apart", "together"})
#: verbs of giving, sending and telling that take both "V NP NP" and "V NP to NP" (Levin 13.1–13.4, 37.4)
_TO_DATIVE = frozenset({"give", "hand", "send", "offer", "show", "lend", "sell", "pass", "teach", "tell", "pay",
                        "owe", "promise", "award", "grant", "bring", "throw", "toss", "mail", "feed", "loan"})
#: of those, the verbs of a change of possession: their "to" phrase names a receiver even when it is an
#: organisation ("gave the money to the school"); with a verb of sending or showing it may be a goal
#: ("sent the boy to school"), so there the receiver must be a person
_POSSESSION = frozenset({"give", "hand", "offer", "lend", "sell", "pay", "owe", "promise", "award", "grant", "loan"})
#: verbs of motion and looking, whose "particle" before a noun is mostly a preposition of place ("looked up
#: the chimney", "ran down the hill")
_MOTION = frozenset({"look", "go", "come", "walk", "run", "climb", "stare", "gaze", "glance", "peer", "move", "fall",
                     "jump", "crawl", "rush", "hurry", "drive", "ride", "sail", "swim", "fly", "head", "slide", "roll",
                     "travel", "wander", "march", "creep", "step", "race", "dash", "float", "glide", "drift", "stroll",
                     "get", "pass", "lean", "reach", "peep", "see", "hang", "lie", "sit", "stand"})
#: what a particle's object may not be (WordNet's most frequent sense): a place, a natural thing or a
#: part of the body reads as the object of a preposition ("blowing off the lake", "dripped down his neck",
#: "turned in her direction"), and the other order is not said
_NOT_PARTICLE_OBJECTS = frozenset({"noun.location", "noun.object", "noun.body"})
#: fixed objects of an idiom: "worked his way up", "bringing up the rear", "turned on his heel"
#: ("took time off": exemplars-alternation-b)
_IDIOM_OBJECTS = frozenset({"way", "rear", "heel", "heels", "tail", "time", "helm",
                            # ways one moves along or off: "turning off the road" (exemplars-y)
                            "road", "street", "path", "track", "lane", "highway", "motorway", "route", "pavement",
                            "trail", "avenue", "railway", "ramp", "slope", "stairs", "ladder", "runway", "bridge"})
#: a particle and the preposition after the object that would read as one with it once the particle
#: follows the object ("lapped every second up to the story-line")
_JOINS = frozenset({("up", "to"), ("out", "of"), ("on", "to"), ("in", "to"), ("off", "of"), ("down", "to")})
#: verbs that take a bare infinitive ("made me try it out", "let us set up the tent"); after any other
#: verb a bare "V prt" is a noun misread ("get the Marco break up video")
_BARE_INFINITIVE_HEADS = frozenset({"make", "let", "have", "help", "see", "hear", "watch", "feel", "notice", "bid",
                                    "observe"})
#: phrasal verbs whose particle stays before a noun object: "take on a matronly look" is no "take a
#: matronly look on"
_NOT_SHIFTED = frozenset({("take", "on"), ("start", "up"), ("come", "up"), ("go", "over"),
                          # "will make up the next book" (constitute) is no "make the next book up" (invent);
                          # "carry on business" (continue) no "carry business on" (exemplars-alternation-b)
                          ("make", "up"), ("carry", "on"),
                          # "keep on the line" (stay on it) is no "keep the line on" (exemplars-t); "hold on",
                          # "hang on" likewise take a preposition's object as often as a particle's
                          ("keep", "on"), ("hold", "on"), ("hang", "on"),
                          # "give off a loud shriek" (emit) is no "give a loud shriek off" (exemplars-ac)
                          ("give", "off"),
                          # "have Mira on" (as a guest) is no "have on Mira" (wear; WNUT17, made up)
                          ("have", "on"), ("have", "over"), ("have", "in"), ("have", "round"), ("have", "around")})
#: nouns that are places or ways, not things handed over: "bring me safe home" is no "bring safe home to me"
_NOT_THEMES = frozenset({"home", "way", "somewhere", "anywhere", "everywhere", "nowhere", "back", "here", "there"})
#: objects of a light "give"/"show" with no prepositional form ("gave him a call" is no "gave a call to him")
_LIGHT_OBJECTS = frozenset({"call", "ring", "try", "go", "chance", "break", "hand", "look", "glance", "smile", "nod",
                            "wink", "kiss", "hug", "push", "shove", "lift", "ride", "thought", "damn", "shot", "hell",
                            "time", "trouble", "impression", "feeling", "creeps", "boot", "sack", "chop", "pleasure",
                            "headache", "fright", "shock", "start", "idea", "clue", "way", "door", "benefit", "rest",
                            "once-over", "piece", "earful", "wide", "berth", "slip", "cold", "shoulder", "what",
                            "attention", "lot", "bit", "deal", "heed", "notice", "regard", "thanks", "birth",
                            # a look or a gesture given to someone: "gave her a scowl" is no "gave a scowl to her"
                            "scowl", "frown", "grin", "wave", "shrug", "stare", "squeeze", "pat", "nudge", "slap",
                            "punch", "thump", "grimace", "sneer", "salute", "cuddle", "beating", "hiding",
                            # a scolding, and "give rise to" (exemplars-alternation-b)
                            "rollicking", "telling-off", "talking-to", "dressing-down", "ticking-off", "rise",
                            # leave to be away: "give you your first leave" (exemplars-aa)
                            "leave"})
_RECIPIENT_PRONOUNS = frozenset({"me", "you", "him", "her", "us", "them", "himself", "herself", "themselves",
                                 "myself", "yourself", "ourselves", "yourselves", "one", "everyone", "everybody",
                                 "someone", "somebody", "anyone", "anybody", "nobody", "others"})
#: WordNet lexicographer files of things that can receive (people, organisations)
_RECIPIENT_LEXNAMES = frozenset({"noun.person", "noun.group"})


def _movable(doc: Doc, ids: list[int], limit: int = MAX_OBJECT) -> bool:
    """A short, plain noun phrase: at most ``limit`` words, one run, no clause, no preposition, no
    punctuation or quotation mark, no coordination (a heavy object stays at the end)."""
    if not contiguous(ids) or len(ids) > limit:
        return False
    return not any(doc[i].pos_ in {"VERB", "AUX", "ADP", "PUNCT", "CCONJ", "SCONJ"} or doc[i].is_quote
                   or doc[i].dep_ in {"relcl", "acl", "conj", "appos"} for i in ids)


def _nominal(token: Token) -> bool:
    """Headed by a noun or a name: a pronoun or a bare demonstrative must stay next to its verb, and
    a bare "-ing" word is a gerund ("gave up smoking" is no "gave smoking up"), whatever its tag."""
    if token.pos_ not in {"NOUN", "PROPN"} or token.tag_ in {"PRP", "WP", "WDT"}:
        return False
    return not (token.lower_.endswith("ing") and not any(c.dep_ in {"det", "poss"} for c in token.children))


def _bare_pair(doc: Doc, noun: Token, prep: Token) -> bool:
    """``noun`` (one word) is followed by ``prep`` and a bare noun: "men at arms", "men of letters"
    (exemplars-q: "calling men in at arms"); the tagger hangs the preposition on the verb, so the
    parse does not tell a name from an adverbial, and neither is moved across."""
    if prep.pos_ != "ADP" or prep.i + 1 >= len(doc):
        return False
    nxt = doc[prep.i + 1]
    return noun.pos_ == "NOUN" and nxt.pos_ == "NOUN" and nxt.dep_ == "pobj" and nxt.head.i == prep.i


def _gapped_clause(doc: Doc, cc: Token) -> bool:
    """Whether ``cc`` opens "and I filmed": a conjunction, a pronoun subject, and a verb with no
    object, complement or phrase of its own, whose object is the noun before ("the clip Nora and I
    filmed"). "and I will cook dinner" has its own."""
    if cc.dep_ != "cc" or cc.i + 1 >= len(doc):
        return False
    subj = doc[cc.i + 1]
    verb = subj.head
    if subj.dep_ != "nsubj" or subj.lower_ not in {"i", "we", "he", "she", "they", "you"} or verb.dep_ != "conj":
        return False
    return not any(c.dep_ in {"dobj", "ccomp", "xcomp", "attr", "acomp", "dative", "prep", "prt", "oprd", "advcl"}
                   for c in verb.children)


def _reduced_relative(doc: Doc, first: Token) -> bool:
    """Whether ``first`` (right after an object) opens a relative clause without "that": a name or
    a pronoun, then a finite verb within three words, no punctuation between ("the clip Nora
    filmed")."""
    if first.pos_ not in {"PROPN", "PRON"}:
        return False
    for t in doc[first.i + 1:first.i + 4]:
        if t.is_punct:
            return False
        if t.tag_ in {"VBD", "VBZ", "VBP", "MD"}:
            return True
    return False


def particle_shift(doc: Doc, ctx: RuleContext) -> list[list[Piece]]:
    """"He turned off the light." ↔ "He turned the light off." (a noun object of at most
    :data:`MAX_OBJECT` words)"""
    out = []
    for p in doc:
        v = p.head
        if p.dep_ != "prt" or p.lower_ not in _PARTICLES or v.pos_ != "VERB" or p.i in ctx.protected:
            continue
        if v.lemma_.lower() in _MOTION or ctx.wordnet is None:
            continue
        if _child(v, "auxpass", "nsubjpass") is not None:
            continue  # a passive has no object: "got kicked out LOL" → "got kicked LOL out" (WNUT17, made up)
        if (v.tag_ == "VB" and v.dep_ == "ccomp" and _child(v, "aux", "mark") is None
                and v.head.lemma_.lower() not in _BARE_INFINITIVE_HEADS):
            continue  # a bare verb where English wants "to", a noun misread: "get the Marco break up video"
            # → "get the Marco break video up" (WNUT17, made up)
        wordnet = ctx.wordnet()
        if not wordnet.synsets(f"{v.lemma_.lower()}_{p.lower_}", pos="v"):
            continue  # not a phrasal verb WordNet knows: "trudged up the road" is a preposition's
        obj = _child(v, "dobj")
        if obj is None or not _nominal(obj) or obj.lemma_.lower() in _IDIOM_OBJECTS:
            continue
        ids = subtree(obj)
        if _child(obj, "preconj") is not None or doc[ids[0]].lower_ in {"not", "both", "either", "neither"}:
            continue  # "not just X but Y", "both X and Y": the second half, often parsed apart, would be cut
            # off from the first ("sets not just a flare off, but a firework"; FrameNet dev, made up)
        senses = wordnet.synsets(obj.lemma_.lower(), pos="n")
        if senses and senses[0].lexname() in _NOT_PARTICLE_OBJECTS:
            continue
        if not _movable(doc, ids) or ids[-1] != obj.i:
            continue  # a word after the noun ("tracking the thugs responsible down") leaves the particle stranded
        if (v.lemma_.lower(), p.lower_) in _NOT_SHIFTED:
            continue
        if v.dep_ == "conj" and v.head.pos_ == "VERB" and v.head.i < v.i and _child(v.head, "dobj") is None:
            continue  # an object shared with the verb before: "to audit and set up the files" → "… set the
            # files up" leaves "audit" without its object (ewt-ds-cascade)
        nxt = doc[p.i + 1] if p.i + 1 < len(doc) else None
        if p.i == v.i + 1 and ids[0] == p.i + 1:  # V prt NP → V NP prt
            after = doc[ids[-1] + 1] if ids[-1] + 1 < len(doc) else None
            if after is not None and (_gapped_clause(doc, after) or _reduced_relative(doc, after)):
                continue  # a relative clause without "that" after the object, misparsed: "Check out the clip
                # Nora and I filmed" → "Check the clip Nora out and I filmed", "Check the clip out Nora
                # filmed" (WNUT17, examples made up)
            if after is not None and (p.lower_, after.lower_) in _JOINS:
                continue
            if len(ids) == 1 and after is not None and _bare_pair(doc, obj, after):
                continue  # a bare noun, a preposition and a bare noun may be one name: "calling in men at arms"
            order = [*range(0, v.i + 1), *ids, p.i, *range(ids[-1] + 1, len(doc))]
        elif ids[0] == v.i + 1 and ids[-1] + 1 == p.i and not (nxt is not None and (
                nxt.lower_ in {"of", "on"} or (p.lower_, nxt.lower_) in _JOINS
                or nxt.pos_ in {"DET", "PRON", "NOUN", "PROPN", "NUM"})):
            # not before "of" or "on" ("took the workers up on their offer" is an idiom; exemplars-alternation-b),
            # nor where the particle and the next word are one preposition ("press a tree on to each corner";
            # exemplars-m), nor before a noun phrase, whose preposition the "particle" is ("clearing all the junk
            # out my flat" → "clearing out all the junk my flat"; WNUT17)
            order = [*range(0, v.i + 1), p.i, *ids, *range(p.i + 1, len(doc))]  # V NP prt → V prt NP
        else:
            continue
        out.append(tidy(doc, keep(doc, order)))
    return out


def _recipient(token: Token, ctx: RuleContext, groups: bool) -> bool:
    """Whether ``token`` names someone who can receive: a personal pronoun, a person's name, or a
    noun for a person (with ``groups``, also an organisation's name or a noun for a group; WordNet's
    most frequent sense)."""
    if token.lower_ in _RECIPIENT_PRONOUNS:
        return True
    if token.pos_ == "PROPN":
        return token.ent_type_ in ({"PERSON", "ORG", "NORP"} if groups else {"PERSON"})
    if token.pos_ != "NOUN" or ctx.wordnet is None:
        return False
    synsets = ctx.wordnet().synsets(token.lemma_.lower(), pos="n")
    return bool(synsets) and synsets[0].lexname() in (_RECIPIENT_LEXNAMES if groups else {"noun.person"})


def dative_shift(doc: Doc, ctx: RuleContext) -> list[list[Piece]]:
    """"She gave Anna the keys." ↔ "She gave the keys to Anna." (verbs of :data:`_TO_DATIVE`, a
    noun theme, a recipient who is a person or a group)"""
    out = []
    for v in doc:
        if v.pos_ != "VERB" or v.lemma_.lower() not in _TO_DATIVE:
            continue
        obj = _child(v, "dobj")
        if len(_children(v, "dobj")) > 1:
            continue  # "Bring us tea -- a pot of tea": an apposition the parser took for a second object (exemplars-s)
        dative = _child(v, "dative") or next((c for c in v.children if c.dep_ == "prep" and c.lower_ == "to"
                                              and obj is not None and c.i > obj.i), None)
        if obj is None or dative is None or not _nominal(obj) or obj.lemma_.lower() in _LIGHT_OBJECTS | _NOT_THEMES:
            continue
        theme = subtree(obj)
        if not _movable(doc, theme, MAX_OBJECT + 1):
            continue
        if dative.pos_ == "ADP":  # V NP to NP → V NP NP
            recipient = _child(dative, "pobj")
            if dative.lower_ != "to" or recipient is None or dative.i in ctx.protected:
                continue
            whom = subtree(recipient)
            if theme[0] != v.i + 1 or theme[-1] + 1 != dative.i or whom[0] != dative.i + 1:
                continue
            after = doc[whom[-1] + 1] if whom[-1] + 1 < len(doc) else None
            if after is not None and after.pos_ == "CCONJ":
                continue  # "attention to Mathilda and how she held …": the "to" phrase goes on
            if (after is not None and recipient.pos_ not in {"PRON", "PROPN"}
                    and (after.pos_ == "ADP" or after.tag_ in {"WP", "WDT"} or after.lower_ == "that")):
                continue  # "sent cards to customers with jobs who …": the phrase after may be the recipient's,
                # and left behind it would modify the theme (exemplars-t)
            possession = v.lemma_.lower() in _POSSESSION
            if not _movable(doc, whom, 3) or not _recipient(recipient, ctx, possession):
                continue
            if not possession and _recipient(obj, ctx, False):
                continue  # a person sent or brought somewhere: "sent the boy to school" is caused motion
            pieces = keep(doc, [*range(0, v.i + 1), *whom, *theme, *range(whom[-1] + 1, len(doc))])
            for piece in pieces:
                if piece.src == recipient.i:
                    piece.absorbs = dative.i  # "[Recipient to Anna]" becomes "[Recipient Anna]", not lost
            out.append(tidy(doc, pieces))
        else:  # V NP NP → V NP to NP
            whom = subtree(dative)
            if whom[0] != v.i + 1 or whom[-1] + 1 != theme[0] or not _movable(doc, whom):
                continue
            if dative.lower_ in {"it", "itself", "this", "that"} or (dative.pos_ != "PRON" and not _nominal(dative)):
                continue
            if any(doc[i].tag_ == "PRP$" and _may_point_to(doc[i], dative) for i in theme):
                continue  # a possessive that pointed back to the recipient would come before it: "lend them
                # their own car" → "lend their own car to them" (a judged WNUT17 output's pattern, made up)
            pieces = (keep(doc, [*range(0, v.i + 1), *theme]) + [Piece("to", attach=dative.i, marker=True)]
                      + keep(doc, [*whom, *range(theme[-1] + 1, len(doc))]))
            out.append(tidy(doc, pieces))
    return out


#: the possessive each object pronoun is referred to by
_POSSESSIVE_OF = {"him": "his", "her": "her", "it": "its", "them": "their"}


def _may_point_to(possessive: Token, recipient: Token) -> bool:
    """Whether a third-person ``possessive`` may refer to ``recipient``: a pronoun recipient only by its own
    possessive ("gives her his ticket" may become "gives his ticket to her"), a noun or a name by any
    (their stands for one person too: "give the customer their receipt")."""
    if possessive.lower_ not in {"his", "her", "its", "their"}:
        return False
    if recipient.pos_ == "PRON":
        return _POSSESSIVE_OF.get(recipient.lower_) == possessive.lower_
    return True


PARTICLE_SHIFT = Rule("particle-shift", "reorder", "hand", particle_shift,
                      description="a phrasal verb's particle moves across its short noun object",
                      example="He turned off the light. → He turned the light off.",
                      # v2: not "make up", "carry on", "take time off", "take X up on" (exemplars-alternation-b);
                      # v3: not "take over the helm", no "on to" split (exemplars-m)
                      # v4: not across a bare noun and a bare prepositional noun ("men at arms"; exemplars-q)
                      # v5: not "keep on", "hold on", "hang on" ("keep on the line"; exemplars-t)
                      # v6: no road, path or other way as object ("turning off the road"; exemplars-y)
                      # v7: not "give off" (exemplars-ac)
                      # v8: not of an object shared with a verb before ("audit and set up X"; ewt-ds-cascade)
                      # v9: no "particle" moved away from a noun phrase after it ("clearing all the junk out
                      # my flat"; WNUT17)
                      # v10: not of a passive ("got kicked out"), nor before a relative clause without "that"
                      # ("Check out the clip Nora filmed"), not "have X on" (WNUT17; examples made up)
                      # v11: not of a bare verb after one that takes "to", a noun misread ("get the Marco
                      # break up video"; WNUT17, made up); not of a correlative object ("not just X but Y";
                      # FrameNet dev)
                      version="11")
DATIVE_SHIFT = Rule("dative-shift", "reorder", "hand", dative_shift,
                    description="a verb of giving trades its double object for a 'to' phrase, or back",
                    example="She gave Anna the keys. → She gave the keys to Anna.",
                    # v2: no theme that is a place or a way ("bring me safe home"; fn-cascade-exemplars-l);
                    # v3: no "give rise to", no scolding given (exemplars-alternation-b)
                    # v4: not where the parse has two objects (an apposition after a dash; exemplars-s)
                    # v5: no "to" phrase with a common noun followed by a phrase that may be its own (exemplars-t)
                    # v6: not "give X leave" (exemplars-aa)
                    # v7: no theme with a third-person possessive moved before the recipient ("lend them their
                    # own car"; WNUT17)
                    # v8: a pronoun recipient only by its own possessive: "gives her his ticket" shifts again
                    version="8")
