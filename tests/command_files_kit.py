"""Small models and a lint runner for the command rules that read files (AIPP, precision files, names)."""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import TensorProto, helper

from atccheck.atc.command_files import FileBase
from atccheck.atc.lint import LintResult, lint_command

BASE = ("atc --model=m.onnx --framework=5 --output=m --soc_version=Ascend310P3 --input_format=NCHW "
        "--input_shape=image:1,3,224,224")
GOOD_AIPP = ("aipp_op {\n  aipp_mode: static\n  input_format: RGB888_U8\n  src_image_size_w: 224\n"
             "  src_image_size_h: 224\n  mean_chn_0: 123\n  min_chn_0: 0.675\n  var_reci_chn_0: 0.0171\n}\n")


def image_model(inputs=(("image", [1, 3, 224, 224]),), channels_out: int = 8) -> onnx.ModelProto:
    """Each input goes through a named Conv ('conv_<input>') and an unnamed Relu (ATC names it Relu_<k>)."""
    nodes, values, outputs, inits = [], [], [], []
    for name, shape in inputs:
        values.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
        weight = f"w_{name}"
        inits.append(helper.make_tensor(weight, TensorProto.FLOAT, [channels_out, shape[1], 1, 1],
                                        [0.1] * (channels_out * shape[1])))
        nodes.append(helper.make_node("Conv", [name, weight], [f"c_{name}"], name=f"conv_{name}"))
        nodes.append(helper.make_node("Relu", [f"c_{name}"], [f"out_{name}"]))
        outputs.append(helper.make_tensor_value_info(f"out_{name}", TensorProto.FLOAT, None))
    graph = helper.make_graph(nodes, "g", values, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def lint_in(tmp_path: Path, command: str, files: dict[str, str] | None = None, model: onnx.ModelProto | None = None,
            cann: str = "9.0", script_dir: Path | None = None, **kwargs) -> LintResult:
    """Write ``files`` under ``tmp_path`` and lint ``command`` as if run from there."""
    for name, text in (files or {}).items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    base = FileBase(str(tmp_path), str(script_dir) if script_dir else None)
    return lint_command(command, model if model is not None else image_model(), model_path="m.onnx", cann=cann,
                        files=base, **kwargs)


def named(result: LintResult, rule: str):
    return [f for f in result.findings if f.name == rule]
