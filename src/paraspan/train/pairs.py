"""Training examples for relation-conditioned sentence paraphrasers, from relabelled sentence pairs.

A pair labelled by ``paraspan relabel`` (NLI run both ways, Zhou, Hu & Chung 2022) is an example of
rewriting one sentence into the other under a relation: an ``equivalence`` pair teaches equivalence
both ways, and a ``forward_entailment`` pair (s1 entails s2, s2 is more general) teaches ``forward``
from s1 to s2 and ``reverse`` from s2 to s1. The prompt names the relation in one tag, and may list
words to avoid: content words of the source that the target does not contain in any form, so that the
model learns to rephrase around a ban (the iterative loop bans the trigger, Culkin et al. 2021), and
phrases to keep: runs of words the target copies verbatim, so that it learns to leave named phrases as
they are (the loop keeps a structure's argument spans; ParaBank 2's positive constraints).

The same :func:`render_paraphrase_prompt` builds training prompts and generation prompts.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from paraspan.errors import TrainError
from paraspan.text.constraints import content_words, expand_bans, protected_words, words
from paraspan.train.examples import ANSWER, Example

__all__ = ["KEEP_SEPARATOR", "MIN_PER_RELATION", "PAIR_RELATIONS", "PROMPT_FORMAT", "PROMPT_FORMATS", "TASK", "WAYS",
           "LabelledPair", "PairExampleConfig",
           "avoid_words", "build_pair_examples", "check_relation_counts", "directed", "directions", "keep_phrases",
           "length_ok", "read_labelled_pairs", "relation_counts", "render_paraphrase_prompt", "select_examples",
           "split_pairs", "unusable", "write_labelled_pairs"]

#: The ``task`` a paraphrase adapter's card names.
TASK = "paraphrase"
#: The prompt layout (recorded in the card; generation refuses a layout it does not know).
PROMPT_FORMAT = "paraspan-paraphrase/2"
#: Every layout generation knows → whether its prompts name phrases to keep (``/1`` adapters never saw them).
PROMPT_FORMATS = {"paraspan-paraphrase/1": False, PROMPT_FORMAT: True}
#: Separates the phrases of a prompt's keep line (a phrase may hold commas, never this).
KEEP_SEPARATOR = " | "
#: The relations an adapter can learn, as ``paraspan paraphrase --relation`` names them.
PAIR_RELATIONS = ("equivalence", "forward", "reverse")
#: The fewest training examples of a relation a run accepts: below this a LoRA learns the examples.
MIN_PER_RELATION = 32
#: Every class the NLI judges give (paraspan.filter.relations.RELATIONS, not imported: train must
#: not depend on filter) → the relation it teaches; the others are read and left out.
_JUDGED = {"equivalence": "equivalence", "forward_entailment": "forward", "reverse_entailment": "reverse",
           "negation": None, "alternation": None, "other": None}
#: Short names a hand-made pair file may use.
_SHORT = {"forward": "forward", "reverse": "reverse"}
#: A pair read backwards: the relation from s2 to s1.
_BACKWARDS = {"equivalence": "equivalence", "forward": "reverse", "reverse": "forward"}
#: The directions a pair teaches (``"ways"`` of a pair file; default both): a pair of which only one
#: direction passed the word check (:mod:`paraspan.train.checked`) is kept one way.
WAYS = ("both", "s1>s2", "s2>s1")
#: A relation → the class ``paraspan relabel`` writes for it.
_CLASS = {"equivalence": "equivalence", "forward": "forward_entailment", "reverse": "reverse_entailment"}
_HEADERS = {"s1": ("s1", "sentence1", "sentence_a", "sentence 1", "#1 string"),
            "s2": ("s2", "sentence2", "sentence_b", "sentence 2", "#2 string"),
            "relation": ("relation", "label"), "id": ("id", "pair_id")}


@dataclass(frozen=True)
class LabelledPair:
    """A pair with the relation of s2 to s1 (``None``: a class that teaches no relation), and where it was
    read; ``ways``: the directions it teaches (:data:`WAYS`)."""

    id: str
    s1: str
    s2: str
    relation: str | None
    line: int
    gold: dict[str, Any] | None = None
    agree: bool | None = None
    ways: str = "both"


class PairExampleConfig(BaseModel):
    """How examples are drawn from pairs.

    ``ban_share``: the share of examples whose prompt lists words to avoid; ``max_bans``: at most this
    many; ``keep_share``: the share whose prompt names phrases the answer copies; ``max_keeps``: at most
    this many; ``min_ratio``/``max_ratio``: targets whose length in words is outside this ratio to the
    source's are left out (the paraphraser refuses such outputs); ``gold_check``: leave out pairs
    whose corpus label contradicts the judges' (an MRPC non-paraphrase judged equivalent, a SICK
    pair whose one-way gold label is not the judges' s1 → s2 label); ``agreed_only``: with several
    judges, only pairs they agree on.
    """

    model_config = ConfigDict(extra="forbid")

    ban_share: float = Field(0.5, ge=0, le=1)
    max_bans: int = Field(2, ge=1)
    keep_share: float = Field(0.5, ge=0, le=1)
    max_keeps: int = Field(3, ge=1)
    min_ratio: float = Field(0.5, gt=0)
    max_ratio: float = Field(2.0, gt=0)
    gold_check: bool = True
    agreed_only: bool = True
    seed: int = 0


def _relation(value: Any, file: str, line: int) -> str | None:
    """The relation a judged class teaches (E521 for a value the judges cannot give)."""
    if isinstance(value, str) and value.strip().lower() in _JUDGED:
        return _JUDGED[value.strip().lower()]
    if isinstance(value, str) and value.strip().lower() in _SHORT:
        return _SHORT[value.strip().lower()]
    raise TrainError.from_code("E521", file=file, line=line, value=value,
                               choices=", ".join(list(_JUDGED) + list(_SHORT)))


def _jsonl_pairs(path: Path) -> Iterator[LabelledPair]:
    name = str(path)
    with path.open(encoding="utf-8-sig") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise TrainError.from_code("E523", file=name, line=number,
                                           what=f"readable JSON ({exc.msg}, column {exc.colno})") from None
            if not isinstance(data, dict):
                raise TrainError.from_code("E520", file=name, line=number, count=1)
            for key in ("s1", "s2"):
                if not isinstance(data.get(key), str) or not data[key].strip():
                    raise TrainError.from_code("E523", file=name, line=number, what=f'"{key}" sentence')
            if "relation" not in data:
                raise TrainError.from_code("E523", file=name, line=number, what='"relation"')
            agree = data.get("agree") if isinstance(data.get("agree"), bool) else None
            gold = data.get("gold") if isinstance(data.get("gold"), dict) else None
            ways = data.get("ways", "both")
            if ways not in WAYS:
                raise TrainError.from_code("E523", file=name, line=number,
                                           what=f'"ways" it knows ({ways!r}: give {", ".join(WAYS)})')
            yield LabelledPair(str(data.get("id", number)), data["s1"], data["s2"],
                               _relation(data["relation"], name, number), number, gold, agree, ways)


def _column_pairs(path: Path) -> Iterator[LabelledPair]:
    """A TSV (or ``.csv``) file: s1, s2, relation; or id, s1, s2, relation; or a header naming them."""
    name = str(path)
    delimiter = "," if path.suffix.lower() == ".csv" else "\t"
    columns: dict[str, int] | None = None
    with path.open(encoding="utf-8-sig", newline="") as handle:
        for number, fields in enumerate(csv.reader(handle, delimiter=delimiter, quoting=csv.QUOTE_NONE
                                                   if delimiter == "\t" else csv.QUOTE_MINIMAL), 1):
            if not fields or not any(f.strip() for f in fields):
                continue
            if number == 1 and columns is None:
                lowered = [f.strip().lower() for f in fields]
                found = {key: next((i for i, f in enumerate(lowered) if f in names), -1)
                         for key, names in _HEADERS.items()}
                if found["s1"] >= 0 and found["s2"] >= 0:
                    if found["relation"] < 0:
                        raise TrainError.from_code("E523", file=name, line=number, what="relation column")
                    columns = {k: v for k, v in found.items() if v >= 0}
                    continue
            if columns is None:
                if len(fields) == 2:
                    raise TrainError.from_code("E523", file=name, line=number, what="relation column")
                if len(fields) not in (3, 4):
                    raise TrainError.from_code("E520", file=name, line=number, count=len(fields))
                columns = {"s1": 0, "s2": 1, "relation": 2} if len(fields) == 3 else \
                    {"id": 0, "s1": 1, "s2": 2, "relation": 3}
            if len(fields) <= max(columns.values()):
                raise TrainError.from_code("E520", file=name, line=number, count=len(fields))
            s1, s2 = fields[columns["s1"]].strip(), fields[columns["s2"]].strip()
            for key, text in (("s1", s1), ("s2", s2)):
                if not text:
                    raise TrainError.from_code("E523", file=name, line=number, what=f"{key} sentence")
            ident = fields[columns["id"]].strip() if "id" in columns else str(number)
            yield LabelledPair(ident, s1, s2, _relation(fields[columns["relation"]], name, number), number)


def read_labelled_pairs(path: str | Path) -> Iterator[LabelledPair]:
    """The pairs of a file written by ``paraspan relabel`` (JSONL), or of a plain pair file with a
    relation column (tab-separated, or ``.csv``); a line that is not a labelled pair raises the
    catalogue error naming it."""
    path = Path(path)
    if not path.is_file():
        raise TrainError.from_code("E010", file=str(path), what="file", fix="check the path")
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        return _jsonl_pairs(path)
    return _column_pairs(path)


def write_labelled_pairs(path: str | Path, pairs: Iterable[LabelledPair]) -> int:
    """Write ``pairs`` as JSONL that :func:`read_labelled_pairs` reads back (the relation as
    ``paraspan relabel`` names its class, ``ways`` where a pair teaches one direction); returns the count."""
    count = 0
    with Path(path).open("w", encoding="utf-8") as handle:
        for pair in pairs:
            row: dict[str, Any] = {"id": pair.id, "s1": pair.s1, "s2": pair.s2,
                                   "relation": _CLASS.get(pair.relation or "", "other")}
            if pair.gold is not None:
                row["gold"] = pair.gold
            if pair.agree is not None:
                row["agree"] = pair.agree
            if pair.ways != "both":
                row["ways"] = pair.ways
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count


def directions(pair: LabelledPair) -> list[tuple[str, str, str, str]]:
    """``(way, source, target, relation)`` for each direction of ``pair`` that teaches a relation: both
    ways for every relation (a forward pair read backwards is a reverse one) unless ``pair.ways``
    keeps one, none for the other classes."""
    if pair.relation is None:
        return []
    both = [("s1>s2", pair.s1, pair.s2, pair.relation), ("s2>s1", pair.s2, pair.s1, _BACKWARDS[pair.relation])]
    return [d for d in both if pair.ways in ("both", d[0])]


def directed(pair: LabelledPair) -> list[tuple[str, str, str]]:
    """``(source, target, relation)`` for each direction of ``pair`` that teaches a relation (:func:`directions`)."""
    return [(source, target, relation) for _, source, target, relation in directions(pair)]


def render_paraphrase_prompt(text: str, relation: str, avoid: Sequence[str] = (), keep: Sequence[str] = ()) -> str:
    """The prompt: the relation tag, the words to avoid and the phrases to keep (if any), the source, then
    the answer mark."""
    lines = [f"### paraphrase {relation}"]
    if avoid:
        lines.append("avoid: " + ", ".join(avoid))
    kept = [" ".join(k.split()) for k in keep if k.strip() and KEEP_SEPARATOR.strip() not in k]
    if kept:
        lines.append("keep: " + KEEP_SEPARATOR.join(kept))
    lines.append(" ".join(text.split()))
    return "\n".join(lines) + "\n" + ANSWER


def avoid_words(source: str, target: str, rng: random.Random, most: int) -> list[str]:
    """Up to ``most`` content words of ``source`` that ``target`` has in no form (names and numbers
    never: a ban on them teaches changing facts), in source order."""
    protected = protected_words(source)
    pool = [w for w in content_words(source) if w.lower() not in protected
            and not expand_bans([w]).find_leaks(target)]
    if not pool:
        return []
    chosen = rng.sample(pool, k=min(len(pool), rng.randint(1, most)))
    return [w for w in pool if w in chosen]


#: Longest phrase a training prompt names to keep, in words (a structure's argument is rarely longer).
_KEEP_WORDS = 8
_EDGE_PUNCT = ".,;:!?\"'()"


def keep_phrases(source: str, target: str, rng: random.Random, most: int) -> list[str]:
    """Up to ``most`` phrases of ``source`` that ``target`` copies word for word: maximal runs of
    whitespace tokens the two share, with a content word, cut to a random stretch of at most eight
    words where longer; in source order. (None holds a word to avoid: the target has those in no form.)"""
    tokens = source.split()
    src = [t.strip(_EDGE_PUNCT) for t in tokens]
    tgt = " " + " ".join(t.strip(_EDGE_PUNCT) for t in target.split()) + " "
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(src):
        j = i
        while j < len(src) and src[j] and f" {' '.join(src[i:j + 1])} " in tgt:
            j += 1
        if j > i:
            runs.append((i, j))
            i = j
        else:
            i += 1
    pool = []
    for start, end in runs:
        if end - start > _KEEP_WORDS:
            start = rng.randint(start, end - _KEEP_WORDS)
            end = start + _KEEP_WORDS
        phrase = " ".join(tokens[start:end]).strip(_EDGE_PUNCT)
        if content_words(phrase):
            pool.append((start, phrase))
    if not pool:
        return []
    chosen = sorted(rng.sample(pool, k=min(len(pool), rng.randint(1, most))))
    return [phrase for _, phrase in chosen]


def unusable(pair: LabelledPair, config: PairExampleConfig) -> str | None:
    """Why ``pair`` teaches nothing (``None``: it does)."""
    if pair.relation is None:
        return "a class that is no relation to train"
    if " ".join(pair.s1.lower().split()) == " ".join(pair.s2.lower().split()):
        return "identical sentences"
    if config.agreed_only and pair.agree is False:
        return "the judges disagree"
    if config.gold_check and _gold_disagrees(pair.gold or {}, pair.relation):
        return "the corpus's label contradicts the judges'"
    return None


def length_ok(source: str, target: str, config: PairExampleConfig) -> bool:
    """Whether ``target``'s length in words is within ``config``'s ratios to ``source``'s."""
    return config.min_ratio <= len(words(target)) / max(1, len(words(source))) <= config.max_ratio


