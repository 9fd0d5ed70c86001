# flyc — one Makefile for the compiler, the runtime (with the simulator) and the tests.
#
# Sources are found by directory, so adding a file needs no edit here:
#   compiler/**/*.c  except compiler/main.c  -> build/libflyc.a
#   compiler/**/*.re (re2c), compiler/**/*.y (Bison) -> build/gen/, compiled into libflyc.a
#   compiler/main.c                          -> build/bin/flyc
#   runtime/**/*.c   except runtime/tools/   -> build/libflyrt.a and build/libflyrt.so
#   runtime/tools/NAME.c                     -> build/bin/NAME
#   tests/unit/NAME.c (CMocka)               -> build/tests/unit/NAME
# Other test tiers are scripts tests/TIER/run.sh, run by scripts/check.sh.
#
# BUILD=dir picks the output folder; SAN=1 builds with AddressSanitizer and
# UndefinedBehaviorSanitizer (make check does both).

BUILD   ?= build
SAN     ?= 0
LLVM_CONFIG ?= llvm-config-22
CC      ?= cc
ifeq ($(origin CC),default)
CC      := cc
endif
RE2C    ?= re2c
BISON   ?= bison
PREFIX  ?= /usr/local

DEPS_STAMP := build/.deps-ok
# The dependency step runs once per machine (and again when the script changes).
ifeq ($(filter install-deps clean help,$(MAKECMDGOALS)),)
ifneq ($(FLY_SKIP_DEPS),1)
_deps := $(shell sh scripts/install-deps.sh --stamp $(DEPS_STAMP) >&2 || echo FAIL)
ifeq ($(_deps),FAIL)
$(error dependencies are missing; see the message above)
endif
endif
endif

LLVM_CFLAGS := $(shell $(LLVM_CONFIG) --cflags 2>/dev/null | sed 's/-std=[^ ]*//; s/-O[0-9s]//g; s/-W[^ ]*//g; s/-fno-exceptions//; s/-funwind-tables//; s/-fno-rtti//')
LLVM_LIBS   := $(shell $(LLVM_CONFIG) --ldflags --libs 2>/dev/null) $(shell $(LLVM_CONFIG) --system-libs 2>/dev/null)
LLVM_BINDIR := $(shell $(LLVM_CONFIG) --bindir 2>/dev/null)
GIT_REV     := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
FLYC_VERSION := 0.1.0

WARN    := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
OPT     := -O2 -g
ifeq ($(SAN),1)
OPT     := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
endif
CPPFLAGS := -Icompiler -Iruntime/include -Iruntime -I$(BUILD)/gen -D_GNU_SOURCE \
            -DFLYC_VERSION='"$(FLYC_VERSION)"' \
            -DFLY_LLVM_BINDIR='"$(LLVM_BINDIR)"'
