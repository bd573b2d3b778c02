"""Everything atccheck derives is current: one check over the tables, the fix index, the rule pages,
the pass page and the doc examples (tools/regen.py)."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

from conftest import PROJECT


def load_regen():
    spec = importlib.util.spec_from_file_location("regen", PROJECT / "tools" / "regen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_everything_derived_is_current(shared_reference):
    stale = load_regen().run(check=True, reference=shared_reference, say=lambda _: None)
    assert stale == [], f"run 'python tools/regen.py'; stale: {stale}"


def test_a_stale_output_is_named_and_nothing_is_written(monkeypatch):
    regen = load_regen()
    written = []
    fake = SimpleNamespace(stale=lambda: True, page=lambda: "new", PAGE=PROJECT / "docs" / "passes.md")
    monkeypatch.setattr(regen, "tool", lambda name: fake)
    monkeypatch.setattr(type(fake.PAGE), "write_text", lambda self, *a, **k: written.append(self))
    assert regen.pass_page_step(check=True) == ["docs/passes.md"] and written == []


def test_without_the_reference_the_tables_are_left_and_said_so(tmp_path):
    said = []
    regen = load_regen()
    stale = regen.run(check=True, reference=tmp_path / "absent", say=said.append)
    assert stale == [] and said and "no reference facts" in said[0]
