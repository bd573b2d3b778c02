"""internal-error: a rule could not check part of the model (reported by the engine)."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import EngineFinding, register


@register
class InternalError(EngineFinding):
    """A rule raised an exception on a node or on the model, so that part went unchecked.

    ## What it does
    The engine runs every rule on every node it applies to. When a rule raises instead of
    returning its findings, the engine records this finding in its place, naming the rule,
    the node (or the model) and the exception, and goes on with the other rules and nodes.

    ## Why
    A check that skipped part of the model must not pass: this is an error, so ``--fail-on
    error`` (the default) and the CI gate fail, and a JSON or SARIF report shows which rule
    and node to look at. It says nothing about what ATC will do with the model.

    ## Example
    The message has the form ``rule <rule name> could not check node '<node>': <exception
    type>: <its message>`` (``the model`` for a model-level rule).

    ## Fix
    Report the model (or the node, its op type, attributes and input shapes) to the atccheck
    maintainers. The rest of the report stands: the other rules ran. ``--ignore AC000`` hides
    the finding, and with it the warning that part of the model went unchecked.

    ## Facts
    None: it reports atccheck's own failure, not a prediction about ATC.
    """

    code = "AC000"
    name = "internal-error"
    severity = Severity.ERROR
    applies = "any node, or the whole model: wherever a rule raised"
