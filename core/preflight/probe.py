# srt-helper's preflight probe: runs INSIDE the image (`srt-exec -- python3 -c <this> ...`) with
# the engine's own interpreter, and writes what it finds as JSON. Facts only: srt-helper judges
# them (core/preflight). It never imports the engine package itself: `import atom` pulls in torch
# and aiter (seconds, and a GPU runtime); files are located with importlib.util.find_spec on the
# top-level package and read, and only small leaf modules (mooncake.engine, the KV-event module)
# are loaded. Python 3.8+ standard library only. Compiled into srt_core (core/preflight).
import argparse
import ast
import glob
import importlib.metadata
import importlib.util
import itertools
import json
import os
import platform
import re
import resource
import runpy
import shutil
import socket
import subprocess
import sys

HEX = re.compile(r"^[0-9a-f]{7,40}$")


def package_dir(name):
    """Directory of top-level package `name`, without running its __init__."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def module_file(module):
    """The file of a dotted module, found by walking the package directories."""
    parts = module.split(".")
    base = package_dir(parts[0])
    if base is None:
        return None
    path = os.path.join(base, *parts[1:])
    for candidate in (path + ".py", os.path.join(path, "__init__.py"), os.path.join(path, "__main__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None


def dist_version(*names):
    for name in names:
        try:
            return importlib.metadata.version(name)
        except Exception:
            continue
    return None


def git_commit(root):
    """HEAD of the source checkout an editable install runs from: `root` is the directory that
    holds the package (ATOM's images: /app/ATOM with atom/ and .git/). Only that directory: a
    checkout further up (a workspace) is not the package's."""
    git = os.path.join(root, ".git")
    if not os.path.isdir(git):
        return None
    try:
        head = open(os.path.join(git, "HEAD")).read().strip()
        if not head.startswith("ref: "):
            return head if HEX.match(head) else None
        ref = head[5:]
        ref_file = os.path.join(git, ref)
        if os.path.isfile(ref_file):
            return open(ref_file).read().strip()
        for line in open(os.path.join(git, "packed-refs")):
            if line.strip().endswith(" " + ref):
                return line.split()[0]
    except OSError:
        pass
    return None


def walk_bounded(top, dirs):
    """os.walk's first `dirs` directories, walked lazily: the bound limits the walk itself (a
    package tree in an image can be large), not only what is looked at afterwards."""
    return itertools.islice(os.walk(top), dirs)


def kv_events_capability(pkg):
    """offset: ranks bind port + rank (ATOM PR #1316's offset_endpoint); connect: Infera's hook
    makes ranks connect to a relay; none: every rank binds the endpoint as given; unknown."""
    path = os.path.join(pkg, "distributed", "kv_events.py")
    if not os.path.isfile(path):
        return "unknown", "no atom/distributed/kv_events.py"
    try:
        spec = importlib.util.spec_from_file_location("_srt_probe_kv_events", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        has_offset = hasattr(mod, "offset_endpoint")
    except Exception as e:  # a module that does not load alone: read its text instead
        has_offset = "def offset_endpoint" in open(path, errors="replace").read()
        note = "read as text (%s)" % e.__class__.__name__
    else:
        note = path
    if has_offset:
        return "offset", note
    infera = package_dir("infera")
    if infera:
        for root, _dirs, files in walk_bounded(infera, 400):
            for f in files:
                if f.endswith(".py") and "INFERA_ATOM_KV_EVENTS_CONNECT" in open(os.path.join(root, f), errors="replace").read():
                    return "connect", os.path.join(root, f)
    return "none", note


# Identifiers that name NICs in a connector (ib_devices, hca, nics); split on "_" so that a
# "visible" device list is not one.
NIC_WORDS = {"ib", "ibdev", "ibdevs", "hca", "hcas", "nic", "nics", "rdma"}


def identifiers(node):
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            yield n.id
        elif isinstance(n, ast.Attribute):
            yield n.attr


def picks_by_device(index):
    """An index computed from the rank's GPU: torch.cuda.current_device(), or a local rank."""
    for n in ast.walk(index):
        if isinstance(n, ast.Call) and (getattr(n.func, "attr", None) or getattr(n.func, "id", None)) == "current_device":
            return True
    return any(i in ("local_rank", "local_gpu", "gpu_id", "current_device") for i in identifiers(index))


NIC_PREFIX = re.compile(r"(rdma|ionic_)(%d|%s|\{)")


def names_nic_by_index(node):
    """A NIC name built from an index, as ATOM's auto-pick does: f"rdma{n}", "ionic_%d" % n,
    "rdma{}".format(n) or "rdma" + str(n)."""
    if isinstance(node, ast.JoinedStr):
        texts = [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        return any(t.endswith(("rdma", "ionic_")) for t in texts) and \
            any(isinstance(v, ast.FormattedValue) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
        text = node.left.value
        return (isinstance(node.op, ast.Mod) and NIC_PREFIX.match(text) is not None) or \
            (isinstance(node.op, ast.Add) and text in ("rdma", "ionic_"))
    if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "format" and \
            isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        return NIC_PREFIX.match(node.func.value.value) is not None
    return False


def connector_source(pkg):
    """ATOM's Mooncake connector under `pkg`: (path, source, ast tree), or (None, why, None)."""
    path = os.path.join(pkg, "kv_transfer", "disaggregation", "mooncake", "mooncake_connector.py")
    if not os.path.isfile(path):
        path = None
        for root, _dirs, files in walk_bounded(pkg, 2000):
            if "mooncake_connector.py" in files:
                path = os.path.join(root, "mooncake_connector.py")
                break
    if path is None:
        return None, "no mooncake_connector.py under " + pkg, None
    try:
        with open(path, errors="replace") as f:
            source = f.read()
        return path, source, ast.parse(source)
    except (OSError, SyntaxError, ValueError) as e:
        return None, "%s: %s" % (path, e.__class__.__name__), None


def string_constants(tree):
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def nic_families(tree):
    """The NIC name families the connector builds from an index, in the order its code has them:
    ["rdma", "ionic_"] for f"rdma{n}" then f"ionic_{n}"."""
    seen = []
    for n in ast.walk(tree):
        if not names_nic_by_index(n):
            continue
        if isinstance(n, ast.JoinedStr):
            texts = [v.value for v in n.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        elif isinstance(n, ast.BinOp):
            texts = [n.left.value]
        else:
            texts = [n.func.value.value]
        for t in texts:
            m = re.match(r"(rdma|ionic_)", t)
            if m:
                seen.append(((n.lineno, n.col_offset), m.group(1)))
    families = []
    for _where, family in sorted(seen):
        if family not in families:
            families.append(family)
    return families


def device_names(tree):
    """Names bound to the rank's device ordinal: x = torch.cuda.current_device() (or local_rank)."""
    names = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and picks_by_device(n.value):
            names.update(t.id for t in n.targets if isinstance(t, ast.Name))
    return names


def physical_index(tree, constants):
    """True when the connector maps the rank's device ordinal to the GPU's entry in a visibility
    variable (HIP_/CUDA_/ROCR_VISIBLE_DEVICES split on ","): the number the node wrote for it."""
    names_visibility = any("VISIBLE_DEVICES" in c for c in constants)
    ordinals = device_names(tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Subscript):
            idx = set(identifiers(n.slice))
            if picks_by_device(n.slice) or idx & ordinals:
                value = [i.lower() for i in identifiers(n.value)]
                if any(w in NIC_WORDS for i in value for w in i.split("_")):
                    continue
                if names_visibility or any("visible" in i for i in value):
                    return True
    return False


def splits_list_by_rank(tree):
    """A configured NIC list indexed by the rank's device: ib_devices[current_device()]."""
    ordinals = device_names(tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Subscript) and (picks_by_device(n.slice) or set(identifiers(n.slice)) & ordinals):
            if any(w in NIC_WORDS for i in identifiers(n.value) for w in i.lower().split("_")):
                return n.lineno
    return None


def tcp_without_device(tree):
    """Under TCP the connector hands Mooncake no device: a branch on protocol == "tcp" (or
    != "rdma") that returns "" or an empty list."""
    for n in ast.walk(tree):
        if not isinstance(n, ast.If):
            continue
        consts = [c.value.lower() for c in ast.walk(n.test) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
        ops = [type(op) for c in ast.walk(n.test) if isinstance(c, ast.Compare) for op in c.ops]
        # protocol == "tcp", or protocol != "rdma" (every transport but RDMA)
        if not ("tcp" in consts and ast.Eq in ops) and not ("rdma" in consts and ast.NotEq in ops):
            continue
        for r in ast.walk(ast.Module(body=n.body, type_ignores=[])):
            if isinstance(r, ast.Return) and r.value is not None and (
                    (isinstance(r.value, ast.Constant) and r.value.value == "") or
                    (isinstance(r.value, ast.List) and not r.value.elts)):
                return True
    return False


def rdma_nic_behaviour(pkg):
    """What the image's ATOM connector does with a rank's NICs under Mooncake RDMA, read from
    what its code does (docs/design.md "ATOM's NIC choice"), never from how one version spells
    it; each answer "unknown" when the code does not show it:
      nothing_configured  own-nic (each rank builds its own NIC's name from its GPU's index: rdma<N>,
                          then ionic_<N> where the code has that family), every-nic (it hands
                          Mooncake "" and Mooncake opens every NIC), unknown;
      index               physical (N is the GPU's entry in the visibility variable) or visible
                          (N is the rank's device ordinal), for own-nic;
      families            the NIC name families tried, in order;
      configured_list     whole (a list goes to every rank as it is) or split (each rank takes
                          the entry of its device);
      tcp                 no-device (TCP gets no NIC) or device-passed;
      matched_rails       reads ATOM_MOONCAKE_MATCHED_RAILS (one primary HCA plus rails);
      alternate_hca       has ib_enable_alternate_hca (more HCAs in one engine);
      pick                the one word the node's NIC rule takes (families:index, every-nic, unknown)."""
    out = {"nothing_configured": "unknown", "index": "unknown", "families": [], "configured_list": "unknown",
           "tcp": "unknown", "matched_rails": False, "alternate_hca": False, "pick": "unknown"}
    path, source, tree = connector_source(pkg)
    if tree is None:
        out["source"] = source
        return out
    out["source"] = path
    constants = string_constants(tree)
    names = set(identifiers(tree))
    if not any("ib_device" in c or "IB_DEVICE" in c for c in constants | names):
        out["source"] = path + " does not read ib_device"
        return out
    out["matched_rails"] = "ATOM_MOONCAKE_MATCHED_RAILS" in constants or "ATOM_MOONCAKE_MATCHED_RAILS" in names
    out["alternate_hca"] = "ib_enable_alternate_hca" in constants or "enable_alternate_hca" in names
    out["tcp"] = "no-device" if tcp_without_device(tree) else "device-passed"
    split = splits_list_by_rank(tree)
    out["configured_list"] = "split" if split else "whole"
    families = nic_families(tree)
    if families:
        out["nothing_configured"] = "own-nic"
        out["families"] = families
        out["index"] = "physical" if physical_index(tree, constants) else "visible"
        out["pick"] = "+".join(families) + ":" + out["index"]
    else:
        out["nothing_configured"] = "every-nic"
        out["pick"] = "every-nic"
    return out


def rdma_nic_selection(behaviour):
    """The one-word summary kept in fingerprints.json: per-rank when a rank can get a NIC of its
    own (its own pick with nothing configured, or a list split by rank), all-listed when every
    rank opens every NIC listed (or every NIC there is), unknown otherwise."""
    if behaviour["nothing_configured"] == "own-nic" or behaviour["configured_list"] == "split":
        return "per-rank", behaviour.get("source", "")
    if behaviour["nothing_configured"] == "every-nic" and behaviour["configured_list"] == "whole":
        return "all-listed", behaviour.get("source", "")
    return "unknown", behaviour.get("source", "")


def package_version(pkg):
    """__version__ from the package's version file, read without importing the package:
    _version.py (setuptools_scm's write_to: ATOM's pyproject) or version.py (SGLang's
    python/sglang/version.py, vLLM's vllm/version.py, sglang_router's)."""
    for name in ("_version.py", "version.py"):
        path = os.path.join(pkg, name)
        if os.path.isfile(path):
            try:
                version = runpy.run_path(path).get("__version__")
            except Exception:
                version = None
            if isinstance(version, str) and version:
                return version
    return None


def probe_engine(module):
    out = {"module": module, "found": False}
    top = module.split(".")[0]
    pkg = package_dir(top)
    if pkg is None:
        out["error"] = "no module named %r for %s" % (top, sys.executable)
        return out
    out["package_dir"] = pkg
    path = module_file(module)
    if path is None:
        out["error"] = "package %r at %s has no %s" % (top, pkg, module)
        return out
    out["found"] = True
    out["path"] = path
    out["version"] = package_version(pkg) or dist_version(top)
    commit = git_commit(os.path.dirname(pkg))
    if not commit and out["version"] and "+g" in out["version"]:
        m = re.match(r"[0-9a-f]+", out["version"].split("+g", 1)[1])
        commit = m.group(0) if m else None
    out["commit"] = commit
    out["kv_events"], out["kv_events_source"] = kv_events_capability(pkg)
    out["rdma_nic"] = rdma_nic_behaviour(pkg)
    out["rdma_nic_selection"], out["rdma_nic_selection_source"] = rdma_nic_selection(out["rdma_nic"])
    return out


def probe_mooncake():
    out = {"found": False}
    try:
        import mooncake.engine  # noqa: F401  (what ATOM's connector imports)
        out["found"] = True
    except Exception as e:
        out["error"] = "%s: %s" % (e.__class__.__name__, e)
    out["version"] = dist_version("mooncake-transfer-engine", "mooncake_transfer_engine", "mooncake")
    if not out["version"] and out["found"]:
        out["version"] = getattr(sys.modules.get("mooncake"), "__version__", None)
    return out


def probe_router(command):
    out = {"command": command, "path": shutil.which(command) if command else None, "version": None}
    if out["path"]:
        try:
            r = subprocess.run([out["path"], "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=20, universal_newlines=True)
            words = r.stdout.split()
            out["version"] = words[-1] if r.returncode == 0 and words else None
        except Exception as e:
            out["error"] = "%s --version: %s" % (out["path"], e)
    return out


def probe_router_module(module):
    """A router run as `python -m MODULE` (sglang_router.launch_router; smg's launch_router):
    found when this python has the module, its version the distribution's."""
    top = module.split(".")[0]
    path = module_file(module)
    out = {"command": "python -m " + module, "path": path, "version": None}
    if path is None:
        out["error"] = "no module %s for %s" % (module, sys.executable)
    else:
        out["version"] = package_version(package_dir(top)) or dist_version(top.replace("_", "-"), top)
    return out


def read(path):
    try:
        return open(path).read().strip()
    except OSError:
        return None


def probe_rocm():
    version = read("/opt/rocm/.info/version")
    if not version:
        hits = sorted(glob.glob("/opt/rocm-*/.info/version"))
        version = read(hits[-1]) if hits else None
    return version


def probe_gpus():
    """GPUs this process may use: KFD nodes with SIMDs, limited by ROCR/HIP visibility."""
    count, model = 0, None
    for props in sorted(glob.glob("/sys/class/kfd/kfd/topology/nodes/*/properties")):
        text = read(props) or ""
        simd = re.search(r"^simd_count (\d+)", text, re.M)
        if simd and int(simd.group(1)) > 0:
            count += 1
            if model is None:
                name = read(os.path.join(os.path.dirname(props), "name"))
                gfx = re.search(r"^gfx_target_version (\d+)", text, re.M)
                model = name or (("gfx_target_version " + gfx.group(1)) if gfx else None)
    for var in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"):
        if os.environ.get(var):
            count = min(count, len(os.environ[var].split(",")))
    return {"count": count, "model": model}


def probe_rdma(gid_index):
    devices = sorted(os.listdir("/sys/class/infiniband")) if os.path.isdir("/sys/class/infiniband") else []
    providers = sorted(glob.glob("/etc/libibverbs.d/*.driver"))
    libs = []
    for d in ("/usr/lib/x86_64-linux-gnu/libibverbs", "/usr/lib64/libibverbs", "/usr/lib/libibverbs"):
        libs += sorted(glob.glob(os.path.join(d, "*.so")))
    soft, _hard = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    out = {"dev_infiniband": os.path.isdir("/dev/infiniband") and bool(os.listdir("/dev/infiniband")),
           "devices": devices, "provider_configs": providers, "provider_libs": libs,
           "memlock": "unlimited" if soft == resource.RLIM_INFINITY else soft, "gid_index": gid_index}
    if gid_index is not None and gid_index >= 0:
        zero = "0000:0000:0000:0000:0000:0000:0000:0000"
        out["gid_ok"] = [d for d in devices
                         if (read("/sys/class/infiniband/%s/ports/1/gids/%d" % (d, gid_index)) or zero) != zero]
    return out


def hf_revision(repo):
    """The revision refs/main points at in the HF hub cache (what the engine will load)."""
    if not repo:
        return None
    roots = [os.environ.get("HF_HUB_CACHE"), os.environ.get("HUGGINGFACE_HUB_CACHE")]
    if os.environ.get("HF_HOME"):
        roots.append(os.path.join(os.environ["HF_HOME"], "hub"))
    roots.append(os.path.expanduser("~/.cache/huggingface/hub"))
    for root in filter(None, roots):
        rev = read(os.path.join(root, "models--" + repo.replace("/", "--"), "refs", "main"))
        if rev:
            return rev
    return None


def main():
    p = argparse.ArgumentParser(prog="srt-preflight-probe")
    p.add_argument("--engine-module", default="atom.entrypoints.openai_server")
    p.add_argument("--router", default="")
    p.add_argument("--router-module", default="", help="a router run as python -m MODULE")
    p.add_argument("--file", action="append", default=[], help="a path that must exist here")
    p.add_argument("--framework", action="append", default=[], help="a distribution whose version to report")
    p.add_argument("--model-repo", default="")
    p.add_argument("--gid-index", type=int, default=-1)
    p.add_argument("--out", default="-")
    a = p.parse_args()
    result = {
        "probe_version": 1,
        "hostname": socket.gethostname(),
        "python": {"executable": sys.executable, "version": platform.python_version()},
        "engine": probe_engine(a.engine_module),
        "mooncake": probe_mooncake(),
        "router": probe_router_module(a.router_module) if a.router_module else probe_router(a.router),
        "files": {f: os.path.exists(f) for f in a.file},
        "frameworks": {name: dist_version(name) for name in a.framework},
        "rocm_version": probe_rocm(),
        "gpus": probe_gpus(),
        "rdma": probe_rdma(a.gid_index),
        "model": {"repo": a.model_repo or None, "revision": hf_revision(a.model_repo)},
    }
    text = json.dumps(result, indent=2, sort_keys=True)
    if a.out == "-":
        print(text)
    else:
        with open(a.out + ".tmp", "w") as f:
            f.write(text + "\n")
        os.replace(a.out + ".tmp", a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
