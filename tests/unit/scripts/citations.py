"""Every citation in the product's comments resolves (citations_test.sh runs this).

    python3 citations.py SOURCE_DIR

Reads the comments of every file under the source folders (core spank helper exec jobstep sys
slurmapi scripts etc recipes cli packaging): // and /* */ in C and C++ (.c .h .cpp .hpp, their .in
templates, linker scripts), # in shell, Python, YAML, CMake, spec, conf and unit files, and Python
docstrings; string literals are code, not comments. Consecutive comment lines are joined into one
text, so a citation wrapped over two lines is read whole. Reported as broken:

  issue    an issue number (issue 23, Issue #4, a bare #436) or a finding's ID (finding 2,
           docs/security.md H1, (M3), L4:). A pull request or issue of an upstream repository
           written with its name is fine: ROCm/ATOM #1475, ATOM PR #1316, srt-slurm #436.
  note     a note that does not ship with the tree: the founding DESIGN notes, the shared
           reference/ notes (reference 2.5, reference srt-slurm.md 1.1, inferencex-runner.md,
           spank-api.md, ...), or any X.md that exists nowhere in the tree unless its sentence
           names the upstream repository it belongs to (srtctl's docs/power-telemetry.md).
  path     a path into this tree that does not exist: one whose first folder is a top-level
           folder of the tree, or a source file name (.cpp .hpp .h .c .sh .py .cmake). It
           resolves from the root, from the citing file's folder, or as the tail of any path in
           the tree (srt/plan.hpp), or as a CMake template (helper/srt-job from srt-job.in). A path
           in a sentence that names an upstream repository or project is that repository's
           (srtctl's core/roles.py), except under the folders only this tree has (spank, helper,
           exec, jobstep, sys, slurmapi, cli, packaging, cmake).
  section  docs/X.md "Section" (also docs/X.md, "Section", docs/X.md "A", "B", README "Section"),
           where docs/X.md does not exist or has no heading (# to ####) with exactly that text
           (backticks aside). Checked in README.md and docs/*.md too. A page that is not in the
           tree, cited in a sentence naming its upstream repository, is that repository's.

Prints FILE:LINE: KIND: TEXT for each and exits 1 when there is any; exits 0 with one "ok:" line.
"""
import io
import os
import re
import sys
import tokenize

SOURCE_DIRS = ["core", "spank", "helper", "exec", "jobstep", "sys", "slurmapi", "scripts", "etc",
               "recipes", "cli", "packaging"]
SKIP_DIRS = {".git", "__pycache__", "_deps", "node_modules"}  # and the root's build*/ and .lab*/

C_EXTS = (".cpp", ".hpp", ".h", ".c", ".cc", ".cpp.in", ".hpp.in", ".h.in", ".c.in", ".lds",
          ".map")
SHELL_EXTS = (".sh", ".bash")
HASH_EXTS = (".yaml", ".yml", ".cmake", ".txt", ".in")
LINE_HASH_EXTS = (".spec", ".conf", ".list", ".rpmlintrc", ".service", ".path", ".timer",
                  ".service.in", ".path.in")
CODE_EXTS = (".cpp", ".hpp", ".h", ".c", ".sh", ".py", ".cmake")

# Upstream repositories and projects: a path or X.md in a comment that names one of these is
# that repository's; an issue or PR number right after one of them is its number.
UPSTREAM_REPO = r"(?:NVIDIA|ROCm|SemiAnalysisAI|sgl-project|sgl-workspace|vllm-project|containers|" \
                r"kvcache-ai|ai-dynamo|SchedMD|NVIDIA-NeMo|pytorch|openucx|linux-rdma|Mellanox|" \
                r"open-mpi|flux-framework|jbeder|nlohmann|CLIUtils|catchorg|gabime|zeromq|" \
                r"open-mpi|hwloc|systemd|torvalds|google)/[\w.-]+"
