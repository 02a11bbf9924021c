package worker

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Durations in the JSON log read as durations, not nanoseconds.
func TestJSONLogWritesDurationStrings(t *testing.T) {
	var buf bytes.Buffer
	log := NewLogger(Config{LogFormat: "json", LogLevel: "info", ShutdownGrace: 30 * time.Second}, &buf)
	log.Info("starting", "config", Config{ShutdownGrace: 30 * time.Second}, "took", 1500*time.Millisecond)
	assert.Contains(t, buf.String(), `"shutdownGrace":"30s"`)
	assert.Contains(t, buf.String(), `"took":"1.5s"`)
}
