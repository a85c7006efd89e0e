#!/usr/bin/env bash
# A .deb of mauisched for Debian/Ubuntu sites, from `make install`:
#
#   make && scripts/deb.sh [OUTDIR]   # -> OUTDIR (default target/deb)/mauisched_<version>-1_<arch>.deb
#
# One package with what `make install` installs, at Debian's paths: the
# library in the multiarch directory, the Slurm plugins in Debian's Slurm
# PluginDir (/usr/lib/<multiarch>/slurm-wlm), /etc/default/mauisched-pbs.
# The Slurm plugins load only into the Slurm their headers came from: the
# package does not depend on Slurm (Torque sites need none) but Breaks any
# other slurmctld version, as the RPM's `Requires: slurm = <version>`.
# Make variables (TARGET_DIR, CARGO_FLAGS, ...) may come from the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-target/deb}")
version=$(scripts/version.sh version)
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
stage=$out/stage
rm -rf "$stage"
mkdir -p "$stage/DEBIAN" "$out"

make install DESTDIR="$stage" PREFIX=/usr LIBDIR="/usr/lib/$multiarch" \
  SLURM_PLUGINDIR="/usr/lib/$multiarch/slurm-wlm" SYSCONFIGDIR=/etc/default \
  UNITDIR=/lib/systemd/system
# Debian ships stripped binaries (the release build keeps line tables).
find "$stage/usr" -type f \( -name '*.so*' -o -perm -u+x \) -exec sh -c \
  '[ "$(head -c4 "$1" | tail -c3)" = ELF ] && strip --strip-unneeded "$1" || true' _ {} \;

glibc=$(objdump -T "$stage"/usr/lib/"$multiarch"/libmauisched.so.* "$stage"/usr/bin/mauictl 2>/dev/null |
  grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1)
breaks=""
sv=""
if [ -e "$stage/usr/lib/$multiarch/slurm-wlm/sched_maui.so" ]; then
  sv=$(packaging/slurm-version.sh)
  # The next micro version: 22.05.8 -> 22.05.9.
  next="${sv%.*}.$((${sv##*.} + 1))"
  breaks="Breaks: slurmctld (<< $sv), slurmctld (>= $next)"
fi
size=$(du -sk "$stage/usr" | cut -f1)
{
  echo "Package: mauisched"
  echo "Version: $version-1"
  echo "Architecture: $arch"
  echo "Maintainer: mauisched developers <mauisched@localhost>"
  echo "Installed-Size: $size"
  echo "Depends: libc6 (>= $glibc), libgcc-s1"
  [ -n "$breaks" ] && echo "$breaks"
  echo "Section: admin"
  echo "Priority: optional"
  echo "Description: Maui-compatible scheduling policy engine for Slurm and PBS/Torque"
  echo " The policy engine (libmauisched), mauictl and the Maui-named commands,"
  echo " the Slurm plugins sched/maui, job_submit/maui and cli_filter/maui${sv:+ (built for Slurm $sv)},"
  echo " and mauisched-pbs, the PBS/Torque scheduler daemon."
} > "$stage/DEBIAN/control"
echo /etc/default/mauisched-pbs > "$stage/DEBIAN/conffiles"
cat > "$stage/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
  ldconfig
  systemd-tmpfiles --create /usr/lib/tmpfiles.d/mauisched.conf 2>/dev/null || true
fi
EOF
printf '#!/bin/sh\nset -e\n[ "$1" = remove ] && ldconfig || true\n' > "$stage/DEBIAN/postrm"
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/postrm"
deb=$out/mauisched_${version}-1_${arch}.deb
dpkg-deb --root-owner-group -Zgzip -z1 --build "$stage" "$deb" >/dev/null
echo "deb: $deb"
