"""Rendering: the request, its jobs and workers, the manifest and the output folder, the finished
media (PyAV), captions and narration."""
