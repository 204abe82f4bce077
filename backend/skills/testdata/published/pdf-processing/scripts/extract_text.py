#!/usr/bin/env python3
"""Print the text of every page of a PDF, one page after another."""
import sys

from pypdf import PdfReader


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: extract_text.py FILE.pdf", file=sys.stderr)
        return 2
    reader = PdfReader(sys.argv[1])
    for number, page in enumerate(reader.pages, start=1):
        print(f"--- page {number} ---")
        print(page.extract_text() or "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
