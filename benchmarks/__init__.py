"""adcore's benchmarks, run as ``python -m benchmarks`` from the repository root.

An MLP trained on scikit-learn's handwritten digits with adcore's gradients
(``digits``), its gradient timed against a hand-written one and HIPS/autograd
(``timing``), and the cost of one primitive on a long scalar chain
(``overhead``).
"""
