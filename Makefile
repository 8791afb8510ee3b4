# elect: leader election as small Unix filters.
#
#   make            build every binary (build/plain/bin); this and every
#                   other goal that compiles checks what it needs first
#   make check      install what is missing, build, run t/*.bats plainly
#                   and again under AddressSanitizer and UBSan, in parallel
#   make demo       three nodes under lease run a guarded job; the leader is
#                   killed, the job goes on at the next with a greater token
#   make bench      benchmarks, printing figures and ratios
#   make chaos      every algorithm on real nodes in network namespaces
#                   under a random nemesis, CHAOS_SECONDS each (root;
#                   CHAOS_NAMES=K: K named jobs on every host)
#   make fuzz       every fuzz target for FUZZ_SECONDS each (clang, libFuzzer);
#                   fails, naming them, if any crashes, leaks or hangs
#   make install    PREFIX=/usr/local DESTDIR=
#   make deb        a Debian package, build/deb/elect_VERSION_ARCH.deb
#   make deb-check  builds it, installs it into a fresh root, runs lintian

VERSION =	0.1.0
PREFIX ?=	/usr/local
BINDIR ?=	$(PREFIX)/bin
MANDIR ?=	$(PREFIX)/share/man
DATADIR ?=	$(PREFIX)/share/elect
FUZZ_SECONDS ?=	30

# Debian packages needed to build and test; `make deps` installs them.
PKGS =		gcc make pkg-config libbsd-dev libsodium-dev libsystemd-dev \
		libmicrohttpd-dev prometheus bats \
		bats-assert bats-support clang libclang-rt-14-dev libxml2-utils \
		iproute2 nftables procps psmisc python3 faketime parallel \
		dpkg-dev debhelper fakeroot lintian systemd postgresql sqlite3

# What `make bench' needs besides: the peers it compares with, run in the
# same sitting (t/bench/lease.sh): etcd, keepalived, ZooKeeper and kazoo.
BENCH_PKGS =	etcd-server etcd-client keepalived zookeeper python3-kazoo

CC ?=		cc
PKG_MODULES =	libbsd-overlay libsodium libsystemd libmicrohttpd

# What each goal needs in order to compile, checked before anything
# compiles (t/tools/build-deps.sh): a missing piece is named in one line
# with the apt-get line that installs it, or installed when make runs as
# root on Debian (not under make -n), as make check does.  The check runs
# while make reads this file, before the pkg-config lines below, so that
# it comes first under -j too and what it installed is used at once (as a
# prerequisite it did not: `all: deps-quiet plain' compiled first even
# without -j, as GNU make 4.3 under .SECONDEXPANSION takes all's
# prerequisites in reverse order).  The
# goals of NOBUILD_GOALS build nothing themselves: check, demo, bench and
# chaos install all that the tests need first, then call make again.
NOBUILD_GOALS =	deps check demo bench chaos clean
CC_NEEDS =	cmd:$(CC):$(if $(filter clang%,$(notdir $(CC))),clang,gcc)
PC_NEEDS =	cmd:pkg-config:pkg-config pc:libbsd-overlay:libbsd-dev \
		pc:libsodium:libsodium-dev pc:libsystemd:libsystemd-dev \
		pc:libmicrohttpd:libmicrohttpd-dev
FUZZ_NEEDS =	cmd:clang:clang fuzzer:clang:libclang-rt-14-dev $(PC_NEEDS)
DEB_NEEDS =	$(CC_NEEDS) $(PC_NEEDS) cmd:dpkg-buildpackage:dpkg-dev \
		cmd:dh:debhelper control:debian/control:- \
		$(if $(filter deb-check,$(MAKECMDGOALS)),cmd:lintian:lintian)
BUILD_GOALS :=	$(filter-out $(NOBUILD_GOALS),$(or $(MAKECMDGOALS),all))
FUZZ_GOALS :=	$(filter fuzz build/fuzz/%,$(BUILD_GOALS))
DEB_GOALS :=	$(filter deb deb-check,$(BUILD_GOALS))
NEEDS :=	$(if $(FUZZ_GOALS),$(FUZZ_NEEDS)) $(if $(DEB_GOALS),$(DEB_NEEDS)) \
		$(if $(filter-out $(FUZZ_GOALS) $(DEB_GOALS),$(BUILD_GOALS)),$(CC_NEEDS) $(PC_NEEDS))
ifneq ($(strip $(NEEDS)),)
DEPS_MISSING :=	$(shell sh t/tools/build-deps.sh \
		    $(if $(findstring n,$(firstword -$(MAKEFLAGS))),-n) $(NEEDS))
