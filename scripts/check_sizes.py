#!/usr/bin/env python3
"""Checks that the Rust code a reader meets stays small enough to hold: no file under `crates/`
or `src/` with more than 600 lines of code (lines with something other than whitespace and
comments), and no function longer than 80 lines (from `fn` to its closing brace). Run by
scripts/test.sh; prints each file or function over a limit and fails.

Exceptions are listed below with the reason each may exceed its limit."""

import re
import sys
from pathlib import Path

MAX_FILE_CODE_LINES = 600
MAX_FUNCTION_LINES = 80

# "path" (a file) or "path::function" -> why it may exceed its limit.
EXCEPTIONS = {}

CHAR_LITERAL = re.compile(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'\n])'")
RAW_STRING_START = re.compile(r'b?r(#*)"')
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def lex(text):
    """Code tokens `(line, token)` (identifiers and the punctuation `{ } ( ) [ ] ;`), and the
    set of lines holding code (string literals included, comments not)."""
    tokens, code_lines = [], set()
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        elif (m := RAW_STRING_START.match(text, i)) and (i == 0 or not text[i - 1].isalnum()):
            close = '"' + m.group(1)
            end = text.find(close, m.end())
            end = n if end < 0 else end + len(close)
            for k in range(line, line + text.count("\n", i, end) + 1):
                code_lines.add(k)
            line += text.count("\n", i, end)
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            end = min(j + 1, n)
            for k in range(line, line + text.count("\n", i, end) + 1):
                code_lines.add(k)
            line += text.count("\n", i, end)
            i = end
        elif c == "'" and (m := CHAR_LITERAL.match(text, i)):
            code_lines.add(line)
            i = m.end()
        elif m := IDENT.match(text, i):
            code_lines.add(line)
            tokens.append((line, m.group(0)))
            i = m.end()
        else:
            code_lines.add(line)
            if c in "{}()[];":
                tokens.append((line, c))
            i += 1
    return tokens, code_lines


def functions(tokens):
    """`(name, first line, lines)` of every function with a body."""
    found, open_fns, pending = [], [], None
    depth = nesting = 0
    for k, (line, tok) in enumerate(tokens):
        if tok == "fn" and k + 1 < len(tokens) and IDENT.fullmatch(tokens[k + 1][1]):
            pending = (tokens[k + 1][1], line, nesting)
        elif tok in "([":
            nesting += 1
        elif tok in ")]":
            nesting -= 1
        elif tok == ";" and pending and nesting == pending[2]:
            pending = None  # a declaration without a body
        elif tok == "{":
            if pending and nesting == pending[2]:
                open_fns.append((pending[0], pending[1], depth))
                pending = None
            depth += 1
        elif tok == "}":
            depth -= 1
            if open_fns and open_fns[-1][2] == depth:
                name, first, _ = open_fns.pop()
                found.append((name, first, line - first + 1))
    return found


def main():
    root = Path(__file__).resolve().parent.parent
    paths = sorted([*root.glob("crates/*/src/**/*.rs"), *root.glob("src/**/*.rs")])
    failures = []
    for path in paths:
        rel = path.relative_to(root).as_posix()
        tokens, code_lines = lex(path.read_text(encoding="utf-8"))
        if len(code_lines) > MAX_FILE_CODE_LINES and rel not in EXCEPTIONS:
            failures.append(f"{rel}: {len(code_lines)} lines of code (at most {MAX_FILE_CODE_LINES})")
        for name, first, length in functions(tokens):
            if length > MAX_FUNCTION_LINES and f"{rel}::{name}" not in EXCEPTIONS:
                failures.append(
                    f"{rel}:{first}: fn {name} is {length} lines (at most {MAX_FUNCTION_LINES})"
                )
    for failure in failures:
        print(failure)
    if failures:
        print(f"{len(failures)} over the limits: split them (scripts/check_sizes.py)")
        return 1
    print(f"sizes: {len(paths)} files, none over {MAX_FILE_CODE_LINES} lines of code, "
          f"no function over {MAX_FUNCTION_LINES} lines ({len(EXCEPTIONS)} listed exception)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
