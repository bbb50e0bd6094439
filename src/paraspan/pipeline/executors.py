"""Where the units of work run: in this process, in local worker processes, or on Ray actors.

Every executor takes the pending input sentences and a ``commit`` callback, and calls it once
per finished :class:`~paraspan.pipeline.store.WorkResult`; the parent is the only writer of
the run store. Worker processes are spawned and each loads its own models once. Ray is
imported only when ``backend="ray"``. :func:`map_ordered` is the same local pool for any
per-item work (``paraspan paraphrase``, ``paraspan infill``), its results in input order. How
many workers, and threads each: :mod:`paraspan.pipeline.resources`.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any, TypeVar

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.pipeline.config import AugmentConfig
from paraspan.pipeline.loop import Augmenter
from paraspan.pipeline.store import WorkResult

BACKENDS = ("local", "ray")

_T = TypeVar("_T")
_R = TypeVar("_R")

#: per worker *process*: its models, loaded once by the pool's initializer (a process-level
#: cache the executor owns; the parent process never fills it)
_WORKER_STATE: dict[str, Any] = {}


def _exit_with_parent(parent: int, every: float = 2.0) -> None:
    """End this worker process soon after its parent dies (a kill -9 of `paraspan augment` would
    otherwise leave workers computing, unseen, until their current sentence is done)."""
    import threading

    def watch() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent:  # re-parented: the run that started us is gone
                os._exit(1)

    threading.Thread(target=watch, name="paraspan-parent-watch", daemon=True).start()


def _init_worker(config_dict: dict[str, Any], parent: int | None = None) -> None:
    if parent is not None:
        _exit_with_parent(parent)
    import torch

    torch.set_num_threads(max(1, int(config_dict.get("threads") or 1)))
    try:
        _WORKER_STATE["augmenter"] = Augmenter.build(AugmentConfig.from_dict(config_dict),
                                                     worker=f"pid{os.getpid()}")
    except Exception as exc:  # raised by the first unit of work: the parent reports it, not a broken pool
        _WORKER_STATE["error"] = exc


def _raise_init_error() -> None:
    if "error" in _WORKER_STATE:
        raise _WORKER_STATE["error"]


def _work(data: list[dict[str, Any]]) -> list[WorkResult]:
    _raise_init_error()
    return _WORKER_STATE["augmenter"].process_many([Sentence.from_dict(d) for d in data])


def group_sizes(total: int, workers: int, per_batch: int) -> list[int]:
    """How many sentences each unit of work gets: at most ``per_batch``, in a number of units that
    the ``workers`` share evenly (20 sentences, 2 workers, 4 per batch: 4, 4, 3, 3, 3, 3, so
    neither worker waits long for the other at the end)."""
    workers, per_batch = max(1, workers), max(1, per_batch)
    if total <= 0:
        return []
    units = workers * -(-total // (workers * per_batch))
    units = min(units, total)
    return [total // units + (1 if i < total % units else 0) for i in range(units)]


def _groups(pending: Iterator[Sentence], sizes: list[int]) -> Iterator[list[Sentence]]:
    """``pending`` in lists of ``sizes`` (then one at a time, should more come)."""
    for size in sizes:
        if not (chunk := list(islice(pending, size))):
            return
        yield chunk
    while chunk := list(islice(pending, 1)):
        yield chunk


def _init_task_worker(factory: Callable[..., Callable[[Any], Any]], options: dict[str, Any],
                      parent: int | None = None) -> None:
    if parent is not None:
        _exit_with_parent(parent)
    try:
        _WORKER_STATE["task"] = factory(**options)
    except Exception as exc:  # as in _init_worker
        _WORKER_STATE["error"] = exc


def _task(item: Any) -> Any:
    _raise_init_error()
    return _WORKER_STATE["task"](item)


def map_ordered(factory: Callable[..., Callable[[_T], _R]], options: dict[str, Any], items: Iterable[_T],
                workers: int) -> Iterator[_R]:
    """``work(item)`` for every item, in the items' order, where ``work = factory(**options)``.

    ``workers`` ≤ 1: in this process. Otherwise in a pool of spawned processes, each calling
    ``factory`` once (so it loads its models once); ``factory`` must be importable (a module-level
    function) and ``options`` and the items picklable. Results come back in input order, so
    the output does not depend on the worker count (as long as ``work`` depends only on its item).
    """
    if workers <= 1:
        work = factory(**options)
        for item in items:
            yield work(item)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context("spawn")  # fork would copy llama.cpp/torch thread state
    window = 2 * workers  # in flight at once: bounded memory, workers never idle
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_task_worker,
                             initargs=(factory, options, os.getpid())) as pool:
        futures: deque[Any] = deque()
        try:
            for item in items:
                futures.append(pool.submit(_task, item))
                if len(futures) >= window:
                    yield futures.popleft().result()
            while futures:
                yield futures.popleft().result()
        finally:  # an error or an early stop: the queued items need not run before the pool shuts down
            for future in futures:
                future.cancel()


class _RayActor:
    """A Ray actor: one set of models, many sentences (wrapped by ``ray.remote`` at run time)."""

    def __init__(self, config_dict: dict[str, Any]) -> None:
        _init_worker(config_dict)

    def work(self, data: list[dict[str, Any]]) -> list[WorkResult]:
        return _work(data)


def run_local(pending: Iterator[Sentence], config: AugmentConfig, workers: int,
              commit: Callable[[WorkResult], None], augmenter: Augmenter | None = None, *,
              sizes: list[int] | None = None) -> None:
    """In this process (``workers`` ≤ 1; ``augmenter``: models already loaded) or in a pool;
    the units of work are ``sizes`` sentences each (:func:`group_sizes`; by default one), each
    augmented together (:meth:`Augmenter.process_many`)."""
    if workers <= 1:
        aug = augmenter or Augmenter.build(config, worker="main")
        for chunk in _groups(pending, sizes or []):
            for result in aug.process_many(chunk):
                commit(result)
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    ctx = multiprocessing.get_context("spawn")  # fork would copy llama.cpp/torch thread state
    window = 2 * workers  # in flight at once: bounded memory, workers never idle
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker,
                             initargs=(config.to_dict(), os.getpid())) as pool:
        futures: set[Any] = set()
        for chunk in _groups(pending, sizes or []):
            futures.add(pool.submit(_work, [s.to_dict() for s in chunk]))
            if len(futures) >= window:
                done, futures = wait(futures, return_when=FIRST_COMPLETED)
                for f in done:
                    for result in f.result():
                        commit(result)
        for f in futures:
            for result in f.result():
                commit(result)


def run_ray(pending: Iterator[Sentence], config: AugmentConfig, workers: int, address: str | None,
            commit: Callable[[WorkResult], None], *, sizes: list[int] | None = None) -> None:
    """On ``workers`` Ray actors (a local Ray started for the run, or the cluster at ``address``)."""
    try:
        import ray
        from ray.util import ActorPool
    except ImportError:
        raise ParaspanError.from_code("E731") from None
    started = False
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:  # a local Ray, started on demand and stopped at the end
            ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False)
        started = True
    try:
        actor = ray.remote(num_cpus=1)(_RayActor)
        actors = [actor.remote(config.to_dict()) for _ in range(max(1, workers))]
        pool = ActorPool(actors)
        # ray's annotation says list; any iterable is taken
        for results in pool.map_unordered(lambda a, d: a.work.remote(d),
                                          ([s.to_dict() for s in chunk]
                                           for chunk in _groups(pending, sizes or []))):  # type: ignore[arg-type]
            for result in results:
                commit(result)
    finally:
        if started and not address:
            ray.shutdown()
