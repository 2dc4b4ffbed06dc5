"""The committed code-editor bundle: present, built from the current editor/ sources, from pinned packages."""

import hashlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EDITOR = ROOT / "editor"
BUNDLE = ROOT / "interview" / "static" / "interview" / "editor"
REBUILD = "run scripts/build_editor.sh and commit interview/static/interview/editor/"
EXACT_VERSION = re.compile(r"^\d+\.\d+\.\d+$")


def source_digest():
    """The digest editor/build.mjs writes into the bundle's banner, computed the same way."""
    files = ["build.mjs", "package.json", "package-lock.json"]
    sources = (EDITOR / "src").rglob("*")
    files += [path.relative_to(EDITOR).as_posix() for path in sources if path.suffix in {".js", ".css"}]
    digest = hashlib.sha256()
    for name in sorted(files):
        text = (EDITOR / name).read_text(encoding="utf-8").replace("\r\n", "\n")
        digest.update(f"{name}\0{text}\0".encode())
    return digest.hexdigest()


def banner_digest(path):
    match = re.search(r"source-sha256: ([0-9a-f]{64})", path.read_text(encoding="utf-8")[:1000])
    assert match, f"{path.name} has no source digest in its banner: {REBUILD}"
    return match.group(1)


def package_json():
    return json.loads((EDITOR / "package.json").read_text(encoding="utf-8"))


def package_lock():
    return json.loads((EDITOR / "package-lock.json").read_text(encoding="utf-8"))


def our_strings() -> set[str]:
    """The quoted strings of editor/src's own scripts, less import specifiers: text no CodeMirror file has.

    Left out are strings that esbuild may write otherwise: those with an escape, a quote or a non-ASCII
    character, and bare words (a key may lose its quotes, `typeof x == "undefined"` becomes `typeof x>"u"`).
    """
    strings = set()
    for path in sorted((EDITOR / "src").rglob("*.js")):
        code = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
        code = re.sub(r"^\s*//.*$", "", code, flags=re.MULTILINE)
        code = re.sub(r"\bimport\b[^;]*?\bfrom\s*(\"[^\"]*\"|'[^']*')", "", code)
        strings.update(match[1] or match[2] or "" for match in re.finditer(r'"([^"\\\n]*)"|\'([^\'\\\n]*)\'', code))
    return {text for text in strings
            if len(text) >= 8 and text.isascii() and not text.isidentifier() and not set(text) & set("\"'`")}


def test_the_bundle_holds_the_text_of_our_own_editor_source():
    """A stale build, a bare CodeMirror bundle or some other file lacks strings only editor/src/ has."""
    script = (BUNDLE / "editor.js").read_text(encoding="utf-8")
    strings = our_strings()
    assert len(strings) >= 20, "the string literals of editor/src were not found: is the pattern still right?"
    missing = sorted(text for text in strings if text not in script)
    assert not missing, f"editor.js lacks these strings of editor/src: {missing[:5]}: {REBUILD}"
    assert "window.InterviewEditor=Object.freeze({mount:" in script


def test_the_stylesheet_holds_every_class_and_variable_our_source_defines():
    source = (EDITOR / "src" / "editor.css").read_text(encoding="utf-8")
    stylesheet = (BUNDLE / "editor.css").read_text(encoding="utf-8")
    names = set(re.findall(r"\.interview-editor[\w-]*", source)) | set(re.findall(r"(--editor-[\w-]+)\s*:", source))
    assert len(names) >= 5, "no classes or variables found in editor/src/editor.css: is the pattern still right?"
    missing = sorted(name for name in names if name not in stylesheet)
    assert not missing, f"editor.css lacks {missing[:5]}: {REBUILD}"


def test_the_bundle_carries_the_licences_of_the_packages_it_contains():
    licences = (BUNDLE / "LICENSES.txt").read_text(encoding="utf-8")
    for name in package_json()["dependencies"]:
        assert re.search(rf"^{re.escape(name)} \S+ \(MIT\)$", licences, re.MULTILINE), name
    assert licences.count("Permission is hereby granted") >= len(package_json()["dependencies"])


@pytest.mark.parametrize("name", ["editor.js", "editor.css"])
def test_the_bundle_is_built_from_the_current_sources(name):
    stale = f"editor/ changed since {name} was built: {REBUILD}"
    assert banner_digest(BUNDLE / name) == source_digest(), stale


def test_package_json_pins_exact_versions():
    manifest = package_json()
    pinned = {**manifest["dependencies"], **manifest["devDependencies"]}
    assert "esbuild" in manifest["devDependencies"]
    loose = {name: version for name, version in pinned.items() if not EXACT_VERSION.match(version)}
    assert not loose, f"pin these to an exact version: {loose}"


def test_the_lockfile_pins_every_package_with_its_hash():
    manifest, lock = package_json(), package_lock()
    assert lock["lockfileVersion"] >= 2
    root = lock["packages"][""]
    stale = "package-lock.json does not match package.json: run npm install in editor/"
    assert root.get("dependencies", {}) == manifest["dependencies"], stale
    assert root.get("devDependencies", {}) == manifest["devDependencies"], stale
    packages = {path: entry for path, entry in lock["packages"].items() if path}
    assert packages
    for path, entry in packages.items():
        assert EXACT_VERSION.match(entry.get("version", "")), f"{path} has no exact version"
        assert entry.get("integrity", "").startswith("sha512-"), f"{path} has no sha512 integrity"
    for name, version in {**manifest["dependencies"], **manifest["devDependencies"]}.items():
        assert packages[f"node_modules/{name}"]["version"] == version, name


def test_node_modules_stay_out_of_git():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "/editor/node_modules/" in ignored


def test_the_production_static_storage_serves_the_editor(settings, tmp_path):
    """Hashed names and compressed copies, as collectstatic makes them in the Docker image."""
    from django.core.management import call_command

    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    call_command("collectstatic", "--no-input", verbosity=0)
    manifest = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
    for name in ("editor.js", "editor.css"):
        hashed = manifest[f"interview/editor/{name}"]
        assert (tmp_path / f"{hashed}.gz").exists()
