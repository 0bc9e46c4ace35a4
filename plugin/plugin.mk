# plugin/repstos.so - the GCC plugin (GNU C++-compatible C, built as C++
# as GCC requires of plugins, and kernel mode's plain C, built as C).  Included by the top Makefile.  The usual
# CPPFLAGS, CXXFLAGS and LDFLAGS apply too (empty unless given: a
# distribution's hardening flags, debian/rules).

PLUGIN_GCC_DIR	:= $(shell $(CC) -print-file-name=plugin)
PLUGIN_CXXFLAGS	:= -shared -fPIC -fno-rtti -fno-exceptions -fvisibility=hidden -O2 -g \
		   -Wall -Wno-unused-parameter -Wno-missing-field-initializers \
		   -I$(PLUGIN_GCC_DIR)/include -Iinclude -Iruntime -Iplugin
PLUGIN_SRCS	:= plugin/options.c plugin/classify.c plugin/readback.c \
		   plugin/rewrite.c plugin/passes.c plugin/kernel.c
# Kernel mode's plain C, which the LLVM pass compiles in too (kmode.h):
# C11, no GCC header, built as C.
KMODE_SRCS	:= plugin/ktree.c plugin/ktext.c
KMODE_CFLAGS	:= -std=gnu11 -fPIC -fvisibility=hidden -O2 -g -Wall -Wextra \
		   -Wno-unused-parameter -Iinclude -Iplugin
PLUGIN_SO	:= plugin/repstos.so
PLUGIN_OBJ_DIR	:= $(B)/plugin
PLUGIN_OBJS	:= $(PLUGIN_SRCS:plugin/%.c=$(PLUGIN_OBJ_DIR)/%.o) \
		   $(KMODE_SRCS:plugin/%.c=$(PLUGIN_OBJ_DIR)/kmode/%.o)

ALL		+= $(PLUGIN_SO)
CLEAN_FILES	+= $(PLUGIN_SO)
DEPS		+= $(PLUGIN_OBJS:.o=.d)

$(PLUGIN_OBJ_DIR)/%.o: plugin/%.c plugin/plugin.mk
	@mkdir -p $(@D)
	$(CXX) $(PLUGIN_CXXFLAGS) $(CPPFLAGS) $(CXXFLAGS) $(DEPFLAGS) -x c++ -c -o $@ $<

$(PLUGIN_OBJ_DIR)/kmode/%.o: plugin/%.c plugin/plugin.mk
	@mkdir -p $(@D)
	$(CC) $(KMODE_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(PLUGIN_SO): $(PLUGIN_OBJS)
	$(CXX) -shared $(LDFLAGS) -o $@ $^
