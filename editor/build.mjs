// Bundles src/ into interview/static/interview/editor/: editor.js, editor.css and LICENSES.txt for the
// third-party code inside them. Run through scripts/build_editor.sh, which installs the locked packages.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, "../interview/static/interview/editor");
// Browsers with CSS light-dark(), which the site's colours already need.
const target = ["chrome123", "firefox120", "safari17.5", "edge123"];
// Everything the bundle is made from. tests/interview/test_editor_bundle.py hashes the same files the same
// way, so a change to any of them without a rebuild fails the suite.
const sourceFiles = ["build.mjs", "package.json", "package-lock.json"];

async function sourceDigest() {
  const sources = await readdir(path.join(here, "src"), { recursive: true });
  const files = [
    ...sourceFiles,
    ...sources.filter((name) => /\.(js|css)$/.test(name)).map((name) => `src/${name.split(path.sep).join("/")}`),
  ].sort();
  const hash = createHash("sha256");
  for (const file of files) {
    const text = (await readFile(path.join(here, file), "utf8")).replaceAll("\r\n", "\n");
    hash.update(`${file}\0${text}\0`);
  }
  return hash.digest("hex");
}

function banner(digest) {
  return [
    "/*! Code editor of the interview trainer, built from editor/ by scripts/build_editor.sh.",
    " * Bundles CodeMirror 6 and its dependencies (MIT licence): see LICENSES.txt beside this file.",
    ` * source-sha256: ${digest} */`,
  ].join("\n");
}

// @replit/codemirror-emacs registers its key bindings and commands at load time through calls it marks
// /*@__PURE__*/; a minifier drops such a call when its result is unused, which leaves Emacs mode with no keys.
// Unmarked, the calls stay in the bundle.
const emacsRegistrations = {
  name: "keep-emacs-registrations",
  setup(build) {
    build.onLoad({ filter: /[\\/]@replit[\\/]codemirror-emacs[\\/]dist[\\/]index\.js$/ }, async (args) => {
      const code = await readFile(args.path, "utf8");
      const kept = code.replaceAll("/*@__PURE__*/EmacsHandler.", "EmacsHandler.");
      if (kept === code) throw new Error("@replit/codemirror-emacs no longer marks its registrations: review this plugin");
      return { contents: kept, loader: "js" };
    });
  },
};

async function bundle(entry, digest) {
  return esbuild.build({
    entryPoints: [path.join(here, "src", entry)],
    outfile: path.join(out, entry),
    bundle: true,
    minify: true,
    format: entry.endsWith(".js") ? "iife" : undefined,
    target,
    legalComments: "none",
    banner: { [entry.endsWith(".js") ? "js" : "css"]: banner(digest) },
    metafile: true,
    plugins: [emacsRegistrations],
    logLevel: "warning",
  });
}

// The packages whose code ended up in the bundle, as esbuild saw them, with their licence texts.
async function licenses(metafile) {
  const names = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) names.add(match[1]);
  }
  const sections = [];
  for (const name of [...names].sort()) {
    const directory = path.join(here, "node_modules", name);
    const manifest = JSON.parse(await readFile(path.join(directory, "package.json"), "utf8"));
    const licenseFile = (await readdir(directory)).find((file) => /^licen[sc]e/i.test(file));
    if (!licenseFile) throw new Error(`${name} ships no licence file to reproduce`);
    const text = (await readFile(path.join(directory, licenseFile), "utf8")).trim();
    sections.push(`${name} ${manifest.version} (${manifest.license})\n${"-".repeat(60)}\n${text}\n`);
  }
  return [
    "Third-party code in editor.js, with the licence of each package.",
    "Built from editor/package-lock.json by scripts/build_editor.sh.",
    "",
    ...sections,
  ].join("\n");
}

const digest = await sourceDigest();
await mkdir(out, { recursive: true });
const script = await bundle("editor.js", digest);
await bundle("editor.css", digest);
await writeFile(path.join(out, "LICENSES.txt"), await licenses(script.metafile));
