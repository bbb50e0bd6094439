"""What every command shares: the stderr console, progress displays and the reader options.

The library prints nothing; it takes a ``progress`` (or ``log``) callback, and the commands hand
it one of these. Reader flags are declared once here as ``Annotated`` aliases, so ``--from`` or
``--splits`` mean the same in every command that reads a corpus.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Annotated, Any

import typer

from paraspan.errors import ParaspanError

if TYPE_CHECKING:
    from rich.console import Console

    from paraspan.corpus.schema import Sentence

# -- reader options (same flag, same meaning, in every command) --
FromFormat = Annotated[str | None, typer.Option("--from", "-f", help="Input format (default: from the file name; "
                                                                     "see `paraspan formats`).")]
Split = Annotated[str | None, typer.Option("--split", help="FrameNet: train, dev or test (needs --splits).")]
Splits = Annotated[Path | None, typer.Option("--splits", help="FrameNet: the document split JSON file.")]
Exemplars = Annotated[bool, typer.Option("--exemplars", help="FrameNet: LU exemplar sentences.")]
Scheme = Annotated[str | None, typer.Option("--scheme", help="bio: auto, iob1, iob2 or iobes (strict).")]
TrimPunct = Annotated[bool, typer.Option("--trim-punct", help="conllu-srl, conll2009: trim punctuation.")]
Limit = Annotated[int | None, typer.Option("--limit", min=0, help="Stop after this many input sentences.")]
Progress = Annotated[bool, typer.Option("--progress/--no-progress", help="Show progress on stderr.")]
#: What -o gets (the others go to --rejected, when given): a filter spec of paraspan.filter.
FilterSpec = Annotated[str, typer.Option("--filter", help="What -o gets: verified (span shape, numbers and names, "
                                         "content words, span labels, meaning, fluency all checked), all, or any "
                                         "filter (labels, spans, fluency, facts, content, relation, a preset or "
                                         "rule, learned:PATH, or a filter with options as JSON: "
                                         "'{\"name\": \"verified\", \"new_content\": true}'). "
                                         "Each output's provenance records the checks.")]
Rejected = Annotated[Path | None, typer.Option("--rejected", help="Write the outputs the filter rejects here "
                                               "(JSONL, with the checks' reasons in provenance).")]


def reader_options(*, split: str | None = None, splits: Path | None = None, exemplars: bool = False,
                   scheme: str | None = None, trim_punct: bool = False) -> dict[str, Any]:
    """The ``read_corpus`` keyword options of the reader flags that were given (unset ones left out,
    so a reader that does not take an option only hears of it when the user passed it)."""
    given = {"split": split, "splits": splits, "exemplars": exemplars, "scheme": scheme, "trim_punct": trim_punct}
    return {key: value for key, value in given.items() if value is not None and value is not False}


def input_format(path: Path, fmt: str | None, default: str | None = "jsonl") -> str:
    """``fmt``, else the format the file name tells, else ``default`` (an error when that is None, or
    when the name says the file is in some other format that the name alone cannot pin down: a
    ``.conll`` file is open-sesame or CoNLL-2009, never JSONL)."""
    from paraspan.corpus.formats import guess_format, not_jsonl

    found = fmt or guess_format(path)
    if found is None and default == "jsonl" and not_jsonl(path):
        default = None
    found = found or default
    if found is None:
        raise ParaspanError.from_code("E021", path=path)
    return found


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file (links included; by resolved path when one does not exist yet)."""
    import os

    try:
        return os.path.samefile(a, b)
    except OSError:
        try:
            return a.resolve() == b.resolve()
        except (OSError, RuntimeError):
            return False


def check_output(out: Path, *, inputs: dict[str, Path] | Iterable[Path] = (), store: Path | None = None,
                 directory_ok: bool = False, option: str = "-o") -> None:
    """Refuse, before any work, an output that would write over an input (E040), the run store
    (E040) or that is a directory (E041, unless ``directory_ok``: commands whose -o is a folder)."""
    if str(out) == "-":
        return
    if not directory_ok and out.is_dir():
        raise ParaspanError.from_code("E041", file=str(out), option=option, example=out / "out.jsonl")
    named = list(inputs.values()) if isinstance(inputs, dict) else list(inputs)
    for path in ([store] if store is not None else []) + named:
        if str(path) != "-" and same_file(out, path):
            raise ParaspanError.from_code("E040", option=option, out=out, path=path,
                                          what="the run store" if path is store else "an input")


