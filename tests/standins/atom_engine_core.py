"""One ATOM EngineCore (one DP rank) as a child process of the stand-in server.

What a rank binds, in ATOM's order (engine_core_mgr.py, model_runner.py, scheduler.py,
mooncake_connector.py at ffdf3bb):
1. distributed init, before the model loads. Global rank 0 owns the torch TCPStores:
   MASTER_PORT (the server's --port) and the init-method port ATOM_DP_BASE_PORT; with DP > 1
   DP rank 0 also owns the gloo DP group's store on ATOM_DP_MASTER_PORT.
2. model load (SRT_STANDIN_LOAD_SECONDS) and, in the real engine, CUDA-graph capture.
3. Mooncake connector per TP rank: its RDMA NIC(s) (rank_nics below), then a ZMQ ROUTER on
   tcp://*:(handshake_port + offset).
4. Scheduler: the KV-event publisher (after the load: the seed's collision came only after
   64 shards were loaded).
A bind failure raises out of the rank; the process exits 1 with the traceback in its log and
the parent notices (atom_server.py).
"""

import os
import queue
import re
import sys
import time
import traceback

import msgpack
import zmq

from kv_events import KvEventPublisher, KvEventsConfig, block_stored
from standin_common import bind_listener, host_ip, setup_logging

PERIODIC_EVENT_SECONDS = 1.0  # keeps a late subscriber fed without a request


def handshake_port_for(base, pp_rank, dp_rank, tp_rank, dp_size, tp_size):
    """ATOM port_offset.py: handshake_port + pp_rank*(dp*tp) + dp_rank*tp + tp_rank."""
    return base + pp_rank * (dp_size * tp_size) + dp_rank * tp_size + tp_rank


# -- Mooncake NIC choice ------------------------------------------------------------------
# ROCm/ATOM atom/kv_transfer/disaggregation/mooncake/mooncake_connector.py, the version with
# ROCR_VISIBLE_DEVICES, _select_ib_devices and _resolve_matched_rails (later than ffdf3bb):
# MooncakeConnector.__init__, _auto_select_ib_device, _parse_ib_devices, _select_ib_devices,
# _discover_active_matched_rails, _resolve_matched_rails, _validate_matched_rails.
SINGLE_PRIMARY = ("Matched rails require a single primary HCA per engine; "
                  "disable ib_enable_alternate_hca and use at most one ib_device")


def mooncake_config(kv_cfg):
    """The kv-transfer-config ATOM's Mooncake connector is built with: the config itself, or the
    "mooncake" entry of a "multi" connector (multi_connector._build_subconnectors); None when
    no Mooncake connector runs (ATOM's default connector is moriio)."""
    def name(cfg):
        return str(cfg.get("kv_connector") or "").strip().casefold()
    if name(kv_cfg) == "mooncake":
        return kv_cfg
    if name(kv_cfg) == "multi":
        for sub in kv_cfg.get("connectors") or []:
            if isinstance(sub, dict) and name(sub) == "mooncake":
                return sub
    return None


def sysfs_hcas(sysfs_root):
    """{HCA name: has an ACTIVE port} under SYSFS/class/infiniband, None if it cannot be
    listed. ACTIVE: a ports/*/state file reading "4: ..." (IB_PORT_ACTIVE, also RoCE)."""
    root = os.path.join(sysfs_root, "class", "infiniband")
    try:
        names = os.listdir(root)
    except OSError:
        return None
    hcas = {}
    for hca in names:
        if not os.path.exists(os.path.join(root, hca)):  # a dangling link: Path.exists()
            continue
        ports = os.path.join(root, hca, "ports")
        states = []
        for port in sorted(os.listdir(ports)) if os.path.isdir(ports) else []:
            try:
                with open(os.path.join(ports, port, "state"), encoding="utf-8") as f:
                    states.append(f.read().partition(":")[0].strip())
            except OSError:
                continue
        hcas[hca] = "4" in states
    return hcas


