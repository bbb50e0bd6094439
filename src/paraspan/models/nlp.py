"""The spaCy English pipeline (named ``nlp`` so it does not shadow the ``spacy`` package)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from paraspan.errors import ModelError
from paraspan.models.resolve import resolve

if TYPE_CHECKING:
    from spacy.language import Language


def load_spacy(name: str | None = None, exclude: tuple[str, ...] = ()) -> Language:
    """A spaCy pipeline: the packaged ``en_core_web_sm`` by default, or a path / package name.

    ``exclude`` drops components that are not needed (e.g. ``("ner",)``) to load faster.
    Loaded once per (path, exclude) in a process.
    """
    resolved = resolve("spacy", name)
    return _load(str(resolved.path), tuple(sorted(exclude)))


@functools.lru_cache(maxsize=4)
def _load(path: str, exclude: tuple[str, ...]) -> Language:
    try:
        import spacy
    except ImportError:
        raise ModelError.from_code("E330") from None
    try:
        # Loading from the data folder (not the package) works for any pipeline folder.
        return spacy.load(path, exclude=list(exclude))
    except (OSError, ValueError) as exc:
        raise ModelError.from_code("E331", path=path, exc=exc) from None
