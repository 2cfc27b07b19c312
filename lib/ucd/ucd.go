package ucd

//go:generate go run ./gen -o tables.go

import (
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Category is a general category (the two-letter values of
// UnicodeData.txt); Cn, unassigned, is the zero value.
type Category uint8

// The general categories, in the generator's order.
const (
	Cn Category = iota
	Lu
	Ll
	Lt
	Lm
	Lo
	Mn
	Mc
	Me
	Nd
	Nl
	No
	Pc
	Pd
	Ps
	Pe
	Pi
	Pf
	Po
	Sm
	Sc
	Sk
	So
	Zs
	Zl
	Zp
	Cc
	Cf
	Cs
	Co
	numCategories
)

// Set is a set of general categories.
type Set uint32

// Of is the set of the categories given.
func Of(cs ...Category) Set {
	var s Set
	for _, c := range cs {
		s |= 1 << c
	}
	return s
}

// Has says whether c is in s.
func (s Set) Has(c Category) bool { return s&(1<<c) != 0 }

// The one-letter groups.
var (
	L = Of(Lu, Ll, Lt, Lm, Lo)
	M = Of(Mn, Mc, Me)
	N = Of(Nd, Nl, No)
	P = Of(Pc, Pd, Ps, Pe, Pi, Pf, Po)
	S = Of(Sm, Sc, Sk, So)
	Z = Of(Zs, Zl, Zp)
	C = Of(Cc, Cf, Cs, Co, Cn)
)

var names = map[string]Set{
	"L": L, "Letter": L, "LC": Of(Lu, Ll, Lt), "Cased_Letter": Of(Lu, Ll, Lt), "L&": Of(Lu, Ll, Lt),
	"M": M, "Mark": M, "Combining_Mark": M,
	"N": N, "Number": N,
	"P": P, "Punctuation": P, "punct": P,
	"S": S, "Symbol": S,
	"Z": Z, "Separator": Z,
	"C": C, "Other": C,
}

func init() {
	long := []string{"Unassigned", "Uppercase_Letter", "Lowercase_Letter", "Titlecase_Letter", "Modifier_Letter", "Other_Letter",
		"Nonspacing_Mark", "Spacing_Mark", "Enclosing_Mark", "Decimal_Number", "Letter_Number", "Other_Number",
		"Connector_Punctuation", "Dash_Punctuation", "Open_Punctuation", "Close_Punctuation", "Initial_Punctuation", "Final_Punctuation", "Other_Punctuation",
		"Math_Symbol", "Currency_Symbol", "Modifier_Symbol", "Other_Symbol", "Space_Separator", "Line_Separator", "Paragraph_Separator",
		"Control", "Format", "Surrogate", "Private_Use"}
	short := []string{"Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po",
		"Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co"}
	for c := range numCategories {
		names[short[c]] = Of(c)
		names[long[c]] = Of(c)
	}
	names["digit"] = Of(Nd)
	names["cntrl"] = Of(Cc)
}

// Named is the set of a general category's short or long name ("L",
// "Letter", "Lu", "Uppercase_Letter"), as \p{…} names it. Names compare
// loosely, as Unicode's UAX44-LM3 says: case, spaces, hyphens and
// underscores aside ("lowercase letter" is Ll).
func Named(name string) (Set, bool) {
	if s, ok := names[name]; ok {
		return s, ok
	}
	s, ok := looseNames()[Loose(name)]
	return s, ok
}

var looseNames = sync.OnceValue(func() map[string]Set {
	m := map[string]Set{}
	for n, s := range names {
		m[Loose(n)] = s
	}
	return m
})

// Loose is a property name or value as UAX44-LM3 compares them: lower case,
// without spaces, hyphens or underscores.
func Loose(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_', '\t':
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, name)
}

// Version is the tables of one Unicode version. Every version has the
// general categories; the case mappings and binary properties exist only
// where the generator wrote them, and asking for one that is absent panics.
type Version struct {
	Name string
	// cats holds first rune << 5 | Category for each run of one category,
	// in order; a run lasts until the next begins.
	cats         []uint32
	lower        []uint32 // rune, simple lowercase, by rune
	lowerSpecial map[rune]string
	fold         []uint32 // rune, simple case folding, by rune
	props        map[string]Ranges

	orbitsOnce sync.Once
	orbits     map[rune][]rune // folded rune → the runes that fold to it, it first
}

// Category is the general category of r (Cn for a rune unassigned in v or
// outside the code space).
func (v *Version) Category(r rune) Category {
	c, _ := v.Run(r)
	return c
}

// Run is r's general category and the first rune of the run of runes of
// that category r is in (decimal digits come in runs from 0 to 9).
func (v *Version) Run(r rune) (c Category, first rune) {
	if r < 0 || r > 0x10FFFF {
		return Cn, r
	}
	cs := v.cats
	i := sort.Search(len(cs), func(i int) bool { return rune(cs[i]>>5) > r }) - 1
	return Category(cs[i] & 31), rune(cs[i] >> 5)
}

// In says whether r's category is in s.
func (v *Version) In(r rune, s Set) bool { return s.Has(v.Category(r)) }

// ToLower is r's simple lowercase mapping.
func (v *Version) ToLower(r rune) rune {
	if v.lower == nil {
		panic("ucd: no lowercase mapping for Unicode " + v.Name)
	}
	return lookup(v.lower, r)
}

// Lower is r's full lowercase mapping without conditions (İ becomes
// "i̇"), as Rust's char::to_lowercase gives it.
func (v *Version) Lower(r rune) string {
	if s, ok := v.lowerSpecial[r]; ok {
		return s
	}
	return string(v.ToLower(r))
}

// LowerString is s with each character's full lowercase mapping without
// conditions (Lower), as Rust's char::to_lowercase maps each character.
func (v *Version) LowerString(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		switch {
		case 'A' <= r && r <= 'Z':
			b.WriteByte(byte(r + 'a' - 'A'))
		case r < utf8.RuneSelf:
			b.WriteByte(byte(r))
		default:
			b.WriteString(v.Lower(r))
		}
	}
	return b.String()
}

