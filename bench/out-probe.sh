set -u
O=$OUT; mkdir -p $O/raw
OUT=$O/raw bash bench/compare-trees.sh build head=. pcopy=.carry/trees/pcopy pcompute=.carry/trees/pcompute > $O/build.txt 2>&1
cat $O/build.txt
for r in 1 2; do for sh in 8192x28672 8192x8192; do
  for n in head pcopy pcompute; do
    timeout 100 build-$n/bin/w4a16_bench --zero-points --shape $sh --ms 1,16,32 --csv $O/raw/b-$n-zp-$sh-r$r.csv > /dev/null 2>&1; echo "$n zp $sh $r $?"
  done
  timeout 100 build-head/bin/w4a16_bench --ours-only --shape $sh --ms 1,16,32 --csv $O/raw/b-head-$sh-r$r.csv > /dev/null 2>&1; echo "head $sh $r $?"
done; done
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
$CUOBJDUMP -sass -arch sm_90a $(find build-head/runtime -name 'gemm_v3.cu.o') > $O/raw/sass-head.txt 2>&1
tar czf $O/raw.tgz -C $O raw && rm -rf $O/raw
