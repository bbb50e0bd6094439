"""The error catalogue: every code defined once, every raised code in it, every raise site fills its templates."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from paraspan.errors import (
    CATALOGUE,
    CorpusError,
    ModelError,
    ParaspanError,
    Problem,
    catalogue_markdown,
    format_code,
)

SRC = Path(__file__).resolve().parents[1] / "src" / "paraspan"
ERRORS_PY = SRC / "errors.py"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "errors.md"
CODE = re.compile(r"\bE\d{3}\b")
#: Fields that a module's raise helper adds itself (corpus/schema.py's ``bad`` adds ``where``).
HELPER_FIELDS = {"bad": {"where"}}


def _catalogue_dict() -> ast.Dict:
    tree = ast.parse(ERRORS_PY.read_text(encoding="utf-8"))
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else (
            node.targets[0] if isinstance(node, ast.Assign) else None)
        if isinstance(target, ast.Name) and target.id == "CATALOGUE":
            assert isinstance(node.value, ast.Dict)
            return node.value
    raise AssertionError("errors.py has no CATALOGUE literal")


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in sorted(SRC.rglob("*.py"))]


def test_catalogue_literal_has_no_duplicate_code() -> None:
    keys = [k.value for k in _catalogue_dict().keys if isinstance(k, ast.Constant)]
    dups = sorted({k for k in keys if keys.count(k) > 1})
    assert not dups, f"codes defined twice in errors.py: {dups}"
    assert len(keys) == len(CATALOGUE)


def test_names_are_unique_snake_case() -> None:
    names = [spec.name for spec in CATALOGUE.values()]
    dups = sorted({n for n in names if names.count(n) > 1})
    assert not dups, f"error names used for two codes: {dups}"
    bad = [n for n in names if not re.fullmatch(r"[a-z][a-z0-9_]*", n)]
    assert not bad


def test_every_code_in_the_source_is_in_the_catalogue() -> None:
    missing: dict[str, list[str]] = {}
    for path, tree in _sources():
        if path == ERRORS_PY:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for code in CODE.findall(node.value):
                    if code not in CATALOGUE:
                        missing.setdefault(code, []).append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not missing, f"codes used but not in paraspan.errors.CATALOGUE: {missing}"


def _calls_with_literal_code(tree: ast.Module):
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        first = node.args[0]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str) and CODE.fullmatch(first.value)):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name == "from_code" or name in HELPER_FIELDS:
            yield node, name, first.value


def test_from_code_calls_give_every_template_field() -> None:
    checked = 0
    problems = []
    for path, tree in _sources():
        for node, name, code in _calls_with_literal_code(tree):
            assert code in CATALOGUE, f"{path.relative_to(SRC)}:{node.lineno}: unknown code {code}"
            if any(k.arg is None for k in node.keywords):  # **fields: cannot check statically
                continue
            given = {k.arg for k in node.keywords} | HELPER_FIELDS.get(name, set())
            lacking = CATALOGUE[code].fields() - given
            if lacking:
                problems.append(f"{path.relative_to(SRC)}:{node.lineno}: {code} lacks {sorted(lacking)}")
            checked += 1
    assert not problems, "\n".join(problems)
    assert checked > 100  # the raise sites really are found


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_every_entry_formats(code: str) -> None:
    spec = CATALOGUE[code]
    message, fix = spec.format({name: 1 for name in spec.fields()})
    assert message


def test_from_code_fills_the_templates() -> None:
    err = ModelError.from_code("E300", kind="gpu", choices="llm, nli")
    assert isinstance(err, ModelError) and err.code == "E300"
    assert err.problem.message == "unknown model kind 'gpu'" and err.problem.hint == "choose one of: llm, nli"
    err2 = CorpusError.from_code("E010", file="x.jsonl", line=3, what="file", fix="check the path")
    assert str(err2) == "x.jsonl:3: no such file — check the path"
    problem = Problem.from_code("E131", "x.jsonl", 2, where="structures[0]", span_start=3, span_end=3)
    assert str(problem) == "x.jsonl:2: structures[0]: empty span [3, 3) — end must be greater than start (end is exclusive)"
    assert format_code("E724", links="1-x") == ("bad alignment link in '1-x'", "links are i-j token indices")


def test_unknown_code_or_missing_field_is_a_bug_not_user_input() -> None:
    with pytest.raises(KeyError):
        ParaspanError.from_code("E999")
    with pytest.raises(KeyError):
        ParaspanError.from_code("E300", kind="gpu")  # no choices
    with pytest.raises(KeyError):
        Problem.from_code("E999")
    assert not issubclass(KeyError, ParaspanError)


def test_old_constructor_still_works() -> None:
    err = ParaspanError("boom", "do this", code="E000", file="f", line=1)
    assert str(err) == "f:1: boom — do this" and err.code == "E000"


def test_max_length_cuts_a_quoted_library_error() -> None:
    err = ModelError.from_code("E621", path="head.npz", exc="x" * 1000)
    assert len(err.problem.message) == 300


def test_cli_prints_file_line_message_fix_and_code(tmp_path: Path) -> None:
    good = {"id": "a", "text": "Anna.", "structures": [], "meta": {}}
    src = tmp_path / "bad.jsonl"
    src.write_text(json.dumps(good) + "\n" + '{"id": "b", "text": "x", "structures": [{"kind": "nope", "label": "L"}]}\n')
    proc = subprocess.run([sys.executable, "-m", "paraspan.cli.main", "convert", str(src), "-o", str(tmp_path / "o.jsonl")],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "[E122]" in proc.stderr
    assert (f"{src}:2: structures[0]: unknown kind 'nope' — use one of: entity, event, frame, srl"
            in " ".join(proc.stderr.split()).replace(f"{src}:2: ", f"{src}:2: "))
    assert "Traceback" not in proc.stderr


def test_docs_errors_md_is_up_to_date() -> None:
    assert DOCS.read_text(encoding="utf-8") == catalogue_markdown(), (
        "regenerate it: python -c 'from paraspan.errors import catalogue_markdown as m; "
        "open(\"docs/errors.md\", \"w\").write(m())'")


def test_no_template_field_shadows_a_from_code_keyword() -> None:
    # a field named like from_code's own keywords would be taken by the keyword (E382 once had {code})
    reserved = {"code", "file", "line", "problems", "cls"}
    clashes = {code: sorted(set(entry.fields()) & reserved) for code, entry in CATALOGUE.items()
               if set(entry.fields()) & reserved}
    assert not clashes
