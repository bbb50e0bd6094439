"""NER with spaCy's trainable ``ner`` component, trained from a generated CPU config on DocBin files.

The config is spaCy's own ``init config`` for ``["ner"]`` optimised for efficiency (hash
embeddings + CNN tok2vec, no static vectors); only the training length and the seed are set
here. ``budget="gold"`` (the default) gives every set the updates of ``epochs`` passes over its gold
sentences alone (spaCy's own batch schedule counted on them), so copies and new sentences change
what it sees, not how long it learns; ``budget="all"`` makes ``epochs`` passes over what it is given,
so an augmented set gets more updates than its gold subset (the earlier runs). The final model is
scored, with the running average of its weights (``averages``, the default) or the last step's (no
checkpoint picked on the evaluation set), with the gold tokenisation, on each evaluation set:
entity F1 by exact span and type.
"""

from __future__ import annotations

import io
import math
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paraspan.corpus.schema import Sentence
from paraspan.evaluate.downstream.learners import RunResult

BUDGETS = ("all", "gold")


def gold_steps(docs: Sequence[Any], epochs: int, batcher: Any) -> int:
    """Updates that ``epochs`` passes over ``docs`` take under spaCy's ``batcher`` (one schedule
    across the passes, as its training loop uses it)."""
    from spacy import registry

    batch = registry.resolve({"b": batcher})["b"]
    return sum(sum(1 for _ in batch(list(docs))) for _ in range(epochs))


def ner_config(train: Path, dev: Path, seed: int, max_epochs: int, max_steps: int) -> Any:
    """spaCy's generated ``ner`` training config with our paths, length and seed."""
    from spacy.cli.init_config import init_config

    config = init_config(lang="en", pipeline=["ner"], optimize="efficiency", gpu=False, silent=True)
    config["paths"]["train"] = str(train)
    config["paths"]["dev"] = str(dev)
    config["system"]["seed"] = seed
    config["training"]["patience"] = 0
    set_length(config, max_epochs, max_steps)
    return config


def set_length(config: Any, max_epochs: int, max_steps: int) -> None:
    """How long ``config`` trains (``max_epochs`` 0: no pass limit)."""
    config["training"]["max_epochs"] = max_epochs
    config["training"]["max_steps"] = max_steps
    config["training"]["eval_frequency"] = max_steps + 1  # only the step-0 check the loop insists on


def _gold_docs(sentences: Sequence[Sentence], path: Path) -> list[Any]:
    from spacy.tokens import DocBin

    from paraspan.corpus.docbin import write_docbin

    write_docbin(list(sentences), path)
    import spacy

    return list(DocBin().from_disk(path).get_docs(spacy.blank("en").vocab))


@dataclass
class SpacyNerLearner:
    """spaCy ``ner`` trained for ``epochs`` passes (at most ``max_steps`` updates); ``budget``: passes
    over everything it is given (``all``) or as many updates as passes over its gold part (``gold``)."""

    # Chosen on WikiANN dev with gold only before any augmented run (benchmarks/ner_learner.py): at
    # 10%, 20 passes' updates with averaged weights gave 53.2 F1, 20 without averaging 51.5, the
    # 10 passes of the earlier runs 49.9 (and copies of the gold subset helped those); 40: 50.8.
    epochs: int = 20
    max_steps: int = 3000
    budget: str = "gold"
    #: score the running average of the weights (spaCy's ``use_averages``) instead of the last step's
    averages: bool = True
    name: str = "ner"

    def __post_init__(self) -> None:
        if self.budget not in BUDGETS:
            raise ValueError(f"budget must be one of {', '.join(BUDGETS)}, not {self.budget!r}")

    def run(self, train: Sequence[Sentence], evals: dict[str, Sequence[Sentence]], seed: int) -> RunResult:
        from paraspan.corpus.docbin import fast_msgpack

        with fast_msgpack():  # DocBin reading was two thirds of the time
            return self._run(train, evals, seed)

    def _run(self, train: Sequence[Sentence], evals: dict[str, Sequence[Sentence]], seed: int) -> RunResult:
        import warnings

        from spacy.tokens import Doc
        from spacy.training import Example
        from spacy.training.initialize import init_nlp
        from spacy.training.loop import train as train_loop
        from spacy.util import fix_random_seed

        started = time.perf_counter()
        result = RunResult()
        with tempfile.TemporaryDirectory(prefix="paraspan-ner-") as tmp:
            folder = Path(tmp)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # overlapping entities are reported by the docbin writer
                train_docs = _gold_docs(train, folder / "train.spacy")
                # The loop evaluates once at step 0 whatever the config says: give it a tiny set.
                first_eval = next(iter(evals.values()), [])
                _gold_docs(list(first_eval)[:50] or list(train)[:1], folder / "dev.spacy")
            labels = sorted({e.label_ for d in train_docs for e in d.ents})
            result.info = {"train_docs": len(train_docs), "labels": labels,
                           "train_entities": sum(len(d.ents) for d in train_docs)}
            if not labels:
                result.diverged = "no entity in the training data"
                result.seconds = time.perf_counter() - started
                return result
            fix_random_seed(seed)
            config = ner_config(folder / "train.spacy", folder / "dev.spacy", seed, self.epochs, self.max_steps)
            if self.averages:
                config["training"]["optimizer"]["use_averages"] = True
            if self.budget == "gold":
                gold = [d for d, s in zip(train_docs, train, strict=True) if not s.is_augmented]
                steps = min(self.max_steps, gold_steps(gold, self.epochs, config["training"]["batcher"]))
                set_length(config, 0, steps)
                result.info["steps"] = steps
            nlp = init_nlp(config)
            log = io.StringIO()
            # spaCy swaps the averaged weights in only when it saves (its last `use_params` call is
            # a context manager never entered): with averages, score the model it saved
            out = folder / "out" if self.averages else None
            if out is not None:
                out.mkdir()  # spaCy writes into it, and does not make it
            nlp, last = train_loop(nlp, out, stdout=log, stderr=log)
            if last is not None:
                import spacy

                nlp = spacy.load(last)
            losses = [line for line in log.getvalue().splitlines() if line.strip()[:1].isdigit()]
            result.info["log_tail"] = losses[-1:] if losses else []
            for eval_name, sentences in evals.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    gold = _gold_docs(sentences, folder / f"eval-{len(result.scores)}.spacy")
                examples = [Example(nlp(Doc(nlp.vocab, words=[t.text for t in d],
                                            spaces=[bool(t.whitespace_) for t in d])), d) for d in gold]
                scores = nlp.evaluate(examples)
                f1 = scores.get("ents_f")
                if f1 is None or (isinstance(f1, float) and math.isnan(f1)):
                    result.diverged = f"no entity score on {eval_name}"
                    break
                gold_labels = {e.label_ for d in gold for e in d.ents}
                result.scores[eval_name] = {
                    "f1": round(100 * float(scores["ents_f"]), 2), "precision": round(100 * float(scores["ents_p"]), 2),
                    "recall": round(100 * float(scores["ents_r"]), 2),
                    "gold_unseen_labels": sorted(gold_labels - set(labels))}
        result.seconds = time.perf_counter() - started
        return result
