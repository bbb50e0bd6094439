"""Benchmark: how plainly the house is kept (issue 65), at two commits side by side.

For each commit (checked out into a temporary folder with ``git archive``) it measures:

* lines per module of ``src/paraspan`` (the longest, and how many are over 600);
* functions over 80 lines (signature, docstring and body), inside the CLI glue (``src/paraspan/cli``)
  and outside it;
* the pairs of places that repeat six or more lines, from the ``duplicates`` command where it is
  installed (``null`` where it is not);
* ``README.md``'s length in lines and its longest line.

The side doors are not counted here: ``tests/test_architecture.py`` fails on any.

    python benchmarks/house.py --before ee2e2e3 --after HEAD     # → results/house.json
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODULE_LIMIT = 600
FUNCTION_LIMIT = 80


def checkout(rev: str, into: Path) -> str:
    """The tree of ``rev`` written under ``into``; its full hash."""
    full = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    archive = subprocess.run(["git", "archive", full.strip()], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return full.strip()


def long_functions(tree: Path) -> dict[str, list[dict[str, Any]]]:
    """Functions of ``src/paraspan`` over :data:`FUNCTION_LIMIT` lines, split into ``cli`` and ``library``."""
    out: dict[str, list[dict[str, Any]]] = {"cli": [], "library": []}
    src = tree / "src" / "paraspan"
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > FUNCTION_LIMIT:
                    where = "cli" if path.parent.name == "cli" else "library"
                    out[where].append({"function": f"{path.relative_to(src)}:{node.name}", "lines": lines})
    return out


def modules(tree: Path) -> dict[str, Any]:
    sizes = {str(p.relative_to(tree / "src" / "paraspan")): len(p.read_text(encoding="utf-8").splitlines())
             for p in (tree / "src" / "paraspan").rglob("*.py")}
    longest = max(sizes, key=sizes.__getitem__)
    return {"count": len(sizes), "longest": longest, "longest_lines": sizes[longest],
            "over_limit": sorted(k for k, v in sizes.items() if v > MODULE_LIMIT)}


def duplicate_pairs(tree: Path) -> int | None:
    """Pairs of places sharing six or more lines under ``src`` (the ``duplicates`` command), or None."""
    if shutil.which("duplicates") is None:
        return None
    proc = subprocess.run(["duplicates", "--repo", str(tree / "src"), "--seconds", "120"], capture_output=True,
                          text=True, check=False)
    found = re.match(r"(\d+) pairs", proc.stdout) or re.match(r"no duplicates", proc.stdout)
    return int(found.group(1)) if found and found.groups() else 0 if found else None


def readme(tree: Path) -> dict[str, int]:
    lines = (tree / "README.md").read_text(encoding="utf-8").splitlines()
    return {"lines": len(lines), "longest_line": max(map(len, lines))}


def measure(rev: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        full = checkout(rev, tree)
        functions = long_functions(tree)
        return {"commit": full[:10], "modules": modules(tree),
                "functions_over_80": {k: len(v) for k, v in functions.items()},
                "long_functions": functions, "duplicate_pairs": duplicate_pairs(tree), "readme": readme(tree)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="ee2e2e3")
    parser.add_argument("--after", default="HEAD")
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results" / "house.json")
    args = parser.parse_args()
    report = {"date": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(), "machine": machine(),
              "before": measure(args.before), "after": measure(args.after)}
    args.output.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    for side in ("before", "after"):
        r = report[side]
        print(f"{side:6s} {r['commit']}: {r['modules']['count']} modules, longest {r['modules']['longest']} "
              f"({r['modules']['longest_lines']}), {len(r['modules']['over_limit'])} over {MODULE_LIMIT}; functions "
              f"over {FUNCTION_LIMIT}: {r['functions_over_80']['library']} outside the CLI, "
              f"{r['functions_over_80']['cli']} in it; duplicate pairs {r['duplicate_pairs']}; README "
              f"{r['readme']['lines']} lines, longest {r['readme']['longest_line']}")


if __name__ == "__main__":
    main()
