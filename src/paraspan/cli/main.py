"""The ``paraspan`` command line.

Every command turns a :class:`~paraspan.errors.ParaspanError` into ``FILE:LINE: what — fix``
lines on stderr and a non-zero exit; tracebacks are for bugs only.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from paraspan import __version__
from paraspan.cli.common import (
    Exemplars,
    FromFormat,
    Limit,
    Progress,
    Scheme,
    Split,
    Splits,
    TrimPunct,
    console,
    input_format,
    progress,
    reader_options,
    table_console,
)
from paraspan.errors import ParaspanError

app = typer.Typer(
    name="paraspan",
    help="Grow span-annotated corpora (FrameNet, PropBank SRL, NER) with label-preserving rewrites.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# `paraspan evaluate alignment|diversity|downstream ...`: evaluators register here.
evaluate_app = typer.Typer(help="Evaluate predictions and outputs (alignment, diversity, downstream).",
                           no_args_is_help=True)
app.add_typer(evaluate_app, name="evaluate")

EXIT_INPUT = 1  # bad input or configuration
EXIT_CHECK = 3  # a check (doctor, validate) found problems

MAX_SHOWN_PROBLEMS = 20


def report_error(exc: ParaspanError) -> None:
    err = console()
    for problem in exc.problems[:MAX_SHOWN_PROBLEMS]:
        err.print(f"[red]error[/red] [{problem.code}] {problem}", markup=True, highlight=False)
    hidden = len(exc.problems) - MAX_SHOWN_PROBLEMS
    if hidden > 0:
        err.print(f"... and {hidden} more problems")


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"paraspan {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """paraspan: read → generate → project → filter → select → write."""


@app.command()
def convert(
    src: Annotated[Path, typer.Argument(help="Input file or folder (FrameNet release folder or .tar.gz).")],
    out: Annotated[Path, typer.Option("--output", "-o", help="Output file ('-' for stdout, JSONL only).")],
    from_fmt: FromFormat = None,
    to_fmt: Annotated[str | None, typer.Option("--to", "-t", help="Output format (default: from -o).")] = None,
    split: Split = None,
    splits: Splits = None,
    exemplars: Exemplars = False,
    scheme: Scheme = None,
    trim_punct: TrimPunct = False,
    limit: Limit = None,
    strict: Annotated[bool, typer.Option("--strict", help="Refuse (write nothing) when the output format "
                                                           "cannot hold a structure kind of the input, "
                                                           "instead of leaving those structures out with a "
                                                           "warning.")] = False,
    show: Progress = True,
) -> None:
    """Convert a corpus between formats (all readers go through the one schema)."""
    from itertools import islice

    from paraspan.cli.common import check_output
    from paraspan.corpus.formats import guess_format, kinds_held, read_corpus, write_corpus

    from_fmt = input_format(src, from_fmt, default=None)
    if to_fmt is None:
        to_fmt = guess_format(out) or "jsonl"
    if str(out) == "-" and to_fmt != "jsonl":
        raise ParaspanError.from_code("E022")
    check_output(out, inputs=[src, *([splits] if splits is not None else [])])
    start = time.perf_counter()
    sentences = read_corpus(src, from_fmt, **reader_options(split=split, splits=splits, exemplars=exemplars,
                                                            scheme=scheme, trim_punct=trim_punct))
    if limit is not None:
        sentences = islice(sentences, limit)
    held = kinds_held(to_fmt)
    counted = _Counted(progress(sentences, f"{from_fmt} → {to_fmt}", show, unit="sentences"), held)
    written = write_corpus(counted, out, to_fmt, **({"strict": True} if strict and held is not None else {}))
    seconds = time.perf_counter() - start
    left_out = f"; {counted.left_out} the format cannot hold were left out" if counted.left_out else ""
    console().print(f"wrote {written} sentences ({counted.structures} structures{left_out}) to {out} "
                    f"as {to_fmt} in {seconds:.1f}s")


class _Counted:
    """Pass sentences through while counting their structures: those of the kinds the output
    format holds (``held``; None: all) and those it leaves out."""

    def __init__(self, items: Iterator, held: frozenset[str] | None = None) -> None:
        self.items = items
        self.held = held
        self.structures = 0
        self.left_out = 0

    def __iter__(self) -> Iterator:
        for sentence in self.items:
            kept = sum(1 for s in sentence.structures if self.held is None or s.kind in self.held)
            self.structures += kept
            self.left_out += len(sentence.structures) - kept
            yield sentence


@app.command()
def stats(
    src: Annotated[Path, typer.Argument(help="Corpus file (or FrameNet release).")],
    from_fmt: FromFormat = None,
    split: Split = None,
    splits: Splits = None,
    exemplars: Exemplars = False,
    scheme: Scheme = None,
    trim_punct: TrimPunct = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False,
    top: Annotated[int, typer.Option(help="How many labels to list per kind.")] = 10,
) -> None:
    """Count sentences, structures by kind, arguments and labels."""
    from paraspan.corpus.formats import read_corpus
    from paraspan.corpus.stats import compute_stats

    result = compute_stats(read_corpus(src, input_format(src, from_fmt),
                                       **reader_options(split=split, splits=splits, exemplars=exemplars,
                                                        scheme=scheme, trim_punct=trim_punct)))
    data = result.to_dict(top=None if as_json else top)
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    screen = Console()
    summary = Table(title=f"{src}", show_header=True)
    summary.add_column("what")
    summary.add_column("count", justify="right")
    for key in ("sentences", "augmented", "documents", "tokens", "sentences_without_structures"):
        summary.add_row(key.replace("_", " "), f"{data[key]:,}")
    for kind, count in data["structures"].items():
        summary.add_row(f"{kind} structures", f"{count:,}")
        summary.add_row(f"{kind} args", f"{data['args'].get(kind, 0):,}")
        summary.add_row(f"{kind} distinct labels", f"{data['distinct_labels'].get(kind, 0):,}")
    screen.print(summary)
    for kind, labels in data["labels"].items():
        # Structure labels and argument labels side by side, most frequent first.
        table = Table(title=f"top {kind} labels")
        for name in ("label", "count", "arg label", "count"):
            table.add_column(name, justify="right" if name == "count" else "left")
        rows = list(labels.items())
        arg_rows = list(data["arg_labels"].get(kind, {}).items())
        for i in range(max(len(rows), len(arg_rows))):
            left = (rows[i][0], f"{rows[i][1]:,}") if i < len(rows) else ("", "")
            right = (arg_rows[i][0], f"{arg_rows[i][1]:,}") if i < len(arg_rows) else ("", "")
            table.add_row(*left, *right)
        screen.print(table)


@app.command()
def validate(
    src: Annotated[Path, typer.Argument(help="JSONL corpus file.")],
    max_problems: Annotated[int, typer.Option(help="Stop after this many problems.")] = 1000,
) -> None:
    """Check every line of a JSONL corpus against the schema and report all problems."""
    from paraspan.corpus.jsonl import validate_jsonl

    valid, problems = validate_jsonl(src, max_problems=max_problems)
    if problems:
        problems.raise_if_any()
    console().print(f"{src}: {valid} sentences, all valid")


@app.command()
def formats() -> None:
    """List the readers and writers."""
    from paraspan.corpus.formats import readers, writers

    table = Table(title="formats")
    table.add_column("name")
    table.add_column("read")
    table.add_column("write")
    table.add_column("description")
    read, write = readers(), writers()
    for name in sorted(set(read.names()) | set(write.names())):
        description = (read.entries.get(name) or write.entries[name]).description
        table.add_row(name, "yes" if name in read else "", "yes" if name in write else "", description)
    Console().print(table)


@app.command()
def doctor(
    only: Annotated[list[str] | None, typer.Option("--only", help="Check only these (repeatable).")] = None,
    skip: Annotated[list[str] | None, typer.Option("--skip", help="Skip these checks (repeatable).")] = None,
) -> None:
    """Load every model, run one tiny inference each, and print what is OK and how to fix what is not."""
    from paraspan.models.doctor import CHECKS, run_doctor

    names = list(only) if only else list(CHECKS)
    unknown = [n for n in [*(only or []), *(skip or [])] if n not in CHECKS]
    if unknown:
        raise ParaspanError.from_code("E030", choices=", ".join(unknown), choices2=", ".join(CHECKS))
    names = [n for n in names if n not in set(skip or [])]
    results = run_doctor(names)
    # Logs (CI, `make demo | tee`) are not terminals: give the table room instead of rich's 80 columns.
    render_table(results, table_console())
    if not all(r.ok for r in results):
        raise typer.Exit(EXIT_CHECK)


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--output", "-o", help="Folder for the demo outputs.")] = Path("out/demo"),
) -> None:
    """Convert the small FrameNet-style corpus bundled with paraspan into every output format."""
    from importlib.resources import as_file, files

    from paraspan.corpus.formats import read_corpus, write_corpus
    from paraspan.corpus.stats import compute_stats

    resource = files("paraspan") / "data" / "demo" / "framenet_demo.jsonl"
    with as_file(resource) as path:
        sentences = list(read_corpus(path, "jsonl"))
    out.mkdir(parents=True, exist_ok=True)
    screen = Console()
    for fmt, name in (("jsonl", "demo.jsonl"), ("opensesame", "demo.conll"), ("docbin", "demo.spacy")):
        written = write_corpus(sentences, out / name, fmt)
        screen.print(f"wrote {written} sentences to {out / name} ({fmt})")
    data = compute_stats(sentences).to_dict(top=5)
    (out / "stats.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    kinds = ", ".join(f"{n} {kind}" for kind, n in data["structures"].items())
    screen.print(f"{data['sentences']} sentences, {kinds} structures, {sum(data['args'].values())} args "
                  f"→ {out / 'stats.json'}")


# Commands defined in their own modules (each imports its heavy dependencies lazily, inside the
# command function). One line per command keeps this file free of merge conflicts.
# -- registered commands --
from paraspan.cli.paraphrase import diversity_cmd, paraphrase_cmd  # noqa: E402
app.command("paraphrase")(paraphrase_cmd)
evaluate_app.command("diversity")(diversity_cmd)
from paraspan.cli.align import align_cmd, evaluate_alignment_cmd, train_aligner_cmd  # noqa: E402
app.command("align")(align_cmd)
app.command("train-aligner")(train_aligner_cmd)
evaluate_app.command("alignment")(evaluate_alignment_cmd)
from paraspan.cli.relations import relabel_cmd, train_nli_cmd  # noqa: E402
app.command("relabel")(relabel_cmd)
app.command("train-nli")(train_nli_cmd)
from paraspan.cli.infill import infill_cmd, train_fe_classifier_cmd  # noqa: E402
app.command("infill")(infill_cmd)
app.command("train-fe-classifier")(train_fe_classifier_cmd)
from paraspan.cli.downstream import downstream_cmd  # noqa: E402
evaluate_app.command("downstream")(downstream_cmd)
from paraspan.cli.rewrite import learn_rules_cmd, refine_rules_cmd, rewrite_cmd, rules_app, rules_list_cmd  # noqa: E402
app.command("rewrite")(rewrite_cmd)
app.command("refine-rules")(refine_rules_cmd)
app.command("learn-rules")(learn_rules_cmd)
rules_app.command("list")(rules_list_cmd)
app.add_typer(rules_app, name="rules")
from paraspan.cli.augment import augment_cmd, export_cmd, train_filter_cmd  # noqa: E402
app.command("augment")(augment_cmd)
app.command("export")(export_cmd)
app.command("train-filter")(train_filter_cmd)
from paraspan.cli.report import judgments_cmd, report_cmd, review_cmd  # noqa: E402
app.command("report")(report_cmd)
app.command("review")(review_cmd)
app.command("judgments")(judgments_cmd)
from paraspan.cli.verify import train_verifier_cmd  # noqa: E402
app.command("train-verifier")(train_verifier_cmd)
from paraspan.cli.train import train_generator_cmd  # noqa: E402
app.command("train-generator")(train_generator_cmd)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:  # type: ignore[no-untyped-def]
    # Readers warn about data they repaired (with FILE:LINE in the message); show it as one plain line.
    console().print(f"[yellow]warning[/yellow] {message}", markup=True, highlight=False)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning input errors into FILE:LINE messages."""
    import warnings

    warnings.showwarning = _show_warning
    try:
        command = typer.main.get_command(app)
        guard_outputs(command)
        # outside standalone mode click returns the code of an Exit (typer turns Ctrl+C into Exit(130))
        code = command.main(args=argv, prog_name="paraspan", standalone_mode=False)
    except ParaspanError as exc:
        report_error(exc)
        return EXIT_INPUT
    except typer.Exit as exc:
        return exc.exit_code
    except KeyboardInterrupt:
        console().print("interrupted")
        return 130
    except Exception as exc:  # click's usage errors, from whichever click the installed typer uses
        handled = usage_error(exc)
        if handled is None:
            raise
        return handled
    return code if isinstance(code, int) and not isinstance(code, bool) else 0


