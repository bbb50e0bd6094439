"""The worker plan (`--workers auto`): cores, free memory and inputs on made-up machines."""

from __future__ import annotations

import pytest

from paraspan.errors import ParaspanError
from paraspan.pipeline.resources import (
    GB,
    WORKER_MEMORY,
    WORKER_OVERHEAD,
    available_memory,
    parse_amount,
    plan_workers,
    usable_cores,
    worker_memory,
)


def test_two_cores_plenty_of_memory_gives_two_single_threaded_workers():
    plan = plan_workers("auto", "auto", cores=2, free_memory=24 * GB)
    assert (plan.workers, plan.threads) == (2, 1)
    assert plan.limited_by == ["cores"] and plan.memory_workers == 6 and not plan.warnings
    assert plan.describe() == ("2 workers × 1 thread (auto: 2 cores, 24.0 GB free / 3.5 GB per worker; "
                               "limited by cores)")


def test_many_cores_little_memory_is_memory_bound_and_the_threads_take_the_cores():
    plan = plan_workers("auto", "auto", cores=16, free_memory=8 * GB)
    assert (plan.workers, plan.threads) == (2, 8) and plan.limited_by == ["memory"]
    assert plan.workers * plan.threads <= 16
    assert plan_workers("auto", "auto", cores=16, free_memory=8 * GB, per_worker_memory=int(1.5 * GB)).workers == 5


def test_explicit_workers_above_the_cores_are_lowered_with_a_warning():
    told: list[str] = []
    plan = plan_workers(8, "auto", cores=2, free_memory=64 * GB, warn=told.append)
    assert (plan.workers, plan.threads) == (2, 1) and plan.limited_by == ["cores"]
    assert told == plan.warnings and len(told) == 1
    assert "--workers 8" in told[0] and "2 cores" in told[0]


def test_explicit_workers_above_the_memory_say_what_each_needs_and_what_is_free():
    told: list[str] = []
    plan = plan_workers(4, "auto", cores=8, free_memory=7 * GB, warn=told.append)
    assert (plan.workers, plan.threads) == (2, 4) and plan.limited_by == ["memory"]
    assert "about 3.5 GB" in told[0] and "7.0 GB is free" in told[0] and "running 2" in told[0]


def test_explicit_workers_that_fit_are_kept_silently():
    told: list[str] = []
    plan = plan_workers(2, 3, cores=8, free_memory=64 * GB, warn=told.append)
    assert (plan.workers, plan.threads, plan.limited_by, told) == (2, 3, [], [])


def test_explicit_threads_leave_room_and_oversubscription_is_told():
    assert plan_workers("auto", 2, cores=8, free_memory=64 * GB).workers == 4
    told: list[str] = []
    plan = plan_workers(2, 2, cores=2, free_memory=64 * GB, warn=told.append)
    assert (plan.workers, plan.threads) == (2, 2) and "more than the 2 cores" in told[0]


def test_no_more_workers_than_inputs_and_at_least_one():
    plan = plan_workers("auto", "auto", cores=8, free_memory=64 * GB, tasks=3)
    assert (plan.workers, plan.threads, plan.limited_by) == (3, 2, ["inputs"])
    told: list[str] = []
    plan = plan_workers("auto", "auto", cores=4, free_memory=1 * GB, warn=told.append)
    assert plan.workers == 1 and "running 1 worker anyway" in told[0]


def test_unknown_memory_is_bounded_by_the_cores_only():
    plan = plan_workers("auto", None, cores=3, read_memory=False)
    assert (plan.workers, plan.threads, plan.memory_workers) == (3, 1, None)
    assert plan.to_dict()["available_memory_gb"] is None and "unknown free" in plan.describe()


def test_a_gpu_gets_one_worker():
    plan = plan_workers("auto", "auto", cores=16, free_memory=64 * GB, gpu=True)
    assert (plan.workers, plan.threads, plan.limited_by) == (1, 16, ["gpu"])


def test_the_summary_form_records_what_and_why():
    data = plan_workers("auto", "auto", cores=2, free_memory=24 * GB, tasks=10).to_dict()
    assert data["workers"] == 2 and data["threads"] == 1 and data["requested_workers"] == "auto"
    assert data["available_memory_gb"] == 24.0 and data["per_worker_memory_gb"] == 3.5
    assert data["reason"].startswith("2 workers × 1 thread (auto: 2 cores")


def test_parse_amount():
    assert parse_amount("auto", "--workers") == "auto" and parse_amount(None, "--workers") == "auto"
    assert parse_amount(" AUTO ", "--workers") == "auto" and parse_amount("3", "--workers") == 3
    for bad in ("0", "-1", "many", "1.5"):
        with pytest.raises(ParaspanError) as info:
            parse_amount(bad, "--threads")
        assert info.value.code == "E875" and "--threads" in str(info.value)


def test_worker_memory_per_model(tmp_path):
    # the verified filter loads the default LLM whatever the generator: a small one needs as much
    assert worker_memory("default") == worker_memory(None) == worker_memory("small") == WORKER_MEMORY
    gguf = tmp_path / "m.gguf"
    with gguf.open("wb") as handle:  # a sparse 3 GB file: larger than the default model's
        handle.truncate(3 * GB)
    assert worker_memory(str(gguf)) == 3 * GB + WORKER_OVERHEAD
    assert worker_memory(str(gguf), base=int(3.5 * GB)) == int(3.5 * GB) + 3 * GB + WORKER_OVERHEAD - WORKER_MEMORY
    small = tmp_path / "s.gguf"
    small.write_bytes(b"\0" * 1000)
    assert worker_memory(str(small)) == worker_memory(str(tmp_path / "missing.gguf")) == WORKER_MEMORY
    assert worker_memory("default", base=int(3.5 * GB)) == int(3.5 * GB)


def test_this_machine(tmp_path):
    assert usable_cores() >= 1
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24000000 kB\nMemFree:         1000 kB\nMemAvailable:   20000000 kB\n")
    assert available_memory(meminfo) == 20000000 * 1024
    meminfo.write_text("MemTotal:       24000000 kB\n")
    assert available_memory(meminfo) is None and available_memory(tmp_path / "none") is None
