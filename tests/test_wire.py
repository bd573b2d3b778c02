"""The wire-format reader: the stripped model is onnx's own parse with large tensor data cleared."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from google.protobuf.message import DecodeError
from hypothesis import HealthCheck, given, settings, strategies as st
from onnx import TensorProto, helper, numpy_helper

from atccheck.model import wire
from atccheck.model.wire import FileBytes, WireError, encode_varint, read_varint, strip_large_tensors

KEEP = 64  # small, so the test models stay small
PAYLOAD_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "raw_data", "double_data", "uint64_data")


# --------------------------------------------------------------------------- the oracle


def all_tensors(model: onnx.ModelProto):
    """Every TensorProto in the model, wherever ONNX allows one."""

    def in_attribute(attr):
        yield from ([attr.t] if attr.HasField("t") else [])
        yield from attr.tensors
        for sparse in ([attr.sparse_tensor] if attr.HasField("sparse_tensor") else []) + list(attr.sparse_tensors):
            yield from (sparse.values, sparse.indices)
        for graph in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
            yield from in_graph(graph)

    def in_nodes(nodes):
        for node in nodes:
            for attr in node.attribute:
                yield from in_attribute(attr)

    def in_graph(graph):
        yield from graph.initializer
        for sparse in graph.sparse_initializer:
            yield from (sparse.values, sparse.indices)
        yield from in_nodes(graph.node)

    if model.HasField("graph"):
        yield from in_graph(model.graph)
    for function in model.functions:
        yield from in_nodes(function.node)
        for attr in function.attribute_proto:
            yield from in_attribute(attr)
    for info in model.training_info:
        yield from in_graph(info.initialization)
        yield from in_graph(info.algorithm)


def elements(tensor: onnx.TensorProto) -> int:
    count = 1
    for d in tensor.dims:
        count *= d
    return count


def cleared(model: onnx.ModelProto, keep: int = KEEP) -> onnx.ModelProto:
    """onnx's parse with the payload of every tensor of more than keep elements cleared."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for tensor in all_tensors(copy):
        if elements(tensor) > keep:
            for name in PAYLOAD_FIELDS:
                tensor.ClearField(name)
    return copy


def stripped(data: bytes, keep: int = KEEP) -> onnx.ModelProto:
    return onnx.ModelProto.FromString(strip_large_tensors(data, keep))


# --------------------------------------------------------------------------- models


def big(name: str, shape=(16, 16), dtype=np.float32, seed=0) -> onnx.TensorProto:
    rng = np.random.default_rng(seed)
    return numpy_helper.from_array((rng.standard_normal(shape) * 100).astype(dtype), name)


def typed(name: str, data_type: int, values, dims) -> onnx.TensorProto:
    return helper.make_tensor(name, data_type, dims, values, raw=False)


