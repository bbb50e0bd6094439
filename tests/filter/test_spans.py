"""The span-shape check: arguments that swallow the anchor or cut a phrase are rejected."""

from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.filter import build_filter
from paraspan.filter.spans import SpanShapeFilter


def _out(text: str, anchor: str, args: list[tuple[str, str]], at: dict[str, int] | None = None) -> Sentence:
    def span(phrase: str, label: str | None) -> Span:
        start = text.index(phrase, (at or {}).get(phrase, 0))
        return Span(start, start + len(phrase), label)

    return Sentence("o", text, [Structure("frame", "F", span(anchor, "x.v"), [span(p, lab) for lab, p in args])],
                    provenance={"structure": 0})


@pytest.fixture(scope="module")
def flt() -> SpanShapeFilter:
    return build_filter("spans")


def test_whole_phrases_pass(flt):
    ok = _out("The children strolled along the river to the old water mill.", "strolled",
              [("Self_mover", "The children"), ("Path", "along the river"), ("Goal", "to the old water mill")])
    assert flt.decide(ok).keep


def test_a_cut_phrase_or_a_swallowed_anchor_is_rejected(flt):
    cut = _out("The children strolled along the river to the old water mill.", "strolled",
               [("Self_mover", "The children"), ("Goal", "to the old")])
    d = flt.decide(cut)
    assert not d.keep and "cut phrase" in d.reason and "Goal 'to the old'" in d.reason
    swallow = _out("The train entered Vienna after dark.", "entered", [("Goal", "entered Vienna")])
    assert "swallows the anchor" in flt.decide(swallow).reason
    preposition = _out("The train reached Vienna late at night.", "reached", [("Time", "late at")])
    assert "lost its object" in flt.decide(preposition).reason


def test_modifiers_of_a_noun_target_are_whole_fes(flt):
    # FrameNet: "our" is the Possessor of the target "system" — a modifier, not a cut phrase
    ok = _out("Some of the critics of our welfare system are here.", "system",
              [("Possessor", "our"), ("Function", "welfare")])
    assert flt.decide(ok).keep


def test_an_overlap_the_source_had_is_allowed(flt):
    source = _out("He gave up smoking.", "gave up", [("Agent", "He"), ("Event", "gave up smoking")])
    output = _out("He gave up cigarettes.", "gave up", [("Agent", "He"), ("Event", "gave up cigarettes")])
    assert flt.decide(output, source).keep
    assert not flt.decide(output).keep  # without the source it cannot tell


def test_a_span_split_by_a_new_sentence_boundary_is_rejected(flt):
    source = _out("He is kind and took the time to help me.", "is",
                  [("ARG1", "He"), ("ARG2", "kind and took the time to help me.")])
    split = _out("He is kind. He took the time to help me.", "is",
                 [("ARG1", "He"), ("ARG2", "kind. He took the time to help me.")])
    d = flt.decide(split, source)
    assert not d.keep and "crosses a sentence boundary" in d.reason
    # an argument moved into the other sentence than its anchor
    source = _out("Wearing a hat, Anna left the party.", "left",
                  [("ARGM-ADV", "Wearing a hat"), ("ARG0", "Anna"), ("ARG1", "the party")])
    moved = _out("Anna left the party. Anna was wearing a hat.", "left",
                 [("ARG0", "Anna"), ("ARG1", "the party"), ("ARGM-ADV", "wearing a hat")])
    d = flt.decide(moved, source)
    assert not d.keep and "another sentence than its anchor" in d.reason
    # a boundary the source span already had is fine; so is a split that keeps each span in its sentence
    source = _out("He said: Go. Now.", "said", [("ARG1", "Go. Now.")])
    assert flt.decide(_out("He said: Go. Now!", "said", [("ARG1", "Go. Now!")]), source).keep
    source = _out("Anna sang and Ben danced.", "danced", [("ARG0", "Ben")])
    assert flt.decide(_out("Anna sang. Ben danced.", "danced", [("ARG0", "Ben")]), source).keep
