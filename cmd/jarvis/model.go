package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
)

// modelHelp is the help of `jarvis model`, shared by its subcommands.
const modelHelp = `Models folder: $JARVIS_MODELS, or jarvis/models in the user cache folder
($XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS,
%LocalAppData% on Windows). Each model gets a folder there named
owner--name, holding its files and jarvis-model.json (what was installed,
from which commit, with each file's hash). A folder you fill by hand works
too, and so does a model folder anywhere else: give its path wherever a
model name goes.

Hugging Face:
  HF_ENDPOINT   the hub to download from (default https://huggingface.co),
                such as a mirror
  HF_TOKEN      an access token, sent when set; only gated or private models
                need one
`

func runModel(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("model needs a subcommand: pull, list or rm; see `jarvis model --help`: %w", errUsage)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		printModelOverview(e.stdout)
		return errHelp
	case "pull":
		return runModelPull(ctx, e, args[1:])
	case "list", "ls":
		return runModelList(e, args[1:])
	case "rm", "remove":
		return runModelRemove(e, args[1:])
	}
	return fmt.Errorf("model has no subcommand %q: use pull, list or rm; see `jarvis model --help`: %w", args[0], errUsage)
}

func printModelOverview(w io.Writer) {
	fmt.Fprintf(w, `Usage:
  jarvis model pull NAME|owner/name [--revision REV]
  jarvis model list [--json]
  jarvis model rm NAME

Download embedding models that jarvis runs itself, on this machine with no
server, and list or remove them. NAME is a model from 'jarvis model list'
(pinned to a known commit), or any Hugging Face repository as owner/name
whose files are in a layout jarvis runs (BERT, or a static model2vec or
sentence-transformers model, with model.safetensors).

Run 'jarvis model <subcommand> --help' for its flags.

%s`, modelHelp)
}

// newModelFlagSet is newFlagSet for a model subcommand, whose --help ends
// with the models folder and the hub settings.
func newModelFlagSet(name, usage, description string, e *env) *flag.FlagSet {
	fs := newFlagSet("model "+name, usage, description, e)
	usageFn := fs.Usage
	fs.Usage = func() {
		usageFn()
		fmt.Fprintf(e.stdout, "\n%s", modelHelp)
	}
	return fs
}

// modelsDir is the models folder the model commands work in; a
// JARVIS_MODELS that names a file is a usage error.
func modelsDir(e *env) (string, error) {
	dir, err := hub.Dir(e.getenv)
	var me *hub.ModelsDirError
	if errors.As(err, &me) {
		return "", fmt.Errorf("%w: %w", err, errUsage)
	}
	return dir, err
}

// parseModelName parses flags placed before or after the one positional
// argument, the model name, and returns it.
func parseModelName(fs *flag.FlagSet, args []string) (string, error) {
	names, err := parseInterleaved(fs, args)
	if err != nil {
		return "", err
	}
	switch len(names) {
	case 0:
		return "", fmt.Errorf("%s needs a model name; `jarvis model list` shows them: %w", fs.Name(), errUsage)
	case 1:
		return names[0], nil
	}
	return "", fmt.Errorf("jarvis %s takes one model name, not %d (%s): %w", fs.Name(), len(names), strings.Join(names, " "), errUsage)
}

