"""What both the scenes and the orchestration need, without Manim, PyAV or espeak: the config schema with its
hints and dump, the locales, the sections, steps and step ranges, sentence checks and glyph coverage, number
formatting, the question cards' texts, the text side of narration and the user's private cache folder."""
