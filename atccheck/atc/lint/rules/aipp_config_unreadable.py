"""aipp-config-unreadable: The ``--insert_op_conf`` file is missing, unreadable, or not AIPP's prototxt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.aipp import aipp_facts
from atccheck.atc.command_files import path_chars_problem
from atccheck.atc.lint.files import AIPP_FLAG, aipp_config, named_file
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class AippConfigUnreadable(CommandRule):
    """The ``--insert_op_conf`` file is missing, unreadable, or not AIPP's prototxt.

    ## What it does
    Looks for the AIPP file relative to the current directory (and to the script's directory
    with ``--lint-file``), checks its path the way ATC does, and reads it with a parser of the
    protobuf text format against AIPP's schema (``insert_op.proto``): unknown fields, a
    fractional ``mean_chn``, a singular field given twice, fields outside an ``aipp_op { }`` block.

    ## Why
    ATC stops before the model is parsed: E10001 for a path that does not exist or holds
    characters other than letters, digits, ``-``, ``.``, ``_`` (a space included); and a parse
    error for the text (E13005 in the 9.x sources, E19018 in earlier releases, which the error
    catalogue also calls E13018). The configuration files the CANN package ships under
    ``conf/aipp`` lack the ``aipp_op { }`` block and do not parse as they are.

    ## Example
    ``mean_chn_0: 123.675`` (an int32 field); ``rotation_angle: 0`` copied from the template
    page (not a field of ``insert_op.proto``).

    ## Fix
    Correct the path, or the line the message names; put a fractional mean's fraction in
    ``min_chn_i``. ``atccheck atc-cmd MODEL --aipp-format ...`` writes a valid file.

    ## Facts
    ``op_tables/aipp.json`` (parse-error entries, path_rule, message_schema) from
    ``hicann/ge@ffdcbc9f7`` ``base/common/util.cc``, ``base/common/proto_util/proto_util.cc``,
    ``graph_metadef/proto/insert_op.proto`` and ``mindspore-ai/graphengine@12e7b59b``
    ``ge/common/util.cc``; protobuf's text format rules in ``atccheck/atc/textproto.py``.
    """

    code = "AC529"
    name = "aipp-config-unreadable"
    severity = Severity.ERROR
    atc_error = "E10001"
    stage = "values"
    precedence = 122

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        found = named_file(ctx, AIPP_FLAG)
        if found is None:
            return
        facts = aipp_facts(ctx.tables)
        rule = facts.path_rule
        path_source = f"{rule['source']} {rule['lines']}"
        if found.resolved.unknown:
            ctx.report(cls, AIPP_FLAG, f"'{found.written}' holds a shell variable that is not set here; the AIPP "
                       "file was not checked", hint="lint with the variable set, or write the path out",
                       atc_error=None, severity=Severity.INFO, source=path_source, data={"file": found.written})
            return
        if found.resolved.path is None:
            looked = " or ".join(found.resolved.tried)
            ctx.report(cls, AIPP_FLAG, f"the AIPP file '{found.written}' does not exist (looked for {looked}): "
                       f"ATC stops with E10001", hint="give the path of the AIPP file, relative to where atc runs",
                       source=path_source, data={"file": found.written, "tried": list(found.resolved.tried)})
            return
        if found.text is None:
            ctx.report(cls, AIPP_FLAG, f"the AIPP file '{found.written}' cannot be read: {found.read_problem}",
                       hint="give a readable text file", source=path_source, data={"file": found.written})
            return
        chars = path_chars_problem(found.resolved.path, rule)
        if chars is not None:
            ctx.report(cls, AIPP_FLAG, f"ATC refuses the path '{found.written}': {chars}; \"{rule['reason_chars']}\"",
                       hint="move or rename the file to a path of letters, digits, '-', '.', '_'", source=path_source,
                       data={"file": found.written})
        state = aipp_config(ctx)
        assert state is not None
        parsed = state[1]
        if parsed.error is None:
            return
        code = facts.parse_error(ctx.profile.id if ctx.profile else None)
        where = f"{found.written}:{parsed.error.line}:{parsed.error.column}"
        ctx.report(cls, AIPP_FLAG, f"{where}: {parsed.error.message} (ATC's text parser stops here)",
                   hint=parsed.hint or "fix the line as the message says", atc_error=code.code, source=code.source,
                   data={"file": found.written, "file_line": parsed.error.line, "column": parsed.error.column})