def everything_model() -> onnx.ModelProto:
    """Large and small tensors in every place ONNX allows them, in raw and typed fields."""
    inits = [
        big("w_raw"),
        numpy_helper.from_array(np.arange(KEEP, dtype=np.int64), "w_small_at_limit"),
        numpy_helper.from_array(np.arange(KEEP + 1, dtype=np.int64), "w_over_limit"),
        typed("w_float_data", TensorProto.FLOAT, np.linspace(0, 1, 200).tolist(), [200]),
        typed("w_int64_data", TensorProto.INT64, list(range(-100, 100)), [200]),
        typed("w_int32_data", TensorProto.INT32, list(range(-100, 100)), [200]),
        typed("w_double_data", TensorProto.DOUBLE, np.linspace(0, 1, 100).tolist(), [100]),
        typed("w_uint64_data", TensorProto.UINT64, list(range(100)), [100]),
        typed("w_strings", TensorProto.STRING, [f"s{i}".encode() for i in range(100)], [100]),
        typed("shape", TensorProto.INT64, [1, 256], [2]),
        numpy_helper.from_array(np.float32(3.0), "scalar"),
    ]
    external = TensorProto(name="w_external", data_type=TensorProto.FLOAT, dims=[1000, 1000])
    external.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "weights.bin"), ("offset", "0"), ("length", "4000000")):
        entry = external.external_data.add()
        entry.key, entry.value = key, value
    inits.append(external)
    sparse = helper.make_sparse_tensor(
        typed("sp_values", TensorProto.FLOAT, np.ones(100).tolist(), [100]),
        typed("sp_indices", TensorProto.INT64, list(range(0, 200, 2)), [100]), [200])

    body_init = big("body_w", (8, 16), seed=1)
    body = helper.make_graph(
        [helper.make_node("Constant", [], ["body_c"], value=big("body_c", (4, 32), seed=2)),
         helper.make_node("Add", ["body_c", "body_w"], ["body_out"])],
        "then", [], [helper.make_tensor_value_info("body_out", TensorProto.FLOAT, [4, 32])], [body_init])
    other = helper.make_graph(
        [helper.make_node("Constant", [], ["else_out"], value=numpy_helper.from_array(np.zeros((4, 32), np.float32)))],
        "else", [], [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, [4, 32])])
    nodes = [
        helper.make_node("Constant", [], ["c_big"], name="c_big", value=big("c_big_value", (32, 8), seed=3)),
        helper.make_node("Constant", [], ["c_small"], name="c_small", value=typed("v", TensorProto.INT64, [0, -1], [2])),
        helper.make_node("Constant", [], ["c_sparse"], name="c_sparse", sparse_value=sparse),
        helper.make_node("ConstantOfShape", ["shape"], ["filled"], name="fill",
                         value=typed("fill_value", TensorProto.FLOAT, [1.5], [1])),
        helper.make_node("If", ["cond"], ["branch"], name="if", then_branch=body, else_branch=other),
        helper.make_node("Custom", ["w_raw"], ["custom_out"], name="custom", domain="test.custom",
                         tables=[big("t0", (10, 10), seed=4), typed("t1", TensorProto.INT64, [1, 2, 3], [3])],
                         graphs=[other]),
        helper.make_node("Lib", ["w_raw"], ["lib_out"], name="lib", domain="test.lib"),
    ]
    graph = helper.make_graph(
        nodes, "everything",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("c_big", "filled", "branch", "custom_out")],
        inits, sparse_initializer=[sparse])
    function = helper.make_function(
        "test.lib", "Lib", ["x"], ["y"],
        [helper.make_node("Constant", [], ["k"], value=big("fn_k", (9, 9), seed=5)),
         helper.make_node("Add", ["x", "k"], ["y"])],
        [helper.make_opsetid("", 17)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("test.lib", 1),
                                                    helper.make_opsetid("test.custom", 1)], functions=[function])
    training = model.training_info.add()
    training.initialization.CopyFrom(helper.make_graph(
        [], "init", [], [helper.make_tensor_value_info("t_w", TensorProto.FLOAT, [20, 20])], [big("t_w", (20, 20))]))
    return model


# --------------------------------------------------------------------------- tests


def test_field_numbers_are_those_of_the_onnx_schema():
    tensor = {f.number: f.name for f in TensorProto.DESCRIPTOR.fields}
    assert {tensor[n] for n in wire.TENSOR_PAYLOAD} == set(PAYLOAD_FIELDS)
    assert tensor[wire.TENSOR_DIMS] == "dims"
    packed = {n for n, (_, size) in wire.TENSOR_PAYLOAD.items() if size}
    assert packed == {f.number for f in TensorProto.DESCRIPTOR.fields if f.name in ("float_data", "double_data")}
    messages = {"graph": onnx.GraphProto, "training_info": onnx.TrainingInfoProto, "function": onnx.FunctionProto,
                "node": onnx.NodeProto, "attribute": onnx.AttributeProto, "sparse_tensor": onnx.SparseTensorProto,
                "tensor": TensorProto}
    for owner, schema in [(onnx.ModelProto, wire.MODEL)] + [(messages[k], v) for k, v in wire.SCHEMAS.items()]:
        fields = {f.number: f for f in owner.DESCRIPTOR.fields}
        for number, kind in schema.items():
            assert fields[number].message_type is messages[kind].DESCRIPTOR, (owner.DESCRIPTOR.name, number)
    # and nothing that can hold a tensor is missed: every message-typed field reaching a tensor is walked
    walked = {onnx.ModelProto: wire.MODEL, **{messages[k]: v for k, v in wire.SCHEMAS.items()}}
    for owner, schema in walked.items():
        for f in owner.DESCRIPTOR.fields:
            if f.message_type in {m.DESCRIPTOR for m in messages.values()}:
                assert f.number in schema, (owner.DESCRIPTOR.name, f.name)


