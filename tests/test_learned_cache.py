"""The learned section's cache (lesson.learned_cache): a second call loads what the first trained, a changed config
or code trains again, a damaged or planted file is trained again and replaced, and a cache folder another user
could change is not used at all."""

import os
import subprocess
import sys
import types

import numpy as np
import pytest

from attn_math import learned
from lesson import learned_cache
from lesson.section_config import LearnedConfig

SMALL = LearnedConfig(seed=3, steps=learned.MIN_STEPS, sequence_length=8, vocabulary=8, heads=2)


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


@pytest.mark.parametrize("damage", ["truncated", "garbage", "pickled", "link"])
def test_a_damaged_or_planted_file_is_trained_again_and_replaced(trainings, tmp_path, damage):
    first = learned_cache.trained(SMALL)
    path = folder(tmp_path) / f"{learned_cache.cache_key(SMALL)}.npz"
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:path.stat().st_size // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a zip file at all")
    elif damage == "pickled":  # an object array needs pickle to load: refused
        np.savez(path.with_suffix(".tmp.npz"), **{**first.to_arrays(), "steps": np.array([None], dtype=object)})
        path.with_suffix(".tmp.npz").replace(path)
    else:  # a link to a valid file elsewhere is not followed
        elsewhere = tmp_path / "elsewhere.npz"
        path.replace(elsewhere)
        path.symlink_to(elsewhere)
    again = learned_cache.trained(SMALL)
    assert trainings == [3, 3] and same(first, again)
    assert path.is_file() and not path.is_symlink()
    learned_cache.trained(SMALL)
    assert trainings == [3, 3]  # the replaced file loads
    assert sorted(os.listdir(folder(tmp_path))) == [path.name, f"{path.name}.lock"]  # no temporary file left


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
    script = ("from lesson import learned_cache; from tests.test_learned_cache import SMALL; "
              "print(learned_cache.trained(SMALL).losses[-1].hex())")
    environment = {**os.environ, "XDG_CACHE_HOME": str(home)}
    runs = [subprocess.Popen([sys.executable, "-c", script], env=environment, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert sum("training the learned section's model" in error for _, error in outputs) == 1
    assert outputs[0][0] == outputs[1][0]  # the same model, to the last bit of its last loss
