"""The augmentation loop with rule-based fake models: constraint growth, alignment, provenance,
filters, skipped input, unplaced spans, keep-args, workers, streaming."""

from __future__ import annotations

import json

import pytest

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.generate.base import GenerationResult
from paraspan.pipeline import AugmentConfig, Augmenter, export_outputs, open_store, run_augment
from paraspan.pipeline.store import RunStore, StoreError
from tests.pipeline.conftest import FAKE, SENTENCES, with_, write_corpus
from tests.pipeline.fakes import FakeAligner, FakeGenerator


def _augmenter(config: AugmentConfig) -> Augmenter:
    from paraspan.pipeline import build_filters

    return Augmenter(config, FakeGenerator(), FakeAligner(), {"llm": "fake"}, build_filters(config))


def _teacher(fake_config, text: str, arg: tuple[int, int]):
    """One iteration over ``text`` whose People_by_vocation target is "teacher", with a Person FE at ``arg``:
    the result, its first output and that output's structure ("teacher" becomes "tutor")."""
    start = text.index("teacher")
    row = {"id": "t", "text": text, "structures": [{"kind": "frame", "label": "People_by_vocation",
           "anchor": {"start": start, "end": start + 7, "label": "teacher.n"},
           "args": [{"start": arg[0], "end": arg[1], "label": "Person"}]}]}
    result = _augmenter(with_(fake_config, iterations=1)).process(Sentence.from_dict(row))
    out = result.outputs[0].sentence
    [st] = out.structures
    assert out.text[st.anchor.start:st.anchor.end] == "tutor"
    return result, out, st


def test_an_argument_that_is_the_anchor_goes_with_it(fake_config):
    """FrameNet noun targets are often their own FE ("teacher" as Person): it moves with the anchor."""
    _, out, st = _teacher(fake_config, "The teacher arrived late.", (4, 11))
    assert [(out.text[a.start:a.end], a.label) for a in st.args] == [("tutor", "Person")]
    assert out.provenance["args_placed"] == out.provenance["args"] == 0  # no argument apart from the anchor


def test_an_argument_around_the_anchor_keeps_its_words_around_it(fake_config):
    """An FE that holds the target and more ("the new teacher" as Person, "teacher" the target) is
    placed around the new anchor; it used to be dropped from the output (judged fn-infill-v4)."""
    result, out, st = _teacher(fake_config, "The new teacher arrived late.", (0, 15))
    assert [(out.text[a.start:a.end], a.label) for a in st.args] == [("The new tutor", "Person")]
    [info] = [s for s in out.provenance["aligner"]["spans"] if s.get("around_anchor")]
    assert info["label"] == "Person" and info["placed"] == [0, 13]
    assert out.provenance["args_placed"] == out.provenance["args"] == 0  # counted apart, like the anchor's own
    # a candidate that lost the argument's other words is not placed: the FE could not be carried
    rows = [c for c in result.candidates if c.text.startswith("Indeed")]
    assert rows and not any(c.placed for c in rows)