def parse_ib_devices(value):
    """_parse_ib_devices: comma-separated, blanks dropped, duplicates dropped, order kept."""
    return list(dict.fromkeys(d.strip() for d in value.split(",") if d.strip()))


def auto_ib_device(n, hcas):
    """_auto_select_ib_device: rdma<N> if it exists, else ionic_<N> if that does, else rdma<N>."""
    for name in (f"rdma{n}", f"ionic_{n}"):
        if name in hcas:
            return name
    return f"rdma{n}"


def matched_rails(value, protocol, nics, hcas, sysfs_root="/sys"):
    """_resolve_matched_rails: ATOM_MOONCAKE_MATCHED_RAILS is "auto" or a list of HCA names;
    blank is off. Any other value ("0" included) is a list; ValueError where ATOM refuses."""
    value, rdma = value.strip(), protocol.strip().lower() == "rdma"
    if value.lower() == "auto":
        if not rdma:
            raise ValueError("ATOM_MOONCAKE_MATCHED_RAILS requires protocol=rdma")
        if len(nics) != 1:
            raise ValueError(SINGLE_PRIMARY)
        family = re.fullmatch(r"(.*\D)(\d+)", nics[0])
        if family is None:
            raise ValueError(f"Cannot auto-discover matched rails for HCA {nics[0]!r}; "
                             "set ATOM_MOONCAKE_MATCHED_RAILS to an explicit HCA list")
        if hcas is None:
            raise ValueError(f"Cannot discover RDMA HCAs in {sysfs_root}/class/infiniband; "
                             "set ATOM_MOONCAKE_MATCHED_RAILS to an explicit HCA list")
        pattern = re.compile(re.escape(family[1]) + r"(\d+)")
        active = sorted((int(m[1]), name) for name, up in hcas.items()
                        if up and (m := pattern.fullmatch(name)))
        rails = [name for _, name in active]
        if nics[0] not in rails:
            raise ValueError(f"Primary HCA {nics[0]!r} has no readable ACTIVE RDMA port; "
                             "check the link and sysfs visibility before using matched rails")
    else:
        rails = parse_ib_devices(value)
    if not rails:
        return []
    if not rdma:  # _validate_matched_rails
        raise ValueError("ATOM_MOONCAKE_MATCHED_RAILS requires protocol=rdma")
    if len(nics) != 1:
        raise ValueError(SINGLE_PRIMARY)
    if nics[0] not in rails or any(r not in (hcas or {}) for r in rails):
        raise ValueError("Matched rails must name existing local HCAs including the primary HCA")
    return rails


def rank_nics(mc_cfg, env, device, hcas, sysfs_root="/sys"):
    """One rank's Mooncake NICs, as MooncakeConnector.__init__ picks them.

    mc_cfg: the Mooncake kv-transfer-config; env: the environment; device: the rank's local
    device index (torch.cuda.current_device()); hcas: sysfs_hcas() (a set of names does, but
    for ATOM_MOONCAKE_MATCHED_RAILS=auto, which needs the port states). Returns (protocol, nics,
    how, rails): nics is [] for TCP; how says where they came from; rails are the matched
    rails (ATOM_MOONCAKE_MATCHED_RAILS), [] when off. Raises where ATOM refuses to start."""
    protocol = str(mc_cfg.get("protocol", "rdma"))
    hcas_known = hcas or {}
    configured = mc_cfg.get("ib_device", "") or env.get("ATOM_MOONCAKE_IB_DEVICE", "")
    if protocol.strip().lower() == "tcp":
        nics, how = [], "tcp"
    elif configured:
        nics, how = parse_ib_devices(configured), "configured"
    else:
        # ROCR first: it filters before HIP, so a ROCR-only mask is not the identity.
        var = next((v for v in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                                "CUDA_VISIBLE_DEVICES") if env.get(v)), None)
        if var:
            n = int([d for d in env[var].split(",") if d != ""][device])
            how = f"auto: {var} entry {n}"
        else:
            n, how = device, f"auto: device index {device}"
        nics = [auto_ib_device(n, hcas_known)]
        if mc_cfg.get("ib_enable_alternate_hca", False):
            count = int(mc_cfg.get("ib_hca_count", 8))
            if count <= 0:
                raise ValueError("ib_hca_count must be a positive integer")
            for idx in range(count):
                extra = auto_ib_device(idx, hcas_known)
                if extra not in nics and extra in hcas_known:
                    nics.append(extra)
    rails = matched_rails(env.get("ATOM_MOONCAKE_MATCHED_RAILS", ""), protocol, nics, hcas,
                          sysfs_root)
    return protocol, nics, how, rails


