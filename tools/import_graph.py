"""The import graph of ``atccheck/``: its cycles, and every import that climbs the house.

    python tools/import_graph.py            # figures and every climb and cycle
    python tools/import_graph.py --json     # the same as JSON
    python tools/import_graph.py --check    # exit 1 when the house has a cycle or a climb

Every ``import`` and ``from ... import`` of an ``atccheck`` module is an edge, read from the
source (nothing is imported). An edge is one of three kinds:

- ``module``: run when the module is imported (the module body, a class body);
- ``lazy``: inside a function, run when the function is called;
- ``type``: under ``if TYPE_CHECKING:``, never run.

Importing ``a.b.c`` runs ``a.b/__init__`` first: that is an edge to ``a.b`` too. A package that
finds its modules by walking itself (``pkgutil.iter_modules``, the rule and pass registries)
has a lazy edge to each of them.

A cycle is a strongly connected set of modules over the ``module`` and ``lazy`` edges (the
import-time cycles, over ``module`` edges alone, are listed apart). A climb is a ``module`` or
``lazy`` edge that goes against :data:`LAYERS` or :data:`FORBIDDEN`:

- :data:`LAYERS` is the house, lowest floor first. A module may import its own floor and any
  floor below it, never one above.
- :data:`FORBIDDEN` are the walls inside a floor: rules, passes and the command lint sit side
  by side and never import one another (the catalogue's registry, ``atccheck.registry``, is a
  floor below them).

``from atccheck.pkg import name`` is an edge to ``atccheck.pkg.name`` when that is a module,
else to ``atccheck.pkg``. Type-only imports are listed in the figures but are never a climb.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "atccheck"

# The house, lowest floor first: (floor, module prefixes). The longest matching prefix places a
# module; a module no prefix matches is an error (a new module must be given its floor here).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("atccheck", "atccheck.errors", "atccheck.findings", "atccheck.domains", "atccheck.atc.shell",
              "atccheck.atc.textproto", "atccheck.file_kinds")),
    ("tables", ("atccheck.tables", "atccheck.target", "atccheck.atc.facts")),
    ("model", ("atccheck.model", "atccheck.fileio", "atccheck.numerics", "atccheck.atc.spec")),
    ("context", ("atccheck.context", "atccheck.lookup", "atccheck.report", "atccheck.fixlinks", "atccheck.fix_index",
                 "atccheck.registry", "atccheck.atc.command", "atccheck.atc.precheck",
                 "atccheck.atc.aipp", "atccheck.atc.aipp_command", "atccheck.atc.command_files",
                 "atccheck.atc.suggestion", "atccheck.precision")),
    ("checks", ("atccheck.rules", "atccheck.passes", "atccheck.atc.lint", "atccheck.atc")),
    ("engine", ("atccheck.engine", "atccheck.gears", "atccheck.catalogue")),
    ("pipeline", ("atccheck.fixing", "atccheck.precision.dtypes", "atccheck.precision.analysis",
                  "atccheck.precision.simulate", "atccheck.precision.preflight")),
    ("front", ("atccheck.api", "atccheck.batch", "atccheck.baseline", "atccheck.config", "atccheck.rule_docs",
               "atccheck.emit")),
    ("cli", ("atccheck.cli",)),
)

# Walls: (importer prefix, imported prefix, except these imported prefixes).
FORBIDDEN: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("atccheck.rules", "atccheck.passes", ()),
    ("atccheck.rules", "atccheck.fixing", ()),
    ("atccheck.rules", "atccheck.fixlinks", ()),
    ("atccheck.rules", "atccheck.atc.lint", ()),
    ("atccheck.passes", "atccheck.rules", ()),
    ("atccheck.passes", "atccheck.atc.lint", ()),
    ("atccheck.atc.lint", "atccheck.rules", ()),
    ("atccheck.atc.lint", "atccheck.passes", ()),
)


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    kind: str  # module | lazy | type
    line: int


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / PACKAGE).rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement with its kind."""

    def walk(node: ast.AST, kind: str) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, kind
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for item in child.body:
                    yield from walk_one(item, "type")
                for item in child.orelse:
                    yield from walk_one(item, kind)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                yield from walk(child, "type" if kind == "type" else "lazy")
            else:
                yield from walk(child, kind)

    def walk_one(node: ast.AST, kind: str) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, kind
        else:
            yield from walk(node, kind)

    yield from walk(tree, "module")


def edges(known: dict[str, Path]) -> list[Edge]:
    found: list[Edge] = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for stmt, kind in _imports(tree):
            for target in _targets(stmt, package, known):
                for module in (*_parents(target, name, known), target):
                    if module != name:
                        found.append(Edge(name, module, kind, stmt.lineno))
        found.extend(_discovered(name, path, tree, known))
    unique: dict[tuple[str, str, str], Edge] = {}
    for edge in found:  # one edge per (source, target, kind): the first line that makes it
        unique.setdefault((edge.source, edge.target, edge.kind), edge)
    return list(unique.values())


