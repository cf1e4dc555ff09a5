#!/usr/bin/env bash
# PennyLane 0.45.1's autograd tests, under autograd 1.8.0 (its reference: it pins autograd<1.9) and through
# adcore's alias, side by side in one environment that differs only in the alias plugin. Not in the default run.
#
#   benchmarks/clients/pennylane.sh [PYTEST PATHS...]     (default: a representative subset, below)
#
# Environment: VENV (default /work/venv-clients) with pennylane==0.45.1, autograd==1.8.0, pytest, pytest-xdist,
# flaky, pytest-mock, pytest-rng and adcore (pip install -e .); TESTS (default /work/pl-tests): a folder holding
# PennyLane's tests/ at the tag v0.45.1 (git archive v0.45.1 tests | tar -x -C "$TESTS"); WORKERS (default 2).
# Prints one table row: tests run | pass under autograd | pass through the alias | time alias/autograd.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/../.." && pwd)
VENV=${VENV:-/work/venv-clients}
TESTS=${TESTS:-/work/pl-tests}
WORKERS=${WORKERS:-2}
OUT=${OUT:-$(mktemp -d)}
if [ "$#" -eq 0 ]; then
  set -- tests/math tests/gradients/core tests/test_autograd_grad.py \
    tests/workflow/interfaces/execute/test_autograd.py tests/workflow/interfaces/qnode/test_autograd_qnode.py
fi
MARKERS="autograd and not qcut and not finite-diff and not param-shift"  # PennyLane CI's autograd job
PY="$VENV/bin/python"
"$PY" -c "from importlib.metadata import version; assert version('autograd') == '1.8.0' and version('pennylane') == '0.45.1'"
# The alias is installed at interpreter start (a sitecustomize), in pytest's process and in xdist's workers:
# pytest imports pennylane (so autograd) before a -p plugin would run, and a library that holds real autograd's
# modules keeps them after install().
mkdir -p "$OUT/alias_site"
echo "import adcore.compat.autograd; adcore.compat.autograd.install()" > "$OUT/alias_site/sitecustomize.py"
run() {  # $1: name, $2: PYTHONPATH
  local name=$1
  local start end
  start=$(date +%s.%N)
  (cd "$TESTS" && PYTHONPATH="$2" "$PY" -m pytest -m "$MARKERS" -n "$WORKERS" -q -p no:cacheprovider \
     --junitxml="$OUT/$name.xml" -o junit_family=xunit1 "${PATHS[@]}" > "$OUT/$name.log" 2>&1) || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc > "$OUT/$name.seconds"
}
PATHS=("$@")
run autograd "$HERE"
run alias "$OUT/alias_site:$HERE"
"$PY" - "$OUT" <<'PYEOF'
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
passed_ref = {k for k, v in ref.items() if v == "passed"}
passed_alias = {k for k, v in alias.items() if v == "passed"}
print("| tests run | pass under autograd 1.8.0 | pass through the alias | of those passing under autograd | time alias/autograd |")
print("|---|---|---|---|---|")
print(f"| {len(ref)} | {len(passed_ref)} | {len(passed_alias)} | {len(passed_ref & passed_alias)} | {seconds['alias'] / seconds['autograd']:.2f} ({seconds['alias']:.0f} s / {seconds['autograd']:.0f} s) |")
for key in sorted(passed_ref - passed_alias):
    print("fails through the alias only:", key, alias.get(key, "not run"))
print("logs:", out)
PYEOF
