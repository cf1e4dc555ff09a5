"""adcore's benchmark suite, run as ``python -m benchmarks`` from the repository root.

Workloads (``__main__.WORKLOADS``): a, b the cost of one primitive on scalar
and small-array chains (``overhead``); c an MLP gradient in float64 and
float32 (``mlp``); d a large elementwise gradient, time and memory
(``elementwise``); e a Hessian-vector product and f full Jacobians
(``curvature``); g a long recurrence, linearity and memory (``overhead``); h
training a digits classifier to a fixed accuracy (``digits``); i a full Hessian
(``curvature``); k a deep network (``mlp``); n ``linalg.norm``'s variants, their gradients against
autograd's and their values against NumPy's (``norms``). Each is timed
for adcore, the hand-written derivative and each installed peer (``peers``),
side by side (``timing``), after every derivative is checked against the
hand-written one (``suite``), with adcore's kernel launches per derivative counted
(``kernels``), and the thread pools of every numerical library
pinned alike (``threads``, one thread each unless ``--threads``); ``report``
prints the table (fitted to the terminal), draws the plot and writes README's
results.
"""
