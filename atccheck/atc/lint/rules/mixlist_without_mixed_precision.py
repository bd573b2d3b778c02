"""mixlist-without-mixed-precision: ``--modify_mixlist`` without a mixed precision mode."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.command_files import file_facts
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class MixlistWithoutMixedPrecision(CommandRule):
    """``--modify_mixlist`` without a mixed precision mode.

    ## What it does
    Reports ``--modify_mixlist`` when neither ``--precision_mode`` is an ``allow_mix_precision*``
    value nor ``--precision_mode_v2`` a ``mixed_*`` value (ATC's default, ``force_fp16``, is not one).

    ## Why
    ATC checks it up front and stops with E10001 ("Modify_mixlist is set. Please ensure that
    precision_mode is set to any of {allow_mix_precision, ...}").

    ## Example
    ``--modify_mixlist=ops.json`` alone, or with ``--precision_mode=force_fp32``.

    ## Fix
    Add ``--precision_mode_v2=mixed_float16`` (or ``--precision_mode=allow_mix_precision``), or
    drop the mixlist.

    ## Facts
    ``op_tables/command_files.json`` ``--modify_mixlist`` ``requires``:
    ``hicann/ge@ffdcbc9f7:compiler/api/aclgrph/option_utils.cc`` 81-92, 1384-1411 (called from
    ``api/atc/main_impl.cc`` 867).
    """

    code = "AC539"
    name = "mixlist-without-mixed-precision"
    severity = Severity.ERROR
    atc_error = "E10001"
    stage = "values"
    precedence = 120

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        occurrence = cmd.last("--modify_mixlist")
        if occurrence is None or not occurrence.value:
            return
        needs = file_facts(ctx.tables)["--modify_mixlist"]["requires"]
        v1, v2 = cmd.value("--precision_mode"), cmd.value("--precision_mode_v2")
        if any(o is not None and o.has_expansion for o in (cmd.last("--precision_mode"), cmd.last("--precision_mode_v2"))):
            return
        if v1 in needs["precision_mode"] or v2 in needs["precision_mode_v2"]:
            return
        given = (f"--precision_mode={v1}" if v1 else "") or (f"--precision_mode_v2={v2}" if v2 else "")
        what = f"with {given}, which is not a mixed mode" if given else "without a precision mode (the default, " \
            "force_fp16, is not a mixed one)"
        ctx.report(cls, "--modify_mixlist", f"--modify_mixlist is given {what}: ATC stops with E10001",
                   hint=f"add --precision_mode_v2={needs['precision_mode_v2'][1]} (or --precision_mode="
                        f"{needs['precision_mode'][0]}), or drop --modify_mixlist",
                   source=f"{needs['source']} {needs['lines']}",
                   data={"precision_mode": v1, "precision_mode_v2": v2})
