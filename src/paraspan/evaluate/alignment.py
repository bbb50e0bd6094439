"""``paraspan evaluate alignment``: read prediction files and show the span-alignment scores.

The scoring itself (and how tasks count) is :mod:`paraspan.align.scoring`; it lives in ``align``
because training the aligner scores with it, so imports flow one way: evaluate → align.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from paraspan.align.scoring import SUBSETS, AlignmentEvaluator, Counts, is_identical
from paraspan.errors import CorpusError

__all__ = ["SUBSETS", "AlignmentEvaluator", "Counts", "format_table", "is_identical", "read_predictions"]


def read_predictions(path: str | Path) -> list[dict[str, Any]]:
    """Prediction records from ``paraspan align`` output; each needs ``gold`` and ``pred``."""
    from paraspan.align.tasks import iter_task_lines

    name = str(path)
    records: list[dict[str, Any]] = []
    for line in iter_task_lines(path):
        data = line.data
        for key in ("gold", "pred"):
            if key not in data:
                if key == "gold":
                    raise CorpusError.from_code("E610", file=name, line=line.line)
                raise CorpusError.from_code("E612", file=name, line=line.line)
        pred = data["pred"]
        if pred is not None:
            ok = (isinstance(pred, list) and len(pred) == 2 and all(isinstance(v, int) for v in pred)
                  and 0 <= pred[0] < pred[1] <= len(line.task.target))
            if not ok:
                raise CorpusError.from_code("E611", file=name, line=line.line, dumps=json.dumps(pred)[:40])
        records.append({"source": line.task.source, "target": line.task.target,
                        "source_span": list(line.task.source_span),
                        "gold": list(line.task.gold) if line.task.gold is not None else None, "pred": pred})
    return records


def format_table(scores: Mapping[str, float], title: str = "") -> Any:
    """A rich table of the scores: one row per subset."""
    from rich.table import Table

    table = Table(title=title or None)
    for col in ("subset", "tasks", "exact P", "exact R", "exact F1", "soft P", "soft R", "soft F1",
                "gold null", "null acc."):
        table.add_column(col, justify="left" if col == "subset" else "right")
    for name in SUBSETS:
        table.add_row(
            name.replace("_", "-"), f"{int(scores[f'{name}_tasks']):,}",
            *(f"{scores[f'{name}_{kind}_{m}']:.1f}" for kind in ("exact", "soft")
              for m in ("precision", "recall", "f1")),
            f"{int(scores[f'{name}_gold_null']):,}",
            f"{scores[f'{name}_null_accuracy']:.1f}" if scores[f"{name}_gold_null"] else "–",
        )
    return table
