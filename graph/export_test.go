package graph

import "context"

// CountWaitedBatches returns ctx in which every batch a loader reads after
// waiting for more keys is recorded, and a function returning the batches
// recorded so far (loader name and key count). A request whose reads are all
// prefetched records none.
func CountWaitedBatches(ctx context.Context) (context.Context, func() []string) {
	w := &waitedBatches{}
	return context.WithValue(ctx, waitedBatchesKey{}, w), func() []string {
		w.mu.Lock()
		defer w.mu.Unlock()
		return append([]string(nil), w.batches...)
	}
}
