"""Captions and chapters: one caption and one chapter per step, in the lecture's language, as SRT and WebVTT
beside each section's video and the lecture, and as the subtitle track and chapters inside them; a silent video,
whose captions are burned into its picture, has chapters only (``carried``).

A step's caption and chapter cover the same span as its slide (see ``step_spans``), so captions, chapters,
slides and the storyboard all agree on where a step begins and ends. A narrated step has one caption per
spoken sentence instead, timed to that sentence in the recording, and a long sentence is cut into blocks of at
most two lines (``caption_blocks``); where the voice pauses inside a sentence for a play, the words after the
pause come as they are said (``spoken_cues``). While a card is up, the caption is the card's text, or in a
narrated section the card's words as the voice says them. Every caption
writes the notation as the screen does (``subtitle_text``): dₖ, q₁, √dₖ, never d_k.

A caption can hold a user's words (a sentence's tokens), so each file escapes what its format would read as
markup or as timing: WebVTT with its own character references, SubRip, which has none, with a word joiner.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import srt

from lecture.render.media import VTT_ESCAPES, TextTracks
from lesson.locale import DEFAULT_LANGUAGE, load_locale
from lesson.narration_text import SUBSCRIPT_GLYPHS, WRITTEN_SUBSCRIPT, replaced_words, said_index
from lesson.records import CardRecord, StepRecord

LINE_LENGTH = 42  # characters per caption line: the usual limit for subtitles read at a glance
BLOCK_LINES = 2  # lines per caption block of a narrated step: more cover the picture and outrun the voice
RUN_PAUSE = 1.0  # seconds of the voice's silence inside a sentence (waiting for a play) that start a new block
EARLY_MOST = 2.0  # seconds a phrase said with a play may show ahead of it in its block; later, it starts a block
CLAUSE_END = re.compile(r"(?<=[,;:])\s+")  # where a sentence is best cut: after a comma, a semicolon, a colon
# WebVTT's escapes (W3C WebVTT, "cue text"): "&" and "<" would start a character reference or a tag, and an
# escaped ">" means no "-->" in a cue's text, where a reader takes it for the next cue's timing and ends the cue.
# SubRip has no escapes, and its readers take <...> for a formatting tag (ffmpeg drops one it does not know:
# "<script>" vanished) or "&lt;" for a character. A WORD JOINER (U+2060, no width, no line break) after "&"
# and "<" and before ">" shows the text as written while no tag, reference or "-->" can form; the config
# refuses invisible characters in a sentence, so removing every U+2060 gives the caption back.
WORD_JOINER = "\u2060"
SRT_ESCAPES = str.maketrans({"&": "&" + WORD_JOINER, "<": "<" + WORD_JOINER, ">": WORD_JOINER + ">"})


CARD_LEAD = 1.0  # seconds: at most this long between a step's end and the card after it is the card's


def step_spans(steps: list[StepRecord], duration: float) -> list[tuple[float, float]]:
    """(start, end) in seconds of each step: from the previous step's end to its own end.

    The first span starts at 0 and the last ends at ``duration``, so the spans tile the whole video with
    no gap: the fade between two steps belongs to the step that is fading in.
    """
    ends = [step.end for step in steps[:-1]] + [duration]
    return list(zip([0.0, *ends[:-1]], ends))


def track_language(lang: str) -> str:
    """The language of locale ``lang`` as containers name a track's (ISO 639-2): spa, eng."""
    return load_locale(lang)["lecture"]["track_language"]


def section_tracks(steps: list[StepRecord], duration: float, cards: list[CardRecord] = (), offset: float = 0.0,
                   lang: str = DEFAULT_LANGUAGE) -> TextTracks:
    """A chapter per step with its title, and the subtitles, in locale ``lang``: in a narrated section the spoken
    sentences, of the steps and of the cards the voice reads (a step or a card without a voice shows its text on
    screen, so it has none: no viewer reads a text twice); in a silent one, a caption per step with its caption and
    per card with its text while it is up. Times shifted by ``offset`` seconds and kept to the millisecond, as
    captions store them."""
    chapters, cues, narrated = [], [], spoken_section(steps)
    for step, span in zip(steps, step_spans(steps, duration)):
        chapters.append(_timed(*span, step.title, offset))
        cues += spoken_cues(step, lang) if step.spoken \
            else [] if narrated else [(begin, end, subtitle_text(text, lang))
                                      for begin, end, text in step.caption_subtitles(*span)]
    cues += [cue for card in cards for cue in spoken_cues(card, lang)]
    for card in () if narrated else cards:
        # from the end of the step before it: what leaves between them leaves for the card (the next step's
        # caption never flashes before the card that precedes it)
        start = max([step.end for step in steps if card.start - CARD_LEAD <= step.end <= card.start],
                    default=card.start)
        parts = card.subtitles()
        parts[0] = (start, *parts[0][1:])
        cues = [*_outside(cues, start, card.end),
                *[(begin, end, subtitle_text(text, lang)) for begin, end, text in parts]]
    return TextTracks(tuple(chapters),
                      tuple(_timed(start, end, _wrapped(text), offset) for start, end, text in sorted(cues)),
                      track_language(lang))


