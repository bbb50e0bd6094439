"""Commands that are presets of ``paraspan augment`` (``paraspan rewrite``, ``paraspan infill``, ``paraspan
paraphrase``): a generator, its options and a filter, run through the same pipeline, run store and writer
(:func:`paraspan.api.augment`, :func:`paraspan.pipeline.export_outputs`).

A preset runs one iteration per structure, without retries, and makes each structure's best-placed candidate an
output (``choose_by="none"``): the filter then decides which outputs ``-o`` gets and which ``--rejected`` gets, and the
store records every decision, as ``paraspan augment --store`` does.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paraspan.cli.common import ProgressBar, console, input_format, use_threads
from paraspan.errors import CorpusError


@dataclass(frozen=True)
class Preset:
    """What a preset command runs: a registered generator with these options (None: the factory's default)."""

    generator: str
    options: Mapping[str, Any] = field(default_factory=dict)
    iterations: int = 1
    candidates: int | None = None  # candidates the generator returns per structure (None: the run's default)
    aligner: str | None = None  # None: the run's default
    batch: int | None = None  # sentences a worker's generator gets at once (None: the run's default)
    model: str | None = None  # what the worker plan sizes for, and the generator's model where it takes one
    device: str | None = None

    def overrides(self) -> list[str]:
        """The options as ``--set generator.KEY=VALUE`` settings (JSON values, read back as they were)."""
        return [f"generator.{key}={json.dumps(value)}" for key, value in self.options.items() if value is not None] \
            + ([f"sentences_per_batch={self.batch}"] if self.batch is not None else [])


@dataclass
class PresetRun:
    """What a preset run wrote: the outputs ``-o`` got, those the filter refused (and why), the run's summary."""

    written: int
    rejected: int
    reasons: Counter[str]
    summary: Any
    plan: dict[str, Any]


def run_preset(preset: Preset, corpus: Path, out: Path, *, filter_name: str, rejected: Path | None = None,
               from_fmt: str | None = None, limit: int | None = None, workers: str = "1", threads: str = "auto",
               seed: int | None = None, progress: bool = True, what: str = "sentences",
               prepare: Callable[[list[Any]], None] | None = None,
               candidates: Path | None = None) -> PresetRun:
    """Run ``preset`` on ``corpus`` and write what ``filter_name`` keeps to ``out`` (JSONL), the rest to
    ``rejected``; ``prepare`` sees the sentences before the run (e.g. to attach what the corpus file lacks);
    ``candidates`` gets every candidate the generator returned, placed or not (the store's rows). Bad input
    is refused before any model loads (E010 for a missing corpus)."""
    from paraspan.api import read
    from paraspan.cli.common import check_output
    from paraspan.corpus.formats import write_corpus
    from paraspan.pipeline import export_outputs
    from paraspan.pipeline.run import merge_outputs

    if not corpus.exists():
        raise CorpusError.from_code("E010", file=str(corpus), what="file", fix="check the path")
    check_output(out, inputs=[corpus])
    if rejected is not None:
        check_output(rejected, inputs=[corpus, out], option="--rejected")
    sentences = list(read(corpus, input_format(corpus, from_fmt)))
    if limit is not None:
        sentences = sentences[:limit]
    if prepare is not None:
        prepare(sentences)
    reasons: Counter[str] = Counter()
    dropped: list[Any] = []
    with preset_store(preset, sentences, filter_name=filter_name, workers=workers, threads=threads, seed=seed,
                      progress=progress, what=what) as (store, run):
        written = export_outputs(store, out, "jsonl", filter_name)
        if filter_name != "all" and filter_name in store.filters():
            for record in store.iter_outputs(filter_name, kept=False):
                reason = record.reasons.get(filter_name, "")
                reasons[reason.split(":", 1)[0] if ":" in reason else "rejected"] += 1
                dropped.append(record.sentence)
        rows = [_candidate(sentence.id, row) for sentence in sentences for row in store.iter_candidates(sentence.id)]
    merged = list(merge_outputs(dropped))
    if rejected is not None:
        write_corpus(merged, rejected, "jsonl")
    if candidates is not None:
        write_corpus(rows, candidates, "jsonl")
    return PresetRun(written, len(merged), reasons, run.summary, run.plan)


@contextmanager
def preset_store(preset: Preset, sentences: Sequence[Any], *, filter_name: str = "all", workers: str = "1",
                 threads: str = "auto", seed: int | None = None, progress: bool = True,
                 what: str = "sentences") -> Iterator[tuple[Any, Any]]:
    """Run ``preset`` on ``sentences`` into a temporary run store; yield it, open, with the run (its ``summary``
    and worker ``plan``) for the caller to read what it needs; the store is removed afterwards."""
    from paraspan.api import augment
    from paraspan.pipeline.store import RunStore

    con = console()
    with tempfile.TemporaryDirectory(prefix="paraspan-run-") as folder:
        store_path = Path(folder) / "run.db"
        with ProgressBar(what, enabled=progress, unit="sentences") as bar:
            run = augment(sentences, generator=preset.generator, filters=filter_name, iterations=preset.iterations,
                          store=store_path, workers=workers, threads=threads, seed=seed, choose_by="none", retries=0,
                          candidates=preset.candidates, aligner=preset.aligner, model=preset.model,
                          device=preset.device, overrides=preset.overrides(), on_progress=bar, command=sys.argv,
                          on_note=lambda m: con.print(f"note: {m}", markup=False))
            use_threads(run.plan["threads"])  # this process's encoders (a worker pool's processes set their own)
            for _ in run:  # the caller reads what it needs from the store, in input order
                pass
        with RunStore.open(store_path) as store:
            yield store, run


def report(con: Any, result: PresetRun, filter_name: str, rejected: Path | None) -> None:
    """One line: how many outputs the filter kept and refused, and why (nothing for ``all``)."""
    if filter_name == "all":
        return
    why = ", ".join(f"{k} {v}" for k, v in sorted(result.reasons.items()))
    con.print(f"{filter_name}: kept {result.written}, rejected {result.rejected}" + (f" ({why})" if why else "")
              + (f"; rejected outputs in {rejected}" if rejected else ""), markup=False)


def _candidate(input_id: str, row: Any) -> Any:
    """A stored candidate row as a sentence without structures: its text, source and what the generator and the
    placement said of it (``provenance``: the generator's own, the scores, placed, chosen)."""
    from paraspan.corpus.schema import Sentence

    meta = dict(row.meta)
    said = meta.pop("provenance", None)
    provenance = {**(said if isinstance(said, dict) else {}), **meta, "structure": row.structure,
                  "iteration": row.iteration, "placed": row.placed, "chosen": row.chosen,
                  "scores": {"forward": row.forward, "backward": row.backward, "score": row.score}}
    return Sentence(f"{input_id}~c{row.structure}.{row.iteration}.{row.candidate}", row.text, [], {}, input_id,
                    provenance)
