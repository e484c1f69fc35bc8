#!/usr/bin/python3
"""Every argv the Plan gives ATOM, AToMesh, SGLang, sglang-router and benchmark_serving.py,
checked against the real programs' command lines, and the stand-ins' parsers checked against the
same: ATOM's, AToMesh's, vllm-router's and benchmark_serving.py's option for option; SGLang's,
sglang-router's and `vllm serve`'s (hundreds of options upstream) as a subset, each option they
accept having the real shape (STANDIN_EXTRAS: the few an image's own build takes and no spec has),
and each taking the Plan's argv for the shipped recipes.

The specs are ../shared/reference/cli/*.json, extracted from the real parsers (outside the project:
read from there, never copied; exit 77, skipped, when they are absent):
- ATOM's ``python -m atom.entrypoints.openai_server`` and InferenceX's benchmark_serving.py use
  argparse. Their spec lists each argument as the real code adds it (the option strings it
  accepts, action, type, nargs, choices, const), so this script rebuilds that parser with Python's
  own argparse and lets argparse decide: its rules are the real program's rules (abbreviations,
  arity, types, choices), not a re-implementation of them.
- AToMesh ``launch`` uses clap (Rust). Its spec gives each option's kind (flag, one value, several
  values, one value per repeat), value type, choices and requires; the checker applies clap's
  rules (a repeated single option is an error, ``-1`` is read as a flag and not as a value, a
  flag takes no value, no positional arguments) after pulling out ``--prefill URL [PORT|none]``
  as AToMesh's cliargs.rs does before clap sees argv.

The argvs come from ``srt-helper plan --json`` of every shipped recipe and every plannable good
fixture, on as many nodes as ``srt-helper nodes`` says. The benchmark's argv is what its shell
script really runs: the script runs under bubblewrap with /results, /logs and /infmax-workspace
as empty tmpfs and a ``python3`` first on PATH that records its arguments and exits 0.

usage: check_cli_specs.py SRT_HELPER SRC_DIR [REFERENCE_DIR]
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

ATOM_PROGRAM = ["python3", "-m", "atom.entrypoints.openai_server"]
SGLANG_PROGRAM = ["python3", "-m", "sglang.launch_server"]
SGLANG_ROUTER_PROGRAM = ["python", "-m", "sglang_router.launch_router"]
VLLM_PROGRAM = ["vllm", "serve"]
BENCHMARK_SCRIPT = "benchmark_serving.py"
SKIPPED = 77


class SpecError(Exception):
    pass


class SpecParser(argparse.ArgumentParser):
    """argparse as the real program configures it, raising instead of exiting."""

    def error(self, message):
        raise SpecError(message)

    def exit(self, status=0, message=None):
        raise SpecError(message or f"exit {status}")


def python_type(spec):
    if not isinstance(spec, dict):
        return None
    if "__type__" in spec:
        # SGLang's spec records `type=bool`-less string options as "bool" in a few places: text.
        return {"int": int, "str": str, "float": float, "bool": str}[spec["__type__"]]
    if spec.get("__attr__") == "json.loads":
        return json.loads
    if "__name__" in spec:
        # A parser of the program's own (SGLang's json_list_type, vLLM's human_readable_int,
        # TypeAdapter(...).validate_json): the program checks the value itself; here it is text.
        return str
    raise ValueError(f"unknown type in spec: {spec}")


def action_of(spec):
    if spec == "BooleanOptionalAction" or (isinstance(spec, dict) and
                                           spec.get("__attr__") == "argparse.BooleanOptionalAction"):
        return argparse.BooleanOptionalAction
    return spec


# How an argument behaves on the command line when its action is a class of the program's own
# (SGLang's DeprecatedAction family, vLLM's LoRAParserAction): the spec's cli_behaviour, else store.
BEHAVIOUR_ACTIONS = {"store": "store", "store_true": "store_true", "store_false": "store_false",
                     "append": "append", "BooleanOptionalAction": argparse.BooleanOptionalAction}


def argparse_from_spec(spec):
    """The spec's arguments as argparse adds them (ATOM, benchmark_serving.py, SGLang, vLLM, the
    SGLang router): argparse then decides, by the real program's rules."""
    names_of = [arg.get("accepted") or arg["names"] for arg in spec["arguments"]]
    own_help = any(n in ("-h", "--help") for names in names_of for n in names)
    parser = SpecParser(prog=spec.get("program", "program"), add_help=not own_help,
                        allow_abbrev=bool(spec.get("allow_abbrev", True)))
    for arg, names in zip(spec["arguments"], names_of):
        kwargs = {}
        for key, value in arg.get("kwargs", {}).items():
            if key == "type":
                kwargs["type"] = python_type(value)
            elif key == "action":
                kwargs["action"] = action_of(value)
            elif key == "choices":
                if isinstance(value, list) and not any(isinstance(c, dict) for c in value):
                    kwargs["choices"] = value  # registries resolved at run time are left out
            elif key in ("nargs", "default", "const"):
                kwargs[key] = value
        if isinstance(kwargs.get("action"), dict) or "cli_behaviour" in arg:
            kwargs["action"] = BEHAVIOUR_ACTIONS[arg.get("cli_behaviour") or "store"]
        if kwargs.get("action") in ("store_true", "store_false", argparse.BooleanOptionalAction):
            for key in ("type", "nargs", "choices", "const"):
                kwargs.pop(key, None)
        if kwargs.get("action", "store") in ("store", "append") and kwargs.get("nargs") != "?":
            kwargs.pop("const", None)  # argparse takes a const there only with nargs="?"
        if isinstance(kwargs.get("default"), (dict, list)) or kwargs.get("type") in (int, float):
            kwargs.pop("default", None)  # unresolved expressions; not what a parse accepts or refuses
        if kwargs.get("action") is argparse.BooleanOptionalAction:
            names = [n for n in names if not n.startswith("--no-")]  # the action adds those
        parser.add_argument(*names, **kwargs)
    return parser


