"""Learning curves: train on {10, 25, 50, 100}% of the gold data, with and without the augmented
sentences derived from exactly that subset (and the lexical-substitution ablation), over seeds.

Each seed resamples the subset; base, augmented, lexsub and the controls' runs of one seed share
the subset and the model seed, so their differences are paired. The controls: copies of the
outputs' sources (``copy``) and as many held-aside gold sentences (``gold``); with a budget
(:mod:`~paraspan.evaluate.downstream.budget`) the augmented sentences are a fixed share of the full
training set, as in Cui & Swayamdipta's Fig. 2.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paraspan.corpus.schema import Sentence, Structure
from paraspan.evaluate.downstream.augment import Augmenter, PosFn, check_augmented, lexical_substitution
from paraspan.evaluate.downstream.budget import Budget, augment_subset, held_aside_gold
from paraspan.evaluate.downstream.data import sample_subset
from paraspan.evaluate.downstream.learners import Learner, RunResult

CONDITIONS = ("base", "augmented", "lexsub", "copy", "gold")


def paired_stats(base: Sequence[float | None], other: Sequence[float | None]) -> dict[str, Any]:
    """Mean and sd of the per-seed gains (seeds where both ran), and a paired t-test p-value."""
    gains = [o - b for b, o in zip(base, other, strict=False) if b is not None and o is not None]
    out: dict[str, Any] = {"n": len(gains), "gain_mean": None, "gain_sd": None, "p_value": None}
    if not gains:
        return out
    out["gain_mean"] = round(statistics.fmean(gains), 2)
    if len(gains) >= 2:
        sd = statistics.stdev(gains)
        out["gain_sd"] = round(sd, 2)
        if sd > 0:  # (no test of a constant gain)
            from scipy import stats

            paired = [(b, o) for b, o in zip(base, other, strict=False) if b is not None and o is not None]
            test = stats.ttest_rel([o for _, o in paired], [b for b, _ in paired])
            out["p_value"] = round(float(test.pvalue), 4)
    return out


def summary(values: Sequence[float | None]) -> dict[str, float | None]:
    done = [v for v in values if v is not None]
    return {"mean": round(statistics.fmean(done), 2) if done else None,
            "sd": round(statistics.stdev(done), 2) if len(done) >= 2 else None}


def finalize(point: dict[str, Any]) -> dict[str, Any]:
    """(Re)compute a point's per-condition summaries and paired gains from its per-seed lists."""
    point["summary"] = {c: summary(point[c]) for c in CONDITIONS if c in point}
    point["gain"] = {c: paired_stats(point["base"], point[c]) for c in CONDITIONS[1:] if c in point and "base" in point}
    for control in ("copy", "gold"):
        if control in point and "augmented" in point:
            point["gain"][f"augmented_over_{control}"] = paired_stats(point[control], point["augmented"])
    return point


# Per-seed lists of a point (one entry per seed, in the order of ``seeds``).
PER_SEED = ("seeds", "n_train", *CONDITIONS, "n_augmented", "augment_seconds", "n_lexsub", "total_seconds",
            "n_no_output", "augment_report", "unseen_labels", "base_from", "budget", "n_gold")
# Point-level lists of records, each naming its seed where the run said it (``_seed_of``).
PER_RECORD = ("notes", "diverged", "dropped_not_from_subset")
# What a results file records of a curve's learner, data and augmenter: two runs may share a point
# only where these are the same (``setting_differences``).
LEARNER_SETTING = ("dataset", "train_sentences", "eval_sentences", "report", "spacy", "head")
RUN_SETTING = (*LEARNER_SETTING, "augmenter", "filter", "augment_budget")


def setting_differences(old: Mapping[str, Any], new: Mapping[str, Any],
                        keys: Sequence[str] = RUN_SETTING) -> list[str]:
    """What differs between two curves' metas among ``keys``, as ``"key: old there, new here"``.
    ``new`` goes through JSON first, as ``old`` did when it was written (a tuple is a list there)."""
    fresh = json.loads(json.dumps({k: new.get(k) for k in keys}))
    return [f"{k}: {old.get(k)!r} there, {fresh[k]!r} here" for k in keys if old.get(k) != fresh[k]]