UPSTREAM_NAMES = [
    "srtctl", "srt-slurm", "InferenceX", "ATOM", "SGLang", "sglang", "vLLM", "vllm", "Mooncake",
    "mooncake", "Infera", "Slurm", "slurm", "slurmd", "slurmstepd", "pyxis", "enroot", "Dynamo",
    "dynamo", "PyYAML", "libzmq", "ZeroMQ", "hwloc", "CLI11", "nlohmann", "yaml-cpp", "spdlog",
    "Catch2", "ROCm", "rocm-smi", "amdsmi", "amd-smi", "aiter", "MoRI", "mori", "RCCL", "NCCL",
    "UCX", "podman", "docker", "Docker", "crun", "runc", "bubblewrap", "bwrap", "systemd",
    "rpmbuild", "rpmlint", "lintian", "sgl-model-gateway",
    "TileRT", "tilert", "Nettle", "nettle", "libibverbs", "rdma-core",
    "matplotlib", "sa-bench", "DCGM", "dcgm-exporter", "PyTorch",
    "containers-storage", "conmon",
    "fuse-overlayfs", "netavark", "slirp4netns", "pasta", "passt", "mmdebstrap", "InferenceMAX",
    "AToMesh", "sglang-router", "vLLM Router",
]
UPSTREAM_RE = re.compile(r"(?<![\w/-])(?:" + UPSTREAM_REPO + r"|(?:" +
                         "|".join(re.escape(n) for n in UPSTREAM_NAMES) + r")(?![\w-]))")

# Notes that never shipped with the tree, whoever is named before them.
NOTE_RES = [
    (re.compile(r"\bDESIGN\b"), "the founding DESIGN notes"),
    (re.compile(r"(?<![\w.-])reference/"), "the shared reference/ notes"),
    (re.compile(r"\breference\s+(?:[\w.-]+\.md\b|\d+(?:\.\d+)*(?![\w.%])|[\w-]+\s+notes?\b)"),
     "a section of the shared reference notes"),
    (re.compile(r"(?<![\w.-])(?:inferencex-runner|atom-mooncake-kvevents|atom-mooncake-source-facts|"
                r"srt-slurm|srt-slurm-v2|spank-api)\.md\b"), "a shared reference note"),
]
ISSUE_RES = [
    re.compile(r"\b[Ii]ssues?\s+(?:#\s*)?\d+"),
    re.compile(r"\b[Ff]indings?\s+(?:#\s*)?(?:[A-Z]?\d+)\b"),
    re.compile(r"docs/security\.md`?,?\s+\(?[HMLC]\d{1,2}\b"),
    re.compile(r"\((?:[HMLC]\d{1,2})(?:\s*[,/]\s*[HMLC]\d{1,2})*\)"),
    re.compile(r"(?<![\w.-])[HMLC]\d{1,2}:(?!\d)"),
]
BARE_NUMBER_RE = re.compile(r"(?<![\w&$#{/])#(\d+)\b")
MD_RE = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md)\b")
PATH_RE = re.compile(r"(?<![\w./$~@%{}<>:-])((?:\.{1,2}/)?(?:(?:[\w.+-]+|\{[\w.+,-]+\})/)+(?:[\w.+*-]+|\{[\w.+,-]+\})+"
                     r"|[\w+-]+\.(?:cpp|hpp|h|c|sh|py|cmake)(?!\.?\w))(?![\w/.+*-])")
BRACE_RE = re.compile(r"\{([^{}]*)\}")
PLACEHOLDER_RE = re.compile(r"(?:^|/)[A-Z][A-Z0-9_]+(?:[./]|$)")  # launch/NAME.hpp, OUTDIR/x
SENTENCE_RE = re.compile(r"\.\s+")
# Folders no upstream repository has: a path into one is this tree's, whatever the comment names.
OWN_ONLY = {"spank", "helper", "exec", "jobstep", "sys", "slurmapi", "cli", "packaging", "cmake"}
SECTION_RE = re.compile(r"((?:docs/)?[\w.-]+\.md|\bREADME)`?(?:'s)?,?\s+(?:\(|section\s+)?"
                        r"\"([^\"]+)\"((?:\s*(?:,|and|or)\s*\"[^\"]+\")*)")
MORE_SECTIONS_RE = re.compile(r"\"([^\"]+)\"")
URL_RE = re.compile(r"\b(?:https?|file)://\S+")


def walk_tree(root):
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not (
            rel == "." and (d.startswith("build") or d.startswith(".lab") or
                            d.startswith(".slurm-lab") or d == "results")))
        for f in filenames:
            files.append(os.path.normpath(os.path.join(rel, f)))
    return files


