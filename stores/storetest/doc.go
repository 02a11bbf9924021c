// Package storetest is the conformance suite every stores.ReferenceStore
// backend runs, modelled on go-cloud's blob/drivertest: a backend provides a
// HarnessMaker and calls RunConformanceTests from its own tests, against a
// real server.
package storetest
