package lake

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/provenance"
	"github.com/ifkit/ifkit/lib/record"
)

// ManifestName is the run's manifest at the top of the folder. Spark, Hive and
// Trino skip names that start with "_", and no glob of a data extension
// matches it.
const ManifestName = "_manifest.json"

// DefaultPartition is the folder value of a record that lacks the field (or
// has it empty or null): Hive's and Spark's name, which DuckDB reads as NULL.
const DefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// Key is one --partition-by field.
type Key struct {
	Name  string // the folder's column: "model", "group.length"
	group string // KEY of group.KEY; "" for a top-level field
}

var keyRE = regexp.MustCompile(`^(group\.)?[A-Za-z_][A-Za-z0-9_]*$`)

// ParseKeys reads --partition-by FIELD[,FIELD…]: top-level fields or group.KEY.
func ParseKeys(spec string) ([]Key, error) {
	var keys []Key
	for f := range strings.SplitSeq(spec, ",") {
		f = strings.TrimSpace(f)
		if !keyRE.MatchString(f) {
			return nil, fmt.Errorf("--partition-by %q: want FIELD[,FIELD…], each a top-level field or group.KEY (letters, digits, _)", spec)
		}
		if slices.ContainsFunc(keys, func(k Key) bool { return k.Name == f }) {
			return nil, fmt.Errorf("--partition-by %q: %s twice", spec, f)
		}
		k := Key{Name: f}
		if g, ok := strings.CutPrefix(f, "group."); ok {
			k.group = g
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// Names lists the keys' column names.
func Names(keys []Key) []string {
	ns := make([]string, len(keys))
	for i, k := range keys {
		ns[i] = k.Name
	}
	return ns
}

// Value is the record's value of the key; ok is false when it is missing,
// null or empty (the default partition). A value that is not a string is bad
// input: partitions are labels, and a number's text form is not stable
// across writers (1 and 1.0).
func (k Key) Value(rec *record.Record) (v string, ok bool, err error) {
	raw := rec.Raw(k.Name)
	if k.group != "" {
		var g map[string]any
		if !rec.Has("group") {
			return "", false, nil
		}
		if err := rec.Decode("group", &g); err != nil {
			return "", false, fmt.Errorf("--partition-by %s: \"group\" is not an object", k.Name)
		}
		x, present := g[k.group]
		if !present || x == nil {
			return "", false, nil
		}
		s, isStr := x.(string)
		if !isStr {
			return "", false, fmt.Errorf("--partition-by %s: the value is %v, not a string", k.Name, x)
		}
		return s, s != "", nil
	}
	if raw == nil || string(raw) == "null" {
		return "", false, nil
	}
	if raw[0] != '"' {
		return "", false, fmt.Errorf("--partition-by %s: the value is %s, not a string", k.Name, raw)
	}
	s := rec.String(k.Name)
	return s, s != "", nil
}

// Escape makes a value one folder name's right-hand side: the characters
// Spark's Hive writer escapes (path separators, '=', '%', quotes, control
// characters, …), the space, and every byte that is not part of valid UTF-8,
// as %XX, which DuckDB and Spark both decode. A model name "org/model"
// becomes "org%2Fmodel": still readable, one level. (A name in bytes that
// are not UTF-8 could not be listed in the JSON manifest as it is on disk.)
func Escape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); {
		c := v[i]
		r, n := utf8.DecodeRuneInString(v[i:])
		if c < 0x20 || c == 0x7f || strings.IndexByte(" \"#%'*/:=?\\{[]^", c) >= 0 || r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, "%%%02X", c)
			i++
			continue
		}
		b.WriteString(v[i : i+n])
		i += n
	}
	return b.String()
}

// Manifest is what _manifest.json holds: the run's provenance and its parts.
type Manifest struct {
	provenance.Provenance
	PartitionBy []string `json:"partition_by"`
	Parts       []Part   `json:"parts"`
	Records     int64    `json:"records"`
	Failed      int64    `json:"failed"`
	Usage       any      `json:"usage,omitempty"` // what an inference or judge run paid (lib/cost.Account)
	Complete    bool     `json:"complete"`
}

// Part is one part file of the folder.
type Part struct {
	Path      string             `json:"path"` // relative, slash-separated
	Partition map[string]*string `json:"partition,omitempty"`
	Records   int64              `json:"records"`
	// SHA256 and Size are the file's as stored: a reader checks them before
	// it reads the part, and counts its records.
	SHA256 string `json:"sha256,omitempty"`
	Size   int64  `json:"size,omitempty"`
}
