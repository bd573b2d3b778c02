"""The command-rule contract: a defect of an ``atc`` command line, one rule per module.

A command rule is a class in its own module under ``atccheck/atc/lint/rules/``, decorated with
:func:`atccheck.registry.register` (the catalogue it shares with the model rules: one code and
name space, one documentation format). Its ``stage`` says when the defect shows, and so how
the run loop (``atccheck/atc/lint/run.py``) asks it:

- ``shell`` and ``parser``: the rule judges what the shell or ATC's option parser meets, the
  events of :mod:`atccheck.atc.lint.parse` of the type it names in ``event``, one at a time
  and in the order they come (:meth:`CommandRule.report`);
- ``values``: the rule judges the parsed command (:meth:`CommandRule.check`), or one flag at a
  time (:meth:`CommandRule.check_flag`: the first rule that reports on a flag ends its turn).
  Values rules run by ``precedence``, lowest first.

``atc_error`` is ATC's usual reaction: an error code from the catalogue, ATC's own parser line,
or None when ATC says nothing (a finding may name a more precise code).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from atccheck.findings import Finding, Location, Severity
from atccheck.registry import Documented

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import Occurrence, ParsedCommand

STAGES = ("shell", "parser", "values")


class CommandRule(Documented):
    """Base class of the rules that read an ``atc`` command line, not a model."""

    kind: ClassVar[str] = "atc-command"
    atc_error: ClassVar[str | None] = None
    stage: ClassVar[str] = "values"
    # shell and parser stages: the event type(s) of atccheck.atc.lint.parse this rule judges
    event: ClassVar[type | tuple[type, ...] | None] = None
    # values stage: the order rules run in, lowest first
    precedence: ClassVar[int] = 1000

    @classmethod
    def validate(cls) -> None:
        """Called by ``register``: the stage is known, and a shell or parser rule names its event."""
        if cls.stage not in STAGES:
            raise ValueError(f"{cls.__name__}: stage must be one of {', '.join(STAGES)}")
        if cls.stage != "values" and cls.event is None:
            raise ValueError(f"{cls.__name__}: a {cls.stage} rule names the parse event it judges ('event')")

    @classmethod
    def report(cls, event: Any, ctx: CommandContext) -> None:
        """Judge one event of this rule's type (shell and parser stages)."""

    @classmethod
    def check(cls, cmd: ParsedCommand, ctx: CommandContext) -> None:
        """Judge the parsed command (values stage)."""

    @classmethod
    def check_flag(cls, occurrence: Occurrence, cmd: ParsedCommand, ctx: CommandContext) -> bool:
        """Judge one flag (values stage); True when it reported, so later flag rules skip the flag."""
        return False

    @classmethod
    def judges_flags(cls) -> bool:
        return cls.check_flag.__func__ is not CommandRule.check_flag.__func__  # type: ignore[attr-defined]

    @classmethod
    def finding(
        cls,
        location: Location,
        message: str,
        *,
        hint: str,
        source: str,
        atc_error: str | None,
        severity: Severity | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> Finding:
        return cls.make_finding(location, message, hint=hint, source=source, atc_error=atc_error, severity=severity,
                                data=data)
