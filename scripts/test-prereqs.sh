#!/usr/bin/env bash
# What `make test` needs besides Python packages: Debian's Chromium for the report's rendering test
# (tests/report/test_report_chromium.py) and a core-only venv (no extras) for tests/cli/test_usage_errors.py,
# which drives every usage error through the console script of a minimal install. Both are no-ops when present.
# Usage: scripts/test-prereqs.sh PYTHON   (the interpreter of the test venv); PREREQS_ONLY=chromium: that step only
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-python3}"

# Chromium: installed with apt-get as root, or with sudo only when it needs no password (sudo -n never prompts).
# When it cannot be installed, tests/report/test_report_chromium.py is skipped with its reason in pytest's summary
# (under CI=true or HCRBENCH_REQUIRE_CHROMIUM=1 it fails instead).
have_chromium() { command -v chromium || command -v chromium-browser || command -v google-chrome; } >/dev/null 2>&1
if ! have_chromium; then
    echo "make test: the report's rendering test needs Chromium (headless); trying Debian's chromium package" >&2
    if [ "$(id -u)" -eq 0 ]; then SUDO=""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"
    else SUDO="none"
    fi
    if [ "$SUDO" = "none" ]; then
        echo "make test: not root and sudo needs a password: not installing Chromium (install it yourself:" \
             "sudo apt-get install -y chromium); its test will be skipped, with this reason" >&2
    elif ! command -v apt-get >/dev/null 2>&1; then
        echo "make test: no apt-get here: install Chromium yourself; its test will be skipped until then" >&2
    elif ! { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
             $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; then
        echo "make test: apt-get could not install chromium; its test will be skipped" >&2
    fi
fi
[ "${PREREQS_ONLY:-}" = "chromium" ] && exit 0  # the Chromium step alone (tests/report/test_prereqs_script.py)

# `pip install .` refreshes this checkout's code and adds any new core dependency.
[ -x .venv-core/bin/python ] || "$PY" -m venv .venv-core
.venv-core/bin/python -m pip install --disable-pip-version-check -q .
# pyarrow left the core dependencies: a venv made before keeps it unless told (pip never removes a package).
.venv-core/bin/python -m pip uninstall -y -q pyarrow >/dev/null 2>&1 || true
