#!/usr/bin/env bash
# 1 x H200: where a run's fixed costs go (CUDA's start, cutune devices, a one-config run)
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
base=$OUT
python3 -c "
import ctypes,time
t=time.time(); c=ctypes.CDLL('libcuda.so.1'); t1=time.time(); r=c.cuInit(0); t2=time.time(); n=ctypes.c_int(); c.cuDeviceGetCount(ctypes.byref(n)); d=ctypes.c_int(); c.cuDeviceGet(ctypes.byref(d),0); ctx=ctypes.c_void_p(); t3=time.time(); c.cuDevicePrimaryCtxRetain(ctypes.byref(ctx),d); c.cuCtxSetCurrent(ctx); f=ctypes.c_void_p(); c.cuMemAlloc_v2(ctypes.byref(f),1<<20); t4=time.time()
print('dlopen %.3f cuInit %.3f s, %d devices, context %.3f s'%(t1-t,t2-t1, n.value, t4-t3))"
for i in 1 2; do /usr/bin/time -f "cutune devices: %e s" build/cli/cutune devices > /dev/null; done
d=$(mktemp -d)
for i in 1 2; do
CUTUNE_CACHE_DIR=$d/c$i python3 .carry/stamp.py build/cli/cutune run matmul --size 1024 --variant matmul_naive --device 0 --db $d/s$i.db --json --no-progress > $base/stamp$i.txt 2>&1
grep -vE '"event": "trial"' $base/stamp$i.txt | cut -c1-200 | head -30
done
