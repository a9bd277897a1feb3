#!/usr/bin/env python3
"""Prints the fenced code block that follows `<!-- ci-example: NAME -->` in a Markdown file, so
that CI runs exactly what the documentation shows. Exits 1 when the marker or its block is missing.

Usage: scripts/readme-example.py FILE.md NAME   (README.md python, docs/clients.md http-start...)
"""
import re
import sys

path, name = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
match = re.search(r"<!-- ci-example: " + re.escape(name) + r" -->\s*```[a-z]*\n(.*?)```", text, re.S)
if not match:
    sys.exit(f"readme-example: no block marked ci-example: {name} in {path}")
sys.stdout.write(match.group(1))
