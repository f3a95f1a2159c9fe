#!/usr/bin/env python3
"""Check META.json against the PGXN Meta Spec 1.0.0 (https://pgxn.org/spec/).

    python3 scripts/check_meta.py [META.json] [--root DIR]

Checks the required fields and their formats: name, abstract, maintainer,
license (the spec's list of values, a list of them, or name -> URL),
version and every other version (Semantic Versioning 1.0.0, as PGXN takes
it), meta-spec, provides (each extension's file and version; the files and
docfiles exist under DIR, by default the repository), prereqs (phases,
relations, version ranges), resources, tags, no_index, release_status, and
that no other key is used unless it starts with x_ or X_.  And the project's
own rule: the version is item_table.control's default_version with a .0
patch, as is provides' item_table version.  Prints each check, then
"N passed, N failed"; exits 0 only if nothing failed.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LICENSES = {
    "agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd",
    "freebsd", "gfdl_1_2", "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1",
    "lgpl_3_0", "mit", "mozilla_1_0", "mozilla_1_1", "openssl", "perl_5",
    "postgresql", "qpl_1_0", "ssleay", "sun", "zlib", "open_source",
    "restricted", "unrestricted", "unknown",
}
TOP_KEYS = {"name", "abstract", "description", "version", "maintainer", "license",
            "provides", "prereqs", "resources", "no_index", "generated_by",
            "release_status", "tags", "meta-spec"}
REQUIRED = ["name", "abstract", "version", "maintainer", "license", "provides", "meta-spec"]
PHASES = {"configure", "build", "test", "runtime", "develop"}
RELATIONS = {"requires", "recommends", "suggests", "conflicts"}
RELEASE_STATUS = {"stable", "testing", "unstable"}

# Semantic Versioning 1.0.0 (what PGXN validates): MAJOR.MINOR.PATCH without
# leading zeros, optionally followed by a prerelease of ASCII alphanumerics
# and hyphens starting with a letter (1.0.0beta1, 1.0.0-beta1)
SEMVER = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-?[A-Za-z][0-9A-Za-z-]*)?$")
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^\s]+$")
EMAIL = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$")
RANGE_OP = re.compile(r"^(>=|<=|==|!=|>|<)\s*(\S+)$")

passed = 0
failed = 0


def check(ok, what, why=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok     {what}")
    else:
        failed += 1
        print(f"FAILED {what}{': ' + why if why else ''}")
    return ok


def is_term(s, minlen=1):
    """A non-empty string without control characters."""
    return isinstance(s, str) and len(s) >= minlen and not any(ord(c) < 32 or ord(c) == 127 for c in s)


def is_version_range(v):
    """0, a version, or comma-separated 'op version' terms (the spec's Version Ranges)."""
    if v == 0 or v == "0":
        return True
    if not isinstance(v, str) or not v.strip():
        return False
    if SEMVER.match(v.strip()):
        return True
    for term in v.split(","):
        m = RANGE_OP.match(term.strip())
        if not m or not SEMVER.match(m.group(2)):
            return False
    return True


def is_relpath(p, root):
    """A relative path in unix form that exists under root."""
    return (isinstance(p, str) and p and not p.startswith("/") and "\\" not in p
            and ".." not in p.split("/") and os.path.exists(os.path.join(root, p)))


def extra_keys(obj, allowed):
    return sorted(k for k in obj if k not in allowed and not k.startswith(("x_", "X_")))


def control_version(root):
    with open(os.path.join(root, "item_table.control")) as f:
        m = re.search(r"^\s*default_version\s*=\s*'([^']*)'", f.read(), re.M)
    return m.group(1) if m else None


def main(argv):
    root = ROOT
    path = None
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--root" and args:
            root = args.pop(0)
        elif a.startswith("-") or path is not None:
            print(__doc__, file=sys.stderr)
            return 2
        else:
            path = a
    path = path or os.path.join(root, "META.json")

    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        check(False, f"{path} is JSON", str(e))
        return finish()
    if not check(isinstance(meta, dict), f"{path} is a JSON object"):
        return finish()

    for key in REQUIRED:
        check(key in meta, f"required key {key!r}")
    bad = extra_keys(meta, TOP_KEYS)
    check(not bad, "no unknown top-level keys (custom keys start with x_)", ", ".join(bad))

    name = meta.get("name")
    check(is_term(name, 2) and "/" not in name and "\\" not in name,
          "name: at least 2 characters, no slash, backslash or control character", repr(name))
    check(is_term(meta.get("abstract")), "abstract: a non-empty string")
    if "description" in meta:
        check(is_term(meta["description"]), "description: a non-empty string")

    version = meta.get("version")
    check(isinstance(version, str) and bool(SEMVER.match(version)), "version: a semantic version", repr(version))
    cv = control_version(root)
    check(cv is not None and version == cv + ".0",
          "version is item_table.control's default_version with a .0 patch",
          f"{version!r} vs default_version {cv!r}")

    m = meta.get("maintainer")
    check((is_term(m)) or (isinstance(m, list) and m and all(is_term(x) for x in m)),
          "maintainer: a string or a non-empty list of strings", repr(m))

    lic = meta.get("license")
    if isinstance(lic, str):
        ok = lic in LICENSES
    elif isinstance(lic, list):
        ok = bool(lic) and all(isinstance(x, str) and x in LICENSES for x in lic)
    elif isinstance(lic, dict):
        ok = bool(lic) and all(is_term(k) and isinstance(v, str) and URI.match(v) for k, v in lic.items())
    else:
        ok = False
    check(ok, "license: one of the spec's values, a list of them, or name -> URL", repr(lic))

    ms = meta.get("meta-spec")
    check(isinstance(ms, dict) and ms.get("version") == "1.0.0", "meta-spec: version 1.0.0", repr(ms))
    if isinstance(ms, dict):
        check("url" not in ms or (isinstance(ms["url"], str) and URI.match(ms["url"])),
              "meta-spec: url is a URI", repr(ms.get("url")))
        bad = extra_keys(ms, {"version", "url"})
        check(not bad, "meta-spec: no unknown keys", ", ".join(bad))

    prov = meta.get("provides")
    if check(isinstance(prov, dict) and bool(prov), "provides: a non-empty object"):
        for ext, p in prov.items():
            where = f"provides.{ext}"
            if not check(isinstance(p, dict) and is_term(ext), f"{where}: an object"):
                continue
            check(is_relpath(p.get("file"), root), f"{where}.file: a relative path that exists",
                  repr(p.get("file")))
            check(isinstance(p.get("version"), str) and bool(SEMVER.match(p["version"])),
                  f"{where}.version: a semantic version", repr(p.get("version")))
            if "docfile" in p:
                check(is_relpath(p["docfile"], root), f"{where}.docfile: a relative path that exists",
                      repr(p["docfile"]))
            if "abstract" in p:
                check(is_term(p["abstract"]), f"{where}.abstract: a non-empty string")
            bad = extra_keys(p, {"file", "version", "abstract", "docfile"})
            check(not bad, f"{where}: no unknown keys", ", ".join(bad))
        it = prov.get("item_table")
        check(isinstance(it, dict) and cv is not None and it.get("version") == cv + ".0",
              "provides.item_table.version is default_version with a .0 patch",
              repr(it.get("version") if isinstance(it, dict) else it))

    if "prereqs" in meta:
        pr = meta["prereqs"]
        if check(isinstance(pr, dict), "prereqs: an object"):
            bad = extra_keys(pr, PHASES)
            check(not bad, f"prereqs: phases are {', '.join(sorted(PHASES))}", ", ".join(bad))
            for phase, rels in pr.items():
                if not check(isinstance(rels, dict), f"prereqs.{phase}: an object"):
                    continue
                bad = extra_keys(rels, RELATIONS)
                check(not bad, f"prereqs.{phase}: relations are {', '.join(sorted(RELATIONS))}",
                      ", ".join(bad))
                for rel, deps in rels.items():
                    if not check(isinstance(deps, dict), f"prereqs.{phase}.{rel}: an object"):
                        continue
                    for dep, rng in deps.items():
                        check(is_term(dep) and is_version_range(rng),
                              f"prereqs.{phase}.{rel}.{dep}: a version range", repr(rng))

    if "resources" in meta:
        rs = meta["resources"]
        if check(isinstance(rs, dict), "resources: an object"):
            bad = extra_keys(rs, {"homepage", "bugtracker", "repository"})
            check(not bad, "resources: homepage, bugtracker, repository only", ", ".join(bad))
            if "homepage" in rs:
                check(isinstance(rs["homepage"], str) and bool(URI.match(rs["homepage"])),
                      "resources.homepage: a URI", repr(rs["homepage"]))
            bt = rs.get("bugtracker")
            if bt is not None and check(isinstance(bt, dict) and bool(bt), "resources.bugtracker: an object"):
                check(not extra_keys(bt, {"web", "mailto"}), "resources.bugtracker: web, mailto only")
                if "web" in bt:
                    check(isinstance(bt["web"], str) and bool(URI.match(bt["web"])),
                          "resources.bugtracker.web: a URI", repr(bt["web"]))
                if "mailto" in bt:
                    check(isinstance(bt["mailto"], str) and bool(EMAIL.match(bt["mailto"])),
                          "resources.bugtracker.mailto: an email address", repr(bt["mailto"]))
            repo = rs.get("repository")
            if repo is not None and check(isinstance(repo, dict) and bool(repo),
                                          "resources.repository: an object"):
                check(not extra_keys(repo, {"url", "web", "type"}), "resources.repository: url, web, type only")
                for k in ("url", "web"):
                    if k in repo:
                        check(isinstance(repo[k], str) and bool(URI.match(repo[k])),
                              f"resources.repository.{k}: a URI", repr(repo[k]))
                if "type" in repo:
                    check(is_term(repo["type"]) and repo["type"] == repo["type"].lower(),
                          "resources.repository.type: a lower-case word", repr(repo["type"]))

    if "tags" in meta:
        tags = meta["tags"]
        check(isinstance(tags, list) and bool(tags) and
              all(is_term(t) and len(t) <= 255 and "/" not in t and "\\" not in t for t in tags),
              "tags: a list of 1-255 character strings", repr(tags))

    if "no_index" in meta:
        ni = meta["no_index"]
        ok = isinstance(ni, dict) and not extra_keys(ni, {"file", "directory"})
        if ok:
            for k, v in ni.items():
                v = [v] if isinstance(v, str) else v
                ok = ok and isinstance(v, list) and all(is_relpath(x, root) for x in v)
        check(ok, "no_index: file and directory lists of existing relative paths", repr(ni))

    if "release_status" in meta:
        check(meta["release_status"] in RELEASE_STATUS,
              f"release_status: one of {', '.join(sorted(RELEASE_STATUS))}", repr(meta["release_status"]))
    if "generated_by" in meta:
        check(is_term(meta["generated_by"]), "generated_by: a non-empty string")

    return finish()


def finish():
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
