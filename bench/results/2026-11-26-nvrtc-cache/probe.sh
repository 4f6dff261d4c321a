#!/usr/bin/env bash
# Probe: NVRTC's own compile cache (12.9+, kept in the driver's compute cache) on or off
# ("-no-cache", CUTUNE_NVRTC_CACHE=0): the cost of cold compiles and what each writes.
# Compile only (cutune check), each time with an empty cutune kernel cache and an empty
# driver cache, then bench/throughput.py (exhaustive and default) in both modes.
set -u
o=${OUT:-/tmp/probe}; mkdir -p "$o"
exe=build/cli/cutune
ru() { python3 -c '
import resource,subprocess,sys,time
def st():
    return [int(x) for x in open("/proc/stat").readline().split()[1:]]
a=st(); t=time.time(); p=subprocess.run(sys.argv[1:],capture_output=True,text=True); t=time.time()-t; b=st()
d=[y-x for x,y in zip(a,b)]; tot=sum(d) or 1
r=resource.getrusage(resource.RUSAGE_CHILDREN)
last=p.stdout.strip().splitlines()
print("wall %.1f user %.1f sys %.1f  cpu%%: user %.0f sys %.0f idle %.0f iowait %.0f rc %d %s"%(t,r.ru_utime,r.ru_stime,100*(d[0]+d[1])/tot,100*d[2]/tot,100*d[3]/tot,100*d[4]/tot,p.returncode,last[-2].strip() if p.returncode==0 and len(last)>1 else p.stdout[-300:]+p.stderr[-300:]))
' "$@"; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
n=${PROBE_SAMPLE:-128}
for i in 1 2; do
  for mode in 1 0; do
    rm -rf /tmp/kc /tmp/nv
    echo -n "round $i CUTUNE_NVRTC_CACHE=$mode jobs16 sample $n: "
    ru env CUTUNE_NVRTC_CACHE=$mode CUTUNE_CACHE_DIR=/tmp/kc CUDA_CACHE_PATH=/tmp/nv \
      $exe check matmul_async --sample "$n" --seed 3 --jobs 16
    echo "   driver cache written: $(du -sk /tmp/nv 2>/dev/null | cut -f1) KB"
  done
done
for mode in 1 0; do
  rm -rf /tmp/kc /tmp/nv
  echo -n "CUTUNE_NVRTC_CACHE=$mode jobs1 sample 8: "
  ru env CUTUNE_NVRTC_CACHE=$mode CUTUNE_CACHE_DIR=/tmp/kc CUDA_CACHE_PATH=/tmp/nv \
    $exe check matmul_async --sample 8 --seed 5 --jobs 1
done
rm -rf /tmp/kc /tmp/nv
for mode in 1 0; do
  echo "throughput, CUTUNE_NVRTC_CACHE=$mode:"
  mkdir -p "$o/tp$mode"
  CUTUNE_NVRTC_CACHE=$mode python3 bench/throughput.py $exe "$o/tp$mode" --runs exhaustive,default \
    2>&1 | tee "$o/tp$mode/throughput.log"
  rm -f "$o"/tp$mode/*.db*
done
