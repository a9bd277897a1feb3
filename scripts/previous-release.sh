#!/usr/bin/env bash
# The previous release, built from its recorded commit, for the upgrade tier (docs/upgrading.md).
#
# The previous release is the newest release/<version>/release.properties by version (keys version,
# commit). Its commit is checked out in a detached `git worktree` (the repository's history must be
# there: CI's clone has it), built with `mvn package -pl ops -am -DskipTests`, and what its CLI needs
# (ops/target/genace-ops.jar and ops/target/lib/*) is copied into a cache directory keyed by version
# and commit; the worktree is removed afterwards. A cache directory already complete is reused as it
# is: a release never changes.
#
# Usage:
#   scripts/previous-release.sh [cache-root]     (default cache-root: ~/.cache/genace)
#       prints, on its last line of stdout, the release's directory, holding
#       version (the release's version), commit, genace-ops.jar and lib/
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${1:-$HOME/.cache/genace}"

die() { echo "previous-release: ERROR: $*" >&2; exit 1; }

# The newest release by version (sort -V), among release/*/release.properties.
newest="$(for f in "$ROOT"/release/*/release.properties; do
  [[ -f "$f" ]] && printf '%s %s\n' "$(sed -n 's/^version=//p' "$f")" "$f"
done | sort -V -k1,1 | tail -n 1)"
[[ -n "$newest" ]] || die "no release/*/release.properties in $ROOT"
PROPERTIES="${newest#* }"
VERSION="$(sed -n 's/^version=//p' "$PROPERTIES")"
COMMIT="$(sed -n 's/^commit=//p' "$PROPERTIES")"
[[ "$VERSION" =~ ^[0-9A-Za-z.+-]+$ ]] || die "no usable version= in $PROPERTIES"
[[ "$COMMIT" =~ ^[0-9a-f]{40}$ ]] || die "no full commit= (40 hex digits) in $PROPERTIES"

TARGET="$CACHE_ROOT/release-$VERSION-${COMMIT:0:12}"
if [[ -f "$TARGET/complete" ]]; then
  echo "previous-release: $VERSION (${COMMIT:0:12}) from the cache $TARGET" >&2
  echo "$TARGET"
  exit 0
fi

git -C "$ROOT" cat-file -e "$COMMIT^{commit}" 2>/dev/null \
  || die "commit $COMMIT of release $VERSION is not in this clone (a shallow clone? fetch its history)"

mkdir -p "$CACHE_ROOT"
WORKTREE="$(mktemp -d "$CACHE_ROOT/.release-$VERSION-build.XXXXXX")"
LOG="$WORKTREE.log"
PARTIAL="$TARGET.partial.$$"
cleanup() {
  git -C "$ROOT" worktree remove --force "$WORKTREE" >/dev/null 2>&1 || rm -rf "$WORKTREE"
  git -C "$ROOT" worktree prune >/dev/null 2>&1 || true
  rm -rf "$PARTIAL" "$LOG"
}
trap cleanup EXIT

# One progress line: its end is written when the build has ended.
printf 'previous-release: building %s (%s) in a git worktree... ' "$VERSION" "${COMMIT:0:12}" >&2
started=$SECONDS
# The worktree directory must not exist for `git worktree add`; mktemp reserved its name.
rmdir "$WORKTREE"
if ! git -C "$ROOT" worktree add --detach "$WORKTREE" "$COMMIT" >"$LOG" 2>&1 \
  || ! (cd "$WORKTREE" && mvn -B -q -DskipTests -Dspotless.check.skip=true package \
    -pl ops -am) >>"$LOG" 2>&1; then
  echo "failed" >&2
  echo "previous-release: ERROR: building $VERSION (${COMMIT:0:12}) failed; the log's tail follows" >&2
  tail -n 40 "$LOG" >&2
  exit 1
fi
[[ -f "$WORKTREE/ops/target/genace-ops.jar" && -d "$WORKTREE/ops/target/lib" ]] \
  || { echo "failed" >&2; die "the build of $VERSION left no ops/target/genace-ops.jar and ops/target/lib"; }

mkdir -p "$PARTIAL"
cp "$WORKTREE/ops/target/genace-ops.jar" "$PARTIAL/"
cp -r "$WORKTREE/ops/target/lib" "$PARTIAL/lib"
echo "$VERSION" >"$PARTIAL/version"
echo "$COMMIT" >"$PARTIAL/commit"
touch "$PARTIAL/complete"
rm -rf "$TARGET"
mv "$PARTIAL" "$TARGET"
echo "built in $((SECONDS - started)) s into $TARGET" >&2
echo "$TARGET"
