// Command jarvis makes Obsidian vaults searchable by AI assistants over the
// Model Context Protocol. See `jarvis --help`.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// command is one subcommand: its name, a one-line summary for the overview,
// and the function that runs it.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *env, args []string) error
	// interrupted follows "interrupted; " when Ctrl-C stops the command:
	// what the interruption leaves behind ("" for nothing worth saying).
	interrupted string
}

// indexInterrupted is what an interruption leaves of the index, for the
// commands that write it.
const indexInterrupted = "the index stays consistent and the next run finishes the work"

// env is what a command may touch of the process.
type env struct {
	stdout, stderr io.Writer
	// stdin is what jarvis mcp reads its client's requests from; nil is
	// os.Stdin.
	stdin io.ReadCloser
	// stdinIsTerminal is set when a person, not a client, is on stdin.
	stdinIsTerminal bool
	getenv          func(string) string
	// stderrIsTerminal decides whether progress is drawn as a line redrawn
	// in place or written as plain log lines.
	stderrIsTerminal bool
	// stdoutIsTerminal decides whether search shows matched words in bold.
	stdoutIsTerminal bool
	// dbProbe tells what this user may do with the database's files; nil
	// asks the system. Tests running as root, whom the system lets do
	// anything, give one that answers as a user's system would.
	dbProbe store.Probe
}

// exitError carries a specific exit code up to main, which is the only place
// that turns errors into codes.
type exitError struct {
	code int
	err  error // nil when the command has printed everything already
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// errUsage marks errors in how jarvis was called; they exit with 2.
var errUsage = errors.New("usage")

// errNoVectors marks an index run whose notes were indexed but whose
// vectors for semantic search could not be made; it exits with 3.
var errNoVectors = errors.New("no vectors")

func commands() []command {
	cs := []command{
		{"index", "build or refresh the index of your vaults", runIndex, indexInterrupted},
		{"doctor", "check configuration, vaults and index, and say how to fix problems", runDoctor, ""},
		{"search", "search your vaults from the terminal", runSearch, indexInterrupted},
		{"query", "run an Obsidian Base (a .base file, a base block or a filter) over the index", runQuery, indexInterrupted},
		{"related", "show the notes related to a note, links to consider and unlinked mentions", runRelated, indexInterrupted},
		{"mcp", "serve your vaults to AI assistants over the Model Context Protocol", runMCP,
			"the server stopped with the index consistent (any index work cut short is finished at the next start)"},
		{"model", "download, list and remove embedding models that run inside jarvis", runModel, ""},
		{"setup", "add jarvis to Claude Desktop and print the line for Claude Code", runSetup, ""},
		{"version", "print the version", runVersion, ""},
		{"history", "list the last writes made to your notes through jarvis", runHistory, ""},
		{"undo", "revert the last write made to your notes, or write N", runUndo, indexInterrupted},
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	return cs
}

func main() {
	ctx, stop := notifyContext()
	e := &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv,
		stderrIsTerminal: isTerminal(os.Stderr), stdoutIsTerminal: isTerminal(os.Stdout), stdinIsTerminal: isTerminal(os.Stdin)}
	code := run(ctx, e, os.Args[1:])
	stop()
	os.Exit(code)
}

// signalled is the cause of a context ended by a signal.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return "stopped by " + s.sig.String() }

// notifyContext is signal.NotifyContext for Ctrl-C and SIGTERM, with the
// signal kept as the context's cause, for the exit status to tell them
// apart (interruptedStatus).
func notifyContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			cancel(signalled{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(context.Canceled)
	}
}

// interruptedStatus is the exit status of a command stopped by the signal
// that ended ctx, as shells report it: 128 and the signal's number, so
// 130 for Ctrl-C and 143 for SIGTERM; 130 when no signal is known (a
// command cancelled otherwise, as in tests).
func interruptedStatus(ctx context.Context) int {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		if n, ok := s.sig.(syscall.Signal); ok {
			return 128 + int(n)
		}
	}
	return 130
}

// run executes one command line and returns the process exit code.
func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 && args[0] == "help" {
			if args[1] == "config" {
				writeConfigHelp(e.stdout)
				return 0
			}
			return run(ctx, e, []string{args[1], "--help"})
		}
		printOverview(e.stdout)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args[0] = "version"
	}
	for _, c := range commands() {
		if c.name == args[0] {
			if c.name != "mcp" { // whose standard output is the client's
				shown := *e
				shown.stdout = safeWriter{e.stdout}
				e = &shown
			}
			return exitCode(ctx, e, c, c.run(ctx, e, args[1:]))
		}
	}
	if near := nearestCommand(args[0]); near != "" {
		fmt.Fprintf(e.stderr, "jarvis: unknown command %q; did you mean `jarvis %s`? `jarvis --help` lists them all\n", args[0], near)
		return 2
	}
	fmt.Fprintf(e.stderr, "jarvis: unknown command %q; run `jarvis --help` for the list\n", args[0])
	return 2
}

// nearestCommand is the command name typed most likely meant, "" when
// none is near (words.Nearest).
func nearestCommand(typed string) string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return words.Nearest(typed, names, 2)
}

// exitCode maps command c's error to an exit code, printing it once. An
// error after ctx ended (Ctrl-C or SIGTERM) is the interruption the user
// asked for, whatever it says (a query stopped midway, a server closed,
// doctor's checks cut short), and gets the shell's status for the signal
// (interruptedStatus: 130 for Ctrl-C), and a plain line, unless the
// command said so itself.
func exitCode(ctx context.Context, e *env, c command, err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if (errors.Is(err, context.Canceled) || ctx.Err() != nil) && !(errors.As(err, &ee) && ee.code == 130) {
		msg := "jarvis: interrupted"
		if c.interrupted != "" {
			msg += "; " + c.interrupted
		}
		fmt.Fprintln(e.stderr, msg)
		return interruptedStatus(ctx)
	}
	if errors.As(err, &ee) && ee.code == 130 {
		if ee.err != nil {
			fmt.Fprintf(e.stderr, "jarvis: %v\n", ee.err)
		}
		return interruptedStatus(ctx)
	}
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(e.stderr, "jarvis: %v\n", ee.err)
		}
		return ee.code
	}
	if errors.Is(err, errHelp) {
		return 0
	}
	if errors.Is(err, errUsage) {
		fmt.Fprintf(e.stderr, "jarvis: %v\n", strings.TrimSuffix(err.Error(), ": "+errUsage.Error()))
		return 2
	}
	if errors.Is(err, errNoVectors) {
		fmt.Fprintf(e.stderr, "jarvis: %v\n", strings.TrimSuffix(err.Error(), ": "+errNoVectors.Error()))
		return 3
	}
	fmt.Fprintf(e.stderr, "jarvis: %v\n", err)
	return 1
}

func printOverview(w io.Writer) {
	fmt.Fprintf(w, `jarvis makes Obsidian vaults searchable by AI assistants over the Model
Context Protocol.

Usage:
  jarvis <command> [flags]

Commands:
`)
	for _, c := range commands() {
		lines := wrapWords(c.summary, helpWidth-12)
		fmt.Fprintf(w, "  %-9s %s\n", c.name, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "%12s%s\n", "", l)
		}
	}
	fmt.Fprint(w, `
Help topics:
  config    where settings come from: flags, environment variables and the
            config file, with every key

Run 'jarvis <command> --help' for the flags of a command, and
'jarvis help config' for the configuration reference.
`)
}
