"""paraspan as a library: :func:`read`, :func:`write` and :func:`augment` (exported as ``paraspan.read`` …).

``paraspan augment`` is built on :func:`augment`: the same options, the same defaults, the same
run config, store and outputs. Nothing heavy is imported until a function runs::

    import paraspan

    corpus = paraspan.read("train.conll", "bio")
    for sentence in paraspan.augment(corpus, store="run.db"):
        print(sentence.text, sentence.provenance["iteration"])

The run goes through a :class:`~paraspan.pipeline.store.RunStore` (a temporary one by default), in a
thread of its own that this module starts and ends; the caller's thread gets each input's verified
outputs as soon as they are committed, and ``on_progress`` is called there too.
"""

from __future__ import annotations

import os
import queue
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.runconfig import count_lines, run_config, uses_gpu, worker_plan

if TYPE_CHECKING:  # pragma: no cover - typing only
    from paraspan.pipeline import AugmentConfig, RunSummary
    from paraspan.pipeline.store import RunStore, WorkResult

__all__ = ["DEMO", "Augmentation", "Corpus", "augment", "demo_corpus", "read", "run_config", "write"]

#: ``--demo`` settings: the bundled corpus through the default model in a few minutes on 2 idle cores
#: (with 2 worker processes there: ``workers="auto"``).
DEMO: dict[str, int] = {"iterations": 2, "samples": 3, "constraint_sets": 2, "candidates": 4, "rescore_top": 1}

#: ``on_progress(done, total)``: called after every committed input, in the thread that iterates.
ProgressCallback = Callable[[int, int], None]


class ApiTypeError(ParaspanError, TypeError):
    """An argument of the API is not of the type it takes (a string where sentences are expected)."""


class ApiValueError(ParaspanError, ValueError):
    """An argument of the API has the right type but not a value it takes (a dict of another shape)."""


def demo_corpus() -> Path:
    """The bundled FrameNet-style corpus (sentences written for the project)."""
    from importlib.resources import files

    return Path(str(files("paraspan") / "data" / "demo" / "framenet_demo.jsonl"))


# --------------------------------------------------------------------------- read / write


class Corpus(Iterator[Sentence]):
    """Sentences streamed from a file (what :func:`read` returns): an iterator that remembers where
    it reads from, so :func:`write` can refuse to write over it and :func:`augment` can count it."""

    def __init__(self, path: Path, format: str, sentences: Iterator[Sentence]) -> None:
        self.path = path
        self.format = format
        self._sentences = sentences

    def __next__(self) -> Sentence:
        return next(self._sentences)

    def __iter__(self) -> Corpus:
        return self

    def __repr__(self) -> str:
        return f"<paraspan.Corpus {self.format}:{self.path}>"


def read(path: str | os.PathLike[str], format: str | None = None, **options: Any) -> Corpus:
    """Stream the sentences of a corpus.

    ``path``: a file (or a folder: a FrameNet release, a Hugging Face ``datasets`` folder).
    ``format``: a reader's name (``jsonl``, ``bio``, ``conllu-srl``, ``conll2009``, ``opensesame``,
    ``framenet``, ``docbin``, ``hf``; ``paraspan formats`` lists them); None: told from the file
    name (an error when it cannot be). ``options``: the reader's own (``scheme="iob2"`` for bio,
    ``split``/``splits`` for FrameNet, ``trim_punct`` …). Malformed input raises a
    :class:`~paraspan.errors.CorpusError` naming the file and line.
    """
    from paraspan.corpus.formats import guess_format, read_corpus

    where = Path(path)
    is_dataset = (where / "dataset_info.json").is_file() or (where / "dataset_dict.json").is_file()
    fmt = format or guess_format(where) or ("hf" if is_dataset else None)
    if fmt is None:
        raise ParaspanError.from_code("E021", path=where)
    return Corpus(where, fmt, iter(read_corpus(where, fmt, **options)))


def write(sentences: Iterable[Sentence], path: str | os.PathLike[str], format: str | None = None,
          **options: Any) -> int:
    """Write ``sentences`` to ``path`` in ``format`` (None: told from the file name, else JSONL); return
    how many were written.

    ``options``: the writer's own (``strict=True`` for bio and opensesame …). Writing over the file
    the sentences are being read from (a :class:`Corpus` of the same path) is refused (E983).
    """
    from paraspan.corpus.formats import guess_format, write_corpus

    out = Path(path)
    if isinstance(sentences, Corpus) and _same_path(sentences.path, out):
        raise ApiValueError.from_code("E983", file=str(out))
    return write_corpus(_corpus(sentences, "write"), out, format or guess_format(out) or "jsonl", **options)


