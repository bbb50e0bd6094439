"""What ``paraspan paraphrase --relation`` does around the generators: the judges, the direction's word
check, which of the rule rewriter's candidates a ban rules out, and what is delivered and recorded.

Heavy imports (spaCy, the NLI judges) happen inside the functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paraspan.errors import ParaspanError


@dataclass
class ParaphraseInput:
    """One validated input line."""

    line: int
    id: Any
    text: str
    ban: tuple[tuple[int, int], ...]
    keep: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Judging:
    """What ``--relation`` asks for: the relation, the judges' specs, ``--agree`` and how many
    candidates to judge per sentence."""

    relation: str
    judges: tuple[str, ...]
    agree: bool
    candidates: int
    #: the rule rewriter's candidates: ``first``, ``only`` or ``off`` (:func:`check_rewrites`)
    rewrites: str = "off"
    #: who tells a direction from equivalence: ``judges`` (their labels both ways) or ``words`` (the
    #: direction's word check, which a candidate has already passed; the judges then need only find
    #: entailment in the asked direction)
    direction_by: str = "judges"

    @property
    def by_words(self) -> bool:
        """Whether a candidate the judges call equivalent is delivered as the asked direction."""
        return self.direction_by == "words" and self.relation in ("forward", "reverse")

    @property
    def wanted(self) -> str:
        """The class of :func:`paraspan.filter.relations.relate` that is delivered."""
        from paraspan.generate.paraphrase import RELATION_CLASS

        return RELATION_CLASS[self.relation]

    def keeps(self, relation: Any) -> bool:
        """Whether a candidate with this :class:`~paraspan.filter.relations.PairRelation` is delivered."""
        found = relation.relation
        if self.by_words and found == "equivalence":  # the word check showed content dropped (added)
            found = self.wanted
        return found == self.wanted and not (self.agree and relation.agree is False)


RULE_MODES = ("first", "only", "off")
DIRECTION_BY = ("judges", "words")


def check_rewrites(rewrites: str | None, relation: str | None) -> str:
    """``--rewrites`` checked against ``--relation``: ``only`` by default where the relation has rule
    families or insertions, ``off`` elsewhere (E952 for a mode that does not exist or rules the relation lacks).
    Only, because on MRPC validation and FrameNet dev sentences (``benchmarks/README.md``,
    Directional paraphrases) the rules' delivered equivalents were right 128 times in 141 when read,
    and the LLM's, after the word check, 2 times in 5; the rules' forward deletions other than of
    adjectives 95 in 103, the LLM's forward outputs 33 in 45; the reverse insertions 64 in 72, the
    LLM's reverse outputs 18 in 25; and the rules cost about 2-5 s per sentence on a CPU, the
    insertions about 10 (with the judges), the LLM's sampling 30."""
    from paraspan.generate.directions import INSERTIONS, RULE_FAMILIES

    if rewrites is None:
        return "only" if relation in RULE_FAMILIES or relation in INSERTIONS else "off"
    if rewrites not in RULE_MODES:
        raise ParaspanError.from_code("E952", value=rewrites, why="is not a mode")
    if rewrites != "off" and relation not in RULE_FAMILIES and relation not in INSERTIONS:
        why = ("needs --relation equivalence or forward" if relation is None
               else f"does not apply to --relation {relation}")
        raise ParaspanError.from_code("E952", value=rewrites, why=why)
    return rewrites


def check_direction_by(direction_by: str, relation: str | None) -> None:
    """``--direction-by`` checked against ``--relation`` (E953): a known mode, and ``words`` only for a direction."""
    if direction_by not in DIRECTION_BY:
        raise ParaspanError.from_code("E953", value=direction_by, why="is not a mode")
    if direction_by == "words" and relation not in ("forward", "reverse"):
        raise ParaspanError.from_code("E953", value=direction_by, why=f"needs --relation forward or reverse, "
                                      f"not {relation or 'none'}")


