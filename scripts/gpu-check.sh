#!/usr/bin/env bash
# Run cutune's GPU work on the GPU machine, from the repository root, with a build made
# elsewhere in ./build (carried along). One call does one or more steps:
#
#   scripts/gpu-check.sh [tests] [smoke] [tune] [bench] ...
#
#   tests  every test program (CPU and GPU), as `meson test` would run them
#          (scripts/run-tests.py; their output goes to $OUT/tests.log; TESTS_ARGS, e.g.
#          --suite=gpu, passes options to it)
#   smoke  `cutune run matmul` on one size, and bench_matmul on it
#   tune   `cutune run matmul --device 0` on the default sizes from a fresh database, then
#          the identical command again (it must compile nothing), then `cutune query`
#   bench  bench_matmul on the default sizes against the database of `tune`
#   sgemm  the register-blocked variants (issue 4): random search with a budget and a time
#          cap per variant and size on the smaller sizes; sgemm-large: the same for 8192^3
#          and the non-square shapes; sgemm-bench: bench_matmul on all of them;
#          sgemm-anneal: warptile searched by annealing (300 evaluations) at 4096^3, 8192^3;
#          async-large / async-small: matmul_async searched by annealing at 4096^3 and
#          8192^3 / at the other five sizes (budgets and time caps in the step; ASYNC_BUDGET,
#          ASYNC_TIME, ASYNC_SEED, ASYNC_SIZES and ASYNC_WHERE (a partial config) change them);
#          async-where: every matmul_async config matching $ASYNC_WHERE (a partial config,
#          e.g. cuBLAS's tile shape) at 4096^3 and 8192^3 (or ASYNC_SIZES); async-known: every config
#          listed in tuning_spaces/matmul_async.known (earlier bests) at the 7 issue 4 sizes
#          and 3 K-small ones (or ASYNC_SIZES); splitk-edges: a random sample of each SPLITK, and of N % 4 != 0,
#          at sizes that cut every tile (EDGE_BUDGET a size); survey: known configs, then
#          annealing (SURVEY_BUDGET, SURVEY_TIME), then bench_matmul, at SURVEY_SIZES, shapes
#          beyond the issue's
#   cublas-kernels  the kernels cuBLAS launches at CUBLAS_SIZES, with their times (ncu)
#   profile the best matmul_async config at 4096^3 (or PROFILE_SIZE) in $out/sgemm.db: its
#          SASS (instruction mix in the summary) and, where Nsight Compute is installed, an
#          ncu report and the stall reasons of it and of cuBLAS's kernel at that size
#   lookup bench_lookup (CPU only: the cost of an application's lookup on 10^5 trials),
#          on this quieter machine
#   record exhaustive runs to replay: for each op:variant:size in $RECORD (default
#          matmul:matmul_tiled:512x512x512 axpy:axpy_template:16777216), `cutune run`
#          with --strategy exhaustive, then the recording as CSV (to commit under
#          tests/data/recordings/) and `cutune replay` of it (table, JSON, SVG)
#   faulty the faulting matmul variant (tests/faulty/): configs that fault, hang or are
#          wrong are recorded and the run goes on in fresh worker processes ($OUT/faulty.log)
#   tight  matmul's check at 1000^3, 4096^3 and 8192^3 (tests/test_gpu_check): a planted 1e-3
#          error in C[0][0] is caught, and no config of a shipped matmul variant is recorded
#          wrong over a random sample of CHECK_BUDGET (default 48) configs a variant at 1000^3
#          with 3 seeds (half at 4096^3 with 2 seeds, a quarter at 8192^3); $OUT/tight.log
#   python-gpu  the Python module on the GPU (pytest, against torch.matmul) and the cost a
#          Python call adds over a C launch (bench_python.py, bench_launch)
#   torch  cutune from PyTorch (issue 32; needs torch on the GPU machine): a call's host cost
#          against torch's (bench/torch_overhead.py, 64^3 bf16 nt), then the small
#          transformer recorded, tuned (TT_TIME seconds a run, default 120) and timed per
#          GEMM shape and per step against torch's cuBLAS/cuBLASLt
#          (examples/torch_transformer.py; TT_ARGS adds options, e.g. --train), then the
#          same again as CUDA graph replays (--graph --no-tune: kernel time, no host time)
#   throughput  the guided search's configs/s against exhaustive search over the whole space
#          of matmul_reg2d at 2048^3 (THROUGHPUT_VARIANT, THROUGHPUT_SIZE, THROUGHPUT_BUDGET), each from a fresh
#          database and a cold kernel cache, cutune's and the driver's (bench/throughput.py;
#          THROUGHPUT_RUNS lists the runs; by default exhaustive, random and the guided search
#          at budgets 200 and 400, and the default as a user runs it; THROUGHPUT_SEED their
#          seed, 1 by default)
#   compile-scaling  NVRTC alone on the CPUs (bench/compile_scaling.py): matmul_reg2d's 64
#          fastest configs (from the H100 recording of 2026-11-26) against 192 random ones,
#          by 16 threads of one process as cutune's pool compiles, by 16 processes, and one
#          thread alone: what a config costs to compile, and what contention adds
#   kt-compare  Kernel Tuner (wheels in .whl/) against cutune on matmul_reg2d at KT_SIZE
#          (default 2048): time to 95% and 99% of the optimum, configs/s (bench/kt_compare.py;
#          KT_REPEATS=N runs each tool N times with seeds 1..N and gives the medians and Kernel
#          Tuner's median time to 95% over cutune's, issue 13's ratio; KT_TIME, KT_CUTUNE_TIME)
#   yardstick  the ops' yardsticks through the worker (tests/test_gpu_yardstick): cuBLAS
#          SGEMM, cudaMemcpy; $OUT/yardstick.log
#   cublaslt  the cuBLASLt variant (tests/test_gpu_cublaslt: tuned at bf16, fp16 and tf32
#          sizes against its yardstick, then launched through cutune_gemm; $OUT/cublaslt.log),
#          then `cutune run matmul --variant matmul_cublaslt` on its default sizes into
#          $OUT/cublaslt.db, with `cutune show` of the bests' trials
#   memory `cutune run OP --device 0` for transpose, matadd, reduce_sum, histogram and topk
#          on their default sizes (8192x8192, 2^28 elements, k = 1024: the issue's) into
#          a fresh memory.db (MEMORY_OPS: only these ops), then bench_memory (CUB and
#          cudaMemcpy) against it
#
# Logs and the database go to $OUT (or ./gpu-out); a short table comes last.
set -u
root=$(pwd)
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
steps=${*:-tests}
b=$root/build
export NVIDIA_TF32_OVERRIDE=0
export CUTUNE_CACHE_DIR=/tmp/cutune-cache
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

