"""Training, calibrating and measuring the span-label verifier (:mod:`paraspan.filter.verifier`).

:func:`train_verifier` (``paraspan train-verifier``) turns gold sentences into span instances of
every kind (:func:`paraspan.filter.verifier.spans_of`), capped per label, plus ``NOT_LABEL``
negatives: random word spans that are no gold span of their kind, and gold spans with shifted
boundaries (one word more or less on either side). Frozen encoder features are computed once and
cached; the MLP head is fitted with its scores restricted to each span's open labels, the epoch
chosen on dev; then each kind's acceptance threshold is set on dev so that ``coverage`` (95%) of
gold dev spans are accepted. :func:`evaluate` measures a verifier on held-back sentences: gold
spans accepted, and corrupted ones (a wrong label of the same kind, shifted boundaries) rejected.

A corpus without a dev part is split by document (:func:`document_split`): the document id is the
sentence id without its last ``-NNNN`` / ``:NNNN`` part (or ``meta["doc"]``); crc32(document) mod
10 is 0-5 for train, 6-7 for dev, 8-9 for test. A corpus that is all one document is split by
sentence id the same way.
"""

from __future__ import annotations

import hashlib
import re
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paraspan.errors import ParaspanError
from paraspan.filter.fe_train import cached_array
from paraspan.filter.mlp import train_masked_head
from paraspan.filter.verifier import KINDS, NOT_LABEL, SpanInstance, Verifier, _key, featurize, spans_of

if TYPE_CHECKING:
    from paraspan.corpus.frame_index import FrameIndex
    from paraspan.corpus.schema import Sentence
    from paraspan.models.encoder import Encoder

__all__ = ["MIN_SPANS", "VerifierRecipe", "VerifierReport", "corrupt", "document_of", "document_split", "evaluate",
           "instances", "train_verifier"]

#: the fewest gold train spans (and labels) a verifier is trained from
MIN_SPANS, MIN_LABELS = 40, 2
_WORD = re.compile(r"\S+")
_DOC_TAIL = re.compile(r"[-:_]\d+$")


def _quiet(message: str) -> None:
    """The default log: discard."""


def _stable(*parts: object) -> int:
    return zlib.crc32("\x1f".join(map(str, parts)).encode("utf-8"))


@dataclass(frozen=True)
class VerifierRecipe:
    """How a verifier is trained (the defaults of ``paraspan train-verifier``)."""

    max_per_label: int = 150  # gold spans kept per (kind, label); sampled deterministically
    none_rate: float = 0.25  # random non-spans per gold span
    shift_rate: float = 0.25  # shifted-boundary negatives per gold span
    hidden: int = 256
    epochs: int = 15
    lr: float = 1e-3
    weight_decay: float = 1e-4
    dropout: float = 0.4
    batch_size: int = 256
    coverage: float = 0.95  # share of gold dev spans each kind's threshold accepts
    seed: int = 0


@dataclass
class VerifierReport:
    train_spans: int
    dev_spans: int
    kinds: dict[str, int]
    thresholds: dict[str, float]
    dev: dict[str, dict[str, float]]
    best_epoch: int
    seconds: float
    path: Path
    history: list[dict[str, float]] = field(default_factory=list)


# ----------------------------------------------------------------------------- data


def document_of(sentence: Sentence) -> str:
    doc = sentence.meta.get("doc") or sentence.meta.get("document")
    return str(doc) if doc else _DOC_TAIL.sub("", sentence.id)


def document_split(sentences: Iterable[Sentence]) -> dict[str, list[Sentence]]:
    """train / dev / test parts by document (crc32 of the document id mod 10: 0-5, 6-7, 8-9); a
    corpus that is one document (WikiANN's ``train:N`` ids) is split by sentence id instead."""
    parts: dict[str, list[Sentence]] = {"train": [], "dev": [], "test": []}
    sentences = list(sentences)
    one_document = len({document_of(s) for s in sentences}) == 1
    for sentence in sentences:
        bucket = zlib.crc32((sentence.id if one_document else document_of(sentence)).encode("utf-8")) % 10
        parts["train" if bucket < 6 else "dev" if bucket < 8 else "test"].append(sentence)
    return parts


