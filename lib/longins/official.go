package longins

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// officialExam is one entry of the official data/<MODE>/<length>.json: an
// object keyed by Super-NaturalInstructions task id.
type officialExam struct {
	Categories []string `json:"Categories"`
	Lenth      int      `json:"Lenth"` // sic: the exam's token count in the official tokenizer
	TaskPrompt string   `json:"task_prompt"`
	Data       string   `json:"Data"`
	Error      []int    `json:"error"`
	TrueList   []int    `json:"true_list"`
}

// officialName finds mode and length in GIST_256.json, GIST/256.json, ….
var officialName = regexp.MustCompile(`(?i)(gist|list|limt)[/_-]?(\d+)\.json$`)

// ModeLengthOf reads the mode and length from an official file's path.
func ModeLengthOf(path string) (mode string, length int, ok bool) {
	m := officialName.FindStringSubmatch(filepath.ToSlash(path))
	if m == nil {
		return "", 0, false
	}
	length, _ = strconv.Atoi(m[2])
	return strings.ToLower(m[1]), length, true
}

// ImportOfficial emits the exams of an official file as records (in task id
// order, so runs are reproducible). Exams with an empty error list (in
// GIST_256.json: 22 exams with no question at all) are kept: the official
// scorer gives them F1 0 and counts them.
func ImportOfficial(path, mode string, length int, emit func(*record.Record) error) error {
	b, err := stream.ReadFile(path)
	if err != nil {
		return err
	}
	var exams map[string]officialExam
	if err := record.Unmarshal(b, &exams); err != nil {
		return fmt.Errorf("%s: not an official LongIns file (an object keyed by task id): %w", path, err)
	}
	ids := make([]string, 0, len(exams))
	for id := range exams {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		e := exams[id]
		n := len(e.Error) + len(e.TrueList)
		gold := Gold{Wrong: append([]int{}, e.Error...), Questions: n}
		for _, w := range e.Error {
			if w < 0 || w >= n {
				return fmt.Errorf("%s: task %s: wrong id %d is not among the %d questions", path, id, w, n)
			}
			gold.Depths = append(gold.Depths, Depth(w, n))
		}
		if gold.Wrong == nil {
			gold.Wrong, gold.Depths = []int{}, []int{}
		}
		ctx := Context{Mode: mode, Data: e.Data, Questions: n, Tokens: e.Lenth, Tokenizer: "official", Source: filepath.Base(path)}
		if mode == GIST {
			ctx.TaskPrompt = e.TaskPrompt
		}
		group := map[string]string{"mode": mode, "length": strconv.Itoa(length), "task_name": id, "category": ""}
		if len(e.Categories) > 0 {
			group["category"] = e.Categories[0]
		}
		if err := emit(newExam(mode, length, id, group, ctx, gold)); err != nil {
			return err
		}
	}
	return nil
}
