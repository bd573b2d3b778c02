"""Rule documentation from the rules' docstrings: ``atccheck rule``, ``docs/rules/`` and SARIF help.

``tools/build_rule_docs.py`` writes ``docs/rules/<rule-name>.md`` (one page per rule) and
``docs/rules/README.md`` (the catalogue) from :func:`rule_page` and :func:`catalogue_page`;
a test keeps the committed pages equal to the docstrings. A rule's documentation URI is
``<rule-docs-url>/<rule-name>.md``, where ``rule-docs-url`` is wherever those pages are
published (a setting; atccheck assumes no website of its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from atccheck.atc.lint.rule import CommandRule
from atccheck.rules.base import DOC_HEADINGS, EngineFinding, Rule

AnyRule = type[Rule] | type[CommandRule]

DOCS_FOLDER = "docs/rules"


def page_name(rule: AnyRule) -> str:
    return f"{rule.name}.md"


def help_uri(rule_name: str, base: str | None) -> str | None:
    """The documentation URI of a rule, or None when no base URL is configured."""
    if not base:
        return None
    return f"{base.rstrip('/')}/{rule_name}.md"


_STAGE_TEXT = {
    "shell": "how the shell splits the text",
    "parser": "ATC's option parser",
    "values": "the flag values, checked against the facts (and the model when given)",
}


def applies_to(rule: AnyRule) -> str:
    if issubclass(rule, EngineFinding):
        return f"{rule.applies} (made by the check engine, not by a rule)"
    if issubclass(rule, CommandRule):
        return f"an `atc` command line (`atccheck atc-cmd --lint`): {_STAGE_TEXT[rule.stage]}"
    if rule.fact_kind is not None:
        return f"standard-domain nodes of the ops `op_tables/op_facts.json` names in `{rule.fact_kind}` facts"
    if rule.node_ops is not Rule.node_ops:  # the rule picks its ops from a support table
        return "standard-domain nodes of the ops its support table names"
    if rule.op_types is None:
        return "every node"
    if not rule.op_types:
        return "the whole model"
    return "standard-domain nodes of type " + ", ".join(f"`{op}`" for op in sorted(rule.op_types))


def atc_reaction(atc_error: str | None, severity: str) -> str:
    """What ATC does with a command defect: its error, or, without one, whether it fails at all.

    An error-severity defect without a code is one ATC fails on with a code the catalogue does
    not record (a --soc_version without a platform config, a bf16 mode on a chip without bf16);
    below error severity ATC goes on without a word.
    """
    if atc_error:
        return atc_error
    if severity == "error":
        return "fails (error code not catalogued)"
    return "no error (silent)"


def rule_fix(rule: AnyRule) -> tuple[str, bool | None]:
    """The pass that answers a rule's findings whatever their node (its rule-wide named links),
    with its safety; ``("manual", None)`` when none does, or when the pass depends on the node."""
    from atccheck.fixlinks import rule_links

    wide = {(item.pass_name, item.safe) for item in rule_links(rule.name) if item.link.op_type is None
            and item.link.domain is None}
    if len(wide) != 1 or issubclass(rule, (CommandRule, EngineFinding)):
        return "manual", None
    return next(iter(wide))


def fix_line(rule: AnyRule) -> str:
    """Which ``atccheck fix`` passes answer the rule's findings, from the passes' ``answers``."""
    from atccheck.fixlinks import rule_links

    if issubclass(rule, CommandRule):
        return "manual (edit the command; `atccheck atc-cmd MODEL --soc SOC` writes one)"
    groups: dict[tuple[str, bool, str | None, str], list[str | None]] = {}
    for item in rule_links(rule.name):
        key = (item.pass_name, item.safe, item.link.domain, _condition(item.link))
        groups.setdefault(key, []).append(item.link.op_type)
    if not groups:
        return "manual (no `atccheck fix` pass answers it)"
    parts = []
    for (name, safe, domain, condition), ops in groups.items():
        text = f"`{name}` ({'safe' if safe else 'unsafe'})"
        if None not in ops:
            text += " on " + ", ".join(f"`{op}`" for op in sorted(o for o in ops if o is not None))
        if domain is not None:
            text += f" in domain `{domain}`"
        parts.append(text + condition)
    return "`atccheck fix` pass " + "; ".join(parts)


def _condition(link: Any) -> str:
    """The data a link asks of a finding, in words ('' when it asks nothing)."""
    words = [f"`{key}` is " + " or ".join(f"`{v}`" for v in values) for key, values in link.when.items()]
    words += [f"it has `{key}`" for key in link.has]
    return f" when {' and '.join(words)}" if words else ""


def _facts_lines(rule: AnyRule) -> list[str]:
    lines = [f"Default severity: {rule.severity.value}", f"Applies to: {applies_to(rule)}"]
    if issubclass(rule, CommandRule):
        lines.append(f"ATC: {atc_reaction(rule.atc_error, rule.severity.value)}")
    lines.append(f"Fix: {fix_line(rule)}")
    if rule.aliases:
        lines.append("Earlier name: " + ", ".join(f"`{a}`" for a in rule.aliases))
    return lines


def rule_page(rule: AnyRule) -> str:
    """The Markdown page of one rule."""
    docs = rule.docs()
    lines = [f"# {rule.code} {rule.name}", "", docs.summary, "", *(f"- {line}" for line in _facts_lines(rule))]
    for heading in DOC_HEADINGS:
        body = docs.sections.get(heading)
        if body:
            lines += ["", f"## {heading}", "", body]
    lines += ["", f"<!-- generated by tools/build_rule_docs.py from the docstring of {rule.__module__}.{rule.__name__}; do not edit -->"]
    return "\n".join(lines) + "\n"


def catalogue_page(rules: Sequence[AnyRule]) -> str:
    lines = [
        "# atccheck rules",
        "",
        "Every rule, by code. `atccheck rule NAME_OR_CODE` prints a page in the terminal.",
    ]
    groups = (
        ("Model rules", "What `atccheck check` runs on a model.", [r for r in rules if not issubclass(r, CommandRule)]),
        ("Command rules", "What `atccheck atc-cmd MODEL --lint \"atc ...\"` reports on an `atc` command line.",
         [r for r in rules if issubclass(r, CommandRule)]),
    )
    for title, intro, members in groups:
        if not members:
            continue
        lines += ["", f"## {title}", "", intro, "", "| Code | Name | Severity | Summary |", "|---|---|---|---|"]
        for rule in members:
            summary = rule.docs().summary.replace("|", "\\|").replace("\n", " ")
            lines.append(f"| {rule.code} | [{rule.name}]({page_name(rule)}) | {rule.severity.value} | {summary} |")
    lines += ["", "<!-- generated by tools/build_rule_docs.py; do not edit -->"]
    return "\n".join(lines) + "\n"


def rule_text(rule: AnyRule) -> str:
    """The terminal form: the page without Markdown decoration of the title."""
    docs = rule.docs()
    lines = [f"{rule.code} {rule.name} ({rule.severity.value})", "", docs.summary, "", *_facts_lines(rule)[1:]]
    for heading in DOC_HEADINGS:
        body = docs.sections.get(heading)
        if body:
            lines += ["", heading, "-" * len(heading), body]
    return "\n".join(lines) + "\n"


def expected_pages(rules: Sequence[AnyRule]) -> dict[str, str]:
    """File name under docs/rules/ -> content, for the generator and its test."""
    pages = {page_name(rule): rule_page(rule) for rule in rules}
    pages["README.md"] = catalogue_page(rules)
    return pages
