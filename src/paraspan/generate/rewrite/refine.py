"""Rule refinement: the paper's Algorithm 1, lines 1-18, plus the threshold tuned on dev.

1. Train a base tagger on the gold corpus (:class:`~paraspan.generate.rewrite.tagger.HeadTagger`).
2. Rewrite every gold sentence with every applicable rule, projecting the gold labels.
3. Label each rewrite with the base tagger. A rewrite is *positive* when the tagger's labels on
   it match the projected labels at least as well (labelled argument-head F1, averaged over the
   structures that survived) as its labels on the source match the gold — i.e. the rewrite did
   not make the sentence harder to label, so the rule probably preserved the labels.
4. Train a linear SVM on rule-identity features (one binary feature per rule; C chosen by
   cross-validated ROC AUC, as in the paper) and read one weight per rule.
5. Keep the rules whose weight is above a threshold. The threshold is tuned on dev the paper's
   way: for each candidate, retrain the tagger on gold + the rewrites of the kept rules and
   score it on the dev gold; the best wins (the paper's default, +0.001, is one candidate).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paraspan.corpus.schema import Sentence
from paraspan.generate.rewrite.generator import Rewriter
from paraspan.generate.rewrite.rules import RuleSet
from paraspan.generate.rewrite.tagger import ARG_KINDS, HeadTagger, gold_heads, head_f1, predicate_token

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc


@dataclass
class Sample:
    rule: str
    family: str
    positive: bool
    rewrite: Sentence
    score_rewrite: float
    score_source: float


@dataclass
class RefineResult:
    samples: list[Sample]
    weights: dict[str, float]
    threshold: float
    tuning: list[dict[str, Any]]
    cv: dict[str, dict[str, float]]
    base_dev: dict[str, float]
    counts: Counter = field(default_factory=Counter)
    c: float = 1.0


def _structure_score(tagger: HeadTagger, doc: Doc, structure) -> float | None:
    if structure.kind not in ARG_KINDS:
        return None
    pred = predicate_token(doc, structure)
    if pred is None:
        return None
    return head_f1(gold_heads(doc, structure), tagger.predict_heads(doc, pred))


def label_samples(rewriter: Rewriter, tagger: HeadTagger, sentences: Sequence[Sentence], docs: Sequence[Doc],
                  nlp: Language, progress: Callable[[], None] | None = None) -> list[Sample]:
    """Algorithm 1, lines 5-16: rewrite, label with the base tagger, compare."""
    family = {r.name: r.family for r in rewriter.rules.rules}
    rewrites: list[tuple[Sentence, Sentence, Doc]] = []
    for sentence, doc in zip(sentences, docs, strict=True):
        for rw in rewriter.rewrite_sentence(sentence, doc):
            rewrites.append((sentence, rw, doc))
        if progress is not None:
            progress()
    source_scores: dict[tuple[int, int], float | None] = {}
    samples: list[Sample] = []
    rw_docs = nlp.pipe([rw.text for _, rw, _ in rewrites], batch_size=128)
    for (sentence, rw, doc), rw_doc in zip(rewrites, rw_docs, strict=True):
        got, ref = [], []
        for structure, k in zip(rw.structures, rw.provenance["structures_from"], strict=True):
            score = _structure_score(tagger, rw_doc, structure)
            key = (id(sentence), k)
            if key not in source_scores:
                source_scores[key] = _structure_score(tagger, doc, sentence.structures[k])
            if score is None or source_scores[key] is None:
                continue
            got.append(score)
            ref.append(source_scores[key])
        if not got:
            continue
        s_rw, s_src = sum(got) / len(got), sum(ref) / len(ref)
        rule = rw.provenance["rules"][0]
        samples.append(Sample(rule, family[rule], s_rw >= s_src - 1e-9, rw, s_rw, s_src))
    return samples


def _matrix(samples: Sequence[Sample], names: Sequence[str]):
    from scipy.sparse import csr_matrix

    col = {n: k for k, n in enumerate(names)}
    rows = list(range(len(samples)))
    cols = [col[s.rule] for s in samples]
    return csr_matrix(([1.0] * len(samples), (rows, cols)), shape=(len(samples), len(names)))


def fit_svm(samples: Sequence[Sample], names: Sequence[str], *, seed: int = 0) -> tuple[dict[str, float], float]:
    """Linear SVM on rule identity; C by 5-fold ROC AUC. Returns per-rule weights and C."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import LinearSVC

    x = _matrix(samples, names)
    y = [int(s.positive) for s in samples]
    if len(set(y)) < 2:
        sign = 1.0 if y and y[0] else -1.0
        return {n: sign for n in names}, 1.0
    folds = min(5, min(Counter(y).values()))
    if folds >= 2:
        search = GridSearchCV(LinearSVC(dual=True, max_iter=5000), {"C": [0.01, 0.1, 1.0, 10.0]}, scoring="roc_auc",
                              cv=StratifiedKFold(folds, shuffle=True, random_state=seed))
        search.fit(x, y)
        c = float(search.best_params_["C"])
    else:
        c = 1.0
    model = LinearSVC(C=c, dual=True, max_iter=5000).fit(x, y)
    used = set(s.rule for s in samples)
    # the intercept is shared by all samples; a rule's weight is its coefficient plus the intercept,
    # so that "weight > 0" means "the SVM calls this rule's rewrites positive" (the paper's criterion)
    bias = float(model.intercept_[0])
    return {n: (float(model.coef_[0][k]) + bias if n in used else 0.0) for k, n in enumerate(names)}, c


