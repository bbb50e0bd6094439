"""The native JSONL format: one :class:`~paraspan.corpus.schema.Sentence` per line."""

from __future__ import annotations

import json
import os
import re
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


# An escaped UTF-16 surrogate (\ud800-\udfff): only a line holding one needs the full walk for lone ones.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_json(raw: str, *, file: str | None = None, line: int | None = None, code: str = "E100") -> Any:
    """The JSON value of one line; malformed JSON is error ``code`` (its message and column) at FILE:LINE,
    a number too long to read E044, nesting too deep for the parser E045 and a lone surrogate E046."""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise CorpusError.from_code(code, file=file, line=line, msg=exc.msg, column=exc.colno) from None
    except ValueError:  # int() refuses more digits than sys.get_int_max_str_digits()
        raise CorpusError.from_code("E044", file=file, line=line, digits=_max_digits()) from None
    except RecursionError:
        raise CorpusError.from_code("E045", file=file, line=line) from None
    if _SURROGATE_ESCAPE.search(raw):
        where = lone_surrogate(value)
        if where is not None:
            raise CorpusError.from_code("E046", file=file, line=line, where=where[0], char=where[1])
    return value


def _max_digits() -> int:
    import sys

    return sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300


def lone_surrogate(value: Any, where: str = "the line") -> tuple[str, str] | None:
    """Where in a JSON value a string holds a lone surrogate, and the escape of that character (else None)."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                return path, f"\\u{ord(found.group()):04x}"
        elif isinstance(item, dict):
            for key, sub in item.items():
                stack.append((f"{path} (a key)", key))
                stack.append((f"{key!r}" if path == where else f"{path}[{key!r}]", sub))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", sub) for i, sub in enumerate(item))
    return None


def parse_line(raw: str, *, file: str | None = None, line: int | None = None) -> Sentence:
    return Sentence.from_dict(parse_json(raw, file=file, line=line), file=file, line=line)


def iter_text_lines(path: str | Path, what: str, encoding: str = "utf-8") -> Iterator[tuple[int, str]]:
    """Yield ``(line number, line without its newline)`` for every line of a text file ('-' = stdin).

    The one place that opens an input file: a missing file, a folder, or bytes that are not
    UTF-8 become a :class:`CorpusError` naming ``what`` kind of file was expected (the line and byte of
    the first bad byte). A gzip-compressed file (``.jsonl.gz``) is read through gzip.
    """
    if str(path) == "-":
        import sys

        handle: IO[str] = sys.stdin
        close = False
        compressed = False
    else:
        try:
            with open(path, "rb") as probe:
                compressed = probe.read(2) == b"\x1f\x8b"
            if compressed:
                import gzip

                handle = gzip.open(path, "rt", encoding=encoding, newline="")
            else:
                handle = open(path, encoding=encoding, newline="")
        except FileNotFoundError:
            raise CorpusError.from_code("E010", file=str(path), what="file", fix="check the path") from None
        except IsADirectoryError:
            raise CorpusError.from_code("E011", file=str(path), what=what) from None
        except OSError as exc:
            raise CorpusError.from_code("E053", file=str(path), reason=exc.strerror or exc) from None
        close = True
    number = 0
    try:
        for number, raw in enumerate(handle, start=1):
            yield number, raw.rstrip("\r\n")
    except UnicodeDecodeError as exc:
        line, byte = (_bad_byte(path, encoding, number, compressed) if close else (number + 1, None))
        raise CorpusError.from_code("E012", file=str(path), line=line, reason=exc.reason,
                                    byte=byte if byte is not None else "?") from None
    except (EOFError, OSError) as exc:  # gzip: a truncated stream, a bad CRC, or not gzip after all
        if compressed:
            raise CorpusError.from_code("E047", file=str(path), line=number + 1, exc=exc) from None
        raise CorpusError.from_code("E053", file=str(path), reason=exc) from None
    finally:
        if close:
            handle.close()


def _bad_byte(path: str | Path, encoding: str, after: int, compressed: bool) -> tuple[int, int | None]:
    """The line (1-based) and the byte offset in the file of the first byte that does not decode.

    The text decoder reports an offset into the chunk it was decoding, not into the file: read the
    file again as bytes, a line at a time, from the last line that was read whole."""
    import gzip

    offset = 0
    opener = gzip.open if compressed else open
    with opener(path, "rb") as raw:
        for number, data in enumerate(raw, start=1):
            try:
                data.decode("utf-8-sig" if number == 1 and encoding == "utf-8-sig" else "utf-8")
            except UnicodeDecodeError as exc:
                if number >= after:
                    return number, offset + exc.start
            offset += len(data)
    return after + 1, None


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, text)`` for the non-blank lines of a UTF-8 file ('-' = stdin)."""
    for number, line in iter_text_lines(path, "JSONL", encoding="utf-8-sig"):  # a BOM is no part of line 1
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
    if target.is_dir():
        raise CorpusError.from_code("E041", file=str(target), option="the output", example=target / "out.jsonl")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise CorpusError.from_code("E042", file=str(target), reason=exc.strerror or exc) from None
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
