"""Imports flow one way: no cycle between paraspan's modules, nor between its subpackages.

Read with ``ast`` from the source, so imports inside functions (the lazy ones) count as much as
module-level ones: a lazy import hides a cycle from Python at import time, not from a reader.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

import paraspan

ROOT = Path(paraspan.__file__).parent


def _modules() -> dict[str, Path]:
    """Dotted name → file, for every module of the package (a package is its ``__init__``)."""
    out: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _absolute(module: str | None, level: int, current: str, is_package: bool) -> str:
    if not level:
        return module or ""
    parts = current.split(".")
    # In a package's __init__, `.` is the package itself; in a module, its parent package.
    base = parts[: len(parts) - level + 1] if is_package else parts[:-level]
    return ".".join(base + ([module] if module else []))


def _imported(name: str, modules: dict[str, Path], tree: ast.AST, is_package: bool) -> Iterator[str]:
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, name, is_package)
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for target in targets:
            # `from paraspan.x import f`: f is not a module; the nearest enclosing module is.
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def import_graph() -> dict[str, set[str]]:
    """Module → the paraspan modules it imports (anywhere in its body)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[name] = set(_imported(name, modules, tree, path.name == "__init__.py"))
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _subpackage(module: str) -> str:
    """``paraspan.align.train`` → ``paraspan.align``; a top-level module is its own unit."""
    return ".".join(module.split(".")[:2])


def _explain(graph: dict[str, set[str]], members: list[str], unit: Callable[[str], str] = str) -> str:
    """The cycle's members and the module imports that make it."""
    inside = set(members)
    edges = [f"{a} -> {b}" for a in sorted(graph) for b in sorted(graph[a])
             if unit(a) in inside and unit(b) in inside and unit(a) != unit(b)]
    return " / ".join(members) + ":\n    " + "\n    ".join(edges)


def test_no_import_cycle_between_modules() -> None:
    graph = import_graph()
    cycles = _cycles(graph)
    assert not cycles, "import cycles between modules:\n" + "\n".join(_explain(graph, c) for c in cycles)


def test_no_import_cycle_between_subpackages() -> None:
    graph = import_graph()
    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        for target in targets:
            a, b = _subpackage(module), _subpackage(target)
            # paraspan/__init__ (the root) is left out: every module lies inside it.
            if a != b and "paraspan" not in (a, b):
                packages.setdefault(a, set()).add(b)
    cycles = _cycles(packages)
    assert not cycles, "import cycles between subpackages:\n" + "\n".join(
        _explain(graph, c, _subpackage) for c in cycles)


def test_the_graph_sees_function_level_and_relative_imports() -> None:
    # The checks above are only as good as the graph: it must see the lazy imports.
    graph = import_graph()
    assert "paraspan.align.scoring" in graph["paraspan.align.train"]  # imported inside a function
    assert any(t.startswith("paraspan.corpus") for t in graph["paraspan.cli.main"])
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# -- library hygiene and contracts without side doors (issue 65) --

#: Modules other engineers are still reworking, exempt until they land (each named with why).
PENDING = {
    "paraspan/llm/hf_backend/backend.py",  # sets torch threads for its own model: llm/ is being reworked
}


def _sources(skip: Callable[[str], bool] = lambda _: False) -> Iterator[tuple[str, ast.AST]]:
    """``(path relative to src/, parsed module)`` of every library module, ``skip``ped ones left out."""
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).as_posix()
        if not skip(rel):
            yield rel, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _calls(tree: ast.AST, attr: str) -> list[int]:
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute) and node.func.attr == attr]


def test_threads_are_set_by_the_command_line_or_a_worker_only() -> None:
    """torch's thread count is process-wide: the CLI sets it from --threads (cli/common.use_threads), a
    worker process from its run's config; a library function or a filter's constructor never does."""
    allowed = {"paraspan/cli/common.py", "paraspan/pipeline/executors.py", *PENDING}
    found = [f"{rel}:{line}" for rel, tree in _sources(lambda r: r in allowed) for line in _calls(tree, "set_num_threads")]
    assert not found, "torch.set_num_threads outside the CLI and the worker start-up: " + ", ".join(found)


