"""aipp-option-conflict: AIPP together with an option it cannot go with."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.aipp import option_problems
from atccheck.atc.lint.files import aipp_problems
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class AippOptionConflict(CommandRule):
    """AIPP together with an option it cannot go with.

    ## What it does
    Reports ``--insert_op_conf`` with ``--dynamic_dims``; an input both fed by AIPP and listed
    in ``--input_fp16_nodes``; static AIPP with a shape range (``~`` or a -1 without a gear
    option) on a single-input model or on the AIPP input; crop, padding or a source size with
    ``--dynamic_image_size``; dynamic AIPP with an ``--input_format`` other than NCHW/NHWC, and
    (a warning) static AIPP with one other than NCHW.

    ## Why
    ATC stops with E10001 ("The dynamic dims function does not support AIPP."), E10034 ("Nodes
    ... connected to AIPP must not be of type FP16"), E10052 and E13014; the docs call a shape
    range with static AIPP on a single input unsupported.

    ## Example
    ``--insert_op_conf=aipp.cfg --dynamic_dims="1;2"``; ``--input_fp16_nodes=image`` for the
    input AIPP feeds.

    ## Fix
    Use ``--dynamic_batch_size`` or ``--dynamic_image_size`` instead of ``--dynamic_dims``; drop
    the AIPP input from ``--input_fp16_nodes``; give the AIPP input a static shape.

    ## Facts
    ``op_tables/aipp.json`` checks of topic ``option``: ``hicann/ge@ffdcbc9f7``
    ``api/atc/main_impl.cc`` 937-944, ``aipp_op.cc`` 512-520 and 1152-1161,
    ``insert_aipp_op_util.cc`` 64-81, ``docs/zh/user_guides/atc_tools/CLI_options/--insert_op_conf.md``.
    """

    code = "AC534"
    name = "aipp-option-conflict"
    severity = Severity.ERROR
    atc_error = "E10001"
    stage = "values"
    precedence = 123

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        aipp_problems(cls, ctx, option_problems)
