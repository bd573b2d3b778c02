from __future__ import annotations

import pytest
from onnx import TensorProto

from atccheck.passes.decompose_contrib_skip_layer_normalization import DecomposeContribSkipLayerNormalization
from builders import CONTRIB_DOMAIN as MS, contrib_model
from ort_compare import apply, assert_rewrite, op_types, opset_domains, pass_context, rule_findings

PASS = DecomposeContribSkipLayerNormalization

DOMAIN_RULES = ("custom-domain-op", "multiple-opset-imports")


def domain_findings(model):
    return [name for name, _ in rule_findings(model, DOMAIN_RULES)]


@pytest.mark.parametrize("extra", [("skip", "gamma"), ("skip", "gamma", "beta"), ("skip", "gamma", "beta", "bias"),
                                   ("skip", "gamma", "", "bias")])
def test_skip_layer_norm_becomes_adds_and_layer_norm(extra):
    model = contrib_model("SkipLayerNormalization", extra, epsilon=1e-5)
    new = assert_rewrite(PASS, model, pass_context())
    assert "SkipLayerNormalization" not in op_types(new) and op_types(new).count("ReduceMean") == 2
    assert opset_domains(new) == [""] and domain_findings(model) and domain_findings(new) == []


def test_default_epsilon_and_sum_output_kept():
    model = contrib_model("SkipLayerNormalization", ("skip", "gamma", "beta", "bias"),
                          outputs=("y", "", "", "sum"), graph_outputs=("sum",))
    new = assert_rewrite(PASS, model, pass_context())
    producers = {o: n.op_type for n in new.graph.node for o in n.output}
    assert producers["sum"] == "Add"


def test_float16_input():
    assert_rewrite(PASS, contrib_model("SkipLayerNormalization", ("skip", "gamma", "beta"), elem=TensorProto.FLOAT16),
                   pass_context())


def test_left_alone_when_its_statistics_are_read():
    model = contrib_model("SkipLayerNormalization", ("skip", "gamma"), outputs=("y", "mean"), graph_outputs=("mean",))
    result = apply(PASS, model, pass_context())
    assert not result.modified and "mean" in result.notes[0]
    assert "SkipLayerNormalization" in op_types(result.model) and MS in opset_domains(result.model)