def test_iterations_ban_each_new_anchor(fake_config):
    result = _augmenter(fake_config).process(Sentence.from_dict(SENTENCES[0]))
    assert result.status == "done"
    texts = [o.sentence.text for o in result.outputs]
    assert texts == ["The farmer traded his tractor to a neighbour.",
                     "The farmer handed over his tractor to a neighbour.",
                     "The farmer vended his tractor to a neighbour."]
    assert [o.sentence.provenance["banned"] for o in result.outputs] == [
        ["sold"], ["sold", "traded"], ["sold", "traded", "handed over"]]
    out = result.outputs[1].sentence
    [st] = out.structures
    assert out.text[st.anchor.start:st.anchor.end] == "handed over"
    assert st.anchor.label == "hand over.v" and st.label == "Commerce_sell"
    assert [(out.text[a.start:a.end], a.label) for a in st.args] == [
        ("The farmer", "Seller"), ("his tractor", "Goods"), ("to a neighbour", "Buyer")]
    prov = out.provenance
    assert out.source_id == "a" and prov["iteration"] == 2 and prov["method"] == "iterative-paraphrase"
    assert set(prov["paraphrase"]) == {"forward", "backward", "score"}
    assert prov["aligner"]["anchor"] == pytest.approx(0.96)
    assert [s["role"] for s in prov["aligner"]["spans"]] == ["anchor", "arg", "arg", "arg"]
    assert prov["candidate_rank"] == 0 and prov["seed"] == 0 and prov["models"] == {"llm": "fake"}
    assert prov["filters"]["iter1"] is False and prov["filters"]["iter3"] is True
    assert out.structures[0].to_dict()  # a valid schema sentence
    Sentence.from_dict(json.loads(json.dumps(out.to_dict())))
    # every candidate is kept, the chosen one marked
    assert sum(c.chosen for c in result.candidates) == 3 and len(result.candidates) == 6


def test_sentence_without_structures_is_skipped(fake_config):
    result = _augmenter(fake_config).process(Sentence.from_dict(SENTENCES[1]))
    assert result.status == "skipped" and not result.outputs


def test_a_sentence_with_more_structures_than_the_bound_is_skipped_with_a_note(tmp_path, corpus, fake_config):
    # sentence "d" has two structures to augment, the others one or none
    config = with_(fake_config, max_structures=1)
    result = _augmenter(config).process(Sentence.from_dict(SENTENCES[3]))
    assert result.status == "skipped" and not result.outputs and not result.candidates
    assert "more structures than max_structures allows (2 > 1" in result.note
    assert "--set max_structures=N" in result.note
    summary = run_augment(corpus, open_store(tmp_path / "run.db", config, resume=False), config)
    assert (summary.done, summary.skipped) == (2, 2)
    assert summary.notes["more structures than max_structures allows"] == 1
    unbounded = with_(fake_config, max_structures=None)
    assert _augmenter(unbounded).process(Sentence.from_dict(SENTENCES[3])).status == "done"


def test_a_stored_config_without_the_structure_bound_reads_with_the_default(fake_config):
    stored = {k: v for k, v in fake_config.to_dict().items() if k != "max_structures"}
    config = AugmentConfig.from_dict(stored)
    assert config.max_structures == 32 and config == fake_config


def test_structure_stops_when_nothing_is_left(fake_config):
    config = with_(fake_config, iterations=8)
    result = _augmenter(config).process(Sentence.from_dict(SENTENCES[0]))
    assert len(result.outputs) == 4  # four synonyms of "sold", then no paraphrase
    assert "iteration 5" in result.note


class _FlakyGenerator(FakeGenerator):
    """Returns nothing on the first attempt of iteration 2 (as sampling sometimes does)."""

    def generate(self, request):
        if request.id.endswith("/i2"):
            assert request.attempt == 0
            return GenerationResult(request, [], note="all samples rejected")
        return super().generate(request)


def test_retry_continues_a_chain_after_a_failed_iteration(tmp_path, fake_config):
    from paraspan.pipeline import build_filters

    sentence = Sentence.from_dict(SENTENCES[0])
    config = with_(fake_config, retries=0)
    once = Augmenter(config, _FlakyGenerator(), FakeAligner(), {}, build_filters(config)).process(sentence)
    assert len(once.outputs) == 1 and once.note == "structure 0: iteration 2: no paraphrase (all samples rejected)"

    config = with_(fake_config, retries=None)  # the default: the generator's own (1 here)
    assert AugmentConfig().retries is None and _FlakyGenerator.capabilities.retries == 1
    result = Augmenter(config, _FlakyGenerator(), FakeAligner(), {}, build_filters(config)).process(sentence)
    assert result.status == "done" and result.note is None
    assert [o.iteration for o in result.outputs] == [1, 2, 3]
    second = result.outputs[1]
    assert second.sentence.provenance["attempt"] == 1 and "attempt" not in result.outputs[0].sentence.provenance
    assert [c.meta["attempt"] for c in result.candidates if c.iteration == 2] == [1, 1]
    # the run store takes the retried iteration's rows (their keys stay distinct)
    store = RunStore.create(tmp_path / "run.db", config.to_dict())
    store.add_inputs([(sentence, 0)])
    store.commit_work(result)
    assert [o.iteration for o in store.iter_outputs()] == [1, 2, 3]
    store.close()


