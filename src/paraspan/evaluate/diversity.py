"""Paraphrastic diversity, as in ParaBank 2 (Hu et al., 2019, §3.6).

Against the source, for every (source, paraphrase) pair:

* **1-BLEU** × 100 (sacrebleu; higher = more different). Reported corpus-level (all pairs of a
  file as one corpus, as the paper scores a system) and as a mean of sentence-level BLEU
  (with exponential smoothing);
* **∩/∪** × 100: bag-of-words intersection over union of the lower-cased words with
  punctuation stripped (lower = more lexically diverse);
* **tree edit distance** between the top 3 levels of the two dependency parses (spaCy; node
  labels are dependency relations, punctuation left out; APTED, unit costs). The paper used
  constituency trees from CoreNLP, so the numbers are comparable in kind, not in value;
* **length ratio**: paraphrase words / source words.

Among the paraphrases of one source (collective diversity): mean pairwise 1-BLEU (both
directions) and ∩/∪.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

_PUNCT_RE = re.compile(r"[^\w\s]|_")

#: Levels of the parse tree compared by :func:`tree_edit_distance` (the root is level 1).
TREE_LEVELS = 3


def bag_of_words(text: str) -> set[str]:
    return set(_PUNCT_RE.sub(" ", text.lower()).split())


def n_words(text: str) -> int:
    return len(_PUNCT_RE.sub(" ", text).split())


def intersection_over_union(a: str, b: str) -> float:
    """|A ∩ B| / |A ∪ B| × 100 over lower-cased, punctuation-stripped word sets."""
    sa, sb = bag_of_words(a), bag_of_words(b)
    union = sa | sb
    return 100.0 * len(sa & sb) / len(union) if union else 100.0


def _sentence_bleu() -> Any:
    from sacrebleu.metrics import BLEU

    return BLEU(effective_order=True)


def one_minus_bleu(hypothesis: str, reference: str, *, bleu: Any = None) -> float:
    """(1 − sentence BLEU) × 100 of ``hypothesis`` against ``reference``."""
    scorer = bleu or _sentence_bleu()
    return 100.0 - scorer.sentence_score(hypothesis, [reference]).score


def corpus_one_minus_bleu(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    from sacrebleu.metrics import BLEU

    if not hypotheses:
        return float("nan")
    return 100.0 - BLEU().corpus_score(list(hypotheses), [list(references)]).score


def length_ratio(paraphrase: str, source: str) -> float:
    return n_words(paraphrase) / max(1, n_words(source))


# ----------------------------------------------------------------------------- trees


@dataclass
class _Node:
    name: str
    children: list[_Node]


def dependency_tree(doc: Doc, levels: int = TREE_LEVELS) -> _Node:
    """The top ``levels`` levels of ``doc``'s parse, labels = dependency relations.

    Every document gets a virtual root above its sentence roots, so that a paraphrase split
    into two sentences is still one tree (the virtual roots always match, at no cost).
    """

    def build(token: Any, depth: int) -> _Node:
        kids = [build(child, depth + 1) for child in token.children
                if child.dep_ != "punct"] if depth < levels else []
        return _Node(token.dep_ or "dep", kids)

    return _Node("DOC", [build(sent.root, 1) for sent in doc.sents])


def tree_edit_distance_docs(a: Doc, b: Doc, levels: int = TREE_LEVELS) -> int:
    from apted import APTED

    return int(APTED(dependency_tree(a, levels), dependency_tree(b, levels)).compute_edit_distance())


def tree_edit_distance(a: str, b: str, nlp: Language | None = None, levels: int = TREE_LEVELS) -> int:
    """Tree edit distance between the top ``levels`` levels of the dependency parses."""
    if nlp is None:
        from paraspan.models.nlp import load_spacy

        nlp = load_spacy(exclude=("ner",))
    return tree_edit_distance_docs(nlp(a), nlp(b), levels)


# ----------------------------------------------------------------------------- reports


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


@dataclass
class DiversityReport:
    sources: int
    pairs: int
    one_minus_bleu: float  # corpus-level
    one_minus_bleu_sentence: float  # mean of sentence-level
    intersection_over_union: float
    tree_edit_distance: float | None
    length_ratio: float
    collective_one_minus_bleu: float
    collective_intersection_over_union: float
    sources_with_two_or_more: int

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            out[key] = round(value, 2) if isinstance(value, float) else value
        return out


def diversity_report(items: Iterable[tuple[str, Sequence[str]]], *, nlp: Language | None = None,
                     trees: bool = True) -> DiversityReport:
    """Metrics over ``(source, paraphrases)`` items (sources without paraphrases are skipped)."""
    bleu = _sentence_bleu()
    hyps: list[str] = []
    refs: list[str] = []
    sentence_div: list[float] = []
    iou: list[float] = []
    ratios: list[float] = []
    ted: list[float] = []
    coll_bleu: list[float] = []
    coll_iou: list[float] = []
    sources = 0
    multi = 0
    if trees and nlp is None:
        from paraspan.models.nlp import load_spacy

        nlp = load_spacy(exclude=("ner",))
    for source, paraphrases in items:
        paraphrases = [p for p in paraphrases if p.strip()]
        if not paraphrases:
            continue
        sources += 1
        source_doc = nlp(source) if trees and nlp is not None else None
        for para in paraphrases:
            hyps.append(para)
            refs.append(source)
            sentence_div.append(one_minus_bleu(para, source, bleu=bleu))
            iou.append(intersection_over_union(para, source))
            ratios.append(length_ratio(para, source))
            if source_doc is not None and nlp is not None:
                ted.append(tree_edit_distance_docs(source_doc, nlp(para)))
        if len(paraphrases) >= 2:
            multi += 1
            # mean over ordered pairs: BLEU is not symmetric
            pair_bleu = [one_minus_bleu(x, y, bleu=bleu) for x, y in itertools.permutations(paraphrases, 2)]
            pair_iou = [intersection_over_union(x, y) for x, y in itertools.combinations(paraphrases, 2)]
            coll_bleu.append(_mean(pair_bleu))
            coll_iou.append(_mean(pair_iou))
    return DiversityReport(
        sources=sources,
        pairs=len(hyps),
        one_minus_bleu=corpus_one_minus_bleu(hyps, refs),
        one_minus_bleu_sentence=_mean(sentence_div),
        intersection_over_union=_mean(iou),
        tree_edit_distance=_mean(ted) if trees else None,
        length_ratio=_mean(ratios),
        collective_one_minus_bleu=_mean(coll_bleu),
        collective_intersection_over_union=_mean(coll_iou),
        sources_with_two_or_more=multi,
    )


def read_paraphrase_file(path: str) -> list[tuple[str, list[str]]]:
    """``(source, paraphrases)`` from a ``paraspan paraphrase`` output file."""
    from paraspan.corpus.jsonl import iter_lines, parse_json
    from paraspan.errors import CorpusError

    items: list[tuple[str, list[str]]] = []
    for number, raw in iter_lines(path):
        data = parse_json(raw, file=path, line=number)
        if not isinstance(data, dict) or not isinstance(data.get("text"), str) \
                or not isinstance(data.get("paraphrases"), list):
            raise CorpusError.from_code("E460", file=path, line=number)
        paras = []
        for item in data["paraphrases"]:
            text = item.get("text") if isinstance(item, dict) else item
            if not isinstance(text, str):
                raise CorpusError.from_code("E461", file=path, line=number)
            paras.append(text)
        items.append((data["text"], paras))
    return items