def _seed_of(entry: Any) -> int | None:
    """The seed a point-level record names: ``{"seed": N, …}`` or a note ``"seed N: …"``; None for
    records of older runs that did not say."""
    if isinstance(entry, dict) and isinstance(entry.get("seed"), int):
        return entry["seed"]
    if isinstance(entry, str) and entry.startswith("seed "):
        head = entry[5:].split(":", 1)[0]
        return int(head) if head.isdigit() else None
    return None


def _without_seeds(point: dict[str, Any], seeds: set[int]) -> dict[str, Any]:
    """``point`` without the records of ``seeds`` (per-seed lists sliced; point-level records that
    name one of them dropped)."""
    keep = [i for i, s in enumerate(point["seeds"]) if s not in seeds]
    out = {k: v for k, v in point.items() if k not in ("summary", "gain")}
    for key in PER_SEED:
        if key in point:
            out[key] = [point[key][i] for i in keep]
    for key in PER_RECORD:
        if key in point:
            out[key] = [e for e in point[key] if _seed_of(e) not in seeds]
    if "seconds" in point:
        out["seconds"] = {c: [v[i] for i in keep] for c, v in point["seconds"].items()}
    if "other" in point:
        out["other"] = {name: {c: [v[i] for i in keep] for c, v in conds.items()}
                        for name, conds in point["other"].items()}
    return out


