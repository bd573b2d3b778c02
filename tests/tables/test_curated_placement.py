"""The curated placement facts (op_tables/curated/): complete, sourced, and folded into the tables."""

from __future__ import annotations

import json
import re

from atccheck.tables import read_table, tables
from conftest import PROJECT

CURATED = PROJECT / "op_tables" / "curated"
SOURCE = re.compile(r"^[\w.-]+/[\w.+-]+:[^@\s]+@[0-9a-f]{7,40}\b")
DTYPES = {"bfloat16", "bool", "float16", "float32", "float64", "int16", "int32", "int64", "int8", "uint16", "uint32",
          "uint64", "uint8"}


def select_format() -> dict:
    return json.loads((CURATED / "op_select_format.json").read_text(encoding="utf-8"))


def fusion_passes() -> dict:
    return json.loads((CURATED / "fusion_passes.json").read_text(encoding="utf-8"))


def test_every_op_select_format_kernel_has_one_curated_answer():
    marked = {(e["release"], e["family"], e["op"]) for e in read_table("kernels.json")["entries"]
              if e["aicore"] and e["aicore"].get("op_select_format")
              and (e["aicore"].get("select_format") or e["aicore"].get("dtypes") is None)}
    keys = [(e["release"], e["family"], e["op"]) for e in select_format()["entries"]]
    assert len(keys) == len(set(keys))
    assert marked == set(keys)


def test_each_curated_answer_gives_dtypes_or_a_reason_and_a_source():
    for entry in select_format()["entries"]:
        assert SOURCE.match(entry["config"]), entry["config"]
        for kind in ("static_shapes", "dynamic_shapes"):
            part = entry[kind]
            if part.get("no_kernel"):
                assert part["dtypes"] is None
                continue
            where = f"{entry['release']} {entry['family']} {entry['op']} {kind}"
            if part["dtypes"] is None:
                assert part["unknown"], where
            else:
                assert part["dtypes"] and set(part["dtypes"]) <= DTYPES, where
                assert part["dtypes"] == sorted(part["dtypes"]), where
            assert SOURCE.match(part.get("source", "")), where


def test_the_generator_folds_the_curated_answers_into_the_kernels():
    curated = {(e["release"], e["family"], e["op"]): e for e in select_format()["entries"]}
    folded = 0
    for (release, family, op), entry in curated.items():
        kernel = tables().kernel(release, family, op)
        assert kernel is not None and kernel.select_format is not None
        assert kernel.aicore_dtypes == (tuple(entry["static_shapes"]["dtypes"])
                                        if entry["static_shapes"]["dtypes"] is not None else None)
        dynamic = kernel.select_format_answer(True) or {}
        assert dynamic.get("dtypes") == entry["dynamic_shapes"]["dtypes"]
        folded += 1
    assert folded == len(curated) > 200


def test_fusion_passes_are_sourced_and_their_ops_have_kernel_facts():
    doc = fusion_passes()
    profiles = set(tables().profiles)
    for p in doc["entries"]:
        assert SOURCE.match(p["source"]), p["pass"]
        assert set(p["profiles"]) <= profiles and p["main"] in p["into"]
        assert set(p["conditions"]) <= set(doc["legend"]), p["pass"]
        for case in p.get("fails_when", ()):
            assert case["case"] in {"not-constant", "negative-element-count"} and case["case"] in doc["legend"][
                "fails_when"], p["pass"]
            assert isinstance(case["input"], int) and case["log"] and SOURCE.match(case["source"]), p["pass"]
            assert case["atc_error"] is None or case["atc_error"] in tables().atc_errors, p["pass"]
        releases = {tables().profiles[pr].kernel_release for pr in p["profiles"]}
        for release in releases:
            assert any(tables().kernel(release, family, p["main"]) is not None
                       for family in ("ascend310", "ascend310p", "ascend910", "ascend910b")), (p["pass"], release)


def test_a_member_choice_by_attribute_names_the_plugin_default_among_its_choices():
    doc = json.loads((CURATED / "partitioned_call_members.json").read_text(encoding="utf-8"))
    defaults = [e for e in doc["entries"] if "default" in e]
    assert {e["op"] for e in defaults} >= {"ScatterND", "Trilu"}
    for entry in defaults:
        assert entry["by"] == "attr" and entry["default"] in entry["choices"], entry["op"]


def test_every_pass_becomes_an_op_fact_per_onnx_op():
    facts = [e for e in read_table("op_facts.json")["entries"] if e["kind"] == "fusion-pass"]
    expected = {(p["pass"], onnx_op) for p in fusion_passes()["entries"] for onnx_op in p["onnx"]}
    assert {(f["params"]["pass"], f["op"]) for f in facts} == expected
