package longins

import (
	"slices"
	"strconv"
	"strings"
)

// Checkers compute the right answer of the embedded tasks from an input, so
// llm-sim can grade their exams like a perfect teacher. ok is false when the
// input is not of the task's form.
var Checkers = map[string]func(input string) (answer string, ok bool){
	"ifkit_addition":       binary(" + ", func(a, b int) int { return a + b }),
	"ifkit_subtraction":    binary(" - ", func(a, b int) int { return a - b }),
	"ifkit_multiplication": binary(" x ", func(a, b int) int { return a * b }),
	"ifkit_reverse_word": func(in string) (string, bool) {
		r := []rune(in)
		slices.Reverse(r)
		return string(r), true
	},
	"ifkit_count_vowels": func(in string) (string, bool) {
		n := 0
		for _, c := range in {
			if strings.ContainsRune("aeiou", c) {
				n++
			}
		}
		return strconv.Itoa(n), true
	},
	"ifkit_sort_numbers": func(in string) (string, bool) {
		xs, ok := numbers(in)
		if !ok {
			return "", false
		}
		slices.Sort(xs)
		return joinInts(xs), true
	},
	"ifkit_largest_number": func(in string) (string, bool) {
		xs, ok := numbers(in)
		if !ok {
			return "", false
		}
		return strconv.Itoa(slices.Max(xs)), true
	},
	"ifkit_parity": func(in string) (string, bool) {
		n, err := strconv.Atoi(in)
		if err != nil {
			return "", false
		}
		if n%2 == 0 {
			return "even", true
		}
		return "odd", true
	},
	"ifkit_word_length": func(in string) (string, bool) {
		return strconv.Itoa(len([]rune(in))), true
	},
	"ifkit_initials": func(in string) (string, bool) {
		var sb strings.Builder
		for _, w := range strings.Fields(in) {
			sb.WriteString(strings.ToUpper(w[:1]))
		}
		return sb.String(), true
	},
	"ifkit_digit_sum": func(in string) (string, bool) {
		n := 0
		for _, c := range in {
			if c < '0' || c > '9' {
				return "", false
			}
			n += int(c - '0')
		}
		return strconv.Itoa(n), true
	},
}

func binary(op string, f func(a, b int) int) func(string) (string, bool) {
	return func(in string) (string, bool) {
		l, r, ok := strings.Cut(in, op)
		if !ok {
			return "", false
		}
		a, err1 := strconv.Atoi(l)
		b, err2 := strconv.Atoi(r)
		if err1 != nil || err2 != nil {
			return "", false
		}
		return strconv.Itoa(f(a, b)), true
	}
}

func numbers(in string) ([]int, bool) {
	var xs []int
	for _, f := range strings.Split(in, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, false
		}
		xs = append(xs, n)
	}
	return xs, true
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
