{{/*
The worker container's env beyond the ConfigMap: what comes from the pod
itself or from Secrets.
*/}}
{{- define "finalizer.containerEnv" -}}
{{- $v := .Values -}}
# GOMEMLIMIT follows the container's memory limit, whatever an operator
# sets it to: the limit counted in MiB (the divisor) and read back as
# millions of bytes is 95.4% of it (10^6 / 2^20), so the Go runtime
# collects harder before the kernel's OOM kill, with ~5% left for what it
# does not count (the binary's text, kernel buffers). The kubelet expands
# $(CONTAINER_MEMORY_LIMIT_MIB) from the variable above it.
- name: CONTAINER_MEMORY_LIMIT_MIB
  valueFrom:
    resourceFieldRef:
      containerName: worker
      resource: limits.memory
      divisor: 1Mi
- name: GOMEMLIMIT
  value: $(CONTAINER_MEMORY_LIMIT_MIB)000000
{{- if $v.temporal.apiKeySecret.name }}
# Temporal Cloud's API key (it turns TLS on), a file of a mounted Secret:
# the worker reads it again when it changes, so a rotated key is used
# without a restart, and it never shows in the pod's environment.
- name: FINALIZER_TEMPORAL_API_KEY_FILE
  value: /etc/finalizer/temporal-api-key/api-key
{{- end }}
{{- if and (eq $v.store.kind "zookeeper") $v.store.zookeeper.digest.user }}
- name: FINALIZER_ZOOKEEPER_DIGEST_PASSWORD_FILE
  value: /etc/finalizer/zookeeper-digest/password
{{- end }}
{{- if $v.bucketCredentials.gcsKeySecret.name }}
# gs:// with a service account key file instead of workload identity.
- name: GOOGLE_APPLICATION_CREDENTIALS
  value: /etc/finalizer/gcs/key.json
{{- end }}
{{- if $v.temporal.tls.secretName }}
- name: FINALIZER_TEMPORAL_TLS_CERT_FILE
  value: /etc/finalizer/temporal-tls/tls.crt
- name: FINALIZER_TEMPORAL_TLS_KEY_FILE
  value: /etc/finalizer/temporal-tls/tls.key
- name: FINALIZER_TEMPORAL_TLS_CA_FILE
  value: /etc/finalizer/temporal-tls/ca.crt
{{- end }}
{{- if $v.temporal.profile.secretName }}
# Temporal's client configuration file (read by the worker at start).
- name: TEMPORAL_CONFIG_FILE
  value: /etc/finalizer/temporal-config/temporal.toml
{{- end }}
{{- end -}}

{{/* Probes on the worker's own endpoints (worker/metrics.go). */}}
{{- define "finalizer.probes" -}}
{{- $p := .Values.probes -}}
# Until the process serves HTTP (it does before it dials Temporal or opens
# the store): liveness waits for it, so a slow start is not a restart.
startupProbe:
  httpGet:
    path: /livez
    port: metrics
  periodSeconds: {{ $p.startup.periodSeconds }}
  timeoutSeconds: {{ $p.startup.timeoutSeconds }}
  failureThreshold: {{ $p.startup.failureThreshold }}
# Ready: the pollers run and Temporal and the store answer. A worker that
# is not ready leaves the Service and is not counted by the PDB.
readinessProbe:
  httpGet:
    path: /readyz
    port: metrics
  periodSeconds: {{ $p.readiness.periodSeconds }}
  timeoutSeconds: {{ $p.readiness.timeoutSeconds }}
  failureThreshold: {{ $p.readiness.failureThreshold }}
# Live: the process serves HTTP. A dependency being away is not a reason
# to restart, so liveness does not ask them.
livenessProbe:
  httpGet:
    path: /livez
    port: metrics
  periodSeconds: {{ $p.liveness.periodSeconds }}
  timeoutSeconds: {{ $p.liveness.timeoutSeconds }}
  failureThreshold: {{ $p.liveness.failureThreshold }}
{{- end -}}

{{- define "finalizer.volumeMounts" -}}
{{- $v := .Values -}}
{{- if $v.temporal.apiKeySecret.name }}
- name: temporal-api-key
  mountPath: /etc/finalizer/temporal-api-key
  readOnly: true
{{- end }}
{{- if and (eq $v.store.kind "zookeeper") $v.store.zookeeper.digest.user }}
- name: zookeeper-digest
  mountPath: /etc/finalizer/zookeeper-digest
  readOnly: true
{{- end }}
{{- if $v.bucketCredentials.gcsKeySecret.name }}
- name: gcs-key
  mountPath: /etc/finalizer/gcs
  readOnly: true
{{- end }}
{{- if $v.temporal.tls.secretName }}
- name: temporal-tls
  mountPath: /etc/finalizer/temporal-tls
  readOnly: true
{{- end }}
{{- if $v.temporal.profile.secretName }}
- name: temporal-config
  mountPath: /etc/finalizer/temporal-config
  readOnly: true
{{- end }}
{{- if eq $v.store.kind "embedded" }}
- name: state
  mountPath: {{ dir $v.store.embedded.path }}
{{- end }}
{{- with $v.extraVolumeMounts }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "finalizer.volumes" -}}
{{- $v := .Values -}}
{{- with $v.temporal.apiKeySecret }}{{ if .name }}
- name: temporal-api-key
  secret:
    secretName: {{ .name }}
    defaultMode: {{ include "finalizer.secretMode" $ }}
    items:
      - key: {{ .key }}
        path: api-key
{{- end }}{{ end }}
{{- if and (eq $v.store.kind "zookeeper") $v.store.zookeeper.digest.user }}
- name: zookeeper-digest
  secret:
    secretName: {{ $v.store.zookeeper.digest.passwordSecret.name }}
    defaultMode: {{ include "finalizer.secretMode" . }}
    items:
      - key: {{ $v.store.zookeeper.digest.passwordSecret.key }}
        path: password
{{- end }}
{{- with $v.bucketCredentials.gcsKeySecret }}{{ if .name }}
- name: gcs-key
  secret:
    secretName: {{ .name }}
    defaultMode: {{ include "finalizer.secretMode" $ }}
    items:
      - key: {{ .key }}
        path: key.json
{{- end }}{{ end }}
{{- if $v.temporal.tls.secretName }}
- name: temporal-tls
  secret:
    secretName: {{ $v.temporal.tls.secretName }}
    defaultMode: {{ include "finalizer.secretMode" . }}
{{- end }}
{{- if $v.temporal.profile.secretName }}
- name: temporal-config
  secret:
    secretName: {{ $v.temporal.profile.secretName }}
    defaultMode: {{ include "finalizer.secretMode" . }}
    items:
      - key: {{ $v.temporal.profile.key }}
        path: temporal.toml
{{- end }}
{{- if eq $v.store.kind "embedded" }}
- name: state
  persistentVolumeClaim:
    claimName: {{ default (printf "%s-state" (include "finalizer.fullname" .)) $v.store.embedded.persistence.existingClaim }}
{{- end }}
{{- with $v.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end -}}
