"""Facts the rules once held as Python literals: each now lives in a table, with its source."""

from __future__ import annotations

import pytest

from atccheck.tables import tables


def _profile_fact(profile_id: str, field: str):
    profile = tables().profiles[profile_id]
    assert profile.field_sources.get(field), f"profile {profile_id}: {field} has no source"
    return getattr(profile, field)


@pytest.mark.parametrize("profile_id, code", [("5.0", "E19015"), ("6.0", "E19015"), ("8.0", "E19015"),
                                              ("9.0", "E13015")])
def test_file_size_error_code_per_profile(profile_id, code):
    assert _profile_fact(profile_id, "file_size_error") == code
    assert code in tables().atc_errors  # a catalogued code


@pytest.mark.parametrize("profile_id, pattern", [("5.0", "{name}_{i}"), ("6.0", "{name}_{i}"),
                                                 ("8.0", "{name}_{i}"), ("9.0", "{name}_Initializer_{i}")])
def test_initializer_node_name_per_profile(profile_id, pattern):
    assert _profile_fact(profile_id, "initializer_node_name") == pattern


@pytest.mark.parametrize("profile_id, speaks", [("5.0", False), ("6.0", False), ("8.0", True), ("9.0", True)])
def test_published_pages_speak_for_the_hicann_profiles(profile_id, speaks):
    assert _profile_fact(profile_id, "published_pages") is speaks


def test_only_the_9_0_profile_is_source_built_with_a_published_list():
    """opset-not-registered's basis text: a source-built profile whose ops also have documented opsets."""
    built = {p.id for p in tables().profiles.values() if p.basis == "source"}
    assert built == {"6.0", "9.0"}
    assert tables().registry("6.0").lookup("", "Relu").documented_opsets is None
    assert tables().registry("9.0").lookup("", "Relu").documented_opsets is not None


@pytest.mark.parametrize("op, profile_id, builds", [
    ("MaxPool", "5.0", "MaxPool"), ("MaxPool", "6.0", "MaxPool"), ("MaxPool", "8.0", "MaxPool"),
    ("MaxPool", "9.0", "MaxPool"), ("AveragePool", "5.0", "AvgPool"), ("AveragePool", "6.0", "AvgPool"),
    ("AveragePool", "8.0", None), ("AveragePool", "9.0", None),
])
def test_pool_aicpu_graph_per_profile(op, profile_id, builds):
    facts = tables().op_facts_for("pool-aicpu-graph", op, profile_id)
    if builds is None:
        assert facts == ()
        return
    (fact,) = facts
    assert fact.params["builds"] == builds and fact.source.endswith(("@e5c3fa932", "@7d77ce32d"))


def test_ignored_attr_facts_name_the_ops_attr_ignored_sees():
    plugin_facts = {"ArgMax", "ArgMin", "EyeLike", "GRU", "GatherND", "GlobalMaxPool", "Hardmax", "LSTM", "LogSoftmax",
                    "LpPool", "MaxPool", "Mod", "Multinomial", "RandomNormalLike", "RandomUniformLike",
                    "ReduceSumSquare", "RoiAlign", "ScatterND", "Shape", "Unique"}  # curated/plugin_refusals.json
    assert tables().ops_with_fact("ignored-attr") == frozenset({"Gemm", "Resize", "AveragePool"} | plugin_facts)


@pytest.mark.parametrize("op, inputs", [("Reshape", [1]), ("Resize", [2, 3]), ("Slice", [1, 2, 3, 4]),
                                        ("NonMaxSuppression", [0, 1, 2, 3, 4]), ("Loop", [0, 1])])
def test_shape_value_inputs(op, inputs):
    (fact,) = tables().op_facts_for("shape-value-inputs", op, None)
    assert fact.params["inputs"] == inputs and "Operators.md" in fact.source


def test_shape_value_inputs_cover_the_32_ops():
    assert len(tables().ops_with_fact("shape-value-inputs")) == 32
    assert tables().op_facts_for("shape-value-inputs", "Add", None) == ()


@pytest.mark.parametrize("flag, code", [("--log", "E10010"), ("--framework", "E10007"), ("--status_check", "E10006"),
                                        ("--external_weight", "E10006"), ("--enable_compress_weight", "E10005"),
                                        ("--input_format", "E10001")])
def test_flag_value_error_codes(flag, code):
    from atccheck.atc.facts import known_flags

    errors = tables().atc_options_extra["flag_value_errors"]
    assert "cmd_flag_info.cc" in errors["source"]
    assert known_flags()[flag].value_error == code
    assert code in tables().atc_errors


@pytest.mark.parametrize("flag, kind", [("--enable_compress_weight", "bool"), ("--compress_weight_conf", "path"),
                                        ("--help", "bool_optional")])
def test_flag_overrides(flag, kind):
    from atccheck.atc.facts import known_flags

    (override,) = [o for o in tables().atc_options_extra["flag_overrides"] if o["name"] == flag]
    assert override["type"] == kind and override["source"].startswith("atc_options.json parameters[")
    assert known_flags()[flag].kind == kind


def test_no_code_compares_a_profile_with_a_literal():
    """Per-release behaviour is a profile field in profiles.json, never a comparison with a release id or era."""
    import re

    from conftest import PROJECT

    literal = re.compile(r"""(profile(\.id)?|mapping_from|kernel_release|\.startswith)\s*(==|!=|\(|\s+in\s+)\s*"""
                         r"""[(\[{]?\s*["'](\d+\.\d+|canndev-2022|hicann-2026|E1[39])""")
    era = re.compile(r"""["'](canndev-2022|hicann-2026)""")  # a mapping era or kernel release named in code
    found = [f"{path.relative_to(PROJECT)}:{number}"
             for path in sorted((PROJECT / "atccheck").rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if literal.search(line) or era.search(line)]
    assert found == []


def test_plugin_free_node_types_have_a_source():
    """The pre-check report and the rules both read kOnnxOpMap's types from registry.json."""
    assert tables().native_types == frozenset({"Constant", "FileConstant", "Input"})
    assert "kOnnxOpMap" in tables().docs["registry.json"]["native_types_source"]


def test_precision_fp16_casts():
    casts = tables().atc_options_extra["precision_fp16_casts"]
    assert casts["dtypes"] == ["bfloat16", "float32"] and casts["to"] == "float16"
    assert "--precision_mode" in casts["source"] and "force_fp16" in casts["source"]
