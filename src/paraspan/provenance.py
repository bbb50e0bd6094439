"""What a generator says of an output, as other components read it back: :class:`Generated`.

The pipeline writes a candidate's ``meta`` into the output's ``provenance["generated"]``. A generator
puts there what explains its candidate (a rule's name, a sample's cluster, infill's fillers), and a few
of those keys are read by the checks and the loop. They are read through this one typed model, so a
filter neither guesses at a key nor breaks on an output whose generator does not write it.
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

    rules: tuple[str, ...] = ()
    random_bans: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    keeps_anchor: bool = False

    @classmethod
    def of(cls, provenance: Mapping[str, Any] | None) -> Generated:
        """The model of ``provenance`` (an output's); the defaults where a key is absent or not of its type."""
        block = (provenance or {}).get(cls.KEY)
        if not isinstance(block, Mapping):
            return cls()
        return cls(_words(block.get("rules")), _words(block.get("random_bans")), _words(block.get("replaced")),
                   block.get("keeps_anchor") is True)


def _words(value: Any) -> tuple[str, ...]:
    """A list of words as a tuple of strings (one string: that word; anything else: none)."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value if isinstance(v, str))
    return ()
