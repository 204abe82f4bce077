#!/usr/bin/env python3
"""Fill a PDF form from a JSON file of field values."""
import json
import sys

from pypdf import PdfReader, PdfWriter

src, values_file, out = sys.argv[1:4]
writer = PdfWriter(clone_from=PdfReader(src))
with open(values_file, encoding="utf-8") as f:
    values = json.load(f)
for page in writer.pages:
    writer.update_page_form_field_values(page, values)
with open(out, "wb") as f:
    writer.write(f)
