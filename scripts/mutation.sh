#!/usr/bin/env bash
# mutation.sh: the mutation score of the safety code (docs/testing.md,
# "Mutation score of the safety code"). Runs gremlins over exactly the
# decision files below, against the unit tests of the packages that hold or
# drive them plus the lifecycle model checker's quick tier (what
# `go test ./tools/lifecycle` runs by default), and prints the score.
#
# gremlins' integration mode runs `go test ./...` for every mutant; the
# module's ./... holds the real-cluster packages, so a `go` shim first in
# PATH replaces that ./... with the packages below, in stages that stop at
# the first failure (a failure of any stage is a failure of the whole set;
# the stages only order the cheap tests first):
#   1. the unit tests of stores, activities and activities/reconcile;
#   2. those of stores/embedded (the store conformance suite over
#      decide.go), workflows (with workflows/lifecycle_test.go) and
#      workflows/reconcile (with workflows/reconcile/lifecycle_test.go);
#   3. tools/lifecycle with its first 1500 schedules (a prefix of stage 4);
#   4. tools/lifecycle as `go test ./tools/lifecycle` runs it (10000
#      schedules).
# The coverage run (which decides which mutants are covered) runs all of
# them at once with -coverpkg over the mutated packages, never from the test
# cache (its time, times the coefficient, is each mutant's timeout); its
# profile is then widened to the case expressions of every switch the tests
# enter, which Go's coverage blocks leave out (scripts/mutation/casecover.go):
# without that gremlins would skip every mutant of a `case` as NOT COVERED.
#
# Environment:
#   FINALIZER_CACHE   cache root (default $HOME/.cache/checkpoint-finalizer)
#   MUTATION_OUT      the JSON report (default $TMPDIR/mutation.json)
#   MUTATION_FILES    space-separated subset of the files below (partial run)
# Run it under `nice -n 19` on a shared machine; it uses one worker.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=v0.6.0
CACHE="${FINALIZER_CACHE:-$HOME/.cache/checkpoint-finalizer}"
DIR="$CACHE/gremlins/$VERSION"
BIN="$DIR/gremlins"
if [[ ! -x "$BIN" ]]; then
  if [[ -x "$(go env GOPATH)/bin/gremlins" ]] &&
    go version -m "$(go env GOPATH)/bin/gremlins" | grep -q "gremlins[[:space:]]*$VERSION"; then
    BIN="$(go env GOPATH)/bin/gremlins"
  else
    mkdir -p "$DIR"
    GOFLAGS= GOBIN="$DIR" go install "github.com/go-gremlins/gremlins/cmd/gremlins@$VERSION"
  fi
fi

FILES=(
  stores/decide.go stores/standing.go stores/jobstate.go
  activities/guard.go activities/remove.go activities/discard.go activities/verify.go
)
while read -r f; do FILES+=("$f"); done < <(ls activities/reconcile/*.go | grep -v '_test\.go$')
if [[ -n "${MUTATION_FILES:-}" ]]; then
  read -r -a FILES <<<"$MUTATION_FILES"
fi

MOD=$(go list -m)
OWN=(./stores ./activities ./activities/reconcile)
DRIVERS=(./stores/embedded ./workflows ./workflows/reconcile)
UNIT=("${OWN[@]}" "${DRIVERS[@]}")
MODEL=./tools/lifecycle

# Every other non-test Go file of the module is excluded, each by its exact
# path (gremlins' exclusions are regular expressions, RE2 has no negation).
EXCLUDE=()
while read -r f; do
  keep=0
  for t in "${FILES[@]}"; do [[ "$f" == "$t" ]] && keep=1; done
  if [[ $keep == 0 ]]; then EXCLUDE+=(-E "^${f//./\\.}\$"); fi
done < <(find . -name '*.go' ! -name '*_test.go' -not -path './.git/*' | sed 's|^\./||' | sort)

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
OUT="${MUTATION_OUT:-$WORK/mutation.json}"
REALGO=$(command -v go)
mkdir -p "$WORK/bin"
cat >"$WORK/bin/go" <<EOF
#!/usr/bin/env bash
# The go shim of scripts/mutation.sh: \`go test [flags] ./...\` runs the
# packages of the mutation run instead of the whole module.
if [[ "\$1" != test || "\${!#}" != ./... ]]; then exec "$REALGO" "\$@"; fi
args=("\${@:1:\$#-1}")
for i in "\${!args[@]}"; do
  if [[ "\${args[\$i]}" == -coverprofile ]]; then
    "$REALGO" "\${args[@]}" -count=1 ${UNIT[*]} $MODEL || exit \$?
    exec "$REALGO" run "$PWD/scripts/mutation/casecover.go" "$MOD" "\${args[\$((i + 1))]}"
  fi
done
"$REALGO" "\${args[@]}" ${OWN[*]} || exit \$?
"$REALGO" "\${args[@]}" ${DRIVERS[*]} || exit \$?
"$REALGO" "\${args[@]}" $MODEL -model.schedules=1500 || exit \$?
exec "$REALGO" "\${args[@]}" $MODEL
EOF
chmod +x "$WORK/bin/go"

COVERPKG=$(printf '%s\n' "${FILES[@]}" | xargs -n1 dirname | sort -u | sed "s|^|$MOD/|" | paste -sd, -)
echo "mutating ${#FILES[@]} files: ${FILES[*]}"
start=$(date +%s)
PATH="$WORK/bin:$PATH" "$BIN" unleash . --integration --workers 1 --timeout-coefficient 4 \
  --coverpkg "$COVERPKG" "${EXCLUDE[@]}" -o "$OUT"
end=$(date +%s)

echo
echo "wall time: $(((end - start) / 60))m$(((end - start) % 60))s"
# Per package: killed, lived, not covered, timed out, not viable, and the
# score (killed over killed + lived, gremlins' test efficacy).
jq -r '
  [.files[] | {pkg: (.file_name | split("/") | .[:-1] | join("/")), m: .mutations[]}]
  | group_by(.pkg)[]
  | {pkg: .[0].pkg,
     k: map(select(.m.status == "KILLED")) | length,
     l: map(select(.m.status == "LIVED")) | length,
     n: map(select(.m.status == "NOT COVERED")) | length,
     t: map(select(.m.status == "TIMED OUT")) | length,
     v: map(select(.m.status == "NOT VIABLE")) | length}
  | "\(.pkg): killed \(.k), lived \(.l), not covered \(.n), timed out \(.t), not viable \(.v), score \(if .k + .l > 0 then "\((1000 * .k / (.k + .l) | floor) / 10)%" else "-" end)"' "$OUT"
echo "lived:"
jq -r '.files[] | .file_name as $f | .mutations[] | select(.status == "LIVED") | "  \($f):\(.line):\(.column) \(.type)"' "$OUT"
jq -r '([.files[].mutations[] | select(.status == "TIMED OUT")] | length) as $t
  | "total: killed \(.mutants_killed), lived \(.mutants_lived), not covered \(.mutants_not_covered), timed out \($t), not viable \(.mutants_not_viable); score (test efficacy) \(.test_efficacy | . * 10 | floor / 10)%, mutant coverage \(.mutations_coverage | . * 10 | floor / 10)%"' "$OUT"
