import json,sys
# the five runs: python3 phases.py m-old m-new m-old2 m-new3 m-old4 (after untarring the .tgz here)
for d in sys.argv[1:]:
    ev=[json.loads(l) for l in open(d+'/run1.jsonl') if l.startswith('{')]
    tr=[e for e in ev if e['event']=='trial']
    wall=open(d+'/wall').read().strip()
    sizes=[e for e in ev if e['event']=='size']
    prev=0; ph=[]
    for s in sizes:
        ph.append('%s %.1f'%(s['size'].split('x')[0] if s['size'].count('x')==2 and len(set(s['size'].split('x')))==1 else s['size'], s['elapsed_s']-prev)); prev=s['elapsed_s']
    meas=sum(e.get('measure_ms') or 0 for e in tr)/1e3
    comp=sum(e.get('compile_ms') or 0 for e in tr)/1e3
    m8=sum(e.get('measure_ms') or 0 for e in tr if e['size'].startswith('8192x8192'))/1e3
    n8=sum(1 for e in tr if e['size'].startswith('8192x8192'))
    cut=sum(1 for e in tr if e.get('cut_short'))
    print('%-7s wall %s trials %d cut %d measure %.1f s compile %.0f s | 8192^3: %d trials, %.1f s measuring | phases: %s'%(d,wall,len(tr),cut,meas,comp,n8,m8,', '.join(ph)))
