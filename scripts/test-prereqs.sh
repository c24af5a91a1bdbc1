#!/usr/bin/env bash
# What `make test` needs besides Python packages: Debian's Chromium for the report's rendering test
# (tests/report/test_report_chromium.py) and a core-only venv (no extras) for tests/cli/test_usage_errors.py,
# which drives every usage error through the console script of a minimal install. Both are no-ops when present.
# Usage: scripts/test-prereqs.sh PYTHON   (the interpreter of the test venv)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-python3}"

if ! command -v chromium >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } ||
        echo "warning: could not install chromium; the report rendering test will fail" >&2
fi

# `pip install .` refreshes this checkout's code and adds any new core dependency.
[ -x .venv-core/bin/python ] || "$PY" -m venv .venv-core
.venv-core/bin/python -m pip install --disable-pip-version-check -q .
# pyarrow left the core dependencies: a venv made before keeps it unless told (pip never removes a package).
.venv-core/bin/python -m pip uninstall -y -q pyarrow >/dev/null 2>&1 || true
