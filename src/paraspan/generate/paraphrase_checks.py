"""Checks of a paraphrase request and of the model's answers: span problems, languages, answer cleaning."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import Any

from paraspan.generate.base import CharSpan
from paraspan.text.constraints import content_words, words

# ----------------------------------------------------------------------------- request checks


def span_problems(text: str, spans: Sequence[Any], key: str) -> list[str]:
    """What is wrong with a list of ``[start, end]`` spans over ``text`` (empty: nothing)."""
    problems = []
    for i, span in enumerate(spans):
        if (not isinstance(span, (list, tuple)) or len(span) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in span)):
            problems.append(f"{key}[{i}] must be [start, end] (two integers), not {span!r}")
            continue
        start, end = span
        if not 0 <= start < end <= len(text):
            problems.append(f"{key}[{i}] = [{start}, {end}] is out of range for a text of "
                            f"{len(text)} characters (need 0 <= start < end <= {len(text)})")
        elif not text[start:end].strip():
            problems.append(f"{key}[{i}] = [{start}, {end}] covers only whitespace")
    return problems


def overlap_problems(ban: Sequence[CharSpan], keep: Sequence[CharSpan]) -> list[str]:
    """A span cannot be both banned and kept (overlaps within one list are fine: a union)."""
    return [f"ban {list(b)} overlaps keep {list(k)}: text cannot be both banned and kept"
            for b in ban for k in keep if b[0] < k[1] and k[0] < b[1]]


def _latin_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    latin = sum(1 for c in letters if "LATIN" in unicodedata.name(c, ""))
    return latin / len(letters)


def skip_reason(text: str) -> str | None:
    """Why a text is not paraphrased at all (``None``: go ahead)."""
    if not text.strip():
        return "empty text"
    if not any(c.isalpha() for c in text):
        return "no words to paraphrase (the text has no letters)"
    if _latin_share(text) < 0.5:
        return "not English: most letters are not Latin script (paraspan paraphrases English)"
    return None


# ----------------------------------------------------------------------------- output cleaning

_PREAMBLE_RE = re.compile(
    r"^\s*(?:(?:here(?:'s| is)|this is|sure[,!.]?)\b[^:\n]{0,80}:"
    r"|(?:the\s+)?(?:paraphrased?|rewritten|rewrite|new|output|answer|result)(?:\s+(?:sentence|version|text))?\s*:"
    r"|sentence\s*:)\s*",
    re.IGNORECASE,
)
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb", "`": "`"}
_FINAL_RE = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*$")
_NORM_RE = re.compile(r"[^\w\s]|_")


def clean_output(text: str) -> str:
    """Strip preambles ("Paraphrase:", "Here is …:") and wrapping quotes from a model answer."""
    out = text.strip()
    for _ in range(2):
        stripped = _PREAMBLE_RE.sub("", out, count=1).strip()
        if stripped == out:
            break
        out = stripped
    for _ in range(2):
        if len(out) >= 2 and out[0] in _QUOTES:
            close = _QUOTES[out[0]]
            if out[-1] == close:
                out = out[1:-1].strip()
            elif len(out) >= 3 and out[-2] == close and out[-1] in ".!?":
                out = (out[1:-2] + out[-1]).strip()  # "…". → ….
    return out


def normalise(text: str) -> str:
    return " ".join(_NORM_RE.sub(" ", text.lower()).split())


#: the shortest run of words, with a content word in it, that a paraphrase may not repeat more often than its source
REPEAT_WORDS = 3


def repeated_run(source: str, candidate: str, length: int = REPEAT_WORDS) -> str | None:
    """The first run of ``length`` words (one of them a content word) that ``candidate`` has more often than
    ``source`` (a sampler that copied a kept phrase and then wrote it again); ``None`` when there is none."""
    def runs(text: str) -> Counter[tuple[str, ...]]:
        tokens = [w.lower() for w in words(text)]
        return Counter(tuple(tokens[i:i + length]) for i in range(len(tokens) - length + 1))

    had = runs(source)
    for run, count in runs(candidate).items():
        if count > max(1, had[run]) and content_words(" ".join(run)):
            return " ".join(run)
    return None


def _keeps_span(candidate: str, kept: str, at_start: bool) -> bool:
    pattern = re.escape(kept)
    if kept[:1].isalnum():
        pattern = r"(?<![^\W_])" + pattern
    if kept[-1:].isalnum():
        pattern += r"(?![^\W_])"
    if re.search(pattern, candidate):
        return True
    # A span that opened the source may lose its capital mid-sentence (and vice versa).
    if at_start and kept[:1].isalpha():
        return re.search(pattern.replace(re.escape(kept[0]), f"[{kept[0].lower()}{kept[0].upper()}]", 1),
                         candidate) is not None
    return False
