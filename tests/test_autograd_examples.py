"""The runner of autograd's example programs (``benchmarks/autograd_examples.py``): how it shortens
sources, reads and compares printed numbers, and a small example run under autograd and the alias."""

import importlib.util
import math

import pytest

from benchmarks import autograd_examples


def test_shorten_cuts_literal_loop_lengths_and_counts_only_above_the_cap():
    source = "for i in range(500):\n    pass\nfor j in range(5):\n    pass\nnum_epochs = 50\nnum_iters = 1000\nn_steps = 3\n"
    assert autograd_examples.shorten(source, 20) == (
        "for i in range(20):\n    pass\nfor j in range(5):\n    pass\nnum_epochs = 1\nnum_iters = 20\nn_steps = 3\n"
    )


def test_numbers_are_read_alone_not_inside_names_or_addresses():
    text = "node_1402 at 0x7f3a: loss 1.5e-3, step -2, .25 and nan; x2 = 7."
    assert autograd_examples.NUMBER.findall(text) == ["1.5e-3", "-2", ".25", "nan", "7."]


def test_compare_gives_the_largest_relative_difference():
    assert autograd_examples.compare(["1.0", "nan", "2"], ["1.0", "nan", "2"], 1e-6) == (True, 0.0)
    agree, largest = autograd_examples.compare(["1.0", "4"], ["1.0", "4.4"], 1e-6)
    assert not agree and largest == pytest.approx(0.4 / 4.4)
    assert autograd_examples.compare(["1"], ["1", "2"], 1e-6) == (False, math.inf)
    assert autograd_examples.compare(["9.1e-13"], ["4.5e-13"], 1e-6, atol=1e-9) == (True, 0.0)


EXAMPLE = """
import autograd.numpy as np
from autograd import grad
from autograd.misc.optimizers import adam

def loss(w, i):
    return np.sum((w - np.arange(3.0)) ** 2)

w = adam(grad(loss), np.zeros(3), num_iters=1000, step_size=0.1)
for k in range(100):
    w = w - 0.01 * grad(loss)(w, k)
print("w", w, "steps", k + 1)
"""


@pytest.mark.skipif(importlib.util.find_spec("autograd") is None, reason="autograd is not installed")
def test_an_example_runs_under_both_with_the_same_numbers(tmp_path, capsys):
    folder = tmp_path / "examples"
    folder.mkdir()
    (folder / "fit.py").write_text(EXAMPLE)
    assert autograd_examples.main([str(folder), "--iterations", "3", "--no-fake-mnist"]) == 0
    out = capsys.readouterr().out
    assert "fit.py: autograd ok, adcore ok, 4 numbers agree" in out
    assert "| fit.py | yes / yes | yes (4 numbers" in out and "1/1 of the examples" in out