# --- clap (AToMesh launch) -------------------------------------------------------------------

def clap_value_ok(value_type, value):
    unsigned = {"u16": 65535, "u32": 2**32 - 1, "u64": 2**64 - 1, "usize": 2**64 - 1}
    try:
        if value_type in unsigned:
            return value.isdigit() and int(value) <= unsigned[value_type]
        if value_type == "i32":
            return -2**31 <= int(value) < 2**31
        if value_type in ("f32", "f64"):
            float(value)
            return True
    except ValueError:
        return False
    return True  # String, PathBuf, Backend (choices are checked apart)


def is_flag_token(token):
    # clap treats anything starting with '-' as an option, numbers included ("-1").
    return token.startswith("-") and token != "-"


def check_clap(spec, argv):
    """The problems clap would report for `atomesh launch ARGV` (empty when it parses)."""
    by_name = {}
    for opt in spec:
        for name in [opt["long"]] + opt.get("aliases", []):
            by_name[name] = opt
    problems, seen, i = [], {}, 0
    rest = []
    while i < len(argv):  # cliargs.rs: --prefill URL [PORT|none], taken out before clap
        if argv[i] == "--prefill":
            if i + 1 >= len(argv) or is_flag_token(argv[i + 1]):
                problems.append("--prefill needs a URL")
                i += 1
                continue
            i += 2
            if i < len(argv) and not argv[i].startswith("--") and (argv[i].isdigit() or argv[i].lower() == "none"):
                i += 1
            continue
        rest.append(argv[i])
        i += 1
    i = 0
    while i < len(rest):
        token = rest[i]
        if not is_flag_token(token):
            problems.append(f"unexpected argument '{token}' (launch takes no positional arguments)")
            i += 1
            continue
        name, _, inline = token.partition("=")
        opt = by_name.get(name)
        if opt is None:
            problems.append(f"unexpected argument '{name}' (no such option in AToMesh's launch)")
            i += 1
            continue
        field = opt["field"]
        if field in seen and opt["kind"] in ("one", "flag", "multi"):
            problems.append(f"the argument '{opt['long']}' cannot be used multiple times")
        seen[field] = True
        i += 1
        values = []
        if opt["kind"] == "flag":
            if inline:
                problems.append(f"unexpected value '{inline}' for '{opt['long']}' (a flag takes none)")
            continue
        if inline:
            values.append(inline)
        elif opt["kind"] == "multi":
            while i < len(rest) and not is_flag_token(rest[i]):
                values.append(rest[i])
                i += 1
        elif i < len(rest) and not is_flag_token(rest[i]):
            values.append(rest[i])
            i += 1
        if not values:
            problems.append(f"a value is required for '{opt['long']}' but none was supplied")
        for v in values:
            if opt.get("choices") and v not in opt["choices"]:
                problems.append(f"invalid value '{v}' for '{opt['long']}' [possible values: {', '.join(opt['choices'])}]")
            elif not clap_value_ok(opt["value_type"], v):
                problems.append(f"invalid value '{v}' for '{opt['long']}': not a {opt['value_type']}")
    for opt in spec:
        if opt["field"] in seen:
            for need in opt.get("requires", []):
                if need not in seen:
                    problems.append(f"'{opt['long']}' requires the option of field {need}")
    return problems


