"""Weights that stay in their external data files while ``atccheck fix`` rewrites the graph.

fix keeps a model's external-data records as they are: the graph it rewrites holds no
weights, and a pass reads only the tensors it rewrites, through :func:`tensor_array`, from
the folder :func:`weights_from` names for the duration of the pass. Nothing here changes a
tensor (``onnx.numpy_helper.to_array`` would load the data into it and keep it there).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

_FOLDER: ContextVar[Path | None] = ContextVar("atccheck_weights_folder", default=None)


@contextlib.contextmanager
def weights_from(folder: "str | os.PathLike[str] | None") -> Iterator[None]:
    """Within the block, external-data locations are read relative to ``folder`` (the model's own)."""
    token = _FOLDER.set(Path(folder) if folder is not None else None)
    try:
        yield
    finally:
        _FOLDER.reset(token)


def is_external(tensor: "onnx.TensorProto") -> bool:
    from atccheck.model import onnxpb

    return bool(tensor.data_location == onnxpb.TensorProto.EXTERNAL)


def external_record(tensor: "onnx.TensorProto") -> tuple[str, int, int | None]:
    """``(location, offset, length)`` of an external tensor (length None: the size its dims give)."""
    info = {entry.key: entry.value for entry in tensor.external_data}
    length = info.get("length")
    return info.get("location", ""), int(info.get("offset") or 0), int(length) if length else None


def read_external_bytes(tensor: "onnx.TensorProto", folder: Path) -> bytes:
    """The payload of an external tensor, read from its file under ``folder``."""
    from atccheck.model.loading import tensor_nbytes

    location, offset, length = external_record(tensor)
    size = length if length is not None else tensor_nbytes(tensor)
    with open(folder / location, "rb") as handle:
        handle.seek(offset)
        data = handle.read(size)
    if len(data) != size:
        raise ValueError(f"external data file '{location}' is too short for tensor '{tensor.name}'")
    return data


def tensor_array(tensor: "onnx.TensorProto") -> "np.ndarray":
    """A tensor's values, from the model or from its external data file; the tensor is left as it is.

    Raises ValueError for an external tensor outside a :func:`weights_from` block.
    """
    from atccheck.model import onnxpb

    if not is_external(tensor):
        return onnxpb.to_array(tensor)
    folder = _FOLDER.get()
    if folder is None:
        raise ValueError(f"tensor '{tensor.name}' keeps its data in an external file, and no model folder was given")
    inline = onnxpb.TensorProto()
    inline.name = tensor.name
    inline.data_type = tensor.data_type
    inline.dims.extend(tensor.dims)
    inline.raw_data = read_external_bytes(tensor, folder)
    return onnxpb.to_array(inline)


def has_external(model: "onnx.ModelProto") -> bool:
    from atccheck.model.loading import iter_graph_tensors

    return any(is_external(t) for t in iter_graph_tensors(model.graph))


def inline_size(model: "onnx.ModelProto") -> int:
    """``approx_size`` of what a serialization holds: external tensors count only as their records."""
    from atccheck.model.files import approx_size
    from atccheck.model.loading import iter_graph_tensors, tensor_nbytes

    return approx_size(model) - sum(tensor_nbytes(t) for t in iter_graph_tensors(model.graph) if is_external(t))
