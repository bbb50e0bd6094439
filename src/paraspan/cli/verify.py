"""``paraspan train-verifier``: train the span-label verifier on a gold corpus (:mod:`paraspan.filter.verifier`)."""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Annotated, Any

import typer

from paraspan.cli.common import (
    Exemplars,
    FromFormat,
    Limit,
    Scheme,
    Split,
    Splits,
    TrimPunct,
    console,
    feature_cache,
    input_format,
    use_threads,
)
from paraspan.cli.common import reader_options as _reader_options
from paraspan.errors import ParaspanError

__all__ = ["train_verifier_cmd"]


def train_verifier_cmd(
    corpus: Annotated[Path, typer.Argument(help="The gold corpus to train on.")],
    out: Annotated[Path, typer.Option("--output", "-o", help="Folder for the verifier (head.npz, meta.json).")],
    fmt: FromFormat = None,
    dev: Annotated[Path | None, typer.Option("--dev", help="Dev sentences (same format) for the epoch and the "
                                             "thresholds; default: FrameNet's dev split with --splits, else a "
                                             "split of CORPUS by document (60/20/20, test held back).")] = None,
    frames: Annotated[Path | None, typer.Option("--frames", help="A FrameNet release: every frame's FEs and the "
                                                "LU lexicon (a trigger listed only under other frames is "
                                                "rejected).")] = None,
    split: Split = None,
    splits: Splits = None,
    exemplars: Exemplars = False,
    scheme: Scheme = None,
    trim_punct: TrimPunct = False,
    exemplar_every: Annotated[int, typer.Option(help="FrameNet: also train on 1 LU exemplar sentence in N of the "
                                                "release (0: none).")] = 0,
    max_per_label: Annotated[int, typer.Option(help="Gold spans kept per label and kind.")] = 150,
    none_rate: Annotated[float, typer.Option(help="Random non-span NOT_LABEL spans per gold span.")] = 0.25,
    shift_rate: Annotated[float, typer.Option(help="Shifted-boundary NOT_LABEL spans per gold span.")] = 0.25,
    epochs: Annotated[int, typer.Option(help="Passes over the training spans (best dev epoch kept).")] = 15,
    hidden: Annotated[int, typer.Option(help="Hidden units of the head.")] = 256,
    coverage: Annotated[float, typer.Option(help="Share of gold dev spans each kind's threshold accepts.")] = 0.95,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    cache: Annotated[Path | None, typer.Option(help="Folder to cache encoder features in (default: a per-user "
                                               "folder in the paraspan cache).")] = None,
    threads: Annotated[int, typer.Option(help="torch CPU threads.")] = 1,
    limit: Limit = None,
) -> None:
    """Train one span-label verifier for every span kind of CORPUS (triggers, FEs, SRL roles, entities).

    Frozen MiniLM features, an MLP head over the corpus's labels + NOT_LABEL, per-kind thresholds
    calibrated on dev so that 95% of gold spans pass. Use it as the `labels` filter with the option
    `verifier: OUT` (in a run config: `{name: labels, verifier: OUT}`); `--filter labels` picks a shipped one.
    """
    from itertools import islice

    from paraspan.corpus.formats import read_corpus
    from paraspan.filter.verifier_train import VerifierRecipe, document_split, train_verifier

    if not corpus.exists():
        raise ParaspanError.from_code("E010", file=str(corpus), what="corpus", fix="check the path")
    err = console()
    form = input_format(corpus, fmt)
    options = _reader_options(split=split, splits=splits, exemplars=exemplars, scheme=scheme, trim_punct=trim_punct)
    train = list(islice(read_corpus(corpus, form, **options), limit))
    data: dict[str, Any] = {"corpus": corpus.name, "format": form,
                            "options": {k: (v.name if isinstance(v, Path) else v) for k, v in options.items()},
                            "train_sentences": len(train)}
    if exemplar_every > 0:
        sample = [s for s in read_corpus(corpus, form, exemplars=True)
                  if zlib.crc32(s.id.encode("utf-8")) % exemplar_every == 0]
        err.print(f"exemplars: {len(sample):,} sentences (1 in {exemplar_every} by crc32 of the id)")
        train += sample
        data["exemplar_sentences"] = len(sample)
        data["exemplar_rule"] = f"crc32(sentence id) % {exemplar_every} == 0"
    if dev is not None:
        dev_options = {k: v for k, v in options.items() if k != "split"}
        dev_sentences = list(read_corpus(dev, input_format(dev, fmt or form), **dev_options))
        data["dev"] = dev.name
    elif form == "framenet" and splits is not None:
        dev_sentences = list(read_corpus(corpus, form, split="dev", splits=splits))
        data["dev"] = "the release's full-text dev documents"
    else:
        parts = document_split(train)
        train, dev_sentences = parts["train"], parts["dev"]
        data["dev"] = ("split by document: crc32(document id) % 10 in 0-5 train, 6-7 dev, 8-9 test (held back); "
                       "document id = sentence id without its last -NNNN part; one document: by sentence id")
        data["train_sentences"] = len(train)
        data["held_back_test_sentences"] = len(parts["test"])
    data["dev_sentences"] = len(dev_sentences)
    err.print(f"train: {len(train):,} sentences; dev: {len(dev_sentences):,} sentences ({data['dev']})")
    index = None
    if frames is not None:
        from paraspan.corpus.frame_index import FrameIndex

        index = FrameIndex.load(frames)
        data["frames"] = frames.name
    recipe = VerifierRecipe(max_per_label=max_per_label, none_rate=none_rate, shift_rate=shift_rate, epochs=epochs,
                            hidden=hidden, coverage=coverage, seed=seed)
    cache_dir = cache if cache is not None else feature_cache("verifier")
    use_threads(threads)
    report = train_verifier(train, dev_sentences, out, recipe, frames=index, description=data, cache_dir=cache_dir,
                            log=err.print)
    err.print(f"trained on {report.train_spans:,} spans ({report.kinds}) in {report.seconds:.0f}s, best epoch "
              f"{report.best_epoch}; thresholds {report.thresholds}; wrote {report.path}")
    for kind, scores in report.dev.items():
        err.print(f"  dev {kind}: gold accepted {scores['gold_accepted']:.1%}, wrong label rejected "
                  f"{scores['wrong_label_rejected']:.1%}, bad spans rejected {scores['bad_span_rejected']}")