$(if $(DEPS_MISSING),$(error $(DEPS_MISSING)))
endif

PKG_CFLAGS !=	pkg-config --cflags $(PKG_MODULES) 2>/dev/null
# libmicrohttpd is compiled against, not linked: elect-node loads it
# only for --metrics (bin/elect-node/daemon/metrics.c, mhd_load).
PKG_LIBS !=	pkg-config --libs $(filter-out libmicrohttpd,$(PKG_MODULES)) \
		    2>/dev/null
WARN =		-Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
		-Wmissing-prototypes -Wpointer-arith -Wno-unused-parameter
BASE_CFLAGS =	-std=c17 -D_GNU_SOURCE -DELECT_VERSION='"$(VERSION)"' \
		-Ilib $(PKG_CFLAGS) $(WARN) -g
PLAIN_CFLAGS =	-O2 -D_FORTIFY_SOURCE=2
ASAN_CFLAGS =	-O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=all
# --as-needed: a binary that uses no libm (or libresolv) does not load it.
LDFLAGS ?=	-Wl,--as-needed
LDLIBS =	$(PKG_LIBS) -lresolv -lm

# elect-fd runs on every host for as long as elect-node does, so the plain
# build links it statically: shared libraries cost each process the pages
# the kernel faults in around the few it touches (libc alone some 1.5 MB
# resident), a static binary only what it uses.  It can be: its names are
# resolved by lib/net/resolve.c, which needs no NSS module at run time.
# The ASan build stays dynamic, as the sanitizers need; so does the plain
# one where a static library is missing (the Debian packages of PKGS ship
# them all).
STATIC_BINS =	elect-fd
STATIC_LIBS !=	pkg-config --static --libs libbsd-overlay libsodium 2>/dev/null
STATIC_LDLIBS =	-static-pie $(STATIC_LIBS) -lresolv -lm
STATIC_OK !=	for l in $(filter -l%,$(STATIC_LDLIBS)) -lc; do \
		    a=lib$${l\#-l}.a; \
		    case $$($(CC) -print-file-name=$$a) in /*) ;; *) echo no;; esac; \
		done
plain_STATIC =	$(if $(STATIC_OK),,$(STATIC_BINS))

LIB_SRCS !=	find lib -name '*.c' | LC_ALL=C sort
BIN_NAMES !=	find bin -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | LC_ALL=C sort
TOOL_SRCS !=	find t/tools -maxdepth 1 -name '*.c' 2>/dev/null | LC_ALL=C sort
# The cores' transcript drivers, which the drive tools and datadriven share.
DRIVE_SRCS !=	find t/tools/drive -name '*.c' 2>/dev/null | LC_ALL=C sort
FUZZ_SRCS !=	find t/fuzz -name '*.c' 2>/dev/null | LC_ALL=C sort
LIB_HDRS !=	find lib -name '*.h'
BIN_HDRS !=	find bin -name '*.h'
TOOL_HDRS !=	find t/tools -name '*.h' 2>/dev/null
MANS !=		find share/man -name '*.[0-9]' | LC_ALL=C sort

# One build tree per flavour: build/plain and build/asan.
define flavour
$(1)_OBJS = $$(LIB_SRCS:%.c=build/$(1)/obj/%.o)
$(1)_BINS = $$(BIN_NAMES:%=build/$(1)/bin/%)
$(1)_TOOLS = $$(TOOL_SRCS:t/tools/%.c=build/$(1)/t/%)
$(1)_DRIVE_OBJS = $$(DRIVE_SRCS:%.c=build/$(1)/obj/%.o)

build/$(1)/obj/%.o: %.c $$(LIB_HDRS) $$(BIN_HDRS) $$(TOOL_HDRS)
	@mkdir -p $$(@D)
	$$(CC) $$(BASE_CFLAGS) $$($(2)) $$(CFLAGS) -c -o $$@ $$<

build/$(1)/libelect.a: $$($(1)_OBJS)
	@rm -f $$@
	$$(AR) rcs $$@ $$^

build/$(1)/bin/%: $$$$(addprefix build/$(1)/obj/,$$$$(subst .c,.o,$$$$(wildcard bin/$$$$*/*.c bin/$$$$*/*/*.c))) build/$(1)/libelect.a
	@mkdir -p $$(@D)
	$$(CC) $$($(2)) $$(LDFLAGS) -o $$@ $$^ \
	    $$(if $$(filter $$*,$$($(1)_STATIC)),$$(STATIC_LDLIBS),$$(LDLIBS))

build/$(1)/libdrive.a: $$($(1)_DRIVE_OBJS)
	@rm -f $$@
	$$(AR) rcs $$@ $$^

build/$(1)/t/%: build/$(1)/obj/t/tools/%.o build/$(1)/libdrive.a build/$(1)/libelect.a
	@mkdir -p $$(@D)
	$$(CC) $$($(2)) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)

$(1): $$($(1)_BINS) $$($(1)_TOOLS)
endef

.SECONDEXPANSION:
.SECONDARY:
$(eval $(call flavour,plain,PLAIN_CFLAGS))
$(eval $(call flavour,asan,ASAN_CFLAGS))

.PHONY: all plain asan deps check test test-plain test-asan demo bench fuzz \
	chaos install deb deb-check clean
.DEFAULT_GOAL := all

all: plain

deps:
	@sh t/tools/deps.sh $(PKGS)

# The tests.  bats runs the files TEST_JOBS at a time (GNU parallel), the
# tests of each file in turn: bats 1.8 hands out its slots within a file
# by polling once a second, which made two jobs slower than one (a file
# of short tests: 10 s instead of 1.2).  Every test has a temporary
# directory of its own (BATS_TEST_TMPDIR), clusters on free ports
# (t/tools/freeport), network namespaces of unique names, and waits for
# conditions, never for speed, so that a loaded host slows the suite down
# but does not change a verdict.
# Two jobs per core in the plain pass, where most of a test's time is spent
# waiting; one per core under AddressSanitizer, whose binaries do work
# while they wait.  A loaded host slows a SIGKILLed job's reaping, never
# its end: its stop line says when it was killed (killed=), and that is
# what the tests compare.  With GNU parallel missing, one at a time.
#
# The sanitizer pass runs every file: it is there to catch memory and
# undefined-behaviour errors in every binary, every core and the daemons'
# code paths, and each file is the only one to drive some of them.  With
# ELECT_SHORT set, the end-to-end tests that only repeat the same code on
# a larger scale skip: the seven-node clusters of elect-node-cluster.bats
# (the three-node run of each algorithm goes through the same code, and
# the seven-node ones are the slowest tests of the suite).
NPROC !=	nproc 2>/dev/null || echo 1
TEST_JOBS ?=	$$(($(NPROC) * 2))
ASAN_JOBS ?=	$(NPROC)
BATS =		bats --timing $$(command -v parallel >/dev/null && \
		    echo --jobs $(1) --no-parallelize-within-files)

# Each step's time is printed at the end: where the minutes go.
check: deps
	@t0=$$(date +%s); \
	$(MAKE) -j$(NPROC) plain asan && t1=$$(date +%s) && \
	$(MAKE) test-plain && t2=$$(date +%s) && \
	$(MAKE) test-asan && t3=$$(date +%s) && \
	$(MAKE) deb-check && t4=$$(date +%s) && \
	echo "check: build $$((t1 - t0)) s, plain tests $$((t2 - t1)) s," \
	    "sanitizer tests $$((t3 - t2)) s, package $$((t4 - t3)) s;" \
	    "$$((t4 - t0)) s in all"

test: test-plain

test-plain: plain
	ELECT_BUILD=$(CURDIR)/build/plain $(call BATS,$(TEST_JOBS)) t

test-asan: asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ELECT_SHORT=1 ELECT_BUILD=$(CURDIR)/build/asan $(call BATS,$(ASAN_JOBS)) t

demo: deps
	$(MAKE) plain
	@sh share/elect/demo.sh $(CURDIR)/build/plain/bin

bench: deps
	@sh t/tools/deps.sh $(BENCH_PKGS)
	$(MAKE) plain
	@fail=; for b in t/bench/*.sh; do \
		[ -f "$$b" ] || continue; \
		echo "== $$b"; \
		ELECT_BUILD=$(CURDIR)/build/plain bash "$$b" || \
		    fail="$$fail $$b"; \
	done; \
	[ -z "$$fail" ] || { echo "bench: missed targets or failed:$$fail"; exit 1; }

# elect-chaos(1) for each algorithm in turn, niced, each under the faults
# its model admits; a failed run keeps its directory and is named.
# CHAOS_NAMES=K runs K named jobs on every host instead of one.
CHAOS_SECONDS ?=	60
CHAOS_NODES ?=	5
CHAOS_ALGOS ?=	lease bully bully-fd async-bully invitation modified-bully \
		enhanced-bully

chaos: deps
	$(MAKE) plain
	@fail=; for a in $(CHAOS_ALGOS); do \
		echo "== elect-chaos -a $$a"; \
		nice -n 10 bash share/elect/elect-chaos -B build/plain/bin \
		    -a $$a -n $(CHAOS_NODES) -d $(CHAOS_SECONDS) \
		    $(if $(CHAOS_SEED),-s $(CHAOS_SEED)) \
		    $(if $(CHAOS_NAMES),--names $(CHAOS_NAMES)) || \
		    fail="$$fail $$a"; \
	done; \
	[ -z "$$fail" ] || { echo "chaos: failed:$$fail"; exit 1; }

FUZZ_CFLAGS =	-std=c17 -D_GNU_SOURCE -DELECT_VERSION='"$(VERSION)"' -Ilib \
		$(PKG_CFLAGS) -g -O1 -fsanitize=fuzzer,address,undefined

build/fuzz/%: t/fuzz/%.c t/fuzz/feed.h $(LIB_SRCS) $(LIB_HDRS)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRCS) $(LDLIBS)

# The entropic schedule looks each feature a run hits up in its list of
# rare features, which keeps every feature seen fewer than 255 times: for
# a target with tens of thousands (trace_parse), that search took most of
# the time.  At 16 the list is cut back to the rarest 100 much sooner.
FUZZ_FLAGS =	-max_len=4096 -entropic_feature_frequency_threshold=16

# Each target's whole output goes to build/fuzz/NAME.log, and what it
# finds (crash-*, leak-*, timeout-*) next to it; only the tail is shown.
fuzz:
	@fail=; for f in $(FUZZ_SRCS:t/fuzz/%.c=%); do \
		$(MAKE) --no-print-directory build/fuzz/$$f || exit 1; \
		mkdir -p build/fuzz/corpus/$$f; \
		seeds=t/fuzz/corpus/$$f; [ -d $$seeds ] || seeds=; \
		echo "== fuzz $$f ($(FUZZ_SECONDS)s)"; \
		rc=0; build/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) \
		    $(FUZZ_FLAGS) -print_final_stats=1 \
		    -artifact_prefix=build/fuzz/$$f- \
		    build/fuzz/corpus/$$f $$seeds >build/fuzz/$$f.log 2>&1 || \
		    rc=$$?; \
		tail -n 12 build/fuzz/$$f.log; \
		[ $$rc -eq 0 ] || { fail="$$fail $$f"; \
		    echo "fuzz $$f: exit $$rc, see build/fuzz/$$f.log"; }; \
	done; \
	[ -z "$$fail" ] || { echo "fuzz: failed:$$fail"; exit 1; }

install: plain
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(DATADIR) \
	    $(DESTDIR)$(DATADIR)/fence
	install -m 755 $(plain_BINS) $(DESTDIR)$(BINDIR)
	install -m 755 share/elect/elect-chaos $(DESTDIR)$(BINDIR)
	for m in $(MANS); do \
		s=$${m##*.}; install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s; \
	done
	for f in share/elect/*; do \
		case $$f in *.in|*/elect-chaos|*/fence) continue;; esac; \
		install -m 644 $$f $(DESTDIR)$(DATADIR); \
	done
	install -m 644 share/elect/fence/* $(DESTDIR)$(DATADIR)/fence
	for f in share/elect/*.in; do \
		sed 's|@BINDIR@|$(BINDIR)|g' $$f >$(DESTDIR)$(DATADIR)/$$(basename $$f .in); \
		chmod 644 $(DESTDIR)$(DATADIR)/$$(basename $$f .in); \
	done

# The package is built from a copy of the tracked files, so that
# dpkg-buildpackage writes its results into build/deb, not next to the
# source tree.
DEB_SRC =	build/deb/elect-$(VERSION)

deb:
	rm -rf build/deb
	mkdir -p $(DEB_SRC)
	git ls-files -z --cached --others --exclude-standard | \
	    tar -cf - --null -T - --ignore-failed-read | tar -xf - -C $(DEB_SRC)
	cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc -j$(NPROC) >../build.log 2>&1 || \
	    { tail -n 30 ../build.log; exit 1; }
	@ls build/deb/*.deb

# Installs the package into a fresh root (dpkg --root, the maintainer
# scripts run outside it) and checks what landed there; then lintian,
# which must find no error.
deb-check: deb
	sh t/tools/deb-check.sh build/deb

