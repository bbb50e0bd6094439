"""What both LLM backends decode with: a sample being decoded, the phrases it keeps, partial UTF-8, and the
calls they answer alike."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from paraspan.errors import ModelError
from paraspan.llm.backend import BanIdCache, Prompt, Sample, SampleGroup
from paraspan.text.constraints import BanSet, VocabIndex, WordGuard

#: Candidates examined beyond k at each step, so that a few rejected by the guard still
#: leave k to sample from without a second partition.
_SPARE = 16

#: a word for ``SampleGroup.max_words``: a run of non-space characters with a letter or digit
_WORDLIKE = re.compile(r"\w")

#: Sequence ids: 0 holds the cached prefix, 1 is free (it held a prompt before its samples'
#: sequences took the prompt's cells directly), the rest samples or scored items.
_PREFIX_SEQ = 0
_PROMPT_SEQ = 1
_FIRST_WORK_SEQ = 2


class ContextTooSmall(ModelError):
    """A prompt (plus its continuation) does not fit in the context window."""


def _decode_partial(data: bytes) -> tuple[str, bytes]:
    """Decode UTF-8, holding back an incomplete multi-byte character at the end."""
    try:
        return data.decode("utf-8"), b""
    except UnicodeDecodeError as exc:
        if exc.end >= len(data) and exc.reason == "unexpected end of data":
            return data[: exc.start].decode("utf-8", "replace"), data[exc.start:]
        return data.decode("utf-8", "replace"), b""


@dataclass
class _Seq:
    """One sample being decoded."""

    seq_id: int
    group: int
    index: int
    rng: np.random.Generator
    guard: WordGuard
    banned: np.ndarray
    tokens: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    text: str = ""
    pending: bytes = b""
    finish: str | None = None
    keep: list[_Keep] = field(default_factory=list)  # kept phrases not yet in the text
    fields: int = 0  # required "|"-separated fields (0: any answer)
    max_words: int = 0  # the sample stops past this many words (0: no limit; SampleGroup.max_words)
    job: int = 0  # the prompt it answers (a batch of several prompts)
    n_past: int = 0  # that prompt's length: the position of the sample's first token
    max_tokens: int = 0

    def advance(self, token: int, piece: bytes, end_of_turn: bool, max_tokens: int, *, stop: bool = True) -> None:
        """Append ``token`` (``piece``: its bytes) and set ``finish``: at the end of turn or a line
        break after some text (unless ``stop`` is false: a fixed-length run), or at ``max_tokens``."""
        if self.finish is not None:  # blocked
            return
        self.tokens.append(token)
        if end_of_turn and stop:
            self.finish = "stop"
            return
        text, self.pending = _decode_partial(self.pending + piece)
        if stop and "\n" in text and (self.text + text.split("\n", 1)[0]).strip():
            self.text += text.split("\n", 1)[0]
            self.finish = "newline"
            return
        self.text += text
        if self.keep:
            self.keep = [k for k in self.keep if not any(form in self.text for form in k.forms)]
        if self.max_words and stop and sum(1 for w in self.text.split() if _WORDLIKE.search(w)) > self.max_words:
            self.finish = "words"
        elif len(self.tokens) >= max_tokens:
            self.finish = "length"

    def sample(self) -> Sample:
        """The sample as a backend returns it (``stop`` where nothing set a finish)."""
        return Sample(text=self.text, tokens=self.tokens, logprobs=self.logprobs, finish=self.finish or "stop",
                      group=self.group, index=self.index)


@dataclass
class _Keep:
    """A phrase to keep: its surface forms and their token sequences."""

    forms: tuple[str, ...]
    variants: tuple[tuple[int, ...], ...]
    start: float
    cont: float


def keeps_for(group: SampleGroup, tokenize: Callable[[str], list[int]]) -> list[_Keep]:
    """The phrases ``group`` keeps, each with its surface forms and their token sequences (any backend)."""
    if not group.keep or (group.keep_start == 0 and group.keep_continue == 0):
        return []
    out = []
    for phrase in group.keep:
        forms = {phrase}
        if phrase[:1].isalpha():  # a phrase may move in or out of sentence-initial position
            forms.add(phrase[0].swapcase() + phrase[1:])
        variants = {tuple(tokenize(prefix + form)) for form in forms for prefix in ("", " ")}
        out.append(_Keep(tuple(sorted(forms)), tuple(sorted(v for v in variants if v)),
                         group.keep_start, group.keep_continue))
    return out



def as_prompt(prompt: Prompt | Sequence[int]) -> Prompt:
    """A :class:`Prompt`; a plain token list becomes one with nothing cached."""
    return prompt if isinstance(prompt, Prompt) else Prompt((), tuple(prompt))


class SharedCalls:
    """The calls both backends answer alike: context size, vocabulary, ban ids, the prompt split, kept phrases,
    the guard's token check and one-group sampling (a mixin: each backend loads its vocabulary, pieces and
    end-of-generation mask its own way and defines ``tokenize`` and ``sample_groups``)."""

    _n_ctx: int
    _vocab: VocabIndex | None
    _ban_cache: BanIdCache
    _pieces: list[bytes] | None  # each token's bytes
    _eog: np.ndarray | None  # which tokens end the answer

    # defined by the backend
    def _load_vocab(self) -> None:
        raise NotImplementedError

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        raise NotImplementedError

    def sample_groups(self, prompt: Prompt | Sequence[int], groups: Sequence[SampleGroup], *, top_k: int = 10,
                      max_tokens: int = 64, temperature: float = 1.0) -> list[Sample]:
        raise NotImplementedError

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    def _ensure_vocab(self) -> None:
        if self._vocab is None:
            self._load_vocab()

    @property
    def vocab(self) -> list[str]:
        return self.vocab_index.pieces

    @property
    def vocab_index(self) -> VocabIndex:
        self._ensure_vocab()
        return cast(VocabIndex, self._vocab)  # _load_vocab has set it

    def banned_ids(self, bans: BanSet) -> np.ndarray:
        """Token ids masked for ``bans`` (memoised per ban set)."""
        return self._ban_cache.ids(bans, self.vocab_index)  # type: ignore[no-any-return]

    def _split_prompt(self, rendered: str, user: str, split_at: str | None) -> Prompt:
        """The rendered chat as a :class:`Prompt` whose cacheable prefix ends where ``split_at`` begins in the
        user's turn ``user`` (nothing cached when either is not found)."""
        cut = 0
        if split_at is not None:
            start = rendered.find(user)
            offset = user.find(split_at)
            if start >= 0 and offset >= 0:
                cut = start + offset
        prefix = tuple(self.tokenize(rendered[:cut], special=True)) if cut else ()
        suffix = tuple(self.tokenize(rendered[cut:], special=True))
        return Prompt(prefix, suffix)

    def _keeps(self, group: SampleGroup) -> list[_Keep]:
        return keeps_for(group, self.tokenize)

    def _passes(self, seq: _Seq, tail: str, token: int) -> bool:
        """Whether ``token`` may follow ``seq``: it ends the answer, or the guard allows its text after ``tail``."""
        eog, pieces = cast(np.ndarray, self._eog), cast(list[bytes], self._pieces)  # set with the vocabulary
        if eog[token] or not seq.guard.bans:
            return True
        piece, _ = _decode_partial(seq.pending + pieces[token])
        return seq.guard.allows(tail, piece)

    def _advance(self, seq: _Seq, token: int, max_tokens: int, stop: bool = True) -> None:
        eog, pieces = cast(np.ndarray, self._eog), cast(list[bytes], self._pieces)  # set with the vocabulary
        seq.advance(token, pieces[token], bool(eog[token]), max_tokens, stop=stop)

    def sample(self, prompt: Prompt | Sequence[int], n: int, *, top_k: int = 10, seed: int = 0,
               banned: BanSet | None = None, max_tokens: int = 64, temperature: float = 1.0) -> list[Sample]:
        return self.sample_groups(prompt, [SampleGroup(n, seed, banned or BanSet())], top_k=top_k,
                                  max_tokens=max_tokens, temperature=temperature)
