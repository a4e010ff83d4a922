#!/usr/bin/env bash
# Download the newest unexpired artifact named $BASELINE_ARTIFACT uploaded by a run on the
# default branch into $BASELINE_DIR. Writes found=true|false to $GITHUB_OUTPUT; never fails the
# job (no baseline = the first run, or an expired one: the crawl then runs without --baseline).
set -uo pipefail
mkdir -p "$BASELINE_DIR"
found=false
if default=$(gh api "repos/$GITHUB_REPOSITORY" --jq .default_branch 2>/dev/null); then
  id=$(gh api "repos/$GITHUB_REPOSITORY/actions/artifacts?name=$BASELINE_ARTIFACT&per_page=100" \
    --jq "[.artifacts[] | select(.expired | not) | select(.workflow_run.head_branch == \"$default\")] | sort_by(.created_at) | last | .id // empty" 2>/dev/null)
  if [ -n "${id:-}" ] && gh api "repos/$GITHUB_REPOSITORY/actions/artifacts/$id/zip" > "$RUNNER_TEMP/spacrawl-baseline.zip" \
    && unzip -q -o "$RUNNER_TEMP/spacrawl-baseline.zip" -d "$BASELINE_DIR" && [ -f "$BASELINE_DIR/pages.jsonl" ]; then
    found=true
    echo "baseline: artifact $id of $default"
  fi
fi
[ "$found" = true ] || echo "::notice title=spacrawl::no baseline artifact \"$BASELINE_ARTIFACT\" of the default branch yet: this run is not compared"
echo "found=$found" >> "$GITHUB_OUTPUT"