def kind_of(path, first_line):
    name = os.path.basename(path)
    if name.endswith(C_EXTS):
        return "c"
    if name.endswith(".py"):
        return "py"
    if name.endswith(".md"):
        return "prose"
    if first_line.startswith("#!") and ("sh" in first_line.split("/")[-1] or "bash" in first_line):
        return "shell"
    if first_line.startswith("#!") and "python" in first_line:
        return "py"
    if name.endswith(SHELL_EXTS):
        return "shell"
    if name.endswith(LINE_HASH_EXTS):
        return "linehash"
    if name == "CMakeLists.txt" or name.endswith(HASH_EXTS):
        return "hash"
    return None


def c_comments(text):
    """(line, text) for every comment line of C or C++ source."""
    out = []
    i, n, line = 0, len(text), 1
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i + 2:j].lstrip("/!")))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            for k, part in enumerate(text[i + 2:j].split("\n")):
                part = part.strip()
                if part.startswith("*"):
                    part = part[1:]
                out.append((line + k, part))
            line += text.count("\n", i, j)
            i = j + 2
        elif ch == "R" and re.match(r'R"([^(\s]{0,16})\(', text[i:i + 20]) and (
                i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_") or text[i - 1] in "uUL8"):
            m = re.match(r'R"([^(\s]{0,16})\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i + m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            line += text.count("\n", i, end)
            i = end
        elif ch == '"' or (ch == "'" and not (i > 0 and text[i - 1].isalnum() and i + 1 < n and
                                              text[i + 1].isalnum() and text[i - 1].isdigit())):
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1 if j < n and text[j] == ch else j
        else:
            i += 1
    return out


def hash_comments(text, mode):
    """(line, text) for # comments: mode linehash (a # at the start of a line only), hash (a #
    after a blank, outside double quotes), shell (also outside single quotes and here-documents)."""
    out = []
    heredoc = None
    quote = None
    for lineno, raw in enumerate(text.split("\n"), 1):
        if heredoc:
            if raw.strip() == heredoc if heredoc_strip else raw == heredoc:
                heredoc = None
            continue
        if mode == "linehash":
            s = raw.lstrip()
            if s.startswith("#"):
                out.append((lineno, s.lstrip("#")))
            continue
        i, n = 0, len(raw)
        while i < n:
            ch = raw[i]
            if quote:
                if ch == "\\" and quote == '"':
                    i += 2
                    continue
                if ch == quote:
                    quote = None
                i += 1
                continue
            if ch == "\\" and mode == "shell":
                i += 2
                continue
            if ch == '"' or (ch == "'" and mode == "shell"):
                quote = ch
                i += 1
                continue
            if ch == "#" and (i == 0 or raw[i - 1] in " \t;(|&"):
                out.append((lineno, raw[i:].lstrip("#")))
                break
            if mode == "shell" and raw.startswith("<<", i) and not raw.startswith("<<<", i):
                m = re.match(r"<<(-?)\s*(['\"]?)([\w.-]+)\2", raw[i:])
                if m:
                    heredoc, heredoc_strip = m.group(3), m.group(1) == "-"
                    i += m.end()
                    continue
            i += 1
        if mode == "hash":
            quote = None  # YAML and CMake: a line's quotes are its own
    return out


def py_comments(text):
    out = []
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return hash_comments(text, "hash")
    prev = tokenize.NEWLINE
    for tok in toks:
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string.lstrip("#")))
        elif tok.type == tokenize.STRING and prev in (tokenize.NEWLINE, tokenize.INDENT,
                                                      tokenize.DEDENT, tokenize.NL):
            body = re.sub(r"^[rRbBuU]*('''|\"\"\"|'|\")", "", tok.string)
            for k, part in enumerate(body.split("\n")):
                out.append((tok.start[0] + k, part))
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            prev = tok.type
    return out


def join_blocks(comments):
    """Consecutive comment lines as one text each, with where each line starts in it."""
    blocks, cur, last = [], None, None
    for line, part in sorted(comments):
        part = " ".join(part.split())
        if cur is not None and line <= last + 1:
            if line == last:
                cur[0] += " " + part
                continue
            cur[1].append((len(cur[0]) + 1, line))
            cur[0] += " " + part
        else:
            cur = [part, [(0, line)]]
            blocks.append(cur)
        last = line
    return [(t, starts) for t, starts in blocks]


