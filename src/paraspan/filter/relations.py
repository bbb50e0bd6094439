"""Fine-grained paraphrase relations from NLI run both ways (Zhou, Hu & Chung 2022).

An entailment judge labels (s1, s2) and (s2, s1); the pair of labels gives the relation:

=================  ==================  ======================
forward (s1→s2)    backward (s2→s1)    relation
=================  ==================  ======================
entailment         entailment          ``equivalence``
entailment         neutral             ``forward_entailment``
neutral            entailment          ``reverse_entailment``
contradiction      contradiction       ``negation``
neutral            neutral             ``alternation`` (alternation or independence)
anything else                          ``other``
=================  ==================  ======================

Defined behaviour for odd inputs: identical sentences (after collapsing whitespace) are
``equivalence`` without calling a judge; a pair with an empty sentence is ``other`` with a note
(no judge is asked about nothing); pairs a judge had to cut are marked ``truncated``. With several
judges the first one's labels are reported and ``agree`` says whether all gave the same two labels
(the paper keeps only those); with one judge ``agree`` is null.

:class:`RelationFilter` (the registered ``relation`` filter) applies this to augmentation outputs;
:class:`RelationSummary` gives the paper's Tables 8-12 for a relabelled corpus.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter.base import BaseFilter, FilterDecision
from paraspan.filter.judges import DEFAULT_JUDGE, LABELS, Judge, load_judge
from paraspan.filter.judges import judges as judge_registry
from paraspan.provenance import Generated

RELATIONS: tuple[str, ...] = (
    "equivalence", "forward_entailment", "reverse_entailment", "negation", "alternation", "other",
)

_RELATION_OF: dict[tuple[str, str], str] = {
    ("entailment", "entailment"): "equivalence",
    ("entailment", "neutral"): "forward_entailment",
    ("neutral", "entailment"): "reverse_entailment",
    ("contradiction", "contradiction"): "negation",
    ("neutral", "neutral"): "alternation",
}

#: rewrite rules whose outputs ``verified`` does not show the NLI judges (``unjudged_rules``): syntactic
#: alternations that keep every word's role by construction, where the judges' refusals were wrong 25
#: times in 28 (judged FrameNet candidates refused only for their relation: it-cleft 5/5 right,
#: genitive-to-pp 8/9, split-conjoined-clauses 6/7, split-conjoined-vp 2/3, move-leading-adverbial 2/2,
#: insert-that and delete-that 1/1 each) and the judges tell right from wrong rewrites at chance
#: (ROC AUC 0.55-0.59 over 942 judged ones; benchmarks/nli_judges.py). Rules that move a phrase to a
#: new attachment or copy a noun phrase (extractions, front-trailing-adverbial, pp-to-genitive) and
#: substitutes stay judged: there a refusal was right 14 times in 33. The verb alternations
#: (particle-shift, dative-shift) move a particle or an object and keep every word: the judges refused
#: 15 of their candidates in fn-cascade-exemplars-l and -alternation ("negation" for "put the phone down"
#: ↔ "put down the phone"), each of them right when read.
ALTERNATION_RULES: tuple[str, ...] = (
    "it-cleft", "genitive-to-pp", "split-conjoined-clauses", "split-conjoined-vp", "move-leading-adverbial",
    "insert-that", "delete-that", "particle-shift", "dative-shift",
)

#: why the outputs of a generator that writes new content (``provenance["meaning"] == "new"``) are not
#: compared with their source by the judges
NEW_CONTENT = "the generator writes new content"
#: Why such an output is refused unless ``new_content`` is set: no check here tells whether new phrases
#: make sense. Judged by reading on FrameNet dev and train sentences (benchmarks/README.md, "Infill, judged
#: under the verified checks"), the infill outputs every other check let through were right 10 of 32
#: times (fn-infill-v3, -v4, -v5: fillers that name nothing the sentence is about, "the capital city" as
#: the Speaker).
NEW_CONTENT_REFUSED = ("new content: no check here tells whether new phrases make sense (infilling was "
                       "judged mostly wrong, benchmarks/README.md) — set new_content=true to keep such "
                       "outputs unjudged, and read them")
NOTE_IDENTICAL = "identical sentences: equivalence without asking a judge"
NOTE_EMPTY = "empty sentence: no relation can be judged"


def relation_of(forward: str, backward: str) -> str:
    """The relation for the labels of (s1, s2) and (s2, s1); ``other`` for the impossible mixes."""
    for label in (forward, backward):
        if label not in LABELS:
            raise ValueError(f"unknown NLI label {label!r}; expected one of {LABELS}")
    return _RELATION_OF.get((forward, backward), "other")


def _normalize(text: str) -> str:
    return " ".join(text.split())


@dataclass
class _Labels:
    """The NLI labels of (s1, s2) and (s2, s1), their probabilities and the relation they make: what a
    judge's view and the pair's relation both carry first."""

    forward: str | None
    backward: str | None
    p_forward: dict[str, float] | None
    p_backward: dict[str, float] | None
    relation: str

    def _labels_dict(self) -> dict[str, Any]:
        return {"forward": self.forward, "backward": self.backward, "p_forward": self.p_forward,
                "p_backward": self.p_backward, "relation": self.relation}


@dataclass
class JudgedPair(_Labels):
    """One judge's view of a pair."""

    truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {**self._labels_dict(), "truncated": self.truncated}


