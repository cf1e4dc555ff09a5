"""The differentiable NumPy-named namespace: ``import adcore.numpy as np``.

Names, signatures and behaviour follow ``autograd.numpy`` (and so NumPy); each
function runs on the backend of its array arguments (NumPy, CuPy or any Array
API library), or on the default backend when it has none.
"""

from numpy import __version__ as __version__  # NumPy's, as autograd.numpy.__version__

from . import fft  # noqa: F401 - the adcore.numpy.fft namespace
from . import linalg as linalg  # the adcore.numpy.linalg namespace (an explicit re-export)
from . import random as random  # the adcore.numpy.random namespace (an explicit re-export)
from . import rules as _rules  # noqa: F401 - registers the derivative rules
from .boxes import ArrayBox
from .einsum import einsum
from .selection import *  # noqa: F403
from .selection import __all__ as _selection_all
from .vspaces import ArrayVSpace
from .wrapper import *  # noqa: F403
from .wrapper import __all__ as _wrapper_all

__all__ = ["ArrayBox", "ArrayVSpace", "einsum", *_wrapper_all, *_selection_all]
