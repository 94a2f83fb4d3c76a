{{/* The prefix of every object's name: the release name, or release-chart when the release does not say railyard. */}}
{{- define "railyard.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The selector of a component's pods: the same labels deploy/ uses. Call with (list $ "agent"). */}}
{{- define "railyard.selectorLabels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: {{ include "railyard.fullname" $root }}-{{ index . 1 }}
{{- end -}}

{{/* A component's labels: its selector, part-of, Helm's own, and commonLabels. Call with (list $ "agent"). */}}
{{- define "railyard.labels" -}}
{{- $root := index . 0 -}}
{{ include "railyard.selectorLabels" . }}
app.kubernetes.io/part-of: railyard
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/managed-by: {{ $root.Release.Service }}
app.kubernetes.io/version: {{ $root.Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" $root.Chart.Name $root.Chart.Version | replace "+" "_" }}
{{- with $root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The labels of a component's pods: its selector and part-of, as in deploy/, and commonLabels. */}}
{{- define "railyard.podLabels" -}}
{{- $root := index . 0 -}}
{{ include "railyard.selectorLabels" . }}
app.kubernetes.io/part-of: railyard
{{- with $root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* metadata: name, namespace (namespaced objects), labels and annotations. Call with (dict "root" $ "component" "agent" "name" "..." "namespaced" true). */}}
{{- define "railyard.metadata" -}}
name: {{ .name }}
{{- if .namespaced }}
namespace: {{ .root.Release.Namespace }}
{{- end }}
labels:
  {{- include "railyard.labels" (list .root .component) | nindent 2 }}
{{- with .root.Values.commonAnnotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "railyard.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* Scheduling fields of a pod spec from a component's values. */}}
{{- define "railyard.scheduling" -}}
{{- with .priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "railyard.pullSecrets" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
