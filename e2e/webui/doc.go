// Package webui proves, in a real browser, what an operator sees of a
// stuck finalization in the Temporal Web UI: headless Chromium (Debian's
// package, installed when missing) driven with chromedp against the dev
// server's UI and against the Web UI server in front of the production
// topology's PostgreSQL-backed Temporal server, while a finalization is
// parked in Verifying.
package webui
