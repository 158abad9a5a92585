"""reveal.js for the HTML decks, obtained at set-up time (``make setup`` runs ``python -m lecture.publish.revealjs``)
with npm from the package registry: one pinned version whose sha512 is checked, unpacked into the virtual
environment, never into this repository. Decks then copy or embed it, so they play with no network."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "6.0.1"
INTEGRITY = "sha512-9eacArNIgqO2HGWOK+93gJNn+gvdGDVbSq+i2u3Ja9kjiHps0XNLpgYTZTYjKRH91uXy3clGimeGiw4umHG/tg=="
THEMES = ("black", "white")  # what ``lecture.theme`` picks: black (the default) like the videos, or white
BASE_STYLE = "dist/reveal.css"
SCRIPTS = ("dist/reveal.js", "dist/plugin/notes.js")  # notes: the speaker view (S key), with the notes


def styles(theme: str = THEMES[0]) -> tuple[str, str]:
    """The style sheets a deck in ``theme`` takes: reveal.js' own, then the theme's."""
    return BASE_STYLE, f"dist/theme/{theme}.css"


STYLES = styles()  # the default theme's
FILES = (BASE_STYLE, *(styles(theme)[1] for theme in THEMES), *SCRIPTS, "LICENSE")
# Named by its themes too: a checkout with other themes sets up a folder of its own beside an older one.
FOLDER = Path(sys.prefix) / "share" / f"reveal.js-{VERSION}-{'-'.join(THEMES)}"


class RevealMissing(RuntimeError):
    """reveal.js is not unpacked yet: the message says which command sets it up."""


def installed() -> Path:
    """The folder holding reveal.js' files (laid out as in its package); raises RevealMissing."""
    if not all((FOLDER / name).is_file() for name in FILES):
        raise RevealMissing(f"reveal.js {VERSION} is not set up in {FOLDER}: run `make setup` "
                            f"(or `{Path(sys.executable).name} -m lecture.publish.revealjs`) once, with the network")
    return FOLDER


def integrity(tarball: Path) -> str:
    """The tarball's Subresource Integrity string, as the npm registry publishes it."""
    return "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode("ascii")


def fetch() -> Path:
    """Download reveal.js' package with ``npm pack``, check its sha512 and unpack ``FILES`` into ``FOLDER``
    (renamed into place whole); returns ``FOLDER``."""
    npm = shutil.which("npm")
    if npm is None:
        raise RevealMissing("npm not found: install the Debian package npm, then run `make setup` again")
    FOLDER.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=FOLDER.parent) as scratch:
        packed = subprocess.run([npm, "pack", f"reveal.js@{VERSION}", "--json", "--pack-destination", scratch],
                                capture_output=True, text=True, check=True)
        tarball = Path(scratch) / json.loads(packed.stdout)[0]["filename"]
        if integrity(tarball) != INTEGRITY:
            raise RevealMissing(f"{tarball.name}: its sha512 is not the pinned one; nothing was unpacked")
        unpacked = Path(scratch) / "reveal.js"
        with tarfile.open(tarball) as archive:
            for name in FILES:
                target = unpacked / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.extractfile(f"package/{name}").read())
        shutil.rmtree(FOLDER, ignore_errors=True)
        unpacked.rename(FOLDER)
    return FOLDER


def main() -> int:
    """Set reveal.js up unless it already is (a second run does no network work); returns the exit status."""
    try:
        installed()
        return 0
    except RevealMissing:
        pass
    try:
        print(f"reveal.js {VERSION}: set up with npm in {fetch()}")
        return 0
    except subprocess.CalledProcessError as error:
        print(f"reveal.js: `npm pack` failed: {error.stderr.strip()}", file=sys.stderr)
    except RevealMissing as error:
        print(f"reveal.js: {error}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
