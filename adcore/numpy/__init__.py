"""The differentiable NumPy-named namespace: ``import adcore.numpy as np``.

Names, signatures and behaviour follow ``autograd.numpy`` (and so NumPy); each
function runs on the backend of its array arguments (NumPy, CuPy or any Array
API library), or on the default backend when it has none. The primitives are
declared in their family modules (``elementwise``, ``reductions``, ``shapes``,
``indexing``, ``products``, ``dtypes``, ``creation``), each with its rules.
"""

from numpy import __version__ as __version__  # NumPy's, as autograd.numpy.__version__

from . import emath as emath  # the adcore.numpy.emath namespace (numpy.emath, numpy.lib.scimath)
from . import fft  # noqa: F401 - the adcore.numpy.fft namespace
from . import linalg as linalg  # the adcore.numpy.linalg namespace (an explicit re-export)
from . import random as random  # the adcore.numpy.random namespace (an explicit re-export)
from .arrays import *  # noqa: F403
from .arrays import __all__ as _arrays_all
from .boxes import ArrayBox
from .numerics import *  # noqa: F403
from .numerics import __all__ as _numerics_all
from .passthrough import *  # noqa: F403
from .passthrough import __all__ as _passthrough_all
from .selection import *  # noqa: F403
from .selection import __all__ as _selection_all
from .vspaces import ArrayVSpace

# the primitive families (after the modules above: their names win)
from .creation import *  # noqa: F403, E402, I001
from .creation import __all__ as _creation_all
from .declare import iscomplexobj
from .dtypes import *  # noqa: F403
from .dtypes import __all__ as _dtypes_all
from .elementwise import *  # noqa: F403
from .elementwise import __all__ as _elementwise_all
from .indexing import *  # noqa: F403
from .indexing import __all__ as _indexing_all
from .products import *  # noqa: F403
from .products import __all__ as _products_all
from .reductions import *  # noqa: F403
from .reductions import __all__ as _reductions_all
from .shapes import *  # noqa: F403
from .shapes import __all__ as _shapes_all
from .shapes import array_like

# NumPy's full signatures over the primitives of the same names (out=, where=, initial=, order=, like=, ...)
from .signatures import (  # noqa: F811
    all,
    amax,
    amin,
    any,
    arange,
    argmax,
    argmin,
    around,
    array,
    asarray,
    clip,
    concatenate,
    cumprod,
    cumsum,
    einsum,
    empty_like,
    eye,
    full,
    full_like,
    linspace,
    max,
    mean,
    min,
    ones,
    ones_like,
    prod,
    ptp,
    reshape,
    round,
    std,
    sum,
    take,
    trace,
    var,
    zeros,
    zeros_like,
)

from . import batching as _batching  # noqa: E402, F401 - writes the batching rules into the op table

# the primitives that take NumPy's array_like, for the user (the rules stay on the primitives)
diagonal = array_like("x")(diagonal)  # noqa: F405
logaddexp2 = array_like("x", "y")(logaddexp2)  # noqa: F405

__all__ = sorted(
    {"ArrayBox", "ArrayVSpace", "iscomplexobj", "einsum", "take"}.union(
        _arrays_all,
        _numerics_all,
        _passthrough_all,
        _selection_all,
        _creation_all,
        _dtypes_all,
        _elementwise_all,
        _indexing_all,
        _products_all,
        _reductions_all,
        _shapes_all,
    )
)
