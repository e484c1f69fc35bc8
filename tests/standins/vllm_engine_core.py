"""The vLLM stand-in's engine side: the EngineCore child per DP rank and the DPCoordinator, the
GPUs each takes (``--device-ids`` and the visibility variables), the ports they hold, and the API
server's handle on them (Engine). Part of vllm_server.py's stand-in.

Sources (read, not copied): NVIDIA/srt-slurm src/srtctl/backends/vllm.py @ 009a4fa3 (one
``vllm serve`` per worker per node; ``--device-ids`` with the sorted local GPU indices unless
``set_visible_devices``; ``VLLM_PORT`` as the base of get_open_port()'s scan; the process titles
exporters and kill scripts match), src/srtctl/ports.py and endpoints_to_processes (the ports per
process); vllm-project/vllm vllm/engine/arg_utils.py (``--device-ids``: physical indices, or
indices into the visible-devices variable when it is set), read in an annotated copy of unknown
commit.

- One ``vllm serve`` process per worker per node owns every local rank as children: one
  EngineCore per DP rank (TP/PP ranks live inside it here, see vllm_server.py's Deviations),
  plus a DPCoordinator when DP > 1. Children are started with the spawn method.
- Process names ``VLLM::APIServer`` (the server process), ``VLLM::EngineCore_DP<r>`` (or
  ``VLLM::EngineCore`` without DP), ``VLLM::DPCoordinator``; set with prctl(PR_SET_NAME) through
  ctypes (python3-setproctitle is not installed), so /proc/PID/comm carries them, truncated by
  the kernel to 15 bytes ("VLLM::EngineCor"), as setproctitle leaves comm too; the command line
  stays ``vllm serve ...`` (what scripts match at argv[0]).
- GPUs are chosen with ``--device-ids`` (sorted local indices, srt-spank passes them),
  values being physical indices, or indices into the visible-devices variables when set
  (ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES, then CUDA_VISIBLE_DEVICES, each indexing the
  set the previous one left). A value outside the visible set, a repeated value, or a count
  other than the local world size (TP x PP x PCP x local DP) is an error (exit 1). Without
  ``--device-ids`` the first ranks' worth of visible devices are taken. The stand-in logs which
  GPUs each EngineCore took. Physical GPUs: SRT_STANDIN_GPU_COUNT (8, an MI355X node).
- Ports (the whole list is in vllm_server.py): DP = 1: the EngineCore's torch world-group store
  on the first free ``VLLM_PORT`` scan port; DP > 1: five DP master ports from the scan, of
  which DP rank 0 holds the DP group's and the world group's stores.
- A dead EngineCore (or DPCoordinator) is reported by Engine.dead_child (the server then exits 1);
  an EngineCore whose server disappears exits. DP routing: Engine.pick, the least loaded rank
  (waiting x 4 + running, as vLLM's DP load balancer scores engines).
"""

import ctypes
import logging
import multiprocessing
import multiprocessing.connection
import os
import socket
import sys
import time
import traceback

from standin_common import bind_listener, env_float, env_int, setup_logging
from timing_model import Queue

log = logging.getLogger("vllm")

DP_MASTER_PORT_COUNT = 5      # ParallelConfig takes five ports for DP process groups
VISIBILITY_VARS = ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")