func runModelPull(ctx context.Context, e *env, args []string) error {
	fs := newModelFlagSet("pull", "jarvis model pull NAME|owner/name",
		`Download a model into the models folder, checking every file against
the hash the hub lists. The files are gathered in a staging folder and the
model is moved into place only when all of them are right, so a failed or
interrupted pull installs nothing; running it again resumes where it
stopped. A model already there at the same commit is not downloaded again.

Exit status: 0 when the model is installed, 1 when it could not be (the
message says why and what to do), 2 for a usage error, 130 when
interrupted.`, e)
	revision := fs.String("revision", "", "the `revision` to download, a branch, tag or commit (default: the commit the catalogue pins, or main for other repositories)")
	name, err := parseModelName(fs, args)
	if err != nil {
		return err
	}
	dir, err := modelsDir(e)
	if err != nil {
		return err
	}
	client := hub.NewClient(e.getenv)
	res, err := client.Pull(ctx, dir, name, hub.PullOptions{Revision: *revision, Progress: downloadBar(e, name)})
	switch {
	case errors.Is(err, hub.ErrUnknownModel):
		return fmt.Errorf("%w: %w", err, errUsage)
	case errors.Is(err, context.Canceled):
		return &exitError{code: 130, err: errors.New("interrupted; nothing was installed, and running the same pull again resumes the download")}
	case err != nil:
		return err
	}
	commit := res.Commit
	if commit == "" {
		commit = res.Revision
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if res.AlreadyInstalled {
		fmt.Fprintf(e.stdout, "%s (%s at %s) is already installed in %s\n", res.Name, res.Repo, commit, res.Path)
	} else {
		fmt.Fprintf(e.stdout, "installed %s (%s at %s, %s) in %s\n", res.Name, res.Repo, commit, formatSize(res.Size), res.Path)
	}
	if res.Note != "" {
		fmt.Fprintf(e.stdout, "note: %s\n", res.Note)
	}
	provider, source, cerr := config.ConfiguredEmbedder(e.getenv)
	switch {
	case cerr == nil && source == "":
		// Nothing chosen: the model just pulled becomes the one used, so
		// that pull then index is all it takes.
		if err := hub.SetDefault(dir, res.Name); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "no embedder was configured, so jarvis now uses %s for semantic search;\n", res.Name)
		fmt.Fprintf(e.stdout, "run `jarvis index` to make its vectors (choose another with --embedder or JARVIS_EMBEDDER)\n")
	default:
		if cerr == nil {
			fmt.Fprintf(e.stdout, "the embedder stays %s (from %s); ", provider, source)
		}
		fmt.Fprintf(e.stdout, "use this model with --embedder %s or JARVIS_EMBEDDER=%s\n", res.Name, res.Name)
	}
	return nil
}

