from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.passes.unroll_loop import MAX_TRIP_COUNT, UnrollLoop
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context, rule_findings

INT64, BOOL = TensorProto.INT64, TensorProto.BOOL


def loop_body(cond_out="cond_in", scan=True, extra_nodes=(), extra_inits=()):
    """acc_out = acc_in * w + x * float(i)   (x from the outer scope, w a body constant)."""
    nodes = [
        helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["x", "i_f"], ["xi"]),
        helper.make_node("Mul", ["acc_in", "w"], ["scaled"]),
        helper.make_node("Add", ["scaled", "xi"], ["acc_out"]),
        *extra_nodes,
    ]
    outputs = [tensor_input(cond_out, [], BOOL), tensor_input("acc_out", [3])]
    if scan:
        nodes.append(helper.make_node("Relu", ["acc_out"], ["step"]))
        outputs.append(tensor_input("step", [3]))
    inputs = [tensor_input("i", [], INT64), tensor_input("cond_in", [], BOOL), tensor_input("acc_in", [3])]
    inits = [init("w", np.array([0.5, -1.0, 2.0], np.float32)), *extra_inits]
    return helper.make_graph(nodes, "body", inputs, outputs, inits)


def loop_model(trips=5, body=None, trip_input=False, cond="true", scan=True):
    body = body or loop_body(scan=scan)
    inits = [init("acc0", np.zeros(3, np.float32))]
    inputs = [tensor_input("x", [3])]
    if trip_input:
        inputs.append(tensor_input("M", [], INT64))
    else:
        inits.append(init("M", np.array(trips, np.int64)))
    if cond is not None:
        inits.append(init("cond", np.array(cond == "true")))
    outs = ["acc"] + (["steps"] if scan else [])
    loop = helper.make_node("Loop", ["M", "cond" if cond is not None else "", "acc0"], outs, name="loop", body=body)
    outputs = [tensor_input("acc", [3])] + ([tensor_input("steps", [trips, 3])] if scan else [])
    return make_model([loop], inputs, outputs, inits, opset=13)


def test_loop_is_unrolled_with_scan_outputs():
    model = loop_model()
    new = assert_rewrite(UnrollLoop, model, pass_context(unsafe=True))
    ops = op_types(new)
    assert "Loop" not in ops and ops.count("Add") == 5 and "Concat" in ops
    assert ("unsupported-op", "Loop") in rule_findings(model, "unsupported-op")
    assert rule_findings(new, "unsupported-op") == []


def test_unsafe_and_condition_through_identity_and_no_cond_input():
    assert UnrollLoop.safe is False
    body = loop_body(cond_out="cond_out", scan=False, extra_nodes=[helper.make_node("Identity", ["cond_in"], ["cond_out"])])
    new = assert_rewrite(UnrollLoop, loop_model(3, body=body, cond=None, scan=False), pass_context(unsafe=True))
    assert op_types(new).count("Mul") == 6


def test_constant_true_condition_in_the_body():
    const = helper.make_node("Constant", [], ["always"], value=helper.make_tensor("t", BOOL, [], [True]))
    body = loop_body(cond_out="always", extra_nodes=[const])
    assert_rewrite(UnrollLoop, loop_model(4, body=body), pass_context(unsafe=True))


def test_single_iteration_and_zero_iterations_without_scans():
    assert_rewrite(UnrollLoop, loop_model(1), pass_context(unsafe=True))
    new = assert_rewrite(UnrollLoop, loop_model(0, scan=False), pass_context(unsafe=True))
    assert op_types(new) == ["Identity"]


def test_loop_inside_an_if_branch():
    def branch(name):
        loop = helper.make_node("Loop", ["M", "cond", "acc0"], [f"{name}_acc"], name=f"{name}_loop",
                                body=loop_body(scan=False))
        return helper.make_graph([loop], name, [], [tensor_input(f"{name}_acc", [3])])

    node = helper.make_node("If", ["c"], ["acc"], then_branch=branch("then"), else_branch=branch("else"))
    inits = [init("acc0", np.zeros(3, np.float32)), init("M", np.array(2, np.int64)), init("cond", np.array(True))]
    model = make_model([node], [tensor_input("c", [], BOOL), tensor_input("x", [3])], [tensor_input("acc", [3])], inits)
    new = assert_rewrite(UnrollLoop, model, pass_context(unsafe=True))
    assert "Loop" not in op_types(new) and "If" in op_types(new)


@pytest.mark.parametrize("model,why", [
    (loop_model(trip_input=True), "data-dependent"),
    (loop_model(MAX_TRIP_COUNT + 1), "exceed"),
    (loop_model(cond="false"), "initial condition"),
    (loop_model(body=loop_body(cond_out="going", extra_nodes=[
        helper.make_node("Less", ["i", "limit"], ["going"])], extra_inits=[init("limit", np.array(3, np.int64))])),
     "while loop"),
    (loop_model(0), "zero times"),
])
def test_refusals_leave_the_loop_with_a_note(model, why):
    result = apply(UnrollLoop, model, pass_context(unsafe=True))
    assert not result.modified and "Loop" in op_types(result.model)
    assert why in result.notes[0]


def loop_over_a_dim(dims):
    """for i in range(seq.shape[1]): the trip count is Gather(Shape(seq), 1), constant once the dims are."""
    nodes = [helper.make_node("Shape", ["seq"], ["shape"], name="shape"),
             helper.make_node("Gather", ["shape", "one"], ["M"], name="dim1", axis=0),
             helper.make_node("Loop", ["M", "cond", "acc0"], ["acc"], name="loop", body=loop_body(scan=False)),
             helper.make_node("ReduceSum", ["seq", "axes"], ["total"], name="total", keepdims=0)]
    inits = [init("one", np.array(1, np.int64)), init("cond", np.array(True)), init("acc0", np.zeros(3, np.float32)),
             init("axes", np.array([0, 1], np.int64))]
    return make_model(nodes, [tensor_input("x", [3]), tensor_input("seq", dims)],
                      [tensor_input("acc", [3]), tensor_input("total", [])], inits, opset=13)


def test_a_trip_count_from_a_dim_is_unrolled_once_the_dim_is_static():
    model = loop_over_a_dim([1, "steps"])
    result = apply(UnrollLoop, model, pass_context(unsafe=True))
    assert not result.modified
    assert "input dims left dynamic" in result.notes[0] and "--input-shape for seq" in result.notes[0]
    new = assert_rewrite(UnrollLoop, loop_over_a_dim([1, 4]), pass_context(unsafe=True))
    assert "Loop" not in op_types(new) and op_types(new).count("Add") == 4


def test_fix_unrolls_a_loop_over_a_dim_given_by_input_shape():
    from atccheck.fixing.pipeline import PassStatus, fix

    outcome = fix(loop_over_a_dim([1, "steps"]), soc="Ascend310P3", input_shapes="seq:1,4", unsafe_fixes=True,
                  write=False)
    unroll = [p for p in outcome.passes if p.name == "unroll-loop"]
    assert unroll and unroll[-1].status is PassStatus.APPLIED
    assert not any(n.op_type == "Loop" for n in outcome.model.graph.node)
    assert outcome.verification.status == "verified"


def test_a_data_dependent_loop_says_so_in_the_fix_report():
    from atccheck.fixing.pipeline import fix

    outcome = fix(loop_model(trip_input=True), soc="Ascend310P3", unsafe_fixes=True, write=False)
    why = [r.why for r in outcome.remaining if r.finding.location.op_type == "Loop"]
    assert why and "data-dependent" in why[0] and "it cannot be unrolled" in why[0]
    assert "atccheck fix" not in why[0]
