"""The span-label verifier: "in this sentence, does this span carry this label?", for every span kind.

One model per corpus, generalising the FE classifier (:mod:`paraspan.filter.fe_classifier`, after
Cui & Swayamdipta 2024): the span is marked ``[[ … ]]``, the anchor it depends on ``<< … >>``, and
its context is appended (``… | Commerce sell``); frozen states of the packaged encoder are read
by a small MLP head over every label seen in training plus ``NOT_LABEL``, its scores restricted
to the labels open to the span's kind. Span kinds:

- ``trigger``: a ``frame`` structure's anchor → the frame;
- ``fe``: a ``frame`` structure's argument → the FE, given the frame (context) and the trigger;
- ``role``: an ``srl`` structure's argument → the role, given the predicate and its sense;
- ``entity``: an ``entity`` structure's anchor → the type.

A claimed label is accepted when its probability is at least the kind's threshold, calibrated on
dev so that 95% of gold dev spans pass (:mod:`paraspan.filter.verifier_train`). A FrameNet
verifier also reads the lexicon: a trigger whose lemma FrameNet lists only as an LU of other
frames is rejected with that reason. Files: ``head.npz`` (numpy arrays, no pickles) and
``meta.json`` (labels, thresholds, recipe, data) in one folder; shipped ones are in
``paraspan/filter/data/verifiers/<name>/``. The ``labels`` filter (:func:`labels_filter`) checks
every span of an output with one.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib.resources import as_file, files
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paraspan.errors import ModelError, ParaspanError
from paraspan.filter.base import BaseFilter, FilterDecision
from paraspan.filter.fe_classifier import pool_marked
from paraspan.filter.mlp import MLPHead, softmax

if TYPE_CHECKING:
    from paraspan.corpus.frame_index import FrameIndex
    from paraspan.corpus.schema import Sentence
    from paraspan.models.encoder import Encoder

__all__ = ["KINDS", "NOT_LABEL", "SHIPPED", "LabelsFilter", "SpanCheck", "SpanInstance", "Verifier", "featurize",
           "labels_filter", "mark", "spans_of"]

NOT_LABEL = "NOT_LABEL"
KINDS = ("trigger", "fe", "role", "entity")
SHIPPED = ("framenet15", "ewt-up", "wikiann")
HEAD, META = "head.npz", "meta.json"
SPAN_OPEN, SPAN_CLOSE, ANCHOR_OPEN, ANCHOR_CLOSE = "[[", "]]", "<<", ">>"
WINDOW = 12  # words of context kept on each side of the span and the anchor
_WORD = re.compile(r"\S+")
_N_EXTRA = 3 + len(KINDS)  # position numbers + kind one-hot
_LU_POS = ("v", "n", "a", "adv", "prep", "num", "art", "c", "scon", "intj")


@dataclass(frozen=True)
class SpanInstance:
    """One span to verify: ``span`` and ``anchor`` are character ranges of ``text``; ``context`` is
    the frame (``fe``) or predicate sense (``role``), ``label`` the gold or claimed label."""

    text: str
    kind: str
    span: tuple[int, int]
    anchor: tuple[int, int] | None = None
    context: str = ""
    label: str | None = None
    lu: str | None = None  # a trigger's LU label ("sell.v"): its POS for the lexicon (not a feature)


@dataclass(frozen=True)
class SpanCheck:
    """The verdict on one span: ``probability`` is the claimed label's, ``structure``/``arg`` say
    where it is in the sentence (``arg`` None for an anchor)."""

    kind: str
    span: tuple[int, int]
    text: str
    label: str
    predicted: str | None
    probability: float
    ok: bool
    reason: str
    structure: int = 0
    arg: int | None = None


def spans_of(sentence: Sentence) -> Iterator[tuple[int, int | None, SpanInstance]]:
    """(structure index, arg index or None, instance) for every span a verifier checks."""
    text = sentence.text
    for k, st in enumerate(sentence.structures):
        anchor = (st.anchor.start, st.anchor.end) if st.anchor is not None else None
        if st.kind == "entity" and anchor is not None:
            yield k, None, SpanInstance(text, "entity", anchor, None, "", st.label)
        elif st.kind == "frame":
            if anchor is not None:
                yield k, None, SpanInstance(text, "trigger", anchor, None, "", st.label, st.anchor.label)  # type: ignore[union-attr]
            for j, arg in enumerate(st.args):
                yield k, j, SpanInstance(text, "fe", (arg.start, arg.end), anchor, st.label, arg.label)
        elif st.kind == "srl":
            for j, arg in enumerate(st.args):
                yield k, j, SpanInstance(text, "role", (arg.start, arg.end), anchor, st.label, arg.label)


def span_problem(text: str, span: tuple[int, int]) -> str | None:
    """Why a span cannot be checked (empty, out of range), or None."""
    start, end = span
    if start < 0 or end > len(text) or start > end:
        return f"span {start}-{end} is out of range of the {len(text)}-character text"
    if not text[start:end].strip():
        return f"span {start}-{end} is empty"
    return None


def mark(inst: SpanInstance) -> tuple[str, tuple[int, int], tuple[int, int] | None, tuple[int, int] | None]:
    """The marked text (cut to a window) and the ranges of the span, the anchor and the context in it."""
    text, span, anchor = _window(inst)
    inserts = [(span[0], SPAN_OPEN + " ", 0, "s"), (span[1], " " + SPAN_CLOSE, 1, "s")]
    if anchor is not None:
        inserts += [(anchor[0], ANCHOR_OPEN + " ", 0, "a"), (anchor[1], " " + ANCHOR_CLOSE, 1, "a")]
    out: list[str] = []
    pos = length = 0
    where: dict[tuple[str, int], int] = {}
    for offset, piece, closing, who in sorted(inserts, key=lambda x: (x[0], x[2])):
        out.append(text[pos:offset])
        length += offset - pos
        pos = offset
        out.append(piece)
        where[who, closing] = length + (0 if closing else len(piece))
        length += len(piece)
    out.append(text[pos:])
    marked = "".join(out)
    span_r = (where["s", 0], where["s", 1])
    anchor_r = (where["a", 0], where["a", 1]) if anchor is not None else None
    if not inst.context:
        return marked, span_r, anchor_r, None
    context = inst.context.replace("_", " ")
    start = len(marked) + 3
    return f"{marked} | {context}", span_r, anchor_r, (start, start + len(context))


def _window(inst: SpanInstance) -> tuple[str, tuple[int, int], tuple[int, int] | None]:
    text = inst.text
    lo, hi = inst.span
    if inst.anchor is not None:
        lo, hi = min(lo, inst.anchor[0]), max(hi, inst.anchor[1])
    left = [m.start() for m in _WORD.finditer(text, 0, lo)]
    right = [m.end() for m in _WORD.finditer(text, hi)]
    start = left[-WINDOW] if len(left) > WINDOW else 0
    end = right[WINDOW - 1] if len(right) > WINDOW else len(text)
    anchor = (inst.anchor[0] - start, inst.anchor[1] - start) if inst.anchor is not None else None
    return text[start:end], (inst.span[0] - start, inst.span[1] - start), anchor


def _extra(inst: SpanInstance) -> list[float]:
    fs, fe = inst.span
    words = len(_WORD.findall(inst.text[fs:fe]))
    if inst.anchor is None:
        position = [0.0, 0.0, float(np.log1p(words) / 3.0)]
    else:
        ls, le = inst.anchor
        before = 1.0 if fe <= ls else (-1.0 if fs >= le else 0.0)
        position = [before, float(np.log1p(max(ls - fe, fs - le, 0)) / 5.0), float(np.log1p(words) / 3.0)]
    return position + [1.0 if inst.kind == k else 0.0 for k in KINDS]


def featurize(encoder: Encoder, instances: Sequence[SpanInstance],
              progress: Callable[[int, int], None] | None = None, chunk: int = 512) -> np.ndarray:
    """Feature rows (float32, ``4 * dim + 7``): span mean, span opener, anchor mean, context mean,
    extras — the FE classifier's features (:func:`paraspan.filter.fe_classifier.pool_marked`)."""
    return pool_marked(encoder, instances, mark, _extra, _N_EXTRA, progress, chunk)


