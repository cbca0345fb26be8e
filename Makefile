# LocalMind — the two commands a fresh clone needs:
#   make run    install the app into .venv and open it
#   make test   install everything the tests need (system libraries included) and run the whole suite
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
PIP     = $(BIN)/python -m pip
STAMP   = $(VENV)/.installed

.PHONY: run test lint typecheck pytest venv test-deps screenshots bench-models bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install -q -e .
	touch $@

$(STAMP)-test: pyproject.toml | $(BIN)/python
	$(PIP) install -q -e '.[test,bench]'
	touch $@

venv: $(STAMP)

run: $(STAMP)
	@scripts/system-deps.sh run
	$(BIN)/localmind $(ARGS)

test-deps: $(STAMP)-test
	@scripts/system-deps.sh test

lint: test-deps
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: test-deps
	$(BIN)/mypy

pytest: test-deps
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest $(PYTEST_ARGS)

test: lint typecheck pytest

bench-models: test-deps
	$(BIN)/python bench/make_models.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache

# -- Packaging (packaging/README.md): the frozen app and the installers. Not part of `make test`. --------------------
#   make bundle          dist/localmind (PyInstaller one-dir; fails above BUNDLE_BUDGET_MB) and its self-test
#   make deb             dist/localmind_<version>_<arch>.deb (xz)
#   make deb-roundtrip   build the .deb (zstd, fast), install it, self-test from /opt, remove, check nothing is left
#   make deb-clean-system  the same round trip on a fresh minimal Debian (debootstrap): Depends is complete
#   make appdir          build/LocalMind.AppDir (appimagetool makes the AppImage on CI)
#   make installer-test  the packaging tests alone (NSIS compile, .desktop validation, icons, self-test)
PKG_VERSION     := $(shell sed -n 's/^version *= *"\([^"]*\)".*/\1/p' pyproject.toml | head -1)
PACKAGE_STAMP    = $(VENV)/.installed-package
BUNDLE_BUDGET_MB ?= 300
TINY_MODEL       = build/tiny-model
# A model to embed as the starter (loaded at first launch, no download); its size is added to the budget.
STARTER_MODEL   ?=

.PHONY: package-deps icons bundle bundle-selftest deb deb-roundtrip deb-clean-system appdir installer-test

$(PACKAGE_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install -q -e '.[package,test]'
	touch $@

package-deps: $(PACKAGE_STAMP)
	@packaging/linux/system-deps.sh

icons: $(PACKAGE_STAMP)
	$(BIN)/python resources/icons/make_icons.py build/icons

$(TINY_MODEL)/genai_config.json: tests/helpers/tiny_model.py | $(PACKAGE_STAMP)
	$(BIN)/python -m tests.helpers.tiny_model $(TINY_MODEL)

bundle: icons translations
	LOCALMIND_STARTER_MODEL=$(STARTER_MODEL) $(BIN)/pyinstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller packaging/localmind.spec
	@starter=0; [ -z "$(STARTER_MODEL)" ] || starter=$$(du -sm $(STARTER_MODEL) | cut -f1); \
	  budget=$$(( $(BUNDLE_BUDGET_MB) + starter )); size=$$(du -sm dist/localmind | cut -f1); \
	  echo "bundle: dist/localmind is $$size MB (budget $(BUNDLE_BUDGET_MB) MB + $$starter MB of starter model)"; \
	  [ $$size -le $$budget ] || { echo "bundle: over budget" >&2; exit 1; }
	$(MAKE) bundle-selftest

bundle-selftest: $(TINY_MODEL)/genai_config.json
	cd build && LOCALMIND_DATA_DIR=$(CURDIR)/build/selftest-data ../dist/localmind/localmind --self-test --model $(CURDIR)/$(TINY_MODEL)

deb: bundle package-deps
	packaging/linux/build-deb.sh dist/localmind build/icons dist

# The tiny model is embedded as the starter: the round trip proves a fresh install chats with no download.
deb-roundtrip: STARTER_MODEL = $(TINY_MODEL)
deb-roundtrip: $(TINY_MODEL)/genai_config.json bundle package-deps
	@start=$$(date +%s); \
	deb=$$(DEB_COMPRESSION=zstd packaging/linux/build-deb.sh dist/localmind build/icons build/deb) && \
	packaging/linux/deb-roundtrip.sh "$$deb" $(CURDIR)/$(TINY_MODEL) && \
	echo "deb-roundtrip: $$(( $$(date +%s) - start )) s including the .deb build"

appdir: bundle
	packaging/linux/build-appdir.sh dist/localmind build/icons build/LocalMind.AppDir
	cd build && LOCALMIND_DATA_DIR=$(CURDIR)/build/selftest-data LocalMind.AppDir/AppRun --self-test

installer-test: $(PACKAGE_STAMP) package-deps
	LOCALMIND_REQUIRE_PACKAGING_TOOLS=1 QT_QPA_PLATFORM=offscreen $(BIN)/pytest tests/packaging $(PYTEST_ARGS)

# The round trip on a fresh `debootstrap --variant=minbase` Debian: proves the .deb's Depends is complete.
deb-clean-system: bundle package-deps $(TINY_MODEL)/genai_config.json
	@command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
	deb=$$(DEB_COMPRESSION=zstd packaging/linux/build-deb.sh dist/localmind build/icons build/deb) && \
	packaging/linux/deb-clean-system.sh "$$deb" $(CURDIR)/$(TINY_MODEL)

# The README's screenshots: the real window under Xvfb, English and Chinese, light and dark.
screenshots: test-deps
	@scripts/system-deps.sh window
	$(BIN)/python scripts/screenshots.py

# Compile resources/translations/*.ts to the .qm files Qt loads (the app also does it on start in a checkout).
.PHONY: translations
translations: $(STAMP)
	$(BIN)/python -m localmind.ui.i18n
