"""Soundtracks synthesized from the numbers a scene shows: oscillators, envelopes, a low-pass
filter and chords in pure numpy (``synth``), placed on a timeline and mastered to a consistent
loudness (``mix``), with one mapping per section from scene cues to sounds (``mappings``)."""
