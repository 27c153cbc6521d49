# Sourced by the scripts of single device calls (bench/results/DATE-sN/runK.sh), which until session 54 each repeated
# this prologue. The device tool returns only a few files from $OUT, so the logs go into one archive,
# $OUT/results.tgz, repacked after every step: a call cut short by its time limit still returns what it did.
#   call_init BIN...            unpack .carry/bins/BIN.tar.xz into $P/BIN; set O (= $OUT), L (the logs), S (the
#                               summary), T0; write the card's name, clock and power to the summary
#   call_step NAME SECS CMD...  run CMD with a time limit into $L/NAME.log; one summary line with its exit status,
#                               the seconds since call_init, its FAIL lines and its last line; repack
#   call_pack                   repack $L into $O/results.tgz
call_init() {
  O=${OUT:-/tmp/out}; mkdir -p "$O"; L=$(mktemp -d /tmp/logs-XXXX); P=/tmp/prebuilt; S=$O/summary.txt
  local b; for b in "$@"; do mkdir -p "$P/$b" && tar xJf ".carry/bins/$b.tar.xz" -C "$P/$b" || echo "unpack $b failed" >>"$S"; done
  T0=$(date +%s)
  nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader 2>&1 | tee -a "$S"
}
call_pack() { tar czf "$O/results.tgz" -C "$L" .; }
call_step() {
  local name=$1 secs=$2; shift 2
  timeout "$secs" "$@" >"$L/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc at $(( $(date +%s) - T0 )) s; $(grep -c '^FAIL' "$L/$name.log") FAIL; $(tail -1 "$L/$name.log")" |
    tee -a "$S"
  call_pack
  return $rc
}