def _words(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _WORD.finditer(text)]


def shifted(text: str, span: tuple[int, int]) -> list[tuple[int, int]]:
    """The span with one word more or less on either side (the ones that stay non-empty)."""
    words = _words(text)
    inside = [i for i, (a, b) in enumerate(words) if a >= span[0] and b <= span[1]]
    if not inside:
        return []
    first, last = inside[0], inside[-1]
    out = []
    if first > 0:
        out.append((words[first - 1][0], span[1]))
    if last + 1 < len(words):
        out.append((span[0], words[last + 1][1]))
    if last > first:
        out += [(words[first + 1][0], span[1]), (span[0], words[last - 1][1])]
    return out


def _random_span(words: list[tuple[int, int]], taken: set[tuple[int, int]], avoid: tuple[int, int] | None,
                 rng: np.random.Generator, longest: int) -> tuple[int, int] | None:
    for _ in range(8):
        n = int(rng.integers(1, min(longest, len(words)) + 1))
        i = int(rng.integers(0, len(words) - n + 1))
        span = (words[i][0], words[i + n - 1][1])
        if span in taken or (avoid is not None and span[0] < avoid[1] and avoid[0] < span[1]):
            continue
        return span
    return None


def negatives(sentence: Sentence, recipe: VerifierRecipe, seed: int) -> list[SpanInstance]:
    """NOT_LABEL spans of a sentence: shifted gold spans and random word spans, per kind and context."""
    rng = np.random.default_rng([seed, _stable(sentence.id)])
    words = _words(sentence.text)
    gold = list(spans_of(sentence))
    taken: dict[tuple[str, int], set[tuple[int, int]]] = defaultdict(set)
    for k, _, inst in gold:
        taken[inst.kind, k if inst.kind in ("fe", "role") else -1].add(inst.span)
    out: list[SpanInstance] = []
    for k, _, inst in gold:
        group = taken[inst.kind, k if inst.kind in ("fe", "role") else -1]
        for span in shifted(sentence.text, inst.span):
            if rng.random() < recipe.shift_rate / 2 and span not in group:
                out.append(SpanInstance(inst.text, inst.kind, span, inst.anchor, inst.context, NOT_LABEL))
        if len(words) >= 2 and rng.random() < recipe.none_rate:
            random_span = _random_span(words, group, inst.anchor, rng, 2 if inst.kind == "trigger" else 5)
            if random_span is not None:
                out.append(SpanInstance(inst.text, inst.kind, random_span, inst.anchor, inst.context, NOT_LABEL))
    return out


def instances(sentences: Iterable[Sentence], recipe: VerifierRecipe, seed: int, *,
              cap: bool = True) -> list[SpanInstance]:
    """Gold span instances (at most ``max_per_label`` per kind and label when ``cap``) and negatives."""
    kept: list[SpanInstance] = []
    count: Counter[tuple[str, str]] = Counter()
    for sentence in sentences:
        before = len(kept)
        for _, _, inst in spans_of(sentence):
            if not inst.label or inst.span[0] >= inst.span[1]:
                continue
            key = (inst.kind, inst.label)
            if cap and count[key] >= recipe.max_per_label:
                continue
            count[key] += 1
            kept.append(inst)
        if len(kept) > before:  # negatives only from sentences that gave gold spans (keeps the balance)
            kept.extend(negatives(sentence, recipe, seed))
    return kept


def corrupt(inst: SpanInstance, labels: Sequence[str], frame_fes: dict[str, list[str]],
            rng: np.random.Generator) -> str | None:
    """A wrong label of the same kind for a gold span (an FE: another FE of its frame when it has one)."""
    pool = [f for f in frame_fes.get(inst.context, []) if f != inst.label] if inst.kind == "fe" else []
    pool = pool or [lab for lab in labels if lab != inst.label]
    return str(pool[int(rng.integers(0, len(pool)))]) if pool else None


# ----------------------------------------------------------------------------- features and fitting


