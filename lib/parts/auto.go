package parts

import (
	"fmt"
	"strconv"
	"strings"
)

// scheduler is one array scheduler's view of a task: the variable holding the
// task's index, the index of shard 0 (schedulers that count from 1 make index
// I shard I-1, so the whole array still covers shards 0..N-1), and, where the
// environment also describes the array, the N it implies when it is exactly
// the N shards.
type scheduler struct {
	name  string
	index string
	first int
	// absent is the index value a scheduler sets outside an array task.
	absent string
	job    string // the variable naming the job, for the note
	// array returns the shard count the array itself implies and how it says
	// so, or 0 when it does not say (a re-run of some tasks, or a scheduler
	// that does not put the array's size in the environment).
	array func(num func(string) (int, bool, error)) (int, string, error)
}

// schedulers are the array schedulers --shard auto knows, each with where its
// variables' meaning is documented.
var schedulers = []scheduler{
	// Slurm, slurm.schedmd.com/job_array.html: indices from 0, any list or
	// range (--array=1,15); SLURM_ARRAY_TASK_COUNT/MIN/MAX/STEP describe it.
	{name: "Slurm", index: "SLURM_ARRAY_TASK_ID", job: "SLURM_ARRAY_JOB_ID", array: slurmArray},
	// Kubernetes Indexed Jobs, kubernetes.io/docs/tasks/job/indexed-parallel-processing-static:
	// JOB_COMPLETION_INDEX is 0..spec.completions-1, and completions is not in
	// the pod's environment, so N comes from SHARDS (the manifest sets it) or
	// the parts already written.
	{name: "Kubernetes", index: "JOB_COMPLETION_INDEX"},
	// PBS Pro / OpenPBS, qsub(1B) -J X-Y[:Z]: indices are integers >= 0, read
	// from PBS_ARRAY_INDEX; the range is not in the environment.
	{name: "PBS", index: "PBS_ARRAY_INDEX", job: "PBS_ARRAY_ID"},
	// IBM Spectrum LSF, bsub -J "name[1-N]" ("Job arrays", "Environment
	// variables set for job execution"): indices are positive integers,
	// LSB_JOBINDEX is 0 in a job that is not an array; LSB_JOBINDEX_END is the
	// array's largest index and LSB_JOBINDEX_STEP its step. The start is not in
	// the environment, so "[1-16]" and "[5-16]" both read as 16 shards: the
	// folder's parts, or SHARDS, catch the second.
	{name: "LSF", index: "LSB_JOBINDEX", first: 1, absent: "0", job: "LSB_JOBID", array: lsfArray},
	// Grid Engine, qsub(1) -t n[-m[:s]]: task ids are >= 1; SGE_TASK_FIRST,
	// SGE_TASK_LAST and SGE_TASK_STEPSIZE describe the range, and all four are
	// "undefined" in a job that is not an array.
	{name: "Grid Engine", index: "SGE_TASK_ID", first: 1, absent: "undefined", job: "JOB_ID", array: gridEngineArray},
	// AWS Batch, docs.aws.amazon.com/batch/latest/userguide/job_env_vars.html:
	// AWS_BATCH_JOB_ARRAY_INDEX is 0..size-1 and AWS_BATCH_JOB_ARRAY_SIZE the
	// array's size.
	{name: "AWS Batch", index: "AWS_BATCH_JOB_ARRAY_INDEX", job: "AWS_BATCH_JOB_ID", array: sizeArray("AWS_BATCH_JOB_ARRAY_SIZE")},
	// Google Cloud Batch, TaskGroup (cloud.google.com/batch/docs/reference):
	// BATCH_TASK_INDEX is 0 through BATCH_TASK_COUNT-1, set in every task.
	{name: "Google Cloud Batch", index: "BATCH_TASK_INDEX", array: sizeArray("BATCH_TASK_COUNT")},
}