def _same_path(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


# --------------------------------------------------------------------------- checking what is given


_EXPECTED = ("an iterable of paraspan.Sentence (or of corpus-schema dicts: id, text, structures), "
             "e.g. paraspan.read(path, format)")


def _corpus(sentences: Any, function: str) -> Iterable[Sentence]:
    """``sentences`` as sentences: what cannot be a corpus (a string or path, a single sentence or dict, a
    non-iterable) is refused now (E980, a TypeError); a list is converted whole now, each dict through the
    schema (E981, a ValueError), and any other iterable (a :class:`Corpus`, a generator) as it is read."""
    fix = f"read the file first: paraspan.{function}(paraspan.read(path, format), ...)"
    if isinstance(sentences, (str, bytes, os.PathLike)):
        raise ApiTypeError.from_code("E980", function=function, what=f"a {type(sentences).__name__} "
                                     f"({str(sentences)[:60]!r})", expected=_EXPECTED, fix=fix)
    if isinstance(sentences, (Sentence, Mapping)):
        raise ApiTypeError.from_code("E980", function=function, what=f"a single {type(sentences).__name__}",
                                     expected=_EXPECTED, fix=f"pass a list: paraspan.{function}([sentence], ...)")
    if not isinstance(sentences, Iterable):
        raise ApiTypeError.from_code("E980", function=function, what=f"a {type(sentences).__name__}",
                                     expected=_EXPECTED, fix=fix)
    if isinstance(sentences, Sequence):
        return [_as_sentence(item, index, function) for index, item in enumerate(sentences)]
    if isinstance(sentences, Corpus):
        return sentences
    return _sentences_of(sentences, function)


def _as_sentence(item: Any, index: int, function: str) -> Sentence:
    if isinstance(item, Sentence):
        return item
    if isinstance(item, Mapping):
        from paraspan.errors import CorpusError

        try:
            return Sentence.from_dict(dict(item))
        except CorpusError as exc:
            problems = "; ".join(p.message + (f" ({p.hint})" if p.hint else "") for p in exc.problems[:3])
            raise ApiValueError.from_code("E981", function=function, index=index, problem=problems) from None
    raise ApiTypeError.from_code("E980", function=function, what=f"a {type(item).__name__} as item {index}",
                                 expected=_EXPECTED, fix="build each item with paraspan.Sentence or "
                                 "Sentence.from_dict, or read the corpus with paraspan.read")


def _sentences_of(sentences: Iterable[Any], function: str) -> Iterator[Sentence]:
    for index, item in enumerate(sentences):
        yield _as_sentence(item, index, function)


# --------------------------------------------------------------------------- augment


def augment(sentences: Iterable[Sentence], generator: str = "cascade", filters: str | dict[str, Any] = "verified",
            iterations: int | None = None, store: str | os.PathLike[str] | None = None, workers: str | int = "auto",
            on_progress: ProgressCallback | None = None, *, aligner: str | None = None, retries: int | None = None,
            candidates: int | None = None, seed: int | None = None, kinds: Sequence[str] | None = None,
            keep_args: bool = False, partial_args: bool = False, choose_by: str | None = None,
            filter_models: Sequence[str | os.PathLike[str]] = (), model: str | None = None, device: str | None = None,
            samples: int | None = None, constraint_sets: int | None = None, rescore_top: int | None = None,
            config: str | os.PathLike[str] | None = None, overrides: Sequence[str] = (), limit: int | None = None,
            threads: str | int = "auto", backend: str = "local", ray_address: str | None = None, resume: bool = False,
            per_structure: bool = False, demo_settings: bool = False, on_note: Callable[[str], None] | None = None,
            command: Sequence[str] | None = None) -> Augmentation:
    """Iterative augmentation of ``sentences``: yields each verified output as soon as its input is done.

    The same options, defaults, run config, store and outputs as ``paraspan augment`` (the command calls this
    function). Each output is one :class:`~paraspan.corpus.schema.Sentence` per distinct rewritten text of an
    input, carrying every structure verified on it, with ``source_id`` (the input's id) and ``provenance``
    (generator, iteration, scores, each check's decision; ``provenance["merged"]``: the ids of the per-structure
    outputs it joins). Returns an :class:`Augmentation`: iterate it for the outputs; afterwards ``.summary``
    holds the run's summary. Leaving the loop early stops the run (what was committed stays in the store).

    Args:
        sentences: the corpus: ``paraspan.read(path, format)``, or any iterable of ``Sentence`` or of corpus-schema
            dicts (``{"id", "text", "structures"}``). A string, a path or a single sentence is refused with a
            ``TypeError`` (E980); a dict of another shape with a ``ValueError`` (E981).
        generator: a registered generator (``cascade``: rule rewrites, then contextual substitutes of verbs;
            ``paraphrase``, ``rewrite``, ``substitute``, ``infill``, the baselines) or ``module:factory``.
        filters: what is yielded (and written): ``verified`` (labels, span shape, fluency, numbers and names,
            meaning all checked), ``all``, a preset (``iter1``, ``lax``, ``strict`` …), a rule like
            ``"iteration<=2&aligner>=0.9"``, a registered filter or ``learned:PATH``. Every output stays in the
            store with every decision.
        iterations: rewrites chained per structure (K); None: the run config's default, 3, as ``paraspan
            augment`` (its ``--demo`` runs 2).
        store: the run store (SQLite) to create, or with ``resume=True`` to continue; None: a temporary store,
            removed when the iteration ends.
        workers: worker processes, each with its own models: ``"auto"`` (one per core, as many as the free
            memory holds) or a number (1: in this process).
        on_progress: ``on_progress(done, total)`` after every committed input, called in the thread that
            iterates (a progress bar may draw there).
        aligner: the aligner (``discriminative``, ``ibm2``, ``argmax`` or ``module:factory``).
        retries: retries, with new samples, of an iteration that yields no output (None: the generator's own).
        candidates, seed: candidates placed per iteration [5]; random seed (same seed and input, same output) [0].
        kinds: structure kinds to augment [frame, srl, entity, event].
        keep_args: keep argument text verbatim instead of aligning it.
        partial_args: keep outputs where some arguments could not be placed.
        choose_by: a filter a candidate must pass to become an iteration's output (None: ``filters`` unless that
            is ``all``; ``"none"``: the best-placed candidate).
        filter_models: ``train-filter`` models whose decision every output records.
        model: the generator's LLM (``default``, ``small``, or a ``.gguf`` path).
        device: the generator's device (``auto``, ``cpu``, ``cuda``).
        samples, constraint_sets, rescore_top: generator options: samples per constraint set, randomized
            constraint sets, and the best M candidates per cluster scored backwards.
        config: a run config JSON file; the options above override it.
        overrides: ``KEY=VALUE`` settings into the run config, as ``--set``.
        limit: only the first N sentences.
        threads: CPU threads per worker (``"auto"`` or a number).
        backend, ray_address: ``local`` or ``ray``; an existing Ray cluster (default: a local Ray for the run).
        resume: continue the run in ``store`` (same settings); yields only what this call makes.
        per_structure: yield an output per structure, as the store holds them (the old shape of ``-o``).
        demo_settings: the ``--demo`` generator settings where no option sets them (small and fast).
        on_note: hears why a worker plan was lowered (default: :func:`warnings.warn`).
        command: what the store records as the invocation (default: ``["paraspan.augment"]``).
    """
    sentences = _corpus(sentences, "augment")
    _check_run(store, resume, backend, filters)
    plan = worker_plan(workers, threads, backend=backend, ray_address=ray_address, model=model,
                       tasks=_task_count(sentences, limit), gpu=uses_gpu(model, device),
                       warn=on_note or (lambda message: warnings.warn(message, stacklevel=3)))
    settings, soft = _settings(plan, {"iterations": iterations, "retries": retries, "candidates": candidates,
                                      "seed": seed}, demo=demo_settings, kinds=kinds, keep_args=keep_args,
                               partial_args=partial_args, choose_by=choose_by, filters=filters)
    run = run_config(config_file=Path(config) if config is not None else None, overrides=overrides,
                     generator=generator, aligner=aligner, settings=settings,
                     generator_options={"model": model, "samples": samples, "constraint_sets": constraint_sets,
                                        "rescore_top": rescore_top, "device": device},
                     soft_options=soft, filters=tuple(f"learned:{p}" for p in filter_models), output_filter=filters)
    runner = _Runner(sentences, run, plan, resume=resume, limit=limit, backend=backend, ray_address=ray_address,
                     keep=None if filters == "all" else _kept_name(filters, run.filters), per_structure=per_structure,
                     command=list(command or ["paraspan.augment"]),
                     corpus_name=str(sentences.path) if isinstance(sentences, Corpus) else None)
    return Augmentation(runner, on_progress, Path(store) if store is not None else None)


def _check_run(store: str | os.PathLike[str] | None, resume: bool, backend: str, filters: Any) -> None:
    """Refuse the options no run can start with, before anything is planned."""
    if resume and store is None:
        raise ApiValueError.from_code("E982", option="resume", value=resume, problem="needs the store of the run",
                                      fix="pass store=PATH (the run store of the run to continue)")
    if resume and store is not None and not Path(store).exists():
        raise ParaspanError.from_code("E049", file=str(store))  # a new run would pass for the old one's resumption
    if backend not in ("local", "ray"):
        raise ParaspanError.from_code("E732", option="backend", value=backend, fix="use local or ray")
    if not isinstance(filters, (str, dict)):
        raise ApiTypeError.from_code("E982", option="filters", value=filters, problem="is neither a name nor a spec",
                                     fix='pass "verified", "all", a preset, a rule or {"name": ..., options}')


def _task_count(sentences: Iterable[Sentence], limit: int | None) -> int | None:
    """How many inputs the run has, where that is known before it starts (the worker plan sizes by it)."""
    tasks: int | None = len(sentences) if isinstance(sentences, Sequence) else None
    if isinstance(sentences, Corpus) and sentences.format == "jsonl" and sentences.path.is_file():
        tasks = count_lines(sentences.path, limit)
    if tasks is not None and limit is not None:
        tasks = min(tasks, limit)
    return tasks


def _settings(plan: dict[str, Any], given: dict[str, Any], *, demo: bool, kinds: Sequence[str] | None,
              keep_args: bool, partial_args: bool, choose_by: str | None,
              filters: str | dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run config's settings the options set (over ``--demo``'s), and the generator options ``--demo``
    sets where no option does."""
    settings: dict[str, Any] = {"threads": plan["threads"]}
    soft: dict[str, Any] = {}
    if demo:
        settings.update({k: DEMO[k] for k in ("iterations", "candidates")})
        soft = {k: v for k, v in DEMO.items() if k not in ("iterations", "candidates")}
    settings.update({key: value for key, value in given.items() if value is not None})
    if kinds is not None:
        settings["kinds"] = [k.strip() for k in kinds if k.strip()]
    if keep_args:
        settings["keep_args"] = True
    if partial_args:
        settings["require_args"] = False
    if choose_by is None and filters != "all":
        choose_by = filters if isinstance(filters, str) else None  # an iteration's output is one that is kept
    if choose_by is not None and choose_by != "none":
        settings["choose_by"] = choose_by
    return settings, soft


def _kept_name(spec: Any, configured: Sequence[Any]) -> str:
    """The recorded name of the filter ``spec`` names: one of the run's configured filters (``short6`` for
    ``{"name": "short", "max_words": 6}``), else the filter ``spec`` builds."""
    from paraspan.filter import RECORDED, build_filter, build_filters

    if isinstance(spec, str):
        if spec.strip() in {f.name for f in build_filters([*RECORDED, *configured])}:
            return spec.strip()
    return build_filter(spec).name


class _Stopped(Exception):
    """Raised in the run's thread when the caller stopped iterating."""


