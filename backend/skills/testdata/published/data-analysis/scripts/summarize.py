#!/usr/bin/env python3
"""Print a short summary of a CSV file: columns, types, missing values."""
import csv
import sys

with open(sys.argv[1], newline="", encoding="utf-8") as f:
    rows = list(csv.DictReader(f))
print(f"{len(rows)} rows")
for col in (rows[0].keys() if rows else []):
    missing = sum(1 for r in rows if not r[col])
    print(f"- {col}: {missing} missing")