def combine_points(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """One point from two runs of the same percent (jobs split by seed, or a seed run again).

    The seeds of ``new`` replace the same seeds of ``old``; the other seeds of ``old`` are kept, and
    per-seed lists are put in seed order. Callers check first that both runs had the same learner,
    data and augmenter (``setting_differences``), so that one point never mixes them.
    """
    if not old.get("seeds") or not new.get("seeds"):
        return new
    old = _without_seeds(old, set(new["seeds"]))
    if not old["seeds"]:
        return new
    out: dict[str, Any] = {}
    order = sorted(range(len(old["seeds"]) + len(new["seeds"])), key=lambda i: (old["seeds"] + new["seeds"])[i])

    def concat(a: list[Any] | None, b: list[Any] | None, n_a: int, n_b: int) -> list[Any]:
        both = (a if a is not None else [None] * n_a) + (b if b is not None else [None] * n_b)
        return [both[i] for i in order]

    n_old, n_new = len(old["seeds"]), len(new["seeds"])
    for key in PER_SEED:
        if key in old or key in new:
            out[key] = concat(old.get(key), new.get(key), n_old, n_new)
    for key in PER_RECORD:
        if key in old or key in new:
            out[key] = old.get(key, []) + new.get(key, [])
    if "seconds" in old or "seconds" in new:
        conditions = set(old.get("seconds", {})) | set(new.get("seconds", {}))
        out["seconds"] = {c: concat(old.get("seconds", {}).get(c), new.get("seconds", {}).get(c), n_old, n_new)
                          for c in sorted(conditions)}
    if "other" in old or "other" in new:
        out["other"] = {}
        for name in sorted(set(old.get("other", {})) | set(new.get("other", {}))):
            a, b = old.get("other", {}).get(name, {}), new.get("other", {}).get(name, {})
            out["other"][name] = {c: concat(a.get(c), b.get(c), n_old, n_new) for c in sorted(set(a) | set(b))}
    return finalize(out)


def unseen_labels(result: RunResult, evals: dict[str, Sequence[Sentence]]) -> dict[str, list[str] | None]:
    """Per evaluation set, the gold labels the run's training data never showed (the learners
    report them as ``gold_unseen_labels``); None where the run has no score (it diverged)."""
    out: dict[str, list[str] | None] = {}
    for name in evals:
        labels = result.scores.get(name, {}).get("gold_unseen_labels")
        out[name] = sorted(labels) if isinstance(labels, (list, tuple, set)) else None
    return out


def copy_of(output: Sentence, source: Sentence) -> Sentence:
    """The copy control's sentence for ``output``: its source's text with the source structures the
    output carries, so that a copy shows the learner the annotations its output shows, no more. A
    pipeline output carries one structure, its chain's (``provenance["structure"]``), while the FrameNet
    full-text sources of the outputs have about nine frames each: copies of the whole annotation added
    about nine times the positives the outputs did (every ``generator:`` augmenter's frame-identification
    copy control until this was fixed, 2026-11-27). Without that index the output's structures are
    matched to the source's by kind and label, each source structure once."""
    def key(structure: Structure) -> tuple[str, str]:
        return structure.kind, structure.label

    k = (output.provenance or {}).get("structure")
    if (isinstance(k, int) and len(output.structures) == 1 and 0 <= k < len(source.structures)
            and key(source.structures[k]) == key(output.structures[0])):
        kept = [source.structures[k]]
    else:
        free = list(source.structures)
        kept = []
        for structure in output.structures:
            match = next((s for s in free if key(s) == key(structure)), None)
            if match is not None:
                free.remove(match)
                kept.append(match)
    return Sentence(f"{output.id}:copy", source.text, kept, dict(source.meta), output.source_id, {"method": "copy"})


@dataclass
class RecordedBase:
    """A gold-only run recorded by an earlier curve of the same learner on the same data (its F1 per
    evaluation set and what it took), reused instead of training it again: the gold-only run of a
    subset and seed does not depend on the augmenter, and the learners are deterministic given the
    seed (the NER learner's WikiANN gold-only F1s of seeds 0–4 at 10% were the same in all seven
    results files that ran them, and seed 0 at 25% trained again gave the same F1)."""

    n_train: int
    result: RunResult
    source: str


def recorded_bases(point: Mapping[str, Any], report: str, source: str) -> dict[int, RecordedBase]:
    """The gold-only runs of one recorded point (a percent of a results file), by seed; a seed whose
    run diverged or left no score is not offered (it is trained again)."""
    out: dict[int, RecordedBase] = {}
    seeds, bases = point.get("seeds") or [], point.get("base") or []
    others = point.get("other") or {}
    for i, seed in enumerate(seeds):
        f1 = bases[i] if i < len(bases) else None
        if f1 is None:
            continue
        unseen = (point.get("unseen_labels") or [None] * len(seeds))[i] or {}
        scores: dict[str, dict[str, Any]] = {report: {"f1": f1, "gold_unseen_labels": unseen.get(report)}}
        for name, conditions in others.items():
            values = conditions.get("base") or []
            if i < len(values) and values[i] is not None:
                scores[name] = {"f1": values[i], "gold_unseen_labels": unseen.get(name)}
        seconds = ((point.get("seconds") or {}).get("base") or [0.0] * len(seeds))[i]
        out[int(seed)] = RecordedBase(int(point["n_train"][i]), RunResult(scores, seconds=float(seconds or 0.0)),
                                      source)
    return out


@dataclass
class CurveConfig:
    percents: Sequence[float] = (10, 25, 50, 100)  # 0.5: 100 of WikiANN's 20,000
    seeds: Sequence[int] = (0, 1, 2)
    report: str = "dev"  # the evaluation set whose F1 fills base/augmented/lexsub
    lexsub: bool = True
    augment: bool = True
    # Control: the augmented outputs' source sentences again, as positives-only copies (same count, the
    # same structures: ``copy_of``), to tell paraphrase diversity apart from merely up-weighting the
    # annotated spans.
    copy_control: bool = False
    # Control (Cui & Swayamdipta, Fig. 2): as many gold sentences as the augmented outputs, drawn from
    # the training set outside the subset (``held_aside_gold``): what the outputs are worth against
    # more real data.
    gold_control: bool = False
    # Augmentation to a budget (``budget.Budget``: a percent of the full training set): the augmenter
    # is given the subset a chunk at a time until its outputs reach the count (``augment_to_budget``).
    augment_budget: Budget | None = None
    # Gold-only runs recorded by an earlier curve of this learner on this data, by (percent, seed):
    # taken instead of trained when the subset size matches (``RecordedBase``); the caller checks that
    # the learner and the data are the same.
    base_runs: Mapping[tuple[int, int], RecordedBase] = field(default_factory=dict)


@dataclass
class Curve:
    """Results by percent, in the shape of ``downstream.json``."""

    task: str
    points: dict[str, dict[str, Any]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)


def curve_meta(train: Sequence[Sentence], evals: Mapping[str, Sequence[Sentence]], config: CurveConfig
               ) -> dict[str, Any]:
    """What a curve records of its data and grid (part of what ``setting_differences`` compares), known
    before any run: so a results file of another setting can be refused before training."""
    meta = {"train_sentences": len(train), "eval_sentences": {k: len(v) for k, v in evals.items()},
            "report": config.report, "seeds": list(config.seeds), "percents": list(config.percents)}
    if config.augment_budget is not None:
        meta["augment_budget"] = config.augment_budget.to_dict(len(train))
    return meta


def _record(point: dict[str, Any], condition: str, result: RunResult | None, report: str, evals: Sequence[str],
            seed: int) -> None:
    """One seed's run of ``condition``; None where it was not run (every per-seed list keeps one
    entry per seed, so that runs stay paired by seed)."""
    point.setdefault(condition, []).append(result.f1(report) if result is not None else None)
    for name in evals:
        if name != report:
            point.setdefault("other", {}).setdefault(name, {}).setdefault(condition, []).append(
                result.f1(name) if result is not None else None)
    point.setdefault("seconds", {}).setdefault(condition, []).append(
        round(result.seconds, 1) if result is not None else None)
    if result is not None and result.diverged is not None:
        point.setdefault("diverged", []).append({"seed": seed, "condition": condition, "reason": result.diverged})


@dataclass
class _SeedRun:
    """One seed of one percent: its gold subset and the runs that share it (paired by seed), each
    recorded in ``point``."""

    learner: Learner
    train: Sequence[Sentence]
    evals: dict[str, Sequence[Sentence]]
    config: CurveConfig
    point: dict[str, Any]
    percent: float
    seed: int
    say: Callable[[str], None]
    subset: list[Sentence] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.percent}% seed {self.seed}"

    def record(self, condition: str, result: RunResult | None) -> None:
        _record(self.point, condition, result, self.config.report, list(self.evals), self.seed)

    def train_with(self, condition: str, extra: list[Sentence], empty: str, what: str) -> None:
        """Train on the subset + ``extra`` as ``condition``; with nothing to add the run would repeat
        the base run, so it is noted instead."""
        if not extra:
            self.record(condition, None)
            self.point.setdefault("notes", []).append(f"seed {self.seed}: empty {empty} set")
            return
        result = self.learner.run(self.subset + extra, self.evals, self.seed)
        self.record(condition, result)
        self.say(f"{self.learner.name} {self.where}: {what} F1 {result.f1(self.config.report)} "
                 f"(+{len(extra)} sentences)")

    def base(self) -> None:
        """The gold-only run: recorded by an earlier curve (``CurveConfig.base_runs``) or trained."""
        config, point = self.config, self.point
        recorded = config.base_runs.get((self.percent, self.seed))
        if recorded is not None and recorded.n_train == len(self.subset):
            base = recorded.result
        else:
            recorded = None
            base = self.learner.run(self.subset, self.evals, self.seed)
        self.record("base", base)
        if config.base_runs:
            point.setdefault("base_from", []).append(recorded.source if recorded is not None else None)
        unseen = unseen_labels(base, self.evals)
        point.setdefault("unseen_labels", []).append(unseen)
        diverged = f" DIVERGED: {base.diverged}" if base.diverged else ""
        missing = unseen.get(config.report)
        self.say(f"{self.learner.name} {self.where}: base F1 {base.f1(config.report)} ({len(self.subset)} sentences, "
                 + (f"recorded in {recorded.source}" if recorded is not None else f"{base.seconds:.0f}s")
                 + (f"; {len(missing)} {config.report} labels absent from the subset" if missing else "")
                 + f"){diverged}")

    def augment(self, augmenter: Augmenter) -> list[Sentence]:
        """The augmenter's outputs for the subset (to the budget, when there is one), with what it
        did recorded; then the augmented run."""
        started, point = time.perf_counter(), self.point
        done = augment_subset(augmenter, self.subset, self.seed, self.config.augment_budget, len(self.train))
        outputs, used, record = done.outputs, done.used, done.record
        if record is not None:
            point.setdefault("budget", []).append(record)
            self.say(f"{self.learner.name} {self.where}: {len(outputs)} outputs of the budget's {record['target']} "
                     f"from {len(used)} of {len(self.subset)} sentences ({record['calls']} call(s)"
                     + ("" if record["reached"] else "; the subset ran out") + ")")
        check_augmented(outputs, f"augmenter output for {self.where}")
        point.setdefault("n_augmented", []).append(len(outputs))
        point.setdefault("augment_seconds", []).append(round(time.perf_counter() - started, 1))
        # sentences with something to augment that got nothing (a generator with nothing to replace)
        point.setdefault("n_no_output", []).append(sum(1 for s in used if s.structures and s.id not in done.derived))
        if callable(getattr(augmenter, "report", None)):
            point.setdefault("augment_report", []).append(done.report)
        if done.dropped:
            point.setdefault("dropped_not_from_subset", []).append({"seed": self.seed, "dropped": done.dropped})
        self.train_with("augmented", outputs, "augmentation", "augmented")
        return outputs

    def copy(self, outputs: list[Sentence]) -> None:
        """The copy control: the outputs' sources again, each with the structures its output carries."""
        if not outputs:  # nothing to copy: no run, but the seed keeps its place
            self.record("copy", None)
            return
        sources = {s.id: s for s in self.subset}
        copies = [copy_of(o, sources[o.source_id or ""]) for o in outputs]
        result = self.learner.run(self.subset + copies, self.evals, self.seed)
        self.record("copy", result)
        self.say(f"{self.learner.name} {self.where}: copy-control F1 {result.f1(self.config.report)}")

    def gold(self, outputs: list[Sentence]) -> None:
        """The held-aside gold control: as many gold sentences as the outputs, from outside the subset."""
        extra = held_aside_gold(self.train, self.subset, len(outputs), self.seed)
        self.point.setdefault("n_gold", []).append(len(extra))
        if len(extra) < len(outputs):
            self.point.setdefault("notes", []).append(
                f"seed {self.seed}: {len(extra)} held-aside gold sentences for {len(outputs)} outputs")
        self.train_with("gold", extra, "held-aside gold", "gold-control")

    def lexsub(self, outputs: list[Sentence], pos: PosFn) -> None:
        lex = lexical_substitution(self.subset, outputs, pos) if outputs else []
        self.point.setdefault("n_lexsub", []).append(len(lex))
        self.train_with("lexsub", lex, "lexical-substitution", "lexsub")


