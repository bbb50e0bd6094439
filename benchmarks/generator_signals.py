"""Which signal tells a trained generator's right outputs from its wrong ones? (issue 63)

Each run is ``NAME=STORE.db`` (a `paraspan augment` run store whose written outputs were judged in
the review app; ≥ 50 = right). For every judged output, the signals a filter could use:

* what the checks of ``verified`` recorded: ``fluency`` (the shared-drop statistic under the 1.5B
  model), ``labels`` (the span-label verifier's score), and the generator's own mean log-prob of its
  filler (``own``) and the candidate's rank among a structure's candidates (``rank``, lower first);
* with ``--llm MODEL``, the texts scored token by token under that model: the lowest change of a
  token the output shares with its source (``shared_min``, the fluency statistic recomputed), the
  summed change over the shared tokens (``shared_sum``), the summed and lowest log-prob of the new
  tokens (``new_sum``, ``new_min``), and the change of the whole text's total and mean log-prob
  (``total``, ``mean``);
* with ``--types``, for entity outputs: the generator's log-prob of its filler under the mention's
  own type marker minus the best other type's (``type_margin``; the adapter read as a classifier).

Per run and signal: ROC AUC right vs wrong, and the judged precision of the outputs the signal ranks
in its top 80%, 60% and 50%; then the signals together (logistic regression, 10-fold
cross-validated predictions). Writes ``results/generator_signals.json`` (counts and figures only).

    python benchmarks/generator_signals.py fn=trained3.db wikiann=wikiann-trained2.db \
        ewt=ewt-trained.db,ewt-trained-b.db --llm default --threads 1
"""

from __future__ import annotations

import argparse
import difflib
import json
import sqlite3
from pathlib import Path
from typing import Any

from _common import machine

RESULTS = Path(__file__).resolve().parent / "results"
KEEP_SHARES = (0.8, 0.6, 0.5)