EXIT_USAGE = 2  # a command line click could not parse (unknown option, missing argument, bad value)


def _click_exception_modules() -> list[Any]:
    """``click.exceptions`` and, where typer vendors its own copy of click (typer >= 0.2x), that copy's."""
    import importlib

    modules = []
    for name in ("click.exceptions", "typer._click.exceptions"):
        try:
            modules.append(importlib.import_module(name))
        except ImportError:
            continue
    return modules


def usage_error(exc: BaseException) -> int | None:
    """Print a click exception as one line (what, and how to fix it); its exit code, or None when
    ``exc`` is not one of click's (then it is a bug and its traceback is wanted)."""
    from rich.markup import escape

    aborts = tuple(a for a in (getattr(typer, "Abort", None), *(getattr(m, "Abort", None)
                                                                for m in _click_exception_modules()))
                   if isinstance(a, type))
    if isinstance(exc, aborts):
        console().print("aborted")
        return 1
    for module in _click_exception_modules():
        if type(exc).__name__ == "NoArgsIsHelpError" and isinstance(exc, module.UsageError):
            # a group run without a command: its help is the answer
            typer.echo(exc.ctx.get_help() if exc.ctx is not None else exc.format_message())
            return EXIT_USAGE
        if isinstance(exc, module.UsageError):
            ctx = exc.ctx
            path = ctx.command_path if ctx is not None else "paraspan"
            what = " ".join(exc.format_message().split())
            console().print(f"[red]error[/red] \\[usage] {escape(path)}: {escape(what)} — see `{escape(path)} --help`",
                            markup=True, highlight=False, soft_wrap=True)
            return EXIT_USAGE
        if isinstance(exc, module.ClickException):
            what = " ".join(exc.format_message().split())
            console().print(f"[red]error[/red] {escape(what)}", markup=True, highlight=False)
            return int(exc.exit_code)
    return None


