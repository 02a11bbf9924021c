package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/tools/faultharness"
)

// Flags only: the harness itself runs in tools/faultharness's tests.
func TestFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	assert.Equal(t, 0, run([]string{"-h"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "-finalizations")

	for _, bad := range [][]string{
		{"-finalizations", "0"},
		{"-store", "etcd"},
		{"-kinds", "zk-leader-kill", "-store", "kubernetes"},
		{"-kinds", "no-such-kind"},
		{"stray"},
	} {
		errOut.Reset()
		assert.Equal(t, 2, run(bad, &out, &errOut), "%v: %s", bad, errOut.String())
	}

	cfg, asJSON, verbose, err := parse([]string{"-seed", "9", "-finalizations", "30", "-naive",
		"-store", "kubernetes", "-kinds", "kube-etcd-lost-5xx, worker-kill", "-json", "-v"}, &errOut)
	require.NoError(t, err)
	assert.Equal(t, int64(9), cfg.Seed)
	assert.Equal(t, 30, cfg.Finalizations)
	assert.True(t, cfg.Naive)
	assert.Equal(t, faultharness.StoreKubernetes, cfg.Store)
	assert.Equal(t, []faultharness.FaultKind{faultharness.EtcdLost, faultharness.WorkerKill}, cfg.Kinds)
	assert.True(t, asJSON)
	assert.True(t, verbose)

	cfg, _, _, err = parse([]string{"-store", "both", "-kinds", "zk-leader-kill,kube-etcd-reset,blob-delete-failure"}, &errOut)
	require.NoError(t, err, "both stores take every kind")
	assert.Equal(t, faultharness.StoreBoth, cfg.Store)

	cfg, _, _, err = parse([]string{"-crash-after-publish"}, &errOut)
	require.NoError(t, err)
	assert.True(t, cfg.CrashAfterPublish)

	cfg, _, _, err = parse([]string{"-retirements", "24", "-adversarial", "120", "-reconcile-every", "2s",
		"-reconcile-grace", "1s", "-tombstone-ttl", "4s", "-sample-every", "100ms"}, &errOut)
	require.NoError(t, err)
	assert.Equal(t, 24, cfg.Retirements)
	assert.Equal(t, 120, cfg.Adversarial)
	assert.Equal(t, 2*time.Second, cfg.ReconcileEvery)
	assert.Equal(t, time.Second, cfg.ReconcileGrace)
	assert.Equal(t, 4*time.Second, cfg.TombstoneTTL)
	assert.Equal(t, 100*time.Millisecond, cfg.SampleEvery)

	_, _, _, err = parse([]string{"-retirements", "2", "-reconcile-every", "-1s"}, &errOut)
	assert.Error(t, err, "retirements need the reconciler")
}
