"""SRL argument labelling given the predicate (the PropBank / frame-SRL argument task).

For each gold predicate (``srl`` structures; ``frame`` structures work the same way with frame
elements as roles), every word is tagged B-role / I-role / O by an MLP over frozen encoder
features: the word's vector, the predicate's vector, their product, a bucketed signed distance
and a predicate flag. Tags are decoded to spans; an argument counts as correct when its token span
and role both match. Arguments that overlap an earlier argument of the same predicate cannot be
written as BIO tags and are left out of training (counted in ``info``); they still count as gold.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paraspan.corpus.conll import decode_tags
from paraspan.corpus.schema import Sentence, Structure
from paraspan.evaluate.downstream.data import Tokenized, Tokenizer
from paraspan.evaluate.downstream.features import FeatureCache
from paraspan.evaluate.downstream.learners import HeadConfig, RunResult, Score, predict_head, train_head

_BUCKETS = (0, 1, 2, 3, 5, 8, 13, 21)  # |distance| thresholds; the sign doubles them
N_DIST = 2 * len(_BUCKETS)


def decode_bio(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """Predicted BIO tags → (first, last, role) spans; a stray I- starts a new span (the corpus
    readers' decoder, in its tolerant ``auto`` scheme)."""
    return decode_tags(tags)


#: Loss weight of B-/I- role tags against O (``HeadConfig.positive_weight``). Chosen by the base
#: learner alone at 10% on held-out documents of the training part (the test split unused), checked
#: at 100%: ``benchmarks/downstream.py --task srl --choose-positive-weight …``, results in
#: ``benchmarks/results/downstream-choices.json``.
POSITIVE_WEIGHT = 4.0


def default_config() -> HeadConfig:
    return HeadConfig(positive_weight=POSITIVE_WEIGHT)


def _bucket(distance: int) -> int:
    b = max(i for i, t in enumerate(_BUCKETS) if abs(distance) >= t)
    return b if distance >= 0 else len(_BUCKETS) + b


@dataclass
class SrlLearner:
    """BIO argument tagger per gold predicate over frozen encoder features."""

    features: FeatureCache
    config: HeadConfig = field(default_factory=default_config)
    kinds: tuple[str, ...] = ("srl", "frame")
    name: str = "srl"
    tokenizer: Tokenizer = field(default_factory=Tokenizer)

    def _predicates(self, tok: Tokenized) -> list[tuple[int, Structure]]:
        out = []
        for structure in tok.sentence.structures:
            if structure.kind in self.kinds and structure.anchor is not None:
                span = tok.token_span(structure.anchor)
                if span is not None:
                    out.append((span[1], structure))  # the anchor's last word stands for it
        return out

    def _gold(self, tok: Tokenized, structure: Structure) -> list[tuple[int, int, str]]:
        out = []
        for arg in structure.args:
            span = tok.token_span(arg)
            if span is not None and arg.label:
                out.append((span[0], span[1], arg.label))
        return out

    def _prepare(self, sentences: Sequence[Sentence]) -> tuple[list[Tokenized], Any, list[int]]:
        import torch

        tokenized = [self.tokenizer(s) for s in sentences]
        vectors = self.features.get([t.words for t in tokenized])
        starts, total = [], 0
        for v in vectors:
            starts.append(total)
            total += len(v)
        dim = vectors[0].shape[1] if vectors else 1
        words = torch.from_numpy(np.concatenate(vectors, axis=0) if total else np.zeros((0, dim), np.float32))
        return tokenized, words, starts

    @staticmethod
    def _input(words: Any, tok: Any, pred: Any, dist: Any) -> Any:
        import torch

        w, p = words[tok], words[pred]
        onehot = torch.nn.functional.one_hot(dist, N_DIST).float()
        flag = (tok == pred).float()[:, None]
        return torch.cat([w, p, w * p, onehot, flag], dim=1)

    def _examples(self, tokenized: list[Tokenized], starts: list[int]) -> tuple[list[int], list[int], list[int],
                                                                                list[tuple[int, int, int]]]:
        toks, preds, dists, owner = [], [], [], []
        for k, (tok, offset) in enumerate(zip(tokenized, starts, strict=True)):
            for p, (head, _) in enumerate(self._predicates(tok)):
                for i in range(len(tok.offsets)):
                    toks.append(offset + i)
                    preds.append(offset + head)
                    dists.append(_bucket(i - head))
                    owner.append((k, p, i))
        return toks, preds, dists, owner

    def run(self, train: Sequence[Sentence], evals: dict[str, Sequence[Sentence]], seed: int) -> RunResult:
        import torch

        started = time.perf_counter()
        tokenized, words, starts = self._prepare(train)
        roles = sorted({label for tok in tokenized for _, s in self._predicates(tok)
                        for *_, label in self._gold(tok, s)})
        tags = ["O"] + [f"{p}-{r}" for r in roles for p in ("B", "I")]
        index = {t: i for i, t in enumerate(tags)}
        toks, preds, dists, owner = self._examples(tokenized, starts)
        labels = np.zeros(len(toks), dtype=np.int64)
        overlapping = 0
        position = {key: n for n, key in enumerate(owner)}
        for k, tok in enumerate(tokenized):
            for p, (_, structure) in enumerate(self._predicates(tok)):
                taken: list[tuple[int, int]] = []
                for a, b, role in self._gold(tok, structure):
                    if any(a <= y and x <= b for x, y in taken):
                        overlapping += 1
                        continue
                    taken.append((a, b))
                    for i in range(a, b + 1):
                        labels[position[(k, p, i)]] = index[f"{'B' if i == a else 'I'}-{role}"]
        tok_t, pred_t, dist_t = (torch.as_tensor(x, dtype=torch.long) for x in (toks, preds, dists))
        in_dim = 3 * words.shape[1] + N_DIST + 1
        model, diverged, losses = train_head(
            lambda idx: self._input(words, tok_t[idx], pred_t[idx], dist_t[idx]),
            labels, np.zeros(len(labels), dtype=np.float32), len(tags), in_dim, seed, self.config)
        result = RunResult(info={"examples": len(labels), "roles": len(roles), "overlapping_args_skipped": overlapping,
                                 "positive_weight": self.config.positive_weight,
                                 "losses": [round(x, 4) for x in losses]})
        if diverged is None and not roles:
            diverged = "no argument in the training data"
        if diverged is not None:
            result.diverged = diverged
        else:
            for eval_name, sentences in evals.items():
                score, unseen, missing = self._score(model, sentences, tags, set(roles))
                result.scores[eval_name] = {**score.to_dict(), "gold_unseen_roles": unseen,
                                            "gold_unseen_labels": sorted(missing)}
        result.seconds = time.perf_counter() - started
        return result

    def _score(self, model: Any, sentences: Sequence[Sentence], tags: list[str],
               known: set[str]) -> tuple[Score, int, set[str]]:
        """The score, how many gold arguments have a role training never showed, and those roles."""
        import torch

        tokenized, words, starts = self._prepare(sentences)
        toks, preds, dists, owner = self._examples(tokenized, starts)
        tok_t, pred_t, dist_t = (torch.as_tensor(x, dtype=torch.long) for x in (toks, preds, dists))
        best, _ = predict_head(model, lambda idx: self._input(words, tok_t[idx], pred_t[idx], dist_t[idx]), len(toks))
        predicted: dict[tuple[int, int], list[str]] = {}
        for n, (k, p, _) in enumerate(owner):
            predicted.setdefault((k, p), []).append(tags[int(best[n])])
        score = Score()
        unseen = 0
        unseen_labels: set[str] = set()
        for k, tok in enumerate(tokenized):
            for p, (_, structure) in enumerate(self._predicates(tok)):
                gold = set(self._gold(tok, structure))
                missing = {role for *_, role in gold if role not in known}
                unseen += sum(1 for *_, role in gold if role in missing)
                unseen_labels |= missing
                score.add(gold, set(decode_bio(predicted.get((k, p), []))))
        return score, unseen, unseen_labels
