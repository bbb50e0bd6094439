"""A small, fast stand-in SRL argument tagger (until the downstream learners exist).

Dependency-based, as in CoNLL-2009: for a given predicate, every other word of its sentence is
classified as the head word of an argument with role R, or as ``O`` — a linear SVM over spaCy
token features and predicate-relative features (the dependency path to the predicate, side,
distance, predicate lemma). An argument span is the head's subtree (contiguous hull, cut at the
predicate). Works for ``srl`` and ``frame`` structures (anything with an anchor and arguments).

The interface is two methods, so a better learner can replace it: ``fit(sentences)`` and
``predict(sentence, structure) -> list[Span]``. Refinement uses :meth:`predict_heads` and
:func:`gold_heads` to compare labellings on the same parse.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.generate.project import doc_heads, doc_tokens, head_of, tokens_in

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

NONE = "O"
ARG_KINDS = ("srl", "frame", "event")


def _chain(token: Token) -> list[Token]:
    chain = [token]
    while chain[-1].head.i != chain[-1].i and len(chain) < 30:
        chain.append(chain[-1].head)
    return chain


def dep_path(t: Token, p: Token, limit: int = 5) -> str:
    """Relations from ``t`` up to the lowest common ancestor, then down to ``p``."""
    up, down = _chain(t), _chain(p)
    down_ids = {x.i: k for k, x in enumerate(down)}
    for k, x in enumerate(up):
        if x.i in down_ids:
            parts = [f"{y.dep_}^" for y in up[:k]] + [f"{y.dep_}v" for y in reversed(down[:down_ids[x.i]])]
            return "/".join(parts) if len(parts) <= limit else f"long{len(parts) > 8}"
    return "none"


def features(t: Token, p: Token) -> list[str]:
    path = dep_path(t, p)
    side = "L" if t.i < p.i else "R"
    dist = min(abs(t.i - p.i), 10)
    return [
        f"w={t.lower_}", f"l={t.lemma_.lower()}", f"pos={t.tag_}", f"dep={t.dep_}", f"path={path}",
        f"path+side={path}|{side}", f"path+pl={path}|{p.lemma_.lower()}", f"pl={p.lemma_.lower()}",
        f"ppos={p.tag_}", f"side={side}", f"dist={dist}", f"dep+side={t.dep_}|{side}", f"hl={t.head.lemma_.lower()}",
        f"child={t.head.i == p.i}", f"w+path={t.lower_}|{path}", f"pos+path={t.tag_}|{path}",
        f"case={next((c.lower_ for c in t.children if c.dep_ in ('case', 'mark')), '-')}",
        f"pvoice={any(c.dep_ == 'auxpass' for c in p.children)}|{path}", f"ent={t.ent_type_}",
        f"pl+dep+side={p.lemma_.lower()}|{t.dep_}|{side}",
    ]


def predicate_token(doc: Doc, structure: Structure) -> int | None:
    if structure.anchor is None:
        return None
    ids = tokens_in(doc_tokens(doc), structure.anchor.start, structure.anchor.end)
    return head_of(doc_heads(doc), ids) if ids else None


def gold_heads(doc: Doc, structure: Structure) -> dict[int, str]:
    """Argument head word → role, on ``doc``'s parse."""
    found: dict[int, str] = {}
    tokens, heads = doc_tokens(doc), doc_heads(doc)
    for arg in structure.args:
        ids = tokens_in(tokens, arg.start, arg.end)
        head = head_of(heads, ids) if ids else None
        if head is not None and arg.label:
            found.setdefault(head, arg.label)
    return found


def head_f1(gold: dict[int, str], pred: dict[int, str]) -> float:
    """Labelled F1 of argument heads; 1.0 when both are empty."""
    if not gold and not pred:
        return 1.0
    hit = sum(1 for i, r in pred.items() if gold.get(i) == r)
    if hit == 0:
        return 0.0
    precision, recall = hit / len(pred), hit / len(gold)
    return 2 * precision * recall / (precision + recall)


