# plugin/repstos.so - the GCC plugin (GNU C++-compatible C, built as C++
# as GCC requires of plugins).  Included by the top Makefile.

PLUGIN_GCC_DIR	:= $(shell $(CC) -print-file-name=plugin)
PLUGIN_CXXFLAGS	:= -shared -fPIC -fno-rtti -fno-exceptions -fvisibility=hidden -O2 -g \
		   -Wall -Wno-unused-parameter -Wno-missing-field-initializers \
		   -I$(PLUGIN_GCC_DIR)/include -Iruntime -Iplugin
PLUGIN_SRCS	:= plugin/repstos.c
PLUGIN_HDRS	:= plugin/gcc-compat.h runtime/repstos_site.h
PLUGIN_SO	:= plugin/repstos.so
PLUGIN_OBJ_DIR	:= $(B)/plugin

ALL		+= $(PLUGIN_SO)
CLEAN_FILES	+= $(PLUGIN_SO)

$(PLUGIN_OBJ_DIR)/%.o: plugin/%.c $(PLUGIN_HDRS) plugin/plugin.mk
	@mkdir -p $(@D)
	$(CXX) $(PLUGIN_CXXFLAGS) -x c++ -c -o $@ $<

$(PLUGIN_SO): $(PLUGIN_SRCS:plugin/%.c=$(PLUGIN_OBJ_DIR)/%.o)
	$(CXX) -shared -o $@ $^
