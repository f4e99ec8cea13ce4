#!/usr/bin/env bash
# One prepared command for a GPU machine: the models suite on CUDA, from the
# binaries scripts/models_gpu_pack.sh built and packed elsewhere (no network,
# no compiling here), then ONE markdown table of ms/step and ratios.
#
#   1. mlp_bench --device=cuda, both sizes (eagervm eager, eager sync and
#      queued, graph = CUDA graph replay, graph flat, autograd eager and
#      graph; checks eager == graph bitwise and the GPU against the CPU)
#   2. bench/models/peers/mlp_torch_cuda.py: the same MLP in PyTorch from
#      Python (its CUDA build, if the machine's python3 has it)
#   3. linear_regression --device=cuda (eager vs graph)
#   4. transformer_bench --device=cuda, a few steps, and its PyTorch peer
#      (bench/models/peers/transformer_torch_cuda.py)
# Each runs under `timeout`, its limit cut to what is left of the budget
# (EAGERVM_MODELS_GPU_BUDGET_S, default 150 s), so a hang costs its own
# limit and the later steps say they were skipped. The table: every mode's
# median ms/step, its ratio to eagervm graph (the nearest to kernel time on
# the GPU: one CUDA graph launch per step) and to PyTorch eager from Python
# (same model and size, hand-written or autograd alike). Modes whose ops
# have no CUDA kernel yet are listed with their Unimplemented status.
#
# Usage (from the repository root, with .gpubin/models.tar.xz and .gpudeps/
# carried): scripts/models_gpu.sh [log-dir]
#   log-dir   full logs and summary.md; default $OUT if set, else
#             /tmp/evm-models-logs
# Env: EAGERVM_MODELS_GPU_BUDGET_S (150); MODELS_PYTHON (python3: the one
#      with PyTorch); MODELS_DEVICE=cpu runs the same
#      binaries on the CPU (a dry run of this script on a machine without a
#      GPU; they are CUDA builds, so the CUDA runtime must be there).
# Exit: 0 every step passed; 3 no GPU (nothing run); 4 every step passed
# but some modes could not run on CUDA (Unimplemented); 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
logs="${1:-${OUT:-/tmp/evm-models-logs}}"
mkdir -p "$logs"
budget=${EAGERVM_MODELS_GPU_BUDGET_S:-150}
device=${MODELS_DEVICE:-cuda}
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }
grace=5
# limit WANT: WANT seconds, or what is left of the budget (less the kill
# grace) if that is less.
limit() {
  local l=$((budget - $(elapsed) - grace))
  [ "$l" -lt "$1" ] && echo $((l > 0 ? l : 0)) || echo "$1"
}
step() { echo "== [$(elapsed)s] $*" | tee -a "$logs/models.log"; }

step "machine"
if [ "$device" = cuda ]; then
  if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "NO GPU: nvidia-smi -L lists none; nothing run (exit 3)"
    exit 3
  fi
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2 |
    tee -a "$logs/models.log"
fi
pack=.gpubin/models.tar.xz
[ -f "$pack" ] || { echo "no $pack: run scripts/models_gpu_pack.sh on the build machine first"; exit 2; }
root=/tmp/evm-models
rm -rf "$root"
mkdir -p "$root"
if ! xz -dc "$pack" | tar -C "$root" -xf -; then
  echo "cannot unpack $pack"
  exit 2
fi