class HeadTagger:
    """Argument-head classifier; see the module docstring."""

    def __init__(self, nlp: Language | None = None, *, c: float = 0.1, n_features: int = 2**19) -> None:
        self._nlp = nlp
        self.c = c
        self.n_features = n_features
        self.model: Any = None
        self.hasher: Any = None

    @property
    def nlp(self) -> Language:
        if self._nlp is None:
            from paraspan.models import load_spacy

            self._nlp = load_spacy()
        return self._nlp

    @staticmethod
    def candidates(doc: Doc, pred: int) -> list[Token]:
        sent = doc[pred].sent
        return [t for t in sent if t.i != pred and not t.is_punct and not t.is_space]

    def _examples(self, sentences: Sequence[Sentence], docs: Sequence[Doc]) -> tuple[list[list[str]], list[str]]:
        xs: list[list[str]] = []
        ys: list[str] = []
        for sentence, doc in zip(sentences, docs, strict=True):
            for structure in sentence.structures:
                if structure.kind not in ARG_KINDS:
                    continue
                pred = predicate_token(doc, structure)
                if pred is None:
                    continue
                gold = gold_heads(doc, structure)
                for t in self.candidates(doc, pred):
                    xs.append(features(t, doc[pred]))
                    ys.append(gold.get(t.i, NONE))
        return xs, ys

    def fit(self, sentences: Iterable[Sentence], docs: Iterable[Doc] | None = None) -> HeadTagger:
        from sklearn.feature_extraction import FeatureHasher
        from sklearn.svm import LinearSVC

        sentences = list(sentences)
        docs = list(docs) if docs is not None else list(self.nlp.pipe(s.text for s in sentences))
        xs, ys = self._examples(sentences, docs)
        if len(set(ys)) < 2:
            raise ValueError("the training sentences have no labelled arguments")
        self.hasher = FeatureHasher(n_features=self.n_features, input_type="string", alternate_sign=False)
        self.model = LinearSVC(C=self.c, dual=True, max_iter=3000)
        self.model.fit(self.hasher.transform(xs), ys)
        return self

    def predict_heads(self, doc: Doc, pred: int) -> dict[int, str]:
        if self.model is None:
            raise RuntimeError("fit the tagger first")
        tokens = self.candidates(doc, pred)
        if not tokens:
            return {}
        labels = self.model.predict(self.hasher.transform([features(t, doc[pred]) for t in tokens]))
        return {t.i: str(y) for t, y in zip(tokens, labels, strict=True) if y != NONE}

    def predict(self, sentence: Sentence, structure: Structure, doc: Doc | None = None) -> list[Span]:
        """Labelled argument spans for ``structure``'s predicate in ``sentence``."""
        doc = doc if doc is not None else self.nlp(sentence.text)
        pred = predicate_token(doc, structure)
        if pred is None:
            return []
        spans = []
        for head, label in sorted(self.predict_heads(doc, pred).items()):
            ids = sorted(t.i for t in doc[head].subtree)
            lo, hi = min(ids), max(ids)
            if lo <= pred <= hi:  # cut at the predicate, keeping the head's side
                lo, hi = (pred + 1, hi) if head > pred else (lo, pred - 1)
            spans.append(Span(doc[lo].idx, doc[hi].idx + len(doc[hi].text), label))
        return spans

    def score(self, sentences: Sequence[Sentence], docs: Sequence[Doc]) -> dict[str, float]:
        """Micro-averaged labelled argument-head precision/recall/F1 against the gold."""
        hit = n_pred = n_gold = 0
        for sentence, doc in zip(sentences, docs, strict=True):
            for structure in sentence.structures:
                pred = predicate_token(doc, structure) if structure.kind in ARG_KINDS else None
                if pred is None:
                    continue
                gold, got = gold_heads(doc, structure), self.predict_heads(doc, pred)
                n_gold += len(gold)
                n_pred += len(got)
                hit += sum(1 for i, r in got.items() if gold.get(i) == r)
        p = hit / n_pred if n_pred else 0.0
        r = hit / n_gold if n_gold else 0.0
        return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}
