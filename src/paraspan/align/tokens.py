"""Word tokens for span alignment, and snapping character spans to their boundaries.

The aligners work on words, not subwords: candidate spans, the "within k" length window and
the returned spans are all in these tokens. The tokenizer is a deterministic regex that keeps
whitespace-tokenized text (the span tasks, CoNLL corpora) as it is, except that a word glued to
punctuation ("bought.") or a clitic ("didn't", "Anna's") is split the Penn Treebank way. Every
whitespace boundary is a token boundary, so spans given on whitespace tokens never widen.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# Order matters: the first alternative that matches at a position wins.
_TOKEN_RE = re.compile(
    r"""
      \w+(?=n['’]t\b)                  # "did" of "didn't"
    | n['’]t\b                         # n't
    | ['’](?:s|re|ve|ll|d|m)\b         # clitics: 's 're 've 'll 'd 'm
    | \w+(?:\.\w+)+\.?                 # u.s. / e.g. / 3.5
    | \d+(?:,\d{3})+                   # 3,000
    | \d+(?::\d\d)+                     # 8:45
    | -[lr][rcs]b-                     # PTB brackets: -lrb- -rsb-
    | \.{2,}                           # ...
    | \w+(?:[-/]\w+)*                  # words, well-known, and/or
    | [^\w\s]                          # any other single symbol
    """,
    re.VERBOSE | re.IGNORECASE,
)


@dataclass(frozen=True)
class Tokens:
    """A text's word tokens with their character offsets (``starts[i]:ends[i]``)."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.starts)

    @property
    def words(self) -> list[str]:
        return [self.text[s:e] for s, e in zip(self.starts, self.ends, strict=True)]

    def char_span(self, first: int, last: int) -> tuple[int, int]:
        """Character span of tokens ``first..last`` (inclusive)."""
        return self.starts[first], self.ends[last]

    def token_span(self, start: int, end: int) -> tuple[int, int] | None:
        """Tokens ``(first, last)`` (inclusive) that overlap ``[start, end)``; None if none do.

        A span that cuts a token includes the whole token: this is the widening rule.
        """
        first = last = None
        for i, (s, e) in enumerate(zip(self.starts, self.ends, strict=True)):
            if s < end and e > start:
                if first is None:
                    first = i
                last = i
            elif s >= end:
                break
        return None if first is None or last is None else (first, last)

    def snap(self, start: int, end: int) -> tuple[int, int] | None:
        """The smallest span on token boundaries that covers ``[start, end)``'s tokens."""
        span = self.token_span(start, end)
        return None if span is None else self.char_span(*span)


def tokenize(text: str) -> Tokens:
    """Split ``text`` into word tokens (see the module docstring)."""
    starts: list[int] = []
    ends: list[int] = []
    for match in _TOKEN_RE.finditer(text):
        starts.append(match.start())
        ends.append(match.end())
    return Tokens(text, tuple(starts), tuple(ends))


def token_set(tokens: Tokens, span: Sequence[int] | None) -> set[int]:
    """Indices of the tokens inside a character span (empty for None)."""
    if span is None:
        return set()
    found = tokens.token_span(int(span[0]), int(span[1]))
    return set() if found is None else set(range(found[0], found[1] + 1))
