#!/usr/bin/env bash
# Install the Debian packages manim needs, only those missing. Idempotent and offline when all are present.
# Extra packages given as arguments are installed too, e.g. `tools/system-deps.sh espeak-ng` (the draft voice).
set -euo pipefail

packages=(
  libcairo2-dev libpango1.0-dev pkg-config                  # build pycairo and manimpango
  texlive-latex-base texlive-latex-extra texlive-latex-recommended texlive-fonts-recommended dvisvgm  # MathTex
  fonts-inter fonts-jetbrains-mono                          # typography
  fonts-dejavu-core                                         # the PDF deck's text (every character the locale shows)
  npm                                                       # make setup fetches reveal.js from the npm registry
  "$@"                                                      # asked for: espeak-ng for --narration tts
)

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
  echo "system-deps: missing Debian packages and no root or sudo; run as root:" >&2
  echo "  $install_command" >&2
  exit 2
fi
