"""The aligner interface: tasks in, one result per task out, batched.

A task asks: which span of ``target`` means what ``source[source_span]`` means? Offsets are
character offsets; spans are half-open ``[start, end)``. Aligners answer on word-token
boundaries (:mod:`paraspan.align.tokens`); a source span that cuts a token is widened first and
the result says so.

Aligners are registered by name as ``"module:factory"`` strings, so choosing one imports only
what it needs (torch and the encoder for ``discriminative`` and ``argmax``, numpy for ``ibm2``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from paraspan.align.tokens import Tokens, tokenize
from paraspan.registry import Registry

Span = tuple[int, int]


@dataclass(frozen=True)
class AlignTask:
    """One span-alignment question; ``gold`` is only used by the evaluation and by training."""

    id: str
    source: str
    target: str
    source_span: Span
    gold: Span | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)  # passed through

    def __post_init__(self) -> None:
        s, e = self.source_span
        if not (0 <= s < e <= len(self.source)):
            raise ValueError(f"source_span {list(self.source_span)} is not inside the source "
                             f"(length {len(self.source)}) or is empty")
        if self.gold is not None:
            gs, ge = self.gold
            if not (0 <= gs < ge <= len(self.target)):
                raise ValueError(f"gold {list(self.gold)} is not inside the target "
                                 f"(length {len(self.target)}) or is empty")


@dataclass(frozen=True)
class AlignResult:
    """The predicted target span (None: no counterpart) and the aligner's confidence.

    ``source_span`` is the span actually aligned: the task's, widened to token boundaries when
    it cut a token (then ``widened`` is True). ``note`` explains anything unusual (truncation).
    """

    pred: Span | None
    score: float
    source_span: Span
    widened: bool = False
    note: str = ""


@runtime_checkable
class Aligner(Protocol):
    name: str

    def align(self, tasks: Sequence[AlignTask], progress: Callable[[int], None] | None = None) -> list[AlignResult]:
        """One result per task, in order; batched inside. ``progress(n)``: n more tasks done."""
        ...


@dataclass(frozen=True)
class Prepared:
    """A task's token view: both sides tokenized, the source span as inclusive token indices."""

    task: AlignTask
    src: Tokens
    tgt: Tokens
    first: int  # source span tokens first..last (inclusive)
    last: int
    snapped: Span
    widened: bool


def prepare(task: AlignTask, cache: dict[str, Tokens] | None = None) -> Prepared | None:
    """Tokenize a task and snap its source span; None when the span holds no token (only spaces)."""
    src = _tok(task.source, cache)
    tgt = _tok(task.target, cache)
    found = src.token_span(*task.source_span)
    if found is None:
        return None
    snapped = src.char_span(*found)
    return Prepared(task, src, tgt, found[0], found[1], snapped, snapped != tuple(task.source_span))


def _tok(text: str, cache: dict[str, Tokens] | None) -> Tokens:
    if cache is None:
        return tokenize(text)
    found = cache.get(text)
    if found is None:
        found = cache[text] = tokenize(text)
    return found


def empty_result(task: AlignTask, note: str) -> AlignResult:
    """The answer for a task no aligner can work on (a span of spaces only)."""
    return AlignResult(None, 0.0, tuple(task.source_span), False, note)  # type: ignore[arg-type]


def prepare_all(tasks: Sequence[AlignTask], *, need_target: bool = True
                ) -> tuple[list[AlignResult | None], list[tuple[int, Prepared]]]:
    """Tokenize every task once (shared sentences tokenized once): the answers already known
    (a span of spaces only; an empty target when ``need_target``) and the (index, item) work list."""
    results: list[AlignResult | None] = [None] * len(tasks)
    cache: dict[str, Tokens] = {}
    work: list[tuple[int, Prepared]] = []
    for i, task in enumerate(tasks):
        item = prepare(task, cache)
        if item is None:
            results[i] = empty_result(task, "source span holds no word")
        elif need_target and len(item.tgt) == 0:
            results[i] = AlignResult(None, 0.0, item.snapped, item.widened, "empty target")
        else:
            work.append((i, item))
    return results, work


AlignerFactory = Callable[..., Aligner]


ALIGNERS: Registry[AlignerFactory] = Registry("aligners")
ALIGNERS.register("discriminative", "paraspan.align.discriminative:load_aligner",
                  "Culkin et al. 2021 span aligner: frozen encoder + trained scorer (shipped head)")
ALIGNERS.register("ibm2", "paraspan.align.ibm2:IBM2Aligner",
                  "fast_align-style IBM Model 2, both directions, grow-diag-final-and, span hull")
ALIGNERS.register("argmax", "paraspan.align.argmax:ArgmaxAligner",
                  "SimAlign-style: cosine argmax over candidate spans, threshold for null")


def aligners() -> Registry[AlignerFactory]:
    """The aligner factories by name: ``factory(**options) -> Aligner``."""
    return ALIGNERS


def get_aligner(name: str, **options: Any) -> Aligner:
    """Build the aligner ``name`` with ``options`` (unknown names list the choices)."""
    factory = aligners().get(name)
    return factory(**options)
