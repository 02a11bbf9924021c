#!/usr/bin/env bash
# jobmanager.sh: a job manager's side of the checkpoint finalizer with
# nothing but the `temporal` CLI, jq and sha256sum: it claims its epoch,
# recovers from the restore point the claim answers, writes each
# checkpoint's files into the state bucket, triggers its finalization
# idempotently and acknowledges it only once Published. Every payload is
# built here, from docs/contract.md, the workflow contract; see also its
# "Job managers in other languages".
#
#   jobmanager.sh run [epoch]                  the whole loop: claim, 3 checkpoints, latest
#   jobmanager.sh claim <epoch> <owner>        ClaimEpoch; prints the restore point
#   jobmanager.sh write <checkpoint>           the checkpoint's files into the bucket
#   jobmanager.sh finalize <epoch> <checkpoint> [maxPublishAttempts]   as JM_OWNER
#   jobmanager.sh status <epoch> <checkpoint>  the `status` query
#   jobmanager.sh retry-now <epoch> <checkpoint>
#   jobmanager.sh wait <epoch> <checkpoint>    the result; exit 0 only on Published
#   jobmanager.sh latest                       LatestCheckpoint
#   jobmanager.sh hash < request.json          the canonical form and content hash of a request
#
# Environment: TEMPORAL_CLI (temporal), TEMPORAL_ADDRESS (127.0.0.1:7233),
# TEMPORAL_NAMESPACE (default), FINALIZER_TASK_QUEUE (checkpoint-finalizer),
# JM_STATE_DIR (the file bucket's directory, finalizer-data/state),
# JM_CLUSTER, JM_JOB, JM_OWNER (this job manager's identity, e.g. its leader
# session ID: the owner `run` claims its epoch with, and the owner every
# `finalize` names, which must be the one the epoch was claimed with;
# `finalize` requires it, `run` makes one up without it).
#
# Every command prints one JSON line on stdout. Exit codes: 0 done, 1 error,
# 2 usage, 3 claim rejected (a newer or another claim stands), 4 a different
# content holds this finalization's identity, 5 the finalization ended
# other than Published.
set -euo pipefail

TEMPORAL_CLI=${TEMPORAL_CLI:-temporal}
ADDRESS=${TEMPORAL_ADDRESS:-127.0.0.1:7233}
NAMESPACE=${TEMPORAL_NAMESPACE:-default}
QUEUE=${FINALIZER_TASK_QUEUE:-checkpoint-finalizer}
STATE_DIR=${JM_STATE_DIR:-finalizer-data/state}
CLUSTER=${JM_CLUSTER:-}
JOB=${JM_JOB:-}
OWNER=${JM_OWNER:-}

die() { local code=$1; shift; printf 'jobmanager: %s\n' "$*" >&2; exit "$code"; }
usage() {
  die 2 "usage: jobmanager.sh run [epoch] | claim <epoch> <owner> | write <checkpoint> |" \
    "finalize <epoch> <checkpoint> [maxPublishAttempts] | status|retry-now|wait <epoch> <checkpoint> | latest | hash"
}

# Cluster and job IDs are DNS-1123 labels, numbers are positive integers:
# nothing below needs JSON escaping.
label='^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'
labels() { [[ $1 =~ $label && $2 =~ $label ]] || die 2 "$3 must be DNS-1123 labels ([a-z0-9-], 1-63 characters)"; }
# Numbers stay below 10^15: jq (1.6) holds JSON numbers as doubles.
uint() { [[ ${1:-} =~ ^[1-9][0-9]{0,14}$ ]] || die 2 "$2: want a positive integer below 10^15, got '${1:-}'"; }

sha256() { if command -v sha256sum >/dev/null; then sha256sum | cut -d' ' -f1; else shasum -a 256 | cut -d' ' -f1; fi; }

errors=$(mktemp)
trap 'rm -f "$errors"' EXIT

# cli runs `temporal <group> <command>` against our server; its log lines
# (errors included) go to $errors.
cli() {
  local group=$1 command=$2
  shift 2
  "$TEMPORAL_CLI" "$group" "$command" --address "$ADDRESS" --namespace "$NAMESPACE" "$@" 2>"$errors"
}

