"""adcore: automatic differentiation of NumPy-style code on pluggable array backends.

>>> import adcore.numpy as np
>>> from adcore import grad
>>> float(grad(lambda x: np.sin(x) * x)(0.0))
0.0
"""

from backends import available, default_backend, get_backend, set_backend, use_backend

from .operators import (
    checkpoint,
    deriv,
    elementwise_grad,
    grad,
    grad_and_aux,
    hessian,
    jacobian,
    make_jvp,
    make_vjp,
    value_and_grad,
)

__version__ = "0.1.0"

__all__ = [
    "available",
    "checkpoint",
    "default_backend",
    "deriv",
    "elementwise_grad",
    "get_backend",
    "grad",
    "grad_and_aux",
    "hessian",
    "jacobian",
    "make_jvp",
    "make_vjp",
    "set_backend",
    "use_backend",
    "value_and_grad",
]
