#!/usr/bin/env bash
# Install the Debian packages the project needs, only those missing. Idempotent and offline when all are present.
# Usage: tools/system-deps.sh [--python PYTHON] [EXTRA_PACKAGE...]
#   --python: the Python that makes the venv (its headers are needed to build pycairo; default python3).
#   extra packages are installed too: `make test` adds the tests' programs, `make setup NARRATION=tts` espeak-ng.
set -euo pipefail

python=python3
if [ "${1:-}" = --python ]; then python="$2"; shift 2; fi

packages=(
  gcc libc6-dev                                             # pycairo ships no Linux wheel: pip builds it with a C compiler
  libcairo2-dev libpango1.0-dev pkg-config                  # build pycairo and manimpango
  fontconfig                                                # fc-list: which characters an installed font draws
  texlive-latex-base texlive-latex-extra texlive-latex-recommended texlive-fonts-recommended dvisvgm  # MathTex
  fonts-inter fonts-jetbrains-mono                          # typography
  fonts-dejavu-core                                         # the PDF deck's text (every character the locale shows)
  npm                                                       # make setup fetches reveal.js from the npm registry
)

# Python's headers, for the C extensions pip builds: Debian's pythonX.Y-dev unless the venv's Python has them
# (a Python built from source, pyenv's for instance, carries its own).
if headers="$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)"; then
  if [ ! -f "$headers/Python.h" ]; then
    packages+=("$("$python" -c 'import sys; print("python%d.%d-dev" % sys.version_info[:2])')")
  fi
else
  echo "system-deps: '$python' does not run; install Python 3.11 or newer (Debian: python3 python3-venv)" >&2
  exit 2
fi
packages+=("$@")

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "system-deps: not a Debian system; install the equivalents of: ${packages[*]}" >&2
  exit 0
fi

missing=()
for package in "${packages[@]}"; do
  # npm may come with another nodejs (NodeSource's bundles it, and conflicts with Debian's npm): the command is enough
  [ "$package" = npm ] && command -v npm >/dev/null 2>&1 && continue
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

install_command="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
echo "system-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  bash -c "$install_command"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo bash -c "$install_command"
else
  echo "system-deps: missing Debian packages ${missing[*]} and no root or sudo; run as root: $install_command" >&2
  exit 2
fi