def line_at(starts, offset):
    line = starts[0][1]
    for off, ln in starts:
        if off > offset:
            break
        line = ln
    return line


class Tree:
    def __init__(self, root):
        self.root = root
        self.files = walk_tree(root)
        self.fileset = set(self.files)
        self.dirs = set()
        for f in self.files:
            d = os.path.dirname(f)
            while d:
                self.dirs.add(d)
                d = os.path.dirname(d)
        self.top = {p.split("/")[0] for p in self.files if "/" in p}
        self.suffixes = set()
        for p in list(self.fileset) + list(self.dirs):
            parts = p.split("/")
            for k in range(len(parts)):
                self.suffixes.add("/".join(parts[k:]))
        self.headings = {}

    def exists(self, path, citing):
        path = path.rstrip("/.,:;")
        if not path:
            return True
        m = BRACE_RE.search(path)
        if m:  # tests/golden/launch-dry-run/{podman,docker}: every one
            return all(self.exists(path[:m.start()] + alt + path[m.end():], citing)
                       for alt in m.group(1).split(","))
        norm = os.path.normpath(path)
        for cand in (norm, os.path.normpath(os.path.join(os.path.dirname(citing), path))):
            if cand in self.fileset or cand in self.dirs:
                return True
        if "*" in path:
            pat = re.compile("^(?:.*/)?" + ".*".join(re.escape(s) for s in norm.split("*")) + "$")
            return any(pat.match(f) for f in self.files)
        return norm.lstrip("./") in self.suffixes

    def sections(self, page):
        if page not in self.headings:
            heads = set()
            try:
                with open(os.path.join(self.root, page), encoding="utf-8") as f:
                    fence = False
                    for raw in f:
                        if raw.lstrip().startswith(("```", "~~~")):
                            fence = not fence
                            continue
                        m = re.match(r"^(#{1,4})\s+(.*?)\s*#*\s*$", raw)
                        if m and not fence:
                            heads.add(m.group(2))
                            heads.add(m.group(2).replace("`", ""))
            except OSError:
                heads = None
            self.headings[page] = heads
        return self.headings[page]


def upstream_before(text, pos, window=30):
    """An upstream repository or project named just before pos."""
    return UPSTREAM_RE.search(text[max(0, pos - window):pos]) is not None


def upstream_clause(text, start, end):
    """An upstream repository or project named in the sentence around text[start:end]: the path
    or page there is that repository's."""
    cuts = [m.end() for m in SENTENCE_RE.finditer(text, 0, start)]
    begin = cuts[-1] if cuts else 0
    m = SENTENCE_RE.search(text, end)
    return UPSTREAM_RE.search(text[begin:m.start() if m else len(text)]) is not None


def check_sections(tree, text, starts, citing, report):
    for m in SECTION_RE.finditer(text):
        page = "README.md" if m.group(1) == "README" else m.group(1)
        if not page.startswith("docs/") and page != "README.md":
            if citing.startswith("docs/") and os.path.exists(os.path.join(tree.root, "docs", page)):
                page = "docs/" + page
            else:
                continue
        names = [m.group(2)] + MORE_SECTIONS_RE.findall(m.group(3) or "")
        heads = tree.sections(page)
        if heads is None and upstream_clause(text, m.start(), m.end()):
            continue  # srtctl's docs/topology.md "restart"
        line = line_at(starts, m.start())
        if heads is None:
            report(citing, line, "section", "%s does not exist (cited with \"%s\")" % (page, names[0]))
            continue
        for name in names:
            if name not in heads and name.replace("`", "") not in heads:
                report(citing, line, "section", "%s has no heading \"%s\"" % (page, name))


