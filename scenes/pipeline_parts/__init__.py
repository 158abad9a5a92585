"""The pipeline section's scene in parts, one mixin class a module, composed by ``scenes.pipeline.PipelineScene``.

``common`` (runs, pacing, layout boxes, lines with their notes) and ``matrices`` (n x n matrices built, revealed
row by row and replaced) serve every part; ``lab_canvas`` is the lab's canvas beside its side panel; then, in the
order the section plays them: ``lab_vectors`` (steps 1-3), ``lab_matrices`` (steps 4-6), ``lab_output`` (step 7),
``presets`` (the lab's weights against the designed ones, and exercise 1 on both), ``temperature`` (the guide's
step 8 and exercise 2), ``causal`` (the mask and the entropy, exercises 3-4) and ``dimensions`` (exercises 5-6).
"""
