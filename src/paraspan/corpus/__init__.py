"""Corpus schema, validation, and readers/writers per format.

:mod:`.schema` (sentences, structures, spans, validation), :mod:`.formats` (the reader and
writer registries), one module per format (:mod:`.jsonl`, :mod:`.framenet` with
:mod:`.frame_index` and :mod:`.phrase_types`, :mod:`.opensesame`, :mod:`.conllu_srl`,
:mod:`.conll2009`, :mod:`.bio`, :mod:`.docbin`; :mod:`.conll` holds what the CoNLL-style ones
share), :mod:`.pairs` (sentence-pair corpora for NLI and paraphrase) and :mod:`.stats`.
"""

from __future__ import annotations

from paraspan.corpus.schema import KINDS, Sentence, Span, Structure

__all__ = ["KINDS", "Sentence", "Span", "Structure"]
