# Sourced by benchmark suites.
# replace_perf_section NAME FILE: replaces the text between "<!-- BEGIN NAME -->" and "<!-- END NAME -->" in
#   docs/PERFORMANCE.md by the contents of FILE (appending the section if it is missing), so that suites never
#   overwrite each other's results; the link to the suite's picture bench-results/NAME.png goes under the
#   section's heading (scripts/lib/perfdoc.py).
# plot_suite NAME: draws bench-results/NAME.json into bench-results/NAME.png (scripts/lib/plots.py, with the
#   matplotlib that scripts/setup installs into .venv) and makes sure the section links it.
replace_perf_section() {
  local lib
  lib="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  python3 "$lib/perfdoc.py" replace "$1" "$2"
}

plot_suite() {
  local name="$1" lib root py
  lib="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  root="$(cd "$lib/../.." && pwd)"
  py="$root/.venv/bin/python"
  if ! "$py" -c 'import matplotlib' 2>/dev/null; then
    if python3 -c 'import matplotlib' 2>/dev/null; then
      py=python3
    else
      echo "plot: matplotlib is not installed in $root/.venv: run scripts/setup, then scripts/bench plot $name" >&2
      return 1
    fi
  fi
  "$py" "$lib/plots.py" "$root/bench-results/$name.json" && python3 "$lib/perfdoc.py" link "$name"
}
