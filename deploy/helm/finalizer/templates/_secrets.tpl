{{/*
Where secrets may and may not come from. The ConfigMap is readable by
whoever may read the namespace's ConfigMaps (the kubernetes store's Role
included), so a secret never lands in it: the worker's own secrets are
files of mounted Secrets, the bucket's come from a Secret
(bucketCredentials). Included by finalizer.validate.
*/}}

{{/* Variables that hold a secret: never a literal in the manifest. */}}
{{- define "finalizer.secretVariables" -}}
- FINALIZER_TEMPORAL_API_KEY
- FINALIZER_ZOOKEEPER_DIGEST_PASSWORD
- AWS_SECRET_ACCESS_KEY
- AWS_SESSION_TOKEN
- AZURE_STORAGE_KEY
- AZURE_STORAGE_SAS_TOKEN
- AZURE_STORAGE_CONNECTION_STRING
- AZURE_CLIENT_SECRET
{{- end -}}

{{- define "finalizer.validateSecrets" -}}
{{- $v := .Values -}}
{{- if $v.temporal.apiKeySecret.optional -}}
{{- fail "temporal.apiKeySecret.optional: the key is a file of the mounted Secret, and a worker told to read a file that is not there does not start; leave temporal.apiKeySecret.name empty where Temporal needs no key" -}}
{{- end -}}
{{- /* stateBucket is in the ConfigMap: a credential in its URL would be too. */ -}}
{{- $u := urlParse $v.stateBucket -}}
{{- if $u.userinfo -}}
{{- fail "stateBucket: the URL carries user info (a credential), which would land in the ConfigMap; put the bucket's credentials in a Secret named by bucketCredentials.secretName" -}}
{{- end -}}
{{- range $param := splitList "&" $u.query -}}
{{- $name := lower (first (splitList "=" $param)) -}}
{{- if regexMatch "key|secret|token|sig|password|credential" $name -}}
{{- fail (printf "stateBucket: the URL's query parameter %s looks like a credential, which would land in the ConfigMap; put the bucket's credentials in a Secret named by bucketCredentials.secretName" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
