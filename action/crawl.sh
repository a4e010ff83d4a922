#!/usr/bin/env bash
# Run the crawl into $REPORT_DIR, against the baseline when one was downloaded. The exit code
# goes to $GITHUB_OUTPUT (exit-code); the step itself succeeds so that the report is uploaded
# and the comment posted before the verdict step fails the job.
set -uo pipefail
# $INPUT_FLAGS split like a command line, quotes honoured, nothing expanded (xargs, not eval).
extra=()
if [ -n "${INPUT_FLAGS// }" ]; then
  mapfile -t extra < <(printf '%s' "$INPUT_FLAGS" | xargs -n1 printf '%s\n') || { echo "::error title=spacrawl::cannot split flags: $INPUT_FLAGS"; exit 1; }
fi
args=(crawl "$INPUT_URL" --output-dir "$REPORT_DIR" --no-progress)
if [ -f "$BASELINE_DIR/pages.jsonl" ]; then
  args+=(--baseline "$BASELINE_DIR" --fail-on "$INPUT_FAIL_ON")
else
  # The first run has nothing to compare with: "new" entries are left out, plain rule ids stay.
  plain=$(printf '%s' "$INPUT_FAIL_ON" | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -v -E '^new(:|$)' | paste -sd, -)
  args+=(--fail-on "${plain:-none}")
fi
node "$SPACRAWL_BIN" "${args[@]}" "${extra[@]}"
code=$?
echo "exit-code=$code" >> "$GITHUB_OUTPUT"
# 2 and 3 (bad usage, infrastructure) leave no report worth publishing: fail here.
if [ "$code" -ge 2 ]; then exit "$code"; fi
exit 0
