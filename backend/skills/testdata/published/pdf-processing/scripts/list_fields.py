#!/usr/bin/env python3
"""List the fillable fields of a PDF form as JSON."""
import json
import sys

from pypdf import PdfReader

fields = PdfReader(sys.argv[1]).get_fields() or {}
print(json.dumps({name: str(f.get("/FT", "")) for name, f in fields.items()}, indent=2))
