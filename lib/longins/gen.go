package longins

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/tokens"
)

// Bench is the value of the bench field.
const Bench = "longins"

// The three modes of the paper.
const (
	GIST = "gist" // global instruction, single task
	LIST = "list" // the instruction repeated in every question, single task
	LIMT = "limt" // each question with its own instruction, tasks mixed
)

// Modes lists the modes in the paper's order.
var Modes = []string{GIST, LIST, LIMT}

// DefaultLengths are the paper's seven exam lengths in tokens.
func DefaultLengths() []int { return []int{256, 512, 1024, 2048, 4096, 8192, 16384} }

// Tokenizer counts exam tokens by default; the official one is unspecified.
const Tokenizer = "o200k_base"

// GenOptions are the gen-context longins flags.
type GenOptions struct {
	Lengths   []int
	Modes     []string
	Seed      uint64
	ErrorRate float64 // share of questions answered wrongly (at least one per exam)
	Tasks     []Task  // nil: the embedded checkable tasks
	Source    string
	// Tokenizer counts the lengths: a tiktoken encoding or a model's
	// tokenizer.json (tokens.Get); "" is Tokenizer.
	Tokenizer string
	// Warn reports exams skipped because not even one question fits in the
	// length; nil ignores them. It is called from Generate's goroutine.
	Warn func(msg string)
}

// Context is the context field of an exam.
type Context struct {
	Mode       string `json:"mode"`
	TaskPrompt string `json:"task_prompt,omitempty"` // GIST: the one instruction
	Data       string `json:"data"`                  // the questions, "[k:…]" joined by blank lines
	Questions  int    `json:"questions"`
	Tokens     int    `json:"tokens"`
	Tokenizer  string `json:"tokenizer"`
	Source     string `json:"source"`
}

// Gold is the gold field: the wrong question ids and their depth buckets
// (0 = first tenth of the exam … 9 = last tenth).
type Gold struct {
	Wrong     []int `json:"wrong"`
	Depths    []int `json:"depths"`
	Questions int   `json:"questions"`
}

// Depth is the position bucket of question id among n.
func Depth(id, n int) int {
	if n <= 0 {
		return 0
	}
	return min(9, id*10/n)
}

// Validate fills defaults and checks the options and the task source.
func (opt *GenOptions) Validate() error {
	if opt.Tasks == nil {
		opt.Tasks, opt.Source = DefaultTasks(), DefaultSource
	}
	if len(opt.Tasks) == 0 {
		return errors.New("longins: the task source has no tasks")
	}
	if len(opt.Lengths) == 0 || len(opt.Modes) == 0 {
		return errors.New("longins: give at least one length and one mode")
	}
	for _, l := range opt.Lengths {
		if l <= 0 {
			return fmt.Errorf("longins: length %d: want a positive number of tokens", l)
		}
	}
	for _, m := range opt.Modes {
		if !validMode(m) {
			return fmt.Errorf("longins: mode %q: want one of %s", m, strings.Join(Modes, ", "))
		}
		if m == LIMT && len(opt.Tasks) < 2 {
			return errors.New("longins: limt mixes tasks, so the source needs at least two")
		}
	}
	if !(opt.ErrorRate > 0 && opt.ErrorRate < 1) {
		return fmt.Errorf("longins: error rate %g: every exam needs wrong answers, so want a share in (0, 1)", opt.ErrorRate)
	}
	for _, t := range opt.Tasks {
		if len(t.Instances) == 0 {
			return fmt.Errorf("longins: task %q has no instances", t.Name)
		}
		if i, ok := wrongAnswersExist(&t); !ok {
			return fmt.Errorf("longins: instance %d of task %q accepts the answers of all the others, so no wrong answer can be drawn for it", i, t.Name)
		}
	}
	return nil
}

func validMode(m string) bool { return m == GIST || m == LIST || m == LIMT }