def without_banned(item: ParaphraseInput, candidates: list[Any]) -> list[Any]:
    """The ``candidates`` with none of a banned span's words: rules and insertions keep the source's
    words, so a ban rules most of them out."""
    if not item.ban:
        return list(candidates)
    from paraspan.text.constraints import expand_bans

    bans = expand_bans(item.text[s:e] for s, e in item.ban)
    return [c for c in candidates if not bans.find_leaks(c.text)]


def check_relation_options(relation: str | None, judges: str | None, agree: bool,
                           candidates: int | None) -> tuple[str, ...]:
    """The judge specs of ``--judges`` (default ``minilm-nli``), every option checked before any model
    loads: an unknown relation lists the three, an unknown judge the known ones."""
    from paraspan.filter.judges import DEFAULT_JUDGE
    from paraspan.filter.relations import relation_filter
    from paraspan.generate.paraphrase import RELATION_CLASS, check_relation

    if relation is None:
        for option, given in (("--judges", judges is not None), ("--agree", agree),
                              ("--candidates", candidates is not None)):
            if given:
                raise ParaspanError.from_code("E951", option=option)
        return ()
    check_relation(relation)
    specs = tuple(s.strip() for s in (judges if judges is not None else DEFAULT_JUDGE).split(",") if s.strip())
    relation_filter(specs, accept=(RELATION_CLASS[relation],), agree=agree)  # checks the specs; loads nothing
    return specs


def direction_check(relation: str) -> Any:
    """The word check run before the judges. For a direction: its words
    (:class:`paraspan.filter.content.ContentFilter` with ``relation``: a forward paraphrase drops
    content words and adds none, a reverse one adds and drops none, and neither drops or adds a
    word that turns entailment round), then their order
    (:class:`paraspan.filter.contraction.ContractionFilter`: the kept words keep their heads, names
    and quotations stay whole). For equivalence: the numbers and names
    (:class:`paraspan.filter.facts.FactsFilter`), the words that decide whether the claim holds
    (:class:`paraspan.filter.claims.ClaimsFilter`), every content word or a WordNet synonym of it
    (``ContentFilter`` with ``relation="equivalence"``: 26-30% of the LLM's equivalence outputs the
    judges passed with only the first two were equivalent when read, most having reworded an act,
    a time or a detail) and who did what (``ContractionFilter("equivalence")``)."""
    from paraspan.filter.combine import AllOf

    if relation == "equivalence":
        from paraspan.filter.claims import ClaimsFilter
        from paraspan.filter.content import ContentFilter
        from paraspan.filter.contraction import ContractionFilter
        from paraspan.filter.facts import FactsFilter

        return AllOf([FactsFilter(), ClaimsFilter(),
                      ContentFilter(relation="equivalence", synonyms=True, anchor="any"),
                      ContractionFilter("equivalence")], "word_check", short_circuit=True)
    from paraspan.filter.content import ContentFilter
    from paraspan.filter.contraction import ContractionFilter

    return AllOf([ContentFilter(relation=relation), ContractionFilter(relation)], "word_check", short_circuit=True)


def word_check(source: str, candidates: list[Any], check: Any) -> tuple[list[Any], list[str]]:
    """The candidates ``check`` keeps (all without one), and the reasons of those it rejects."""
    if check is None:
        return candidates, []
    reasons = refusals(check, [(source, c.text) for c in candidates])
    return [c for c, why in zip(candidates, reasons, strict=True) if why is None], [r for r in reasons if r is not None]


def refusals(check: Any, pairs: Sequence[tuple[str, str]]) -> list[str | None]:
    """For each ``(source, candidate)`` text pair, why ``check`` rejects the candidate (None: it passes)."""
    from paraspan.corpus.schema import Sentence
    from paraspan.filter.base import decide_all

    decisions = decide_all(check, [(Sentence("candidate", c, provenance={}), Sentence("source", s)) for s, c in pairs])
    return [None if d.keep else d.reason or "rejected" for d in decisions]