def read_input(path: Path, fmt: str | None, *, limit: int | None = None, default: str | None = "jsonl",
               **options: Any) -> Iterator[Sentence]:
    """Stream the sentences of ``path`` (format as :func:`input_format` decides), at most ``limit``."""
    from itertools import islice

    from paraspan.corpus.formats import read_corpus

    sentences = read_corpus(path, input_format(path, fmt, default), **options)
    return islice(sentences, limit) if limit is not None else sentences


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM (``kill``, a scheduler's stop) is a KeyboardInterrupt in the main thread,
    as Ctrl+C is: the run is marked interrupted and temporary stores are removed; the old handler is put
    back after."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def mark_interrupted(store_path: Path) -> None:
    """Mark the store's running run interrupted (its worker may be stopped before it can say so)."""
    from paraspan.pipeline.store import RunStore

    try:
        with RunStore.open(store_path, timeout=5.0) as store:
            store.interrupt_running()
    except Exception:  # noqa: BLE001 - best effort while stopping: the interrupt itself must go on
        return


# -- consoles --
def use_threads(threads: int | None) -> None:
    """Give torch ``threads`` CPU threads in this process (None: leave torch's default).

    Threads are process-wide state: a command (or a worker it starts) sets them once, from its
    ``--threads``; library code never does.
    """
    if threads is None:
        return
    import torch

    torch.set_num_threads(max(1, int(threads)))


def feature_cache(name: str) -> Path:
    """A per-user folder for a command's cached encoder features (``<paraspan cache>/features/NAME``):
    a fixed name in the shared temp folder would be anyone's to read or fill."""
    from paraspan.models.cache import cache_dir as paraspan_cache
    from paraspan.models.cache import check_private

    folder = paraspan_cache() / "features" / name
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    check_private(folder)
    return folder


def console() -> Console:
    """The console for messages: stderr, so stdout stays clean for data ('-o -')."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def table_console(width: int = 160) -> Console:
    """A stdout console for tables; logs (CI, `| tee`) are not terminals, so give them ``width`` columns."""
    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() else width)


def show_progress(enabled: bool) -> bool:
    """Whether to draw progress: asked for and stderr is a terminal (never in logs or tests)."""
    return enabled and sys.stderr.isatty()


# -- progress --
class ProgressBar:
    """A rich progress display on stderr (a no-op when off), to hand to library code as a callback.

    ``bar(done, total=None, **info)`` sets the main row to ``done`` (of ``total``, when known;
    ``info`` is shown beside it, e.g. ``outputs=12``); ``bar.advance(n)`` moves it by ``n``;
    ``bar.stage(description)`` adds another row and returns its ``advance()``. With a total the
    row is a bar with an ETA; without one, a spinner with the count and the elapsed time.
    """

    def __init__(self, description: str = "", total: int | None = None, *, enabled: bool = True,
                 unit: str = "") -> None:
        self.description, self.total, self.unit = description, total, unit
        self.enabled = show_progress(enabled)
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> ProgressBar:
        if not self.enabled:
            return self
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        unit = f" {self.unit}" if self.unit else ""
        if self.total is None:
            columns: list[Any] = [SpinnerColumn(), TextColumn("[bold]{task.description}"),
                                  TextColumn("{task.completed:,}" + unit), TimeElapsedColumn()]
        else:
            columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeRemainingColumn()]
        columns.append(TextColumn("{task.fields[info]}"))
        self._progress = Progress(*columns, console=console(), transient=True)
        self._progress.__enter__()
        if self.description:
            self._task = self._progress.add_task(self.description, total=self.total, info="")
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.__exit__(kind, exc, trace)
            self._progress = None

    def __call__(self, done: int, total: int | None = None, **info: Any) -> None:
        if self._progress is None or self._task is None:
            return
        fields = {"info": ", ".join(f"{value:,} {key}" if isinstance(value, int) else f"{key} {value}"
                                    for key, value in info.items())} if info else {}
        self._progress.update(self._task, completed=done, **({"total": total} if total is not None else {}),
                              **fields)

    def advance(self, n: int = 1) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task, n)

    def stage(self, description: str, total: int | None = None) -> Callable[[], None]:
        """Another row (one per stage of a multi-stage job); returns its ``advance()``."""
        if self._progress is None:
            return lambda: None
        rows = self._progress
        task = rows.add_task(description, total=total, info="")
        return lambda: rows.advance(task)


def progress(items: Iterable[Any], description: str, enabled: bool, total: int | None = None,
             unit: str = "") -> Iterator[Any]:
    """Yield ``items`` while a progress row on stderr counts them (nothing drawn when off)."""
    with ProgressBar(description, total, enabled=enabled, unit=unit) as bar:
        for item in items:
            yield item
            bar.advance()