def test_a_generator_says_how_many_retries_pay(fake_config):
    """No retry for a generator whose capabilities say 0 (the substituter, the cascade), unless the run asks."""
    from paraspan.generate.base import Capabilities
    from paraspan.pipeline import build_filters

    class Once(_FlakyGenerator):
        capabilities = Capabilities(honours_ban=True, retries=0)

    sentence = Sentence.from_dict(SENTENCES[0])
    for retries, iterations in ((None, [1]), (1, [1, 2, 3])):
        config = with_(fake_config, retries=retries)
        result = Augmenter(config, Once(), FakeAligner(), {}, build_filters(config)).process(sentence)
        assert [o.iteration for o in result.outputs] == iterations


def test_retry_draws_other_samples():
    from paraspan.generate.paraphrase import Paraphraser
    from paraspan.text.constraints import BanSet

    para = Paraphraser(backend=FakeGenerator())  # only the constraint sets are drawn: no model is called
    text = "The farmer sold his old red tractor to a friendly neighbour."
    first, again, retry = (para._constraint_sets(text, BanSet(), [], attempt) for attempt in (0, 0, 1))
    assert [g.seed for g in first[0]] == [g.seed for g in again[0]]  # reproducible
    assert [g.seed for g in first[0]] != [g.seed for g in retry[0]]


def test_unplaced_argument_drops_the_output(fake_config):
    data = json.loads(json.dumps(SENTENCES[0]))
    data["text"] = "The farmer sold his tractor to a neighbour."
    # an argument the fake paraphrase rewrites away: "Indeed," candidate has it, the main one not
    data["structures"][0]["args"].append({"start": 0, "end": 3, "label": "Odd"})  # "The" → lowercased in cand 1
    aug = _augmenter(fake_config)
    result = aug.process(Sentence.from_dict(data))
    assert result.outputs  # "The" is placed in candidate 0 (verbatim)
    strict = _augmenter(with_(fake_config, iterations=1))

    class Dropping(FakeAligner):
        def align(self, tasks, progress=None):
            out = super().align(tasks)
            from paraspan.align.base import AlignResult
            return [AlignResult(None, 0.2, t.source_span) if "neighbour" in t.source[t.source_span[0]:t.source_span[1]]
                    else r for t, r in zip(tasks, out, strict=False)]

    strict.aligner = Dropping()
    dropped = strict.process(Sentence.from_dict(SENTENCES[0]))
    assert not dropped.outputs and "required span" in dropped.note
    partial = _augmenter(with_(fake_config, iterations=1, require_args=False))
    partial.aligner = Dropping()
    [out] = partial.process(Sentence.from_dict(SENTENCES[0])).outputs
    assert out.sentence.provenance["args_placed"] == 2 and len(out.sentence.structures[0].args) == 2


def test_keep_args_places_arguments_verbatim(fake_config):
    config = with_(fake_config, keep_args=True, iterations=1)
    [out] = _augmenter(config).process(Sentence.from_dict(SENTENCES[0])).outputs
    st = out.sentence.structures[0]
    assert [out.sentence.text[a.start:a.end] for a in st.args] == ["The farmer", "his tractor", "to a neighbour"]
    assert all(s.get("kept") for s in out.sentence.provenance["aligner"]["spans"][1:])


