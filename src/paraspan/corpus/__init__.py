"""Corpus schema, validation, and readers/writers per format."""

from __future__ import annotations

from paraspan.corpus.schema import KINDS, Sentence, Span, Structure

__all__ = ["KINDS", "Sentence", "Span", "Structure"]