@dataclass
class PairRelation(_Labels):
    """The relation of (s1, s2): the first judge's labels, agreement, and each judge's view."""

    agree: bool | None
    judge: str | None
    truncated: bool = False
    note: str | None = None
    judges: dict[str, JudgedPair] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {**self._labels_dict(), "agree": self.agree, "judge": self.judge,
                               "truncated": self.truncated}
        if self.note:
            out["note"] = self.note
        if len(self.judges) > 1:
            out["judges"] = {name: j.to_dict() for name, j in self.judges.items()}
        return out


def _probs(row: Any) -> dict[str, float]:
    return {label: round(float(row[i]), 4) for i, label in enumerate(LABELS)}


def relate(pairs: Sequence[tuple[str, str]], judges: Sequence[Judge]) -> list[PairRelation]:
    """Relations for ``pairs`` of (s1, s2): each judge runs once over both directions of all of them."""
    if not judges:
        raise ParaspanError.from_code("E795")
    results: list[PairRelation | None] = [None] * len(pairs)
    todo: list[int] = []
    for i, (s1, s2) in enumerate(pairs):
        a, b = _normalize(s1), _normalize(s2)
        if not a or not b:
            results[i] = PairRelation(None, None, None, None, "other", None, None, note=NOTE_EMPTY)
        elif a == b:
            certain = {"entailment": 1.0, "neutral": 0.0, "contradiction": 0.0}
            results[i] = PairRelation("entailment", "entailment", dict(certain), dict(certain), "equivalence",
                                      None, None, note=NOTE_IDENTICAL)
        else:
            todo.append(i)
    if todo:
        s1s = [pairs[i][0] for i in todo]
        s2s = [pairs[i][1] for i in todo]
        views: list[dict[str, JudgedPair]] = [{} for _ in todo]
        for judge in judges:
            out = judge.judge(s1s + s2s, s2s + s1s)  # one batched call for both directions
            labels = out.labels()
            n = len(todo)
            for k in range(n):
                fwd, bwd = labels[k], labels[n + k]
                views[k][judge.name] = JudgedPair(fwd, bwd, _probs(out.probs[k]), _probs(out.probs[n + k]),
                                                  relation_of(fwd, bwd),
                                                  bool(out.truncated[k] or out.truncated[n + k]))
        for k, i in enumerate(todo):
            first = views[k][judges[0].name]
            agree = None
            if len(judges) > 1:
                agree = len({(v.forward, v.backward) for v in views[k].values()}) == 1
            results[i] = PairRelation(first.forward, first.backward, first.p_forward, first.p_backward,
                                      first.relation, agree, judges[0].name,
                                      truncated=any(v.truncated for v in views[k].values()), judges=views[k])
    return [r for r in results if r is not None]


# --------------------------------------------------------------------------- filter


