#!/usr/bin/env bash
# usage: run_maui.sh MAUI DIR WORKLOAD RESOURCES CFG
#
# Runs Maui 3.3's simulator (SERVERMODE SIMULATION) on a Maui workload and
# resource trace with the scheduling parameters of CFG, writing DIR/stats/
# simstat.out (the workload trace with Maui's start times and hosts).
#
# Maui's simulator sets its clock to the wall clock when it starts and
# submits the initial queue (SIMINITIALQUEUEDEPTH jobs) then; later jobs are
# released when their trace submission time is reached. A trace from the
# past is therefore submitted all at once. faketime (Debian package
# `faketime`) starts Maui's clock at the latest submission of the initial
# queue, which is where `mauictl simulate --grid` starts too.
set -euo pipefail
MAUI=$1 D=$2 W=$(realpath "$3") R=$(realpath "$4") C=$5
command -v faketime > /dev/null || { echo "run_maui.sh: needs faketime (apt-get install faketime)" >&2; exit 2; }
depth=$(awk '$1 == "SIMINITIALQUEUEDEPTH" {print $2}' "$C"); depth=${depth:-16}
t0=$(awk -v d="$depth" '!/^(VERSION|#)/ && NF && n < d {n++; if ($9 > t) t = $9} END {print t}' "$W")
# SIMAUTOSHUTDOWN stops Maui as soon as nothing is queued or running, in
# the first gap of a long trace (MSimProcessEvents), so the run is ended
# by iteration count instead (one iteration per RMPOLLINTERVAL, as set in
# CFG): until two weeks after the last job could have ended had it started
# on submission.
poll=$(awk '$1 == "RMPOLLINTERVAL" {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$C"); poll=${poll:-60}
end=$(awk '!/^(VERSION|#)/ && NF {if ($9 + $6 > e) e = $9 + $6} END {print e}' "$W")
exit_iteration=$(( (end - t0) / poll + 14 * 86400 / poll ))
rm -rf "$D"; mkdir -p "$D/stats" "$D/spool" "$D/log"; D=$(realpath "$D")
{ cat "$C"; cat <<EOC
SERVERHOST            $(hostname)
SERVERMODE            SIMULATION
SERVERPORT            $((40000 + RANDOM % 20000))
SIMRESOURCETRACEFILE  $R
SIMWORKLOADTRACEFILE  $W
SIMAUTOSHUTDOWN       FALSE
SIMEXITITERATION      $exit_iteration
STATDIR               $D/stats
LOGFILE               $D/log/maui.log
LOGLEVEL              0
EOC
} > "$D/maui.cfg"
cd "$D"
TZ=UTC MAUIHOMEDIR="$D" timeout 1800 \
    faketime -f "@$(TZ=UTC date -d "@$t0" '+%Y-%m-%d %H:%M:%S')" "$MAUI" -C "$D/maui.cfg" -d > "$D/run.out" 2>&1 || true
test -s "$D/stats/simstat.out" || { echo "run_maui.sh: Maui wrote no stats/simstat.out (see $D/run.out)" >&2; exit 1; }
