// SPDX-License-Identifier: MIT
/*
 * options.c - the plugin's options, -fplugin-arg-repstos-KEY[=VALUE],
 * into opt, and the help text GCC prints of them (--help=plugins).
 * Kernel mode parses its own (kernel_option).  A bad option is a GCC
 * error naming it, and the plugin then registers nothing.
 */
#include "plugin.h"

/* What GCC prints of the plugin under -v (and -v --help). */
struct plugin_info repstos_plugin_info = {
	.version = "1",
	.help = "turn memset-family calls into patchable rep stosb sites\n"
		"  -fplugin-arg-repstos-clear=F[,G...]   (ptr, len) clear helpers\n"
		"  -fplugin-arg-repstos-memset=F[,G...]  (ptr, c, len) helpers\n"
		"  -fplugin-arg-repstos-copy             memcpy, mempcpy, memmove too\n"
		"  -fplugin-arg-repstos-copy-fn=F[,G...] (dst, src, len) memcpy helpers\n"
		"  -fplugin-arg-repstos-move-fn=F[,G...] (dst, src, len) memmove helpers\n"
		"  -fplugin-arg-repstos-min-const=N|auto smallest constant size\n"
		"  -fplugin-arg-repstos-max-size=N       leave proven larger sizes\n"
		"  -fplugin-arg-repstos-verbose          one note per call\n"
		"  -fplugin-arg-repstos-kernel           Linux alternatives\n"
		"  -fplugin-arg-repstos-kernel-paths     path counters in its routines\n",
};

struct plugin_options opt = {
	false, false, MIN_CONST_AUTO, MAX_SIZE_NONE, vNULL, vNULL, vNULL, vNULL
};

/* A number for option key (min-const takes auto too: or_auto says so). */
static bool parse_number(const char *key, const char *value,
			 unsigned long long *out, bool or_auto)
{
	char *end;

	if (!value || !*value) {
		error("missing value for %<-fplugin-arg-repstos-%s%>", key);
		return false;
	}
	errno = 0;
	*out = strtoull(value, &end, 0);
	if (errno || *end || *value == '-') {
		if (or_auto)
			error("bad value %qs for %<-fplugin-arg-repstos-%s%>: "
			      "expected a non-negative integer or %<auto%>",
			      value, key);
		else
			error("bad value %qs for %<-fplugin-arg-repstos-%s%>: "
			      "expected a non-negative integer", value, key);
		return false;
	}
	return true;
}

static bool valid_identifier(const char *s, size_t n)
{
	if (!n || ISDIGIT(s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!ISIDNUM(s[i]))
			return false;
	return true;
}

/* "a,b,c" into names; every element must be a C identifier. */
static bool parse_names(const char *key, const char *value,
			vec<const char *> *names)
{
	const char *p = value;

	if (!value || !*value) {
		error("missing value for %<-fplugin-arg-repstos-%s%>", key);
		return false;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (!valid_identifier(p, n)) {
			error("bad value %qs for %<-fplugin-arg-repstos-%s%>: "
			      "expected comma-separated function names",
			      value, key);
			return false;
		}
		names->safe_push(xstrndup(p, n));
		if (!comma)
			return true;
		p = comma + 1;
	}
}

bool parse_args(const struct plugin_name_args *info)
{
	bool ok = true;

	for (int i = 0; i < info->argc; i++) {
		const char *key = info->argv[i].key;
		const char *value = info->argv[i].value;

		if (!strcmp(key, "verbose") || !strcmp(key, "copy")) {
			if (value) {
				error("%<-fplugin-arg-repstos-%s%> takes "
				      "no value (got %qs)", key, value);
				ok = false;
			}
			*(key[0] == 'v' ? &opt.verbose : &opt.copy) = true;
		} else if (!strcmp(key, "clear")) {
			ok &= parse_names(key, value, &opt.clear_names);
		} else if (!strcmp(key, "memset")) {
			ok &= parse_names(key, value, &opt.memset_names);
		} else if (!strcmp(key, "copy-fn")) {
			ok &= parse_names(key, value, &opt.copy_names);
		} else if (!strcmp(key, "move-fn")) {
			ok &= parse_names(key, value, &opt.move_names);
		} else if (!strcmp(key, "min-const")) {
			if (value && !strcmp(value, "auto"))
				opt.min_const = MIN_CONST_AUTO;
			else
				ok &= parse_number(key, value, &opt.min_const,
						   true);
		} else if (!strcmp(key, "max-size")) {
			ok &= parse_number(key, value, &opt.max_size, false);
		} else if (kernel_option(key, value, &ok)) {
			opt.copy |= kernel_mode;
		} else {
			error("unknown option %<-fplugin-arg-repstos-%s%> "
			      "(known: clear, memset, copy, copy-fn, move-fn, "
			      "min-const, max-size, verbose, kernel)", key);
			ok = false;
		}
	}
	return ok;
}
