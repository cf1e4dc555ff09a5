"""Gradient-based stochastic optimizers (autograd 1.9.1's ``autograd.misc.optimizers``).

Each optimizer takes ``grad(x, i)``, the gradient at ``x`` for iteration
``i``, and a starting point ``x0`` that may be an array or any nesting of
tuples, lists and dicts of arrays and scalars: the nesting is flattened into
one vector (:func:`adcore.misc.flatten`) on the parameters' backend and
device, the update runs on that vector, and ``grad``, ``callback`` and the
result see the nesting again.

They are plain adcore code, so they can themselves be differentiated (for
example with respect to ``step_size``), on backends whose arrays defer to a
traced operand (NumPy, CuPy, PyTorch, JAX; not array-api-strict, see the
README's known limits).
"""

from ..core.wrapping import wraps

from .. import numpy as anp
from .flatten import flatten

__all__ = ["adam", "rmsprop", "sgd"]


def unflatten_optimizer(optimize):
    """Make ``optimize(grad, x, callback, ...)`` on flat vectors take nestings of arrays (see the module)."""

    @wraps(optimize)
    def optimize_nested(grad, x0, callback=None, *args, **kwargs):
        flat_x0, unflatten = flatten(x0)

        def flat_grad(x, i):
            return flatten(grad(unflatten(x), i))[0]

        def flat_callback(x, i, g):
            return callback(unflatten(x), i, unflatten(g))

        return unflatten(optimize(flat_grad, flat_x0, flat_callback if callback else None, *args, **kwargs))

    return optimize_nested


@unflatten_optimizer
def sgd(grad, x, callback=None, num_iters=200, step_size=0.1, mass=0.9):
    """Stochastic gradient descent with momentum.

    Parameters
    ----------
    grad : callable
        ``grad(x, i)``: the gradient at ``x`` (structured like ``x0``) in iteration ``i``.
    x0 : array, scalar or nesting of them
        The starting point (the second positional argument).
    callback : callable, optional
        Called as ``callback(x, i, g)`` before each update.
    num_iters : int
        The number of updates.
    step_size, mass : float
        ``velocity = mass * velocity - (1 - mass) * g``; ``x = x + step_size * velocity``.

    Returns
    -------
    The last iterate, structured like ``x0``, on its backend and device.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> g = grad(lambda p, i: np.sum((p[0] - 3.0) ** 2) + (p[1] + 1.0) ** 2)
    >>> w, b = sgd(g, (np.zeros(2), 0.0), num_iters=300)
    >>> np.round(w, 4), round(float(b), 4)
    (array([3., 3.]), -1.0)
    """
    velocity = anp.zeros_like(x)
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        velocity = mass * velocity - (1.0 - mass) * g
        x = x + step_size * velocity
    return x


@unflatten_optimizer
def rmsprop(grad, x, callback=None, num_iters=100, step_size=0.1, gamma=0.9, eps=10**-8):
    """Root mean square propagation: each coordinate's step is divided by the root of a running
    mean of its squared gradients (Tieleman and Hinton, 2012).

    Arguments as :func:`sgd`; ``gamma`` is the decay of the running mean,
    ``eps`` keeps the division finite.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> g = grad(lambda p, i: np.sum((p[0] - 3.0) ** 2))
    >>> np.round(rmsprop(g, [np.zeros(2)], num_iters=400, step_size=0.01)[0], 2)
    array([3., 3.])
    """
    avg_sq_grad = anp.ones_like(x)
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        avg_sq_grad = avg_sq_grad * gamma + g**2 * (1 - gamma)
        x = x - step_size * g / (anp.sqrt(avg_sq_grad) + eps)
    return x


@unflatten_optimizer
def adam(grad, x, callback=None, num_iters=100, step_size=0.001, b1=0.9, b2=0.999, eps=10**-8):
    """Adam: RMSprop with momentum and bias-corrected moment estimates
    (Kingma and Ba, 2015, https://arxiv.org/abs/1412.6980).

    Arguments as :func:`sgd`; ``b1`` and ``b2`` are the decays of the first
    and second moment estimates, ``eps`` keeps the division finite.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> g = grad(lambda p, i: np.sum((p - 3.0) ** 2))
    >>> np.round(adam(g, np.zeros(2), num_iters=500, step_size=0.1), 3)
    array([3., 3.])
    """
    m = anp.zeros_like(x)
    v = anp.zeros_like(x)
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        m = (1 - b1) * g + b1 * m  # first moment estimate
        v = (1 - b2) * (g**2) + b2 * v  # second moment estimate
        mhat = m / (1 - b1 ** (i + 1))  # bias corrections
        vhat = v / (1 - b2 ** (i + 1))
        x = x - step_size * mhat / (anp.sqrt(vhat) + eps)
    return x
