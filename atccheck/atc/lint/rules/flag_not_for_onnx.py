"""flag-not-for-onnx: A flag ATC ignores for ONNX models, or one that has been removed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.facts import FlagInfo
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import Occurrence, ParsedCommand
    from atccheck.tables import Profile


@register
class FlagNotForOnnx(CommandRule):
    """A flag ATC ignores for ONNX models, or one that has been removed.

    ## What it does
    Reports flags the option table marks as not for ONNX (``--weight``, Caffe/TensorFlow-only
    options: warning) or as removed (error; info when the facts do not date the removal for the
    chosen release).

    ## Why
    An ignored flag does nothing and suggests a setting that does not happen; a removed flag
    makes ATC stop (E10060 for ``--auto_tune_mode``).

    ## Example
    ``--weight=w.caffemodel`` for an ONNX model; ``--auto_tune_mode=RL``.

    ## Fix
    Remove the flag.

    ## Facts
    ``shared/reference/atc_options.json`` ``parameters`` (``onnx_relevance``, notes);
    ``notes/atc_cli.md`` rule 4; ``atc_error_codes.json`` E10060.
    """

    code = "AC522"
    name = "flag-not-for-onnx"
    severity = Severity.WARNING
    atc_error = None
    stage = "values"
    precedence = 41

    @classmethod
    def check_flag(cls, occurrence: "Occurrence", cmd: "ParsedCommand", ctx: "CommandContext") -> bool:
        info = ctx.flags[occurrence.flag]
        profile = ctx.profile
        if info.relevance == "removed" and not removal_applies(info, profile):
            ctx.report(cls, occurrence.flag,
                       f"{occurrence.flag}: {info.note or 'removed'} That holds for {info.source}; the facts do not "
                       f"record it as removed in CANN {profile.id}, an earlier release, where it may still be "  # type: ignore[union-attr]
                       "accepted",
                       hint=f"check 'atc --help' of your release; from the release that removed it on, drop "
                       f"{occurrence.flag}", severity=Severity.INFO, atc_error=None, source=info.source)
            return True
        if info.relevance in ("not_for_onnx", "removed"):
            removed = info.relevance == "removed"
            ctx.report(cls, occurrence.flag,
                       f"{occurrence.flag} {'has been removed' if removed else 'does nothing for ONNX models'}"
                       + (f": {info.note}" if info.note else ""), hint=f"remove {occurrence.flag}",
                       severity=Severity.ERROR if removed else Severity.WARNING,
                       atc_error="E10060" if removed else None, source=info.source)
            return True
        return False


def removal_applies(info: "FlagInfo", profile: "Profile | None") -> bool:
    """Whether a flag's 'removed' fact covers the target release.

    The option table describes CANN 9.0 and the open-source GE tree (atc_options.json
    ``baseline``); a removal recorded from that tree (``hicann/...`` source) without a
    version note holds for the profiles built on the same source generation (``mapping_from``
    ``hicann-*``: 8.0, 9.0), not for the releases before it (5.0, 6.0: ``canndev-2022``), where
    the facts are silent (``--auto_tune_mode`` was an ATC flag of those releases).
    """
    if profile is None:
        return True
    origin = info.source.split("/", 1)[0]
    return profile.mapping_from.split("-", 1)[0] == origin