class RelationFilter(BaseFilter):
    """Keep rewrites whose relation to their source is in ``accept`` (default: equivalence only).

    With several judges and ``agree`` (the default, as in the paper), an output is kept only when
    they all give the same two labels. The relation is recorded in each output's provenance under
    ``"relation"`` (the outputs are updated in place), and in the decision's details. ``judges``
    are judge objects, or ``load`` a function that loads them on the first decision (so building
    the filter, e.g. to check a config, loads no model). An output made only by rewrite rules in
    ``unjudged_rules`` (its provenance's ``generated.rules``) is kept without asking the judges, and
    the decision says so (see :data:`ALTERNATION_RULES`). An output with new content is refused
    (:data:`NEW_CONTENT_REFUSED`), or with ``new_content`` kept without asking them.
    """

    def __init__(self, judges: Judge | Sequence[Judge] | None = None, accept: Iterable[str] = ("equivalence",),
                 *, agree: bool = True, name: str = "relation",
                 load: Callable[[], Sequence[Judge]] | None = None,
                 appeal: Sequence[Judge] | None = None,
                 load_appeal: Callable[[], Sequence[Judge]] | None = None,
                 unjudged_rules: Iterable[str] = (), new_content: bool = False) -> None:
        if judges is None and load is None:
            raise ParaspanError.from_code("E795")
        self._judges: list[Judge] | None = None
        if judges is not None:
            self._judges = list(judges) if isinstance(judges, list | tuple) else [judges]  # type: ignore[list-item]
        self._load = load
        self._appeal: list[Judge] | None = list(appeal) if appeal else None
        self._load_appeal = load_appeal
        self.accept = frozenset(accept)
        self.agree = agree
        self.name = name
        self.unjudged_rules = frozenset(unjudged_rules)
        self.new_content = new_content
        unknown = sorted(self.accept - set(RELATIONS))
        if unknown or not self.accept:
            raise ParaspanError.from_code("E796", value=", ".join(unknown) or "(none given)",
                                          choices=", ".join(RELATIONS))

    @property
    def judges(self) -> list[Judge]:
        """The judges, loaded now if they were not yet."""
        if self._judges is None:  # then __init__ was given ``load``
            self._judges = list(cast("Callable[[], Sequence[Judge]]", self._load)())
        return self._judges

    @property
    def appeal(self) -> list[Judge]:
        """The appeal judges (none unless given), loaded now if they were not yet."""
        if self._appeal is None and self._load_appeal is not None:
            self._appeal = list(self._load_appeal())
        return self._appeal or []

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        return self.decide_batch([(output, source)])[0]

    def decide_batch(self, pairs: Sequence[tuple[Sentence, Sentence | None]]) -> list[FilterDecision]:
        """Each judge runs once over both directions of all the pairs."""
        if not pairs:
            return []
        missing = [out.id for out, source in pairs if source is None]
        if missing:
            raise ParaspanError.from_code("E714", missing=missing[0])
        # an output with new content (infilling) is not meant to mean what its source means; one made
        # by an alternation rule is not shown to the judges, which cannot tell those right from wrong
        new = [self._not_compared(out) for out, _ in pairs]
        compared = [pair for pair, why in zip(pairs, new, strict=True) if why is None]
        judges = self.judges if compared else []
        relations = iter(relate([(source.text, out.text) for out, source in compared if source is not None], judges)
                         if compared else [])
        decisions: list[FilterDecision] = []
        appealable: list[int] = []  # refused for the relation the judges found (not for an empty pair)
        for (out, _), why in zip(pairs, new, strict=True):
            if why == NEW_CONTENT and not self.new_content:
                decisions.append(FilterDecision(False, None, NEW_CONTENT_REFUSED, {"relation": None}))
                continue
            if why is not None:
                decisions.append(FilterDecision(True, None, f"not compared: {why}", {"relation": None}))
                continue
            rel = next(relations)
            record: dict[str, Any] = {"label": rel.relation, "forward": rel.forward, "backward": rel.backward,
                                      "judge": ",".join(j.name for j in judges) if rel.judge else None}
            if rel.agree is not None:
                record["agree"] = rel.agree
            if rel.truncated:
                record["truncated"] = True
            if out.provenance is None:
                out.provenance = {}
            out.provenance["relation"] = record  # in place: a caller may hold the dict
            details: dict[str, Any] = {"relation": rel.relation, "p_forward": rel.p_forward,
                                       "p_backward": rel.p_backward, "agree": rel.agree}
            if rel.relation not in self.accept:
                keep, reason = False, f"relation {rel.relation} is not in {sorted(self.accept)}"
                if rel.note:
                    reason += f" ({rel.note})"
                else:
                    appealable.append(len(decisions))
            elif self.agree and rel.agree is False:
                keep, reason = False, f"judges disagree ({self._views(rel)})"
            else:
                keep, reason = True, f"relation {rel.relation}" + (f" ({rel.note})" if rel.note else "")
            decisions.append(FilterDecision(keep, None, reason, details))
        if appealable and (self._appeal is not None or self._load_appeal is not None):
            self._hear_appeals(pairs, decisions, appealable)
        return decisions

    def _not_compared(self, out: Sentence) -> str | None:
        """Why an output is kept without asking the judges, or None."""
        provenance = out.provenance or {}
        if provenance.get("meaning") == "new":
            return NEW_CONTENT
        rules = Generated.of(provenance).rules
        if rules and self.unjudged_rules.issuperset(rules):
            return f"made by {', '.join(rules)}, an alternation not shown to the judges"
        return None

    def _hear_appeals(self, pairs: Sequence[tuple[Sentence, Sentence | None]], decisions: list[FilterDecision],
                      refused: list[int]) -> None:
        """The appeal judges, asked only about the outputs ``refused`` for their relation: an output
        whose relation the appeal finds in ``accept`` is kept (recorded as ``appeal`` in its
        provenance's relation and in the decision's details)."""
        judges = self.appeal
        heard = relate([(pairs[i][1].text, pairs[i][0].text) for i in refused], judges)  # type: ignore[union-attr]
        for i, rel in zip(refused, heard, strict=True):
            out, old = pairs[i][0], decisions[i]
            name = ",".join(j.name for j in judges)
            record = {"judge": name, "label": rel.relation, "forward": rel.forward, "backward": rel.backward}
            out.provenance.setdefault("relation", {})["appeal"] = record
            details = {**old.details, "appeal": record}
            if rel.relation in self.accept:
                decisions[i] = FilterDecision(True, None, f"{old.reason}; on appeal {name}: relation {rel.relation}",
                                              details)
            else:
                decisions[i] = FilterDecision(False, None, f"{old.reason}; on appeal {name}: {rel.relation}", details)

    @staticmethod
    def _views(rel: PairRelation) -> str:
        return "; ".join(f"{name}: {v.relation}" for name, v in rel.judges.items())


