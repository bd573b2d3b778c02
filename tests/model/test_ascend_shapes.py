"""Ascend infer-shape facts (op_tables/infer_shapes.json) read against nodes: conditions and shape expressions."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.engine import prepare, shapes_for
from atccheck.model import ascend_shapes
from atccheck.model.shapes import infer_shapes
from atccheck.tables import tables
from builders import init, make_model, nms_model, tensor_input


def reading(model, op, profile):
    shapes = infer_shapes(model, {})
    graph_consts = {t.name: t for t in model.graph.initializer}
    from atccheck.model import onnxpb

    known = ascend_shapes.Values(shapes, {n: onnxpb.to_array(t) for n, t in graph_consts.items()})
    node = next(n for n in model.graph.node if n.op_type == op)
    return ascend_shapes.read(node, tables().infer_shape(op, profile), known)


@pytest.mark.parametrize(("batches", "classes", "boxes", "max_out", "rows"),
                         [(1, 3, 100, 10, 30), (2, 4, 50, 7, 56), (1, 2, 5, 10, 10), (1, 1, 8, 0, 0)])
def test_nms_rows_follow_the_2022_formula(batches, classes, boxes, max_out, rows):
    r = reading(nms_model(max_out, batches=batches, classes=classes, boxes=boxes), "NonMaxSuppression", "6.0")
    assert r.holds and r.failed is None and r.shapes == {0: (rows, 3)}


def test_nms_conditions():
    assert reading(nms_model(runtime=True), "NonMaxSuppression", "6.0").failed == "not-constant"
    assert reading(nms_model(None), "NonMaxSuppression", "6.0").failed == "not-constant"
    assert reading(nms_model(2**31), "NonMaxSuppression", "6.0").failed == "out-of-range"
    unknown = reading(nms_model(10), "NonMaxSuppression", "9.0")
    assert not unknown.holds and unknown.failed is None and unknown.shapes == {}


def one_node(op, inputs, inits=(), opset=13, outputs=1, **attrs):
    names = [n for n, _ in inputs] + [t.name for t in inits]
    node = helper.make_node(op, names, [f"y{i}" for i in range(outputs)], **attrs)
    ins = [tensor_input(n, shape, elem) for n, (shape, elem) in inputs]
    outs = [helper.make_tensor_value_info(f"y{i}", 0, None) for i in range(outputs)]
    return make_model([node], ins, outs, list(inits), opset=opset)


F = TensorProto.FLOAT
AGREEING = [
    ("TopK", one_node("TopK", [("x", ([2, 10, 5], F))], [init("k", np.array([3], np.int64))], outputs=2, axis=1)),
    ("TopK", one_node("TopK", [("x", ([4, 6], F))], [init("k", np.array([2], np.int64))], outputs=2)),
    ("Where", one_node("Where", [("c", ([1, 5], TensorProto.BOOL)), ("a", ([3, 1], F)), ("b", ([5], F))])),
    ("RoiAlign", one_node("RoiAlign", [("x", ([2, 8, 16, 16], F)), ("rois", ([7, 4], F)),
                                       ("idx", ([7], TensorProto.INT64))], output_height=3, output_width=5)),
    ("RoiAlign", one_node("RoiAlign", [("x", ([1, 4, 9, 9], F)), ("rois", ([2, 4], F)),
                                       ("idx", ([2], TensorProto.INT64))])),
]


@pytest.mark.parametrize(("op", "model"), AGREEING, ids=[f"{op}-{i}" for i, (op, _) in enumerate(AGREEING)])
def test_static_facts_that_say_onnx_agrees_give_onnx_shapes(op, model):
    """The shape expressions are checked against ONNX's own inference where the fact says the two agree."""
    shapes = infer_shapes(model, {})
    for profile in ("6.0", "9.0"):
        fact = tables().infer_shape(op, profile)
        if fact.static not in ("always", "when"):
            continue
        assert fact.onnx_agrees
        r = reading(model, op, profile)
        assert r.holds
        for index, shape in r.shapes.items():
            assert shapes.get(f"y{index}").shape == shape, (op, profile, index)


def test_only_profiles_with_an_override_get_their_own_shapes():
    prepared = prepare(nms_model(10, gather=True))
    old = shapes_for(prepared, tables(), "6.0")
    assert old.get("picked").shape == (1, 30, 4)
    assert shapes_for(prepared, tables(), "5.0") is old  # same overrides: computed once
    assert shapes_for(prepared, tables(), "9.0") is prepared.shapes
    assert not prepared.shapes.get("selected").is_static  # the ONNX view is left as it was


def test_the_shape_summary_is_the_profiles():
    """The report's shape summary counts the shapes the rules saw for its profile, and names the outputs only
    that profile's infer-shape facts make static: NonMaxSuppression's rows on 6.0, unknown on 8.0."""
    from atccheck.api import check
    from atccheck.emit.text import render

    model = nms_model(10, gather=True)
    old, new = (check(model, soc="Ascend310P3", cann=cann) for cann in ("6.0", "8.0"))
    assert old.shapes.profile == "6.0" and new.shapes.profile == "8.0"
    assert old.shapes.unknown_values == 0
    assert old.shapes.static_by_infer_facts == 3 and old.shapes.first_static_by_infer_facts == (
        "selected", "index", "picked")
    assert new.shapes.unknown_values == 3 and new.shapes.static_by_infer_facts == 0
    assert old.to_dict()["shapes"]["static_by_infer_facts"] == 3
    assert "static only by CANN 6.0's infer-shape functions" in render([old])
    assert "infer-shape functions" not in render([new])
