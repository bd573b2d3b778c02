"""Codes of the ``atc`` command-line lint (AC5xx): one entry per defect class.

These are not model rules (they read a command, not a graph), so they live here rather than in
``atccheck/rules/``; their findings are ordinary :class:`atccheck.findings.Finding` objects, so the
same JSON and text output apply. ``atc_error`` is what ATC prints for the defect: an error
code from the catalogue, or the option parser's own line ("ERROR: unknown command line flag")
when it stops before any code. docs/atc.md lists them with examples.
"""

from __future__ import annotations

from dataclasses import dataclass

from atccheck.findings import Severity

UNKNOWN_FLAG = "ERROR: unknown command line flag"
NON_OPTION = "ERROR: Non-option parameter"
MISSING_ARGUMENT = "ERROR: flag is missing its argument"


@dataclass(frozen=True)
class LintCode:
    code: str
    name: str
    severity: Severity
    summary: str
    atc_error: str | None  # the usual ATC reaction; a finding may name a more precise one


LINT_CODES: tuple[LintCode, ...] = (
    LintCode("AC501", "unknown-atc-flag", Severity.ERROR,
             "a flag ATC's option parser does not register (or an ambiguous abbreviation)", UNKNOWN_FLAG),
    LintCode("AC502", "single-dash-flag", Severity.INFO,
             "a long flag written with one dash: ATC rewrites '-name' to '--name' only when two letters follow",
             None),
    LintCode("AC503", "unicode-dash-flag", Severity.ERROR,
             "a flag starting with an en/em dash or minus sign copied from a document: not an option to ATC",
             NON_OPTION),
    LintCode("AC504", "glued-flags", Severity.ERROR,
             "two flags glued into one word (a missing space after a closing quote)", "E10054"),
    LintCode("AC505", "space-after-equals", Severity.ERROR,
             "'--name= value': the flag gets an empty value and the value becomes a stray word", NON_OPTION),
    LintCode("AC506", "stray-word", Severity.ERROR,
             "a word that belongs to no flag (often an unquoted value split by the shell)", NON_OPTION),
    LintCode("AC507", "missing-flag-value", Severity.ERROR,
             "a flag without its value, or one whose value is the next flag", MISSING_ARGUMENT),
    LintCode("AC508", "duplicate-atc-flag", Severity.WARNING,
             "the same flag twice with different values: ATC keeps the last one silently", None),
    LintCode("AC509", "invalid-soc-version", Severity.ERROR,
             "a --soc_version literal that no platform config has (wrong case, bare 'Ascend', 'Ascendxxx', ...)",
             None),
    LintCode("AC510", "unresolved-placeholder", Severity.WARNING,
             "a shell variable or <placeholder> left in the command: empty or literal when ATC reads it", "E10054"),
    LintCode("AC511", "unquoted-shell-separator", Severity.ERROR,
             "an unquoted ';' (or '|', '&') inside a value ends the atc command early", "E10054"),
    LintCode("AC512", "missing-required-flag", Severity.ERROR,
             "a flag the mode requires is absent (--model, --framework, --output, --soc_version)", "E10054"),
    LintCode("AC513", "invalid-flag-value", Severity.ERROR,
             "a value outside the flag's closed set", "E10001"),
    LintCode("AC514", "nhwc-for-onnx", Severity.ERROR,
             "--input_format NHWC (or any value but NCHW, ND, NCDHW) for an ONNX model", "E10001"),
    LintCode("AC515", "input-name-not-in-model", Severity.ERROR,
             "an --input_shape name that is not a real input of the model", "E10016"),
    LintCode("AC516", "input-rank-mismatch", Severity.ERROR,
             "an --input_shape entry whose rank differs from the model input", "E10049"),
    LintCode("AC517", "missing-input-shape", Severity.ERROR,
             "a model input with symbolic dims that --input_shape does not set", "E10001"),
    LintCode("AC518", "input-shape-syntax", Severity.ERROR,
             "an --input_shape value ATC cannot parse (non-digit, float, zero, ',' for ';')", "E10002"),
    LintCode("AC519", "gear-rule", Severity.ERROR,
             "a dynamic gear option that breaks ATC's gear rules", "E10009"),
    LintCode("AC520", "dynamic-shape-on-static-chip", Severity.ERROR,
             "-1 without gears, or a range, for a chip or release without dynamic-shape support", "EZ3002"),
    LintCode("AC521", "precision-mode-conflict", Severity.ERROR,
             "both precision flags, or a precision value the chip or release does not have", "E10056"),
    LintCode("AC522", "flag-not-for-onnx", Severity.WARNING,
             "a flag ATC ignores for ONNX models or has removed", None),
    LintCode("AC523", "wrong-framework", Severity.ERROR,
             "--framework other than 5 for an .onnx model", "E10007"),
    LintCode("AC524", "output-not-a-base-name", Severity.ERROR,
             "--output ending in '/' (a directory) or in '.om' (ATC appends .om itself)", "E10022"),
    LintCode("AC525", "abbreviated-flag", Severity.INFO,
             "a unique prefix of a flag name: getopt_long accepts it, but it breaks when a new flag shares it", None),
    LintCode("AC526", "model-path-mismatch", Severity.INFO,
             "--model names another file than the model linted against", None),
    LintCode("AC527", "flag-not-in-release", Severity.ERROR,
             "a flag the chosen CANN release does not have yet", UNKNOWN_FLAG),
)

BY_NAME = {c.name: c for c in LINT_CODES}
BY_CODE = {c.code: c for c in LINT_CODES}


def lint_code(name: str) -> LintCode:
    return BY_NAME[name]
