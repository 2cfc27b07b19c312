package lifbench

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/tokens"
)

// GenOptions are the gen-context lifbench flags.
type GenOptions struct {
	Scenarios []string
	Lengths   []Length
	Seed      uint64
	Tokenizer string
	// Corpus replaces the generated text: list elements, essay text and
	// document bodies are drawn from these texts (one per --corpus line).
	Corpus []string
}

// ContextID is the id of a generated context record.
func ContextID(seed uint64, scenario, length string) string {
	return fmt.Sprintf("%s/s%d/%s/%s", Bench, seed, scenario, length)
}

// rng gives each scenario its own stream, so generating a subset of the
// scenarios yields the same contexts as generating all of them.
func rng(seed uint64, parts ...string) *rand.Rand {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// Generate builds the contexts of every scenario at every length and emits
// one record each. Text is tokenized one element (list entry, document,
// sentence) at a time and the counts summed: the pieces are cut where the
// tokenizer's pre-split always cuts, so the sum is the count of the text.
func Generate(opt GenOptions, emit func(*record.Record) error) error {
	enc, err := tokens.Get(opt.Tokenizer)
	if err != nil {
		return err
	}
	if len(opt.Lengths) == 0 {
		opt.Lengths = DefaultLengths()
	}
	maxBudget := 0
	for _, l := range opt.Lengths {
		maxBudget = max(maxBudget, l.Tokens)
	}
	source := "generated"
	if len(opt.Corpus) > 0 {
		source = "corpus"
	}
	for _, sc := range opt.Scenarios {
		var build func(Length) (*Context, error)
		switch sc {
		case List:
			m := newListMaster(opt, enc, maxBudget)
			build = m.context
		case MultiDoc:
			m := newDocMaster(opt, enc, maxBudget)
			build = m.context
		case OneDoc:
			m := newEssayMaster(opt, enc, maxBudget)
			build = m.context
		default:
			return fmt.Errorf("unknown scenario %q (want list, multidoc, onedoc)", sc)
		}
		for _, l := range opt.Lengths {
			c, err := fitted(build, enc, l)
			if err != nil {
				return fmt.Errorf("%s %s: %w", sc, l.Label, err)
			}
			c.Scenario, c.Length, c.Budget, c.Tokenizer, c.Source = sc, l.Label, l.Tokens, enc.Name, source
			if err := emit(contextRecord(opt.Seed, c)); err != nil {
				return err
			}
		}
	}
	return nil
}

// sumIsExact lists the encodings whose pre-tokenizer always cuts where the
// pieces meet, so that the summed counts are the count of the text
// (TestContextsFitTheirBudgetExactly checks it). p50k_base and r50k_base do
// not: a document counted alone ends in one "\n\n" piece, but followed by
// the next header the blank line is two pieces.
var sumIsExact = map[string]bool{"o200k_base": true, "cl100k_base": true}

// fitted builds a context within its budget. Where the sum may undercount,
// the whole text is counted once and the budget lowered by the excess until
// the text fits.
func fitted(build func(Length) (*Context, error), enc *tokens.Encoder, l Length) (*Context, error) {
	if sumIsExact[enc.Name] {
		return build(l)
	}
	for budget := l.Tokens; ; {
		c, err := build(Length{Label: l.Label, Tokens: budget})
		if err != nil {
			return nil, err
		}
		n := enc.Count(c.Text)
		if n <= l.Tokens {
			c.Tokens = n
			return c, nil
		}
		budget -= n - l.Tokens
	}
}

func contextRecord(seed uint64, c *Context) *record.Record {
	rec := record.New(ContextID(seed, c.Scenario, c.Length))
	rec.Set("bench", Bench)
	rec.Set("task", c.Scenario)
	rec.Set("group", map[string]string{"scenario": c.Scenario, "length": c.Length, "seed": strconv.FormatUint(seed, 10)})
	rec.Set("context", c)
	return rec
}

// fit returns the largest k with prefix[k-1] + last(k-1) ≤ budget, where
// prefix[i] is the tokens of units 0..i-1 and last(i) the tokens of unit i
// as the final one (without its separator).
func fit(prefix []int, last func(i int) int, budget int) int {
	// prefix has len n+1; units with separators fit up to k0.
	k0 := sort.Search(len(prefix), func(i int) bool { return prefix[i] > budget }) - 1
	if k0 < len(prefix)-1 && prefix[k0]+last(k0) <= budget {
		return k0 + 1
	}
	for k := k0; k > 0; k-- {
		if prefix[k-1]+last(k-1) <= budget {
			return k
		}
	}
	return 0
}

// ---- List ----

type listMaster struct {
	enc      *tokens.Encoder
	elements []string
	prefix   []int // prefix[i]: tokens of "1. e\n" … "i. e\n"
}

func newListMaster(opt GenOptions, enc *tokens.Encoder, budget int) *listMaster {
	r := rng(opt.Seed, List)
	var lines func() string
	if len(opt.Corpus) > 0 {
		pool := corpusLines(opt.Corpus, 5, 40)
		r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		gen := newUnique(r, instructionLine)
		i := 0
		lines = func() string {
			if i < len(pool) {
				i++
				return pool[i-1]
			}
			return gen.next()
		}
	} else {
		u := newUnique(r, instructionLine)
		lines = u.next
	}
	m := &listMaster{enc: enc, prefix: []int{0}}
	seen := map[string]bool{}
	for m.prefix[len(m.elements)] <= budget {
		var e string
		if r.IntN(3) < 2 {
			e = uuidHex(r)
		} else {
			e = lines()
		}
		if seen[e] {
			continue
		}
		seen[e] = true
		i := len(m.elements)
		m.elements = append(m.elements, e)
		m.prefix = append(m.prefix, m.prefix[i]+enc.Count(listUnit(i, e, true)))
	}
	return m
}

func listUnit(i int, e string, sep bool) string {
	s := strconv.Itoa(i+1) + ". " + e
	if sep {
		s += "\n"
	}
	return s
}

func (m *listMaster) context(l Length) (*Context, error) {
	last := func(i int) int { return m.enc.Count(listUnit(i, m.elements[i], false)) }
	k := fit(m.prefix, last, l.Tokens)
	if k <= 22 {
		return nil, fmt.Errorf("only %d list elements fit in %d tokens; the tasks need more than 22", k, l.Tokens)
	}
	var sb strings.Builder
	for i := 0; i < k; i++ {
		sb.WriteString(listUnit(i, m.elements[i], i < k-1))
	}
	return &Context{Text: sb.String(), Tokens: m.prefix[k-1] + last(k-1), Elements: m.elements[:k:k]}, nil
}

func uuidBytes(r *rand.Rand) []byte {
	b := make([]byte, 16)
	for i := 0; i < 16; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return b
}

func uuidHex(r *rand.Rand) string { return hex.EncodeToString(uuidBytes(r)) }

func uuidString(b []byte) string {
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// corpusLines keeps the corpus texts of minW to maxW words, on one line.
func corpusLines(corpus []string, minW, maxW int) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range corpus {
		t = strings.Join(strings.Fields(t), " ")
		n := strings.Count(t, " ") + 1
		if t == "" || n < minW || n > maxW || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	if len(out) == 0 {
		// Too few fitting lines: use every non-empty text.
		for _, t := range corpus {
			if t = strings.Join(strings.Fields(t), " "); t != "" && !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// ---- MultiDoc ----

type docMaster struct {
	enc    *tokens.Encoder
	docs   []Doc
	units  []string // rendered with the blank line after
	lasts  []string // rendered as the final document
	prefix []int
	groups [][]int
}

// docFieldOrder are the keys a document is rendered with, in random order.
var docFieldOrder = []string{"text", "id", "iD2", "title", "date", "source"}

func newDocMaster(opt GenOptions, enc *tokens.Encoder, budget int) *docMaster {
	r := rng(opt.Seed, MultiDoc)
	u := newUnique(r, essaySentence)
	var pool []string
	if len(opt.Corpus) > 0 {
		for _, t := range opt.Corpus {
			if t = strings.Join(strings.Fields(t), " "); t != "" {
				pool = append(pool, t)
			}
		}
		r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	}
	// Documents are 150 to 550 tokens with their attributes, so this many
	// always cover the largest budget.
	n := budget/150 + 12
	texts := make([]string, n)
	for i := range texts {
		if i < len(pool) {
			// A corpus too small for the budget is continued with generated
			// text: repeating it would make duplicates beyond the groups.
			texts[i] = truncateWords(pool[i], 60+r.IntN(240))
		} else if i < 3 {
			// The first three are short so that 1k contexts show a duplicate.
			texts[i] = docText(r, u, 90+r.IntN(20))
		} else if r.IntN(10) < 4 {
			// Like the official texts cut to 200 tokens…
			texts[i] = docText(r, u, 130+r.IntN(20))
		} else {
			// …and those of 300 to 500 tokens kept whole.
			texts[i] = docText(r, u, 220+r.IntN(130))
		}
	}
	m := &docMaster{enc: enc, groups: dupGroups(r, n)}
	for _, g := range m.groups {
		for _, i := range g[1:] {
			texts[i] = texts[g[0]]
		}
	}
	m.prefix = []int{0}
	for i := 0; i < n; i++ {
		b := uuidBytes(r)
		d := Doc{ID2: uuidString(b), ID: base64.RawURLEncoding.EncodeToString(uuidBytes(r))[:22],
			Date: fmt.Sprintf("%04d-%02d-%02d", 1995+r.IntN(30), 1+r.IntN(12), 1+r.IntN(28))}
		// About a quarter of the documents have no title and a ninth no
		// source, as in the official set.
		if r.IntN(4) != 0 {
			t := docTitle(r)
			d.Title = &t
		}
		if s := r.IntN(9); s < 8 {
			src := sources[s%4]
			d.Source = &src
		}
		order := append([]string(nil), docFieldOrder...)
		r.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		var sb strings.Builder
		sb.WriteString(docHeader(i))
		for _, k := range order {
			var v *string
			if k == "text" {
				v = &texts[i]
			} else {
				v = d.Field(k)
			}
			if v == nil || *v == "" {
				continue
			}
			sb.WriteString("\n" + k + ": " + *v)
		}
		last := sb.String()
		unit := last + "\n\n"
		m.docs = append(m.docs, d)
		m.units = append(m.units, unit)
		m.lasts = append(m.lasts, last)
		m.prefix = append(m.prefix, m.prefix[i]+enc.Count(unit))
	}
	return m
}

func docHeader(i int) string {
	return "==================== doc-" + strconv.Itoa(i+1) + " ===================="
}

func truncateWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// dupGroups makes the 5 groups of documents that share a text: each of
// int(n·0.25)/5+1 members, as the official construction. Every group's
// first two members sit near the start, so even the shortest contexts show
// duplicates (group 0 is documents 1 and 3, as in the official data).
func dupGroups(r *rand.Rand, n int) [][]int {
	size := int(float64(n)*0.25)/5 + 1
	used := map[int]bool{0: true, 2: true}
	groups := [][]int{{0, 2}}
	for g := 1; g < 5; g++ {
		var grp []int
		for len(grp) < 2 {
			i := 1 + r.IntN(min(n-1, 8*(g+1)))
			if !used[i] {
				used[i] = true
				grp = append(grp, i)
			}
		}
		groups = append(groups, grp)
	}
	rest := r.Perm(n)
	for g := range groups {
		for len(groups[g]) < size && len(rest) > 0 {
			i := rest[0]
			rest = rest[1:]
			if !used[i] {
				used[i] = true
				groups[g] = append(groups[g], i)
			}
		}
		sort.Ints(groups[g])
	}
	return groups
}

func (m *docMaster) context(l Length) (*Context, error) {
	last := func(i int) int { return m.enc.Count(m.lasts[i]) }
	k := fit(m.prefix, last, l.Tokens)
	if k < 3 {
		return nil, fmt.Errorf("only %d documents fit in %d tokens; the tasks need at least 3", k, l.Tokens)
	}
	var sb strings.Builder
	for i := 0; i < k-1; i++ {
		sb.WriteString(m.units[i])
	}
	sb.WriteString(m.lasts[k-1])
	return &Context{Text: sb.String(), Tokens: m.prefix[k-1] + last(k-1), Docs: m.docs[:k:k], DupGroups: visibleGroups(m.groups, k)}, nil
}

// visibleGroups keeps the members below k of each group, and the groups
// that still have two members (the official filter).
func visibleGroups(groups [][]int, k int) [][]int {
	var out [][]int
	for _, g := range groups {
		var v []int
		for _, i := range g {
			if i < k {
				v = append(v, i)
			}
		}
		if len(v) > 1 {
			out = append(out, v)
		}
	}
	return out
}

// ---- OneDoc ----

type essayMaster struct {
	enc       *tokens.Encoder
	seed      uint64
	sentences []string
	units     []string // sentence with its leading space or trailing newline
	prefix    []int
	cache     map[[2]int]int // (sentence, slot) → tokens of the tagged unit
}

// tagSlots are the 23 marks in sampling order: type, and the tail tag of a
// fake (empty for a true key sentence).
var tagSlots = func() [][2]string {
	var s [][2]string
	add := func(typ string, n int, fakeTail string) {
		for i := 0; i < n; i++ {
			s = append(s, [2]string{typ, ""})
		}
		if fakeTail != "" {
			s = append(s, [2]string{typ, fakeTail})
		}
	}
	add("#Topic#", 4, "")
	add("@argument@", 3, "<*Evidence*>")
	add("!Transition!", 5, "<#Topic#>")
	add("*Evidence*", 4, "")
	add("-Concession-", 4, "<@argument@>")
	return s
}()

func newEssayMaster(opt GenOptions, enc *tokens.Encoder, budget int) *essayMaster {
	r := rng(opt.Seed, OneDoc)
	m := &essayMaster{enc: enc, seed: opt.Seed, prefix: []int{0}, cache: map[[2]int]int{}}
	var next func() string
	if len(opt.Corpus) > 0 {
		var all []string
		seen := map[string]bool{}
		for _, t := range opt.Corpus {
			for _, s := range SplitSentences(t) {
				if !seen[s] {
					seen[s] = true
					all = append(all, s)
				}
			}
		}
		gen := newUnique(r, essaySentence)
		i := 0
		next = func() string {
			if i < len(all) {
				i++
				return all[i-1]
			}
			return gen.next()
		}
	} else {
		next = newUnique(r, essaySentence).next
	}
	para := 0
	for m.prefix[len(m.units)] <= budget {
		s := next()
		if len(m.sentences) > 0 && m.sentences[len(m.sentences)-1] == s {
			continue
		}
		i := len(m.units)
		m.sentences = append(m.sentences, s)
		if para == 0 {
			para = 3 + r.IntN(5)
		}
		para--
		m.units = append(m.units, m.unit(i, s, para == 0))
		m.prefix = append(m.prefix, m.prefix[i]+enc.Count(m.units[i]))
	}
	return m
}

// unit renders sentence i: a space before it unless it opens a paragraph
// (the previous unit ended with a newline), a newline after the last
// sentence of a paragraph.
func (m *essayMaster) unit(i int, s string, endsPara bool) string {
	if i > 0 && !strings.HasSuffix(m.units[i-1], "\n") {
		s = " " + s
	}
	if endsPara {
		s += "\n"
	}
	return s
}

func (m *essayMaster) tagged(i, slot int) string {
	typ, tail := tagSlots[slot][0], tagSlots[slot][1]
	if tail == "" {
		tail = "<" + typ + ">"
	}
	u := m.units[i]
	lead, trail := "", ""
	if strings.HasPrefix(u, " ") {
		lead, u = " ", u[1:]
	}
	if strings.HasSuffix(u, "\n") {
		trail, u = "\n", u[:len(u)-1]
	}
	return lead + "<" + typ + "-" + strconv.Itoa(m.slotID(slot)) + ">" + u + tail + trail
}

// slotID numbers the marks of each type 1, 2, … in sampling order.
func (m *essayMaster) slotID(slot int) int {
	id := 0
	for s := 0; s <= slot; s++ {
		if tagSlots[s][0] == tagSlots[slot][0] {
			id++
		}
	}
	return id
}

func (m *essayMaster) taggedTokens(i, slot int) int {
	k := [2]int{i, slot}
	if t, ok := m.cache[k]; ok {
		return t
	}
	t := m.enc.Count(m.tagged(i, slot))
	m.cache[k] = t
	return t
}

func (m *essayMaster) context(l Length) (*Context, error) {
	r := rng(m.seed, OneDoc, "marks", l.Label)
	fracs := make([]float64, len(tagSlots))
	for i := range fracs {
		fracs[i] = r.Float64()
	}
	n := sort.Search(len(m.prefix), func(i int) bool { return m.prefix[i] > l.Tokens }) - 1
	var marks []int
	total := 0
	for ; n >= len(tagSlots)+4; n-- {
		marks = placeMarks(fracs, n)
		total = m.prefix[n]
		for slot, i := range marks {
			total += m.taggedTokens(i, slot) - (m.prefix[i+1] - m.prefix[i])
		}
		if total <= l.Tokens {
			break
		}
		// Drop about as many sentences as the tags are over budget.
		if over := (total - l.Tokens) * n / max(1, m.prefix[n]); over > 1 {
			n -= over - 1
		}
	}
	if n < len(tagSlots)+4 {
		return nil, fmt.Errorf("too few sentences fit in %d tokens for %d key sentences", l.Tokens, len(tagSlots))
	}
	slotAt := map[int]int{}
	for slot, i := range marks {
		slotAt[i] = slot
	}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if slot, ok := slotAt[i]; ok {
			sb.WriteString(m.tagged(i, slot))
		} else {
			sb.WriteString(m.units[i])
		}
	}
	label := Label{}
	for _, typ := range TagTypes {
		var items []KeySentence
		for slot, i := range marks {
			if tagSlots[slot][0] == typ {
				items = append(items, KeySentence{Text: m.sentences[i], ID: m.slotID(slot), Index: i, True: tagSlots[slot][1] == ""})
			}
		}
		if items != nil {
			label = append(label, LabelType{Type: typ, Items: items})
		}
	}
	var plain []string
	for _, p := range r.Perm(n) {
		if _, ok := slotAt[p]; !ok {
			plain = append(plain, m.sentences[p])
			if len(plain) == 12 {
				break
			}
		}
	}
	return &Context{Text: sb.String(), Tokens: total, Label: label, Plain: plain}, nil
}

// placeMarks turns fractions into distinct sentence indices below n.
func placeMarks(fracs []float64, n int) []int {
	used := map[int]bool{}
	out := make([]int, len(fracs))
	for s, f := range fracs {
		i := int(f * float64(n))
		for used[i] {
			i = (i + 1) % n
		}
		used[i] = true
		out[s] = i
	}
	return out
}

// SplitSentences cuts prose into sentences at ". ", "? " and "! " followed
// by a capital letter, and at line breaks.
func SplitSentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		start := 0
		for i := 0; i+2 < len(line); i++ {
			c := line[i]
			if (c == '.' || c == '?' || c == '!') && line[i+1] == ' ' && line[i+2] >= 'A' && line[i+2] <= 'Z' {
				if s := strings.TrimSpace(line[start : i+1]); s != "" {
					out = append(out, s)
				}
				start = i + 2
			}
		}
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}