class EngineCore:
    def __init__(self, spec, log):
        self.spec = spec
        self.log = log
        self.ctx = zmq.Context()
        self.held_sockets = []  # TCPStore stand-ins: bound and listening, never accepted
        self.handshake_sockets = []
        self.publisher = None
        self.events_published = 0
        self.parent_pid = os.getppid()

    # -- startup -------------------------------------------------------------------------
    def init_distributed(self):
        spec = self.spec
        if spec["global_rank"] == 0:
            self.held_sockets.append(bind_listener("0.0.0.0", spec["master_port"]))
            self.log.info("TCPStore (MASTER_PORT) listening on port %d", spec["master_port"])
            if spec["dp_base_port"] is not None:
                self.held_sockets.append(bind_listener("0.0.0.0", spec["dp_base_port"]))
                self.log.info("init_method tcp://%s:%d store listening", spec["dp_master_ip"],
                              spec["dp_base_port"])
        if spec["dp_size"] > 1 and spec["dp_rank"] == 0 and spec["pp_rank"] == 0:
            self.held_sockets.append(bind_listener("0.0.0.0", spec["dp_master_port"]))
            self.log.info("DP gloo group store listening on %s:%d", spec["dp_master_ip"],
                          spec["dp_master_port"])

    def load_model(self):
        seconds = self.spec["load_seconds"]
        self.log.info("Loading model %s (simulated %.1fs)", self.spec["model"], seconds)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.exit_if_orphaned()
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))

    def init_kv_transfer(self):
        spec = self.spec
        if not spec["kv_role"]:
            return
        for tp_rank in range(spec["tp_size"]):
            self.register_nics(tp_rank)
            port = handshake_port_for(spec["handshake_port"], spec["pp_rank"], spec["dp_rank"],
                                      tp_rank, spec["dp_size"], spec["tp_size"])
            sock = self.ctx.socket(zmq.ROUTER)
            sock.setsockopt(zmq.LINGER, 0)
            sock.bind(f"tcp://*:{port}")
            self.handshake_sockets.append((sock, tp_rank, port))
            self.log.info("Mooncake side channel (%s) bound tcp://*:%d for dp=%d tp=%d",
                          spec["kv_role"], port, spec["dp_rank"], tp_rank)

    def register_nics(self, tp_rank):
        """The rank's Mooncake NIC(s), logged; a refusal raises out of the rank, as in ATOM."""
        spec = self.spec
        mc_cfg = mooncake_config(spec.get("kv_cfg") or {})
        if mc_cfg is None:
            return
        # model_runner._setup_device_and_distributed: each (dp, pp) engine owns tp GPUs.
        device = (spec["dp_rank"] * spec["pp_size"] + spec["pp_rank"]) * spec["tp_size"] + tp_rank
        sysfs_root = os.environ.get("SRT_STANDIN_SYSFS", "/sys")
        hcas = sysfs_hcas(sysfs_root)
        protocol, nics, how, rails = rank_nics(mc_cfg, os.environ, device, hcas, sysfs_root)
        if not nics:
            self.log.info("Mooncake TCP selected; RDMA device selection is disabled")
            return
        self.log.info("Mooncake (%s) dp=%d tp=%d device %d registered on %s (%s)", protocol,
                      spec["dp_rank"], tp_rank, device, ",".join(nics), how)
        if rails and mc_cfg.get("kv_role", "kv_producer") == "kv_producer":
            self.log.info("Mooncake matched rails enabled: primary=%s rails=%s", nics[0], rails)

    def init_kv_events(self):
        config = KvEventsConfig()
        # Only the head PP stage runs a Scheduler, so only it publishes.
        if config.active and self.spec["pp_rank"] == 0:
            self.publisher = KvEventPublisher(self.ctx, config, self.spec["dp_rank"], self.log)

    # -- serving -------------------------------------------------------------------------
    def exit_if_orphaned(self):
        # ATOM's EngineCores die with their server; a SIGKILLed parent must not leave ranks.
        if os.getppid() != self.parent_pid:
            self.log.error("server process went away; EngineCore exiting")
            os._exit(1)

    def answer_handshake(self, sock, tp_rank, port):
        frames = sock.recv_multipart()
        reply = {
            "engine_id": self.spec["engine_id"], "dp_rank": self.spec["dp_rank"],
            "tp_rank": tp_rank, "port": port, "host": host_ip(),
            "kv_role": self.spec["kv_role"],
        }
        sock.send_multipart([frames[0], msgpack.packb(reply)])

    def publish_request(self, prompt_tokens, seed):
        block_size = self.spec["block_size"]
        blocks = max(1, prompt_tokens // block_size)
        hashes = [(seed * 1000003 + i) & 0x7FFFFFFFFFFFFFFF for i in range(blocks)]
        tokens = [(seed + i) % 32000 for i in range(min(prompt_tokens, blocks * block_size))]
        self.publisher.publish([block_stored(hashes, None, tokens, block_size)])
        self.events_published += 1

    def serve(self, requests):
        poller = zmq.Poller()
        for sock, _, _ in self.handshake_sockets:
            poller.register(sock, zmq.POLLIN)
        replay = self.publisher.replay_socket if self.publisher else None
        if replay is not None:
            poller.register(replay, zmq.POLLIN)
        next_periodic = time.monotonic()
        while True:
            self.exit_if_orphaned()
            for sock, _ in poller.poll(50):
                if sock is replay:
                    self.publisher.serve_replay()
                    continue
                for hs_sock, tp_rank, port in self.handshake_sockets:
                    if hs_sock is sock:
                        self.answer_handshake(hs_sock, tp_rank, port)
            drained = 0
            while drained < 1024:
                try:
                    kind, prompt_tokens, seed = requests.get_nowait()
                except queue.Empty:
                    break
                drained += 1
                if kind == "stop":
                    return
                if self.publisher is not None:
                    self.publish_request(prompt_tokens, seed)
            if self.publisher is not None and time.monotonic() >= next_periodic:
                next_periodic = time.monotonic() + PERIODIC_EVENT_SECONDS
                self.publish_request(self.spec["block_size"], self.events_published + 1)


def engine_core_main(spec, ready_conn, requests):
    """multiprocessing target. Exit codes: 0 stopped, 1 failed (traceback logged)."""
    log = setup_logging(f"atom.EngineCore_DP{spec['dp_rank']}")
    log.info("EngineCore dp_rank=%d/%d pp_rank=%d tp=%d pid=%d starting", spec["dp_rank"],
             spec["dp_size"], spec["pp_rank"], spec["tp_size"], os.getpid())
    core = EngineCore(spec, log)
    try:
        core.init_distributed()
        core.load_model()
        core.init_kv_transfer()
        core.init_kv_events()
    except Exception as exc:  # noqa: BLE001 - any startup failure kills the rank, as in ATOM
        log.error("EngineCore dp_rank=%d failed to start: %s: %s\n%s", spec["dp_rank"],
                  type(exc).__module__ + "." + type(exc).__name__, exc, traceback.format_exc())
        sys.stderr.flush()
        os._exit(1)
    ready_conn.send(("ready", spec["dp_rank"]))
    ready_conn.close()
    log.info("EngineCore dp_rank=%d ready", spec["dp_rank"])
    core.serve(requests)
    return 0
