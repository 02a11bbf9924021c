package blobstate

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// FuzzHandleValidate: Validate never panics, and every handle it accepts
// encodes, decodes back to itself, and has a key ParseKey inverts. A
// handle it accepts never has an exclusive prefix that could reach beyond
// its own checkpoint directory.
func FuzzHandleValidate(f *testing.F) {
	h := validHandle()
	f.Add(h.Cluster, h.Job, h.Checkpoint, h.Epoch, h.MetadataKey, h.MetadataSHA256, h.ExclusivePrefix, false)
	f.Add("c", "j", uint64(1), uint64(1), "chk-1/_metadata", h.MetadataSHA256, "chk-1/", false)
	f.Add("c", "j", uint64(1), uint64(1), "sp/_metadata", h.MetadataSHA256, "", true)
	f.Add("c", "j", uint64(5), uint64(1), "a/../chk-5/m", h.MetadataSHA256, "a/../chk-5/", false)
	f.Add("c", "j", uint64(5), uint64(1), "handles/chk-5/m", h.MetadataSHA256, "handles/chk-5/", false)
	f.Fuzz(func(t *testing.T, cluster, job string, checkpoint, epoch uint64, metaKey, metaSum, prefix string, savepoint bool) {
		h := Handle{
			CheckpointID:    stores.CheckpointID{JobID: stores.JobID{Cluster: cluster, Job: job}, Checkpoint: checkpoint},
			Epoch:           epoch,
			MetadataKey:     metaKey,
			MetadataSHA256:  metaSum,
			ExclusivePrefix: prefix,
			Savepoint:       savepoint,
		}
		if err := h.Validate(); err != nil {
			return
		}
		if !savepoint {
			checkSafePrefix(t, h)
		}
		b, err := EncodeEnvelope(h)
		if err != nil {
			t.Fatalf("valid handle does not encode: %v", err)
		}
		got, err := DecodeEnvelope(b)
		if err != nil {
			t.Fatalf("encoded handle does not decode: %v\n%s", err, b)
		}
		if got != h {
			t.Fatalf("round trip: got %+v, want %+v", got, h)
		}
		id, ep, err := ParseKey(h.Key())
		if err != nil || id != h.CheckpointID || ep != h.Epoch {
			t.Fatalf("ParseKey(%q) = %v, %d, %v", h.Key(), id, ep, err)
		}
	})
}

// checkSafePrefix restates the deletion-safety rules independently of
// their implementation.
func checkSafePrefix(t *testing.T, h Handle) {
	p := h.ExclusivePrefix
	segs := strings.Split(p, "/")
	if len(segs) < 2 || segs[len(segs)-1] != "" {
		t.Fatalf("prefix %q does not end with '/'", p)
	}
	for _, s := range segs[:len(segs)-1] {
		if s == "" || s == "." || s == ".." {
			t.Fatalf("prefix %q has segment %q", p, s)
		}
	}
	if want := "chk-" + strconv.FormatUint(h.Checkpoint, 10); segs[len(segs)-2] != want {
		t.Fatalf("prefix %q is not the directory %s", p, want)
	}
	if strings.HasPrefix(p, stores.HandlesPrefix) {
		t.Fatalf("prefix %q is in the handle namespace", p)
	}
	if !strings.HasPrefix(h.MetadataKey, p) {
		t.Fatalf("metadata %q outside prefix %q", h.MetadataKey, p)
	}
}

// FuzzDecodeEnvelope: DecodeEnvelope never panics, and whatever it
// accepts is a valid handle whose encoding is exactly the input.
func FuzzDecodeEnvelope(f *testing.F) {
	good, err := EncodeEnvelope(validHandle())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"v":1,"handle":{},"sha256":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"}`))
	f.Add([]byte(`{"v":1,"handle":null,"sha256":""}`))
	f.Add([]byte(`[]`))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeEnvelope(b)
		if err != nil {
			return
		}
		if verr := h.Validate(); verr != nil {
			t.Fatalf("decoded an invalid handle: %v", verr)
		}
		again, err := EncodeEnvelope(h)
		if err != nil {
			t.Fatalf("decoded handle does not encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("not canonical:\n in %q\nout %q", b, again)
		}
	})
}

// FuzzParseKey: ParseKey never panics and accepts only what Key writes.
func FuzzParseKey(f *testing.F) {
	f.Add(Key(ckpt("orders", 7), 3))
	f.Add("handles/a/b/00000000000000000001/00000000000000000001.json")
	f.Add("handles/a/b/18446744073709551615/18446744073709551616.json")
	f.Fuzz(func(t *testing.T, key string) {
		id, epoch, err := ParseKey(key)
		if err != nil {
			return
		}
		if got := Key(id, epoch); got != key {
			t.Fatalf("ParseKey(%q) gives %v epoch %d, whose key is %q", key, id, epoch, got)
		}
	})
}