def _parents(target: str, importer: str, known: dict[str, Path]) -> list[str]:
    """The packages importing ``target`` runs first (``a.b`` for ``a.b.c``), the root and the
    importer's own packages aside."""
    parts = target.split(".")
    found = []
    for end in range(2, len(parts)):
        package = ".".join(parts[:end])
        if package in known and not importer.startswith(package + "."):
            found.append(package)
    return found


def _discovered(name: str, path: Path, tree: ast.AST, known: dict[str, Path]) -> list[Edge]:
    """A registry package that imports its modules by walking itself (``pkgutil.iter_modules``
    in its ``__init__``) has a lazy edge to each module under it."""
    if path.name != "__init__.py":
        return []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "iter_modules":
            return [Edge(name, other, "lazy", node.lineno) for other in known if other.startswith(name + ".")]
    return []


def _targets(stmt: ast.Import | ast.ImportFrom, package: str, known: dict[str, Path]) -> Iterable[str]:
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                yield _existing(alias.name, known)
        return
    if stmt.level:
        base = package.split(".")
        base = base[: len(base) - stmt.level + 1]
        origin = ".".join(base + ([stmt.module] if stmt.module else []))
    else:
        origin = stmt.module or ""
    if origin != PACKAGE and not origin.startswith(PACKAGE + "."):
        return
    for alias in stmt.names:
        candidate = f"{origin}.{alias.name}"
        yield candidate if candidate in known else _existing(origin, known)


def _existing(name: str, known: dict[str, Path]) -> str:
    while name not in known and "." in name:
        name = name.rpartition(".")[0]
    return name


def floor_of(module: str) -> int:
    best, floor = -1, None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, floor = len(prefix), index
    if floor is None:
        raise SystemExit(f"{module}: no floor in LAYERS (tools/import_graph.py); give it one")
    return floor


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def climbs(graph: list[Edge]) -> list[tuple[Edge, str]]:
    """Each runtime edge against the house, with why."""
    found = []
    for edge in graph:
        if edge.kind == "type":
            continue
        source, target = floor_of(edge.source), floor_of(edge.target)
        if target > source:
            found.append((edge, f"{LAYERS[source][0]} imports {LAYERS[target][0]}"))
            continue
        for importer, imported, allowed in FORBIDDEN:
            if _under(edge.source, importer) and _under(edge.target, imported) \
                    and not any(_under(edge.target, a) for a in allowed):
                found.append((edge, f"{importer} never imports {imported}"))
                break
    return found


def cycles(graph: list[Edge], kinds: tuple[str, ...] = ("module",)) -> list[list[str]]:
    """Strongly connected sets of two or more modules over edges of these kinds (Tarjan)."""
    succ: dict[str, set[str]] = {}
    for edge in graph:
        if edge.kind in kinds:
            succ.setdefault(edge.source, set()).add(edge.target)
            succ.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    sys.setrecursionlimit(10000)

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(succ):
        if v not in index:
            visit(v)
    return sorted(out, key=lambda g: (-len(g), g))


def figures() -> dict:
    known = modules()
    graph = edges(known)
    for name in known:
        floor_of(name)  # every module has a floor
    found = climbs(graph)
    return {
        "modules": len(known),
        "edges": {kind: sum(1 for e in graph if e.kind == kind) for kind in ("module", "lazy", "type")},
        "cycles": cycles(graph, ("module", "lazy")),
        "import_time_cycles": cycles(graph),
        "climbs": [{"from": e.source, "to": e.target, "kind": e.kind, "line": e.line, "why": why}
                   for e, why in found],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--check", action="store_true", help="exit 1 on a cycle or a climb")
    args = parser.parse_args(argv)
    data = figures()
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        edges_text = ", ".join(f"{n} {k}" for k, n in data["edges"].items())
        print(f"{data['modules']} modules; import edges: {edges_text}")
        print(f"cycles: {len(data['cycles'])} (import time alone: {len(data['import_time_cycles'])})")
        for group in data["cycles"]:
            print(f"  {len(group)} modules: {' '.join(group)}")
        lazy = sum(1 for c in data["climbs"] if c["kind"] == "lazy")
        statements = len({(c["from"], c["line"]) for c in data["climbs"]})
        print(f"climbs: {len(data['climbs'])} edges ({lazy} of them lazy) from {statements} import statements")
        for c in data["climbs"]:
            print(f"  {c['from']}:{c['line']} -> {c['to']} ({c['kind']}): {c['why']}")
    if args.check and (data["cycles"] or data["climbs"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