def cross_validate(samples: Sequence[Sample], names: Sequence[str], c: float, *, seed: int = 0) -> dict[str, float]:
    """Cross-validated F1 (positive class) and ROC AUC of the rule-identity SVM (paper's Table 7)."""
    from sklearn.metrics import f1_score, roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.svm import LinearSVC

    y = [int(s.positive) for s in samples]
    counts = Counter(y)
    out: dict[str, float] = {"samples": len(samples), "positive": counts[1]}
    if len(counts) < 2 or min(counts.values()) < 2:
        return out
    folds = min(5, min(counts.values()))
    cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
    scores = cross_val_predict(LinearSVC(C=c, dual=True, max_iter=5000), _matrix(samples, names), y, cv=cv,
                               method="decision_function")
    out["f1"] = float(f1_score(y, [int(s > 0) for s in scores]))
    out["auc"] = float(roc_auc_score(y, scores))
    out["majority_f1"] = float(f1_score(y, [1] * len(y)))
    return out


def candidate_thresholds(weights: dict[str, float], n: int = 3) -> list[float]:
    """-inf (every rule), quantiles of the applied rules' weights, the paper's +0.001."""
    values = sorted(w for w in weights.values() if w != 0.0)
    found = {-math.inf, 0.001}
    for k in range(1, n + 1):
        if values:
            found.add(values[min(len(values) - 1, int(len(values) * k / (n + 1)))] - 1e-9)
    return sorted(found)


def refine(train: Sequence[Sentence], dev: Sequence[Sentence], rules: RuleSet, *, nlp: Language,
           thresholds: Sequence[float] | None = None, max_per_sentence: int | None = None,
           progress: Callable[[str], Callable[[], None] | None] | None = None, seed: int = 0,
           n_quantiles: int = 3) -> RefineResult:
    """Run the refinement (see the module docstring)."""
    step = progress or (lambda _name: None)
    train_docs = list(nlp.pipe([s.text for s in train], batch_size=128))
    dev_docs = list(nlp.pipe([s.text for s in dev], batch_size=128))
    base = HeadTagger(nlp).fit(train, train_docs)
    base_dev = base.score(dev, dev_docs)
    rewriter = Rewriter(rules, nlp=nlp, max_per_sentence=max_per_sentence)
    samples = label_samples(rewriter, base, train, train_docs, nlp, step("rewrite + label"))
    names = rules.names()
    weights, c = fit_svm(samples, names, seed=seed)
    cv: dict[str, dict[str, float]] = {"all": cross_validate(samples, names, c, seed=seed)}
    for fam in sorted({s.family for s in samples}):
        sub = [s for s in samples if s.family == fam]
        cv[fam] = cross_validate(sub, names, c, seed=seed)
    tuning: list[dict[str, Any]] = [{"threshold": math.inf, "kept": 0, "rewrites": 0, "dev": base_dev}]
    seen_sets: set[frozenset[str]] = {frozenset()}
    tick = step("tune threshold")
    for t in thresholds if thresholds is not None else candidate_thresholds(weights, n_quantiles):
        kept = frozenset(n for n, w in weights.items() if w > t)
        if kept in seen_sets:
            continue
        seen_sets.add(kept)
        extra = [s.rewrite for s in samples if s.rule in kept]
        extra_docs = list(nlp.pipe([s.text for s in extra], batch_size=128))
        tagger = HeadTagger(nlp).fit(list(train) + extra, train_docs + extra_docs)
        tuning.append({"threshold": t, "kept": len(kept), "rewrites": len(extra), "dev": tagger.score(dev, dev_docs)})
        if tick is not None:
            tick()
    best = max(tuning, key=lambda row: (row["dev"]["f1"], -row["kept"]))
    return RefineResult(samples, weights, best["threshold"], tuning, cv, base_dev, Counter(rewriter.counts), c)


def result_to_json(result: RefineResult, rules: RuleSet, *, sources: dict[str, Any]) -> dict[str, Any]:
    applied = Counter(s.rule for s in result.samples)
    positive = Counter(s.rule for s in result.samples if s.positive)
    entries = []
    for rule in rules.rules:
        weight = round(result.weights.get(rule.name, 0.0), 6)
        entry: dict[str, Any] = {"name": rule.name, "kind": rule.kind, "family": rule.family, "version": rule.version,
                                 "description": rule.description, "weight": weight,
                                 "kept": result.weights.get(rule.name, 0.0) > result.threshold,
                                 "applied": applied[rule.name], "positive": positive[rule.name]}
        if rule.count is not None:
            entry["count"] = rule.count
        if rule.pattern is not None:
            entry["pattern"] = rule.pattern
        entries.append(entry)

    def clean(value: float) -> float | str:
        return value if math.isfinite(value) else ("inf" if value > 0 else "-inf")

    return {"format": "paraspan-refined-rules", "version": 1, "threshold": clean(result.threshold),
            "svm_c": result.c, "sources": sources, "base_dev": result.base_dev,
            "tuning": [{**row, "threshold": clean(row["threshold"])} for row in result.tuning],
            "cv": result.cv, "counts": dict(result.counts), "rules": entries}