def relation_filter(judges: tuple[str, ...] = (DEFAULT_JUDGE,), accept: tuple[str, ...] = ("equivalence",),
                    agree: bool = True, threads: int | None = None, max_length: int = 256,
                    record_as: str | None = None, appeal: tuple[str, ...] = (),
                    unjudged_rules: tuple[str, ...] = (), new_content: bool = False) -> RelationFilter:
    """The registered ``relation`` filter: NLI both ways by ``judges`` (specs as for
    ``paraspan relabel --judges``: minilm-nli, minilm-nli:FOLDER, llm, llm:MODEL, hub:ID), keeping
    the relations in ``accept``; with several judges and ``agree``, only what they agree on.
    ``appeal``: judges asked again, only about what ``judges`` refused for its relation; an output
    they find in ``accept`` is kept (a costly judge spent on the few a cheap one refuses).
    ``unjudged_rules``: rewrite rules whose outputs are kept without asking the judges (``verified``
    passes :data:`ALTERNATION_RULES`). ``new_content``: keep, unjudged, the outputs of generators
    that write new content (infilling, token and mention replacement); by default they are refused
    (:data:`NEW_CONTENT_REFUSED`). ``threads`` and ``max_length`` go to the judges, which load on the
    first decision."""
    specs = [s.strip() for s in judges if s.strip()]
    appeals = [s.strip() for s in appeal if s.strip()]
    if not specs:
        raise ParaspanError.from_code("E795")
    if len(set(specs)) != len(specs) or len(set(appeals)) != len(appeals):
        raise ParaspanError.from_code("E734", text=list(judges) + list(appeal))
    registry = judge_registry()
    for spec in specs + appeals:
        kind, _, arg = spec.partition(":")
        registry.get(kind)  # an unknown judge fails now, naming the known ones (no model loads)
        if kind == "hub" and not arg:
            raise ParaspanError.from_code("E789")

    load = _JudgeLoader(tuple(specs), threads, max_length)
    return RelationFilter(accept=accept, agree=agree, name=record_as or "relation", load=load,
                          load_appeal=_JudgeLoader(tuple(appeals), threads, max_length) if appeals else None,
                          unjudged_rules=unjudged_rules, new_content=new_content)


@dataclass(frozen=True)
class _JudgeLoader:
    """Loads the judges of a spec list (a plain object, so a filter that has not loaded them
    yet pickles, e.g. to a worker process)."""

    specs: tuple[str, ...]
    threads: int | None
    max_length: int

    def __call__(self) -> list[Judge]:
        return [load_judge(spec, threads=self.threads, max_length=self.max_length) for spec in self.specs]


# --------------------------------------------------------------------------- summary


_TOKEN = re.compile(r"\w+")


def tokens(text: str) -> list[str]:
    """Lowercased word tokens (punctuation dropped), as ROUGE's reference tokenizer does."""
    return _TOKEN.findall(text.lower())


