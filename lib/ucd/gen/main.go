// Command gen writes lib/ucd's tables from Unicode's data as the
// @unicode/unicode-X npm packages (node-unicode-data) publish it: it installs
// them into a temporary folder with npm, reads them with node, and writes Go.
// Run it with go generate in lib/ucd; the output is committed, so building
// ifkit needs neither npm nor a network.
//
//	go run ./gen [-modules DIR] [-o tables.go]
//
// -modules names a node_modules folder that already holds the packages.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// version says what to generate for one Unicode version and why.
type version struct {
	name, pkgVersion, goName, why string
	// lower: the simple and special (unconditional) lowercase mappings;
	// fold: simple case folding (CaseFolding.txt statuses C and S);
	// props: binary properties.
	lower, fold bool
	props       []string
}

var versions = []version{
	{name: "9.0.0", pkgVersion: "2.0.7", goName: "Unicode9",
		why: "the normalization data of Hugging Face tokenizers (unicode-normalization-alignments): which characters its NFC/NFKC/NFD/NFKD know"},
	{name: "13.0.0", pkgVersion: "2.0.7", goName: "Unicode13",
		why:   "Python 3.10's str and re, which the official scorers ran on (lib/pystr)",
		lower: true, props: []string{"Cased", "Case_Ignorable", "XID_Start", "XID_Continue"}},
	{name: "16.0.0", pkgVersion: "2.0.7", goName: "Unicode16",
		why:  "the regular expressions of the tokenizers servers run: OpenAI's tiktoken (Rust regex/fancy-regex) and Hugging Face tokenizers (Oniguruma; Rust regex for its added tokens)",
		fold: true, props: []string{"Alphabetic"}},
	{name: "17.0.0", pkgVersion: "2.1.0", goName: "Unicode17",
		why:   "Rust's char methods (is_numeric, is_whitespace, to_lowercase) in the Hugging Face tokenizers build the agreement suite checks (npm tokenizers 0.23.2)",
		lower: true},
}

// categories are the leaf general categories, in the order of ucd.Category.
var categories = []struct{ short, long string }{
	{"Cn", "Unassigned"},
	{"Lu", "Uppercase_Letter"}, {"Ll", "Lowercase_Letter"}, {"Lt", "Titlecase_Letter"}, {"Lm", "Modifier_Letter"}, {"Lo", "Other_Letter"},
	{"Mn", "Nonspacing_Mark"}, {"Mc", "Spacing_Mark"}, {"Me", "Enclosing_Mark"},
	{"Nd", "Decimal_Number"}, {"Nl", "Letter_Number"}, {"No", "Other_Number"},
	{"Pc", "Connector_Punctuation"}, {"Pd", "Dash_Punctuation"}, {"Ps", "Open_Punctuation"}, {"Pe", "Close_Punctuation"},
	{"Pi", "Initial_Punctuation"}, {"Pf", "Final_Punctuation"}, {"Po", "Other_Punctuation"},
	{"Sm", "Math_Symbol"}, {"Sc", "Currency_Symbol"}, {"Sk", "Modifier_Symbol"}, {"So", "Other_Symbol"},
	{"Zs", "Space_Separator"}, {"Zl", "Line_Separator"}, {"Zp", "Paragraph_Separator"},
	{"Cc", "Control"}, {"Cf", "Format"}, {"Cs", "Surrogate"}, {"Co", "Private_Use"},
}

// data is what read.mjs prints for one version.
type data struct {
	Cats    map[string][][2]int `json:"cats"`  // long name → [begin, end) ranges
	Props   map[string][][2]int `json:"props"` // White_Space and the version's props
	Lower   [][2]int            `json:"lower"`
	Special [][]int             `json:"special"` // [code point, lowercase...]
	FoldC   [][2]int            `json:"foldC"`
	FoldS   [][2]int            `json:"foldS"`
}

const readScript = `
const [v, want] = [process.argv[1], JSON.parse(process.argv[2])];
const p = (path) => import('@unicode/unicode-' + v + '/' + path).then((m) => m.default);
const ranges = async (path) => (await p(path + '/ranges.mjs')).map((r) => [r.begin, r.end]);
const out = {cats: {}, props: {}};
for (const c of want.cats) out.cats[c] = await ranges('General_Category/' + c);
for (const b of want.props) out.props[b] = await ranges('Binary_Property/' + b);
if (want.lower) {
  out.lower = [...(await p('Simple_Case_Mapping/Lowercase/code-points.mjs'))];
  out.special = [...(await p('Special_Casing/Lowercase/code-points.mjs'))].map(([c, m]) => [c, ...m]);
}
if (want.fold) {
  out.foldC = [...(await p('Case_Folding/C/code-points.mjs'))];
  out.foldS = [...(await p('Case_Folding/S/code-points.mjs'))];
}
console.log(JSON.stringify(out));
`

