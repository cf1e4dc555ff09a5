"""A pytest plugin that runs a library's test suite through adcore's autograd alias:
``pytest -p benchmarks.clients.alias_plugin ...`` (xdist's workers load it too)."""

from adcore.compat.autograd import install

install()
