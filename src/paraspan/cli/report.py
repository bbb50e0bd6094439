"""``paraspan report``, ``paraspan review`` and ``paraspan judgments``.

Heavy imports (matplotlib, FastAPI, uvicorn, the FrameNet reader) happen inside the commands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from paraspan.cli.common import console, read_input
from paraspan.errors import ParaspanError

_Opt = typer.Option


def report_cmd(
    store_path: Annotated[Path, typer.Argument(help="Run store written by `paraspan augment --store`.")],
    out: Annotated[Path, _Opt("--output", "-o", help="The HTML report (one self-contained file).")] = Path(
        "report.html"),
    max_rows: Annotated[int, _Opt("--max-rows", min=0, help="Outputs listed in the table (all are counted "
                                                            "in the numbers and plots).")] = 20000,
) -> None:
    """Write one self-contained HTML page about a run: summary numbers, yield per iteration, score
    histograms, filter trade-offs, judgments, and a sortable, filterable table of the outputs with
    source and paraphrase side by side and their spans coloured by label."""
    import os

    from paraspan.report.render import build_report

    data = build_report(store_path, out, max_rows=max_rows)
    os.chmod(out, 0o644)  # a report is for sharing (the atomic write creates it private)
    size = out.stat().st_size
    console().print(f"wrote {out} ({size / 1024:,.0f} KiB): {data.counts['outputs']:,} outputs, "
                     f"{len(data.rows):,} in the table, {len(data.filters)} filters, "
                     f"{data.judgments['judgments']:,} judgments")


def _gold_pool(store: Any, frames: Path | None, splits: Path | None, gold_split: str | None,
               gold: list[Path]) -> Any:
    from paraspan.corpus.formats import read_corpus
    from paraspan.review.tasks import GoldPool

    pool = GoldPool()
    pool.add(store.iter_inputs())
    if frames is not None:
        split = gold_split if splits is not None else None
        pool.add(read_corpus(frames, "framenet", split=split, splits=splits))
    for path in gold:
        pool.add(read_input(path, None))
    return pool


def review_cmd(
    store_path: Annotated[Path, typer.Argument(help="Run store written by `paraspan augment --store`.")],
    port: Annotated[int, _Opt("--port", "-p", min=0, max=65535, help="Port to serve on.")] = 8765,
    host: Annotated[str, _Opt("--host", help="Address to serve on (loopback by default: the app has no "
                                             "login).")] = "127.0.0.1",
    frames: Annotated[Path | None, _Opt("--frames", help="A FrameNet release (folder or .tar.gz): frame "
                                                         "definitions, and its full-text sentences as gold "
                                                         "controls and examples.")] = None,
    splits: Annotated[Path | None, _Opt("--splits", help="With --frames: the document split JSON file.")] = None,
    gold_split: Annotated[str, _Opt("--gold-split", help="With --frames and --splits: the split whose "
                                                         "sentences may be shown.")] = "train",
    gold: Annotated[list[Path] | None, _Opt("--gold", help="More gold sentences for controls and examples "
                                                           "(any corpus paraspan reads; repeatable).")] = None,
    filter_name: Annotated[str | None, _Opt("--filter", help="Review only the outputs this recorded filter "
                                                             "kept (output mode: `all` is every output, kept "
                                                             "or rejected).")] = None,
    sample: Annotated[int | None, _Opt("--sample", min=1, help="Review a random sample of N outputs.")] = None,
    mode: Annotated[str, _Opt("--mode", help="`trigger`: does the highlighted anchor evoke the frame (with "
                                             "gold controls, Culkin et al.); `output`: is the whole output "
                                             "right (English, meaning, every span and label), with a note "
                                             "KIND: text.")] = "trigger",
    redundancy: Annotated[int, _Opt("--redundancy", min=1, help="Annotators per task (the paper: 3).")] = 3,
    lease: Annotated[float, _Opt("--lease", min=1, help="Seconds a handed-out task stays reserved.")] = 1800,
    seed: Annotated[int, _Opt("--seed", help="Seed of control choice and candidate order.")] = 0,
    prepare_only: Annotated[bool, _Opt("--prepare-only", help="Write the tasks into the store and exit.")] = False,
) -> None:
    """Serve the review app: human 0–100 judgments of outputs, mixed blindly with gold in-frame and
    out-of-frame controls (Culkin et al. 2021 §6.1); or, with --mode output, judgments of whole
    outputs (source and output side by side, every span labelled) with a note saying what was
    wrong first. Judgments go to the run store."""
    from paraspan.pipeline.store import RunStore
    from paraspan.review.tasks import ReviewSettings, mode_of, prepare_output_tasks, prepare_tasks

    err = console()
    tables = mode_of(mode)
    definitions: dict[str, str] = {}
    with RunStore.open(store_path) as store:
        if frames is not None:
            from paraspan.corpus.frame_index import FrameIndex

            definitions = {f.name: f.definition for f in FrameIndex.load(frames)}
        if tables.name == "output":  # no controls: no gold pool
            result = prepare_output_tasks(store, seed=seed, definitions=definitions, filter=filter_name,
                                          sample=sample)
        else:
            pool = _gold_pool(store, frames, splits, gold_split, list(gold or []))
            result = prepare_tasks(store, pool, seed=seed, definitions=definitions, filter=filter_name,
                                   sample=sample)
        total = int(store.conn.execute(f"SELECT COUNT(*) FROM {tables.tasks}").fetchone()[0])
    if tables.name == "output":
        err.print(f"{total:,} review tasks in output mode ({result.tasks:,} new)")
    else:
        err.print(f"{total:,} review tasks ({result.tasks:,} new) from {len(pool):,} gold structures"
                  + (f"; {result.skipped} outputs without an anchor skipped" if result.skipped else ""))
    if result.no_in_frame or result.same_lu or result.no_out_frame:
        err.print(f"[yellow]note[/yellow] of the new tasks, {result.no_in_frame} have no gold in-frame control, "
                  f"{result.same_lu} one with the output's own LU, {result.no_out_frame} no out-of-frame control"
                  " — give more gold sentences with --gold or --frames", markup=True)
    if total == 0:
        raise ParaspanError.from_code("E768", file=str(store_path))
    if prepare_only:
        return
    import uvicorn

    from paraspan.review.app import create_app

    if host not in ("127.0.0.1", "localhost", "::1"):
        err.print(f"[yellow]warning[/yellow] serving on {host}: anyone who can reach it can submit judgments",
                  markup=True)
    app = create_app(store_path, ReviewSettings(redundancy=redundancy, lease=lease, mode=tables.name), host=host)
    err.print(f"review at http://{host}:{port}/  (Ctrl+C stops)")
    uvicorn.run(app, host=host, port=port, log_level="warning")


def judgments_cmd(
    store_path: Annotated[Path, typer.Argument(help="Run store with judgments.")],
    out: Annotated[Path, _Opt("--output", "-o", help='Judgments JSONL ({"output_id", "score", ...} per line), '
                                                     "as `paraspan train-filter` reads it.")],
    controls: Annotated[Path | None, _Opt("--controls", help="Also write the gold control ratings here.")] = None,
    stats_path: Annotated[Path | None, _Opt("--stats", help="Agreement statistics JSON "
                                                            "(default: OUT.stats.json).")] = None,
    mode: Annotated[str | None, _Opt("--mode", help="Only the judgments of this review mode (`trigger` or "
                                                    "`output`); default: all.")] = None,
) -> None:
    """Export the judgments of a run for `paraspan train-filter`, with agreement statistics: Fleiss'
    kappa on binarised scores (≥ 50 = accept) and the acceptance rates of the gold controls. A
    judgment's `note` is the annotator's note ("meaning: ..."); `task`, `mode` and `seconds` say
    where it came from."""
    from rich.table import Table

    from paraspan.corpus.jsonl import atomic_write
    from paraspan.pipeline.store import RunStore
    from paraspan.review.stats import agreement, export_judgments
    from paraspan.review.tasks import mode_of

    if mode is not None:
        mode_of(mode)
    with RunStore.open(store_path, readonly=True) as store:
        written, n_controls = export_judgments(store, out, controls=controls, mode=mode)
        stats = agreement(store, mode=mode)
    spath = stats_path or out.with_name(out.name.removesuffix(".jsonl") + ".stats.json")
    with atomic_write(spath) as handle:
        json.dump(stats, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
    err = console()
    table = Table(title="judgments")
    for name in ("items", "judgments", "mean", "accepted"):
        table.add_column(name, justify="left" if name == "items" else "right")

    def pct(value: float | None) -> str:
        return "–" if value is None else f"{100 * value:.1f}%"

    for kind, title in (("system", "system outputs"), ("gold-in", "gold in-frame"), ("gold-out", "gold out-of-frame")):
        row = stats[kind]
        table.add_row(title, f"{row['judgments']:,}", "–" if row["mean"] is None else f"{row['mean']:.1f}",
                      pct(row["accepted"]))
    err.print(table)
    kappa = stats["fleiss_kappa"]
    err.print(f"Fleiss' kappa (binarised, {stats['system']['outputs_with_2plus']} outputs with 2+ judgments): "
              + ("–" if kappa is None else f"{kappa:.3f}") + f"; all agree {pct(stats['all_agree'])}")
    also = f", {n_controls:,} control ratings to {controls}" if controls else ""
    err.print(f"wrote {written:,} judgments to {out}{also}; statistics {spath}")