def check_comment(tree, text, starts, citing, report):
    text = URL_RE.sub(" ", text)
    for rx in ISSUE_RES:
        for m in rx.finditer(text):
            if rx is ISSUE_RES[0] and upstream_before(text, m.start(), 30):
                continue  # ROCm/ATOM issue 12
            report(citing, line_at(starts, m.start()), "issue", m.group(0))
    for m in BARE_NUMBER_RE.finditer(text):
        head = text[max(0, m.start() - 40):m.start()]
        if re.search(r"\bPRs?\s*$", head) or re.search(r"(?:" + UPSTREAM_RE.pattern + r")\W{0,3}$", head) \
                or re.search(r"(?:" + UPSTREAM_RE.pattern + r")\s+(?:PRs?|issues?|pull)\s*$", head):
            continue
        report(citing, line_at(starts, m.start()), "issue", text[max(0, m.start() - 12):m.end()].strip())
    noted = []  # spans reported as notes: one report for "reference srt-slurm.md 1.1"
    for rx, what in NOTE_RES:
        for m in rx.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in noted):
                continue
            noted.append((m.start(), m.end()))
            report(citing, line_at(starts, m.start()), "note", "%s (%s)" % (m.group(0), what))
    for m in MD_RE.finditer(text):
        name = m.group(1)
        if any(s < m.end() and m.start() < e for s, e in noted):
            continue
        if tree.exists(name, citing) or os.path.basename(name) in tree.suffixes:
            continue
        if upstream_clause(text, m.start(), m.end()):
            continue
        report(citing, line_at(starts, m.start()), "note", "%s is nowhere in the tree" % name)
    for m in PATH_RE.finditer(text):
        path = m.group(1).rstrip(".,:;")
        if path.endswith(".md") or "//" in path:
            continue
        first = path.lstrip("./").split("/")[0]
        if not (first in tree.top or path.endswith(CODE_EXTS)):
            continue
        if "/" not in path and not path.endswith(CODE_EXTS):
            continue
        if tree.exists(path, citing) or tree.exists(path + ".in", citing) or PLACEHOLDER_RE.search(path):
            continue  # helper/srt-job: configured from helper/srt-job.in
        if first not in OWN_ONLY and upstream_clause(text, m.start(), m.end()):
            continue
        report(citing, line_at(starts, m.start()), "path", "%s does not exist" % path)
    check_sections(tree, text, starts, citing, report)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    tree = Tree(root)
    broken = []

    def report(f, line, kind, what):
        broken.append((f, line, kind, what))

    checked = 0
    for rel in tree.files:
        top = rel.split("/")[0]
        prose_page = rel == "README.md" or (top == "docs" and rel.endswith(".md"))
        if top not in SOURCE_DIRS and not prose_page:
            continue
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        kind = "prose" if prose_page else kind_of(rel, text.split("\n", 1)[0])
        if kind is None:
            continue
        checked += 1
        if kind == "prose":
            lines = text.split("\n")
            joined, starts, off = [], [], 0
            for ln, l in enumerate(lines, 1):
                starts.append((off, ln))
                joined.append(l)
                off += len(l) + 1
            body = "\n".join(joined)
            body = re.sub(r"\]\([^)]*\)", lambda m: " " * len(m.group(0)), body)  # link targets
            body = re.sub(r"\s", " ", body)
            if prose_page:
                check_sections(tree, body, starts, rel, report)
            else:
                check_comment(tree, body, starts, rel, report)
            continue
        if kind == "c":
            comments = c_comments(text)
        elif kind == "py":
            comments = py_comments(text)
        else:
            comments = hash_comments(text, kind)
        for block, starts in join_blocks(comments):
            check_comment(tree, block, starts, rel, report)

    seen = set()
    for f, line, kind, what in sorted(broken):
        if (f, line, kind, what) in seen:
            continue
        seen.add((f, line, kind, what))
        print("%s:%d: %s: %s" % (f, line, kind, what))
    counts = {}
    for _, _, kind, _ in seen:
        counts[kind] = counts.get(kind, 0) + 1
    if seen:
        print("FAIL: %d broken citation(s) in %d file(s) read (%s). Cite a docs/ page and one of its "
              "headings, a file in the tree, or an upstream file with its repository and commit; "
              "never an issue number, a finding's ID or a note that does not ship with the tree."
              % (len(seen), checked, ", ".join("%s %d" % kv for kv in sorted(counts.items()))),
              file=sys.stderr)
        return 1
    print("ok: 0 broken citations (paths, sections, notes, issue numbers) in %d files of %s, "
          "README.md and docs/" % (checked, " ".join(d for d in SOURCE_DIRS
                                                     if os.path.isdir(os.path.join(root, d)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