def _gold_disagrees(gold: dict[str, Any], relation: str) -> bool:
    """Whether a corpus label rules ``relation`` out: an MRPC non-paraphrase is no equivalence, an STS-B
    pair under 3 (2 for a direction) shares too little, and a SICK label (s1 → s2 only) must be
    entailment for equivalence and forward, and neutral for reverse."""
    if gold.get("paraphrase") == 0 and relation == "equivalence":
        return True
    similarity = gold.get("similarity")  # STS-B, 0-5: a pair under 3 says different things
    if isinstance(similarity, (int, float)) and similarity < (3.0 if relation == "equivalence" else 2.0):
        return True
    nli = gold.get("nli")
    if nli is None:
        return False
    return nli != ("neutral" if relation == "reverse" else "entailment")


def _ending_like(source: str, target: str) -> str:
    """``target`` with a full stop when ``source`` ends a sentence and it does not: the paraphraser
    refuses answers that drop the source's final punctuation (SICK has none, MRPC has)."""
    if source.rstrip()[-1:] in ".!?" and target[-1:] not in ".!?\"'":
        return target + "."
    return target


def build_pair_examples(pairs: Iterable[LabelledPair], config: PairExampleConfig | None = None, *,
                        relations: Sequence[str] = PAIR_RELATIONS,
                        skipped: Counter[str] | None = None) -> list[Example]:
    """Examples of ``relations`` from every direction of ``pairs``, shuffled with ``config.seed``;
    ``skipped`` counts the pairs and directions left out, by reason."""
    config = config or PairExampleConfig()
    rng = random.Random(config.seed)
    skipped = skipped if skipped is not None else Counter()
    out: list[Example] = []
    for pair in pairs:
        why = unusable(pair, config)
        if why is not None:
            skipped[why] += 1
            continue
        for source, target, relation in directed(pair):
            if relation not in relations:
                skipped["a relation not asked for"] += 1
                continue
            if not length_ok(source, target, config):
                skipped["length ratio"] += 1
                continue
            avoid = avoid_words(source, target, rng, config.max_bans) if rng.random() < config.ban_share else []
            keep = keep_phrases(source, target, rng, config.max_keeps) if rng.random() < config.keep_share else []
            prompt = render_paraphrase_prompt(source, relation, avoid, keep)
            out.append(Example(prompt, _ending_like(source, " ".join(target.split())), TASK, "pair", (relation,),
                               relation))
    rng.shuffle(out)
    return out


