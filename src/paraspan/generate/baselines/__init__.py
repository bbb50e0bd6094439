"""The simple baselines users try first, as generators (registered in :data:`~paraspan.generate.base.generators`).

- ``token_replace`` — label-wise token replacement (Dai & Adel 2020, "An Analysis of Simple Data
  Augmentation for Named Entity Recognition", LwTR): every token of a labelled span is replaced,
  with probability ``p``, by a token that has the same label in a donor pool — the same span
  label and, as in BIO tagging, the same position (first token of its span, ``B``, or a later
  one, ``I``).
- ``mention_replace`` — mention replacement (Dai & Adel 2020, MR): every labelled span is
  replaced, with probability ``p``, by another span of the same label from the donor pool; the
  number of tokens may change.
- ``synonym_replace`` — WordNet synonym replacement outside the labelled spans: every content word
  (noun, verb, adjective, adverb in the packaged spaCy parse, as the rewriter's ``synonym`` rule
  reads it) is replaced, with probability ``p``, by a synonym from its most frequent WordNet
  senses, inflected to the word's Penn tag (LemmInflect).
- ``sister_lu`` — sister-LU replacement for FrameNet (Pancholy et al. 2021): the target is
  replaced by another LU of its frame with the same part of speech, inflected like the original
  (:mod:`paraspan.generate.sister_lu`, the step the infill generator uses), without infilling.

What is replaced. The labelled spans are an entity's mention (NER) and the arguments of a
predicate (SRL) or frame (FrameNet FEs); a predicate's or target's anchor is never replaced by
token, mention or synonym replacement. A request for one structure (``request.structure``, as
the pipeline sends) changes that structure's spans only (synonyms: the words outside its spans
and outside every entity mention); a request without one changes every structure's.

Where the labels go. A candidate carries ``structures``: every structure of the source placed
in the new text by the generator itself (the edits are known exactly, so nothing needs
aligning), and, for the token-level baselines, a :class:`~paraspan.generate.base.TokenMapping`
(replaced tokens marked ``changed``; extra words of a longer mention attached to its last
token). The placed structures are what :func:`paraspan.generate.project.place` uses: the mapping
policy drops a structure whose *anchor* was replaced, and an entity's anchor is its mention,
which token and mention replacement do replace. Another structure that an edit breaks (its
predicate replaced, a span cut in the middle) is ``None`` in ``structures``; an argument of
another structure that an edit cuts is left out.

Donor pool (token and mention replacement). With ``donors`` (a corpus file, read with
``donors_format``, by default guessed from the name) the pool is that corpus, and the outputs
depend only on the seed, the request and that corpus: the same run gives the same outputs with
any number of workers. Without it the pool is the sentences the generator has seen, each added
when its first request comes (its own other mentions count): the paper draws from the training
set being augmented, which is what an augmentation run sees, and it needs no second file. It
grows as the run goes, so the first sentences have few donors and an output depends on what its
worker saw before. Draws are weighted by how often a donor occurs and read the pool in sorted
order, so the same pool content gives the same draws whatever order it was filled in.

Randomness. Every request draws from its own ``random.Random`` seeded with the generator's seed
and the request id (never global state): the same seed and request give the same candidates.
Up to ``n`` distinct candidates, each different from the source, are returned; a draw that
changes nothing (every coin came up "keep") is drawn again, a bounded number of times.

Meaning (``Capabilities.keeps_meaning``). Token and mention replacement write other content into
the mentions ("Paris" → "Berlin"): the output is a new sentence, not a paraphrase, and the
meaning check must not compare it with its source (``keeps_meaning=False``). Synonym and
sister-LU replacement keep every labelled span and swap one word for another of the same
meaning (a synonym) or of the same frame (a sister LU): the output should mean what the source
means, and where it does not (a WordNet sense that does not fit; a sister LU that is an antonym,
rise.v → fall.v in Change_position_on_a_scale) that is exactly what the meaning check is there
to catch (``keeps_meaning=True``).

A request with nothing to replace (no labelled span, no donor of the same label, no synonym, no
sister LU) gets no candidates and a note saying why; the pipeline counts it.
"""


from paraspan.generate.baselines.common import CONTENT_POS, DRAWS_PER_CANDIDATE, LU_POS, labelled_spans, tokenize
from paraspan.generate.baselines.donors import (
    DonorPool,
    DonorPoolFactory,
    MentionReplacer,
    TokenReplacer,
    make_mention_replacer,
    make_token_replacer,
)
from paraspan.generate.baselines.lexical import SisterLUReplacer, SynonymReplacer, make_sister_lu, make_synonym_replacer

__all__ = ["CONTENT_POS", "DRAWS_PER_CANDIDATE", "LU_POS", "DonorPool", "DonorPoolFactory", "MentionReplacer",
           "SisterLUReplacer", "SynonymReplacer", "TokenReplacer", "labelled_spans", "make_mention_replacer",
           "make_sister_lu", "make_synonym_replacer", "make_token_replacer", "tokenize"]
