"""A small run store written through the RunStore write API, with sentences written for these tests.

Frames have two lexical units each, so the review app can pick a gold in-frame control with a
different LU and a gold out-of-frame one, as in Culkin et al. 2021 §6.1.
"""

from __future__ import annotations

from pathlib import Path

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.pipeline.store import CandidateRow, OutputRow, RunStore, WorkResult

# (id, text, frame, LU, anchor word, [(arg text, FE)], [replacement anchor word per iteration])
INPUTS = [
    ("t01", "The baker sold fresh bread to the villagers.", "Commerce_sell", "sell.v", "sold",
     [("The baker", "Seller"), ("fresh bread", "Goods"), ("to the villagers", "Buyer")], ["traded", "offered"]),
    ("t02", "Our shop retails handmade candles at the market.", "Commerce_sell", "retail.v", "retails",
     [("Our shop", "Seller"), ("handmade candles", "Goods")], ["sells", "markets"]),
    ("t03", "My cousin bought a used car from a dealer.", "Commerce_buy", "buy.v", "bought",
     [("My cousin", "Buyer"), ("a used car", "Goods"), ("from a dealer", "Seller")], ["purchased", "got"]),
    ("t04", "The museum purchased an old painting last year.", "Commerce_buy", "purchase.v", "purchased",
     [("The museum", "Buyer"), ("an old painting", "Goods"), ("last year", "Time")], ["acquired"]),
    ("t05", "The ferry arrived at the island before dawn.", "Arriving", "arrive.v", "arrived",
     [("The ferry", "Theme"), ("at the island", "Goal"), ("before dawn", "Time")], ["landed", "docked"]),
    ("t06", "The climbers reached the summit at noon.", "Arriving", "reach.v", "reached",
     [("The climbers", "Theme"), ("the summit", "Goal"), ("at noon", "Time")], ["attained"]),
    ("t07", "The coach said that the team played well.", "Statement", "say.v", "said",
     [("The coach", "Speaker"), ("that the team played well", "Message")], ["stated", "remarked"]),
    ("t08", "The council announced a new park for the town.", "Statement", "announce.v", "announced",
     [("The council", "Speaker"), ("a new park for the town", "Message")], ["declared"]),
    ("t09", "A neighbour gave the children some apples.", "Giving", "give.v", "gave",
     [("A neighbour", "Donor"), ("the children", "Recipient"), ("some apples", "Theme")], ["handed", "offered"]),
    ("t10", "The school donated old books to the library.", "Giving", "donate.v", "donated",
     [("The school", "Donor"), ("old books", "Theme"), ("to the library", "Recipient")], ["gave"]),
    ("t11", "Rain fell all night.", None, None, None, [], []),
]


def _span(text: str, phrase: str, label: str) -> Span:
    start = text.index(phrase)
    return Span(start, start + len(phrase), label)


def input_sentence(row: tuple) -> Sentence:
    sid, text, frame, lu, word, args, _ = row
    if frame is None:
        return Sentence(sid, text, [])
    return Sentence(sid, text, [Structure("frame", frame, _span(text, word, lu),
                                          [_span(text, a, fe) for a, fe in args])])


def make_store(path: Path, *, judged: dict[str, list[float]] | None = None) -> Path:
    """Write the store; ``judged`` adds judgments {output id: [scores]} by annotators a0, a1, ..."""
    store = RunStore.create(path, {"iterations": 2, "seed": 0, "model": "fixture"})
    sentences = [input_sentence(r) for r in INPUTS]
    store.add_inputs((s, i) for i, s in enumerate(sentences))
    for row in INPUTS:
        sid, text, frame, lu, word, args, replacements = row
        if frame is None:
            store.commit_work(WorkResult(sid, "skipped", note="no structures"))
            continue
        result = WorkResult(sid, "done")
        for iteration, new in enumerate(replacements, start=1):
            out_text = text.replace(word, new, 1)
            forward = -0.4 - 0.35 * iteration - 0.05 * len(new)
            aligner = round(0.995 - 0.03 * iteration - 0.01 * (len(args) - 2), 4)
            anchor = _span(out_text, new, f"{new}.v")
            out_args = [_span(out_text, a, fe) for a, fe in args]
            provenance = {
                "method": "iterative-paraphrase", "iteration": iteration, "structure": 0,
                "source_anchor": {"text": word, "label": lu},
                "paraphrase": {"forward": forward, "backward": forward - 0.2, "score": 2 * forward - 0.2},
                "aligner": {"anchor": aligner, "spans": [{"role": "anchor", "label": lu, "score": aligner}]
                            + [{"role": "arg", "label": fe, "score": 0.97} for _, fe in args]},
            }
            out = Sentence(f"{sid}~s0i{iteration}", out_text, [Structure("frame", frame, anchor, out_args)],
                           source_id=sid, provenance=provenance)
            result.candidates.append(CandidateRow(0, iteration, 0, out_text, forward, forward - 0.2, 2 * forward - 0.2,
                                                  (anchor.start, anchor.end), aligner, True, True))
            result.candidates.append(CandidateRow(0, iteration, 1, "Something else entirely.", -3.0, -3.1, -6.1,
                                                  None, 0.1, False, False))
            decisions = {"all": (True, "", None), "iter1": (iteration == 1, "iteration<=1", None),
                         "align0.95": (aligner >= 0.95, "aligner>=0.95", aligner)}
            result.outputs.append(OutputRow(out, 0, iteration, 0, forward, forward - 0.2, 2 * forward - 0.2,
                                            aligner, 0.97, frame, new, new, decisions))
        store.commit_work(result)
    for oid, scores in (judged or {}).items():
        for i, score in enumerate(scores):
            store.add_judgment(oid, score, f"a{i}")
    store.close()
    return path


# More gold sentences (written for these tests) for controls and frame examples: `--gold`.
GOLD = [
    ("g01", "The gallery sold three paintings on Friday.", "Commerce_sell", "sell.v", "sold"),
    ("g02", "A street vendor peddled cold drinks all day.", "Commerce_sell", "peddle.v", "peddled"),
    ("g03", "The firm auctioned its old furniture.", "Commerce_sell", "auction.v", "auctioned"),
    ("g04", "We bought tickets for the concert.", "Commerce_buy", "buy.v", "bought"),
    ("g05", "The city purchased land for a school.", "Commerce_buy", "purchase.v", "purchased"),
    ("g06", "Guests arrived late in the evening.", "Arriving", "arrive.v", "arrived"),
    ("g07", "The parcel came on Tuesday.", "Arriving", "come.v", "came"),
    ("g08", "She stated her opinion clearly.", "Statement", "state.v", "stated"),
    ("g09", "He mentioned that the road was closed.", "Statement", "mention.v", "mentioned"),
    ("g10", "They gave the winner a medal.", "Giving", "give.v", "gave"),
    ("g11", "The club presented each player with a cap.", "Giving", "present.v", "presented"),
]


def gold_sentences() -> list[Sentence]:
    return [Sentence(sid, text, [Structure("frame", frame, _span(text, word, lu))])
            for sid, text, frame, lu, word in GOLD]


def write_gold(path: Path) -> Path:
    from paraspan.corpus.formats import write_corpus

    write_corpus(gold_sentences(), path, "jsonl")
    return path
