"""Directional paraphrases (issue 20): the prompt of each relation, the default's unchanged, bad names."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from paraspan.errors import ParaspanError
from paraspan.generate.base import GenerationRequest, generators
from paraspan.generate.paraphrase import (
    CLOSE_INSTRUCTION,
    FAITHFUL,
    FORWARD_EXAMPLES,
    FORWARD_INSTRUCTION,
    INSTRUCTION,
    RELATION_CLASS,
    RELATIONS,
    REVERSE_EXAMPLES,
    REVERSE_INSTRUCTION,
    SPLIT_MARK,
    ParaphraseConfig,
    Paraphraser,
    check_relation,
    directional_random_fraction,
)
from paraspan.llm.llama_backend import LlamaBackend

TEXT = "The company sold its shares to investors in March."


class RecordingBackend:
    """Returns the prompt's parts instead of tokens: what the model would be asked."""

    def chat_prompt(self, system: str, user: str, *, split_at: str | None = None,
                    answer: str | None = None) -> tuple[str, str, str | None]:
        return system, user, split_at


def _user(config: ParaphraseConfig, text: str = TEXT, banned: tuple[str, ...] = (),
          kept: tuple[str, ...] = ()) -> str:
    prompt: Any = Paraphraser(RecordingBackend(), config).prompt(text, banned, kept)  # type: ignore[arg-type]
    return str(prompt[1])


def _reverse_user(config: ParaphraseConfig, candidate: str) -> str:
    prompt: Any = Paraphraser(RecordingBackend(), config).reverse_prompt(candidate)  # type: ignore[arg-type]
    return str(prompt[1])


#: sha256 of repr((prompt, reverse prompt)) recorded before issue 20: the default prompts must not change
GOLDEN = {
    "free": "7b704edc7e5b5944d40b399054f32507245c1179778f447c46600e65e8330102",
    "close": "7609f5aa01b442892fef63abefde5dd249dac2acfb8e28e0a52474c4bb4b2f84",
    "no_examples": "c90b7a5fbf8229f4954eb22dd95b928fa72c49cfd0251692835310e974ac5235",
}


@pytest.mark.parametrize(("name", "options"), [("free", {}), ("close", {"style": "close"}),
                                               ("no_examples", {"faithful_examples": False})])
def test_the_equivalence_prompts_are_byte_identical_to_before(name: str, options: dict[str, Any]) -> None:
    for config in (ParaphraseConfig(**options), ParaphraseConfig(relation="equivalence", **options)):
        paraphraser = Paraphraser(RecordingBackend(), config)  # type: ignore[arg-type]
        both = (paraphraser.prompt(TEXT, ["sold"], ["in March"]),
                paraphraser.reverse_prompt("The firm sold its stock in March."))
        assert hashlib.sha256(repr(both).encode()).hexdigest() == GOLDEN[name]
    assert _user(ParaphraseConfig()) == f"{INSTRUCTION}\n{FAITHFUL}\n{SPLIT_MARK} {TEXT}"


@pytest.mark.parametrize(("relation", "instruction", "examples"), [
    ("forward", FORWARD_INSTRUCTION, FORWARD_EXAMPLES),
    ("reverse", REVERSE_INSTRUCTION, REVERSE_EXAMPLES),
])
def test_a_direction_has_its_own_instruction_and_three_examples_in_the_cached_prefix(
        relation: str, instruction: str, examples: str) -> None:
    user = _user(ParaphraseConfig(relation=relation), banned=("sold",), kept=("in March",))
    prefix, _, rest = user.partition(SPLIT_MARK)
    assert prefix == f"{instruction}\n{examples}\n"  # all of it before the split: cached once
    assert rest.startswith(f" {TEXT}") and '"sold"' in rest and '"in March"' in rest
    assert SPLIT_MARK not in instruction + examples  # the split must fall after the examples
    assert examples.count("Original:") == 3 and examples.count("Rewritten:") == 3
    assert INSTRUCTION not in user and FAITHFUL not in user
    # the examples show the prompt's own wording for bans and kept phrases
    assert "Do not use these words, in any form:" in examples
    assert "Keep these phrases exactly as they are written:" in examples


