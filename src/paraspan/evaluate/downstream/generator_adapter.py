"""The ``generator:NAME`` augmenter: any registered generator through the paraspan pipeline.

Each call runs read → generate → project → filter (:mod:`paraspan.pipeline`, the code of
``paraspan augment``) on the gold subset it is given, in a run store (SQLite), and returns the
outputs the filter keeps whose ``source_id`` is a sentence of the subset. The generator name is
looked up in :data:`paraspan.generate.base.generators` (or ``module:factory``) when the config is
checked, so a plugin's generator works as well as ``rewrite`` or ``paraphrase``.

Where the run is kept:

- ``store_dir``: one store per corpus (``prefix``) and settings (a hash of the checked config),
  grown with every subset: a gold sentence is augmented once, whichever subsets and seeds it
  falls in, and a later run (another learner, the copy control, a resumed benchmark) reuses it;
- ``store``: one given store, reused as it is. It must hold (most of) the subset's sentences as
  inputs — a store made from another subset is refused (E892) rather than silently giving a
  handful of outputs; the few subset sentences it lacks are augmented into it. A store of the
  whole training corpus serves every subset;
- neither: a temporary store for the life of this object (grown like ``store_dir``).

A generator that draws on the other sentences of its run (token and mention replacement without
``donors``: their pool is the sentences they have seen; :func:`paraspan.generate.base.reads_corpus`)
gets one store per subset instead, named with a digest of the subset's ids, so that its donors
are the subset's own sentences, as the baselines' papers draw them; a given ``store`` that holds
sentences outside the subset is refused for it (E894). A shared store had given a later subset
the outputs an earlier, larger or other subset's pool made (measured on 2026-11-29: 70–86% of
the mentions WNUT17's 10% subsets got were not in them).

Under an augmentation budget (:mod:`~paraspan.evaluate.downstream.budget`) the subset comes a chunk
of sentences at a time, in an order that depends on the seed only: the chunks go into the same
``store_dir`` store, so ``--augment-only`` fills it and a later curve generates nothing again.

Generation depends on the config's ``seed`` (0 unless set), not on the curve's seed: a sentence
gets the same outputs in every subset, as with the ``rewrite`` augmenter (a generator that reads its
corpus: in every run of the same subset).
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paraspan.corpus.schema import Sentence

#: Most of a subset must be inputs of a given (reused) store: a store missing more is refused.
MAX_MISSING = 0.5


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:40] or "x"


def note_reasons(note: str | None) -> list[str]:
    """The reasons in a work result's note, one per structure ("structure 2: iteration 1: no
    paraphrase (…)" → "no paraphrase"), as ``paraspan augment`` counts them."""
    if not note:
        return []
    return [part.split(": ", 2)[-1].split(" (")[0] for part in re.split(r"; (?=structure \d+: )", note)]


