"""Libraries built on autograd, their own test suites run under autograd and through adcore's alias.

One command per library, from the repository root (``python -m benchmarks.clients.lifelines``,
``python -m benchmarks.clients.pymanopt``, ``python -m benchmarks.clients.surpyval``): it makes the library's environment if it is missing
(a virtual environment with the library at its pinned version, its test dependencies, autograd,
and this adcore installed editable), fetches the library's source distribution (which holds its
tests), runs the suite twice side by side (``python -m pytest`` under autograd, then
``python -m adcore.compat.autograd -m pytest``) and prints the passes of each, the tests that pass
under autograd only, and the time through the alias over autograd's (in total, and the median of
the per-test ratios). Not part of the default test run: each suite takes minutes.
"""
