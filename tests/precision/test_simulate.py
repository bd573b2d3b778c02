"""The lowered run rounds exactly where the assignment says, as numpy's IEEE conversions do."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from onnx import helper

from atccheck.api import check
from atccheck.precision.dtypes import assign_dtypes
from atccheck.precision.simulate import Simulator, float32_value_names, fold_batchnorm, lower, round_to_float16
from builders import init, make_model, tensor_input

F16, BF16, F32 = np.float16, ml_dtypes.bfloat16, np.float32


def chain():
    """x -> MatMul(w) -> m -> Add(b) -> a -> Exp -> y"""
    rng = np.random.default_rng(5)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"], name="matmul"),
             helper.make_node("Add", ["m", "b"], ["a"], name="add"),
             helper.make_node("Exp", ["a"], ["y"], name="exp")]
    inits = [init("w", (rng.standard_normal((16, 16)) * 3).astype(F32)), init("b", rng.standard_normal(16).astype(F32))]
    return make_model(nodes, [tensor_input("x", [4, 16])], [tensor_input("y", [4, 16])], inits), inits


def run(mode, keep=(), soc="Ascend910B1"):
    model, _ = chain()
    x = (np.random.default_rng(6).standard_normal((4, 16)) * 2).astype(F32)
    ctx = check(model, soc=soc).context
    simulator = Simulator(model, [{"x": x}])
    reference = simulator.reference()
    float32 = float32_value_names(simulator, reference)
    values = simulator.lowered(assign_dtypes(ctx, mode, keep, float32), float32)[0]
    return x, reference[0], values


def weights():
    from onnx import numpy_helper

    _, inits = chain()
    return [numpy_helper.to_array(t) for t in inits]


def r(a, dtype):
    with np.errstate(over="ignore"):  # beyond the range is inf, as on the device
        return np.asarray(a, F32).astype(dtype).astype(F32)


def test_force_fp16_rounds_inputs_weights_and_outputs_with_float32_accumulation():
    x, ref, low = run("force_fp16")
    w, b = weights()
    m = r(r(x, F16) @ r(w, F16), F16)  # the cube unit: float16 operands, float32 sums, float16 result
    a = r(m + r(b, F16), F16)
    y = r(np.exp(a), F16)
    np.testing.assert_array_equal(low["m"], m)
    np.testing.assert_array_equal(low["a"], a)
    np.testing.assert_allclose(low["y"], y, rtol=1e-3)  # exp itself may differ by an ulp between libms
    np.testing.assert_allclose(ref["y"], np.exp(x @ w + b), rtol=1e-4)


def test_a_kept_node_reads_float16_values_unchanged_and_writes_float32():
    x, _, low = run("force_fp16", keep=["add"])
    w, b = weights()
    m = r(r(x, F16) @ r(w, F16), F16)
    np.testing.assert_array_equal(low["a"], (m + b).astype(F32))  # float32 add of the float16 product


def test_mixed_bfloat16_rounds_white_ops_to_bfloat16():
    x, _, low = run("mixed_bfloat16")
    w, b = weights()
    m = r(r(x, BF16) @ r(w, BF16), BF16)
    np.testing.assert_array_equal(low["m"], m)
    np.testing.assert_array_equal(low["a"], r(m + r(b, BF16), BF16))  # gray Add follows the bfloat16 MatMul


def test_lowering_adds_one_cast_pair_per_rounding_point():
    model, _ = chain()
    ctx = check(model, soc="Ascend910B1").context
    float32 = {"x", "w", "b", "m", "a", "y"}
    lowered = lower(model, assign_dtypes(ctx, "force_fp16", (), float32), float32)
    casts = [n for n in lowered.graph.node if n.op_type == "Cast"]
    # inputs x, w, b rounded on the way in (3 pairs); m, a, y rounded on the way out (3 pairs)
    assert len(casts) == 12
    assert [n.op_type for n in lowered.graph.node if n.op_type != "Cast"] == ["MatMul", "Add", "Exp"]
    assert [o.name for o in lowered.graph.output] == ["y"]


def conv_bn(offset=1000.0):
    """Conv with a large bias that the BatchNormalization's mean takes away again."""
    rng = np.random.default_rng(0)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("BatchNormalization", ["c", "g", "beta", "m", "v"], ["y"], name="bn")]
    inits = [init("w", (rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(F32)), init("b", np.full(8, offset, F32)),
             init("g", np.full(8, 50.0, F32)), init("beta", np.zeros(8, F32)), init("m", np.full(8, offset, F32)),
             init("v", np.full(8, 0.5, F32))]
    return make_model(nodes, [tensor_input("x", [1, 3, 16, 16])], [tensor_input("y", [1, 8, 16, 16])], inits)


def test_conv_and_batchnorm_are_folded_into_one_kernel_as_atc_fuses_them():
    model = conv_bn()
    report = check(model, soc="Ascend310P3", numerics=True)
    assert report.numerics.ok and not [f for f in report.findings if f.name.startswith("float16-")]
    ctx = report.context
    x = np.random.default_rng(1).standard_normal((1, 3, 16, 16)).astype(F32)
    simulator = Simulator(model, [{"x": x}])
    reference = simulator.reference()
    float32 = float32_value_names(simulator, reference)
    fused = assign_dtypes(ctx, "force_fp16", (), float32)
    assert fused.fused == {1: 0}
    folded = simulator.lowered(fused, float32)[0]["y"]
    # the folded kernel, by hand: filter and bias folded in float32, then one float16 conv
    from onnx import numpy_helper

    w, b, g, beta, m, v = (numpy_helper.to_array(t) for t in model.graph.initializer)
    scale = g / np.sqrt(v + 1e-5)
    assert np.abs(folded - reference[0]["y"]).max() < 0.5
    assert np.linalg.norm(folded - reference[0]["y"]) / np.linalg.norm(reference[0]["y"]) < 1e-2
    assert np.isclose(((b - m) * scale + beta)[0], 0.0)
    # kept apart (the BatchNorm kept in float32), the rounded conv output of ~1000 loses x
    apart = assign_dtypes(ctx, "force_fp16", ["bn"], float32)
    assert apart.fused == {}
    unfolded = simulator.lowered(apart, float32)[0]["y"]
    assert np.linalg.norm(unfolded - reference[0]["y"]) / np.linalg.norm(reference[0]["y"]) > 5e-2


def test_ops_that_only_move_values_need_no_rounding():
    """Relu and Reshape of float16 values give float16 values: no Cast pair after them, same numbers."""
    nodes = [helper.make_node("Add", ["x", "b"], ["a"], name="add"),
             helper.make_node("Relu", ["a"], ["r"], name="relu"),
             helper.make_node("Reshape", ["r", "shape"], ["y"], name="reshape")]
    inits = [init("b", np.full(16, 0.1, F32)), init("shape", np.array([16, 4], np.int64))]
    model = make_model(nodes, [tensor_input("x", [4, 16])], [tensor_input("y", [16, 4])], inits)
    ctx = check(model, soc="Ascend310P3").context
    float32 = {"x", "b", "a", "r", "y"}
    lowered = lower(model, assign_dtypes(ctx, "force_fp16", (), float32), float32)
    rounded = [n.input[0] for n in lowered.graph.node if n.op_type == "Cast" and n.attribute[0].i != 1]
    # x and b rounded on the way in, the Add's output on the way out; nothing after Relu and Reshape
    assert [name.split("__")[0] for name in rounded] == ["x", "b", "a"]
    x = np.random.default_rng(2).standard_normal((4, 16)).astype(F32) * 100
    simulator = Simulator(model, [{"x": x}])
    values = simulator.lowered(assign_dtypes(ctx, "force_fp16", (), float32), float32)[0]
    expected = np.maximum(r(r(x, F16) + r(np.full(16, 0.1, F32), F16), F16), 0).reshape(16, 4)
    np.testing.assert_array_equal(values["y"], expected)


def test_one_session_for_both_runs_gives_the_same_values_as_two():
    for model, soc in ((chain()[0], "Ascend910B1"), (conv_bn(), "Ascend310P3")):
        ctx = check(model, soc=soc).context
        name = model.graph.input[0].name
        shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
        simulator = Simulator(model, [{name: np.random.default_rng(3).standard_normal(shape).astype(F32)}])
        reference = simulator.reference()
        float32 = float32_value_names(simulator, reference)
        assignment = assign_dtypes(ctx, "force_fp16", (), float32)
        apart = simulator.lowered(assignment, float32)
        # the combined run extends the model's bytes: serialized here, or the file's own as check read them
        from_file = Simulator(model, simulator.feeds, source=model.SerializeToString())
        for together, lowered_together in (simulator.both(assignment, float32), from_file.both(assignment, float32)):
            assert set(lowered_together[0]) == set(apart[0])
            for key, value in apart[0].items():
                np.testing.assert_array_equal(lowered_together[0][key], value)
            for key, value in reference[0].items():
                np.testing.assert_array_equal(together[0][key], value)


def test_constants_are_read_by_both_halves_and_rounded_once_as_weights(monkeypatch):
    c = np.linspace(-3.3, 70000.0, 16).astype(F32)  # its last values overflow float16
    nodes = [helper.make_node("Constant", [], ["c"], name="const", value=init("c_value", c)),
             helper.make_node("Add", ["x", "c"], ["a"], name="add"),
             helper.make_node("Mul", ["a", "c"], ["y"], name="mul")]
    model = make_model(nodes, [tensor_input("x", [4, 16])], [tensor_input("y", [4, 16])], [])
    ctx = check(model, soc="Ascend310P3").context
    x = np.random.default_rng(4).standard_normal((4, 16)).astype(F32)
    simulator = Simulator(model, [{"x": x}])
    built = []
    run = Simulator._run

    def spy(self, graph_model, names, base=b"", weights=b""):
        built.append(graph_model)
        return run(self, graph_model, names, base, weights)

    monkeypatch.setattr(Simulator, "_run", spy)
    reference = simulator.reference()
    float32 = float32_value_names(simulator, reference)
    assignment = assign_dtypes(ctx, "force_fp16", (), float32)
    _, lowered = simulator.both(assignment, float32)
    assert [n.op_type for n in built[-1].graph.node if n.op_type in ("Constant", "Cast")] == ["Cast", "Cast"] * 3
    expected = r(r(r(x, F16) + r(c, F16), F16) * r(c, F16), F16)
    np.testing.assert_array_equal(lowered[0]["y"], expected)
    apart = simulator.lowered(assignment, float32)[0]
    np.testing.assert_array_equal(apart["y"], expected)


def test_rounding_on_the_bits_is_numpys_conversion_bit_for_bit():
    """Every float16 boundary and its float32 neighbours, the specials, and a million random patterns."""
    halves = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(F16).astype(F32)
    halves = halves[np.isfinite(halves)]
    steps = np.arange(-3, 4, dtype=np.int64)
    around = (halves.view(np.uint32).astype(np.int64)[:, None] + steps).reshape(-1)
    midpoints = ((halves[:-1].astype(np.float64) + halves[1:]) / 2).astype(F32)  # ties: to even
    patterns = np.random.default_rng(11).integers(0, 2**32, 2**20, dtype=np.uint64).astype(np.uint32)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504, 65519.996, 65520, -65520, 2**-14, 2**-24,
                         2**-25, 3e38, 1e-45], F32)
    values = np.concatenate([(around % 2**32).astype(np.uint32).view(F32), midpoints, patterns.view(F32), specials])
    got, expected = round_to_float16(values), r(values, F16)
    same = (got.view(np.uint32) == expected.view(np.uint32)) | (np.isnan(got) & np.isnan(expected))
    assert same.all(), values[~same][:5]
    assert round_to_float16(values[:1000].reshape(-1, 2)).shape == (500, 2)