def cached_features(encoder: Encoder, insts: Sequence[SpanInstance], cache_dir: Path | None, name: str,
                    log: Callable[[str], None] = _quiet) -> np.ndarray:
    """Features of ``insts``, read from / written to ``cache_dir`` (keyed by the instances and the encoder)."""
    digest = hashlib.sha1(str(encoder.resolved.path).encode())
    for inst in insts:
        digest.update(f"{inst.text}\x1f{inst.kind}\x1f{inst.span}\x1f{inst.anchor}\x1f{inst.context}\n".encode())
    path = cache_dir / f"verifier-{name}-{digest.hexdigest()[:16]}.npy" if cache_dir is not None else None
    return cached_array(path, name, lambda progress: featurize(encoder, insts, progress), log, every=10 * 512)


def _masks(verifier: Verifier, insts: Sequence[SpanInstance]) -> np.ndarray:
    out = np.zeros((len(insts), len(verifier.labels)), dtype=bool)
    for row, inst in enumerate(insts):
        out[row, verifier.allowed(inst.kind, inst.context)] = True
    return out


def _accuracy(verifier: Verifier, feats: np.ndarray, insts: Sequence[SpanInstance]) -> float:
    if not insts:
        return 0.0
    preds = verifier.probabilities(feats, insts)
    return float(np.mean([p == i.label for (p, _, _), i in zip(preds, insts, strict=True)]))


def _fit(verifier: Verifier, x_train: np.ndarray, train: Sequence[SpanInstance], x_dev: np.ndarray,
         dev: Sequence[SpanInstance], recipe: VerifierRecipe, log: Callable[[str], None]) -> None:
    import torch

    index = {n: i for i, n in enumerate(verifier.labels)}
    xt = torch.from_numpy((x_train - verifier.mean) / verifier.scale)
    yt = torch.tensor([index[_key(i.kind, i.label or NOT_LABEL)] for i in train], dtype=torch.long)
    mt = torch.from_numpy(_masks(verifier, train))
    mt[torch.arange(len(yt)), yt] = True  # a gold FE its frame's list lacks stays learnable

    def score(net: Any, epoch: int, loss: float) -> float:
        _copy(net, verifier)
        acc = _accuracy(verifier, x_dev, dev)
        verifier.meta.setdefault("history", []).append({"epoch": epoch, "loss": round(loss, 4),
                                                        "dev_accuracy": round(acc, 4)})
        log(f"epoch {epoch}: loss {loss:.3f}, dev accuracy {acc:.3f}")
        return acc

    net, best_epoch = train_masked_head(xt, yt, mt, hidden=recipe.hidden, dropout=recipe.dropout, lr=recipe.lr,
                                        weight_decay=recipe.weight_decay, epochs=recipe.epochs,
                                        batch_size=recipe.batch_size, seed=recipe.seed, score=score)
    _copy(net, verifier)
    verifier.meta["best_epoch"] = best_epoch


def _copy(net: Any, verifier: Verifier) -> None:
    first, last = net[1], net[4]
    verifier.w1 = first.weight.detach().numpy().T.copy()
    verifier.b1 = first.bias.detach().numpy().copy()
    verifier.w2 = last.weight.detach().numpy().T.copy()
    verifier.b2 = last.bias.detach().numpy().copy()


def calibrate(verifier: Verifier, feats: np.ndarray, insts: Sequence[SpanInstance],
              coverage: float) -> dict[str, float]:
    """Per kind, the largest threshold that accepts ``coverage`` of the gold spans' own labels."""
    gold = [(r, i) for r, i in enumerate(insts) if i.label != NOT_LABEL]
    probs = verifier.probabilities(feats[[r for r, _ in gold]], [i for _, i in gold]) if gold else []
    by_kind: dict[str, list[float]] = defaultdict(list)
    for (_, inst), (_, _, p) in zip(gold, probs, strict=True):
        by_kind[inst.kind].append(p)
    return {kind: round(float(np.quantile(ps, 1.0 - coverage, method="lower")), 6) for kind, ps in by_kind.items()}


