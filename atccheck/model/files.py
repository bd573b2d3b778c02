"""Model files as atccheck writes them: how large a model is, and writing it with external data.

A serialized model must stay under protobuf's 2 GiB limit: past :data:`INLINE_LIMIT` a model
goes through files, its tensors in one external data file beside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import onnx

# A serialized model must stay under protobuf's 2 GiB limit; past this size we go through files.
INLINE_LIMIT = 2**31 - 2**26
# Written with external data, tensors above this many bytes go to the data file.
EXTERNAL_DATA_THRESHOLD = 1024
# What ``atccheck fix`` names its result by default (MODEL.atc.onnx); a folder check skips these.
FIXED_MODEL_SUFFIX = ".atc.onnx"


def approx_size(model: "onnx.ModelProto") -> int:
    """Serialized size, estimated from tensor dims (``ByteSize`` walks every payload: slow on big models).

    Tensor payloads dominate any model that comes near protobuf's limit; the rest of the
    graph is counted generously without serializing it.
    """
    from atccheck.model.loading import iter_graph_tensors, tensor_nbytes

    payload = sum(tensor_nbytes(t) + 64 for t in iter_graph_tensors(model.graph))
    return payload + 512 * _node_count(model.graph) + 2**20


def _node_count(graph: "onnx.GraphProto") -> int:
    from atccheck.model.graph import iter_nodes

    return sum(1 for _ in iter_nodes(graph))


def save_with_external_data(model: "onnx.ModelProto", target: Path) -> None:
    """Write a copy of ``model`` with every sizeable tensor in ``<target>.data`` (for tools that need files)."""
    import onnx

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    onnx.save_model(copy, str(target), save_as_external_data=True, all_tensors_to_one_file=True,
                    location=target.name + ".data", size_threshold=EXTERNAL_DATA_THRESHOLD)
