# `make test` is the one command that runs every test; .ci/run runs it verbatim. It ends with
# the quick benchmark, which prints its figures (docs/performance.md) and asserts no time.
.PHONY: test pgo
test:
	python3 -m pip install --quiet --editable '.[test]'
	cargo fmt --all --check
	# The registries declare their modules inside macros, where cargo fmt does not look.
	rustfmt --edition 2021 --check $$(git ls-files '*.rs')
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	cargo test --package ccsim --quiet
	ruff check python tests bench
	ruff format --check python tests bench
	mypy python/ccsim
	NO_MKDOCS_2_WARNING=1 mkdocs build --strict --quiet
	python3 -m pytest --quiet
	python3 bench/run.py --quick --repeat 1

# The core built with profile-guided optimisation, trained on the benchmarks and installed
# (bench/pgo.py; needs `rustup component add llvm-tools`). Not part of `make test`.
pgo:
	python3 bench/pgo.py
