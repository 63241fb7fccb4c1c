"""The generated sections of docs/PERFORMANCE.md: each suite of scripts/bench.d owns the text between
"<!-- BEGIN NAME -->" and "<!-- END NAME -->" and replaces it whole when it runs, so that suites never overwrite
each other's results (text outside the markers is kept). A suite with a picture (plots.SUITES) gets the link to
bench-results/NAME.png right under its section's first "## " heading (or at its top if it has none), whatever the
suite's own writer emits, so a rerun never loses the link.

    python3 scripts/lib/perfdoc.py replace NAME BODY_FILE   (what perf-section.sh's replace_perf_section runs)
    python3 scripts/lib/perfdoc.py link NAME                (adds the picture link to the current section)
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plots import SUITES  # noqa: E402  (plots imports matplotlib only when drawing)

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                   "docs", "PERFORMANCE.md")


def image_line(name):
    return f"![{name}: bench-results/{name}.json drawn by scripts/lib/plots.py](../bench-results/{name}.png)"


def with_image(name, body):
    """body with the picture link of suite name under its first '## ' heading (top if none); unchanged if the
    suite has no picture or the link is already there."""
    if name not in SUITES or f"(../bench-results/{name}.png)" in body:
        return body
    lines = body.strip("\n").split("\n")
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("## ")), 0)
    if at == 0:
        return "\n".join([image_line(name), ""] + lines)
    gap = [""] if at < len(lines) and lines[at].strip() else []
    return "\n".join(lines[:at] + ["", image_line(name)] + gap + lines[at:])


def _read():
    if not os.path.exists(DOC):
        return "# Performance\n"
    with open(DOC) as f:
        return f.read()


def _markers(name):
    return f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"


def replace(name, body):
    text = _read()
    begin, end = _markers(name)
    block = f"{begin}\n{with_image(name, body).rstrip()}\n{end}"
    if begin in text and end in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda m: block, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    with open(DOC, "w") as f:
        f.write(text)


def link(name):
    """Adds the picture link to the existing section of name (no-op if absent or already linked)."""
    text = _read()
    begin, end = _markers(name)
    m = re.search(re.escape(begin) + "\n(.*?)" + re.escape(end), text, re.S)
    if m:
        replace(name, m.group(1))


def main(argv):
    if len(argv) == 3 and argv[0] == "replace":
        with open(argv[2]) as f:
            replace(argv[1], f.read())
    elif len(argv) == 2 and argv[0] == "link":
        link(argv[1])
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
