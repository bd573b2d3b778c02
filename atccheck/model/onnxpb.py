"""ONNX's message classes, operator schemas and shape inference, without importing the ``onnx`` package.

``import onnx`` runs the package's ``__init__``, which imports every helper module and, through
them, ``ml_dtypes``: about 1 s of CPU on a current install (ml_dtypes registers its types' ufunc
loops with numpy one by one), four times what ``check`` itself spends on a ResNet-50. What
``check`` needs of onnx sits in two modules that import nothing of the package: the generated
protobuf classes (``onnx.onnx_ml_pb2``) and the C++ extension with the operator schemas and shape
inference (``onnx.onnx_cpp2py_export``).

After :func:`use_leaves` (the CLI calls it), while the package is not imported, those two files
are loaded from the installed onnx under the names the package gives them, so a later
``import onnx`` in the process finds and reuses them: there is one set of classes either way.
Without it (library use), or once onnx is imported, this module imports onnx as usual.
Any surprise in the installed onnx (another layout, a build without ONNX-ML) also means the
ordinary import: the leaves are a shortcut, never a second way to be right.

The few helpers of the package the check path used (attribute values; small tensors to and
from numpy) are here for the plain numeric types. Anything else (bfloat16, float8, 4-bit,
strings, external or segmented data) goes to onnx's own ``numpy_helper``, importing the
package then.

Message classes are module attributes (``onnxpb.ModelProto``, ``onnxpb.AttributeProto.GRAPH``).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType

    import numpy as np
    import onnx
    from onnx import (
        AttributeProto,
        GraphProto,
        ModelProto,
        NodeProto,
        OperatorSetIdProto,
        TensorProto,
        TypeProto,
        ValueInfoProto,
    )

__all__ = [
    "AttributeProto", "GraphProto", "ModelProto", "NodeProto", "OperatorSetIdProto", "TensorProto",
    "TypeProto", "ValueInfoProto", "all_schemas_with_history", "attribute_default", "attribute_value",
    "full_onnx", "get_schema", "using_leaves", "infer_shapes", "np_dtype", "to_array", "from_array", "use_leaves",
]

PB2 = "onnx.onnx_ml_pb2"
CPP = "onnx.onnx_cpp2py_export"

_leaves = False


def use_leaves() -> None:
    """Let this process load onnx's two leaf modules instead of the whole package (see the module doc)."""
    global _leaves
    _leaves = True


def using_leaves() -> bool:
    return _leaves


def full_onnx() -> ModuleType:
    """The ``onnx`` package, imported (once) now."""
    import onnx

    _bind_leaves(onnx)
    return onnx


def _bind_leaves(package: ModuleType) -> None:
    """Make leaves loaded before the package its attributes, as importing them through it would
    (``onnx.onnx_cpp2py_export.checker.ValidationError`` is how some code reads them)."""
    for name in (PB2, CPP):
        leaf = sys.modules.get(name)
        attribute = name.rpartition(".")[2]
        if leaf is not None and getattr(package, attribute, None) is None:
            setattr(package, attribute, leaf)


