package devserver

import "github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"

// pickPorts chooses the frontend port and, with the UI on, the UI port,
// taking the ones fixed in opts as they are.
func pickPorts(opts Options) (ports, error) {
	p := ports{frontend: opts.Port}
	var err error
	if p.frontend == 0 {
		if p.frontend, err = freeport.Lingering(); err != nil {
			return p, err
		}
	}
	if opts.UI {
		p.ui = opts.UIPort
		if p.ui == 0 {
			if p.ui, err = freeport.Lingering(); err != nil {
				return p, err
			}
		}
	}
	return p, nil
}
