"""Glue shared by ``paraspan evaluate downstream`` and ``benchmarks/downstream.py``: build a learner,
read and check the data, run the curve, merge the results into one JSON file and plot them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from paraspan.corpus.schema import Sentence
from paraspan.errors import CorpusError, ParaspanError
from paraspan.evaluate.downstream.curves import Curve, combine_points
from paraspan.evaluate.downstream.learners import HeadConfig, Learner, learners

#: The structure kinds each task trains on.
TASK_KINDS = {"frame_id": ("frame",), "srl": ("srl", "frame"), "ner": ("entity",)}


def make_learner(task: str, cache_dir: str | Path | None, *, threads: int = 1, epochs: int | None = None,
                 encoder: str | None = None) -> Learner:
    """The registered learner for ``task``; the feature learners share one cached frozen encoder."""
    factory = learners().get(task)
    if task == "ner":
        return factory(**({"epochs": epochs} if epochs else {}))
    from paraspan.evaluate.downstream.features import open_cache

    config = HeadConfig(**({"epochs": epochs} if epochs else {}))
    return factory(open_cache(cache_dir, encoder, threads=threads), config)


def check_task_data(task: str, train: Sequence[Sentence], evals: dict[str, Sequence[Sentence]],
                    where: dict[str, str]) -> dict[str, Any]:
    """Refuse data with nothing to learn or score; count labels the training data never shows."""
    kinds = TASK_KINDS[task]

    def labels(sentences: Sequence[Sentence]) -> set[str]:
        out: set[str] = set()
        for s in sentences:
            for st in s.structures:
                if st.kind in kinds:
                    out.update([st.label] if task != "srl" else [a.label or "" for a in st.args])
        return out

    if not train:
        raise CorpusError.from_code("E920", file=where.get('train'))
    seen = labels(train)
    if not seen:
        raise CorpusError.from_code("E921", file=where.get('train'), choices="/".join(kinds), task=task)
    unseen = {}
    for name, sentences in evals.items():
        if not sentences:
            raise CorpusError.from_code("E922", file=where.get(name), name=name)
        unseen[name] = sorted(labels(sentences) - seen)
    return {"labels_in_train": len(seen), "eval_labels_unseen_in_train": {k: len(v) for k, v in unseen.items()},
            "eval_labels_unseen_examples": {k: v[:10] for k, v in unseen.items()}}


def merge_results(path: str | Path, curve: Curve, meta: dict[str, Any]) -> dict[str, Any]:
    """Write ``curve`` under its task in the JSON at ``path`` (other tasks are kept), atomically."""
    from paraspan.corpus.jsonl import atomic_write

    target = Path(path)
    data: dict[str, Any] = {}
    if target.is_file():
        try:
            data = json.loads(target.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ParaspanError.from_code("E930", file=str(target), line=exc.lineno, msg=exc.msg) from None
    # Points of other percents (run by another job) are kept; a percent run again over new seeds is
    # combined with the stored one, over the same seeds it is replaced.
    points = data.setdefault(curve.task, {})
    for percent, point in curve.points.items():
        points[percent] = combine_points(points[percent], point) if percent in points else point
    task_meta = data.setdefault("meta", {}).setdefault(curve.task, {})
    task_meta.update({**curve.meta, **meta, "percents": sorted(data[curve.task], key=int)})
    task_meta.setdefault("commands", [])
    if meta.get("command") and meta["command"] not in task_meta["commands"]:
        task_meta["commands"].append(meta["command"])
    with atomic_write(target, "w") as handle:
        handle.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return data
