#!/usr/bin/env python3
"""Summary table of an `spmv-reorder evaluate --json` file: geometric means over the matrices of
D / D(input), speedups over the input and over RCM (1 and 2 threads), how many matrices each TSP
ordering gives a lower D than both RCM and Gorder, and the median reordering cost in SpMVs.

Usage: python3 scripts/eval_summary.py EVALUATE.json  (prints a Markdown table)
"""
import json,sys,math,statistics
d=json.load(open(sys.argv[1]))
labels=[r['label'] for r in d['matrices'][0]['results']]
g=lambda xs: math.exp(sum(math.log(x) for x in xs)/len(xs))
print("| ordering | D / D(input) | speedup 1t | speedup 2t | vs RCM 1t | vs RCM 2t | `D` below RCM and Gorder | median reorder cost (SpMVs) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for L in labels:
    if L=='identity': continue
    dr=[];s1=[];s2=[];r1=[];r2=[];cost=[];below=0
    for m in d['matrices']:
        res={r['label']:r for r in m['results']}
        r=res[L]; dr.append(max(r['D'],1)/max(res['identity']['D'],1))
        s1.append(r['speedup'][0]); s2.append(r['speedup'][1]); r1.append(r['speedup_over_rcm'][0]); r2.append(r['speedup_over_rcm'][1])
        cost.append(r['reorder_spmv_equivalents'])
        if r['D']<res['rcm']['D'] and r['D']<res.get('gorder',res['rcm'])['D']: below+=1
    # Without a Gorder run the count is of D below RCM's alone.
    b = f"{below} / {len(d['matrices'])}" if L.startswith('tsp') else ''
    print(f"| {L} | {g(dr):.3f} | {g(s1):.3f} | {g(s2):.3f} | {g(r1):.3f} | {g(r2):.3f} | {b} | {statistics.median(cost):.0f} |")
