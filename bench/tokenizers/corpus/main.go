// Command corpus writes the tokenizer benchmark's texts: one file per class
// of text a BPE meets in long prompts, each the size of a 100k-token prompt
// (455 KB), seeded:
//
//	prose  English-like prose
//	ids    random letter strings, IDs and hashes (LIFBench's List scenario)
//	code   source code
//	cjk    Chinese and Japanese text
//	emoji  emoji sequences between short words
//
//	go run ./bench/tokenizers/corpus -o DIR [-bytes N] [-seed S]
//
// With -requests CLASS it writes infer-batch requests instead, to stdout:
// -contexts texts of the class (seeds S, S+1, …), each the context of -per
// prompts that differ in their instruction, as LIFBench builds dozens of
// prompts on each context; -per 1 makes every prompt's context its own.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Classes are the text classes, in the order the benchmark reports them.
var Classes = []string{"prose", "ids", "code", "cjk", "emoji"}

func main() {
	out := flag.String("o", "", "folder to write CLASS.txt into")
	n := flag.Int("bytes", 455000, "bytes per text")
	seed := flag.Uint64("seed", 1, "random seed")
	reqClass := flag.String("requests", "", "write requests of this class to stdout")
	contexts := flag.Int("contexts", 20, "with -requests: distinct contexts")
	per := flag.Int("per", 32, "with -requests: prompts per context")
	flag.Parse()
	if *reqClass != "" {
		w := bufio.NewWriter(os.Stdout)
		defer w.Flush()
		k := slices.Index(Classes, *reqClass)
		if k < 0 {
			log.Fatalf("corpus: no class %q (%v)", *reqClass, Classes)
		}
		for c := range *contexts {
			ctx := text(*reqClass, rand.New(rand.NewPCG(*seed+uint64(c), uint64(k))), *n)
			for p := range *per {
				content, _ := json.Marshal(fmt.Sprintf("%s\n\nInstruction: answer question %d about the text above.", ctx, p))
				fmt.Fprintf(w, `{"id":"%s-%03d-%03d","request":{"messages":[{"role":"user","content":%s}],"max_tokens":8}}`+"\n", *reqClass, c, p, content)
			}
		}
		return
	}
	if *out == "" {
		log.Fatal("corpus: -o DIR is required")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	for i, c := range Classes {
		r := rand.New(rand.NewPCG(*seed, uint64(i)))
		if err := os.WriteFile(filepath.Join(*out, c+".txt"), []byte(text(c, r, *n)), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

func text(class string, r *rand.Rand, n int) string {
	var b strings.Builder
	pick := func(ws []string) string { return ws[r.IntN(len(ws))] }
	switch class {
	case "prose":
		words := strings.Fields("the a of to and in is was it that for on with as by at an be this which from or had not are but have were they one all their there been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three")
		for b.Len() < n {
			for k := 8 + r.IntN(12); k > 0; k-- {
				w := pick(words)
				if k%7 == 0 {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
				b.WriteString(w)
				b.WriteString(" ")
			}
			b.WriteString(pick([]string{". ", ", ", ".\n", "; ", ".\n\n"}))
		}
	case "ids":
		const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		rnd := func(set string, k int) string {
			s := make([]byte, k)
			for i := range s {
				s[i] = set[r.IntN(len(set))]
			}
			return string(s)
		}
		for i := 1; b.Len() < n; i++ {
			switch i % 4 {
			case 0:
				fmt.Fprintf(&b, "%d. %s\n", i, rnd("abcdefghijklmnopqrstuvwxyz", 6+r.IntN(14)))
			case 1:
				fmt.Fprintf(&b, "%d. %s\n", i, rnd(alnum, 8+r.IntN(24)))
			case 2:
				fmt.Fprintf(&b, "%d. %s-%s-%s-%s\n", i, rnd("0123456789abcdef", 8), rnd("0123456789abcdef", 4), rnd("0123456789abcdef", 4), rnd("0123456789abcdef", 12))
			default:
				fmt.Fprintf(&b, "%d. %s\n", i, rnd("0123456789abcdef", 40))
			}
		}
	case "code":
		idents := strings.Fields("ctx err req resp buf n i j k count total items record value key name path opts cfg client server handler result data line offset size")
		types := strings.Fields("int string error bool []byte map[string]int *Record float64")
		for f := 0; b.Len() < n; f++ {
			fmt.Fprintf(&b, "// %s%d %s the %s of %s.\nfunc %s%d(%s %s, %s %s) (%s, error) {\n", pick(idents), f, pick([]string{"returns", "counts", "reads"}), pick(idents), pick(idents), pick(idents), f, pick(idents), pick(types), pick(idents), pick(types), pick(types))
			for k := 3 + r.IntN(8); k > 0; k-- {
				switch r.IntN(5) {
				case 0:
					fmt.Fprintf(&b, "\tif %s != nil {\n\t\treturn %s, fmt.Errorf(\"%s %%d: %%w\", %s, err)\n\t}\n", pick(idents), pick(idents), pick(idents), pick(idents))
				case 1:
					fmt.Fprintf(&b, "\tfor %s := 0; %s < len(%s); %s++ {\n\t\t%s += %s[%s] * %d\n\t}\n", "i", "i", pick(idents), "i", pick(idents), pick(idents), "i", r.IntN(1000))
				case 2:
					fmt.Fprintf(&b, "\t%s := map[string]int{\"%s\": %d, \"%s\": %d}\n", pick(idents), pick(idents), r.IntN(100), pick(idents), r.IntN(100))
				case 3:
					fmt.Fprintf(&b, "\t%s, err := %s.%s(ctx, %s)\n", pick(idents), pick(idents), strings.ToUpper(pick(idents)[:1])+pick(idents), pick(idents))
				default:
					fmt.Fprintf(&b, "\t%s = append(%s, %s[%d:%d]...) // %s\n", pick(idents), pick(idents), pick(idents), r.IntN(10), 10+r.IntN(90), pick(idents))
				}
			}
			b.WriteString("\treturn nil, nil\n}\n\n")
		}
	case "cjk":
		han := []rune("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坐集编宝谈府拉黑且随格尽剑讲布杀微怕母调局根曾准团段终乐切级克精哪官示冷")
		kana := []rune("あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんアイウエオカキクケコサシスセソタチツテトナニヌネノ")
		for b.Len() < n {
			for k := 6 + r.IntN(30); k > 0; k-- {
				if r.IntN(4) == 0 {
					b.WriteRune(kana[r.IntN(len(kana))])
				} else {
					b.WriteRune(han[r.IntN(len(han))])
				}
			}
			b.WriteString(pick([]string{"。", "，", "、", "。\n", "！", "？"}))
		}
	case "emoji":
		emoji := []string{"😀", "😂", "👍", "👍🏽", "🙏🏿", "❤️", "🔥", "✨", "🎉", "🇯🇵", "🇫🇷", "👨‍👩‍👧‍👦", "🧑🏿‍🤝‍🧑🏻", "👩🏽‍🚀", "🏳️‍🌈", "1️⃣", "🫶🏼", "🤖", "🥳", "😭"}
		words := strings.Fields("so good lol omg yes no wow love this party time happy sad go")
		for b.Len() < n {
			for k := 1 + r.IntN(6); k > 0; k-- {
				b.WriteString(pick(emoji))
			}
			b.WriteString(" ")
			if r.IntN(2) == 0 {
				b.WriteString(pick(words))
				b.WriteString(pick([]string{" ", "! ", "\n"}))
			}
		}
	}
	s := b.String()
	for len(s) > n {
		s = s[:len(s)-1]
	}
	return strings.ToValidUTF8(s, "")
}
