#!/usr/bin/env python3
"""docs/PERFORMANCE.md section of `scripts/fuzz formats` (issue 19) from bench-results/fuzz-formats.json:
   fuzz_section.py JSON COMMAND CORES > section.md"""
import json
import sys

d = json.load(open(sys.argv[1]))
print("## Fuzzing of the decoders and persisted formats (issue 19)\n")
print(f"`{sys.argv[2]}` (seed {d['seed']}; every target in one JVM, one per core at a time; file formats read by the node's "
      "own readers from files in /dev/shm). Contract per input: clean rejection or acceptance; no Error; at most "
      "64 x input length + 8 MiB allocated by the decode; at most 5 s; no accepted change of checksummed bytes. "
      f"This machine has {sys.argv[3]} cores shared with other engineers: the times are only indicative.\n")
print("| target | inputs | accepted | rejected | violations | max allocated per input | max ms per input |")
print("|---|---|---|---|---|---|---|")
for t in d["targets"]:
    print(f"| {t['target']} | {t['inputs']} | {t['accepted']} | {t['rejected']} | {t['violations']} | "
          f"{t['max_allocated_bytes'] / 1048576:.1f} MiB | {t['max_millis']} |")
print(f"\nTotal violations: {d['violations']}. Before the fixes of issue 19 these runs found: StripeLayout k+m integer "
      "overflow (OutOfMemoryError), NodeSnapshot 2^31 x 0 cells (OutOfMemoryError), a NUL in a redirect path "
      "(InvalidPathException), a self-referencing YAML alias in `elect:` (StackOverflowError), a null entry in a list "
      "field of a verb payload (STUB_RELAYOUT's parity locators: NullPointerException); see docs/security.md.")
