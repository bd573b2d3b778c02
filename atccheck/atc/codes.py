"""What ATC's option parser prints when it stops before any error code, for the ``atc`` command lint.

The lint's codes (AC5xx) are command rules in the rule catalogue, one module each under
``atccheck/rules/atc_cmd/`` (``atccheck rule AC519``, ``docs/rules/``). A rule's ``atc_error``
is what ATC prints for the defect: an error code from the catalogue, or one of the parser lines
below.
"""

from __future__ import annotations

UNKNOWN_FLAG = "ERROR: unknown command line flag"
NON_OPTION = "ERROR: Non-option parameter"
MISSING_ARGUMENT = "ERROR: flag is missing its argument"


def lint_code(name: str):  # type: ignore[no-untyped-def]
    """The command rule named ``name`` (code, name, severity, atc_error, docs)."""
    from atccheck.rules import command_rule

    return command_rule(name)


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    """``LINT_CODES``, ``BY_NAME``, ``BY_CODE``: views of the command rules, for existing callers."""
    if name in ("LINT_CODES", "BY_NAME", "BY_CODE"):
        from atccheck.rules import command_rules

        rules = command_rules()
        return {"LINT_CODES": rules, "BY_NAME": {r.name: r for r in rules},
                "BY_CODE": {r.code: r for r in rules}}[name]
    raise AttributeError(f"module 'atccheck.atc.codes' has no attribute {name!r}")
