"""The differentiable ``adcore.scipy.linalg``: SciPy's ``scipy.linalg`` names and signatures.

Each function is either a primitive, with its VJP and JVP written right below
it, or a composition of adcore primitives (its derivatives come from theirs).
The rules use only adcore functions, so they are traced in turn and higher
derivatives work.

========================  ==========================================================================
function                  how it is computed and differentiated
========================  ==========================================================================
``solve_triangular``      primitive; rules from Giles (2008), 2.3.1, on the triangle actually read
``lu_factor``             primitive; rules from the LU JVP of JAX (``jax/_src/lax/linalg.py``)
``solve_banded``          primitive; the rules of ``solve`` (Giles 2008) restricted to the band
``solve_sylvester``       primitive; rules by differentiating ``a x + x b = q`` (autograd's)
``expm``                  primitive; Fréchet derivative from the block formula (below)
``sqrtm``                 primitive; Fréchet derivative from ``x dx + dx x = da`` (a Sylvester equation)
``logm``                  primitive; Fréchet derivative from the block formula (below)
``lu_solve``              composition of ``solve_triangular`` and a row permutation
``cholesky``              composition of ``adcore.numpy.linalg.cholesky`` (Murray 2016)
``cho_factor``            composition of ``cholesky``
``cho_solve``             composition of two ``solve_triangular``
``solve``, ``inv``        compositions of ``adcore.numpy.linalg.solve`` / ``inv`` (or the structured
                          solvers above) on the part of ``a`` that ``assume_a`` makes SciPy read
``det``                   ``adcore.numpy.linalg.det``
``eigh``                  composition of ``adcore.numpy.linalg.eigh``, ``cholesky`` and
                          ``solve_triangular`` (the generalized problem reduced to a standard one)
========================  ==========================================================================

The block formula (Higham, "Functions of Matrices", 2008, theorem 3.6; Al-Mohy and
Higham, "Computing the Fréchet derivative of the matrix exponential", 2009): for a
matrix function ``f`` with Fréchet derivative ``L_f(a, e)``,
``f([[a, e], [0, a]]) = [[f(a), L_f(a, e)], [0, f(a)]]``. The JVP is ``L_f(a, da)``;
since ``f`` has a power series with real coefficients, the adjoint of ``L_f(a, .)``
is ``L_f(a.T, .)``, so the VJP is ``L_f(a.T, g)`` (autograd's complex convention:
transposes, not conjugate transposes, for holomorphic functions).

Backends
--------
On NumPy the primitives call ``scipy.linalg``; on CuPy ``cupyx.scipy.linalg`` where it has
the function. Elsewhere (any Array API library, and CuPy for the functions ``cupyx`` lacks)
they are computed from the standard's functions: ``solve_triangular`` and ``solve_banded``
by ``linalg.solve`` on the matrix they read, ``solve_sylvester`` by ``linalg.solve`` on
its Kronecker form (memory ``(m n)**2``), ``expm`` by scaling and squaring with the
[13/13] Padé approximant (Higham 2005), ``sqrtm`` by the scaled product Denman-Beavers
iteration (Higham 2008, eq. 6.29) and ``logm`` by inverse scaling and squaring with
Gauss-Legendre quadrature (Higham 2008, section 11.5); these read one or two scalars
on the host (a norm, a convergence test). ``lu_factor`` has no such form and raises
``NotImplementedError`` naming the backend; ``lu_solve`` works everywhere.

Conventions
-----------
- Stacks of matrices ``(..., m, m)`` work wherever SciPy 1.17 takes them; ``b`` is a
  vector only when it is 1-d (shape ``(m,)``), otherwise a stack of matrices ``(..., m, k)``.
- ``overwrite_*`` and ``check_finite`` are accepted for compatibility and ignored:
  adcore never overwrites its inputs.
- Results keep the input's precision (SciPy's ``logm`` returns float64 for float32 input;
  here it is cast back).
- Derivatives are for real input, and for complex input where the function is
  holomorphic (autograd's convention). Not holomorphic, so raising
  ``NotImplementedError`` when differentiated with respect to a complex matrix:
  ``trans="C"`` (``trans=2``) in ``solve_triangular`` and ``lu_solve``, ``cho_solve``, and
  the Hermitian reads of ``cholesky``, ``cho_factor`` and ``eigh`` (real-only rules of
  ``adcore.numpy.linalg``).
- ``eigh`` needs distinct eigenvalues for eigenvector derivatives; ``sqrtm`` and ``logm``
  need no eigenvalues on the closed negative real axis.

Modules
-------
The functions of the table above (with their rules and helpers) are defined in
``adcore/scipy/linalg_primitives.py``; the rest of ``scipy.linalg``, built on them, in
``adcore/scipy/linalg_compositions.py``; this module is the namespace of both.
"""

from .linalg_compositions import *  # noqa: F403 - the rest of scipy.linalg, built on the primitives
from .linalg_compositions import __all__ as _compositions_all
from .linalg_compositions import scipy_own as __getattr__  # noqa: F401 - SciPy's own helpers, on first use
from .linalg_primitives import *  # noqa: F403 - the primitives and the compositions right on them
from .linalg_primitives import __all__ as _primitives_all

__all__ = [*_primitives_all, *_compositions_all]
