{{/*
Combinations of values that cannot run, refused at render time with the
value named (values.schema.json has already checked each value's type and
form). Included by configmap.yaml, which every release renders.
*/}}
{{- define "finalizer.validate" -}}
{{- $v := .Values -}}
{{- $kind := required "store.kind: choose the HA reference store: embedded, zookeeper or kubernetes" $v.store.kind -}}
{{- $bucket := required "stateBucket: the bucket the Flink job managers write checkpoints to (s3://, gs://, azblob://)" $v.stateBucket -}}
{{- if or (hasPrefix "file://" $bucket) (hasPrefix "mem://" $bucket) -}}
{{- fail (printf "stateBucket: %q is the pod's own disk or memory; the job managers must reach it too: use an object store (s3://, gs://, azblob://)" $bucket) -}}
{{- end -}}
{{- if and (eq $kind "embedded") (ne (int $v.replicas) 1) -}}
{{- fail (printf "replicas: the embedded store is one locked file on one volume, so replicas must be 1 (got %v); use zookeeper or kubernetes for more" $v.replicas) -}}
{{- end -}}
{{- if eq $kind "zookeeper" -}}
{{- if not $v.store.zookeeper.servers -}}
{{- fail "store.zookeeper.servers: list every server of the ensemble as host:port" -}}
{{- end -}}
{{- if ne (empty $v.store.zookeeper.digest.user) (empty $v.store.zookeeper.digest.passwordSecret.name) -}}
{{- fail "store.zookeeper.digest: set user and passwordSecret.name together (digest authentication needs both)" -}}
{{- end -}}
{{- end -}}
{{- if and (not $v.temporal.address) (not $v.temporal.profile.secretName) -}}
{{- fail "temporal.address: set Temporal's frontend host:port, or a temporal.profile.secretName whose profile names it" -}}
{{- end -}}
{{- if and $v.temporal.profile.name (not $v.temporal.profile.secretName) -}}
{{- fail "temporal.profile.name: also set temporal.profile.secretName, the Secret holding temporal.toml" -}}
{{- end -}}
{{- if not (dig "limits" "memory" "" $v.resources) -}}
{{- fail "resources.limits.memory: set a memory limit; GOMEMLIMIT is derived from it" -}}
{{- end -}}
{{- $pdb := $v.podDisruptionBudget.maxUnavailable -}}
{{- if and (not (kindIs "string" $pdb)) (lt (int $pdb) 1) -}}
{{- fail "podDisruptionBudget.maxUnavailable: 0 would block every node drain; use 1 or more" -}}
{{- end -}}
{{- range $k, $_ := $v.config -}}
{{- if has $k (list "FINALIZER_TEMPORAL_API_KEY" "FINALIZER_ZOOKEEPER_DIGEST_PASSWORD") -}}
{{- fail (printf "config.%s: a secret never goes into a ConfigMap; use temporal.apiKeySecret or store.zookeeper.digest.passwordSecret" $k) -}}
{{- end -}}
{{- end -}}
{{- include "finalizer.validateExtras" . -}}
{{- include "finalizer.validateSecrets" . -}}
{{- range $i, $rule := $v.networkPolicy.extraEgress -}}
{{- if not $rule.ports -}}
{{- fail (printf "networkPolicy.extraEgress[%d]: an egress rule without ports opens every port" $i) -}}
{{- end -}}
{{- end -}}
{{- end -}}
