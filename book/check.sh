#!/usr/bin/env bash
# Builds the book (mdbook build book) and fails on anything broken: an mdbook warning or
# error (a missing {{#include}} file or anchor is one), an include left unexpanded, or a
# relative link or image in the generated HTML that points at no file.
# Usage: book/check.sh   (needs mdbook on PATH; .ci/run installs the pinned version)
set -euo pipefail

BOOK="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$(cd "$BOOK/.." && pwd)/target/book"
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT

rm -rf "$OUT"
if ! mdbook build "$BOOK" >"$LOG" 2>&1; then
    cat "$LOG"
    echo "book: mdbook build failed" >&2
    exit 1
fi
if grep -E "WARN|ERROR" "$LOG"; then
    echo "book: mdbook reported problems (above)" >&2
    exit 1
fi

python3 - "$OUT" "$BOOK/src" <<'PY'
import html.parser, os, re, sys, urllib.parse

out, src = sys.argv[1], sys.argv[2]
problems = []

# Every listing marker must have been expanded, and every anchor must have matched.
for name in os.listdir(src):
    if name.endswith(".md"):
        text = open(os.path.join(src, name), encoding="utf-8").read()
        for inc in re.findall(r"\{\{#include ([^}]+)\}\}", text):
            path, _, anchor = inc.strip().partition(":")
            target = os.path.normpath(os.path.join(src, path))
            if not os.path.isfile(target):
                problems.append(f"{name}: include of a missing file {path}")
            elif anchor and not anchor[0].isdigit():
                body = open(target, encoding="utf-8").read()
                if f"ANCHOR: {anchor}" not in body or f"ANCHOR_END: {anchor}" not in body:
                    problems.append(f"{name}: {path} has no anchor {anchor}")

class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs = []
    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("href", "src") and value:
                self.refs.append(value)

pages = 0
for root, _, files in os.walk(out):
    for name in files:
        if not name.endswith(".html"):
            continue
        pages += 1
        page = os.path.join(root, name)
        text = open(page, encoding="utf-8").read()
        if "{{#include" in text:
            problems.append(f"{os.path.relpath(page, out)}: an unexpanded include")
        parser = Links()
        parser.feed(text)
        for ref in parser.refs:
            url = urllib.parse.urlparse(ref)
            if url.scheme or ref.startswith(("#", "//", "mailto:")):
                continue
            target = os.path.normpath(os.path.join(root, urllib.parse.unquote(url.path)))
            if url.path and not os.path.exists(target):
                problems.append(f"{os.path.relpath(page, out)}: broken link {ref}")

if pages < 12:
    problems.append(f"only {pages} pages were built")
for p in problems:
    print("book:", p, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"book: {pages} pages, includes and links checked")
PY
