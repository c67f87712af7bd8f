#!/bin/sh
# Runs a command with a PATH that holds only the programs scripts/programs.txt lists (links in a
# temporary folder), so a test or bench that runs an unlisted program fails with ENOENT here, as
# it would on a fresh machine, instead of passing on programs left over from earlier work.
# The command itself is found on the full PATH (npm puts node_modules/.bin there).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
links=$(mktemp -d)
trap 'rm -rf "$links"' EXIT INT TERM
# The file, not a shell builtin of the same name; Debian's own copy first: a version manager's
# shim (pyenv) is not what a fresh machine has; daemons (haproxy) are in sbin, which a user's PATH may lack.
find_program() {
  for dir in /usr/local/bin /usr/bin /bin /usr/sbin /sbin $(echo "$PATH" | tr ':' ' '); do
    if [ -f "$dir/$1" ] && [ -x "$dir/$1" ]; then echo "$dir/$1"; return 0; fi
  done
  return 1
}
missing=""
while read -r program source _; do
  case "$program" in ''|'#'*) continue ;; esac
  if found=$(find_program "$program"); then ln -s "$found" "$links/$program"
  else missing="$missing $program ($source)"; fi
done < "$root/scripts/programs.txt"
if [ -n "$missing" ]; then
  echo "not installed:$missing; run sh scripts/install-system-deps.sh" >&2
  exit 1
fi
command=$(command -v "$1") || { echo "no command $1" >&2; exit 127; }
shift
status=0
PATH="$links" "$command" "$@" || status=$?
exit "$status"
