"""Span alignment: carry a span of a sentence over to its paraphrase (Culkin et al. 2021, §4).

Given a sentence S, a span s of S and a paraphrase S', find the span of S' that means what s
means, or say there is none. Three aligners share one interface (:class:`Aligner`):

* ``discriminative`` — a frozen encoder reads ``[CLS] S [SEP] S' [SEP]``; a small trained
  scorer rates every target span within k words of the source span's length (the head ships
  in ``align/data``; ``paraspan train-aligner`` rebuilds it);
* ``ibm2`` — fast_align-style IBM Model 2 both ways, grow-diag-final-and, span hull;
* ``argmax`` — cosine argmax over candidate spans of separately encoded sentences (SimAlign).

    from paraspan.align import AlignTask, get_aligner
    aligner = get_aligner("discriminative")
    [result] = aligner.align([AlignTask("1", "I bought a car .", "I purchased an auto .", (2, 8))])
    result.pred  # (2, 11): "purchased"

Predicted spans are scored by :mod:`.scoring` (exact and token-overlap P/R/F1), which training
uses on its held-out slice and ``paraspan evaluate alignment`` shows.

Importing this package is cheap: torch and the encoder load when an aligner is built.
"""

from __future__ import annotations

from paraspan.align.base import Aligner, AlignResult, AlignTask, aligners, get_aligner

__all__ = ["AlignResult", "AlignTask", "Aligner", "aligners", "get_aligner"]
