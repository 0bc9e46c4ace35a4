# plugin/librepstos-llvm.so - the LLVM pass plugin (clang -fpass-plugin=),
# plain C++ against LLVM 16's headers, built with clang-16 where
# llvm-16-dev and clang-16 are installed (make deps installs them).
# Without them the build says so in one line and goes on, and
# tests/plugin/llvm.sh skips.  Included by the top Makefile.

LLVM_CONFIG	?= llvm-config-16
LLVM_CXX	?= clang++-16
LLVM_CC		?= clang-16
LLVM_PLUGIN	:= plugin/librepstos-llvm.so
LLVM_SRCS	:= plugin/llvm/options.cc plugin/llvm/classify.cc \
		   plugin/llvm/rewrite.cc plugin/llvm/kernel.cc plugin/llvm/pass.cc
LLVM_OBJ_DIR	:= $(B)/plugin/llvm
# kernel mode's plain C (plugin/kmode.h), the GCC plugin's too
# (KMODE_SRCS, plugin.mk), built as C by clang-16
LLVM_OBJS	:= $(LLVM_SRCS:plugin/llvm/%.cc=$(LLVM_OBJ_DIR)/%.o) \
		   $(KMODE_SRCS:plugin/%.c=$(LLVM_OBJ_DIR)/kmode/%.o)

LLVM_HAVE	:= $(shell command -v $(LLVM_CONFIG) >/dev/null 2>&1 && \
		     command -v $(LLVM_CXX) >/dev/null 2>&1 && \
		     command -v $(LLVM_CC) >/dev/null 2>&1 && echo yes)

DEB_PKGS	+= clang-16 llvm-16-dev lld-16
CLEAN_FILES	+= $(LLVM_PLUGIN)

ifeq ($(LLVM_HAVE),yes)
LLVM_CXXFLAGS	:= $(shell $(LLVM_CONFIG) --cxxflags) -fPIC -O2 -g -Wall \
		   -Wno-unused-parameter -fvisibility=hidden -Iinclude
ALL		+= $(LLVM_PLUGIN)
DEPS		+= $(LLVM_OBJS:.o=.d)

$(LLVM_OBJ_DIR)/%.o: plugin/llvm/%.cc plugin/llvm/llvm.mk
	@mkdir -p $(@D)
	$(LLVM_CXX) $(LLVM_CXXFLAGS) $(DEPFLAGS) -c -o $@ $<

$(LLVM_OBJ_DIR)/kmode/%.o: plugin/%.c plugin/llvm/llvm.mk
	@mkdir -p $(@D)
	$(LLVM_CC) $(KMODE_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# Its LLVM symbols are clang's (libLLVM-16.so.1), found when clang
# loads it: nothing of LLVM is linked in.  Linked beside and renamed
# over the old one, so that a compile loading it meanwhile (a build
# running on this tree) keeps a whole file.
$(LLVM_PLUGIN): $(LLVM_OBJS)
	$(LLVM_CXX) -shared -o $@.tmp $^
	mv -f $@.tmp $@
else
.PHONY: llvm-plugin-absent
ALL		+= llvm-plugin-absent
llvm-plugin-absent:
	@echo "plugin/llvm: $(LLVM_CONFIG) or $(LLVM_CXX) not found (Debian: clang-16 llvm-16-dev): $(LLVM_PLUGIN) not built"
endif
