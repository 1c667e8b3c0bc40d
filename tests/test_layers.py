"""The layering of the package: every import points down, no circle, one installed name.

Every module's imports are read with `ast` (module level and inside functions; an
`if TYPE_CHECKING:` block is skipped, since it never runs) and each project import is
checked against `LAYERS`, the order docs/architecture.md explains: a module may import
its own layer and the layers before it, never one after it. Imports made by name at run
time (the registry's built-in adapters, `formats.load_document`'s syntax modules, the
package's lazy public names) are not import statements and are not seen here.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "fixture_migrate"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("contract", ("contract",)),
    ("errors and slots", ("errors", "slots", "patterns")),
    ("formats", ("formats",)),
    ("file primitives", ("files",)),
    # The import-adapter bases are still in importing/: adapters build on them.
    ("adapter bases", ("adapting", "importing.base", "importing.readers")),
    ("adapters", ("adapters",)),
    ("claiming", ("claiming",)),
    ("pipelines", ("migration", "importing", "exporting", "consumers")),
    ("configuration", ("config",)),
    ("public API", ("", "_api")),  # "" is the package's `__init__`
    ("clients", ("cli", "__main__", "pytest_plugin")),
]
"""The layers, lowest first: `(name, module prefixes under fixture_migrate)`. A module
belongs to the layer of its longest matching prefix ("" is the package itself)."""

SOURCES = {"migrate": PACKAGE, "adapters": f"{PACKAGE}.adapters"}
"""Source folder -> installed package name (pyproject's `package-dir`)."""


def module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = list(relative.parts)
    parts[0] = SOURCES[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> dict[str, Path]:
    files = {}
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            files[module_name(path)] = path
    return files


MODULES = source_files()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST):
    """Every node below `node`, skipping the bodies of `if TYPE_CHECKING:`."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _walk(other)
            continue
        yield child
        yield from _walk(child)


def imports_of(path: Path) -> list[tuple[int, str, int]]:
    """`(line, imported module, relative level)` of each import statement that runs."""
    found = []
    for node in _walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name, 0) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            for alias in node.names:
                # `from fixture_migrate.contract import rules` imports the module `rules`.
                candidate = f"{base}.{alias.name}" if base else alias.name
                found.append((node.lineno, candidate if candidate in MODULES else base, node.level))
    return found


def project_imports(name: str) -> list[tuple[int, str]]:
    return [
        (line, target)
        for line, target, level in imports_of(MODULES[name])
        if level == 0 and (target == PACKAGE or target.startswith(PACKAGE + "."))
    ]


def layer_of(module: str) -> int:
    relative = module[len(PACKAGE) + 1 :] if module != PACKAGE else ""
    best, best_length = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = relative == prefix or (prefix != "" and relative.startswith(prefix + "."))
            if matches and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS (and docs/architecture.md)"
    return best


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("folder", ["migrate", "adapters", "tests", "bench"])
def test_imports_go_through_the_installed_name(folder: str) -> None:
    bad = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for line, target, level in imports_of(path):
            top = target.split(".")[0]
            if top in SOURCES or (level and folder in SOURCES):
                bad.append(f"{path.relative_to(ROOT)}:{line}: {'.' * level}{target}")
    assert bad == [], "import through `fixture_migrate`, never `migrate`, `adapters` or relatively"


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = []
    for module in MODULES:
        own = layer_of(module)
        for line, target in project_imports(module):
            if target in MODULES and layer_of(target) > own:
                upward.append(
                    f"{module} ({LAYERS[own][0]}) line {line} imports {target} ({LAYERS[layer_of(target)][0]})"
                )
    assert upward == []


def test_no_import_cycle() -> None:
    graph = {module: {t for _, t in project_imports(module) if t in MODULES and t != module} for module in MODULES}
    # A TYPE_CHECKING import is still a dependency of the design: circles through them count too.
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom) and inner.module in MODULES and inner.module != module:
                        graph[module].add(inner.module)
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                cycles.append(stack[stack.index(target) :] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert cycles == []


def test_layering_checks_see_function_level_imports() -> None:
    found = {target for _, target in project_imports(f"{PACKAGE}.cli.commands")}
    assert f"{PACKAGE}.contract.readiness" in found  # imported inside a function only


def test_only_the_installed_name_is_importable(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        f"assert not any(p and __import__('os').path.abspath(p) == {str(ROOT)!r} for p in sys.path), sys.path\n"
        "for name in ('migrate', 'adapters'):\n"
        "    try:\n"
        "        __import__(name)\n"
        "    except ImportError:\n"
        "        pass\n"
        "    else:\n"
        "        raise SystemExit(f'{name} is importable')\n"
        "import fixture_migrate, fixture_migrate.adapters.canonical\n"
        "print(fixture_migrate.__version__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=_env())
    assert done.returncode == 0, done.stderr + done.stdout
    assert done.stdout.strip()


def _env() -> dict[str, str]:
    import os

    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PYTHONSAFEPATH"] = "1"
    return env


LONG = 550
"""A module this long (about 500 lines, with some slack) says at its top why it is, and how long."""

SIZE_TOLERANCE = 0.15
"""How far the size a module's docstring states ("Some 700 lines, ...") may be from its real
line count, as a share of the real count: a module may grow or shrink by about 80 lines of
700 before its note must be brought up to date, and a stale note fails."""

_STATED_SIZE = re.compile(r"\b[Ss]ome ([0-9][0-9,]*) lines\b")


def stated_size(docstring: str) -> int | None:
    """The line count a docstring states ("Some 1,030 lines" -> 1030), or None."""
    match = _STATED_SIZE.search(docstring)
    return int(match.group(1).replace(",", "")) if match else None


def size_note_problem(lines: int, docstring: str) -> str | None:
    """What is wrong with the size note of a module of `lines` lines, or None."""
    stated = stated_size(docstring)
    if stated is None:
        return f"{lines} lines, over {LONG}: say why at its top, as 'Some N lines, ...'" if lines > LONG else None
    if abs(stated - lines) > SIZE_TOLERANCE * lines:
        return f"{lines} lines, but its docstring says some {stated}"
    return None


@pytest.mark.parametrize(
    ("lines", "docstring", "problem"),
    [
        (400, "A short module.", False),
        (600, "A long module with no note.", True),
        (600, "(Some 520 lines, over the ~500 ...)", False),  # 13% off: within the tolerance
        (600, "(Some 500 lines, over the ~500 ...)", True),  # 17% off
        (1030, "(Some 610 lines, over the ~500 ...)", True),  # promptfoo's stale note
        (700, "(Some 650 lines, ...)", False),
        (700, "(At some 1,000 lines ...)", True),
        (300, "(Some 600 lines, ...)", True),  # a module that shrank keeps no stale note either
    ],
)
def test_the_size_note_rule(lines: int, docstring: str, problem: bool) -> None:
    assert (size_note_problem(lines, docstring) is not None) is problem


def test_long_modules_say_why_and_how_long() -> None:
    stale = []
    for path in MODULES.values():
        text = path.read_text(encoding="utf-8")
        problem = size_note_problem(text.count("\n"), ast.get_docstring(ast.parse(text)) or "")
        if problem:
            stale.append(f"{path.relative_to(ROOT)}: {problem}")
    assert stale == []


def test_the_pytest_plugin_uses_the_public_api_only() -> None:
    found = {target for _, target in project_imports(f"{PACKAGE}.pytest_plugin")}
    assert found == {PACKAGE}
    source = MODULES[f"{PACKAGE}.pytest_plugin"].read_text(encoding="utf-8")
    used = {
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == PACKAGE
    }
    import fixture_migrate

    assert used <= set(fixture_migrate.__all__)
