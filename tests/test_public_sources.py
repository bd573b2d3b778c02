"""Facts a user can follow: findings, tables, `targets` and rule pages cite public sources (an
upstream repository and path, a documentation page), never the research notes users do not have."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from atccheck.api import check
from atccheck.atc.lint import lint_command
from atccheck.catalogue import catalogue
from atccheck.cli.main import main
from atccheck.rule_docs import rule_page, rule_text
from conftest import PROJECT, SAMPLE_MODELS

# The research notes (atc_cli.md, cann_source.md, ...) and the reference folder they sit in.
PRIVATE = re.compile(r"\b(atc_cli|cann_source|onnx_op_spec|peers)\.md\b|shared/reference")


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


@pytest.mark.parametrize("table", sorted(p.name for p in (PROJECT / "op_tables").glob("*.json")))
def test_no_table_cites_the_research_notes(table):
    doc = json.loads((PROJECT / "op_tables" / table).read_text(encoding="utf-8"))
    doc.pop("facts", None)  # the reference files the table was generated from (their hashes), not citations
    assert [s for s in strings(doc) if PRIVATE.search(s)] == []


def test_findings_cite_public_sources(shared_models):
    models = sorted(SAMPLE_MODELS.glob("*.onnx")) + sorted(shared_models.glob("*.onnx"))
    sources = set()
    for model in models:
        for soc in ("Ascend310", "Ascend310P3", "Ascend910B3"):
            sources.update(f.source for f in check(str(model), soc).findings)
    lint = lint_command("atc --model=m.onnx --framework=3 --output=out/m.om --soc_version=Ascend310 "
                        "--input_shape=x:1,3;y:2 --precision_mode=force_fp16 --precision_mode_v2=fp16 "
                        "--dynamic_batch_size=1,2 --dynamic_dims=1;2")
    sources.update(f.source for f in lint.findings)
    assert len(sources) > 10
    assert sorted(s for s in sources if PRIVATE.search(s)) == []


def test_targets_name_upstream_projects_not_mirror_accounts():
    text = CliRunner().invoke(main, ["targets"]).output
    assert not PRIVATE.search(text)
    assert "vue-element-admin" not in text and "canndev (2022-06 snapshot)" in text


def test_rule_pages_use_markdown_code_spans_and_cite_public_sources():
    for rule in catalogue():
        page = rule_page(rule)
        assert "``" not in page and "``" not in rule_text(rule), rule.name
        assert not PRIVATE.search(page), (rule.name, PRIVATE.search(page))
