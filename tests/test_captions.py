"""Captions and chapters: one per step, SRT and WebVTT beside each video and for the lecture, and the same
captions and a chapter per step inside the videos, read back as a player reads them, the notation written as the
screen writes it (dₖ, not d_k or "d sub k"), a user's words in them escaped as each format needs; the narration
script's Markdown the same. A step's caption is a subtitle when it is not burned into the picture: in a clean
render (``--clean``, as here; a narrated one's subtitles are its spoken sentences: test_narration_render); a silent
render with its captions burned in has no subtitles at all."""

import html
import json
import re
from datetime import timedelta

import av
import pytest
import srt
from markdown_it import MarkdownIt

from lecture.render.captions import EARLY_MOST, lecture_tracks, section_tracks, step_spans, subtitle_text
from lecture.publish.script import markdown_text
from lesson.records import steps_of
from media_checks import (TINY, card_record, chapters, manifest, run_cli, run_quick_cli, step_record, streams,
                          subtitle_cues, tiny_clean_matrix, tiny_matrix)

VTT_TIMING = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d\d\d) --> (\d\d):(\d\d):(\d\d)\.(\d\d\d)$")


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return tiny_clean_matrix(tmp_path_factory)


def parse_vtt(text: str) -> list[tuple[float, float, str]]:
    """(start, end, text) of each cue; fails on anything that is not WebVTT."""
    header, *blocks = text.strip().split("\n\n")
    assert header == "WEBVTT"
    cues = []
    for block in blocks:
        identifier, timing, *lines = block.split("\n")
        assert identifier.isdigit() and lines, block
        parts = [int(part) for part in VTT_TIMING.match(timing).groups()]
        start, end = (3600 * h + 60 * m + s + ms / 1000 for h, m, s, ms in (parts[:4], parts[4:]))
        cues.append((start, end, " ".join(lines)))
    return cues


def unwrapped(content: str) -> str:
    return " ".join(content.split("\n"))


def shown_texts(entry: dict) -> list[str]:
    """What the captions say in order: each step's caption and each card's text, by when they come up (a
    predictive card before its step's header, a closing card after the last step), as subtitles write them."""
    return [subtitle_text(text) for _, text in sorted([(step["start"], step["caption"]) for step in entry["steps"]]
                                                      + [part for card in entry["cards"] for part in card_parts(card)])]


def card_parts(card: dict) -> list[tuple[float, str]]:
    """A card's subtitles by when they come: a closing card's text without its answer, then the answer when it
    is drawn (``answered``); another card's whole text."""
    if not card.get("answer"):
        return [(card["start"], card["text"])]
    assert card["text"].endswith(card["answer"]) and card["start"] < card["answered"] < card["end"]
    return [(card["start"], card["text"][:-len(card["answer"])].strip()), (card["answered"], card["answer"])]


def test_srt_has_one_caption_per_step_and_per_card_inside_the_video(out):
    entry = manifest(out)["sections"]["matrix"]
    captions = list(srt.parse((out / "01-matrix.srt").read_text(encoding="utf-8")))
    duration = streams(out / "01-matrix.mp4")["video"]["duration"]
    assert entry["cards"]  # the default lecture's matrix: a predictive card and the closing card
    assert [unwrapped(caption.content) for caption in captions] == shown_texts(entry)
    assert captions[0].start == timedelta(0)
    assert captions[-1].end.total_seconds() <= duration
    for before, after in zip(captions, captions[1:]):
        assert before.start < before.end == after.start  # one after the other, no gap, no overlap


def test_vtt_has_the_same_cues_as_the_srt(out):
    cues = parse_vtt((out / "01-matrix.vtt").read_text(encoding="utf-8"))
    captions = list(srt.parse((out / "01-matrix.srt").read_text(encoding="utf-8")))
    assert cues == [(caption.start.total_seconds(), caption.end.total_seconds(), unwrapped(caption.content))
                    for caption in captions]


def test_caption_lines_are_short(out):
    captions = srt.parse((out / "01-matrix.srt").read_text(encoding="utf-8"))
    assert all(len(line) <= 42 for caption in captions for line in caption.content.split("\n"))


def test_the_captions_write_the_notation_as_the_screen_does(out):
    """The scaling step's caption, "Dividir por √d_k divide la varianza por d_k", as the screen writes it."""
    for name in ("01-matrix.srt", "01-matrix.vtt", "lecture.srt"):
        text = (out / name).read_text(encoding="utf-8")
        assert "Dividir por √dₖ divide la varianza por dₖ" in " ".join(text.split()), name
        assert "_" not in text and "d sub k" not in text, name


