"""The plugin facts: every registered plugin read, the condition language closed, the runtime table sound."""

from __future__ import annotations

import json

import pytest

from atccheck.rules._plugin_conditions import KINDS, kinds_in, problems
from atccheck.tables import read_table, tables
from conftest import PROJECT

CURATED = json.loads((PROJECT / "op_tables" / "curated" / "plugin_refusals.json").read_text(encoding="utf-8"))


def test_every_registration_whose_plugin_exists_has_its_file_in_the_coverage_list():
    read = {item["source"] for item in CURATED["coverage"]}
    plugins = {m["source"] for e in read_table("registry.json")["entries"] for m in e["ascend"]}
    assert plugins and plugins <= read, sorted(plugins - read)[:5]


def test_coverage_counts_come_from_the_facts():
    by_source: dict[str, list[int]] = {}
    for fact in CURATED["entries"]:
        by_source.setdefault(fact["source"], [0, 0])[fact["kind"] == "ignored-attr"] += 1
    for item in CURATED["coverage"]:
        assert by_source.pop(item["source"], [0, 0]) == [item["refusals"], item["ignored_attrs"]], item["source"]
    assert by_source == {}, "a fact names a plugin file the coverage list does not"
    per_era = {era: sum(1 for c in CURATED["coverage"] if c["era"] == era) for era in CURATED["eras"]}
    assert per_era == {"canndev-2022": 127, "hicann-2026": 191}


def test_the_condition_kinds_are_closed_and_all_used():
    used = {kind for fact in CURATED["entries"] for kind in kinds_in(fact.get("condition"))}
    assert used == set(KINDS)
    for fact in CURATED["entries"]:
        if fact.get("condition") is not None:
            assert problems(fact["condition"], fact["id"]) == []
        else:
            assert fact["kind"] == "ignored-attr" or not fact["evaluable"], fact["id"]


@pytest.mark.parametrize("condition, complaint", [
    ({"kind": "attr-equals", "attr": "x"}, "known kind"),
    ({"kind": "attr-in", "attr": "x"}, "lacks ['values']"),
    ({"kind": "attr-in", "attr": "x", "values": [1], "dflt": 1}, "unknown fields"),
    ({"kind": "all", "of": []}, "non-empty list"),
    ({"kind": "not", "of": {"kind": "attr-parity", "attr": "size", "parity": "prime"}}, "odd or even"),
    ({"kind": "attr-length-in", "attr": "pads"}, "lengths or min"),
    ({"kind": "attr-missing", "attr": "k", "type": "tensor"}, "attribute type"),
])
def test_a_malformed_condition_is_refused(condition, complaint):
    assert any(complaint in p for p in problems(condition))


def test_every_fact_cites_its_plugin_and_lines():
    for fact in CURATED["entries"]:
        assert fact["source"].startswith(("dengguojie/vue-element-admin:ops/built-in/framework/onnx_plugin/",
                                          "hicann/ops-nn:", "hicann/ops-math:", "hicann/ops-cv:")), fact["id"]
        assert fact["lines"][0] <= fact["lines"][1]
        if fact["kind"] == "refusal":
            assert fact["stage"] in CURATED["stages"] and fact["channel"] in CURATED["channels"]


def test_the_stage_decides_the_atc_code():
    assert CURATED["stages"]["parse-params"]["atc_error"] == "E11010"
    assert CURATED["stages"]["op-to-graph"]["atc_error"] == "E19999"
    for fact in tables().plugin_refusals:
        assert fact.atc_error == {"parse-params": "E11010", "op-to-graph": "E19999"}[fact.stage]


def test_profiles_follow_the_eras_and_the_8_x_question():
    for fact in CURATED["entries"]:
        if fact["era"] == "canndev-2022":
            assert fact["profiles"] == ["5.0", "6.0"] and fact["unknown_profiles"] == []
        else:
            assert fact["profiles"] in (["8.0", "9.0"], ["9.0"])
            assert fact["unknown_profiles"] == ([] if "8.0" in fact["profiles"] else ["8.0"])
            tags = {r.get("first_seen_tag") for r in fact["registrations"]}
            if fact["unknown_profiles"]:
                assert tags - {"v8.5.0"}, fact["id"]  # only a plugin newer than the repository's first tag


def test_covered_conditions_are_left_to_the_other_rule():
    entries = read_table("plugin_refusals.json")["entries"]
    storage = [e for e in entries if e["op"] == "MaxPool" and e["check"] == "storage-order"]
    assert storage == []  # attr_limits.json reports it in every profile
    select = {e["id"]: e for e in entries if e["op"] == "ArgMax" and e["check"] == "select-last-index"}
    assert select["2022/argmax/ArgMax/select-last-index"]["profiles"] == ["5.0", "6.0"]
    assert "2026/argmax/ArgMax/select-last-index" not in select  # the published page covers 8.0 and 9.0
