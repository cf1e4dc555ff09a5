"""``python -m benchmarks.clients.pymanopt``: pymanopt 2.2.1's tests under autograd and through adcore's alias.

Its tests import TensorFlow, PyTorch and JAX (its other backends) whatever the backend tested, so they
are installed too (PyTorch's CPU build, as CI's); those tests run the same in both runs.
"""

import sys

from .side_by_side import Client, main

PYMANOPT = Client(
    name="pymanopt",
    version="2.2.1",
    test_packages=["torch==2.13.0", "tensorflow-cpu", "jax[cpu]"],
    tests="tests",
)

if __name__ == "__main__":
    sys.exit(main(PYMANOPT))