class _Runner:
    """What the run's thread holds (not the :class:`Augmentation`, so that one dropped mid-loop is
    collected and tells the thread to stop)."""

    def __init__(self, sentences: Iterable[Sentence], config: AugmentConfig, plan: dict[str, Any], *,
                 resume: bool, limit: int | None, backend: str, ray_address: str | None, keep: str | None,
                 per_structure: bool, command: list[str], corpus_name: str | None) -> None:
        self.sentences = sentences
        self.config = config
        self.plan = plan
        self.resume = resume
        self.limit = limit
        self.backend = backend
        self.ray_address = ray_address
        self.keep = keep
        self.per_structure = per_structure
        self.command = command
        self.corpus_name = corpus_name
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.stop = threading.Event()

    def run(self, path: Path) -> None:
        from paraspan.pipeline import open_store, run_augment

        store: RunStore | None = None
        run_id: int | None = None
        try:
            store = open_store(path, self.config, resume=self.resume)
            if self.corpus_name is not None and store.get_meta(CORPUS_META) is None:
                store.set_meta(CORPUS_META, {"name": self.corpus_name})
            run_id = store.start_run(self.command)
            summary = run_augment(self.sentences, store, self.config,
                                  limit=self.limit, workers=self.plan["workers"], backend=self.backend,
                                  ray_address=self.ray_address, progress=self.progress, on_commit=self.committed)
            store.finish_run(run_id)
            self.events.put(("done", summary))
        except _Stopped:
            if store is not None and run_id is not None:
                store.finish_run(run_id, "interrupted")
            self.events.put(("done", None))
        except BaseException as exc:  # handed to the caller's thread
            if store is not None and run_id is not None:
                store.finish_run(run_id, "failed")
            self.events.put(("error", exc))
        finally:
            if store is not None:
                store.close()

    def progress(self, done: int, total: int) -> None:
        if self.stop.is_set():
            raise _Stopped
        self.events.put(("progress", (done, total)))

    def committed(self, result: WorkResult) -> None:
        kept = kept_outputs(result, self.keep, per_structure=self.per_structure)
        if kept:
            self.events.put(("outputs", kept))


