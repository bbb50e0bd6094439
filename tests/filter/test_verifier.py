"""The span-label verifier: training on a tiny corpus, checks, bad input, the `labels` filter, shipped verifiers."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

import numpy as np
import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import ParaspanError
from paraspan.filter import build_filter, filters
from paraspan.filter.verifier import NOT_LABEL, SpanInstance, Verifier, mark, spans_of
from paraspan.filter.verifier_train import MIN_SPANS, VerifierRecipe, document_split, shifted, train_verifier
from tests.conftest import need_shared

BUYERS = ["Alice", "Bob", "Carol", "Dave", "the company", "my neighbour"]
GOODS = ["a car", "two apples", "the house", "some bread", "a new phone"]
PLACES = ["Paris", "Berlin", "Madrid", "Rome"]


def _frame_sentence(i: int, rng: random.Random) -> Sentence:
    buyer, goods, place = rng.choice(BUYERS), rng.choice(GOODS), rng.choice(PLACES)
    verb, frame, lu, role = rng.choice([("bought", "Commerce_buy", "buy.v", "Buyer"),
                                        ("sold", "Commerce_sell", "sell.v", "Seller")])
    text = f"{buyer} {verb} {goods} in {place} ."
    v0 = len(buyer) + 1
    g0 = v0 + len(verb) + 1
    p0 = g0 + len(goods) + 4
    args = [Span(0, len(buyer), role), Span(g0, g0 + len(goods), "Goods"), Span(p0, p0 + len(place), "Place")]
    return Sentence(f"doc{i % 7}-{i:04d}", text, [
        Structure("frame", frame, Span(v0, v0 + len(verb), lu), args),
        Structure("entity", "LOC", Span(p0, p0 + len(place)))])


def corpus(n: int, seed: int = 0) -> list[Sentence]:
    rng = random.Random(seed)
    return [_frame_sentence(i, rng) for i in range(n)]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("verifier")
    train_verifier(corpus(60), corpus(20, seed=1), out / "v", VerifierRecipe(epochs=12, hidden=64),
                   cache_dir=out / "cache")
    return out / "v"


def test_spans_of_and_mark_cover_every_kind() -> None:
    sentence = _frame_sentence(0, random.Random(0))
    kinds = [inst.kind for _, _, inst in spans_of(sentence)]
    assert kinds == ["trigger", "fe", "fe", "fe", "entity"]
    fe = next(inst for _, _, inst in spans_of(sentence) if inst.kind == "fe")
    marked, span_r, anchor_r, ctx_r = mark(fe)
    assert marked[span_r[0]:span_r[1]] == fe.text[fe.span[0]:fe.span[1]]
    assert anchor_r is not None and ctx_r is not None and marked[ctx_r[0]:ctx_r[1]] == fe.context.replace("_", " ")
    assert "[[" in marked and "<<" in marked


def test_shifted_spans_move_one_word() -> None:
    text = "Alice bought a car in Paris ."
    assert shifted(text, (13, 18)) == [(6, 18), (13, 21), (15, 18), (13, 14)]


def test_trained_verifier_saves_arrays_and_json(trained: Path) -> None:
    assert sorted(p.name for p in trained.iterdir()) == ["head.npz", "meta.json"]
    meta = json.loads((trained / "meta.json").read_text())
    assert set(meta["thresholds"]) == {"trigger", "fe", "entity"}
    assert NOT_LABEL in meta["labels"] and "fe:Goods" in meta["labels"]
    with np.load(trained / "head.npz", allow_pickle=False) as data:  # no pickles
        assert {"w1", "w2", "mean", "scale"} <= set(data.files)


def test_gold_accepted_and_corrupted_rejected(trained: Path) -> None:
    verifier = Verifier.load(trained)
    gold = corpus(10, seed=5)
    checks = verifier.check_many(gold)
    accepted = [c.ok for row in checks for c in row]
    assert sum(accepted) >= 0.8 * len(accepted)
    wrong = corpus(10, seed=5)
    for s in wrong:  # swap the buyer/seller FE and the goods for a place
        s.structures[0].args[1].label = "Place"
    rejected = [not c.ok for row in verifier.check_many(wrong) for c in row if c.kind == "fe" and c.label == "Place"
                and c.span[1] - c.span[0] > 6]
    assert sum(rejected) >= 0.7 * len(rejected)
    first = next(c for row in verifier.check_many(wrong) for c in row if not c.ok)
    assert "predicted" in first.reason and first.predicted is not None


def test_unseen_label_rejected_with_reason(trained: Path) -> None:
    sentence = corpus(1)[0]
    sentence.structures[1].label = "MISC"
    check = next(c for c in Verifier.load(trained).check(sentence) if c.kind == "entity")
    assert not check.ok and "never seen in training" in check.reason


def test_schema_mismatch_names_missing_labels(trained: Path) -> None:
    verifier = Verifier.load(trained)
    srl = Sentence("s1", "Alice bought a car .", [Structure("srl", "buy.01", Span(6, 12, "buy"),
                                                            [Span(0, 5, "ARG0"), Span(13, 18, "ARG1")])])
    with pytest.raises(ParaspanError) as err:
        verifier.require_schema([srl])
    assert err.value.code == "E843" and "ARG0" in str(err.value)
    with pytest.raises(ParaspanError) as err2:
        verifier.check(srl)
    assert err2.value.code == "E842" and "role" in str(err2.value)
    other = [Sentence("e", "Alice met Bob .", [Structure("entity", lab, Span(0, 5)) for lab in ("PER", "ORG")])]
    with pytest.raises(ParaspanError, match="PER"):
        verifier.require_schema(other)


def test_corpus_too_small_names_the_minimum(tmp_path: Path) -> None:
    with pytest.raises(ParaspanError) as err:
        train_verifier(corpus(3), corpus(3, 1), tmp_path / "v", VerifierRecipe(epochs=1))
    assert err.value.code == "E845" and str(MIN_SPANS) in str(err.value)


def test_empty_and_out_of_range_spans_rejected_and_counted(trained: Path) -> None:
    flt = build_filter({"name": "labels", "verifier": str(trained)})
    empty, out_of_range = corpus(2, seed=3)
    empty.structures[0].args[0] = Span(3, 3, empty.structures[0].args[0].label)
    out_of_range.structures[1].anchor = Span(5, 500)
    decisions = flt.decide_batch([(empty, None), (out_of_range, None)])
    assert [d.keep for d in decisions] == [False, False]
    assert "empty" in decisions[0].reason and "out of range" in decisions[1].reason
    assert flt.counts["bad span"] == 2  # type: ignore[attr-defined]


def test_labels_filter_is_registered_and_decides(trained: Path) -> None:
    assert "labels" in filters.names()
    flt = build_filter({"name": "labels", "verifier": str(trained), "record_as": "span-labels"})
    assert flt.name == "span-labels"
    sentence = corpus(1, seed=9)[0]
    decision = flt.decide(sentence)
    assert decision.details["spans"] == 5
    assert decision.keep == (decision.details["failed"] == 0)
    if decision.keep:
        assert decision.score is not None and 0 < decision.score <= 1
    with pytest.raises(ParaspanError):
        build_filter({"name": "labels", "verifier": 3.5, "bogus": 1})


def test_lexicon_rejects_trigger_of_another_frame(trained: Path) -> None:
    verifier = Verifier.load(trained)
    verifier.lexicon = {"buy.v": ["Commerce_buy"], "sell.v": ["Commerce_sell"]}
    sentence = Sentence("x", "Alice bought a car .", [Structure("frame", "Commerce_sell", Span(6, 12, "sell.v"), [])])
    check = verifier.check(sentence)[0]
    assert not check.ok and check.reason == "lemma 'buy' is an LU of Commerce_buy, not of Commerce_sell"
    unknown = Sentence("y", "Alice purloined a car .", [Structure("frame", "Commerce_buy", Span(6, 15), [])])
    assert "lemma" not in verifier.check(unknown)[0].reason  # not listed: the model's call
    # FrameNet lists some lemmas spelt one way only: a British "merchandised" is looked up as
    # "merchandize" too (the frames are ones the test verifier was trained on)
    verifier.lexicon = {"merchandize.v": ["Commerce_sell"]}
    british = Sentence("z", "Alice merchandised a car .", [Structure("frame", "Commerce_buy", Span(6, 18), [])])
    check = verifier.check(british)[0]
    assert not check.ok and check.reason == "lemma 'merchandise' is an LU of Commerce_sell, not of Commerce_buy"


def test_missing_verifier_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ParaspanError) as err:
        Verifier.load(tmp_path / "nothing")
    assert err.value.code == "E840" and "framenet15" in str(err.value)


def test_document_split_is_deterministic_and_by_document() -> None:
    sentences = corpus(70)
    parts = document_split(sentences)
    assert sum(len(p) for p in parts.values()) == 70
    docs = {name: {s.id.rsplit("-", 1)[0] for s in part} for name, part in parts.items()}
    assert not docs["train"] & docs["dev"] and not docs["train"] & docs["test"]
    assert document_split(sentences) == parts


def test_instance_key_ignores_label() -> None:
    a = SpanInstance("t", "fe", (0, 1), None, "F", "A")
    assert a.label == "A" and a.kind == "fe"


# ----------------------------------------------------------------------------- shipped verifiers on ../shared


def _first(sentences: Iterator[Sentence], n: int) -> list[Sentence]:
    return [s for s in islice(sentences, n * 3) if s.structures][:n]


@pytest.mark.shared
@pytest.mark.parametrize(("name", "parts", "fmt", "options"), [
    ("framenet15", ("data", "framenet", "fndata-1.5.tar.gz"), "framenet",
     {"split": "dev", "splits": "fulltext-splits.json"}),
    ("ewt-up", ("data", "srl", "up-english-ewt", "en_ewt-up-dev.conllu"), "conllu-srl", {}),
    ("wikiann", ("data", "ner", "wikiann-en", "dev"), "bio", {}),
])
def test_shipped_verifier_on_shared_dev(name: str, parts: tuple[str, ...], fmt: str, options: dict) -> None:
    from paraspan.corpus.formats import read_corpus

    path = need_shared(*parts)
    if "splits" in options:
        options = {**options, "splits": path.parent / options["splits"]}
    verifier = Verifier.load(name)
    sentences = _first(read_corpus(path, fmt, **options), 12)
    checks = [c for row in verifier.check_many(sentences) for c in row]
    assert sum(c.ok for c in checks) >= 0.75 * len(checks)
    rng = random.Random(0)
    for s in sentences:  # a wrong label of the same kind on every span
        for st in s.structures:
            if st.kind == "entity":
                st.label = rng.choice([lab for lab in verifier.kind_labels("entity") if lab != st.label])
            for arg in st.args:
                kind = "fe" if st.kind == "frame" else "role"
                pool = verifier.frame_fes.get(st.label) if kind == "fe" else None
                arg.label = rng.choice([lab for lab in (pool or verifier.kind_labels(kind)) if lab != arg.label]
                                       or [arg.label])
    corrupted = [c for row in verifier.check_many(sentences) for c in row if c.kind != "trigger"]
    assert sum(not c.ok for c in corrupted) >= 0.6 * len(corrupted)


def test_train_verifier_cli_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from paraspan.cli.main import main

    src = tmp_path / "gold.jsonl"
    src.write_text("".join(json.dumps(s.to_dict()) + "\n" for s in corpus(90)), encoding="utf-8")
    out = tmp_path / "v"
    assert main(["train-verifier", str(src), "-o", str(out), "--epochs", "3", "--hidden", "32",
                 "--cache", str(tmp_path / "cache")]) == 0
    err = capsys.readouterr().err
    assert "split by document" in err and "wrote" in err
    meta = json.loads((out / "meta.json").read_text())
    assert meta["info"]["data"]["held_back_test_sentences"] > 0 and set(meta["thresholds"]) >= {"fe", "trigger"}
    small = tmp_path / "small.jsonl"
    small.write_text("".join(json.dumps(s.to_dict()) + "\n" for s in corpus(3)), encoding="utf-8")
    assert main(["train-verifier", str(small), "-o", str(tmp_path / "w"), "--dev", str(small)]) != 0
    assert f"at least {MIN_SPANS} labelled spans" in " ".join(capsys.readouterr().err.split())


def test_auto_picks_the_shipped_verifier_or_names_them() -> None:
    flt = build_filter("labels")
    ner = Sentence("n", "Angela Merkel visited Paris .", [Structure("entity", "PER", Span(0, 13)),
                                                          Structure("entity", "LOC", Span(22, 27))])
    decision = flt.decide(ner)
    assert decision.details["spans"] == 2 and decision.keep, decision.reason
    assert flt.verifier_for(ner).kinds == ["entity"]  # type: ignore[attr-defined]
    nothing = Sentence("e", "It rained .", [])
    assert flt.decide(nothing).keep
    odd = Sentence("o", "Foo bar .", [Structure("entity", "GADGET", Span(0, 3))])
    with pytest.raises(ParaspanError) as err:
        flt.decide(odd)
    assert err.value.code == "E844" and "train-verifier" in str(err.value) and "wikiann" in str(err.value)


def test_auto_rejects_a_frame_of_the_release_its_verifier_never_saw_instead_of_stopping() -> None:
    """A FrameNet exemplar of a frame without full-text annotation (Exchange_currency in 1.5) is in
    the shipped FrameNet verifier's schema but not its labels: rejected with that reason (the run
    goes on), not E844, which stopped a run on FrameNet exemplars."""
    flt = build_filter("labels")
    text = "She changed her pounds into dollars ."
    odd = Sentence("x", text, [Structure("frame", "Exchange_currency", Span(4, 11, "change.v"),
                                         [Span(12, 22, "Source_currency"), Span(23, 35, "Target_currency")])])
    verifier = flt.verifier_for(odd)
    assert verifier is not None and not verifier.known("trigger", "Exchange_currency")
    decision = flt.decide(odd)
    assert not decision.keep and "never seen" in decision.reason


def test_shipped_framenet_verifier_uses_the_lexicon() -> None:
    verifier = Verifier.load("framenet15")
    sentence = Sentence("s", "She bought the house for forty dollars .", [
        Structure("frame", "Commerce_sell", Span(4, 10, "sell.v"), [Span(0, 3, "Seller"), Span(11, 20, "Goods")])])
    trigger = verifier.check(sentence)[0]
    assert trigger.kind == "trigger" and not trigger.ok
    assert trigger.reason.startswith("lemma 'buy' is an LU of ") and "Commerce_buy" in trigger.reason


def test_relative_labels_excuse_a_span_the_verifier_fails_on_the_gold_source_too() -> None:
    """A rewrite that keeps a span's words and label cannot have made it wrong: when the shipped
    verifier fails the gold source's span as well (it reads this "army" as Military), ``relative``
    does not count it against the output; a changed word is checked as before."""
    from paraspan.filter import build_filters

    def frame(text: str, word: str) -> Sentence:
        at = text.index(word)
        of = text.index("of volunteers")
        return Sentence("a", text, [Structure("frame", "Aggregate", Span(at, at + len(word), "army.n"),
                                              [Span(of, of + len("of volunteers"), "Individuals")])])

    source = frame("The general fed his growing army of volunteers .", "army")
    moved = frame("However , the general fed his growing army of volunteers .", "army")
    [plain] = build_filters([{"name": "labels"}])
    [relative] = build_filters([{"name": "labels", "relative": True}])
    assert not plain.decide(moved, source).keep
    decision = relative.decide(moved, source)
    assert decision.keep and "on the gold source too" in decision.reason
    assert not relative.decide(moved).keep  # no source, nothing to compare with
    swapped = frame("The general fed his growing troops of volunteers .", "troops")
    refused = relative.decide(swapped, source)  # another word: its own check, whatever the source's
    assert not refused.keep and "'troops' as Aggregate" in refused.reason
