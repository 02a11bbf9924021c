package operator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/checkpoint-finalizer/finalizer/internal/checks/docblock"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
)

const flinkDoc = "docs/flink.md"

var (
	crds            = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	flinkDeployment = schema.GroupVersionResource{Group: "flink.apache.org", Version: "v1beta1", Resource: "flinkdeployments"}
)

// documented is the operator part of docs/flink.md: the FlinkDeployment,
// the temporal.toml it mounts, and the worker's chart values.
type documented struct {
	deployment map[string]any
	profile    struct {
		Profile map[string]struct {
			Address   string `toml:"address"`
			Namespace string `toml:"namespace"`
			TLS       struct {
				ClientCertPath   string `toml:"client_cert_path"`
				ClientKeyPath    string `toml:"client_key_path"`
				ServerCACertPath string `toml:"server_ca_cert_path"`
			} `toml:"tls"`
		} `toml:"profile"`
	}
	values map[string]any
}

func readDocumented(t *testing.T) documented {
	t.Helper()
	var d documented
	block, err := docblock.Block(flinkDoc, "operator-flinkdeployment")
	require.NoError(t, err)
	require.NoError(t, yaml.UnmarshalStrict([]byte(block), &d.deployment))
	block, err = docblock.Block(flinkDoc, "operator-temporal-toml")
	require.NoError(t, err)
	md, err := toml.Decode(block, &d.profile)
	require.NoError(t, err)
	require.Empty(t, md.Undecoded(), "keys of temporal.toml this test does not know")
	block, err = docblock.Block(flinkDoc, "operator-worker-values")
	require.NoError(t, err)
	require.NoError(t, yaml.UnmarshalStrict([]byte(block), &d.values))
	return d
}

func str(t *testing.T, obj map[string]any, fields ...string) string {
	t.Helper()
	v, found, err := unstructured.NestedString(obj, fields...)
	require.NoError(t, err, "%s", strings.Join(fields, "."))
	require.True(t, found, "%s is set", strings.Join(fields, "."))
	return v
}

// TestDocumentedDeploymentFitsTogether: the documented FlinkDeployment is
// recognised by the operator as Kubernetes HA, runs last-state, and agrees
// with the worker's values and the mounted Temporal profile; the values
// pass the chart's schema.
func TestDocumentedDeploymentFitsTogether(t *testing.T) {
	d := readDocumented(t)
	conf, found, err := unstructured.NestedStringMap(d.deployment, "spec", "flinkConfiguration")
	require.NoError(t, err, "flinkConfiguration holds strings only")
	require.True(t, found)

	haType := conf["high-availability.type"]
	assert.Equal(t, pluginHAType, haType)
	assert.True(t, isKubernetesHAActivated(haType), "operator %s takes it for Kubernetes HA", operatorRelease)
	assert.NotContains(t, conf, "finalizer.high-availability.delegate", "the operator entry point fixes the delegate")
	assert.Equal(t, "last-state", str(t, d.deployment, "spec", "job", "upgradeMode"))
	assert.NotEmpty(t, str(t, d.deployment, "spec", "serviceAccount"))
	assert.NotEmpty(t, str(t, d.deployment, "spec", "image"))

	// The operator's admission check passes, and has teeth.
	replicas, _, _ := unstructured.NestedFieldNoCopy(d.deployment, "spec", "jobManager", "replicas")
	require.IsType(t, float64(0), replicas, "spec.jobManager.replicas, a YAML number")
	assert.Empty(t, validate(conf, "last-state", int64(replicas.(float64))), "operator %s admits the FlinkDeployment", operatorRelease)
	assert.Empty(t, validate(conf, "last-state", 2), "standby JobManagers are allowed: HA is on")
	assert.NotEmpty(t, validate(map[string]string{"high-availability.cluster-id": "orders"}, "stateless", 1))
	assert.NotEmpty(t, validate(map[string]string{}, "last-state", 1))

	// The finalizer's cluster is the FlinkDeployment's name, which the
	// operator makes the HA cluster ID; the worker serves it with Flink's
	// layout in the same bucket.
	name := str(t, d.deployment, "metadata", "name")
	assert.Equal(t, name, conf["finalizer.cluster"])
	bucket := conf["finalizer.state-bucket"]
	assert.Equal(t, d.values["stateBucket"], bucket)
	dirs, ok := strings.CutPrefix(d.values["clusters"].(string), name+"=")
	require.True(t, ok, "the worker serves cluster %s: %v", name, d.values["clusters"])
	checkpoints, savepoints, _ := strings.Cut(dirs, ":")
	assert.Equal(t, bucket+"/"+checkpoints, conf["execution.checkpointing.dir"])
	assert.Equal(t, bucket+"/"+savepoints, conf["execution.checkpointing.savepoint-dir"])
	assert.Equal(t, fmt.Sprint(d.values["retain"]), conf["execution.checkpointing.num-retained"], "num-retained equals the worker's retain")
	temporal := d.values["temporal"].(map[string]any)
	assert.Equal(t, temporal["taskQueue"], conf["finalizer.task-queue"])

	// The Temporal profile is a mounted Secret's file, and the files it
	// names lie in the same mount.
	profileName := conf["finalizer.temporal.profile"]
	profile, ok := d.profile.Profile[profileName]
	require.True(t, ok, "temporal.toml has profile %q", profileName)
	assert.Equal(t, temporal["address"], profile.Address)
	assert.Equal(t, temporal["namespace"], profile.Namespace)
	containers, _, _ := unstructured.NestedSlice(d.deployment, "spec", "podTemplate", "spec", "containers")
	require.Len(t, containers, 1)
	main := containers[0].(map[string]any)
	assert.Equal(t, "flink-main-container", main["name"], "the operator merges the template into Flink's container by this name")
	var configFile string
	for _, e := range main["env"].([]any) {
		if e := e.(map[string]any); e["name"] == "TEMPORAL_CONFIG_FILE" {
			configFile = e["value"].(string)
		}
	}
	require.NotEmpty(t, configFile, "TEMPORAL_CONFIG_FILE is set")
	mounts := main["volumeMounts"].([]any)
	require.Len(t, mounts, 1)
	mount := mounts[0].(map[string]any)
	assert.Equal(t, true, mount["readOnly"])
	dir := mount["mountPath"].(string)
	for _, f := range []string{configFile, profile.TLS.ClientCertPath, profile.TLS.ClientKeyPath, profile.TLS.ServerCACertPath} {
		assert.Equal(t, dir, path.Dir(f), "%s lies in the mounted Secret", f)
	}
	volumes, _, _ := unstructured.NestedSlice(d.deployment, "spec", "podTemplate", "spec", "volumes")
	require.Len(t, volumes, 1)
	volume := volumes[0].(map[string]any)
	assert.Equal(t, mount["name"], volume["name"])
	assert.Contains(t, volume, "secret", "the credentials come from a Secret")

	// The chart's own schema, as helm checks values before rendering.
	raw, err := os.ReadFile(docblock.Path("deploy/helm/finalizer/values.schema.json"))
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("values.schema.json", doc))
	sch, err := c.Compile("values.schema.json")
	require.NoError(t, err)
	b, err := json.Marshal(d.values)
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	assert.NoError(t, sch.Validate(inst), "the documented values pass the chart's schema")
}