CFLAGS  := -std=c11 $(WARN) $(OPT) -fPIC -MMD -MP
ALL_CFLAGS = $(CPPFLAGS) $(LLVM_CFLAGS) $(CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS := $(OPT)
LDLIBS  := $(LLVM_LIBS) -lsqlite3 -lm -lpthread -ldl

rwildcard = $(foreach d,$(wildcard $(1:=/*)),$(call rwildcard,$d,$2) $(filter $(subst *,%,$2),$d))

C_SRCS   := $(filter-out compiler/main.c,$(call rwildcard,compiler,*.c))
RE_SRCS  := $(call rwildcard,compiler,*.re)
Y_SRCS   := $(call rwildcard,compiler,*.y)
RT_SRCS  := $(filter-out runtime/tools/%,$(call rwildcard,runtime,*.c))
TOOL_SRCS := $(wildcard runtime/tools/*.c)
UNIT_SRCS := $(wildcard tests/unit/*.c)

GEN_C    := $(patsubst compiler/%.re,$(BUILD)/gen/%.c,$(RE_SRCS)) \
            $(patsubst compiler/%.y,$(BUILD)/gen/%.c,$(Y_SRCS))
GEN_H    := $(patsubst compiler/%.y,$(BUILD)/gen/%.h,$(Y_SRCS))
C_OBJS   := $(patsubst %.c,$(BUILD)/obj/%.o,$(C_SRCS)) $(GEN_C:.c=.o)
RT_OBJS  := $(patsubst %.c,$(BUILD)/obj/%.o,$(RT_SRCS))
TOOLS    := $(patsubst runtime/tools/%.c,$(BUILD)/bin/%,$(TOOL_SRCS))
UNITS    := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))

FLYC     := $(BUILD)/bin/flyc
LIBFLYC  := $(BUILD)/libflyc.a
LIBFLYRT := $(BUILD)/libflyrt.a
SOFLYRT  := $(BUILD)/libflyrt.so

# The operator kernel library: stdlib/ops/NAME.fly compiled by the flyc built here, one
# code object per file and arch, $(BUILD)/lib/flyc/kernels/ARCH/NAME.hsaco, where the
# operators (runtime/flyops.c, docs/ops.md) find them; installed to PREFIX/lib/flyc/kernels.
# OPS_LIB lists NAME:ARCH for the arches each file's kernels target (flyc refuses an
# arch that no kernel of a file targets).
OPS_LIB    := gemm:gfx950 gemm:gfx1201 norm:gfx950 topk:gfx950 scaled_mm:gfx950 grouped_mm:gfx950 attention:gfx950
OPS_LIB    += attention_bwd:gfx950
OPS_LIB    += attention_bwd_gfx1201:gfx1201
OPS_LIB    += attention_gfx1201:gfx1201
# grouped_mm_p: the persistent grouped GEMMs, whose tile loop MachineLICM would fill with
# the tiles' hoisted constants (SGPR spills; stdlib/ops/grouped_mm_p.fly, docs/ops.md)
OPS_LIB    += grouped_mm_p:gfx950
OPS_FLAGS_grouped_mm_p := -mllvm -disable-machine-licm
KERNEL_DIR := $(BUILD)/lib/flyc/kernels
ops_name    = $(word 1,$(subst :, ,$(1)))
ops_arch    = $(word 2,$(subst :, ,$(1)))
KERNELS    := $(foreach e,$(OPS_LIB),$(KERNEL_DIR)/$(call ops_arch,$(e))/$(call ops_name,$(e)).hsaco)

.PHONY: all tests check check-gpu demo bench install fuzz clean install-deps help
.DELETE_ON_ERROR:
# Keep generated sources and objects of tools and tests (make would otherwise delete
# them as intermediates and rebuild them every time).
.SECONDARY:

all: $(FLYC) $(TOOLS) $(LIBFLYRT) $(SOFLYRT) $(KERNELS)

help:
	@echo "make            build flyc, libflyrt and tools into build/"
	@echo "make check      all tests that need no GPU (also under ASan+UBSan)"
	@echo "make check-gpu  tests that need a real AMD GPU (skips without one)"
	@echo "make demo       compile an example kernel for gfx950 and run it on the simulator"
	@echo "make bench      benchmarks (compile speed, simulator speed, operator bytes per row, modelled operator time)"
	@echo "make fuzz       run the libFuzzer harnesses (FUZZ_SECONDS=60 each)"
	@echo "make install PREFIX=/usr/local"

install-deps:
	sh scripts/install-deps.sh

$(BUILD)/gen/%.c: compiler/%.re
	@mkdir -p $(dir $@)
	$(RE2C) -W --no-generation-date --no-version -o $@ $<

$(BUILD)/gen/%.c $(BUILD)/gen/%.h: compiler/%.y
	@mkdir -p $(dir $@)
	$(BISON) -Wall -Werror --no-lines -o $(BUILD)/gen/$*.c --header=$(BUILD)/gen/$*.h $<

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c | $(GEN_H)
	$(CC) $(ALL_CFLAGS) -Wno-unused-function -Wno-sign-compare -c $< -o $@

$(BUILD)/obj/%.o: %.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIBFLYC): $(C_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBFLYRT): $(RT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SOFLYRT): $(RT_OBJS)
	$(CC) -shared $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The git revision lives in one generated header, rewritten only when it changes.
$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define FLYC_GIT_REV "$(GIT_REV)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/obj/compiler/main.o: $(BUILD)/gen/version.h
FORCE:

$(FLYC): $(BUILD)/obj/compiler/main.o $(LIBFLYC) $(LIBFLYRT)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bin/%: $(BUILD)/obj/runtime/tools/%.o $(LIBFLYC) $(LIBFLYRT)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(LIBFLYC) $(LIBFLYRT)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

# KERNEL_FROM=BUILD: take the code objects (and depfiles) of another build's library instead of
# compiling them: make check gives the sanitized build the plain one's (the same bytes, made by
# the same sources; the sanitized flyc takes ~4x the CPU; tests/codegen/ops-lib-san.test
# compiles one kernel per template of each file with it). $(FLYC) stays a prerequisite, so a
# code object is never older than this build's flyc (tests/gemm and targets.sh reuse it then).
ifeq ($(KERNEL_FROM),)
define ops_kernel
$(KERNEL_DIR)/$(2)/$(1).hsaco: stdlib/ops/$(1).fly $(FLYC)
	@mkdir -p $$(dir $$@)
	$(FLYC) $$< --offload-arch=$(2) $(OPS_FLAGS_$(1)) -MD -MF $$@.d -MT $$@ -o $$@
endef
else
define ops_kernel
$(KERNEL_DIR)/$(2)/$(1).hsaco: $(KERNEL_FROM)/lib/flyc/kernels/$(2)/$(1).hsaco $(FLYC)
	@mkdir -p $$(dir $$@)
	sed '1s|^[^:]*:|$$@:|' $$<.d >$$@.d
	cp $$< $$@
endef
endif
$(foreach e,$(OPS_LIB),$(eval $(call ops_kernel,$(call ops_name,$(e)),$(call ops_arch,$(e)))))
-include $(KERNELS:=.d)

tests: all $(UNITS)

# make check: the whole suite on the normal build, then again on the sanitized build (whose
# kernel library is a copy of the normal build's: KERNEL_FROM above).
# Both builds use every core (-j); scripts/check.sh then runs their tiers side by side.
NPROC := $(shell nproc 2>/dev/null || echo 1)
check:
	@$(MAKE) --no-print-directory -j$(NPROC) tests
	@$(MAKE) --no-print-directory -j$(NPROC) BUILD=build/san SAN=1 KERNEL_FROM=build tests
	@sh scripts/check.sh build build/san

check-gpu: all
	@sh scripts/check-gpu.sh $(BUILD)

demo: all
	@sh scripts/demo.sh $(BUILD)

bench: all
	@sh scripts/bench.sh $(BUILD)

FUZZ_SECONDS ?= 60
fuzz:
	@sh scripts/fuzz.sh $(FUZZ_SECONDS)

# make install: binaries, libraries (the C API and the operator kernel library), headers,
# the stdlib, the Python packages (PREFIX/share/flyc/python: put it on PYTHONPATH), the
# CMake package (PREFIX/lib/cmake/flyc) and pkg-config files (PREFIX/lib/pkgconfig).
empty :=
space := $(empty) $(empty)
PKG_SUBST = -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@FLYC_VERSION@|$(FLYC_VERSION)|g' \
            -e 's|@LLVM_LIBS_LIST@|$(subst $(space),;,$(strip $(LLVM_LIBS)))|g' \
            -e 's|@LLVM_LIBS@|$(strip $(LLVM_LIBS))|g'
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	           $(DESTDIR)$(PREFIX)/share/flyc/stdlib $(DESTDIR)$(PREFIX)/share/flyc/python/flyc \
	           $(DESTDIR)$(PREFIX)/share/doc/flyc $(DESTDIR)$(PREFIX)/lib/cmake/flyc \
	           $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(FLYC) $(TOOLS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIBFLYRT) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(SOFLYRT) $(DESTDIR)$(PREFIX)/lib/
	for k in $(KERNELS); do install -D -m 644 $$k $(DESTDIR)$(PREFIX)/lib/flyc/kernels/$${k#$(KERNEL_DIR)/} || exit 1; done
	install -m 644 runtime/include/*.h $(DESTDIR)$(PREFIX)/include/
	cp -R stdlib/. $(DESTDIR)$(PREFIX)/share/flyc/stdlib/
	install -m 644 python/flyrt.py $(DESTDIR)$(PREFIX)/share/flyc/python/
	install -m 644 python/flyc/*.py $(DESTDIR)$(PREFIX)/share/flyc/python/flyc/
	sed $(PKG_SUBST) cmake/flycConfig.cmake.in >$(DESTDIR)$(PREFIX)/lib/cmake/flyc/flycConfig.cmake
	sed $(PKG_SUBST) cmake/flycConfigVersion.cmake.in >$(DESTDIR)$(PREFIX)/lib/cmake/flyc/flycConfigVersion.cmake
	sed $(PKG_SUBST) cmake/flyrt.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/flyrt.pc
	sed $(PKG_SUBST) cmake/flyrt-static.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/flyrt-static.pc
	cp -R docs/. README.md $(DESTDIR)$(PREFIX)/share/doc/flyc/

clean:
	rm -rf build

-include $(call rwildcard,$(BUILD)/obj,*.d)
