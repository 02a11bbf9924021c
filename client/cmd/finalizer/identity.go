package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// identity is the flags naming a job, an epoch and, for finalizations, a
// checkpoint.
type identity struct {
	cluster, job      string
	epoch, checkpoint uint64
}

func (id *identity) register(fs *pflag.FlagSet, checkpoint bool) {
	fs.StringVar(&id.cluster, "cluster", "", "cluster ID (DNS-1123 label)")
	fs.StringVar(&id.job, "job", "", "job ID (DNS-1123 label)")
	fs.Uint64Var(&id.epoch, "epoch", 0, "the job manager's leadership epoch (from 1)")
	if checkpoint {
		fs.Uint64Var(&id.checkpoint, "checkpoint", 0, "checkpoint ID (from 1)")
	}
}

// requireFlags names every required flag the command line left out; the
// values themselves are validated by package client, which names the
// field it refuses.
func requireFlags(command string, fs *pflag.FlagSet, names ...string) error {
	var missing []string
	for _, n := range names {
		if !fs.Changed(n) {
			missing = append(missing, "--"+n)
		}
	}
	if len(missing) > 0 {
		return usagef("%s: missing %s", command, strings.Join(missing, ", "))
	}
	return nil
}

// invalid marks a request the tool refuses before connecting, as package
// client would (exit code 2).
func invalid(err error) error {
	return fmt.Errorf("%w: %w", client.ErrInvalidRequest, err)
}

// validateJob validates the job part of the identity.
func (id *identity) validateJob() error {
	job := stores.JobID{Cluster: id.cluster, Job: id.job}
	if err := job.Validate(); err != nil {
		return invalid(err)
	}
	if id.epoch == 0 {
		return invalid(&stores.InvalidError{Field: "epoch", Rule: "must be at least 1"})
	}
	return nil
}

// validateCheckpoint validates the whole identity of a finalization.
func (id *identity) validateCheckpoint() error {
	if err := id.validateJob(); err != nil {
		return err
	}
	if id.checkpoint == 0 {
		return invalid(&stores.InvalidError{Field: "checkpoint", Rule: "must be at least 1"})
	}
	return nil
}
