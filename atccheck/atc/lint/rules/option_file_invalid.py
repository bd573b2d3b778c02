"""option-file-invalid: A precision or fusion file the command names is missing or malformed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.aipp import aipp_facts
from atccheck.atc.command_files import file_facts, path_chars_problem, read_option_file
from atccheck.atc.lint.files import FILE_FLAGS, named_file
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class OptionFileInvalid(CommandRule):
    """A precision or fusion file the command names is missing or malformed.

    ## What it does
    For ``--keep_dtype``, ``--op_precision_mode``, ``--modify_mixlist``, ``--customize_dtypes``
    and ``--fusion_switch_file``: finds the file (relative to the current directory, and to the
    script's directory with ``--lint-file``) and reads it as ATC's reader of that file does: the
    keep_dtype lines, the ini sections and modes, the mixlist's lists, the customize lines and
    dtypes, the fusion switch JSON or ``Pass:on`` lines. Entries ATC only drops (an unknown
    mode, a repeated name) are warnings.

    ## Why
    Each file has its own reader and its own code: E10001 for a missing keep_dtype or
    op_precision_mode file (checked up front, with the path's characters), E21001/E20101 for a
    missing mixlist/fusion/customize file, E21002 and E20003 for a malformed mixlist or fusion
    file, E20101 for a customize line out of format (an empty line included), E10003 for a
    keep_dtype type that is not PascalCase.

    ## Example
    ``--modify_mixlist=ops_info.json`` holding ``{"black-list": ["Conv2D"]}`` (an array where
    ATC wants ``{"to-add": [...]}``); a customize file ending in a blank line.

    ## Fix
    Fix the path or the line the message names, following the flag's page in ``docs/atc.md``.

    ## Facts
    ``op_tables/command_files.json`` (file entries: syntax, readers, codes) from
    ``hicann/ge@ffdcbc9f7``: ``compiler/api/aclgrph/attr_options/keep_dtype_option.cc``,
    ``compiler/engines/nn_engine/utils/common/config_parser/`` (op_impl_mode, modify_mixlist,
    op_cust_dtypes), ``compiler/engines/nn_engine/fusion/fusion_config_manager/fusion_config_parser.cc``,
    ``api/atc/main_impl.cc``, ``compiler/api/aclgrph/option_utils.cc``.
    """

    code = "AC537"
    name = "option-file-invalid"
    severity = Severity.ERROR
    atc_error = "E10001"
    stage = "values"
    precedence = 121

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        for flag in FILE_FLAGS:
            found = named_file(ctx, flag)
            if found is None:
                continue
            facts = file_facts(ctx.tables)[flag]
            missing = facts["missing"]
            missing_source = f"{missing['source']} {missing['lines']}"
            if found.resolved.unknown:
                ctx.report(cls, flag, f"'{found.written}' holds a shell variable that is not set here; the file "
                           "was not checked", hint="lint with the variable set", atc_error=None,
                           severity=Severity.INFO, source=missing_source, data={"file": found.written})
                continue
            if found.resolved.path is None or found.text is None:
                why = (f"does not exist (looked for {' or '.join(found.resolved.tried)})" if found.resolved.path is None
                       else f"cannot be read: {found.read_problem}")
                ctx.report(cls, flag, f"the {flag} file '{found.written}' {why}: ATC stops with "
                           f"{missing['error']} (\"{missing['reason'].replace('%s', found.written)}\")", hint="give the file's path, relative to "
                           "where atc runs", atc_error=missing["error"], source=missing_source,
                           data={"file": found.written, "tried": list(found.resolved.tried)})
                continue
            if missing.get("path_chars"):
                rule = aipp_facts(ctx.tables).path_rule
                chars = path_chars_problem(found.resolved.path, rule)
                if chars is not None:
                    ctx.report(cls, flag, f"ATC refuses the path '{found.written}': {chars}",
                               hint="use a path of letters, digits, '-', '.', '_'", atc_error=rule["error"],
                               source=f"{rule['source']} {rule['lines']}", data={"file": found.written})
            for problem in read_option_file(flag, found.text, facts).problems:
                ctx.report(cls, flag, f"{found.written}: {problem.message}",
                           hint=f"write the file as {flag} takes it: {facts['syntax'].split('. ')[0]}",
                           atc_error=problem.atc_error, severity=Severity(problem.severity), source=problem.source,
                           data={"file": found.written, "file_line": problem.line})
