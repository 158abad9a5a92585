"""Audio files made in a test: tones of known frequency and length, in any format a lecturer records in."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np

CODECS = {".wav": "pcm_s16le", ".flac": "flac", ".mp3": "libmp3lame", ".m4a": "aac", ".ogg": "libopus"}


def tone(frequency: float, seconds: float, rate: int, channels: int = 1, level: float = 0.3) -> np.ndarray:
    """A sine of ``frequency`` Hz, (n, channels)."""
    wave = level * np.sin(2 * np.pi * frequency * np.arange(int(round(seconds * rate))) / rate)
    return np.repeat(wave[:, None], channels, axis=1)


def write_audio(path: Path, samples: np.ndarray, rate: int) -> Path:
    """``samples`` (n, channels) written with PyAV in the format of ``path``'s suffix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    layout = "mono" if samples.shape[1] == 1 else "stereo"
    with av.open(str(path), "w") as container:
        stream = container.add_stream(CODECS[path.suffix], rate=rate, layout=layout)
        planar = np.ascontiguousarray(samples.T.astype(np.float32))
        size = stream.codec_context.frame_size or 1024
        resampler = av.AudioResampler(format=stream.codec_context.format.name, layout=layout, rate=rate)
        for start in range(0, planar.shape[1], size):
            frame = av.AudioFrame.from_ndarray(planar[:, start:start + size], format="fltp", layout=layout)
            frame.sample_rate, frame.time_base, frame.pts = rate, Fraction(1, rate), start
            for converted in resampler.resample(frame):
                container.mux(stream.encode(converted))
        for converted in resampler.resample(None):
            container.mux(stream.encode(converted))
        container.mux(stream.encode(None))
    return path
