"""One registry of test backends; the ``backend`` fixture runs a test on each of them.

A backend that cannot run here is skipped with the reason (CuPy without a GPU).
``array_api_strict:device1`` puts every input on a non-default strict device,
so a hidden host copy or a value made on the default device fails on the CPU.
"""

from dataclasses import dataclass

import numpy as np
import pytest

import backends


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
]


def _param(case):
    reason = backends.unavailable_reason(case.name)
    marks = [pytest.mark.skip(reason=f"{case.name} cannot run here: {reason}")] if reason else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.fixture(params=[_param(b) for b in TEST_BACKENDS])
def backend(request):
    return request.param