class _BindOnImport(importlib.abc.MetaPathFinder):
    """Whoever imports the package after its leaves were loaded gets it with them bound."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "onnx":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)  # the ordinary finders, this one removed
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            _bind_leaves(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _module(name: str) -> ModuleType:
    """A leaf module: already imported, else loaded by file (leaves allowed), else through the package."""
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    if _leaves and "onnx" not in sys.modules:
        leaf = _load_leaf(name)
        if leaf is not None:
            return leaf
    full_onnx()
    return importlib.import_module(name)


def _load_leaf(name: str) -> ModuleType | None:
    """Load one leaf module of the installed onnx by its file; None when anything is unexpected."""
    try:
        package = importlib.util.find_spec("onnx")  # finds, does not import
        if package is None or not package.submodule_search_locations:
            return None
        folder = list(package.submodule_search_locations)[0]
        stem = name.rpartition(".")[2]
        suffixes = importlib.machinery.EXTENSION_SUFFIXES if name == CPP else [".py"]
        path = next((p for p in (os.path.join(folder, stem + s) for s in suffixes) if os.path.isfile(p)), None)
        spec = importlib.util.spec_from_file_location(name, path) if path else None
        if spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        if not any(isinstance(f, _BindOnImport) for f in sys.meta_path):
            sys.meta_path.insert(0, _BindOnImport())
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        if name == CPP and not getattr(module, "ONNX_ML", False):
            return None  # the package would use its non-ML classes: let it choose
        return module
    except Exception:  # an onnx laid out differently: the ordinary import decides
        return None


def pb2() -> ModuleType:
    """The module of the message classes ``onnx`` re-exports: ``onnx.onnx_ml_pb2`` in the ML
    builds PyPI ships (a build without ONNX-ML gets its own classes through the package)."""
    loaded = sys.modules.get(PB2)
    if loaded is not None:
        return loaded
    # the extension first: it says whether this is an ML build (else it imports the package)
    if _leaves and "onnx" not in sys.modules and getattr(cpp(), "ONNX_ML", False) and "onnx" not in sys.modules:
        leaf = _load_leaf(PB2)
        if leaf is not None:
            return leaf
    onnx = full_onnx()
    return importlib.import_module(onnx.ModelProto.__module__)


def cpp() -> ModuleType:
    """``onnx.onnx_cpp2py_export``: operator schemas, shape inference (C++)."""
    return _module(CPP)


def __getattr__(name: str) -> Any:
    if name[:1].isupper():
        try:
            found = getattr(pb2(), name)
        except AttributeError:
            pass
        else:
            globals()[name] = found  # later reads are plain module attributes (rules read them per node)
            return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------- schemas, inference


def infer_shapes(model: ModelProto, *, check_type: bool = False, strict_mode: bool = False,
                 data_prop: bool = False) -> ModelProto:
    """``onnx.shape_inference.infer_shapes`` on a ModelProto: the same C++ call, by its bytes."""
    inferred = cpp().shape_inference.infer_shapes(model.SerializeToString(), check_type, strict_mode, data_prop)
    result: ModelProto = pb2().ModelProto.FromString(inferred)
    return result


def get_schema(op_type: str, version: int, domain: str = "") -> onnx.defs.OpSchema:
    """``onnx.defs.get_schema``: raises ``SchemaError`` for an op the version does not define."""
    return cpp().defs.get_schema(op_type, version, domain)  # type: ignore[no-any-return]


def all_schemas_with_history() -> list[onnx.defs.OpSchema]:
    return cpp().defs.get_all_schemas_with_history()  # type: ignore[no-any-return]


def attribute_default(attribute: onnx.defs.OpSchema.Attribute) -> AttributeProto:
    """A schema attribute's default value as an AttributeProto (what onnx.defs adds as ``default_value``)."""
    raw = getattr(attribute, "_default_value", None)
    if raw is None:  # an onnx that exposes the message itself: its Python side knows how to read it
        full_onnx()
        return attribute.default_value
    default: AttributeProto = pb2().AttributeProto.FromString(raw)
    return default


# --------------------------------------------------------------------------- attribute and tensor values

# AttributeType -> the field holding its value; repeated fields come back as lists.
_ATTRIBUTE_FIELDS = {1: "f", 2: "i", 3: "s", 4: "t", 5: "g", 11: "sparse_tensor", 13: "tp"}
_REPEATED_ATTRIBUTE_FIELDS = {6: "floats", 7: "ints", 8: "strings", 9: "tensors", 10: "graphs",
                              12: "sparse_tensors", 14: "type_protos"}