// TestDocumentedDeploymentPassesTheOperatorsCRD installs the operator's
// FlinkDeployment CRD (testdata, operator 1.15.0) and creates the
// documented FlinkDeployment server-side, dry-run, with strict field
// validation: an unknown or misplaced field, a wrong type or a value
// outside an enum (flinkVersion, upgradeMode) is an error.
func TestDocumentedDeploymentPassesTheOperatorsCRD(t *testing.T) {
	srv := kubetest.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dyn, err := dynamic.NewForConfig(srv.AdminConfig())
	require.NoError(t, err)

	raw, err := os.ReadFile("testdata/flinkdeployments.flink.apache.org-v1.yml")
	require.NoError(t, err)
	crd := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal(raw, &crd.Object))
	body, err := crd.MarshalJSON()
	require.NoError(t, err)
	_, err = dyn.Resource(crds).Patch(ctx, crd.GetName(), types.ApplyPatchType, body,
		metav1.PatchOptions{FieldManager: "operator-test", Force: new(true)})
	require.NoError(t, err, "install the operator's CRD")
	require.Eventually(t, func() bool {
		got, err := dyn.Resource(crds).Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err != nil {
			return false
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			if c := c.(map[string]any); c["type"] == "Established" && c["status"] == "True" {
				return true
			}
		}
		return false
	}, time.Minute, 100*time.Millisecond, "the CRD is established")

	d := readDocumented(t)
	ns := srv.Namespace(t, "flink")
	create := func(obj map[string]any) error {
		u := &unstructured.Unstructured{Object: obj}
		u.SetNamespace(ns)
		_, err := dyn.Resource(flinkDeployment).Namespace(ns).Create(ctx, u,
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
		return err
	}
	// An established CRD may take a moment more to be served.
	err = create(d.deployment)
	for deadline := time.Now().Add(30 * time.Second); apierrors.IsNotFound(err) && time.Now().Before(deadline); err = create(d.deployment) {
		time.Sleep(200 * time.Millisecond)
	}
	require.NoError(t, err, "the documented FlinkDeployment is accepted")

	// The check has teeth: what the schema refuses is refused.
	for what, mutate := range map[string]func(map[string]any){
		"an upgrade mode the operator does not know": func(o map[string]any) {
			require.NoError(t, unstructured.SetNestedField(o, "last_state", "spec", "job", "upgradeMode"))
		},
		"a field the CRD does not have": func(o map[string]any) {
			require.NoError(t, unstructured.SetNestedField(o, "flink", "spec", "serviceAccountName"))
		},
		"a Flink version the operator does not know": func(o map[string]any) {
			require.NoError(t, unstructured.SetNestedField(o, "v1_99", "spec", "flinkVersion"))
		},
	} {
		obj := readDocumented(t).deployment
		mutate(obj)
		assert.Error(t, create(obj), "refused: %s", what)
	}

	// The newest Flink line this CRD takes, as docs/flink.md says (and so
	// the Flink 2.2 check of the plugin's 2.x jar): v2_2 yes, v2_3 not yet.
	for version, accepted := range map[string]bool{"v2_2": true, "v2_3": false} {
		obj := readDocumented(t).deployment
		require.NoError(t, unstructured.SetNestedField(obj, version, "spec", "flinkVersion"))
		if accepted {
			assert.NoError(t, create(obj), "flinkVersion %s accepted", version)
		} else {
			assert.Error(t, create(obj), "flinkVersion %s refused", version)
		}
	}
}
