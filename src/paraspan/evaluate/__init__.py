"""Evaluation: ``paraspan evaluate alignment|diversity|downstream``.

* :mod:`.alignment` reads prediction files and shows span-alignment scores (the scoring itself is
  :mod:`paraspan.align.scoring`, since training the aligner uses it: imports flow evaluate → align);
* :mod:`.diversity`: 1-BLEU, ∩/∪, tree edit distance and collective diversity of paraphrases;
* :mod:`.downstream`: learning curves of frame identification, SRL and NER with and without
  augmented data.
"""
