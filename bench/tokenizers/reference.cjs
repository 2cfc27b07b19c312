// The Rust references' speed on the benchmark's texts, one text at a time
// (the least CPU time of the process over the repetitions: the machine is
// shared):
// OpenAI's tiktoken (npm tiktoken, its Rust code as WASM) for o200k_base and
// Hugging Face tokenizers (npm tokenizers, the Rust library's Node binding)
// for each tokenizer.json. Node resolves the packages from tests/tokenizers.
//
//   node reference.cjs MIN_SECONDS FAMILY... -- FILE...
//
// FAMILY is o200k_base or a tokenizer.json path. One line per family and
// file: family, name, tokens, bytes, ms per text (best), tokens/s.
const fs = require('fs');
const path = require('path');
const mods = path.join(__dirname, '../../tests/tokenizers/node_modules');
const { Tokenizer } = require(path.join(mods, 'tokenizers'));
const { get_encoding } = require(path.join(mods, 'tiktoken'));

async function main() {
  const args = process.argv.slice(2);
  const min = parseFloat(args.shift()) * 1000;
  const sep = args.indexOf('--');
  const families = args.slice(0, sep), files = args.slice(sep + 1);
  const texts = files.map((f) => [path.basename(f, '.txt'), fs.readFileSync(f, 'utf8')]);
  for (const fam of families) {
    let encode;
    if (fam === 'o200k_base') {
      const enc = get_encoding('o200k_base');
      encode = async (t) => enc.encode_ordinary(t).length;
    } else {
      const tok = Tokenizer.fromFile(fam);
      encode = async (t) => (await tok.encode(t, null, { addSpecialTokens: false })).getIds().length;
    }
    for (const [name, t] of texts) {
      let best = Infinity, n = 0;
      for (const start = Date.now(); Date.now() - start < min;) {
        const c0 = process.cpuUsage();
        n = await encode(t);
        const c = process.cpuUsage(c0);
        best = Math.min(best, (c.user + c.system) / 1000);
      }
      console.log([path.basename(fam, '.json'), name, n, Buffer.byteLength(t), best.toFixed(2), Math.round(n / best * 1000)].join('\t'));
    }
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
