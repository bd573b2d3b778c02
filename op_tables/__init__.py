"""Support tables built by ``tools/build_op_tables.py`` from CANN facts; shipped as ``atccheck.op_tables``."""