# --- the argvs the Plan gives ------------------------------------------------------------------

def plans(helper, src):
    """(recipe, plan JSON) for every shipped recipe and every plannable good fixture."""
    profile = os.path.join(src, "etc/srt/cluster.yaml")
    files = sorted(glob.glob(os.path.join(src, "recipes/**/*.yaml"), recursive=True))
    fixtures = sorted(glob.glob(os.path.join(src, "tests/fixtures/recipes/good/*.yaml")))
    out, unplannable = [], []
    for path in files + fixtures:
        nodes = subprocess.run([helper, "nodes", "--profile", profile, path], capture_output=True, text=True)
        lines = nodes.stdout.strip().splitlines() if nodes.returncode == 0 else []
        # A plain recipe prints its node count; a variants file "SELECTOR N" per override, and its
        # base is a variant too (FILE:base).
        if len(lines) == 1 and lines[0].isdigit():
            refs = [(path, lines[0])]
        elif lines and all(len(l.split()) == 2 and l.split()[1].isdigit() for l in lines):
            counts = [l.split() for l in lines]
            refs = [(f"{path}:base", counts[0][1])] + [(f"{path}:{sel}", n) for sel, n in counts]
        else:
            if path in files:
                raise SystemExit(f"FAIL: srt-helper nodes {path}: {nodes.stderr.strip()}")
            unplannable.append((path, "nodes: " + (nodes.stderr.strip().splitlines() or ["?"])[0]))
            continue
        for ref, count in refs:
            if ref.endswith(":base"):  # base's own demand, not its first override's
                base = subprocess.run([helper, "nodes", "--profile", profile, ref], capture_output=True, text=True)
                count = base.stdout.strip() if base.stdout.strip().isdigit() else count
            nodelist = f"n[1-{count}]" if int(count) > 1 else "n1"
            run = subprocess.run([helper, "plan", "--profile", profile, "--json", "--nodelist", nodelist, ref],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                if path in files:
                    raise SystemExit(f"FAIL: srt-helper plan {ref}: {run.stderr.strip()}")
                unplannable.append((ref, (run.stderr.strip().splitlines() or ["?"])[0]))
                continue
            out.append((ref, json.loads(run.stdout)))
    return out, unplannable


def benchmark_invocations(process, plan, work):
    """The argv of every python3 the benchmark's script runs, the script run for real in a
    bubblewrap sandbox (the host's / read-only, /results /logs /infmax-workspace empty)."""
    shim_dir = os.path.join(work, "shim")
    os.makedirs(shim_dir, exist_ok=True)
    shim = os.path.join(shim_dir, "python3")
    with open(shim, "w") as f:
        f.write("#!/usr/bin/python3\nimport json, os, sys\n"
                "with open(os.environ['SRT_ARGV_LOG'], 'a') as log:\n"
                "    log.write(json.dumps(sys.argv[1:]) + '\\n')\n")
    os.chmod(shim, 0o755)
    log = os.path.join(work, "argv.jsonl")
    open(log, "w").close()
    env = {"PATH": shim_dir + ":/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/tmp", "SLURM_JOB_ID": "4242",
           "SRT_ARGV_LOG": log}
    env.update(plan.get("job_env", {}))
    env.update(process.get("env", {}))
    env["PATH"] = shim_dir + ":/usr/sbin:/usr/bin:/sbin:/bin"
    argv = list(process["argv"])
    if argv[:2] == ["bash", "-lc"]:
        argv[:2] = ["bash", "-c"]  # a login shell would read the host's profile and reset PATH
    # A tmpfs root with the host's top-level entries bound read-only, as the lab's bwrap runtime
    # builds it: the container paths can then be made without touching the host's /.
    command = ["bwrap", "--tmpfs", "/"]
    for entry in sorted(os.listdir("/")):
        path = "/" + entry
        if entry in ("dev", "proc", "tmp", "results", "logs", "infmax-workspace"):
            continue
        if os.path.islink(path):
            command += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            command += ["--ro-bind", path, path]
    command += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/results", "--tmpfs", "/logs",
                "--tmpfs", "/infmax-workspace", "--bind", work, work, "--die-with-parent", "--"] + argv
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        raise SpecError(f"the benchmark script failed under the recording python3 (exit {run.returncode}): "
                        f"{run.stderr.strip()[-400:]}")
    with open(log) as f:
        return [json.loads(line) for line in f if line.strip()]


