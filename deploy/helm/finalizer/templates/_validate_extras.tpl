{{/*
The operator's additions to the pod (extraEnv, extraVolumes,
extraVolumeMounts, extraContainers) may not take a name the chart uses:
the API server would refuse a duplicated volume or container, and a
duplicated variable would silently override what the chart set.
Included by finalizer.validate.
*/}}
{{- define "finalizer.validateExtras" -}}
{{- $v := .Values -}}
{{- $chartEnv := keys (include "finalizer.env" . | fromYaml) -}}
{{- range (include "finalizer.containerEnv" . | fromYamlArray) -}}
{{- $chartEnv = append $chartEnv .name -}}
{{- end -}}
{{- range $i, $e := $v.extraEnv -}}
{{- if has $e.name $chartEnv -}}
{{- fail (printf "extraEnv[%d]: %s is set by the chart; set the chart's value for it (config, temporal.*, store.*) instead" $i $e.name) -}}
{{- end -}}
{{- if and (has $e.name (include "finalizer.secretVariables" $ | fromYamlArray)) (hasKey $e "value") -}}
{{- fail (printf "extraEnv[%d]: %s is a secret; it comes from a Secret (temporal.apiKeySecret, store.zookeeper.digest.passwordSecret, bucketCredentials, or valueFrom.secretKeyRef), never a literal" $i $e.name) -}}
{{- end -}}
{{- end -}}
{{- /* Reserved whether or not this release mounts them. */ -}}
{{- $chartVolumes := list "temporal-tls" "temporal-config" "temporal-api-key" "zookeeper-digest" "gcs-key" "state" -}}
{{- range $i, $vol := $v.extraVolumes -}}
{{- if has $vol.name $chartVolumes -}}
{{- fail (printf "extraVolumes[%d]: %s is a volume name the chart uses; choose another name" $i $vol.name) -}}
{{- end -}}
{{- end -}}
{{- range $i, $c := $v.extraContainers -}}
{{- if eq $c.name "worker" -}}
{{- fail (printf "extraContainers[%d]: worker is the chart's container; name the sidecar otherwise" $i) -}}
{{- end -}}
{{- end -}}
{{- end -}}
