from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.passes.convert_opset import ConvertOpset
from builders import init, make_model, tensor_input
from fix_harness import assert_valid, max_error, named, run_pass


def opset(model):
    return next(e.version for e in model.opset_import if e.domain in ("", "ai.onnx"))


def small_net(opset_version=17):
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Unsqueeze", ["r", "axes"], ["y"], name="unsqueeze"),
    ]
    inits = [init("w", np.random.default_rng(0).standard_normal((4, 3, 3, 3)).astype(np.float32)),
             init("axes", np.array([0], np.int64))]
    return make_model(nodes, [tensor_input("x", [1, 3, 8, 8])], [tensor_input("y", [1, 1, 4, 8, 8])], inits,
                      opset=opset_version)


def test_opset_beyond_the_profile_is_brought_down_and_the_findings_go():
    model = small_net(17)
    assert named(model, "opset-not-registered", cann="6.0")
    result = run_pass(ConvertOpset, model, cann="6.0")
    assert result.modified
    assert opset(result.model) == 15  # the highest 6.0 registers for every op here
    assert named(result.model, "opset-not-registered", cann="6.0") == []
    assert_valid(result.model)
    assert max_error(model, result.model).max_abs == 0.0
    assert not run_pass(ConvertOpset, result.model, cann="6.0").modified  # idempotent


def test_attribute_form_is_rewritten_by_the_converter():
    result = run_pass(ConvertOpset, small_net(17), cann="5.0")  # 5.0 registers opsets 9-13
    assert opset(result.model) == 13
    down = run_pass(ConvertOpset, small_net(13), cann="5.0")
    assert not down.modified


def test_an_op_without_an_older_definition_blocks_and_is_left_to_decompose():
    nodes = [helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=-1, name="ln")]
    inits = [init("s", np.ones(8, np.float32)), init("b", np.zeros(8, np.float32))]
    model = make_model(nodes, [tensor_input("x", [1, 4, 8])], [tensor_input("y", [1, 4, 8])], inits, opset=17)
    result = run_pass(ConvertOpset, model, cann="6.0")
    assert not result.modified
    assert any("LayerNormalization has no definition" in n and "decompose" in n for n in result.notes)


def test_a_registered_opset_is_left_alone():
    result = run_pass(ConvertOpset, small_net(13), cann="8.0")
    assert not result.modified


def reduce_net(noop: int, axes: list[int], opset_version=20):
    """A ReduceMean-18 as exporters at opset 18+ write it: axes as an input, noop_with_empty_axes set."""
    nodes = [helper.make_node("ReduceMean", ["x", "axes"], ["y"], keepdims=1, noop_with_empty_axes=noop, name="mean")]
    return make_model(nodes, [tensor_input("x", [1, 3, 4, 4])], [tensor_input("y", [1, 3, 1, 1])],
                      [init("axes", np.array(axes, np.int64))], opset=opset_version)


def test_an_attribute_the_lower_opset_lacks_goes_when_it_keeps_the_old_meaning():
    for noop in (0, 1):  # with axes named, noop_with_empty_axes changes nothing
        model = reduce_net(noop, [2, 3])
        result = run_pass(ConvertOpset, model, cann="6.0")
        assert result.modified and opset(result.model) < 18
        node = result.model.graph.node[0]
        assert [a.name for a in node.attribute if a.name == "noop_with_empty_axes"] == []
        assert_valid(result.model)  # onnx's converter alone leaves the attribute, and the checker rejects it
        assert max_error(model, result.model).max_abs == 0.0


def test_noop_with_empty_axes_on_no_axes_blocks_the_lower_opsets():
    """ReduceMean without axes and noop_with_empty_axes=1 is an Identity; below 18 it would average everything."""
    nodes = [helper.make_node("ReduceMean", ["x"], ["y"], keepdims=1, noop_with_empty_axes=1, name="mean")]
    model = make_model(nodes, [tensor_input("x", [1, 3, 4, 4])], [tensor_input("y", [1, 3, 4, 4])], opset=20)
    result = run_pass(ConvertOpset, model, cann="6.0")
    assert not result.modified
    assert any("noop_with_empty_axes=1 without axes" in n for n in result.notes), result.notes