# --- the stand-ins' parsers against the specs --------------------------------------------------

def argparse_shape(action):
    kind = type(action).__name__
    return {
        "action": {"_StoreTrueAction": "store_true", "_StoreFalseAction": "store_false",
                   "BooleanOptionalAction": "boolean_optional", "_AppendAction": "append",
                   "_StoreConstAction": "store_const"}.get(kind, "store"),
        "nargs": action.nargs if kind not in ("_StoreTrueAction", "_StoreFalseAction", "BooleanOptionalAction",
                                             "_StoreConstAction") else None,
        "type": getattr(action.type, "__name__", None) if action.type is not None else None,
        "choices": list(action.choices) if action.choices is not None else None,
        "const": action.const if kind not in ("_StoreTrueAction", "_StoreFalseAction") else None,
    }


def compare_argparse(name, real, standin):
    """Differences between the parser rebuilt from the spec and the stand-in's."""
    problems = []
    standin_by_option = {o: a for a in standin._actions for o in a.option_strings}
    real_options = set()
    for action in real._actions:
        if not action.option_strings or "-h" in action.option_strings:
            continue
        real_options.update(action.option_strings)
        mine = {standin_by_option.get(o) for o in action.option_strings}
        if None in mine:
            missing = [o for o in action.option_strings if o not in standin_by_option]
            problems.append(f"{name}: the stand-in lacks {', '.join(missing)}")
            continue
        if len(mine) != 1:
            problems.append(f"{name}: the stand-in splits {', '.join(action.option_strings)} over several options")
            continue
        want, got = argparse_shape(action), argparse_shape(mine.pop())
        for key in want:
            if want[key] != got[key] and not (key == "type" and {want[key], got[key]} <= {None, "str"}):
                problems.append(f"{name} {action.option_strings[0]}: {key} is {got[key]!r} in the stand-in, "
                                f"{want[key]!r} in the real parser")
    for option in sorted(set(standin_by_option) - real_options - {"-h", "--help"}):
        problems.append(f"{name}: the stand-in accepts {option}, the real program does not")
    return problems


