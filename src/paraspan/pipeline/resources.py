"""How many worker processes, and how many threads each, a run uses: :func:`plan_workers`.

``--workers auto`` (the default of ``augment``, ``paraphrase`` and ``infill``) is resolved here:
as many workers as this process may use cores (``os.sched_getaffinity``), no more than fit in
the memory that is free (``MemAvailable`` of ``/proc/meminfo``; each worker loads its own
models) and no more than there are inputs; then threads per worker so that workers × threads ≤
cores. An explicit ``--workers N`` that the cores or the memory cannot hold is lowered, and
the plan says why through a ``warn`` callback (the library prints nothing; the CLI prints it).

The memory one worker needs is measured, not guessed: the peak RSS of one process running the
default generator (Qwen2.5-Coder-1.5B-Instruct Q4_K_M, a 1.1 GB GGUF) with its MiniLM encoders,
spaCy and the filters is 2.6-3.1 GB for ``augment`` (``benchmarks/results/augment.json``,
``peak_memory.self_mb``; 2.85 GB for ``paraspan augment --workers 1`` on 4 demo sentences with the
default ``verified`` filter, measured for this module), 2.8 GB for ``paraphrase``
(``paraphrase-idle.json``) and 3.5 GB for ``infill`` (``infill.json``, the FE classifier's
encoder included). A smaller generator does not make an ``augment`` worker much smaller: with
``--model small`` (SmolLM2-135M) it peaked at 2.95 GB, since the ``verified`` filter's fluency
check loads the default LLM (0.96 GB with ``--filter all``); so the estimate only grows, for a
``.gguf`` file larger than the default model's. Since the structures of a sentence are decoded
together (up to 64 sequences, a 6,144-token KV cache), an ``augment`` worker peaked at 3.4 GB
(``benchmarks/results/augment.json``, ``throughput`` runs), hence 3.5 GB.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from paraspan.errors import ParaspanError

AUTO = "auto"
GB = 1024**3

#: one ``augment`` or ``paraphrase`` worker with the default LLM (peak RSS 2.6-3.1 GB, see above;
#: 3.4 GB since a worker decodes 64 sequences at once: a larger KV cache, issue 18)
WORKER_MEMORY = int(3.5 * GB)
#: what a worker holds besides the GGUF file (encoders, spaCy, torch, the KV cache): the
#: default model's peak (3.5 GB) less its file (1.1 GB)
WORKER_OVERHEAD = int(2.4 * GB)

#: ``warn(message)``: told when a request is lowered (the CLI prints it)
WarnCallback = Callable[[str], None]


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which containers and taskset narrow)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def available_memory(meminfo: str | Path = "/proc/meminfo") -> int | None:
    """Bytes the kernel says can be allocated without swapping (``MemAvailable``); None when unknown."""
    try:
        for line in Path(meminfo).read_text(encoding="ascii").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024  # reported in KiB
    except (OSError, ValueError, IndexError):
        return None
    return None


def worker_memory(model: str | os.PathLike[str] | None = "default", *, base: int = WORKER_MEMORY) -> int:
    """Bytes one worker needs for generator ``model``: ``base`` (what the default model needs, see
    the module docstring), or more for a ``.gguf`` file larger than the default model's: its size
    plus :data:`WORKER_OVERHEAD` (and as much more as ``base`` exceeds :data:`WORKER_MEMORY`)."""
    name = str(model) if model is not None else "default"
    if name.endswith(".gguf"):
        try:
            return max(base, Path(name).stat().st_size + WORKER_OVERHEAD + (base - WORKER_MEMORY))
        except OSError:
            return base
    return base


def parse_amount(value: str | int | None, option: str) -> int | str:
    """A ``--workers``/``--threads`` value: ``auto`` (also for None) or a whole number ≥ 1."""
    if value is None:
        return AUTO
    text = str(value).strip().lower()
    if text == AUTO:
        return AUTO
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise ParaspanError.from_code("E875", option=option, value=str(value))
    return number


def _gb(n: int | None) -> str:
    return "unknown" if n is None else f"{n / GB:.1f} GB"


@dataclass
class WorkerPlan:
    """What a run uses: ``workers`` processes × ``threads`` threads each, and why."""

    workers: int
    threads: int
    requested_workers: int | str
    requested_threads: int | str
    cores: int
    available_memory: int | None  # bytes, None when unknown
    per_worker_memory: int  # bytes
    memory_workers: int | None  # how many workers the free memory holds (None: unknown)
    tasks: int | None  # inputs to work on, when known
    limited_by: list[str] = field(default_factory=list)  # cores, memory, inputs, gpu
    warnings: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """``2 workers × 1 thread (auto: 2 cores, 19.4 GB free / 3.5 GB per worker)``."""
        what = f"{self.workers} worker{'s' * (self.workers != 1)} × {self.threads} thread{'s' * (self.threads != 1)}"
        how = "auto" if self.requested_workers == AUTO else f"{self.requested_workers} asked for"
        why = (f"{how}: {self.cores} core{'s' * (self.cores != 1)}, {_gb(self.available_memory)} free / "
               f"{_gb(self.per_worker_memory)} per worker")
        if self.limited_by:
            why += f"; limited by {', '.join(self.limited_by)}"
        return f"{what} ({why})"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["available_memory_gb"] = None if self.available_memory is None else round(self.available_memory / GB, 2)
        data["per_worker_memory_gb"] = round(self.per_worker_memory / GB, 2)
        del data["available_memory"], data["per_worker_memory"]
        data["reason"] = self.describe()
        return data


def plan_workers(requested: int | str | None, threads: int | str | None = AUTO, *, cores: int | None = None,
                 free_memory: int | None = None, per_worker_memory: int = WORKER_MEMORY, tasks: int | None = None,
                 warn: WarnCallback | None = None, read_memory: bool = True, gpu: bool = False) -> WorkerPlan:
    """Resolve ``requested`` workers and ``threads`` per worker (each ``"auto"``/None or a number).

    ``cores``/``free_memory`` default to this machine's (:func:`usable_cores`,
    :func:`available_memory`; ``read_memory=False`` leaves the memory unknown, so unbounded);
    ``tasks``: the inputs to work on (no more workers than that). ``auto`` workers: as many as
    the cores, the memory and the inputs allow, but one when the model runs on a ``gpu`` (each
    worker would load its own copy onto it); ``auto`` threads: ``cores // workers``. An
    explicit count above what the cores or the memory hold is lowered, with a ``warn`` saying
    why; explicit threads are kept (a warning when workers × threads exceeds the cores).
    """
    want_workers = parse_amount(requested, "--workers")
    want_threads = parse_amount(threads, "--threads")
    cores = max(1, cores if cores is not None else usable_cores())
    if free_memory is None and read_memory:
        free_memory = available_memory()
    per_worker_memory = max(1, int(per_worker_memory))
    fit = None if free_memory is None else max(0, free_memory // per_worker_memory)
    plan = WorkerPlan(1, 1, want_workers, want_threads, cores, free_memory, per_worker_memory,
                      None if fit is None else int(fit), tasks)

    def tell(message: str) -> None:
        plan.warnings.append(message)
        if warn is not None:
            warn(message)

    if want_workers == AUTO:
        # with explicit threads, leave each worker its threads
        by_cores = max(1, cores // want_threads) if isinstance(want_threads, int) else cores
        workers, limits = by_cores, ["cores"]
        if gpu:
            workers, limits = 1, ["gpu"]
        elif fit is not None and fit < workers:
            workers, limits = max(1, int(fit)), ["memory"]
            if fit < 1:
                tell(f"one worker needs about {_gb(per_worker_memory)} and only {_gb(free_memory)} is free "
                     "(MemAvailable): running 1 worker anyway, it may swap or be killed")
    else:
        workers, limits = int(want_workers), []
        if workers > cores:
            tell(f"--workers {want_workers}: this process may use {cores} core{'s' * (cores != 1)}, so more "
                 f"workers would only take turns on them: running {cores}")
            workers, limits = cores, ["cores"]
        if fit is not None and workers > max(1, fit):
            tell(f"--workers {want_workers}: each worker loads its own models, about {_gb(per_worker_memory)}, "
                 f"and {_gb(free_memory)} is free (MemAvailable): running {max(1, int(fit))}")
            workers, limits = max(1, int(fit)), ["memory"]
    if tasks is not None and 0 < tasks < workers:
        workers, limits = tasks, ["inputs"]  # an idle worker would only load models
    plan.workers = max(1, workers)
    plan.limited_by = limits if want_workers == AUTO or plan.workers != want_workers else []
    if want_threads == AUTO:
        plan.threads = max(1, cores // plan.workers)
    else:
        plan.threads = int(want_threads)
        if plan.workers * plan.threads > cores:
            tell(f"{plan.workers} workers × {plan.threads} threads is more than the {cores} cores: they will "
                 "take turns (llama.cpp's threads spin while they wait, which slows it down a lot)")
    return plan
