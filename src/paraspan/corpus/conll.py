"""Shared machinery for the token-per-line formats (CoNLL-U, CoNLL-2009, open-sesame, BIO).

* :func:`iter_blocks` streams blank-line-separated blocks, every row keeping its 1-based line
  number so that any later complaint can point at the exact line.
* :class:`DepTree` turns a head word into the character span of its dependency subtree
  (PropBank-style "argument marked on its head" annotations).
* :func:`sentence_tokens` gives the writers token offsets for a sentence (``meta["tokens"]``
  when they are still valid, a regex tokenizer otherwise).
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import IO, Any, NoReturn

from paraspan.corpus.jsonl import atomic_write, iter_text_lines
from paraspan.corpus.schema import Sentence, Span
from paraspan.errors import CorpusError, FormatError

# Error codes of the token formats (the JSONL reader uses E1xx, file access E01x).
E_COLUMNS = "E201"  # wrong number of columns
E_INDEX = "E202"  # token index not an integer / out of sequence
E_HEAD = "E203"  # dependency head not an integer / out of range
E_TAG = "E204"  # malformed BIO / IOBES tag
E_ARGCOLS = "E205"  # argument columns do not match the predicates
E_TEXT = "E206"  # tokens do not match the sentence text
E_ANCHOR = "E207"  # frame block without (or with clashing) target
E_EMPTY = "E208"  # an empty cell where a value is required

# Characters that some corpora leave behind on otherwise empty lines (WNUT17 ends with a lone
# BOM); a line made only of these counts as blank rather than as a one-column token line.
_INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060"


def fail(message: str, hint: str, file: str, line: int | None, code: str) -> NoReturn:
    # The token-format codes (E201-E208) are families: each reader words the case itself.
    raise CorpusError.from_code(code, file=file, line=line, problem=message, fix=hint)


@dataclass(slots=True)
class Row:
    """One non-blank line split into columns."""

    line: int
    cols: list[str]


@dataclass(slots=True)
class Block:
    """A blank-line-separated block: its comment lines (``#`` ...) and its rows."""

    rows: list[Row] = field(default_factory=list)
    comments: list[tuple[int, str]] = field(default_factory=list)

    @property
    def line(self) -> int:
        """Line number of the first line of the block."""
        first = [r.line for r in self.rows[:1]] + [n for n, _ in self.comments[:1]]
        return min(first) if first else 0


def is_blank(raw: str) -> bool:
    return not raw.strip().strip(_INVISIBLE).strip()


def iter_raw_lines(path: str | Path, what: str = "CoNLL") -> Iterator[tuple[int, str]]:
    """Yield ``(line number, line without its newline)`` for every line, blank ones included."""
    # utf-8-sig: a BOM at the start of the file is not part of the first token.
    return iter_text_lines(path, what, encoding="utf-8-sig")


def split_columns(raw: str, sep: str | None) -> list[str]:
    """Split on ``sep`` ("\\t"), or on runs of whitespace when ``sep`` is None."""
    return raw.split(sep) if sep is not None else raw.split()


def iter_blocks(
    path: str | Path, *, sep: str | None = "\t", comments: bool = False, what: str = "CoNLL"
) -> Iterator[Block]:
    """Stream the blocks of a token-per-line file; memory holds one block at a time.

    With ``comments`` (CoNLL-U), lines starting with ``#`` are comments, not tokens.
    """
    block = Block()
    for number, raw in iter_raw_lines(path, what):
        if is_blank(raw):
            if block.rows or block.comments:
                yield block
                block = Block()
            continue
        if comments and raw.startswith("#"):
            block.comments.append((number, raw))
            continue
        block.rows.append(Row(number, split_columns(raw, sep)))
    if block.rows or block.comments:
        yield block


def parse_int(value: str, *, file: str, line: int, what: str, code: str = E_INDEX) -> int:
    try:
        return int(value)
    except ValueError:
        fail(f"{what} must be an integer, got {value!r}", "check that the columns are not shifted",
             file, line, code)


def file_stem(path: str | Path) -> str:
    return "stdin" if str(path) == "-" else Path(path).name.split(".")[0] or Path(path).name


# --------------------------------------------------------------------------- dependency trees


@dataclass(slots=True)
class DepTree:
    """A dependency tree over 0-based token indices (``heads[i]`` = parent, -1 for the root)."""

    heads: list[int]
    children: list[list[int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.children = [[] for _ in self.heads]
        for i, h in enumerate(self.heads):
            if 0 <= h < len(self.heads) and h != i:
                self.children[h].append(i)

    @classmethod
    def from_conll_heads(cls, heads: Sequence[int]) -> DepTree:
        """From CoNLL heads (1-based, 0 = root)."""
        return cls([h - 1 for h in heads])

    def subtree_bounds(self, head: int) -> tuple[int, int]:
        """Leftmost and rightmost token of the subtree under ``head`` (cycle-safe)."""
        lo = hi = head
        seen = {head}
        stack = [head]
        while stack:
            node = stack.pop()
            for child in self.children[node]:
                if child not in seen:
                    seen.add(child)
                    lo, hi = min(lo, child), max(hi, child)
                    stack.append(child)
        return lo, hi

    def arg_hull(self, head: int, predicate: int | None = None) -> tuple[int, int]:
        """Token range (inclusive) of the argument headed by ``head``.

        The span is the contiguous hull of the head's subtree, but an argument never covers
        its own predicate: when the hull reaches over the predicate it is cut there, keeping
        the side of the head.
        """
        lo, hi = self.subtree_bounds(head)
        if predicate is not None and predicate != head and lo <= predicate <= hi:
            if predicate < head:
                lo = predicate + 1
            else:
                hi = predicate - 1
        return lo, hi


def check_heads(heads: Sequence[int], lines: Sequence[int], file: str, unit: str = "token") -> None:
    """Every head is a ``unit`` of the sentence (1-based) or 0 for the root."""
    for head, line in zip(heads, lines, strict=True):
        if not 0 <= head <= len(heads):
            fail(f"HEAD {head} is not a {unit} of this sentence (1..{len(heads)}, or 0 for the root)",
                 f"heads refer to {unit} IDs of the same sentence", file, line, E_HEAD)


def head_arg_spans(tags: Sequence[str], predicate: int, tree: DepTree, offsets: Sequence[tuple[int, int]],
                   punct: Sequence[str] | None, skip: Container[str]) -> list[Span]:
    """The argument spans of one predicate from its column of role tags, marked on head words.

    A tag in ``skip`` is no argument. An argument spans its head's subtree (:meth:`DepTree.arg_hull`),
    trimmed of edge punctuation when ``punct`` (UPOS-like tags) is given; a role on the predicate
    word itself (nominal and light-verb cases) is just that word.
    """
    args: list[Span] = []
    for j, tag in enumerate(tags):
        if tag in skip:
            continue
        lo, hi = (predicate, predicate) if j == predicate else trim_edge_punct(*tree.arg_hull(j, predicate), punct)
        args.append(Span(offsets[lo][0], offsets[hi][1], tag))
    return args


def conllu_meta(offsets: Sequence[tuple[int, int]], *, lemma: list[str], xpos: list[str], head: list[int],
                deprel: list[str], upos: list[str] | None = None) -> dict[str, Any]:
    """``meta`` of a sentence read from a dependency format: its tokens and the parse columns."""
    columns: dict[str, Any] = {"lemma": lemma}
    if upos is not None:
        columns["upos"] = upos
    columns.update({"xpos": xpos, "head": head, "deprel": deprel})
    return {"tokens": token_meta(offsets), "conllu": columns}


def trim_edge_punct(lo: int, hi: int, upos: Sequence[str] | None) -> tuple[int, int]:
    """Drop punctuation tokens at the edges of ``lo..hi`` (never the whole span)."""
    if not upos:
        return lo, hi
    while lo < hi and upos[lo] == "PUNCT":
        lo += 1
    while hi > lo and upos[hi] == "PUNCT":
        hi -= 1
    return lo, hi


# --------------------------------------------------------------------------- text alignment


def align_tokens(
    forms: Sequence[str], text: str, *, file: str, lines: Sequence[int]
) -> list[tuple[int, int]]:
    """Offsets of each form in ``text``, in order; whitespace inside a form may differ.

    Raises :class:`CorpusError` on the first form that is not found where expected.
    """
    offsets: list[tuple[int, int]] = []
    pos = 0
    n = len(text)
    for form, line in zip(forms, lines, strict=True):
        while pos < n and text[pos].isspace():
            pos += 1
        if text.startswith(form, pos):
            offsets.append((pos, pos + len(form)))
            pos += len(form)
            continue
        # Tolerate tokens whose internal spacing differs from the text ("1 000" vs "1000").
        start, i = pos, pos
        for ch in form:
            if ch.isspace():
                continue
            while i < n and text[i].isspace() and i > start:
                i += 1
            if i >= n or text[i] != ch:
                shown = text[pos : pos + len(form) + 10]
                fail(f"token {form!r} does not match the sentence text at character {pos} ({shown!r})",
                     "the '# text' comment must spell out the tokens in order", file, line, E_TEXT)
            i += 1
        if i == start:
            fail(f"empty token form {form!r}", "every token needs a form", file, line, E_EMPTY)
        offsets.append((start, i))
        pos = i
    return offsets


# --------------------------------------------------------------------------- writer helpers

# Words are runs of grapheme clusters that start with a word character, so a combining mark (Hindi vowel
# signs, a decomposed "é") stays with its base; any other non-space cluster is a token of its own.
_TOKEN_PATTERN = r"(?:(?=\w)\X)+(?:['’.\-](?:(?=\w)\X)+)*|(?!\s)\X"


@lru_cache(maxsize=1)
def _token_re() -> Any:
    import regex  # \X (extended grapheme clusters): the standard library's re has no such class

    return regex.compile(_TOKEN_PATTERN)


def regex_tokens(text: str) -> list[tuple[int, int]]:
    """A simple tokenizer: words (with inner apostrophes, dots, hyphens) and single symbols, never
    splitting a grapheme cluster (a base character and its combining marks)."""
    return [m.span() for m in _token_re().finditer(text)]


def valid_token_offsets(raw: Any, text: str) -> list[tuple[int, int]] | None:
    """``meta["tokens"]`` as tuples when it is well formed for ``text``, else None."""
    if not isinstance(raw, list) or not raw:
        return None
    out: list[tuple[int, int]] = []
    last_end = 0
    for item in raw:
        if not (isinstance(item, (list, tuple)) and len(item) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in item)):
            return None
        start, end = item
        # Offsets may repeat (syntactic words of one multiword token share its span).
        if start < 0 or end > len(text) or start >= end:
            return None
        if out and (start, end) == out[-1]:
            continue
        if start < last_end:
            return None
        out.append((start, end))
        last_end = end
    return out


def sentence_tokens(sentence: Sentence) -> tuple[list[tuple[int, int]], bool]:
    """Token offsets for writing ``sentence``, and whether ``meta["tokens"]`` had to be ignored.

    ``meta["tokens"]`` is used when it still fits the text: ordered, trimmed, and covering
    every non-space character (an edited text with stale offsets would lose words).
    Otherwise the text is re-tokenized with :func:`regex_tokens`.
    """
    raw = sentence.meta.get("tokens")
    text = sentence.text
    tokens = valid_token_offsets(raw, text)
    if tokens is not None and _covers_text(tokens, text):
        return tokens, False
    return regex_tokens(text), raw is not None


def _covers_text(tokens: Sequence[tuple[int, int]], text: str) -> bool:
    pos = 0
    for start, end in tokens:
        if text[pos:start].strip() or text[start].isspace() or text[end - 1].isspace():
            return False
        pos = end
    return not text[pos:].strip()


def covering_tokens(tokens: Sequence[tuple[int, int]], start: int, end: int) -> tuple[int, int] | None:
    """Indices (inclusive) of the tokens a character span touches, widened to token edges."""
    first = last = None
    for i, (s, e) in enumerate(tokens):
        if s < end and start < e:
            if first is None:
                first = i
            last = i
        elif s >= end:
            break
    if first is None or last is None:
        return None
    return first, last


def clean_cell(value: str) -> str:
    """A value safe to write into one column (no tabs or newlines; never empty)."""
    value = re.sub(r"[\t\r\n]+", " ", value).strip()
    return value or "_"


def token_meta(offsets: Sequence[tuple[int, int]]) -> list[list[int]]:
    """``meta["tokens"]`` form: JSON-friendly lists."""
    return [[s, e] for s, e in offsets]


# --------------------------------------------------------------------------- BIO tags

SCHEMES = ("auto", "iob1", "iob2", "iobes")
# BILOU spells IOBES' E and S as L and U.
_PREFIXES = {"B": "B", "I": "I", "E": "E", "S": "S", "L": "E", "U": "S"}


def parse_tag(tag: str, *, file: str, line: int) -> tuple[str, str | None]:
    """Split ``B-PER`` into ``("B", "PER")``; ``O`` into ``("O", None)``."""
    if tag == "O":
        return "O", None
    prefix, dash, label = tag.partition("-")
    if not dash or prefix not in _PREFIXES:
        fail(f"bad tag {tag!r}: expected O or B-/I-/E-/S- followed by a type",
             "tags look like O, B-PER, I-PER (IOB) or also E-PER, S-PER (IOBES)", file, line, E_TAG)
    if not label.strip():
        fail(f"bad tag {tag!r}: no type after {prefix}-", "write the type, e.g. B-PER", file, line, E_TAG)
    return _PREFIXES[prefix], label


@dataclass(slots=True)
class TagDecoder:
    """Turn a sequence of tags into token spans ``(first, last, type)``.

    ``auto`` reads IOB1, IOB2 and IOBES alike (B always opens, I continues a span of its type
    or opens one, E closes, S is a single token). The named schemes also check the sequence.
    """

    scheme: str = "auto"
    file: str = ""
    spans: list[tuple[int, int, str]] = field(default_factory=list)
    # Lines where I-/E- opened a span (IOB1 style, or an error in an IOB2 file), and whether a
    # B- tag opened a span (IOB2 evidence): together they tell readers what to warn about.
    orphans: list[int] = field(default_factory=list)
    b_opens: bool = False
    _open: tuple[int, str] | None = None  # (first token, type) of the span being read
    _index: int = 0

    def _close(self, last: int) -> None:
        if self._open is not None:
            self.spans.append((self._open[0], last, self._open[1]))
            self._open = None

    def _bad(self, tag: str, why: str, line: int) -> NoReturn:
        fail(f"tag {tag!r} {why} ({self.scheme.upper()})",
             "fix the tag sequence, or read with --scheme auto (scheme='auto' in Python) to accept it",
             self.file, line, E_TAG)

    def feed(self, tag: str, line: int) -> None:
        prefix, label = parse_tag(tag, file=self.file, line=line)
        i = self._index
        self._index += 1
        cont = self._open is not None and self._open[1] == label
        strict = self.scheme != "auto"
        if self.scheme == "iobes" and self._open is not None and prefix not in ("I", "E"):
            self._bad(tag, f"follows an unfinished {self._open[1]} span", line)
        if self.scheme in ("iob1", "iob2") and prefix in ("E", "S"):
            self._bad(tag, "is not allowed", line)
        if prefix == "O":
            self._close(i - 1)
        elif prefix == "B":
            if self.scheme == "iob1" and not cont:
                self._bad(tag, "must follow a span of the same type", line)
            self.b_opens = self.b_opens or not cont
            self._close(i - 1)
            self._open = (i, label or "")
        elif prefix == "I":
            if not cont:
                if strict and self.scheme != "iob1":
                    self._bad(tag, "does not continue a span of its type", line)
                self.orphans.append(line)
                self._close(i - 1)
                self._open = (i, label or "")
        elif prefix == "E":
            if not cont:
                if strict:
                    self._bad(tag, "does not continue a span of its type", line)
                self.orphans.append(line)
                self._close(i - 1)
                self._open = (i, label or "")
            self._close(i)
        else:  # S
            self._close(i - 1)
            self.spans.append((i, i, label or ""))

    def finish(self, line: int | None = None) -> list[tuple[int, int, str]]:
        if self.scheme == "iobes" and self._open is not None:
            fail(f"the {self._open[1]} span opened at token {self._open[0] + 1} is never closed (IOBES)",
                 "end IOBES spans with E- (or use S- for one token)", self.file, line, E_TAG)
        self._close(self._index - 1)
        return self.spans


def decode_tags(tags: Sequence[str], scheme: str = "auto", file: str = "",
                lines: Sequence[int] | None = None) -> list[tuple[int, int, str]]:
    """Token spans ``(first, last, type)`` of a tag sequence: paraspan's one BIO/IOBES decoder.

    ``auto`` repairs as conlleval does (an I- that continues nothing opens a span); the named
    schemes reject what breaks them, at ``lines[i]`` of ``file`` when given. Predicted tags
    (downstream SRL) go through here as much as the tags of a corpus file.
    """
    decoder = TagDecoder(scheme, file)
    for i, tag in enumerate(tags):
        decoder.feed(tag, lines[i] if lines is not None else i + 1)
    return decoder.finish(lines[-1] if lines else None)


def tag_spans(tokens: Sequence[tuple[int, int]],
              spans: Iterable[tuple[int, int, str]]) -> tuple[list[tuple[int, int, str]], int, int]:
    """Character spans ``(start, end, label)`` as BIO-writable token spans (inclusive, sorted).

    Returns ``(spans, uncovered, overlapping)``: a span covering no token is dropped, and of
    overlapping ones the first wins (BIO tags cannot nest); both are counted for the warnings.
    """
    out: list[tuple[int, int, str]] = []
    uncovered = overlapping = 0
    for start, end, label in spans:
        cover = covering_tokens(tokens, start, end)
        if cover is None:
            uncovered += 1
        elif any(cover[0] <= b and a <= cover[1] for a, b, _ in out):
            overlapping += 1
        else:
            out.append((cover[0], cover[1], label))
    return sorted(out), uncovered, overlapping


def iob2_tags(n: int, spans: Sequence[tuple[int, int, str]]) -> list[str]:
    """IOB2 tags for ``n`` tokens from non-overlapping token spans (inclusive)."""
    tags = ["O"] * n
    for first, last, label in spans:
        tags[first] = f"B-{label}"
        for j in range(first + 1, last + 1):
            tags[j] = f"I-{label}"
    return tags


def write_blocks(sentences: Iterable[Sentence], path: str | Path,
                 blocks: Callable[[Sentence, list[tuple[int, int]]], list[list[str]]]) -> tuple[int, int]:
    """Write every sentence's ``blocks(sentence, tokens)`` (rows; a blank line after each block).

    Returns ``(sentences written, sentences re-tokenized)``; a sentence without blocks is not written.
    """
    written = retokenized = 0
    with open_output(path) as handle:
        for sentence in sentences:
            tokens, stale = sentence_tokens(sentence)
            retokenized += stale
            rows = blocks(sentence, tokens)
            for block in rows:
                handle.write("\n".join(block) + "\n\n")
            written += bool(rows)
    return written, retokenized


class KindsLeftOut:
    """The structures of kinds a writer cannot hold, counted per kind (or refused: ``strict``)."""

    def __init__(self, fmt: str, held: Container[str], strict: bool = False) -> None:
        self.fmt, self.held, self.strict = fmt, held, strict
        self.counts: dict[str, int] = {}

    def check(self, sentence: Sentence) -> None:
        for structure in sentence.structures:
            if structure.kind not in self.held:
                if self.strict:
                    raise FormatError.from_code("E043", fmt=self.fmt, kind=structure.kind, sid=sentence.id,
                                                held=", ".join(sorted(self.held)))
                self.counts[structure.kind] = self.counts.get(structure.kind, 0) + 1

    def warnings(self) -> list[tuple[int, str]]:
        """For :func:`warn_counts`: one line per kind left out."""
        held = ", ".join(sorted(self.held))
        return [(n, f"{kind} structure(s) left out: the format holds only {held} (jsonl and docbin hold every "
                    "kind; --strict refuses)") for kind, n in sorted(self.counts.items())]


def warn_counts(fmt: str, counts: Sequence[tuple[int, str]]) -> None:
    """One warning ``"{fmt}: {n} {what}"`` per count that is not zero (the writer's caller is blamed)."""
    for n, what in counts:
        if n:
            warnings.warn(f"{fmt}: {n} {what}", stacklevel=3)


@contextmanager
def open_output(path: str | Path) -> Iterator[IO[str]]:
    """A text handle for a writer: stdout for '-', else an atomically replaced file."""
    if str(path) == "-":
        yield sys.stdout
        return
    with atomic_write(path) as handle:
        yield handle