// downloadBar draws the bytes of a pull on stderr when it is a terminal;
// otherwise it is nil and the pull prints only its result.
func downloadBar(e *env, name string) func(done, total int64) {
	if !e.stderrIsTerminal {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(done, total int64) {
		if bar == nil {
			bar = progressbar.NewOptions64(total,
				progressbar.OptionSetWriter(e.stderr),
				progressbar.OptionSetDescription("downloading "+name),
				progressbar.OptionShowBytes(true),
				progressbar.OptionShowTotalBytes(true),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish(),
			)
		}
		_ = bar.Set64(done)
		if done >= total {
			_ = bar.Finish()
		}
	}
}

// modelListing is one model of `jarvis model list --json`.
type modelListing struct {
	Name          string `json:"name"`
	Repo          string `json:"repo"`
	Revision      string `json:"revision"`
	Kind          string `json:"kind"`
	Layout        string `json:"layout"`
	Dimensions    int    `json:"dimensions,omitempty"`
	SizeBytes     int64  `json:"size_bytes"`
	GoodFor       string `json:"good_for,omitempty"`
	QueryPrefix   string `json:"query_prefix,omitempty"`
	PassagePrefix string `json:"passage_prefix,omitempty"`
	Installed     bool   `json:"installed"`
	Path          string `json:"path,omitempty"`
	Default       bool   `json:"default"`
}

// modelListOutput is what `jarvis model list --json` prints.
type modelListOutput struct {
	ModelsDir string         `json:"models_dir"`
	Models    []modelListing `json:"models"`
}

func runModelList(e *env, args []string) error {
	fs := newModelFlagSet("list", "jarvis model list",
		`List the models jarvis knows, fastest first, and any other model in the
models folder: its kind (static models look words up in a table and are
fast on any machine; transformers read the whole text and are slower),
the length of its vectors, its download size, whether it is installed, and
what it is good for.

--json prints {"models_dir": "...", "models": [{"name", "repo",
"revision", "kind", "layout", "dimensions", "size_bytes", "good_for",
"query_prefix", "passage_prefix", "installed", "path", "default"}]}.`, e)
	asJSON := fs.Bool("json", false, "print one JSON object with the models to stdout")
	if err := parse(fs, args); err != nil {
		return err
	}
	dir, err := modelsDir(e)
	if err != nil {
		return err
	}
	installed, err := hub.ListInstalled(dir)
	if err != nil {
		return err
	}
	def, _ := hub.Default(dir)
	isDefault := func(name, repo string) bool {
		return def != "" && (strings.EqualFold(def, name) || strings.EqualFold(def, repo))
	}
	out := modelListOutput{ModelsDir: dir, Models: []modelListing{}}
	seen := map[string]bool{}
	for _, m := range hub.Catalogue() {
		l := modelListing{
			Name: m.Name, Repo: m.Repo, Revision: m.Revision, Kind: string(m.Kind), Layout: string(m.Layout),
			Dimensions: m.Dimensions, SizeBytes: m.Size, GoodFor: m.GoodFor,
			QueryPrefix: m.QueryPrefix, PassagePrefix: m.PassagePrefix, Default: isDefault(m.Name, m.Repo),
		}
		for _, in := range installed {
			if strings.EqualFold(in.Repo, m.Repo) {
				seen[in.Path] = true
				l.Installed, l.Path = true, in.Path
				if in.Revision != "" {
					l.Revision = in.Revision
				}
				if in.Size > 0 {
					l.SizeBytes = in.Size
				}
			}
		}
		out.Models = append(out.Models, l)
	}
	for _, in := range installed {
		if seen[in.Path] {
			continue
		}
		out.Models = append(out.Models, modelListing{
			Name: in.Name, Repo: in.Repo, Revision: in.Revision, Kind: string(in.Kind), Layout: string(in.Layout),
			Dimensions: in.Dimensions, SizeBytes: in.Size, QueryPrefix: in.QueryPrefix, PassagePrefix: in.PassagePrefix,
			Installed: true, Path: in.Path, Default: isDefault(in.Name, in.Repo),
		})
	}
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(out)
	}
	printModelList(e.stdout, out)
	return nil
}

func printModelList(w io.Writer, out modelListOutput) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tDIMS\tSIZE\tINSTALLED\tGOOD FOR")
	for _, m := range out.Models {
		dims, size := "?", "?"
		if m.Dimensions > 0 {
			dims = fmt.Sprint(m.Dimensions)
		}
		if m.SizeBytes > 0 {
			size = formatSize(m.SizeBytes)
		}
		installed := "no"
		if m.Installed {
			installed = "yes"
		}
		if m.Default {
			installed += " (default)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.Name, m.Kind, dims, size, installed, m.GoodFor)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nmodels folder: %s (set JARVIS_MODELS to move it)\n", out.ModelsDir)
	fmt.Fprintln(w, "install one with `jarvis model pull NAME`: while no embedder is configured, the model pulled becomes the one used;")
	fmt.Fprintln(w, "otherwise, or to choose another installed one, use --embedder NAME or JARVIS_EMBEDDER=NAME")
}

// formatSize writes a byte count the way download sizes are usually shown.
func formatSize(n int64) string {
	switch {
	case n >= 1_000_000_000:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1_000_000:
		return fmt.Sprintf("%.0f MB", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.0f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

func runModelRemove(e *env, args []string) error {
	fs := newModelFlagSet("rm", "jarvis model rm NAME",
		`Remove an installed model from the models folder, with any half-done
download of it. NAME is the name 'jarvis model list' shows, or the
model's owner/name. Models outside the models folder are never touched.

Exit status: 0 when the model was removed, 1 when it is not installed or
could not be removed, 2 for a usage error.`, e)
	name, err := parseModelName(fs, args)
	if err != nil {
		return err
	}
	dir, err := modelsDir(e)
	if err != nil {
		return err
	}
	path, err := hub.Remove(dir, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "removed %s (%s)\n", name, path)
	return nil
}
