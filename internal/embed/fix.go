package embed

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
)

// LocalFix says how to get a local model that cannot be loaded or whose
// files are damaged. A local model runs in jarvis: there is no server to
// check, only files to pull. Doctor and index runs word it here.
func LocalFix(model string, err error) string {
	if errors.Is(err, hub.ErrHash) {
		return fmt.Sprintf("run `jarvis model rm %s` and `jarvis model pull %s` to download it again", model, model)
	}
	if strings.ContainsAny(model, `/\`) && !hub.IsRepoName(model) {
		return "check that " + model + " holds a supported model (`jarvis model list` shows the known ones), or pull one with `jarvis model pull NAME`"
	}
	return "run `jarvis model pull " + model + "` (or, offline, put the model's files in the folder `jarvis model list` names)"
}

// RemoteFix says what to check when the embedding server of provider
// cannot be reached or answers with an error.
func RemoteFix(provider string) string {
	if provider == ProviderOllama {
		return "start Ollama (`ollama serve`) and pull the model (`ollama pull nomic-embed-text`), or set JARVIS_EMBEDDER=lexical"
	}
	return "check the embedder URL and API key (JARVIS_EMBED_URL, JARVIS_EMBED_API_KEY), or set JARVIS_EMBEDDER=lexical"
}
