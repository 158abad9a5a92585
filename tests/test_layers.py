"""The import graph, read from the sources: each layer imports only itself and the layers below it, neither the
packages nor the modules form a cycle (a function-level import counts: it only hides the cycle until the function
runs), and neither the lesson layer (what the scenes and the orchestration both need) nor the
speech layer (the narration's voice) loads Manim, PyAV or cairo. Every layer under the orchestration is in the
outputs' code fingerprint."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lecture.render.runner import CODE_DIRS  # the folders the outputs' code fingerprint hashes

ROOT = Path(__file__).resolve().parent.parent
# Bottom to top; bench and render.py sit together on top of the orchestration.
LAYERS = (("attn_math",), ("sonify",), ("lesson",), ("speech",), ("scenes",), ("lecture",), ("bench", "render"))
RANK = {package: rank for rank, packages in enumerate(LAYERS) for package in packages}
HEAVY = ("manim", "av", "cairo")


def sources(package: str) -> list[Path]:
    """The package's .py files (render.py is a package of one module)."""
    single = ROOT / f"{package}.py"
    return [single] if single.is_file() else sorted((ROOT / package).rglob("*.py"))


def imported_packages(path: Path) -> set[str]:
    """Our packages a file imports anywhere in it, function-level imports included."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return {name.split(".")[0] for name in names} & RANK.keys()


def import_edges() -> list[tuple[str, str, str]]:
    """(file, its package, an imported package of ours) for every file of every layer."""
    return [(str(path.relative_to(ROOT)), package, imported)
            for package in RANK for path in sources(package) for imported in sorted(imported_packages(path))]


def test_every_layer_exists():
    assert all(sources(package) for package in RANK), [package for package in RANK if not sources(package)]


def test_no_import_from_a_lower_layer_to_a_higher_one():
    upward = [f"{path} imports {imported}" for path, package, imported in import_edges()
              if RANK[imported] > RANK[package]]
    assert not upward, "\n".join(upward)


def test_no_cycle_between_packages():
    graph: dict[str, set[str]] = {package: set() for package in RANK}
    for _, package, imported in import_edges():
        if imported != package:
            graph[package].add(imported)
    assert not find_cycle(graph), " -> ".join(find_cycle(graph))


def module_graph(root: Path) -> dict[str, set[str]]:
    """Each module of our packages under ``root`` and the modules of ours it imports anywhere in it (relative and
    function-level imports included; ``from package import name`` is the module ``package.name`` when there is
    one, else ``package``)."""
    modules = {}
    for package in RANK:
        for path in [root / f"{package}.py"] if (root / f"{package}.py").is_file() else sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return {module: {imported for imported in imported_modules(module, path, modules) if imported != module}
            for module, path in modules.items()}


def imported_modules(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ``modules`` that ``module`` (the file ``path``) imports."""
    def ours(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(ours(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
            base = ".".join([*package[:len(package) - node.level + 1], *filter(None, [node.module])]) \
                if node.level else node.module
            found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else ours(base)
                         for alias in node.names)
    return found - {None}


def test_no_cycle_between_modules():
    graph = module_graph(ROOT)
    assert len(graph) > 100, "the test would be empty if it lost the modules"
    assert not find_cycle(graph), " -> ".join(find_cycle(graph))


def test_a_cycle_hidden_in_a_function_level_import_is_found(tmp_path):
    """The check itself, on a copy of the lesson layer with the cycle this test was written for planted back."""
    shutil.copytree(ROOT / "lesson", tmp_path / "lesson")
    hints = tmp_path / "lesson" / "config_hints.py"
    hints.write_text(hints.read_text(encoding="utf-8") + "\n\ndef planted():\n    from lesson.sections import BY_ID\n",
                     encoding="utf-8")
    cycle = find_cycle(module_graph(tmp_path))
    assert "lesson.config_hints" in cycle and "lesson.sections" in cycle, cycle


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as the packages along it (first repeated at the end), or [] when there is none."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str]:
        if node in path:
            return path[path.index(node):] + [node]
        if node in done:
            return []
        for following in sorted(graph[node]):
            if cycle := visit(following, path + [node]):
                return cycle
        done.add(node)
        return []

    return next((cycle for node in sorted(graph) if (cycle := visit(node, []))), [])


@pytest.mark.parametrize("layer", ["lesson", "speech"])
def test_the_layer_loads_no_manim_pyav_or_cairo(layer):
    modules = [f"{layer}.{path.stem}" for path in sources(layer) if path.stem != "__init__"]
    assert modules
    probe = (f"import sys, {', '.join(modules)}\n"
             f"print(' '.join(sorted(name for name in sys.modules if name.split('.')[0] in {HEAVY!r})))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [], f"the {layer} layer loads {result.stdout.strip()}"


def test_a_change_in_any_layer_below_the_orchestration_makes_outputs_stale():
    rendered_from = {package for package in RANK if RANK[package] < RANK["bench"]}
    assert rendered_from <= set(CODE_DIRS), sorted(rendered_from - set(CODE_DIRS))
