"""multiple-opset-imports: more than one opset_import while default-domain nodes exist."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from atccheck.context import CheckContext
from atccheck.domains import STANDARD_DOMAINS, is_standard
from atccheck.findings import Finding, Severity
from atccheck.rules.base import Rule, register

PARSER_SOURCE = (
    "hicann/ge@ffdcbc9f7:parser/parser/onnx/onnx_parser.cc (ConstructOriType, every tag v8.5.0...v9.2.0-beta.1); "
    "Ascend/parser@a87083b:parser/onnx/onnx_parser.cc; "
    "cann_onnx_registry.json parser_facts.empty_domain_released_behaviour"
)


@register
class MultipleOpsetImports(Rule):
    """The model has more than one opset_import entry and nodes in the default domain.

    ## What it does
    Fires once per model when ``opset_import`` has more than one entry and at least one
    node (subgraphs included) has an empty domain, for every CANN profile whose parser
    has the released behaviour (all shipped releases). The finding lists the imports, which
    extra imports nodes actually use (and by which kind of node), and which are unused.

    ## Why
    ATC's ONNX parser reads every ``opset_import`` entry into a domain-to-version map. For a
    node with an empty domain (every ordinary exported node) it takes the version from the
    map only when the map holds exactly one entry; otherwise parsing stops with E16005
    "The model has %s --domain_version fields, but only one is allowed." Models exported
    with onnxruntime contrib ops (``com.microsoft``), ``ai.onnx.ml`` or a custom domain, and
    models from exporters that add function domains, hit this on the first standard node.
    Only a parser after hicann/ge commit 74f8167a4 (newer than every released CANN) treats
    the empty domain as ``ai.onnx`` and accepts several imports.

    ## Example
    A quantized LSTM model with ``opset_import`` ``ai.onnx 17`` and ``com.microsoft 1``
    (for one ``DynamicQuantizeLSTM`` node) and 42 standard nodes.

    ## Fix
    ``atccheck fix`` runs ``single-opset-import``: it drops unused imports and inlines
    model-local functions. An import that custom-domain nodes use cannot simply be dropped:
    those nodes must first be decomposed into standard ops or replaced (see
    ``custom-domain-op``).

    ## Facts
    cann_source.md section 1 item 4 (old and new behaviour of ``ModelParseToGraph`` /
    ``ConstructOriType``); ``cann_onnx_registry.json`` ``parser_facts``
    ``empty_domain_released_behaviour``; E16005 in ``op_tables/atc_errors.json``;
    ``op_tables/profiles.json`` ``single_opset_import``.
    """

    code = "AC103"
    name = "multiple-opset-imports"
    severity = Severity.ERROR
    op_types = frozenset()

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        profile = ctx.target.profile
        imports = ctx.opset_imports
        if not profile.single_opset_import or len(imports) <= 1:
            return
        domains = Counter(g.domain for g in ctx.graph.nodes)
        default_nodes = domains.get("", 0)
        if not default_nodes:
            return
        kept = next((d for d in STANDARD_DOMAINS if d in imports), None)
        extras = [d for d in imports if d != kept]
        function_domains = {domain for domain, _ in ctx.local_functions}
        function_calls = Counter(g.domain for g in ctx.graph.nodes if (g.domain, g.op_type) in ctx.local_functions)
        used_by_nodes = {d: domains[d] for d in extras if domains.get(d)}
        unused = [d for d in extras if not domains.get(d)]
        # Imports whose every user is a local-function call go away when the functions are inlined.
        only_functions = [d for d in used_by_nodes if function_calls.get(d) == domains[d] and d in function_domains]
        respelled = [d for d in used_by_nodes if is_standard(d)]  # both spellings of ai.onnx imported
        blocking = [d for d in used_by_nodes if d not in only_functions and d not in respelled]
        listed = ", ".join(f"{_spell(d)} {v}" for d, v in imports.items())
        yield self.finding(
            ctx,
            f"the model has {len(imports)} opset_import entries ({listed}) and {default_nodes} "
            f"node{'s' if default_nodes != 1 else ''} in the default domain; CANN {profile.id} parses a "
            f"default-domain node only when there is exactly one entry",
            hint=_hint(unused, only_functions, respelled, blocking, used_by_nodes),
            source=PARSER_SOURCE,
            atc_error="E16005",
            data={
                "opset_imports": {d: v for d, v in imports.items()},
                "default_domain_nodes": default_nodes,
                "kept_import": kept,
                "extra_imports_used": used_by_nodes,
                "extra_imports_unused": unused,
                "used_only_by_local_function_calls": only_functions,
                "used_by_custom_domain_nodes": blocking,
            },
        )


def _spell(domain: str) -> str:
    return f"'{domain}'" if domain else "'' (ai.onnx)"


def _hint(
    unused: list[str], only_functions: list[str], respelled: list[str], blocking: list[str], used: dict[str, int]
) -> str:
    parts = ["keep one opset_import ('atccheck fix' runs single-opset-import)"]
    if unused:
        parts.append(f"unused and can be dropped: {', '.join(map(_spell, unused))}")
    if only_functions:
        parts.append(f"used only by local-function calls, gone once they are inlined: {', '.join(map(_spell, only_functions))}")
    if respelled:
        parts.append(f"used by nodes that spell the default domain {_spell(respelled[0])}: give them the kept spelling")
    if blocking:
        nodes = ", ".join(f"{_spell(d)} ({used[d]} node{'s' if used[d] != 1 else ''})" for d in blocking)
        parts.append(
            f"{nodes} cannot simply be dropped: custom-domain nodes use {'it' if len(blocking) == 1 else 'them'}; "
            "decompose or replace those nodes first"
        )
    return "; ".join(parts)
