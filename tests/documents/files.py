"""Real documents written by the tests, each with a planted fact on a known page."""

from __future__ import annotations

from pathlib import Path

FILLER = (
    "This paragraph is ordinary filler about weather, roads and the daily routine of the survey team. "
    "It exists so that pages have realistic length and the planted facts are not alone on their page. "
)

FACTS = {
    # file name: (page or None, a sentence planted in it, a question whose keywords find it)
    "field-notes.pdf": (
        3,
        "The rain gauge at Kestrel Ridge recorded 417 millimetres during March.",
        "Kestrel Ridge rain gauge",
    ),
    "budget.docx": (
        None,
        "The lighthouse restoration budget is 82,500 euros for the second quarter.",
        "lighthouse restoration budget",
    ),
    "glacier.md": (None, "The Vatnajokull outlet glacier retreated 38 metres in 2019.", "Vatnajokull glacier retreat"),
    "museum.html": (None, "The maritime museum opens at 9:30 on Sundays.", "maritime museum Sundays"),
    "长城.txt": (None, "长城的总长度约为两万一千公里，跨越十五个省份。", "长城的总长度"),
}


def write_pdf(path: Path, pages: list[str]) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    pdf.output(str(path))
    return path


def write_scanned_pdf(path: Path) -> Path:
    """Two pages that are only pictures (of stripes that look like lines of print): no text layer."""
    from fpdf import FPDF
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (600, 800), "white")
    draw = ImageDraw.Draw(image)
    for y in range(60, 760, 24):
        draw.rectangle((50, y, 550 - (y * 7) % 120, y + 10), fill="black")
    picture = path.with_suffix(".png")
    image.save(picture)
    pdf = FPDF()
    for _ in range(2):
        pdf.add_page()
        pdf.image(str(picture), x=10, y=10, w=190)
    pdf.output(str(path))
    picture.unlink()
    return path


def write_docx(path: Path, paragraphs: list[str]) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Lighthouse project", level=1)
    for p in paragraphs:
        document.add_paragraph(p)
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "Contractor"
    table.rows[0].cells[1].text = "Harbourline Masonry"
    document.save(str(path))
    return path


def write_corpus(folder: Path) -> dict[str, Path]:
    """All five formats with their planted facts; returns name → path."""
    folder.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    pages = [f"Page {n}. " + FILLER * 3 for n in range(1, 5)]
    pages[2] += "\n\n" + FACTS["field-notes.pdf"][1]
    out["field-notes.pdf"] = write_pdf(folder / "field-notes.pdf", pages)
    out["budget.docx"] = write_docx(folder / "budget.docx", [FILLER * 2, FACTS["budget.docx"][1], FILLER])
    md = f"# Survey\n\n{FILLER}\n\n## Glacier\n\n**Result:** {FACTS['glacier.md'][1]}\n\n```\ncode sample\n```\n"
    (folder / "glacier.md").write_text(md, encoding="utf-8")
    out["glacier.md"] = folder / "glacier.md"
    html = (
        "<html><head><title>Museum</title><style>p { color: red }</style>"
        "<script>var hidden = 'scriptword zebracorn';</script></head><body>"
        f"<h1>Visiting</h1><p>{FILLER}</p><ul><li>{FACTS['museum.html'][1]}</li><li>Entry is free.</li></ul>"
        "</body></html>"
    )
    (folder / "museum.html").write_text(html, encoding="utf-8")
    out["museum.html"] = folder / "museum.html"
    cjk = "长城是中国古代的军事防御工程。" * 5 + "\n\n" + FACTS["长城.txt"][1] + "\n\n" + "它是世界文化遗产。" * 3
    (folder / "长城.txt").write_text(cjk, encoding="utf-8")
    out["长城.txt"] = folder / "长城.txt"
    return out


def write_pdf_without_unicode_map(path: Path, text: str) -> Path:
    """A PDF whose embedded font has no ToUnicode map (as some old or "print to PDF" tools make them): its text is
    drawn right, but a reader gets glyph numbers, not letters."""
    import re

    from fpdf import FPDF

    pdf = FPDF()
    pdf.compress = False
    pdf.add_font("mono", fname="/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
    pdf.set_font("mono", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 6, text)
    data = bytes(pdf.output())
    # Blank the reference (same length, so the cross-reference offsets stay right).
    path.write_bytes(re.sub(rb"/ToUnicode \d+ 0 R", lambda m: b" " * len(m.group()), data))
    return path