def test_library_code_changes_no_environment_and_names_no_shared_temp_folder() -> None:
    """No os.environ writes (``local_files_only`` keeps the hub away), no network probe (a judge asks its
    local cache first), and no fixed name under the shared temp folder (per-user caches:
    cli/common.feature_cache; throw-away folders: tempfile.mkdtemp)."""
    found = []
    for rel, tree in _sources():
        for node in ast.walk(tree):
            target = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else None
            if (isinstance(target, ast.Attribute) and target.attr == "environ"
                    and node.func.attr in ("update", "pop", "setdefault", "clear", "__setitem__")):  # type: ignore[union-attr]
                found.append(f"{rel}:{node.lineno} os.environ.{node.func.attr}")  # type: ignore[union-attr]
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute) and t.value.attr == "environ":
                        found.append(f"{rel}:{node.lineno} os.environ[...]")
        found += [f"{rel}:{line} tempfile.gettempdir()" for line in _calls(tree, "gettempdir")]
        found += [f"{rel}:{line} socket.create_connection()" for line in _calls(tree, "create_connection")]
    assert not found, "process state changed from library code: " + ", ".join(found)


def test_no_hook_is_glued_onto_a_function_nor_read_back_by_name() -> None:
    """What a component offers is declared: methods of a protocol (BatchGenerator, StagedGenerator), a
    GeneratorFactory's methods, a filter's traits, never ``factory.code_versions = …`` read back with
    getattr/hasattr."""
    hooks = {"code_versions", "reads_corpus", "check_options", "relation", "stages", "generate_batch", "decide_batch",
             "parts", "unjudged_rules"}
    found = []
    for rel, tree in _sources():
        functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}  # type: ignore[attr-defined]
        for node in tree.body:  # type: ignore[attr-defined]
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in functions:
                        found.append(f"{rel}:{node.lineno} {t.value.id}.{t.attr} = …")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value in hooks):
                found.append(f"{rel}:{node.lineno} {node.func.id}(…, {node.args[1].value!r})")
    assert not found, "hooks glued on or read by name: " + ", ".join(found)


def test_the_loop_tests_no_filter_or_generator_class() -> None:
    """The pipeline reads declared traits (paraspan.filter.base.reads_checks/records_check), not classes."""
    concrete = {"LearnedFilter", "ThresholdFilter", "AllOf", "Cascade", "Rewriter", "Paraphraser", "Elaborator"}
    found = []
    for rel, tree in _sources(lambda r: not r.startswith("paraspan/pipeline/")):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
                names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)} if len(node.args) > 1 else set()
                found += [f"{rel}:{node.lineno} isinstance(…, {n})" for n in sorted(names & concrete)]
    assert not found, "class tests in the pipeline: " + ", ".join(found)


def test_no_assert_guards_behaviour_in_library_code() -> None:
    """``python -O`` drops asserts: a real check raises from the error catalogue, a type narrowing is a
    ``cast``. Modules others are reworking are listed in ASSERTS_PENDING until they land."""
    found = [f"{rel}:{node.lineno}" for rel, tree in _sources(lambda r: r in ASSERTS_PENDING)
             for node in ast.walk(tree) if isinstance(node, ast.Assert)]
    assert not found, "asserts in library code: " + ", ".join(found)


#: Modules with asserts that their owners are reworking now (corpus readers, the LLM backends, infilling,
#: the model resolver); remove each once it is done.
ASSERTS_PENDING = {
    "paraspan/corpus/docbin.py", "paraspan/corpus/opensesame.py", "paraspan/corpus/schema.py",
    "paraspan/llm/hf_backend/backend.py", "paraspan/llm/llama_backend/backend.py", "paraspan/generate/infill/generator.py",
    "paraspan/models/resolve.py", "paraspan/cli/augment.py", "paraspan/generate/trained.py",
}


def test_the_mlp_head_is_written_once() -> None:
    """The numpy head (standardise, ReLU layers) lives in paraspan.filter.mlp; its users call it."""
    found = [rel for rel, tree in _sources(lambda r: r == "paraspan/filter/mlp.py")
             if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "maximum"
                    and any(isinstance(a, ast.Constant) and a.value == 0.0 for a in n.args) for n in ast.walk(tree))
             and rel.startswith("paraspan/filter/")]
    assert not found, "a ReLU head outside paraspan.filter.mlp: " + ", ".join(found)


def test_what_a_generator_says_is_read_through_one_typed_model() -> None:
    """``provenance["generated"]`` is read through paraspan.provenance.Generated, not by key here and there."""
    found = []
    for rel, tree in _sources(lambda r: r == "paraspan/provenance.py"):
        for node in ast.walk(tree):
            key = None
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                key = node.slice.value
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                  and node.args and isinstance(node.args[0], ast.Constant)):
                key = node.args[0].value
            if key == "generated":
                found.append(f"{rel}:{node.lineno}")
    assert not found, "provenance['generated'] read by key: " + ", ".join(found)


