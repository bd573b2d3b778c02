from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from atccheck.passes.decompose_contrib_fused_conv import DecomposeContribFusedConv
from builders import CONTRIB_DOMAIN as MS, init, make_model, tensor_input
from ort_compare import (
    apply,
    assert_rewrite,
    assert_same_outputs,
    op_types,
    opset_domains,
    ort_optimized,
    pass_context,
    rule_findings,
)

PASS = DecomposeContribFusedConv
RNG = np.random.default_rng(3)
W = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
B = RNG.standard_normal(4).astype(np.float32)


def conv_then(act_nodes, extra_inits=()):
    """Conv(x) then the given nodes reading 'c' and writing 'y', in the standard domain."""
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"), *act_nodes]
    inits = [init("w", W), init("b", B), *extra_inits]
    return make_model(nodes, [tensor_input("x", [1, 3, 8, 8])], [tensor_input("y", [1, 4, 8, 8])], inits, opset=17)


ACTIVATIONS = {
    "Relu": ([helper.make_node("Relu", ["c"], ["y"])], []),
    "Clip": ([helper.make_node("Clip", ["c", "lo", "hi"], ["y"])],
             [init("lo", np.array(0, np.float32)), init("hi", np.array(6, np.float32))]),
    "HardSigmoid": ([helper.make_node("HardSigmoid", ["c"], ["y"], alpha=0.3)], []),
    "LeakyRelu": ([helper.make_node("LeakyRelu", ["c"], ["y"], alpha=0.2)], []),
    "Sigmoid": ([helper.make_node("Sigmoid", ["c"], ["y"])], []),
    "Tanh": ([helper.make_node("Tanh", ["c"], ["y"])], []),
}


@pytest.mark.parametrize("kind", sorted(ACTIVATIONS))
def test_what_onnxruntime_fuses_becomes_conv_and_activation(kind):
    fused = ort_optimized(conv_then(*ACTIVATIONS[kind]))
    assert [n.op_type for n in fused.graph.node] == ["FusedConv"]
    new = assert_rewrite(PASS, fused, pass_context())
    assert "FusedConv" not in op_types(new) and op_types(new)[0] == "Conv"
    assert MS not in opset_domains(new) and rule_findings(new, "custom-domain-op") == []


def fused_conv_model(**attrs):
    node = helper.make_node("FusedConv", ["x", "w", "b", "z"], ["y"], name="fc", domain=MS, pads=[1, 1, 1, 1], **attrs)
    return make_model([node], [tensor_input("x", [1, 3, 8, 8]), tensor_input("z", [1, 4, 8, 8])],
                      [tensor_input("y", [1, 4, 8, 8])], [init("w", W), init("b", B)], opset=17,
                      extra_opsets={MS: 1})


@pytest.mark.parametrize("attrs", [dict(activation="Relu"), dict(activation="Tanh"), {},
                                   dict(activation="LeakyRelu", activation_params=[0.1])])
def test_sum_input_is_added_before_the_activation(attrs):
    new = assert_rewrite(PASS, fused_conv_model(**attrs), pass_context())
    assert op_types(new)[:2] == ["Conv", "Add"]


def test_unknown_activation_is_left_with_a_note():
    result = apply(PASS, fused_conv_model(activation="Gelu"), pass_context())
    assert not result.modified and "Gelu" in result.notes[0]


def test_silu_which_newer_onnxruntime_fuses_matches_the_unfused_graph():
    # this onnxruntime has no Silu in FusedConv: compare with the Conv, Sigmoid, Mul it stands for
    node = helper.make_node("FusedConv", ["x", "w", "b"], ["y"], name="fc", domain=MS, pads=[1, 1, 1, 1],
                            activation="Silu")
    fused = make_model([node], [tensor_input("x", [1, 3, 8, 8])], [tensor_input("y", [1, 4, 8, 8])],
                       [init("w", W), init("b", B)], opset=17, extra_opsets={MS: 1})
    result = apply(PASS, fused, pass_context())
    assert result.modified
    plain = conv_then([helper.make_node("Sigmoid", ["c"], ["s"]), helper.make_node("Mul", ["c", "s"], ["y"])])
    assert_same_outputs(plain, result.model, PASS.tolerance)
