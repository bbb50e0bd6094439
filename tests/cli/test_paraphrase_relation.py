"""``paraspan paraphrase --relation`` and ``augment --set generator.relation=…`` (issue 20)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paraspan.cli.main import main
from paraspan.filter.judges import LABELS, Judgements

SENTENCES: list[dict[str, Any]] = [
    {"id": "a", "text": "My sister quickly bought a small red bicycle at the old market yesterday."},
    {"id": "b", "text": "The tired council finally approved the new budget after a very long debate.",
     "keep": [[10, 25]]},
    {"id": "c", "text": "Rain."},
]
#: the small model and few samples: the test is about the command, not the paraphrases' quality
FAST = ["--model", "small", "--n", "2", "--samples", "3", "--constraint-sets", "2", "--threads", "1",
        "--workers", "1", "--parallel", "8", "--n-ctx", "1024", "--no-progress"]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class ShorterIsMoreGeneral:
    """A scripted judge: a hypothesis at least ``margin`` words shorter than its premise is entailed
    by it (and does not entail it back); anything else is neutral. Needs no model."""

    def __init__(self, name: str, margin: int) -> None:
        self.name = name
        self.margin = margin

    def judge(self, premises: Sequence[str], hypotheses: Sequence[str]) -> Judgements:
        probs = np.full((len(premises), 3), 0.05, dtype=np.float32)
        for i, (p, h) in enumerate(zip(premises, hypotheses, strict=True)):
            label = "entailment" if len(h.split()) <= len(p.split()) - self.margin else "neutral"
            probs[i, LABELS.index(label)] = 0.9
        return Judgements(probs, np.zeros(len(premises), dtype=bool))


@pytest.fixture
def scripted_judges(monkeypatch: pytest.MonkeyPatch) -> None:
    """``minilm-nli`` and ``llm:small`` replaced by scripted judges that disagree on small cuts."""
    judges = {"minilm-nli": ShorterIsMoreGeneral("minilm-nli", 1), "llm:small": ShorterIsMoreGeneral("llm:small", 4)}
    monkeypatch.setattr("paraspan.filter.judges.load_judge", lambda spec, **_: judges[spec])


def test_a_bad_relation_is_reported_before_any_model_loads(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    src = _write(tmp_path / "in.jsonl", SENTENCES)
    out = tmp_path / "out.jsonl"
    assert main(["paraphrase", str(src), "-o", str(out), "--model", "/nonexistent.gguf",
                 "--relation", "sideways"]) == 1
    err = capsys.readouterr().err
    assert "E950" in err and "'sideways'" in err and "equivalence, forward, reverse" in err
    assert "no such llm model" not in err and not out.exists()
    for args, what in ((["--judges", "llm"], "--judges"), (["--agree"], "--agree"),
                       (["--candidates", "4"], "--candidates")):
        assert main(["paraphrase", str(src), "-o", str(out), "--model", "/nonexistent.gguf", *args]) == 1
        err = capsys.readouterr().err
        assert "E951" in err and f"{what} applies only with --relation" in err
    assert main(["paraphrase", str(src), "-o", str(out), "--relation", "forward", "--judges", "minilm-nli,nope"]) == 1
    assert "unknown judge 'nope'" in capsys.readouterr().err


def test_delivered_paraphrases_carry_the_relation_and_each_judges_labels(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The real default judge (minilm-nli) on the small model's candidates."""
    src = _write(tmp_path / "in.jsonl", SENTENCES)
    out = tmp_path / "out.jsonl"
    assert main(["paraphrase", str(src), "-o", str(out), *FAST, "--relation", "forward", "--rewrites", "off", "--report"]) == 0
    err = capsys.readouterr().err
    assert "relation forward (forward entailment) by minilm-nli" in err and "rejected by the word check" in err
    rows = _read(out)
    assert [r["id"] for r in rows] == ["a", "b", "c"]
    for row in rows:
        judged = row["judged"]
        assert set(judged["relations"]) == {"minilm-nli"} and "disagreed" not in judged
        # what the word check rejects is not judged
        assert sum(judged["relations"]["minilm-nli"].values()) == judged["candidates"] - judged["word_check"]["rejected"]
        assert sum(judged["word_check"]["reasons"].values()) == judged["word_check"]["rejected"]
        assert len(row["paraphrases"]) <= 2 and judged["in_class"] >= len(row["paraphrases"])
        if not row["paraphrases"]:  # no candidate, or none in the class: a note, not an error
            assert row["note"]
        for para in row["paraphrases"]:
            relation = para["relation"]
            assert relation["requested"] == "forward" and relation["class"] == "forward_entailment"
            assert relation["judges"]["minilm-nli"] == {"forward": "entailment", "backward": "neutral",
                                                        "relation": "forward_entailment"}
            assert "agree" not in relation  # one judge: nothing to agree on
    if rows[1]["paraphrases"]:
        assert all("tired council" in p["text"] for p in rows[1]["paraphrases"])


