{{/*
The ConfigMap's variables. Settings left empty are left out, so that a
temporal.toml profile (temporal.profile) supplies them.
*/}}
{{- define "finalizer.env" -}}
{{- $v := .Values -}}
{{- $env := dict -}}
{{- with $v.temporal.profile.name }}{{ $_ := set $env "FINALIZER_TEMPORAL_PROFILE" . }}{{ end -}}
{{- with $v.temporal.address }}{{ $_ := set $env "FINALIZER_TEMPORAL_ADDRESS" . }}{{ end -}}
{{- with $v.temporal.namespace }}{{ $_ := set $env "FINALIZER_TEMPORAL_NAMESPACE" . }}{{ end -}}
{{- $_ := set $env "FINALIZER_TASK_QUEUE" $v.temporal.taskQueue -}}
{{- with $v.temporal.tls.serverName }}{{ $_ := set $env "FINALIZER_TEMPORAL_TLS_SERVER_NAME" . }}{{ end -}}
{{- if $v.temporal.registerSearchAttributes }}{{ $_ := set $env "FINALIZER_REGISTER_SEARCH_ATTRIBUTES" "true" }}{{ end -}}
{{- $_ := set $env "FINALIZER_STORE" $v.store.kind -}}
{{- if eq $v.store.kind "embedded" -}}
{{- $_ := set $env "FINALIZER_EMBEDDED_PATH" $v.store.embedded.path -}}
{{- else if eq $v.store.kind "zookeeper" -}}
{{- $_ := set $env "FINALIZER_ZOOKEEPER_SERVERS" (join "," $v.store.zookeeper.servers) -}}
{{- $_ := set $env "FINALIZER_ZOOKEEPER_ROOT" $v.store.zookeeper.root -}}
{{- $_ := set $env "FINALIZER_ZOOKEEPER_SESSION_TIMEOUT" $v.store.zookeeper.sessionTimeout -}}
{{- with $v.store.zookeeper.digest.user }}{{ $_ := set $env "FINALIZER_ZOOKEEPER_DIGEST_USER" . }}{{ end -}}
{{- else if eq $v.store.kind "kubernetes" -}}
{{- $_ := set $env "FINALIZER_KUBERNETES_IN_CLUSTER" "true" -}}
{{- with $v.store.kubernetes.namespace }}{{ $_ := set $env "FINALIZER_KUBERNETES_NAMESPACE" . }}{{ end -}}
{{- end -}}
{{- $_ := set $env "FINALIZER_STATE_BUCKET" $v.stateBucket -}}
{{- $_ := set $env "FINALIZER_CLUSTERS" $v.clusters -}}
{{- $_ := set $env "FINALIZER_RETAIN" (toString $v.retain) -}}
{{- /* Every interface, IPv4 and IPv6: scrapes and probes reach the pod's IP. */ -}}
{{- $_ := set $env "FINALIZER_METRICS_ADDRESS" (printf ":%v" $v.metrics.port) -}}
{{- $_ := set $env "FINALIZER_LOG_LEVEL" $v.logLevel -}}
{{- $_ := set $env "FINALIZER_LOG_FORMAT" $v.logFormat -}}
{{- $_ := set $env "FINALIZER_SHUTDOWN_GRACE" (printf "%vs" $v.shutdownGraceSeconds) -}}
{{- range $k, $val := $v.config -}}
{{- if hasKey $env $k -}}
{{- fail (printf "config.%s: the chart sets this variable from its own value; set that value instead" $k) -}}
{{- end -}}
{{- $_ := set $env $k (toString $val) -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}
