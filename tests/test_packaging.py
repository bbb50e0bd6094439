"""Packaging hygiene: every third-party import in src/paraspan is declared, and the licence is shipped.

Reads the source with ``ast`` (nothing is imported) and pyproject.toml with ``tomllib``; no network.
"""

from __future__ import annotations

import ast
import hashlib
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the project's venv is 3.11
    tomllib = pytest.importorskip("tomli")

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "paraspan"

# Extras for an optional feature may satisfy an import of that feature; `dev` (test tools) may not.
FEATURE_EXTRAS = ("models", "ray", "review", "hf")

# Modules that import an optional extra at module level on purpose: each is imported only by the
# command that needs the extra (review/app.py: FastAPI resolves annotations in the module's namespace).
MODULE_LEVEL_OPTIONAL = {"review/app.py": {"fastapi"}}

# sha256 of https://www.apache.org/licenses/LICENSE-2.0.txt (LF line endings)
APACHE_2_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"


@dataclass(frozen=True)
class Import:
    module: str  # the top-level name, e.g. "sklearn" for `from sklearn.svm import LinearSVC`
    where: str  # path:line, relative to src/paraspan
    runtime_module_level: bool  # runs when the module is imported (not in a function, not TYPE_CHECKING)


def normalise(name: str) -> str:
    """PEP 503 name normalisation."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, f"cannot read a distribution name from {requirement!r}"
    return normalise(match.group(1))


@cache
def pyproject() -> dict:
    with (REPO / "pyproject.toml").open("rb") as fh:
        return tomllib.load(fh)


def declared(groups: tuple[str, ...]) -> dict[str, str]:
    """Normalised distribution name → where it is declared ('dependencies' or 'extra NAME')."""
    project = pyproject()["project"]
    out = {requirement_name(r): "dependencies" for r in project.get("dependencies", [])}
    for extra in groups:
        for r in project.get("optional-dependencies", {}).get(extra, []):
            out.setdefault(requirement_name(r), f"extra {extra!r}")
    return out


class _ImportCollector(ast.NodeVisitor):
    def __init__(self, where: str) -> None:
        self.where = where
        self.deferred = 0  # depth inside functions and `if TYPE_CHECKING:` blocks
        self.found: list[Import] = []

    def _add(self, name: str, node: ast.stmt) -> None:
        top = name.split(".")[0]
        if top == "paraspan" or top in sys.stdlib_module_names:
            return
        self.found.append(Import(top, f"{self.where}:{node.lineno}", self.deferred == 0))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:  # relative imports are the package's own
            self._add(node.module, node)

    def _deferred(self, node: ast.AST) -> None:
        self.deferred += 1
        self.generic_visit(node)
        self.deferred -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _deferred

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" in ast.unparse(node.test):
            self.deferred += 1
            for child in node.body:
                self.visit(child)
            self.deferred -= 1
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)


def third_party_imports() -> Iterator[Import]:
    files = sorted(PACKAGE.rglob("*.py"))
    assert files, f"no source under {PACKAGE}"
    for path in files:
        rel = path.relative_to(PACKAGE).as_posix()
        collector = _ImportCollector(rel)
        collector.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        yield from collector.found


def distributions(module: str, installed: dict[str, list[str]]) -> set[str]:
    """The distributions that provide an import name; the name itself when none is installed (e.g. ray)."""
    return {normalise(d) for d in installed.get(module, [])} or {normalise(module)}


def test_every_third_party_import_is_declared() -> None:
    installed = packages_distributions()
    ok = declared(FEATURE_EXTRAS)
    missing: dict[str, list[str]] = {}
    for imp in third_party_imports():
        dists = distributions(imp.module, installed)
        if not dists & ok.keys():
            missing.setdefault(f"{imp.module} (distribution {' or '.join(sorted(dists))})", []).append(imp.where)
    assert not missing, "imported in src/paraspan but not declared in pyproject.toml's dependencies or extras " + \
        f"{FEATURE_EXTRAS}:\n" + "\n".join(f"  {k}: {', '.join(v[:5])}" for k, v in sorted(missing.items()))


def test_optional_extras_are_imported_lazily() -> None:
    """A package only an extra declares is imported inside the function that needs it, so the base install works."""
    installed = packages_distributions()
    base = declared(())
    problems = []
    for imp in third_party_imports():
        if not imp.runtime_module_level or distributions(imp.module, installed) & base.keys():
            continue
        if imp.module in MODULE_LEVEL_OPTIONAL.get(imp.where.rsplit(":", 1)[0], set()):
            continue
        problems.append(f"  {imp.where}: {imp.module}")
    assert not problems, "optional packages imported at module level (move the import into the function, " + \
        "with a ParaspanError saying which extra to install):\n" + "\n".join(problems)


def test_collector_sees_nested_and_deferred_imports(tmp_path: Path) -> None:
    source = (
        "from __future__ import annotations\nimport os, numpy.linalg as la\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import spacy\nfrom . import sibling\nfrom paraspan.errors import ParaspanError\n"
        "def f():\n    from scipy import stats\n    import llama_cpp\n"
    )
    collector = _ImportCollector("x.py")
    collector.visit(ast.parse(source))
    assert [(i.module, i.runtime_module_level) for i in collector.found] == [
        ("numpy", True), ("spacy", False), ("scipy", False), ("llama_cpp", False)]


def test_licence_file_is_the_declared_apache_2() -> None:
    project = pyproject()["project"]
    assert project.get("license") == "Apache-2.0", "pyproject's `license` should be the SPDX expression Apache-2.0"
    assert "LICENSE" in project.get("license-files", []), "pyproject's `license-files` should list LICENSE"
    path = REPO / "LICENSE"
    assert path.is_file(), "LICENSE is missing at the repository root"
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    assert lines[:3] == ["Apache License", "Version 2.0, January 2004", "http://www.apache.org/licenses/"]
    assert "END OF TERMS AND CONDITIONS" in text
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == APACHE_2_SHA256, \
        "LICENSE differs from the verbatim Apache License 2.0 text"
