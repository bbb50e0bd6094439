"""What a generator says of an output, as other components read it back: :class:`Generated`.

The pipeline writes a candidate's ``meta`` into the output's ``provenance["generated"]``. A generator
puts there what explains its candidate (a rule's name, a sample's cluster, infill's fillers), and a few
of those keys are read by the checks and the loop. They are written and read through this one typed
model (:meth:`Generated.meta`, :meth:`Generated.of`), so a generator cannot misspell one, a filter
neither guesses at a key nor breaks on an output whose generator does not write it, and the stored JSON
keeps the keys it always had (old stores read as before).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class Generated:
    """The keys of ``provenance["generated"]`` that other components read (all optional).

    ``rules``: the rewrite rules that made the output (the relation filter does not ask the judges
    about alternations they cannot tell apart). ``random_bans``: words the generator was told not to
    use, at random (a paraphrase's constraint set), and ``replaced``: words it replaced on purpose (a
    context substitute's verb): the content check lets a WordNet synonym stand for either.
    ``keeps_anchor``: the output keeps the anchor's words on purpose (a cascade's rewrite), so its
    chain goes on with the same bans.
    """

    KEY: ClassVar[str] = "generated"
    #: the keys of ``provenance["generated"]`` this model owns
    KEYS: ClassVar[frozenset[str]] = frozenset({"rules", "random_bans", "replaced", "keeps_anchor"})

    rules: tuple[str, ...] = ()
    random_bans: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    keeps_anchor: bool = False

    @classmethod
    def of(cls, provenance: Mapping[str, Any] | None) -> Generated:
        """The model of ``provenance`` (an output's); the defaults where a key is absent or not of its type."""
        return cls.of_meta((provenance or {}).get(cls.KEY))

    @classmethod
    def of_meta(cls, meta: Any) -> Generated:
        """The model of a candidate's ``meta`` (what becomes ``provenance["generated"]``)."""
        if not isinstance(meta, Mapping):
            return cls()
        return cls(_words(meta.get("rules")), _words(meta.get("random_bans")), _words(meta.get("replaced")),
                   meta.get("keeps_anchor") is True)

    def meta(self, **other: Any) -> dict[str, Any]:
        """A candidate's ``meta``: the keys this model holds that are set (lists, as JSON stores them), after
        ``other`` (what else explains the candidate: a cluster, a vote count). A key of this model in
        ``other`` is an error: it is written through the model only."""
        clash = sorted(set(other) & self.KEYS)
        if clash:
            raise TypeError(f"write {', '.join(clash)} through Generated's fields, not as free keys")
        out = dict(other)
        for key in ("rules", "random_bans", "replaced"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        if self.keeps_anchor:
            out["keeps_anchor"] = True
        return out


def _words(value: Any) -> tuple[str, ...]:
    """A list of words as a tuple of strings (one string: that word; anything else: none)."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value if isinstance(v, str))
    return ()