def judged_outputs(path: Path) -> list[dict[str, Any]]:
    """The judged written outputs of a store, with their source text and the signals the checks recorded."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    inputs = {i: json.loads(j)["text"] for i, j in conn.execute("SELECT id, json FROM inputs")}
    outputs = {i: json.loads(j) for i, j in conn.execute("SELECT id, json FROM outputs")}
    rows = []
    for oid, score in conn.execute("SELECT output_id, score FROM judgments"):
        out = outputs[oid]
        prov = out["provenance"]
        checks = prov.get("checks", {})
        rows.append({"id": oid, "right": score >= 50, "text": out["text"], "source": inputs[oid.split("~")[0]],
                     "sentence": out,
                     "signals": {"fluency": checks.get("fluency", {}).get("score"),
                                 "labels": checks.get("labels", {}).get("score"),
                                 "own": (prov.get("paraphrase") or {}).get("score"),
                                 "rank": -prov["candidate_rank"] if "candidate_rank" in prov else None}})
    conn.close()
    return rows


def token_signals(source: tuple[list[int], list[float]], output: tuple[list[int], list[float]]) -> dict[str, float]:
    """The token-level signals of one output against its source (see the module docstring)."""
    (src_ids, src_lp), (out_ids, out_lp) = source, output
    shared: list[float] = []
    new: list[float] = []
    blocks = difflib.SequenceMatcher(None, src_ids, out_ids, autojunk=False).get_opcodes()
    for op, a1, a2, b1, b2 in blocks:
        if op == "equal":
            shared += [out_lp[b1 + k] - src_lp[a1 + k] for k in range(a2 - a1)]
        else:
            new += out_lp[b1:b2]
    return {"shared_min": min(shared, default=0.0), "shared_sum": sum(shared), "new_sum": sum(new),
            "new_min": min(new, default=0.0), "total": sum(out_lp) - sum(src_lp),
            "mean": sum(out_lp) / max(1, len(out_lp)) - sum(src_lp) / max(1, len(src_lp))}


def add_llm_signals(rows: list[dict[str, Any]], model: str, threads: int) -> None:
    from paraspan.llm.llama_backend import text_token_scorer

    scorer = text_token_scorer(model, n_threads=threads)
    texts = sorted({t for r in rows for t in (r["text"], r["source"])})
    scores: dict[str, tuple[list[int], list[float]]] = {}
    for i in range(0, len(texts), 16):
        scores.update(zip(texts[i:i + 16], scorer(texts[i:i + 16]), strict=True))
    for r in rows:
        r["signals"].update(token_signals(scores[r["source"]], scores[r["text"]]))


def add_type_signals(rows: list[dict[str, Any]], threads: int) -> None:
    """``type_margin`` for entity outputs, from the shipped entity adapter read as a classifier."""
    from paraspan.corpus.schema import Sentence
    from paraspan.generate.trained import make_trained
    from paraspan.train.examples import Mask, render_prompt

    gen: Any = None
    for r in rows:
        sentence = Sentence.from_dict(r["sentence"])
        structure = sentence.structures[0]
        if structure.kind != "entity" or structure.anchor is None:
            continue
        if gen is None:
            gen = make_trained(adapter="wikiann", threads=threads)
            types = sorted(gen.card.get("labels", {}).get("labels", []))
            eos = gen.backend._model.token_eos()
        span = structure.anchor
        answer = gen.backend.tokenize(sentence.text[span.start:span.end]) + [eos]
        prompts = [gen._prompt_tokens(render_prompt(sentence.text, structure, [Mask(span.start, span.end, t)], "span"))
                   for t in types]
        logprob = dict(zip(types, (lp * len(answer) for lp in gen.backend.logprobs([(p, answer) for p in prompts])),
                           strict=True))
        own = logprob.pop(structure.label, None)
        if own is not None and logprob:
            r["signals"]["type_margin"] = own - max(logprob.values())


def evaluate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """AUC and top-share precision per signal, and the cross-validated combination."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import cross_val_predict

    y = np.array([r["right"] for r in rows])
    names = sorted({k for r in rows for k, v in r["signals"].items() if v is not None})
    result: dict[str, Any] = {"outputs": len(rows), "right": int(y.sum()), "precision": round(float(y.mean()), 4),
                              "signals": {}}

    def tops(values: Any, labels: Any) -> dict[str, Any]:
        order = np.argsort(-values, kind="stable")
        return {f"top_{int(s * 100)}": {"kept": int(len(order) * s),
                                        "precision": round(float(labels[order[:int(len(order) * s)]].mean()), 4)}
                for s in KEEP_SHARES}

    usable = []
    for name in names:
        have = [i for i, r in enumerate(rows) if r["signals"].get(name) is not None]
        values = np.array([rows[i]["signals"][name] for i in have], dtype=float)
        labels = y[have]
        if len(set(labels.tolist())) < 2:
            continue
        result["signals"][name] = {"n": len(have), "auc": round(float(roc_auc_score(labels, values)), 4),
                                   **tops(values, labels)}
        if len(have) == len(rows):
            usable.append(name)
    if usable and len(set(y.tolist())) == 2 and min(int(y.sum()), int((~y).sum())) >= 10:
        x = np.array([[r["signals"][n] for n in usable] for r in rows], dtype=float)
        x = (x - x.mean(0)) / (x.std(0) + 1e-9)
        p = cross_val_predict(LogisticRegression(max_iter=1000), x, y, cv=10, method="predict_proba")[:, 1]
        result["combined"] = {"signals": usable, "auc": round(float(roc_auc_score(y, p)), 4), **tops(p, y)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="NAME=STORE.db[,STORE.db…]")
    parser.add_argument("--llm", help="score the texts token by token under this model (default, small, a .gguf)")
    parser.add_argument("--types", action="store_true", help="entity outputs: the adapter's type margin")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--output", type=Path, default=RESULTS / "generator_signals.json")
    args = parser.parse_args()
    runs: dict[str, Any] = {}
    for spec in args.runs:
        name, _, paths = spec.partition("=")
        rows = [r for p in paths.split(",") for r in judged_outputs(Path(p))]
        if args.llm:
            add_llm_signals(rows, args.llm, args.threads)
        if args.types:
            add_type_signals(rows, args.threads)
        runs[name] = evaluate(rows)
        print(name, json.dumps({k: v["auc"] for k, v in runs[name]["signals"].items()}),
              "combined", runs[name].get("combined", {}).get("auc"))
    out = {"machine": machine(), "llm": args.llm, "runs": runs,
           "stores": {s.partition("=")[0]: [Path(p).name for p in s.partition("=")[2].split(",")] for s in args.runs}}
    args.output.write_text(json.dumps(out, indent=1) + "\n")
    print("wrote", args.output)


if __name__ == "__main__":
    main()
