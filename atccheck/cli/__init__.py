"""The command line: the only layer that prints or picks an exit code."""
