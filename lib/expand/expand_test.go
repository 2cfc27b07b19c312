package expand

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
)

func TestUserChatFlagsWin(t *testing.T) {
	bench, flag := 100, 7
	temp, flagTemp := 0.0, 0.9
	got := UserChat("hi", Options{MaxTokens: &flag, Temperature: &flagTemp}, &bench, &temp)
	if *got.MaxTokens != 7 || *got.Temperature != 0.9 || got.Messages[0].Content != "hi" {
		t.Errorf("flags must override the benchmark's defaults: %+v", got)
	}
	got = UserChat("hi", Options{}, &bench, nil)
	b, _ := record.Marshal(got)
	if string(b) != `{"messages":[{"role":"user","content":"hi"}],"max_tokens":100}` {
		t.Errorf("defaults: %s (unset sampling fields must be left out)", b)
	}
}

// twice emits two requests per item.
type twice struct{}

func (twice) Expand(item *record.Record, emit func(*record.Record) error) error {
	for _, p := range []string{"a", "b"} {
		c := item.Clone()
		c.SetID(item.ID() + "-" + p)
		c.Set("request", UserChat(p, Options{}, nil, nil))
		if err := emit(c); err != nil {
			return err
		}
	}
	return nil
}

func TestRunRoutesByBench(t *testing.T) {
	reg := map[string]Factory{"b": func(Options) (Expander, error) { return twice{}, nil }}
	for _, tc := range []struct {
		name, input, want string
		code              int
	}{
		{"items expand, unknown fields kept", `{"id":"i","bench":"b","user":12345678901234567890}` + "\n",
			`{"id":"i-a","bench":"b","user":12345678901234567890,"request":{"messages":[{"role":"user","content":"a"}]}}` + "\n" +
				`{"id":"i-b","bench":"b","user":12345678901234567890,"request":{"messages":[{"role":"user","content":"b"}]}}` + "\n", 0},
		{"failed items pass through", `{"id":"i","bench":"b","error":{"stage":"gen-context","kind":"x","message":"y"}}` + "\n",
			`{"id":"i","bench":"b","error":{"stage":"gen-context","kind":"x","message":"y"}}` + "\n", 0},
		{"unknown bench is bad input", `{"id":"i","bench":"zz"}` + "\n", "", app.ExitBadInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			tool := app.Tool{Name: "expand-templates", Action: func(r *app.Run) error { return Run(r, reg, Options{}) }}
			code := app.RunTool(tool, []string{"expand-templates"}, app.Env{Stdin: strings.NewReader(tc.input), Stdout: out, Stderr: &stderr})
			out.Close()
			got, _ := os.ReadFile(out.Name())
			if code != tc.code || string(got) != tc.want {
				t.Errorf("exit %d, output:\n%s\nwant exit %d, output:\n%s\nstderr: %s", code, got, tc.code, tc.want, stderr.String())
			}
		})
	}
}

// budgeted emits one request with the max_tokens of the item, or a
// request whose max_tokens is not a number.
type budgeted struct{}

func (budgeted) Expand(item *record.Record, emit func(*record.Record) error) error {
	item.SetRaw("request", []byte(`{"messages":[{"role":"user","content":"a \u00e9 <b>"}],"max_tokens":`+item.String("mt")+`,"temperature":0.0}`))
	return emit(item)
}

// --reasoning-budget N adds N to every request's max_tokens, whatever the
// benchmark set, keeps the request's other bytes, and says so in the
// record; a max_tokens it cannot add to is bad input.
func TestReasoningBudget(t *testing.T) {
	reg := map[string]Factory{"b": func(Options) (Expander, error) { return budgeted{}, nil }}
	for _, tc := range []struct {
		name, input, want string
		budget, code      int
	}{
		{"raised", `{"id":"i","bench":"b","mt":"100"}` + "\n",
			`{"id":"i","bench":"b","mt":"100","request":{"messages":[{"role":"user","content":"a \u00e9 <b>"}],"max_tokens":2148,"temperature":0.0},"reasoning_budget":2048}` + "\n", 2048, 0},
		{"none asked", `{"id":"i","bench":"b","mt":"100"}` + "\n",
			`{"id":"i","bench":"b","mt":"100","request":{"messages":[{"role":"user","content":"a \u00e9 <b>"}],"max_tokens":100,"temperature":0.0}}` + "\n", 0, 0},
		{"not a number", `{"id":"i","bench":"b","mt":"null"}` + "\n", "", 2048, app.ExitBadInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			tool := app.Tool{Name: "expand-templates", Action: func(r *app.Run) error { return Run(r, reg, Options{ReasoningBudget: tc.budget}) }}
			code := app.RunTool(tool, []string{"expand-templates"}, app.Env{Stdin: strings.NewReader(tc.input), Stdout: out, Stderr: &stderr})
			out.Close()
			got, _ := os.ReadFile(out.Name())
			if code != tc.code || string(got) != tc.want {
				t.Errorf("exit %d, output:\n%s\nwant exit %d, output:\n%s\nstderr: %s", code, got, tc.code, tc.want, stderr.String())
			}
		})
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 31: "31st", 101: "101st", 111: "111th", 112: "112th"} {
		if got := Ordinal(n); got != want {
			t.Errorf("Ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}
