"""Hand-written sentences for the rewrite tests (no corpus text)."""

from __future__ import annotations

from paraspan.corpus.schema import Sentence, Span, Structure


def find(text: str, part: str, nth: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(nth + 1):
        start = text.index(part, start + 1)
    return start, start + len(part)


def srl(sid: str, text: str, *preds: tuple[str, str, list[tuple[str, str]]], kind: str = "srl") -> Sentence:
    """``preds``: (sense, predicate word, [(role, argument text), ...])."""
    structures = []
    for sense, word, args in preds:
        a = find(text, word)
        spans = [Span(*find(text, t), label) for label, t in args]
        structures.append(Structure(kind, sense, Span(a[0], a[1], sense.split(".")[0]), spans))
    return Sentence(sid, text, structures)


def entity(sid: str, text: str, *mentions: tuple[str, str]) -> Sentence:
    return Sentence(sid, text, [Structure("entity", label, Span(*find(text, m)), []) for label, m in mentions])


CORPUS = [
    srl("s01", "The cake was eaten by the dog in the kitchen.",
        ("eat.01", "eaten", [("ARG1", "The cake"), ("ARG0", "the dog"), ("ARGM-LOC", "in the kitchen")])),
    srl("s02", "The farmer sold his old tractor to a neighbour in 1998.",
        ("sell.01", "sold", [("ARG0", "The farmer"), ("ARG1", "his old tractor"), ("ARG2", "to a neighbour"),
                             ("ARGM-TMP", "in 1998")])),
    srl("s03", "Mexico City, the biggest city in the world, has many interesting sites.",
        ("have.03", "has", [("ARG0", "Mexico City, the biggest city in the world"),
                            ("ARG1", "many interesting sites")])),
    srl("s04", "The examiner, who was kind, let the student finish his lunch.",
        ("let.01", "let", [("ARG0", "The examiner, who was kind"), ("ARG1", "the student finish his lunch")]),
        ("finish.01", "finish", [("ARG0", "the student"), ("ARG1", "his lunch")])),
    srl("s05", "Because she did not know the rules, she lost the game.",
        ("lose.02", "lost", [("ARGM-CAU", "Because she did not know the rules"), ("ARG0", "she"),
                             ("ARG1", "the game")]),
        ("know.01", "know", [("ARG0", "she"), ("ARGM-NEG", "not"), ("ARG1", "the rules")])),
    srl("s06", "He came home, and she stayed at the office.",
        ("come.01", "came", [("ARG1", "He"), ("ARG4", "home")]),
        ("stay.01", "stayed", [("ARG1", "she"), ("ARGM-LOC", "at the office")])),
    srl("s07", "The arrival of the train was unexpected.",
        ("arrive.01", "arrival", [("ARG1", "of the train")])),
    srl("s08", "In 1998, the company also bought a small factory.",
        ("buy.01", "bought", [("ARGM-TMP", "In 1998"), ("ARG0", "the company"), ("ARGM-DIS", "also"),
                              ("ARG1", "a small factory")])),
    srl("s09", "The teacher quickly answered the question.",
        ("answer.01", "answered", [("ARG0", "The teacher"), ("ARGM-MNR", "quickly"), ("ARG1", "the question")])),
    srl("s10", "The children visited the old museum in the summer.",
        ("visit.01", "visited", [("ARG0", "The children"), ("ARG1", "the old museum"), ("ARGM-TMP", "in the summer")])),
    srl("s11", "The letter was written by my sister.",
        ("write.01", "written", [("ARG1", "The letter"), ("ARG0", "my sister")])),
    srl("s12", "The students read the long book and wrote a short essay.",
        ("read.01", "read", [("ARG0", "The students"), ("ARG1", "the long book")]),
        ("write.01", "wrote", [("ARG0", "The students"), ("ARG1", "a short essay")])),
]
