#!/bin/sh
# Prints the version of the Slurm whose headers are installed, as Slurm's
# own packages spell it (22.05.8): SLURM_VERSION_STRING of
# slurm/slurm_version.h when the header has it (Slurm's own builds), else
# SLURM_VERSION_NUMBER (0x160508) spelt out (Debian's libslurm-dev has only
# that). mauisched.spec reads it for `Requires: slurm = <version>`: the
# plugins' plugin_version is SLURM_VERSION_NUMBER, so they load into that
# Slurm only.
#   packaging/slurm-version.sh [INCLUDEDIR]    (default /usr/include)
# Prints nothing and exits 1 when the header is missing.
set -eu
inc=${1:-/usr/include}
[ -f "$inc/slurm/slurm_version.h" ] || exit 1
out=$(printf '#include <slurm/slurm_version.h>\n#ifdef SLURM_VERSION_STRING\nS SLURM_VERSION_STRING\n#else\nN SLURM_VERSION_NUMBER\n#endif\n' |
  ${CPP:-cpp} -P -I"$inc" - | sed -n 's/^\([SN]\) /\1 /p' | tail -n1)
case "$out" in
  S\ \"*\") v=${out#S \"}; echo "${v%\"}" ;;
  N\ 0x*|N\ [0-9]*)
    n=$((${out#N }))
    printf '%d.%02d.%d\n' $((n >> 16 & 255)) $((n >> 8 & 255)) $((n & 255)) ;;
  *) echo "$0: cannot read the Slurm version from $inc/slurm/slurm_version.h" >&2; exit 1 ;;
esac