def train_verifier(train: Sequence[Sentence], dev: Sequence[Sentence], out: str | Path,
                   recipe: VerifierRecipe | None = None, *, frames: FrameIndex | None = None,
                   description: dict[str, Any] | None = None, cache_dir: str | Path | None = None,
                   log: Callable[[str], None] = _quiet) -> VerifierReport:
    """Train a verifier on gold ``train`` sentences, choose the epoch and the thresholds on ``dev``."""

    from paraspan.models import load_encoder

    recipe = recipe or VerifierRecipe()
    started = time.perf_counter()
    cache = Path(cache_dir) if cache_dir is not None else None
    train_insts = instances(train, recipe, recipe.seed)
    gold = [i for i in train_insts if i.label != NOT_LABEL]
    labels = sorted({_key(i.kind, i.label or "") for i in gold})
    if len(gold) < MIN_SPANS or len(labels) < MIN_LABELS:
        raise ParaspanError.from_code("E845", spans=len(gold), labels=len(labels), min_spans=MIN_SPANS,
                                      min_labels=MIN_LABELS)
    dev_insts = instances(dev, recipe, recipe.seed + 1, cap=False)
    if not any(i.label != NOT_LABEL for i in dev_insts):
        raise ParaspanError.from_code("E846", what="the dev sentences have no labelled span")
    counts = Counter(i.kind for i in gold)
    log(f"train: {len(gold):,} gold spans ({dict(counts)}), {len(train_insts) - len(gold):,} NOT_LABEL; "
        f"dev: {len(dev_insts):,} spans")
    encoder = load_encoder(batch_size=64)
    x_train = cached_features(encoder, train_insts, cache, "train", log)
    x_dev = cached_features(encoder, dev_insts, cache, "dev", log)
    frame_fes: dict[str, set[str]] = defaultdict(set)
    for inst in gold:
        if inst.kind == "fe":
            frame_fes[inst.context].add(inst.label or "")
    lexicon: dict[str, list[str]] = {}
    if frames is not None:
        for name, frame in frames.frames.items():
            frame_fes[name].update(frame.fes)
        for frame in frames:
            for lu in getattr(frame, "lus", {}) or {}:
                lexicon.setdefault(str(getattr(lu, "name", lu)), []).append(frame.name)
    verifier = Verifier(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0), x_train.mean(0),
                        x_train.std(0) + 1e-4, [*labels, NOT_LABEL], {},
                        {f: sorted(v) for f, v in sorted(frame_fes.items())}, lexicon)
    verifier.encoder = encoder
    dev_fit = [i for i in dev_insts if i.label == NOT_LABEL or verifier.known(i.kind, i.label or "")]
    x_dev_fit = x_dev[[r for r, i in enumerate(dev_insts) if i.label == NOT_LABEL
                       or verifier.known(i.kind, i.label or "")]]
    _fit(verifier, x_train, train_insts, x_dev_fit, dev_fit, recipe, log)
    verifier.thresholds = calibrate(verifier, x_dev_fit, dev_fit, recipe.coverage)
    for kind in counts:
        verifier.thresholds.setdefault(kind, 0.5)  # a kind dev lacks: the plain majority rule
    log(f"thresholds (accept {recipe.coverage:.0%} of gold dev spans): {verifier.thresholds}")
    dev_scores = evaluate_features(verifier, x_dev_fit, dev_fit)
    verifier.meta.update({"recipe": asdict(recipe), "train_spans": dict(counts),
                          "negatives": len(train_insts) - len(gold), "dev_spans": len(dev_fit),
                          "encoder": encoder.resolved.name, "data": description or {}, "dev": dev_scores,
                          "format": 1})
    path = verifier.save(out)
    return VerifierReport(len(train_insts), len(dev_fit), dict(counts), verifier.thresholds, dev_scores,
                          int(verifier.meta["best_epoch"]), time.perf_counter() - started, path,
                          list(verifier.meta.get("history", [])))


# ----------------------------------------------------------------------------- measuring


