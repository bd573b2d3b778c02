"""atccheck rule: a rule's documentation, or the whole catalogue."""

from __future__ import annotations

import json

import click

from atccheck.cli.options import error_boundary


@click.command("rule")
@click.argument("name_or_code", required=False)
@click.option("--all", "show_all", is_flag=True,
              help="List every rule (model rules and atc command rules): code, name, severity, summary.")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True)
@error_boundary
def rule_command(name_or_code, show_all, fmt):
    """Print the documentation of the rule NAME_OR_CODE (unsupported-op, AC101), or --all rules."""
    from atccheck.catalogue import catalogue, find_rule
    from atccheck.errors import UsageError
    from atccheck.rule_docs import catalogue_page, rule_page, rule_text
    from atccheck.target import closest

    if show_all == bool(name_or_code):
        raise UsageError("give a rule name or code, or --all")
    rules = catalogue()
    if show_all:
        if fmt == "json":
            click.echo(json.dumps([_rule_dict(r) for r in rules], indent=2, ensure_ascii=False))
        elif fmt == "markdown":
            click.echo(catalogue_page(rules), nl=False)
        else:
            width = max(len(r.name) for r in rules)
            for r in rules:
                click.echo(f"{r.code}  {r.name.ljust(width)}  {r.severity.value:<7}  {r.docs().summary}")
        return
    rule = find_rule(name_or_code)
    if rule is None:
        names = [r.name for r in rules] + [r.code for r in rules]
        prefixed = [r.name for r in rules if r.code.startswith(name_or_code.upper()) or r.name.startswith(name_or_code.lower())]
        near = prefixed or closest(name_or_code, names)
        hint = f"; did you mean {', '.join(near)}?" if near else "; 'atccheck rule --all' lists them"
        raise UsageError(f"no rule '{name_or_code}'{hint}")
    if fmt == "json":
        click.echo(json.dumps(_rule_dict(rule, full=True), indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        click.echo(rule_page(rule), nl=False)
    else:
        click.echo(rule_text(rule), nl=False)


def _rule_dict(rule, full: bool = False) -> dict:
    from atccheck.rule_docs import applies_to, rule_fix

    docs = rule.docs()
    fix, fix_safe = rule_fix(rule)
    doc = {
        "code": rule.code,
        "name": rule.name,
        "severity": rule.severity.value,
        "summary": docs.summary,
        "applies_to": applies_to(rule),
        "fix": fix,
        "fix_safe": fix_safe,
        "kind": rule.kind,
    }
    if full:
        doc["sections"] = dict(docs.sections)
    return doc
