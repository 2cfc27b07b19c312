package lifbench

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/ifkit/ifkit/lib/tokens"
)

// officialFile is data/meta/{list,multidoc,onedoc}_input.json.
type officialFile struct {
	Info   json.RawMessage `json:"info"`
	Inputs []struct {
		InputText string          `json:"input_text"`
		Label     json.RawMessage `json:"label"`
		Length    int             `json:"length"`
	} `json:"inputs"`
}

type officialDocs struct {
	DocList []map[string]any `json:"doc_list"`
	Dupli   [][]int          `json:"dupli_idxs"`
}

// ImportOfficial reads an official context file and emits one context
// record per input, as Generate does. The scenario is told by the shape:
// a label object is OneDoc, an info object with doc_list MultiDoc, an info
// list List.
func ImportOfficial(path string, opt GenOptions, emit func(*record.Record) error) error {
	b, err := stream.ReadFile(path)
	if err != nil {
		return err
	}
	var f officialFile
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("%s: want {info, inputs:[{input_text, label, length}]}: %v", path, err)
	}
	enc, err := tokens.Get(opt.Tokenizer)
	if err != nil {
		return err
	}
	var list []string
	var docs officialDocs
	info := strings.TrimSpace(string(f.Info))
	for i, in := range f.Inputs {
		c := &Context{Text: in.InputText, Length: LabelForOfficial(in.Length), Source: "official", Tokenizer: enc.Name, Budget: in.Length * 1024}
		c.Tokens = enc.Count(in.InputText)
		lab := strings.TrimSpace(string(in.Label))
		switch {
		case strings.HasPrefix(lab, "{"):
			c.Scenario = OneDoc
			if err := json.Unmarshal(in.Label, &c.Label); err != nil {
				return fmt.Errorf("%s: input %d: label: %v", path, i, err)
			}
			c.Plain = plainSentences(in.InputText, c.Label, opt.Seed, c.Length)
		case strings.HasPrefix(info, "{"):
			c.Scenario = MultiDoc
			if docs.DocList == nil {
				if err := json.Unmarshal(f.Info, &docs); err != nil {
					return fmt.Errorf("%s: info: %v", path, err)
				}
			}
			k, err := strconv.Atoi(lab)
			if err != nil || k > len(docs.DocList) {
				return fmt.Errorf("%s: input %d: label %s: want the number of docs shown", path, i, lab)
			}
			for _, d := range docs.DocList[:k] {
				c.Docs = append(c.Docs, officialDoc(d))
			}
			c.DupGroups = visibleGroups(docs.Dupli, k)
		case strings.HasPrefix(info, "["):
			c.Scenario = List
			if list == nil {
				if err := json.Unmarshal(f.Info, &list); err != nil {
					return fmt.Errorf("%s: info: %v", path, err)
				}
			}
			k, err := strconv.Atoi(lab)
			if err != nil || k > len(list) {
				return fmt.Errorf("%s: input %d: label %s: want the number of elements shown", path, i, lab)
			}
			c.Elements = list[:k:k]
		default:
			return fmt.Errorf("%s: cannot tell the scenario (label %.20s, info %.20s)", path, lab, info)
		}
		rec := contextRecord(opt.Seed, c)
		rec.SetID(fmt.Sprintf("%s/official/%s/%s", Bench, c.Scenario, c.Length))
		if err := emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// officialDoc keeps the attributes; a numeric title becomes its decimal
// text, as Python's str() prints it.
func officialDoc(m map[string]any) Doc {
	str := func(k string) *string {
		v, ok := m[k]
		if !ok || v == nil {
			return nil
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case float64:
			s = pyRepr(x)
			if x == float64(int64(x)) {
				s = strconv.FormatInt(int64(x), 10)
			}
		default:
			s = fmt.Sprint(x)
		}
		return &s
	}
	d := Doc{Title: str("title"), Source: str("source")}
	for k, p := range map[string]*string{"iD2": &d.ID2, "id": &d.ID, "date": &d.Date} {
		if s := str(k); s != nil {
			*p = *s
		}
	}
	return d
}

// tagMarkRe matches the head and tail tags around key sentences.
var tagMarkRe = regexp.MustCompile(`<[^<>\s]{0,24}>`)

// plainSentences picks up to 12 untagged sentences of an official OneDoc
// text for the QA task (the official code samples them with nltk).
func plainSentences(text string, label Label, seed uint64, length string) []string {
	key := map[string]bool{}
	for _, lt := range label {
		for _, k := range lt.Items {
			key[strings.TrimSpace(k.Text)] = true
		}
	}
	var cand []string
	for _, s := range SplitSentences(tagMarkRe.ReplaceAllString(text, "")) {
		if !key[s] && !strings.ContainsAny(s, "<>") && len(s) > 20 {
			cand = append(cand, s)
		}
	}
	r := rng(seed, OneDoc, "plain", length)
	var out []string
	for _, i := range r.Perm(len(cand)) {
		out = append(out, cand[i])
		if len(out) == 12 {
			break
		}
	}
	return out
}

// ReadCorpus reads --corpus FILE: JSON Lines with a "text" field (or
// "instruction", "output", "input" as in Alpaca), or plain text with one
// entry per line. Compressed files are read too.
func ReadCorpus(path string) ([]string, error) {
	in, err := stream.Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	var out []string
	for {
		line, n, err := in.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		s := strings.TrimSpace(string(line))
		if s == "" {
			continue
		}
		if s[0] == '{' {
			var m map[string]any
			if err := json.Unmarshal([]byte(s), &m); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
			for _, k := range []string{"text", "instruction", "essay", "document", "transcript", "input"} {
				if v, ok := m[k].(string); ok && strings.TrimSpace(v) != "" {
					out = append(out, v)
					break
				}
			}
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no text found (want JSONL with a \"text\" field, or plain lines)", path)
	}
	return out, nil
}
