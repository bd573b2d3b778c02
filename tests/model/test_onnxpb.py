"""atccheck.model.onnxpb gives what onnx's own helpers give, and its leaves are the package's modules.

The value helpers are compared with onnx's numpy_helper and helper on every plain type, in both
storages (raw_data and the typed fields); the leaf loading is run in fresh interpreters, since
this one imported onnx long ago.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from atccheck.model import onnxpb
from conftest import SAMPLE_MODELS

PLAIN = {
    TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64, TensorProto.FLOAT16: np.float16,
    TensorProto.INT8: np.int8, TensorProto.INT16: np.int16, TensorProto.INT32: np.int32,
    TensorProto.INT64: np.int64, TensorProto.UINT8: np.uint8, TensorProto.UINT16: np.uint16,
    TensorProto.UINT32: np.uint32, TensorProto.UINT64: np.uint64, TensorProto.BOOL: np.bool_,
}


def sample(np_type, shape=(2, 3)) -> np.ndarray:
    rng = np.random.default_rng(7)
    if np_type is np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(np_type, np.integer):
        info = np.iinfo(np_type)
        return rng.integers(info.min, info.max, shape, dtype=np_type, endpoint=True)
    return (rng.standard_normal(shape) * 100).astype(np_type)


def typed(array: np.ndarray, data_type: int) -> onnx.TensorProto:
    """The tensor with its values in the typed field (what make_tensor without raw does)."""
    values = array.view(np.uint16) if data_type == TensorProto.FLOAT16 else array
    return helper.make_tensor("t", data_type, array.shape, values.flatten().tolist(), raw=False)


@pytest.mark.parametrize("data_type", sorted(PLAIN), ids=lambda t: TensorProto.DataType.Name(t))
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 4)], ids=["2x3", "scalar", "empty"])
def test_to_array_matches_numpy_helper_in_both_storages(data_type, shape):
    array = sample(PLAIN[data_type], shape)
    for tensor in (numpy_helper.from_array(array, "t"), typed(array, data_type)):
        ours, theirs = onnxpb.to_array(tensor), numpy_helper.to_array(tensor)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        assert np.array_equal(ours, theirs, equal_nan=True)


@pytest.mark.parametrize("data_type", sorted(PLAIN), ids=lambda t: TensorProto.DataType.Name(t))
def test_from_array_writes_what_numpy_helper_writes(data_type):
    array = sample(PLAIN[data_type])
    assert onnxpb.from_array(array, "w").SerializeToString() == numpy_helper.from_array(array, "w").SerializeToString()
    assert onnxpb.np_dtype(data_type) == helper.tensor_dtype_to_np_dtype(data_type)


def test_other_types_are_left_to_onnx():
    bf16 = helper.make_tensor("b", TensorProto.BFLOAT16, (2,), [1.5, -2.0])
    strings = helper.make_tensor("s", TensorProto.STRING, (2,), [b"a", b"bc"])
    for tensor in (bf16, strings):
        assert np.array_equal(onnxpb.to_array(tensor), numpy_helper.to_array(tensor))
    assert onnxpb.np_dtype(TensorProto.BFLOAT16) == helper.tensor_dtype_to_np_dtype(TensorProto.BFLOAT16)
    with pytest.raises((KeyError, ValueError)):
        onnxpb.np_dtype(999)


ATTRIBUTES = {
    "f": 1.5, "i": -3, "s": b"text", "t": numpy_helper.from_array(np.arange(3, dtype=np.int64)),
    "g": helper.make_graph([], "g", [], []), "tp": helper.make_tensor_type_proto(TensorProto.FLOAT, [1, 2]),
    "floats": [1.0, 2.5], "ints": [1, -2, 3], "strings": [b"a", b"b"],
    "tensors": [numpy_helper.from_array(np.ones(2, np.float32))], "graphs": [helper.make_graph([], "h", [], [])],
    "type_protos": [helper.make_tensor_type_proto(TensorProto.INT64, [3])],
}


@pytest.mark.parametrize("key", sorted(ATTRIBUTES))
def test_attribute_value_matches_get_attribute_value(key):
    attr = helper.make_attribute(key, ATTRIBUTES[key])
    assert onnxpb.attribute_value(attr) == helper.get_attribute_value(attr)
    assert onnxpb.attribute_value(onnx.AttributeProto(name="u")) is None  # UNDEFINED, as onnx
    with pytest.raises(ValueError):
        onnxpb.attribute_value(onnx.AttributeProto(name="r", ref_attr_name="outer"))


def test_schema_defaults_are_the_ones_onnx_defs_gives():
    compared = 0
    for schema in onnx.defs.get_all_schemas():
        for name, attribute in schema.attributes.items():
            ours = onnxpb.attribute_default(attribute)
            assert ours.SerializeToString() == attribute.default_value.SerializeToString(), (schema.name, name)
            compared += ours.type != onnx.AttributeProto.UNDEFINED
    assert compared > 100
    assert onnxpb.get_schema("Conv", 13).since_version == onnx.defs.get_schema("Conv", 13).since_version


def test_a_schema_attribute_without_the_raw_default_gives_its_own():
    class Attribute:  # what an onnx whose C++ side returns the AttributeProto itself would give
        default_value = helper.make_attribute("alpha", 0.5)

    assert onnxpb.attribute_default(Attribute()) is Attribute.default_value


@pytest.mark.parametrize("path", sorted(SAMPLE_MODELS.glob("*.onnx")), ids=lambda p: p.stem)
def test_shape_inference_is_onnx_shape_inference(path):
    model = onnx.load(path)
    for data_prop in (False, True):
        ours = onnxpb.infer_shapes(model, data_prop=data_prop)
        theirs = onnx.shape_inference.infer_shapes(model, data_prop=data_prop)
        assert ours.SerializeToString() == theirs.SerializeToString()


# --------------------------------------------------------------------------- the leaves, in a fresh interpreter


def fresh(code: str) -> dict:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_leaves_load_without_the_package_and_a_later_import_reuses_them():
    result = fresh(
        "import json, sys\n"
        "from atccheck.model import onnxpb\n"
        "onnxpb.use_leaves()\n"
        f"model = onnxpb.ModelProto.FromString(open({str(SAMPLE_MODELS / 'convnet_clean.onnx')!r}, 'rb').read())\n"
        "inferred = onnxpb.infer_shapes(model)\n"
        "before = sorted(m for m in ('onnx', 'ml_dtypes', 'onnx.helper') if m in sys.modules)\n"
        "classes = onnxpb.ModelProto\n"
        "import onnx\n"  # an import that is not ours: the leaves must be bound to the package all the same
        "import onnx.checker\n"
        "bound = onnx.onnx_cpp2py_export.checker.ValidationError is onnx.checker.ValidationError\n"
        "onnx.checker.check_model(inferred)\n"
        "print(json.dumps({'before': before, 'same': classes is onnx.ModelProto, 'bound': bound,\n"
        "                  'pb2': onnx.onnx_ml_pb2.ModelProto is classes, 'nodes': len(inferred.graph.node)}))\n"
    )
    assert result["before"] == []
    assert result["same"] and result["bound"] and result["pb2"]
    assert result["nodes"] > 0


def test_an_unexpected_onnx_layout_means_the_ordinary_import():
    result = fresh(
        "import importlib.util, json, sys\n"
        "from atccheck.model import onnxpb\n"
        "onnxpb.use_leaves()\n"
        "importlib.util.find_spec = lambda name, *a: None\n"  # the installed onnx cannot be located
        "onnxpb.ModelProto()\n"
        "print(json.dumps({'package': 'onnx' in sys.modules}))\n"
    )
    assert result["package"]


def test_library_use_imports_onnx_as_usual():
    result = fresh(
        "import json, sys\n"
        "from atccheck.model import onnxpb\n"
        "onnxpb.ModelProto()\n"
        "print(json.dumps({'package': 'onnx' in sys.modules}))\n"
    )
    assert result["package"]


def test_a_type_the_leaves_do_not_read_imports_the_package_midway_and_keeps_one_set_of_classes():
    result = fresh(
        "import json, sys\n"
        "from atccheck.model import onnxpb\n"
        "onnxpb.use_leaves()\n"
        "tensor = onnxpb.TensorProto(name='b', data_type=onnxpb.TensorProto.BFLOAT16, dims=[2])\n"
        "tensor.int32_data.extend([0x3FC0, 0xC000])\n"  # 1.5 and -2.0 as bfloat16 bits
        "before = 'onnx' in sys.modules\n"
        "values = [float(v) for v in onnxpb.to_array(tensor)]\n"
        "import onnx\n"
        "print(json.dumps({'before': before, 'after': 'onnx' in sys.modules, 'values': values,\n"
        "                  'same': onnx.TensorProto is onnxpb.TensorProto}))\n"
    )
    assert result == {"before": False, "after": True, "values": [1.5, -2.0], "same": True}
