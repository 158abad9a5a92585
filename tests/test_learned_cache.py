"""The learned section's cache (lesson.learned_cache): a second call loads what the first trained, a changed config
or code trains again, a damaged or planted file (a FIFO, a header declaring terabytes, NaN, a zip bomb) is trained
again and replaced, in little memory and without waiting, and a cache folder another user could change is not used
at all."""

import io
import os
import stat
import subprocess
import sys
import types
import zipfile

import numpy as np
import pytest

from attn_math import learned
from lesson import learned_cache
from lesson.config import load_config
from lesson.section_config import LearnedConfig
from media_checks import TINY, run_cli

SMALL = LearnedConfig(seed=3, steps=learned.MIN_STEPS, sequence_length=8, vocabulary=8, heads=2)
SMALL_SETS = tuple(f"learned.{name}={value}" for name, value in SMALL.model_dump().items())
SMALL_IN_SCRIPT = (f"from lesson import learned_cache; from lesson.section_config import LearnedConfig; "
                   f"SMALL = LearnedConfig(**{SMALL.model_dump()!r}); ")  # how a subprocess makes it
# A subprocess asking for SMALL's model, which prints its peak resident memory in MiB: VmHWM, its own (ru_maxrss
# starts, on Linux, from the RSS of the process that started it, here pytest's).
PEAK = (f"{SMALL_IN_SCRIPT}learned_cache.trained(SMALL); "
        "print(next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM:')) // 1024)")


@pytest.fixture
def trainings(tmp_path, monkeypatch):
    """A private cache home, and the list of the configs' seeds the cache trained (each call of learned.train)."""
    home = tmp_path / "cache"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    calls = []
    real = learned.train

    def counted(seed, *arguments, **keywords):
        calls.append(seed)
        return real(seed, *arguments, **keywords)

    monkeypatch.setattr(learned, "train", counted)
    return calls


def folder(tmp_path):
    return tmp_path / "cache" / "atencion" / "learned"


def same(first: learned.Training, second: learned.Training) -> bool:
    one, other = first.to_arrays(), second.to_arrays()
    return one.keys() == other.keys() and all(np.array_equal(one[key], other[key]) for key in one)


def test_a_second_call_loads_what_the_first_trained(trainings, tmp_path, capfd):
    first = learned_cache.trained(SMALL)
    assert trainings == [3]
    assert "training the learned section's model (about" in capfd.readouterr().err
    second = learned_cache.trained(SMALL)
    assert trainings == [3] and capfd.readouterr().err == ""
    assert same(first, second)
    files = sorted(os.listdir(folder(tmp_path)))
    assert files == [f"{learned_cache.cache_key(SMALL)}.npz", f"{learned_cache.cache_key(SMALL)}.npz.lock"]
    assert all(os.stat(folder(tmp_path) / name).st_mode & 0o777 == 0o600 for name in files)
    assert same(first, learned.train(3, learned.MIN_STEPS, 8, 8, 2))  # what was kept is what training gives


def test_a_changed_config_trains_again(trainings, tmp_path):
    learned_cache.trained(SMALL)
    learned_cache.trained(SMALL.model_copy(update={"seed": 4}))
    assert trainings == [3, 4] and len(list(folder(tmp_path).glob("*.npz"))) == 2


def test_changed_code_changes_the_key(tmp_path, monkeypatch):
    source = tmp_path / "module.py"
    source.write_text("x = 1\n")
    monkeypatch.setattr(learned_cache, "TRAINING_MODULES", (types.SimpleNamespace(__name__="m", __file__=source),))
    before = learned_cache.cache_key(SMALL)
    source.write_text("x = 2\n")
    assert learned_cache.cache_key(SMALL) != before