def test_the_directions_ask_for_what_they_are() -> None:
    assert "more general" in FORWARD_INSTRUCTION and "leave out" in FORWARD_INSTRUCTION
    assert "Do not add anything" in FORWARD_INSTRUCTION
    assert "more specific" in REVERSE_INSTRUCTION and "add" in REVERSE_INSTRUCTION
    assert "implies the original" in REVERSE_INSTRUCTION
    # both keep names, numbers and the kept phrases (the facts check of augment wants them all)
    for examples in (FORWARD_EXAMPLES, REVERSE_EXAMPLES):
        assert examples.startswith("Keep every name, number")
    # each forward example is shorter than its original, each reverse one longer
    for examples, shorter in ((FORWARD_EXAMPLES, True), (REVERSE_EXAMPLES, False)):
        lines = examples.splitlines()
        originals = [line.split(": ", 1)[1] for line in lines if line.startswith("Original:")]
        rewritten = [line.split(": ", 1)[1] for line in lines if line.startswith("Rewritten:")]
        for source, output in zip(originals, rewritten, strict=True):
            assert (len(output.split()) < len(source.split())) is shorter, (source, output)


def test_a_direction_replaces_the_style_and_drops_its_examples_on_request() -> None:
    free = _user(ParaphraseConfig(relation="forward"))
    assert _user(ParaphraseConfig(relation="forward", style="close")) == free
    assert CLOSE_INSTRUCTION not in free
    bare = _user(ParaphraseConfig(relation="reverse", faithful_examples=False))
    assert bare == f"{REVERSE_INSTRUCTION}\n{SPLIT_MARK} {TEXT}"


def test_the_backward_score_asks_the_opposite_direction() -> None:
    candidate = "The company sold its shares."
    assert _reverse_user(ParaphraseConfig(relation="forward"), candidate).startswith(REVERSE_INSTRUCTION)
    assert _reverse_user(ParaphraseConfig(relation="reverse"), candidate).startswith(FORWARD_INSTRUCTION)
    assert _reverse_user(ParaphraseConfig(), candidate).startswith(INSTRUCTION)


def test_an_unknown_relation_is_a_catalogue_error_listing_the_three() -> None:
    with pytest.raises(ParaspanError) as info:
        ParaphraseConfig(relation="sideways")
    assert info.value.code == "E950"
    assert "'sideways'" in str(info.value) and "equivalence, forward, reverse" in str(info.value)
    with pytest.raises(ParaspanError, match="unknown paraphrase relation .backward."):
        Paraphraser(RecordingBackend(), relation="backward")  # type: ignore[arg-type]
    assert check_relation("forward") == "forward"
    assert RELATIONS == ("equivalence", "forward", "reverse")
    assert RELATION_CLASS == {"equivalence": "equivalence", "forward": "forward_entailment",
                              "reverse": "reverse_entailment"}


def test_the_registered_generator_takes_the_relation() -> None:
    assert "relation" in generators.options("paraphrase")
    assert generators.validate("paraphrase", {"relation": "reverse"})["relation"] == "reverse"
    with pytest.raises(ParaspanError) as info:
        generators.validate("paraphrase", {"relation": "sideways"})
    assert "'equivalence', 'forward' or 'reverse'" in str(info.value)


def test_random_bans_are_for_equivalence_only() -> None:
    assert directional_random_fraction("equivalence") == ParaphraseConfig().random_fraction == 0.3
    assert directional_random_fraction("forward") == directional_random_fraction("reverse") == 0.0


def test_candidates_carry_the_requested_direction(small_backend: LlamaBackend) -> None:
    request = GenerationRequest("a", "My sister bought a small red bicycle in the old market yesterday.")
    fast = {"n": 3, "samples": 3, "constraint_sets": 1, "backward": False}
    forward = Paraphraser(small_backend, ParaphraseConfig(relation="forward", random_fraction=0.0, **fast))
    result = forward.generate(request)
    assert result.stats["sampled"] == 3
    assert all(c.meta["relation"] == "forward" for c in result.candidates)
    # equivalence records nothing new: the default's provenance stays as it was
    plain = Paraphraser(small_backend, ParaphraseConfig(**fast)).generate(request)
    assert all("relation" not in c.meta for c in plain.candidates)
