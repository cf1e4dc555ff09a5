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
#   PYTHON          the interpreter (default: python3; a bare GPU image may have no "python")
#   WORKERS         pytest-xdist workers (default 8; 0 without pytest-xdist)
#   TEST_TIMEOUT, BENCH_TIMEOUT, JAX_TIMEOUT   seconds for the tests, the benchmarks without JAX, and JAX's
#                   own run (default 300, 240 and 180; JAX compiling for the GPU may take minutes): each runs, and
#                   what a step wrote before its limit stays in OUT (the rows without JAX are written first)
#   BENCH_ARGS      more arguments for python -m benchmarks (e.g. "--only a,c,d")
#   WHEELS          a folder of wheels to install missing packages from; without it nothing is installed (the GPU
#                   machine may have no network: pip would spend minutes retrying), the missing ones are named
#
# adcore itself is not installed: it runs from this checkout (PYTHONPATH), so only its dependencies are needed.
# CuPy is installed (from WHEELS) only if it does not import: cupy-cuda12x[ctk] or cupy-cuda13x[ctk] by the driver's
# CUDA major, which brings NVIDIA's CUDA library wheels (adcore's [cuda12] / [cuda13] extras).
set -uo pipefail
cd "$(dirname "$0")/.."
backend="${ADCORE_BACKEND:-cupy}"
out="${OUT:-gpu-check}"
workers="${WORKERS:-8}"
py="${PYTHON:-python3}"
mkdir -p "$out"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
summary="$out/summary.txt"
: >"$summary"

step() { echo "[$(date +%T)] $*" | tee -a "$summary"; }

pip_install() {  # pip install "$@" from $WHEELS, never from the network; never fatal
    if [ -z "${WHEELS:-}" ]; then
        step "not installing $*: no WHEELS folder given (set WHEELS=<folder of wheels>)"
        return
    fi
    "$py" -m pip install --no-index --find-links "$WHEELS" "$@" >>"$out/install.txt" 2>&1 \
        || step "could not install $* from $WHEELS (see install.txt)"
}

missing_modules() {  # the names among "$@" that do not import
    "$py" - "$@" <<'EOF'
import importlib.util, sys
print(" ".join(name for name in sys.argv[1:] if importlib.util.find_spec(name) is None))
EOF
}

# ---- 1. what is here ----
step "backend $backend, output in $out"
{
    echo "== nvidia-smi"; nvidia-smi 2>&1 || echo "no nvidia-smi"
    echo "== interpreter: $py"; "$py" -VV
    echo "== packages"; "$py" -m pip list 2>/dev/null | grep -i -E "^(numpy|scipy|array-api-[a-z]+|cupy[-a-z0-9]*|cuda-[a-z-]+|nvidia-[a-z0-9-]+|torch|jax|jaxlib|jax-cuda[a-z0-9-]*|pytest|pytest-xdist|hypothesis|dask|rich|matplotlib|scikit-learn) " || true
} >"$out/environment.txt" 2>&1

# ---- 2. install what is missing ----
if [ "$backend" = cupy ]; then
    if ! "$py" -c "import cupy" 2>/dev/null; then
        major=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9]*\).*/\1/p' | head -1)
        extra=$([ "${major:-12}" -ge 13 ] && echo cuda13x || echo cuda12x)
        step "CuPy does not import; the driver says CUDA ${major:-unknown}: installing cupy-$extra[ctk]"
        pip_install "cupy-$extra[ctk]>=14"
    fi
    "$py" - >>"$out/environment.txt" 2>&1 <<'EOF'
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
timeout 120 "$py" - "$backend" >"$out/smoke.txt" 2>&1 <<'EOF'
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
if [ "$workers" != 0 ] && "$py" -c "import xdist" 2>/dev/null; then xdist=(-n "$workers"); fi
step "pytest ${TESTS:-tests} -k '${KEYWORD:-$backend}' ${xdist[*]} (limit ${TEST_TIMEOUT:-300} s)"
# shellcheck disable=SC2086 # TESTS is a list of paths
timeout "${TEST_TIMEOUT:-300}" "$py" -m pytest -p no:cacheprovider "${xdist[@]}" -k "${KEYWORD:-$backend}" -rfE \
    --junitxml="$out/pytest.xml" ${TESTS:-tests} >"$out/pytest.txt" 2>&1
status=$?
step "pytest: exit $status: $(tail -1 "$out/pytest.txt")"

# ---- 5. the benchmarks: adcore and the peers but JAX first (written whatever JAX does), then JAX in its own run ----
# (peers: torch on CUDA and JAX on the GPU when the backend is cupy); each workload's progress goes to the terminal
name=$([ "$backend" = cupy ] && echo gpu || echo "$backend")
bench() {  # bench LABEL LIMIT PEERS FILE: one bounded run of python -m benchmarks, its output shown and kept
    step "benchmarks $1: --peers '$3' --quick ${BENCH_ARGS:-} (limit $2 s)"
    # shellcheck disable=SC2086 # BENCH_ARGS is a list of arguments
    timeout "$2" "$py" -m benchmarks --backend "$backend" --quick --peers "$3" --json "$out/$4.json" \
        --plot "$out/$4.png" ${BENCH_ARGS:-} 2>&1 | tee "$out/$4.txt" | sed -u "s/^/  [$1] /"
    step "benchmarks $1: exit ${PIPESTATUS[0]}, $(ls "$out/$4.json" "$out/$4.png" 2>/dev/null | tr '\n' ' ')"
}
bench "without JAX" "${BENCH_TIMEOUT:-240}" adcore.jit,autograd,torch "$name"
bench "JAX" "${JAX_TIMEOUT:-180}" jax,jax.jit "$name-jax"
step "done"