def test_a_batchnorm_folded_in_numpy_computes_as_the_folding_nodes_bit_for_bit(monkeypatch):
    """Conv + BatchNormalization with constant operands: the filter and bias folded in numpy (two rounded
    weights) give exactly the values of the float32 nodes that fold them at run time, in far fewer nodes."""
    import onnxruntime as ort
    from onnx import numpy_helper

    rng = np.random.default_rng(9)
    for offset in (0.0, 1000.0):
        model = conv_bn(offset)
        for position, low, high in ((2, 0.1, 60.0), (3, -2.0, 2.0), (4, offset - 3, offset + 3), (5, 1e-3, 4.0)):
            name = model.graph.initializer[position].name  # gamma, beta, mean, variance: 8 channels each
            model.graph.initializer[position].CopyFrom(init(name, rng.uniform(low, high, 8).astype(F32)))
        ctx = check(model, soc="Ascend310P3").context
        x = np.random.default_rng(8).standard_normal((1, 3, 16, 16)).astype(F32)
        simulator = Simulator(model, [{"x": x}])
        float32 = float32_value_names(simulator, simulator.reference())
        assignment = assign_dtypes(ctx, "force_fp16", (), float32)
        assert assignment.fused
        built = lower(model, assignment, float32, simulator.ranks, simulator.rounded_weight, simulator.folded_weights)
        by_numpy = simulator.lowered(assignment, float32)[0]
        monkeypatch.setattr(Simulator, "folded_weights", lambda *args: None)
        by_nodes = simulator.lowered(assignment, float32)[0]
        unfolded = lower(model, assignment, float32, simulator.ranks, simulator.rounded_weight)
        monkeypatch.undo()
        assert len(built.graph.node) < len(unfolded.graph.node) - 8
        assert set(by_numpy) == set(by_nodes)
        for name, value in by_nodes.items():
            np.testing.assert_array_equal(by_numpy[name], value)
        # and before any rounding: the folding nodes' float32 filter and bias, run by onnxruntime
        folds = [n.output[0] for n in unfolded.graph.node if n.output[0].split("__")[0] in ("bn_filter", "bn_bias")]
        for name in folds:
            unfolded.graph.output.add().name = name
        unfolded.graph.initializer.extend(model.graph.initializer)
        session = ort.InferenceSession(unfolded.SerializeToString(), providers=["CPUExecutionProvider"])
        by_ort = session.run(folds, {"x": x})
        w, b, g, beta, m, v = (numpy_helper.to_array(t) for t in model.graph.initializer)
        for got, expected in zip(fold_batchnorm(w, b, g, beta, m, v, 1e-5), by_ort):
            np.testing.assert_array_equal(got, expected)


