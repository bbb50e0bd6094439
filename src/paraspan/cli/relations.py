"""``paraspan relabel`` (fine-grained paraphrase relations) and ``paraspan train-nli``.

Heavy imports (torch, transformers, llama.cpp) happen inside the command functions.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from paraspan.cli.common import Progress, ProgressBar, console, table_console, use_threads
from paraspan.errors import ParaspanError


def relabel_cmd(
    pairs: Annotated[Path, typer.Argument(help="Sentence pairs: JSONL {id, s1, s2}, or a raw "
                                          "MRPC/STS-B/SICK/RTE file.")],
    out: Annotated[Path, typer.Option("--output", "-o", help="Output JSONL ('-' for stdout).")],
    from_fmt: Annotated[str | None, typer.Option(
        "--from", "-f", help="jsonl, mrpc, stsb, sick or rte (default: from the name).")] = None,
    judges: Annotated[str, typer.Option(
        "--judges", "-j", help="Comma-separated judges: minilm-nli, llm, llm:<model>, hub:<id>; with two or "
        "more, 'agree' records whether they agree.")] = "minilm-nli",
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON instead of tables.")] = False,
    summary_path: Annotated[Path | None, typer.Option("--summary", help="Also write the summary JSON here.")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N pairs.")] = None,
    threads: Annotated[int | None, typer.Option(
        help="CPU threads (default: torch's for the encoders, all cores but one for the LLM).")] = None,
    chunk: Annotated[int, typer.Option(help="Pairs judged per call (memory vs. progress updates).")] = 256,
    max_length: Annotated[int, typer.Option(
        help="Encoders: word pieces per pair; longer pairs are cut (marked 'truncated').")] = 256,
    rules: Annotated[bool, typer.Option(
        "--rules", help="Judge nothing: write the rule rewriter's equivalents and deletions of modifiers of each "
                        "distinct sentence of the file instead (relation equivalence or forward_entailment, judge "
                        "'rules'), as more training pairs for train-generator --task paraphrase.")] = False,
    progress: Progress = True,
) -> None:
    """Label sentence pairs with fine-grained paraphrase relations (NLI run both ways).

    Writes each pair with 'forward' and 'backward' (the NLI labels of s1→s2 and s2→s1), their probabilities,

    'relation' (equivalence, forward_entailment, reverse_entailment, negation, alternation, other) and 'agree',

    then prints a per-relation summary (the paper's Tables 8-12).
    """
    from itertools import islice

    from paraspan.corpus.jsonl import atomic_write
    from paraspan.corpus.pairs import read_pair_file
    from paraspan.filter.judges import load_judge, parse_judge_specs
    from paraspan.filter.relations import RelationSummary, relate

    if chunk < 1:
        raise ParaspanError.from_code("E797", chunk=chunk)
    specs = parse_judge_specs(judges)
    # Read (and so check) the whole file before loading any model: a bad line fails in a second.
    stream = read_pair_file(pairs, from_fmt)
    items = list(islice(stream, limit) if limit is not None else stream)
    err = console()
    if rules:
        _write_rule_pairs(items, out, err, progress)
        return
    use_threads(threads)  # the encoders' (the LLM judge takes its own)
    loaded = [load_judge(spec, threads=threads, max_length=max_length) for spec in specs]
    summary = RelationSummary()
    start = time.perf_counter()

    def records(bar: ProgressBar):  # type: ignore[no-untyped-def]
        for begin in range(0, len(items), chunk):
            batch = items[begin : begin + chunk]
            for pair, rel in zip(batch, relate([(p.s1, p.s2) for p in batch], loaded), strict=True):
                summary.add(pair.s1, pair.s2, rel, pair.gold)
                row = {"id": pair.id, "s1": pair.s1, "s2": pair.s2}
                if pair.gold:
                    row["gold"] = pair.gold
                row.update(rel.to_dict())
                yield json.dumps(row, ensure_ascii=False) + "\n"
            done = min(begin + chunk, len(items))
            bar(done, rate=f"{done / (time.perf_counter() - start):.1f} pairs/s")

    with ProgressBar("judging pairs", len(items), enabled=progress) as bar:
        if str(out) == "-":
            for line in records(bar):
                sys.stdout.write(line)
        else:
            with atomic_write(out) as handle:
                for line in records(bar):
                    handle.write(line)
    seconds = time.perf_counter() - start
    data = summary.to_dict()
    data.update({"judges": specs, "source": str(pairs), "seconds": round(seconds, 2),
                 "pairs_per_second": round(len(items) / seconds, 2) if seconds > 0 else None})
    if summary_path is not None:
        with atomic_write(summary_path) as handle:
            handle.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    if as_json:
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        # With the records on stdout, the tables go to stderr so the JSONL stays clean.
        render_relations(summary, err if str(out) == "-" else table_console(), title=Path(str(pairs)).name)
    err.print(f"wrote {len(items):,} pairs to {out} in {seconds:.1f}s "
              f"({len(items) / seconds if seconds > 0 else 0:.1f} pairs/s, judges: {', '.join(specs)})")


def train_nli_cmd(
    train: Annotated[list[Path], typer.Argument(help="Training files: SICK (3-way), RTE XML (2-way), MRPC or STS-B "
                                                "(paraphrase: both directions entail, or not both), or pair JSONL "
                                                "with an 'nli', 'paraphrase' or 'similarity' key.")],
    out: Annotated[Path, typer.Option("--output", "-o", help="Folder for minilm-nli.safetensors + minilm-nli.json.")]
    = Path("out/minilm-nli"),
    dev: Annotated[list[Path] | None, typer.Option("--dev", help="Scored after each epoch (repeatable), e.g. SICK "
                                                   "trial, RTE dev. Never trained on.")] = None,
    seed: Annotated[int, typer.Option(help="Random seed (initialisation, dropout, batch order).")] = 0,
    train_layers: Annotated[int, typer.Option(help="Top encoder layers to fine-tune (each adds ~3.5 MB).")] = 2,
    epochs: Annotated[int, typer.Option(help="Passes over the training data.")] = 3,
    batch_size: Annotated[int, typer.Option(help="Pairs per step.")] = 16,
    lr: Annotated[float, typer.Option(help="Learning rate of the encoder layers.")] = 1e-4,
    head_lr: Annotated[float, typer.Option(help="Learning rate of the classifier head.")] = 1e-3,
    swap_contradictions: Annotated[bool, typer.Option("--swap-contradictions",
                                                      help="Also train s2→s1 for contradictions.")] = False,
    threads: Annotated[int | None, typer.Option(help="torch CPU threads (results depend slightly on it).")] = None,
) -> None:
    """Fine-tune the packaged MiniLM as a 3-way NLI cross-encoder (the minilm-nli judge).

    Use the result with `paraspan relabel --judges minilm-nli:OUT`.

    The weights shipped with paraspan were made by this command with its defaults (see paraspan/filter/data).
    """
    from paraspan.filter.nli_train import NliRecipe, train_nli

    for path in [*train, *(dev or [])]:
        if not path.is_file():
            raise ParaspanError.from_code("E010", file=str(path), what="file", fix="check the path")
    err = console()
    recipe = NliRecipe(seed=seed, train_layers=train_layers, epochs=epochs, batch_size=batch_size, lr=lr,
                       head_lr=head_lr, swap_contradictions=swap_contradictions)
    use_threads(threads)
    report = train_nli(train, out, recipe, dev_files=dev or [], log=err.print)
    scores = ", ".join(f"{k} {100 * v:.1f}%" for k, v in report.scores.items()) or "no dev files"
    err.print(f"trained on {report.examples:,} pairs in {report.seconds:.0f}s; dev: {scores}; "
              f"wrote {report.weights_bytes / 1e6:.1f} MB of weights to {out}")
    err.print(f"use it with: paraspan relabel PAIRS -o OUT --judges minilm-nli:{out}")


def render_relations(summary: Any, console: Any, title: str = "relations") -> None:
    """Print a :class:`~paraspan.filter.relations.RelationSummary` as rich tables."""
    from rich.table import Table

    from paraspan.filter.relations import LABELS, RELATIONS

    data = summary.to_dict()
    combos = Table(title=f"{title}: forward × backward labels (Table 8)")
    combos.add_column("forward \\ backward")
    for label in LABELS:
        combos.add_column(label, justify="right")
    for f in LABELS:
        combos.add_row(f, *(f"{100 * data['combinations'][f'{f}/{b}']:.1f}%" for b in LABELS))
    console.print(combos)
    table = Table(title=f"{title}: {data['pairs']:,} pairs (Tables 9-12)")
    columns = ["relation", "pairs", "share", "len(s1)-len(s2)", "ROUGE-L"]
    rows = [*RELATIONS, "all"]
    groups = [data["relations"][r] if r != "all" else data["all"] for r in rows]
    extra = [("agree", "agree"), ("gold_paraphrase_share", "gold paraphrase"),
             ("gold_similarity_mean", "gold similarity")]
    present = [(k, name) for k, name in extra if any(k in g for g in groups)]
    show_nli = any("gold_nli" in g for g in groups)
    for name in columns + [name for _, name in present] + (["gold E/N/C"] if show_nli else []):
        table.add_column(name, justify="left" if name == "relation" else "right")
    for relation, g in zip(rows, groups, strict=True):
        cells = [relation, f"{g['pairs']:,}", f"{100 * g['share']:.1f}%",
                 "" if g["length_diff"] is None else f"{g['length_diff']:+.2f}",
                 "" if g["rouge_l"] is None else f"{g['rouge_l']:.1f}"]
        for key, _ in present:
            value = g.get(key)
            cells.append("" if value is None else
                         f"{value:.3f}" if key == "gold_similarity_mean" else f"{100 * value:.1f}%")
        if show_nli:
            nli = g.get("gold_nli")
            cells.append("/".join(str(nli[label]) for label in LABELS) if nli else "")
        table.add_row(*cells)
    console.print(table)
    if data["notes"] or data["truncated"]:
        notes = [f"{n} × {note}" for note, n in data["notes"].items()]
        if data["truncated"]:
            notes.append(f"{data['truncated']} × truncated to fit the judge")
        console.print("notes: " + "; ".join(notes))


def _write_rule_pairs(items: list[Any], out: Path, err: Any, progress: bool) -> None:
    """``relabel --rules``: the rule rewriter's pairs of each distinct sentence of ``items``, and their counts."""
    from collections import Counter
    from collections.abc import Iterator

    from paraspan.corpus.jsonl import atomic_write
    from paraspan.generate.rule_pairs import rule_pairs

    sentences = list(dict.fromkeys(" ".join(t.split()) for p in items for t in (p.s1, p.s2) if t.strip()))
    counts: Counter[str] = Counter()
    start = time.perf_counter()
    with ProgressBar("rewriting sentences", len(sentences), enabled=progress) as bar, atomic_write(out) as handle:
        def numbered() -> Iterator[tuple[str, str]]:
            for n, text in enumerate(sentences, 1):
                yield str(n), text
                bar(n)

        for row in rule_pairs(numbered()):  # one rewriter (and parser) for every sentence
            counts[row["relation"]] += 1
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    found = ", ".join(f"{count:,} {relation}" for relation, count in sorted(counts.items())) or "no rewrite"
    err.print(f"wrote {found} from {len(sentences):,} sentences to {out} in {time.perf_counter() - start:.1f}s",
              markup=False)