def _key(kind: str, label: str) -> str:
    return NOT_LABEL if label == NOT_LABEL else f"{kind}:{label}"


@dataclass
class Verifier(MLPHead):
    """The MLP head, its labels (``kind:label`` and ``NOT_LABEL``), thresholds per kind and metadata."""

    thresholds: dict[str, float] = field(default_factory=dict)
    frame_fes: dict[str, list[str]] = field(default_factory=dict)
    lexicon: dict[str, list[str]] = field(default_factory=dict)  # LU name ("sell.v") -> frames
    meta: dict[str, Any] = field(default_factory=dict)
    encoder: Encoder | None = None
    _index: dict[str, int] = field(default_factory=dict, repr=False)
    _allowed: dict[tuple[str, str], np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index = {name: i for i, name in enumerate(self.labels)}

    # -- what it knows
    @property
    def kinds(self) -> list[str]:
        return [k for k in KINDS if any(lab.startswith(k + ":") for lab in self.labels)]

    def known(self, kind: str, label: str) -> bool:
        return _key(kind, label) in self._index

    def in_schema(self, kind: str, label: str) -> bool:
        """Whether a label belongs to this verifier's schema: seen in training, or (FrameNet) a frame
        or frame element of the release it was built with that training never saw."""
        if self.known(kind, label):
            return True
        if kind == "trigger":
            return label in self.frame_fes
        return kind == "fe" and any(label in fes for fes in self.frame_fes.values())

    def kind_labels(self, kind: str) -> list[str]:
        return [lab.split(":", 1)[1] for lab in self.labels if lab.startswith(kind + ":")]

    def allowed(self, kind: str, context: str = "") -> np.ndarray:
        """Label indices open to a span: its kind's labels (an FE: its frame's FEs) and NOT_LABEL."""
        key = (kind, context if kind == "fe" else "")
        idx = self._allowed.get(key)
        if idx is None:
            names = self.frame_fes.get(context) if kind == "fe" else None
            pool = [f"fe:{n}" for n in names] if names else [lab for lab in self.labels if lab.startswith(kind + ":")]
            idx = np.asarray(sorted({self._index[n] for n in pool if n in self._index} | {self._index[NOT_LABEL]}))
            self._allowed[key] = idx
        return idx

    # -- persistence
    @classmethod
    def load(cls, path: str | Path, *, encoder: Encoder | None = None) -> Verifier:
        """A verifier folder, or the name of a shipped one (``framenet15``, ``ewt-up``, ``wikiann``)."""
        if str(path) in SHIPPED and not Path(path).exists():
            with as_file(files("paraspan.filter") / "data" / "verifiers" / str(path)) as packaged:
                return cls._read(Path(packaged), encoder)
        return cls._read(Path(path), encoder)

    @classmethod
    def _read(cls, folder: Path, encoder: Encoder | None) -> Verifier:
        if not (folder / HEAD).is_file() or not (folder / META).is_file():
            raise ModelError.from_code("E840", path=folder, shipped=", ".join(SHIPPED))
        try:
            with np.load(folder / HEAD, allow_pickle=False) as data:
                arrays = {k: data[k].astype(np.float32) for k in data.files}
            meta = json.loads((folder / META).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelError.from_code("E841", path=folder, exc=exc) from None
        return cls(arrays["w1"], arrays["b1"], arrays["w2"], arrays["b2"], arrays["mean"], arrays["scale"],
                   list(meta["labels"]), dict(meta.get("thresholds", {})), dict(meta.get("frame_fes", {})),
                   dict(meta.get("lexicon", {})), dict(meta.get("info", {})), encoder)

    def save(self, folder: str | Path) -> Path:
        target = Path(folder)
        target.mkdir(parents=True, exist_ok=True)
        # float16 weights: half the size; the probabilities do not move measurably
        np.savez_compressed(target / HEAD, w1=self.w1.astype(np.float16), b1=self.b1, w2=self.w2.astype(np.float16),
                            b2=self.b2, mean=self.mean, scale=self.scale)
        meta = {"labels": self.labels, "thresholds": self.thresholds, "info": self.meta,
                "frame_fes": self.frame_fes, "lexicon": self.lexicon}
        (target / META).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return target

    # -- prediction
    def ensure_encoder(self) -> Encoder:
        if self.encoder is None:
            from paraspan.models import load_encoder

            self.encoder = load_encoder(batch_size=64)
        return self.encoder

    def probabilities(self, features: np.ndarray, instances: Sequence[SpanInstance]) -> list[tuple[str, float, float]]:
        """(predicted label, its probability, the claimed label's probability) per row; a claimed
        label the head does not know has probability 0."""
        logits = self.scores(features)
        out = []
        for row, inst in zip(logits, instances, strict=True):
            idx = self.allowed(inst.kind, inst.context)
            probs = softmax(row[idx])
            best = int(np.argmax(probs))
            name = self.labels[idx[best]]
            claimed = self._index.get(_key(inst.kind, inst.label or ""), -1)
            where = np.flatnonzero(idx == claimed)
            out.append((name.split(":", 1)[-1], float(probs[best]), float(probs[where[0]]) if where.size else 0.0))
        return out

    def lexicon_problem(self, inst: SpanInstance, lu_label: str | None, frames: FrameIndex | None) -> str | None:
        """Why the lexicon rules a trigger's frame out ("lemma 'buy' is an LU of …"), or None."""
        from paraspan.text.lexical_units import anchor_lemma, lu_pos, spelling_variants

        if frames is None and not self.lexicon:
            return None
        pos = lu_pos(lu_label)
        lemma = anchor_lemma(inst.text[inst.span[0]:inst.span[1]], pos)
        if not lemma:
            return None
        listed: set[str] = set()
        for spelling in spelling_variants(lemma):
            for p in (pos,) if pos else _LU_POS:
                name = f"{spelling}.{p}"
                listed.update(frames.frames_of_lu(name) if frames is not None else self.lexicon.get(name, ()))
        if not listed or inst.label in listed:
            return None  # a lemma FrameNet does not list is the model's to judge
        return f"lemma {lemma!r} is an LU of {', '.join(sorted(listed))}, not of {inst.label}"

    def check(self, sentence: Sentence, frames: FrameIndex | None = None) -> list[SpanCheck]:
        return self.check_many([sentence], frames)[0]

    def check_many(self, sentences: Sequence[Sentence], frames: FrameIndex | None = None) -> list[list[SpanCheck]]:
        """Every span of every sentence checked, encoded in one batch."""
        found: list[list[SpanCheck | None]] = []
        todo: list[tuple[int, int, int, int | None, SpanInstance, str | None]] = []
        kinds = self.kinds
        for s, sentence in enumerate(sentences):
            row: list[SpanCheck | None] = []
            for k, j, inst in spans_of(sentence):
                surface = sentence.text[max(inst.span[0], 0):max(inst.span[1], 0)]
                if inst.kind not in kinds:
                    raise ParaspanError.from_code("E842", kind=inst.kind, label=inst.label, have=", ".join(kinds),
                                                  shipped=", ".join(SHIPPED))
                bad = span_problem(sentence.text, inst.span)
                if bad is None and inst.anchor is not None and inst.kind != "trigger":
                    bad = span_problem(sentence.text, inst.anchor) and "its anchor: " + str(
                        span_problem(sentence.text, inst.anchor))
                if bad is None and not self.known(inst.kind, inst.label or ""):
                    bad = f"label {inst.label!r} was never seen in training ({inst.kind})"
                if bad is not None:
                    row.append(SpanCheck(inst.kind, inst.span, surface, inst.label or "", None, 0.0, False, bad, k, j))
                    continue
                todo.append((s, len(row), k, j, inst, self.lexicon_problem(inst, inst.lu, frames)
                             if inst.kind == "trigger" else None))
                row.append(None)
            found.append(row)
        if todo:
            insts = [t[4] for t in todo]
            probs = self.probabilities(featurize(self.ensure_encoder(), insts), insts)
            for (s, pos, k, j, inst, lexical), (pred, p_pred, p_claim) in zip(todo, probs, strict=True):
                tau = self.thresholds.get(inst.kind, 0.5)
                ok = lexical is None and p_claim >= tau
                what = "trigger" if j is None else "arg"
                surface = inst.text[inst.span[0]:inst.span[1]]
                reason = "" if ok else (lexical or f"{what} {surface!r} as {inst.label}: predicted {pred} "
                                                   f"({p_pred:.2f}); {inst.label} {p_claim:.2f} < {tau:.2f}")
                found[s][pos] = SpanCheck(inst.kind, inst.span, surface, inst.label or "", pred, p_claim, ok,
                                          reason, k, j)
        return [[c for c in row if c is not None] for row in found]

    def lacking(self, sentences: Sequence[Sentence]) -> dict[str, list[str]]:
        """Labels of ``sentences`` this verifier has never seen, by kind (kinds it lacks entirely too)."""
        seen: dict[str, Counter[str]] = {}
        for sentence in sentences:
            for _, _, inst in spans_of(sentence):
                seen.setdefault(inst.kind, Counter())[inst.label or ""] += 1
        return {kind: sorted(n for n in names if not self.known(kind, n)) for kind, names in seen.items()
                if any(not self.known(kind, n) for n in names)}

    def require_schema(self, sentences: Sequence[Sentence], name: str = "the verifier") -> None:
        """An error when the data's schema is not this verifier's: a span kind it lacks, or most of
        a kind's labels unknown to it. (A few unseen labels are rejected span by span instead.)"""
        lacking = self.lacking(sentences)
        for kind, missing in lacking.items():
            total = {inst.label for s in sentences for _, _, inst in spans_of(s) if inst.kind == kind}
            if kind not in self.kinds or len(missing) * 2 > len(total):
                raise ParaspanError.from_code("E843", name=name, kind=kind, missing=", ".join(missing[:12]),
                                              count=len(missing), total=len(total), shipped=", ".join(SHIPPED))


# ----------------------------------------------------------------------------- the `labels` filter


class LabelsFilter(BaseFilter):
    """Keep an output iff every span's label is verified; ``counts`` tallies rejections by cause."""

    def __init__(self, verifier: str = "auto", frames: str | None = None, record_as: str | None = None,
                 relative: bool = False) -> None:
        self.name = record_as or "labels"
        self.verifier_spec = verifier
        self.frames_path = frames
        self.relative = relative
        # ``relative``: the gold source's failed spans, by (verifier, source id, text). The chooser shows
        # the check one candidate at a time, so a source would be verified again for each candidate
        self._gold_fails: dict[tuple[int, str, str], frozenset[tuple[str, str, str]]] = {}
        self.counts: Counter[str] = Counter()
        self._loaded: dict[str, Verifier] = {}
        self._frames: FrameIndex | None = None

    def _frame_index(self) -> FrameIndex | None:
        if self.frames_path is not None and self._frames is None:
            from paraspan.corpus.frame_index import FrameIndex

            self._frames = FrameIndex.load(self.frames_path)
        return self._frames

    def verifier_for(self, sentence: Sentence) -> Verifier | None:
        """The verifier named, or (``auto``) the shipped one whose schema holds most of the output's
        labels. A label of that schema the verifier never saw in training (a FrameNet frame without
        annotated examples in full text) is then rejected span by span, not an error; E844 is for
        labels of no shipped schema at all."""
        if self.verifier_spec != "auto":
            return self._get(self.verifier_spec)
        claims = [(inst.kind, inst.label or "") for _, _, inst in spans_of(sentence)]
        if not claims:
            return None
        known = {name: sum(self._get(name).in_schema(kind, label) for kind, label in claims) for name in SHIPPED}
        best = max(SHIPPED, key=lambda name: known[name])
        if not known[best]:
            raise ParaspanError.from_code("E844", labels=", ".join(sorted({f"{k} {lab}" for k, lab in claims})[:8]),
                                          shipped=", ".join(SHIPPED))
        return self._get(best)

    def _excused(self, pairs: Sequence[tuple[Sentence, Sentence | None]], chosen: Sequence[Verifier | None],
                 checked: Sequence[Sequence[SpanCheck]]) -> list[set[tuple[str, str, str]]]:
        """For each output, the failed spans its gold source fails as well, by (kind, label, words): a
        rewrite that kept a span's words and label cannot have made it wrong. A label never seen in
        training is not excused (it is rejected with that reason)."""
        excused: list[set[tuple[str, str, str]]] = [set() for _ in pairs]
        keys: dict[int, tuple[int, str, str]] = {}
        for i, checks in enumerate(checked):
            verifier, source = chosen[i], pairs[i][1]
            if verifier is not None and source is not None and any(not c.ok for c in checks):
                keys[i] = (id(verifier), source.id, source.text)
        if len(self._gold_fails) > 4096:  # a cache for one source's candidates, not for a corpus
            self._gold_fails.clear()
        todo = {key: i for i, key in keys.items() if key not in self._gold_fails}  # one check per source
        for verifier in {id(v): v for i in todo.values() if (v := chosen[i]) is not None}.values():
            found = [(key, source) for key, i in todo.items() if chosen[i] is verifier
                     and (source := pairs[i][1]) is not None]
            for (key, _), source_checks in zip(found, verifier.check_many([s for _, s in found], self._frame_index()),
                                               strict=True):
                self._gold_fails[key] = frozenset((c.kind, c.label, c.text) for c in source_checks
                                                  if not c.ok and "never seen" not in c.reason)
        for i, key in keys.items():
            excused[i] = {(c.kind, c.label, c.text) for c in checked[i] if not c.ok} & self._gold_fails[key]
        return excused

    def _get(self, spec: str) -> Verifier:
        if spec not in self._loaded:
            self._loaded[spec] = Verifier.load(spec)
        return self._loaded[spec]

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        return self.decide_batch([(output, source)])[0]

    def decide_batch(self, pairs: Sequence[tuple[Sentence, Sentence | None]]) -> list[FilterDecision]:
        outputs = [output for output, _ in pairs]
        chosen = [self.verifier_for(output) for output in outputs]
        checked: list[list[SpanCheck]] = [[] for _ in outputs]
        for verifier in {id(v): v for v in chosen if v is not None}.values():  # one encoder pass per verifier
            idx = [i for i, v in enumerate(chosen) if v is verifier]
            for i, checks in zip(idx, verifier.check_many([outputs[i] for i in idx], self._frame_index()),
                                 strict=True):
                checked[i] = checks
        excused = self._excused(pairs, chosen, checked) if self.relative else [set() for _ in checked]
        out: list[FilterDecision] = []
        for checks, free in zip(checked, excused, strict=True):
            failed = [c for c in checks if not c.ok and (c.kind, c.label, c.text) not in free]
            shared = sum(1 for c in checks if not c.ok) - len(failed)
            if shared:
                self.counts["failed on the source too"] += shared
            for c in failed:
                self.counts["unseen label" if "never seen" in c.reason else "bad span" if c.predicted is None
                            else "rejected"] += 1
            score = min((c.probability for c in checks), default=None)
            details = {"spans": len(checks), "failed": len(failed),
                       "checks": [{"kind": c.kind, "span": list(c.span), "label": c.label, "predicted": c.predicted,
                                   "p": round(c.probability, 4), "ok": c.ok} for c in checks]}
            if failed:
                reason = failed[0].reason
            elif shared:
                reason = (f"{len(checks) - shared} of {len(checks)} span labels verified; the verifier fails the "
                          f"other {shared} on the gold source too")
            else:
                reason = f"all {len(checks)} span labels verified"
            out.append(FilterDecision(not failed, score, reason, details))
        return out


def labels_filter(verifier: str = "auto", frames: str | None = None, record_as: str | None = None,
                  relative: bool = False) -> LabelsFilter:
    """Keep outputs whose every span label the span-label verifier accepts (``verifier``: a folder,
    a shipped name, or ``auto`` to pick the shipped one for the output's labels; ``frames``: a
    FrameNet release whose lexicon rules out triggers of other frames). ``relative``: a span the
    verifier also fails on the gold source (the same words, kind and label) does not count against
    the output: that failure is the verifier's, not the rewrite's."""
    return LabelsFilter(verifier, frames, record_as, relative)