def evaluate_features(verifier: Verifier, feats: np.ndarray, insts: Sequence[SpanInstance],
                      seed: int = 7) -> dict[str, dict[str, Any]]:
    """Per kind: gold spans accepted, the same spans with a wrong label rejected, NOT_LABEL spans
    (shifted and random) rejected when claimed as a gold label of the kind."""
    rng = np.random.default_rng(seed)
    gold_rows = [r for r, i in enumerate(insts) if i.label != NOT_LABEL]
    wrong = []
    for r in gold_rows:
        inst = insts[r]
        label = corrupt(inst, verifier.kind_labels(inst.kind), verifier.frame_fes, rng)
        wrong.append(SpanInstance(inst.text, inst.kind, inst.span, inst.anchor, inst.context, label, inst.lu))
    neg_rows = [r for r, i in enumerate(insts) if i.label == NOT_LABEL]
    # a bad span claims the label of the gold span it overlaps most in the same structure (what a
    # projection that got the boundaries wrong would carry), else one of its structure's labels
    golds: dict[tuple[Any, ...], list[SpanInstance]] = defaultdict(list)
    for r in gold_rows:
        inst = insts[r]
        golds[inst.text, inst.kind, inst.context, inst.anchor].append(inst)
    claimed = []
    for r in neg_rows:
        inst = insts[r]
        pool = golds.get((inst.text, inst.kind, inst.context, inst.anchor), [])
        if not pool:
            pool = [insts[g] for g in gold_rows if insts[g].kind == inst.kind][:1] or [inst]
        best = max(pool, key=lambda g: min(g.span[1], inst.span[1]) - max(g.span[0], inst.span[0]))
        claimed.append(SpanInstance(inst.text, inst.kind, inst.span, inst.anchor, inst.context, best.label, best.lu))

    def accepted(rows: list[int], claims: list[SpanInstance], lexicon: bool = True) -> np.ndarray:
        if not rows:
            return np.zeros(0, dtype=bool)
        probs = verifier.probabilities(feats[rows], claims)
        return np.array([p >= verifier.thresholds.get(c.kind, 0.5) and verifier.known(c.kind, c.label or "")
                         and not (lexicon and c.kind == "trigger" and verifier.lexicon_problem(c, c.lu, None))
                         for (_, _, p), c in zip(probs, claims, strict=True)], dtype=bool)

    ok_gold = accepted(gold_rows, [insts[r] for r in gold_rows])
    ok_wrong = accepted(gold_rows, wrong)
    ok_neg = accepted(neg_rows, claimed)
    out: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        g = np.array([insts[r].kind == kind for r in gold_rows], dtype=bool)
        n = np.array([insts[r].kind == kind for r in neg_rows], dtype=bool)
        if not g.any():
            continue
        out[kind] = {"gold_spans": int(g.sum()), "gold_accepted": round(float(ok_gold[g].mean()), 4),
                     "wrong_label_rejected": round(float(1 - ok_wrong[g].mean()), 4),
                     "bad_span_spans": int(n.sum()),
                     "bad_span_rejected": round(float(1 - ok_neg[n].mean()), 4) if n.any() else None}
        if kind == "trigger" and verifier.lexicon:  # what the lexicon adds to the model
            rows = [r for r in gold_rows if insts[r].kind == kind]
            out[kind]["model_only"] = {
                "gold_accepted": round(float(accepted(rows, [insts[r] for r in rows], False).mean()), 4),
                "wrong_label_rejected": round(float(1 - accepted(rows, [w for w, keep in zip(wrong, g, strict=True)
                                                                        if keep], False).mean()), 4)}
    return out


def evaluate(verifier: Verifier, sentences: Sequence[Sentence], *, cache_dir: str | Path | None = None,
             max_per_label: int = 10_000, shifted_only: bool = True, seed: int = 11,
             log: Callable[[str], None] = _quiet) -> dict[str, dict[str, Any]]:
    """Accuracy of ``verifier`` on held-back gold sentences, per kind (see :func:`evaluate_features`);
    the bad-span part uses shifted gold spans only when ``shifted_only``."""
    recipe = VerifierRecipe(max_per_label=max_per_label, none_rate=0.0 if shifted_only else 0.25, shift_rate=0.5)
    insts = [i for i in instances(sentences, recipe, seed)
             if i.label == NOT_LABEL or verifier.known(i.kind, i.label or "")]
    feats = cached_features(verifier.ensure_encoder(), insts, Path(cache_dir) if cache_dir else None, "eval", log)
    return evaluate_features(verifier, feats, insts)
