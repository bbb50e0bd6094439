"""The native JSONL format: one :class:`~paraspan.corpus.schema.Sentence` per line."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from paraspan.corpus.schema import Sentence
from paraspan.errors import CorpusError, Problem, ProblemList


def dumps(sentence: Sentence) -> str:
    """The canonical serialisation of one sentence (no trailing newline)."""
    return json.dumps(sentence.to_dict(), ensure_ascii=False)


def parse_json(raw: str, *, file: str | None = None, line: int | None = None, code: str = "E100") -> Any:
    """The JSON value of one line; malformed JSON is error ``code`` (its message and column) at FILE:LINE."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise CorpusError.from_code(code, file=file, line=line, msg=exc.msg, column=exc.colno) from None


def parse_line(raw: str, *, file: str | None = None, line: int | None = None) -> Sentence:
    return Sentence.from_dict(parse_json(raw, file=file, line=line), file=file, line=line)


def iter_text_lines(path: str | Path, what: str, encoding: str = "utf-8") -> Iterator[tuple[int, str]]:
    """Yield ``(line number, line without its newline)`` for every line of a text file ('-' = stdin).

    The one place that opens an input file: a missing file, a folder, or bytes that are not
    UTF-8 become a :class:`CorpusError` naming ``what`` kind of file was expected.
    """
    if str(path) == "-":
        import sys

        handle: IO[str] = sys.stdin
        close = False
    else:
        try:
            handle = open(path, encoding=encoding, newline="")
        except FileNotFoundError:
            raise CorpusError.from_code("E010", file=str(path), what="file", fix="check the path") from None
        except IsADirectoryError:
            raise CorpusError.from_code("E011", file=str(path), what=what) from None
        close = True
    try:
        for number, raw in enumerate(handle, start=1):
            yield number, raw.rstrip("\r\n")
    except UnicodeDecodeError as exc:
        raise CorpusError.from_code("E012", file=str(path), reason=exc.reason, byte=exc.start) from None
    finally:
        if close:
            handle.close()


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, text)`` for the non-blank lines of a UTF-8 file ('-' = stdin)."""
    for number, line in iter_text_lines(path, "JSONL"):
        if line.strip():
            yield number, line


def read_jsonl(path: str | Path) -> Iterator[Sentence]:
    """Stream sentences; the first invalid line raises :class:`CorpusError` (FILE:LINE)."""
    name = str(path)
    seen: dict[str, int] = {}
    for number, raw in iter_lines(path):
        sentence = parse_line(raw, file=name, line=number)
        if sentence.id in seen:
            raise CorpusError.from_code("E108", file=name, line=number, id=sentence.id, first="first",
                                        first_line=seen[sentence.id])
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
                problems.add(Problem.from_code("E108", name, number, id=sentence.id, first="first",
                                               first_line=seen[sentence.id]))
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
