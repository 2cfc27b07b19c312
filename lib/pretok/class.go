package pretok

import (
	"sync"

	"github.com/ifkit/ifkit/lib/ucd"
)

// class is a set of runes: ranges, general categories, a function and
// nested classes, united, then negated when neg. Membership of the Basic
// Multilingual Plane is worked out once, in bmp.
type class struct {
	neg    bool
	fold   bool // (?i): a rune is in when any rune of its case orbit is
	ranges [][2]rune
	cats   ucd.Set
	fn     func(rune) bool
	subs   []*class
	bmp    *[1 << 16 / 64]uint64
}

func (c *class) has(r rune) bool {
	if r < 1<<16 {
		return c.bmp[r>>6]&(1<<(r&63)) != 0
	}
	return c.slow(r)
}

func (c *class) slow(r rune) bool {
	in := c.base(r)
	if !in && c.fold {
		for _, o := range Unicode.Orbit(r) {
			if o != r && c.base(o) {
				in = true
				break
			}
		}
	}
	return in != c.neg
}

func (c *class) base(r rune) bool {
	for _, rg := range c.ranges {
		if rg[0] <= r && r <= rg[1] {
			return true
		}
	}
	if c.cats != 0 && Unicode.In(r, c.cats) {
		return true
	}
	if c.fn != nil && c.fn(r) {
		return true
	}
	for _, s := range c.subs {
		if s.has(r) {
			return true
		}
	}
	return false
}

func (c *class) prepare() *class {
	c.bmp = new([1 << 16 / 64]uint64)
	for r := rune(0); r < 1<<16; r++ {
		if c.slow(r) {
			c.bmp[r>>6] |= 1 << (r & 63)
		}
	}
	return c
}

var catClasses sync.Map // ucd.Set → *class

// catClass is the class of a set of categories, built once per set: the
// table of the BMP takes a millisecond, and patterns repeat \p{L}.
func catClass(s ucd.Set) *class {
	if c, ok := catClasses.Load(s); ok {
		return c.(*class)
	}
	c, _ := catClasses.LoadOrStore(s, (&class{cats: s}).prepare())
	return c.(*class)
}

func negIf(neg bool, c *class) *class {
	if !neg {
		return c
	}
	return (&class{neg: true, subs: []*class{c}}).prepare()
}

// The classes of the escapes, built by the first Compile (prepareClasses):
// their tables cost milliseconds that every program linking this package
// would otherwise pay at start, counting or not.
var (
	notNewline *class
	// wordClass is Oniguruma's \w: letters, marks, numbers and connector
	// punctuation (not the joiners, unlike Rust regex's).
	wordClass  *class
	spaceClass *class
	hexClass   *class
	anyClass   *class

	classesOnce sync.Once
)

func prepareClasses() {
	classesOnce.Do(func() {
		notNewline = (&class{neg: true, ranges: [][2]rune{{'\n', '\n'}}}).prepare()
		wordClass = catClass(ucd.L | ucd.M | ucd.N | ucd.Of(ucd.Pc))
		spaceClass = (&class{fn: ucd.IsWhiteSpace}).prepare()
		hexClass = (&class{ranges: [][2]rune{{'0', '9'}, {'a', 'f'}, {'A', 'F'}}}).prepare()
		anyClass = (&class{neg: true}).prepare()
	})
}

// property is \p{name}: a general category, White_Space, Any or Assigned.
func property(name string) (*class, bool) {
	if s, ok := ucd.Named(name); ok {
		return catClass(s), true
	}
	switch ucd.Loose(name) {
	case "whitespace", "wspace", "space":
		return spaceClass, true
	case "any":
		return anyClass, true
	case "assigned":
		return negIf(true, catClass(ucd.Of(ucd.Cn))), true
	}
	return nil, false
}
