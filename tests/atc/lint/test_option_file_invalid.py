"""option-file-invalid: the precision and fusion files, found and read as ATC's readers read them."""

from __future__ import annotations

import pytest

from command_files_kit import BASE, lint_in, named

MIXED = BASE + " --precision_mode_v2=mixed_float16"


@pytest.mark.parametrize("flag, code", [("--keep_dtype", "E10001"), ("--op_precision_mode", "E10001"),
                                        ("--modify_mixlist", "E21001"), ("--customize_dtypes", "E20101"),
                                        ("--fusion_switch_file", "E21001")])
def test_a_missing_file_has_the_code_of_its_reader(tmp_path, flag, code):
    (f,) = named(lint_in(tmp_path, MIXED + f" {flag}=none.cfg"), "option-file-invalid")
    assert f.atc_error == code and f.location.node == flag and "none.cfg" in f.message


@pytest.mark.parametrize("flag, text, code", [
    ("--modify_mixlist", '{"black-list": ["Conv2D"]}', "E21002"),
    ("--modify_mixlist", '{"black-list": {"to-add": ["Conv2D"]}, "white-list": {"to-add": ["Conv2D"]}}', "E20003"),
    ("--modify_mixlist", "", None),
    ("--modify_mixlist", '{"gray-list": {"to-remove": ["Relu"]}}', "E20003"),  # a removal alone
    ("--customize_dtypes", "conv_image::InputDtype:float16,OutputDtype:float16\n\n", "E20101"),
    ("--customize_dtypes", "conv_image::InputDtype:half\n", "E20003"),
    ("--fusion_switch_file", '{"Switch": {"GraphFusion": {"ConvBnFusionPass": "disable"}}}', "E21002"),
    ("--fusion_switch_file", "ConvBnFusionPass:off\nConvBnFusionPass:on\n", "E20003"),
    ("--fusion_switch_file", '{"Switch": {"GraphFusion": {"A": "off"}}', "E20003"),
    ("--keep_dtype", "OpType::conv2d\n", "E10003"),
])
def test_malformed_files(tmp_path, flag, text, code):
    found = named(lint_in(tmp_path, MIXED + f" {flag}=f.cfg", {"f.cfg": text}), "option-file-invalid")
    assert [f.atc_error for f in found] == [code] and found[0].severity.value == "error"


@pytest.mark.parametrize("flag, text", [
    ("--modify_mixlist", '{"black-list": {"to-add": ["Conv2D"]}, "white-list": {"to-remove": ["Relu"]}}'),
    ("--customize_dtypes", "conv_image::InputDtype:float16,,OutputDtype:float32\nOpType::Relu:OutputDtype:float16\n"),
    ("--fusion_switch_file", '{"Switch": {"GraphFusion": {"ALL": "off"}, "UBFusion": {"ALL": "on"}}}'),
    ("--fusion_switch_file", "ConvBnFusionPass:off\n"),
    ("--op_precision_mode", "[ByOpType]\nConv2D=high_precision\n[ByNodeName]\nconv_image=keep_fp16\n"),
    ("--keep_dtype", "conv_image\nOpType::Conv2D\n"),
])
def test_well_formed_files_pass(tmp_path, flag, text):
    assert named(lint_in(tmp_path, MIXED + f" {flag}=f.cfg", {"f.cfg": text}), "option-file-invalid") == []


def test_an_unknown_mode_is_a_warning(tmp_path):
    (f,) = named(lint_in(tmp_path, BASE + " --op_precision_mode=p.ini", {"p.ini": "Conv2D=fastest\n"}),
                 "option-file-invalid")
    assert f.severity.value == "warning" and f.atc_error is None and "fastest" in f.message
