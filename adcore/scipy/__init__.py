"""The differentiable ``adcore.scipy`` namespace: SciPy names and signatures, on adcore backends."""

from . import integrate as integrate  # the adcore.scipy.integrate namespace (an explicit re-export)
from . import linalg as linalg  # the adcore.scipy.linalg namespace (an explicit re-export)
from . import signal as signal  # the adcore.scipy.signal namespace (an explicit re-export)
from . import special as special  # the adcore.scipy.special namespace (an explicit re-export)
from . import stats as stats  # the adcore.scipy.stats namespace (an explicit re-export)
