"""Driving a run through its store: :func:`open_store`, :func:`run_augment`, :func:`export_outputs`.

Inputs are streamed into the :class:`~paraspan.pipeline.store.RunStore`; each input is one atomic
unit of work, so ``--resume`` after a crash loses and duplicates nothing. The library prints
nothing: progress goes to the ``progress(done, total)`` callback a caller (the CLI) supplies.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import Any

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.pipeline.config import AugmentConfig, resume_differences
from paraspan.pipeline.executors import BACKENDS, group_sizes, run_local, run_ray
from paraspan.pipeline.loop import Augmenter
from paraspan.pipeline.store import RunStore, StoreError, WorkResult
from paraspan.pipeline.summary import RunSummary, summarize

#: ``progress(done, total)``: called after every committed input.
ProgressCallback = Callable[[int, int], None]


def stored_config(store: RunStore) -> AugmentConfig:
    """The config a store was written with (an older version migrated; a newer one refused)."""
    return AugmentConfig.from_dict(store.config, where=f"{store.path}: the stored run config")


def open_store(path: Path, config: AugmentConfig, *, resume: bool) -> RunStore:
    """Create the store, or reopen it for ``resume`` after checking the settings match.

    ``config`` should be checked first (:func:`paraspan.pipeline.components.check`), so the
    store records every component option, defaults included.
    """
    if not resume or not path.exists():
        return RunStore.create(path, config.to_dict())
    from paraspan.pipeline.components import resolve

    store = RunStore.open(path)
    try:
        # an older store may lack options added since, or record only what was given: compare complete blocks
        old, new = resolve(stored_config(store)), resolve(config)
    except ParaspanError:
        store.close()
        raise
    diff = resume_differences(old, new)
    if diff:
        store.close()
        raise StoreError.from_code("E708", file=str(path), differences=", ".join(diff))
    return store


def run_augment(
    corpus: str | Path | Iterable[Sentence],
    store: RunStore,
    config: AugmentConfig,
    *,
    limit: int | None = None,
    workers: int | str = 1,
    backend: str = "local",
    ray_address: str | None = None,
    progress: ProgressCallback | None = None,
    augmenter: Augmenter | None = None,
    on_commit: Callable[[WorkResult], None] | None = None,
    warn: Callable[[str], None] | None = None,
    only: Collection[str] | None = None,
) -> RunSummary:
    """Augment a corpus into ``store`` (resuming whatever is pending there); return a summary.

    ``corpus``: a JSONL path (streamed) or sentences. ``augmenter``: ready models for the
    in-process path (tests, the benchmark); otherwise each worker builds its own.
    ``workers``: a number, or ``"auto"`` (:func:`paraspan.pipeline.resources.plan_workers`: this
    machine's cores and free memory, the pending inputs; ``warn`` hears why a plan is lowered).
    ``on_commit`` sees every committed :class:`~paraspan.pipeline.store.WorkResult`.
    ``only``: process just the pending inputs with these ids (the others stay pending: a learner's
    subset in a store other subsets share).
    """
    from itertools import islice

    if backend not in BACKENDS:
        raise ParaspanError.from_code("E732", option="backend", value=backend,
                                      fix=f"use one of: {', '.join(BACKENDS)}")
    started = time.perf_counter()
    if isinstance(corpus, (str, Path)):
        from paraspan.corpus.jsonl import read_jsonl

        sentences: Iterable[Sentence] = read_jsonl(corpus)
    else:
        sentences = corpus
    if limit is not None:
        sentences = islice(sentences, limit)
    store.add_inputs((s, i) for i, s in enumerate(sentences))
    total = store.count_inputs("pending", only=only)
    if not isinstance(workers, int):
        workers = _auto_workers(workers, config, backend, ray_address, total, warn)
    notes: Counter[str] = Counter()
    processed = 0

    def commit(result: WorkResult) -> None:
        nonlocal processed
        store.commit_work(result)
        processed += 1
        if result.note:
            # one note per structure ("structure N: …"); a check's reason may hold "; " itself
            for part in re.split(r"; (?=structure \d+: )", result.note):
                notes[part.split(": ", 2)[-1].split(" (")[0]] += 1
        if progress is not None:
            progress(processed, total)
        if on_commit is not None:
            on_commit(result)

    if progress is not None:
        progress(0, total)
    pending = store.pending(only=only)
    # batches of sentences, as many for each worker (so that none waits long at the end)
    sizes = group_sizes(total, workers, config.sentences_per_batch)
    if backend == "ray":
        run_ray(pending, config, workers, ray_address, commit, sizes=sizes)
    else:
        run_local(pending, config, workers, commit, augmenter, sizes=sizes)
    return summarize(store, time.perf_counter() - started, processed, notes)


def _auto_workers(requested: str, config: AugmentConfig, backend: str, ray_address: str | None, tasks: int,
                  warn: Callable[[str], None] | None) -> int:
    from paraspan.pipeline.resources import AUTO, parse_amount, plan_workers, worker_memory

    if parse_amount(requested, "workers") == AUTO and backend == "ray" and ray_address:
        raise ParaspanError.from_code("E876", address=ray_address)
    memory = worker_memory(config.generator.options.get("model", "default"))
    return plan_workers(requested, config.threads or AUTO, per_worker_memory=memory, tasks=tasks, warn=warn).workers


def export_outputs(store: RunStore, out: str | Path, fmt: str = "jsonl", filter: Any = None,
                   *, include_inputs: bool = False) -> int:
    """Write the store's outputs (those ``filter`` keeps) to ``out`` in ``fmt``, atomically.

    ``filter``: None or ``"all"`` for every output; a filter whose decisions the store records
    (by name); or any filter spec of :func:`paraspan.filter.build_filter` (a preset, a
    rule, ``learned:PATH``, a registered filter name or ``{"name": …, options}``), which then
    decides on every output now, its decisions recorded in the store first.
    ``include_inputs``: the input sentences come first (those without structures too).
    Each labelled sentence is written once per source (:func:`distinct_outputs`).
    """
    from paraspan.corpus.formats import write_corpus

    name: str | None = None
    empty = store.conn.execute("SELECT COUNT(*) FROM outputs").fetchone()[0] == 0
    if filter is not None and filter != "all" and not empty:  # no outputs: nothing to decide (no model loads)
        if isinstance(filter, str) and filter in set(store.filters()):
            name = filter
        else:
            name = decide_in_store(store, filter)

    def sentences() -> Iterator[Sentence]:
        if include_inputs:
            yield from store.iter_inputs()
        yield from distinct_outputs(record.sentence for record in store.iter_outputs(name))

    return write_corpus(sentences(), out, fmt)


def distinct_outputs(sentences: Iterable[Sentence]) -> Iterator[Sentence]:
    """The outputs, each labelled sentence once per source: an output with the same text and the
    same structures (in any order) as an earlier one of its source is left out. NER has a structure
    per mention and a rewrite carries every mention, so each mention's chain gave the same sentence
    again (a WikiANN sentence naming 24 countries was written 24 times; wikiann-cascade-h)."""
    import json

    seen: set[tuple[str | None, str, tuple[str, ...]]] = set()
    for sentence in sentences:
        key = (sentence.source_id, sentence.text,
               tuple(sorted(json.dumps(t.to_dict(), sort_keys=True) for t in sentence.structures)))
        if key not in seen:
            seen.add(key)
            yield sentence


def decide_in_store(store: RunStore, spec: Any, *, batch: int = 64) -> str:
    """Build filter ``spec``, record its decision on every output of ``store``; its name."""
    from paraspan.filter import build_filter, decide_all
    from paraspan.pipeline.components import check_unjudged_rules

    flt = build_filter(spec)
    check_unjudged_rules([flt])
    chunk: list[tuple[Sentence, Sentence | None]] = []
    ids: list[str] = []
    sources: dict[str, Sentence | None] = {}

    def flush() -> None:
        decisions = decide_all(flt, chunk)
        store.set_decisions((oid, flt.name, d.keep, d.reason, d.score) for oid, d in zip(ids, decisions, strict=True))
        chunk.clear()
        ids.clear()

    for record in list(store.iter_outputs()):  # read first: the decisions are written on the same connection
        source_id = record.sentence.source_id
        if source_id is not None and source_id not in sources:
            sources[source_id] = store.source(source_id)
        chunk.append((record.sentence, sources.get(source_id) if source_id else None))
        ids.append(record.id)
        if len(chunk) >= batch:
            flush()
    if chunk:
        flush()
    return flt.name
