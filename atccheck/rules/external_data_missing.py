"""external-data-missing: an external-data file ATC must read is absent, too short, not a file, or a Git LFS pointer."""

from __future__ import annotations

import os
from collections.abc import Iterable

from atccheck.context import CheckContext
from atccheck.file_kinds import LFS_POINTER_MAX_BYTES, file_kind, is_lfs_pointer
from atccheck.findings import Finding, Severity
from atccheck.rules.base import Rule, register

PARSER_SOURCE = ("hicann/ge@ffdcbc9f7:parser/parser/onnx/onnx_parser.cc (SetExternalPath: external data becomes "
                 "FileConstant, its location read beside the .onnx), parser/parser/onnx/onnx_file_constant_parser.cc "
                 "(offset and length as int64)")
FAILURE_SOURCE = ("hicann/ge@ffdcbc9f7:parser/parser/common/acl_graph_parser_util.cc (a path that does not resolve: "
                  "E13026/E13000); ATC error E10041")


@register
class ExternalDataMissing(Rule):
    """An external-data file of the model is missing, shorter than its tensors need, not a file, or a Git LFS pointer.

    ## What it does
    For every file named by an external-data ``location`` (initializers and Constant
    tensors), looks the file up beside the model with ``stat``: it fires when the file does
    not exist or cannot be looked up (a symlink loop), when it is not a regular file (a FIFO,
    a device, a socket or a directory, which is never opened), when it is shorter than the
    largest ``offset + length`` (or the size from the tensor's dims) of a tensor stored in
    it, or when it is a Git LFS pointer (a text file of at most 1 KiB beginning ``version
    https://git-lfs``). It never reads weight bytes: only the first bytes of a regular file
    small enough to be a pointer are looked at. Models passed in memory have no folder to
    look in and are not judged.

    ## Why
    ATC turns each external tensor into a FileConstant and reads its bytes from the file at
    ``<folder of the .onnx>/<location>``: a missing or short file stops the build, and an
    LFS pointer (a clone made without ``git lfs pull``) is only a short text file. The rest
    of the check does not need the weights, so nothing else in the report changes.

    ## Example
    ``model.onnx`` saved with ``location="model.onnx.data"``, copied to the build host
    without ``model.onnx.data``.

    ## Fix
    Put the data file next to the ``.onnx`` under the name the model records (``git lfs
    pull`` for a pointer), or save the model again with its weights.

    ## Facts
    External data as FileConstant read beside the model, ``offset``/``length`` as int64:
    hicann/ge@ffdcbc9f7 parser/parser/onnx/onnx_parser.cc (``SetExternalPath``) and
    onnx_file_constant_parser.cc. A path that does not resolve (E13026/E13000):
    parser/parser/common/acl_graph_parser_util.cc; ATC error E10041. The pointer format:
    the Git LFS specification (not a CANN fact).
    """

    code = "AC404"
    name = "external-data-missing"
    severity = Severity.ERROR
    op_types = frozenset()

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        base = ctx.loaded.base_dir
        if base is None or not ctx.loaded.external:
            return
        needs: dict[str, tuple[int, str]] = {}  # location -> (bytes needed, the tensor needing the most)
        for tensor in ctx.loaded.external:
            end = tensor.end
            if tensor.location not in needs or end > needs[tensor.location][0]:
                needs[tensor.location] = (end, tensor.name)
        for location, (needed, tensor_name) in needs.items():
            problem = self._problem(base / location, needed)
            if problem is None:
                continue
            reason, size, detail = problem
            if reason == "missing":
                message = f"the external-data file '{location}' is missing beside the model"
            elif reason == "unreadable":
                message = f"the external-data file '{location}' cannot be looked up ({detail})"
            elif reason == "not-a-file":
                message = f"the external-data file '{location}' is a {detail}, not a regular file"
            elif reason == "lfs-pointer":
                message = f"the external-data file '{location}' is a Git LFS pointer ({size} bytes of text), not the weights"
            else:
                message = (f"the external-data file '{location}' has {size or 0:,} bytes, but tensor '{tensor_name}' ends at "
                           f"byte {needed:,} (offset + length)")
            yield self.finding(
                ctx,
                f"{message}; ATC reads every external tensor from it as a FileConstant and cannot build the model",
                hint=("fetch the real file with 'git lfs pull'" if reason == "lfs-pointer" else
                      f"put the complete '{location}' next to the .onnx, or save the model again with its weights"),
                source=f"{PARSER_SOURCE}; {FAILURE_SOURCE}",
                data={"location": location, "reason": reason, "size": size, "needed": needed, "tensor": tensor_name,
                      **({"detail": detail} if detail else {})},
            )

    @staticmethod
    def _problem(path: "os.PathLike[str]", needed: int) -> tuple[str, int | None, str | None] | None:
        """(reason, size, detail) of what is wrong with one data file, or None."""
        import errno
        import stat

        try:
            info = os.stat(path)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return "missing", None, None
            return "unreadable", None, exc.strerror or type(exc).__name__
        if not stat.S_ISREG(info.st_mode):  # a FIFO would block the open; a device has no size
            return "not-a-file", None, file_kind(info.st_mode)
        size = info.st_size
        if size <= LFS_POINTER_MAX_BYTES and is_lfs_pointer(path, size):
            return "lfs-pointer", size, None
        if size < needed:
            return "short", size, None
        return None
