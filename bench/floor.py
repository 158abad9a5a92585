"""manim's own cost for N frames: a static frame of the same size, rendered by ``wait``.

Run as ``python -m bench.floor FRAMES WIDTH HEIGHT FPS OUT_DIR``; prints the wall time in seconds.
"""

import sys
import time

from manim import Scene, Text, tempconfig


class StaticFrame(Scene):
    def __init__(self, frames: int, **kwargs):
        self.frames = frames
        super().__init__(**kwargs)

    def construct(self):
        self.add(Text("Clase 04"))
        self.wait(self.frames / self.renderer.camera.frame_rate)


def main(frames: int, width: int, height: int, fps: int, out_dir: str) -> None:
    with tempconfig({"pixel_width": width, "pixel_height": height, "frame_rate": fps, "media_dir": out_dir,
                     "verbosity": "ERROR", "progress_bar": "none", "disable_caching": True}):
        started = time.perf_counter()
        StaticFrame(frames).render()
        print(f"{time.perf_counter() - started:.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
