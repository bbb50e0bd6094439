"""The native JSONL format: one :class:`~paraspan.corpus.schema.Sentence` per line."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from paraspan.corpus.schema import Sentence
from paraspan.errors import CorpusError, Problem, ProblemList


def dumps(sentence: Sentence) -> str:
    """The canonical serialisation of one sentence (no trailing newline)."""
    return json.dumps(sentence.to_dict(), ensure_ascii=False)


def parse_line(raw: str, *, file: str | None = None, line: int | None = None) -> Sentence:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise CorpusError(
            f"malformed JSON: {exc.msg} (column {exc.colno})",
            "each line must be one complete JSON object",
            file=file, line=line, code="E100",
        ) from None
    return Sentence.from_dict(data, file=file, line=line)


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, text)`` for the non-blank lines of a UTF-8 file ('-' = stdin)."""
    if str(path) == "-":
        import sys

        handle: IO[str] = sys.stdin
        close = False
    else:
        try:
            handle = open(path, encoding="utf-8", newline="")
        except FileNotFoundError:
            raise CorpusError("no such file", "check the path", file=str(path), code="E010") from None
        except IsADirectoryError:
            raise CorpusError("is a directory, not a JSONL file", "give the file's path", file=str(path),
                              code="E011") from None
        close = True
    try:
        for number, raw in enumerate(handle, start=1):
            stripped = raw.rstrip("\r\n")
            if stripped.strip():
                yield number, stripped
    except UnicodeDecodeError as exc:
        raise CorpusError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})",
                          "re-encode the file as UTF-8", file=str(path), code="E012") from None
    finally:
        if close:
            handle.close()


def read_jsonl(path: str | Path) -> Iterator[Sentence]:
    """Stream sentences; the first invalid line raises :class:`CorpusError` (FILE:LINE)."""
    name = str(path)
    seen: dict[str, int] = {}
    for number, raw in iter_lines(path):
        sentence = parse_line(raw, file=name, line=number)
        if sentence.id in seen:
            raise CorpusError(f"duplicate id {sentence.id!r} (first on line {seen[sentence.id]})",
                              "give every sentence a unique id", file=name, line=number, code="E108")
        seen[sentence.id] = number
        yield sentence


def validate_jsonl(path: str | Path, *, max_problems: int = 1000) -> tuple[int, ProblemList]:
    """Check every line; return (number of valid sentences, all problems found)."""
    name = str(path)
    problems = ProblemList()
    seen: dict[str, int] = {}
    valid = 0
    for number, raw in iter_lines(path):
        try:
            sentence = parse_line(raw, file=name, line=number)
        except CorpusError as exc:
            problems.problems.extend(exc.problems)
        else:
            if sentence.id in seen:
                problems.add(Problem(f"duplicate id {sentence.id!r} (first on line {seen[sentence.id]})",
                                     "give every sentence a unique id", name, number, "E108"))
            else:
                seen[sentence.id] = number
                valid += 1
        if len(problems.problems) >= max_problems:
            break
    return valid, problems


@contextmanager
def atomic_write(path: str | Path, mode: str = "w") -> Iterator[IO]:
    """Write to a temporary file beside ``path`` and rename it into place on success."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        handle_: IO = os.fdopen(fd, mode) if "b" in mode else os.fdopen(fd, mode, encoding="utf-8", newline="\n")
        with handle_ as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_jsonl(sentences: Iterable[Sentence], path: str | Path) -> int:
    """Write sentences atomically ('-' = stdout); return how many were written."""
    count = 0
    if str(path) == "-":
        import sys

        for sentence in sentences:
            sys.stdout.write(dumps(sentence) + "\n")
            count += 1
        return count
    with atomic_write(path) as handle:
        for sentence in sentences:
            handle.write(dumps(sentence) + "\n")
            count += 1
    return count
