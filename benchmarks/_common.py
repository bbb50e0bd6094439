"""What every benchmark script records about the machine it ran on (imported by the scripts)."""

from __future__ import annotations

import os
import platform
import resource
from pathlib import Path
from typing import Any


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    """CPU time of this process (all threads): with one thread busy it is close to the time the work
    would take on an otherwise idle core, whatever else the machine is running."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def load_average() -> list[float]:
    """1-, 5- and 15-minute load averages: timings taken under load say so."""
    return [round(x, 2) for x in os.getloadavg()]


def machine() -> dict[str, Any]:
    return {"cpu": cpu_name(), "cores": len(os.sched_getaffinity(0)), "python": platform.python_version(),
            "platform": platform.platform()}
