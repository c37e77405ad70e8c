#!/usr/bin/env bash
# Checks that README.md and docs/*.md cite nothing a reader cannot follow.
#
#   scripts/check-doc-references.sh [REPO_ROOT]     (default: this script's parent dir)
#
# Two checks, each hit printed as FILE:LINE: text:
#
# 1. References to documents outside the repository: the product SPEC ("SPEC",
#    "SPEC.md", "§2.4" section signs not attached to a project document such as
#    "docs/lowering.md §3"), "../shared/..." paths, issue-tracker numbers
#    ("issue 17", "issues 19 and 21", "issue #12", "#12", "PR 7") and work
#    sessions ("session 5"). Fenced code blocks and inline code spans are not
#    searched for tracker numbers, so task numbers such as "#0 -> #2" in
#    printed output and the verb "issue" ("issues 2 instructions") do not trip
#    it.
# 2. Relative markdown links, [text](path) and [label]: path, outside code:
#    the file or folder they name (anchor and query removed) must exist,
#    relative to the linking file (a leading "/" means the repository root).
#
# Exit status: 0 no hit, 1 some hit, 2 usage error.
set -euo pipefail

usage() {
  echo "usage: $0 [REPO_ROOT]" >&2
  exit 2
}

[[ $# -le 1 ]] || usage
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${1:-"$script_dir/.."}
[[ -d $root ]] || { echo "$0: no such directory: $root" >&2; exit 2; }
root=$(cd "$root" && pwd)

shopt -s nullglob
files=()
[[ -f $root/README.md ]] && files+=("README.md")
for f in "$root"/docs/*.md; do files+=("docs/${f##*/}"); done
[[ ${#files[@]} -gt 0 ]] || { echo "$0: no README.md or docs/*.md under $root" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Prose only: the file with fenced code blocks blanked and inline code spans
# removed, one output line per input line so line numbers stay the same. A code
# span may continue onto the next line (wrapped text); a blank line ends it.
strip_code() {
  awk '
    /^[ \t]*(```|~~~)/ { fence = !fence; print ""; next }
    fence { print ""; next }
    /^[ \t]*$/ { incode = 0; print ""; next }
    {
      out = ""; n = length($0); i = 1
      while (i <= n) {
        c = substr($0, i, 1)
        if (c == "`") {
          while (i <= n && substr($0, i, 1) == "`") i++
          incode = !incode
          continue
        }
        if (!incode) out = out c
        i++
      }
      print out
    }' "$1"
}

# Patterns on the raw text (a SPEC or ../shared path is a reference even in code).
raw_patterns=(
  '\bSPEC\b'
  '(^|[^.\w])\.\./shared\b'
)
# Patterns on the prose only.
prose_patterns=(
  '(?<!\.md )(?<!\.md, )(?<!\.md")(?<!\.md", )§'
  '\b[Ii]ssues? #?[0-9]+\b(?!\s+(instructions?|cycles?|per\b|times\b|at\b|cop(y|ies)\b|loads?\b|stores?\b|flags?\b|waits?\b|barriers?\b|gemms?\b|tasks?\b|units?\b|commands?\b|more\b))'
  '(^|[\s(\[,;:])#[0-9]+\b'
  '\b(PR|[Pp]ull request) ?#?[0-9]+\b'
  '\b[Ss]essions? [0-9]+\b'
)

status=0
hits="$tmp/hits"
: >"$hits"

for rel in "${files[@]}"; do
  file="$root/$rel"
  prose="$tmp/prose"
  strip_code "$file" >"$prose"

  lines=""
  for p in "${raw_patterns[@]}"; do
    lines+=$(grep -nP -- "$p" "$file" | cut -d: -f1 || true)$'\n'
  done
  for p in "${prose_patterns[@]}"; do
    lines+=$(grep -nP -- "$p" "$prose" | cut -d: -f1 || true)$'\n'
  done
  while read -r n; do
    [[ -n $n ]] || continue
    text=$(sed -n "${n}p" "$file" | sed -e 's/^[[:space:]]*//')
    (( ${#text} > 200 )) && text="${text:0:197}..."
    printf '%s:%s: %s\n' "$rel" "$n" "$text" >>"$hits"
  done < <(printf '%s' "$lines" | sort -n -u)

  # Links: inline [text](dest "title") and reference definitions [label]: dest.
  dir=$(dirname "$file")
  {
    grep -noP '\]\(\s*\K(<[^>]*>|[^)\s]+)' "$prose" || true
    grep -noP '^\s{0,3}\[[^\]]+\]:\s*\K(<[^>]*>|\S+)' "$prose" || true
  } | while IFS=: read -r n dest; do
    dest=${dest#<}
    dest=${dest%>}
    case $dest in
      '' | '#'* | *://* | mailto:* | tel:*) continue ;;
    esac
    path=${dest%%#*}
    path=${path%%\?*}
    path=${path//%20/ }
    [[ -n $path ]] || continue
    if [[ $path == /* ]]; then target="$root$path"; else target="$dir/$path"; fi
    if [[ ! -e $target ]]; then
      printf '%s:%s: link to %s: no such file\n' "$rel" "$n" "$dest" >>"$hits"
    fi
  done
done

if [[ -s $hits ]]; then
  LC_ALL=C sort -t: -k1,1 -k2,2n -s "$hits"
  count=$(wc -l <"$hits")
  echo "check-doc-references: $count reference(s) a reader cannot follow" >&2
  status=1
fi
exit "$status"
