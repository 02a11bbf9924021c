package operator_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestOperatorUpgradePathsBeyondHA pins the operator's last-state upgrade
// decisions that no HA data changes, so that an operator release changing
// them is noticed (docs/flink.md names what each means for the finalizer):
// a FlinkSessionJob is always cancelled and restored under a new job ID,
// with stock Kubernetes HA as with the plugin; a changed flinkVersion (from
// 1.20 to 2.x, which also changes the plugin's jar) goes through a savepoint
// where a savepoint directory is set, as in the documented FlinkDeployment.
func TestOperatorUpgradePathsBeyondHA(t *testing.T) {
	found := map[string]operatorView{
		"stock Kubernetes HA":      {haMetadataAvailable: true, atLeastOneCheckpoint: true},
		"the operator entry point": {haMetadataAvailable: true},
		"no HA metadata":           {},
	}
	for name, v := range found {
		assert.Equal(t, lastStateUsingCancel, lastStateUpgrade(kindSessionJob, v, false, ""),
			"operator %s: a FlinkSessionJob's last-state upgrade with %s", operatorRelease, name)
	}
	assert.Equal(t, lastStateUsingHaMeta, lastStateUpgrade(kindDeployment, found["the operator entry point"], false, ""),
		"a FlinkDeployment's keeps the job ID")

	d := readDocumented(t)
	conf, _, err := unstructured.NestedStringMap(d.deployment, "spec", "flinkConfiguration")
	require.NoError(t, err)
	savepoints := conf["execution.checkpointing.savepoint-dir"]
	require.NotEmpty(t, savepoints, "the documented FlinkDeployment sets a savepoint directory")
	for name, v := range found {
		assert.Equal(t, savepointUpgrade, lastStateUpgrade(kindDeployment, v, true, savepoints),
			"a changed flinkVersion with %s and a savepoint directory", name)
		assert.Equal(t, lastStateUsingCancel, lastStateUpgrade(kindDeployment, v, true, " "),
			"a changed flinkVersion with %s and no savepoint directory", name)
	}
}
