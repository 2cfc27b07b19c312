package ifscale

import (
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/stream"
)

// The project's own 500-term business vocabulary, one term per line.
//
//go:embed data/vocabulary.txt
var embeddedVocab string

// DefaultVocabName labels records made with the embedded vocabulary.
const DefaultVocabName = "ifkit-business-500"

// DefaultVocab returns the embedded vocabulary.
func DefaultVocab() []string {
	v, err := ParseVocab(strings.NewReader(embeddedVocab))
	if err != nil {
		panic("embedded vocabulary: " + err.Error())
	}
	return v
}

// LoadVocab reads a vocabulary file: one term per line, or the first column
// of a header-less CSV such as the official pruned_rules.csv.
func LoadVocab(path string) ([]string, error) {
	f, err := stream.OpenText(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, err := ParseVocab(f)
	if err != nil {
		return nil, &stream.LineError{File: path, Err: err} // bad input: exit 3
	}
	return v, nil
}

// ParseVocab reads terms, skipping blank lines; duplicates (ignoring case,
// as the matcher does) and an empty list are errors.
func ParseVocab(r io.Reader) ([]string, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	var terms []string
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		term := pystr.Strip(rec[0])
		if term == "" {
			continue
		}
		line, _ := cr.FieldPos(0)
		key := Term(term)
		if prev, dup := seen[key]; dup {
			return nil, fmt.Errorf("line %d: %q repeats the term of line %d", line, term, prev)
		}
		seen[key] = line
		terms = append(terms, term)
	}
	if len(terms) == 0 {
		return nil, errors.New("the vocabulary has no terms")
	}
	return terms, nil
}
