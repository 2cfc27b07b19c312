package lifbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Context is the "context" field of a gen-context record: the rendered text
// and what the expander needs to build the instructions and their gold.
type Context struct {
	Scenario  string `json:"scenario"`
	Length    string `json:"length"`
	Budget    int    `json:"budget,omitempty"` // tokens allowed
	Tokens    int    `json:"tokens,omitempty"` // tokens used (≤ Budget)
	Tokenizer string `json:"tokenizer,omitempty"`
	Source    string `json:"source"` // generated, corpus or official
	Text      string `json:"text"`

	// List: the elements shown, in order (element i is numbered i+1).
	Elements []string `json:"elements,omitempty"`
	// MultiDoc: the documents shown (their text is in Text only) and the
	// groups of indices into Docs that share a text.
	Docs      []Doc   `json:"docs,omitempty"`
	DupGroups [][]int `json:"dup_groups,omitempty"`
	// OneDoc: the tagged key sentences by type, and some untagged sentences
	// of the text (the QA task asks about them too).
	Label Label    `json:"label,omitempty"`
	Plain []string `json:"plain,omitempty"`
}

// Doc is one MultiDoc document's attributes; Title and Source may be
// missing, which the batch_label task is about.
type Doc struct {
	ID2    string  `json:"iD2"`
	ID     string  `json:"id"`
	Title  *string `json:"title,omitempty"`
	Date   string  `json:"date"`
	Source *string `json:"source,omitempty"`
}

// Field returns a document attribute by its official key (nil when missing).
func (d *Doc) Field(key string) *string {
	switch key {
	case "iD2":
		return &d.ID2
	case "id":
		return &d.ID
	case "title":
		return d.Title
	case "date":
		return &d.Date
	case "source":
		return d.Source
	}
	return nil
}

// Keys lists the attribute keys the document has, as the official doc_keys.
func (d *Doc) Keys() []string {
	ks := []string{"iD2", "id"}
	if d.Title != nil {
		ks = append(ks, "title")
	}
	ks = append(ks, "text", "date")
	if d.Source != nil {
		ks = append(ks, "source")
	}
	return ks
}

// KeySentence is one tagged sentence: the official label entry
// [sentence, id, sentence index, is_true].
type KeySentence struct {
	Text  string
	ID    int
	Index int
	True  bool
}

// MarshalJSON writes the official 4-element array.
func (k KeySentence) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(k.Text)
	if err != nil {
		return nil, err
	}
	b = append([]byte{'['}, b...)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(k.ID), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(k.Index), 10)
	b = append(b, ',')
	b = strconv.AppendBool(b, k.True)
	return append(b, ']'), nil
}

// UnmarshalJSON reads [sentence, id, index, is_true].
func (k *KeySentence) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || len(raw) != 4 {
		return fmt.Errorf("key sentence: want [sentence, id, index, is_true], got %.80s", b)
	}
	if err := json.Unmarshal(raw[0], &k.Text); err != nil {
		return fmt.Errorf("key sentence text: %w", err)
	}
	var id, idx float64
	if err := json.Unmarshal(raw[1], &id); err != nil {
		return fmt.Errorf("key sentence id: %w", err)
	}
	if err := json.Unmarshal(raw[2], &idx); err != nil {
		return fmt.Errorf("key sentence index: %w", err)
	}
	k.ID, k.Index = int(id), int(idx)
	return json.Unmarshal(raw[3], &k.True)
}

// LabelType is the key sentences of one tag type, e.g. "#Topic#".
type LabelType struct {
	Type  string
	Items []KeySentence
}

// Label is the official OneDoc label: an object from tag type to key
// sentences, whose key order is kept.
type Label []LabelType

// Get returns the sentences of a type.
func (l Label) Get(typ string) []KeySentence {
	for _, t := range l {
		if t.Type == typ {
			return t.Items
		}
	}
	return nil
}

// MarshalJSON writes an object in the label's order.
func (l Label) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, t := range l {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(t.Type)
		buf.Write(k)
		buf.WriteByte(':')
		items := t.Items
		if items == nil {
			items = []KeySentence{}
		}
		v, err := json.Marshal(items)
		if err != nil {
			return nil, err
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads the object keeping its key order.
func (l *Label) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("label: want an object of tag type → sentences")
	}
	*l = nil
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var items []KeySentence
		if err := dec.Decode(&items); err != nil {
			return fmt.Errorf("label %v: %w", tok, err)
		}
		*l = append(*l, LabelType{Type: tok.(string), Items: items})
	}
	_, err = dec.Token()
	return err
}

// TagTypes are the six key-sentence types in the official order.
var TagTypes = []string{"#Topic#", "@argument@", "!Transition!", "|Summary|", "*Evidence*", "-Concession-"}
