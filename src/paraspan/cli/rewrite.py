"""``paraspan rewrite``, ``paraspan rules list``, ``paraspan refine-rules`` and ``paraspan learn-rules``.

Heavy imports (spaCy, scikit-learn) happen inside the command functions.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from paraspan.cli.common import (
    FilterSpec,
    FromFormat,
    Limit,
    Progress,
    ProgressBar,
    Rejected,
    console,
    read_input,
    table_console,
)
from paraspan.errors import ParaspanError

rules_app = typer.Typer(help="Rewrite rules: list them (hand-written, learned, refined).", no_args_is_help=True)


def _read(path: Path, fmt: str | None, limit: int | None = None) -> list[Any]:
    if not path.exists():
        raise ParaspanError.from_code("E014", path=path)
    return list(read_input(path, fmt, limit=limit))


def _ruleset(rules: Path | None, learned: Path | None = None) -> Any:
    from paraspan.generate.rewrite.rules import RuleSet

    if rules is not None and learned is not None:
        raise ParaspanError.from_code("E715")
    if rules is not None:
        if not rules.exists():
            raise ParaspanError.from_code("E717", rules=rules)
        return RuleSet.from_file(rules)
    if learned is not None and not learned.exists():
        raise ParaspanError.from_code("E716", learned=learned)
    return RuleSet.default(learned)


def rewrite_cmd(
    corpus: Annotated[Path, typer.Argument(help="Corpus to rewrite (any readable format; JSONL by default).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Rewritten sentences, JSONL.")],
    rules: Annotated[Path | None, typer.Option(help="Refined rules (`paraspan refine-rules`): use the kept ones. "
                                                    "Default: every hand-written and shipped learned rule.")] = None,
    learned: Annotated[Path | None, typer.Option(help="Learned rules file to use with the hand-written ones.")] = None,
    max_per_sentence: Annotated[int | None, typer.Option("--max-per-sentence", "-n", min=1,
                                                         help="At most N rewrites per structure to choose "
                                                              "from: the best placed one is written.")] = None,
    families: Annotated[str, typer.Option(
        help="Rule families: reliable (the rules that keep the meaning: clefts, reordering, genitives, "
             "splitting, extraction), equivalence (those and passives, judged right 26 times in 71), "
             "forward_entailment (those and deletions of modifiers), all (also WordNet synonyms and learned "
             "rules), or comma-separated family names (`paraspan rules list`).")] = "reliable",
    filter_name: FilterSpec = "verified",
    rejected: Rejected = None,
    from_fmt: FromFormat = None,
    limit: Limit = None,
    progress: Progress = True,
) -> None:
    """Rewrite each structure's sentence with transformation rules and carry its labels over: `paraspan augment
    --generator rewrite -k 1`, each structure's best-placed rewrite an output, the filter deciding -o."""
    from paraspan.cli.preset import Preset, report, run_preset

    _ruleset(rules, learned)  # a bad or missing rules file is refused before anything else
    preset = Preset("rewrite", {"rules": str(rules) if rules is not None else None,
                                "learned": str(learned) if learned is not None else None,
                                "families": families}, candidates=max_per_sentence)
    start = time.perf_counter()
    result = run_preset(preset, corpus, output, filter_name=filter_name, rejected=rejected, from_fmt=from_fmt,
                        limit=limit, progress=progress, what="rewriting")
    err = console()
    summary = result.summary
    err.print(f"wrote {result.written} rewrites of {summary.inputs if summary else 0} sentences to {output} "
              f"in {time.perf_counter() - start:.1f}s", markup=False)
    notes = {k: v for k, v in sorted(summary.notes.items())} if summary else {}
    if notes:
        err.print("no rewrite: " + ", ".join(f"{k} {v}" for k, v in notes.items()), markup=False)
    report(err, result, filter_name, rejected)


def rules_list_cmd(
    rules: Annotated[Path | None, typer.Option(help="A refined or learned rules file (default: the built-in set).")]
    = None,
    kind: Annotated[str | None, typer.Option(help="Only 'hand' or 'learned' rules.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False,
) -> None:
    """Show every rule with its kind, family, an example and its counts."""
    from rich.markup import escape
    from rich.table import Table

    from paraspan.generate.rewrite.rules import RuleSet

    if kind not in (None, "hand", "learned"):
        raise ParaspanError.from_code("E718", kind=kind)
    if rules is not None and not rules.exists():
        raise ParaspanError.from_code("E717", rules=rules)
    ruleset = RuleSet.from_file(rules, kept_only=False) if rules is not None else RuleSet.default()
    rows = []
    for rule in ruleset.rules:
        if kind is not None and rule.kind != kind:
            continue
        info = ruleset.info.get(rule.name, {})
        rows.append({"name": rule.name, "kind": rule.kind, "family": rule.family, "version": rule.version,
                     "example": rule.example, "count": rule.count, "applied": info.get("applied"),
                     "positive": info.get("positive"), "weight": info.get("weight"), "kept": info.get("kept")})
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    table = Table(title=f"{len(rows)} rewrite rules ({ruleset.source})")
    for column in ("name", "kind", "family", "example", "extracted", "applied", "positive", "weight", "kept"):
        table.add_column(column, overflow="fold")

    def show(value: Any) -> str:
        return "" if value is None else (f"{value:+.3f}" if isinstance(value, float) else str(value))

    for row in rows:
        table.add_row(row["name"], row["kind"], row["family"], escape(row["example"]), show(row["count"]),
                      show(row["applied"]),
                      show(row["positive"]), show(row["weight"]), show(row["kept"]))
    table_console(200).print(table)


def refine_rules_cmd(
    corpus: Annotated[Path, typer.Argument(help="Gold training corpus (srl or frame structures).")],
    dev: Annotated[Path, typer.Option(help="Gold dev corpus: the keep threshold is tuned on it.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Refined rules JSON.")],
    learned: Annotated[Path | None, typer.Option(help="Learned rules to refine with the hand-written ones "
                                                      "(default: the shipped ones).")] = None,
    from_fmt: FromFormat = None,
    max_per_sentence: Annotated[int | None, typer.Option("--max-per-sentence", min=1)] = None,
    limit: Annotated[int | None, typer.Option(help="Use at most this many training sentences.")] = None,
    threshold: Annotated[list[float] | None, typer.Option(
        help="Candidate weight thresholds (repeatable; default: -inf, weight quantiles and +0.001).")] = None,
    progress: Progress = True,
) -> None:
    """Keep the rules whose rewrites a base tagger labels as well as their sources (SVM weights, Algorithm 1)."""
    from paraspan.corpus.jsonl import atomic_write
    from paraspan.generate.rewrite.refine import refine, result_to_json
    from paraspan.models import load_spacy

    train, dev_sentences = _read(corpus, from_fmt, limit), _read(dev, from_fmt)
    kinds = Counter(s.kind for x in train for s in x.structures)
    if not kinds.get("srl") and not kinds.get("frame") and not kinds.get("event"):
        raise ParaspanError.from_code("E719", corpus=corpus)
    ruleset = _ruleset(None, learned)
    start = time.perf_counter()
    with ProgressBar(enabled=progress) as bar:
        result = refine(train, dev_sentences, ruleset, nlp=load_spacy(), thresholds=threshold,
                        max_per_sentence=max_per_sentence, progress=bar.stage)
    data = result_to_json(result, ruleset, sources={"train": str(corpus), "dev": str(dev), "sentences": len(train)})
    with atomic_write(output) as handle:
        handle.write(json.dumps(data, indent=1) + "\n")
    kept = sum(1 for r in data["rules"] if r["kept"])
    err = console()
    cv = result.cv["all"]
    err.print(f"{len(result.samples)} labelled rewrites ({sum(s.positive for s in result.samples)} positive); "
                  f"SVM CV F1 {cv.get('f1', float('nan')):.3f} AUC {cv.get('auc', float('nan')):.3f}")
    err.print(f"kept {kept}/{len(data['rules'])} rules (threshold {data['threshold']}) → {output} "
                  f"in {time.perf_counter() - start:.0f}s")


def learn_rules_cmd(
    pairs: Annotated[list[Path], typer.Argument(help="Aligned pairs: MultiMWA TSV (gold links) or MRPC TSV "
                                                     "(positive pairs, aligned by identity).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Learned rules JSON.")],
    min_count: Annotated[int, typer.Option(help="Drop rules seen fewer times than this.")] = 3,
    progress: Progress = True,
) -> None:
    """Extract a quasi-synchronous dependency grammar from aligned sentence pairs."""
    import itertools

    from paraspan.generate.rewrite.learned import learn_rules, read_mrpc_positive, read_multimwa, save_rules
    from paraspan.models import load_spacy

    readers = []
    for path in pairs:
        if not path.exists():
            raise ParaspanError.from_code("E014", path=path)
        with open(path, encoding="utf-8-sig") as handle:
            first = handle.readline()
        if first.lower().startswith("quality\t"):
            readers.append(read_mrpc_positive(path))
        elif len(first.split("\t")) >= 8:
            readers.append(read_multimwa(path))
        else:
            raise ParaspanError.from_code("E727", file=str(path), line=1, path=path)
    start = time.perf_counter()
    with ProgressBar(enabled=progress) as bar:
        rules, stats = learn_rules(itertools.chain(*readers), load_spacy(exclude=("ner",)), min_count=min_count,
                                   progress=bar.stage("aligned pairs"))
    save_rules(rules, output, sources={"files": [p.name for p in pairs], "min_count": min_count, **stats})
    console().print(f"{stats.get('pairs', 0)} pairs → {stats.get('distinct_rules', 0)} distinct rules, "
                     f"{len(rules)} seen ≥{min_count} times → {output} in {time.perf_counter() - start:.0f}s")
