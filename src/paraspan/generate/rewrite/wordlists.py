"""The word lists of the hand-written rewrite rules, read from ``data/wordlists.json``.

Each list has a name, what it holds (``about``) and its entries in groups, each group with the
reason its words are there and, for a mapping (a verb → the preposition it governs), the value
its words map to. The file is read on first use and kept per path; a missing or malformed file,
or a rule asking for a list it does not hold, is an error naming the file and the line.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

from paraspan.errors import CorpusError

WORDLISTS_FILE = "wordlists.json"
FORMAT = "paraspan-word-lists"


@dataclass(frozen=True)
class WordList:
    """One list: its words, what each maps to (``None`` when it is a plain set) and why each is there."""

    name: str
    about: str
    words: frozenset[str]
    values: dict[str, str] | None
    reasons: dict[str, str]


def shipped_path() -> Path:
    resource = files("paraspan.generate.rewrite") / "data" / WORDLISTS_FILE
    with as_file(resource) as path:
        return Path(path)


def _line_of(text: str, needle: str) -> int | None:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else None


@functools.cache
def load_wordlists(path: Path | None = None) -> dict[str, WordList]:
    """Every list of the file at ``path`` (default: the shipped one), checked."""
    path = path or shipped_path()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CorpusError.from_code("E473", file=str(path), problem=f"cannot be read ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise CorpusError.from_code("E473", file=str(path), line=line, problem=f"is not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("lists"), dict):
        raise CorpusError.from_code("E473", file=str(path), line=1,
                                    problem=f'is not a word-list file ({{"format": "{FORMAT}", "lists": {{…}}}})')
    return {name: _parse_list(name, body, path, text) for name, body in data["lists"].items()}


def _parse_list(name: str, body: Any, path: Path, text: str) -> WordList:
    line = _line_of(text, json.dumps(name) + ":")
    if not isinstance(body, dict) or not isinstance(body.get("entries"), list):
        raise CorpusError.from_code("E473", file=str(path), line=line,
                                    problem=f'list "{name}" has no "entries" list')
    reasons: dict[str, str] = {}
    values: dict[str, str] = {}
    for entry in body["entries"]:
        ok = (isinstance(entry, dict) and isinstance(entry.get("reason"), str) and entry["reason"].strip()
              and isinstance(entry.get("words"), list) and all(isinstance(w, str) and w for w in entry["words"]))
        if not ok:
            raise CorpusError.from_code("E473", file=str(path), line=line,
                                        problem=f'an entry of list "{name}" lacks its "reason" or "words"')
        for word in entry["words"]:
            reasons[word] = entry["reason"]
            if "value" in entry:
                values[word] = str(entry["value"])
    if values and len(values) != len(reasons):
        raise CorpusError.from_code("E473", file=str(path), line=line,
                                    problem=f'list "{name}" maps some entries to a "value" and not others')
    return WordList(name, str(body.get("about", "")), frozenset(reasons), values or None, reasons)


def word_list(name: str, path: Path | None = None) -> WordList:
    """The list ``name`` (E474 when the file has none of that name)."""
    lists = load_wordlists(path)
    if name not in lists:
        raise CorpusError.from_code("E474", file=str(path or shipped_path()), name=name,
                                    known=", ".join(sorted(lists)))
    return lists[name]


def words(name: str) -> frozenset[str]:
    """The words of the shipped list ``name``."""
    return word_list(name).words


def word_map(name: str) -> dict[str, str]:
    """The shipped mapping ``name``: word → value."""
    return word_list(name).values or {}
