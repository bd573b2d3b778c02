from __future__ import annotations

import pytest
from onnx import TensorProto

from atccheck.passes.decompose_contrib_fast_gelu import DecomposeContribFastGelu
from builders import CONTRIB_DOMAIN as MS, contrib_model
from ort_compare import assert_rewrite, op_types, opset_domains, pass_context, rule_findings

DOMAIN_RULES = ("custom-domain-op", "multiple-opset-imports")


def domain_findings(model):
    return [name for name, _ in rule_findings(model, DOMAIN_RULES)]


@pytest.mark.parametrize("extra", [(), ("bias",)])
def test_fast_gelu_with_and_without_bias(extra):
    model = contrib_model("FastGelu", extra)
    new = assert_rewrite(DecomposeContribFastGelu, model, pass_context())
    assert "FastGelu" not in op_types(new) and "Tanh" in op_types(new)
    assert ("Add" in op_types(new)) and opset_domains(new) == [""]
    assert "custom-domain-op" in domain_findings(model)
    assert domain_findings(new) == []


def test_float16():
    assert_rewrite(DecomposeContribFastGelu, contrib_model("FastGelu", ("bias",), elem=TensorProto.FLOAT16), pass_context())


def test_import_kept_while_other_contrib_nodes_remain():
    from onnx import helper

    model = contrib_model("FastGelu", relu_after=True)
    model.graph.node[1].CopyFrom(helper.make_node("QuickGelu", ["y"], ["z"], name="other", domain=MS))
    new = assert_rewrite(DecomposeContribFastGelu, model, pass_context())
    assert op_types(new).count("QuickGelu") == 1 and MS in opset_domains(new)
