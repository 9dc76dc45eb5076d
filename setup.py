"""The C part of the solver; everything else is in pyproject.toml.

``optional``: without a C compiler the project still installs, and the solver falls
back to its Python max-n (same values, slower).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("ledger.analysis._maxn", ["ledger/analysis/_maxn.c"],
                             extra_compile_args=["-O2", "-pthread"],
                             extra_link_args=["-pthread"], optional=True)])