// Generate emits one exam per mode × length × task (LIMT: as many mixed
// exams as there are tasks), modes outer.
func Generate(opt GenOptions, emit func(*record.Record) error) error {
	if err := opt.Validate(); err != nil {
		return err
	}
	if opt.Tokenizer == "" {
		opt.Tokenizer = Tokenizer
	}
	enc, err := tokens.Get(opt.Tokenizer)
	if err != nil {
		return err
	}
	g := &generator{opt: opt, counter: newCounter(enc)}
	// Exams are independent (each has its own RNG), so a window of them is
	// built in parallel, token counting being the cost, and emitted in order.
	workers := runtime.GOMAXPROCS(0)
	window := make([]*record.Record, 4*workers)
	for _, mode := range opt.Modes {
		for _, length := range opt.Lengths {
			for lo := 0; lo < len(opt.Tasks); lo += len(window) {
				hi := min(len(opt.Tasks), lo+len(window))
				var wg sync.WaitGroup
				next := make(chan int)
				for range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range next {
							window[i-lo] = g.exam(mode, length, i)
						}
					}()
				}
				for i := lo; i < hi; i++ {
					next <- i
				}
				close(next)
				wg.Wait()
				for j := range hi - lo {
					if window[j] == nil {
						if opt.Warn != nil {
							opt.Warn(fmt.Sprintf("longins: %s exam %d (%s) at %d tokens: not even one question fits; skipped", mode, lo+j, opt.Tasks[lo+j].Name, length))
						}
						continue
					}
					if err := emit(window[j]); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

type generator struct {
	opt     GenOptions
	counter *counter
}

// question is one question of an exam being built.
type question struct {
	task   *Task
	inst   int
	answer string
	wrong  bool
}

// body is a question's text between "[k:" and "]".
func (q question) body(mode string) string {
	in := q.task.Instances[q.inst].Input
	if mode == GIST {
		return in + " Answer: " + q.answer
	}
	return "Instruction: " + q.task.Definition + " Question: " + in + " Answer: " + q.answer
}

// deck deals a task's instances in a shuffled order, reshuffling when all
// are dealt: long exams of small tasks repeat instances.
type deck struct {
	order []int
	next  int
}

func (d *deck) deal(rng *rand.Rand, n int) int {
	if d.next == len(d.order) {
		d.order = rng.Perm(n)
		d.next = 0
	}
	d.next++
	return d.order[d.next-1]
}

func seedOf(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// exam builds exam i of a mode and length: questions fill the length with
// right answers, then about ErrorRate of them (at least one, one per equal
// stretch of the exam so that depths spread evenly) get the answer of
// another instance of the same task; questions are dropped from the end
// while the wrong answers push the exam over the length. It returns nil when
// not even one question fits.
func (g *generator) exam(mode string, length, i int) *record.Record {
	tasks := g.opt.Tasks
	first := &tasks[i]
	name := first.Name
	if mode == LIMT {
		name = fmt.Sprintf("mix%04d", i)
	}
	rng := rand.New(rand.NewPCG(g.opt.Seed, seedOf(mode, strconv.Itoa(length), name)))
	decks := make([]deck, len(tasks))
	pick := func() question {
		t := i
		if mode == LIMT {
			t = rng.IntN(len(tasks))
		}
		inst := decks[t].deal(rng, len(tasks[t].Instances))
		return question{task: &tasks[t], inst: inst, answer: tasks[t].Instances[inst].Output}
	}
	var qs []question
	total := 0
	for {
		q := pick()
		c := g.counter.question(len(qs), q, mode)
		if total+c > length {
			break
		}
		qs = append(qs, q)
		total += c
	}
	if len(qs) == 0 {
		return nil
	}
	n := len(qs)
	k := max(1, int(math.Round(g.opt.ErrorRate*float64(n))))
	for s := range k {
		lo, hi := s*n/k, (s+1)*n/k
		p := lo + rng.IntN(hi-lo)
		qs[p].answer = wrongAnswer(rng, qs[p].task, qs[p].inst)
		qs[p].wrong = true
	}
	dropLast := func() {
		drop := len(qs) - 1
		for drop > 0 && qs[drop].wrong {
			drop--
		}
		qs = append(qs[:drop], qs[drop+1:]...)
	}
	for total = g.counter.exam(qs, mode); total > length && len(qs) > 1; total = g.counter.exam(qs, mode) {
		dropLast()
	}
	data := examText(qs, mode)
	// A model's own tokenizer may merge across the parts the counter adds up
	// (SentencePiece's leading space, byte-level merges): its exam is counted
	// whole, and questions dropped until the whole count fits.
	for enc := g.counter.enc; enc.Exact; data = examText(qs, mode) {
		if total = enc.Count(data); total <= length || len(qs) == 1 {
			break
		}
		dropLast()
	}
	gold := Gold{Questions: len(qs)}
	for id, q := range qs {
		if q.wrong {
			gold.Wrong = append(gold.Wrong, id)
			gold.Depths = append(gold.Depths, Depth(id, len(qs)))
		}
	}
	ctx := Context{Mode: mode, Data: data, Questions: len(qs), Tokens: total, Tokenizer: g.counter.enc.Name, Source: g.opt.Source}
	group := map[string]string{"mode": mode, "length": strconv.Itoa(length), "task_name": name}
	if mode == LIMT {
		group["category"] = "mixed"
	} else {
		group["category"] = first.Category
	}
	if mode == GIST {
		ctx.TaskPrompt = first.Definition
	}
	return newExam(mode, length, name, group, ctx, gold)
}

// examText is the exam as the prompt shows it: "[k:" body "]" per question.
func examText(qs []question, mode string) string {
	var sb strings.Builder
	for id, q := range qs {
		sb.WriteString("[" + strconv.Itoa(id) + ":" + q.body(mode) + "]\n\n")
	}
	return sb.String()
}

func newExam(mode string, length int, name string, group map[string]string, ctx Context, gold Gold) *record.Record {
	rec := record.New(fmt.Sprintf("longins-%s-%d-%s", mode, length, name))
	rec.Set("bench", Bench)
	rec.Set("task", mode)
	rec.Set("group", group)
	rec.Set("context", ctx)
	rec.Set("gold", gold)
	return rec
}

// wrongAnswersExist checks that every instance has a wrong answer to draw:
// an output of the task it does not accept. It returns the first instance
// that has none.
func wrongAnswersExist(t *Task) (int, bool) {
	var outputs []string
	seen := map[string]bool{}
	for _, in := range t.Instances {
		if !seen[in.Output] {
			seen[in.Output] = true
			outputs = append(outputs, in.Output)
		}
	}
	for i, in := range t.Instances {
		if !slices.ContainsFunc(outputs, func(o string) bool { return !in.accepts(o) }) {
			return i, false
		}
	}
	return 0, true
}

// wrongAnswer is the output of another instance of the task that this
// instance does not accept: a random one, else the first after a random
// start (wrongAnswersExist made sure there is one).
func wrongAnswer(rng *rand.Rand, t *Task, inst int) string {
	in := t.Instances[inst]
	for range 64 {
		if o := t.Instances[rng.IntN(len(t.Instances))].Output; !in.accepts(o) {
			return o
		}
	}
	start := rng.IntN(len(t.Instances))
	for j := range t.Instances {
		if o := t.Instances[(start+j)%len(t.Instances)].Output; !in.accepts(o) {
			return o
		}
	}
	panic("longins: no wrong answer for task " + t.Name)
}

// counter counts exam tokens with a tiktoken encoding, exactly and cheaply. The
// tokenizer's pre-tokenization never joins text across these cuts, so an
// exam's count is the sum of its parts' counts:
//
//	"[" + k | ":" + input | " Answer: " + answer + "]\n\n"               (gist)
//	"[" + k | ":Instruction: " + task + " Question:" | " " + input | " Answer: " + answer + "]\n\n"
//
// Each part is counted once and cached, so long exams that repeat instances,
// and wrong answers, cost map lookups. It is safe for concurrent use.
type counter struct {
	enc   *tokens.Encoder
	mu    sync.RWMutex
	parts map[partKey]int
}

// partKey names a part: kind is one of the part kinds below, task and inst
// the instance it comes from, text the answer.
type partKey struct {
	kind byte
	task *Task
	inst int
	text string
}

const (
	partID     = 'k' // "[" + k
	partGist   = 'g' // ":" + input
	partHead   = 'h' // ":Instruction: " + definition + " Question:"
	partLocal  = 'l' // " " + input
	partAnswer = 'a' // " Answer: " + answer + "]\n\n"
)

func newCounter(enc *tokens.Encoder) *counter {
	return &counter{enc: enc, parts: map[partKey]int{}}
}

func (c *counter) part(k partKey) int {
	c.mu.RLock()
	n, ok := c.parts[k]
	c.mu.RUnlock()
	if ok {
		return n
	}
	var text string
	switch k.kind {
	case partID:
		text = "[" + strconv.Itoa(k.inst)
	case partGist:
		text = ":" + k.task.Instances[k.inst].Input
	case partHead:
		text = ":Instruction: " + k.task.Definition + " Question:"
	case partLocal:
		text = " " + k.task.Instances[k.inst].Input
	default:
		text = " Answer: " + k.text + "]\n\n"
	}
	n = c.enc.Count(text)
	c.mu.Lock()
	c.parts[k] = n
	c.mu.Unlock()
	return n
}

// question is the token count of question id as the exam text writes it.
func (c *counter) question(id int, q question, mode string) int {
	n := c.part(partKey{kind: partID, inst: id}) + c.part(partKey{kind: partAnswer, text: q.answer})
	if mode == GIST {
		return n + c.part(partKey{kind: partGist, task: q.task, inst: q.inst})
	}
	return n + c.part(partKey{kind: partHead, task: q.task}) + c.part(partKey{kind: partLocal, task: q.task, inst: q.inst})
}

func (c *counter) exam(qs []question, mode string) int {
	t := 0
	for id, q := range qs {
		t += c.question(id, q, mode)
	}
	return t
}
