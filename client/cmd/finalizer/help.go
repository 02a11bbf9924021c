package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// usage is the tool's help: commands, global flags, exit codes.
func usage(w io.Writer, top *flag.FlagSet) {
	fmt.Fprintln(w, "usage: finalizer [global flags] <command> [flags]")
	fmt.Fprintln(w, "       finalizer help <command> | completion bash|zsh|fish | version")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands()[n]().summary)
	}
	fmt.Fprintln(w, "\nglobal flags (also accepted after the command); each Temporal setting is taken from, highest first:")
	fmt.Fprintln(w, "the flag, $FINALIZER_*, $TEMPORAL_*, the temporal.toml profile, the default")
	printFlags(w, top, nil)
	fmt.Fprintln(w, "\nexit codes: 0 ok (finalize --wait: Published), 1 error (repeat), 2 usage or invalid request,")
	fmt.Fprintln(w, "3 ended but not Published, 4 refused (stale epoch, retired, different content),")
	fmt.Fprintln(w, "5 not found (status: no finalization of that identity)")
}

// commandUsage is one command's help: what it does, an example, its own
// flags with the required ones marked.
func commandUsage(w io.Writer, name string, cmd command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: finalizer %s", name)
	for _, r := range cmd.required {
		fmt.Fprintf(w, " --%s ...", r)
	}
	fmt.Fprintf(w, " [flags]\n\n%s\n", cmd.summary)
	if cmd.example != "" {
		fmt.Fprintf(w, "\nexample:\n  %s\n", cmd.example)
	}
	fmt.Fprintln(w, "\nflags:")
	printFlags(w, fs, cmd.required)
	fmt.Fprintln(w, "\nglobal flags: see 'finalizer --help'")
}

// printFlags lists the flags of fs that are not global ones (for a
// command) or all of them (the top level), "--name", as the tool is used.
func printFlags(w io.Writer, fs *flag.FlagSet, required []string) {
	globals := map[string]bool{}
	if fs.Name() != "finalizer" {
		probe := newFlagSet("globals")
		newGlobals(func(string) string { return "" }, io.Discard).register(probe)
		probe.VisitAll(func(f *flag.Flag) { globals[f.Name] = true })
	}
	fs.VisitAll(func(f *flag.Flag) {
		if globals[f.Name] {
			return
		}
		kind, text := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		fmt.Fprintf(w, "%s\n      %s", line, text)
		switch {
		case slices.Contains(required, f.Name):
			fmt.Fprint(w, " (required)")
		case f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s":
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// help prints the tool's or one command's help on stdout.
func help(w io.Writer, top *flag.FlagSet, args []string) error {
	if len(args) == 0 {
		usage(w, top)
		return nil
	}
	mk, ok := commands()[args[0]]
	if !ok {
		return usagef("help: unknown command %q (want one of %v)", args[0], commandNames())
	}
	cmd := mk()
	fs := newFlagSet("finalizer " + args[0])
	cmd.flags(fs)
	commandUsage(w, args[0], cmd, fs)
	return nil
}

// flagNames are a command's own flags and the global ones, "--name".
func flagNames(name string) []string {
	fs := newFlagSet(name)
	if mk, ok := commands()[name]; ok {
		mk().flags(fs)
	}
	newGlobals(func(string) string { return "" }, io.Discard).register(fs)
	var out []string
	fs.VisitAll(func(f *flag.Flag) { out = append(out, "--"+f.Name) })
	return out
}

// completion prints a shell's completion script: commands first, then
// each command's flags.
func completion(w io.Writer, args []string) error {
	if len(args) != 1 {
		return usagef("completion: name one shell: bash, zsh or fish")
	}
	cmds := append(commandNames(), "help", "completion", "version")
	switch args[0] {
	case "bash", "zsh":
		var b strings.Builder
		if args[0] == "zsh" {
			b.WriteString("#compdef finalizer\nautoload -U +X bashcompinit && bashcompinit\n")
		}
		b.WriteString("_finalizer() {\n  local cur=${COMP_WORDS[COMP_CWORD]} cmd=\"\" w\n")
		b.WriteString("  for w in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do case $w in -*) ;; *) cmd=$w; break;; esac; done\n")
		b.WriteString("  case $cmd in\n")
		for _, n := range commandNames() {
			fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"));;\n", n, strings.Join(flagNames(n), " "))
		}
		fmt.Fprintf(&b, "    completion) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\"));;\n")
		fmt.Fprintf(&b, "    *) COMPREPLY=($(compgen -W \"%s %s\" -- \"$cur\"));;\n", strings.Join(cmds, " "), strings.Join(flagNames(""), " "))
		b.WriteString("  esac\n}\ncomplete -F _finalizer finalizer\n")
		_, err := io.WriteString(w, b.String())
		return err
	case "fish":
		var b strings.Builder
		fmt.Fprintf(&b, "complete -c finalizer -f -n __fish_use_subcommand -a '%s'\n", strings.Join(cmds, " "))
		for _, n := range commandNames() {
			for _, f := range flagNames(n) {
				fmt.Fprintf(&b, "complete -c finalizer -f -n '__fish_seen_subcommand_from %s' -l %s\n", n, strings.TrimPrefix(f, "--"))
			}
		}
		b.WriteString("complete -c finalizer -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	return usagef("completion: unknown shell %q (want bash, zsh or fish)", args[0])
}
