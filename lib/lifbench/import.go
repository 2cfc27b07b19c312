package lifbench

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/stream"
)

// ImportScores reads the official per-item score CSVs (data/scores/
// <scenario>-<task>.csv: model, ins_id, param_id, length, the task's points
// normalised to [0,1], total_score) and computes the same metrics as for
// judged records. A directory argument stands for its *.csv files.
func ImportScores(files []string, opt aggregate.Options) (*aggregate.Result, error) {
	var paths []string
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			m, _ := filepath.Glob(filepath.Join(f, "*.csv"))
			paths = append(paths, m...)
			continue
		}
		paths = append(paths, f)
	}
	if len(paths) == 0 {
		return nil, app.Usagef("--import lifbench-scores: give the official score CSVs (or their folder) as arguments")
	}
	var all []sample
	for _, p := range paths {
		ss, err := readScoreCSV(p)
		if err != nil {
			return nil, err
		}
		all = append(all, ss...)
	}
	return compute(all, opt)
}

func readScoreCSV(path string) ([]sample, error) {
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	task, ok := TaskByName(stem)
	if !ok {
		return nil, fmt.Errorf("%s: the file name does not name a LIFBench task (want <scenario>-<task>.csv)", path)
	}
	f, err := stream.OpenText(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	for _, need := range []string{"model", "ins_id", "param_id", "length", "total_score"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: no %q column", path, need)
		}
	}
	for _, p := range task.Points {
		if _, ok := col[p.Name]; !ok {
			return nil, fmt.Errorf("%s: no %q column (the %s rubric's point)", path, p.Name, task.Name)
		}
	}
	var out []sample
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		num := func(k string) (float64, error) {
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[col[k]]), 64)
			if err != nil {
				return 0, fmt.Errorf("%s:%d: %s: %v", path, line, k, err)
			}
			return v, nil
		}
		l, err := num("length")
		if err != nil {
			return nil, err
		}
		s := sample{model: rec[col["model"]], task: task, length: LabelForOfficial(int(l)),
			expression: rec[col["ins_id"]], variable: rec[col["param_id"]], points: make([]float64, len(task.Points))}
		if s.score, err = num("total_score"); err != nil {
			return nil, err
		}
		for i, p := range task.Points {
			if s.points[i], err = num(p.Name); err != nil {
				return nil, err
			}
		}
		out = append(out, s)
	}
	return out, nil
}