def test_a_weight_the_dtype_holds_exactly_is_read_as_it_is():
    """Hard-swish's 3 and 6, a 0.5: rounding changes nothing, so the lowered half reads the original weight
    (no rounded copy, no Cast pair); a weight rounding changes still gets its rounded copy."""
    exact, inexact = np.array([0.5, 3.0, 6.0, -0.0], F32), np.array([0.1, 3.0, 6.0, 1e-8], F32)
    nodes = [helper.make_node("Add", ["x", "exact"], ["a"], name="add"),
             helper.make_node("Mul", ["a", "inexact"], ["y"], name="mul")]
    model = make_model(nodes, [tensor_input("x", [2, 4])], [tensor_input("y", [2, 4])],
                       [init("exact", exact), init("inexact", inexact)])
    ctx = check(model, soc="Ascend310P3").context
    x = np.random.default_rng(12).standard_normal((2, 4)).astype(F32)
    simulator = Simulator(model, [{"x": x}])
    float32 = float32_value_names(simulator, simulator.reference())
    assignment = assign_dtypes(ctx, "force_fp16", (), float32)
    lowered = lower(model, assignment, float32, simulator.ranks, simulator.rounded_weight)
    add = next(n for n in lowered.graph.node if n.op_type == "Add")
    mul = next(n for n in lowered.graph.node if n.op_type == "Mul")
    assert add.input[1] == "exact"
    assert mul.input[1] != "inexact" and mul.input[1] in {t.name for t in lowered.graph.initializer}
    values = simulator.lowered(assignment, float32)[0]
    np.testing.assert_array_equal(values["y"], r(r(r(x, F16) + exact, F16) * r(inexact, F16), F16))
