// Command speed measures ifkit's tokenizers on one thread: for each file,
// the ids of the whole text (Encode, so o200k_base's count cache does not
// help), repeated for at least -min, the least CPU time of the repetitions
// (the thread's CPU time, not the wall clock: the machine is shared).
//
//	go run ./bench/tokenizers/speed -tokenizer o200k_base|tokenizer.json FILE...
//
// It prints one line per file: name, tokens, bytes, ms per text, tokens/s.
//
// With -requests, each FILE is infer-batch input instead, and it counts
// every message of every request once, in order, as infer-batch does
// (Count, with its cache of contexts already counted), and prints the
// file, the prompts and the CPU time per prompt.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/ifkit/ifkit/lib/tokens"
)

func main() {
	name := flag.String("tokenizer", tokens.Default, "an embedded encoding or a tokenizer.json")
	min := flag.Duration("min", 2*time.Second, "how long to repeat each text")
	requests := flag.Bool("requests", false, "FILEs are infer-batch requests: count their prompts once each")
	flag.Parse()
	runtime.GOMAXPROCS(1)
	runtime.LockOSThread()
	enc, err := tokens.Get(*name)
	if err != nil {
		log.Fatal(err)
	}
	if *requests {
		for _, f := range flag.Args() {
			countRequests(enc, f)
		}
		return
	}
	for _, f := range flag.Args() {
		b, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		s := string(b)
		n, best := 0, time.Duration(1<<62)
		for start := time.Now(); time.Since(start) < *min; {
			t := threadCPU()
			ids, err := enc.EncodeContext(context.Background(), s)
			if err != nil {
				log.Fatal(err)
			}
			best = min2(best, threadCPU()-t)
			n = len(ids)
		}
		fmt.Printf("%s\t%d\t%d\t%.2f\t%.0f\n", strings.TrimSuffix(filepath.Base(f), ".txt"), n, len(s), best.Seconds()*1000, float64(n)/best.Seconds())
	}
}

func countRequests(enc *tokens.Encoder, f string) {
	b, err := os.ReadFile(f)
	if err != nil {
		log.Fatal(err)
	}
	var prompts [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Request struct {
				Messages []struct{ Content string }
			}
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			log.Fatal(err)
		}
		var texts []string
		for _, m := range r.Request.Messages {
			texts = append(texts, m.Content)
		}
		prompts = append(prompts, texts)
	}
	t := threadCPU()
	for _, texts := range prompts {
		for _, s := range texts {
			if _, err := enc.CountContext(context.Background(), s); err != nil {
				log.Fatal(err)
			}
		}
	}
	fmt.Printf("%s\t%d\t%.2f\n", strings.TrimSuffix(filepath.Base(f), ".jsonl"), len(prompts), (threadCPU()-t).Seconds()*1000/float64(len(prompts)))
}

// threadCPU is the CPU time of the calling thread (Linux's
// CLOCK_THREAD_CPUTIME_ID, to the nanosecond; getrusage counts in ticks).
func threadCPU() time.Duration {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPU, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		log.Fatal(errno)
	}
	return time.Duration(ts.Nano())
}

const clockThreadCPU = 3 // CLOCK_THREAD_CPUTIME_ID

func min2(a, b time.Duration) time.Duration {
	if a < b {
		return a
	}
	return b
}
