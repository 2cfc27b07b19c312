package ifscale

import (
	"fmt"
	"math/rand/v2"

	"github.com/ifkit/ifkit/lib/numpyrand"
	"github.com/ifkit/ifkit/lib/record"
)

// Bench is the value of the bench field.
const Bench = "ifscale"

// GenOptions are the gen-context ifscale flags.
type GenOptions struct {
	Densities []int
	Seeds     []int
	Vocab     []string // nil: the embedded vocabulary
	VocabName string
	// NumpyCompat orders the vocabulary with numpy's legacy
	// RandomState(seed).permutation, as the official runner's pandas
	// sample(n, random_state=seed) does; otherwise with Go's PCG.
	NumpyCompat bool
}

// DefaultDensities are the paper's 10..500 step 10.
func DefaultDensities() []int {
	d := make([]int, 50)
	for i := range d {
		d[i] = 10 * (i + 1)
	}
	return d
}

// DefaultSeeds are the paper's five seeds.
func DefaultSeeds() []int { return []int{0, 1, 2, 3, 4} }

// Item is the context of one IFScale prompt.
type Item struct {
	Keywords   []string `json:"keywords"`
	Vocabulary string   `json:"vocabulary"`
	Order      string   `json:"order"` // numpy-legacy or pcg
}

// Permutation is the fixed order of the vocabulary for one seed: the list
// at density N is its first N terms.
func Permutation(seed, size int, numpy bool) []int {
	if numpy {
		return numpyrand.New(uint32(seed)).Permutation(size)
	}
	return rand.New(rand.NewPCG(uint64(seed), 0x1f5ca1e)).Perm(size)
}

// Validate fills in the embedded vocabulary and checks the options: a
// density larger than the vocabulary is an error.
func (opt *GenOptions) Validate() error {
	if opt.Vocab == nil {
		opt.Vocab, opt.VocabName = DefaultVocab(), DefaultVocabName
	}
	if len(opt.Densities) == 0 || len(opt.Seeds) == 0 {
		return fmt.Errorf("ifscale: give at least one density and one seed")
	}
	for _, n := range opt.Densities {
		if n <= 0 {
			return fmt.Errorf("ifscale: density %d: want a positive number of keywords", n)
		}
		if n > len(opt.Vocab) {
			return fmt.Errorf("ifscale: density %d asks for more keywords than the vocabulary %s has (%d terms)", n, opt.VocabName, len(opt.Vocab))
		}
	}
	for _, seed := range opt.Seeds {
		if seed < 0 || uint64(seed) > 1<<32-1 {
			return fmt.Errorf("ifscale: seed %d: want 0 <= seed < 2**32", seed)
		}
	}
	return nil
}

// Generate emits one item per seed × density, seeds outer, densities in the
// order given.
func Generate(opt GenOptions, emit func(*record.Record) error) error {
	if err := opt.Validate(); err != nil {
		return err
	}
	vocab, name := opt.Vocab, opt.VocabName
	order := "pcg"
	if opt.NumpyCompat {
		order = "numpy-legacy"
	}
	for _, seed := range opt.Seeds {
		perm := Permutation(seed, len(vocab), opt.NumpyCompat)
		for _, n := range opt.Densities {
			kws := make([]string, n)
			for i := range kws {
				kws[i] = vocab[perm[i]]
			}
			rec := record.New(fmt.Sprintf("ifscale-s%d-n%03d", seed, n))
			rec.Set("bench", Bench)
			rec.Set("task", "report")
			rec.Set("group", map[string]string{"density": fmt.Sprint(n), "seed": fmt.Sprint(seed)})
			rec.Set("context", Item{Keywords: kws, Vocabulary: name, Order: order})
			rec.Set("gold", Gold{Keywords: kws})
			if err := emit(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// Gold is what the judge needs: the keywords in prompt order.
type Gold struct {
	Keywords []string `json:"keywords"`
}