def test_run_store_and_export(tmp_path, corpus, fake_config):
    store = open_store(tmp_path / "run.db", fake_config, resume=False)
    summary = run_augment(corpus, store, fake_config)
    assert (summary.inputs, summary.done, summary.skipped) == (4, 3, 1)
    # a: 3 iterations; c: 3; d: frame 3 + entity 0 ("train" has no synonym)
    assert summary.outputs == 9 and summary.outputs_per_iteration == {1: 3, 2: 3, 3: 3}
    assert summary.kept_per_filter["iter1"] == 3 and summary.kept_per_filter["all"] == 9
    assert summary.new_pairs == 9
    n = export_outputs(store, tmp_path / "iter1.jsonl", filter="iter1")
    assert n == 3
    n = export_outputs(store, tmp_path / "rule.jsonl", filter="iteration<=2&aligner>=0.9", include_inputs=True)
    assert n == 4 + 6
    ids = [json.loads(line)["id"] for line in (tmp_path / "rule.jsonl").read_text().splitlines()]
    assert ids[:4] == ["a", "b", "c", "d"] and len(set(ids)) == len(ids)
    # a resumed run with different settings is refused
    store.close()
    with pytest.raises(StoreError, match="different settings"):
        open_store(tmp_path / "run.db", with_(fake_config, iterations=5), resume=True)
    again = open_store(tmp_path / "run.db", fake_config, resume=True)
    assert run_augment(corpus, again, fake_config).processed_now == 0


def test_the_summary_names_the_checks_the_run_asked_for(tmp_path, corpus, fake_config):
    """Every run records the presets (for export), but what decided it are its own checks: the summary's
    table shows those (issue 65: no "kept by lax-cal 0" rows the user never asked for)."""
    config = with_(fake_config, filters=["iteration<=1"])
    summary = run_augment(corpus, open_store(tmp_path / "run.db", config, resume=False), config)
    assert summary.checks == ["iteration<=1"] and summary.kept_by_checks() == {"iteration<=1": 3}
    assert "iter1" in summary.kept_per_filter and "iter1" not in summary.kept_by_checks()


def test_a_run_without_outputs_exports_an_empty_file(tmp_path, fake_config):
    """No output: -o gets an empty file under any filter, and no filter model is loaded to decide nothing."""
    store = open_store(tmp_path / "run.db", fake_config, resume=False)
    assert export_outputs(store, tmp_path / "out.jsonl", filter="verified") == 0
    assert export_outputs(store, tmp_path / "out2.jsonl", filter="learned:/no/such/model.json") == 0
    assert (tmp_path / "out.jsonl").read_text() == ""


def _outputs(store: RunStore) -> list[tuple]:
    """Everything an output is: id, input, the sentence (text, structures, provenance), decisions, scores."""
    return [(r.id, r.input_id, r.sentence.to_dict(), r.decisions, r.scores) for r in store.iter_outputs()]


def _local_outputs(tmp_path, corpus, config) -> list[tuple]:
    one = open_store(tmp_path / "one.db", config, resume=False)
    run_augment(corpus, one, config)
    return _outputs(one)


def test_two_worker_processes_match_one(tmp_path, corpus, fake_config):
    two = open_store(tmp_path / "two.db", fake_config, resume=False)
    run_augment(corpus, two, fake_config, workers=2)
    a, b = _local_outputs(tmp_path, corpus, fake_config), _outputs(two)
    assert a == b and len(a) == 9
    workers = {w for (w,) in two.conn.execute("SELECT DISTINCT worker FROM inputs")}
    assert all(w.startswith("pid") for w in workers)


def test_auto_workers(tmp_path, corpus, fake_config):
    told: list[str] = []
    store = open_store(tmp_path / "auto.db", fake_config, resume=False)
    # one pending input: one worker, in this process, whatever the machine
    summary = run_augment(corpus, store, fake_config, workers="auto", limit=1, warn=told.append)
    assert summary.done == 1 and summary.outputs == 3 and not told
    assert {w for (w,) in store.conn.execute("SELECT DISTINCT worker FROM inputs")} == {"main"}
    with pytest.raises(ParaspanError) as info:  # a cluster's size is not this machine's
        run_augment(corpus, open_store(tmp_path / "ray.db", fake_config, resume=False), fake_config,
                    workers="auto", backend="ray", ray_address="ray://elsewhere:10001")
    assert info.value.code == "E876"


