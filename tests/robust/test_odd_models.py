"""Models that made passes raise: each pass that cannot take such a model says why in one line.

A pass that raises is reported as reverted with a Python exception; a pass that meets a model
its tools cannot take leaves it as it is and says what it could not do (``left as is: ...``).
The models come from the fuzzer: If nested near protobuf's depth limit, sparse initializers,
a model-local function with a broken body or calling itself, odd element types, a huge Loop
trip count.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from atccheck.fixing.pipeline import fix
from atccheck.passes._onnx_tools import PROTOBUF_DEPTH_LIMIT, message_depth
from builders import make_model, tensor_input

FLOAT = TensorProto.FLOAT


def expanded_at_run_time(value: str, out: str, rank: int) -> tuple[list[onnx.NodeProto], onnx.ValueInfoProto]:
    """Expand(value, new_shape) with the shape a graph input: ATC wants that shape constant, and
    the rules send it to simplify (the node, and the input to add to the graph)."""
    return ([helper.make_node("Expand", [value, "new_shape"], [out], name=f"{value}_expand")],
            tensor_input("new_shape", [rank], TensorProto.INT64))


def with_local_function(body: list[onnx.NodeProto]) -> onnx.ModelProto:
    """x -> local::Twice -> AveragePool -> Expand: single-opset-import inlines Twice, and simplify runs."""
    fn = helper.make_function("local", "Twice", ["a"], ["b"], body, [helper.make_opsetid("", 13),
                                                                       helper.make_opsetid("local", 1)])
    expand, shape_input = expanded_at_run_time("z", "out", 4)
    return make_model(
        [helper.make_node("Twice", ["x"], ["y"], name="twice", domain="local"),
         helper.make_node("AveragePool", ["y"], ["z"], name="pool", kernel_shape=[2, 2], strides=[2, 2]), *expand],
        [tensor_input("x", [1, 2, 8, 8]), shape_input], [tensor_input("out", [1, 2, 4, 4])],
        extra_opsets={"local": 1}, functions=[fn])


def nested_if(depth: int) -> onnx.ModelProto:
    """The local-function model with an If nested ``depth`` deep beside it (outputs without shapes)."""
    model = with_local_function([helper.make_node("Add", ["a", "a"], ["b"])])
    leaf = helper.make_graph([helper.make_node("Identity", ["x"], ["d0"])], "leaf", [],
                             [helper.make_tensor_value_info("d0", FLOAT, None)])
    inner = leaf
    for level in range(depth):
        node = helper.make_node("If", ["flag"], [f"d{level + 1}"], then_branch=inner, else_branch=leaf,
                                name=f"if{level}")
        inner = helper.make_graph([node], f"level{level}", [],
                                  [helper.make_tensor_value_info(f"d{level + 1}", FLOAT, None)])
    model.graph.initializer.append(numpy_helper.from_array(np.array(True), "flag"))
    model.graph.node.extend(inner.node)
    model.graph.output.append(helper.make_tensor_value_info(inner.output[0].name, FLOAT, None))
    return model


def sparse_resize() -> onnx.ModelProto:
    """Resize whose scales are a sparse initializer, at an opset convert-opset brings down."""
    expand, shape_input = expanded_at_run_time("r", "y", 4)
    model = make_model([helper.make_node("Resize", ["x", "", "scales"], ["r"], name="resize", mode="nearest"), *expand],
                       [tensor_input("x", [1, 3, 8, 8]), shape_input], [tensor_input("y", [1, 3, 16, 16])], opset=18)
    values = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    indices = numpy_helper.from_array(np.arange(4, dtype=np.int64), "scales_indices")
    model.graph.sparse_initializer.append(helper.make_sparse_tensor(values, indices, [4]))
    return model


def loop_with_trip_count(trips: int) -> onnx.ModelProto:
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Add", ["v", "one"], ["v_out"])],
        "body",
        [tensor_input("i", [], TensorProto.INT64), tensor_input("cond_in", [], TensorProto.BOOL), tensor_input("v", [1, 4])],
        [tensor_input("cond_out", [], TensorProto.BOOL), tensor_input("v_out", [1, 4])],
        [numpy_helper.from_array(np.ones((1, 4), np.float32), "one")])
    expand, shape_input = expanded_at_run_time("l", "y", 2)
    return make_model(
        [helper.make_node("Loop", ["trip", "cond", "x"], ["l"], name="loop", body=body), *expand],
        [tensor_input("x", [1, 4]), shape_input], [tensor_input("y", [1, 4])],
        [numpy_helper.from_array(np.array(trips, np.int64), "trip"), numpy_helper.from_array(np.array(True), "cond")])


def input_of_type(elem_type: int) -> onnx.ModelProto:
    model = with_local_function([helper.make_node("Add", ["a", "a"], ["b"])])
    model.graph.input[0].type.tensor_type.elem_type = elem_type
    return model


def batch_norm_with_a_float_axis() -> onnx.ModelProto:
    """BatchNormalization has no 'axis' attribute: onnx's checker, which onnxsim runs first, rejects it."""
    bn = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["n"], name="bn")
    bn.attribute.append(helper.make_attribute("axis", 1.5))
    params = [numpy_helper.from_array(np.full(3, value, np.float32), name)
              for name, value in (("s", 1.0), ("b", 0.0), ("m", 0.0), ("v", 1.0))]
    expand, shape_input = expanded_at_run_time("n", "y", 4)
    return make_model([bn, *expand], [tensor_input("x", [1, 3, 8, 8]), shape_input], [tensor_input("y", [1, 3, 8, 8])],
                      params)


