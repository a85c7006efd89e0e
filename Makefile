# mauisched: build and install without a package manager. The RPM
# (packaging/mauisched.spec.in) builds and installs through this file too,
# so both put the same files in the same places.
#
#   make                                   # cargo build --release, man pages, .pc,
#                                          # the PBS/Torque daemon, and the Slurm
#                                          # plugins when Slurm's headers are found
#   make install PREFIX=/usr/local DESTDIR=/tmp/stage
#   make install PREFIX=/usr LIBDIR=/usr/lib64 SLURM_PLUGINDIR=/usr/lib64/slurm
#
# `make install` installs what `make` built; it builds only what is
# missing, and never runs cargo again once it has built (`sudo make
# install` needs no Rust toolchain for root). Run `make` after a change.
#
# Layout (defaults; each is a variable):
#   $(BINDIR)/mauictl, and links to it named after Maui's commands (showq, ...)
#   $(LIBDIR)/libmauisched.so.$(ABI_MAJOR).$(ABI_MINOR), .so.$(ABI_MAJOR) (SONAME), .so
#   $(INCLUDEDIR)/mauisched.h, $(PKGCONFIGDIR)/mauisched.pc
#   $(MANDIR)/man1/{mauictl,mauictl-*,showq,...}.1, $(MANDIR)/man8/mauisched-pbs.8
#   $(DATADIR)/mauisched/maui.cfg.example, $(TMPFILESDIR)/mauisched.conf
#   $(SLURM_PLUGINDIR)/{sched_maui,job_submit_maui}.so
#   $(SBINDIR)/mauisched-pbs, $(UNITDIR)/mauisched-pbs.service,
#   $(SYSCONFIGDIR)/mauisched-pbs
# Versions come from Cargo.toml (scripts/version.sh), never from here.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
SLURM_PLUGINDIR ?= $(LIBDIR)/slurm
# systemd reads units and tmpfiles.d from /usr/local/lib as well as /usr/lib.
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
# The unit reads /etc/sysconfig/mauisched-pbs and /etc/default/mauisched-pbs.
SYSCONFIGDIR ?= $(SYSCONFDIR)/sysconfig
# Compiled-in default of mauictl and the daemons, not under PREFIX.
STATEDIR ?= /var/lib/mauisched

CARGO ?= cargo
CARGO_FLAGS ?= --locked
TARGET_DIR ?= $(or $(CARGO_TARGET_DIR),target)
REL := $(TARGET_DIR)/release
# Everything this file builds besides cargo's output.
O ?= $(TARGET_DIR)/make
SLURM_INCLUDE ?= /usr/include
# Slurm's configured source tree of the same release (sched_maui.so uses
# slurmctld's internal headers); empty: scripts/slurm-src.sh fetches it.
SLURM_SRC ?=
WITH_SLURM ?= $(if $(wildcard $(SLURM_INCLUDE)/slurm/slurm.h),yes,no)
WITH_PBS ?= yes

VERSION := $(shell scripts/version.sh version)
ABI_MAJOR := $(shell scripts/version.sh abi-major)
ABI_MINOR := $(shell scripts/version.sh abi-minor)
SONAME := libmauisched.so.$(ABI_MAJOR)
REALNAME := $(SONAME).$(ABI_MINOR)

ABS_O = $(abspath $(O))

.PHONY: all build cargo man pc $(O)/mauisched.pc lib-stage pbs slurm install install-core install-slurm install-pbs clean

# cargo first, on its own: the rest uses what it built.
all:
	$(MAKE) cargo
	$(MAKE) build

build: man pc $(if $(filter yes,$(WITH_PBS)),pbs) $(if $(filter yes,$(WITH_SLURM)),slurm)
ifneq ($(WITH_SLURM),yes)
	@echo "make: Slurm plugins not built: $(SLURM_INCLUDE)/slurm/slurm.h not found (install slurm-devel / libslurm-dev, or set SLURM_INCLUDE)"
endif

# `make` always asks cargo (it knows what is up to date). `make install`
# only builds what is missing, so that `sudo make install` after `make`
# needs no cargo for root.
cargo:
	$(CARGO) build --release $(CARGO_FLAGS) --target-dir $(TARGET_DIR) --lib --bin mauictl
$(REL)/mauictl $(REL)/libmauisched.so:
	$(MAKE) cargo

