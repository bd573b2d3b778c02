"""Where the result of ``atccheck fix`` goes, and writing it there so it is never half-written.

The output path comes from ``-o``, ``--in-place`` or the default ``MODEL.atc.onnx``
(:func:`resolve_output`; fix never overwrites its input without ``--in-place``). A model
that fits in one file is staged beside its target while the last step is still verified
(:class:`Staging`) and renamed into place once it is settled; otherwise :func:`write_model`
writes it atomically, the external data file first, and loads the result back to prove it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atccheck.errors import InputError, UsageError
from atccheck.file_kinds import file_kind
from atccheck.fileio import real_path, temp_prefix
from atccheck.model.files import EXTERNAL_DATA_THRESHOLD, FIXED_MODEL_SUFFIX, INLINE_LIMIT, approx_size

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.fixing.state import State

OUTPUT_SUFFIX = FIXED_MODEL_SUFFIX


def default_output(path: Path) -> Path:
    name = path.name[: -len(".onnx")] if path.name.endswith(".onnx") else path.name
    return path.with_name(name + OUTPUT_SUFFIX)


def resolve_output(source: Path | None, output: "str | os.PathLike[str] | None", in_place: bool) -> Path | None:
    """Where the result goes: ``-o``, the input itself with ``--in-place``, else MODEL.atc.onnx."""
    if in_place:
        if source is None:
            raise UsageError("--in-place needs a model file")
        if output is not None and real_path(output) != real_path(source):
            raise UsageError("--in-place and -o name different files; give one of them")
        return source
    out: Path | None
    if output is not None:
        out = Path(output)
        if source is not None and real_path(out) == real_path(source):
            raise UsageError(f"-o {out} is the input model; fix never overwrites its input unless --in-place is given")
        try:
            mode: int | None = os.stat(out).st_mode
        except (FileNotFoundError, NotADirectoryError):
            mode = None  # a new file (fix makes its folder)
        except OSError as exc:  # a name over the file system's limit, a symlink loop, no permission
            raise UsageError(f"-o {out}: {exc.strerror or exc}") from None
        if mode is not None and stat.S_ISDIR(mode):
            raise UsageError(f"-o {out} is a directory; give a file name")
        if mode is not None and not stat.S_ISREG(mode):  # the rename would replace the FIFO or device itself
            raise UsageError(f"-o {out} is a {file_kind(mode)}, not a file; give a file name")
    else:
        out = default_output(source) if source is not None else None
    if out is not None:
        from atccheck.fileio import refuse_overwriting_inputs

        # the result, and the data file it may get, must not replace the input's weights
        refuse_overwriting_inputs([("-o", out), ("its data file", out.with_name(out.name + ".data"))],
                                  [source] if source is not None else [])
    return out


def write_model(model: "onnx.ModelProto", out: Path, external: bool, data: bytes | None, durable: bool,
                weights: Path | None = None) -> str | None:
    """Write the model atomically; with external data, the data file first. Returns the data file name.

    ``durable`` (replacing the user's own file) also flushes every file to disk before its rename.
    Tensors the model keeps in external data files (their locations relative to ``weights``, the
    input's folder) are copied from those files into the output's data file, a window at a time.
    """
    from atccheck.fileio import atomic_write_bytes

    if not external:
        atomic_write_bytes(out, data if data is not None else model.SerializeToString(), durable=durable)
        return None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=temp_prefix(out), dir=out.parent))
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
    location = out.name + ".data"
    try:
        # Both files are written and proved in a private folder first, so a result that fails
        # its proof never appears at the output path.
        staged_data = tmp / location
        wrote_data = _write_data(model, staged_data, location, weights)  # False: no tensor above the threshold
        staged_model = tmp / out.name
        staged_model.write_bytes(model.SerializeToString())
        _prove_written(staged_model, staged_data, location, out)
        if durable:
            for path in (staged_data, staged_model):
                if path.exists():
                    with open(path, "rb+") as handle:
                        os.fsync(handle.fileno())
        if wrote_data:
            os.replace(staged_data, out.parent / location)
        os.replace(staged_model, out)
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
    finally:
        for leftover in tmp.glob("*"):
            leftover.unlink()
        tmp.rmdir()
    return location if wrote_data else None


COPY_WINDOW = 16 * 2**20


def _write_data(model: "onnx.ModelProto", path: Path, location: str, weights: Path | None) -> bool:
    """Move the model's tensor payloads into one data file ``path`` (named ``location`` in the model).

    Initializers (of subgraphs too) of :data:`EXTERNAL_DATA_THRESHOLD` bytes or more go out,
    as ``onnx.save_model`` would put them; a tensor already in an external file is copied from
    it (under ``weights``) without being read whole. Returns whether the file was written.
    """
    from atccheck.model import onnxpb
    from atccheck.model.loading import iter_graph_tensors, tensor_nbytes
    from atccheck.model.weights import external_record, is_external

    def initializers(graph: "onnx.GraphProto") -> "Iterator[onnx.TensorProto]":
        yield from graph.initializer
        for node in graph.node:
            for attr in node.attribute:
                if attr.type == onnxpb.AttributeProto.GRAPH:
                    yield from initializers(attr.g)
                elif attr.type == onnxpb.AttributeProto.GRAPHS:
                    for sub in attr.graphs:
                        yield from initializers(sub)

    inline = {id(t): t for t in initializers(model.graph)
              if not is_external(t) and t.HasField("raw_data") and tensor_nbytes(t) >= EXTERNAL_DATA_THRESHOLD}
    moving = [t for t in iter_graph_tensors(model.graph) if is_external(t) or id(t) in inline]
    if not moving:
        return False
    offset = 0
    with open(path, "wb") as sink:
        for tensor in moving:
            if is_external(tensor):
                if weights is None:
                    raise OSError(f"tensor '{tensor.name}' names external data, and the model's folder is unknown")
                source, start, length = external_record(tensor)
                size = length if length is not None else tensor_nbytes(tensor)
                with open(weights / source, "rb") as handle:
                    handle.seek(start)
                    left = size
                    while left:
                        chunk = handle.read(min(left, COPY_WINDOW))
                        if not chunk:
                            raise OSError(f"external data file '{source}' is too short for tensor '{tensor.name}'")
                        sink.write(chunk)
                        left -= len(chunk)
            else:
                payload = tensor.raw_data
                size = len(payload)
                sink.write(payload)
                del payload
                tensor.ClearField("raw_data")
            del tensor.external_data[:]
            for key, value in (("location", location), ("offset", str(offset)), ("length", str(size))):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, value
            tensor.data_location = onnxpb.TensorProto.EXTERNAL
            offset += size
    return True


def _prove_written(model_path: Path, data_path: Path, location: str, out: Path) -> None:
    """The written model must load from its files: locations valid, data long enough, checker happy."""
    import onnx

    from atccheck.errors import AtcCheckError, one_line
    from atccheck.model.loading import load_model

    try:
        written = load_model(model_path, weights=False)
    except AtcCheckError as exc:
        raise InputError(str(out), f"the result does not load back: {exc}") from None
    size = data_path.stat().st_size if data_path.exists() else 0
    for ext in written.external:
        if ext.end > size:
            raise InputError(str(out), f"written external data '{location}' is shorter than tensor '{ext.name}' needs")
    try:
        onnx.checker.check_model(str(model_path))
    except Exception as exc:  # ValidationError, or a protobuf error on a malformed tensor
        raise InputError(str(out), f"not written: onnx.checker rejects the result ({one_line(exc)}); "
                                   "the input model likely fails it too") from None


class Staging:
    """The output written to a hidden file beside its target while the last step is verified.

    ``stage`` writes the candidate final model (from the worker's serialization when there is
    one); ``commit`` renames it into place if it is the settled final model; anything else
    removes it. Models that need external data are not staged (they are written after).
    """

    def __init__(self, out: Path | None, limit: int | None, durable: bool) -> None:
        self.out = out
        self.durable = durable
        self.limit = limit  # the inline limit; None: nothing is staged (the input has external data)
        self.path = out.with_name(f"{temp_prefix(out)}{os.getpid()}.staged") if out is not None else None
        self.serial: int | None = None

    def stage(self, state: State) -> None:
        from atccheck.fileio import atomic_write_bytes

        self.discard()
        if self.path is None or self.limit is None:
            return
        data = state.serialized.result() if state.job is not None else None
        if data is None:
            data = state.data  # the pass's own, when no verification took it (--no-verify)
        if data is None:
            if approx_size(state.model) >= self.limit:
                return
            data = state.model.SerializeToString()
        atomic_write_bytes(self.path, data, durable=self.durable)
        self.serial = state.serial

    def commit(self, final: State) -> bool:
        if self.path is None or self.serial != final.serial or self.out is None:
            self.discard()
            return False
        os.replace(self.path, self.out)
        self.serial = None
        return True

    def discard(self) -> None:
        if self.path is not None and self.serial is not None:
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
        self.serial = None


def inline_limit(options: Mapping[str, Any] | None) -> int:
    """The serialized size from which a model is written with external data (``external_data_bytes``)."""
    return int((options or {}).get("external_data_bytes", INLINE_LIMIT))
