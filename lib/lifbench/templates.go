package lifbench

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/stream"
)

// The embedded templates are the project's own wording, laid out like the
// official tasks.json (scenario → sys_instruction with {input} and
// {instruction}, subtasks → instructions and params), so --templates can
// load the official file with the same code.
//
//go:embed data/templates.json
var embeddedTemplates []byte

// Instruction is one expression of a task: the template and, for the
// offset tasks, its direction (+1 next, −1 previous).
type Instruction struct {
	Text string
	Bias int
}

// UnmarshalJSON accepts "text" or ["text", bias].
func (in *Instruction) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &in.Text)
	}
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("instruction: want a string or [string, bias], got %.60s", b)
	}
	if err := json.Unmarshal(pair[0], &in.Text); err != nil {
		return err
	}
	return json.Unmarshal(pair[1], &in.Bias)
}

// TaskTemplates are one task's expressions and variable pools.
type TaskTemplates struct {
	Instructions []Instruction   `json:"instructions"`
	Params       json.RawMessage `json:"params"`
}

// ScenarioTemplates are a scenario's description and its tasks.
type ScenarioTemplates struct {
	Description string                    `json:"sys_instruction"`
	Subtasks    map[string]*TaskTemplates `json:"subtasks"`
}

// Templates is a whole template set.
type Templates struct {
	Name      string // "embedded" or the file name
	Scenarios map[string]*ScenarioTemplates
}

// EmbeddedTemplates returns the project's templates.
func EmbeddedTemplates() *Templates {
	t, err := parseTemplates(embeddedTemplates, "embedded")
	if err != nil {
		panic(err)
	}
	return t
}

// LoadTemplates reads a tasks.json-shaped file.
func LoadTemplates(path string) (*Templates, error) {
	b, err := stream.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseTemplates(b, path)
}

func parseTemplates(b []byte, name string) (*Templates, error) {
	var sc map[string]*ScenarioTemplates
	if err := json.Unmarshal(b, &sc); err != nil {
		return nil, fmt.Errorf("templates %s: %w", name, err)
	}
	for _, s := range Scenarios {
		st, ok := sc[s]
		if !ok {
			continue
		}
		if !strings.Contains(st.Description, "{input}") || !strings.Contains(st.Description, "{instruction}") {
			return nil, fmt.Errorf("templates %s: %s sys_instruction needs {input} and {instruction}", name, s)
		}
		for _, t := range TasksOf(s) {
			tt, ok := st.Subtasks[t.Name]
			if !ok {
				continue
			}
			if len(tt.Instructions) == 0 {
				return nil, fmt.Errorf("templates %s: %s has no instructions", name, t.Name)
			}
		}
	}
	return &Templates{Name: name, Scenarios: sc}, nil
}

// Task returns a task's templates and its scenario description.
func (t *Templates) Task(task *Task) (*TaskTemplates, *ScenarioTemplates, bool) {
	sc, ok := t.Scenarios[task.Scenario]
	if !ok {
		return nil, nil, false
	}
	tt, ok := sc.Subtasks[task.Name]
	return tt, sc, ok
}

// Markers are the texts just before and after the context in a scenario's
// prompt; the list and multidoc scorers cut the context out of the prompt
// with them, as the official scorer does.
func (s *ScenarioTemplates) Markers() (start, end string) {
	i := strings.Index(s.Description, "{input}")
	before := s.Description[:i]
	if len(before) > 32 {
		before = before[len(before)-32:]
	}
	// Prefer the heading line after a blank line ("Numbered list:\n"): a
	// marker that starts with a rare byte is found faster in long prompts.
	if j := strings.LastIndex(before, "\n\n"); j >= 0 && len(before)-j-2 >= 8 {
		before = before[j+2:]
	}
	after := s.Description[i+len("{input}"):]
	if j := strings.Index(after, "{instruction}"); j >= 0 {
		after = after[:j]
	}
	return before, strings.TrimRight(after, " ")
}

// Prompt fills the scenario description.
func (s *ScenarioTemplates) Prompt(input, instruction string) string {
	return strings.NewReplacer("{input}", input, "{instruction}", instruction).Replace(s.Description)
}