def rouge_l(a: str, b: str) -> float:
    """ROUGE-L F1: longest common subsequence of lowercased tokens (Lin & Och 2004), β = 1."""
    x, y = tokens(a), tokens(b)
    if not x or not y:
        return 0.0
    # One-row dynamic programme over the shorter sequence.
    if len(y) > len(x):
        x, y = y, x
    row = [0] * (len(y) + 1)
    for xi in x:
        diagonal = 0
        for j, yj in enumerate(y, start=1):
            saved = row[j]
            row[j] = diagonal + 1 if xi == yj else max(row[j], row[j - 1])
            diagonal = saved
    lcs = row[-1]
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(y), lcs / len(x)
    return 2 * precision * recall / (precision + recall)


COMBINATIONS: tuple[tuple[str, str], ...] = tuple((f, b) for f in LABELS for b in LABELS)


@dataclass
class _Group:
    n: int = 0
    length_diff: float = 0.0
    rouge: float = 0.0
    agreed: int = 0
    judged_by_several: int = 0
    paraphrase_n: int = 0
    paraphrase_pos: int = 0
    similarity_n: int = 0
    similarity: float = 0.0
    nli: Counter[str] = field(default_factory=Counter)


@dataclass
class RelationSummary:
    """Running statistics of relabelled pairs, as in the paper's Tables 8-12.

    ``combinations``: share of each (forward, backward) label pair (Table 8); per relation: count
    and share (Table 9), share of gold-positive paraphrases (MRPC/QQP) and mean gold similarity
    (STS-B) (Table 10), mean word-length difference len(s1) - len(s2) (Table 11) and mean ROUGE-L
    F1 (Table 12); with gold NLI labels the distribution of those too.
    """

    combos: Counter[tuple[str, str]] = field(default_factory=Counter)
    groups: dict[str, _Group] = field(default_factory=lambda: {r: _Group() for r in RELATIONS})
    total: _Group = field(default_factory=_Group)
    notes: Counter[str] = field(default_factory=Counter)
    truncated: int = 0

    def add(self, s1: str, s2: str, rel: PairRelation, gold: dict[str, Any] | None = None) -> None:
        if rel.note:
            self.notes[rel.note] += 1
        if rel.truncated:
            self.truncated += 1
        if rel.forward is not None and rel.backward is not None:
            self.combos[(rel.forward, rel.backward)] += 1
        diff, rouge = len(tokens(s1)) - len(tokens(s2)), rouge_l(s1, s2)
        for group in (self.groups[rel.relation], self.total):
            group.n += 1
            group.length_diff += diff
            group.rouge += rouge
            if rel.agree is not None:
                group.judged_by_several += 1
                group.agreed += int(rel.agree)
            gold = gold or {}
            if isinstance(gold.get("paraphrase"), int | bool):
                group.paraphrase_n += 1
                group.paraphrase_pos += int(bool(gold["paraphrase"]))
            if isinstance(gold.get("similarity"), int | float) and not isinstance(gold.get("similarity"), bool):
                group.similarity_n += 1
                group.similarity += float(gold["similarity"])
            if isinstance(gold.get("nli"), str):
                group.nli[gold["nli"]] += 1

    @staticmethod
    def _group_dict(group: _Group, total: int) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pairs": group.n,
            "share": round(group.n / total, 4) if total else 0.0,
            "length_diff": round(group.length_diff / group.n, 2) if group.n else None,
            "rouge_l": round(100 * group.rouge / group.n, 2) if group.n else None,
        }
        if group.judged_by_several:
            out["agree"] = round(group.agreed / group.judged_by_several, 4)
        if group.paraphrase_n:
            out["gold_paraphrase_share"] = round(group.paraphrase_pos / group.paraphrase_n, 4)
        if group.similarity_n:
            out["gold_similarity_mean"] = round(group.similarity / group.similarity_n, 3)
        if group.nli:
            out["gold_nli"] = {label: group.nli.get(label, 0) for label in LABELS}
        return out

    def to_dict(self) -> dict[str, Any]:
        total = self.total.n
        judged = sum(self.combos.values())
        return {
            "pairs": total,
            "judged": judged,
            "truncated": self.truncated,
            "notes": dict(self.notes),
            "combinations": {f"{f}/{b}": round(self.combos.get((f, b), 0) / judged, 4) if judged else 0.0
                             for f, b in COMBINATIONS},
            "relations": {r: self._group_dict(self.groups[r], total) for r in RELATIONS},
            "all": self._group_dict(self.total, total),
        }
