"""``python -m benchmarks.clients.lifelines``: lifelines 0.30.3's tests under autograd and through adcore's alias."""

import sys

from .side_by_side import Client, main

LIFELINES = Client(
    name="lifelines",
    version="0.30.3",
    # reqs/dev-requirements.txt's test dependencies (pytest's plugins for reports left out)
    test_packages=["autograd-gamma", "pandas<3", "formulaic", "flaky", "dill", "statsmodels", "joblib", "Jinja2"],
    tests="lifelines/tests",
)

if __name__ == "__main__":
    sys.exit(main(LIFELINES))
