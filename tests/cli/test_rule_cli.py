from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from atccheck.catalogue import catalogue
from atccheck.cli.main import main
from atccheck.rules import all_rules


def run(*args: str):
    return CliRunner().invoke(main, ["rule", *args])


@pytest.mark.parametrize("key", ["unsupported-op", "AC101", "ac101", "Unsupported-Op"])
def test_prints_the_rule_docs_by_name_or_code(key):
    result = run(key)
    assert result.exit_code == 0, result.output
    rule = next(r for r in all_rules() if r.code == "AC101")
    lines = result.stdout.splitlines()
    assert lines[0] == "AC101 unsupported-op (error)"
    assert rule.docs().summary in result.stdout
    for heading in ("What it does", "Why", "Example", "Fix", "Facts"):
        assert heading in lines


def test_markdown_form_is_the_docs_page():
    from atccheck.catalogue import find_rule
    from atccheck.rule_docs import rule_page

    assert run("opset-not-registered", "--format", "markdown").stdout == rule_page(find_rule("AC102"))


def test_all_lists_every_registered_rule():
    result = run("--all")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[:3] for line in lines] == [[r.code, r.name, r.severity.value] for r in catalogue()]


def test_all_as_json():
    doc = json.loads(run("--all", "--format", "json").stdout)
    assert [d["code"] for d in doc] == [r.code for r in catalogue()]
    assert all(d["summary"] for d in doc)


def test_unknown_rule_exits_2_with_suggestions():
    result = run("unsuported-op")
    assert result.exit_code == 2 and "no rule 'unsuported-op'; did you mean unsupported-op" in result.stderr


def test_needs_exactly_one_of_name_and_all():
    assert run().exit_code == 2
    assert run("AC101", "--all").exit_code == 2


@pytest.mark.parametrize("key", ["AC519", "gear-rule", "unknown-atc-flag", "AC501"])
def test_atc_command_rules_are_in_the_catalogue(key):
    result = run(key)
    assert result.exit_code == 0, result.output
    assert "Applies to: an `atc` command line" in result.stdout
    for heading in ("What it does", "Why", "Example", "Fix", "Facts"):
        assert heading in result.stdout.splitlines()


def test_all_lists_atc_command_rules_with_their_kind():
    doc = json.loads(run("--all", "--format", "json").stdout)
    kinds = {d["code"]: d["kind"] for d in doc}
    assert kinds["AC101"] == "model" and kinds["AC519"] == "atc-command"
