package blobstate

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/storebench"
)

// The benchmarks report p50 and p99 besides the mean: a finalization
// waits on single calls, so the tail matters.
//
//	go test ./stores/blobstate -run '^$' -bench . -benchtime 300x

func BenchmarkWrite(b *testing.B) {
	for name, open := range benchBackends(b) {
		b.Run(name, func(b *testing.B) {
			s := open(b)
			h := seedCheckpoint(b, s, "orders", 1, 1, 0)
			storebench.Measure(b, func(i int) {
				h.Epoch = uint64(i + 1) // a new key each time
				_, err := s.Write(context.Background(), h)
				require.NoError(b, err)
			})
		})
	}
}

func BenchmarkRewrite(b *testing.B) {
	for name, open := range benchBackends(b) {
		b.Run(name, func(b *testing.B) {
			s := open(b)
			h := seedCheckpoint(b, s, "orders", 1, 1, 0)
			storebench.Measure(b, func(int) {
				_, err := s.Write(context.Background(), h)
				require.NoError(b, err)
			})
		})
	}
}

func BenchmarkReadAndCheckData(b *testing.B) {
	for name, open := range benchBackends(b) {
		b.Run(name, func(b *testing.B) {
			s := open(b)
			h := seedCheckpoint(b, s, "orders", 1, 1, 0)
			_, err := s.Write(context.Background(), h)
			require.NoError(b, err)
			storebench.Measure(b, func(int) {
				_, err := s.Read(context.Background(), h.CheckpointID, h.Epoch)
				require.NoError(b, err)
				require.NoError(b, s.CheckData(context.Background(), h))
			})
		})
	}
}

// BenchmarkDiscard discards a checkpoint of 20 exclusive files.
func BenchmarkDiscard(b *testing.B) {
	for name, open := range benchBackends(b) {
		b.Run(name, func(b *testing.B) {
			s := open(b)
			hs := make([]Handle, b.N)
			for i := range hs {
				hs[i] = seedCheckpoint(b, s, "orders", 1, uint64(i+1), 19)
				_, err := s.Write(context.Background(), hs[i])
				require.NoError(b, err)
			}
			storebench.Measure(b, func(i int) {
				res, err := s.Discard(context.Background(), hs[i])
				require.NoError(b, err)
				require.Equal(b, 20, res.DeletedObjects)
			})
		})
	}
}

func benchBackends(b *testing.B) map[string]func(testing.TB) *Store {
	s3 := s3OpenerTB(b)
	return map[string]func(testing.TB) *Store{
		"file": func(tb testing.TB) *Store { return openURL(tb, "file://"+filepath.ToSlash(tb.TempDir())) },
		"s3":   s3,
	}
}