MODELS = {
    "batch-norm-with-a-float-axis": batch_norm_with_a_float_axis,
    "if-nested-32-deep": lambda: nested_if(32),
    "sparse-initializer-into-resize": sparse_resize,
    "loop-trip-count-2^62": lambda: loop_with_trip_count(2**62),
    "input-of-elem-type-25": lambda: input_of_type(25),
    "input-of-elem-type-15": lambda: input_of_type(15),
    "function-reading-an-undefined-value": lambda: with_local_function(
        [helper.make_node("Add", ["a", "nowhere"], ["b"])]),
    "function-calling-itself": lambda: with_local_function(
        [helper.make_node("Twice", ["a"], ["b"], domain="local")]),
    "function-with-an-unknown-op": lambda: with_local_function([helper.make_node("Unknown", ["a"], ["b"])]),
}
SOCS = [("Ascend310P3", "8.0"), ("Ascend310", "6.0")]


@pytest.mark.parametrize("soc,cann", SOCS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_no_pass_raises_on_an_odd_model(tmp_path, name, soc, cann):
    path = tmp_path / "m.onnx"
    onnx.save(MODELS[name](), str(path))
    outcome = fix(str(path), soc, cann, write=False, unsafe_fixes=True)
    raised = [f"{r.name}: {r.reason}" for r in outcome.passes if r.reason and "raised" in r.reason]
    assert raised == []
    crashed = [f.message for f in [*outcome.before.findings, *outcome.after.findings] if f.code == "AC000"]
    assert crashed == []


def test_deep_nesting_is_said_in_one_line(tmp_path):
    model = nested_if(32)
    assert message_depth(model) - 1 > PROTOBUF_DEPTH_LIMIT - 3  # near the limit, yet it loads
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    outcome = fix(str(path), "Ascend310P3", write=False)
    [inline] = [r for r in outcome.passes if r.name == "single-opset-import"]
    notes = [n for n in inline.notes if "protobuf" in n]
    assert len(notes) == 1 and "\n" not in notes[0] and "left as they are" in notes[0]


def test_a_model_the_checker_rejects_is_left_for_onnxsim_to_refuse_in_one_line(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(batch_norm_with_a_float_axis(), str(path))
    outcome = fix(str(path), "Ascend310P3", write=False)
    [simplify] = [r for r in outcome.passes if r.name == "simplify"]
    assert simplify.status.value == "unchanged"
    assert [n for n in simplify.notes if n.startswith("left as is: onnxsim refuses the model (")
            and "axis" in n and "\n" not in n]


def test_a_broken_function_is_left_for_the_inliner_to_refuse_in_one_line(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(with_local_function([helper.make_node("Twice", ["a"], ["b"], domain="local")]), str(path))
    outcome = fix(str(path), "Ascend310P3", write=False)
    [inline] = [r for r in outcome.passes if r.name == "single-opset-import"]
    assert any(n.startswith("model-local functions left as they are: onnx's inliner refuses the model") for n in
               inline.notes)


def test_onnxsim_never_gets_a_sparse_initializer(tmp_path):
    """onnxsim's C++ core crashes the process on one: the run is a separate process so a crash
    fails this test rather than the suite."""
    model = make_model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="conv"), helper.make_node("Relu", ["y"], ["z"], name="relu")],
        [tensor_input("x", ["batch", 3, 8, 8])], [tensor_input("z", ["batch", 4, 6, 6])])
    weight = np.linspace(-1, 1, 4 * 3 * 3 * 3, dtype=np.float32)
    model.graph.sparse_initializer.append(helper.make_sparse_tensor(
        numpy_helper.from_array(weight, "w"), numpy_helper.from_array(np.arange(weight.size, dtype=np.int64), "w_i"),
        [4, 3, 3, 3]))
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    script = ("import sys, onnx; from atccheck.passes.base import PassContext; "
              "from atccheck.passes.simplify import Simplify; from atccheck.target import resolve_target; "
              "ctx = PassContext(resolve_target('Ascend310P3', '8.0', 'force_fp16'), {}, ()); "
              "result = Simplify().run(onnx.load(sys.argv[1]), ctx); print(result.modified, result.notes)")
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.startswith("False") and "sparse initializers, which onnxsim cannot take" in done.stdout
