"""One registry of test backends; the ``backend`` fixture runs a test on each of them.

A backend that cannot run here is skipped with the reason (CuPy without a GPU).
``array_api_strict:device1`` puts every input on a non-default strict device,
so a hidden host copy or a value made on the default device fails on the CPU.
What a backend that runs here cannot do is listed once, in ``KNOWN_FAILURES``:
each entry becomes a strict xfail, so a case that starts passing is noticed.
"""

import os
import re
from dataclasses import dataclass

import numpy as np
import pytest

import backends

# Eager JAX compiles each operation once per shape and dtype; for the thousands of tiny ones the tests
# make, XLA's optimisation passes cost more than they save (set before JAX starts; about 30% of its time).
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")


@dataclass(frozen=True)
class BackendCase:
    """A backend and the device test inputs are put on."""

    name: str
    device_name: str | None = None

    @property
    def id(self):
        return self.name if self.device_name is None else f"{self.name}:{self.device_name}"

    @property
    def backend(self):
        return backends.get_backend(self.name)

    @property
    def device(self):
        if self.device_name is None:
            return None
        return self.backend.xp.Device(self.device_name)

    def asarray(self, data, dtype="float64"):
        """``data`` (anything NumPy takes) as an array of this backend, on its device."""
        return self.backend.from_numpy(np.asarray(data, dtype=dtype), dtype=dtype, device=self.device)

    def to_numpy(self, x):
        return self.backend.to_numpy(x)

    def check_device(self, x):
        """Assert that ``x`` is an array of this backend on its device (NumPy's 0-d results are NumPy scalars)."""
        if self.name == "numpy" and isinstance(x, np.generic):
            return
        assert backends.array_backend(x) is self.backend, f"expected a {self.name} array, got {type(x)}"
        if self.device is not None:
            assert self.backend.device(x) == self.device, f"expected device {self.device}, got {self.backend.device(x)}"


TEST_BACKENDS = [
    BackendCase("numpy"),
    BackendCase("array_api_strict"),
    BackendCase("array_api_strict", "device1"),
    BackendCase("cupy"),
    BackendCase("torch"),
    BackendCase("jax"),
    BackendCase("dask"),
]


#: What the strict Array API cannot express (on either of its devices).
INTEGER_ARRAYS_WITH_INTEGERS_ONLY = "the standard allows integer-array indices together with integers only"
STRICT_LIMITS = {
    "test_numpy_rules.py::test_getitem_mixed_index_follows_numpy[list]": "the standard has no list indices",
    "test_numpy_rules.py::test_getitem_mixed_index_follows_numpy": INTEGER_ARRAYS_WITH_INTEGERS_ONLY,
    "test_backends.py::test_scatter_add_with_a_reversed_slice_and_repeats": INTEGER_ARRAYS_WITH_INTEGERS_ONLY,
    "test_backends.py::test_raw_array_operators_defer_to_a_traced_operand": "strict arrays raise on `raw + traced` (README)",
}
#: backend id -> {test pattern: reason}, one place per backend. A pattern matches the start of the
#: test's name ``file::test_name[ids]`` with the backend's id left out of the ids (``*`` matches anything).
KNOWN_FAILURES = {
    "array_api_strict": STRICT_LIMITS,
    "array_api_strict:device1": STRICT_LIMITS,
    "torch": {
        "test_scipy_linalg.py::test_*[lu_": "torch has no scipy.linalg.lu_factor (the standard has no LU)",
        "test_numpy_rules.py::test_getitem_mixed_index_follows_numpy[int_slice_array]": "torch reads an integer beside an "
        "integer array apart from NumPy's rule; adcore refuses such an index on torch rather than differ from the untraced value",
        "test_scipy_signal_integrate.py::test_*[odeint_": "scipy.integrate.odeint runs on NumPy arrays only",
    },
    "jax": {
        "test_scipy_linalg.py::test_*[lu_": "adcore's jax backend has no scipy.linalg.lu_factor (the standard has no LU)",
        "test_scipy_signal_integrate.py::test_*[odeint_": "scipy.integrate.odeint runs on NumPy arrays only",
    },
    "cupy": {
        "test_scipy_special.py::test_*[jn": "cupyx.scipy.special (CuPy 14) has no jn (adcore raises NotImplementedError)",
        "test_scipy_special.py::test_*[iv": "cupyx.scipy.special (CuPy 14) has no iv nor ive (adcore raises NotImplementedError)",
        "test_scipy_signal_integrate.py::test_*[odeint_": "scipy.integrate.odeint runs on NumPy arrays only (cupyx has no "
        "scipy.integrate)",
    },
    "dask": {
        "test_linalg.py::test_*[eig_": "linalg.eig's dtype (real or complex) depends on the values, unknown to a lazy array",
        "test_linalg.py::test_eig_matches_numpy_and_is_always_complex": "linalg.eig's dtype depends on the values (not lazy)",
        "test_scipy_linalg.py::test_*[lu_": "Dask has no scipy.linalg.lu_factor (the standard has no LU)",
        "test_scipy_signal_integrate.py::test_*[odeint_": "scipy.integrate.odeint runs on NumPy arrays only",
        "test_numpy_rules.py::test_*[where_one_argument": "where(condition) has a data-dependent shape, unknown to a lazy array",
        "test_integer_values.py::test_*[selected_by_where]": "where(condition) has a data-dependent shape (lazy: unknown)",
        "test_numpy_rules.py::test_derivatives[getitem_mask": "a boolean mask gives a data-dependent shape, unknown to a lazy array",
        "test_numpy_rules.py::test_getitem_mixed_index_follows_numpy[int_slice_array]": "Dask reads an integer array beside "
        "integers apart from NumPy's rule; adcore refuses such an index on Dask rather than give a wrong value",
    },
}


def _pattern(text):
    return re.compile(".*".join(map(re.escape, text.split("*"))))


_KNOWN_FAILURES = {name: [(_pattern(p), reason) for p, reason in cases.items()] for name, cases in KNOWN_FAILURES.items()}


def _name_without_backend(item, case):
    """``file::test_name[ids]`` with the backend's id (pytest puts a fixture's id first) left out."""
    ids = item.name[len(item.originalname) + 1 : -1].removeprefix(case.id).removeprefix("-")
    return f"{item.path.name}::{item.originalname}" + (f"[{ids}]" if ids else "")


def pytest_collection_modifyitems(items):
    """Mark the cases of ``KNOWN_FAILURES`` as strict xfails, with their backend and reason."""
    for item in items:
        case = getattr(getattr(item, "callspec", None), "params", {}).get("backend")
        if not isinstance(case, BackendCase) or case.id not in _KNOWN_FAILURES:
            continue
        name = _name_without_backend(item, case)
        for pattern, reason in _KNOWN_FAILURES[case.id]:
            if pattern.match(name):
                item.add_marker(pytest.mark.xfail(reason=f"{case.id}: {reason}", strict=True))
                break


def _param(case):
    reason = backends.unavailable_reason(case.name)
    marks = [pytest.mark.skip(reason=f"{case.name} cannot run here: {reason}")] if reason else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.fixture(params=[_param(b) for b in TEST_BACKENDS])
def backend(request):
    return request.param
