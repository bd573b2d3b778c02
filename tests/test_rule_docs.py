from __future__ import annotations

import importlib.util

from atccheck.catalogue import catalogue
from atccheck.rule_docs import expected_pages, help_uri
from conftest import PROJECT


def load_generator():
    spec = importlib.util.spec_from_file_location("build_rule_docs", PROJECT / "tools" / "build_rule_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generator_writes_and_removes_pages(tmp_path):
    generator = load_generator()
    (tmp_path / "removed-rule.md").write_text("old")
    changed = generator.write(tmp_path)
    assert "removed-rule.md" in changed and not (tmp_path / "removed-rule.md").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(expected_pages(catalogue()))
    assert generator.differences(tmp_path) == []
    (tmp_path / "unsupported-op.md").write_text("edited by hand")
    assert generator.differences(tmp_path) == ["unsupported-op.md"]


def test_every_page_carries_the_rule_sections():
    for rule in catalogue():
        page = expected_pages([rule])[f"{rule.name}.md"]
        assert page.startswith(f"# {rule.code} {rule.name}\n")
        for heading in ("What it does", "Why", "Example", "Fix", "Facts"):
            assert f"\n## {heading}\n" in page


def test_help_uri_scheme():
    assert help_uri("unsupported-op", "https://host/docs/rules/") == "https://host/docs/rules/unsupported-op.md"
    assert help_uri("unsupported-op", None) is None
