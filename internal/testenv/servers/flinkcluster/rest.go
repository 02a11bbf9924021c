package flinkcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Job is what GET /jobs/<id> says of a job.
type Job struct {
	State    string `json:"state"`
	Vertices []struct {
		Status string `json:"status"`
	} `json:"vertices"`
}

// Running reports whether the job and every one of its tasks run: the
// moment a failover is over for the job's user.
func (j Job) Running() bool {
	if j.State != "RUNNING" || len(j.Vertices) == 0 {
		return false
	}
	for _, v := range j.Vertices {
		if v.Status != "RUNNING" {
			return false
		}
	}
	return true
}

// Checkpoints is what GET /jobs/<id>/checkpoints says of a job's
// checkpoints.
type Checkpoints struct {
	Latest struct {
		Completed *Checkpoint `json:"completed"`
		Restored  *Checkpoint `json:"restored"`
	} `json:"latest"`
}

// Checkpoint is one checkpoint in Checkpoints.
type Checkpoint struct {
	ID          int64 `json:"id"`
	IsSavepoint bool  `json:"is_savepoint"`
	// RestoreTimestamp is when a restored checkpoint was restored, in
	// Unix milliseconds.
	RestoreTimestamp int64 `json:"restore_timestamp"`
}

// Job asks the cluster's REST API about a job.
func (c *Cluster) Job(ctx context.Context, id string) (Job, error) {
	var j Job
	return j, c.get(ctx, "/jobs/"+id, &j)
}

// Checkpoints asks the cluster's REST API about a job's checkpoints.
func (c *Cluster) Checkpoints(ctx context.Context, id string) (Checkpoints, error) {
	var cp Checkpoints
	return cp, c.get(ctx, "/jobs/"+id+"/checkpoints", &cp)
}

// get asks the running JobManagers' REST endpoints in turn (each forwards
// to the leader) and decodes the first answer.
func (c *Cluster) get(ctx context.Context, path string, v any) error {
	var errs []error
	for _, jm := range c.JobManagers {
		if !jm.running() {
			continue
		}
		err := getJSON(ctx, fmt.Sprintf("http://127.0.0.1:%d%s", jm.RESTPort, path), v)
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", jm.name, err))
	}
	if len(errs) == 0 {
		return fmt.Errorf("GET %s: no JobManager runs", path)
	}
	return fmt.Errorf("GET %s: %w", path, errors.Join(errs...))
}

func getJSON(ctx context.Context, url string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", resp.Status, body)
	}
	return json.Unmarshal(body, v)
}
