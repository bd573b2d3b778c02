from __future__ import annotations

import math

import numpy as np
from onnx import TensorProto, helper

from atccheck.passes.decompose_contrib_gelu import DecomposeContribGelu
from builders import CONTRIB_DOMAIN as MS, contrib_model, init, make_model, tensor_input
from ort_compare import assert_rewrite, op_types, opset_domains, ort_optimized, pass_context, rule_findings

PASS = DecomposeContribGelu


def test_the_gelu_onnxruntime_fuses_becomes_erf_arithmetic():
    nodes = [helper.make_node("Div", ["x", "sqrt2"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
             helper.make_node("Add", ["e", "one"], ["e1"]), helper.make_node("Mul", ["x", "e1"], ["m"]),
             helper.make_node("Mul", ["m", "half"], ["y"])]
    inits = [init("sqrt2", np.array(math.sqrt(2), np.float32)), init("one", np.array(1, np.float32)),
             init("half", np.array(0.5, np.float32))]
    fused = ort_optimized(make_model(nodes, [tensor_input("x", [2, 5, 8])], [tensor_input("y", [2, 5, 8])], inits))
    assert [(n.domain, n.op_type) for n in fused.graph.node] == [(MS, "Gelu")]
    new = assert_rewrite(PASS, fused, pass_context())
    assert "Erf" in op_types(new) and MS not in opset_domains(new)
    assert rule_findings(new, "custom-domain-op") == []


def test_float16():
    assert_rewrite(PASS, contrib_model("Gelu", elem=TensorProto.FLOAT16), pass_context())
