"""The shipped tables: current with the reference facts, and valid as data."""

from __future__ import annotations

import importlib.util
import json

import pytest

from atccheck.tables import TABLE_FILES, read_table, tables
from conftest import PROJECT

# Fields with a closed set of values, per table.
CLOSED = {
    "aipp.json": {"kind": {"check", "chip", "error", "format", "model-size", "parse-error", "preset", "range"}},
    "command_files.json": {"kind": {"file", "names"}},
    "attr_limits.json": {
        "kind": {"enum", "range", "unsupported", "required", "parity", "length"},
        "severity": {"error", "warning", "info"},
        "effect": {"rejected", "ai-cpu-fallback", "slow-path", "ignored"},
        "axes": {None, "spatial"},
    },
    "profiles.json": {"basis": {"docs", "source"}, "unregistered_error": {"E19010", "E13010"},
                      "file_size_error": {"E19015", "E13015"},
                      "initializer_node_name": {"{name}_{i}", "{name}_Initializer_{i}"},
                      "published_pages": {True, False}},
    "kernels.json": {"release": {"cann-8.1.RC1", "canndev-2022-06"}},
    "registry.json": {"profile": {"5.0", "6.0", "8.0", "9.0"}},
    "precision.json": {"release": {"cann-8.1.RC1"}},
    "atc_errors.json": {"era": {"current", "legacy"}},
    "parser_checks.json": {"verdict": {"rejected", "unread", "constant", "accepted", "refused-by-loader"},
                           "atc_error": {None, "E16001", "E19999"}},
    "infer_shapes.json": {"static": {"always", "when", "never", "unknown"},
                          "otherwise": {None, "dynamic", "infer-fails", "unknown"},
                          "era": {"canndev-2022", "hicann-2026"}},
    "plugin_refusals.json": {
        "stage": {"parse-params", "op-to-graph"},
        "atc_error": {"E11010", "E19999"},
        "channel": {"onnx-plugin-loge", "cube-inner-err-report", "op-loge-2022", "op-loge-2026", "none"},
        "evaluable": {True, False},
    },
    "op_facts.json": {
        "kind": {"ignored-attr", "empty-axes-not-reduced", "origin-dtype-rejected", "ai-core-rewrite",
                 "partitioned-call-member", "check-supported-rejects", "input-shape-required",
                 "negative-indices-rejected", "last-axis-step-one", "pad-value-zero", "hand-fixed-practice",
                 "pool-aicpu-graph", "shape-value-inputs", "axis-not-flattened",
                 "fusion-pass", "infer-shape-check"},
        "severity": {"error", "warning", "info"},
    },
}
# The key each table's entries are unique and sorted by.
KEYS = {
    "aipp.json": lambda e: (e["kind"], e["name"], e["source"]),
    "command_files.json": lambda e: (e["kind"], e["name"]),
    "atc_errors.json": lambda e: e["code"],
    "atc_options.json": lambda e: e["name"],
    "attr_limits.json": lambda e: (e["op"], e["attr"], e["profiles"], e["kind"], e.get("when_rank") or 0, e["source"]),
    "infer_shapes.json": lambda e: (e["op"], e["profiles"]),
    "parser_checks.json": lambda e: (e["check"], e["profiles"]),
    "kernels.json": lambda e: (e["release"], e["family"], e["op"]),
    "limits.json": lambda e: e["name"],
    "op_facts.json": lambda e: (e["kind"], e["op"], e["attr"] or "", e["profiles"], e["source"]),
    "op_spec.json": lambda e: (e["list"], e["op"]),
    "plugin_refusals.json": lambda e: (e["domain"], e["op"], e["id"]),
    "precision.json": lambda e: (e["release"], e["family"]),
    "profiles.json": None,  # kept in release order
    "registry.json": lambda e: (e["profile"], e["domain"], e["op"]),
    "socs.json": lambda e: e["name"],
}


def load_generator():
    spec = importlib.util.spec_from_file_location("build_op_tables", PROJECT / "tools" / "build_op_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", TABLE_FILES)
def test_table_is_valid_data(name):
    doc = read_table(name)
    assert doc["schema"].startswith("atccheck.") and doc["generated_by"] == "tools/build_op_tables.py"
    entries = doc["entries"]
    assert entries, f"{name} has no entries"
    for entry in entries:
        assert entry.get("source"), f"{name}: entry without a source: {json.dumps(entry)[:200]}"
    key = KEYS[name]
    if key is not None:
        keys = [key(e) for e in entries]
        assert keys == sorted(keys), f"{name} is not sorted"
        assert len(set(map(repr, keys))) == len(keys), f"{name} has duplicate entries"
    for field, allowed in CLOSED.get(name, {}).items():
        seen = {e.get(field) for e in entries}
        assert seen <= allowed, f"{name}.{field} has values outside its enum: {seen - allowed}"


def test_every_profile_has_a_registry_and_kernel_release():
    tbl = tables()
    for profile in tbl.profiles.values():
        assert any(True for _ in tbl.registry(profile.id)), profile.id
        assert any(tbl.has_kernel_facts(profile.kernel_release, s.kernel_family) for s in tbl.socs.values())


def test_required_soc_families_are_present():
    names = set(tables().socs)
    required = {"Ascend310", "Ascend310P3", "Ascend310B4", "Ascend910A", "Ascend910ProB", "Ascend910PremiumA",
                "Ascend910B1", "Ascend910B4", "Ascend910_9392"}
    assert required <= names


def test_source_wins_over_docs_for_the_8_0_profile():
    """Resize 13 is omitted by the pages but registered by both CANN sources bracketing 8.x."""
    reg = tables().registry("8.0").lookup("", "Resize")
    assert 13 not in reg.documented_opsets and 13 in reg.opsets and 13 in reg.source_only_opsets


@pytest.mark.parametrize("shape", [
    [{"dim": [1]}],  # dim takes [input, axis]
    [{"sum": [1, 2]}],  # no such operator
    {"like": 0, "axis": -1},  # like needs axis and dim
    [{"attr": [3, 1]}],  # attr takes [name, default]
])
def test_generator_refuses_a_malformed_shape_expression(shape):
    with pytest.raises(SystemExit, match="expression|takes"):
        load_generator().check_shape_expr("test", shape)


def test_generator_refuses_a_source_without_a_commit():
    generator = load_generator()
    generator.check_hand_read_sources("test", ["hicann/ge:parser/parser/onnx/onnx_parser.cc@ffdcbc9f7 lines 1-2"])
    with pytest.raises(SystemExit, match="owner/repo:path@commit"):
        generator.check_hand_read_sources("test", ["hicann/ge parser/onnx_parser.cc"])
