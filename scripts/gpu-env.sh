# Sourced by a GPU call's script (bash), from the repository root, on the GPU machine: the
# device's name, UUID, driver and clock into $OUT/device.txt; the wheels in .whl/ (pytest and
# its dependencies) into /tmp/site on PYTHONPATH; and cuBLAS's libraries on LD_LIBRARY_PATH
# where the loader does not already find them. Also defines `left SECONDS`: what remains of
# SECONDS since the script started (for `timeout`).
T0=${T0:-$(date +%s)}
left() { echo $(($1 - ($(date +%s) - T0))); }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader |
    tee "${OUT:-.}/device.txt"
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
        .whl/*.whl && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
for lib in libcublas.so.13 libcublasLt.so.13; do
    if ! ldconfig -p | grep -q "$lib"; then
        d=$(find / -name "$lib*" -not -path "*/proc/*" 2>/dev/null | head -1)
        [ -n "$d" ] && export LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
done