func slurmArray(num func(string) (int, bool, error)) (int, string, error) {
	var vals [4]int
	var has [4]bool
	for k, name := range []string{"SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP"} {
		var err error
		if vals[k], has[k], err = num(name); err != nil {
			return 0, "", err
		}
	}
	count, lo, hi, step := vals[0], vals[1], vals[2], vals[3]
	if !has[3] || step < 1 {
		step = 1
	}
	if !has[2] && has[0] {
		hi = lo + (count-1)*step
	}
	if has[0] && count > 1 && lo == 0 && step == 1 && hi == count-1 {
		return count, fmt.Sprintf("the array 0-%d", count-1), nil
	}
	return 0, "", nil
}

func lsfArray(num func(string) (int, bool, error)) (int, string, error) {
	end, hasEnd, err := num("LSB_JOBINDEX_END")
	if err != nil {
		return 0, "", err
	}
	step, hasStep, err := num("LSB_JOBINDEX_STEP")
	if err != nil {
		return 0, "", err
	}
	if hasEnd && end > 1 && (!hasStep || step == 1) {
		return end, fmt.Sprintf("the array [1-%d] (LSB_JOBINDEX_END=%d)", end, end), nil
	}
	return 0, "", nil
}

func gridEngineArray(num func(string) (int, bool, error)) (int, string, error) {
	var vals [3]int
	for k, name := range []string{"SGE_TASK_FIRST", "SGE_TASK_LAST", "SGE_TASK_STEPSIZE"} {
		v, has, err := num(name)
		if err != nil || !has {
			return 0, "", err
		}
		vals[k] = v
	}
	if first, last, step := vals[0], vals[1], vals[2]; first == 1 && step == 1 && last > 1 {
		return last, fmt.Sprintf("the array 1-%d", last), nil
	}
	return 0, "", nil
}

// sizeArray is a scheduler whose indices are always 0..size-1, so its size
// is N even for one task.
func sizeArray(name string) func(func(string) (int, bool, error)) (int, string, error) {
	return func(num func(string) (int, bool, error)) (int, string, error) {
		size, has, err := num(name)
		if err != nil || !has || size < 1 {
			return 0, "", err
		}
		return size, fmt.Sprintf("%s=%d", name, size), nil
	}
}

// span is the scheduler's task ids of N shards.
func (s *scheduler) span() string {
	if s.first == 1 {
		return "1..N"
	}
	return "0..N-1"
}

// task is the array task this process runs as, by one scheduler's variables.
type task struct {
	s     *scheduler
	index int
	shard int
	n     int    // the N the array implies, 0 when it does not say
	from  string // how it says so
}

// who names the task by its variable, and its shard where they differ.
func (t task) who() string {
	if t.s.first == 0 {
		return fmt.Sprintf("%s=%d", t.s.index, t.index)
	}
	return fmt.Sprintf("%s=%d (shard %d)", t.s.index, t.index, t.shard)
}

