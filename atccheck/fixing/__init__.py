"""The ``atccheck fix`` pipeline: what runs the passes, checks each step, and writes the result.

- ``pipeline``: :func:`fix` in three steps (prepare, run the wanted passes in rounds, finish)
- ``state``: :class:`State`, a model in the pipeline with its report and its verification
- ``verifier``: each step against the model before it (checker, proof or outputs, the rules)
- ``proof``: the structural proof (only names and annotations changed: no run needed)
- ``runtime``: onnx.checker, onnxruntime and onnx's reference evaluator, bounded in time
- ``inputs``: the seeded random inputs and the user's sample every model is fed
- ``outcome``: :class:`FixOutcome`, what a fix did (no printing)
- ``output``: where and how the fixed model is written

How outputs are compared is ``atccheck.numerics`` (a pass declares its comparison); which pass
answers which finding is ``atccheck.fixlinks``. Rendering an outcome is the fix formats of
:mod:`atccheck.emit`. The package is named ``fixing`` so that it never shadows the public
function ``atccheck.fix``.
"""