def test_the_stripped_model_is_onnx_load_with_large_data_cleared():
    model = everything_model()
    data = model.SerializeToString()
    result = stripped(data)
    assert result == cleared(onnx.ModelProto.FromString(data))
    assert len(result.SerializeToString()) < len(data) // 4
    init = {t.name: t for t in result.graph.initializer}
    assert numpy_helper.to_array(init["w_small_at_limit"]).tolist() == list(range(KEEP))  # at the limit: kept
    assert init["w_over_limit"].raw_data == b"" and list(init["w_over_limit"].dims) == [KEEP + 1]
    assert numpy_helper.to_array(init["shape"]).tolist() == [1, 256]
    assert init["w_external"].external_data == model.graph.initializer[-1].external_data
    assert init["w_raw"].name == "w_raw" and init["w_raw"].data_type == TensorProto.FLOAT
    assert result.graph.node[0].attribute[0].t.raw_data == b""  # large Constant value
    assert list(result.graph.node[1].attribute[0].t.int64_data) == [0, -1]  # small Constant value


@pytest.mark.parametrize("window", [1, 7, 64, 1 << 16])
def test_reading_a_file_window_by_window_gives_the_same_bytes(tmp_path, monkeypatch, window):
    monkeypatch.setattr(FileBytes, "WINDOW", window)
    data = everything_model().SerializeToString()
    path = tmp_path / "m.onnx"
    path.write_bytes(data)
    with open(path, "rb", buffering=0) as handle:
        assert strip_large_tensors(FileBytes(handle, len(data)), KEEP) == strip_large_tensors(data, KEEP)
        with pytest.raises(WireError):
            strip_large_tensors(FileBytes(handle, len(data) - 1), KEEP)


def test_a_file_that_shrinks_while_read_is_a_wire_error(tmp_path):
    data = everything_model().SerializeToString()
    path = tmp_path / "m.onnx"
    path.write_bytes(data[: len(data) // 2])
    with open(path, "rb", buffering=0) as handle, pytest.raises(WireError):
        strip_large_tensors(FileBytes(handle, len(data)), KEEP)


@pytest.mark.parametrize("keep", [0, 1, 99, 100, 101, 4096])
def test_every_threshold_agrees_with_the_oracle(keep):
    data = everything_model().SerializeToString()
    assert stripped(data, keep) == cleared(onnx.ModelProto.FromString(data), keep)


def test_models_without_large_tensors_come_back_byte_for_byte():
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [big("w", (4, 4))]))
    data = model.SerializeToString()
    assert strip_large_tensors(data, 16) == data


def test_field_order_does_not_matter():
    """Payload before dims, dims packed, and a tensor in two parts (protobuf merges them)."""
    payload = TensorProto(raw_data=np.ones(300, np.float32).tobytes()).SerializeToString()
    meta = TensorProto(name="w", data_type=TensorProto.FLOAT).SerializeToString()
    packed_dims = encode_varint(1 << 3 | 2) + encode_varint(2) + encode_varint(10) + encode_varint(30)
    tensor = payload + packed_dims + meta
    graph = encode_varint(5 << 3 | 2) + encode_varint(len(tensor)) + tensor
    data = onnx.ModelProto(ir_version=8).SerializeToString() + encode_varint(7 << 3 | 2) + encode_varint(len(graph)) + graph
    expected = onnx.ModelProto.FromString(data)
    assert list(expected.graph.initializer[0].dims) == [10, 30]
    assert stripped(data) == cleared(expected)
    assert stripped(data).graph.initializer[0].raw_data == b""


def test_unknown_fields_and_groups_are_kept():
    unknown = encode_varint(99 << 3 | 0) + encode_varint(7) + encode_varint(98 << 3 | 3) + encode_varint(1 << 3 | 5) \
        + b"abcd" + encode_varint(98 << 3 | 4)
    data = everything_model().SerializeToString() + unknown
    result = strip_large_tensors(data, KEEP)
    assert result.endswith(unknown)
    assert onnx.ModelProto.FromString(result) == cleared(onnx.ModelProto.FromString(data))


