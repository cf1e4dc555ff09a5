"""``autograd.core`` under the alias: :mod:`adcore.core`, whose ``primitive`` also gives the methods
``defgrad``, ``defvjp`` and ``defvjp_is_zero`` that autograd deprecated in 1.2 (programs of its
earlier versions call them; each warns, as autograd does).

Each method registers the rule of one argument and keeps those registered before, through
:func:`adcore.core.defvjp`:

- ``f.defgrad(maker, argnum=0)``: ``maker(ans, *args, **kwargs) -> vjp(g)``, today's VJP maker;
- ``f.defvjp(vjp, argnum=0)``: ``vjp(g, ans, vs, gvs, *args, **kwargs)``, with ``vs`` the argument's
  vector space and ``gvs`` the cotangent's;
- ``f.defvjp_is_zero(argnums=(0,))``: the cotangents of ``argnums`` are zero.
"""

import warnings

from .. import core as _core
from ..core import *  # noqa: F403 - autograd.core is adcore.core, but for primitive
from ..core import __all__ as _core_all
from ..core import defvjp, vspace

__all__ = list(_core_all)

_DEPRECATED = (
    "{}.{} is deprecated since autograd 1.2: register rules with defvjp(fun, *vjpmakers, argnums=...) "
    "from autograd.extend (https://github.com/HIPS/autograd/blob/master/docs/updateguide.md)"
)


def __getattr__(name):
    return getattr(_core, name)


def primitive(f_raw):
    """:func:`adcore.core.primitive`, with autograd's deprecated methods (see the module notes)."""
    fun = _core.primitive(f_raw)
    makers = {}

    def register(method, argnum, maker):
        warnings.warn(_DEPRECATED.format(fun.__name__, method), DeprecationWarning, stacklevel=3)
        makers[argnum] = maker
        argnums = sorted(makers)
        defvjp(fun, *(makers[i] for i in argnums), argnums=argnums)

    def defgrad(maker, argnum=0):
        register("defgrad", argnum, maker)

    def old_defvjp(vjp, argnum=0):
        def maker(ans, *args, **kwargs):
            return lambda g: vjp(g, ans, vspace(args[argnum]), vspace(g), *args, **kwargs)

        register("defvjp", argnum, maker)

    def defvjp_is_zero(argnums=(0,)):
        for argnum in argnums:
            register("defvjp_is_zero", argnum, None)

    fun.defgrad, fun.defvjp, fun.defvjp_is_zero = defgrad, old_defvjp, defvjp_is_zero
    return fun
