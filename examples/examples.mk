# examples/: what a new user runs first.
demo: build-deps
	@$(MAKE) --no-print-directory build-all
	@examples/demo.sh
