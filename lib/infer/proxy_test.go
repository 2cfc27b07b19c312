package infer

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
)

// newTruncatingProxy forwards to base and rewrites usage.prompt_tokens to
// 100, as a server that cut the prompt to its context size would report.
func newTruncatingProxy(t *testing.T, base string) string {
	t.Helper()
	re := regexp.MustCompile(`"prompt_tokens":\d+`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequest(r.Method, base[:len(base)-3]+r.URL.Path, r.Body)
		req.Header = r.Header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(502)
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		w.WriteHeader(resp.StatusCode)
		w.Write(re.ReplaceAll(b, []byte(`"prompt_tokens":100`)))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}
