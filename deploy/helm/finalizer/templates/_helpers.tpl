{{/* Names: the release's, cut to the 63 characters a label value allows. */}}
{{- define "finalizer.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The pods' selector: stable across upgrades (a Deployment's selector is immutable). */}}
{{- define "finalizer.selectorLabels" -}}
app.kubernetes.io/name: checkpoint-finalizer
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: worker
{{- end -}}

{{- define "finalizer.labels" -}}
{{ include "finalizer.selectorLabels" . }}
app.kubernetes.io/version: {{ include "finalizer.tag" . | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "finalizer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "finalizer.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name: name an existing ServiceAccount when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The image tag: the chart's appVersion unless set; "latest" is refused. */}}
{{- define "finalizer.tag" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag -}}
{{- if eq $tag "latest" -}}
{{- fail "image.tag: \"latest\" names no build; use a release tag (default: the chart's appVersion) or image.digest" -}}
{{- end -}}
{{- $tag -}}
{{- end -}}

{{- define "finalizer.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (include "finalizer.tag" .) -}}
{{- end -}}
{{- end -}}

{{/* The namespace of the kubernetes store's ConfigMaps (and its Role). */}}
{{- define "finalizer.storeNamespace" -}}
{{- default .Release.Namespace .Values.store.kubernetes.namespace -}}
{{- end -}}

{{/* The port of a host:port (the schema checked the form). */}}
{{- define "finalizer.port" -}}
{{- regexFind "[0-9]+$" . -}}
{{- end -}}

{{/* The distinct client ports of the ZooKeeper servers, as a JSON list. */}}
{{- define "finalizer.zookeeperPorts" -}}
{{- $ports := list -}}
{{- range .Values.store.zookeeper.servers -}}
{{- $ports = append $ports (include "finalizer.port" . | int) -}}
{{- end -}}
{{- $ports | uniq | toJson -}}
{{- end -}}

{{/* The Web UI's pods: a selector of their own, never the workers'. */}}
{{- define "finalizer.uiSelectorLabels" -}}
app.kubernetes.io/name: checkpoint-finalizer
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: ui
{{- end -}}

{{- define "finalizer.uiLabels" -}}
{{ include "finalizer.uiSelectorLabels" . }}
app.kubernetes.io/version: {{ .Values.ui.image.tag | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The frontend the Web UI calls: ui.temporalAddress, else the workers'. */}}
{{- define "finalizer.uiTemporalAddress" -}}
{{- default .Values.temporal.address .Values.ui.temporalAddress -}}
{{- end -}}
