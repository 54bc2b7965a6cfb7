# tcplab: `make run` runs a representative experiment, `make test` runs every test.
# Set-up is idempotent: stamp files in .venv/ skip what is already done.

PYTHON  ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
DEPS    := $(VENV)/.stamp-deps
BUILD   := $(VENV)/.stamp-build
SCENARIO ?= scenarios/examples/p2p-bulk.toml
OUT     ?= out

# Everything the extension module is built from.
RUST_SRC := Cargo.toml Cargo.lock pyproject.toml $(shell find crates -name '*.rs' -o -name 'Cargo.toml' 2>/dev/null)

.PHONY: all setup run test test-rust test-python tshark live-tools clean bench reproduce fuzz
all: test

setup: $(BUILD)

$(VPY):
	$(PYTHON) -m venv $(VENV)

$(DEPS): requirements-dev.txt | $(VPY)
	$(VPY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

# `maturin develop` installs tcplab into the venv in editable mode (Python edits need no
# rebuild) with the release-built extension, and creates .venv/bin/tcplab.
$(BUILD): $(DEPS) $(RUST_SRC)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH="$(abspath $(VENV))/bin:$$PATH" \
		$(VENV)/bin/maturin develop --release >$(VENV)/maturin.log 2>&1 \
		|| { cat $(VENV)/maturin.log; exit 1; }
	@test -x $(VENV)/bin/tcplab
	cargo build --release -p tcplab-live --quiet
	install -m 755 target/release/tcplab-live $(VENV)/bin/tcplab-live
	@touch $@

# The main job: one example run with its plots, then the AFC, rate-based, RSFC, DARCA and BSF reproductions in
# quick mode (reports with the papers' numbers beside ours, and beside them ours under the ns2 profile: a few
# seconds more per paper; BSF's quick grid twice takes about 150 s of CPU, a minute and a quarter on 2 idle
# cores; RSFC's ns2 column is ns-2's Agent/TCP/Linux with timestamps on). `make reproduce` runs the full ones.
run: $(BUILD)
	$(VENV)/bin/tcplab run $(SCENARIO) --out $(OUT)/$(basename $(notdir $(SCENARIO)))
	$(VENV)/bin/tcplab reproduce afc --quick --beside ns2 --out $(OUT)/reproduce-afc-quick > /dev/null
	$(VENV)/bin/tcplab reproduce rate-based --quick --beside ns2 --out $(OUT)/reproduce-rate-based-quick > /dev/null
	$(VENV)/bin/tcplab reproduce rsfc --quick --beside ns2 --out $(OUT)/reproduce-rsfc-quick > /dev/null
	$(VENV)/bin/tcplab reproduce darca --quick --beside ns2 --out $(OUT)/reproduce-darca-quick > /dev/null
	$(VENV)/bin/tcplab reproduce bsf --quick --beside ns2 --out $(OUT)/reproduce-bsf-quick > /dev/null
	@echo "reports: $(OUT)/reproduce-afc-quick/report.md, $(OUT)/reproduce-rate-based-quick/report.md, $(OUT)/reproduce-rsfc-quick/report.md, $(OUT)/reproduce-darca-quick/report.md, $(OUT)/reproduce-bsf-quick/report.md"

# Full reproductions of AFC, the rate-based thesis, RSFC, DARCA (minutes; both cores) and BSF (the paper's
# 200,000 s per point: about 20 minutes on 2 idle cores).
reproduce: $(BUILD)
	$(VENV)/bin/tcplab reproduce afc --out $(OUT)/reproduce-afc
	$(VENV)/bin/tcplab reproduce rate-based --out $(OUT)/reproduce-rate-based
	$(VENV)/bin/tcplab reproduce rsfc --out $(OUT)/reproduce-rsfc
	$(VENV)/bin/tcplab reproduce darca --out $(OUT)/reproduce-darca
	$(VENV)/bin/tcplab reproduce bsf --out $(OUT)/reproduce-bsf

# tshark is only needed by the pcap test, which skips without it.
tshark:
	@command -v tshark >/dev/null 2>&1 || { \
		if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
			echo "installing tshark (for the pcap test)..."; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null 2>&1 \
			|| { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null 2>&1; } \
			|| echo "note: could not install tshark; the pcap test will skip"; \
		else echo "note: tshark not available; the pcap test will skip"; fi; }

# iperf3 is the real client of the live-mode tests (tests/test_live_command.py; `tcplab
# emulate ... -- iperf3 -c $$TCPLAB_SERVER`); installed like tshark, skipped with a reason
# where apt or root is missing.
live-tools:
	@command -v iperf3 >/dev/null 2>&1 || { \
		if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
			echo "installing iperf3 (for the live-mode tests)..."; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iperf3 >/dev/null 2>&1 \
			|| { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iperf3 >/dev/null 2>&1; } \
			|| echo "note: could not install iperf3; the iperf3 test will skip"; \
		else echo "note: iperf3 not available; the iperf3 test will skip"; fi; }

test-rust:
	cargo test --workspace --exclude tcplab-py --release

test-python: $(BUILD) tshark live-tools
	$(VENV)/bin/pytest -q

test: test-rust test-python

clean:
	rm -rf $(VENV) $(OUT) python/tcplab/*.so

# Cross-validation and speed against ns-3 3.44 (builds ns-3 from PyPI on first use).
bench: $(BUILD)
	$(VPY) bench/ns3-compare/compare.py --runs 3

# The fuzzer (fuzz/README.md): the Rust property targets with many cases, then valid and
# malformed scenarios through the API and the CLI for FUZZ_SECONDS (both modes, interleaved).
# Failures and a summary land in FUZZ_OUT; the seed is printed, rerun with FUZZ_SEED=N.
# `make test` runs a fixed small batch of both (cargo test, tests/test_fuzz.py).
FUZZ_SECONDS ?= 600
FUZZ_OUT     ?= $(OUT)/fuzz
FUZZ_PROPTEST_CASES ?= 10000
ifndef FUZZ_SEED
FUZZ_SEED := $(shell date +%s)
endif

# Both halves always run; the target fails if either found something.
fuzz: $(BUILD)
	@echo "fuzz seed $(FUZZ_SEED) (rerun with FUZZ_SEED=$(FUZZ_SEED))"
	@rc=0; \
	PROPTEST_CASES=$(FUZZ_PROPTEST_CASES) PROPTEST_RNG_SEED=$(FUZZ_SEED) \
		cargo test -p tcplab-sim --release --test fuzz_parsers || rc=1; \
	$(VPY) fuzz/fuzz.py --mode both --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED) --out $(FUZZ_OUT) || rc=1; \
	exit $$rc
