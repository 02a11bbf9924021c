package kubetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// auditPolicy records ConfigMap requests at Metadata level (who, what,
// response code), nothing else: enough to see what a fault let through.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  resources:
  - group: ""
    resources: ["configmaps"]
- level: None
`

func writeAuditPolicy(dir string) ([]string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, err
	}
	return []string{
		"--audit-policy-file", policy,
		"--audit-log-path", filepath.Join(dir, "audit.log"),
		// Blocking: an event is on disk when the response is sent.
		"--audit-log-mode", "blocking",
		"--audit-log-format", "json",
	}, nil
}

// AuditEvent is the part of an audit.k8s.io/v1 Event the tests read.
type AuditEvent struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef struct {
		Resource  string `json:"resource"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// AuditEvents returns the completed ConfigMap requests on namespace/name
// so far (Options.Audit).
func (s *Server) AuditEvents(namespace, name string) ([]AuditEvent, error) {
	f, err := os.Open(filepath.Join(s.Dir, "audit.log"))
	if err != nil {
		return nil, fmt.Errorf("kubetest: audit log: %w", err)
	}
	defer f.Close()
	var out []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("kubetest: audit log line: %w", err)
		}
		if e.Stage == "ResponseComplete" && e.ObjectRef.Namespace == namespace && e.ObjectRef.Name == name {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}
