package reconcile

// capped appends v unless the list is full, and says whether it fitted.
func capped[T any](list *[]T, v T, limit int) bool {
	if len(*list) >= limit {
		return false
	}
	*list = append(*list, v)
	return true
}
