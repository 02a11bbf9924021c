package stores

import (
	"fmt"
	"unicode/utf8"
)

// MaxNameLength bounds cluster and job IDs: a DNS-1123 label, so that a name
// fits a ZooKeeper path segment and a ConfigMap name built from both.
const MaxNameLength = 63

// JobID names a job within a cluster.
type JobID struct {
	Cluster string `json:"cluster"`
	Job     string `json:"job"`
}

func (j JobID) String() string { return j.Cluster + "/" + j.Job }

// Validate checks both names against the DNS-1123 label rule, which also
// keeps them from escaping a ZooKeeper path or a ConfigMap name or key.
func (j JobID) Validate() error {
	if err := validateName("cluster", j.Cluster); err != nil {
		return err
	}
	return validateName("job", j.Job)
}

// CheckpointID identifies one checkpoint of a job. IDs start at 1 and never
// repeat while the job's HA data lives.
type CheckpointID struct {
	JobID
	Checkpoint uint64 `json:"checkpoint"`
}

func (c CheckpointID) String() string { return fmt.Sprintf("%s/%d", c.JobID, c.Checkpoint) }

// Validate checks the job and that the checkpoint ID is positive.
func (c CheckpointID) Validate() error {
	if err := c.JobID.Validate(); err != nil {
		return err
	}
	if c.Checkpoint == 0 {
		return invalid("checkpoint", "must be at least 1")
	}
	return nil
}

// validateName enforces a DNS-1123 label: 1-63 characters of lowercase
// ASCII letters, digits and '-', starting and ending with a letter or digit.
func validateName(field, s string) error {
	switch {
	case s == "":
		return invalid(field, "must not be empty")
	case len(s) > MaxNameLength:
		return invalid(field, "must be at most %d characters, got %d", MaxNameLength, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return invalid(field, "%q: only lowercase letters, digits and '-' are allowed (DNS-1123 label), found %q at %d", s, c, i)
		}
	}
	if s[0] == '-' || s[len(s)-1] == '-' {
		return invalid(field, "%q: must start and end with a letter or digit (DNS-1123 label)", s)
	}
	return nil
}

// validateText checks a free-form printable field: non-empty, bounded, valid
// UTF-8 without control characters.
func validateText(field, s string, max int) error {
	switch {
	case s == "":
		return invalid(field, "must not be empty")
	case len(s) > max:
		return invalid(field, "must be at most %d bytes, got %d", max, len(s))
	case !utf8.ValidString(s):
		return invalid(field, "must be valid UTF-8")
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return invalid(field, "must not contain control characters, found %U", r)
		}
	}
	return nil
}

// Clusters is the cluster the job belongs to: an input naming a job touches
// its cluster only (the worker's tenant gate reads it).
func (j JobID) Clusters() []string { return []string{j.Cluster} }
