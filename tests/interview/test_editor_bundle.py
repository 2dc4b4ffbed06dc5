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


def test_the_bundle_is_committed_and_exposes_the_editor_api():
    script = (BUNDLE / "editor.js").read_text(encoding="utf-8")
    assert len(script) > 100_000, "editor.js is too small to hold CodeMirror"
    assert "window.InterviewEditor" in script
    for method in ("mount", "getValue", "setValue", "focus", "destroy", "setReadOnly"):
        assert method in script
    stylesheet = (BUNDLE / "editor.css").read_text(encoding="utf-8")
    assert ".interview-editor" in stylesheet
    assert "light-dark(" in stylesheet


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
