"""The neural voice that narrates the lecture: Kokoro-82M (int8 ONNX, offline) through kokoro-onnx, without Manim.

``install`` lays the model and the voices into the virtual environment at set-up time (pinned, hashes checked);
``voice`` turns one sentence into mono samples at the soundtrack's rate, each sentence synthesised once per user
(``cache``: the user's private cache folder)."""