def compare_argparse_subset(name, reals, standin):
    """Differences between a stand-in that accepts a subset of a large real CLI and the real
    parsers: every option the stand-in accepts must be one of some real parser's, with that
    parser's shape (SGLang's launch_server has 497 arguments; its stand-in knows those it honours
    and those the lab recipes pass, and refuses the rest as argparse refuses an unknown one)."""
    problems = []
    for action in standin._actions:
        if not action.option_strings or "-h" in action.option_strings:
            continue
        found = []
        for real in reals:
            by_option = {o: a for a in real._actions for o in a.option_strings}
            matches = {by_option.get(o) for o in action.option_strings}
            if None not in matches and len(matches) == 1:
                found.append(matches.pop())
        if not found:
            if action.option_strings[0] in STANDIN_EXTRAS.get(name, {}):
                continue
            problems.append(f"{name}: the stand-in accepts {', '.join(action.option_strings)}, "
                            "which no real parser accepts as one option")
            continue
        want, got = argparse_shape(found[0]), argparse_shape(action)
        if want["choices"] is not None:  # the choices of every build that has the option
            union = []
            for real_action in found:
                union += [c for c in (real_action.choices or []) if c not in union]
            # A build whose rebuilt parser has no choice list (argparse_from_spec drops one it
            # cannot resolve: smg's --prefill-policy spreads *COMMON_POLICY_CHOICES) takes any
            # value there: nothing to compare.
            want["choices"] = got["choices"] if any(a.choices is None for a in found) else union
        for key in want:
            if want[key] != got[key] and not (key == "type" and {want[key], got[key]} <= {None, "str"}):
                problems.append(f"{name} {action.option_strings[0]}: {key} is {got[key]!r} in the stand-in, "
                                f"{want[key]!r} in the real parser")
    return problems


# Options a stand-in accepts that no spec has, each with the reason (the real build an image
# ships takes them: tests/unit/plan/spec_exemptions.tsv says where the corpus uses them).
STANDIN_EXTRAS = {
    "vllm": {
        "--engram-config": "DeepSeek-V4.1 Engram option of the dsv41flash recipe's nightly vLLM image; in no vLLM "
                           "source the spec was read from (tests/unit/plan/spec_exemptions.tsv)",
        "--swa-bounded-replay": "the same nightly image's sparse-SWA replay switch (spec_exemptions.tsv)",
    },
    "sglang-router": {
        "--connect-timeout-secs": "in neither sglang-router 0.3.2 nor smg 1.9.0; the MI355X image's router takes "
                                  "it and InferenceX's recipes pass it (engines-sglang-vllm.md §0.9)",
    },
}


def standin_refuses(parser, argv):
    """True when a stand-in's own parser refuses argv (argparse exits): the lab would run another
    argv than the Plan's."""
    try:
        parser.parse_args(argv)
        return False
    except SystemExit:
        return True


def first_accepting(parsers, argv):
    """None when one of the parsers takes argv, else what each said."""
    problems = []
    for parser in parsers:
        try:
            parser.parse_args(argv)
            return None
        except SpecError as e:
            problems.append(str(e))
    return " / ".join(problems)