def attribute_value(attr: AttributeProto) -> Any:
    """``onnx.helper.get_attribute_value``: the value of the attribute's type (None when UNDEFINED)."""
    if attr.ref_attr_name:
        raise ValueError(f"attribute '{attr.name}' refers to a function attribute and has no value of its own")
    single = _ATTRIBUTE_FIELDS.get(attr.type)
    if single is not None:
        return getattr(attr, single)
    repeated = _REPEATED_ATTRIBUTE_FIELDS.get(attr.type)
    if repeated is not None:
        return list(getattr(attr, repeated))
    if attr.type == 0:
        return None
    raise ValueError(f"attribute '{attr.name}' has an unknown type number {attr.type}")


# TensorProto.DataType -> (numpy type name, the typed field holding values when there is no raw_data,
# the numpy type of that field). The plain numeric types only; the rest goes to onnx's numpy_helper.
_PLAIN = {
    1: ("float32", "float_data", "float32"),
    2: ("uint8", "int32_data", "int32"),
    3: ("int8", "int32_data", "int32"),
    4: ("uint16", "int32_data", "int32"),
    5: ("int16", "int32_data", "int32"),
    6: ("int32", "int32_data", "int32"),
    7: ("int64", "int64_data", "int64"),
    9: ("bool", "int32_data", "int32"),
    10: ("float16", "int32_data", "int32"),
    11: ("float64", "double_data", "float64"),
    12: ("uint32", "uint64_data", "uint64"),
    13: ("uint64", "uint64_data", "uint64"),
}
_BIT_PATTERNS = {4, 5, 10}  # 16-bit types whose int32_data entries hold the bits
_EXTERNAL = 1  # TensorProto.DataLocation.EXTERNAL


def np_dtype(data_type: int) -> np.dtype[Any]:
    """``onnx.helper.tensor_dtype_to_np_dtype``; KeyError or ValueError for a type onnx does not define."""
    import numpy as np

    plain = _PLAIN.get(data_type)
    if plain is not None:
        return np.dtype(plain[0])
    return full_onnx().helper.tensor_dtype_to_np_dtype(data_type)  # type: ignore[no-any-return]


def to_array(tensor: TensorProto) -> np.ndarray:
    """``onnx.numpy_helper.to_array`` for data inside the model (never reads external data itself)."""
    import numpy as np

    plain = _PLAIN.get(tensor.data_type)
    if plain is None or tensor.data_location == _EXTERNAL or tensor.HasField("segment"):
        return full_onnx().numpy_helper.to_array(tensor)  # type: ignore[no-any-return]
    dtype = np.dtype(plain[0]).newbyteorder("<")
    dims = tuple(tensor.dims)
    if tensor.HasField("raw_data"):
        return np.frombuffer(tensor.raw_data, dtype=dtype).astype(dtype.newbyteorder("="), copy=False).reshape(dims)
    stored = np.asarray(getattr(tensor, plain[1]), dtype=plain[2])
    if tensor.data_type in _BIT_PATTERNS:
        return stored.view(np.uint32).astype(np.uint16).reshape(dims).view(plain[0])
    if tensor.data_type == 9:  # BOOL: 0/1 entries
        return stored.view(np.uint32).astype(np.uint8).view(np.bool_).reshape(dims)
    return stored.astype(plain[0]).reshape(dims)


_PLAIN_BY_NAME = {numpy_name: data_type for data_type, (numpy_name, _, _) in _PLAIN.items()}


def from_array(array: np.ndarray, name: str = "") -> TensorProto:
    """``onnx.numpy_helper.from_array``: the array's values as raw little-endian data."""
    data_type = _PLAIN_BY_NAME.get(array.dtype.name)
    if data_type is None:
        return full_onnx().numpy_helper.from_array(array, name)  # type: ignore[no-any-return]
    tensor: TensorProto = pb2().TensorProto()
    tensor.dims.extend(array.shape)
    if name:
        tensor.name = name
    tensor.data_type = data_type
    tensor.raw_data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
    return tensor
