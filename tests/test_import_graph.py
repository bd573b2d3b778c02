"""The house: no import cycle in atccheck/, and no import that climbs a floor (tools/import_graph.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "import_graph.py"

def _tool():
    spec = importlib.util.spec_from_file_location("import_graph", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["import_graph"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def figures() -> dict:
    return _tool().figures()


def test_no_import_climbs_a_floor(figures: dict) -> None:
    """Rules import neither the fix side nor passes nor the command lint; passes neither rules, the fix
    pipeline nor the engine; model/, tables/ and the rule context nothing above them (LAYERS, FORBIDDEN)."""
    assert figures["climbs"] == [], "an import climbs the house (python tools/import_graph.py shows where)"


def test_no_import_cycle(figures: dict) -> None:
    """No cycle, lazy imports and the registries' discovery counted (type-only imports aside)."""
    assert figures["cycles"] == [] and figures["import_time_cycles"] == []


def test_every_module_has_a_floor(figures: dict) -> None:
    assert figures["modules"] > 100  # floor_of raised for any module without one


def test_the_tool_sees_a_climb_and_a_cycle(tmp_path: Path) -> None:
    """On a planted package: a rule importing the fix pipeline climbs; two modules importing each
    other lazily are a cycle; a type-only import is neither."""
    tool = _tool()
    pkg = tmp_path / "atccheck"
    (pkg / "rules").mkdir(parents=True)
    (pkg / "fixing").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "rules" / "__init__.py").write_text("")
    (pkg / "fixing" / "__init__.py").write_text("")
    (pkg / "rules" / "a.py").write_text("from atccheck.fixing import b\n")
    (pkg / "fixing" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from atccheck.rules import c\n"
        "def f():\n    from atccheck.fixing import d\n")
    (pkg / "fixing" / "d.py").write_text("def g():\n    from atccheck.fixing import b\n")
    (pkg / "rules" / "c.py").write_text("")
    old = tool.ROOT
    tool.ROOT = tmp_path
    try:
        graph = tool.edges(tool.modules())
        climbs = {(e.source, e.target) for e, _ in tool.climbs(graph)}
        assert ("atccheck.rules.a", "atccheck.fixing.b") in climbs
        assert not any(e.target == "atccheck.rules.c" for e, _ in tool.climbs(graph))
        assert tool.cycles(graph, ("module", "lazy")) == [["atccheck.fixing.b", "atccheck.fixing.d"]]
        assert tool.cycles(graph) == []
    finally:
        tool.ROOT = old


def test_the_command_runs() -> None:
    done = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0 and "cycles: 0" in done.stdout and "climbs: 0" in done.stdout