func main() {
	modules := flag.String("modules", "", "a node_modules folder holding the @unicode packages (default: npm installs them into a temporary folder)")
	out := flag.String("o", "tables.go", "the Go file to write")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("ucd/gen: ")
	root := *modules
	if root == "" {
		dir, err := os.MkdirTemp("", "ucd-gen")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		args := []string{"install", "--no-save", "--no-audit", "--no-fund", "--prefix", dir}
		for _, v := range versions {
			args = append(args, "@unicode/unicode-"+v.name+"@"+v.pkgVersion)
		}
		cmd := exec.Command("npm", args...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			log.Fatalf("npm %s: %v", strings.Join(args, " "), err)
		}
		root = filepath.Join(dir, "node_modules")
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by go run ./gen; DO NOT EDIT.\n\n")
	b.WriteString("// From the @unicode/unicode-X npm packages (node-unicode-data).\n\npackage ucd\n\n")
	var white [][2]int
	for _, v := range versions {
		d := read(root, v)
		ws := d.Props["White_Space"]
		if white != nil && !slices.Equal(ws, white) {
			log.Fatalf("White_Space differs in %s: ucd.IsWhiteSpace serves one list for every version", v.name)
		}
		white = ws
		write(&b, v, d)
	}
	fmt.Fprintf(&b, "var whiteSpace = Ranges{\n%s}\n", ranges(white))
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatalf("gofmt: %v", err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

func read(root string, v version) data {
	want := map[string]any{"props": append([]string{"White_Space"}, v.props...), "lower": v.lower, "fold": v.fold}
	var cats []string
	for _, c := range categories[1:] {
		cats = append(cats, c.long)
	}
	want["cats"] = cats
	arg, _ := json.Marshal(want)
	cmd := exec.Command("node", "--input-type=module", "-e", readScript, v.name, string(arg))
	cmd.Dir = filepath.Dir(root) // node resolves the packages from here
	cmd.Stderr = os.Stderr
	o, err := cmd.Output()
	if err != nil {
		log.Fatalf("node, Unicode %s: %v", v.name, err)
	}
	var d data
	if err := json.Unmarshal(o, &d); err != nil {
		log.Fatalf("Unicode %s: %v", v.name, err)
	}
	return d
}

func write(b *bytes.Buffer, v version, d data) {
	const maxRune = 0x10FFFF
	cat := make([]uint8, maxRune+1)
	for i, c := range categories[1:] {
		for _, r := range d.Cats[c.long] {
			for x := r[0]; x < r[1]; x++ {
				if cat[x] != 0 {
					log.Fatalf("Unicode %s: U+%04X is in two categories", v.name, x)
				}
				cat[x] = uint8(i + 1)
			}
		}
	}
	var runs []string
	for x := 0; x <= maxRune; x++ {
		if x == 0 || cat[x] != cat[x-1] {
			runs = append(runs, fmt.Sprintf("0x%x", x<<5|int(cat[x])))
		}
	}
	fmt.Fprintf(b, "// %s is Unicode %s, for %s.\n", v.goName, v.name, v.why)
	fmt.Fprintf(b, "var %s = &Version{\nName: %q,\ncats: []uint32{\n%s},\n", v.goName, v.name, lines(runs))
	if v.lower {
		var simple []string
		sort.Slice(d.Lower, func(i, j int) bool { return d.Lower[i][0] < d.Lower[j][0] })
		low := map[int]int{}
		for _, m := range d.Lower {
			low[m[0]] = m[1]
			simple = append(simple, fmt.Sprintf("0x%x, 0x%x", m[0], m[1]))
		}
		fmt.Fprintf(b, "lower: []uint32{\n%s},\n", lines(simple))
		// Only the special mappings that differ from the simple one (the
		// conditional ones, Final_Sigma and the languages', are not here).
		var special []string
		sort.Slice(d.Special, func(i, j int) bool { return d.Special[i][0] < d.Special[j][0] })
		for _, m := range d.Special {
			c, to := m[0], m[1:]
			simpleTo, ok := low[c]
			if !ok {
				simpleTo = c
			}
			if len(to) == 1 && to[0] == simpleTo {
				continue
			}
			var s strings.Builder
			for _, r := range to {
				s.WriteRune(rune(r))
			}
			special = append(special, fmt.Sprintf("0x%x: %+q,", c, s.String()))
		}
		fmt.Fprintf(b, "lowerSpecial: map[rune]string{\n%s\n},\n", strings.Join(special, "\n"))
	}
	if v.fold {
		all := append(append([][2]int{}, d.FoldC...), d.FoldS...)
		sort.Slice(all, func(i, j int) bool { return all[i][0] < all[j][0] })
		var fold []string
		for i, m := range all {
			if i > 0 && all[i-1][0] == m[0] {
				log.Fatalf("Unicode %s: two simple foldings of U+%04X", v.name, m[0])
			}
			fold = append(fold, fmt.Sprintf("0x%x, 0x%x", m[0], m[1]))
		}
		fmt.Fprintf(b, "fold: []uint32{\n%s},\n", lines(fold))
	}
	if len(v.props) > 0 {
		b.WriteString("props: map[string]Ranges{\n")
		for _, p := range v.props {
			fmt.Fprintf(b, "%q: {\n%s},\n", p, ranges(d.Props[p]))
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n\n")
}

// ranges writes [begin, end) ranges as inclusive lo, hi pairs.
func ranges(rs [][2]int) string {
	var s []string
	for _, r := range rs {
		s = append(s, fmt.Sprintf("0x%x, 0x%x", r[0], r[1]-1))
	}
	return lines(s)
}

// lines joins items with commas, eight to a line.
func lines(items []string) string {
	var b strings.Builder
	for i, it := range items {
		b.WriteString(it)
		b.WriteString(",")
		if i%8 == 7 || i == len(items)-1 {
			b.WriteString("\n")
		} else {
			b.WriteString(" ")
		}
	}
	return b.String()
}