def test_captions_are_tracked_in_the_manifest(out):
    entry = manifest(out)["sections"]["matrix"]
    assert {"01-matrix.srt", "01-matrix.vtt"} <= set(entry["files"]) <= set(entry["sha256"])


def test_lecture_captions_cover_the_lecture(out):
    lecture = list(srt.parse((out / "lecture.srt").read_text(encoding="utf-8")))
    section = list(srt.parse((out / "01-matrix.srt").read_text(encoding="utf-8")))
    assert [caption.content for caption in lecture] == [caption.content for caption in section]
    assert lecture[-1].end.total_seconds() <= streams(out / "lecture.mp4")["video"]["duration"] + 0.05
    assert len(parse_vtt((out / "lecture.vtt").read_text(encoding="utf-8"))) == len(lecture)


def test_joined_captions_and_chapters_are_shifted_by_the_sections_before_them():
    first = [step_record("A", "uno", 2.0), step_record("B", "dos", 5.0)]
    second = [step_record("C", "tres", 1.5),
              step_record("D", "cuatro", 3.0,
               narration={"sentences": [["Primera frase.", 3.25, 4.0], ["Segunda.", 4.5, 5.0]]})]
    joined = lecture_tracks([(first, 6.0, []), (second, 6.0, [])])
    assert joined.cues == ((0.0, 2.0, "uno"), (2.0, 6.0, "dos"),  # "tres": a silent step of a narrated section
                           (9.25, 10.0, "Primera frase."), (10.5, 11.0, "Segunda."))
    assert joined.chapters == ((0.0, 2.0, "A"), (2.0, 6.0, "B"), (6.0, 7.5, "C"), (7.5, 12.0, "D"))
    assert joined.language == "spa"


def to_the_millisecond(items: list[tuple[float, float, str]]) -> list[tuple[float, float, str]]:
    return [(round(start, 3), round(end, 3), text) for start, end, text in items]


