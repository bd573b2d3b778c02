"""Atomic file writes: a reader never sees a half-written file, and a failed write leaves no trace.

Writes go to a temporary file in the target's folder that is renamed over the target. With
``durable=True`` the data is also flushed to disk before the rename, so even a power loss
cannot leave the target empty: used when the write replaces the user's own model
(``fix --in-place``). Other writes skip the flush, which costs a large share of writing a
100 MB model (see bench/bench_fix.py).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from atccheck.file_kinds import open_regular

# Temporary files are named after their target, cut to this many characters: a target name
# near the file system's limit (255 bytes on most) must still leave room for the suffixes.
TEMP_NAME_CHARS = 64


def temp_prefix(target: Path) -> str:
    """The hidden prefix of a temporary file beside ``target`` (``.NAME.``, NAME cut short)."""
    return f".{target.name[:TEMP_NAME_CHARS]}."


def atomic_write_bytes(path: "str | os.PathLike[str]", data: bytes, *, durable: bool = False) -> None:
    """Write ``data`` to ``path`` atomically; UsageError (one line) when the path cannot take a file."""
    from atccheck.errors import UsageError

    target = Path(path)
    try:
        if target.is_dir():
            raise UsageError(f"cannot write {target}: it is a directory")
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(target), suffix=".tmp", dir=target.parent)
    except FileExistsError:
        raise UsageError(f"cannot write {target}: a file stands where its folder {target.parent} should be") from None
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
        raise


def atomic_write_text(path: "str | os.PathLike[str]", text: str, *, durable: bool = False) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable)


def real_path(path: "str | os.PathLike[str]") -> Path:
    """``Path.resolve()`` that never raises: before Python 3.13 it raises RuntimeError on a
    symlink loop, where ``os.path.realpath`` leaves the looping part of the path as it is (the
    open that follows then fails with one line)."""
    return Path(os.path.realpath(path))


# --------------------------------------------------------------------------- reading small files

# Settings, baselines, scripts and sample inputs are small: a file beyond this is not one of them
# (and reading /dev/zero, say, would never end).
SMALL_FILE_LIMIT = 64 * 2**20


def read_small_file(path: "str | os.PathLike[str]", what: str, *, limit: int = SMALL_FILE_LIMIT) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; UsageError (one line) otherwise.

    A fifo, a device or a socket is refused before it is opened (opening a fifo blocks until a
    writer comes), and a file that grows past ``limit`` while read is refused too.
    """
    from atccheck.errors import UsageError

    shown = os.fspath(path)
    check_regular_file(path, what, limit=limit)
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {what} {shown}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise UsageError(f"{what} {shown} is over {limit // 2**20} MiB; that is not a {what}")
    return data


def check_regular_file(path: "str | os.PathLike[str]", what: str, *, limit: int | None = None) -> None:
    """UsageError unless ``path`` is an existing regular file (of at most ``limit`` bytes)."""
    import stat

    from atccheck.errors import UsageError

    shown = os.fspath(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise UsageError(f"{what} {shown} does not exist") from None
    except OSError as exc:
        raise UsageError(f"cannot read {what} {shown}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise UsageError(f"{what} {shown} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{what} {shown} is not a regular file (a pipe or a device); give a file")
    if limit is not None and info.st_size > limit:
        raise UsageError(f"{what} {shown} is over {limit // 2**20} MiB; that is not a {what}")


def decode_text(data: bytes, path: "str | os.PathLike[str]", what: str) -> str:
    """UTF-8 text of a file, or a UsageError naming where the file stops being UTF-8."""
    from atccheck.errors import UsageError

    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{what} {os.fspath(path)} is not UTF-8 text (byte {exc.start})") from None


# --------------------------------------------------------------------------- outputs that would destroy inputs


def model_data_files(model: "str | os.PathLike[str]") -> list[str]:
    """Real paths of the external-data files a model file names.

    Read from the bare protobuf, without the checks loading makes: a model atccheck refuses
    to check (an invalid graph, say) still protects its weights.
    """
    import onnx

    from atccheck.model.loading import iter_graph_tensors

    try:
        if os.path.getsize(model) > 2**31:
            return []  # protobuf cannot hold it; such a model keeps its weights outside anyway
        handle = open_regular(model)  # a FIFO or a device names no file (and is never read)
        if handle is None:
            return []
        proto = onnx.ModelProto()
        with handle:
            proto.ParseFromString(handle.read())
    except Exception:  # unreadable or not a protobuf: it names no file
        return []
    base = Path(os.path.dirname(os.path.realpath(model)))
    found = set()
    try:
        for tensor in iter_graph_tensors(proto.graph):
            if tensor.data_location == onnx.TensorProto.EXTERNAL:
                for entry in tensor.external_data:
                    if entry.key == "location" and entry.value:
                        found.add(os.path.realpath(base / entry.value))
    except RecursionError:
        pass
    return sorted(found)


def refuse_overwriting_inputs(
    outputs: "Iterable[tuple[str, str | os.PathLike[str] | None]]",
    models: "Iterable[str | os.PathLike[str]]" = (),
    others: "Iterable[tuple[str, str | os.PathLike[str] | None]]" = (),
) -> None:
    """UsageError when an output would replace an input: a model, its external data, or another input.

    ``outputs`` are (option, path) pairs (None or '-' for stdout); ``models`` are input model
    files, whose external-data files are protected too (read only when an output already exists
    in a model's folder, so the common case parses nothing); ``others`` are further input files
    (option, path) such as a baseline or a sample. Two outputs naming one file are refused too.
    """
    from atccheck.errors import UsageError

    wanted = [(option, os.fspath(path)) for option, path in outputs if path is not None and os.fspath(path) != "-"]
    if not wanted:
        return
    model_paths = [os.fspath(m) for m in models]
    protected = {os.path.realpath(m): f"the input model {m}" for m in model_paths}
    for option, path in others:
        if path is not None and os.fspath(path) != "-":
            protected.setdefault(os.path.realpath(path), f"the {option} input {os.fspath(path)}")
    seen: dict[str, str] = {}
    for option, path in wanted:
        real = os.path.realpath(path)
        if real in protected:
            raise UsageError(f"{option} {path} is {protected[real]}; atccheck never overwrites an input")
        if real in seen:
            raise UsageError(f"{option} {path} and {seen[real]} name the same file; give each output its own file")
        seen[real] = f"{option} {path}"
    data_files: dict[str, list[str]] = {}
    for option, path in wanted:
        real = os.path.realpath(path)
        if not os.path.exists(real):
            continue  # a file that does not exist holds nobody's weights
        for model in model_paths:
            if not _below(real, os.path.dirname(os.path.realpath(model))):
                continue  # external data never leaves its model's folder
            if model not in data_files:
                data_files[model] = model_data_files(model)
            if real in data_files[model]:
                raise UsageError(f"{option} {path} is the external data of the input model {model}; "
                                 "atccheck never overwrites an input")


def _below(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives
        return False
