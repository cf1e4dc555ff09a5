#!/usr/bin/env bash
# PennyLane 0.45.1's autograd tests, under autograd 1.8.0 (its reference: it pins autograd<1.9) and through
# adcore's alias, one after the other on the same machine. Not in the default run.
#
#   benchmarks/clients/pennylane.sh [PYTEST PATHS...]     (default: the whole tests/ folder, as CI's autograd job)
#
# Two environments that differ only in adcore (made from the same python, then pip install -r of the first's
# pip freeze, then pip install -e of this repository into the second):
#   VENV_AUTOGRAD (default /work/venv-pl-ag): pennylane==0.45.1, autograd==1.8.0, pytest, pytest-xdist, flaky,
#     pytest-mock, pytest-rng, pytest-benchmark, matplotlib, rich, pandas, sybil, pytest-forked, pytest-split,
#     tomlkit, cvxpy, array-api-compat;
#   VENV_ALIAS (default /work/venv-pl-ad): the same, and adcore (pip install -e .).
# TESTS (default /work/pl-tests): a folder holding PennyLane's tests/ at the tag v0.45.1 (from its source
# repository: git archive v0.45.1 tests | tar -x -C "$TESTS"); WORKERS (default 2).
# Prints one table row (tests run, pass under autograd, pass through the alias, times), then each test that
# passes under autograd only. Subset of the earlier sessions: tests/math tests/gradients/core
# tests/test_autograd_grad.py tests/workflow/interfaces/execute/test_autograd.py
# tests/workflow/interfaces/qnode/test_autograd_qnode.py
set -euo pipefail
VENV_AUTOGRAD=${VENV_AUTOGRAD:-/work/venv-pl-ag}
VENV_ALIAS=${VENV_ALIAS:-/work/venv-pl-ad}
TESTS=${TESTS:-/work/pl-tests}
WORKERS=${WORKERS:-2}
OUT=${OUT:-$(mktemp -d)}
if [ "$#" -eq 0 ]; then
  set -- tests
fi
MARKERS="autograd and not qcut and not finite-diff and not param-shift"  # PennyLane CI's autograd job
for venv in "$VENV_AUTOGRAD" "$VENV_ALIAS"; do
  "$venv/bin/python" -c "from importlib.metadata import version; assert version('autograd') == '1.8.0' and version('pennylane') == '0.45.1'"
done
"$VENV_ALIAS/bin/python" -c "import adcore"
# The alias is installed at interpreter start (a sitecustomize), in pytest's process and in xdist's workers:
# pytest imports pennylane (so autograd) before a -p plugin would run, and a library that holds real autograd's
# modules keeps them after install().
mkdir -p "$OUT/alias_site"
echo "import adcore.compat.autograd; adcore.compat.autograd.install()" > "$OUT/alias_site/sitecustomize.py"
run() {  # $1: name, $2: the environment, $3: PYTHONPATH
  local name=$1
  local start end
  start=$(date +%s.%N)
  (cd "$TESTS" && OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH="$3" \
     "$2/bin/python" -m pytest -m "$MARKERS" -n "$WORKERS" -q -p no:cacheprovider \
     --junitxml="$OUT/$name.xml" -o junit_family=xunit1 "${PATHS[@]}" > "$OUT/$name.log" 2>&1) || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc > "$OUT/$name.seconds"
}
PATHS=("$@")
run autograd "$VENV_AUTOGRAD" ""
run alias "$VENV_ALIAS" "$OUT/alias_site"
"$VENV_ALIAS/bin/python" - "$OUT" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
out = sys.argv[1]
def outcomes(name):
    result = {}
    for case in ET.parse(f"{out}/{name}.xml").iter("testcase"):
        key = case.get("classname") + "::" + case.get("name")
        failed = any(child.tag in ("failure", "error") for child in case)
        skipped = any(child.tag == "skipped" for child in case)
        result[key] = "failed" if failed else "skipped" if skipped else "passed"
    return result
ref, alias = outcomes("autograd"), outcomes("alias")
seconds = {name: float(open(f"{out}/{name}.seconds").read()) for name in ("autograd", "alias")}
def counts(run):
    return ", ".join(f"{sum(v == k for v in run.values())} {k}" for k in ("passed", "failed", "skipped"))
passed_ref = {k for k, v in ref.items() if v == "passed"}
passed_alias = {k for k, v in alias.items() if v == "passed"}
print("under autograd 1.8.0:", counts(ref), f"({seconds['autograd']:.0f} s)")
print("through the alias:   ", counts(alias), f"({seconds['alias']:.0f} s)")
print("| tests run | pass under autograd 1.8.0 | pass through the alias | of those passing under autograd | time alias/autograd |")
print("|---|---|---|---|---|")
print(f"| {len(ref)} | {len(passed_ref)} | {len(passed_alias)} | {len(passed_ref & passed_alias)} | {seconds['alias'] / seconds['autograd']:.2f} ({seconds['alias']:.0f} s / {seconds['autograd']:.0f} s) |")
for key in sorted(passed_ref - passed_alias):
    print("fails through the alias only:", key, alias.get(key, "not run"))
print("logs:", out)
PYEOF
