package blobstate

import (
	"cmp"
	"errors"
	"net/url"
	"slices"
	"strings"
)

// minSecretLen is the shortest string scrub replaces on its own: shorter
// query values and user names ("x", "true", "1") are words and numbers of
// every message, and no credential is that short. They are still hidden
// inside the URL, which scrub replaces whole.
const minSecretLen = 4

// scrubbedError is an error of a bucket library with the credentials of the
// URL it was given replaced. The drivers print that URL whole, user info and
// query included, so their errors are scrubbed before they are wrapped.
// errors.Is and errors.As still see the library's error, but it has no
// Unwrap: whatever prints an error chain link by link (the Temporal SDK
// records each link's message as a failure cause in the history) stops at
// the scrubbed message.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string        { return e.msg }
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.err, target) }
func (e *scrubbedError) As(target any) bool   { return errors.As(e.err, target) }

// scrubber hides what a bucket URL may carry as credentials in the messages
// of errors about it.
type scrubber struct {
	// redacted replaces the URL as a whole.
	redacted string
	// urls are the URL's spellings a driver may print, longest first.
	urls []string
	// secrets are the user info and query values, and the user info of
	// URLs nested in the query (an S3 endpoint), longest first.
	secrets []string
}

// newScrubber collects what to hide of the URL given to a driver (u, with
// the options Open adds) and the one the caller wrote (raw).
func newScrubber(u *url.URL, raw string) scrubber {
	s := scrubber{redacted: redact(u), urls: []string{raw, u.String(), u.Redacted()}}
	var secrets []string
	addUser := func(ui *url.Userinfo) {
		if ui == nil {
			return
		}
		secrets = append(secrets, ui.String(), ui.Username())
		if p, ok := ui.Password(); ok {
			secrets = append(secrets, p)
		}
	}
	addUser(u.User)
	for _, values := range u.Query() {
		for _, v := range values {
			secrets = append(secrets, v)
			if nested, err := url.Parse(v); err == nil {
				addUser(nested.User)
			}
		}
	}
	for _, v := range secrets {
		if len(v) < minSecretLen || v == "skip" || v == "true" {
			// Too short to be a credential, or an option Open sets itself.
			continue
		}
		s.secrets = append(s.secrets, v, url.QueryEscape(v), url.PathEscape(v))
	}
	byLengthDown := func(a, b string) int { return cmp.Compare(len(b), len(a)) }
	slices.SortFunc(s.urls, byLengthDown)
	slices.SortFunc(s.secrets, byLengthDown)
	s.urls = slices.Compact(s.urls)
	s.secrets = slices.Compact(s.secrets)
	return s
}

// scrub returns err with every credential of the URL replaced in its
// message; nil stays nil.
func (s scrubber) scrub(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, u := range s.urls {
		if u != "" {
			msg = strings.ReplaceAll(msg, u, s.redacted)
		}
	}
	for _, v := range s.secrets {
		msg = strings.ReplaceAll(msg, v, redactedValue)
	}
	if msg == err.Error() {
		return err
	}
	return &scrubbedError{msg: msg, err: err}
}

// scrub hides the bucket URL's credentials in an error of the bucket
// library; a Store that Open did not make has nothing to hide.
func (s *Store) scrub(err error) error { return s.scrubber.scrub(err) }

// redactedValue stands where a credential was.
const redactedValue = "[redacted]"
