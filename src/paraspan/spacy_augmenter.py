"""A spaCy augmenter that brings a paraspan run's verified outputs into ``spacy train``.

Registered in spaCy's ``augmenters`` registry as ``paraspan.store.v1`` (entry point
``spacy_augmenters`` in pyproject.toml), so one config block does it, no conversion::

    [corpora.train]
    @readers = "spacy.Corpus.v1"
    path = ${paths.train}

    [corpora.train.augmenter]
    @augmenters = "paraspan.store.v1"
    store = "run.db"

While spaCy reads the training corpus, each example is passed through and followed by the
outputs the store holds for it (those its ``filter`` kept, each distinct text once with all its
structures: entities in ``doc.ents``, every structure's spans in ``doc.spans``, as the docbin
writer lays them out). An example is matched to the store's input by its text. The store is read
once, when the augmenter is made; a store made from another corpus is refused (E987), at once when
``corpus`` names the training DocBin, otherwise when none of the first ``check`` examples is one of
its inputs.

No ``from __future__ import annotations`` here: spaCy's config system reads the factory's
annotations at run time.
"""

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Optional

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError


class StoreAugmenter:
    """``augmenter(nlp, example)``: the example, then an ``Example`` per verified output of it."""

    def __init__(self, outputs: dict[str, list[Sentence]], corpus: str, inputs: int, check: int,
                 include_original: bool) -> None:
        self.outputs = outputs
        self.corpus = corpus
        self.inputs = inputs
        self.check = check
        self.include_original = include_original
        #: examples passed through and augmented examples added (over every epoch)
        self.seen = 0
        self.added = 0
        self._matched = 0

    def __call__(self, nlp: Any, example: Any) -> Iterator[Any]:
        from spacy.training import Example

        from paraspan.corpus.docbin import sentence_doc

        text = example.reference.text
        found = self.outputs.get(text)
        self._matched += found is not None
        self.seen += 1
        if self.seen == self.check and not self._matched:
            raise ParaspanError.from_code("E987", corpus=self.corpus, checked=self.check, inputs=self.inputs)
        if self.include_original:
            yield example
        for sentence in found or ():
            self.added += 1
            yield Example(nlp.make_doc(sentence.text), sentence_doc(nlp, sentence))


def store_augmenter(store: str, filter: str = "verified", corpus: Optional[str] = None,  # noqa: UP045, A002
                    check: int = 10, include_original: bool = True) -> Callable[[Any, Any], Iterator[Any]]:
    """The ``paraspan.store.v1`` augmenter.

    Args:
        store: a run store written by ``paraspan augment --store`` (or ``paraspan.augment(store=...)``).
        filter: the outputs to add: a filter the store recorded (``verified``, the default of a run),
            or ``all``.
        corpus: the training DocBin (``${paths.train}``): when given, a store made from another
            corpus is refused when the augmenter is made.
        check: without ``corpus``, refuse the store when none of this many first examples is one of
            its inputs.
        include_original: pass each training example through before its outputs (False: only the
            outputs, for a corpus of augmented data alone).
    """
    from paraspan.pipeline.run import merge_outputs
    from paraspan.pipeline.store import RunStore

    path = Path(store)
    with RunStore.open(path, readonly=True) as run:
        known = run.filters()
        if filter != "all" and filter not in known:
            raise ParaspanError.from_code("E988", file=str(path),
                                          problem=f"the store recorded no filter {filter!r}",
                                          fix=f"use one it recorded ({', '.join(known) or 'none'}) or all")
        text_of: dict[str, str] = {}
        for sentence in run.iter_inputs():
            text_of.setdefault(sentence.id, sentence.text)
        name = corpus_name(run)
        outputs: dict[str, list[Sentence]] = {}
        for sentence in merge_outputs(r.sentence for r in run.iter_outputs(None if filter == "all" else filter)):
            source = text_of.get(sentence.source_id or "")
            if source is not None:
                outputs.setdefault(source, []).append(sentence)
    for text in text_of.values():
        outputs.setdefault(text, [])  # an input without outputs is still this store's input
    if corpus is not None:
        texts = _docbin_texts(Path(corpus))
        if texts and not any(t in outputs for t in texts):
            raise ParaspanError.from_code("E987", file=str(path), corpus=name, checked=len(texts), inputs=len(text_of))
    return StoreAugmenter(outputs, name, len(text_of), max(1, check), include_original)


def corpus_name(store: Any) -> str:
    """The corpus a store's run augmented: as recorded by :func:`paraspan.augment`, else read from the first
    run's command line, else the store's file name."""
    from paraspan.api import CORPUS_META

    recorded = store.get_meta(CORPUS_META)
    if isinstance(recorded, dict) and recorded.get("name"):
        return str(recorded["name"])
    for argv in store.commands():
        if "augment" in argv:
            rest = argv[argv.index("augment") + 1:]
            if rest and not rest[0].startswith("-"):
                return rest[0]
    return f"the corpus of {store.path.name}"


def _docbin_texts(path: Path) -> list[str]:
    from spacy.tokens import DocBin
    from spacy.vocab import Vocab

    from paraspan.corpus.docbin import fast_msgpack

    if not path.exists():
        raise ParaspanError.from_code("E988", file=str(path), problem="no such training corpus",
                                      fix="set corpus to the training DocBin (${paths.train}) or leave it out")
    with fast_msgpack():
        return [doc.text for doc in DocBin().from_disk(path).get_docs(Vocab())]
