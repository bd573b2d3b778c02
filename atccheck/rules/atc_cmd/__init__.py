"""Command rules: defects of an ``atc`` command line (AC5xx), one rule per module.

They read a command as ATC's option parser does (``atccheck.atc.lint``), not a model graph, so
``atccheck check`` never runs them and ``atccheck atc-cmd --lint`` reports only them. They share
the catalogue with the model rules: ``atccheck rule AC519``, ``rule --all`` and ``docs/rules/``.
"""
