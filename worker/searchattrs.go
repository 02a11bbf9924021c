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
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// ErrSearchAttributes: the namespace lacks a search attribute the
// workflows set, or holds one of another type. Every finalization would
// fail on its first upsert; repeating the start does not help, registering
// them does.
var ErrSearchAttributes = errors.New("namespace search attributes")

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
		return fmt.Errorf("%w: namespace %s lacks %s; register them:\n  %s\nor start the worker with -register-search-attributes",
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