class Augmentation(Iterator[Sentence]):
    """A run of :func:`augment`: iterate it for the verified outputs, as they are made.

    The run starts at the first ``next()`` and goes on in a thread of its own; the outputs of
    each input come as soon as the store has committed it. ``close()`` (or leaving a ``with``
    block) stops it after the inputs in progress, and waits for that; a loop left early and the
    object dropped tells it to stop without waiting. After the last output: ``summary`` (a
    :class:`~paraspan.pipeline.RunSummary`; None when stopped early), ``plan`` (workers and
    threads, and why) and ``config`` (the run config) describe the run.
    """

    def __init__(self, runner: _Runner, on_progress: ProgressCallback | None, store: Path | None) -> None:
        self.config = runner.config
        self.plan = runner.plan
        self.summary: RunSummary | None = None
        self.store_path = store
        self._runner = runner
        self._on_progress = on_progress
        self._ready: list[Sentence] = []
        self._thread: threading.Thread | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._finished = False

    def __iter__(self) -> Augmentation:
        return self

    def __next__(self) -> Sentence:
        if self._thread is None and not self._finished:
            self._start()
        try:
            while not self._ready:
                if self._finished:
                    raise StopIteration
                kind, payload = self._runner.events.get()
                if kind == "outputs":
                    self._ready.extend(payload)
                elif kind == "progress":
                    if self._on_progress is not None:
                        self._on_progress(*payload)
                elif kind == "done":
                    self.summary = payload
                    self._end()
                else:  # "error": raised here, in the caller's thread
                    self._end()
                    raise payload
        except KeyboardInterrupt:
            self._runner.stop.set()  # the run stops at its next commit; the store keeps what was committed
            self._end(wait=1.0)
            raise
        return self._ready.pop(0)

    def close(self) -> None:
        """Stop the run after the inputs in progress (what was committed stays in the store)."""
        if self._thread is not None and not self._finished:
            self._runner.stop.set()
            while not self._finished:
                kind, _ = self._runner.events.get()
                if kind in ("done", "error"):
                    self._end()
        self._finished = True
        self._cleanup()

    def __enter__(self) -> Augmentation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        runner = self.__dict__.get("_runner")
        if runner is not None:
            runner.stop.set()

    def _start(self) -> None:
        path = self.store_path
        if path is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="paraspan-run-")
            path = Path(self._tmp.name) / "run.db"
        self._thread = threading.Thread(target=self._runner.run, args=(path,), name="paraspan-augment", daemon=True)
        self._thread.start()

    def _end(self, wait: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(wait)
        self._finished = True
        if self._thread is None or not self._thread.is_alive():
            self._cleanup()

    def _cleanup(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


#: the store's meta key naming the corpus a run augmented (the spaCy augmenter refuses another's)
CORPUS_META = "corpus"


def kept_outputs(result: WorkResult, keep: str | None, *, per_structure: bool = False) -> list[Sentence]:
    """The outputs of one committed input that the filter named ``keep`` kept (None: all), in the
    store's order (structure, then iteration), merged per text unless ``per_structure``."""
    from paraspan.pipeline.run import distinct_outputs, merge_outputs

    rows = sorted(result.outputs, key=lambda o: (o.structure, o.iteration))
    sentences = [row.sentence for row in rows if keep is None or row.decisions.get(keep, (False,))[0]]
    return list(distinct_outputs(sentences) if per_structure else merge_outputs(sentences))