def spoken_cues(step: StepRecord | CardRecord, lang: str = DEFAULT_LANGUAGE) -> list[tuple[float, float, str]]:
    """A spoken step's (or card's) caption blocks, sentence by sentence, timed by the phrases that say them: phrases said one
    after the other share their blocks (each block its share of their time, by characters); where the voice waits
    for a play (a pause of RUN_PAUSE or more), the words after it start a block of their own as they are said."""
    phrases = [(start, end, text, play) for text, start, end, play in step.narration.get("phrases", [])]
    cues = []
    for text, start, end in step.spoken:
        said = [phrase for phrase in phrases if start - 1e-3 <= phrase[0] and phrase[1] <= end + 1e-3]
        cues += [block for run_start, run_end, words in _runs(said) or [(start, end, text)]
                 for block in caption_blocks(subtitle_text(words, lang), run_start, run_end)]
    return cues


def _runs(phrases: list[tuple[float, float, str, str]]) -> list[tuple[float, float, str]]:
    """Consecutive phrases (start, end, text, the play it started with or "") joined while the pause between them is
    under RUN_PAUSE, and a phrase said with a play no later than EARLY_MOST after its run began: a run's blocks show
    from its start, so «después, 0.91 y 0.93» read 4.9 s before its scores came (review s12)."""
    runs = []
    for start, end, text, play in phrases:
        if runs and start - runs[-1][1] < RUN_PAUSE and not (play and start - runs[-1][0] > EARLY_MOST):
            runs[-1] = (runs[-1][0], end, f"{runs[-1][2]} {text}")
        else:
            runs.append((start, end, text))
    return runs