#: Options whose files a command writes; every other path it is given is an input it must not write over.
_OUTPUT_OPTIONS = frozenset({"-o", "--output", "--rejected", "--summary"})


def guard_outputs(command: Any) -> None:
    """Wrap every command of the click group ``command`` so that, before it runs, an output path that
    is the same file as one of its input paths (or its --store) is refused (E040)."""
    import functools

    for sub in getattr(command, "commands", {}).values():
        guard_outputs(sub)
    callback = getattr(command, "callback", None)
    outputs = [p.name for p in getattr(command, "params", []) if set(getattr(p, "opts", ())) & _OUTPUT_OPTIONS]
    if callback is None or not outputs or getattr(callback, "_paraspan_guarded", False):
        return

    @functools.wraps(callback)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        from paraspan.cli.common import check_output

        inputs = {name: value for name, value in kwargs.items() if name not in outputs}
        for name in outputs:
            value = kwargs.get(name)
            if isinstance(value, Path):
                check_output(value, inputs=_paths(inputs), directory_ok=True)
        return callback(*args, **kwargs)

    guarded._paraspan_guarded = True  # type: ignore[attr-defined]
    command.callback = guarded


def _paths(values: dict[str, Any]) -> dict[str, Path]:
    """The path-valued parameters among ``values`` (lists of paths as NAME[i])."""
    found: dict[str, Path] = {}
    for name, value in values.items():
        if isinstance(value, Path):
            found[name] = value
        elif isinstance(value, (list, tuple)):
            found.update({f"{name}[{i}]": v for i, v in enumerate(value) if isinstance(v, Path)})
    return found


if __name__ == "__main__":
    sys.exit(main())


def render_table(results: Sequence[Any], console: Console | None = None) -> Table:
    """A rich table of the results; printed too when ``console`` is given."""
    from rich.markup import escape

    from paraspan.models.doctor import human_size
    from rich.table import Table

    table = Table(title="paraspan doctor", show_lines=False)
    for column, justify in (("check", "left"), ("ok", "center"), ("package", "left"),
                            ("size", "right"), ("load", "right"), ("path", "left"),
                            ("detail / fix", "left")):
        table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for r in results:
        load = f"{r.load_seconds:.2f} s" if r.load_seconds is not None else "-"
        note = escape(r.detail)
        if not r.ok:
            note = f"[red]{note}[/red]" + (f"\nfix: {escape(r.fix)}" if r.fix else "")
        table.add_row(r.name, "[green]✓[/green]" if r.ok else "[red]✗[/red]",
                      r.source_package or "-", human_size(r.size_bytes), load,
                      escape(str(r.path)) if r.path else "-", note)
    if console is not None:
        console.print(table)
    return table
