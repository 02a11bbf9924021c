{{/*
The pods' and their containers' security contexts (the workers' and the
Web UI's alike): the operator's values over a floor no value can lower. The floor carries no user, group
or fsGroup: OpenShift's restricted-v2 assigns those from the namespace's
range and refuses a pod that names its own, so leaving them unset
(podSecurityContext: null, or each set to null) must still render a
secure pod. values.yaml's defaults add the image's user, 65532.
*/}}
{{- define "finalizer.podSecurityContext" -}}
{{- $floor := dict "runAsNonRoot" true "seccompProfile" (dict "type" "RuntimeDefault") -}}
{{- $v := deepCopy (default dict .Values.podSecurityContext) -}}
{{- if eq (toString (dig "runAsNonRoot" true $v)) "false" -}}
{{- fail "podSecurityContext.runAsNonRoot: the worker never runs as root; leave it true" -}}
{{- end -}}
{{- if and (hasKey $v "runAsUser") (eq (toString $v.runAsUser) "0") -}}
{{- fail "podSecurityContext.runAsUser: 0 is root; use the image's user 65532, another non-root uid, or null to let the platform assign one" -}}
{{- end -}}
{{- if and (hasKey $v "seccompProfile") (ne (dig "seccompProfile" "type" "" $v) "RuntimeDefault") (ne (dig "seccompProfile" "type" "" $v) "Localhost") -}}
{{- fail (printf "podSecurityContext.seccompProfile.type: %q leaves the worker unconfined; use RuntimeDefault or Localhost" (dig "seccompProfile" "type" "" $v)) -}}
{{- end -}}
{{- toYaml (mustMergeOverwrite $floor $v) -}}
{{- end -}}

{{- define "finalizer.containerSecurityContext" -}}
{{- $floor := dict "allowPrivilegeEscalation" false "readOnlyRootFilesystem" true "privileged" false "capabilities" (dict "drop" (list "ALL")) -}}
{{- $v := deepCopy (default dict .Values.securityContext) -}}
{{- range $k := list "allowPrivilegeEscalation" "privileged" -}}
{{- if eq (toString (get $v $k)) "true" -}}
{{- fail (printf "securityContext.%s: the worker needs no privilege; leave it false" $k) -}}
{{- end -}}
{{- end -}}
{{- if eq (toString (dig "readOnlyRootFilesystem" true $v)) "false" -}}
{{- fail "securityContext.readOnlyRootFilesystem: the worker writes nothing to its root filesystem; mount a volume (extraVolumes, extraVolumeMounts) where something must write" -}}
{{- end -}}
{{- if not (has "ALL" (dig "capabilities" "drop" (list "ALL") $v)) -}}
{{- fail "securityContext.capabilities.drop: keep \"ALL\" in it; the worker needs no capability" -}}
{{- end -}}
{{- if dig "capabilities" "add" nil $v -}}
{{- fail "securityContext.capabilities.add: the worker needs no capability" -}}
{{- end -}}
{{- if and (hasKey $v "runAsUser") (eq (toString $v.runAsUser) "0") -}}
{{- fail "securityContext.runAsUser: 0 is root; leave it unset (the pod's user) or use a non-root uid" -}}
{{- end -}}
{{- toYaml (mustMergeOverwrite $floor $v) -}}
{{- end -}}

{{/*
Secret volumes' file mode. With an fsGroup the files belong to that group
and only owner and group read them (0440). Without one (OpenShift assigns
it, another platform may not) they belong to root: 0444, or a worker
running as any other user could not read its own credentials. The files
live in the pod's own tmpfs either way.
*/}}
{{- define "finalizer.secretMode" -}}
{{- if dig "fsGroup" nil (default dict .Values.podSecurityContext) -}}288{{- else -}}292{{- end -}}
{{- end -}}
