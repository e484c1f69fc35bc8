# Draws srt-helper report's throughput-vs-interactivity picture (PNG and SVG) with matplotlib.
#
# Why matplotlib (python3-matplotlib, run as Debian's /usr/bin/python3 -I -c <this script>):
# the picture InferenceX publishes is a matplotlib-style scatter-with-lines chart, and matplotlib
# lays out axes, ticks, legend and point labels well for any data range, with no layout code of
# ours to get wrong. It runs as a child process, so a plotting problem can never crash
# srt-helper (the table is printed before), and the data arrive as JSON on stdin: nothing is
# interpolated into a shell or a program text. gnuplot would need its own quoting of run names;
# cairo/plplot would mean writing axis and legend layout in C++.
#
# Input (JSON on stdin): {"png", "svg", "title", ["caveat",] "x_label", "y_label", "runs": [{"label",
# "points": [{"concurrency", "x", "y", "failed", "reason"}], "not_drawn": ["c128: missing ..."]}]}
# Every drawn point is its own artist with gid "srt-point-<run>-c<N>", so the SVG has one
# <g id="srt-point-..."> per point (the tests count them). Exit 0, or 2 with a message.
import json
import os
import sys


def fail(message):
    sys.stderr.write("plot: " + message + "\n")
    sys.exit(2)


def plain(text):
    # matplotlib reads $...$ as mathtext; run names and paths are plain text.
    return text.replace("$", r"\$")


def main():
    try:
        spec = json.load(sys.stdin)
    except ValueError as err:
        fail("bad input JSON: %s" % err)
    try:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib import pyplot as plt
        from matplotlib.lines import Line2D
    except ImportError as err:
        fail("matplotlib is not available to %s (%s); install python3-matplotlib "
             "(scripts/install-deps.sh)" % (sys.executable, err))

    # Text stays text in the SVG, and no run-dependent ids or dates: the same data give the
    # same file.
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["svg.hashsalt"] = "srt-report"

    fig, ax = plt.subplots(figsize=(11, 7))
    handles = []
    any_failed = False
    for i, run in enumerate(spec["runs"]):
        color = "C%d" % (i % 10)
        ok = [p for p in run["points"] if not p["failed"]]
        if len(ok) > 1:
            ax.plot([p["x"] for p in ok], [p["y"] for p in ok], "-", color=color, linewidth=1.6,
                    alpha=0.85)
        for p in run["points"]:
            any_failed = any_failed or p["failed"]
            gid = "srt-point-%d-c%d" % (i, p["concurrency"])
            if p["failed"]:
                ax.plot([p["x"]], [p["y"]], linestyle="none", marker="X", markersize=10,
                        markeredgecolor="black", markeredgewidth=0.6, color=color, gid=gid)
                label = "c%d (failed)" % p["concurrency"]
            else:
                ax.plot([p["x"]], [p["y"]], linestyle="none", marker="o", markersize=7,
                        color=color, gid=gid)
                label = "c%d" % p["concurrency"]
            ax.annotate(label, (p["x"], p["y"]), textcoords="offset points", xytext=(6, 5),
                        fontsize=8, color=color)
        handles.append(Line2D([], [], color=color, marker="o", label=plain(run["label"])))
    if any_failed:
        handles.append(Line2D([], [], color="gray", marker="X", linestyle="none",
                              markeredgecolor="black", label="failed point (drawn, not joined)"))

    if spec.get("caveat"):  # a lab of stand-ins: say it where nobody can miss it
        ax.set_title(plain(spec["title"]) + "\n" + plain(spec["caveat"]), color="firebrick")
    else:
        ax.set_title(plain(spec["title"]))
    ax.set_xlabel(spec["x_label"])
    ax.set_ylabel(spec["y_label"])
    ax.margins(0.08)  # room for the cN labels beside the outermost points
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    if handles:
        ax.legend(handles=handles, loc="best", fontsize=9)

    notes = [plain("%s: %s" % (run["label"], note)) for run in spec["runs"] for note in run["not_drawn"]]
    if notes:
        shown = notes[:8] + (["... and %d more" % (len(notes) - 8)] if len(notes) > 8 else [])
        text = "Not drawn:\n" + "\n".join(shown)
        fig.text(0.01, 0.01, text, fontsize=8, va="bottom", ha="left", color="firebrick")
        fig.subplots_adjust(bottom=0.12 + 0.022 * len(shown))

    # Write beside the target and rename, so a reader never sees half a picture.
    for path, fmt, metadata in ((spec["png"], "png", {"Software": None}),
                                (spec["svg"], "svg", {"Date": None})):
        tmp = path + ".tmp"
        try:
            fig.savefig(tmp, format=fmt, dpi=120, metadata=metadata)
            os.replace(tmp, path)
        except OSError as err:
            fail("cannot write %s: %s" % (path, err))


main()