def compare_clap(spec, standin, program="atomesh"):
    problems = []
    by_option = {o: a for a in standin._actions for o in a.option_strings}
    kinds = {"_StoreTrueAction": "flag", "_StoreConstAction": "flag", "_AppendAction": "append1"}
    types = {"u16": "int", "u32": "int", "u64": "int", "usize": "int", "i32": "int", "f32": "float", "f64": "float"}
    known = {"-h", "--help", "-V", "--version"}
    for opt in spec:
        for name in [opt["long"]] + opt.get("aliases", []):
            known.add(name)
            action = by_option.get(name)
            if action is None:
                problems.append(f"{program}: the stand-in lacks {name}")
                continue
            kind = kinds.get(type(action).__name__, "multi" if action.nargs in ("+", "*") else "one")
            if kind != opt["kind"]:
                problems.append(f"{program} {name}: {kind} in the stand-in, {opt['kind']} in clap")
            if opt.get("choices") and list(action.choices or []) != opt["choices"]:
                problems.append(f"{program} {name}: choices {list(action.choices or [])} in the stand-in, {opt['choices']} in clap")
            want_type = types.get(opt["value_type"])
            got_type = getattr(action.type, "__name__", None) if action.type else None
            if kind != "flag" and want_type and got_type != want_type:
                problems.append(f"{program} {name}: type {got_type} in the stand-in, {opt['value_type']} in clap")
    for option in sorted(set(by_option) - known):
        problems.append(f"{program}: the stand-in accepts {option}, clap does not")
    return problems


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    helper, src = argv[1], argv[2]
    reference = argv[3] if len(argv) > 3 else os.path.join(src, "..", "shared", "reference")
    cli = os.path.join(reference, "cli")
    names = ["atom-openai-server.json", "atomesh-launch.json", "benchmark-serving.json",
             "sglang-launch-server.json", "sglang-router.json", "vllm-serve.json", "vllm-router.json"]
    if not all(os.path.isfile(os.path.join(cli, n)) for n in names):
        print(f"skipped: the real programs' CLI specs are not at {cli} (../shared/reference/cli)")
        return SKIPPED
    if not shutil.which("bwrap"):
        print("FAIL: bwrap (bubblewrap) is missing: scripts/install-deps.sh installs it")
        return 1
    specs = {n: json.load(open(os.path.join(cli, n))) for n in names}
    atom = argparse_from_spec(specs["atom-openai-server.json"])
    bench = argparse_from_spec(specs["benchmark-serving.json"])
    clap = specs["atomesh-launch.json"]
    sglang = [argparse_from_spec(specs["sglang-launch-server.json"])]
    # The router build an SGLang image ships is sglang-router or smg (engines-sglang-vllm.md §0.9):
    # either parser taking an argv is enough.
    router_spec = specs["sglang-router.json"]
    sglang_router = [argparse_from_spec(router_spec)] + [argparse_from_spec(a) for a in router_spec.get("alternatives", [])]
    failures = []
    checked = {"atom": 0, "atomesh": 0, "benchmark_serving.py": 0, "sglang": 0, "sglang-router": 0, "vllm": 0,
               "vllm-router": 0}
    vllm = argparse_from_spec(specs["vllm-serve.json"])
    vllm_router_spec = specs["vllm-router.json"]["arguments"]

    sys.path.insert(0, os.path.join(src, "tests", "standins"))
    import atom_cli  # noqa: E402  (the stand-ins, from the source tree)
    import atomesh
    import benchmark_serving
    failures += compare_argparse("atom", atom, atom_cli.build_parser())
    failures += compare_argparse("benchmark_serving.py", bench, benchmark_serving.build_parser())
    failures += compare_clap(clap, atomesh.build_parser())
    import sglang_cli
    import sglang_router as sglang_router_standin
    failures += compare_argparse_subset("sglang", sglang, sglang_cli.build_parser())
    failures += compare_argparse_subset("sglang-router", sglang_router, sglang_router_standin.build_parser())
    import vllm_cli
    import vllm_router as vllm_router_standin
    failures += compare_argparse_subset("vllm", [argparse_from_spec(specs["vllm-serve.json"])], vllm_cli.build_parser())
    failures += compare_clap(specs["vllm-router.json"]["arguments"], vllm_router_standin.build_parser(), "vllm-router")

    recipes, unplannable = plans(helper, src)
    with tempfile.TemporaryDirectory() as work:
        for path, plan in recipes:
            rel = os.path.relpath(path, src)
            for p in plan["processes"]:
                where = f"{rel}: {p['name']}"
                args = p["argv"]
                try:
                    if args[:3] == ATOM_PROGRAM:
                        atom.parse_args(args[3:])
                        checked["atom"] += 1
                    elif args[:3] in (SGLANG_PROGRAM, SGLANG_ROUTER_PROGRAM):
                        program = "sglang" if args[:3] == SGLANG_PROGRAM else "sglang-router"
                        why = first_accepting(sglang if program == "sglang" else sglang_router, args[3:])
                        if why:
                            failures.append(f"{where}: {program}: {why}")
                        # The stand-in must take what the Plan gives, or the lab runs another argv.
                        mine = sglang_cli.build_parser() if program == "sglang" else sglang_router_standin.build_parser()
                        if standin_refuses(mine, args[3:]):
                            failures.append(f"{where}: the {program} stand-in refuses the Plan's argv")
                        checked[program] += 1
                    elif args[:2] == VLLM_PROGRAM:
                        # Flags an image's own build takes and no spec has (STANDIN_EXTRAS) are left out.
                        extras = STANDIN_EXTRAS["vllm"]
                        kept, skip = [], False
                        for token in args[2:]:
                            if token.startswith("--"):
                                name = token.split("=", 1)[0]
                                skip = name in extras or name.replace("--no-", "--", 1) in extras
                            if not skip:
                                kept.append(token)
                        why = first_accepting([vllm], kept)
                        if why:
                            failures.append(f"{where}: vllm serve: {why}")
                        if standin_refuses(vllm_cli.build_parser(), args[2:]):
                            failures.append(f"{where}: the vllm serve stand-in refuses the Plan's argv")
                        checked["vllm"] += 1
                    elif args[:1] == ["vllm-router"]:
                        for problem in check_clap(vllm_router_spec, args[1:]):
                            failures.append(f"{where}: vllm-router: {problem}")
                        if standin_refuses(vllm_router_standin.build_parser(), args[1:]):
                            failures.append(f"{where}: the vllm-router stand-in refuses the Plan's argv")
                        checked["vllm-router"] += 1
                    elif args[:2] == ["atomesh", "launch"]:
                        for problem in check_clap(clap, args[2:]):
                            failures.append(f"{where}: atomesh launch: {problem}")
                        checked["atomesh"] += 1
                    elif p["role"] == "benchmark" and BENCHMARK_SCRIPT in " ".join(args):
                        runs = [r for r in benchmark_invocations(p, plan, work) if r and r[0].endswith(BENCHMARK_SCRIPT)]
                        if not runs:
                            failures.append(f"{where}: its script names {BENCHMARK_SCRIPT} but never ran it")
                        for r in runs:
                            try:
                                bench.parse_args(r[1:])
                            except SpecError as e:
                                failures.append(f"{where}: {BENCHMARK_SCRIPT}: {e}")
                            checked["benchmark_serving.py"] += 1
                except SpecError as e:
                    program = "atom" if args[:3] == ATOM_PROGRAM else p["role"]
                    failures.append(f"{where}: {program}: {e}")
    for path, why in unplannable:
        print(f"not plannable here (no argv to check): {os.path.relpath(path, src)}: {why}")
    for f in failures:
        print("FAIL " + f)
    print(f"cli specs: {len(recipes)} recipes planned; argvs checked: {checked['atom']} ATOM, "
          f"{checked['atomesh']} AToMesh, {checked['benchmark_serving.py']} benchmark_serving.py, "
          f"{checked['sglang']} SGLang, {checked['sglang-router']} sglang-router, {checked['vllm']} vllm serve, "
          f"{checked['vllm-router']} vllm-router; "
          f"stand-in parsers compared with all seven specs; {len(failures)} problem(s)")
    if min(checked.values()) == 0:
        print("FAIL: some program had no argv to check: the recipes no longer exercise it")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
