"""Contextual substitution: the LLM replaces the anchor word in its sentence, nothing else.

The default 1.5B model's sentence paraphrases change the facts or the content words too often for
the checks to pass them, so this generator asks the model for the one thing it does well: a word or
short phrase that can stand for the anchor *in this sentence* (a contextual synonym: Lexical
Substitution, McCarthy & Navigli 2007), sampled with the anchor (and earlier iterations' anchors)
banned. The rest of the sentence is kept character for character, so every span moves with the
new offsets (no aligner); the new anchor's LU is read from a parse by the pipeline. Candidates are
what at least ``min_votes`` samples proposed (a substitute that repeats the word next to it, or a
noun of the other number, does not count), ordered by how often, then by their mean log-probability.

An optional **round trip** (``agreement`` > 0): each candidate's substitute is bracketed in its new
sentence and the model is asked again, with nothing banned; the samples that give the old word back
are its back votes. A substitute and an anchor that mean the same should propose each other
("expected" ↔ "anticipated"), and a narrower, broader or opposite word lead elsewhere (no sample of 12
led from "senate" back to "legislature", from "deny" to "claim", from "plant" to "complex"). A
candidate is kept when it has at least ``min_back_votes`` back votes (default: ``min_votes``) and its
votes and back votes together reach ``agreement`` (8 of 24 with 12 samples). It is off by default:
on structures it was not chosen on it wrote fewer right outputs at 2.5 times the decoding.

Only anchors of the parts of speech in ``pos`` are replaced, verbs by default (``pos="v"``;
``"v,n,a"`` or ``"all"`` for more): a narrower or sister noun names something else
("legislators" → "senators") about half the time, and no WordNet relation tells those apart.
Only frame structures' anchors are replaced by default (``kinds="frame"``; ``"frame,srl"`` asks for
more): an SRL predicate's substitute has only WordNet to vouch for it, whose verb synsets join
"state" and "say", and was judged wrong more often than right.

An anchor whose label has no part of speech (a PropBank roleset, an entity type) gets the part
of speech of its first word in a spaCy parse, so the rule and the verb-form check apply to SRL
predicates too ("it is" → "it are" came through without it). Auxiliaries and copulas (be, have,
do) are not replaced, and a proposal that is another form of the anchor itself ("is" → "was")
does not count.

**Context words** (``targets="anchor,context"``): where no substitute of the anchor gave an output
(the anchor is a noun, a light verb, or its substitutes failed the checks), a verb *outside* every
anchor is replaced instead: one heading a clause, lower-case, not a light or phrasal verb
(:data:`_CONTEXT_SKIP`), not a word the sentence has twice, touching no anchor and no span's edge;
the ``context_words`` best (default 2: ones outside the structure's own spans first, then the root),
the first one's candidates first. A proposal must keep the parse's form of the verb and share a
frame with it in FrameNet's lexicon (:meth:`Substituter.context_fits`; a WordNet synonym in some
sense was not enough). The anchors and labels
stay; a span holding the verb takes the new one. The candidate names the old verb
(``Generated.replaced``), so the ``content`` check takes a WordNet synonym of it and nothing else, and
keeps the anchor (``Generated.keeps_anchor``): the chain's next iteration has the same bans. Asked in a
chain's first iteration only (a later one would pick the replaced verb again). Off by default
(``targets="anchor"``), in the cascade too: context substitutes were judged wrong more often than the
other outputs. The figures behind these defaults are in ``benchmarks/README.md`` ("Measurements
behind the defaults").

An anchor capitalised inside the sentence is part of a name ("the Manhattan Project") and is not
replaced. Whether a substitute means what the anchor meant is also for the ``verified`` check
(``content``: a WordNet synonym, a noun one step above or below, or a verb LU of the same frame,
never an antonym; ``labels``; the NLI relation; fluency).

Registered as ``substitute``.
"""


from paraspan.generate.substitute.generator import (
    INSTRUCTION,
    POS_WORDS,
    SPLIT_MARK,
    SYSTEM_PROMPT,
    Substituter,
    make_substituter,
)
from paraspan.generate.substitute.words import (
    _WORDS,
    BELIEF_VERBS,
    LIGHT_VERBS,
    TARGETS,
    check_anchor,
    fits,
    parse_targets,
    wordnet_synonym,
)

__all__ = ["BELIEF_VERBS", "INSTRUCTION", "LIGHT_VERBS", "POS_WORDS", "SPLIT_MARK", "SYSTEM_PROMPT", "TARGETS",
           "Substituter", "_WORDS", "check_anchor", "fits", "make_substituter", "parse_targets", "wordnet_synonym"]