def _generator_homes() -> dict[str, set[str]]:
    """Each registered generator's name → the modules allowed to test it: its factory's module and the
    registry's (filter names are ordinary words, "content", "relation", "threshold": not checked so)."""
    from paraspan.generate.base import generators

    out: dict[str, set[str]] = {}
    for entry in generators.entries.values():
        module = str(entry.target).partition(":")[0] if isinstance(entry.target, str) else entry.target.__module__
        out[entry.name] = {"paraspan/generate/base.py", "paraspan/registry.py", module.replace(".", "/") + ".py"}
    # a version-1 run config's flat keys were the paraphrase generator's: a migration of stored data
    out["paraphrase"].add("paraspan/pipeline/config.py")
    return out


def test_no_generator_name_is_tested_outside_its_module_and_registry() -> None:
    """What a generator is or offers is declared (a GeneratorFactory's relation, a protocol, a capability),
    not read off its name: ``name == "elaborate"`` outside elaborate.py is a side door."""
    allowed = _generator_homes()
    found = []
    for rel, tree in _sources():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            sides: list[ast.expr] = []
            for op, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, (ast.Eq, ast.NotEq)):
                    sides += [node.left, right]
                elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
                    sides += list(right.elts)
            for side in sides:
                name = side.value if isinstance(side, ast.Constant) else None
                if isinstance(name, str) and name in allowed and rel not in allowed[name]:
                    found.append(f"{rel}:{node.lineno} {name!r}")
    assert not found, "generator names tested outside their module and registry: " + ", ".join(found)


def test_spans_are_moved_by_the_projection_module_only() -> None:
    """Every way a span moves into a candidate (placement, a token mapping, an edit of the text) is a
    function of paraspan.generate.project; other modules call them."""
    movers = {"splice", "apply_edits", "project_mapping", "place"}
    found = [f"{rel}:{node.lineno} {node.name}" for rel, tree in _sources(lambda r: r == "paraspan/generate/project.py")
             for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name in movers]
    assert not found, "span movers outside paraspan.generate.project: " + ", ".join(found)


def test_torch_models_train_through_the_one_loop() -> None:
    """Every optimiser step of paraspan's own torch models is taken by paraspan.train.loop.Fit (LoRA
    training goes through transformers' Trainer): a ``.backward()`` elsewhere is a hand-written loop."""
    found = [f"{rel}:{node.lineno}" for rel, tree in _sources(lambda r: r == "paraspan/train/loop.py")
             for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward"]
    assert not found, "a training loop outside paraspan.train.loop: " + ", ".join(found)


#: the error catalogue is one list, read as a whole
_LONG_MODULES = {"paraspan/errors.py"}


def test_no_module_is_over_600_lines() -> None:
    """A module over 600 lines is split into cohesive ones (a package re-exports the old names)."""
    found = [f"{path.relative_to(ROOT.parent).as_posix()} ({n})" for path in sorted(ROOT.rglob("*.py"))
             if path.relative_to(ROOT.parent).as_posix() not in _LONG_MODULES
             and (n := len(path.read_text(encoding="utf-8").splitlines())) > 600]
    assert not found, "modules over 600 lines: " + ", ".join(found)


def test_no_function_outside_the_cli_is_over_80_lines() -> None:
    """A function over 80 lines (signature and docstring included) is split into helpers that each do one
    thing; the CLI's commands, which declare every option in their signature, are left out."""
    found = [f"{rel}:{node.lineno} {node.name} ({n})"
             for rel, tree in _sources(lambda r: r.startswith("paraspan/cli/")) for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and (n := (node.end_lineno or node.lineno) - node.lineno + 1) > 80]
    assert not found, "functions over 80 lines: " + ", ".join(found)


def test_what_a_generator_says_is_written_through_the_typed_model() -> None:
    """The keys other components read back from ``provenance["generated"]`` (rules, random_bans, replaced,
    keeps_anchor) are written by ``Generated(...).meta()``, never as free keys of a candidate's meta."""
    from paraspan.provenance import Generated

    def free(node: ast.AST | None) -> bool:
        return isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and k.value in Generated.KEYS
                                                  for k in node.keys)

    def is_meta(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "meta"

    found = []
    for rel, tree in _sources(lambda r: r == "paraspan/provenance.py"):
        for node in ast.walk(tree):
            bad = False
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                bad = any(kw.arg == "meta" and free(kw.value) for kw in node.keywords) or (
                    name == "Candidate" and len(node.args) >= 5 and free(node.args[4]))
            elif isinstance(node, ast.Assign):
                bad = any((is_meta(t) and free(node.value)) or (
                    isinstance(t, ast.Subscript) and is_meta(t.value) and isinstance(t.slice, ast.Constant)
                    and t.slice.value in Generated.KEYS) for t in node.targets)
            if bad:
                found.append(f"{rel}:{node.lineno}")
    assert not found, "free provenance keys written: " + ", ".join(found)