def subtitle_text(text: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """``text`` (a caption, a card's text or a spoken sentence) as a subtitle writes it: the notation a narration
    spells out for the voice written back as the screen writes it (the locale's ``spoken.notation``: "la raíz de
    d sub k" is √d_k; and any "X sub y" is X_y), then each subscript in Unicode's glyphs: dₖ, dᵥ, q₁, kⱼ, √dₖ.

    Unicode has no capital subscripts, nor b, c, d, f, g, q, w, y or z: such a subscript (W_Q, d_model) is written
    as the voice says it, "W sub Q". A lower-case glyph would name another symbol (q is a query vector), and the
    letters side by side would read as a product (XW_Q as XWQ).
    """
    spoken = load_locale(lang)["spoken"]
    text = replaced_words(text, {said: written for written, said in spoken["notation"].items()})
    text = re.sub(rf"\b([A-Za-z]) {re.escape(spoken['subscript'])} ([A-Za-z0-9]+)\b", r"\1_\2", text)
    return WRITTEN_SUBSCRIPT.sub(lambda match: _typeset_subscript(match[1], match[2], spoken["subscript"]), text)


def _typeset_subscript(symbol: str, index: str, subscript_word: str) -> str:
    """dₖ where Unicode has a glyph for every character of the index, else "W sub Q"."""
    if all(character in SUBSCRIPT_GLYPHS for character in index):
        return symbol + "".join(SUBSCRIPT_GLYPHS[character] for character in index)
    return f"{symbol} {said_index(index, subscript_word)}"


def spoken_section(steps: list[StepRecord]) -> bool:
    """Whether a voice spoke any of the section's steps."""
    return any(step.spoken for step in steps)


def carried(tracks: TextTracks, subtitled: bool) -> TextTracks:
    """What the video itself carries: a silent section's captions are burned into its picture (unless
    ``lecture.clean``), so its video has no subtitle track (turned on, it would show every caption twice), nor
    SRT and WebVTT beside it (players such as VLC load those by themselves)."""
    return tracks if subtitled else replace(tracks, cues=())


def lecture_tracks(sections: list[tuple[list[StepRecord], float, list[CardRecord]]],
                   lang: str = DEFAULT_LANGUAGE) -> TextTracks:
    """The sections' chapters and captions joined, each shifted by the durations of the sections before it.

    ``sections`` holds (steps, duration, cards) in the order the videos were joined.
    """
    chapters, cues, offset = (), (), 0.0
    for steps, duration, cards in sections:
        tracks = section_tracks(steps, duration, cards, offset, lang)
        chapters, cues, offset = chapters + tracks.chapters, cues + tracks.cues, offset + duration
    return TextTracks(chapters, cues, track_language(lang))


def _outside(cues, start: float, end: float) -> list[tuple[float, float, str]]:
    """The parts of ``cues`` (start, end, text) before ``start`` and after ``end``."""
    kept = []
    for cue_start, cue_end, text in cues:
        kept += [(cue_start, min(cue_end, start), text)] if cue_start < start else []
        kept += [(max(cue_start, end), cue_end, text)] if cue_end > end else []
    return [cue for cue in kept if cue[1] - cue[0] > 1e-3]


def caption_names(stem: str) -> tuple[str, str]:
    """The subtitle files beside the video ``stem``: ``stem.srt`` and ``stem.vtt``."""
    return f"{stem}.srt", f"{stem}.vtt"


def write_captions(tracks: TextTracks, folder: Path, stem: str) -> dict[str, Path]:
    """Write the cues of ``tracks`` as ``stem.srt`` and ``stem.vtt`` into ``folder``; returns the files by name."""
    written = {}
    for name, text in zip(caption_names(stem), (srt_text(tracks.cues), webvtt(tracks.cues))):
        target = folder / name
        target.write_text(text, encoding="utf-8")
        written[target.name] = target
    return written


def srt_text(cues) -> str:
    """The cues (start, end, text) as SubRip, numbered from 1, the text kept from reading as markup."""
    return srt.compose([srt.Subtitle(index=number, start=timedelta(seconds=start), end=timedelta(seconds=end),
                                     content=text.translate(SRT_ESCAPES))
                        for number, (start, end, text) in enumerate(cues, 1)],
                       reindex=False)


def webvtt(cues) -> str:
    """The cues (start, end, text) as WebVTT, the caption format browsers' <track> elements read, the text
    escaped."""
    blocks = [f"{number}\n{_vtt_time(start)} --> {_vtt_time(end)}\n{text.translate(VTT_ESCAPES)}\n"
              for number, (start, end, text) in enumerate(cues, 1)]
    return "WEBVTT\n\n" + "\n".join(blocks)


def _vtt_time(seconds: float) -> str:
    milliseconds = round(seconds * 1000)
    hours, rest = divmod(milliseconds, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, milliseconds = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}.{milliseconds:03d}"


def _timed(start: float, end: float, text: str, offset: float) -> tuple[float, float, str]:
    return round(offset + start, 3), round(offset + end, 3), text


def caption_blocks(sentence: str, start: float, end: float) -> list[tuple[float, float, str]]:
    """A spoken sentence as caption blocks (start, end, text) of at most BLOCK_LINES lines of LINE_LENGTH, cut
    after a clause where one fits, each on screen for its share of the sentence's time, by characters."""
    blocks = _blocks(sentence)
    lengths = [len(block) for block in blocks]
    bounds = [start + (end - start) * sum(lengths[:k]) / sum(lengths) for k in range(len(blocks))] + [end]
    return [(bounds[k], bounds[k + 1], block) for k, block in enumerate(blocks)]


def _blocks(sentence: str) -> list[str]:
    """The sentence's clauses packed into blocks that wrap to at most BLOCK_LINES lines; a clause longer than a
    block (or a short one that does not fit after the last) is cut into blocks of BLOCK_LINES lines, evened out
    so that none is a lone word (wrapped again at
    LINE_LENGTH, a block's words take no more lines than at the narrower width)."""
    blocks, current = [], ""
    for clause in CLAUSE_END.split(sentence.strip()):
        joined = f"{current} {clause}".strip()
        if len(textwrap.wrap(joined, LINE_LENGTH)) <= BLOCK_LINES:
            current = joined
            continue
        short = len(clause) < LINE_LENGTH // 2  # not left alone ("cero."): it shares the last block's words
        blocks += [current] if current and not short else []
        lines = _even_lines(joined if short else clause)
        blocks += [" ".join(lines[k:k + BLOCK_LINES]) for k in range(0, len(lines) - BLOCK_LINES, BLOCK_LINES)]
        current = " ".join(lines[(len(lines) - 1) // BLOCK_LINES * BLOCK_LINES:])
    return blocks + ([current] if current else [])


def _even_lines(clause: str) -> list[str]:
    """The clause's lines at the narrowest width that keeps as few blocks as LINE_LENGTH needs: a long clause
    fills its blocks evenly instead of leaving a word alone in the last."""
    lines = textwrap.wrap(clause, LINE_LENGTH)
    blocks = -(-len(lines) // BLOCK_LINES)
    for width in range(LINE_LENGTH * 2 // 3, LINE_LENGTH):
        narrower = textwrap.wrap(clause, width)
        if -(-len(narrower) // BLOCK_LINES) == blocks:
            return narrower
    return lines


def _wrapped(caption: str) -> str:
    return "\n".join(textwrap.wrap(caption, LINE_LENGTH))