# Libraries the GPU machine may keep elsewhere (cuBLAS inside Python packages).
for lib in libcublas.so.13 libcublasLt.so.13; do
    if ! ldconfig -p | grep -q "$lib"; then
        d=$(find / -name "$lib*" -not -path "*/proc/*" 2>/dev/null | head -1)
        [ -n "$d" ] && export LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a "$summary"
if ldd "$b/cli/cutune" "$b/bench/bench_matmul" "$b/bench/bench_memory" | grep "not found"; then
    note "missing libraries (above)"
fi

# Python packages the GPU machine lacks (pytest, Kernel Tuner), carried as wheels in .whl/
if ls "$root"/.whl/*.whl >/dev/null 2>&1 && [ ! -d /tmp/site ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site "$root"/.whl/*.whl
fi
[ -d /tmp/site ] && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}

run_tests() {
    rm -f "$out/tests.log"
    python3 "$root/scripts/run-tests.py" "$b" "$out/tests.log" ${TESTS_ARGS:-} | tee -a "$summary"
}

timed() { # timed LABEL LOG command...
    local label=$1 log=$2
    shift 2
    local t0=$(date +%s.%N)
    "$@" > "$log" 2>&1
    local rc=$? t1=$(date +%s.%N)
    note "$(printf '%-28s exit %d  %7.1fs' "$label" $rc "$(awk "BEGIN{print $t1 - $t0}")")"
    return $rc
}

sgemm_db() { # the SGEMM database of this call: $out/sgemm.db, first copied from .carry
    db=$out/sgemm.db
    [ -f "$db" ] || { [ -f "$root/.carry/sgemm.db" ] && cp "$root/.carry/sgemm.db" "$db"; }
}

sgemm_run() { # sgemm_run LABEL ARGS...: `cutune run matmul ARGS` into $db; tables to sgemm_runs.log
    local label=$1
    shift
    timed "$label" "$out/sgemm_run.log.tmp" "$b/cli/cutune" run matmul "$@" --db "$db" --no-progress
    sed -n '/^matmul_/p' "$out/sgemm_run.log.tmp" >> "$out/sgemm_runs.log"
    cat "$out/sgemm_run.log.tmp" >> "$out/sgemm_full.log"
    rm -f "$out/sgemm_run.log.tmp"
}

size_args() { # --size for each argument
    for s_ in "$@"; do printf -- '--size %s ' "$s_"; done
}

known_where() { # --where for each config in tuning_spaces/matmul_async.known
    grep -v '^#' "$root/tuning_spaces/matmul_async.known" | sed 's/^/--where /' | tr '\n' ' '
}

# issue 4's sizes, then rank-64 and rank-128 updates (K small, as in a blocked LU's
# trailing update): shapes where cuBLAS is weaker (bench/RESULTS.md, matmul fp32 on H200, 2026-11-22)
issue4_sizes="1000x1000x1000 1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192
    4096x1024x8192 128x4096x4096 8192x8192x64 16384x16384x64 8192x8192x128"
sizes="1000x1000x1000 1024x1024x1024 2048x2048x2048 4096x4096x4096 4096x1024x8192"
for step in $steps; do
    case $step in
    tests) run_tests ;;
    smoke)
        rm -rf "$CUTUNE_CACHE_DIR"
        timed "run matmul 1024 (cold)" "$out/smoke_run.log" \
            "$b/cli/cutune" run matmul --device 0 --size 1024 --db "$out/smoke.db" --no-progress
        tail -6 "$out/smoke_run.log"
        timed "bench 1024" "$out/smoke_bench.log" "$b/bench/bench_matmul" --db "$out/smoke.db" 1024x1024x1024
        cat "$out/smoke_bench.log"
        ;;
    tune)
        rm -rf "$CUTUNE_CACHE_DIR" "$out/tune.db"*
        timed "run matmul (fresh db+cache)" "$out/tune_run1.log" \
            "$b/cli/cutune" run matmul --device 0 --db "$out/tune.db" --no-progress
        timed "run matmul (again)" "$out/tune_run2.log" \
            "$b/cli/cutune" run matmul --device 0 --db "$out/tune.db" --no-progress
        "$b/cli/cutune" query matmul --device 0 --size 4096x4096x4096 --db "$out/tune.db" | tee "$out/query.txt"
        "$b/cli/cutune" query matmul --device 0 --size 4096x4096x4096 --db "$out/tune.db" --json >> "$out/query.txt"
        ;;
    bench)
        db=$out/tune.db
        [ -f "$db" ] || db=$root/.carry/tune.db
        timed "bench_matmul" "$out/bench.log" "$b/bench/bench_matmul" --db "$db" $sizes
        ;;
    memory)
        rm -f "$out/memory.db"*
        for op in ${MEMORY_OPS:-transpose matadd reduce_sum histogram topk}; do
            timed "run $op" "$out/memory_$op.log" \
                "$b/cli/cutune" run $op --device 0 --db "$out/memory.db" --no-progress
            sed -n '/^device:/,$p' "$out/memory_$op.log"
        done
        timed "bench_memory" "$out/bench_memory.log" "$b/bench/bench_memory" --db "$out/memory.db"
        ;;
    sgemm | sgemm-large)
        # One invocation a variant over all its sizes: with one seed the random order is the
        # same for every size, so each config compiles once. Budgets are per size.
        if [ "$step" = sgemm ]; then
            ssizes="1000x1000x1000 1024x1024x1024 2048x2048x2048 4096x4096x4096"
            budgets="matmul_reg1d:184 matmul_reg2d:200 matmul_warptile:160"; cap=60
        else
            ssizes="8192x8192x8192 4096x1024x8192 128x4096x4096"
            budgets="matmul_reg1d:40 matmul_reg2d:60 matmul_warptile:80"; cap=60
        fi
        sgemm_db
        sizeargs=$(size_args $ssizes)
        for v in $budgets; do
            sgemm_run "${v%%:*} ($step)" --variant "${v%%:*}" $sizeargs --strategy random \
                --seed 7 --budget "${v##*:}" --time $cap
        done
        ;;
    sgemm-anneal)
        # issue 5's default strategy on issue 4's largest space, at the sizes that matter most
        sgemm_db
        sgemm_run "warptile annealing" --variant matmul_warptile --size 4096x4096x4096 \
            --size 8192x8192x8192 --strategy annealing --seed 11 --budget 300 --time 150
        ;;
    async-large | async-small)
        # the cp.async pipeline variant (issue 4): annealing over its 56k-config space
        sgemm_db
        if [ "$step" = async-large ]; then
            ssizes=${ASYNC_SIZES:-4096x4096x4096 8192x8192x8192}
            budget=${ASYNC_BUDGET:-300}; cap=${ASYNC_TIME:-120}
        else
            ssizes=${ASYNC_SIZES:-1000x1000x1000 1024x1024x1024 2048x2048x2048 4096x1024x8192 128x4096x4096}
            budget=${ASYNC_BUDGET:-200}; cap=${ASYNC_TIME:-50}
        fi
        sizeargs=$(size_args $ssizes)
        sgemm_run "async annealing ($step)" --variant matmul_async $sizeargs --strategy annealing \
            --seed "${ASYNC_SEED:-13}" --budget "$budget" --time "$cap" \
            ${ASYNC_WHERE:+--where "$ASYNC_WHERE"}
        ;;
    async-where)
        sgemm_db
        sizeargs=$(size_args ${ASYNC_SIZES:-4096x4096x4096 8192x8192x8192})
        sgemm_run "async where ${ASYNC_WHERE:-}" --variant matmul_async $sizeargs \
            --where "${ASYNC_WHERE:?set ASYNC_WHERE}" --strategy exhaustive
        ;;
    async-known)
        sgemm_db
        ssizes=${ASYNC_SIZES:-$issue4_sizes}
        sizeargs=$(size_args $ssizes)
        sgemm_run "async known configs" --variant matmul_async $sizeargs $(known_where) \
            --strategy exhaustive
        ;;
    splitk-edges)
        # matmul_async's split-K finish and copy paths at sizes that cut every tile, with N
        # % 4 != 0 among them: a random sample for each SPLITK (every one must be `ok`)
        sgemm_db
        for sk in 2 4 8; do
            sgemm_run "async SPLITK=$sk at edges" --variant matmul_async --size 257x129x600 \
                --size 1000x1000x1000 --size 33x4096x130 --size 130x4099x517 --where SPLITK=$sk \
                --strategy random --seed 21 --budget "${EDGE_BUDGET:-16}"
        done
        sgemm_run "async N % 4 != 0" --variant matmul_async --size 1000x1001x1000 \
            --size 2000x4099x300 --strategy random --seed 22 --budget "${EDGE_BUDGET:-16}"
        ;;
    survey)
        # matmul_async against cuBLAS on more shapes than the issue's (SURVEY_SIZES): the known
        # configs, then annealing (SURVEY_BUDGET, SURVEY_TIME a size), then bench_matmul
        sgemm_db
        ssizes=${SURVEY_SIZES:-4096x50257x768 1024x50257x768 8192x8192x64 65536x64x1024 \
            32x8192x8192 3000x2000x1000 4095x4095x1025 2048x8192x1024}
        sizeargs=$(size_args $ssizes)
        sgemm_run "survey known configs" --variant matmul_async $sizeargs $(known_where) \
            --strategy exhaustive
        if [ "${SURVEY_BUDGET:-60}" -gt 0 ]; then
            sgemm_run "survey annealing" --variant matmul_async $sizeargs --strategy annealing \
                --seed "${ASYNC_SEED:-13}" --budget "${SURVEY_BUDGET:-60}" --time "${SURVEY_TIME:-40}"
        fi
        timed "bench_matmul survey" "$out/survey_bench.log" "$b/bench/bench_matmul" --db "$db" $ssizes
        ;;
    cublas-kernels)
        # which kernels cuBLAS runs, and for how long, at CUBLAS_SIZES (Nsight Compute)
        sgemm_db
        command -v ncu > /dev/null || { note "cublas-kernels: no ncu on this machine"; continue; }
        for s_ in ${CUBLAS_SIZES:-1000x1000x1000 1024x1024x1024 128x4096x4096}; do
            ncu --metrics gpu__time_duration.sum -k regex:'gemm|gemv|xmma|splitK|educe|cutlass' \
                -c 4 "$b/bench/bench_matmul" --db "$db" "$s_" > "$out/ncu_cublas_$s_.log" 2>&1
            echo "--- cuBLAS at $s_" >> "$out/cublas_kernels.txt"
            grep -E '^  [A-Za-z_].*\(|gpu__time_duration' "$out/ncu_cublas_$s_.log" |
                sed 's/(int, int, int.*//' | head -8 >> "$out/cublas_kernels.txt"
        done
        cat "$out/cublas_kernels.txt" | tee -a "$summary"
        ;;
    sgemm-bench)
        db=$out/sgemm.db
        [ -f "$db" ] || db=$root/.carry/sgemm.db
        timed "bench_matmul sgemm" "$out/bench.log" "$b/bench/bench_matmul" --db "$db" ${BENCH_ARGS:-} \
            ${BENCH_SIZES:-$issue4_sizes}
        ;;
    profile)
        db=$out/sgemm.db
        [ -f "$db" ] || db=$root/.carry/sgemm.db
        psize=${PROFILE_SIZE:-4096x4096x4096}
        cfg=$(python3 - "$db" "$psize" <<'PY'
import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute(
    "SELECT config FROM trial_details WHERE variant = 'matmul_async' AND size = ?"
    " AND status = 'ok' ORDER BY median_ms LIMIT 1", (sys.argv[2],)).fetchone()
print(row[0] if row else "")
PY
)
        if [ -z "$cfg" ]; then note "profile: no matmul_async config at $psize in $db"; continue; fi
        note "profile: $cfg"
        cat tuning_spaces/matmul_tiles.cuh tuning_spaces/matmul_warp.cuh \
            tuning_spaces/matmul_async.cu > /tmp/profile.cu
        nvcc -cubin -arch=sm_90 -std=c++17 $(echo "$cfg" | tr ',' '\n' | sed 's/^/-D/') -Xptxas -v \
            /tmp/profile.cu -o /tmp/profile.cubin 2>&1 | grep -i "registers\|spill" | tee -a "$summary"
        cuobjdump -sass /tmp/profile.cubin > "$out/sass.txt" 2>&1
        grep -oE '^ +/\*[0-9a-f]{4}\*/ +[A-Z][A-Z0-9.]*' "$out/sass.txt" | awk '{print $2}' |
            sed 's/\..*//' | sort | uniq -c | sort -rn | head -12 | tee -a "$summary"
        if command -v ncu > /dev/null; then
            timed "ncu matmul_async $psize" "$out/ncu.log" ncu --set full -k matmul_async -c 1 \
                -o "$out/prof" -f "$b/bench/bench_matmul" --db "$db" --same-model "$psize"
            ncu --import "$out/prof.ncu-rep" --page details > "$out/ncu.txt" 2>&1
            grep -E "Duration|Issue Slots Busy|Executed Ipc A|Registers Per|Achieved Occupancy|Stall|No Eligible|SM Frequency|L1/TEX Hit|L2 Hit|Bank" \
                "$out/ncu.txt" | head -30 | tee -a "$summary"
            # where warps wait (cycles per issued instruction, by reason, 0.05 and up): the
            # best config against cuBLAS's kernel on the same size
            m='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
            m=$m,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
            for k in matmul_async regex:xmma; do
                note "stalls of ${k#regex:} at $psize"
                ncu --metrics "$m" -k "$k" -c 1 "$b/bench/bench_matmul" --db "$db" --same-model \
                    "$psize" 2>&1 | grep -E '^ +(smsp|gpu)__' | sed 's/smsp__average_warps_issue_stalled_//;
                    s/_per_issue_active.ratio//' | awk '$NF + 0 >= 0.05 {printf "    %-34s %s\n", $1, $NF}' |
                    tee -a "$summary"
            done
        else
            note "profile: no ncu on this machine"
        fi
        ;;
    lookup)
        timed "bench_lookup" "$out/bench_lookup.log" "$b/bench/bench_lookup" --db /tmp/cutune-bench-lookup.db
        cat "$out/bench_lookup.log"
        ;;
    record)
        for ovs in ${RECORD:-matmul:matmul_tiled:512x512x512 axpy:axpy_template:16777216}; do
            op=${ovs%%:*} vs=${ovs#*:}
            v=${vs%%:*} s=${vs#*:}
            tag=$v-${s%%x*}
            timed "record $v $s" "$out/record-$tag.log" "$b/cli/cutune" run "$op" --variant "$v" \
                --size "$s" --strategy exhaustive --device 0 --db "$out/record.db" --no-progress
            tail -4 "$out/record-$tag.log"
            dev=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | awk '{print tolower($2)}')
            "$b/cli/cutune" replay "$out/record.db" --variant "$v" --size "$s" \
                --export-csv "$out/$dev-$tag.csv"
            "$b/cli/cutune" replay "$out/$dev-$tag.csv" --svg "$out/replay-$tag.svg" \
                --json > "$out/replay-$tag.json"
            "$b/cli/cutune" replay "$out/$dev-$tag.csv" | tee "$out/replay-$tag.txt" | tee -a "$summary"
        done
        ;;
    tight)
        timed "matmul check (tight)" "$out/tight.log" env CUTUNE_CHECK_BUDGET="${CHECK_BUDGET:-48}" \
            CUTUNE_SPACE_PATH="$root/tests/planted" "$b/tests/test_gpu_check"
        grep -E "^planted|checked|gpu_check" "$out/tight.log" | tee -a "$summary"
        ;;
    yardstick)
        timed "yardsticks" "$out/yardstick.log" "$b/tests/test_gpu_yardstick"
        cat "$out/yardstick.log" | tee -a "$summary"
        ;;
    python-gpu)
        # the module against torch.matmul (tests/python/test_gpu.py), then what a Python call
        # adds over a C launch (bench/bench_python.py against bench_launch)
        timed "python on the GPU" "$out/python_gpu.log" env PYTHONPATH="$root/python:${PYTHONPATH:-}" \
            CUTUNE_LIBRARY="$b/core/libcutune.so" python3 "$root/tests/python/run.py" gpu
        tail -3 "$out/python_gpu.log" | tee -a "$summary"
        "$b/cli/cutune" run matmul --device 0 --size 64x64x64 --time 30 --db "$out/py.db" \
            --no-progress > "$out/py_tune.log" 2>&1
        timed "bench_python" "$out/bench_python.log" env PYTHONPATH="$root/python:${PYTHONPATH:-}" \
            CUTUNE_LIBRARY="$b/core/libcutune.so" python3 "$root/bench/bench_python.py" \
            --db "$out/py.db" --size 64x64x64 --bench-launch "$b/bench/bench_launch"
        cat "$out/bench_python.log" | tee -a "$summary"
        ;;
    torch)
        pyenv=(env PYTHONPATH="$root/python:${PYTHONPATH:-}" CUTUNE_LIBRARY="$b/core/libcutune.so"
            CUTUNE_EXE="$b/cli/cutune")
        "$b/cli/cutune" run matmul --device 0 --size 64 --dtype bf16 --layout nt --time 30 \
            --db "$out/torch_overhead.db" --no-progress > "$out/torch_overhead_tune.log" 2>&1
        timed "cutune from torch: a call's cost" "$out/torch_overhead.log" "${pyenv[@]}" \
            python3 "$root/bench/torch_overhead.py" --db "$out/torch_overhead.db"
        cat "$out/torch_overhead.log" | tee -a "$summary"
        timed "the small transformer" "$out/torch_transformer.log" "${pyenv[@]}" \
            python3 "$root/examples/torch_transformer.py" --db "$out/torch_transformer.db" \
            --time "${TT_TIME:-120}" ${TT_ARGS:-}
        tail -20 "$out/torch_transformer.log" | tee -a "$summary"
        # the same step as CUDA graphs, torch's against cutune's: the kernels' time without
        # the host's (the shapes are tuned by the run above)
        timed "the small transformer, CUDA graphs" "$out/torch_transformer_graph.log" \
            "${pyenv[@]}" python3 "$root/examples/torch_transformer.py" \
            --db "$out/torch_transformer.db" --no-tune --graph ${TT_ARGS:-}
        tail -12 "$out/torch_transformer_graph.log" | tee -a "$summary"
        ;;
    throughput)
        throughput_runs=exhaustive,random:200,portfolio:200,random:400,portfolio:400,default
        timed "configs/s, default against exhaustive" "$out/throughput.log" python3 \
            "$root/bench/throughput.py" "$b/cli/cutune" "$out" --variant "${THROUGHPUT_VARIANT:-matmul_reg2d}" \
            --size "${THROUGHPUT_SIZE:-2048x2048x2048}" --budget "${THROUGHPUT_BUDGET:-1404}" \
            --runs "${THROUGHPUT_RUNS:-$throughput_runs}" --seed "${THROUGHPUT_SEED:-1}"
        grep -E " ran [0-9.]+x " "$out/throughput.log" | tee -a "$summary"
        ;;
    compile-scaling)
        rec=$root/bench/results/2026-11-26-compile-replay/recordings/h100-GPU-608aa4f1-matmul_reg2d-2048.db.gz
        zcat "$rec" > "$out/compile_scaling.db"
        cs() { python3 "$root/bench/compile_scaling.py" "$root/tuning_spaces/matmul_reg2d.ini" \
            "$out/compile_scaling.db" "$@"; }
        {
            cs --set top:16 --threads 1 && cs --set random:16 --threads 1 &&
                cs --set top:64 --threads 16 --procs 16 --repeat 3 &&
                cs --set random:192 --threads 16 --procs 16 --repeat 3
        } > "$out/compile_scaling.log" 2>&1
        rm -f "$out/compile_scaling.db"
        grep -E "^(threads|procs)" "$out/compile_scaling.log" | tee -a "$summary"
        ;;
    kt-compare)
        # Kernel Tuner against cutune on matmul_reg2d's space (bench/kt_compare.py); Kernel
        # Tuner and what the GPU machine lacks come as wheels in .whl/ (carried)
        timed "Kernel Tuner against cutune" "$out/kt_compare.log" python3 "$root/bench/kt_compare.py" \
            --size "${KT_SIZE:-2048}" --kt-time "${KT_TIME:-150}" --cutune-time "${KT_CUTUNE_TIME:-120}" \
            --strategies "${KT_STRATEGIES:-random_sample,genetic_algorithm}" \
            --repeats "${KT_REPEATS:-1}" --out "$out"
        tail -12 "$out/kt_compare.log" | tee -a "$summary"
        ;;
    cublaslt)
        timed "cuBLASLt variant" "$out/cublaslt.log" "$b/tests/test_gpu_cublaslt"
        cat "$out/cublaslt.log" | tee -a "$summary"
        timed "cuBLASLt variant, its sizes" "$out/cublaslt_run.log" "$b/cli/cutune" run matmul \
            --variant matmul_cublaslt --device 0 --db "$out/cublaslt.db" --no-progress
        sed -n '/^size/,/^(yardstick/p' "$out/cublaslt_run.log" | tee -a "$summary"
        "$b/cli/cutune" show --db "$out/cublaslt.db" --status ok > "$out/cublaslt_trials.log" 2>&1
        ;;
    faulty)
        timed "faulting variant" "$out/faulty.log" env CUTUNE_PLUGIN_PATH="$b/tests/faulty" \
            CUTUNE_SPACE_PATH="$root/tests/faulty" "$b/tests/test_faulty_gpu"
        cat "$out/faulty.log"
        ;;
    *) echo "unknown step $step"; exit 2 ;;
    esac
done

echo
echo "=============== summary ==============="
cat "$summary"
for f in tune_run1 tune_run2; do
    [ -f "$out/$f.log" ] && { echo "--- $f"; sed -n '/^device:/,$p' "$out/$f.log"; }
done
[ -f "$out/sgemm_runs.log" ] && { echo "--- sgemm runs"; cat "$out/sgemm_runs.log"; }
[ -f "$out/bench.log" ] && { echo "--- bench"; cat "$out/bench.log"; }
[ -f "$out/survey_bench.log" ] && { echo "--- survey"; grep -E "^size|matmul_async" "$out/survey_bench.log"; }
[ -f "$out/bench_memory.log" ] && { echo "--- bench_memory"; cat "$out/bench_memory.log"; }
exit 0
