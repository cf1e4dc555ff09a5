"""The CPython interpreters this machine has that pyproject.toml's ``requires-python`` declares, one per minor version.

Prints ``VERSION PATH`` lines, oldest first, leaving out the minor version of the one running this script (CI's
main Python); what it found and left out (another implementation, a Python older than declared, a second
interpreter of one minor version) goes to standard error. Looks in pyenv's versions folder, on PATH
(``python3.N``) and in /usr/bin.
"""

import glob
import os
import re
import shutil
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(root, "pyproject.toml")) as f:
    lowest = tuple(int(p) for p in re.search(r'requires-python = ">=([0-9.]+)"', f.read()).group(1).split("."))

pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
candidates = sorted(glob.glob(os.path.join(pyenv, "versions", "*", "bin", "python3")))
candidates += [shutil.which(f"python3.{minor}") for minor in range(6, 20)] + sorted(glob.glob("/usr/bin/python3.[0-9]*"))
found = {}
for exe in filter(None, candidates):
    try:
        out = subprocess.run([exe, "-c", "import platform; print(platform.python_implementation(), platform.python_version())"],
                             capture_output=True, text=True, timeout=30, check=True).stdout.split()
    except (OSError, subprocess.SubprocessError):
        continue
    implementation, version = out
    numbers = tuple(int(p) for p in re.match(r"[0-9.]+", version).group(0).rstrip(".").split("."))
    if implementation != "CPython" or numbers[: len(lowest)] < lowest:
        print(f"found {implementation} {version} ({exe}): not declared, left out", file=sys.stderr)
        continue
    if numbers[:2] in found:
        if found[numbers[:2]][0] != version:
            print(f"found CPython {version} ({exe}): CPython {found[numbers[:2]][0]} stands for {numbers[0]}.{numbers[1]}", file=sys.stderr)
        continue
    found[numbers[:2]] = (version, exe)

for minor, (version, exe) in sorted(found.items()):
    if minor == sys.version_info[:2]:
        print(f"found CPython {version} ({exe}): the main Python's version", file=sys.stderr)
    else:
        print(version, exe)
