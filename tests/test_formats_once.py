"""An output format is declared once, in lesson.formats: every format of the table renders through the real CLI
into a file holding what its record says (the detailed checks of each are in test_formats, test_captions and
test_render_cli), --format offers exactly the table, and no other module spells a format's name or extension."""

from __future__ import annotations

import ast
import re

import av
import pytest
from PIL import Image

from lesson.formats import BY_NAME, FORMATS
from media_checks import ROOT, TINY, chapters, manifest, run_cli, streams

CLIP = "01-matrix-steps-01"  # the first step of the matrix section: the shortest clip with every track
LAYERS = ("attn_math", "sonify", "lesson", "scenes", "lecture", "render.py")
TABLE = ROOT / "lesson" / "formats.py"


def decoded_name(encoder: str) -> str:
    """What a decoder calls the codec an encoder writes: libx264 -> h264."""
    return av.Codec(encoder, "w").canonical_name


@pytest.fixture(scope="module", params=FORMATS)
def rendered(request, tmp_path_factory):
    """(the format's record, OUT) after rendering the matrix section's first step in it at tiny size, narrated (a
    video of a spoken step carries its sentences as a subtitle track)."""
    out = tmp_path_factory.mktemp(f"first-step-{request.param}")
    result = run_cli("render", "matrix", "--steps", "1", *TINY, "--set", "lecture.questions='none'", "--format",
                     request.param, "--narration", "tts", "-o", str(out), "-j", "1")  # spoken: its subtitle track
    assert result.returncode == 0, result.stderr
    return BY_NAME[request.param], out


def test_each_format_holds_what_its_record_says(rendered):
    output, out = rendered
    entry = manifest(out)["clips"][f"{CLIP}.{output.name}"]
    assert entry["format"] == output.name
    if output.is_still:
        (still,) = sorted((out / CLIP).glob(f"*{output.suffix}"))
        with Image.open(still) as image:
            assert image.format.lower() == output.name and image.size == (256, 144)
        return
    video = out / f"{CLIP}{output.suffix}"
    assert entry["files"][0] == video.name
    found = streams(video)
    expected = {"video": output.video_codec, "audio": output.audio_codec, "subtitle": output.subtitle_codec}
    assert {kind: info["codec"] for kind, info in found.items()} == {
        kind: decoded_name(encoder) for kind, encoder in expected.items() if encoder}
    assert len(chapters(video)) == (len(entry["steps"]) if output.has_chapters else 0)
    captions = {f"{CLIP}.srt", f"{CLIP}.vtt"}
    assert (captions <= set(entry["files"])) == output.has_captions


def test_format_offers_the_table_and_nothing_else():
    result = run_cli("render", "--help")
    assert result.returncode == 0, result.stderr
    offered = re.search(r"--format \[([^\]]+)\]", " ".join(result.stdout.split()))[1]
    assert offered.split("|") == list(FORMATS)


def spelled_formats(path) -> list[str]:
    """``line: text`` of each string constant in ``path`` that is a format's name or extension, a MIME type of one
    ("video/mp4") or a file name ending in one ("clip.webm"; f-strings' parts too): a branch on a format, or a file
    name or a type made without the table."""
    names = "|".join(map(re.escape, FORMATS))
    spelled = re.compile(rf"^\.?(?:{names})$|^\w+/(?:{names})$|\.(?:{names})$", re.IGNORECASE)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{node.lineno}: {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and spelled.search(node.value)]


def test_no_module_spells_a_format_outside_the_table():
    paths = [path for layer in LAYERS
             for path in ([ROOT / layer] if layer.endswith(".py") else sorted((ROOT / layer).rglob("*.py")))]
    found = {str(path.relative_to(ROOT)): spelled_formats(path) for path in paths if path != TABLE}
    assert {name: lines for name, lines in found.items() if lines} == {}
    assert spelled_formats(TABLE)  # the check sees a spelling where there is one
