#!/usr/bin/env bash
# The cupy backend on a GPU in one go (issue 16): what is installed, the test matrix on cupy, and the benchmarks
# with PyTorch CUDA and JAX GPU as peers; everything goes into one folder.
#
#   bash benchmarks/gpu_check.sh                       # on the GPU machine
#   ADCORE_BACKEND=numpy TESTS=tests/test_linalg.py bash benchmarks/gpu_check.sh   # dry run on a CPU
#
# Environment:
#   OUT             the output folder (default: gpu-check/); files: environment.txt, install.txt, smoke.txt,
#                   pytest.txt, pytest.xml, benchmarks.txt, gpu.json and gpu.png (<backend>.json/.png off cupy),
#                   summary.txt
#   ADCORE_BACKEND  cupy (default), or numpy for the dry run (no CUDA install, the numpy backend's tests)
#   TESTS           what pytest runs (default: tests); KEYWORD its -k expression (default: the backend's name)
#   WORKERS         pytest-xdist workers (default 8; 0 without pytest-xdist)
#   TEST_TIMEOUT, BENCH_TIMEOUT   seconds for the tests and the benchmarks (default 300 and 240): both run, and
#                   what a step wrote before its limit stays in OUT
#   BENCH_ARGS      more arguments for python -m benchmarks (e.g. "--only a,c,d")
#   WHEELS          a folder of wheels to install missing packages from (the GPU machine may have no network)
#
# adcore itself is not installed: it runs from this checkout (PYTHONPATH), so only its dependencies are needed.
# CuPy is installed only if it does not import: cupy-cuda12x[ctk] or cupy-cuda13x[ctk] by the driver's CUDA major,
# which brings NVIDIA's CUDA library wheels (adcore's [cuda12] / [cuda13] extras).
set -uo pipefail
cd "$(dirname "$0")/.."
backend="${ADCORE_BACKEND:-cupy}"
out="${OUT:-gpu-check}"
workers="${WORKERS:-8}"
mkdir -p "$out"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
summary="$out/summary.txt"
: >"$summary"

step() { echo "[$(date +%T)] $*" | tee -a "$summary"; }

pip_install() {  # pip install "$@", from $WHEELS when given, else from the index; never fatal
    if [ -n "${WHEELS:-}" ]; then
        python -m pip install --no-index --find-links "$WHEELS" "$@" >>"$out/install.txt" 2>&1
    else
        python -m pip install "$@" >>"$out/install.txt" 2>&1
    fi || step "could not install $* (see install.txt)"
}

missing_modules() {  # the names among "$@" that do not import
    python - "$@" <<'EOF'
import importlib.util, sys
print(" ".join(name for name in sys.argv[1:] if importlib.util.find_spec(name) is None))
EOF
}

# ---- 1. what is here ----
step "backend $backend, output in $out"
{
    echo "== nvidia-smi"; nvidia-smi 2>&1 || echo "no nvidia-smi"
    echo "== python"; python -VV
    echo "== packages"; python -m pip list 2>/dev/null | grep -i -E "^(numpy|scipy|array-api-[a-z]+|cupy[-a-z0-9]*|cuda-[a-z-]+|nvidia-[a-z0-9-]+|torch|jax|jaxlib|jax-cuda[a-z0-9-]*|pytest|pytest-xdist|hypothesis|dask|rich|matplotlib|scikit-learn) " || true
} >"$out/environment.txt" 2>&1

# ---- 2. install what is missing ----
if [ "$backend" = cupy ]; then
    if ! python -c "import cupy" 2>/dev/null; then
        major=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9]*\).*/\1/p' | head -1)
        extra=$([ "${major:-12}" -ge 13 ] && echo cuda13x || echo cuda12x)
        step "CuPy does not import; the driver says CUDA ${major:-unknown}: installing cupy-$extra[ctk]"
        pip_install "cupy-$extra[ctk]>=14"
    fi
    python - >>"$out/environment.txt" 2>&1 <<'EOF'
print("== CuPy")
import cupy
cupy.show_config()
for module in ("cupyx.scipy.linalg", "cupyx.scipy.signal", "cupyx.scipy.special", "cupy.fft"):
    try:
        __import__(module)
        print(module, "imports")
    except Exception as error:
        print(module, "does not import:", type(error).__name__, error)
for peer in ("torch", "jax"):
    try:
        module = __import__(peer)
        devices = module.cuda.is_available() if peer == "torch" else module.devices()
        print(peer, module.__version__, "GPU:", devices)
    except Exception as error:
        print(peer, "not usable:", type(error).__name__, error)
EOF
fi
needed=$(missing_modules array_api_compat scipy pytest xdist hypothesis mpmath rich matplotlib sklearn)
if [ -n "$needed" ]; then
    step "missing modules: $needed"
    declare -A package=([array_api_compat]=array-api-compat [xdist]=pytest-xdist [sklearn]=scikit-learn)
    for name in $needed; do pip_install "${package[$name]:-$name}"; done
fi

# ---- 3. a first derivative on the backend (seconds; tells at once whether the backend runs at all) ----
step "smoke test"
timeout 120 python - "$backend" >"$out/smoke.txt" 2>&1 <<'EOF'
import sys, time
import numpy
import backends
import adcore
import adcore.numpy as np
from adcore import grad

backend = adcore.set_backend(sys.argv[1])
x = backend.from_numpy(numpy.linspace(-1.0, 1.0, 5))
start = time.perf_counter()
g = grad(lambda x: np.sum(np.tanh(x) ** 2))(x)
backend.synchronize()
print(type(g).__name__, backend.device(g), backend.to_numpy(g), f"{time.perf_counter() - start:.3f} s")
expected = 2 * numpy.tanh(numpy.linspace(-1.0, 1.0, 5)) / numpy.cosh(numpy.linspace(-1.0, 1.0, 5)) ** 2
assert numpy.allclose(backend.to_numpy(g), expected), "wrong derivative"
EOF
step "smoke test: exit $? ($(tail -1 "$out/smoke.txt"))"

# ---- 4. the test matrix on the backend ----
xdist=()
if [ "$workers" != 0 ] && python -c "import xdist" 2>/dev/null; then xdist=(-n "$workers"); fi
step "pytest ${TESTS:-tests} -k '${KEYWORD:-$backend}' ${xdist[*]} (limit ${TEST_TIMEOUT:-300} s)"
# shellcheck disable=SC2086 # TESTS is a list of paths
timeout "${TEST_TIMEOUT:-300}" python -m pytest -p no:cacheprovider "${xdist[@]}" -k "${KEYWORD:-$backend}" -rfE \
    --junitxml="$out/pytest.xml" ${TESTS:-tests} >"$out/pytest.txt" 2>&1
status=$?
step "pytest: exit $status: $(tail -1 "$out/pytest.txt")"

# ---- 5. the benchmarks (peers: torch on CUDA and JAX on the GPU when the backend is cupy) ----
name=$([ "$backend" = cupy ] && echo gpu || echo "$backend")
step "python -m benchmarks --backend $backend --quick ${BENCH_ARGS:-} (limit ${BENCH_TIMEOUT:-240} s)"
# shellcheck disable=SC2086 # BENCH_ARGS is a list of arguments
timeout "${BENCH_TIMEOUT:-240}" python -m benchmarks --backend "$backend" --quick --json "$out/$name.json" \
    --plot "$out/$name.png" ${BENCH_ARGS:-} >"$out/benchmarks.txt" 2>&1
status=$?
step "benchmarks: exit $status, $(ls "$out/$name.json" "$out/$name.png" 2>/dev/null | tr '\n' ' ')"
step "done"
