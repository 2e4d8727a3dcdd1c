#!/usr/bin/env python3
"""tests/python/doc_blocks.py: the code blocks of a markdown page marked to be tested.

    python3 tests/python/doc_blocks.py list FILE.md...          NAME LANG LINE, one block a line
    python3 tests/python/doc_blocks.py get FILE.md NAME         the block's text
    python3 tests/python/doc_blocks.py run FILE.md...           runs every python block, PASS/FAIL/SKIP lines

A block is tested when the line before its opening fence is
`<!-- test: NAME -->`, or `<!-- test: NAME custom_op -->` for a block that
needs torch.library.custom_op (torch 2.4 and later: SKIP before).  A block
after `<!-- output: NAME -->` is what block NAME prints, exactly.  `run`
executes each python block in a fresh interpreter (this one) from the
repository root, with python/ on PYTHONPATH; cmake blocks are built by
tests/cmake/run.sh.
"""
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARK = re.compile(r"^<!-- (test|output): ([A-Za-z0-9_.-]+)((?: [a-z_]+)*) -->$")


def blocks(path):
    """[(name, lang, line, text, flags)] of the marked blocks of path (flags: a list;
    an output block has lang 'output')."""
    out = []
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i].strip())
        if m and i + 1 < len(lines) and lines[i + 1].startswith("```"):
            lang = lines[i + 1][3:].strip()
            j = i + 2
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            if m.group(1) == "output":
                lang = "output"
            out.append((m.group(2), lang, i + 2, "\n".join(lines[i + 2:j]) + "\n", m.group(3).split()))
            i = j
        i += 1
    return out


def main(argv):
    cmd, files = argv[0], argv[1:]
    if cmd == "list":
        for f in files:
            for name, lang, line, _, _ in blocks(f):
                print(name, lang, line)
        return 0
    if cmd == "get":
        for name, lang, _, text, _ in blocks(files[0]):
            if name == files[1] and lang != "output":
                sys.stdout.write(text)
                return 0
        print(f"no block {files[1]} in {files[0]}", file=sys.stderr)
        return 1
    if cmd != "run":
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import torch
        have_custom_op = hasattr(torch.library, "custom_op")
    except ImportError:
        have_custom_op = False
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO, "python") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for f in files:
        bs = blocks(f)
        outputs = {name: text for name, lang, _, text, _ in bs if lang == "output"}
        for name, lang, line, text, flags in bs:
            if lang != "python":
                continue
            tag = f"python/doc/{os.path.basename(f)}/{name}"
            if "custom_op" in flags and not have_custom_op:
                print(f"SKIP {tag}: needs torch.library.custom_op (torch 2.4+), this is torch "
                      f"{torch.__version__}")
                continue
            p = subprocess.run([sys.executable, "-c", text], cwd=REPO, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=300)
            if p.returncode == 0 and name in outputs and p.stdout != outputs[name]:
                got, want = p.stdout.splitlines(), outputs[name].splitlines()
                diff = next((i for i in range(max(len(got), len(want)))
                             if i >= len(got) or i >= len(want) or got[i] != want[i]), 0)
                print(f"FAIL {tag} ({f}:{line}): prints, line {diff + 1}: "
                      f"{(got[diff] if diff < len(got) else '<nothing>')[:150]!r}, the page says "
                      f"{(want[diff] if diff < len(want) else '<nothing>')[:150]!r}")
            elif p.returncode == 0:
                print(f"PASS {tag}" + (" (and its output)" if name in outputs else ""))
            else:
                last = (p.stdout.strip().splitlines() or ["no output"])[-1]
                print(f"FAIL {tag} ({f}:{line}): exit {p.returncode}: {last[:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
