from __future__ import annotations

import pytest
from onnx import TensorProto

from atccheck.passes.decompose_contrib_skip_simplified_layer_normalization import (
    DecomposeContribSkipSimplifiedLayerNormalization,
)
from builders import CONTRIB_DOMAIN as MS, contrib_model
from ort_compare import apply, assert_rewrite, op_types, opset_domains, pass_context, rule_findings

PASS = DecomposeContribSkipSimplifiedLayerNormalization
OP = "SkipSimplifiedLayerNormalization"


@pytest.mark.parametrize("extra", [("skip", "gamma"), ("skip", "gamma", "bias")])
def test_becomes_adds_and_rms_norm(extra):
    model = contrib_model(OP, extra, epsilon=1e-5)
    new = assert_rewrite(PASS, model, pass_context())
    assert OP not in op_types(new) and op_types(new).count("ReduceMean") == 1
    assert opset_domains(new) == [""] and rule_findings(new, "custom-domain-op") == []


def test_default_epsilon_sum_output_and_float16():
    model = contrib_model(OP, ("skip", "gamma", "bias"), outputs=("y", "", "", "sum"), graph_outputs=("sum",))
    new = assert_rewrite(PASS, model, pass_context())
    assert {o: n.op_type for n in new.graph.node for o in n.output}["sum"] == "Add"
    assert_rewrite(PASS, contrib_model(OP, ("skip", "gamma"), elem=TensorProto.FLOAT16), pass_context())


def test_left_alone_when_its_statistics_are_read():
    model = contrib_model(OP, ("skip", "gamma"), outputs=("y", "", "inv"), graph_outputs=("inv",))
    result = apply(PASS, model, pass_context())
    assert not result.modified and "inv" in result.notes[0] and MS in opset_domains(result.model)
