"""The examples run and check themselves."""

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed", reason="the Dask example needs dask and distributed (the [dask] extra)")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dask_logistic_regression_through_a_local_cluster_matches_numpy():
    example = load("dask_logistic_regression")
    figures = example.run(rows=4_000, features=5, chunk=1_000, steps=3, workers=2)
    assert figures["chunks"] == 4
    assert figures["max_weight_difference"] <= 1e-10
    assert figures["loss_last"] < figures["loss_first"]
    assert figures["tasks_after_persist"] < figures["tasks_before_persist"]
