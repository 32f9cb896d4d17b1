"""A minimal, byte-stable ``.xlsx`` writer for the attachments of our own contest-sized tasks.

Real contest attachments are spreadsheets, so the tasks ship some; openpyxl would stamp the write
time into the archive, so the generators write the few OOXML parts themselves: stored (not
deflated) zip members with a fixed timestamp, inline strings, one sheet per table. The same rows
give the same bytes on every machine, which ``tbmath-generate --check`` relies on."""

from __future__ import annotations

import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from xml.sax.saxutils import escape

#: A cell: text, a number, or nothing (the cell is left out of the sheet).
Cell = str | int | float | None

_XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
_MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_DOC_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_SHEET_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
_BOOK_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"


def column_name(index: int) -> str:
    """The spreadsheet letters of a 0-based column index (0 -> A, 25 -> Z, 26 -> AA)."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def sheet_xml(rows: Sequence[Sequence[Cell]]) -> str:
    """One worksheet part: strings inline (no shared-string table), numbers as written by ``str``."""
    out = [f'{_XML_HEAD}<worksheet xmlns="{_MAIN_NS}"><sheetData>']
    for r, row in enumerate(rows, start=1):
        cells = []
        for c, value in enumerate(row):
            ref = f"{column_name(c)}{r}"
            if value is None:
                continue
            if isinstance(value, str):
                cells.append(
                    f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{escape(value)}</t></is></c>'
                )
            else:
                cells.append(f'<c r="{ref}"><v>{value}</v></c>')
        out.append(f'<row r="{r}">{"".join(cells)}</row>')
    out.append("</sheetData></worksheet>")
    return "".join(out)


def write_xlsx(path: str | Path, sheets: Mapping[str, Sequence[Sequence[Cell]]]) -> None:
    """Write ``sheets`` (sheet name -> rows, in order) as a workbook at ``path``."""
    names = list(sheets)
    numbers = range(1, len(names) + 1)
    parts = {
        "[Content_Types].xml": f'{_XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        f'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        f'<Override PartName="/xl/workbook.xml" ContentType="{_BOOK_TYPE}"/>'
        + "".join(
            f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType="{_SHEET_TYPE}"/>' for i in numbers
        )
        + "</Types>",
        "_rels/.rels": f'{_XML_HEAD}<Relationships xmlns="{_REL_NS}">'
        f'<Relationship Id="rId1" Type="{_DOC_REL}/officeDocument" Target="xl/workbook.xml"/>'
        "</Relationships>",
        "xl/workbook.xml": f'{_XML_HEAD}<workbook xmlns="{_MAIN_NS}" xmlns:r="{_DOC_REL}"><sheets>'
        + "".join(
            f'<sheet name="{escape(n)}" sheetId="{i}" r:id="rId{i}"/>' for i, n in enumerate(names, start=1)
        )
        + "</sheets></workbook>",
        "xl/_rels/workbook.xml.rels": f'{_XML_HEAD}<Relationships xmlns="{_REL_NS}">'
        + "".join(
            f'<Relationship Id="rId{i}" Type="{_DOC_REL}/worksheet" Target="worksheets/sheet{i}.xml"/>'
            for i in numbers
        )
        + "</Relationships>",
    }
    for i, name in enumerate(names, start=1):
        parts[f"xl/worksheets/sheet{i}.xml"] = sheet_xml(sheets[name])
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, text in parts.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            archive.writestr(info, text.encode("utf-8"))
