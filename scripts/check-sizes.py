#!/usr/bin/env python3
"""Keeps the source in rooms a reader can hold: no file under src/ over 1,500
lines, no function over 150 (a function is a definition that starts at the
left margin and ends at the next `}` there: every free and out-of-class member
function in this code base). Prints each offender; exits 1 if there is one.

Usage: scripts/check-sizes.py [ROOT]
"""
import pathlib
import re
import sys

MAX_FILE_LINES = 1500
MAX_FUNCTION_LINES = 150
# Known offenders, each with the reason it is not split yet (a note in the
# tracker says more). Remove an entry when its function is split.
ALLOWED = {
}

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
start = re.compile(r"^[A-Za-z].*\(")
not_function = re.compile(r"^(namespace|struct|class|enum|union|using|static_assert|template|#)")
problems = []
for path in sorted((root / "src").rglob("*")):
    if path.suffix not in (".cpp", ".h"):
        continue
    lines = path.read_text().split("\n")
    rel = path.relative_to(root).as_posix()
    if len(lines) > MAX_FILE_LINES:
        problems.append(f"{rel}: {len(lines)} lines (at most {MAX_FILE_LINES})")
    i = 0
    while i < len(lines):
        if start.match(lines[i]) and not not_function.match(lines[i]):
            j = i
            # A one-line body (`{ return x; }`) ends the signature too.
            while j < len(lines) and j - i < 8 and not lines[j].rstrip().endswith(("{", ";", "}")):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith("{"):
                k = j + 1
                while k < len(lines) and not lines[k].startswith("}"):
                    k += 1
                length = k - i + 1
                name = re.sub(r"\(.*", "", lines[i]).split()[-1]
                if length > MAX_FUNCTION_LINES and ALLOWED.get(f"{rel}:{name}") is None:
                    problems.append(f"{rel}:{i + 1}: {name} is {length} lines "
                                    f"(at most {MAX_FUNCTION_LINES})")
                i = k
        i += 1
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
