"""A trained paraphrase adapter's prompts: its layout, the phrases it is told to keep (no model)."""

from __future__ import annotations

import pytest

from paraspan.errors import TrainError
from paraspan.generate.paraphrase_adapter import AdapterPrompter, check_paraphrase_card


class _Words:
    """A backend whose tokens are the prompt's characters: the prompt text reads back exactly."""

    def tokenize(self, text: str) -> list[int]:
        return [ord(c) for c in text]


def _text(prompter: AdapterPrompter, *args: list[str]) -> str:
    return "".join(chr(t) for t in prompter.prompt("The board approved the plan.", *args).tokens)


def test_kept_phrases_are_named_only_to_an_adapter_whose_layout_has_them() -> None:
    new = AdapterPrompter(_Words(), "equivalence", ["equivalence"], keeps=True)
    old = AdapterPrompter(_Words(), "equivalence", ["equivalence"], keeps=False)
    assert "keep: the plan\n" in _text(new, ["approved"], ["the plan"])
    assert "keep:" not in _text(old, ["approved"], ["the plan"])
    assert "avoid: approved\n" in _text(old, ["approved"], ["the plan"])


@pytest.mark.parametrize("layout", ["paraspan-paraphrase/1", "paraspan-paraphrase/2"])
def test_both_layouts_are_known(layout: str) -> None:
    check_paraphrase_card({"task": "paraphrase", "prompt": {"format": layout}, "relations": ["forward"]}, "a", "forward")


def test_an_unknown_layout_is_refused() -> None:
    with pytest.raises(TrainError) as caught:
        check_paraphrase_card({"task": "paraphrase", "prompt": {"format": "paraspan-paraphrase/9"},
                               "relations": ["forward"]}, "a", "forward")
    assert caught.value.code == "E525"