// Auto resolves --shard auto inside an array task of any scheduler above. A
// task's index is its shard number (0..N-1, or 1..N where the scheduler
// counts from 1), so re-running some tasks rebuilds exactly those shards. N
// comes from, in order: the SHARDS variable or shards (--shards, 0 when
// unset); the array itself when it is exactly the N shards; the parts already
// in dir. When those disagree, or two schedulers' variables name different
// tasks, the task refuses rather than write a part of another split. ok is
// false outside an array task.
func Auto(getenv func(string) string, shards int, dir string) (i, n int, note string, ok bool, err error) {
	num := func(name string) (int, bool, error) {
		v := getenv(name)
		if v == "" {
			return 0, false, nil
		}
		x, err := strconv.Atoi(v)
		if err != nil {
			return 0, true, fmt.Errorf("--shard auto: %s=%q is not an integer", name, v)
		}
		return x, true, nil
	}
	t, found, err := arrayTask(getenv, num)
	if err != nil || !found {
		return 0, 0, "", found, err
	}
	envN, hasEnv, err := num("SHARDS")
	switch {
	case err != nil:
		return 0, 0, "", true, err
	case hasEnv && envN < 1, shards < 0:
		return 0, 0, "", true, fmt.Errorf("--shard auto: the number of shards must be at least 1 (SHARDS=%q, --shards %d)", getenv("SHARDS"), shards)
	case hasEnv && shards > 0 && envN != shards:
		return 0, 0, "", true, fmt.Errorf("--shard auto: SHARDS=%d and --shards %d disagree", envN, shards)
	case hasEnv:
		shards = envN
	}
	folder, ferr := FolderCount(dir)
	if dir == "" {
		folder, ferr = 0, nil
	}
	from := ""
	switch {
	case shards > 0:
		n, from = shards, fmt.Sprintf("SHARDS/--shards %d", shards)
	case t.n > 0:
		n, from = t.n, t.from
	case ferr != nil:
		return 0, 0, "", true, fmt.Errorf("--shard auto: %v", ferr)
	case folder > 0:
		n, from = folder, fmt.Sprintf("the parts already in %s", dir)
	default:
		return 0, 0, "", true, fmt.Errorf("--shard auto: %s task %s, but nothing says the number of shards N: the array is not %s as a whole (or does not say its size) and %s holds no parts; set SHARDS=N (or --shards N) to the first run's N", t.s.name, t.who(), t.s.span(), orNone(dir))
	}
	if ferr != nil {
		return 0, 0, "", true, fmt.Errorf("--shard auto: %v", ferr)
	}
	if folder > 0 && folder != n {
		return 0, 0, "", true, fmt.Errorf("--shard auto: %s means %d shards, but %s holds parts of %d shards: a re-run keeps the first run's count (SHARDS=%d), or write to an empty folder", from, n, dir, folder, folder)
	}
	if t.shard >= n {
		return 0, 0, "", true, fmt.Errorf("--shard auto: task id %s is not a shard of %d (from %s): %s array task ids %s are the shards 0..N-1", t.who(), n, from, t.s.name, t.s.span())
	}
	job := ""
	if t.s.job != "" && getenv(t.s.job) != "" {
		job = " of job " + getenv(t.s.job)
	}
	return t.shard, n, fmt.Sprintf("shard %d/%d: %s task %s%s, N from %s", t.shard, n, t.s.name, t.who(), job, from), true, nil
}

// arrayTask finds the array task by every scheduler's variables. Two
// schedulers' variables in one environment (a job submitted from inside
// another's task, with its environment exported) must name the same shard
// and imply the same N, or the task cannot know which split it is in.
func arrayTask(getenv func(string) string, num func(string) (int, bool, error)) (task, bool, error) {
	var found []task
	for k := range schedulers {
		s := &schedulers[k]
		if v := getenv(s.index); v == "" || v == s.absent {
			continue
		}
		idx, _, err := num(s.index)
		if err != nil {
			return task{}, true, err
		}
		if idx < s.first {
			return task{}, true, fmt.Errorf("--shard auto: %s=%d: %s array task ids are %s", s.index, idx, s.name, s.span())
		}
		t := task{s: s, index: idx, shard: idx - s.first}
		if s.array != nil {
			if t.n, t.from, err = s.array(num); err != nil {
				return task{}, true, err
			}
		}
		found = append(found, t)
	}
	if len(found) == 0 {
		return task{}, false, nil
	}
	t := found[0]
	for _, o := range found[1:] {
		if o.shard != t.shard {
			return task{}, true, fmt.Errorf("--shard auto: %s (%s) and %s (%s) name different shards: unset the variables of the scheduler this task does not run under", t.who(), t.s.name, o.who(), o.s.name)
		}
		switch {
		case o.n > 0 && t.n > 0 && o.n != t.n:
			return task{}, true, fmt.Errorf("--shard auto: %s (%s) means %d shards but %s (%s) means %d: unset the variables of the scheduler this task does not run under", t.from, t.s.name, t.n, o.from, o.s.name, o.n)
		case t.n == 0:
			t.n, t.from = o.n, o.from
		}
	}
	return t, true, nil
}

// Schedulers lists the schedulers whose array variables Auto reads, for a
// note outside any array.
func Schedulers() string {
	names := make([]string, len(schedulers))
	for k, s := range schedulers {
		names[k] = s.name
	}
	return strings.Join(names, ", ")
}

func orNone(dir string) string {
	if dir == "" {
		return "no output folder"
	}
	return dir
}
