"""The differentiable NumPy-named namespace: ``import adcore.numpy as np``.

Names, signatures and behaviour follow ``autograd.numpy`` (and so NumPy); each
function runs on the backend of its array arguments (NumPy, CuPy or any Array
API library), or on the default backend when it has none.
"""

from numpy import __version__ as __version__  # NumPy's, as autograd.numpy.__version__

from . import emath as emath  # the adcore.numpy.emath namespace (numpy.emath, numpy.lib.scimath)
from . import fft  # noqa: F401 - the adcore.numpy.fft namespace
from . import linalg as linalg  # the adcore.numpy.linalg namespace (an explicit re-export)
from . import random as random  # the adcore.numpy.random namespace (an explicit re-export)
from . import rules as _rules  # noqa: F401 - registers the derivative rules
from . import signatures as _signatures
from . import wrapper as _wrapper
from .arrays import *  # noqa: F403
from .arrays import __all__ as _arrays_all
from .boxes import ArrayBox
from .numerics import *  # noqa: F403
from .numerics import __all__ as _numerics_all
from .passthrough import *  # noqa: F403
from .passthrough import __all__ as _passthrough_all
from .selection import *  # noqa: F403
from .selection import __all__ as _selection_all
from .signatures import __all__ as _signatures_all
from .vspaces import ArrayVSpace
from .wrapper import *  # noqa: F403
from .wrapper import __all__ as _wrapper_all

# NumPy's full signatures (signatures.py) over the primitives of the same names that .wrapper exports
globals().update({name: getattr(_signatures, name) for name in _signatures_all})
# the primitives of .wrapper that take NumPy's array_like, for the user (the rules stay on the primitives)
diagonal = _wrapper.array_like("x")(_wrapper.diagonal)
logaddexp2 = _wrapper.array_like("x", "y")(_wrapper.logaddexp2)

__all__ = ["ArrayBox", "ArrayVSpace", *_wrapper_all, *_selection_all, *_arrays_all, *_numerics_all, *_passthrough_all]
__all__ += [name for name in _signatures_all if name not in __all__]
