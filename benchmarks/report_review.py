"""Report and review app: how long a report of a large run takes, how big it is, and how fast the
review API answers (loopback only, bounded request loops).

    python benchmarks/report_review.py [--outputs 5000] [--cycles 200] [--readme]

A synthetic run store (templated sentences written for this benchmark, two iterations per input,
three filters) is built in a temporary folder; then

- ``paraspan report`` on it: wall and CPU seconds, HTML size;
- review task preparation for every output (gold pool = the run's inputs);
- ``--cycles`` task cycles (``POST /api/next`` + ``POST /api/judgments``) against a real uvicorn
  server on 127.0.0.1: by one annotator in sequence (latency per request), then by four
  annotators in parallel threads (throughput).
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import cpu_seconds, load_average, machine, peak_rss_mb  # noqa: E402

SUBJECTS = ["The baker", "Our neighbour", "A small firm", "The museum", "My cousin", "The council", "A farmer",
            "The school", "Her uncle", "The club"]
FRAMES = [("Commerce_sell", "sell.v", "sold", ["traded", "offered"]),
          ("Commerce_buy", "buy.v", "bought", ["purchased", "acquired"]),
          ("Giving", "give.v", "gave", ["handed", "donated"]),
          ("Statement", "say.v", "said", ["stated", "remarked"])]
OBJECTS = ["old books", "a red bicycle", "fresh bread", "two tickets", "a large painting", "warm blankets",
           "some apples", "a used car", "new chairs", "cold drinks"]


def build_store(path: Path, outputs: int) -> int:
    from paraspan.corpus.schema import Sentence, Span, Structure
    from paraspan.pipeline.store import CandidateRow, OutputRow, RunStore, WorkResult

    store = RunStore.create(path, {"benchmark": True})
    inputs = (outputs + 1) // 2
    sentences = []
    for i in range(inputs):
        subject = SUBJECTS[i % len(SUBJECTS)]
        frame, lu, verb, _ = FRAMES[(i // len(SUBJECTS)) % len(FRAMES)]
        obj = OBJECTS[(i // 40) % len(OBJECTS)]
        text = f"{subject} {verb} {obj} on day {i}."
        start = len(subject) + 1
        sentences.append(Sentence(f"b{i}", text, [Structure("frame", frame, Span(start, start + len(verb), lu),
                                                            [Span(0, len(subject), "Agent"),
                                                             Span(start + len(verb) + 1, start + len(verb) + 1
                                                                  + len(obj), "Theme")])]))
    store.add_inputs((s, i) for i, s in enumerate(sentences))
    written = 0
    for i, sentence in enumerate(sentences):
        frame, lu, verb, replacements = FRAMES[(i // len(SUBJECTS)) % len(FRAMES)]
        result = WorkResult(sentence.id, "done")
        for iteration, new in enumerate(replacements, start=1):
            if written >= outputs:
                break
            text = sentence.text.replace(verb, new, 1)
            anchor = sentence.structures[0].anchor
            shift = len(new) - len(verb)
            args = [Span(0, anchor.start - 1, "Agent"),
                    Span(sentence.structures[0].args[1].start + shift, sentence.structures[0].args[1].end + shift,
                         "Theme")]
            forward = -0.5 - 0.3 * iteration - (i % 7) * 0.05
            aligner = 0.99 - 0.02 * iteration - (i % 5) * 0.01
            out = Sentence(f"{sentence.id}~s0i{iteration}", text,
                           [Structure("frame", frame, Span(anchor.start, anchor.start + len(new), f"{new}.v"), args)],
                           source_id=sentence.id,
                           provenance={"iteration": iteration, "paraphrase": {"forward": forward},
                                       "aligner": {"anchor": aligner}})
            result.candidates.append(CandidateRow(0, iteration, 0, text, forward, forward - 0.1, 2 * forward,
                                                  (anchor.start, anchor.start + len(new)), aligner, True, True))
            result.outputs.append(OutputRow(out, 0, iteration, 0, forward, forward - 0.1, 2 * forward, aligner,
                                            aligner, frame, new, new,
                                            {"all": (True, "", None), "iter1": (iteration == 1, "", None),
                                             "align0.95": (aligner >= 0.95, "", aligner)}))
            written += 1
        store.commit_work(result)
    store.close()
    return written


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def review_loop(store: Path, cycles: int) -> dict[str, float]:
    import httpx
    import uvicorn

    from paraspan.review.app import create_app
    from paraspan.review.tasks import ReviewSettings

    port = _port()
    server = uvicorn.Server(uvicorn.Config(create_app(store, ReviewSettings(redundancy=3)), host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    url = f"http://127.0.0.1:{port}"

    def cycle(http: httpx.Client, name: str) -> tuple[float, float]:
        t0 = time.perf_counter()
        task = http.post("/api/next", json={"annotator": name}).json()
        t1 = time.perf_counter()
        body = {"annotator": name, "task": task["task"], "scores": {c["slot"]: 60 for c in task["candidates"]}}
        assert http.post("/api/judgments", json=body).status_code == 201
        return t1 - t0, time.perf_counter() - t1

    try:
        cpu = cpu_seconds()
        with httpx.Client(base_url=url, timeout=60) as http:
            timings = [cycle(http, "solo") for _ in range(cycles)]
        cpu_per_cycle = (cpu_seconds() - cpu) / cycles  # server and client: one process
        nexts = sorted(t[0] for t in timings)
        submits = sorted(t[1] for t in timings)

        def worker(index: int) -> int:
            with httpx.Client(base_url=url, timeout=60) as http:
                for _ in range(cycles // 4):
                    cycle(http, f"par{index}")
            return cycles // 4

        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=4) as pool:
            done = sum(pool.map(worker, range(4)))
        parallel = time.perf_counter() - start
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    return {"next_ms_p50": 1000 * statistics.median(nexts), "next_ms_p95": 1000 * nexts[int(0.95 * len(nexts))],
            "submit_ms_p50": 1000 * statistics.median(submits),
            "submit_ms_p95": 1000 * submits[int(0.95 * len(submits))],
            "cpu_ms_per_cycle": 1000 * cpu_per_cycle, "parallel_cycles": done,
            "parallel_cycles_per_s": done / parallel}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--outputs", type=int, default=5000)
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--readme", action="store_true", help="print the README table")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "report_review.json")
    args = parser.parse_args()

    from paraspan.pipeline.store import RunStore
    from paraspan.report.render import build_report
    from paraspan.review.tasks import GoldPool, prepare_tasks

    load_before = load_average()
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "run.db"
        outputs = build_store(store, args.outputs)
        wall, cpu = time.perf_counter(), cpu_seconds()
        build_report(store, Path(tmp) / "report.html")
        report = {"wall_s": time.perf_counter() - wall, "cpu_s": cpu_seconds() - cpu,
                  "html_mb": (Path(tmp) / "report.html").stat().st_size / 2**20}
        wall, cpu = time.perf_counter(), cpu_seconds()
        with RunStore.open(store) as run:
            pool = GoldPool()
            pool.add(run.iter_inputs())
            prepared = prepare_tasks(run, pool)
            prepare = {"wall_s": time.perf_counter() - wall, "cpu_s": cpu_seconds() - cpu, "tasks": prepared.tasks}
        review = review_loop(store, args.cycles)
    result = {"date": time.strftime("%Y-%m-%d"), "machine": machine(), "load_before": load_before,
              "load_after": load_average(), "outputs": outputs, "report": report, "prepare": prepare,
              "review": {"cycles": args.cycles, **review}, "peak_rss_mb": peak_rss_mb()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    if args.readme:
        r = result
        print("| outputs | report wall s | report CPU s | HTML MB | prepare tasks wall / CPU s | next p50 / p95 ms | "
              "submit p50 / p95 ms | CPU ms per cycle | 4 annotators, cycles/s | peak RSS MB |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        print(f"| {outputs:,} | {report['wall_s']:.1f} | {report['cpu_s']:.1f} | {report['html_mb']:.1f} | "
              f"{prepare['wall_s']:.1f} / {prepare['cpu_s']:.1f} | "
              f"{review['next_ms_p50']:.0f} / {review['next_ms_p95']:.0f} | "
              f"{review['submit_ms_p50']:.0f} / {review['submit_ms_p95']:.0f} | {review['cpu_ms_per_cycle']:.0f} | "
              f"{review['parallel_cycles_per_s']:.0f} | {r['peak_rss_mb']:.0f} |")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
