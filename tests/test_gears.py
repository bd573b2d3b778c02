"""Checking with a gear option: every gear is judged as the static model ATC builds for it."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from atccheck.api import check
from atccheck.atc.spec import Gears, ShapeEntry, gear_shapes
from atccheck.errors import UsageError
from atccheck.findings import Finding, FixSuggestion, Location, Severity
from atccheck.gears import merge_gear_findings
from builders import init, make_model, tensor_input


def big_kernel_conv(kernel: int = 257) -> onnx.ModelProto:
    """A Conv whose kernel exceeds conv_filter_hw_max (255) on a chip without fixpipe (Ascend310, Ascend310P3)."""
    size = kernel + 3
    w = init("w", np.zeros((2, 1, kernel, kernel), np.float32))
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[kernel, kernel], name="conv")
    return make_model([node], [tensor_input("x", ["batch", 1, size, size])],
                      [tensor_input("y", ["batch", 2, 4, 4])], [w])


def codes(report) -> list[str]:
    return [f"{f.code}:{f.atc_error}" for f in report.findings]


def test_large_kernel_with_dynamic_batch_is_e60011_without_gears():
    """op_tables/limits.json conv_filter_hw_max: in dynamic shape a kernel above 255 fails with E60011."""
    report = check(big_kernel_conv(), "Ascend310P3", input_shapes="x:-1,1,260,260")
    assert any(f.atc_error == "E60011" for f in report.findings)


def test_large_kernel_with_batch_gears_is_judged_static():
    """With --dynamic_batch_size each gear is a static compile: the slow-path warning, not E60011."""
    report = check(big_kernel_conv(), "Ascend310P3", dynamic_batch="1,2,4,8")
    assert not any(f.atc_error == "E60011" for f in report.findings)
    slow = [f for f in report.findings if f.name == "kernel-out-of-range"]
    assert slow and slow[0].severity is Severity.WARNING and "gears" not in slow[0].data


def test_ascend310_batch_gears_are_not_dynamic_shape():
    """-1 alone on Ascend310 is dynamic-shape compilation (EZ3002); with gears it is static per gear."""
    model = big_kernel_conv(3)
    plain = check(model, "Ascend310", input_shapes="x:-1,1,6,6")
    assert any(f.atc_error == "EZ3002" for f in plain.findings)
    geared = check(model, "Ascend310", input_shapes="x:-1,1,6,6", dynamic_batch="1,2,4,8")
    assert not any(f.atc_error in ("EZ3002", "E10001") for f in geared.findings)
    assert geared.atc_command is not None
    assert geared.atc_command.option("--dynamic_batch_size") == "1,2,4,8"
    assert geared.atc_command.option("--input_shape") == "x:-1,1,6,6"
    assert geared.input_shapes == {"x": (-1, 1, 6, 6)}


def test_symbolic_batch_needs_no_input_shape_with_gears():
    report = check(big_kernel_conv(3), "Ascend310", dynamic_batch=[1, 4])
    assert not any(f.severity is Severity.ERROR for f in report.findings), codes(report)
    assert report.atc_command.option("--input_shape") == "x:-1,1,6,6"


@pytest.mark.parametrize(("kwargs", "code"), [
    ({"dynamic_batch": "4"}, "E10035"),  # one gear
    ({"dynamic_batch": "1,2", "dynamic_dims": "1;2"}, "E10009"),  # two gear options
    ({"dynamic_batch": "1,2", "input_shapes": "x:1,1,6,6"}, "E10031"),  # no -1 on axis 0
    ({"dynamic_image_size": "6,6;8,8"}, "E10019"),  # -1 is not on H and W
    ({"dynamic_dims": "1,2;3,4"}, "E10003"),  # two values per gear, one -1
])
def test_gear_misuse_is_a_usage_error_naming_atc_code(kwargs, code):
    with pytest.raises(UsageError, match=code):
        check(big_kernel_conv(3), "Ascend310", **kwargs)


def test_gear_count_follows_the_chip():
    from atccheck.tables import tables

    most = tables().socs["Ascend310"].gear_max
    with pytest.raises(UsageError, match="E10036"):
        check(big_kernel_conv(3), "Ascend310", dynamic_batch=list(range(1, most + 2)))


def test_gear_shapes_fill_each_option_like_atc():
    entries = [ShapeEntry("a", (-1, 3, -1, -1)), ShapeEntry("b", (-1, 7)), ShapeEntry("s", ())]
    batch = gear_shapes(Gears("--dynamic_batch_size", ((2,), (8,))), [ShapeEntry("a", (-1, 3, 4, 4)),
                                                                       ShapeEntry("b", (-1, 7))])
    assert batch == [("2", {"a": (2, 3, 4, 4), "b": (2, 7)}), ("8", {"a": (8, 3, 4, 4), "b": (8, 7)})]
    image = gear_shapes(Gears("--dynamic_image_size", ((224, 320),)), [ShapeEntry("a", (1, 3, -1, -1))])
    assert image == [("224,320", {"a": (1, 3, 224, 320)})]
    dims = gear_shapes(Gears("--dynamic_dims", ((1, 2, 3, 4),)), entries)
    assert dims == [("1,2,3,4", {"a": (1, 3, 2, 3), "b": (4, 7), "s": ()})]


def finding(message: str) -> Finding:
    return Finding("AC999", "x", Severity.WARNING, message, Location(node="n"), "h", FixSuggestion.manual(), "s")


def test_findings_of_some_gears_name_them():
    gears = Gears("--dynamic_batch_size", ((1,), (2,), (4,)))
    shared, big = finding("everywhere"), finding("too big")
    merged = merge_gear_findings(gears, [("1", [shared]), ("2", [shared, big]), ("4", [shared, big])])
    assert merged[0] == shared
    assert merged[1].data["gears"] == ["2", "4"]
    assert merged[1].data["gear_option"] == "--dynamic_batch_size"
    assert merged[1].message == "too big [--dynamic_batch_size gears 2; 4]"


def test_dynamic_dims_given_out_of_graph_order_check_the_shapes_the_user_meant():
    nodes = [helper.make_node("Relu", ["a"], ["ya"]), helper.make_node("Relu", ["b"], ["yb"])]
    model = make_model(nodes, [tensor_input("a", ["n", 4]), tensor_input("b", ["m"])],
                       [tensor_input("ya", ["n", 4]), tensor_input("yb", ["m"])])
    from atccheck.gears import prepare_gears

    geared = prepare_gears(model, Gears("--dynamic_dims", ((2, 1), (8, 4))), "b:-1;a:-1,4")
    shapes = {label: dict(p.input_shapes) for label, p in geared.prepared}
    assert shapes == {"1,2": {"a": (1, 4), "b": (2,)}, "4,8": {"a": (4, 4), "b": (8,)}}
