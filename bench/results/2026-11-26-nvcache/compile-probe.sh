#!/usr/bin/env bash
# Probe: are NVRTC compiles slower in a machine's first minutes, and does glibc's malloc
# tuning change that? Compile-only (cutune check), no GPU work.
set -u
o=${OUT:-/tmp/probe}; mkdir -p "$o"
{ cat /proc/uptime; nproc; grep -m1 "model name" /proc/cpuinfo; cat /proc/loadavg; free -g
  cat /sys/kernel/mm/transparent_hugepage/enabled; lsmod | grep -i -E "balloon|virtio" ; 
  ls /sys/bus/virtio/drivers 2>/dev/null; top -b -n1 | head -25; } > "$o/env.txt" 2>&1
vmstat -t 1 > "$o/vmstat.txt" 2>&1 &
vm=$!
ru() { python3 -c '
import resource,subprocess,sys,time
def st():
    f=open("/proc/stat").readline().split()[1:]; return [int(x) for x in f]
a=st(); t=time.time(); p=subprocess.run(sys.argv[1:],capture_output=True,text=True); t=time.time()-t; b=st()
d=[y-x for x,y in zip(a,b)]; tot=sum(d) or 1
r=resource.getrusage(resource.RUSAGE_CHILDREN)
up=float(open("/proc/uptime").read().split()[0])
print("uptime %.0f wall %.1f user %.1f sys %.1f minflt %d  cpu%%: user %.0f sys %.0f idle %.0f steal %.0f rc %d %s"%(up,t,r.ru_utime,r.ru_stime,r.ru_minflt,100*(d[0]+d[1])/tot,100*d[2]/tot,100*d[3]/tot,100*(d[7] if len(d)>7 else 0)/tot,p.returncode,p.stdout.strip().splitlines()[-2] if p.returncode==0 else p.stdout[-300:]+p.stderr[-300:]))
' "$@"; }
M="MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=4294967296 MALLOC_TOP_PAD_=268435456"
for i in 1 2 3; do
  for mode in A B; do
    rm -rf /tmp/kc-probe
    if [ $mode = A ]; then e=""; else e=$M; fi
    echo -n "round $i $mode jobs16: "; ru env $e CUTUNE_CACHE_DIR=/tmp/kc-probe build/cli/cutune check matmul_async --sample ${PROBE_SAMPLE:-96} --jobs 16
  done
done
rm -rf /tmp/kc-probe
echo -n "overhead A sample 2: "; ru env CUTUNE_CACHE_DIR=/tmp/kc-probe build/cli/cutune check matmul_async --sample 2 --jobs 16
rm -rf /tmp/kc-probe
echo -n "jobs1 A: "; ru env CUTUNE_CACHE_DIR=/tmp/kc-probe build/cli/cutune check matmul_async --sample ${PROBE_SAMPLE1:-8} --jobs 1
kill $vm
top -b -n1 | head -15 >> "$o/env.txt"
