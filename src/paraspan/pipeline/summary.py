"""What a run produced, counted from its store: :class:`RunSummary` and :func:`summarize`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from paraspan.pipeline.store import RunStore
from paraspan.text.lexical_units import anchor_lemma, lu_pos


@dataclass
class RunSummary:
    inputs: int
    done: int
    skipped: int
    outputs: int
    outputs_per_iteration: dict[int, int]
    kept_per_filter: dict[str, int]
    new_pairs: int
    seed_pairs: int
    seconds: float
    processed_now: int
    notes: dict[str, int] = field(default_factory=dict)
    #: what generation cost, summed over the inputs (:meth:`RunStore.work_stats`): generator
    #: ``calls``, ``sampled`` candidates, ``sampled_tokens``, ``generate_seconds``,
    #: ``sample_seconds`` (LLM decoding), ``score_seconds`` (backward scoring), ``place_seconds``,
    #: ``filter_seconds`` and their ``…_cpu_seconds``
    cost: dict[str, float] = field(default_factory=dict)
    #: the checks this run's config asked for (its filters with their parts, then its chooser): what
    #: decided the run. ``kept_per_filter`` also holds the presets every run records for export.
    checks: list[str] = field(default_factory=list)

    def kept_by_checks(self) -> dict[str, int]:
        """Outputs kept by each of :attr:`checks`, in their order."""
        return {name: self.kept_per_filter[name] for name in self.checks if name in self.kept_per_filter}

    def sampled_tokens_per_second(self) -> float | None:
        """Sampled tokens per second of decoding (wall), or None when nothing was sampled."""
        seconds = self.cost.get("sample_seconds", 0.0)
        return self.cost["sampled_tokens"] / seconds if seconds and self.cost.get("sampled_tokens") else None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _pair(kind: str, frame: str, label: str | None, lemma: str) -> tuple[str, str]:
    """The (frame, trigger) pair a structure counts as: a frame's LU label ("crucial.a") when it
    has a FrameNet POS, else the anchor lemma."""
    if kind == "frame" and lu_pos(label) and label:
        return frame, label.lower()
    return frame, lemma


def summarize(store: RunStore, seconds: float = 0.0, processed: int = 0,
              notes: Counter[str] | None = None, checks: Sequence[str] = ()) -> RunSummary:
    """Counts from the store, and how many (frame, LU) pairs are new to the inputs.

    A pair is (frame, LU label) — ``("Cogitation", "crucial.a")`` — so a new part of speech of a
    seed lemma counts as new; structures without a FrameNet POS count by (label, anchor lemma).
    ``checks``: the names of the checks the run asked for (:attr:`RunSummary.checks`).
    """
    import json

    counts = store.counts()
    seed_pairs: set[tuple[str, str]] = set()
    for sentence in store.iter_inputs():
        for s in sentence.structures:
            if s.anchor is not None:
                frame = s.label if s.kind == "frame" else f"{s.kind}:{s.label}"
                lemma = anchor_lemma(sentence.text[s.anchor.start:s.anchor.end], lu_pos(s.anchor.label))
                seed_pairs.add(_pair(s.kind, frame, s.anchor.label, lemma))
    out_pairs: set[tuple[str, str]] = set()
    for frame, lemma, line in store.conn.execute(
            "SELECT frame, anchor_lemma, json FROM outputs WHERE anchor_lemma IS NOT NULL"):
        st = (json.loads(line).get("structures") or [{}])[0]
        out_pairs.add(_pair(st.get("kind", ""), frame, (st.get("anchor") or {}).get("label"), lemma))
    status = counts["inputs"]
    return RunSummary(
        inputs=sum(status.values()), done=status.get("done", 0), skipped=status.get("skipped", 0),
        outputs=counts["outputs"], outputs_per_iteration=counts["outputs_per_iteration"],
        kept_per_filter={k: int(v or 0) for k, v in counts["kept_per_filter"].items()},
        new_pairs=len(out_pairs - seed_pairs), seed_pairs=len(seed_pairs), seconds=round(seconds, 2),
        processed_now=processed, notes=dict(notes or {}),
        cost={k: round(v, 3) if isinstance(v, float) else v for k, v in store.work_stats().items()},
        checks=list(checks))
