"""Fixtures for pipeline tests: a small corpus written for the tests, and the fake models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paraspan.pipeline import AugmentConfig

FAKE = {"generator": "tests.pipeline.fakes:make_generator", "aligner": "tests.pipeline.fakes:make_aligner"}

SENTENCES = [
    {"id": "a", "text": "The farmer sold his tractor to a neighbour.",
     "structures": [{"kind": "frame", "label": "Commerce_sell", "anchor": {"start": 11, "end": 15, "label": "sell.v"},
                     "args": [{"start": 0, "end": 10, "label": "Seller"}, {"start": 16, "end": 27, "label": "Goods"},
                              {"start": 28, "end": 42, "label": "Buyer"}]}]},
    {"id": "b", "text": "No frames in this one.", "structures": []},
    {"id": "c", "text": "My sister bought a bicycle.",
     "structures": [{"kind": "frame", "label": "Commerce_buy", "anchor": {"start": 10, "end": 16, "label": "buy.v"},
                     "args": [{"start": 0, "end": 9, "label": "Buyer"}]}]},
    {"id": "d", "text": "The train arrived late.",
     "structures": [{"kind": "frame", "label": "Arriving", "anchor": {"start": 10, "end": 17, "label": "arrive.v"},
                     "args": [{"start": 0, "end": 9, "label": "Theme"}]},
                    {"kind": "entity", "label": "VEHICLE", "anchor": {"start": 4, "end": 9, "label": None}, "args": []}]},
]


def with_(config: AugmentConfig, **changes) -> AugmentConfig:
    """``config`` with ``changes`` (validated, as a run config would be)."""
    return AugmentConfig.from_dict({**config.to_dict(), **changes})


def write_corpus(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def corpus(tmp_path) -> Path:
    return write_corpus(tmp_path / "corpus.jsonl", SENTENCES)


@pytest.fixture
def fake_config() -> AugmentConfig:
    return AugmentConfig(iterations=3, **FAKE)
