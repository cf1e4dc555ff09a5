"""``wraps``: the one helper that gives a wrapper its wrapped callable's name, documentation and module.

``functools.wraps`` copies every attribute in ``WRAPPER_ASSIGNMENTS`` and updates the wrapper's
``__dict__`` from the wrapped object's, whatever those are. On builtins and C types they are not what a
function can hold: ``builtins.type.__type_params__`` is a descriptor, which CPython 3.12.0-3.12.3 then
refuse to store on a function (``TypeError: __type_params__ must be set to a tuple``, python/cpython#119011),
and a class's ``__dict__`` is its namespace of methods, which would become attributes of the wrapper.
This helper copies only what the wrapper can hold: the strings ``__module__``, ``__name__``,
``__qualname__`` and ``__doc__``, ``__type_params__`` when it is a tuple, a plain-dict ``__dict__`` (a
function's attributes, e.g. ``fun``), and sets ``__wrapped__``. Anything else is left out, never an error.

This module imports no array library.
"""

_STRINGS = ("__module__", "__name__", "__qualname__", "__doc__")


def wraps(wrapped):
    """A decorator that makes ``wrapper`` look like ``wrapped`` (a function, builtin, ufunc, class, partial...).

    Returns the decorated wrapper itself. Never raises for an attribute ``wrapped`` lacks or that the
    wrapper cannot hold.

    Examples
    --------
    >>> @wraps(type)
    ... def typeof(x):
    ...     return type(x)
    >>> typeof.__name__, typeof.__wrapped__ is type, "mro" in typeof.__dict__
    ('type', True, False)
    """

    def decorate(wrapper):
        for name in _STRINGS:
            value = getattr(wrapped, name, None)
            if isinstance(value, str):
                setattr(wrapper, name, value)
        type_params = getattr(wrapped, "__type_params__", None)
        if isinstance(type_params, tuple) and type_params:
            wrapper.__type_params__ = type_params
        attributes = getattr(wrapped, "__dict__", None)
        if type(attributes) is dict:
            wrapper.__dict__.update(attributes)
        wrapper.__wrapped__ = wrapped
        return wrapper

    return decorate