def srt_cues(path) -> list[tuple[float, float, str]]:
    return [(caption.start.total_seconds(), caption.end.total_seconds(), caption.content)
            for caption in srt.parse(path.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("name", ["01-matrix", "lecture"])
def test_the_video_carries_a_chapter_per_step_with_its_title_and_span(out, name):
    entry = manifest(out)["sections"]["matrix"]
    expected = [(start, end, step.title) for step, (start, end) in
                zip(steps_of(entry), step_spans(steps_of(entry), entry["duration"]))]
    found = chapters(out / f"{name}.mp4")
    assert [title for _, _, title in found] == [step["title"] for step in entry["steps"]]
    assert to_the_millisecond(found) == to_the_millisecond(expected)


@pytest.mark.parametrize("name", ["01-matrix", "lecture"])
def test_a_silent_video_has_no_subtitles_its_captions_are_in_the_picture(tmp_path_factory, name):
    """Turned on, a track of the captions burned into the picture would show each twice, and so would an SRT beside
    the video, which players such as VLC load by themselves (a narrated video's subtitles are its spoken sentences:
    test_narration_render)."""
    silent = tiny_matrix(tmp_path_factory)[0]
    assert "subtitle" not in streams(silent / f"{name}.mp4")
    assert not (silent / f"{name}.srt").exists() and not (silent / f"{name}.vtt").exists()
    assert not {file for file in manifest(silent)["sections"]["matrix"]["files"] if file.endswith(("srt", "vtt"))}


@pytest.mark.parametrize("name", ["01-matrix", "lecture"])
def test_a_clean_videos_captions_are_its_subtitles_inside_and_beside_it(out, name):
    inside, beside = subtitle_cues(out / f"{name}.mp4")[2], srt_cues(out / f"{name}.srt")
    assert [unwrapped(text) for _, _, text in inside] == [unwrapped(text) for _, _, text in beside]
    assert "ó" in "".join(text for _, _, text in srt_cues(out / f"{name}.srt"))  # accents kept: UTF-8 throughout


def test_every_caption_a_step_or_a_card_shows_and_every_narrated_sentence_is_typeset():
    """The hand-written forms: captions and card texts write the lesson's notation in Unicode where it can, and the
    words a narration says for the voice become the notation again; a capital subscript stays as it is said."""
    spoken = [["Dividimos por la raíz de d sub k.", 2.0, 3.0], ["La raíz de d sub k es q uno por k sub j.", 3.0, 4.0],
              ["Q por K transpuesta y W sub Q, de d sub model.", 4.0, 5.0]]
    silent = [step_record("A", "Dividir por √d_k; W_Q, q_1 y k_j.", 2.0)]
    cards = [card_record("closing", "¿Y si crece d_v?", 2.0, 3.0)]
    assert [text for _, _, text in section_tracks(silent, 3.0, cards).cues] == [
        "Dividir por √dₖ; W sub Q, q₁ y kⱼ.", "¿Y si crece dᵥ?"]
    narrated = [step_record("B", "no se muestra", 6.0, narration={"sentences": spoken})]
    assert [text for _, _, text in section_tracks(narrated, 7.0).cues] == [
        "Dividimos por √dₖ.", "√dₖ es q₁ por kⱼ.", "QKᵀ y W sub Q, de d sub model."]


def test_words_said_after_the_voice_waits_for_a_play_come_as_they_are_said():
    """One sentence, two phrases: the voice says the first, waits 6 s for a play, then says the second. Shared out
    by characters over the whole sentence, "y después crece." came up 4 s before it was said (the 720p watch found
    cues up to 7 s ahead); phrases said one after the other still share their blocks (the later one said within
    EARLY_MOST of the block's start)."""
    waits = step_record("A", "", 12.0, narration={
        "sentences": [["Primero miramos el cuadro, y después crece.", 1.0, 10.5]],
        "phrases": [["Primero miramos el cuadro,", 1.0, 3.0, ""], ["y después crece.", 9.0, 10.5, "grow"]]})
    assert section_tracks([waits], 12.0).cues == ((1.0, 3.0, "Primero miramos el cuadro,"),
                                                 (9.0, 10.5, "y después crece."))
    flowing = step_record("B", "", 6.0, narration={
        "sentences": [["Primero miramos el cuadro, y después crece.", 1.0, 4.0]],
        "phrases": [["Primero miramos el cuadro,", 1.0, 2.6, ""], ["y después crece.", 2.8, 4.0, "grow"]]})
    assert [(start, end, unwrapped(text)) for start, end, text in section_tracks([flowing], 6.0).cues] == [
        (1.0, 4.0, "Primero miramos el cuadro, y después crece.")]


def test_a_phrase_said_with_a_play_long_after_its_block_began_starts_a_block_of_its_own():
    """Review s12 (learned, 61.8 s): «Antes de la caída puntúan 0.21 y 0.09; después, 0.91 y 0.93» came up as one
    block as the first phrase began, 4.9 s before the scores it names were drawn, the voice pausing only 0.3 s
    between them. A phrase tied to a play, said more than EARLY_MOST after its run began, starts a block."""
    phrases = [["Antes de la caída puntúan 0.21 y 0.09;", 61.8, 66.37, "before"],
               ["después, 0.91 y 0.93:", 66.67, 70.44, "after"], ["nacen con la caída.", 70.77, 72.3, "born"]]
    step = step_record("A", "", 73.0, narration={"sentences": [[" ".join(p[0] for p in phrases), 61.8, 72.3]],
                                                 "phrases": phrases})
    assert phrases[1][1] - phrases[0][1] > EARLY_MOST > phrases[1][1] - phrases[0][2]  # not a pause: a late play
    cues = [(start, end, unwrapped(text)) for start, end, text in section_tracks([step], 73.0).cues]
    assert cues[0] == (61.8, 66.37, "Antes de la caída puntúan 0.21 y 0.09;")
    assert all(start >= 66.67 - 1e-3 for start, _, text in cues[1:]) and "0.91" in cues[1][2]


def test_english_subtitles_write_the_notation_from_the_english_words():
    step = step_record("A", "", 2.0, narration={"sentences": [
        ["Divide by the square root of d sub k: q one’s row of Q times K transpose.", 0.0, 2.0]]})
    assert [text for _, _, text in section_tracks([step], 2.0, lang="en").cues] == [
        "Divide by √dₖ: q₁’s row of QKᵀ."]


def test_step_spans_tile_the_video():
    assert step_spans([step_record("a", "", 1.0), step_record("b", "", 2.5), step_record("c", "", 4.0)], 4.5) == [(0.0, 1.0), (1.0, 2.5), (2.5, 4.5)]


# A sentence whose words are markup in every caption format: "-->" ends a WebVTT cue early, "<script>" is a
# tag to WebVTT and to SubRip's readers, "&amp;" a character reference; the heads section shows its first two
# words in its captions.
HOSTILE_SENTENCE = "a-->b <script>x&amp;y"
WORD_JOINER = "\u2060"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile-captions")
    result = run_cli("render", "heads", *TINY, "--no-audio", "--clean", "-j", "1", "-o", str(out),
                     "--set", f"heads.sentence={json.dumps(HOSTILE_SENTENCE)}")
    assert result.returncode == 0, result.stderr
    captions = shown_texts(manifest(out)["sections"]["heads"])
    assert any("«a-->b»" in caption and "«<script>x&amp;y»" in caption for caption in captions)
    return out, captions


def vtt_blocks(text: str) -> list[list[str]]:
    """The cue blocks of a WebVTT file as its lines, after the header."""
    header, *blocks = text.strip().split("\n\n")
    assert header == "WEBVTT"
    return [block.split("\n") for block in blocks]


def ffmpeg_cue_texts(path) -> list[str]:
    """The cues' texts as ffmpeg's subtitle decoders (those of mpv and most players) read the file."""
    with av.open(str(path)) as container:
        return [subtitle.ass.decode("utf-8").split(",", 8)[8].replace("\\N", "\n")
                for packet in container.demux(container.streams.subtitles[0])
                for subtitle in packet.decode()]


@pytest.mark.parametrize("name", ["03-heads", "lecture"])
def test_webvtt_escapes_a_users_words_so_every_cue_reads_back_whole(hostile, name):
    out, captions = hostile
    path = out / f"{name}.vtt"
    texts = []
    for identifier, timing, *lines in vtt_blocks(path.read_text(encoding="utf-8")):
        assert VTT_TIMING.match(timing) and lines
        assert not any("-->" in line for line in lines)  # a reader would take it for the next cue's timing
        assert "<" not in "".join(lines) and not re.search(r"&(?!amp;|lt;|gt;)", "".join(lines))
        texts.append(html.unescape("\n".join(lines)))
    assert [unwrapped(text) for text in texts] == captions
    assert ffmpeg_cue_texts(path) == texts


@pytest.mark.parametrize("name", ["03-heads", "lecture"])
def test_subrip_keeps_a_users_words_from_reading_as_tags(hostile, name):
    out, captions = hostile
    path = out / f"{name}.srt"
    contents = [subtitle.content for subtitle in srt.parse(path.read_text(encoding="utf-8"), ignore_errors=False)]
    assert [unwrapped(content.replace(WORD_JOINER, "")) for content in contents] == captions
    assert not re.search(r"<(?!\u2060)|(?<!\u2060)>|&(?!\u2060)|-->", "\n".join(contents))
    assert [text.replace(WORD_JOINER, "") for text in ffmpeg_cue_texts(path)] == \
        [content.replace(WORD_JOINER, "") for content in contents]


def markdown_texts(text: str) -> tuple[list[str], set[str]]:
    """The literal texts of a Markdown document as CommonMark reads it, and every kind of token in it."""
    tokens = MarkdownIt("commonmark").parse(text)
    inline = [child for token in tokens if token.type == "inline" for child in token.children]
    return [child.content for child in inline if child.type == "text"], {token.type for token in tokens + inline}


@pytest.mark.parametrize("text", ["a*b*c _u_ `code` [link](http://x) ![i](y) <b>bold</b> x&amp;y ~~s~~ | \\n",
                                  "# heading", "- item", "+ item", "3. item", "12) item", "=", "> quote",
                                  "line one\n\n# line two"])
def test_markdown_text_is_read_back_as_the_same_plain_text(text):
    texts, kinds = markdown_texts(f"> {markdown_text(text)}")
    assert "".join(texts) == " ".join(text.split())
    assert kinds <= {"blockquote_open", "paragraph_open", "inline", "text", "paragraph_close", "blockquote_close"}


def test_the_narration_script_shows_a_users_words_as_written(tmp_path):
    """Also: the sections a config's lecture.sections names are what a command naming none renders."""
    sentence = "a*b*c <script>x&amp;y"
    result = run_cli("script", "-j", "1", "-o", str(tmp_path), "--set", 'lecture.sections=["heads"]',
                     "--set", f"heads.sentence={json.dumps(sentence)}")
    assert result.returncode == 0, result.stderr
    script = (tmp_path / "script.md").read_text(encoding="utf-8")
    sections = [line for line in script.splitlines() if line.startswith("## ")]
    assert len(sections) == 1 and sections[0].startswith("## 3. ")
    texts, kinds = markdown_texts(script)
    assert any("«a*b*c»" in text and "«<script>x&amp;y»" in text for text in texts)
    assert not kinds & {"html_inline", "html_block", "em_open", "strong_open", "link_open"}


def test_while_a_card_is_up_the_caption_is_the_cards_text_and_the_steps_resume_around_it():
    """In a silent section a predictive card between two steps and a closing card at the end each cut the caption
    of the step under it and show their own text for exactly their span. In a narrated section a card's text is on
    screen and not spoken: only the spoken sentences are subtitles."""
    steps = [step_record("A", "uno", 4.0), step_record("B", "dos", 9.0)]
    cards = [card_record("predictive", "¿Y ahora?", 4.0, 5.5), card_record("closing", "Fin: ¿y luego?", 8.0, 10.0)]
    narrated = [step_record("N", "no se muestra", 3.0, narration={"sentences": [["Primera frase.", 0.5, 1.5]]})]
    tracks = lecture_tracks([([step_record("Z", "cero", 1.0)], 1.0, []), (steps, 10.0, cards),
                             (narrated, 4.0, [card_record("closing", "¿Y después?", 3.0, 4.0)])])
    assert tracks.cues == ((0.0, 1.0, "cero"),
                           (1.0, 5.0, "uno"), (5.0, 6.5, "¿Y ahora?"), (6.5, 9.0, "dos"), (9.0, 11.0, "Fin: ¿y luego?"),
                           (11.5, 12.5, "Primera frase."))
    assert [chapter[2] for chapter in tracks.chapters] == ["Z", "A", "B", "N"]  # cards are not chapters


def test_a_closing_cards_answer_is_not_in_the_subtitles_before_it_is_drawn(out):
    """Issue 43: the closing card's answer was in its subtitle from the card's first second, while the card asks
    the question and leaves time to think. Read back from the clean matrix's WebVTT."""
    entry = manifest(out)["sections"]["matrix"]
    [card] = [card for card in entry["cards"] if card["kind"] == "closing"]
    cues = parse_vtt((out / "01-matrix.vtt").read_text(encoding="utf-8"))
    answer = subtitle_text(card["answer"])
    asking = [text for start, end, text in cues if start < card["answered"] - 1e-3 and end > card["start"] + 1e-3]
    assert asking and not any(answer[:40] in text for text in asking)
    [(start, end)] = [(start, end) for start, end, text in cues if text == answer]
    assert start == pytest.approx(card["answered"], abs=2e-3) and end == pytest.approx(card["end"], abs=2e-3)


def test_a_closing_cards_subtitles_split_at_its_answer():
    card = card_record("closing", "Fin. ¿Y luego? Esto.", 8.0, 12.0)
    card.answer, card.answered = "Esto.", 10.5
    tracks = lecture_tracks([([step_record("A", "uno", 8.0)], 12.0, [card])])
    assert tracks.cues == ((0.0, 8.0, "uno"), (8.0, 10.5, "Fin. ¿Y luego?"), (10.5, 12.0, "Esto."))


def test_a_silent_render_over_a_clean_one_removes_its_subtitles_but_a_changed_one_stays(tmp_path):
    """Left beside the new silent video, an earlier render's SRT would be loaded by a player with it; one the user
    edited is theirs and stays."""
    render = ("render", "quick", *TINY, "-j", "1", "-o", str(tmp_path))
    assert run_quick_cli(*render, "--clean").returncode == 0
    with open(tmp_path / "lecture.vtt", "a", encoding="utf-8") as edited:
        edited.write("\nNOTE mine\n")
    result = run_quick_cli(*render)
    assert result.returncode == 0, result.stderr
    assert not any((tmp_path / name).exists() for name in ("08-quick.srt", "08-quick.vtt", "lecture.srt"))
    assert (tmp_path / "lecture.vtt").read_text(encoding="utf-8").endswith("NOTE mine\n")


def test_a_predictive_cards_caption_takes_the_moment_before_it_not_the_next_steps():
    """Between a step's end and the predictive card after it, something may still leave the screen (0.2 s in the
    matrix section): that moment is the card's, so the next step's caption (which states its result) does not
    flash before the card that asks about it."""
    steps = [step_record("A", "uno", 4.0), step_record("B", "dos: el resultado", 9.0)]
    cards = [card_record("predictive", "¿Qué pasará?", 4.2, 5.5)]
    assert lecture_tracks([(steps, 9.0, cards)]).cues == (
        (0.0, 4.0, "uno"), (4.0, 5.5, "¿Qué pasará?"), (5.5, 9.0, "dos: el resultado"))
