#!/usr/bin/env bash
# Timeline (bench/probes/timeline.cu) of the epilogue with its parts switched off: activation none /
# silu / gelu_tanh, bias and residual dropped. Session 6, issue #5.
#   bench/probes/epilogue-parts.sh TIMELINE_BUILD_DIR
for cfg in "" "TL_ACT=0" "TL_ACT=0 TL_NO_BIAS=1 TL_NO_RESIDUAL=1" "TL_ACT=2"; do
  for a in "8192 28672 32" "8192 28672 1" "8192 8192 32" "28672 8192 32"; do
    env $cfg "$1"/bin/timeline $a 200 | grep -E "^timeline|thread 0 loop|partials ready|exit|period" | head -5 | cut -c1-120
  done
done