def relation_counts(examples: Iterable[Example]) -> dict[str, int]:
    """Examples per relation, in :data:`PAIR_RELATIONS` order."""
    counts = Counter(e.structure for e in examples)
    return {r: counts[r] for r in PAIR_RELATIONS if counts[r]}


def check_relation_counts(examples: Sequence[Example], relations: Sequence[str], pairs: str,
                          minimum: int = MIN_PER_RELATION) -> None:
    """E522 for the first relation of ``relations`` with fewer than ``minimum`` examples."""
    counts = relation_counts(examples)
    for relation in relations:
        if counts.get(relation, 0) < minimum:
            others = ",".join(r for r in relations if r != relation and counts.get(r, 0) >= minimum) or "(none)"
            raise TrainError.from_code("E522", count=counts.get(relation, 0), relation=relation, pairs=pairs,
                                       minimum=minimum, others=others)


def select_examples(examples: Sequence[Example], limit: int | None, relations: Sequence[str]) -> list[Example]:
    """At most ``limit`` examples, the relations as even as they allow (round robin in the given order):
    equivalence pairs outnumber the directional ones several times over in relabelled corpora."""
    if limit is None or limit >= len(examples):
        return list(examples)
    queues = {r: [e for e in examples if e.structure == r] for r in relations}
    out: list[Example] = []
    while len(out) < limit and any(queues.values()):
        for relation in relations:
            if queues[relation] and len(out) < limit:
                out.append(queues[relation].pop(0))
    return out


def split_pairs(pairs: Sequence[LabelledPair], share: float, seed: int,
                most: int | None = None) -> tuple[list[LabelledPair], list[LabelledPair]]:
    """Train and dev pairs: dev is ``share`` of the pairs (at most ``most``), chosen by a hash of the
    texts, so both directions of a pair fall on the same side and the choice is stable across runs."""
    def key(pair: LabelledPair) -> str:
        return hashlib.sha1(f"{seed}:{pair.s1}\t{pair.s2}".encode()).hexdigest()

    count = int(len(pairs) * share)
    if most is not None:
        count = min(count, most)
    ranked = sorted(range(len(pairs)), key=lambda i: key(pairs[i]))
    held = set(ranked[:count])
    return [p for i, p in enumerate(pairs) if i not in held], [p for i, p in enumerate(pairs) if i in held]