def npy_member(header: dict, data: bytes = b"") -> bytes:
    """An .npy file's bytes: ``header`` (descr, fortran_order, shape) as numpy writes it, then ``data``."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue() + data


def with_member(path, member: str, content: bytes = b"", stream=(), compression=zipfile.ZIP_STORED) -> None:
    """Rewrite the .npz ``path`` with ``member`` holding ``content`` and then every chunk of ``stream``."""
    kept = {name: data for name, data in np.load(path).items() if f"{name}.npy" != member}
    np.savez(path, **kept)
    with zipfile.ZipFile(path, "a", compression) as archive, archive.open(member, "w", force_zip64=True) as file:
        file.write(content)
        for chunk in stream:
            file.write(chunk)


def with_floats(path, change) -> None:
    """Rewrite the .npz ``path`` with ``change(array)`` in place of each float array."""
    arrays = dict(np.load(path).items())
    np.savez(path, **{name: change(array) if array.dtype.kind == "f" else array for name, array in arrays.items()})


def infinite_last(array: np.ndarray) -> np.ndarray:
    changed = array.copy()
    changed.flat[-1] = np.inf
    return changed


@pytest.mark.parametrize("damage", ["truncated", "garbage", "pickled", "link", "huge header", "nan", "infinity",
                                    "foreign member"])
def test_a_damaged_or_planted_file_is_trained_again_and_replaced(trainings, tmp_path, capfd, damage):
    first = learned_cache.trained(SMALL)
    path = folder(tmp_path) / f"{learned_cache.cache_key(SMALL)}.npz"
    capfd.readouterr()
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:path.stat().st_size // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a zip file at all")
    elif damage == "pickled":  # an object array needs pickle to load: refused
        np.savez(path.with_suffix(".tmp.npz"), **{**first.to_arrays(), "steps": np.array([None], dtype=object)})
        path.with_suffix(".tmp.npz").replace(path)
    elif damage == "link":  # a link to a valid file elsewhere is not followed
        elsewhere = tmp_path / "elsewhere.npz"
        path.replace(elsewhere)
        path.symlink_to(elsewhere)
    elif damage == "huge header":  # 2^40 float64 declared (8 TiB), the real losses after it
        with_member(path, "losses.npy", npy_member({"descr": "<f8", "fortran_order": False, "shape": (2**40,)},
                                                   first.losses.tobytes()))
    elif damage == "nan":  # every float NaN, in the right shapes
        with_floats(path, lambda array: np.full_like(array, np.nan))
    elif damage == "infinity":
        with_floats(path, infinite_last)
    else:  # a member no training writes
        with_member(path, "extra.npy", npy_member({"descr": "<f8", "fortran_order": False, "shape": (1,)}, bytes(8)))
    again = learned_cache.trained(SMALL)
    assert trainings == [3, 3] and same(first, again)
    note = capfd.readouterr().err
    assert note.startswith("training the learned section's model again: its cached file is unreadable (")
    assert note.count("\n") == 1
    assert path.is_file() and not path.is_symlink()
    learned_cache.trained(SMALL)
    assert trainings == [3, 3]  # the replaced file loads
    assert sorted(os.listdir(folder(tmp_path))) == [path.name, f"{path.name}.lock"]  # no temporary file left


def test_a_fifo_in_place_of_the_model_is_a_miss_not_a_wait(tmp_path):
    """Through the CLI: a FIFO at the model's name is not opened to wait for a writer; the render trains, replaces
    it with the model, and the next render loads that."""
    home = tmp_path / "cache"
    (home / "atencion" / "learned").mkdir(mode=0o700, parents=True)
    (home / "atencion").chmod(0o700)
    key = learned_cache.cache_key(load_config(None, SMALL_SETS).learned)
    path = home / "atencion" / "learned" / f"{key}.npz"
    os.mkfifo(path, 0o600)
    sets = [argument for pair in SMALL_SETS for argument in ("--set", pair)]
    render = ("render", "learned", *sets, "--steps", "1", *TINY, "-o", str(tmp_path / "out"))
    first = run_cli(*render, timeout=120, env={"XDG_CACHE_HOME": str(home)})
    assert first.returncode == 0, first.stderr[-2000:]
    assert ("training the learned section's model again: its cached file is unreadable (not a regular file"
            in first.stderr)
    assert stat.S_ISREG(path.lstat().st_mode)
    second = run_cli(*render, "--force", timeout=120, env={"XDG_CACHE_HOME": str(home)})
    assert second.returncode == 0 and "training" not in second.stderr, second.stderr[-2000:]


def test_a_zip_bomb_is_refused_in_little_memory(trainings, tmp_path):
    """A member that inflates to 256 MiB (its declared size) is refused before it is read: the process that refuses
    it and trains again peaks no higher than one that trains on an empty cache, give or take 64 MiB."""
    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    clean = subprocess.run([sys.executable, "-c", PEAK], env=environment, capture_output=True, text=True, timeout=120)
    path = folder(tmp_path) / f"{learned_cache.cache_key(SMALL)}.npz"
    zeros = bytes(2**20)
    with_member(path, "losses.npy", npy_member({"descr": "<f8", "fortran_order": False, "shape": (2**25,)}),
                stream=(zeros for _ in range(256)), compression=zipfile.ZIP_DEFLATED)
    assert path.stat().st_size < 2**22  # a file of a few MiB ...
    with zipfile.ZipFile(path) as archive:
        assert archive.getinfo("losses.npy").file_size > 2**28  # ... that inflates to 256 MiB
    bombed = subprocess.run([sys.executable, "-c", PEAK], env=environment, capture_output=True, text=True, timeout=120)
    assert clean.returncode == bombed.returncode == 0, bombed.stderr
    assert "its cached file is unreadable (losses.npy declares" in bombed.stderr
    assert int(bombed.stdout) < int(clean.stdout) + 64, (clean.stdout, bombed.stdout)
    learned_cache.trained(SMALL)
    assert trainings == []  # the bomb was replaced by the model, which loads


def test_a_cache_others_could_change_trains_every_time_and_writes_nothing(trainings, tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # writable by everyone, not sticky
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    learned_cache.trained(SMALL)
    learned_cache.trained(SMALL)
    assert trainings == [3, 3] and os.listdir(shared) == []


def test_two_renders_at_once_train_once(tmp_path):
    """Two processes asking for the same model together: one trains, the other waits on the lock and loads it."""
    home = tmp_path / "cache"
    home.mkdir(mode=0o700)
    script = f"{SMALL_IN_SCRIPT}print(learned_cache.trained(SMALL).losses[-1].hex())"
    environment = {**os.environ, "XDG_CACHE_HOME": str(home)}
    runs = [subprocess.Popen([sys.executable, "-c", script], env=environment, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert sum("training the learned section's model" in error for _, error in outputs) == 1
    assert outputs[0][0] == outputs[1][0]  # the same model, to the last bit of its last loss
