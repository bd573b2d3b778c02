"""The command atccheck suggests after a lint: its own command plus every other flag the user gave.

``build_command`` writes the flags it owns (framework, model, output, chip, input format and
shapes, gears, precision). :func:`keep_user_flags` adds the user's other flags (an AIPP file,
``--out_nodes``, ``--keep_dtype``, ``--log`` ...) as they were given, except those the lint
judges wrong: a flag an error finding names, or one a rule says to remove. Each flag left out
gets a note, so nothing disappears silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

from atccheck.findings import Finding, Severity

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.command import AtcCommand

# Flags the generator writes itself, from the user's values where they are valid.
GENERATOR_FLAGS = frozenset({
    "--framework", "--model", "--output", "--soc_version", "--input_format", "--input_shape",
    "--precision_mode", "--precision_mode_v2", "--dynamic_batch_size", "--dynamic_image_size", "--dynamic_dims",
})
# Rules whose finding means "this flag should go", whatever its severity.
REMOVE_RULES = frozenset({"flag-not-for-onnx", "flag-not-in-release"})


class _Occurrence(Protocol):
    flag: str
    value: str | None

    @property
    def has_expansion(self) -> bool: ...


class _Command(Protocol):
    @property
    def occurrences(self) -> Sequence[_Occurrence]: ...


def keep_user_flags(written: "AtcCommand", cmd: _Command, findings: Iterable[Finding],
                    takes_value: "dict[str, bool] | None" = None) -> "AtcCommand":
    """``written`` plus the flags of ``cmd`` it does not write and the lint does not judge wrong."""
    from atccheck.atc.command import AtcCommand

    findings = list(findings)
    wrong = {f.location.node for f in findings
             if f.location.node and (f.severity is Severity.ERROR or f.name in REMOVE_RULES)}
    present = {word.split("=", 1)[0] for word in written.argv[1:]}
    kept: list[str] = []
    notes: list[str] = []
    seen: set[str] = set()
    for occurrence in reversed(list(cmd.occurrences)):  # the last occurrence is the one ATC keeps
        flag = occurrence.flag
        if flag in GENERATOR_FLAGS or flag in present or flag in seen:
            continue
        seen.add(flag)
        if flag in wrong:
            notes.append(f"{flag} left out: the lint judges it wrong (see the findings); fix it and add it back")
            continue
        if occurrence.value is None:
            if takes_value is None or not takes_value.get(flag, True):
                kept.append(flag)
            continue
        if occurrence.has_expansion:
            notes.append(f"{flag} left out: its value holds a shell expansion ({occurrence.value}); add it back")
            continue
        kept.append(f"{flag}={occurrence.value}")
    kept.reverse()
    notes.reverse()
    return AtcCommand(tuple(written.argv) + tuple(kept), tuple(written.notes) + tuple(notes), written.input_shapes)


def with_flag(written: "AtcCommand", flag: str, value: str, note: str | None = None) -> "AtcCommand":
    """``written`` with ``flag=value`` added (replacing an earlier value of the flag)."""
    from atccheck.atc.command import AtcCommand

    argv = [w for w in written.argv if w.split("=", 1)[0] != flag] + [f"{flag}={value}"]
    return AtcCommand(tuple(argv), tuple(written.notes) + ((note,) if note else ()), written.input_shapes)
