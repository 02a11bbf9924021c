package bench

import (
	"fmt"
	"sync"
)

// parallel runs fn(0..n-1) on a few goroutines; it returns the first
// error and how many failed.
func parallel(n int, fn func(i int) error) error {
	const width = 16
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		first  error
		failed int
		next   = make(chan int)
	)
	for range min(width, n) {
		wg.Go(func() {
			for i := range next {
				if err := fn(i); err != nil {
					mu.Lock()
					if failed++; first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if failed > 1 {
		return fmt.Errorf("%d of %d failed, the first: %w", failed, n, first)
	}
	return first
}