// SimpleFold is r's simple case folding (CaseFolding.txt's C and S), which
// case-insensitive matching compares.
func (v *Version) SimpleFold(r rune) rune {
	if v.fold == nil {
		panic("ucd: no case folding for Unicode " + v.Name)
	}
	return lookup(v.fold, r)
}

// Orbit is every rune whose simple case folding is r's (r among them):
// the runes a case-insensitive match of r accepts.
func (v *Version) Orbit(r rune) []rune {
	f := v.SimpleFold(r)
	v.orbitsOnce.Do(func() {
		v.orbits = map[rune][]rune{}
		for i := 0; i < len(v.fold); i += 2 {
			to := rune(v.fold[i+1])
			if v.orbits[to] == nil {
				v.orbits[to] = []rune{to}
			}
			v.orbits[to] = append(v.orbits[to], rune(v.fold[i]))
		}
	})
	if o, ok := v.orbits[f]; ok {
		return o
	}
	return []rune{r}
}

func lookup(pairs []uint32, r rune) rune {
	n := len(pairs) / 2
	i := sort.Search(n, func(i int) bool { return rune(pairs[2*i]) >= r })
	if i < n && rune(pairs[2*i]) == r {
		return rune(pairs[2*i+1])
	}
	return r
}

// Prop is a binary property (those the generator writes for v: "Cased",
// "Case_Ignorable", "XID_Start", "XID_Continue", "Alphabetic").
func (v *Version) Prop(name string) Ranges {
	p, ok := v.props[name]
	if !ok {
		panic("ucd: no " + name + " for Unicode " + v.Name)
	}
	return p
}

// Ranges is a set of runes as inclusive lo, hi pairs, in order.
type Ranges []uint32

// Contains says whether r is in the set.
func (rs Ranges) Contains(r rune) bool {
	n := len(rs) / 2
	i := sort.Search(n, func(i int) bool { return rune(rs[2*i+1]) >= r })
	return i < n && rune(rs[2*i]) <= r
}

// IsWhiteSpace is the White_Space property, the same in every version the
// generator reads (it checks): what \s matches in the Rust and Oniguruma
// engines, and Rust's char::is_whitespace.
func IsWhiteSpace(r rune) bool { return whiteSpace.Contains(r) }