# claim claims the epoch and prints the restore point. A claim of the same
# ID that is still running may be another owner's: its outcome is not ours,
# so wait for it to end and claim again.
claim() {
  local epoch=$1 owner=$2 id out input state
  id="claim/$CLUSTER/$JOB/$epoch"
  input=$(jq -cn --arg c "$CLUSTER" --arg j "$JOB" --argjson e "$epoch" --arg o "$owner" \
    '{cluster: $c, job: $j, epoch: $e, owner: $o}')
  while :; do
    if out=$(cli workflow execute --type ClaimEpoch --workflow-id "$id" --task-queue "$QUEUE" \
      --id-conflict-policy Fail --id-reuse-policy AllowDuplicate --fail-existing \
      --input "$input" -o json); then
      jq -c .result <<<"$out"
      return 0
    fi
    if [[ -n $out ]] && [[ $(jq -r .status <<<"$out") == FAILED ]]; then
      # The workflow failed because its activity did: the store's rejection
      # type (Rejected.StaleEpoch, ...) is on the failure's cause chain.
      jq -c '.closeEvent.workflowExecutionFailedEventAttributes.failure
        | [.. | objects | select((.applicationFailureInfo.type? // "") | startswith("Rejected."))][0]
        | {rejected: .applicationFailureInfo.type, message}' <<<"$out"
      die 3 "claim $id rejected: $(jq -r '[.. | objects | select((.applicationFailureInfo.type? // "") | startswith("Rejected."))][0].message // "failed"' <<<"$out")"
    fi
    # Not started: another claim of this ID still runs, or the start failed.
    state=$(cli workflow describe --workflow-id "$id" -o json | jq -r .workflowExecutionInfo.status) || state=""
    [[ $state == WORKFLOW_EXECUTION_STATUS_RUNNING ]] || die 1 "claim $id: $(cat "$errors")"
    cli workflow result --workflow-id "$id" >/dev/null || true
  done
}

# write puts the checkpoint's files into the bucket, as Flink does before it
# triggers: <cluster>/<job>/chk-<n>/_metadata and a data file.
write() {
  local n=$1 dir
  dir="$STATE_DIR/$CLUSTER/$JOB/chk-$n"
  mkdir -p "$dir"
  printf 'operator state' >"$dir/data-0"
  printf 'metadata of %s/%s checkpoint %s' "$CLUSTER" "$JOB" "$n" >"$dir/_metadata"
  sync "$dir/data-0" "$dir/_metadata" 2>/dev/null || sync
  jq -cn --arg k "$CLUSTER/$JOB/chk-$n/_metadata" --arg s "$(sha256 <"$dir/_metadata")" --arg p "$CLUSTER/$JOB/chk-$n/" \
    '{metadataKey: $k, metadataSha256: $s, exclusivePrefix: $p}'
}

# canonical prints a request's canonical form, the content hash's input:
# compact JSON, the fields in exactly this order, exclusivePrefix omitted
# when empty, savepoint only when true, maxPublishAttempts always (3 when 0
# or none). Strings go in as they are: a valid request's hold nothing JSON
# escapes. With the owner added (with_owner), the form is a valid request.
#   canonical <cluster> <job> <epoch> <checkpoint> <metadataKey> <metadataSha256> <exclusivePrefix> <savepoint> <maxPublishAttempts>
canonical() {
  local max=${9:-3}
  [[ $max != 0 ]] || max=3
  printf '{"cluster":"%s","job":"%s","epoch":%s,"checkpoint":%s,"metadataKey":"%s","metadataSha256":"%s"' "$1" "$2" "$3" "$4" "$5" "$6"
  [[ -z $7 ]] || printf ',"exclusivePrefix":"%s"' "$7"
  [[ $8 != true ]] || printf ',"savepoint":true'
  printf ',"maxPublishAttempts":%s}' "$max"
}

# request prints the canonical form of checkpoint n's request, from its
# metadata in the bucket. The owner is no part of it: see with_owner.
request() {
  local epoch=$1 n=$2 max=${3:-3} prefix sha
  prefix="$CLUSTER/$JOB/chk-$n/"
  [[ -f "$STATE_DIR/${prefix}_metadata" ]] || die 1 "no $STATE_DIR/${prefix}_metadata: write the checkpoint first"
  sha=$(sha256 <"$STATE_DIR/${prefix}_metadata")
  canonical "$CLUSTER" "$JOB" "$epoch" "$n" "${prefix}_metadata" "$sha" "$prefix" false "$max"
}

# with_owner prints the request a finalization starts with: the canonical
# form with the epoch's owner (which the content hash leaves out) after the
# epoch. jq writes the owner's JSON string, whatever it holds.
#   with_owner <canonical form> <owner>
with_owner() {
  jq -c --arg o "$2" '. as $r | {cluster: $r.cluster, job: $r.job, epoch: $r.epoch, owner: $o} + $r' <<<"$1"
}

# hash prints the canonical form and content hash of the request on stdin.
hash_request() {
  local fields c j e n k s p sp m form
  fields=$(jq -r '[.cluster, .job, .epoch, .checkpoint, .metadataKey, .metadataSha256, (.exclusivePrefix // ""),
    (.savepoint // false), (.maxPublishAttempts // 0)] | map(tostring) | join("\u001f")')
  IFS=$'\x1f' read -r c j e n k s p sp m <<<"$fields"
  labels "$c" "$j" "cluster and job"
  uint "$e" epoch
  uint "$n" checkpoint
  [[ $m == 0 ]] || uint "$m" maxPublishAttempts
  [[ $k =~ ^[A-Za-z0-9._/-]+$ && $p =~ ^[A-Za-z0-9._/-]*$ && $s =~ ^[0-9a-f]{64}$ ]] || die 2 "not a valid request: $fields"
  form=$(canonical "$c" "$j" "$e" "$n" "$k" "$s" "$p" "$sp" "$m")
  jq -cn --arg f "$form" --arg h "$(printf '%s' "$form" | sha256)" '{canonical: $f, contentHash: $h}'
}

# finalize is the idempotent trigger: start with the identity's workflow ID,
# failing on a running execution (--id-conflict-policy Fail --fail-existing)
# and refusing to run a completed one again (RejectDuplicate); when it
# stands already, attach to it and compare the content hash its memo
# carries with ours.
# The request names the owner the epoch was claimed with: a finalization
# naming the standing epoch under another owner publishes nothing.
#   finalize <owner> <epoch> <checkpoint> [maxPublishAttempts]
finalize() {
  local owner=$1 epoch=$2 n=$3 max=${4:-3} req hash id out existing run
  req=$(request "$epoch" "$n" "$max")
  hash=$(printf '%s' "$req" | sha256)
  id="finalize/$CLUSTER/$JOB/$epoch/$n"
  if out=$(cli workflow start --type FinalizeCheckpoint --workflow-id "$id" --task-queue "$QUEUE" \
    --id-conflict-policy Fail --id-reuse-policy RejectDuplicate --fail-existing \
    --input "$(with_owner "$req" "$owner")" \
    --memo "summary=\"checkpoint $n of $CLUSTER/$JOB (epoch $epoch)\"" \
    --memo "contentHash=\"$hash\"" \
    --memo "path=2" \
    --search-attribute "CheckpointCluster=\"$CLUSTER\"" \
    --search-attribute "CheckpointJob=\"$JOB\"" \
    --search-attribute "CheckpointEpoch=$epoch" \
    --search-attribute "CheckpointID=$n" \
    --search-attribute 'FinalizationPhase="Persisting"' \
    --search-attribute "PhaseSince=\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"" \
    -o json); then
    jq -c --arg h "$hash" '{workflowId, runId, contentHash: $h, started: true}' <<<"$out"
    return 0
  fi
  # Not started: it stands already (running or completed), or the start
  # failed, in which case there is nothing to describe.
  local started_err
  started_err=$(cat "$errors")
  out=$(cli workflow describe --workflow-id "$id" -o json) || die 1 "finalize $id: $started_err"
  existing=$(jq -r '.workflowExecutionInfo.memo.fields.contentHash // ""' <<<"$out")
  run=$(jq -r .workflowExecutionInfo.execution.runId <<<"$out")
  if [[ $existing != "$hash" ]]; then
    jq -cn --arg id "$id" --arg r "$run" --arg e "$existing" --arg h "$hash" \
      '{workflowId: $id, runId: $r, refused: true, existing: $e, requested: $h}'
    die 4 "$id: a different content holds this identity (its content hash ${existing:-none}, ours $hash)"
  fi
  jq -cn --arg id "$id" --arg r "$run" --arg h "$hash" '{workflowId: $id, runId: $r, contentHash: $h, started: false}'
}

status() {
  local out
  out=$(cli workflow query --workflow-id "finalize/$CLUSTER/$JOB/$1/$2" --type status -o json) || die 1 "status: $(cat "$errors")"
  jq -c '.queryResult[0]' <<<"$out"
}

# retry-now ends a verify backoff; a finalization that ended meanwhile
# needs none.
retry_now() {
  local id="finalize/$CLUSTER/$JOB/$1/$2" state
  if cli workflow signal --workflow-id "$id" --name retry-now >/dev/null; then
    echo '{"signalled":true}'
    return 0
  fi
  local signal_err
  signal_err=$(cat "$errors")
  state=$(cli workflow describe --workflow-id "$id" -o json | jq -r .workflowExecutionInfo.status) || die 1 "retry-now $id: $signal_err"
  [[ $state != WORKFLOW_EXECUTION_STATUS_RUNNING ]] || die 1 "retry-now $id: $signal_err"
  jq -cn --arg s "${state#WORKFLOW_EXECUTION_STATUS_}" '{signalled: false, status: $s}'
}

wait_result() {
  local id="finalize/$CLUSTER/$JOB/$1/$2" out phase
  out=$(cli workflow result --workflow-id "$id" -o json) || die 1 "wait $id: $(cat "$errors")"
  jq -c .result <<<"$out"
  phase=$(jq -r .result.phase <<<"$out")
  [[ $phase == Published ]] || die 5 "$id ended $phase: $(jq -r '.result.reason // ""' <<<"$out")"
}

latest() {
  local out nonce
  nonce="$(date +%s%N)-$$-$RANDOM"
  out=$(cli workflow execute --type LatestCheckpoint --workflow-id "latest/$CLUSTER/$JOB/$nonce" --task-queue "$QUEUE" \
    --input "$(jq -cn --arg c "$CLUSTER" --arg j "$JOB" '{cluster: $c, job: $j}')" -o json) || die 1 "latest: $(cat "$errors")"
  jq -c .result <<<"$out"
}

# run is a job manager's life as a leader: claim (without an epoch, the one
# above the job's standing epoch) as JM_OWNER (without it, an identity of
# this process), recover from what the claim answers, then take three
# checkpoints under that claim, acknowledging each only on Published (the
# last one triggered twice, as after a lost answer).
run() {
  local epoch=${1:-} owner=${OWNER:-jobmanager-cli-$$} restore from next last result again
  [[ -n $epoch ]] || epoch=$(($(latest | jq -r .epoch) + 1))
  restore=$(claim "$epoch" "$owner")
  jq -c --argjson e "$epoch" '{claimed: $e, restore: .}' <<<"$restore"
  case $(jq -r .state <<<"$restore") in
    resolved) from=$(jq -c .latest <<<"$restore") ;;
    dangling)
      from=$(jq -c '.fallback // empty' <<<"$restore")
      [[ -n $from ]] || die 1 "the newest checkpoint does not resolve ($(jq -r .dangling <<<"$restore")) and no older one does"
      ;;
    *) from=null ;;
  esac
  jq -c '{recoverFrom: (.restorePath? // null)}' <<<"$from"
  next=$(($(jq -r '.checkpoint? // 0' <<<"$from") + 1))
  last=$((next + 2))
  for ((; next <= last; next++)); do
    write "$next" >/dev/null
    result=$(finalize "$owner" "$epoch" "$next")
    if ((next == last)); then
      again=$(finalize "$owner" "$epoch" "$next")
      jq -c --argjson first "$result" '{again: ., first: $first.runId}' <<<"$again"
    fi
    result=$(wait_result "$epoch" "$next")
    jq -c --argjson n "$next" '{checkpoint: $n, acknowledged: (.phase == "Published"), result: .}' <<<"$result"
  done
  latest | jq -c '{latest: .}'
}

command=${1:-}
shift || true
[[ $command == hash ]] || labels "$CLUSTER" "$JOB" "JM_CLUSTER and JM_JOB"
case $command in
  run) [[ -z ${1:-} ]] || uint "$1" epoch; run "${1:-}" ;;
  claim) uint "${1:-}" epoch; [[ -n ${2:-} ]] || usage; claim "$1" "$2" ;;
  write) uint "${1:-}" checkpoint; write "$1" ;;
  finalize)
    uint "${1:-}" epoch; uint "${2:-}" checkpoint
    [[ -z ${3:-} ]] || uint "$3" maxPublishAttempts
    [[ -n $OWNER ]] || die 2 "finalize: set JM_OWNER to the owner epoch $1 was claimed with"
    finalize "$OWNER" "$1" "$2" "${3:-3}"
    ;;
  status) uint "${1:-}" epoch; uint "${2:-}" checkpoint; status "$1" "$2" ;;
  retry-now) uint "${1:-}" epoch; uint "${2:-}" checkpoint; retry_now "$1" "$2" ;;
  wait) uint "${1:-}" epoch; uint "${2:-}" checkpoint; wait_result "$1" "$2" ;;
  latest) latest ;;
  hash) hash_request ;;
  *) usage ;;
esac
