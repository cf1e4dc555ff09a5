"""``python -m benchmarks.clients.surpyval``: surpyval 0.25's parametric and regression tests under autograd and
through adcore's alias.

Its univariate parametric fits (``surpyval/tests/univariate/parametric``) and its regression models
(``surpyval/tests/univariate/regression``), from its source distribution; its other folders (forests,
degradation, planning, the opt-in calibration studies) are left out, as in the issue's measurement.
"""

import sys

from .side_by_side import Client, main

SURPYVAL = Client(
    name="surpyval",
    version="0.25",
    # its ``tests`` extra, less scikit-survival (used only by the forests, left out)
    test_packages=["pymongo", "hypothesis"],
    tests="surpyval/tests/univariate/parametric",
    pytest_args=["surpyval/tests/univariate/regression"],
)

if __name__ == "__main__":
    sys.exit(main(SURPYVAL))
