"""On real Universal PropBank EWT sentences (skipped without ../shared)."""

from __future__ import annotations

from itertools import islice

import pytest

from paraspan.corpus.formats import read_corpus
from paraspan.generate.rewrite import Rewriter
from paraspan.models import load_spacy
from tests.conftest import need_shared


@pytest.mark.shared
def test_ewt_rewrites_keep_only_source_labels():
    path = need_shared("data", "srl", "up-english-ewt", "en_ewt-up-dev.conllu")
    sentences = list(islice(read_corpus(path, "conllu-srl"), 80))
    rewriter = Rewriter(nlp=load_spacy(), strict=True)
    out = list(rewriter.rewrite_corpus(sentences))
    by_id = {s.id: s for s in sentences}
    assert len(out) >= 0.5 * len(sentences)
    assert len({o.provenance["rules"][0] for o in out}) >= 5
    for rw in out:
        rw.validate()
        src = by_id[rw.source_id]
        allowed = {(st.label, a.label) for st in src.structures for a in st.args}
        assert {(st.label, a.label) for st in rw.structures for a in st.args} <= allowed
        assert {st.label for st in rw.structures} <= {st.label for st in src.structures}
    assert not [k for k in rewriter.counts if k.startswith("rule_error")]
