"""No finding without a fact, no fact without a finding: every fact the generator writes has a reader in the code.

The readers are found by scanning the code, not listed here: a kind of ``op_facts.json`` is read by the
rule module that names it, a table by the module that names its file, a section of a table by the module
that names its key. The only list is of sections kept for people (a note, the source of a neighbouring
section), each with its reason; the test fails when one of them gains a reader or loses its key.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "atccheck"
TABLES = ROOT / "op_tables"
RULE_DIRS = (PACKAGE / "rules", PACKAGE / "atc" / "lint" / "rules")
# every table document has these; they describe the document itself
COMMON_KEYS = {"schema", "description", "generated_by", "facts", "entries"}
# sections no code reads, kept for the reader of the table: (table, section) -> why
KEPT_FOR_PEOPLE = {
    ("aipp.json", "csc_note"): "a note on the documented colour conversions (the preset entries)",
    ("atc_options.json", "mutual_exclusion_groups"): "the reference's groups as published; precision-mode-conflict "
                                                     "cites them and reads precision_bf16_values/precision_hif8_values",
    ("atc_options.json", "dependency_rules"): "the reference's wording, from which the generator derives "
                                              "required_flags (which the code reads)",
    ("plugin_refusals.json", "stages"): "what each stage value of the entries means",
    ("plugin_refusals.json", "curated"): "the curated file the entries come from",
    ("precision.json", "bf16_modes_need"): "what the bf16 precision modes need of the SoC, beside the modes",
    ("registry.json", "native_types_source"): "the source of native_types (which the code reads)",
}


def _code(dirs) -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for d in dirs for p in sorted(d.rglob("*.py"))}


def _string_constants(text: str) -> set[str]:
    return {n.value for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


@pytest.fixture(scope="module")
def package_strings() -> dict[Path, set[str]]:
    return {p: _string_constants(t) for p, t in _code((PACKAGE,)).items()}


def _table_docs() -> dict[str, dict]:
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(TABLES.glob("*.json"))}


def test_every_op_fact_kind_is_read_by_a_rule():
    kinds = {e["kind"] for e in _table_docs()["op_facts.json"]["entries"]}
    readers = {p: _string_constants(t) for p, t in _code(RULE_DIRS).items()}
    unread = {k for k in kinds if not any(k in strings for strings in readers.values())}
    assert len(kinds) >= 16
    assert not unread, f"op_facts.json kinds no rule reads (a fact without a finding): {sorted(unread)}"


def test_every_table_is_loaded_by_the_package():
    loaded = {s for strings in _code((PACKAGE,)).values() for s in _string_constants(strings)}
    names = set(_table_docs())
    assert len(names) >= 16
    assert not names - loaded, f"tables no module loads: {sorted(names - loaded)}"


def test_every_table_section_is_read_or_kept_for_a_reason(package_strings):
    sections = {(name, key) for name, doc in _table_docs().items() for key in doc if key not in COMMON_KEYS}
    read = {s for strings in package_strings.values() for s in strings}
    unread = {(name, key) for name, key in sections if key not in read}
    assert unread == set(KEPT_FOR_PEOPLE), (
        f"sections no code reads and no reason keeps: {sorted(unread - set(KEPT_FOR_PEOPLE))}; "
        f"kept sections now read or gone: {sorted(set(KEPT_FOR_PEOPLE) - unread)}")
    assert all(reason for reason in KEPT_FOR_PEOPLE.values())


FINDING_CALLS = {"finding", "make_finding", "Finding"}


def _finding_calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name in FINDING_CALLS:
                yield node


def test_every_finding_a_rule_makes_names_its_source():
    calls = 0
    missing = []
    for path, text in _code(RULE_DIRS).items():
        for call in _finding_calls(ast.parse(text)):
            calls += 1
            keywords = {k.arg: k.value for k in call.keywords}
            if None in keywords:  # **kwargs: the source travels in the mapping, checked where it is built
                continue
            source = keywords.get("source")
            if source is None or (isinstance(source, ast.Constant) and not str(source.value).strip()):
                missing.append(f"{path.relative_to(ROOT)}:{call.lineno}")
    assert calls >= 40
    assert not missing, f"findings without a source: {missing}"
