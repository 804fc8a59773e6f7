#!/usr/bin/env bash
# One session on a lent GPU machine (an H100): every GPU check and benchmark of issue 32,
# its figures written under $OUT (default ./gpu_results). Run from anywhere:
#
#     bash benchmarks/gpu_session.sh checks    # about 5 minutes: start-up, golden, differential, tests
#     bash benchmarks/gpu_session.sh bench     # about 5 minutes: bench_gpu.py (engines, CPU, pgx, PPO)
#     bash benchmarks/gpu_session.sh recipe    # the Kahuna recipe on the GPU, then its arena
#     bash benchmarks/gpu_session.sh           # all three, one after the other
#     bash benchmarks/gpu_session.sh window    # one window: what is unmeasured, then the
#                                              # campaigns train (benchmarks/gpu_window.py;
#                                              # further options go to it)
#
# (The device tool runs one command for 10 minutes at most: call the two halves apart.)
# Each step has a time limit and its own output file; a step that fails is recorded in
# $OUT/status.txt and the next one runs. The machine needs numpy, numba, numba-cuda and a
# CUDA build of PyTorch (the env, the PPO example); jax and pgx for the pgx figures. Pure-
# Python packages it lacks (gymnasium, pettingzoo, openskill, tqdm, pgx, svgwrite) are
# installed from ./wheels when that folder is there: fill it beforehand, on a machine with
# the registry, with `bash benchmarks/gpu_session.sh wheels` and carry it along.
set -uo pipefail
# The lent machines' Python with torch, numba and jax is /opt/torch/.venv's, and no
# `python` is on their PATH.
if [ -x /opt/torch/.venv/bin/python3 ]; then export PATH=/opt/torch/.venv/bin:$PATH; fi
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu_results}
mkdir -p "$OUT"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
PART=${1:-all}
# Sizes (smaller ones let the tests run this script under numba-cuda's simulator).
GOLDEN_GAMES=${GOLDEN_GAMES:-200}
DECISIONS=${DECISIONS:-2000000}
DIFF_BATCH=${DIFF_BATCH:-8192}
HEURISTIC_DECISIONS=${HEURISTIC_DECISIONS:-200000}
DEVICE_TESTS=${DEVICE_TESTS:-1}
START_BATCH=${START_BATCH:-1024}
GOLDEN_CASES=${GOLDEN_CASES:-}  # names of golden cases (default: every one)
BENCH_ARGS=${BENCH_ARGS:---seconds 2}
# numpy below 2.5: numba-cuda 0.30 fails to import with numpy 2.5 (docs/gpu.md, Install).
WHEELS="gymnasium pettingzoo openskill tqdm farama-notifications cloudpickle pgx svgwrite numpy<2.5"
WHEEL_PYTHON=${WHEEL_PYTHON:-3.12}  # the lent machines' Python

log() { echo "[$(date +%T)] $*" | tee -a "$OUT/session.log"; }

step() {  # step NAME SECONDS COMMAND...: run it with a limit, its output to $OUT/NAME.out
    local name=$1 limit=$2
    shift 2
    log "start $name (limit ${limit}s)"
    local t0=$SECONDS
    timeout "$limit" "$@" >"$OUT/$name.out" 2>&1
    local rc=$?
    log "end $name: exit $rc after $((SECONDS - t0))s"
    echo "$name $rc $((SECONDS - t0))s" >>"$OUT/status.txt"
    tail -n 5 "$OUT/$name.out" | sed 's/^/    /' | tee -a "$OUT/session.log"
}

if [ "$PART" = wheels ]; then
    # shellcheck disable=SC2086  # (WHEELS is a list of requirements)
    python -m pip download --only-binary=:all: --no-deps -d wheels \
        --python-version "$WHEEL_PYTHON" --implementation cp --platform manylinux_2_28_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 $WHEELS
    exit $?
fi

if [ ! -f "$OUT/machine.txt" ]; then
    {
        nvidia-smi || true
        python -V
        python -c "import numpy, numba; print('numpy', numpy.__version__, 'numba', numba.__version__)"
        python -m pip list 2>/dev/null | grep -iE "numba|cuda|torch|jax|pgx|gymnasium|pytest" || true
        nproc
    } >"$OUT/machine.txt" 2>&1
    if [ -d wheels ]; then
        python -m pip install --no-index --find-links wheels $WHEELS >"$OUT/pip.txt" 2>&1 || true
    fi
fi

if [ "$PART" = window ]; then
    shift
    python benchmarks/gpu_window.py --out "$OUT" "$@"
    exit $?
fi

if [ "$PART" = all ] || [ "$PART" = checks ]; then
    # Cold start first, before anything compiles the kernels: no cached kernels left.
    find kanaloa_env -path '*__pycache__*' -name 'gpu_kernels*.nb[ic]' -delete 2>/dev/null
    find kanaloa_env -path '*__pycache__*' -name 'gpu_learner*.nb[ic]' -delete 2>/dev/null
    step start 240 python benchmarks/bench_gpu.py --parts start --start-batch "$START_BATCH" \
        --out "$OUT/start"
    if ! grep -q "second_process_s" "$OUT/start/bench_gpu.json" 2>/dev/null; then
        log "the cached start failed: continuing with KANALOA_GPU_CACHE=0"
        export KANALOA_GPU_CACHE=0
    fi
    # Every golden case in full (200 games each), >= 1M decisions a game side by side, and
    # Kahuna's heuristic deciding on both targets in 200,000 positions.
    step checks 300 python tests/gpu/device_checks.py --games "$GOLDEN_GAMES" \
        --decisions "$DECISIONS" --batch "$DIFF_BATCH" --out "$OUT/checks.json" \
        --heuristic-decisions "$HEURISTIC_DECISIONS" \
        ${GOLDEN_CASES:+--cases $GOLDEN_CASES}
    # The device API and the vector env's tests, on the real device.
    if [ "$DEVICE_TESTS" = 1 ] && python -c "import pytest" 2>/dev/null; then
        step device_tests 240 env KANALOA_GPU_TESTS=device python -m pytest -p no:cacheprovider \
            tests/gpu/simulated/test_sim_api.py tests/gpu/simulated/test_sim_env.py -x
    fi
fi

if [ "$PART" = all ] || [ "$PART" = bench ]; then
    # shellcheck disable=SC2086  # (BENCH_ARGS is a list of options)
    step bench 560 python benchmarks/bench_gpu.py --out "$OUT" --parts engines cpu pgx ppo $BENCH_ARGS
fi

if [ "$PART" = all ] || [ "$PART" = recipe ]; then
    # The shipped Kahuna file's recipe on the GPU (target: >= 60% against the heuristic,
    # trained in <= 3 minutes), then 2,000 arena games on the CPU.
    step recipe 560 python benchmarks/bench_gpu.py --out "$OUT/recipe" --parts recipe
fi

log "done: results in $OUT"
cat "$OUT/status.txt"