# The binaries' libraries: the CUDA toolkit's runtime (found through nvcc, as
# scripts/gpu_check.sh does), abseil/fmt/OpenBLAS from the carried Debian
# packages, zlib from the pack if the machine has none. Set for the eagervm
# binaries only: PyTorch brings its own CUDA libraries.
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
cuda_home=/usr/local/cuda
command -v nvcc >/dev/null && cuda_home=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
libs="$cuda_home/lib64:$cuda_home/lib:$cuda_home/targets/x86_64-linux/lib"
deps=/tmp/evm-deps
if ls .gpudeps/*.deb >/dev/null 2>&1; then
  mkdir -p "$deps"
  for f in .gpudeps/libabsl2*.deb .gpudeps/libfmt[0-9]*.deb .gpudeps/libopenblas0-pthread*.deb \
           .gpudeps/libgfortran5*.deb .gpudeps/libquadmath0*.deb; do
    [ -f "$f" ] || continue
    if command -v dpkg-deb >/dev/null; then dpkg-deb -x "$f" "$deps"
    else (cd "$deps" && ar p "$OLDPWD/$f" data.tar.xz | tar -xJ); fi
  done
  libs="$libs:$deps/usr/lib/x86_64-linux-gnu:$deps/usr/lib/x86_64-linux-gnu/openblas-pthread"
fi
ldconfig -p 2>/dev/null | grep -q 'libz\.so\.1 ' || libs="$libs:$root/lib"
bin_env=(env "LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
for b in "$root"/bin/*; do
  missing=$("${bin_env[@]}" ldd "$b" 2>&1 | grep 'not found')
  [ -z "$missing" ] || echo "warning: $(basename "$b") lacks: ${missing//$'\n'/ }"
done

summary="$logs/summary.tsv"  # model, size, mode, ms/step or -, note
: >"$summary"
runs=()  # rows of the runs table
any_failed=0
any_missing=0
# run NAME WANT_S CMD...: the command under timeout, its output in NAME.log.
run() {
  local name=$1 want=$2 l rc note
  shift 2
  l=$(limit "$want")
  if [ "$l" -lt 10 ]; then
    runs+=("| $name | - | - | not run: out of time at $(elapsed)s |")
    any_failed=1
    return
  fi
  step "$name (limit ${l}s)"
  local t0
  t0=$(date +%s)
  timeout -k $grace "$l" "$@" >"$logs/$name.log" 2>&1
  rc=$?
  note=""
  case $rc in
    0) note="ok" ;;
    3) note="some modes not run on $device (Unimplemented: see the table)"; any_missing=1 ;;
    77) note="skipped (see $name.log)"; any_failed=1 ;;
    124 | 137) note="TIMEOUT after ${l}s"; any_failed=1 ;;
    1) note="a CHECK FAILED"; any_failed=1 ;;
    *) note="error"; any_failed=1 ;;
  esac
  runs+=("| $name | $rc | $(($(date +%s) - t0)) | $note |")
  grep -E '^check: |not run on|FAILED|: skipped|nothing to' "$logs/$name.log" | head -40
  [ $rc -eq 0 ] || [ $rc -eq 3 ] || tail -5 "$logs/$name.log"
}

data="$root/data"
run mlp_bench 60 "${bin_env[@]}" "$root/bin/mlp_bench" --device="$device" --sizes=small,large \
  --reps=5 --check-steps=100 --digits="$data/digits.csv.gz" --summary="$summary"
py=${MODELS_PYTHON:-python3}
command -v "$py" >/dev/null || py=python
run mlp_torch_python 45 "$py" bench/models/peers/mlp_torch_cuda.py --device="$device" \
  --sizes=small,large --reps=5 --check-steps=100 --data="$data/digits.csv.gz" --summary="$summary"
run linear_regression 15 "${bin_env[@]}" "$root/bin/linear_regression" --device="$device" \
  --steps=300 --print-every=100
# linear_regression prints "time per step: eager X us, graph Y us (...)".
sed -n 's/^time per step: eager \([0-9.]*\) us, graph \([0-9.]*\) us.*/\1 \2/p' \
  "$logs/linear_regression.log" | while read -r e g; do
  printf 'linreg\t4096 x 8\teagervm eager (%s)\t%s\t\nlinreg\t4096 x 8\teagervm graph (%s)\t%s\t\n' \
    "$device" "$(awk "BEGIN{printf \"%.4f\", $e / 1000}")" \
    "$device" "$(awk "BEGIN{printf \"%.4f\", $g / 1000}")" >>"$summary"
done
run transformer_bench 45 "${bin_env[@]}" "$root/bin/transformer_bench" --device="$device" \
  --corpus="$data/GPL-3" --check-steps=30 --steps=5 --reps=3 --gen=8 --summary="$summary"
run transformer_torch_python 30 "$py" bench/models/peers/transformer_torch_cuda.py \
  --device="$device" --corpus="$data/GPL-3" --check-steps=30 --steps=5 --reps=3 \
  --summary="$summary"

step "done in $(elapsed)s (budget ${budget}s); logs in $logs"
{
  echo
  echo "| run | exit | s | note |"
  echo "|---|---:|---:|---|"
  printf '%s\n' "${runs[@]}"
  echo
  echo "| model | size | mode | ms/step | vs eagervm graph | vs PyTorch eager (Python) | note |"
  echo "|---|---|---|---:|---:|---:|---|"
  # The references of a row: the graph and PyTorch rows of the same model and
  # size, of its kind (autograd or hand-written gradients).
  awk -F'\t' '
    { model[NR] = $1; size[NR] = $2; mode[NR] = $3; ms[NR] = $4; note[NR] = $5
      key = $1 "|" $2
      if ($4 != "-") {
        if ($3 ~ /^eagervm graph \(/) graph[key] = $4
        if ($3 ~ /^eagervm graph autograd \(/) graph_ag[key] = $4
        if ($3 ~ /^pytorch eager \(/) torch[key] = $4
        if ($3 ~ /^pytorch autograd \(/) torch_ag[key] = $4
      } }
    function ratio(v, ref) { return (v == "-" || ref == "") ? "-" : sprintf("%.2fx", v / ref) }
    END {
      for (i = 1; i <= NR; ++i) {
        key = model[i] "|" size[i]
        ag = mode[i] ~ /autograd/
        g = ag && graph_ag[key] != "" ? graph_ag[key] : graph[key]
        t = ag ? torch_ag[key] : torch[key]
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", model[i], size[i], mode[i], ms[i],
               ratio(ms[i], g), ratio(ms[i], t), note[i]
      } }' "$summary"
} | tee "$logs/summary.md"
[ $any_failed -eq 0 ] || exit 1
[ $any_missing -eq 0 ] || { echo "(some modes could not run on $device: exit 4)"; exit 4; }
exit 0