// pyFormat fills a template as Python's str.format(**params) does for the
// forms the templates use: {name}, {name[i]}, and {{ }} escapes. Values are
// rendered as Python's str() would.
func pyFormat(tpl string, params map[string]any) (string, error) {
	var sb strings.Builder
	for i := 0; i < len(tpl); i++ {
		c := tpl[i]
		switch {
		case c == '{' && i+1 < len(tpl) && tpl[i+1] == '{':
			sb.WriteByte('{')
			i++
		case c == '}' && i+1 < len(tpl) && tpl[i+1] == '}':
			sb.WriteByte('}')
			i++
		case c == '{':
			j := strings.IndexByte(tpl[i:], '}')
			if j < 0 {
				return "", fmt.Errorf("template %q: unclosed {", tpl)
			}
			field := tpl[i+1 : i+j]
			v, err := lookupField(field, params)
			if err != nil {
				return "", err
			}
			sb.WriteString(pyStr(v))
			i += j
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String(), nil
}

func lookupField(field string, params map[string]any) (any, error) {
	name, idx := field, -1
	if k := strings.IndexByte(field, '['); k >= 0 && strings.HasSuffix(field, "]") {
		n, err := strconv.Atoi(field[k+1 : len(field)-1])
		if err != nil {
			return nil, fmt.Errorf("template field {%s}: bad index", field)
		}
		name, idx = field[:k], n
	}
	v, ok := params[name]
	if !ok {
		return nil, fmt.Errorf("template field {%s}: no such variable", field)
	}
	if idx < 0 {
		return v, nil
	}
	switch xs := v.(type) {
	case []string:
		if idx < len(xs) {
			return xs[idx], nil
		}
	case []any:
		if idx < len(xs) {
			return xs[idx], nil
		}
	case []int:
		if idx < len(xs) {
			return xs[idx], nil
		}
	}
	return nil, fmt.Errorf("template field {%s}: index out of range", field)
}

// pyStr renders a value as Python's str(): strings as they are, lists with
// repr() of their items.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return pyQuote(x)
	case int:
		return strconv.Itoa(x)
	case float64:
		return pyFloat(x)
	case json.Number:
		if isIntLiteral(string(x)) {
			return string(x)
		}
		f, _ := x.Float64()
		return pyFloat(f)
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = pyQuote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []int:
		parts := make([]string, len(x))
		for i, n := range x {
			parts[i] = strconv.Itoa(n)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []any:
		return "[" + reprItems(x) + "]"
	case pyList:
		return "[" + reprItems(x) + "]"
	case pyTuple:
		if len(x) == 1 {
			return "(" + pyRepr(x[0]) + ",)"
		}
		return "(" + reprItems(x) + ")"
	case pySet:
		if len(x) == 0 {
			return "set()"
		}
		return "{" + reprItems(x) + "}"
	case *pyDict:
		parts := make([]string, len(x.keys))
		for i, k := range x.keys {
			parts[i] = pyRepr(k) + ": " + pyRepr(x.vals[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case pyNumber:
		return x.repr()
	case pyBytes:
		return pyBytesRepr(string(x))
	case pyEllipsis:
		return "Ellipsis"
	case pyObject:
		return x.text
	}
	return fmt.Sprint(v)
}

func reprItems(xs []any) string {
	parts := make([]string, len(xs))
	for i, e := range xs {
		parts[i] = pyRepr(e)
	}
	return strings.Join(parts, ", ")
}

func isIntLiteral(s string) bool {
	return !strings.ContainsAny(s, ".eE")
}

// pyFloat is Python's repr of a float.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if a := math.Abs(f); f != 0 && (a >= 1e16 || a < 1e-4) {
		mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
		digits := exp[1:]
		if len(digits) < 2 {
			digits = "0" + digits
		}
		return mant + "e" + exp[:1] + digits
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// pyQuote is Python's repr of a str: single quotes unless the text has a
// single quote and no double quote; characters that are not printable
// (str.isprintable: controls, format characters, separators other than the
// space, surrogates, private use and unassigned code points) as \x, \u or
// \U escapes.
func pyQuote(s string) string {
	q := quoteChar(s)
	var sb strings.Builder
	sb.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			sb.WriteString(`\\`)
		case r == rune(q):
			sb.WriteByte('\\')
			sb.WriteByte(q)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case !pystr.IsPrintable(r) && r < 0x100:
			fmt.Fprintf(&sb, `\x%02x`, r)
		case !pystr.IsPrintable(r) && r < 0x10000:
			fmt.Fprintf(&sb, `\u%04x`, r)
		case !pystr.IsPrintable(r):
			fmt.Fprintf(&sb, `\U%08x`, r)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte(q)
	return sb.String()
}

func quoteChar(s string) byte {
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		return '"'
	}
	return '\''
}

// pyBytesRepr is repr() of bytes held one byte per character.
func pyBytesRepr(b string) string {
	q := quoteChar(b)
	var sb strings.Builder
	sb.WriteString("b")
	sb.WriteByte(q)
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\' || c == q:
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\r':
			sb.WriteString(`\r`)
		case c == '\t':
			sb.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&sb, `\x%02x`, c)
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte(q)
	return sb.String()
}
