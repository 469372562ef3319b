// Benchmark side of the oracle (bench/tokenizer.sh): times Hugging Face tokenizers 0.23.2 encodeBatch over the
// rendered golden conversations, repeated to a target size. Threads: RAYON_NUM_THREADS (its own Rust pool).
// Usage: RAYON_NUM_THREADS=N node tokenize_bench.js NODE_MODULES TOKENIZER_JSON GOLDEN_JSONL REPEAT RUNS
// Prints one JSON line per timed run: {"seconds", "bytes", "tokens", "ids_sha256"} (encoding only, load excluded;
// ids_sha256 = SHA-256 of all ids as little-endian int32 in corpus order, to check against ours).
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const [modules, tokPath, goldenPath, repeatArg, runsArg] = process.argv.slice(2);
const { Tokenizer } = require(path.resolve(modules, 'tokenizers'));

async function main() {
  const texts = fs.readFileSync(goldenPath, 'utf8').split('\n').filter((l) => l.length > 0)
    .map((l) => JSON.parse(l).rendered);
  const repeat = parseInt(repeatArg, 10), runs = parseInt(runsArg, 10);
  const corpus = [];
  for (let r = 0; r < repeat; r++) corpus.push(...texts);
  const bytes = corpus.reduce((s, t) => s + Buffer.byteLength(t, 'utf8'), 0);
  const tk = Tokenizer.fromFile(tokPath);
  await tk.encodeBatch(texts.slice(0, 4), { addSpecialTokens: false });  // warm the thread pool
  for (let run = 0; run < runs; run++) {
    const t0 = process.hrtime.bigint();
    const encs = await tk.encodeBatch(corpus, { addSpecialTokens: false });
    const t1 = process.hrtime.bigint();
    const h = crypto.createHash('sha256');
    let tokens = 0;
    for (const e of encs) {
      const ids = e.getIds();
      tokens += ids.length;
      h.update(Buffer.from(Int32Array.from(ids).buffer));
    }
    console.log(JSON.stringify({ seconds: Number(t1 - t0) / 1e9, bytes, tokens, ids_sha256: h.digest('hex') }));
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
