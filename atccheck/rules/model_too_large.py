"""model-too-large: the .onnx file itself is beyond ATC's single-file limit (INT_MAX bytes)."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import CheckContext
from atccheck.findings import Finding, Severity
from atccheck.rules.base import Rule, register


@register
class ModelTooLarge(Rule):
    """The .onnx file is 2 GiB or larger; ATC reads at most INT_MAX bytes from one file.

    ## What it does
    Compares the size of the model file (not its external-data files) with
    ``model_file_max_bytes`` from ``op_tables/limits.json`` (2,147,483,647 bytes). Models
    passed as an in-memory ``ModelProto`` have no file and are not judged.

    ## Why
    ATC's ``ReadProtoFromBinaryFile`` rejects a file of 0 bytes or more than ``INT_MAX``
    bytes (``kMaxFileSizeLimit``) with E13015 "File ... has a size of ..., which is out of
    valid range (0, 2147483647]." (E19015 in the older numbering: the profile's
    ``file_size_error`` in ``op_tables/profiles.json``). Weights kept as ONNX external data
    do not count: ATC turns them into FileConstant nodes read from beside the model.

    ## Example
    A 7B-parameter model saved with ``onnx.save(model, "m.onnx")`` (about 14 GB in one file).

    ## Fix
    Manual: save the weights as external data next to the model,
    ``onnx.save(model, "m.onnx", save_as_external_data=True, location="m.onnx.data")``, and
    keep the data file in the same folder when running ``atc``.

    ## Facts
    hicann/ge parser/parser/common/acl_graph_parser_util.cc (``kMaxFileSizeLimit =
    INT_MAX``, the same in every version checked); E13015 in the GE error registry, E19015
    its legacy number (atc_error_codes.json; profiles.json ``file_size_error`` per profile);
    external data as FileConstant: parser/parser/onnx/onnx_parser.cc
    (shared/reference/notes/cann_source.md section 4).
    """

    code = "AC402"
    name = "model-too-large"
    severity = Severity.ERROR
    op_types = frozenset()

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        size = ctx.loaded.file_size
        if size is None:
            return
        limit = ctx.tables.limits["model_file_max_bytes"]
        if size <= limit.value:
            return
        code = ctx.target.profile.file_size_error  # profiles.json: E19015 in the older numbering, else E13015
        yield self.finding(
            ctx,
            f"the .onnx file is {size:,} bytes ({size / 2**30:.2f} GiB), above ATC's single-file limit of "
            f"{limit.value:,} bytes (INT_MAX); atc stops reading it (E13015, numbered E19015 in older releases)",
            hint="save with external data (onnx.save(model, path, save_as_external_data=True, location=...)) next "
            "to the .onnx so the .onnx itself stays under 2 GiB",
            source=limit.source,
            atc_error=code,
            data={"file_size": size, "limit": limit.value},
        )
