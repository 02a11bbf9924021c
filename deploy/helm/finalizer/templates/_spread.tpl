{{/*
The workers' topology spread: values.yaml spreads them over zones and
then hosts, so a zone's or a node's loss leaves a poller. A constraint
without a labelSelector counts the release's workers (values.yaml cannot
name the release); an empty list spreads nothing.
*/}}
{{- define "finalizer.topologySpread" -}}
{{- $out := list -}}
{{- range $i, $c := .Values.topologySpreadConstraints -}}
{{- $c = deepCopy $c -}}
{{- if not (hasKey $c "labelSelector") -}}
{{- $_ := set $c "labelSelector" (dict "matchLabels" (include "finalizer.selectorLabels" $ | fromYaml)) -}}
{{- end -}}
{{- $out = append $out $c -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}