def test_ray_backend_matches_the_local_executor(tmp_path, corpus, fake_config):
    pytest.importorskip("ray")  # `make install` installs the ray extra, so this runs in CI
    store = open_store(tmp_path / "ray.db", fake_config, resume=False)
    # a local Ray of 2 CPUs (ray.init(num_cpus=workers, include_dashboard=False)), 2 actors
    summary = run_augment(corpus, store, fake_config, workers=2, backend="ray")
    assert summary.outputs == 9 and summary.done == 3 and summary.skipped == 1
    assert _outputs(store) == _local_outputs(tmp_path, corpus, fake_config)
    workers = {w for (w,) in store.conn.execute("SELECT DISTINCT worker FROM inputs WHERE status = 'done'")}
    assert workers and all(w.startswith("pid") for w in workers)  # made by the actors, not in this process


def _peak_memory(tmp_path, n, config):
    import tracemalloc

    path = tmp_path / f"big{n}.jsonl"
    with path.open("w") as handle:
        for i in range(n):
            row = {"id": f"x{i}", "text": f"Sentence number {i} has no frame at all, just words.", "structures": []}
            handle.write(json.dumps(row) + "\n")
    store = open_store(tmp_path / f"big{n}.db", config, resume=False)
    augmenter = _augmenter(config)
    tracemalloc.start()
    summary = run_augment(path, store, config, augmenter=augmenter)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert summary.skipped == n and summary.outputs == 0
    return peak


def test_large_corpus_is_streamed(tmp_path, fake_config):
    small = _peak_memory(tmp_path, 1000, fake_config)
    large = _peak_memory(tmp_path, 6000, fake_config)
    # six times the corpus, about the same peak: inputs are streamed in and out of the store
    assert large < 1.5 * small + 2**20, (small, large)


def test_limit(tmp_path, corpus, fake_config):
    store = open_store(tmp_path / "lim.db", fake_config, resume=False)
    summary = run_augment(corpus, store, fake_config, limit=2)
    assert summary.inputs == 2 and RunStore.open(tmp_path / "lim.db").count_inputs() == 2
    # resumed with the same limit: the first 2 sentences are done, nothing more is generated
    again = run_augment(corpus, open_store(tmp_path / "lim.db", fake_config, resume=True), fake_config, limit=2)
    assert again.processed_now == 0 and again.inputs == 2


def test_bad_corpus_line_reports_file_and_line(tmp_path, fake_config):
    from paraspan.errors import CorpusError

    path = write_corpus(tmp_path / "bad.jsonl", SENTENCES[:1])
    with path.open("a") as handle:
        handle.write('{"id": "z", "text": "x", "structures": [{"kind": "frame"}]}\n')
    store = open_store(tmp_path / "bad.db", fake_config, resume=False)
    with pytest.raises(CorpusError) as info:
        run_augment(path, store, fake_config)
    assert info.value.problem.line == 2


def test_fake_config_is_importable():
    assert FAKE["generator"].startswith("tests.")


