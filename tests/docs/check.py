#!/usr/bin/env python3
"""The guides' code, run: every fenced or indented block of README.md and docs/ is checked
by its language, and every relative link must lead to a file of the repository.

- json: parses; a document (it has "workers", "clusters" or "processors") must plan with
  `divload plan`.
- sh / console / indented blocks: every line that starts with `divload ` or `printf `
  (after an optional `$ `) runs in a scratch directory with the release `divload` first on PATH and
  must succeed; `divload simulate` is left to tests/simgrid/run.
- c: a block with `main(` is compiled against the installed library (pkg-config
  divload-static) and run; a fragment must name only `divload_*` identifiers the headers
  declare.
- python: runs with the test environment's interpreter (target/python-venv).
- rust: compiled and run as doctests of the core crate (`cargo test -p divload --doc`,
  core/src/lib.rs includes the pages); named here only to be counted.
- text, cmake, fortran, html: not run (usage text, a UART session, build files, Fortran
  fragments whose calls tests/fortran/run makes, the element's markup that
  tests/browser/embed.html embeds).
"""
import json, os, re, subprocess, sys, tempfile
from pathlib import Path

root = Path(__file__).resolve().parents[2]
pages = [root / "README.md"] + sorted((root / "docs").glob("*.md")) + sorted((root / "docs" / "models").glob("*.md"))
divload = root / "target" / "release" / "divload"
python = root / "target" / "python-venv" / "bin" / "python"
prefix = Path(os.environ.get("DIVLOAD_PREFIX", root / "target" / "c-prefix"))
headers = "".join(p.read_text() for p in (root / "include").glob("*.h"))
failures, counts = [], {}


def blocks(text):
    """(language, first line number, code) of each fenced block and each indented one."""
    lines, i, out = text.split("\n"), 0, []
    while i < len(lines):
        m = re.match(r"^```(\w*)", lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append((m.group(1) or "text", i + 1, "\n".join(lines[i + 1:j])))
            i = j + 1
        elif lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip()) and not re.match(r"^\s*([-*]|\d+\.)\s", lines[i - 1] if i else ""):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            out.append(("indented", i + 1, "\n".join(l[4:] for l in lines[i:j])))
            i = j
        else:
            i += 1
    return out


def fail(where, what):
    failures.append(f"{where}: {what}")


def anchors(md):
    """The ids GitHub gives a page's headings: lower case, punctuation dropped, spaces to hyphens."""
    ids, fence = set(), False
    for line in md.read_text().split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and re.match(r"^#{1,6} ", line):
            ids.add(re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-"))
    return ids


def run(cmd, where, cwd, **kw):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300, **kw)
    if r.returncode != 0:
        fail(where, f"`{cmd if isinstance(cmd, str) else ' '.join(map(str, cmd))}` exited {r.returncode}: {(r.stderr or r.stdout)[-400:]}")
    return r


for page in pages:
    text = page.read_text()
    rel = page.relative_to(root)
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        target, _, anchor = m.group(1).partition("#")
        if re.match(r"^(https?|mailto):", target):
            continue
        path = page.parent / target if target else page
        if target and not path.exists():
            fail(rel, f"link to {m.group(1)}, which does not exist")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            fail(rel, f"link to {m.group(1)}: {path.name} has no heading with that id")
    with tempfile.TemporaryDirectory() as scratch:
        # Commands name the repository's example documents as `examples/...`.
        os.symlink(root / "examples", Path(scratch) / "examples")
        env = dict(os.environ, PATH=f"{divload.parent}:{os.environ['PATH']}")
        for lang, line, code in blocks(text):
            where = f"{rel}:{line}"
            kind = {"console": "sh", "bash": "sh", "shell": "sh", "indented": "sh"}.get(lang, lang)
            if kind == "json":
                try:
                    doc = json.loads(code)
                except ValueError as e:
                    fail(where, f"JSON block does not parse: {e}")
                    continue
                if isinstance(doc, dict) and {"workers", "clusters", "processors"} & doc.keys():
                    path = Path(scratch) / "block.json"
                    path.write_text(code)
                    run([divload, "plan", path, "--json"], where, scratch)
            elif kind == "sh":
                ran = False
                for cmd in code.split("\n"):
                    cmd = cmd.strip().removeprefix("$ ")
                    # `printf … > file` prepares a command's input (a CSV of timings).
                    if (cmd.startswith("divload ") and not cmd.startswith("divload simulate")) or (cmd.startswith("printf ") and ">" in cmd and not cmd.endswith("|")):
                        run(cmd, where, scratch, shell=True, env=env)
                        ran = True
                if not ran:
                    continue
            elif kind == "c":
                if "main(" in code:
                    src, exe = Path(scratch) / "block.c", Path(scratch) / "block"
                    src.write_text(code)
                    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "divload-static"], capture_output=True, text=True,
                                           env=dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig")))
                    if flags.returncode != 0:
                        fail(where, "pkg-config divload-static: install the library first (tests/c/run does)")
                        continue
                    if run(f"cc -std=c11 -Wall -Werror {src} -o {exe} {flags.stdout.strip()}", where, scratch, shell=True).returncode == 0:
                        run([exe], where, scratch)
                else:
                    for name in set(re.findall(r"\bdivload_\w+", code)):
                        if not re.search(rf"\b{name}\b", headers):
                            fail(where, f"{name} is not declared in include/")
            elif kind == "python":
                if not python.exists():
                    fail(where, f"{python} is missing: run tests/python/run first")
                    continue
                run([python, "-c", code], where, scratch)
            elif kind not in ("rust", "text", "cmake", "fortran", "html"):
                fail(where, f"a block of language `{lang}` that nothing checks")
                continue
            else:
                continue
            counts[kind] = counts.get(kind, 0) + 1

if failures:
    print("docs: " + "\n  ".join(["failed:"] + failures))
    sys.exit(1)
print(f"docs: {len(pages)} pages, links resolve; blocks run: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
