"""Fixtures for the review app: a prepared store and a real server on loopback."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from paraspan.pipeline.store import RunStore
from paraspan.review.tasks import GoldPool, ReviewSettings, prepare_output_tasks, prepare_tasks
from tests.report.store_fixture import gold_sentences, make_store


def prepared_store(path: Path, *, sample: int | None = None) -> Path:
    make_store(path)
    with RunStore.open(path) as store:
        pool = GoldPool()
        pool.add(store.iter_inputs())
        pool.add(gold_sentences())
        prepare_tasks(store, pool, seed=0, sample=sample)
    return path


def output_store(path: Path, *, sample: int | None = None, filter: str | None = None) -> Path:
    """The fixture run with output-mode tasks (and no trigger tasks)."""
    make_store(path)
    with RunStore.open(path) as store:
        prepare_output_tasks(store, seed=0, sample=sample, filter=filter)
    return path


@pytest.fixture
def review_store(tmp_path) -> Path:
    return prepared_store(tmp_path / "run.db")


@pytest.fixture
def review_output_store(tmp_path) -> Path:
    return output_store(tmp_path / "run.db")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    """uvicorn in a thread on 127.0.0.1, stopped when the test ends."""

    def __init__(self, store: Path, settings: ReviewSettings) -> None:
        import uvicorn

        from paraspan.review.app import create_app

        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(create_app(store, settings), host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the review server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture
def live_server(review_store) -> Iterator[LiveServer]:
    with LiveServer(review_store, ReviewSettings(redundancy=2)) as server:
        yield server


@pytest.fixture
def live_output_server(review_output_store) -> Iterator[LiveServer]:
    with LiveServer(review_output_store, ReviewSettings(redundancy=2, mode="output")) as server:
        yield server