def set_process_name(name):
    """prctl(PR_SET_NAME): /proc/self/comm (15 bytes), what ps -o comm / pgrep show."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, ctypes.c_char_p(name.encode()[:15]), 0, 0, 0)  # PR_SET_NAME = 15
    except (OSError, AttributeError):
        pass


class ConfigError(Exception):
    pass


def visible_devices(env, physical_count):
    """The physical GPUs a process may use: ROCR, then HIP, then CUDA visibility, each
    indexing the devices the previous one left (the ROCm runtime's layering)."""
    devices = list(range(physical_count))
    for var in VISIBILITY_VARS:
        raw = env.get(var)
        if raw is None:
            continue
        picked = []
        for item in [x for x in raw.split(",") if x.strip()]:
            try:
                index = int(item)
            except ValueError:
                raise ConfigError(f"{var}={raw!r}: {item!r} is not a device index")
            if not 0 <= index < len(devices):
                raise ConfigError(f"{var}={raw!r}: device {index} is not visible "
                                  f"({len(devices)} device(s) left by the variables before it)")
            picked.append(devices[index])
        devices = picked
    return devices


def select_devices(device_ids, world_local, env):
    """[(index, physical GPU)] for the worker's local ranks in rank order."""
    visible = visible_devices(env, env_int("SRT_STANDIN_GPU_COUNT", 8))
    if device_ids is None:
        if len(visible) < world_local:
            raise ConfigError(f"{world_local} GPU(s) needed (local world size), {len(visible)} visible")
        return [(i, visible[i]) for i in range(world_local)]
    ids = []
    for item in device_ids.split(","):
        item = item.strip()
        try:
            ids.append(int(item))
        except ValueError:
            raise ConfigError(f"--device-ids {device_ids!r}: {item!r} is not a device index "
                              "(the stand-in models no GPU UUIDs)")
    if len(set(ids)) != len(ids):
        raise ConfigError(f"--device-ids {device_ids!r} names a device twice")
    for index in ids:
        if not 0 <= index < len(visible):
            raise ConfigError(f"--device-ids {device_ids!r}: device {index} is not visible "
                              f"(visible: {len(visible)} device(s))")
    if len(ids) != world_local:
        raise ConfigError(f"--device-ids {device_ids!r} lists {len(ids)} device(s), the local "
                          f"world size (TP x PP x PCP x local DP) is {world_local}")
    return [(i, visible[i]) for i in ids]


def get_open_port(skip=()):
    """vLLM's get_open_port(): with VLLM_PORT, the first port from there up that binds (a
    bind test, released at once); without, a kernel-chosen one. `skip`: ports already handed
    out by this process (so a list of several is distinct)."""
    base = os.environ.get("VLLM_PORT", "").strip()
    if not base:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("", 0))
            return s.getsockname()[1]
    port = int(base)
    while port < 65536:
        if port not in skip:
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                    s.bind(("", port))
                    return port
            except OSError:
                log.info("Port %d is already in use, trying port %d", port, port + 1)
        port += 1
    raise OSError("no free port at or above VLLM_PORT")


def _exit_if_orphaned(parent_pid, clog):
    if os.getppid() != parent_pid:
        clog.error("API server process went away; exiting")
        os._exit(1)


def engine_core_main(spec, ready_conn):
    """One EngineCore (multiprocessing target). Exit codes: 1 = failed (traceback logged)."""
    dp_rank, dp_size = spec["dp_rank"], spec["dp_size"]
    title = f"EngineCore_DP{dp_rank}" if dp_size > 1 else "EngineCore"
    set_process_name("VLLM::" + title)
    clog = setup_logging(f"vllm.{title}")
    parent = os.getppid()
    held = []
    try:
        clog.info("%s pid=%d: GPUs %s (indices %s), TP=%d PP=%d", title, os.getpid(),
                  [g for _, g in spec["gpus"]], [i for i, _ in spec["gpus"]], spec["tp"], spec["pp"])
        if dp_size > 1:
            ports = list(spec["dp_master_ports"])
            dp_group_port, world_port = ports.pop(), ports.pop()
            if dp_rank == 0:
                held.append(bind_listener("0.0.0.0", dp_group_port))
                clog.info("DP group rendezvous store on %s:%d", spec["dp_master_ip"], dp_group_port)
                held.append(bind_listener("0.0.0.0", world_port))
                clog.info("world group (tp=%d, dp=%d) store on %s:%d", spec["tp"], dp_size,
                          spec["dp_master_ip"], world_port)
        else:
            world_port = get_open_port()
            held.append(bind_listener("0.0.0.0", world_port))
            clog.info("world group (tp=%d) init tcp://127.0.0.1:%d", spec["tp"], world_port)
        seconds = spec["load_seconds"]
        clog.info("Loading model %s (simulated %.1fs)", spec["model"], seconds)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            _exit_if_orphaned(parent, clog)
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
    except Exception as exc:  # noqa: BLE001 - any startup failure kills the engine
        clog.error("EngineCore failed to start: %s: %s\n%s", type(exc).__name__, exc,
                   traceback.format_exc())
        sys.stderr.flush()
        os._exit(1)
    ready_conn.send(("ready", dp_rank))
    ready_conn.close()
    clog.info("%s ready", title)
    while True:
        _exit_if_orphaned(parent, clog)
        time.sleep(0.2)


