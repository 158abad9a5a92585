"""The quick section: a small section declared outside the project's sections (lesson.sections.register), its
math, scene, record and two locale tables in this folder, for tests whose subject is not a section's content.

It renders in a few seconds of CPU at 256x144 (the matrix section takes 20 s): three steps with captions, a
formula (MathTex: LaTeX's SVGs in the cache), a Text, a sound of its own at a cue, and a config table of its own:
``count`` changes what it shows, ``draw_seconds`` makes each drawing (and so the render) longer.
``launch.py`` registers it and runs the CLI (media_checks.run_quick_cli); tests/test_registry.py runs a copy of
this folder from a temporary folder, to prove that a section declared outside the project renders.
"""
