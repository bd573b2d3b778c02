"""check --numerics and fix on the command line: the keep list file, the atc command, the reports."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

from atccheck.cli.main import main
from precision_models import conv_block, layernorm_after_gain, save


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_check_numerics_writes_the_keep_list_and_the_atc_command_names_it(tmp_path):
    model = save(layernorm_after_gain(1000.0), tmp_path / "ln.onnx")
    keep = tmp_path / "keep.cfg"
    result = run("check", model, "--soc", "Ascend310P3", "--numerics", "--keep-dtype-out", str(keep),
                 "--format", "json")
    assert result.exit_code == 0, result.output  # warnings only: passes --fail-on error
    report = json.loads(result.stdout)
    assert [f["name"] for f in report["findings"] if f["name"].startswith("float16-")] == ["float16-overflow"]
    assert keep.read_text() == "square\nvariance\nadd_eps\nstd\n"  # ATC's format: one node name a line
    assert f"--keep_dtype={keep}" in report["atc_command"]["argv"]
    numerics = report["numerics"]
    assert numerics["before"][0]["ok"] is False and numerics["before"][0]["cosine"] < 0.5
    assert numerics["keep_dtype"]["restored"] is True and numerics["keep_dtype"]["after"][0]["ok"] is True


def test_text_and_html_show_each_output_before_and_after(tmp_path):
    model = save(layernorm_after_gain(1000.0), tmp_path / "ln.onnx")
    text = run("check", model, "--soc", "Ascend310P3", "--numerics")
    assert "output y: relative error 1" in text.output and "-> with --keep_dtype (4 nodes): relative error" in text.output
    page = tmp_path / "r.html"
    run("check", model, "--soc", "Ascend310P3", "--numerics", "--format", "html", "-o", str(page))
    html = page.read_text()
    assert "Precision preflight: force_fp16" in html and "with --keep_dtype (4 nodes)" in html
    assert 'aria-label="square: ' in html  # the node is drawn


def test_a_clean_model_writes_no_keep_list(tmp_path):
    model = save(conv_block(), tmp_path / "conv.onnx")
    keep = tmp_path / "keep.cfg"
    result = run("check", model, "--soc", "Ascend310P3", "--numerics", "--keep-dtype-out", str(keep), "--format", "json")
    assert result.exit_code == 0
    assert not keep.exists() and "no --keep_dtype list written" in result.stderr
    report = json.loads(result.stdout)
    assert "--keep_dtype" not in report["atc_command"]["line"] and report["numerics"]["ok"] is True


def test_numerics_options_need_numerics_and_one_target(tmp_path):
    model = save(conv_block(), tmp_path / "conv.onnx")
    for extra in (["--keep-dtype-out", str(tmp_path / "k")], ["--inputs", str(tmp_path / "x.npz")]):
        result = run("check", model, "--soc", "Ascend310P3", *extra)
        assert result.exit_code == 2 and "add --numerics" in result.stderr
    result = run("check", model, "--soc", "Ascend310P3", "--soc", "Ascend910B1", "--numerics",
                 "--keep-dtype-out", str(tmp_path / "k"))
    assert result.exit_code == 2 and "one model for one --soc" in result.stderr


def test_bad_inputs_file_is_one_line_and_exit_2(tmp_path):
    model = save(conv_block(), tmp_path / "conv.onnx")
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, nope=np.zeros(3, np.float32))
    result = run("check", model, "--soc", "Ascend310P3", "--numerics", "--inputs", str(wrong))
    assert result.exit_code == 2 and "which the model does not have" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_fix_writes_the_keep_list_beside_the_model(tmp_path):
    model = save(layernorm_after_gain(1000.0), tmp_path / "ln.onnx")
    out = tmp_path / "ln.atc.onnx"
    result = run("fix", model, "--soc", "Ascend310P3", "-o", str(out), "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    keep = tmp_path / "ln.atc.keep_dtype.cfg"
    assert report["keep_dtype_file"] == str(keep) and keep.read_text() == "square\nvariance\nadd_eps\nstd\n"
    assert f"--keep_dtype={keep}" in report["atc_command"]["argv"]
    assert report["numerics"]["keep_dtype"]["restored"] is True
    page = tmp_path / "fix.html"  # the fix report shows the preflight too, with the node where it starts
    run("fix", model, "--soc", "Ascend310P3", "-o", str(tmp_path / "ln3.onnx"), "--report", str(page))
    html = page.read_text()
    assert "Precision preflight: force_fp16" in html and "with --keep_dtype (4 nodes)" in html
    assert "<code>square</code> (Pow, computes in float16): float16-overflow" in html
    assert "ln3.keep_dtype.cfg</code> (the --keep_dtype list)" in html
    # --no-verify runs no onnxruntime: no preflight, no keep list
    out2 = tmp_path / "ln2.onnx"
    report = json.loads(run("fix", model, "--soc", "Ascend310P3", "-o", str(out2), "--no-verify",
                            "--format", "json").stdout)
    assert report["numerics"] is None and not (tmp_path / "ln2.keep_dtype.cfg").exists()


def test_fix_reads_back_the_weights_it_wrote_beside_the_model(tmp_path):
    from atccheck.fixing.pipeline import fix
    from test_fixer import dynamic_convnet

    outcome = fix(dynamic_convnet(), soc="Ascend310P3", output=tmp_path / "big.onnx",
                  options={"external_data_bytes": 0})  # a rewritten model goes out with its weights beside it
    assert outcome.external_data == "big.onnx.data"
    assert outcome.numerics is not None and outcome.numerics.error is None and outcome.numerics.ok