def run_curve(
    learner: Learner,
    train: Sequence[Sentence],
    evals: dict[str, Sequence[Sentence]],
    config: CurveConfig,
    augmenter: Augmenter | None = None,
    pos: PosFn | None = None,
    on_point: Callable[[Curve], None] | None = None,
    progress: Callable[[str], None] | None = None,
) -> Curve:
    """Run the grid; ``on_point`` is called after each percent (to save partial results)."""
    if config.report not in evals:
        raise ValueError(f"report set {config.report!r} is not among the evaluation sets {sorted(evals)}")
    curve = Curve(learner.name, meta=curve_meta(train, evals, config))
    say = progress or (lambda message: None)
    prepare = getattr(augmenter, "prepare", None) if config.augment else None
    if callable(prepare):  # e.g. a pre-made file's sources must be training sentences
        prepare(train)
    for percent in config.percents:
        point: dict[str, Any] = {}
        for seed in config.seeds:
            subset = sample_subset(train, percent, seed)
            run = _SeedRun(learner, train, evals, config, point, percent, seed, say, subset)
            point.setdefault("seeds", []).append(seed)
            point.setdefault("n_train", []).append(len(run.subset))
            started = time.perf_counter()
            run.base()
            if not config.augment or augmenter is None:
                continue
            outputs = run.augment(augmenter)
            if config.copy_control:
                run.copy(outputs)
            if config.gold_control:
                run.gold(outputs)
            if config.lexsub and pos is not None:
                run.lexsub(outputs, pos)
            point.setdefault("total_seconds", []).append(round(time.perf_counter() - started, 1))
        curve.points[str(percent)] = finalize(point)
        if on_point is not None:
            on_point(curve)
    return curve