def coordinator_main(ready_conn):
    set_process_name("VLLM::DPCoordinator")
    clog = setup_logging("vllm.DPCoordinator")
    parent = os.getppid()
    clog.info("DP Coordinator pid=%d (ipc:// sockets only)", os.getpid())
    # vllm/v1/engine/coordinator.py: the coordinator waits for every engine's subscription and
    # answers READY before the engines finish their handshake, so the API server never serves
    # with its coordinator still starting.
    clog.info("All engine subscriptions received by DP coordinator")
    ready_conn.send(True)
    ready_conn.close()
    while True:
        _exit_if_orphaned(parent, clog)
        time.sleep(0.2)


class Rank:
    def __init__(self, dp_rank, process, ready):
        self.dp_rank = dp_rank
        self.process = process
        self.ready = ready
        self.waiting = 0              # admitted, prefill not done
        self.running = 0              # decoding
        self.prefill_queue = Queue()  # timing_model: one prefill at a time per rank
        self.prompt_tokens = 0
        self.generation_tokens = 0
        self.success = {"stop": 0, "length": 0, "abort": 0}

    def score(self):
        return self.waiting * 4 + self.running


class Engine:
    def __init__(self, args, model, gpus):
        self.args = args
        self.model = model
        self.gpus = gpus
        self.dp = args.data_parallel_size
        self.replica = args.tensor_parallel_size * args.pipeline_parallel_size * \
            args.prefill_context_parallel_size
        self.ranks = []
        self.coordinator = None
        self.coordinator_ready = None
        self._rotate = 0

    def start(self):
        ctx = multiprocessing.get_context("spawn")
        dp_ports = []
        if self.dp > 1:
            for _ in range(DP_MASTER_PORT_COUNT):
                dp_ports.append(get_open_port(skip=dp_ports))
            log.info("DP master ports (from the VLLM_PORT scan): %s", dp_ports)
            coordinator_recv, coordinator_send = ctx.Pipe(duplex=False)
            self.coordinator = ctx.Process(target=coordinator_main, args=(coordinator_send,),
                                           name="DPCoordinator")
            self.coordinator.start()
            coordinator_send.close()
            self.coordinator_ready = coordinator_recv
            log.info("Started DP Coordinator process (PID: %d)", self.coordinator.pid)
        for r in range(self.dp):
            spec = {"model": self.model, "dp_rank": r, "dp_size": self.dp,
                    "tp": self.args.tensor_parallel_size, "pp": self.args.pipeline_parallel_size,
                    "gpus": self.gpus[r * self.replica:(r + 1) * self.replica],
                    "dp_master_ports": dp_ports,
                    "dp_master_ip": self.args.data_parallel_address or "127.0.0.1",
                    "load_seconds": env_float("SRT_STANDIN_LOAD_SECONDS", 0.0)}
            ready_recv, ready_send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=engine_core_main, args=(spec, ready_send),
                               name=f"EngineCore_DP{r}")
            proc.start()
            ready_send.close()
            self.ranks.append(Rank(r, proc, ready_recv))

    def wait_ready(self):
        """None when every EngineCore is ready, else the dead child's description."""
        pending = {r.ready: r.process for r in self.ranks}
        if self.coordinator_ready is not None:
            pending[self.coordinator_ready] = self.coordinator
        while pending:
            waitables = list(pending) + [proc.sentinel for proc in pending.values()]
            for obj in multiprocessing.connection.wait(waitables, timeout=0.5):
                if obj in pending:
                    try:
                        obj.recv()
                        del pending[obj]
                        continue
                    except EOFError:
                        pass
            dead = self.dead_child()
            if dead is not None:
                return dead
        log.info("%d EngineCore(s) ready", len(self.ranks))
        return None

    def dead_child(self):
        for rank in self.ranks:
            if rank.process.exitcode is not None:
                return f"EngineCore_DP{rank.dp_rank} (pid {rank.process.pid}) exit code {rank.process.exitcode}"
        if self.coordinator is not None and self.coordinator.exitcode is not None:
            return f"DPCoordinator (pid {self.coordinator.pid}) exit code {self.coordinator.exitcode}"
        return None

    def stop(self, grace=3.0):
        procs = [r.process for r in self.ranks] + ([self.coordinator] if self.coordinator else [])
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
        deadline = time.monotonic() + grace
        for proc in procs:
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join(1.0)

    def pick(self):
        """Least score (waiting x 4 + running); ties go round the ranks."""
        n = len(self.ranks)
        self._rotate = (self._rotate + 1) % n
        order = self.ranks[self._rotate:] + self.ranks[:self._rotate]
        return min(order, key=Rank.score)
