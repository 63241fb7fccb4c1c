# Sourced by benchmark suites. replace_perf_section NAME FILE: replaces the text between
# "<!-- BEGIN NAME -->" and "<!-- END NAME -->" in docs/PERFORMANCE.md by the contents of FILE
# (appending the section if it is missing), so that suites never overwrite each other's results.
replace_perf_section() {
  local name="$1" body="$2" doc
  doc="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/docs/PERFORMANCE.md"
  python3 - "$doc" "$name" "$body" <<'PY'
import sys, re, pathlib
doc, name, body = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3]).read_text()
text = doc.read_text() if doc.exists() else "# Performance\n"
begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
block = f"{begin}\n{body.rstrip()}\n{end}"
if begin in text and end in text:
    text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda m: block, text, flags=re.S)
else:
    text = text.rstrip() + "\n\n" + block + "\n"
doc.write_text(text)
PY
}
