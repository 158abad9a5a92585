"""Manim scenes, one module per lesson section, and the visual pieces they share."""
