"""Turn token lists (CoNLL, BIO) into natural text while keeping each token's offsets.

Rule-based, Moses-like: no space before closing punctuation and clitics, none after opening
brackets, paired quotes attach inward. Enough for English corpora; token offsets are kept so
that nothing is lost when the guess about spacing is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence

_NO_SPACE_BEFORE = {",", ".", ";", ":", "!", "?", "%", ")", "]", "}", "...", "''", "'s", "'S", "n't", "N'T",
                    "'re", "'ve", "'ll", "'d", "'m", "'RE", "'VE", "'LL", "'D", "'M", "-RRB-", "-RSB-", "'"}
_NO_SPACE_AFTER = {"(", "[", "{", "$", "``", "#", "-LRB-", "-LSB-"}


def detokenize(tokens: Sequence[str], space_after: Sequence[bool] | None = None) -> tuple[str, list[tuple[int, int]]]:
    """Join tokens into text; return the text and each token's ``(start, end)`` offsets.

    When ``space_after`` is given (e.g. from CoNLL-U ``SpaceAfter=No``) it is used as is;
    otherwise spacing is guessed from the tokens.
    """
    if space_after is not None and len(space_after) != len(tokens):
        raise ValueError("space_after must have one flag per token")
    pieces: list[str] = []
    offsets: list[tuple[int, int]] = []
    pos = 0
    open_double_quote = False
    for i, token in enumerate(tokens):
        if i > 0:
            if space_after is not None:
                space = space_after[i - 1]
            else:
                prev = tokens[i - 1]
                space = True
                if token in _NO_SPACE_BEFORE or prev in _NO_SPACE_AFTER:
                    space = False
                if prev == '"' and open_double_quote:
                    space = False  # just after an opening quote
                if token == '"' and open_double_quote:
                    space = False  # closing quote hugs the word before
            if space:
                pieces.append(" ")
                pos += 1
        if token == '"':
            open_double_quote = not open_double_quote
        pieces.append(token)
        offsets.append((pos, pos + len(token)))
        pos += len(token)
    return "".join(pieces), offsets


def token_span_to_chars(offsets: Sequence[tuple[int, int]], first: int, last: int) -> tuple[int, int]:
    """Character span covering tokens ``first..last`` (inclusive)."""
    return offsets[first][0], offsets[last][1]
