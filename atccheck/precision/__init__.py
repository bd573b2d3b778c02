"""Precision preflight: what ``--precision_mode`` will do to a model's numbers, before conversion.

ATC computes float32 ops in float16 (or bfloat16) unless told otherwise (``--precision_mode``
defaults to force_fp16). This package simulates that on a CPU: it decides each node's compute
dtype the way GE's dtype selection does (:mod:`.dtypes`, from ``op_tables/precision.json`` and the
kernel tables), runs the model with onnxruntime rounded accordingly (:mod:`.simulate`), compares
with the float32 run and searches the ``--keep_dtype`` list that brings the outputs back
(:mod:`.analysis`). ``check --numerics`` and ``fix`` run it (:mod:`.preflight`); the rules
float16-overflow and float16-precision-loss report what it found, worded by :mod:`.findings`.
docs/numerics.md says what the simulation leaves out.

This package sits on two floors (tools/import_graph.py): itself and :mod:`.findings` below the
rules, which read the result; the simulation beside the fix pipeline, whose onnxruntime helpers
it uses. Nothing here imports numpy or onnxruntime at import time: plain ``check`` never runs it.
"""
