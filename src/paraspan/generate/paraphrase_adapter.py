"""Prompts of a trained paraphrase adapter (``paraspan train-generator --task paraphrase``).

A :class:`~paraspan.generate.paraphrase.Paraphraser` given an :class:`AdapterPrompter` asks the
adapter in the layout it was trained on (:func:`paraspan.train.pairs.render_paraphrase_prompt`: the
relation tag, the words to avoid, the sentence) instead of the chat model's instruction; the rest of
ParaBank 2 stays as it is: the banned words and their inflections are also blocked while sampling,
samples are verified, scored both ways and clustered, and the judges and checks decide after.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paraspan.errors import TrainError
from paraspan.llm.backend import Prompt
from paraspan.train.pairs import PAIR_RELATIONS, PROMPT_FORMATS, TASK, render_paraphrase_prompt

__all__ = ["AdapterPrompter", "adapter_relations", "check_paraphrase_card", "load_paraphrase_adapter"]

#: the relation from a candidate back to its source (the backward score asks the adapter for it)
_BACK = {"equivalence": "equivalence", "forward": "reverse", "reverse": "forward"}


def adapter_relations(card: dict[str, Any]) -> list[str]:
    """The relations a paraphrase adapter was trained for, from its card."""
    return [r for r in card.get("relations", []) if r in PAIR_RELATIONS]


def check_paraphrase_card(card: dict[str, Any], adapter: str, relation: str) -> None:
    """E525 unless the card is a paraphrase adapter's of a prompt layout known here; E524 when it was
    not trained for ``relation`` (naming the relations it has)."""
    if card.get("task") != TASK or card.get("prompt", {}).get("format") not in PROMPT_FORMATS:
        raise TrainError.from_code("E525", adapter=adapter, task=card.get("task", "an unknown task"))
    have = adapter_relations(card)
    if relation not in have:
        raise TrainError.from_code("E524", adapter=adapter, relation=relation, have=", ".join(have) or "none")


@dataclass
class AdapterPrompter:
    """Prompts for ``relation`` in the adapter's layout; ``bos``: whether training put the start token first;
    ``keeps``: whether its layout names phrases to keep."""

    backend: Any
    relation: str
    relations: Sequence[str]
    bos: bool = False
    keeps: bool = False

    def _tokens(self, text: str, relation: str, avoid: Sequence[str] = (), keep: Sequence[str] = ()) -> Prompt:
        tokens = self.backend.tokenize(render_paraphrase_prompt(text, relation, avoid, keep if self.keeps else ()))
        if self.bos:
            from paraspan.llm.llama_backend import start_tokens

            tokens = start_tokens(self.backend)[:1] + tokens
        return Prompt((), tuple(tokens))

    def prompt(self, text: str, banned: Sequence[str] = (), kept: Sequence[str] = ()) -> Prompt:
        """The generation prompt; ``kept`` phrases are named where the adapter's layout has them (an
        older adapter never saw them: the sampler's soft boosts and the final check keep them)."""
        return self._tokens(text, self.relation, banned, kept)

    def reverse_prompt(self, candidate: str) -> Prompt:
        """The prompt whose answer the source is (the backward score): the inverse relation where the
        adapter has it, else the requested one."""
        back = _BACK[self.relation]
        return self._tokens(candidate, back if back in self.relations else self.relation)

    def answer_end(self) -> list[int]:
        """What ends a scored answer: nothing, since the adapter's answers end at a line break or its
        end-of-text token rather than the chat template's end of turn."""
        return []


def load_paraphrase_adapter(adapter: str | os.PathLike[str], relation: str, *, model: str | None = None,
                            backend: str = "auto", device: str = "auto", n_threads: int | None = None,
                            seed: int = 0, n_ctx: int = 4096,
                            parallel: int = 32) -> tuple[Any, AdapterPrompter, dict[str, Any]]:
    """The base with the adapter applied, the prompter for ``relation`` and the card; the card is
    checked (E525, E524) before the model loads."""
    from paraspan.llm.adapters import load_adapter_backend
    from paraspan.models.adapters import adapter_folder, read_card

    card = read_card(adapter_folder(adapter))
    check_paraphrase_card(card, str(adapter), relation)
    runtime, card = load_adapter_backend(adapter, model=model, backend=backend, device=device, n_threads=n_threads,
                                         seed=seed, n_ctx=n_ctx, parallel=parallel)
    layout = card.get("prompt", {})
    prompter = AdapterPrompter(runtime, relation, adapter_relations(card), bool(layout.get("bos")),
                               PROMPT_FORMATS.get(layout.get("format"), False))
    return runtime, prompter, card