@pytest.mark.parametrize("bad", [
    b"\x0a",  # a length-delimited field with no length
    b"\x3a\x05ab",  # graph of 5 bytes with 2 left
    b"\x08\x80",  # varint cut short
    b"\x08" + b"\xff" * 10 + b"\x01",  # varint of 11 bytes
    b"\x07",  # wire type 7
    b"\x00\x01",  # field number 0
    b"\x0c",  # end of group with no group
    b"\x0b\x08\x01",  # group never closed
    b"\x0b\x14",  # group closed under another number
])
def test_malformed_bytes_raise_wire_error(bad):
    with pytest.raises(WireError):
        strip_large_tensors(bad, 0)
    with pytest.raises(DecodeError):
        onnx.ModelProto.FromString(bad)


@pytest.mark.parametrize(("field", "payload"), [
    (4, bytes(4001)),  # float_data, not a multiple of 4 bytes
    (10, bytes(4004)),  # double_data, not a multiple of 8 bytes
    (7, bytes(3999) + b"\x80"),  # int64_data, ends inside a varint
    (11, b"\x81" * 2000),  # uint64_data, ends inside a varint
])
def test_malformed_payloads_that_are_skipped_are_still_caught(field, payload):
    tensor = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1000])
    body = tensor.SerializeToString() + encode_varint(field << 3 | 2) + encode_varint(len(payload)) + payload
    graph = encode_varint(5 << 3 | 2) + encode_varint(len(body)) + body
    data = encode_varint(7 << 3 | 2) + encode_varint(len(graph)) + graph
    with pytest.raises(DecodeError):
        onnx.ModelProto.FromString(data)
    with pytest.raises(WireError):
        strip_large_tensors(data, KEEP)


def test_varints_round_trip():
    for value in (0, 1, 127, 128, 300, 2**31, 2**63, 2**64 - 1):
        encoded = encode_varint(value)
        assert read_varint(encoded, 0, len(encoded)) == (value, len(encoded))


def test_an_mmap_is_released_after_the_walk(tmp_path):
    import mmap

    path = tmp_path / "m.onnx"
    path.write_bytes(everything_model().SerializeToString())
    with open(path, "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    strip_large_tensors(mapped, KEEP)
    with pytest.raises(WireError):
        strip_large_tensors(mapped[: len(mapped) - 1], KEEP)
    with pytest.raises(WireError):  # the failure leaves no view of the mmap behind either
        strip_large_tensors(memoryview(mapped)[: len(mapped) - 1], KEEP)
    mapped.close()  # raises BufferError if a view of it were still alive


def test_nesting_too_deep_is_a_wire_error():
    def wrap(number: int, body: bytes) -> bytes:
        return encode_varint(number << 3 | 2) + encode_varint(len(body)) + body

    body = b""
    for _ in range(3000):  # graph > node > attribute > graph > ...
        body = wrap(6, body)  # attribute.g
        body = wrap(5, body)  # node.attribute
        body = wrap(1, body)  # graph.node
    data = wrap(7, body)
    with pytest.raises(WireError, match="nested"):
        strip_large_tensors(data, 0)
    with pytest.raises(DecodeError):
        onnx.ModelProto.FromString(data)


# --------------------------------------------------------------------------- damaged bytes

SAMPLE = everything_model().SerializeToString()
FUZZ = settings(derandomize=True, max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def outcome(data: bytes, keep: int = KEEP):
    """(onnx's parse or None, ours or None): ours may only fail with WireError or a parse error."""
    try:
        theirs = onnx.ModelProto.FromString(data)
    except Exception:
        theirs = None
    try:
        ours = stripped(data, keep)
    except WireError:
        ours = None
    except Exception as exc:  # the parser refusing what the walk let through
        assert type(exc).__name__ == "DecodeError", exc
        ours = None
    return theirs, ours


@FUZZ
@given(st.integers(min_value=0, max_value=len(SAMPLE) - 1))
def test_truncated_bytes_fail_exactly_when_onnx_fails(cut):
    theirs, ours = outcome(SAMPLE[:cut])
    assert (theirs is None) == (ours is None)
    if ours is not None:
        assert cleared(ours) == cleared(theirs)


@FUZZ
@given(st.integers(min_value=0, max_value=len(SAMPLE) - 1), st.integers(min_value=0, max_value=7))
def test_flipped_bits_fail_exactly_when_onnx_fails(position, bit):
    data = bytearray(SAMPLE)
    data[position] ^= 1 << bit
    theirs, ours = outcome(bytes(data))
    assert (theirs is None) == (ours is None)
    if ours is not None:
        assert cleared(ours) == cleared(theirs)