class _BatchingGenerator(FakeGenerator):
    """The fake generator with ``generate_batch``: records each batch's request ids."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def generate_batch(self, requests):
        self.batches.append([r.id for r in requests])
        return [self.generate(r) for r in requests]


def test_the_structures_of_a_sentence_go_through_the_generator_together(fake_config):
    """Iteration i of every structure is one generate_batch call; the outputs, candidates and
    notes are those of one structure at a time, in the same order; the store keeps the cost."""
    from paraspan.pipeline import build_filters

    text = "The teacher arrived and sold the tractor."
    row = {"id": "two", "text": text, "structures": [
        {"kind": "frame", "label": "Arriving", "anchor": {"start": 12, "end": 19, "label": "arrive.v"},
         "args": [{"start": 0, "end": 11, "label": "Theme"}]},
        {"kind": "frame", "label": "Commerce_sell", "anchor": {"start": 24, "end": 28, "label": "sell.v"},
         "args": [{"start": 29, "end": 40, "label": "Goods"}]}]}
    sentence = Sentence.from_dict(row)
    config = with_(fake_config, iterations=3)
    plain = Augmenter(config, FakeGenerator(), FakeAligner(), {"llm": "fake"}, build_filters(config)).process(sentence)
    batching = _BatchingGenerator()
    batched = Augmenter(config, batching, FakeAligner(), {"llm": "fake"}, build_filters(config)).process(sentence)
    assert batching.batches[0] == ["two/s0/i1", "two/s1/i1"]
    assert batching.batches[1] == ["two/s0/i2", "two/s1/i2"]
    assert [(o.structure, o.iteration, o.sentence.text) for o in batched.outputs] == \
        [(o.structure, o.iteration, o.sentence.text) for o in plain.outputs]
    assert [(c.structure, c.iteration, c.candidate, c.text, c.chosen) for c in batched.candidates] == \
        [(c.structure, c.iteration, c.candidate, c.text, c.chosen) for c in plain.candidates]
    assert batched.note == plain.note
    assert batched.stats["calls"] == plain.stats["calls"] == sum(len(b) for b in batching.batches)
    assert batched.stats["batches"] == len(batching.batches) < plain.stats["batches"]
    assert batched.stats["generate_seconds"] >= 0 and "filter_cpu_seconds" in batched.stats


def test_several_sentences_go_through_the_generator_together(tmp_path, corpus, fake_config):
    """``process_many``: iteration i of every structure of every sentence is one batch, and each
    sentence's result is what it is alone; a run in batches of sentences stores what a run of
    one sentence at a time stores."""
    from paraspan.pipeline import build_filters

    sentences = [Sentence.from_dict(row) for row in SENTENCES]
    config = with_(fake_config, iterations=2)
    alone = [Augmenter(config, FakeGenerator(), FakeAligner(), {"llm": "fake"}, build_filters(config)).process(s)
             for s in sentences]
    batching = _BatchingGenerator()
    together = Augmenter(config, batching, FakeAligner(), {"llm": "fake"},
                         build_filters(config)).process_many(sentences)
    assert len({request.split("/")[0] for request in batching.batches[0]}) > 1  # several sentences in one batch
    for a, b in zip(alone, together, strict=True):
        assert (a.input_id, a.status, a.note) == (b.input_id, b.status, b.note)
        assert [(o.structure, o.iteration, o.sentence.to_dict()) for o in a.outputs] == \
            [(o.structure, o.iteration, o.sentence.to_dict()) for o in b.outputs]
    one_by_one = open_store(tmp_path / "single.db", with_(fake_config, sentences_per_batch=1), resume=False)
    run_augment(corpus, one_by_one, with_(fake_config, sentences_per_batch=1))
    assert _outputs(one_by_one) == _local_outputs(tmp_path, corpus, fake_config)


def test_the_same_labelled_sentence_is_written_once_per_source(tmp_path, corpus, fake_config):
    """NER's mentions are structures of one sentence, and a rewrite carries every mention: each
    mention's chain may give the same labelled sentence. Export writes it once (another source's
    copy is still written); the same text with other spans is one sentence with all of them (with
    ``per_structure``, a sentence of its own)."""
    store = open_store(tmp_path / "run.db", fake_config, resume=False)
    run_augment(corpus, store, fake_config)
    before = export_outputs(store, tmp_path / "all.jsonl")
    row = store.conn.execute("SELECT * FROM outputs ORDER BY id LIMIT 1").fetchone()
    names = [d[1] for d in store.conn.execute("PRAGMA table_info(outputs)")]
    copy = dict(zip(names, row, strict=True))
    data = json.loads(copy["json"])
    data["structures"] = list(reversed(data["structures"]))  # the same spans, listed in another order
    copy.update(id=copy["id"] + "-again", structure=99, json=json.dumps(data))
    store.conn.execute(f"INSERT INTO outputs ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                       list(copy.values()))
    assert export_outputs(store, tmp_path / "again.jsonl") == before
    data["structures"][0]["label"] = "Other_label"  # other spans on the same text: one sentence carries both
    store.conn.execute("UPDATE outputs SET json = ? WHERE id = ?", (json.dumps(data), copy["id"]))
    assert export_outputs(store, tmp_path / "other.jsonl") == before
    merged = [json.loads(line) for line in (tmp_path / "other.jsonl").read_text().splitlines()
              if json.loads(line)["id"] == row[0]]
    assert len(merged) == 1 and "Other_label" in [s["label"] for s in merged[0]["structures"]]
    assert len(merged[0]["provenance"]["merged"]) == 2  # the ids of the two per-structure outputs
    # a sentence per structure's output, as before: the one with other spans is another training example
    assert export_outputs(store, tmp_path / "split.jsonl", per_structure=True) == before + 1


VERSIONED = {**FAKE, "generator": "tests.pipeline.fakes:make_versioned_generator"}


def test_a_store_done_by_an_older_rule_is_not_resumed(tmp_path, corpus, monkeypatch):
    """A rule fixed since a run: its done inputs are not generated again, so resuming would serve the
    older rule's outputs as this code's; refused (E709), and the store still exports."""
    from tests.pipeline import fakes

    config = AugmentConfig(iterations=1, **VERSIONED)
    store = open_store(tmp_path / "run.db", config, resume=False)
    assert store.get_meta("code_versions") == {"rule:fake": "1"}
    run_augment(corpus, store, config)
    store.close()
    open_store(tmp_path / "run.db", config, resume=True).close()  # the same code: resumed
    monkeypatch.setattr(fakes, "RULE_VERSION", "2")
    with pytest.raises(StoreError) as caught:
        open_store(tmp_path / "run.db", config, resume=True)
    text = str(caught.value)
    assert caught.value.code == "E709" and text.startswith(f"{tmp_path / 'run.db'}: the run store holds inputs")
    assert "(rule:fake 1 → 2; 3 done)" in text and "start a new --store" in text
    with RunStore.open(tmp_path / "run.db", readonly=True) as old:
        assert export_outputs(old, tmp_path / "old.jsonl") == 3


def test_a_store_with_nothing_done_takes_the_new_versions(tmp_path, corpus, monkeypatch):
    from tests.pipeline import fakes

    config = AugmentConfig(iterations=1, **VERSIONED)
    open_store(tmp_path / "run.db", config, resume=False).close()
    monkeypatch.setattr(fakes, "RULE_VERSION", "2")
    store = open_store(tmp_path / "run.db", config, resume=True)
    assert store.get_meta("code_versions") == {"rule:fake": "2"}
    assert run_augment(corpus, store, config).processed_now == 4
    store.close()


def test_a_store_that_does_not_record_versions(tmp_path, corpus):
    """Written before stores recorded code versions: refused for a generator that has them (which
    rules wrote it is unknown), resumed for one that has none."""
    for spec, refused in ((VERSIONED, True), (FAKE, False)):
        config = AugmentConfig(iterations=1, **spec)
        path = tmp_path / f"old-{refused}.db"
        store = open_store(path, config, resume=False)
        run_augment(corpus, store, config)
        store.conn.execute("DELETE FROM meta WHERE key = 'code_versions'")
        store.close()
        if refused:
            with pytest.raises(StoreError, match="does not say which"):
                open_store(path, config, resume=True)
        else:
            open_store(path, config, resume=True).close()