def test_agree_keeps_only_what_every_judge_puts_in_the_class(tmp_path: Path, scripted_judges: None,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    src = _write(tmp_path / "in.jsonl", SENTENCES[:2])
    runs = {}
    for name, extra in (("first", []), ("agree", ["--agree"])):
        out = tmp_path / f"{name}.jsonl"
        assert main(["paraphrase", str(src), "-o", str(out), *FAST, "--relation", "forward", "--rewrites", "off",
                     "--judges", "minilm-nli,llm:small", "--candidates", "6", *extra]) == 0
        runs[name] = _read(out)
        err = capsys.readouterr().err
        assert "by minilm-nli, llm:small" in err and "the judges disagreed on" in err
        assert ("(agreed only)" in err) == (name == "agree")
    judged = [row["judged"] for row in runs["first"]]
    for first, agreed in zip(judged, [row["judged"] for row in runs["agree"]], strict=True):
        # the same candidates, the same labels; fewer in the class when both judges must say so
        assert {k: v for k, v in first.items() if k != "in_class"} == {k: v for k, v in agreed.items()
                                                                       if k != "in_class"}
        assert agreed["in_class"] <= first["in_class"]
    assert sum(j["candidates"] for j in judged) > 0, "the small model wrote no candidate at all"
    for first, agreed in zip(runs["first"], runs["agree"], strict=True):
        assert set(first["judged"]["relations"]) == {"minilm-nli", "llm:small"}
        for para in first["paraphrases"]:  # the first judge decides
            views = para["relation"]["judges"]
            assert views["minilm-nli"]["relation"] == "forward_entailment"
            assert set(views["llm:small"]) == {"forward", "backward", "relation"}
            words = len(para["text"].split()), len(first["text"].split())
            assert para["relation"]["agree"] is (words[0] <= words[1] - 4)
        for para in agreed["paraphrases"]:  # with --agree both do
            assert para["relation"]["agree"] is True
            assert {v["relation"] for v in para["relation"]["judges"].values()} == {"forward_entailment"}
            assert len(para["text"].split()) <= len(agreed["text"].split()) - 4
        assert {p["text"] for p in agreed["paraphrases"]} <= {p["text"] for p in first["paraphrases"]} or \
            len(first["paraphrases"]) == 2  # the first --n in the class: --agree may reach further down
        if not agreed["paraphrases"]:
            assert agreed["note"].startswith("no candidate")


def _verified_specs(filters: tuple[Any, ...]) -> list[Any]:
    return [f for f in filters if f == "verified" or (isinstance(f, dict) and f.get("name") == "verified")]


def test_augment_checks_the_generators_direction_with_the_default_filter(tmp_path: Path) -> None:
    from paraspan.cli.augment import run_config
    from paraspan.pipeline.components import build_chooser, build_filters

    config = run_config(generator="paraphrase", overrides=["generator.relation=reverse", "generator.rewrites=off"],
                        settings={"choose_by": "verified"}, output_filter="verified")
    assert config.generator.relation == "reverse"  # type: ignore[attr-defined]
    assert _verified_specs(config.filters) == [{"name": "verified", "relation": "reverse", "judges": ["llm"]}]
    filters = build_filters(config)
    verified = next(f for f in filters if f.name == "verified")
    parts = {p.name: p for p in verified.parts}
    assert parts["relation"].accept == frozenset({"reverse_entailment"})
    assert parts["content"].relation == "reverse"
    assert parts["contraction"].relation == "reverse"  # words added, the kept ones keep their heads
    assert build_chooser(config, filters) is verified  # iterations choose by the same check
    assert "facts" in parts  # an insertion keeps every number and name

    # the default generator and other filters: as before
    assert _verified_specs(run_config(output_filter="verified").filters) == ["verified"]
    assert _verified_specs(run_config(generator="paraphrase", overrides=["generator.relation=forward",
                                                                         "generator.rewrites=off"],
                                      output_filter="lax").filters) == []
    # a verified filter with the user's own options stays theirs
    own = {"name": "verified", "meaning": ["equivalence", "forward_entailment"]}
    (tmp_path / "run.json").write_text(json.dumps({"filters": [own]}), encoding="utf-8")
    config = run_config(config_file=tmp_path / "run.json", generator="paraphrase",
                        overrides=["generator.relation=forward", "generator.rewrites=off"], output_filter="verified")
    assert _verified_specs(config.filters) == [own]


def test_augment_rejects_an_unknown_relation_listing_the_three() -> None:
    from paraspan.cli.augment import run_config
    from paraspan.errors import ParaspanError

    with pytest.raises(ParaspanError) as info:
        run_config(generator="paraphrase", overrides=["generator.relation=sideways"], output_filter="verified")
    assert "generator 'paraphrase'" in str(info.value)
    assert "'equivalence', 'forward' or 'reverse'" in str(info.value)


def test_the_direction_check_rejects_rearranged_words_before_the_judges():
    from types import SimpleNamespace

    from paraspan.cli.paraphrase import direction_check, reason_kind, word_check

    source = "The quick verdict followed a long hearing, during which the nurse spoke for herself."
    shorter = SimpleNamespace(text="The verdict followed a hearing.")
    rearranged = SimpleNamespace(text="The nurse spoke for herself in a long hearing that followed a verdict.")
    kept, rejected = word_check(source, [shorter, rearranged], direction_check("forward"))
    assert kept == [shorter]
    assert [reason_kind(r) for r in rejected] == ["rearranged"]
    # equivalence may reword, but not a modal, a number or a quotation
    source = "\"We may reopen the old mill,\" the mayor said on 3 May."
    reworded = SimpleNamespace(text="On 3 May the mayor stated: \"We may reopen the old mill.\"")
    modal = SimpleNamespace(text="The mayor said on 3 May that they will reopen the old mill.")
    number = SimpleNamespace(text="\"We may reopen the old mill,\" the mayor said in May.")
    kept, rejected = word_check(source, [reworded, modal, number], direction_check("equivalence"))
    assert kept == [reworded]
    assert [reason_kind(r) for r in rejected] == ["changed a deciding word", "lost a number or name"]


class SameMeaning:
    """A scripted judge: every pair entails both ways (equivalence). Needs no model."""

    name = "minilm-nli"

    def judge(self, premises: Sequence[str], hypotheses: Sequence[str]) -> Judgements:
        probs = np.full((len(premises), 3), 0.05, dtype=np.float32)
        probs[:, LABELS.index("entailment")] = 0.9
        return Judgements(probs, np.zeros(len(premises), dtype=bool))


def test_rules_only_delivers_the_rewriters_equivalents_without_an_llm(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("paraspan.filter.judges.load_judge", lambda spec, **_: SameMeaning())

    def no_llm(*_: Any, **__: Any) -> None:
        raise AssertionError("--rewrites only must not load the LLM")

    monkeypatch.setattr("paraspan.llm.hf_backend.load_backend", no_llm)
    text = "The old museum, which opened in 1990, bought a painting by a local artist."
    rows = [{"id": "relcl", "text": text},
            {"id": "kept", "text": text, "keep": [[0, 14]]},
            {"id": "banned", "text": text, "ban": [[text.index("1990"), text.index("1990") + 4]]},  # rules keep it
            {"id": "none", "text": "Rain."}]
    src, out = _write(tmp_path / "in.jsonl", rows), tmp_path / "out.jsonl"
    assert main(["paraphrase", str(src), "-o", str(out), "--relation", "equivalence", "--rewrites", "only",
                 "--n", "1", "--workers", "1", "--no-progress"]) == 0
    got = {r["id"]: r for r in _read(out)}
    [para] = got["relcl"]["paraphrases"]
    assert para["source"] == "rules" and para["rule"] and para["forward"] is None
    assert para["relation"]["class"] == "equivalence" and para["text"] != text
    assert got["relcl"]["judged"]["rules"]["delivered"] == 1
    assert all("The old museum" in p["text"] for p in got["kept"]["paraphrases"])
    assert not got["banned"]["paraphrases"] and got["banned"]["judged"]["rules"]["candidates"] == 0
    assert not got["none"]["paraphrases"] and got["none"]["note"] == "no rule applies"


@pytest.mark.parametrize("relation, rules, fragment", [
    ("equivalence", "sometimes", "'sometimes' is not a mode"),
    (None, "first", "'first' needs --relation equivalence"),
])
def test_rewrites_that_do_not_apply_are_refused_before_any_model_loads(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                       relation: str | None, rules: str,
                                                                       fragment: str) -> None:
    src, out = _write(tmp_path / "in.jsonl", SENTENCES), tmp_path / "out.jsonl"
    argv = ["paraphrase", str(src), "-o", str(out), "--rewrites", rules, *FAST]
    assert main(argv + (["--relation", relation] if relation else [])) == 1
    err = capsys.readouterr().err
    assert "E952" in err and fragment in err and not out.exists()


def test_rewrites_default_to_only_where_rules_exist_and_off_elsewhere():
    from paraspan.cli.paraphrase import check_rewrites

    assert check_rewrites(None, "equivalence") == check_rewrites(None, "forward") == "only"
    assert check_rewrites(None, "reverse") == "only"  # insertions (paraspan.generate.elaborate)
    assert check_rewrites(None, None) == "off"
    assert check_rewrites("off", "equivalence") == "off"


class MoreGeneral:
    """A scripted judge: the source entails the output, not the other way (forward entailment)."""

    name = "minilm-nli"

    def judge(self, premises: Sequence[str], hypotheses: Sequence[str]) -> Judgements:
        longer = np.array([len(p) > len(h) for p, h in zip(premises, hypotheses, strict=True)])
        probs = np.full((len(premises), 3), 0.05, dtype=np.float32)
        probs[longer, LABELS.index("entailment")] = 0.9
        probs[~longer, LABELS.index("neutral")] = 0.9
        return Judgements(probs, np.zeros(len(premises), dtype=bool))


def test_forward_rules_leave_adjectives_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forward rewrites drop adverbs, appositives and clauses, not adjectives (judged right 68 times in 101)."""
    monkeypatch.setattr("paraspan.filter.judges.load_judge", lambda spec, **_: MoreGeneral())
    text = "The farmer quickly sold his old tractor to a neighbour."
    src, out = _write(tmp_path / "in.jsonl", [{"id": "s", "text": text}]), tmp_path / "out.jsonl"
    assert main(["paraphrase", str(src), "-o", str(out), "--relation", "forward", "--n", "3", "--workers", "1",
                 "--no-progress"]) == 0
    [row] = _read(out)
    rules = {p["rule"] for p in row["paraphrases"]}
    assert "delete-adverb" in rules and "delete-adjective" not in rules
    assert all("old tractor" in p["text"] for p in row["paraphrases"])


def test_direction_by_words_delivers_what_the_judge_calls_equivalent_once_the_word_check_passed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("paraspan.filter.judges.load_judge", lambda spec, **_: SameMeaning())  # as minilm-nli does for most cuts
    text = "The farmer quickly sold his old tractor to a neighbour."
    src = _write(tmp_path / "in.jsonl", [{"id": "s", "text": text}])
    rows = {}
    for mode in ("judges", "words"):
        out = tmp_path / f"{mode}.jsonl"
        assert main(["paraphrase", str(src), "-o", str(out), "--relation", "forward", "--n", "3", "--workers", "1",
                     "--no-progress", "--direction-by", mode]) == 0
        [rows[mode]] = _read(out)
    assert not rows["judges"]["paraphrases"] and "equivalence" in rows["judges"]["note"]
    assert rows["words"]["paraphrases"]
    for para in rows["words"]["paraphrases"]:
        assert para["relation"]["class"] == "forward_entailment" and para["relation"]["direction_by"] == "words"
        assert para["relation"]["judges"]["minilm-nli"]["relation"] == "equivalence"
        assert len(para["text"]) < len(text)  # a deletion: the word check saw content dropped


@pytest.mark.parametrize("relation, mode, fragment", [
    ("forward", "nli", "'nli' is not a mode"),
    ("equivalence", "words", "needs --relation forward or reverse, not equivalence"),
])
def test_direction_by_is_refused_where_it_cannot_apply(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                       relation: str, mode: str, fragment: str) -> None:
    src, out = _write(tmp_path / "in.jsonl", SENTENCES), tmp_path / "out.jsonl"
    assert main(["paraphrase", str(src), "-o", str(out), "--relation", relation, "--direction-by", mode, *FAST]) == 1
    err = capsys.readouterr().err
    assert "E953" in err and fragment in err and not out.exists()


def test_reverse_delivers_insertions_that_keep_every_word(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--relation reverse: a relative clause the LLM writes after a noun phrase, judged like any candidate."""
    from tests.generate.test_elaborate import ScriptedBackend

    def script(user: str) -> list[str]:
        return [" which opened in the spring, sold the painting", " which stands, bought it"]

    monkeypatch.setattr("paraspan.llm.hf_backend.load_backend", lambda *a, **k: ScriptedBackend(script))
    monkeypatch.setattr("paraspan.filter.judges.load_judge", lambda spec, **_: MoreGeneral())
    rows = [{"id": "s", "text": "The museum sold the painting last year."}, {"id": "n", "text": "A man left."}]
    src, out = _write(tmp_path / "in.jsonl", rows), tmp_path / "out.jsonl"
    assert main(["paraphrase", str(src), "-o", str(out), "--relation", "reverse", "--n", "2", "--workers", "1",
                 "--no-progress"]) == 0
    got, none = _read(out)
    assert [p["text"] for p in got["paraphrases"]] == ["The museum, which opened in the spring, sold the painting last year."]
    [para] = got["paraphrases"]
    assert para["source"] == "insertion" and para["rule"] == "insert-relative-clause"
    assert para["relation"]["class"] == "reverse_entailment" and got["judged"]["rules"]["delivered"] == 1
    assert not none["paraphrases"] and none["note"] == "no noun phrase to add a clause to"


def test_a_direction_is_a_generator_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The measured generators of a direction are registered generators (issue 65: no mode that returns
    another class): generalize, the rule deletions without adjectives (forward), and elaborate, the
    insertions (reverse). The paraphrase generator is always the LLM's; a direction's rule or insertion
    candidates asked of it are refused when the config is checked, naming the generator to use."""
    from paraspan.api import run_config
    from paraspan.errors import ParaspanError
    from paraspan.generate.base import generators
    from paraspan.generate.paraphrase import Paraphraser, make_paraphraser
    from paraspan.generate.rewrite import Rewriter
    from paraspan.pipeline.components import generator_relation
    from tests.generate.test_elaborate import ScriptedBackend

    monkeypatch.setattr("paraspan.llm.hf_backend.load_backend", lambda *a, **k: ScriptedBackend(lambda u: []))
    forward = generators.build("generalize")
    assert isinstance(forward, Rewriter)
    assert "delete-adverb" in forward.rules.names() and "delete-adjective" not in forward.rules.names()
    assert all(r.family == "compression" for r in forward.rules.rules)
    assert isinstance(make_paraphraser(relation="reverse", rewrites="off"), Paraphraser)
    assert isinstance(make_paraphraser(), Paraphraser)  # equivalence: the sentence paraphraser, as before
    for relation, other in (("forward", "generalize"), ("reverse", "elaborate")):
        with pytest.raises(ParaspanError) as info:
            run_config(generator="paraphrase", overrides=[f"generator.relation={relation}"])
        assert info.value.code == "E974" and f"--generator {other}" in str(info.value)
    with pytest.raises(ParaspanError, match="--generator rewrite"):
        make_paraphraser(rewrites="only")
    assert [generator_relation(b) for b in ("generalize", "elaborate", {"name": "paraphrase", "relation": "forward"},
                                            "rewrite", "no-such-generator")] == [
        "forward", "reverse", "forward", "equivalence", "equivalence"]
    config = run_config(generator="generalize", output_filter="verified")
    assert _verified_specs(config.filters) == [{"name": "verified", "relation": "forward", "judges": ["llm"]}]


def test_forward_verified_lets_a_date_or_name_go_outside_the_labels() -> None:
    """A more general sentence may drop "In October 2002, …": no facts check for forward (the content
    check keeps the labelled spans' words and refuses a dropped hedge)."""
    from paraspan.filter.combine import verified

    names = [p.name for p in verified(relation="forward", labels=False, fluency=False, meaning=()).parts]
    assert "facts" not in names and "content" in names
    assert "facts" in [p.name for p in verified(labels=False, fluency=False, meaning=()).parts]
    assert "facts" not in [p.name for p in verified(facts=False, labels=False, fluency=False, meaning=()).parts]