man: $(O)/man/mauictl.1
$(O)/man/mauictl.1: $(REL)/mauictl
	rm -rf $(O)/man
	$(REL)/mauictl man $(O)/man

pc: $(O)/mauisched.pc
# Always made again: it holds PREFIX and LIBDIR, which make cannot see change.
$(O)/mauisched.pc: packaging/mauisched.pc.in
	@mkdir -p $(O)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@ABI_MAJOR@|$(ABI_MAJOR)|' -e 's|@ABI_MINOR@|$(ABI_MINOR)|' $< > $@

# The library as it is installed (real name, SONAME and link names), for
# the PBS daemon to link against: it then needs libmauisched.so.N from the
# loader's path, no rpath into the build tree.
lib-stage: $(O)/lib/$(REALNAME)
$(O)/lib/$(REALNAME): $(REL)/libmauisched.so
	@mkdir -p $(O)/lib
	cp -f $(REL)/libmauisched.so $(O)/lib/$(REALNAME)
	ln -sf $(REALNAME) $(O)/lib/$(SONAME)
	ln -sf $(SONAME) $(O)/lib/libmauisched.so

pbs: lib-stage
	$(MAKE) -C c-shim/pbs O=$(ABS_O)/pbs MAUISCHED_LIBDIR=$(ABS_O)/lib

slurm:
	$(MAKE) -C c-shim/slurm O=$(ABS_O)/slurm SLURM_INCLUDE=$(SLURM_INCLUDE) SLURM_SRC=$(SLURM_SRC)

install: install-core $(if $(filter yes,$(WITH_PBS)),install-pbs) $(if $(filter yes,$(WITH_SLURM)),install-slurm)

install-core: $(REL)/mauictl $(REL)/libmauisched.so man pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)/mauisched \
	    $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(STATEDIR)/run
	install -m 0755 $(REL)/libmauisched.so $(DESTDIR)$(LIBDIR)/$(REALNAME)
	ln -sf $(REALNAME) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libmauisched.so
	install -m 0755 $(REL)/mauictl $(DESTDIR)$(BINDIR)/mauictl
	@# One link per Maui-named command: exactly those mauictl wrote a page for.
	for p in $(O)/man/*.1; do n=$${p##*/}; n=$${n%.1}; \
	    case $$n in mauictl|mauictl-*) ;; *) ln -sf mauictl $(DESTDIR)$(BINDIR)/$$n ;; esac; \
	done
	install -m 0644 $(O)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 include/mauisched.h $(DESTDIR)$(INCLUDEDIR)/mauisched.h
	install -m 0644 $(O)/mauisched.pc $(DESTDIR)$(PKGCONFIGDIR)/mauisched.pc
	install -m 0644 packaging/maui.cfg $(DESTDIR)$(DATADIR)/mauisched/maui.cfg.example
	install -m 0644 packaging/mauisched.tmpfiles $(DESTDIR)$(TMPFILESDIR)/mauisched.conf

install-slurm: slurm
	$(MAKE) -C c-shim/slurm O=$(ABS_O)/slurm SLURM_INCLUDE=$(SLURM_INCLUDE) SLURM_SRC=$(SLURM_SRC) \
	    install PLUGINDIR=$(SLURM_PLUGINDIR) DESTDIR=$(abspath $(DESTDIR))

install-pbs: pbs
	$(MAKE) -C c-shim/pbs O=$(ABS_O)/pbs MAUISCHED_LIBDIR=$(ABS_O)/lib \
	    install DESTDIR=$(abspath $(DESTDIR)) PREFIX=$(PREFIX) SBINDIR=$(SBINDIR) \
	    MANDIR=$(MANDIR) UNITDIR=$(UNITDIR)
	@# The unit names the daemon by its path: this install's.
	sed -i 's|^ExecStart=/usr/sbin/mauisched-pbs|ExecStart=$(SBINDIR)/mauisched-pbs|' \
	    $(DESTDIR)$(UNITDIR)/mauisched-pbs.service
	@# The page's footer names the version: Cargo.toml's.
	sed -i 's/^\(\.TH .*\)"mauisched [^"]*"/\1"mauisched $(VERSION)"/' $(DESTDIR)$(MANDIR)/man8/mauisched-pbs.8
	install -D -m 0644 packaging/mauisched-pbs.sysconfig $(DESTDIR)$(SYSCONFIGDIR)/mauisched-pbs

clean:
	rm -rf $(O)