def deliver(candidates: list[Any], relations: list[Any], judging: Judging, n: int,
            rejected: list[str] | None = None) -> tuple[list[tuple[Any, Any]], dict[str, Any]]:
    """The first ``n`` candidates (in the paraphraser's order) whose relation to the source is the
    requested class, each with its :class:`~paraspan.filter.relations.PairRelation`, and the counts
    of what was judged: ``candidates`` (with those the direction's word check ``rejected`` before
    judging), ``in_class``, per judge the relations it gave, and with several judges how many they
    disagreed on; ``word_check``: how many the word check rejected and why (the reason's first
    clause)."""
    from collections import Counter

    in_class = [(c, r) for c, r in zip(candidates, relations, strict=True) if judging.keeps(r)]
    by_judge: dict[str, Counter[str]] = {spec: Counter() for spec in judging.judges}
    for rel in relations:
        for name, view in rel.judges.items():
            by_judge.setdefault(name, Counter())[view.relation] += 1
    judged: dict[str, Any] = {"candidates": len(candidates) + len(rejected or ()), "in_class": len(in_class),
                              "relations": {name: dict(sorted(c.items())) for name, c in by_judge.items()}}
    if rejected is not None:
        judged["word_check"] = {"rejected": len(rejected),
                                "reasons": dict(Counter(reason_kind(r) for r in rejected).most_common())}
    if len(judging.judges) > 1:
        judged["disagreed"] = sum(r.agree is False for r in relations)
    return in_class[:n], judged


def reason_kind(reason: str) -> str:
    """A word-check reason without its words: "lost", "added", "no content word dropped",
    "rearranged", …"""
    part, _, rest = reason.partition(": ")
    if part == "contraction":
        return ("cut a name or quotation" if "kept whole" in rest else
                "changed a word's number or tense" if "a kept word changed its" in rest else "rearranged")
    if part == "facts":
        return "lost a number or name"
    if part == "claims":
        return ("comments on itself" if rest.startswith("comments") else
                "changed a quotation" if rest.startswith("the quotation") else "changed a deciding word")
    first = (rest if part == "content" else reason).split(";")[0]
    if ":" in first:
        head, _, tail = first.partition(":")
        return head if head.startswith("no content word") else f"{head.split()[0]}:{tail}"
    return first.split()[0]


def relation_record(rel: Any, judging: Judging) -> dict[str, Any]:
    """What a delivered paraphrase records of its relation: the requested one, the class found,
    each judge's labels both ways (source → paraphrase, paraphrase → source) and agreement."""
    by_words = judging.by_words and rel.relation == "equivalence"
    out: dict[str, Any] = {"requested": judging.relation, "class": judging.wanted if by_words else rel.relation,
                           "judges": {name: {"forward": v.forward, "backward": v.backward, "relation": v.relation}
                                      for name, v in rel.judges.items()}}
    if by_words:
        out["direction_by"] = "words"  # the judges found entailment both ways; the word check, a strict one
    if rel.agree is not None:
        out["agree"] = rel.agree
    if rel.truncated:
        out["truncated"] = True
    if rel.note:
        out["note"] = rel.note
    return out


def _no_class_note(judged: dict[str, Any], judging: Judging) -> str:
    first = judged["relations"].get(judging.judges[0], {})
    found = ", ".join(f"{count} {name.replace('_', ' ')}" for name, count in
                      sorted(first.items(), key=lambda kv: (-kv[1], kv[0])))
    words = judged.get("word_check", {}).get("rejected", 0)
    note = (f"no candidate in the requested class {judging.wanted.replace('_', ' ')} "
            f"({judged['candidates']} candidates: " + (f"{words} rejected by the word check, " if words else "")
            + f"{judged['candidates'] - words} judged by {judging.judges[0]}" + (f": {found})" if found else ")"))
    if judging.agree and judged.get("disagreed"):
        note += f"; the judges disagreed on {judged['disagreed']}"
    return note
