"""Frame identification as in Culkin et al. 2021 §6.3: find trigger spans (≤ 3 tokens) and their frames.

Every span of up to ``max_span`` tokens is classified over the frames seen in training plus NULL.
A span is represented by the frozen encoder's vectors of its first and last word, their mean
over the span, and its length. Gold full-text sentences give positives and negatives (every
other span); exemplar and augmented sentences are partial annotations and give positives only.
Negatives are trained with label smoothing (0.2, as in the paper) because full text misses some
triggers. Prediction keeps the most probable non-NULL spans that do not overlap. A trigger counts
as correct when its token span and frame both match; gold triggers longer than ``max_span``
tokens count as misses.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paraspan.corpus.schema import Sentence
from paraspan.evaluate.downstream.data import Tokenized, Tokenizer, exhaustive
from paraspan.evaluate.downstream.features import FeatureCache
from paraspan.evaluate.downstream.learners import HeadConfig, RunResult, Score, predict_head, train_head

NULL = "NULL"
#: Loss weight of trigger spans against NULL spans (``HeadConfig.positive_weight``). Chosen on
#: FrameNet dev by the base learner alone (gold only, no augmentation) at 10%, checked at 100%:
#: ``benchmarks/downstream.py --task frame_id --choose-positive-weight …``, results in
#: ``benchmarks/results/downstream-choices.json``.
POSITIVE_WEIGHT = 8.0


def default_config() -> HeadConfig:
    return HeadConfig(positive_weight=POSITIVE_WEIGHT)


def _is_punct(word: str) -> bool:
    return not any(ch.isalnum() for ch in word)


@dataclass
class _Bank:
    """All words of a set of sentences as one matrix, with prefix sums for span means."""

    words: Any  # torch (N, dim)
    prefix: Any  # torch (N + 1, dim)
    starts: list[int]

    @classmethod
    def build(cls, vectors: list[np.ndarray], dim: int) -> _Bank:
        import torch

        starts, total = [], 0
        for v in vectors:
            starts.append(total)
            total += len(v)
        words = torch.from_numpy(np.concatenate(vectors, axis=0) if total else np.zeros((0, dim), np.float32))
        prefix = torch.cat([torch.zeros(1, words.shape[1]), words.cumsum(0)])
        return cls(words, prefix, starts)

    def span_input(self, first: Any, last: Any, max_span: int) -> Any:
        import torch

        length = (last - first + 1).clamp(min=1)
        mean = (self.prefix[last + 1] - self.prefix[first]) / length[:, None].float()
        onehot = torch.nn.functional.one_hot((length - 1).clamp(max=max_span - 1), max_span).float()
        return torch.cat([self.words[first], self.words[last], mean, onehot], dim=1)


@dataclass
class FrameIdLearner:
    """Span classifier over frozen encoder features (frames + NULL)."""

    features: FeatureCache
    config: HeadConfig = field(default_factory=default_config)
    max_span: int = 3
    smoothing: float = 0.2
    name: str = "frame_id"
    tokenizer: Tokenizer = field(default_factory=Tokenizer)

    def _prepare(self, sentences: Sequence[Sentence]) -> tuple[list[Tokenized], _Bank]:
        tokenized = [self.tokenizer(s) for s in sentences]
        vectors = self.features.get([t.words for t in tokenized])
        dim = vectors[0].shape[1] if vectors else 1
        return tokenized, _Bank.build(vectors, dim)

    def _candidates(self, tok: Tokenized) -> list[tuple[int, int]]:
        words = tok.words
        return [(i, j) for i in range(len(words)) for j in range(i, min(len(words), i + self.max_span))
                if not _is_punct(words[i]) and not _is_punct(words[j])]

    def gold(self, tok: Tokenized) -> dict[tuple[int, int], str]:
        """Trigger token spans → frame (the first frame when one span evokes two, as in the paper)."""
        out: dict[tuple[int, int], str] = {}
        for structure in tok.sentence.structures:
            if structure.kind != "frame" or structure.anchor is None:
                continue
            span = tok.token_span(structure.anchor)
            if span is not None and span not in out:
                out[span] = structure.label
        return out

    def run(self, train: Sequence[Sentence], evals: dict[str, Sequence[Sentence]], seed: int) -> RunResult:
        import torch

        started = time.perf_counter()
        tokenized, bank = self._prepare(train)
        frames = sorted({label for tok in tokenized for label in self.gold(tok).values()})
        index = {NULL: 0, **{f: i + 1 for i, f in enumerate(frames)}}
        firsts, lasts, labels, smooth = [], [], [], []
        too_long = 0
        for tok, offset in zip(tokenized, bank.starts, strict=True):
            gold = self.gold(tok)
            for (i, j), frame in gold.items():
                if j - i + 1 > self.max_span:
                    too_long += 1
                    continue
                firsts.append(offset + i)
                lasts.append(offset + j)
                labels.append(index[frame])
                smooth.append(0.0)
            if exhaustive(tok.sentence):
                for i, j in self._candidates(tok):
                    if (i, j) not in gold:
                        firsts.append(offset + i)
                        lasts.append(offset + j)
                        labels.append(0)
                        smooth.append(self.smoothing)
        first_t = torch.as_tensor(firsts, dtype=torch.long)
        last_t = torch.as_tensor(lasts, dtype=torch.long)
        in_dim = 3 * bank.words.shape[1] + self.max_span
        model, diverged, losses = train_head(
            lambda idx: bank.span_input(first_t[idx], last_t[idx], self.max_span),
            np.asarray(labels), np.asarray(smooth, dtype=np.float32), len(index), in_dim, seed, self.config)
        n_pos = sum(1 for s in smooth if s == 0.0)
        result = RunResult(info={"examples": len(labels), "positives": n_pos, "frames": len(frames),
                                 "skipped_long_triggers": too_long, "positive_weight": self.config.positive_weight,
                                 "losses": [round(x, 4) for x in losses]})
        if diverged is None and n_pos == 0:
            diverged = "no trigger in the training data"
        if diverged is not None:
            result.diverged = diverged
        else:
            names = [NULL, *frames]
            for eval_name, sentences in evals.items():
                score, unseen, missing = self._score(model, sentences, names, set(frames))
                result.scores[eval_name] = {**score.to_dict(), "gold_unseen_frames": unseen,
                                            "gold_unseen_labels": sorted(missing)}
        result.seconds = time.perf_counter() - started
        return result

    def _score(self, model: Any, sentences: Sequence[Sentence], names: list[str],
               known: set[str]) -> tuple[Score, int, set[str]]:
        """The score, how many gold triggers have a frame training never showed, and those frames."""
        import torch

        tokenized, bank = self._prepare(sentences)
        owner, firsts, lasts = [], [], []
        for k, (tok, offset) in enumerate(zip(tokenized, bank.starts, strict=True)):
            for i, j in self._candidates(tok):
                owner.append(k)
                firsts.append(offset + i)
                lasts.append(offset + j)
        first_t = torch.as_tensor(firsts, dtype=torch.long)
        last_t = torch.as_tensor(lasts, dtype=torch.long)
        best, prob = predict_head(model, lambda idx: bank.span_input(first_t[idx], last_t[idx], self.max_span),
                                  len(firsts))
        chosen: list[list[tuple[float, int, int, str]]] = [[] for _ in tokenized]
        for n in torch.nonzero(best).flatten().tolist():
            k = owner[n]
            start = bank.starts[k]
            chosen[k].append((float(prob[n]), firsts[n] - start, lasts[n] - start, names[int(best[n])]))
        score = Score()
        unseen = 0
        unseen_labels: set[str] = set()
        for tok, candidates in zip(tokenized, chosen, strict=True):
            taken: list[tuple[int, int]] = []
            predicted = set()
            for _, i, j, frame in sorted(candidates, reverse=True):
                if all(j < a or i > b for a, b in taken):
                    taken.append((i, j))
                    predicted.add((i, j, frame))
            gold = {(i, j, frame) for (i, j), frame in self.gold(tok).items()}
            missing = {frame for *_, frame in gold if frame not in known}
            unseen += sum(1 for *_, frame in gold if frame in missing)
            unseen_labels |= missing
            score.add(gold, predicted)
        return score, unseen, unseen_labels
