"""The rule registry and rule sets.

Hand-written rules are specs in ``data/rules.json`` (:mod:`.spec`), read when the registry
:data:`rewrite_rules` is first used; a plugin may register more by entry point. Learned rules
come from JSON files: the one shipped in ``data/learned-rules.json`` (extracted by ``paraspan
learn-rules`` from MultiMWA train and MRPC positive pairs), or any other. A *refined* rules file
(``paraspan refine-rules``) holds every candidate rule with its SVM weight and whether it was
kept; ``RuleSet.from_file`` reads either.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

from paraspan.errors import CorpusError
from paraspan.generate.rewrite.core import Rule
from paraspan.registry import Entry, Registry


class _RuleRegistry(Registry[Rule]):
    """The rule registry: the hand-written rules of ``data/rules.json`` join any registered by entry point."""

    def _load_entry_points(self) -> None:
        if self._entry_points_loaded:
            return
        super()._load_entry_points()
        from paraspan.generate.rewrite.spec import spec_rules

        for name, rule in spec_rules().items():
            self.entries.setdefault(name, Entry(name, rule, rule.description))


rewrite_rules: Registry[Rule] = _RuleRegistry("rewrite_rules")

SHIPPED_LEARNED = "learned-rules.json"

#: Rule families by the relation their rewrites bear to the source. Moving, splitting or
#: re-voicing keeps every word's meaning (equivalence); deleting a modifier gives a more general
#: sentence (forward entailment: "Iran's nuclear program" → "Iran's program"); a WordNet synonym
#: without sense disambiguation or a learned substitution may change it ("at the same time" →
#: "at the same clip", "the demand" → "his demand"). Judged on held-back EWT dev rewrites
#: (benchmarks/generators.py): 8 of 8 voice and cleft rewrites correct, 1 of 21 compressions,
#: 5 of 11 synonyms, 10 of 73 learned rules.
FAMILY_RELATIONS: dict[str, str] = {
    "voice": "equivalence", "insertion": "equivalence", "reorder": "equivalence", "genitive": "equivalence",
    "split": "equivalence", "extraction": "equivalence",
    "compression": "forward_entailment", "lexical": "lexical", "learned": "lexical",
}
#: ``families`` presets: a relation name selects the families that produce it
FAMILY_PRESETS: dict[str, tuple[str, ...]] = {
    "equivalence": tuple(f for f, r in FAMILY_RELATIONS.items() if r == "equivalence"),
    "forward_entailment": tuple(f for f, r in FAMILY_RELATIONS.items() if r in ("equivalence", "forward_entailment")),
    "all": tuple(FAMILY_RELATIONS),
    # the equivalence families without voice (the default of `paraspan rewrite` and of the `rewrite` generator):
    # the passives were judged right least often (benchmarks/README.md, "Verified augmentation per generator")
    "reliable": tuple(f for f, r in FAMILY_RELATIONS.items() if r == "equivalence" and f != "voice"),
}


def select_families(families: str | Sequence[str]) -> tuple[str, ...]:
    """A preset (``reliable``, ``equivalence``, ``forward_entailment``, ``all``) or family names, checked."""
    if isinstance(families, str):
        if families in FAMILY_PRESETS:
            return FAMILY_PRESETS[families]
        families = [f.strip() for f in families.split(",") if f.strip()]
    unknown = sorted(set(families) - set(FAMILY_RELATIONS))
    if unknown or not families:
        raise CorpusError.from_code("E798", families=", ".join(unknown) or "(none)",
                                    known=", ".join([*FAMILY_PRESETS, *FAMILY_RELATIONS]))
    return tuple(families)


def shipped(name: str) -> Path | None:
    resource = files("paraspan.generate.rewrite") / "data" / name
    with as_file(resource) as path:
        return Path(path) if Path(path).is_file() else None


def hand_rules() -> list[Rule]:
    return [rewrite_rules.get(name) for name in rewrite_rules.names()]


@dataclass
class RuleSet:
    """The rules a rewriter applies, in a fixed order, with per-rule refinement info if any."""

    rules: list[Rule]
    info: dict[str, dict[str, Any]] = field(default_factory=dict)  # name → weight, kept, counts
    source: str = "default"

    def __post_init__(self) -> None:
        names = [r.name for r in self.rules]
        if len(set(names)) != len(names):
            raise ValueError("rule names must be unique")

    def __len__(self) -> int:
        return len(self.rules)

    def names(self) -> list[str]:
        return [r.name for r in self.rules]

    def get(self, name: str) -> Rule:
        for rule in self.rules:
            if rule.name == name:
                return rule
        raise KeyError(name)

    def only(self, families: str | Sequence[str]) -> RuleSet:
        """The rules of ``families`` (a preset or names, see :func:`select_families`)."""
        keep = set(select_families(families))
        rules = [r for r in self.rules if r.family in keep]
        return RuleSet(rules, {k: v for k, v in self.info.items() if k in {r.name for r in rules}}, self.source)

    def without(self, names: Iterable[str]) -> RuleSet:
        """These rules less the ones named (a name not among them is an error: a typo would drop nothing)."""
        drop = set(names)
        unknown = drop - set(self.names())
        if unknown:
            raise KeyError(", ".join(sorted(unknown)))
        rules = [r for r in self.rules if r.name not in drop]
        return RuleSet(rules, {k: v for k, v in self.info.items() if k not in drop}, self.source)

    @classmethod
    def default(cls, learned: str | Path | None = None) -> RuleSet:
        """Every hand-written rule plus the learned rules (shipped file unless ``learned``)."""
        from paraspan.generate.rewrite.learned import load_learned

        path = Path(learned) if learned is not None else shipped(SHIPPED_LEARNED)
        rules = hand_rules() + (load_learned(path) if path is not None else [])
        return cls(rules, source=str(path) if path else "hand")

    @classmethod
    def from_file(cls, path: str | Path, *, kept_only: bool = True) -> RuleSet:
        """A refined rules file (kept rules only, unless ``kept_only`` is false) or a learned one."""
        from paraspan.generate.rewrite.learned import Pattern, load_learned, make_rule

        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CorpusError.from_code("E783", file=str(path), exc=exc) from None
        if data.get("format") == "paraspan-learned-rules":
            return cls(hand_rules() + load_learned(path), source=str(path))
        if data.get("format") != "paraspan-refined-rules" or not isinstance(data.get("rules"), list):
            raise CorpusError.from_code("E784", file=str(path))
        known = {r.name: r for r in hand_rules()}
        rules: list[Rule] = []
        info: dict[str, dict[str, Any]] = {}
        for entry in data["rules"]:
            name = entry.get("name")
            if kept_only and not entry.get("kept"):
                continue
            if entry.get("kind") == "learned":
                rule = make_rule(Pattern.from_dict(entry["pattern"]), int(entry.get("count", 0)))
            elif name in known:
                rule = known[name]
            else:
                raise CorpusError.from_code("E726", file=str(path), name=name)
            rules.append(rule)
            info[rule.name] = {k: v for k, v in entry.items() if k not in {"pattern"}}
        return cls(rules, info, source=str(path))
