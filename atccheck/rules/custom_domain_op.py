"""custom-domain-op: a node of a domain the profile registers nothing for, or a local-function call."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.domains import STANDARD_DOMAINS
from atccheck.findings import Finding, Severity
from atccheck.lookup import Status, resolve
from atccheck.rules._helpers import unregistered_error
from atccheck.rules.base import Rule, register

PRECHECK_SOURCE = "hicann/ge@ffdcbc9f7:parser/parser/common/pre_checker.cc; Ascend/parser@a87083b:parser/common/pre_checker.cc"
PROTO_SOURCE = "hicann/ge@ffdcbc9f7:graph_metadef/proto/onnx/ge_onnx.proto (IR_VERSION 6, no FunctionProto)"
PLUGIN_SOURCE = "hicann/ge@ffdcbc9f7:parser/parser/common/tbe_plugin_loader.cc (custom plugins searched first)"
# Custom domains whose origin tells the user what to do instead of a plugin.
DOMAIN_HINTS: dict[str, str] = {
    # onnxruntime's level-"all" optimizer writes its CPU kernels' blocked NCHWc layout (ReorderInput,
    # nchwc Conv/MaxPool/...), sized for the CPU that saved the model; level "extended" does not.
    "com.microsoft.nchwc": (
        "the model was saved by onnxruntime at optimization level 'all' (NCHWc layout for its CPU kernels): "
        "save it again at level 'extended' (ORT_ENABLE_EXTENDED), whose fused ops 'atccheck fix' decomposes, "
        "or use the model before onnxruntime optimized it"
    ),
}


@register
class CustomDomainOp(Rule):
    """The node is in a domain the CANN profile has no parser plugins for, or calls a model-local function.

    ## What it does
    Fires on every node (subgraphs included) whose domain is imported but has no
    registration at all in the profile's parser registry (``com.microsoft`` contrib ops,
    ``com.example::DeformConv2D``, ``npu::1::NPU*`` before the 8.x/9.x plugins), and on
    every call of a function defined in the model's ``functions`` list. A non-standard
    domain the profile does register (``npu`` and ``mmdeploy`` in 8.0/9.0) is left to
    ``unsupported-op`` and ``opset-not-registered``.

    ## Why
    ATC's pre-check looks every node up by ``<domain>::<opset>::<OpType>`` and reports each
    miss with E19010 (CANN 8.x and older) or E13010 (9.x). Built-in plugins exist only for
    ``ai.onnx`` and a handful of other domains, so any other domain needs a custom plugin.
    The parser reads models through an IR-6 ``ge_onnx.proto`` that has no ``FunctionProto``:
    model-local functions are dropped and each call is just an unregistered custom op.

    ## Example
    ``com.microsoft::1::DynamicQuantizeLSTM`` in an onnxruntime-quantized model; a
    ``com.example::DeformConv2D`` node; a call of a local function exported by the dynamo
    exporter (``pkg.onnxscript.torch_lib::...``).

    ## Fix
    For a function call: inline the model's functions (``atccheck fix`` does this in
    ``single-opset-import``). For onnxruntime contrib ops atccheck knows: the matching
    ``decompose-contrib-*`` pass. Otherwise decompose the op into standard ops, re-export
    without it, or write an ATC custom-op plugin registered with
    ``OriginOpType("<domain>::<version>::<Op>")`` plus an op proto and kernel in a vendor
    opp directory (custom plugins are searched before the built-in ones).

    ## Facts
    cann_source.md section 1 item 5 (pre-check, E19010/E13010), section 2 (built-in
    domains, custom plugins, model-local functions); the profile registries in
    ``op_tables/registry.json``.
    """

    code = "AC105"
    name = "custom-domain-op"
    severity = Severity.ERROR
    op_types = None

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        ctx = node.ctx
        if node.domain in STANDARD_DOMAINS and (node.domain, node.op_type) not in ctx.local_functions:
            return  # neither a custom domain nor a function call: skip the full resolution
        res = resolve(node)
        if res.status not in (Status.CUSTOM_DOMAIN, Status.LOCAL_FUNCTION):
            return
        profile = ctx.target.profile
        key = node.parser_key
        if res.status is Status.LOCAL_FUNCTION:
            message = (
                f"{node.op_type} calls a model-local function; CANN {profile.id}'s parser reads ONNX IR 6 without "
                f"functions, drops the definition and finds no plugin for key {key}"
            )
            hint = "inline the model's functions ('atccheck fix' runs single-opset-import) or re-export without them"
            fix_hint = None
            source = f"{PROTO_SOURCE}; {PRECHECK_SOURCE}"
        else:
            message = (
                f"{node.op_type} is in domain '{node.domain}', for which CANN {profile.id} registers no parser "
                f"plugin; ATC's pre-check has no key {key}"
            )
            plugin = f"write an ATC custom-op plugin registered as OriginOpType(\"{key}\")"
            fix_hint = f"run 'atccheck fix' ({{pass_name}}) to decompose it into standard ops, or {plugin}"
            hint = DOMAIN_HINTS.get(node.domain) or f"decompose it into standard ops, re-export without it, or {plugin}"
            source = f"op_tables/registry.json profile {profile.id}; {PRECHECK_SOURCE}; {PLUGIN_SOURCE}"
        yield self.finding(
            node,
            message,
            hint=hint,
            source=source,
            atc_error=unregistered_error(ctx),
            data={"parser_key": key, "status": res.status.value, "domain": node.domain},
            fix_hint=fix_hint,
        )
