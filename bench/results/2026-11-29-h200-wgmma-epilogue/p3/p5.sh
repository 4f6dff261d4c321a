#!/usr/bin/env bash
set -u
for r in ours256 ours128 nvjet; do
  ncu --import .carry/reps/$r.ncu-rep --page source --print-source sass --csv > $OUT/$r.sass.csv 2> $OUT/$r.err
  ncu --import .carry/reps/$r.ncu-rep --page raw --csv > $OUT/$r.raw.csv 2>> $OUT/$r.err
done
ls -la $OUT; head -3 $OUT/ours256.sass.csv
