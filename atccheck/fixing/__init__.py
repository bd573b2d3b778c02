"""The ``atccheck fix`` pipeline: what runs the passes, checks each step, and writes the result.

- ``pipeline``: :func:`fix` (load, check, run the wanted passes in order, write the model)
- ``verification``: each step against the model before it (checker, onnxruntime, rules)
- ``verify``: onnxruntime inputs and output comparison used by verification
- ``outcome``: :class:`FixOutcome`, what a fix did (no printing)
- ``output``: where and how the fixed model is written
- ``catalog`` / ``index``: which pass a rule suggests for a finding (``index`` is generated)

Rendering an outcome as text lives in :mod:`atccheck.emit.fix_text`. The package is named
``fixing`` so that it never shadows the public function ``atccheck.fix``.
"""