@dataclass
class GeneratorAugmenter:
    """``(gold subset, seed) -> kept outputs`` of generator ``generator`` through the pipeline."""

    generator: str
    #: what the learner gets: ``all``, or a filter spec of ``paraspan augment --filter``; a candidate
    #: must pass it to become an iteration's output, as with ``paraspan augment``
    filter: str = "verified"
    store: Path | None = None
    store_dir: Path | None = None
    #: run settings and blocks of the config (``iterations``, ``kinds``, ``aligner``,
    #: ``generator`` options …), under ``overrides`` (``KEY=VALUE`` as ``paraspan augment --set``)
    settings: Mapping[str, Any] = field(default_factory=dict)
    overrides: Sequence[str] = ()
    #: the corpus a ``store_dir`` store belongs to (its file name starts with it)
    prefix: str = ""
    workers: int = 1
    #: what the last call did (see :meth:`report`)
    last: dict[str, Any] = field(default_factory=dict)
    _config: Any = None
    _runner: Any = None  # the pipeline's Augmenter, models loaded once for every call
    _tmp: Any = None

    # ------------------------------------------------------------------ config and store

    @property
    def config(self) -> Any:
        """The checked run config (an unknown generator or option fails here, before any model loads)."""
        if self._config is None:
            from paraspan.pipeline import AugmentConfig, apply_overrides, check

            data: dict[str, Any] = json.loads(json.dumps(dict(self.settings)))
            block = data.get("generator")
            block = dict(block) if isinstance(block, dict) else {}
            data["generator"] = {**block, "name": self.generator}
            if self.filter != "all":
                # recorded for every output (a preset already is), and what a candidate must pass
                data["filters"] = list(dict.fromkeys([*(data.get("filters") or []), self.filter]))
                data.setdefault("choose_by", self.filter)
            if data.get("choose_by") == "none":
                data["choose_by"] = None
            data = apply_overrides(data, list(self.overrides))
            self._config = check(AugmentConfig.from_dict(data, where=f"generator:{self.generator}"))
        return self._config

    @property
    def filter_name(self) -> str | None:
        """The name the filter's decisions are recorded under (None: ``all``)."""
        if self.filter == "all":
            return None
        from paraspan.filter import build_filter

        return build_filter(self.filter).name

    @property
    def reads_corpus(self) -> bool:
        """Whether the generator's outputs for a sentence depend on the rest of its run's sentences."""
        from paraspan.pipeline.components import generator_reads_corpus

        return generator_reads_corpus(self.config)

    @property
    def whole_subset(self) -> bool:
        """Under an augmentation budget, called once with the whole subset rather than a chunk at a
        time: a generator that reads its corpus draws its donors from the sentences it is given."""
        return self.reads_corpus

    def store_path(self, sentences: Sequence[Sentence] = ()) -> Path:
        """The store for ``sentences``: for a generator that reads its corpus, one per subset."""
        if self.store is not None:
            return Path(self.store)
        folder = self.store_dir
        if folder is None:
            if self._tmp is None:
                self._tmp = tempfile.TemporaryDirectory(prefix="paraspan-downstream-")
            folder = Path(self._tmp.name)
        settings = {k: v for k, v in self.config.to_dict().items() if k != "threads"}
        from paraspan.pipeline.components import generator_versions

        versions = generator_versions(self.config)
        if versions:  # a rule fixed since: a new store, not the older rule's outputs (no rules: the same name)
            settings["code_versions"] = versions
        digest = hashlib.sha1(json.dumps(settings, sort_keys=True).encode("utf-8")).hexdigest()[:10]
        parts = [self.prefix, self.generator, self.filter]
        name = "-".join(_slug(p) for p in parts if p) + f"-{digest}"
        if self.reads_corpus:  # its donors are the subset's: a store per subset
            ids = "\n".join(sorted(s.id for s in sentences)).encode("utf-8")
            name += f"-subset-{hashlib.sha1(ids).hexdigest()[:10]}"
        return Path(folder) / f"{name}.db"

    # ------------------------------------------------------------------ a call

    def __call__(self, sentences: list[Sentence], seed: int) -> list[Sentence]:
        from paraspan.pipeline import open_store, run_augment

        started = time.perf_counter()
        config = self.config
        path = self.store_path(sentences)
        store = open_store(path, config, resume=True)  # new, or the same settings (E708 otherwise)
        try:
            added = self._add_inputs(store, sentences)
            # only this subset's: inputs another subset left pending (a run stopped midway) are
            # that subset's to generate, not this learner's to wait for
            ids = frozenset(s.id for s in sentences)
            pending = store.count_inputs("pending", only=ids)
            processed = 0
            if pending:
                run_id = store.start_run(["paraspan.evaluate.downstream", f"generator:{self.generator}"])
                runner, fresh = self._runner, self.reads_corpus
                if self.workers <= 1 and (runner is None or fresh):
                    from paraspan.pipeline import Augmenter

                    # a generator that reads its corpus starts each subset with an empty pool
                    runner = Augmenter.build(config, worker="downstream")
                    if not fresh:
                        self._runner = runner
                summary = run_augment([], store, config, workers=self.workers, augmenter=runner, only=ids)
                store.finish_run(run_id)
                processed = summary.processed_now
            outputs = self._read(store, sentences)
            self.last = {**self._stats(store, sentences, outputs), "store": str(path), "store_added": added,
                         "generated_now": processed, "seconds": round(time.perf_counter() - started, 1)}
        finally:
            store.close()
        return outputs

    def _eligible(self, sentence: Sentence) -> bool:
        return any(s.kind in self.config.kinds and s.anchor is not None for s in sentence.structures)

    def _add_inputs(self, store: Any, sentences: Sequence[Sentence]) -> int:
        """Put the subset's sentences the store lacks into it (after its last input); a given
        store that lacks most of the subset is refused."""
        have = {row[0] for row in store.conn.execute("SELECT id FROM inputs")}
        outside = have - {s.id for s in sentences}
        if self.store is not None and outside and self.reads_corpus:
            from paraspan.pipeline.store import StoreError

            raise StoreError.from_code("E894", file=str(store.path), generator=self.generator,
                                       outside=len(outside), inputs=len(have))
        missing = [s for s in sentences if s.id not in have]
        if not missing:
            return 0
        if self.store is not None and have:
            eligible = [s for s in sentences if self._eligible(s)]
            lacking = [s for s in eligible if s.id not in have]
            if lacking and len(lacking) > MAX_MISSING * len(eligible):
                from paraspan.pipeline.store import StoreError

                raise StoreError.from_code("E892", file=str(store.path), missing=len(lacking),
                                           eligible=len(eligible), inputs=len(have), outside=len(outside))
        last = store.conn.execute("SELECT MAX(position) FROM inputs").fetchone()[0]
        start = -1 if last is None else int(last)
        return store.add_inputs((s, start + 1 + i) for i, s in enumerate(missing))

    def _read(self, store: Any, sentences: Sequence[Sentence]) -> list[Sentence]:
        ids = {s.id for s in sentences}
        name = self.filter_name
        if store.conn.execute("SELECT COUNT(*) FROM outputs").fetchone()[0] == 0:
            return []
        if name is not None and name not in set(store.filters()):
            from paraspan.pipeline import decide_in_store

            name = decide_in_store(store, self.filter)
        from paraspan.pipeline.run import distinct_outputs

        # what `augment -o` writes: each labelled sentence once per source
        return list(distinct_outputs(r.sentence for r in store.iter_outputs(name) if r.input_id in ids))

    def _stats(self, store: Any, sentences: Sequence[Sentence], kept: Sequence[Sentence]) -> dict[str, Any]:
        """What the generator did with the subset: sentences with nothing generated, and why."""
        ids = [s.id for s in sentences]
        status: Counter[str] = Counter()
        notes: Counter[str] = Counter()
        made: Counter[str] = Counter()
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for _, state, note in store.conn.execute(f"SELECT id, status, note FROM inputs WHERE id IN ({marks})",
                                                     chunk):
                status[state] += 1
                notes.update(note_reasons(note))
            made.update(dict(store.conn.execute(
                f"SELECT input_id, COUNT(*) FROM outputs WHERE input_id IN ({marks}) GROUP BY input_id", chunk)))
        with_kept = {s.source_id for s in kept}
        eligible = [s for s in sentences if self._eligible(s)]
        return {"generator": self.generator, "filter": self.filter, "inputs": len(sentences),
                "eligible": len(eligible), "skipped": status.get("skipped", 0),
                "outputs": sum(made.values()), "kept": len(kept),
                "no_output": sum(1 for s in eligible if not made.get(s.id)),
                "none_kept": sum(1 for s in eligible if made.get(s.id) and s.id not in with_kept),
                "notes": dict(notes.most_common(10)),
                "store_inputs": store.count_inputs()}

    def report(self) -> dict[str, Any]:
        """The last call's counts: subset sentences with a structure to augment (``eligible``),
        those that got no output at all (``no_output``: the generator had nothing to replace or
        nothing could be placed) or none the filter kept (``none_kept``), the generator's notes
        (reason → structures), and the store."""
        return dict(self.last)
