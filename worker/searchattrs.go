package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// ErrSearchAttributes: the namespace lacks a search attribute the
// workflows set, or holds one of another type. Every finalization would
// fail on its first upsert; repeating the start does not help, registering
// them does.
var ErrSearchAttributes = errors.New("namespace search attributes")

// ErrNamespace: the namespace the worker is configured for does not exist
// on the server. Repeating the start does not help; creating it (or
// naming the right one) does.
var ErrNamespace = errors.New("temporal namespace")

// checkNamespace makes sure the namespace exists on the server at address,
// before anything else asks about it (the SDK would report it only as its
// pollers fail). A server that does not let the worker describe it is
// logged and not checked.
func checkNamespace(ctx context.Context, c client.Client, address, namespace string, log *slog.Logger) error {
	_, err := c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
	var notFound *serviceerror.NamespaceNotFound
	var notFoundOld *serviceerror.NotFound
	var denied *serviceerror.PermissionDenied
	switch {
	case err == nil:
		return nil
	case errors.As(err, &notFound) || errors.As(err, &notFoundOld):
		return fmt.Errorf("%w: namespace %q does not exist on %s (%v); create it:\n  temporal operator namespace create --namespace %s\nor name an existing one with --temporal-namespace (FINALIZER_TEMPORAL_NAMESPACE, TEMPORAL_NAMESPACE)",
			ErrNamespace, namespace, address, err, namespace)
	case errors.As(err, &denied):
		log.Warn("namespace not checked: the server does not let this worker describe it", "namespace", namespace, "error", err)
		return nil
	}
	return fmt.Errorf("describe namespace %s on %s: %w", namespace, address, err)
}

// checkSearchAttributes makes sure the namespace carries every search
// attribute the workflows set, registering the missing ones when asked.
// A server that does not let the worker list them (Temporal Cloud without
// the permission) is logged and not checked: the first finalization will
// say it.
func checkSearchAttributes(ctx context.Context, c client.Client, namespace string, register bool, log *slog.Logger) error {
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	var denied *serviceerror.PermissionDenied
	var unimplemented *serviceerror.Unimplemented
	if errors.As(err, &denied) || errors.As(err, &unimplemented) {
		log.Warn("search attributes not checked: the server does not let this worker list them", "namespace", namespace, "error", err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("list search attributes of namespace %s: %w", namespace, err)
	}
	have := resp.GetCustomAttributes()
	missing := map[string]enums.IndexedValueType{}
	var wrong []string
	for name, typ := range contract.SearchAttributes() {
		want := enums.IndexedValueType(enums.IndexedValueType_value["INDEXED_VALUE_TYPE_"+strings.ToUpper(typ)])
		got, ok := have[name]
		switch {
		case !ok:
			missing[name] = want
		case got != want:
			wrong = append(wrong, fmt.Sprintf("%s is %s, the workflows need %s", name, got, want))
		}
	}
	sort.Strings(wrong)
	if len(wrong) > 0 {
		return fmt.Errorf("%w: namespace %s: %s (a search attribute's type cannot be changed: use another namespace)",
			ErrSearchAttributes, namespace, strings.Join(wrong, "; "))
	}
	if len(missing) == 0 {
		return nil
	}
	if !register {
		return fmt.Errorf("%w: namespace %s lacks %s; register them:\n  %s\nor start the worker with --register-search-attributes",
			ErrSearchAttributes, namespace, strings.Join(names(missing), ", "), createCommand(namespace, missing))
	}
	if _, err := c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: missing,
	}); err != nil {
		return fmt.Errorf("%w: register %s in namespace %s: %w", ErrSearchAttributes, strings.Join(names(missing), ", "), namespace, err)
	}
	log.Info("search attributes registered", "namespace", namespace, "names", names(missing))
	return nil
}

func names(m map[string]enums.IndexedValueType) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// createCommand is the Temporal CLI command that registers the attributes.
func createCommand(namespace string, missing map[string]enums.IndexedValueType) string {
	cmd := "temporal operator search-attribute create --namespace " + namespace
	for _, n := range names(missing) {
		cmd += " --name " + n + " --type " + contract.SearchAttributes()[n]
	}
	return cmd
}
