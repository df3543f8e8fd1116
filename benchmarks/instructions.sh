#!/usr/bin/env bash
# Instructions per call of one loop of benchmarks/bind_cost.py, counted by callgrind: the
# difference between N1 and N2 calls, divided by N2 - N1, so start-up cancels out.
#   bash benchmarks/instructions.sh DIR WHAT [B] [N1] [N2]
# DIR is a checkout (or a `git archive` of a revision); WHAT and B as in bind_cost.py --loop.
set -euo pipefail
dir="$1"; what="$2"; batch="${3:-1}"; n1="${4:-20}"; n2="${5:-60}"
here="$(cd "$(dirname "$0")" && pwd)"
count() {
  PYTHONHASHSEED=0 OPENBLAS_NUM_THREADS=1 setarch "$(uname -m)" -R \
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    "${PYTHON:-python}" "$here/bind_cost.py" "$dir" --loop "$what" "$1" "$batch" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
a="$(count "$n1")"; b="$(count "$n2")"
echo $(( (b - a) / (n2 - n1) ))
